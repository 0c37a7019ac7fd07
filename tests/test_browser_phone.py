"""Ask the room's phone page in Chromium: in every seat (a phone, a laptop, a projector) axe and
the text contrast find nothing; the keyboard alone joins a room by its code and answers; the
status line, a live region, says in words what happened; the lecturer's reveal reaches the
waiting page. Screenshots go to tests/screenshots/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from a11y import audit

from specviz import rooms

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).parent / "screenshots"
SEATS = {"phone": (390, 844), "laptop": (1280, 800), "projector": (1920, 1080)}
KEY = "k" * 32


@pytest.fixture
def room() -> tuple[str, object]:
    """A room on the database the test server uses (its environment is this process's)."""
    eng = rooms.connect(os.environ.get("SPECVIZ_POLLS_URL") or rooms.DEFAULT_URL)
    code = rooms.start_room(eng, KEY)
    yield code, eng
    eng.dispose()


def check(page, label: str) -> None:
    found = audit(page, label)
    assert found.texts_checked > 0
    assert not [v for v in found.violations if v.impact in ("moderate", "serious", "critical")]
    assert not found.contrast, [c.line() for c in found.contrast]


@pytest.mark.parametrize("seat", SEATS)
def test_the_phone_page_reads_in_every_seat(browser, streamlit_server, room, seat) -> None:
    code, eng = room
    width, height = SEATS[seat]
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    try:
        page.goto(f"{streamlit_server}/join")
        page.get_by_label("Room code").wait_for()
        check(page, f"join form ({seat})")
        page.goto(f"{streamlit_server}/join?room={code}")
        page.get_by_role("button", name="Send my answer").wait_for()
        page.screenshot(path=SHOTS / f"phone_page_{seat}.png", full_page=True)
        check(page, f"question ({seat})")
        assert page.get_by_role("radio").count() == 4
        assert not page.evaluate("() => document.documentElement.scrollWidth > innerWidth")
        page.get_by_text("B. 25%").click()
        page.get_by_role("button", name="Send my answer").click()
        page.get_by_role("status").get_by_text("Your answer is in").wait_for()
        assert rooms.lecture(eng, code, KEY, "reveal")
        page.get_by_text("✓ Answer: C. 40%").wait_for(timeout=15_000)
        page.screenshot(path=SHOTS / f"phone_page_{seat}_revealed.png", full_page=True)
        check(page, f"reveal ({seat})")
    finally:
        page.context.close()


def test_the_keyboard_alone_joins_and_answers(browser, streamlit_server, room) -> None:
    """Tab and arrow keys only: type the code (lower case, with a dash), join, pick, send; a
    wrong code first, said in words in the live region."""
    code, eng = room
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    try:
        page.goto(f"{streamlit_server}/join")
        page.get_by_label("Room code").wait_for()
        assert page.evaluate("() => document.activeElement.id") == "typed"  # focused on arrival
        page.keyboard.type("zzzzzz")
        page.keyboard.press("Enter")
        status = page.get_by_role("status")
        status.get_by_text("There is no open room with that code").wait_for()
        assert status.inner_text().startswith("⚠")  # not colour alone
        page.get_by_label("Room code").fill("")
        page.get_by_label("Room code").focus()
        page.keyboard.type(f"{code[:3].lower()}-{code[3:]}")
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Send my answer").wait_for()
        assert f"room={code}" in page.url
        page.keyboard.press("Tab")  # the radio group
        page.keyboard.press("ArrowDown")  # A is chosen on focus, then B
        page.keyboard.press("Space")
        page.keyboard.press("Tab")  # the send button
        assert page.evaluate("() => document.activeElement.id") == "sendButton"
        page.keyboard.press("Enter")
        status.get_by_text("Your answer is in").wait_for()
        assert rooms.counts(eng, code, 1, "why.alpha") == (0, 1, 0, 0)
        assert rooms.lecture(eng, code, KEY, "again")  # a second round reaches the waiting page
        page.get_by_role("button", name="Send my answer").wait_for(timeout=15_000)
        assert not status.is_visible()
    finally:
        page.context.close()
