"""The Playground page through AppTest: presets, sliders, words, the share link, hostile links,
projector mode and lettering — checked against the math, recomputed here with plain numpy.

Every test reaches the page the way a session does (``helpers.open_page``: app.py, then
``switch_page``). The page hands its live view the words, weights, γ and look; the browser draws
every chart and number from them with the core's arithmetic (held equal to the core in Chromium:
tests/test_browser_live.py). So what is checked here is what the page sends the view, and the
numbers the core makes of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from helpers import assert_alive, component_data, open_page, query, walk
from streamlit.testing.v1 import AppTest

from specviz.figures.live import live_words, move_messages
from specviz.figures.numbers import decimal, percent
from specviz.links import label_rule
from specviz.one_token import normalize, step
from specviz.scenario import PRESETS_BY_KEY
from specviz.text import NUMBERS
from specviz.theory import expected_tokens_per_step

pytestmark = pytest.mark.slow  # the app under AppTest

PLAYGROUND = "pages/1_Playground.py"
TOL = 1e-12

DEFAULT_WORDS = ("mat", "sofa", "floor", "bed")
DEFAULT_P = (40, 30, 20, 10)
DEFAULT_Q = (10, 20, 30, 40)
DEFAULT_SEED = 7


# --------------------------------------------------------------------------- reaching the page


def playground(link: dict[str, str] | None = None, *, via_home: bool = False) -> AppTest:
    """The Playground in a new session.

    Without ``link``: app.py first, then the menu's switch to the Playground. With ``link``: a
    shared link's first visit, i.e. the Playground is the session's very first run, with those
    query parameters.
    """
    if link is None:
        at = open_page(PLAYGROUND, via_home=True)
    else:
        at = open_page(PLAYGROUND, link, via_home=via_home)
    # The weight editor is drawn only while its expander is open: open it, as a learner would.
    at.session_state["pg.edit"] = True
    at.run()
    assert_alive(at)
    return at


# --------------------------------------------------------------------------- reading it back


def live(at: AppTest) -> dict:
    """The data the page hands its live view (the browser draws every chart from it)."""
    return component_data(at, "specviz.live")


def metrics(at: AppTest) -> dict[str, str]:
    """The numbers the live view shows for the data the page sent."""
    data = live(at)
    one = step(normalize(data["p"]), normalize(data["q"]))
    return {
        "Acceptance α": percent(one.alpha),
        "TV distance": percent(one.z),
        "Bucket Z": percent(one.z),
        "Words/call": f"{decimal(expected_tokens_per_step(one.alpha, data['gamma']), 2)}",
    }


#: The live view's own code and style (ours, not the learner's): left out of "what the page shows".
_CODE = {"spec", "js_content", "css_content", "html_content"}


def _proto_strings(message: Any) -> Iterator[str]:
    for field, value in message.ListFields():
        repeated = field.is_repeated
        items = value if repeated else [value]
        if field.type == field.TYPE_MESSAGE:
            for item in items:
                yield from _proto_strings(item)
        elif field.name == "json":  # the live view's data
            for item in items:
                yield from _json_strings(json.loads(item))
        elif field.type == field.TYPE_STRING and field.name not in _CODE:
            yield from items


def _json_strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            if key != "bdata":
                yield from _json_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _json_strings(value)


def all_texts(at: AppTest) -> list[str]:
    """Every string the page sends: element and widget protos, and the live view's data."""
    texts: list[str] = []
    for root in (at.main, at.sidebar):
        for node in walk(root):
            proto = getattr(node, "proto", None)
            if proto is None or not hasattr(proto, "ListFields"):
                continue
            texts.extend(_proto_strings(proto))
    return texts


# --------------------------------------------------------------------------- the math, by hand


