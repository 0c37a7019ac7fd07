"""The real app in Chromium: the landing page and every page by its own URL (a deep link).

- every page: no stException, no "page not found", the heading AppTest sees is a heading the
  browser shows (so a deep link shows *its* page, not the landing page), a screenshot in
  tests/screenshots/;
- the very first visit after a server start is a deep link (a dedicated fresh server per page), and
  it shows the same page and the same navigation links as a later visit;
- the first slider of each page (if any) reruns the page from the keyboard without an exception.

Run one at a time (2 cores: Chromium is the bottleneck). Skip with `-m "not browser"`.
"""

from __future__ import annotations

import pytest
from streamlit_server import (
    REPO_ROOT,
    all_scripts,
    expected_heading,
    heading_words,
    open_app,
    page_id,
    page_scripts,
    page_url,
    poll,
    rerun_waiter,
    wait_for_charts,
)

from specviz.ui.page import PAGES as MENU

pytestmark = pytest.mark.browser

SCRIPTS = all_scripts()
PAGES = page_scripts()
IDS = [page_id(s) for s in SCRIPTS]
#: Pages a learner works with (the lecturer's guide is text and links only).
_LEARNER = {info.script for info in MENU if info.for_learners}
CONTROLLED = [s for s in SCRIPTS if str(s.relative_to(REPO_ROOT)) in _LEARNER]

NAV_LINKS = '[data-testid="stPageLink"] a, [data-testid="stSidebarNavLink"]'
HEADINGS = '[data-testid="stMain"] :is(h1, h2, h3)'


@pytest.fixture(scope="module")
def headings() -> dict[str, str | None]:
    """page id -> the first heading AppTest renders (computed once per page)."""
    return {}


def _expected(headings: dict[str, str | None], script) -> str | None:
    key = page_id(script)
    if key not in headings:
        headings[key] = expected_heading(script)
    return headings[key]


def check_rendered(page, watcher, script, expected: str | None) -> None:
    """What every page must show once its script has finished."""
    assert not watcher.pages_not_found, f"Streamlit said page not found: {watcher.pages_not_found}"
    assert not watcher.exceptions, f"{page_id(script)} sent exceptions: {watcher.exceptions}"
    assert page.get_by_test_id("stException").count() == 0, (
        f"{page_id(script)} shows an stException:\n"
        + page.get_by_test_id("stException").first.inner_text()
    )

    main_text = page.get_by_test_id("stMain").inner_text().strip()
    assert main_text, f"{page_id(script)}: stMain is empty"

    assert expected, f"{page_id(script)}: AppTest found no title/heading to look for"
    want = heading_words(expected)
    shown = [heading_words(t) for t in page.locator(HEADINGS).all_inner_texts()]
    assert any(set(want) <= set(words) for words in shown), (
        f"{page_id(script)}: expected a heading like {expected!r}, the browser shows "
        f"{page.locator(HEADINGS).all_inner_texts()}"
    )


def nav_links(page) -> list[tuple[str, str]]:
    links = page.locator(NAV_LINKS)
    return [
        (links.nth(i).inner_text().strip(), links.nth(i).get_attribute("href") or "")
        for i in range(links.count())
    ]


@pytest.mark.parametrize("script", SCRIPTS, ids=IDS)
def test_page_by_url(page, streamlit_server, screenshot_dir, headings, script) -> None:
    watcher = open_app(page, page_url(streamlit_server, script))
    wait_for_charts(page)
    page.screenshot(path=screenshot_dir / f"{page_id(script).replace('/', '__')}.png")
    check_rendered(page, watcher, script, _expected(headings, script))


@pytest.mark.parametrize("script", PAGES, ids=[page_id(s) for s in PAGES])
def test_deep_link_as_first_visit(browser, fresh_streamlit_server, headings, script) -> None:
    """A shared link is often the first request a freshly woken server gets. Its page and its menu
    must look exactly like on any later visit."""
    url = page_url(fresh_streamlit_server, script)
    shown = []
    for _visit in ("first", "second"):
        context = browser.new_context(viewport={"width": 1280, "height": 1600})
        try:
            page = context.new_page()
            watcher = open_app(page, url)
            check_rendered(page, watcher, script, _expected(headings, script))
            shown.append(
                (
                    nav_links(page),
                    page.locator(HEADINGS).all_inner_texts(),
                    page.get_by_test_id("stSidebarNav").count(),
                )
            )
        finally:
            context.close()
    first, second = shown
    assert first == second, (
        f"{page_id(script)}: the first visit after a server start differs from a later one\n"
        f"first:  {first}\nsecond: {second}"
    )


@pytest.mark.parametrize("script", CONTROLLED, ids=[page_id(s) for s in CONTROLLED])
def test_first_control_reruns_from_the_keyboard(page, streamlit_server, script) -> None:
    """Keyboard on a page's first slider (or, on a page without one, its first radio group): the
    rerun finishes and shows no exception. Every page has a control a keyboard can reach."""
    watcher = open_app(page, page_url(streamlit_server, script))
    main = page.get_by_test_id("stMain")
    sliders = main.get_by_role("slider")
    # A live view (Home, the Playground) draws its controls a frame after the run.
    poll(page, lambda: sliders.count() or main.get_by_role("radio").count(), "a control")
    if sliders.count():
        control = sliders.first  # Streamlit's thumb is an <input type=range>
        before = control.input_value()
        at_max = float(before) >= float(control.get_attribute("max") or "inf")
        control.focus()
        with rerun_waiter(page):
            page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
        assert control.input_value() != before, f"{page_id(script)}: the slider did not move"
    else:
        radios = main.get_by_role("radio")
        assert radios.count() > 1, f"{page_id(script)} has no slider or radio group to test"
        checked = main.get_by_role("radio", checked=True).first
        before = checked.get_attribute("aria-label") or checked.evaluate("e => e.value")
        checked.focus()
        with rerun_waiter(page):
            page.keyboard.press("ArrowRight")
        now = main.get_by_role("radio", checked=True).first
        after = now.get_attribute("aria-label") or now.evaluate("e => e.value")
        assert after != before, f"{page_id(script)}: the radio selection did not move"
    assert not watcher.exceptions, watcher.exceptions
    assert page.get_by_test_id("stException").count() == 0
