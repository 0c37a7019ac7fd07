"""Charts update in place: a page's main control moved from the keyboard gives every chart new
data in the element already on the page (Streamlit's Vega element, whose spec stays the same),
instead of a new chart drawn from scratch; a view that is not a chart (a component, as the
timeline of "Many words per call") stays mounted too, and no page reloads an iframe. That is what
makes a control feel immediate."""

from __future__ import annotations

import pytest
from streamlit_server import (
    REPO_ROOT,
    assert_clean,
    key_class,
    open_app,
    page_url,
    rerun_waiter,
    wait_for_charts,
)

from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

#: Pages whose first control is a widget and whose first chart is a Vega chart.
CHARTED = [info for info in PAGES if info.fold[0].startswith("w.") and ".chart." in info.fold[1]]

_CHARTS = "[data-testid=stVegaLiteChart]"
#: Components' views (their content in a shadow root).
_VIEWS = "[data-testid=stMain] [data-testid=stBidiComponentIsolated]"


def move(page, control: str) -> None:
    """Move ``control`` one step from the keyboard, as a learner would, and wait for the run."""
    box = page.locator(f".{key_class(control)}")
    slider = box.get_by_role("slider")
    radio = box.get_by_role("radio")
    with rerun_waiter(page):
        if slider.count():
            slider.first.focus()
            at_end = slider.first.get_attribute("aria-valuenow") == slider.first.get_attribute(
                "aria-valuemax"
            )
            page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
        elif radio.count():
            box.locator("input:checked").focus()
            page.keyboard.press("ArrowDown")
        else:  # a select box: open it, take the next option
            box.locator("input").first.click()
            page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")


@pytest.mark.parametrize("info", CHARTED, ids=[info.label for info in CHARTED])
def test_a_control_gives_every_chart_new_data_in_place(page, streamlit_server, info) -> None:
    watcher = open_app(page, page_url(streamlit_server, REPO_ROOT / info.script))
    wait_for_charts(page)
    page.wait_for_timeout(500)
    page.evaluate(
        f"() => document.querySelectorAll('{_VIEWS}').forEach((e) => e.dataset.kept = '1')"
    )
    before = page.evaluate(
        f"""() => [...document.querySelectorAll('{_CHARTS}')].map((e) => {{
            e.dataset.kept = '1';
            return e.querySelector('svg')?.innerHTML ?? '';
        }})"""
    )
    assert before, f"{info.label} shows no Vega chart"
    move(page, info.fold[0])
    page.wait_for_timeout(600)  # Vega redraws a moment after the run
    after = page.evaluate(
        f"""() => [...document.querySelectorAll('{_CHARTS}')].map((e) =>
            [e.dataset.kept === '1', e.querySelector('svg')?.innerHTML ?? ''])"""
    )
    assert [kept for kept, _ in after] == [True] * len(before), (
        f"{info.label}: a chart was drawn anew instead of updated in place"
    )
    assert [text for _, text in after] != before, f"{info.label}: no chart changed"
    # A part's hidden hand-over of the share link (state.sync_url) is new on its reruns; not a view.
    views = page.evaluate(
        f"""() => [...document.querySelectorAll('{_VIEWS}')]
            .filter((e) => !e.closest('.st-key-share-relay')).map((e) => e.dataset.kept)"""
    )
    assert views == ["1"] * len(views), f"{info.label}: a view was mounted anew"
    assert page.locator("[data-testid=stMain] iframe").count() == 0, (
        f"{info.label}: an iframe, reloaded by each change"
    )
    assert_clean(page, watcher)