def expected_numbers(p_weights, q_weights) -> dict[str, Any]:
    p = np.asarray(p_weights, dtype=np.float64) / sum(p_weights)
    q = np.asarray(q_weights, dtype=np.float64) / sum(q_weights)
    kept = np.minimum(p, q)
    excess = np.maximum(p - q, 0.0)
    z = float(excess.sum())
    return {
        "p": p,
        "q": q,
        "kept": kept,
        "excess": excess,
        "alpha": float(kept.sum()),
        "z": z,
        "r": excess / z if z > 1e-12 else np.zeros_like(p),
    }


def check_page(at: AppTest, labels, p_weights, q_weights, letters: tuple[str, str] = ("p", "q")):
    """The live view's data, its numbers and the sliders agree with (labels, p_weights,
    q_weights)."""
    assert_alive(at)
    assert not at.error, [e.value for e in at.error]
    n = len(labels)
    want = expected_numbers(p_weights, q_weights)
    p, q = want["p"], want["q"]

    # The learner's controls show the state.
    assert [at.text_input(key=f"pg.word{i}").value for i in range(n)] == list(labels)
    assert [at.slider(key=f"pg.p{i}").value for i in range(n)] == list(p_weights)
    assert [at.slider(key=f"pg.q{i}").value for i in range(n)] == list(q_weights)
    assert at.slider(key="pg.size").value == n

    # The live view gets the state and the lettering.
    data = live(at)
    assert data["labels"] == list(labels)
    assert (data["p"], data["q"]) == (list(p_weights), list(q_weights))
    assert (data["T"], data["D"]) == letters

    shown = metrics(at)
    assert shown["Acceptance α"] == percent(want["alpha"])
    assert shown["Bucket Z"] == percent(want["z"])
    assert shown["TV distance"] == percent(0.5 * float(np.abs(p - q).sum()))
    return want


def check_link(at: AppTest, labels, p_weights, q_weights, seed=DEFAULT_SEED, **extra: str):
    """The address bar is a share link of exactly this state (and of the page's own γ)."""
    assert query(at) == {
        "words": ",".join(labels),
        "p": ",".join(map(str, p_weights)),
        "q": ",".join(map(str, q_weights)),
        "seed": str(seed),
        "lang": "en",
        "gamma": "4",
        "c": "0.1",
        **extra,
    }


# --------------------------------------------------------------------------- default and presets


def test_default_page_draws_the_math() -> None:
    at = playground()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)
    # Hand-derived: min = .1 + .2 + .2 + .1.
    assert metrics(at)["Acceptance α"] == "60%"
    assert metrics(at)["Bucket Z"] == "40%"
    assert not at.warning and not at.info
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)


def _long_tail_alpha() -> tuple[str, str]:
    """α and Z of the long-tail preset, summed exactly with fractions."""
    p = (100, 50, 33, 25, 20, 17, 14, 13, 11, 10)
    q = (100, 35, 16, 9, 6, 4, 3, 2, 1, 1)
    alpha = sum(min(Fraction(a, sum(p)), Fraction(b, sum(q))) for a, b in zip(p, q, strict=True))
    return f"{float(100 * alpha):.1f}%", f"{float(100 * (1 - alpha)):.1f}%"


LONG_TAIL_ALPHA, LONG_TAIL_Z = _long_tail_alpha()

# key -> (α, Z, a phrase of the lesson), derived by hand from the preset's weights.
PRESET_EXPECTATIONS = {
    "close": ("90%", "10%", "α = 90%"),
    "garbage": ("0%", "100%", "no guess is kept"),
    "identical": ("100%", "0%", "the bucket is empty"),
    "misses": ("90%", "10%", "never proposes 'bed'"),
    "filters": ("90%", "10%", "gives 'bed' zero probability"),
    "long_tail": (LONG_TAIL_ALPHA, LONG_TAIL_Z, "long tail"),
    "one_hot": ("40%", "60%", "always says 'mat'"),
}


