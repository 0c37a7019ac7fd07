"""Every page in the seats of a classroom, in Chromium: a projector (the control being taught and
the chart it moves on one screen, at 1920×1080 and 1280×720), a phone (390 px) and a 1280 px
projector (no chart text cut off), no page wider than its screen, and the keyboard (focus stays on a
slider after a preset is loaded).

Pages and their taught control and chart come from the one menu (``specviz.ui.page.PAGES``): a new
page is covered by declaring its ``fold``. The fold and the phone read the page's visit in that seat
(tests/visits.py), which the accessibility tests audit too.
"""

from __future__ import annotations

import pytest
import visits
from streamlit_server import REPO_ROOT, key_class, open_app, page_url, poll, rerun_waiter
from visits import AUDITED, PHONE, PROJECTOR, PROJECTOR_720, visit_of

from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

FOLDED = [info for info in PAGES if all(info.fold)]


def cases(infos: list, seats: tuple) -> list:
    """(page, seat) pairs in the xdist group of their visit (tests/visits.py)."""
    return [
        pytest.param(
            info,
            seat,
            id=f"{info.label}-{seat.width}x{seat.height}",
            marks=visits.group(REPO_ROOT / info.script, seat),
        )
        for info in infos
        for seat in seats
    ]


@pytest.mark.parametrize(("info", "seat"), cases(FOLDED, (PROJECTOR, PROJECTOR_720)))
def test_projector_shows_the_taught_control_and_its_chart_without_scrolling(
    request, info, seat
) -> None:
    shown = visit_of(request, REPO_ROOT / info.script, seat)
    control, chart = info.fold
    c, g = shown.fold["control"], shown.fold["chart"]
    # (One draw's player is the control and the chart at once: the chart's rule applies.)
    assert control == chart or (c["y"] >= 0 and c["y"] + c["height"] <= seat.height), (
        f"{info.label}: the control {control} spans y = {c['y']:.0f}..."
        f"{c['y'] + c['height']:.0f} on a {seat.height} px screen"
    )
    visible = max(0.0, min(g["y"] + g["height"], seat.height) - max(g["y"], 0.0))
    share = visible / g["height"]
    # One draw's player is both the control and the chart: its tally's legend may sit just
    # below the edge; everything else must show.
    assert share >= 0.9, (
        f"{info.label}: only {100 * share:.0f}% of {chart} shows on a {seat.width}x{seat.height} "
        f"projector (it spans y = {g['y']:.0f}..{g['y'] + g['height']:.0f})"
    )
    assert not shown.shown_exceptions


@pytest.mark.parametrize(("info", "seat"), cases(PAGES[1:2], (PROJECTOR,)))
def test_projector_sliders_are_big_and_their_values_clear_of_their_labels(
    request, info, seat
) -> None:
    parts = visit_of(request, REPO_ROOT / info.script, seat).gamma
    if isinstance(parts, Exception):
        raise parts
    assert parts, f"{info.label} has no {visits.GAMMA} slider"
    thumb, lb, vb = parts["thumb"], parts["label"], parts["value"]
    assert thumb is not None and thumb["width"] >= 24 and thumb["height"] >= 24, thumb
    assert lb is not None and vb is not None
    assert vb["y"] >= lb["y"] + lb["height"] - 1, f"value {vb} runs into the label {lb}"


@pytest.mark.parametrize(("info", "seat"), cases(PAGES, (PHONE,)) + cases(FOLDED, (PROJECTOR_720,)))
def test_every_chart_text_shows_whole_on_a_phone_and_a_1280_projector(request, info, seat) -> None:
    """A phone's one column, and a 1280 px projector's side column beside the taught control:
    no title, legend or label of a chart runs past its edge."""
    shown = visit_of(request, REPO_ROOT / info.script, seat)
    assert not shown.clipped, f"{info.label} on the {seat.name}: " + "; ".join(shown.clipped)
    assert not shown.shown_exceptions


@pytest.mark.parametrize(("info", "seat"), cases(PAGES, AUDITED) + cases(FOLDED, (PROJECTOR_720,)))
def test_no_page_is_wider_than_its_screen(request, info, seat) -> None:
    """Nothing to scroll sideways for, in any seat."""
    shown = visit_of(request, REPO_ROOT / info.script, seat)
    assert shown.overflow <= 1, f"{info.label} is {shown.overflow} px wider than {seat.name}"


# --------------------------------------------------------------------------- the keyboard


def test_focus_stays_on_a_bar_after_a_preset(page, streamlit_server) -> None:
    """Load a preset, then move a bar of the live view from the keyboard off the preset's weights
    and back: the preset menu and its lesson box follow (the first move reruns the whole page, as
    the menu sits outside the part a drag reruns), and the bar keeps the focus."""
    open_app(page, page_url(streamlit_server, REPO_ROOT / PAGES[1].script))
    menu = page.locator(f".{key_class('pg.preset')} input")
    menu.click()
    with rerun_waiter(page):
        page.get_by_role("option", name="Close draft").click()
    lesson = page.get_by_test_id("stAlertContentInfo").filter(has_text="Close draft")
    assert lesson.count() == 1
    bar = page.get_by_role("slider", name="target p weight of mat", exact=True)
    bar.focus()
    start = int(bar.get_attribute("aria-valuenow"))
    for key, moved, shown, boxes in (
        ("ArrowUp", 1, "your own weights", 0),
        ("ArrowDown", 0, "Close draft", 1),
    ):
        page.keyboard.press(key)
        poll(page, lambda s=shown: menu.input_value() == s, f"the menu showing {shown}")
        poll(page, lambda b=boxes: lesson.count() == b, f"{boxes} lesson box(es)")
        focused = page.evaluate(
            "() => window.specviz.live.root.activeElement?.getAttribute('aria-label')"
        )
        assert focused == "target p weight of mat", f"after {key}: {focused!r}"
        assert int(bar.get_attribute("aria-valuenow")) == start + moved
