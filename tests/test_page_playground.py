"""The Playground page through AppTest: presets, sliders, words, the share link, hostile links,
projector mode and lettering — checked against the math, recomputed here with plain numpy.

Every test reaches the page the way a session does (``helpers.open_page``: app.py, then
``switch_page``). The charts are read back from the figure JSON Streamlit sends (``proto.spec``),
so what is checked is what the browser would draw.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from helpers import assert_alive, metrics, open_page, query, values, walk
from streamlit.testing.v1 import AppTest

import specviz.figures.playground as playground_module
from specviz.figures.numbers import percent
from specviz.figures.playground import playground_figures
from specviz.figures.style import ChartStyle
from specviz.one_token import normalize, step
from specviz.scenario import PRESETS_BY_KEY

PLAYGROUND = "pages/1_Playground.py"
TOL = 1e-12

DEFAULT_WORDS = ("mat", "sofa", "floor", "bed")
DEFAULT_P = (40, 30, 20, 10)
DEFAULT_Q = (10, 20, 30, 40)
DEFAULT_SEED = 7
CHART_KEYS = {"dist", "accept", "bucket", "proof"}


# --------------------------------------------------------------------------- reaching the page


def playground(link: dict[str, str] | None = None) -> AppTest:
    """The Playground in a new session.

    Without ``link``: app.py first, then the menu's switch to the Playground. With ``link``: a
    shared link's first visit, i.e. the Playground is the session's very first run, with those
    query parameters.
    """
    if link is None:
        return open_page(PLAYGROUND, via_home=True)
    return open_page(PLAYGROUND, link)


# --------------------------------------------------------------------------- reading it back


def helps_of(at) -> dict[str, str]:
    return {m.label: m.proto.help for m in at.metric}


def charts(at: AppTest) -> dict[str, dict]:
    """Chart key ("dist", "accept", "bucket", "proof") -> the decoded Plotly figure JSON."""
    out = {}
    for element in at.get("plotly_chart"):
        key = element.proto.id.rsplit("pg.chart.", 1)[-1]
        out[key] = json.loads(element.proto.spec)
    return out


def bars(spec: dict) -> list[dict]:
    return [trace for trace in spec["data"] if trace["type"] == "bar"]


def bar(spec: dict, name_part: str) -> dict:
    """The one bar trace whose name contains ``name_part``."""
    (match,) = [t for t in bars(spec) if name_part in t["name"]]
    return match


def tick_words(spec: dict) -> list[str]:
    """The words on a chart's x axis (the distributions chart adds a status note after <br>; a
    long word may be broken over two lines with a hyphen: key-<br>board)."""
    ticks = spec["layout"]["xaxis"]["ticktext"]
    return [text.replace("-<br>", "").split("<br>", 1)[0] for text in ticks]


def chart_numbers(at: AppTest) -> dict[str, list[list[float]]]:
    """Every numeric array of every trace, for comparing two sessions."""
    return {
        key: [
            [float(v) for v in np.nan_to_num(values(trace[axis]), nan=-1.0)]
            for trace in spec["data"]
            for axis in ("x", "y")
        ]
        for key, spec in charts(at).items()
    }


def _proto_strings(message: Any) -> Iterator[str]:
    for field, value in message.ListFields():
        repeated = field.is_repeated
        items = value if repeated else [value]
        if field.type == field.TYPE_MESSAGE:
            for item in items:
                yield from _proto_strings(item)
        elif field.type == field.TYPE_STRING and field.name != "spec":  # chart JSON: see below
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


def _embedded_json(html: str) -> object:
    match = re.search(r'<script id="\w+" type="application/json">(.*?)</script>', html, re.S)
    assert match, "an HTML view without its JSON data"
    return json.loads(match.group(1))


def flow_json(at: AppTest) -> dict:
    """The data of the page's one HTML view (the animated flow)."""
    (frame,) = at.get("iframe")
    return _embedded_json(frame.proto.srcdoc)