@pytest.mark.parametrize("key", sorted(PRESET_EXPECTATIONS))
def test_preset_button_shows_its_alpha_and_lesson(key: str) -> None:
    alpha, z, phrase = PRESET_EXPECTATIONS[key]
    preset = PRESETS_BY_KEY[key]
    at = playground()
    at.selectbox(key="pg.preset").set_value(key).run()
    assert_alive(at)

    assert metrics(at)["Acceptance α"] == alpha
    assert metrics(at)["Bucket Z"] == z
    lessons = [info.value for info in at.info]
    assert len(lessons) == 1, lessons
    assert preset.title in lessons[0] and phrase in lessons[0], lessons[0]

    labels = ("mat", "sofa", "floor", "bed", "rug", "chair", "roof", "table", "box", "keyboard")
    labels = labels[: len(preset.p_weights)]
    check_page(at, labels, preset.p_weights, preset.q_weights)
    check_link(at, labels, preset.p_weights, preset.q_weights)


def test_identical_preset_says_the_bucket_is_empty() -> None:
    at = playground()
    at.selectbox(key="pg.preset").set_value("identical").run()
    assert_alive(at)
    assert metrics(at)["Bucket Z"] == "0%"
    # α = 1: every one of the γ = 4 guesses is kept, plus the target's own word.
    assert metrics(at)["Words/call"] == "5.00"


def test_draft_set_equal_to_target_with_sliders() -> None:
    """The same state as the Identical preset, reached with the sliders a learner uses."""
    at = playground()
    for i, weight in enumerate(DEFAULT_P):
        at.slider(key=f"pg.q{i}").set_value(weight).run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_P)
    assert metrics(at)["Acceptance α"] == "100%"
    assert metrics(at)["Words/call"] == "5.00"


def test_random_preset_is_replayable_from_the_shown_seed() -> None:
    at = playground()
    at.button(key="preset.random").click().run()
    assert_alive(at)
    assert query(at)["seed"] == str(DEFAULT_SEED + 1)
    assert [info.value for info in at.info] == [
        f"**Random** weights drawn with seed {DEFAULT_SEED + 1}."
    ]
    first = (query(at)["p"], query(at)["q"])
    p_weights = tuple(int(v) for v in first[0].split(","))
    q_weights = tuple(int(v) for v in first[1].split(","))
    assert all(0 <= w <= 100 for w in p_weights + q_weights)
    check_page(at, DEFAULT_WORDS, p_weights, q_weights)
    assert at.number_input(key="ui.seed").value == DEFAULT_SEED + 1

    at.button(key="preset.random").click().run()
    assert query(at)["seed"] == str(DEFAULT_SEED + 2)
    assert (query(at)["p"], query(at)["q"]) != first

    # Another learner pressing Random once gets the same weights: the seed replays them.
    other = playground()
    other.button(key="preset.random").click().run()
    assert (query(other)["p"], query(other)["q"]) == first


def test_lesson_names_the_learners_own_word_and_leaves_on_a_slider_move() -> None:
    at = playground()
    at.text_input(key="pg.word3").input("couch").run()
    at.selectbox(key="pg.preset").set_value("misses").run()
    (lesson,) = [info.value for info in at.info]
    assert "never proposes 'couch'" in lesson
    check_page(at, ("mat", "sofa", "floor", "couch"), (40, 30, 20, 10), (50, 30, 20, 0))

    at.slider(key="pg.q3").set_value(5).run()
    assert not at.info, "a hand-made state is no longer the preset's lesson"
    check_page(at, ("mat", "sofa", "floor", "couch"), (40, 30, 20, 10), (50, 30, 20, 5))


# --------------------------------------------------------------------------- sliders


MOVES = [
    ("pg.p0", 0),
    ("pg.p0", 100),
    ("pg.q3", 0),
    ("pg.q1", 55),
    ("pg.p2", 1),
]


