"""The Playground's live view in Chromium: a learner drags the bars by mouse, touch and keyboard
with no server run until the gesture ends, and Chromium counts and cuts words as the core does.
Its math and number writing are held to the core's under Node (tests/test_live_math.py).
"""

from __future__ import annotations

import json
import re

import pytest
from streamlit_server import assert_clean, link_params, open_app, poll, rerun_waiter, share_link

from specviz.figures import captions
from specviz.figures import exactness as fx
from specviz.figures.live import LIVE_JS
from specviz.figures.numbers import percent
from specviz.links import _graphemes, clean_label
from specviz.one_token import normalize, step
from specviz.palette import Notation
from specviz.scenario import Scenario, home_scenario, to_query

pytestmark = pytest.mark.browser

TOL = 1e-12


def load_module(page) -> None:
    """live.js as an ES module, as ``window.live``: its code exactly as the app ships it."""
    page.goto("about:blank")
    page.evaluate(
        """async (source) => {
            const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
            window.live = await import(url);
        }""",
        LIVE_JS,
    )


#: Words a reader counts otherwise than code points do: joined emoji (a job, a family, a flag of
#: two letters, a rainbow flag, skin tones), letters with marks (Latin, Hebrew, Devanagari,
#: Thai), and scripts of one code point a letter.
READ_AS_ONE = [
    "👩‍💻 coder",
    "👨‍👩‍👧",
    "👩‍🍕👩‍🍕",
    "🇫🇷🇩🇪",
    "🏳️‍🌈!",
    "👋🏽👋🏿",
    "q̃q̃",
    "ñandú",
    "שָׁלוֹם",
    "किताब",
    "ที่นี่",
    "日本語",
    "ĉu-ŝi",
    "x̣̂y",
]


def test_words_are_counted_and_cut_as_the_core_counts_them(page) -> None:
    """The browser counts a word's characters as specviz.links does (Unicode's grapheme
    clusters), and cuts a word between them, never inside ("👩‍💻" was cut to "👩‍…", issue 18)."""
    load_module(page)
    words = [clean_label(w) for w in READ_AS_ONE]
    assert page.evaluate("(ws) => ws.map((w) => window.live.graphemes(w))", words) == [
        _graphemes(w) for w in words
    ]
    for word in words:
        chars = _graphemes(word)
        # Room for k characters, the "…" counting as one.
        cuts = page.evaluate(
            """([w, n]) => [...Array(n + 1).keys()].map((k) =>
                 window.live.shorten(w, (t) => window.live.graphemes(t).length <= k))""",
            [word, len(chars)],
        )
        want = ["".join(chars[: k - 1]) + "…" if k > 1 else "…" for k in range(len(chars))]
        assert cuts == [*want, word], word


# ------------------------------------------------------------------------------ in the app

SHARED = to_query(Scenario())


def open_live(page, url: str):
    """Open the Playground and wait until its live view has drawn."""
    watcher = open_app(page, url)
    poll(page, lambda: page.evaluate("() => !!window.specviz?.live?.view"), "the live view")
    return watcher


def live_state(page) -> dict:
    return page.evaluate(
        """() => { const v = window.specviz.live; return {
            p: [...v.local.p], q: [...v.local.q],
            alpha: v.view.step ? v.view.step.alpha : null,
            shown: v.numbers.alpha.value.textContent,
        }; }"""
    )


def bar(page, model: str, word: str):
    who = "target p" if model == "p" else "draft q"
    return page.get_by_role("slider", name=f"{who} weight of {word}")


# Counts what the page sends on its websocket (a rerun request is one message).
COUNT_SENT = """() => { window.sentToServer = 0; const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (...args) { window.sentToServer += 1;
                                                    return send.apply(this, args); }; }"""

# Holds what the page sends until ``window.release()``: what shows meanwhile is the browser's
# own doing, however slow the machine (a gesture's message waits 250-300 ms, then goes).
HOLD_SENT = """() => { window.held = []; const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (...args) { window.held.push([this, args]); };
    window.release = () => { WebSocket.prototype.send = send;
                             for (const [ws, args] of window.held) send.apply(ws, args); }; }"""