def all_texts(at: AppTest) -> list[str]:
    """Every string the page sends: element and widget protos, and every string in chart JSON."""
    texts: list[str] = []
    for root in (at.main, at.sidebar):
        for node in walk(root):
            proto = getattr(node, "proto", None)
            if proto is None or not hasattr(proto, "ListFields"):
                continue
            for text in _proto_strings(proto):
                if text.lstrip().lower().startswith("<!doctype html>"):
                    # Our own HTML views: their markup and scripts are ours; what came from the
                    # learner is only in the JSON data they embed.
                    texts.extend(_json_strings(_embedded_json(text)))
                else:
                    texts.append(text)
            if getattr(node, "type", None) == "plotly_chart":
                texts.extend(_json_strings(json.loads(proto.spec)))
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
    """Charts, metrics and sliders of the page agree with (labels, p_weights, q_weights)."""
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

    figs = charts(at)
    assert set(figs) == CHART_KEYS
    for key, spec in figs.items():
        assert tick_words(spec) == list(labels), key
        for trace in bars(spec):
            assert list(values(trace["x"])) == list(range(n)), key

    # p vs q: the normalised weights.
    target, draft = bar(figs["dist"], "target"), bar(figs["dist"], "draft")
    assert f"target {letters[0]}" in target["name"] and f"draft {letters[1]}" in draft["name"]
    np.testing.assert_allclose(values(target["y"]), p, rtol=0, atol=TOL)
    np.testing.assert_allclose(values(draft["y"]), q, rtol=0, atol=TOL)

    # Acceptance: min(1, p/q) where the draft proposes the word; accepted + rejected = 1 there.
    accepted, rejected = (values(bar(figs["accept"], n)["y"]) for n in ("accepted", "rejected"))
    proposed = q > 0
    ratio = np.minimum(1.0, p[proposed] / q[proposed])
    np.testing.assert_allclose(accepted[proposed], ratio, rtol=0, atol=TOL)
    np.testing.assert_allclose(rejected[proposed], 1.0 - ratio, rtol=0, atol=TOL)
    np.testing.assert_allclose(rejected[~proposed], 0.0, rtol=0, atol=TOL)

    # The bucket: r = max(0, p - q) / Z, and Z in the title.
    bucket = bar(figs["bucket"], "bucket")
    np.testing.assert_allclose(values(bucket["y"]), want["r"], rtol=0, atol=TOL)
    assert f"Z = {percent(want['z'])}" in figs["bucket"]["layout"]["title"]["text"]

    # The proof: kept min(p, q) + refills max(0, p - q) stack exactly to p.
    kept, refills = (values(bar(figs["proof"], n)["y"]) for n in ("kept", "refills"))
    np.testing.assert_allclose(kept, want["kept"], rtol=0, atol=TOL)
    np.testing.assert_allclose(refills, want["excess"], rtol=0, atol=TOL)
    np.testing.assert_allclose(kept + refills, p, rtol=0, atol=TOL)
    outline = next(t for t in figs["proof"]["data"] if t.get("mode") == "lines")
    heights = values(outline["y"])
    np.testing.assert_allclose(heights[~np.isnan(heights)], np.repeat(p, 2), rtol=0, atol=TOL)

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
        "gamma": "4",
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
    "garbage": ("0%", "100%", "every proposal is rejected"),
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
    bucket = charts(at)["bucket"]
    assert not any(values(bar(bucket, "bucket")["y"])), "an empty bucket must draw no bars"
    notes = [a["text"] for a in bucket["layout"].get("annotations", [])]
    assert any("bucket is empty" in text for text in notes), notes
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
    before = charts(at)
    at.slider(key=key).set_value(value).run()
    p_weights, q_weights = list(DEFAULT_P), list(DEFAULT_Q)
    which = p_weights if key.startswith("pg.p") else q_weights
    which[int(key[-1])] = value
    check_page(at, DEFAULT_WORDS, tuple(p_weights), tuple(q_weights))
    check_link(at, DEFAULT_WORDS, p_weights, q_weights)
    after = charts(at)
    assert all(before[k]["data"] != after[k]["data"] for k in ("dist", "proof"))


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
def test_all_zero_weights_show_an_error_then_recover(model: str) -> None:
    at = playground()
    for i in range(4):
        at.slider(key=f"pg.{model}{i}").set_value(0).run()
    assert_alive(at)
    errors = [e.value for e in at.error]
    assert len(errors) == 1, errors
    name = "target" if model == "p" else "draft"
    assert f"All the {name}'s weights are zero" in errors[0]
    assert errors[0].endswith("Raise at least one of its sliders.")
    labels = [link.proto.label for link in at.get("page_link")]
    assert "Open the Playground" not in labels, "the learner is on the Playground already"
    assert not at.get("plotly_chart") and not at.metric
    # The controls stay, so the learner can get out of it.
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
    assert all(len(values(t["y"])) == size for spec in charts(at).values() for t in bars(spec))
    assert len([s for s in at.slider if s.key and s.key.startswith("pg.p")]) == size
    check_link(at, words[:size], p_weights, q_weights)