@pytest.mark.parametrize(("key", "value"), MOVES, ids=[f"{k}={v}" for k, v in MOVES])
def test_slider_move_redraws_every_chart(key: str, value: int) -> None:
    at = playground()
    before = live(at)
    at.slider(key=key).set_value(value).run()
    p_weights, q_weights = list(DEFAULT_P), list(DEFAULT_Q)
    which = p_weights if key.startswith("pg.p") else q_weights
    which[int(key[-1])] = value
    check_page(at, DEFAULT_WORDS, tuple(p_weights), tuple(q_weights))
    check_link(at, DEFAULT_WORDS, p_weights, q_weights)
    after = live(at)
    assert (before["p"], before["q"]) != (after["p"], after["q"])


def test_a_series_of_moves_keeps_every_chart_consistent() -> None:
    at = playground()
    p_weights, q_weights = list(DEFAULT_P), list(DEFAULT_Q)
    for key, value in [("pg.p1", 73), ("pg.q0", 0), ("pg.q2", 99), ("pg.p3", 0), ("pg.q0", 12)]:
        at.slider(key=key).set_value(value).run()
        (p_weights if key.startswith("pg.p") else q_weights)[int(key[-1])] = value
        check_page(at, DEFAULT_WORDS, tuple(p_weights), tuple(q_weights))
    check_link(at, DEFAULT_WORDS, p_weights, q_weights)


@pytest.mark.parametrize(("gamma", "words"), [(1, "1.60"), (4, "2.31"), (8, "2.47")])
def test_guesses_per_call_follow_the_geometric_sum(gamma: int, words: str) -> None:
    """(1 − α^(γ+1)) / (1 − α) at α = 0.6, worked out by hand."""
    at = playground()
    at.select_slider(key="w.gamma").set_value(gamma).run()
    assert_alive(at)
    assert metrics(at)["Words/call"] == words


@pytest.mark.parametrize("model", ["p", "q"])
def test_all_zero_weights_keep_the_page_then_recover(model: str) -> None:
    at = playground()
    for i in range(4):
        at.slider(key=f"pg.{model}{i}").set_value(0).run()
    assert_alive(at)
    # The live view says what is wrong (tests/test_browser_live.py) and keeps its bars, so the
    # learner can raise one again; the page around it goes on.
    assert not at.error
    assert live(at)[model] == [0, 0, 0, 0]
    labels = [link.proto.label for link in at.get("page_link")]
    assert "Open the Playground" not in labels, "the learner is on the Playground already"
    assert at.slider(key=f"pg.{model}2").value == 0

    at.slider(key=f"pg.{model}2").set_value(30).run()
    p_weights = (0, 0, 30, 0) if model == "p" else DEFAULT_P
    q_weights = (0, 0, 30, 0) if model == "q" else DEFAULT_Q
    check_page(at, DEFAULT_WORDS, p_weights, q_weights)


# --------------------------------------------------------------------------- vocabulary and words


@pytest.mark.parametrize("size", [3, 7, 10])
def test_vocabulary_size_changes_the_number_of_bars(size: int) -> None:
    at = playground()
    at.slider(key="pg.size").set_value(size).run()
    words = ("mat", "sofa", "floor", "bed", "rug", "chair", "roof", "table", "box", "keyboard")
    pad = (10,) * max(0, size - 4)
    p_weights, q_weights = (DEFAULT_P + pad)[:size], (DEFAULT_Q + pad)[:size]
    check_page(at, words[:size], p_weights, q_weights)
    assert len([s for s in at.slider if s.key and s.key.startswith("pg.p")]) == size
    check_link(at, words[:size], p_weights, q_weights)


def test_editing_a_word_relabels_every_chart_and_slider() -> None:
    at = playground()
    at.text_input(key="pg.word1").input("couch").run()
    labels = ("mat", "couch", "floor", "bed")
    check_page(at, labels, DEFAULT_P, DEFAULT_Q)
    assert at.slider(key="pg.p1").label == "target p weight of couch"
    assert at.slider(key="pg.q1").label == "draft q weight of couch"
    check_link(at, labels, DEFAULT_P, DEFAULT_Q)


