"""The "One draw at a time" player in Chromium, against the story the core tells for the same link.

A deep link (/One_draw?...&seed=4) opens the page; inside the player's iframe the test
- steps through the first two draws (the first is rejected, the second accepted at seed 4) and
  checks every stage's sentence, the counter and ``window.specviz.state()`` against
  :func:`specviz.story.one_draw_story`;
- drives Play/Pause from the keyboard only (Tab from the page's last button, Enter, Space);
- plays all draws at the "instant" speed and compares the tally with ``np.bincount`` of the story's
  output, split into accepted drafts and bucket words; Reset empties it;
- takes screenshots (normal and ?projector=1) into tests/screenshots/.

No stException, no page error (uncaught exceptions in the iframe reach ``page.on("pageerror")``).
Run one at a time (2 cores: Chromium is the bottleneck).
"""

from __future__ import annotations

from urllib.parse import urlencode

import numpy as np
import pytest
from streamlit_server import link_params, open_app, poll, share_link, watch_stream

from specviz.figures.numbers import decimal
from specviz.one_token import normalize
from specviz.story import one_draw_story

pytestmark = pytest.mark.browser

WORDS = ("mat", "sofa", "floor", "bed")
P_WEIGHTS = (40, 30, 20, 10)
Q_WEIGHTS = (10, 20, 30, 40)
SEED = 4  # draw 1: 'bed' proposed and rejected, 'mat' from the bucket; draw 2: 'floor' accepted
DRAWS = 50


def link(base: str, **extra: str) -> str:
    params = {
        "words": ",".join(WORDS),
        "p": ",".join(map(str, P_WEIGHTS)),
        "q": ",".join(map(str, Q_WEIGHTS)),
        "seed": str(SEED),
        "draws": str(DRAWS),
        **extra,
    }
    return f"{base}/One_draw?{urlencode(params)}"


@pytest.fixture(scope="module")
def story():
    p, q = normalize(P_WEIGHTS), normalize(Q_WEIGHTS)
    return p, q, one_draw_story(p, q, DRAWS, seed=SEED)


@pytest.fixture
def errors(page):
    """Uncaught exceptions and console errors of the page and its frames.

    "Failed to load resource" is left out: Streamlit itself probes /One_draw/_stcore/health (404)
    on a deep link, and the material-icon favicon comes from fonts.gstatic.com (offline here).
    """
    seen: list[str] = []

    def on_console(msg) -> None:
        if msg.type == "error" and not msg.text.startswith("Failed to load resource"):
            seen.append(f"console: {msg.text} ({msg.location.get('url')})")

    page.on("pageerror", lambda exc: seen.append(f"pageerror: {exc}"))
    page.on("console", on_console)
    return seen


def open_player(page, url: str):
    """Open ``url`` and return the player's frame (a Playwright Frame) once it is initialised."""
    watcher = open_app(page, url)
    assert not watcher.exceptions, watcher.exceptions
    assert page.get_by_test_id("stException").count() == 0
    iframe = page.get_by_test_id("stIFrame")
    assert iframe.count() == 1
    frame = iframe.element_handle().content_frame()
    frame.wait_for_function("() => window.specviz !== undefined")
    return frame


def state(frame) -> dict:
    return frame.evaluate("window.specviz.state()")


def text(frame, selector: str) -> str:
    return frame.locator(selector).inner_text().strip()


def no_trouble(page, errors: list[str]) -> None:
    assert page.get_by_test_id("stException").count() == 0
    assert not errors, errors


def said_starts(frame, circled: str) -> bool:
    """The running sentence carries the same step number as the heading and the counter."""
    return text(frame, "#sentence").startswith(circled)


def dec(x: float) -> str:
    return f"{decimal(x, 2)}"


def pct(x: float) -> str:
    v = 100 * x
    return f"{round(v)}%" if abs(v - round(v)) < 1e-9 else f"{v:.1f}%"


# --------------------------------------------------------------------------- step by step


