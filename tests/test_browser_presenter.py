"""Presenter mode in Chromium: the lecturer walks the whole plan with a clicker's keys (PageDown
to the end on a 1280x720 projector, PageUp back to the start on a 1920x1080 one) in one tab, each
step's page in its state, the lecturer's letters kept, and the control being taught and its
chart on the screen under the step's bar; an arrow key on a focused slider or a bar of the
Playground moves it and leaves the step alone, and moves the step once the page has the focus
back."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode, urlparse

import httpx2 as httpx
import pytest
from streamlit_server import (
    REPO_ROOT,
    assert_clean,
    link_params,
    open_app,
    page_url_path,
    poll,
    rerun_waiter,
)
from visits import box

from benchmarks import bench_polls
from benchmarks.bench_mixed_class import told_in
from specviz.lesson_plan import PLAN
from specviz.links import CLAIM, CLAIMS
from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

LECTURER = {"letters": "chen", "projector": "1"}
FOLDS = {info.script: info.fold for info in PAGES if all(info.fold)}


def step_url(base: str, number: int) -> str:
    step = PLAN[number - 1]
    query = dict(step.query) | LECTURER | {"step": str(number)}
    return f"{base}/{page_url_path(REPO_ROOT / step.script)}?{urlencode(query)}"


def shows_step(page, number: int, *, changed: bool = False) -> None:
    """The page is step ``number``'s, in its state (unless the lecturer ``changed`` it), with the
    lecturer's letters, and its bar."""
    step = PLAN[number - 1]
    poll(page, lambda: link_params(page.url).get("step") == str(number), f"step={number} in URL")
    assert urlparse(page.url).path.strip("/") == page_url_path(REPO_ROOT / step.script)
    params = link_params(page.url)
    assert {k: params.get(k) for k in LECTURER} == LECTURER, (number, params)
    for key, value in step.query:
        assert changed or params.get(key) == value, (number, key, params)
    bar = page.locator(".st-key-presenter").inner_text()
    assert f"Step {number} of {len(PLAN)}" in bar and step.say[:40] in bar, bar
    claim = dict(step.query).get("claim", CLAIM.default)
    if step.script.endswith("The_debate.py"):  # the tab of the step's claim is the open one
        shown = page.locator(".st-key-w-claim [role=tab][aria-selected=true]").inner_text()
        assert shown.strip() == CLAIMS[claim], (number, shown)
    if step.script in FOLDS and not changed:
        on_one_screen(page, number, *FOLDS[step.script])


def on_one_screen(page, number: int, control: str, chart: str) -> None:
    """The step's bar, its control and (at least 90 % of) its chart show without scrolling (the
    rule of tests/test_browser_seats.py, with the bar on top)."""
    height = page.viewport_size["height"]
    c, g = box(page, control), box(page, chart)
    top = page.locator(".st-key-presenter").bounding_box()["y"]
    shown = max(0.0, min(g["y"] + g["height"], height) - max(g["y"], 0.0)) / g["height"]
    where = f"step {number} at {page.viewport_size}: bar at {top:.0f}"
    assert top >= 0, where
    assert control == chart or (c["y"] >= 0 and c["y"] + c["height"] <= height), (
        f"{where}, {control} spans {c['y']:.0f}..{c['y'] + c['height']:.0f}"
    )
    assert shown >= 0.9, f"{where}, {100 * shown:.0f}% of {chart} shows"


def turn(page, key: str, number: int) -> None:
    with rerun_waiter(page):
        page.keyboard.press(key)
    shows_step(page, number)


def test_pagedown_walks_the_whole_plan_and_pageup_walks_back(page, streamlit_server) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    watcher = open_app(page, step_url(streamlit_server, 1))
    shows_step(page, 1)
    for number in range(2, len(PLAN) + 1):
        turn(page, "PageDown", number)
    page.keyboard.press("PageDown")  # the last step has no Next: nothing happens
    page.wait_for_timeout(300)
    page.set_viewport_size({"width": 1920, "height": 1080})
    shows_step(page, len(PLAN))
    for number in range(len(PLAN) - 1, 0, -1):
        turn(page, "PageUp", number)
    assert_clean(page, watcher)
    assert page.evaluate("history.length") >= 2  # one tab all along, its history grew