def test_an_emptied_word_keeps_the_old_one() -> None:
    at = playground()
    at.text_input(key="pg.word0").input("   ").run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)


MARKUP_WORDS = {
    "<script>": "script",
    "<b>hi</b>": "bhib",
    "<img src=x>": "img srcx",
    "**bold**": "bold",
    "[a](b)": "ab",
    "`code`": "code",
    "# head": "head",
    "$x$": "x",
    ":red[x]": "redx",
}


@pytest.mark.parametrize("typed", sorted(MARKUP_WORDS))
def test_a_typed_word_with_markup_becomes_plain_text(typed: str) -> None:
    at = playground()
    at.text_input(key="pg.word2").input(typed).run()
    word = MARKUP_WORDS[typed]
    labels = ("mat", "sofa", word, "bed")
    check_page(at, labels, DEFAULT_P, DEFAULT_Q)
    assert at.slider(key="pg.p2").label == f"target p weight of {word}"
    texts = all_texts(at)
    assert not any(typed in text for text in texts), f"{typed!r} reached the page as typed"
    check_link(at, labels, DEFAULT_P, DEFAULT_Q)


# --------------------------------------------------------------------------- the share link


def _make_changes(at: AppTest, projector: bool, swapped: bool) -> None:
    at.slider(key="pg.size").set_value(5).run()
    at.text_input(key="pg.word4").input("blanket").run()
    at.slider(key="pg.p4").set_value(64).run()
    at.slider(key="pg.q0").set_value(3).run()
    at.slider(key="pg.p1").set_value(0).run()
    at.number_input(key="ui.seed").set_value(12345).run()
    if projector:
        at.toggle(key="ui.projector").set_value(True).run()
    if swapped:
        at.toggle(key="ui.swapped").set_value(True).run()
    assert_alive(at)


def _snapshot(at: AppTest) -> dict[str, Any]:
    return {
        "metrics": metrics(at),
        "live": live(at),
        "words": [t.value for t in at.text_input],
        "sliders": {s.key: s.value for s in at.slider},
        "toggles": {t.key: t.value for t in at.toggle},
        "seed": at.number_input(key="ui.seed").value,
    }


@pytest.mark.parametrize(
    ("projector", "swapped"), [(False, False), (True, True)], ids=["plain", "projector+chen"]
)
def test_share_link_restores_the_same_page(projector: bool, swapped: bool) -> None:
    at = playground()
    _make_changes(at, projector, swapped)
    labels = ("mat", "sofa", "floor", "bed", "blanket")
    p_weights, q_weights = (40, 0, 20, 10, 64), (3, 20, 30, 40, 10)
    letters = ("q", "p") if swapped else ("p", "q")
    check_page(at, labels, p_weights, q_weights, letters)
    extra = ({"projector": "1"} if projector else {}) | ({"letters": "chen"} if swapped else {})
    check_link(at, labels, p_weights, q_weights, seed=12345, **extra)

    link = query(at)
    restored = playground(link)
    assert not restored.warning, [w.value for w in restored.warning]
    check_page(restored, labels, p_weights, q_weights, letters)
    assert _snapshot(restored) == _snapshot(at)
    assert query(restored) == link


def test_link_state_survives_the_way_through_the_landing_page() -> None:
    """A link to the landing page, then the menu to the Playground: same state."""
    link = {"words": "tea,milk,juice", "p": "70,20,10", "q": "20,20,60", "seed": "99"}
    at = playground(link, via_home=True)
    check_page(at, ("tea", "milk", "juice"), (70, 20, 10), (20, 20, 60))
    # α = .2 + .2 + .1, by hand.
    assert metrics(at)["Acceptance α"] == "50%"
    check_link(at, ("tea", "milk", "juice"), (70, 20, 10), (20, 20, 60), seed=99)


# --------------------------------------------------------------------------- hostile links