def test_a_mouse_drag_moves_every_chart_without_the_server_until_release(
    page, streamlit_server
) -> None:
    watcher = open_live(page, f"{streamlit_server}/Playground")
    page.evaluate(COUNT_SENT)
    handle = bar(page, "q", "mat")
    box = handle.bounding_box()
    x, bottom = box["x"] + box["width"] / 2, box["y"] + box["height"] - 2
    before = live_state(page)
    page.mouse.move(x, bottom)
    page.mouse.down()
    seen = []
    for k in range(1, 16):
        page.mouse.move(x, bottom - 8 * k)
        page.wait_for_timeout(20)
        seen.append(live_state(page))
    # Every step of the drag moved the draft's weight of "mat", and the numbers with it, and
    # nothing went to the server.
    weights = [s["q"][0] for s in seen]
    assert weights == sorted(weights) and weights[-1] > before["q"][0]
    assert len({s["alpha"] for s in seen}) > 5
    assert seen[-1]["shown"] == percent(seen[-1]["alpha"])
    # The sidebar's share link follows the drag too (the frame after the move).
    dragged = ",".join(map(str, seen[-1]["q"]))
    poll(page, lambda: link_params(share_link(page))["q"] == dragged, "the share link")
    assert page.evaluate("() => window.sentToServer") == 0
    with rerun_waiter(page):
        page.mouse.up()
    assert page.evaluate("() => window.sentToServer") >= 1
    after = live_state(page)
    assert after["q"] == seen[-1]["q"]  # the run that saved it did not move it back
    poll(page, lambda: link_params(page.url)["q"].split(",")[0] == str(after["q"][0]), "the link")
    assert_clean(page, watcher)


def drag_up(page, model: str, word: str) -> None:
    """A mouse drag of ``word``'s bar of ``model``, 50 px up in five moves, then let go."""
    box = bar(page, model, word).bounding_box()
    x, bottom = box["x"] + box["width"] / 2, box["y"] + box["height"] - 2
    page.mouse.move(x, bottom)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(x, bottom - 10 * k)
    page.mouse.up()


def test_drags_cost_the_server_nothing_until_another_page_needs_them(page, streamlit_server):
    """Three drags in a row send nothing to the server: the view, the share link and the address
    bar follow in the browser. A click on another page's link right after carries the weights:
    that page opens with them, in the session and in its link."""
    open_live(page, f"{streamlit_server}/Playground")
    page.evaluate(COUNT_SENT)
    for word in ("mat", "sofa", "floor"):
        drag_up(page, "q", word)
    dragged = ",".join(map(str, live_state(page)["q"]))
    poll(page, lambda: link_params(page.url)["q"] == dragged, "the address bar")
    assert link_params(share_link(page))["q"] == dragged
    assert page.evaluate("() => window.sentToServer") == 0  # within the rest of live.js
    with rerun_waiter(page):
        page.get_by_role("link", name="One draw at a time").click()
    poll(page, lambda: "One_draw" in page.url, "the other page")
    poll(page, lambda: link_params(share_link(page)).get("q") == dragged, "its share link")
    assert link_params(page.url)["q"] == dragged


def test_another_control_moved_after_a_drag_keeps_the_drag(page, streamlit_server) -> None:
    """The drag is sent before the learner's next control acts: that control's run has both."""
    open_live(page, f"{streamlit_server}/Playground")
    drag_up(page, "p", "bed")
    dragged = live_state(page)["p"]
    gamma = page.get_by_role("slider", name="Guesses per target call γ (for words per call)")
    gamma.focus()
    with rerun_waiter(page):  # the drag's run, then the key's (a run of the page's part)
        page.keyboard.press("ArrowRight")
    poll(page, lambda: link_params(page.url).get("gamma") == "5", "γ in the link")
    server = "() => window.specviz.live.data.p"  # the server's copy of the weights
    poll(page, lambda: page.evaluate(server) == dragged, "the drag in the session")
    assert link_params(page.url)["p"] == ",".join(map(str, dragged))