def test_editing_a_word_relabels_every_chart_and_slider() -> None:
    at = playground()
    at.text_input(key="pg.word1").input("couch").run()
    labels = ("mat", "couch", "floor", "bed")
    check_page(at, labels, DEFAULT_P, DEFAULT_Q)
    assert at.slider(key="pg.p1").label == "target p weight of couch"
    assert at.slider(key="pg.q1").label == "draft q weight of couch"
    assert any("couch" in caption.value for caption in at.caption)
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
    figs = charts(at)
    return {
        "metrics": metrics(at),
        "numbers": chart_numbers(at),
        "ticks": {key: spec["layout"]["xaxis"]["ticktext"] for key, spec in figs.items()},
        "titles": {key: spec["layout"]["title"]["text"] for key, spec in figs.items()},
        "fonts": {key: spec["layout"]["font"]["size"] for key, spec in figs.items()},
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
    at = open_page(PLAYGROUND, link, via_home=True)
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
    for spec in charts(at).values():
        for text in tick_words(spec):
            assert not set(text) & set("<>*[]()`$&"), text
    for text in all_texts(at):
        for raw in ("<script", "**b**", "[c]", "<i>", "javascript:"):
            assert raw not in text, (raw, text)


# --------------------------------------------------------------------------- projector, letters


def test_projector_mode_enlarges_the_charts_and_enters_the_link() -> None:
    at = playground()
    normal = {key: spec["layout"] for key, spec in charts(at).items()}
    at.toggle(key="ui.projector").set_value(True).run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)
    big = {key: spec["layout"] for key, spec in charts(at).items()}
    for key in CHART_KEYS:
        assert big[key]["font"]["size"] > normal[key]["font"]["size"], key
        assert big[key]["title"]["font"]["size"] > normal[key]["title"]["font"]["size"], key
        assert big[key]["height"] > normal[key]["height"], key
    assert big["proof"]["font"]["size"] >= 20, "projector text must read from the back row"
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, projector="1")

    at.toggle(key="ui.projector").set_value(False).run()
    assert {key: spec["layout"]["font"] for key, spec in charts(at).items()} == {
        key: layout["font"] for key, layout in normal.items()
    }
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)


def test_projector_link_opens_in_projector_mode() -> None:
    at = playground({"projector": "1"})
    assert not at.warning
    assert at.toggle(key="ui.projector").value is True
    assert all(spec["layout"]["font"]["size"] >= 20 for spec in charts(at).values())
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)


def test_swapped_letters_relabel_titles_and_metrics() -> None:
    at = playground()
    plain = metrics(at)
    at.toggle(key="ui.swapped").set_value(True).run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, letters=("q", "p"))
    titles = {key: spec["layout"]["title"]["text"] for key, spec in charts(at).items()}
    assert titles["dist"].startswith("Target q vs draft p")
    assert "min(1, q/p)" in titles["accept"]
    assert "max(0, q − p)" in titles["bucket"]
    assert titles["proof"].replace("<br>", " ").endswith("= q, word by word")
    shown = metrics(at)
    assert helps_of(at)["TV distance"].startswith("TV(q, p)")
    assert list(shown.values()) == list(plain.values()), "the numbers do not depend on letters"
    helps = {m.label: m.proto.help for m in at.metric}
    assert helps["Acceptance α"].startswith("Σ min(q, p)")
    assert helps["Bucket Z"].startswith("Σ max(0, q − p)")
    assert at.slider(key="pg.p0").label == "target q weight of mat"
    assert at.slider(key="pg.q0").label == "draft p weight of mat"
    check_link(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, letters="chen")

    at.toggle(key="ui.swapped").set_value(False).run()
    check_page(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q)
    assert charts(at)["dist"]["layout"]["title"]["text"].startswith("Target p vs draft q")


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


def test_a_bad_seed_notice_says_which_seed_the_page_uses() -> None:
    at = playground({"seed": "abc"})
    (notice,) = [w.value for w in at.warning]
    assert (
        "The link's 'seed' is not a whole number from 0 to 4,294,967,295; the page uses seed 7."
        in notice
    )


# --------------------------------------------------------------------------- one step, one source

LINK = {"words": "tea,milk,juice", "p": "70,20,10", "q": "20,20,60", "seed": "99"}