DEFAULT = (DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED)
# name -> (query parameters, what the page must show instead: labels, p, q, seed)
HOSTILE_LINKS: dict[str, tuple[dict[str, str], tuple]] = {
    "p not numbers": ({"p": "a,b,c,d"}, DEFAULT),
    "q not numbers": ({"q": "1,2,three,4"}, DEFAULT),
    "negative weight": ({"p": "-10,30,20,10"}, DEFAULT),
    "weight above 100": ({"q": "10,20,30,400"}, DEFAULT),
    "NaN weight": ({"p": "nan,30,20,10"}, DEFAULT),
    "infinite weight": ({"q": "inf,20,30,40"}, DEFAULT),
    "all-zero weights": ({"p": "0,0,0,0"}, DEFAULT),
    "empty weights": ({"p": ""}, DEFAULT),
    "too many tokens": (
        {"words": ",".join("abcdefghijk"), "p": ",".join(["5"] * 11), "q": ",".join(["5"] * 11)},
        DEFAULT,
    ),
    "too few tokens": ({"words": "a,b", "p": "1,2", "q": "2,1"}, DEFAULT),
    "huge words": ({"words": "x" * 100_000}, DEFAULT),
    "huge p": ({"p": "1," * 50_000}, DEFAULT),
    "huge seed": ({"seed": "9" * 100_000}, DEFAULT),
    "length mismatch": ({"words": "a,b,c", "p": "1,2,3,4", "q": "4,3,2,1"}, DEFAULT),
    "bad seed": ({"seed": "abc"}, DEFAULT),
    "negative seed": ({"seed": "-5"}, DEFAULT),
    "seed above 2**32": ({"seed": "4294967296"}, DEFAULT),
    "bad projector flag": ({"projector": "<script>"}, DEFAULT),
    "script tag in words": (
        {"words": "<script>alert(1)</script>,b,c,d"},
        (("scriptalert1", "b", "c", "d"), DEFAULT_P, DEFAULT_Q, DEFAULT_SEED),
    ),
    "markup in words": (
        {"words": "**bold**,[x](http://e.vil),<img src=x onerror=alert(1)>,`c`"},
        (("bold", "xhttpe.vil", "img srcx one", "c"), DEFAULT_P, DEFAULT_Q, DEFAULT_SEED),
    ),
    "good weights, one bad field": (
        {"words": "a,b,c", "p": "1,2,3", "q": "3,2,1", "seed": "x"},
        (("a", "b", "c"), (1, 2, 3), (3, 2, 1), DEFAULT_SEED),
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE_LINKS))
def test_hostile_link_opens_a_working_page_with_a_notice(name: str) -> None:
    params, (labels, p_weights, q_weights, seed) = HOSTILE_LINKS[name]
    at = playground(params)  # asserts no exception
    notices = [w.value for w in at.warning]
    assert len(notices) == 1 and "This link had problems" in notices[0], notices
    assert len(notices[0]) < 1000, "the notice must not echo the link"
    check_page(at, labels, p_weights, q_weights)
    check_link(at, labels, p_weights, q_weights, seed=seed)

    texts = all_texts(at)
    assert not any("<script" in text.lower() for text in texts)
    assert not any("<img" in text.lower() for text in texts)
    assert max(len(text) for text in texts) < 5000, "a huge parameter reached the page"

    # The notice answers the link; once the learner acts it is gone.
    at.slider(key="pg.p0").set_value(p_weights[0] + 1 if p_weights[0] < 100 else 99).run()
    assert_alive(at)
    assert not at.warning


def test_labels_from_a_link_are_plain_text_everywhere() -> None:
    words = "<script>x</script>,**b**,[c](javascript:1),<i>d</i>"
    at = playground({"words": words})
    labels = ("scriptxscrip", "b", "cjavascript1", "idi")
    check_page(at, labels, DEFAULT_P, DEFAULT_Q)
    for text in live(at)["labels"]:
        assert not set(text) & set("<>*[]()`$&"), text
    for text in all_texts(at):
        for raw in ("<script", "**b**", "[c]", "<i>", "javascript:"):
            assert raw not in text, (raw, text)


