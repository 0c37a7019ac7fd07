"""The real app in Chromium: the landing page and every page by its own URL (a deep link).

- every page: no stException, no "page not found", the heading AppTest sees is a heading the
  browser shows (so a deep link shows *its* page, not the landing page), a screenshot in
  tests/screenshots/;
- the very first visit after a server start is a deep link (a dedicated fresh server per page), and
  it shows the same page and the same navigation links as a later visit;
- the first slider of each page (if any) reruns the page from the keyboard without an exception.

The page on the shared server is the laptop's visit of tests/visits.py (loaded once, read by the
accessibility tests too).
"""

from __future__ import annotations

import contextlib

import pytest
import visits
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
)
from visits import HEADINGS, LAPTOP, Visit, settle, shows, visit_of

from specviz.ui.page import PAGES as MENU

pytestmark = pytest.mark.browser

SCRIPTS = all_scripts()
PAGES = page_scripts()
#: Pages a learner works with (the lecturer's guide is text and links only).
_LEARNER = {info.script for info in MENU if info.for_learners}
CONTROLLED = [s for s in SCRIPTS if str(s.relative_to(REPO_ROOT)) in _LEARNER]


def cases(scripts: list) -> list:
    return [pytest.param(s, id=page_id(s), marks=visits.group(s, LAPTOP)) for s in scripts]


@pytest.fixture(scope="module")
def headings() -> dict[str, str | None]:
    """page id -> the first heading AppTest renders (computed once per page)."""
    return {}


def _expected(headings: dict[str, str | None], script) -> str | None:
    key = page_id(script)
    if key not in headings:
        headings[key] = expected_heading(script)
    return headings[key]


def check_rendered(shown: Visit, script, expected: str | None) -> None:
    """What every page must show once its script has finished."""
    assert not shown.pages_not_found, f"Streamlit said page not found: {shown.pages_not_found}"
    assert not shown.exceptions, f"{page_id(script)} sent exceptions: {shown.exceptions}"
    assert not shown.shown_exceptions, f"{page_id(script)} shows an stException:\n" + "\n".join(
        shown.shown_exceptions
    )
    assert shown.main_text, f"{page_id(script)}: stMain is empty"
    assert expected, f"{page_id(script)}: AppTest found no title/heading to look for"
    want = heading_words(expected)
    assert any(set(want) <= set(heading_words(t)) for t in shown.headings), (
        f"{page_id(script)}: expected a heading like {expected!r}, the browser shows "
        f"{shown.headings}"
    )


@pytest.mark.parametrize("script", cases(SCRIPTS))
def test_page_by_url(request, headings, script) -> None:
    check_rendered(visit_of(request, script, LAPTOP), script, _expected(headings, script))


@pytest.mark.parametrize("script", cases(PAGES))
def test_deep_link_as_first_visit(request, browser, fresh_streamlit_server, headings, script):
    """A shared link is often the first request a freshly woken server gets. Its page and its menu
    must look exactly like on any later visit (the laptop's visit on the shared server)."""
    later = visit_of(request, script, LAPTOP)
    context = browser.new_context(viewport={"width": LAPTOP.width, "height": LAPTOP.height})
    try:
        page = context.new_page()
        watcher = open_app(page, page_url(fresh_streamlit_server, script))
        settle(page)
        # A view draws its own headings once its script has loaded, which on a server's first
        # visit under load can come after the charts: wait for them as long as a visit may.
        with contextlib.suppress(AssertionError):
            poll(
                page,
                lambda: page.locator(HEADINGS).all_inner_texts() == later.headings,
                "the later visit's headings",
                timeout_ms=15_000,
            )
        first = shows(page, watcher)
    finally:
        context.close()
    check_rendered(first, script, _expected(headings, script))
    assert (first.menu, first.headings) == (later.menu, later.headings), (
        f"{page_id(script)}: the first visit after a server start differs from a later one\n"
        f"first:  {first.menu} {first.headings}\nlater: {later.menu} {later.headings}"
    )


@pytest.mark.parametrize("script", cases(CONTROLLED))
def test_first_control_reruns_from_the_keyboard(request, script) -> None:
    """Keyboard on a page's first slider (or, on a page without one, its first radio group): the
    rerun finishes and shows no exception. Every page has a control a keyboard can reach."""
    shown = visit_of(request, script, LAPTOP)
    assert shown.moved is not None, f"{page_id(script)} has no slider or radio group to test"
    assert shown.moved.after != shown.moved.before, f"{page_id(script)}: {shown.moved}"
    assert not shown.exceptions, shown.exceptions
    assert not shown.shown_exceptions, shown.shown_exceptions