def test_an_arrow_key_moves_a_focused_control_not_the_step(page, streamlit_server) -> None:
    number = next(n for n, s in enumerate(PLAN, 1) if s.script.endswith("Playground.py"))
    watcher = open_app(page, step_url(streamlit_server, number))
    shows_step(page, number)
    draft = link_params(page.url)["q"]
    page.get_by_role("slider", name="draft p weight of mat").focus()  # Chen's letters: p drafts
    with rerun_waiter(page):
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowRight")
    poll(page, lambda: link_params(page.url)["q"] != draft, "the bar's change in the link")
    assert int(link_params(page.url)["q"].split(",")[0]) == int(draft.split(",")[0]) + 2
    shows_step(page, number, changed=True)

    number = next(n for n, s in enumerate(PLAN, 1) if dict(s.query).get("n") == "100")
    open_app(page, step_url(streamlit_server, number))
    slider = page.get_by_role("slider", name="Number of runs N (1 to 1 billion)")
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    assert slider.get_attribute("aria-valuetext") == "1k"
    poll(page, lambda: link_params(page.url)["n"] == "1k", "n=1k in the link")
    shows_step(page, number, changed=True)

    page.locator(".st-key-presenter-say").click()  # not a control: the arrows turn the step again
    turn(page, "ArrowRight", number + 1)
    turn(page, "ArrowLeft", number)
    assert link_params(page.url)["n"] == "100"  # the step's own state, not the slider's
    assert_clean(page, watcher)


def ask_the_phones(page, streamlit_server: str):
    """A lecturer on a 1280x720 projector starts a class, presents the step whose question is
    'bed' (the phones can answer it) and asks it: the room's code, the step, the stream."""
    page.set_viewport_size({"width": 1280, "height": 720})
    watcher = open_app(page, f"{streamlit_server}/For_lecturers?{urlencode(LECTURER)}")
    with rerun_waiter(page):
        page.get_by_role("button", name="Start a class").click()
    code = page.locator("p[style*='letter-spacing']").inner_text()
    number = next(n for n, s in enumerate(PLAN, 1) if s.poll == "why.missing")
    step = PLAN[number - 1]  # its link on the page: the same tab, the same session
    with rerun_waiter(page):
        page.get_by_role("link", name=f"{step.start}–{step.end} min · {step.title}").click()
    shows_step(page, number)
    with rerun_waiter(page):
        page.get_by_role("button", name="Ask the phones").click()
    return code, number, watcher


def test_a_step_asks_the_phones_and_the_bar_counts_and_reveals(browser, page, streamlit_server):
    """A lecturer asks from a step, sees a student's answer counted and the room's split, and
    reveals, with the Playground's control and chart still on one screen."""
    code, number, watcher = ask_the_phones(page, streamlit_server)
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(f"{streamlit_server}/join?room={code}")  # the join link: the phone page
    phone.get_by_text("C. Yes, exactly 10% of the time").click()
    phone.get_by_role("button", name="Send my answer").click()
    phone.get_by_role("status").get_by_text("Your answer is in").wait_for()
    answers = page.locator(".st-key-presenter-phones").get_by_role("button", name="1 answer")
    answers.wait_for()  # counted within a refresh (every 2 s)
    shows_step(page, number)  # with the row of the phones, still on one screen
    answers.click()
    split = page.get_by_test_id("stPopoverBody")
    shown = "C. Yes, exactly 10% of the time — 1 (100%)"
    poll(page, lambda: shown in split.inner_text(), "the room's split")
    assert f"Room {code}" in split.inner_text()
    page.keyboard.press("Escape")
    with rerun_waiter(page):
        page.get_by_role("button", name="Reveal").click()
    answers.click()
    poll(page, lambda: "✓ right answer" in split.inner_text(), "the reveal")
    # The phone's waiting request brings the reveal: its answer marked, and where to see why.
    phone.get_by_text("✓ Answer: C. Yes, exactly 10% of the time").wait_for()
    assert (
        phone.get_by_role("listitem").all_inner_texts()[2].endswith("— your answer ✓ right answer")
    )
    assert phone.get_by_role("link", name="See why on its page").get_attribute("href") == (
        "Why_its_exact?lang=en"
    )
    phone.context.close()
    assert "key" not in link_params(page.url)
    assert_clean(page, watcher)