# --------------------------------------------------------------------------- projector, letters


def test_projector_mode_enlarges_the_view_and_enters_the_link() -> None:
    at = playground()
    normal = live(at)
    at.toggle(key="ui.projector").set_value(True).run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)
    big = live(at)
    assert big["projector"] and not normal["projector"]
    assert big["font"] >= 24 > normal["font"], "projector text must read from the back row"
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, projector="1")
    at.toggle(key="ui.projector").set_value(False).run()
    assert live(at) == normal
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)


def test_projector_link_opens_in_projector_mode() -> None:
    at = playground({"projector": "1"})
    assert not at.warning
    assert at.toggle(key="ui.projector").value is True
    assert live(at)["projector"] and live(at)["font"] >= 24
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)


def test_swapped_letters_relabel_titles_and_metrics() -> None:
    at = playground()
    plain = metrics(at)
    at.toggle(key="ui.swapped").set_value(True).run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, letters=("q", "p"))
    assert metrics(at) == plain, "the numbers do not depend on letters"
    assert at.slider(key="pg.p0").label == "target q weight of mat"
    assert at.slider(key="pg.q0").label == "draft p weight of mat"
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, letters="chen")

    at.toggle(key="ui.swapped").set_value(False).run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)


# --------------------------------------------------------------------------- the page's own γ


@pytest.mark.parametrize(("gamma", "words"), [(1, "1.60"), (8, "2.47")])
def test_gamma_comes_from_the_link_and_stays_in_it(gamma: int, words: str) -> None:
    at = playground({"gamma": str(gamma)})
    assert not at.warning, [w.value for w in at.warning]
    assert at.select_slider(key="w.gamma").value == gamma
    assert metrics(at)["Words/call"] == words
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, gamma=str(gamma))


@pytest.mark.parametrize("bad", ["9", "0", "abc", "4.5"])
def test_a_bad_gamma_in_the_link_gets_a_notice_naming_what_the_page_uses(bad: str) -> None:
    at = playground({"gamma": bad})
    (notice,) = [w.value for w in at.warning]
    assert "The link's 'gamma' must be one of 1, 2, …, 8; the page uses γ = 4." in notice
    assert at.select_slider(key="w.gamma").value == 4
    assert metrics(at)["Words/call"] == "2.31"
    at.select_slider(key="w.gamma").set_value(2).run()
    assert not at.warning
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, gamma="2")


@pytest.mark.parametrize("cost", ["0", "0.5", "1"])
def test_the_draft_cost_comes_from_the_link_reaches_the_view_and_stays_in_it(cost: str) -> None:
    at = playground({"c": cost})
    assert not at.warning, [w.value for w in at.warning]
    assert at.select_slider(key="w.c").value == float(cost)
    assert live(at)["cost"] == float(cost)
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, c=cost)
    at.select_slider(key="w.c").set_value(0.3).run()
    assert live(at)["cost"] == 0.3
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, c="0.3")


@pytest.mark.parametrize("bad", ["-1", "nan", "0.7", "x"])
def test_a_bad_draft_cost_in_the_link_gets_a_notice_and_the_default(bad: str) -> None:
    at = playground({"c": bad})
    (notice,) = [w.value for w in at.warning]
    assert "The link's 'c'" in notice and "c = 0.1" in notice
    assert live(at)["cost"] == 0.1


def test_a_bad_seed_notice_says_which_seed_the_page_uses() -> None:
    at = playground({"seed": "abc"})
    (notice,) = [w.value for w in at.warning]
    assert (
        "The link's 'seed' is not a whole number from 0 to 4,294,967,295; the page uses seed 7."
        in notice
    )


# --------------------------------------------------------------------------- one step, one source

LINK = {"words": "tea,milk,juice", "p": "70,20,10", "q": "20,20,60", "seed": "99"}