def test_a_touch_drag_moves_a_bar(browser, streamlit_server) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 1600}, has_touch=True)
    page = context.new_page()
    try:
        open_live(page, f"{streamlit_server}/Playground")
        handle = bar(page, "p", "bed")
        handle.scroll_into_view_if_needed()
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] - 3
        before = live_state(page)["p"][3]
        cdp = context.new_cdp_session(page)
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
        )
        for k in range(1, 12):
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 10 * k}]},
            )
            page.wait_for_timeout(20)
        with rerun_waiter(page):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        # Read once the gesture has ended: on a busy machine the last moves are still being drawn
        # when the finger lifts, so a value read before touchEnd may not be the one sent.
        moved = live_state(page)["p"][3]
        assert moved > before
        poll(page, lambda: link_params(page.url)["p"].split(",")[3] == str(moved), "the link")
    finally:
        context.close()


def test_the_keyboard_moves_a_bar_and_keeps_focus(page, streamlit_server) -> None:
    watcher = open_live(page, f"{streamlit_server}/Playground")
    handle = bar(page, "p", "mat")
    handle.focus()
    assert handle.get_attribute("aria-valuenow") == "40"
    bars = page.locator(".live .dist").first  # its accessibility tree, as a screen reader has it
    assert 'slider "target p weight of mat": 40%' in bars.aria_snapshot()
    with rerun_waiter(page):
        for _ in range(3):
            page.keyboard.press("ArrowDown")
        page.keyboard.press("PageUp")
    assert handle.get_attribute("aria-valuenow") == "47"
    assert re.search(
        r"mat: target p [\d.]+% \(weight 47 of 100\)", handle.get_attribute("aria-valuetext")
    )
    poll(page, lambda: link_params(page.url)["p"].startswith("47,"), "the link")
    # One sentence for the whole run of keys, in the view's one polite region (issue 35).
    moved = Scenario(p_weights=(47, 30, 20, 10))
    said = captions.move_sentence(moved.labels, moved.step(), 0, 4, 0.1, Notation())
    assert said.startswith("mat is now under-sampled: the draft q proposes it 10%")
    status = "(s => [s.getAttribute('role'), s.textContent])(window.specviz.live.status)"
    assert page.evaluate(f"() => {status}") == ["status", said]
    tree, one = bars.aria_snapshot(), moved.step()
    for i, word in enumerate(moved.labels):  # every word's target share moved; the draft's not
        assert f'slider "target p weight of {word}": {percent(one.p[i])}' in tree, tree
        assert f'slider "draft q weight of {word}": {percent(one.q[i])}' in tree, tree
    assert f"mat (10% < {percent(one.p[0])})" in tree  # the chart's description follows
    assert (
        page.evaluate("() => window.specviz.live.root.querySelectorAll('[aria-live]').length") == 0
    )
    # The run that saved the change drew the view again without remounting it: focus stays.
    assert page.evaluate(
        "() => window.specviz.live.root.activeElement?.getAttribute('aria-label')"
    ) == ("target p weight of mat")
    assert_clean(page, watcher)


def test_all_zero_by_keyboard_says_what_to_do_and_the_bars_stay(page, streamlit_server) -> None:
    open_live(
        page, f"{streamlit_server}/Playground?{'&'.join(f'{k}={v}' for k, v in SHARED.items())}"
    )
    for word in ("mat", "sofa", "floor", "bed"):
        bar(page, "q", word).focus()
        page.keyboard.press("Home")
    message = "() => window.specviz.live.message.textContent"
    poll(page, lambda: page.evaluate(message), "the message")
    text = page.evaluate(message)
    assert text.startswith("All the draft's weights are zero") and "Raise at least one" in text
    bar(page, "q", "sofa").focus()
    page.keyboard.press("End")
    poll(page, lambda: page.evaluate("() => window.specviz.live.message.hidden"), "no message")
    poll(page, lambda: link_params(page.url)["q"] == "0,100,0,0", "the link")


