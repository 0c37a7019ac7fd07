"""Every page in the seats of a classroom, in Chromium: a projector (the control being taught and
the chart it moves on one screen, at 1920×1080 and 1280×720), a phone (390 px: no chart title cut
off), and the keyboard (focus stays on a slider after a preset is loaded).

Pages and their taught control and chart come from the one menu (``specviz.ui.page.PAGES``): a new
page is covered by declaring its ``fold``.
"""

from __future__ import annotations

import pytest
from streamlit_server import (
    REPO_ROOT,
    key_class,
    open_app,
    page_url,
    rerun_waiter,
    wait_for_charts,
)

from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

PROJECTORS = [(1920, 1080), (1280, 720)]
FOLDED = [info for info in PAGES if all(info.fold)]


def box(page, key: str) -> dict:
    """The box of the element with this key, or of a part of it: "key selector" (a selector
    inside the element; it reaches into the live view's shadow root)."""
    key, _, inside = key.partition(" ")
    locator = page.locator(f".{key_class(key)} {inside}".strip()).first
    locator.wait_for(state="visible", timeout=15_000)
    found = locator.bounding_box()
    assert found is not None, f"{key} is not drawn"
    return found


@pytest.mark.parametrize("size", PROJECTORS, ids=[f"{w}x{h}" for w, h in PROJECTORS])
@pytest.mark.parametrize("info", FOLDED, ids=[info.label for info in FOLDED])
def test_projector_shows_the_taught_control_and_its_chart_without_scrolling(
    browser, streamlit_server, screenshot_dir, info, size
) -> None:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        open_app(page, page_url(streamlit_server, REPO_ROOT / info.script) + "?projector=1")
        wait_for_charts(page)
        page.wait_for_timeout(500)  # a chart drawn a moment after the run
        control, chart = info.fold
        c = box(page, control)
        # (One draw's player is the control and the chart at once: the chart's rule applies.)
        assert control == chart or (c["y"] >= 0 and c["y"] + c["height"] <= height), (
            f"{info.label}: the control {control} spans y = {c['y']:.0f}..."
            f"{c['y'] + c['height']:.0f} on a {height} px screen"
        )
        g = box(page, chart)
        visible = max(0.0, min(g["y"] + g["height"], height) - max(g["y"], 0.0))
        share = visible / g["height"]
        page.screenshot(path=str(screenshot_dir / f"fold_{info.label}_{width}x{height}.png"))
        # One draw's player is both the control and the chart: its tally's legend may sit just
        # below the edge; everything else must show.
        assert share >= 0.9, (
            f"{info.label}: only {100 * share:.0f}% of {chart} shows on a {width}x{height} "
            f"projector (it spans y = {g['y']:.0f}..{g['y'] + g['height']:.0f})"
        )
        assert page.get_by_test_id("stException").count() == 0
    finally:
        context.close()


def test_projector_sliders_are_big_and_their_values_clear_of_their_labels(
    browser, streamlit_server
) -> None:
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    try:
        open_app(page, page_url(streamlit_server, REPO_ROOT / PAGES[1].script) + "?projector=1")
        thumb = page.locator(
            f".{key_class('w.gamma')} div:has(> div > input[type='range'])"
        ).bounding_box()
        assert thumb is not None and thumb["width"] >= 24 and thumb["height"] >= 24, thumb
        label = page.locator(f".{key_class('w.gamma')} [data-testid='stWidgetLabel']")
        value = page.locator(f".{key_class('w.gamma')} [data-testid='stSliderThumbValue']")
        lb, vb = label.bounding_box(), value.bounding_box()
        assert lb is not None and vb is not None
        assert vb["y"] >= lb["y"] + lb["height"] - 1, f"value {vb} runs into the label {lb}"
    finally:
        context.close()


# --------------------------------------------------------------------------- a phone


PHONE = {"width": 390, "height": 844}

_CLIPPED_TITLES = """() => {
  const out = [];
  const charts = document.querySelectorAll(
    '[data-testid="stPlotlyChart"] .main-svg, [data-testid="stVegaLiteChart"] svg.marks');
  charts.forEach((svg, i) => {
    const frame = svg.getBoundingClientRect();
    const texts = svg.matches('.main-svg')
      ? svg.parentElement.querySelectorAll('.gtitle, .legend .traces text')
      : svg.querySelectorAll('text');  // a Vega chart: every title, legend and axis text
    texts.forEach((t) => {
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < frame.left - 1 || r.right > frame.right + 1)) {
        const where = `${r.left.toFixed(0)}..${r.right.toFixed(0)}`;
        const room = `${frame.left.toFixed(0)}..${frame.right.toFixed(0)}`;
        out.push(`chart ${i}: "${t.textContent}" spans ${where} in a chart ${room}`);
      }
    });
  });
  return out;
}"""


@pytest.mark.parametrize("info", PAGES, ids=[info.label for info in PAGES])
def test_phone_shows_every_chart_title_and_legend_whole(
    browser, streamlit_server, screenshot_dir, info
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        open_app(page, page_url(streamlit_server, REPO_ROOT / info.script))
        wait_for_charts(page)
        page.wait_for_timeout(500)
        clipped = page.evaluate(_CLIPPED_TITLES)
        assert not clipped, f"{info.label} at 390 px: " + "; ".join(clipped)
        assert page.get_by_test_id("stException").count() == 0
        # No page wider than the phone: nothing to scroll sideways for.
        overflow = page.evaluate(
            "() => document.querySelector('[data-testid=stMain]').scrollWidth - innerWidth"
        )
        assert overflow <= 1, f"{info.label} is {overflow} px wider than the phone"
    finally:
        context.close()


# --------------------------------------------------------------------------- the keyboard


def test_focus_stays_on_a_bar_after_a_preset(page, streamlit_server) -> None:
    """Load a preset, then move a bar of the live view from the keyboard twice: the lesson box
    that the preset showed goes away, and the bar must keep the focus."""
    open_app(page, page_url(streamlit_server, REPO_ROOT / PAGES[1].script))
    preset = page.locator(f".{key_class('pg.preset')} input")
    preset.click()
    with rerun_waiter(page):
        page.get_by_role("option", name="Close draft").click()
    assert page.get_by_test_id("stAlertContentInfo").filter(has_text="Close draft").count() == 1
    bar = page.get_by_role("slider", name="target p weight of mat", exact=True)
    bar.focus()
    start = int(bar.get_attribute("aria-valuenow"))
    for moved in (1, 2):
        with rerun_waiter(page):
            page.keyboard.press("ArrowUp")
        focused = page.evaluate(
            "() => window.specviz.live.root.activeElement?.getAttribute('aria-label')"
        )
        assert focused == "target p weight of mat", f"after {moved} key press(es): {focused!r}"
        assert int(bar.get_attribute("aria-valuenow")) == start + moved
    assert page.get_by_test_id("stAlertContentInfo").filter(has_text="Close draft").count() == 0