def test_the_live_view_gets_the_state_and_nothing_computed() -> None:
    """The browser computes the step from the weights; the page sends the state itself."""
    at = playground(LINK)
    assert live(at) | {"css": "", "key": ""} == {
        "labels": ["tea", "milk", "juice"],
        "p": [70, 20, 10],
        "q": [20, 20, 60],
        "gamma": 4,
        "cost": 0.1,
        "max_weight": 100,
        "rounding": 1e-12,
        "T": "p",
        "D": "q",
        "font": 16,
        "projector": False,
        "css": "",
        "gesture": 0,
        "key": "",
        "quality": None,
        "say": move_messages(),  # the words of what a move did, from the catalogs
        "words": live_words(),  # and every other word the view writes
        "numbers": NUMBERS["en"],
    }
    # α = .2 + .2 + .1, by hand.
    assert metrics(at)["Acceptance α"] == "50%"


def test_the_same_state_in_two_sessions_sends_the_same_view() -> None:
    first, second = playground(LINK), playground(LINK)
    assert live(first) == live(second)
    # A state reached another way (app.py, then sliders) is the same state: the same view.
    third = playground({"words": "tea,milk,juice", "p": "70,20,99", "q": "20,20,60", "seed": "1"})
    third.slider(key="pg.p2").set_value(10).run()
    assert live(third) == live(first)


# --------------------------------------------------------------------------- typed words


def notices(at: AppTest) -> list[str]:
    """The editor's notices on changed words (captions with the edit icon)."""
    return [c.value for c in at.caption if c.value.startswith(":material/edit:")]


@pytest.mark.parametrize(("typed", "kept"), [("<eos>", "eos"), ("<b>x</b>", "bxb"), ("a_b", "ab")])
def test_a_typed_word_that_is_changed_says_so(typed: str, kept: str) -> None:
    """Markup and other characters are taken out of a typed word (it is shown in charts, links
    and text); the learner is told once, under the word's row, in the page (not a toast over
    its text), and the rule was on show before typing."""
    at = playground()
    assert any(label_rule() in c.value for c in at.caption), "the rule comes before typing"
    at.text_input(key="pg.word3").set_value(typed).run()
    assert query(at)["words"].split(",")[3] == kept
    assert not at.toast
    (notice,) = notices(at)
    assert f"Word 4 was changed to '{kept}'" in notice and label_rule() in notice
    at.text_input(key="pg.word3").set_value("rug").run()  # a clean word: no notice
    assert not notices(at)


def test_a_typed_word_with_nothing_left_keeps_the_old_one() -> None:
    at = playground()
    at.text_input(key="pg.word0").set_value("<>").run()
    assert query(at)["words"].split(",")[0] == "mat"
    (notice,) = notices(at)
    assert "'mat' is kept" in notice


@pytest.mark.parametrize("typed", ["👩\u200d💻", "café ☕", "日本語", "🇫🇷 Paris", "हिन्दी"])
def test_words_of_any_script_and_emoji_are_kept_as_typed(typed: str) -> None:
    at = playground()
    at.text_input(key="pg.word1").set_value(typed).run()
    assert query(at)["words"].split(",")[1] == typed and not notices(at)
    assert live(at)["labels"][1] == typed


def test_the_weight_editor_is_drawn_only_while_it_is_open() -> None:
    """Its 17 widgets are most of a run's work: a learner dragging bars does not pay for them."""
    at = open_page(PLAYGROUND, LINK)
    assert not [s for s in at.slider if s.key and s.key.startswith("pg.")]
    at.session_state["pg.edit"] = True
    at.run()
    assert [at.slider(key=f"pg.p{i}").value for i in range(3)] == [70, 20, 10]
    at.session_state["pg.edit"] = False
    at.run()
    assert not [s for s in at.slider if s.key and s.key.startswith("pg.")]
    assert live(at)["p"] == [70, 20, 10]  # closing it changes nothing else