def test_a_share_link_restores_the_dragged_weights(page, streamlit_server) -> None:
    query = to_query(Scenario(p_weights=(5, 0, 60, 35), q_weights=(25, 25, 25, 25), swapped=True))
    open_live(
        page, f"{streamlit_server}/Playground?{'&'.join(f'{k}={v}' for k, v in query.items())}"
    )
    state = live_state(page)
    assert state["p"] == [5, 0, 60, 35] and state["q"] == [25, 25, 25, 25]
    one = step(normalize([5, 0, 60, 35]), normalize([25, 25, 25, 25]))
    assert abs(state["alpha"] - one.alpha) <= TOL
    # Swapped letters: the target is q.
    assert bar(page, "q", "mat").count() == 0
    assert page.get_by_role("slider", name="target q weight of mat").count() == 1
    assert json.loads(json.dumps(state))  # plain data


def test_the_share_link_is_copied_from_the_keyboard(browser, streamlit_server) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        open_live(page, f"{streamlit_server}/Playground?gamma=6")
        button = page.locator("[data-testid=stSidebar] .share button")
        assert button.inner_text() == "📋 Copy the link"
        button.focus()
        page.keyboard.press("Enter")
        poll(page, lambda: button.inner_text() == "✓ Copied", "the button to say so")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == share_link(page) and link_params(copied)["gamma"] == "6"
    finally:
        context.close()


# ------------------------------------------------------------------------------------ Home


def test_homes_quality_moves_the_pair_in_the_browser(page, streamlit_server) -> None:
    watcher = open_live(page, f"{streamlit_server}/?quality=30")
    page.evaluate(HOLD_SENT)
    control = page.get_by_label("Draft quality")
    assert control.input_value() == "30" and number(page) == "72%"  # .19 + .23 + .2 + .1
    control.focus()
    page.keyboard.press("ArrowRight")  # 35 %: α = .6 + .4 × .35 = 74 %
    poll(page, lambda: number(page) == "74%", "α to follow")
    # The tally beside the bars follows in the same frame: the words drawn at 0 %, 35 % and 100 %
    # (Python drew them at every quality), before the server hears of the move.
    assert tally(page) == home_tally((0, 35, 100))
    assert link_params(share_link(page))["quality"] == "35"  # the sidebar's link too
    said = captions.quality_sentence(home_scenario(35).step(), 35, 4, Notation())
    status = "() => window.specviz.live.status.textContent"
    poll(page, lambda: page.evaluate(status) == said, "the move said, once")
    poll(page, lambda: page.evaluate("() => window.held.length"), "the move, for the server")
    page.evaluate("() => window.release()")
    poll(page, lambda: link_params(page.url).get("quality") == "35", "the address bar")
    page.keyboard.press("End")
    poll(page, lambda: number(page) == "100%", "α at a perfect draft")
    assert tally(page) == home_tally((0, 100))
    poll(page, lambda: link_params(page.url).get("quality") == "100", "the link")
    assert tally(page) == home_tally((0, 100))  # the server's run changed nothing there
    assert_clean(page, watcher)


def tally(page) -> list[list[str]]:
    """Home's table of drawn words as the view shows it: its rows, heads first."""
    rows = page.locator(".tally tr")
    return [[c.strip() for c in row.locator("th, td").all_inner_texts()] for row in rows.all()]


def home_tally(qualities: tuple[int, ...]) -> list[list[str]]:
    """The rows of Python's table of Home's draws (seed 7) at ``qualities``, heads first."""
    columns, _ = fx.home_tally(7, Notation())
    heads = ["word", "target p", *(f"draft {k}%" for k in qualities)]
    return [heads, *([columns[h][i] for h in heads] for i in range(len(columns["word"])))]


def number(page, name: str = "alpha") -> str:
    return page.get_by_test_id(f"live-{name}").inner_text().strip()


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_a_jump_glides_only_when_motion_is_welcome(page, streamlit_server, motion) -> None:
    """Issue 35: a jump the learner did not drag (a preset, a link) glides, unless the system
    asks for reduced motion: then the end state shows at once."""
    page.emulate_media(reduced_motion=motion)
    open_live(page, f"{streamlit_server}/Playground")
    glides = page.evaluate(
        """() => { const v = window.specviz.live;
            v.update({...v.data, p: [97, 1, 1, 1]}, v.send); return v.from !== null; }"""
    )
    assert glides == (motion == "no-preference")