def test_metrics_captions_and_flow_are_the_steps_numbers() -> None:
    at = playground(LINK)
    s = step(normalize([70, 20, 10]), normalize([20, 20, 60]))
    labels = ("tea", "milk", "juice")
    # The animated flow embeds the step's arrays, exactly (no recomputation on the way).
    data = flow_json(at)
    assert data["labels"] == list(labels)
    for key in ("p", "q", "kept", "bounced", "refill"):
        assert data[key] == getattr(s, key).tolist(), key
    assert data["alpha"] == s.alpha and data["z"] == s.z
    # Every caption under a chart is the caption built from the same step.
    figures = playground_figures(labels, s, ChartStyle())
    shown = [c.value for c in at.caption]
    for key in ("dist", "accept", "bucket", "proof"):
        assert figures[key][1] in shown, key
    assert any("tea: 20% + 50% = 70%" in c for c in shown)  # by hand: min(.7, .2) + max(0, .7 - .2)
    # Metrics and the sentence under them.
    assert metrics(at)["Acceptance α"] == percent(s.alpha) == "50%"
    assert metrics(at)["Bucket Z"] == metrics(at)["TV distance"] == percent(s.z) == "50%"
    prose = "\n".join(m.value for m in at.markdown)
    assert f"P(rejection) = {percent(s.z)} = size of the bucket Z" in prose


def _specs(at: AppTest) -> list[tuple[str, str]]:
    """Each chart's figure JSON and alt text, as sent."""
    return [(chart.proto.spec, chart.proto.alt) for chart in at.get("plotly_chart")]


def test_the_same_state_in_two_sessions_draws_identical_charts() -> None:
    first, second = playground(LINK), playground(LINK)
    assert _specs(first) == _specs(second) and len(_specs(first)) == 4
    assert [c.value for c in first.caption] == [c.value for c in second.caption]
    assert first.get("iframe")[0].proto.srcdoc == second.get("iframe")[0].proto.srcdoc
    # A state reached another way (app.py, then sliders) is the same state: the same charts.
    third = playground({"words": "tea,milk,juice", "p": "70,20,99", "q": "20,20,60", "seed": "1"})
    third.slider(key="pg.p2").set_value(10).run()
    assert _specs(third) == _specs(first)


#: Every call of the counting builder below: (labels, p, q, projector, swapped).
BUILT: list[tuple] = []


def counted_playground_figures(labels, one, style):
    """``playground_figures``, counting its calls (module level: the page cache names it)."""
    BUILT.append((labels, tuple(one.p), tuple(one.q), style.projector, style.notation.swapped))
    return playground_figures(labels, one, style)


def test_the_charts_are_built_once_per_state(monkeypatch) -> None:
    monkeypatch.setattr(playground_module, "playground_figures", counted_playground_figures)
    BUILT.clear()
    link = {"words": "ant,bee,cat", "p": "11,22,33", "q": "33,22,11"}
    a = playground(link)
    assert len(BUILT) == 1
    b = playground(link)  # another session on the same state: served from the cache
    assert len(BUILT) == 1 and _specs(a) == _specs(b)
    # Settings the charts do not show reuse them too.
    a.select_slider(key="w.gamma").set_value(7).run()
    a.number_input(key="ui.seed").set_value(123).run()
    assert len(BUILT) == 1
    # A new weight, a display setting or a lettering is a new state: built once each.
    a.slider(key="pg.p0").set_value(12).run()
    assert len(BUILT) == 2
    a.slider(key="pg.p0").set_value(11).run()  # back to a state already built
    assert len(BUILT) == 2
    a.toggle(key="ui.projector").set_value(True).run()
    a.toggle(key="ui.swapped").set_value(True).run()
    b.toggle(key="ui.projector").set_value(True).run()
    b.toggle(key="ui.swapped").set_value(True).run()
    assert_alive(a)
    assert_alive(b)
    assert len(BUILT) == 4 and len(set(BUILT)) == 4
    assert _specs(a) == _specs(b)
    p, q = tuple(normalize([11, 22, 33])), tuple(normalize([33, 22, 11]))
    assert BUILT[-1] == (("ant", "bee", "cat"), p, q, True, True)


# --------------------------------------------------------------------------- typed words


@pytest.mark.parametrize(("typed", "kept"), [("<eos>", "eos"), ("<b>x</b>", "bxb"), ("a_b", "ab")])
def test_a_typed_word_that_is_changed_says_so(typed: str, kept: str) -> None:
    """Markup and other characters are taken out of a typed word (it is shown in charts, links
    and text); the learner is told once, in a toast that adds nothing above the sliders."""
    at = playground()
    at.text_input(key="pg.word3").set_value(typed).run()
    assert query(at)["words"].split(",")[3] == kept
    assert len(at.toast) == 1 and f"'{kept}'" in at.toast[0].value
    at.text_input(key="pg.word3").set_value("rug").run()  # a clean word: no toast
    assert not at.toast


def test_a_typed_word_with_nothing_left_keeps_the_old_one() -> None:
    at = playground()
    at.text_input(key="pg.word0").set_value("<>").run()
    assert query(at)["words"].split(",")[0] == "mat"
    assert "'mat' is kept" in at.toast[0].value