def test_steps_tell_the_core_story(page, streamlit_server, story, errors, screenshot_dir):
    p, q, s = story
    assert not s.accepted[0] and s.accepted[1], "seed 4 was chosen for: rejected, then accepted"
    frame = open_player(page, link(streamlit_server))
    assert "this link had problems" not in page.get_by_test_id("stMain").inner_text().lower()
    assert state(frame) == {"draw": 0, "stage": 0, "ok": [0] * 4, "bucket": [0] * 4}
    assert text(frame, "#counter") == f"Draw 1 of {DRAWS}"
    step = frame.get_by_role("button", name="Step ›")

    ok, bucket = [0] * 4, [0] * 4
    for d in range(2):
        x, y, acc = int(s.draft[d]), int(s.output[d]), bool(s.accepted[d])
        wx, wy = f"‘{WORDS[x]}’", f"‘{WORDS[y]}’"
        for stage in range(1, 5):  # the ①–④ of the headings, the sentences and the counter
            step.click()
            if stage == 4:
                (ok if acc else bucket)[y] += 1
            assert state(frame) == {"draw": d, "stage": stage, "ok": ok, "bucket": bucket}, (
                f"draw {d + 1}, stage {stage}"
            )
            circled = "①②③④"[stage - 1]
            assert text(frame, "#counter") == f"Draw {d + 1} of {DRAWS} · step {circled} of 4"
            assert said_starts(frame, circled), f"draw {d + 1}: the sentence is not step {circled}"
            said = text(frame, "#sentence")
            where = f"draw {d + 1}, stage {stage}: {said!r}"
            if stage == 1:
                assert said.startswith(f"① The draft q proposes {wx}"), where
                assert f"pointer landed at {dec(s.u_draft[d])}" in said, where
                assert f"q({WORDS[x]}) = {pct(q[x])}" in said, where
            elif stage == 2:
                assert f"a({WORDS[x]}) = min(1, p/q)" in said, where
                assert f"min(1, {pct(p[x])} / {pct(q[x])})" in said, where
                assert f"= {dec(s.accept_prob[d])}, and a uniform u = {dec(s.u_accept[d])}" in said
                if acc:
                    assert "✓ accepted" in said and "rejected" not in said, where
                    assert f"u = {dec(s.u_accept[d])} < a" in said, where
                    assert text(frame, "#verdict").startswith("✓ accepted")
                    assert text(frame, "#verdict").endswith(f"< a = {dec(s.accept_prob[d])}")
                else:
                    assert "✗ rejected" in said and "accepted" not in said, where
                    assert f"u = {dec(s.u_accept[d])} ≥ a" in said, where
                    assert text(frame, "#verdict").startswith("✗ rejected")
                    assert text(frame, "#verdict").endswith(f"≥ a = {dec(s.accept_prob[d])}")
            elif stage == 3:
                if acc:
                    assert "bucket is not needed" in said, where
                else:
                    assert f"leftover bucket: {wy}" in said, where
                    hit = frame.locator("#strip-bucket .seg.hit")
                    assert hit.count() == 1 and hit.inner_text().strip() == WORDS[y]
            else:
                route = "✓ accepted draft" if acc else "◌ from the bucket"
                assert said.startswith(f"④ {wy} is emitted ({route})"), where
                assert f"{d + 1} word" in said, where
        # the tally's label for the emitted word shows its count
        counts = frame.locator("#tally .count")
        assert counts.nth(y).inner_text().startswith(f"{ok[y] + bucket[y]} (")
        if d == 0:
            page.wait_for_timeout(800)  # let the pointers and bars glide into place
            page.get_by_test_id("stIFrame").screenshot(
                path=str(screenshot_dir / "one_draw_player_stage5.png")
            )
    step.click()  # the next draw starts at stage 1
    assert state(frame)["draw"] == 2 and state(frame)["stage"] == 1
    page.wait_for_timeout(800)
    page.screenshot(path=str(screenshot_dir / "one_draw_steps.png"))
    no_trouble(page, errors)