#: Real phones (one browser, a tab each) and simulated phones (HTTP) in one poll.
PHONES, SIMULATED = 20, 30


async def _simulated_class(url: str, code: str) -> list:
    """``SIMULATED`` phones join the room and each answers once, at a random moment of the
    10 s window, as benchmarks/bench_polls.py's do."""
    class_ = [bench_polls.Phone(i, secrets.token_urlsafe(16)) for i in range(SIMULATED)]
    far = time.perf_counter() + 300
    async with httpx.AsyncClient(timeout=60.0) as client:
        await asyncio.gather(*(bench_polls.join(client, s, url, code, far) for s in class_))
        t0 = time.perf_counter()
        rngs = [random.Random(f"class-{s.index}") for s in class_]
        await asyncio.gather(
            *(
                bench_polls.answer(client, s, url, code, t0, r)
                for s, r in zip(class_, rngs, strict=True)
            )
        )
    return class_


def test_phones_and_a_simulated_class_answer_one_poll_each_counted_once(
    browser, page, streamlit_server
):
    """Issue 20's class: the lecturer asks from the projector; 20 phones (real tabs) and 30
    simulated phones answer on the phone page; the projector counts every answer once, and its
    split is theirs."""
    code, _, watcher = ask_the_phones(page, streamlit_server)
    # A browser context each: a phone's voter id is in its storage, one per browser.
    phones = [browser.new_context(viewport={"width": 390, "height": 844}) for _ in range(PHONES)]
    try:
        tabs = [phone.new_page() for phone in phones]
        for tab in tabs:  # every tab loads at once
            tab.goto(f"{streamlit_server}/join?room={code}", wait_until="commit")
        options = tabs[0].locator("label.option")
        options.first.wait_for(timeout=300_000)
        labels = options.all_inner_texts()
        # The simulated class in a thread of its own (Playwright's loop runs in this one),
        # answering while the phones do.
        with ThreadPoolExecutor(1) as thread:
            class_ = thread.submit(asyncio.run, _simulated_class(streamlit_server, code))
            for i, tab in enumerate(tabs):
                tab.locator("label.option").nth(i % len(labels)).click(timeout=300_000)
                tab.get_by_role("button", name="Send my answer").click()
            for tab in tabs:
                tab.get_by_role("status").get_by_text("Your answer is in").wait_for(timeout=300_000)
            simulated = class_.result()
    finally:
        for phone in phones:
            phone.close()
    # Each student told their answer is in: at once, or on a press sent again after no reply
    # (the first one had counted). The projector's count below holds that none counted twice.
    assert not [s.errors for s in simulated if s.errors]
    assert all(s.outcomes and told_in(s.outcomes[-1]) for s in simulated)
    picked = [i % len(labels) for i in range(PHONES)] + [s.choice for s in simulated]
    total = PHONES + SIMULATED
    answers = page.locator(".st-key-presenter-phones").get_by_role(
        "button", name=f"{total} answers"
    )
    answers.wait_for(timeout=30_000)  # counted within a refresh (every 2 s)
    answers.click()
    split = page.get_by_test_id("stPopoverBody")
    for k, label in enumerate(labels):
        n = picked.count(k)
        poll(page, lambda label=label, n=n: f"{label.strip()} — {n} (" in split.inner_text(), label)
    assert_clean(page, watcher)