def test_next_draw_finishes_the_draw(page, streamlit_server, story, errors):
    _p, _q, s = story
    frame = open_player(page, link(streamlit_server))
    button = frame.get_by_role("button", name="Next draw »")
    expected_ok, expected_bucket = np.zeros(4, int), np.zeros(4, int)
    for d in range(5):
        button.click()
        (expected_ok if s.accepted[d] else expected_bucket)[s.output[d]] += 1
        st = state(frame)
        assert (st["draw"], st["stage"]) == (d, 4)  # step ④: the word has joined the tally
        assert st["ok"] == expected_ok.tolist() and st["bucket"] == expected_bucket.tolist()
    # the arrow key steps too
    frame.locator("#step").focus()
    frame.locator("body").press("ArrowRight")
    assert (state(frame)["draw"], state(frame)["stage"]) == (5, 1)
    no_trouble(page, errors)


# --------------------------------------------------------------------------- keyboard play/pause


def test_play_and_pause_from_the_keyboard(page, streamlit_server, errors):
    frame = open_player(page, link(streamlit_server))
    play = frame.locator("#play")
    # Tab from the page's last control before the player lands on Play
    page.get_by_role("button", name="New draws").focus()
    for _ in range(6):
        page.keyboard.press("Tab")
        if frame.evaluate("document.hasFocus() && document.activeElement.id") == "play":
            break
    else:
        pytest.fail("Tab never reached the player's Play button")
    assert play.get_attribute("aria-pressed") == "false"

    page.keyboard.press("Enter")
    assert play.inner_text().strip() == "⏸ Pause"
    assert play.get_attribute("aria-pressed") == "true"
    first = state(frame)
    page.wait_for_timeout(2500)  # "normal" speed: a stage every 0.7 s
    later = state(frame)
    progress = lambda st: 5 * st["draw"] + st["stage"]  # noqa: E731
    assert progress(later) >= progress(first) + 2, (first, later)
    counter = text(frame, "#counter")
    assert counter.startswith("Draw ") and " of 4" in counter

    page.keyboard.press("Space")  # focus is still on the button
    assert play.inner_text().strip() == "▶ Play"
    assert play.get_attribute("aria-pressed") == "false"
    paused = state(frame)
    page.wait_for_timeout(1600)
    assert state(frame) == paused, "the player kept going after Pause"
    circled = "①②③④"[paused["stage"] - 1]
    assert text(frame, "#counter") == f"Draw {paused['draw'] + 1} of {DRAWS} · step {circled} of 4"

    page.keyboard.press("Enter")  # and it resumes where it was
    page.wait_for_timeout(1000)
    assert progress(state(frame)) > progress(paused)
    page.keyboard.press("Enter")
    no_trouble(page, errors)


# --------------------------------------------------------------------------- all draws at once


def test_instant_play_ends_on_the_story_tally_and_reset_empties_it(
    page, streamlit_server, story, errors
):
    _p, _q, s = story
    frame = open_player(page, link(streamlit_server))
    frame.locator("#speed").select_option("0")
    # "Instant" tallies 10 draws a tick (a tick every 60 ms): the first tick runs within the
    # click, so the first 10 draws are in the tally before the click returns.
    first = frame.evaluate(
        "() => { document.querySelector('#play').click(); return window.specviz.state(); }"
    )
    assert (first["draw"], first["stage"]) == (9, 4), first
    assert sum(first["ok"]) + sum(first["bucket"]) == 10, first
    frame.wait_for_function(f"() => window.specviz.state().draw === {DRAWS}", timeout=10_000)
    st = state(frame)
    total = np.bincount(s.output, minlength=4)
    ok = np.bincount(s.output[s.accepted], minlength=4)
    bucket = np.bincount(s.output[~s.accepted], minlength=4)
    assert np.array_equal(np.add(st["ok"], st["bucket"]), total), (st, total)
    assert st["ok"] == ok.tolist() and st["bucket"] == bucket.tolist()
    frame.wait_for_function("() => document.querySelector('#play').textContent === '▶ Play'")
    assert frame.locator("#play").get_attribute("aria-pressed") == "false"
    assert text(frame, "#sentence").startswith(f"All {DRAWS} draws done")
    assert text(frame, "#counter") == f"Draw {DRAWS} of {DRAWS}"
    counts = frame.locator("#tally .count")
    for i in range(4):
        want = f"{total[i]} ({pct(total[i] / DRAWS)})" if total[i] else ""
        assert counts.nth(i).inner_text().strip() == want, i

    # Play at the end does nothing; Step does nothing
    frame.locator("#play").click()
    frame.locator("#step").click()
    assert state(frame) == st

    frame.get_by_role("button", name="↺ Reset").click()
    assert state(frame) == {"draw": 0, "stage": 0, "ok": [0] * 4, "bucket": [0] * 4}
    assert text(frame, "#counter") == f"Draw 1 of {DRAWS}"
    assert text(frame, "#sentence").startswith("Press ▶ Play")
    assert all(c.strip() == "" for c in counts.all_inner_texts())

    # Reset replays the same draws
    frame.locator("#play").click()
    frame.wait_for_function(f"() => window.specviz.state().draw === {DRAWS}", timeout=10_000)
    assert state(frame) == st
    no_trouble(page, errors)


# --------------------------------------------------------------------------- screenshots


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_screenshots_after_a_few_steps(page, streamlit_server, errors, screenshot_dir, projector):
    extra = {"projector": "1"} if projector else {}
    frame = open_player(page, link(streamlit_server, **extra))
    step = frame.get_by_role("button", name="Step ›")
    for _ in range(3):  # draw 1 at stage 3: the verdict is on screen
        step.click()
    page.wait_for_timeout(800)  # let the pointers glide into place
    name = "one_draw_projector" if projector else "one_draw"
    page.screenshot(path=str(screenshot_dir / f"{name}.png"))
    page.get_by_test_id("stIFrame").screenshot(path=str(screenshot_dir / f"{name}_player.png"))
    # the player shows all of itself: no scrollbar inside the iframe
    inner = frame.evaluate("document.documentElement.scrollHeight")
    outer = page.get_by_test_id("stIFrame").evaluate("e => e.clientHeight")
    assert inner <= outer + 2, f"the player needs {inner}px but its iframe is {outer}px tall"
    font = frame.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert font >= (24 if projector else 14), font
    no_trouble(page, errors)
    # The acceptance zone's label carries the threshold a(x): cut off, it shows a wrong number
    # (e.g. "accept if u < 0.2" for a = 0.25). Every zone label must fit its zone.
    clipped = frame.evaluate(
        """() => ["zone-ok", "zone-bad"].map((id) => document.getElementById(id))
             .filter((e) => e.scrollWidth > e.clientWidth + 1)
             .map((e) => `${e.id}: "${e.textContent}" needs ${e.scrollWidth}px, `
                         + `has ${e.clientWidth}px`)"""
    )
    assert not clipped, clipped


# --------------------------------------------------------------------------- playing, in place

#: The seats of a class: a phone, a laptop, projector mode on a 1280×720 and a 1920×1080 screen.
SEATS = {
    "phone": (390, 844, False),
    "laptop": (1280, 800, False),
    "projector-1280": (1280, 720, True),
    "projector-1920": (1920, 1080, True),
}
# The player's height, where its strips start, and the boxes of the pointers' tags (with their
# strip's) and of the texts a tag must not cover.
_LAYOUT = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  return {
    height: document.documentElement.scrollHeight,
    strips: box(document.querySelector(".layout")).top,
    width: innerWidth,
    tags: [...document.querySelectorAll(".pointer:not(.hidden) .tag")].map((t) =>
      ({text: t.textContent, box: box(t), strip: box(t.closest(".strip"))})),
    texts: [...document.querySelectorAll(".row h2, .verdict, .seg, #counter, #sentence")]
      .filter((e) => e.textContent.trim()).map((e) => ({text: e.textContent, box: box(e)})),
  };
}"""


def _overlap(a: dict, b: dict) -> bool:
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > 1 and (
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 1
    )


def tag_problems(shown: dict) -> list[str]:
    """A pointer's tag cut by the player's or its strip's edge, or drawn over a text or a tag."""
    problems = []
    for k, tag in enumerate(shown["tags"]):
        where, strip = tag["box"], tag["strip"]
        if where["left"] < max(0, strip["left"]) - 1 or where["right"] > strip["right"] + 1:
            problems.append(
                f"{tag['text']!r} spans {where['left']:.0f}..{where['right']:.0f}, "
                f"its strip {strip['left']:.0f}..{strip['right']:.0f}"
            )
        for other in shown["texts"] + shown["tags"][k + 1 :]:
            if _overlap(where, other["box"]):
                problems.append(f"{tag['text']!r} is drawn over {other['text']!r}")
    return problems


@pytest.mark.parametrize("seat", list(SEATS))
def test_the_player_stays_in_place_and_its_tags_are_whole(
    browser, streamlit_server, screenshot_dir, seat
):
    """Stepping and playing move nothing: the player keeps its height (the sentence has the room
    of its longest from the start: it grew a line or three, and the page under it dropped ~36 px)
    and its controls their lines (the longest counter a story can show fits too). The pointers'
    tags ("u = 0.04") stay whole inside their strip, on no heading, word or verdict (at the
    strip's edge they were cut, on a projector they covered the heading)."""
    width, height, projector = SEATS[seat]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        extra = {"projector": "1"} if projector else {}
        frame = open_player(page, link(streamlit_server, **extra))
        iframe = page.get_by_test_id("stIFrame")

        def layout() -> dict:
            shown = frame.evaluate(_LAYOUT)
            box = iframe.bounding_box()
            return shown | {"iframe": (box["y"], box["height"])}

        start = layout()
        places = ("iframe", "height", "strips")
        for k in range(1, 9):  # two draws, step by step: u = 0.94 (the right edge), then 0.04
            frame.locator("#step").click()
            page.wait_for_timeout(700)  # the pointers glide
            shown = layout()
            assert {p: shown[p] for p in places} == {p: start[p] for p in places}, f"step {k}"
            assert not tag_problems(shown), (f"{seat}, step {k}", tag_problems(shown))
        page.screenshot(path=str(screenshot_dir / f"one_draw_tags_{seat}.png"))
        frame.locator("#play").click()
        page.wait_for_timeout(1600)  # two or three steps at the normal speed
        frame.locator("#play").click()
        assert {p: layout()[p] for p in places} == {p: start[p] for p in places}, "playing"
        longest = "Draw 500 of 500 · step ④ of 4"
        frame.evaluate(f"document.querySelector('#counter').textContent = {longest!r}")
        assert {p: layout()[p] for p in places} == {p: start[p] for p in places}, "the counter"
    finally:
        context.close()


def test_the_link_keeps_the_players_place(page, browser, streamlit_server, errors):
    """Paused or stepped, the player tells the page where it is: the address bar and the sidebar's
    share link carry it (``at``: 4 steps a draw), the player is not reloaded (the focus stays on
    its button), and the link opens another session's player at the same place."""
    frame = open_player(page, link(streamlit_server))
    step = frame.locator("#step")
    for _ in range(6):  # draw 2, step ②
        step.click()
    poll(page, lambda: link_params(page.url).get("at") == "6", "the step in the address bar")
    shown = state(frame)
    assert (shown["draw"], shown["stage"]) == (1, 2)
    assert frame.evaluate("document.activeElement.id") == "step", "the player was reloaded"
    assert link_params(share_link(page))["at"] == "6"
    other = browser.new_context(viewport={"width": 1280, "height": 1600}).new_page()
    watch_stream(other)
    again = open_player(other, page.url)
    assert state(again) == shown
    assert text(again, "#counter") == f"Draw 2 of {DRAWS} · step ② of 4"
    other.context.close()
    frame.locator("#reset").click()  # the start leaves the link
    poll(page, lambda: "at" not in link_params(page.url), "the start in the address bar")
    no_trouble(page, errors)


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_the_player_moves_only_when_motion_is_welcome(page, streamlit_server, motion) -> None:
    """Issue 35: with reduced motion asked for, the zones and the pointer jump to their place."""
    page.emulate_media(reduced_motion=motion)
    frame = open_player(page, f"{streamlit_server}/One_draw")
    durations = frame.evaluate(
        "() => ['zone-ok', 'ptr-draft'].map((id) => getComputedStyle(document.getElementById(id))"
        ".transitionDuration)"
    )
    moving = [d for d in durations if any(float(t[:-1]) > 0 for t in d.split(", "))]
    assert (not moving) == (motion == "reduce"), durations
