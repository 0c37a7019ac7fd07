"""The page "Many words per call": its charts as pure Vega-Lite specs (valid, updated in place),
and under AppTest a deep link with every setting, control changes, bad links, the sections as
tabs (the open one alone drawn, restored by the link), and every number, chart point and word of
the timeline read back and compared with the core — exact values to 1e-12 — so the page shows
what the core computed.
"""

from __future__ import annotations

import contextvars
import json

import altair as alt
import numpy as np
import pytest
from helpers import (
    all_text,
    assert_alive,
    component_data,
    metrics,
    open_page,
    own_markdown,
    query,
    valid_vega_lite,
    vega_chart,
)
from streamlit.testing.v1 import AppTest

from specviz import text
from specviz.decoding import LEVIATHAN_TABLE2, Origin, ranges
from specviz.figures import decoding as fig
from specviz.figures import fit, vega
from specviz.figures.decoding import spelled
from specviz.figures.numbers import pace, percent
from specviz.figures.style import ChartStyle
from specviz.language import corpus, toy_check, toy_curve, toy_run, toy_words
from specviz.lesson_plan import PLAN
from specviz.limits import (
    CHECK_WORDS,
    DECODE_COSTS,
    DECODE_TEMPERATURES,
    PAIR_KEYS,
    PAIR_TITLES,
)
from specviz.links import DECODE_SECTIONS
from specviz.palette import Notation
from specviz.scenario import Scenario
from specviz.text import say
from specviz.theory import expected_tokens_per_step, walltime_speedup

pytestmark = pytest.mark.slow  # the app under AppTest

PAGE = "pages/5_Many_words_per_call.py"
EXACT = 1e-12
DEEP = {
    "pair": "weak",
    "gamma": "6",
    "c": "0.3",
    "temp": "0.5",
    "length": "120",
    "seed": "11",
    "projector": "1",
    "letters": "chen",
}


def figures(key: str, t: float, g: int, n: int, seed: int, c: float, style: ChartStyle) -> dict:
    """Every chart the page draws at a setting, built from the core's results."""
    curve, run = toy_curve(key, t), toy_run(key, t, g, n, seed)
    check = toy_check(t, g)
    return {
        "words": fig.words_figure(curve, run, style)[0],
        "speed": fig.speed_figure(curve, run, c, style)[0],
        "alpha": fig.alpha_figure(check, g, c, style)[0],
        "row": fig.in_a_row_figure(curve[g], style)[0],
        "shares": fig.shares_figure(curve[g], toy_words(key), style)[0],
        "time": fig.time_figure(run, c, style)[0],
    }


# --------------------------------------------------------------------------- the specs


def test_every_spec_passes_the_vega_lite_schema() -> None:
    """On a screen (a projector changes sizes only: the same properties)."""
    for name, spec in figures("ngram", 1.0, 4, 60, 7, 0.1, ChartStyle()).items():
        assert alt.LayerChart.from_dict(spec).to_dict(validate=True)["layer"], name
        valid_vega_lite(spec)  # and its tooltips show the app's own texts


@pytest.mark.parametrize("name", ["words", "speed", "alpha", "row", "shares", "time"])
def test_two_states_differ_in_their_datasets_only(name: str) -> None:
    """Same words and style, another setting: the same spec once ``datasets`` is removed, so
    that the chart on the page is updated in place, not remounted."""
    style = ChartStyle()
    states = [
        ("ngram", 1.0, 4, 60, 7, 0.1),
        ("weak", 0.5, 6, 120, 8, 0.3),
        ("textbook", 0.0, 1, 30, 9, 0.0),
    ]
    specs = [figures(*s, style)[name] for s in states]
    bare = [{k: v for k, v in spec.items() if k != "datasets"} for spec in specs]
    assert bare[0] == bare[1] == bare[2]
    assert len({json.dumps(spec["datasets"]) for spec in specs}) == 3


def test_the_alpha_chart_draws_the_formula_from_its_dataset() -> None:
    """Vega computes the curves from dataset ``params`` (c and γ per curve): the expression is
    Leviathan et al.'s formula, and the rows are the learner's c, free drafts and c = 0.5."""
    spec = figures("ngram", 1.0, 4, 60, 7, 0.2, ChartStyle())["alpha"]
    assert spec["datasets"]["rows"][:3] == [
        {"kind": "yours", "c": 0.2, "g": 4},
        {"kind": "free", "c": 0, "g": 4},
        {"kind": "slow", "c": fig.SLOW_COST, "g": 4},
    ]
    (curves,) = [layer for layer in spec["layer"] if "sequence" in layer.get("data", {})]
    expression = curves["transform"][-1]["calculate"]
    assert "(1 - pow(datum.a, datum.g + 1)) / (1 - datum.a)" in expression
    assert expression.endswith("/ (datum.g * datum.c + 1)")


def test_published_points_are_plotted_as_reported() -> None:
    spec = figures("ngram", 1.0, 4, 60, 7, 0.1, ChartStyle())["alpha"]
    published = rows(spec["datasets"], "published")
    cells = sorted((c["a"], c["s"]) for c in published["cell"])
    assert cells == sorted((c.alpha, c.speedup) for c in LEVIATHAN_TABLE2)
    above = [c.ceiling for c in LEVIATHAN_TABLE2 if c.speedup > c.ceiling]
    assert [r["s"] for r in published["over"]] == above and len(above) == 4
    quoted = published["range"]
    assert [(r["lo"], r["hi"]) for r in quoted] == [(r.speedup, r.high) for r in ranges()]
    assert min(r["a"] for r in quoted) > 1  # in their own column, not at any α


@pytest.mark.parametrize(
    ("key", "c"),
    [("ngram", 0.1), ("weak", 1.0), ("perfect", 0.0), (((50, 50, 0), (0, 0, 100)), 0.5)],
)
def test_the_time_lanes_add_up_exactly(key, c: float) -> None:
    """Plain = words; speculative = target calls + c × draft steps, to the last bit."""
    run = toy_run(key, 1.0, 4, 60, 7)
    spec, caption = fig.time_figure(run, c, ChartStyle())
    check_lanes(spec["datasets"], run, c)
    total = f"{run.target_calls + c * run.draft_calls:g}"
    assert (
        f"{run.target_calls} target calls + {c:g} × {run.draft_calls} guesses = time {total}"
        in (caption)
    )


def test_the_slower_band_is_named_where_no_curve_comes() -> None:
    """Bottom left when the speed-up curve ends in the band (it falls; at γ < 4 it stays above
    1/(1 + γc) > 1/5, clear of the name), else bottom right (the curve never enters the band).
    Checked for every pair, temperature and cost the page offers, and on the charts' data."""
    for key in PAIR_KEYS:
        for t in DECODE_TEMPERATURES:
            curve, run = toy_curve(key, t), toy_run(key, t, 4, 30, 7)
            for c in DECODE_COSTS:
                speeds = [w.speedup(c) for w in curve]
                spec = fig.speed_figure(curve, run, c, ChartStyle())[0]
                (point,) = [r for r in spec["datasets"]["rows"] if r["kind"] == "point"]
                where, other = ("left", "right") if speeds[-1] < 1 else ("right", "left")
                assert point[where] == say("decoding.slower") and point[other] == ""
                if where == "left":
                    assert min(speeds[:4]) > 1 / 5, (key, t, c)
                else:
                    assert min(speeds) >= 1 - EXACT, (key, t, c)
    texts = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    corners = {layer["encoding"]["text"]["field"]: layer for layer in texts[:2]}
    assert (
        corners["left"]["mark"]["align"] == "left"
        and corners["left"]["encoding"]["x"]["datum"] == 0
    )
    assert corners["right"]["encoding"]["x"]["datum"] == len(curve) - 1


def _resolved(mark: dict, prop: str, row: dict, default: object) -> object:
    """A mark property as Vega draws it for ``row``: a constant, or ``{"expr": "datum.f"}``."""
    value = mark.get(prop, default)
    if isinstance(value, dict):
        field = value["expr"].removeprefix("datum.")
        assert field.isidentifier(), value
        return row[field]
    return value


@pytest.mark.parametrize("key", [*[k for k in PAIR_KEYS if k != "yours"], ((9, 1), (1, 9))])
def test_the_best_gamma_label_never_crosses_the_axis_or_the_curve(key) -> None:
    """The label "★ best γ = …" sits above its star (no curve is higher than its best) and runs
    from it towards the middle: up to 40% of the chart wide, it stays inside the γ range, clear
    of the y-axis at γ = 0 and the right edge, for every temperature and cost the page offers."""
    for t in DECODE_TEMPERATURES:
        curve = toy_curve(key, t)
        last = len(curve) - 1
        for c in DECODE_COSTS:
            spec = fig.speed_figure(curve, toy_run(key, t, 4, 30, 7), c, ChartStyle())[0]
            (point,) = [r for r in spec["datasets"]["rows"] if r["kind"] == "point"]
            (label,) = [
                layer["mark"]
                for layer in spec["layer"]
                if layer["encoding"].get("text", {}).get("field") == "text"
            ]
            best, width = point["best"], 0.4 * last  # "★ best γ = 12" on a phone: ~35%
            align = _resolved(label, "align", point, "center")
            dx = _resolved(label, "dx", point, 0)
            start = {"left": best, "center": best - width / 2, "right": best - width}[align]
            assert start >= 0 and start + width <= last, (key, t, c, align)
            assert start > 0 or dx > 0, (key, t, c)  # not on the axis line either
            assert label["baseline"] == "bottom" and label["dy"] < 0  # above the star
            assert max(w.speedup(c) for w in curve) == point["best_speed"], (key, t, c)


# --------------------------------------------------------------------------- the page


def page(link: dict[str, str] | None = None) -> AppTest:
    """The page as a shared link's first visit (or, without a link, reached from Home)."""
    return open_page(PAGE, via_home=True) if link is None else open_page(PAGE, link)


def views(at: AppTest) -> list:
    """The timeline views on the page (the tabs' focus keeper is a component too)."""
    return [v for v in at.get("bidi_component") if v.proto.component_name == "specviz.timeline"]


def timeline(at: AppTest) -> dict:
    """The data the page hands its timeline view (the browser draws the text and calls from it)."""
    (view,) = views(at)
    return json.loads(view.proto.json)


def rows(datasets: dict[str, list[dict]], name: str = "rows") -> dict[str, list[dict]]:
    """A chart's dataset ``name``, by the ``kind`` of each row."""
    out: dict[str, list[dict]] = {}
    for row in datasets[name]:
        out.setdefault(row.get("kind"), []).append(row)
    return out


def check_lanes(data: dict[str, list[dict]], run, c: float) -> None:
    """The time view: plain decoding ends at the number of words, one target call (1) each;
    speculative decoding at target calls + c × draft steps exactly, each call γ guesses (γc)
    then the target (1); the verdict as :func:`~specviz.figures.numbers.pace` words it."""
    bars = rows(data, "bars")
    plain, calls, drafts = bars["target"], bars["call"], bars["draft"]
    assert [(b["x"], b["x2"]) for b in plain] == [(i, i + 1) for i in range(run.n_tokens)]
    assert len(calls) == len(drafts) == run.target_calls
    assert calls[-1]["x2"] == run.target_calls + c * run.draft_calls  # exactly, not approximately
    assert [b["x2"] - b["x"] for b in calls] == pytest.approx([1] * run.target_calls, abs=EXACT)
    assert sum(b["x2"] - b["x"] for b in drafts) == pytest.approx(c * run.draft_calls, abs=1e-9)
    assert all(a["x2"] == b["x"] for a, b in zip(calls, drafts[1:], strict=False))  # no gaps
    assert [e["x"] for e in data["end"]] == [calls[-1]["x2"]] * 2
    speed = run.speedup(c)
    assert speed == pytest.approx(run.n_tokens / calls[-1]["x2"], abs=EXACT)
    verdict = rows(data, "texts")["verdict"][0]["text"]
    assert verdict.endswith(f"{speed:.2f}×: {pace(speed)} plain decoding")


def check_against_core(at: AppTest, key, t: float, g: int, n: int, seed: int, c: float, words=None):
    """``key``: a pair's key, or the Playground's weights (``words``: the Playground's words)."""
    run, curve = toy_run(key, t, g, n, seed), toy_curve(key, t)
    shown = metrics(at)  # α, words per call and speed-up in a long text: the prediction
    assert shown["Guesses kept α"] == percent(curve[g].alpha)
    assert shown["Words/call"] == f"{curve[g].long_run:.2f}"
    assert shown["Speed-up"] == f"{curve[g].speedup(c):.2f}×"
    check_lanes(vega_chart(at, "This text as time")[1], run, c)
    data = timeline(at)  # every word, its origin and every call, as the core ran them
    assert data["text"] == spelled(words or toy_words(key), run.tokens)
    assert (data["origin"], data["call"]) == (run.origin.tolist(), run.call_of.tolist())
    assert data["kept"] == run.accepted_per_call.tolist()
    assert (
        data["verdict"] == run.verdict.tolist()
        and data["final_origin"] == run.final_origin.tolist()
    )
    odds = np.stack([run.draft_p, run.draft_q, run.keep_chance], axis=-1)
    assert np.allclose(data["odds"], odds, atol=1e-6)  # rounded for the tooltips' percentages
    assert len(data["shown"]) == run.target_calls and sum(data["shown"]) == n
    assert all(1 <= s <= k + 1 for s, k in zip(data["shown"], data["kept"], strict=True))
    words = rows(vega_chart(at, "Words per target call")[1])
    assert [(r["g"], r["words"], r["words_iid"]) for r in words["curve"]] == [
        (w.gamma, w.long_run, w.iid) for w in curve
    ]
    assert words["point"][0]["words"] == run.words_per_call
    speed = rows(vega_chart(at, "Speed-up against γ")[1])
    assert [r["speed"] for r in speed["curve"]] == pytest.approx(
        [w.speedup(c) for w in curve], abs=EXACT
    )
    best, best_speed = fig.best_gamma(curve, c)
    point = speed["point"][0]
    assert [point[k] for k in ("speed", "best", "best_speed")] == [run.speedup(c), best, best_speed]


def test_the_default_page_shows_the_cores_numbers() -> None:
    at = page()
    check_against_core(at, "ngram", 1.0, 4, 60, 7, 0.1)
    link = query(at)
    assert {k: link[k] for k in ("pair", "gamma", "c", "temp", "length")} == {
        "pair": "ngram",
        "gamma": "4",
        "c": "0.1",
        "temp": "1",
        "length": "60",
    }
    assert not at.warning and not at.error
    for chart in at.get("vega_lite_chart"):  # a stable alt text; the caption is shown below
        assert chart.proto.alt.startswith("Chart: ")
    assert len(at.get("vega_lite_chart")) == 3  # γ, the speed-up, and the first section's
    assert not at.get("iframe")  # a view that stays mounted: no iframe to reload on a change
    assert timeline(at)["alt"].startswith("60 words from")
    assert open_section(at) == "calls" and "section" not in link  # the first: left out of links


def test_a_deep_link_with_every_setting_restores_it() -> None:
    at = page(DEEP)
    assert not at.warning, [w.value for w in at.warning]
    assert at.selectbox(key="w.pair").value == "weak"
    assert [at.select_slider(key=f"w.{k}").value for k in ("gamma", "c", "temp", "length")] == [
        6,
        0.3,
        0.5,
        120,
    ]
    check_against_core(at, "weak", 0.5, 6, 120, 11, 0.3)
    assert query(at) | DEEP == query(at)  # every setting is written back as it came
    text = all_text(at)  # Chen's lettering everywhere: the target is q
    assert "draft p guesses" in text and "target q checks" in text
    assert "target p" not in text and "draft q" not in text
    assert [timeline(at)[k] for k in ("T", "D")] == ["q", "p"]  # the timeline's legend, tooltips
    assert Notation(swapped=True).fill(fig.PAIR_BLURBS["weak"]) in text
    assert any("Projector mode" in h.proto.body for h in at.get("html"))
    spec, _ = vega_chart(at, "Speed-up against γ")
    assert spec["config"]["axis"]["labelFontSize"] == ChartStyle(projector=True).font_size > 14


def test_controls_rerun_with_their_values() -> None:
    """γ, the pair, New text and every pair's blurb, in one session."""
    at = page()
    at.select_slider(key="w.gamma").set_value(2).run()
    assert_alive(at)
    assert query(at)["gamma"] == "2"
    check_against_core(at, "ngram", 1.0, 2, 60, 7, 0.1)
    (button,) = [b for b in at.button if b.label == "New text"]
    button.click().run()
    assert query(at)["seed"] == "8"
    for key in PAIR_KEYS:
        at.selectbox(key="w.pair").set_value(key).run()
        assert_alive(at)
        assert query(at)["pair"] == key
        assert Notation().fill(fig.PAIR_BLURBS[key]) in all_text(at)
        assert at.selectbox(key="w.pair").format_func(key) == PAIR_TITLES[key]
    check_against_core(at, "textbook", 1.0, 2, 60, 8, 0.1)


def test_a_new_setting_is_heard_with_the_numbers_it_moved() -> None:
    """One sentence for a screen reader after a change: γ, c and the three metrics as the core
    computes them (the page's live region says it when it differs from the last)."""
    at = page()
    at.select_slider(key="w.gamma").set_value(2).run()
    at.select_slider(key="w.c").set_value(0.5).run()
    here = toy_curve("ngram", 1.0)[2]
    assert component_data(at, "specviz.heard") == (
        f"γ = 2, c = 0.5: guesses kept α = {percent(here.alpha)}, "
        f"{here.long_run:.2f} words per call, speed-up {here.speedup(0.5):.2f}×"
    )


BAD = {"pair": "zzz", "gamma": "99", "c": "abc", "temp": "-1", "length": "7", "section": "x"}


def test_bad_link_values_become_notices_and_defaults() -> None:
    at = page(BAD)
    (notice,) = [w.value for w in at.warning]
    assert "This link had problems" in notice
    for name in BAD:
        assert f"The link's '{name}'" in notice, name
    assert "the page uses 'The n-gram pair'" in notice
    assert "the page uses c = 0.1" in notice and "the page uses temperature 1" in notice
    assert "the page uses 'Call by call'" in notice
    link = query(at)
    assert [link[k] for k in ("pair", "gamma", "c", "temp", "length")] == [
        "ngram",
        "4",
        "0.1",
        "1",
        "60",
    ]
    check_against_core(at, "ngram", 1.0, 4, 60, 7, 0.1)


def open_section(at: AppTest) -> str:
    """The key of the tab that is open below the controls; only its content is drawn."""
    (tabs,) = at.get("tab_container")
    assert [tab.label for tab in tabs.children.values()] == list(DECODE_SECTIONS.values())
    shown = [
        key
        for key, tab in zip(DECODE_SECTIONS, tabs.children.values(), strict=True)
        if tab.children
    ]
    index = tabs.proto.tab_container.default_tab_index
    assert shown == [list(DECODE_SECTIONS)[index]], (shown, index)
    return shown[0]


#: What each section draws: its charts (by title), the timeline, the check's table.
SECTION_CONTENT = {
    "calls": (["This text as time"], 1, False),
    "pays": (["Speed-up against α"], 0, False),
    "theory": (["Is every guess kept", "Which words"], 0, True),
}


def drawn(at: AppTest) -> tuple[list[str], int, bool]:
    """What the sections show: their charts (titles, besides the two at the top), how many
    timelines, whether the check's table is there."""
    charts = at.get("vega_lite_chart")
    titles = " ".join(
        json.dumps(json.loads(c.proto.spec).get("title", ""), ensure_ascii=False) for c in charts
    )
    found = [
        title for shown, _, _ in SECTION_CONTENT.values() for title in shown if title in titles
    ]
    assert len(charts) == 2 + len(found), titles
    return (
        found,
        len(views(at)),
        any(m.startswith("| pair") for m in own_markdown(at)),
    )


@pytest.mark.parametrize("section", list(DECODE_SECTIONS))
def test_a_link_opens_its_section_and_only_that_section_is_drawn(section: str) -> None:
    """The sections below the controls are tabs: a control's rerun draws the open one only, and
    the share link restores it (the first is left out of links)."""
    at = page({"pair": "weak", "gamma": "3", "section": section})
    assert not at.warning
    assert open_section(at) == section and drawn(at) == SECTION_CONTENT[section]
    at.select_slider(key="w.gamma").set_value(5).run()  # a control: still that section alone
    assert_alive(at)
    assert open_section(at) == section and drawn(at) == SECTION_CONTENT[section]
    link = query(at)
    assert link.get("section") == (None if section == "calls" else section)
    again = page(link)
    assert open_section(again) == section and drawn(again) == SECTION_CONTENT[section]


def test_the_lecturers_steps_open_the_section_they_talk_about() -> None:
    """The plan's two steps here talk about the calls (one call checks several guesses) and the
    speed-up at the top: their links open the first tab, the timeline."""
    steps = [step for step in PLAN if step.script == PAGE]
    assert [dict(step.query).get("section") for step in steps] == [None, None]
    for step in steps:
        at = page(dict(step.query))
        assert open_section(at) == "calls" and drawn(at) == SECTION_CONTENT["calls"]


@pytest.mark.parametrize(
    "link",
    [
        {"c": "0.10", "temp": "1.0"},  # other spellings of offered values are understood
        {"pair": "<script>alert(1)</script>", "length": "9" * 400, "gamma": "-1"},
        {"temp": "nan", "c": "-0"},
    ],
)
def test_odd_links_never_raise(link: dict[str, str]) -> None:
    at = page(link)
    assert_alive(at)
    assert "<script>" not in all_text(at)
    if "<script>" not in link.get("pair", "") and link.get("temp") != "nan":
        assert not at.warning
        assert (query(at)["c"], query(at)["temp"]) == ("0.1", "1")
    if link.get("c") == "-0":
        assert query(at)["c"] == "0"  # written back the offered way


@pytest.mark.parametrize(
    "link",
    [
        {"c": "0", "gamma": "8"},
        {"c": "1", "gamma": "1", "pair": "weak"},
        {"temp": "0", "pair": "textbook", "c": "0.5"},
        {"length": "30", "pair": "perfect", "gamma": "8"},
        {"pair": "weak", "temp": "0", "c": "0"},  # greedy: the weak draft always says "the"
    ],
)
def test_the_extremes_run_and_their_sentences_hold(link: dict[str, str]) -> None:
    """The summary sentence at the ends of the controls: "slower" whenever the speed-up is
    below 1 — never "no faster" — and the best γ as the chart shows it."""
    at = page(link)
    assert not at.warning and not at.error
    text = all_text(at)
    key, t = link.get("pair", "ngram"), float(link.get("temp", 1))
    g, c = int(link.get("gamma", 4)), float(link.get("c", 0.1))
    run, curve = toy_run(key, t, g, int(link.get("length", 60)), 7), toy_curve(key, t)
    best, _ = fig.best_gamma(curve, c)
    if c == 0 and best == len(curve) - 1:
        assert "every extra guess helps" in text
    elif c == 0 and best == 0:
        assert curve[g].alpha == 0 and "no guess is ever kept" in text
    elif best == 0:
        assert "every γ is slower than plain decoding" in text
    else:
        assert f"the best is γ = {best}" in text
    shown = round(run.speedup(c), 2)  # judged on the value on show, as on every page
    assert ("faster than" if shown > 1 else "slower than" if shown < 1 else "as fast as") in text
    assert "no faster" not in text


def test_the_weak_draft_at_a_high_cost_is_slower_than_plain_decoding() -> None:
    at = page({"pair": "weak", "c": "0.5"})
    assert float(metrics(at)["Speed-up"].rstrip("×")) < 1
    speed = toy_run("weak", 1.0, 4, 60, 7).speedup(0.5)
    assert f"{speed:.2f}× plain decoding's speed, slower than plain decoding." in all_text(at)


def test_the_table_and_the_alpha_chart_show_the_same_check() -> None:
    at, pays = page({"section": "theory"}), page({"section": "pays"})
    measured = toy_check(1.0, 4)
    predictions = [toy_curve(k, 1.0)[4] for k in PAIR_KEYS]
    table = next(m for m in own_markdown(at) if m.startswith("| pair"))
    for w, m in zip(predictions, measured, strict=True):
        assert (m.prediction.long_run, m.prediction.alpha) == (w.long_run, w.alpha)
        line = next(x for x in table.splitlines() if PAIR_TITLES[m.key] in x)
        assert f"| {w.long_run:.2f} | {CHECK_WORDS / m.expected_calls:.2f} |" in line
        assert f"{CHECK_WORDS / m.mean_calls:.2f} ± " in line
    data = rows(vega_chart(pays, "Speed-up against α")[1])
    assert [(r["a"], r["s"]) for r in data["pair"]] == [
        (w.alpha, w.speedup(0.1)) for w in predictions
    ]
    assert "the article that started SpecViz" in all_text(pays)  # the 1.8–2.5× has its source


def test_the_other_charts_read_the_prediction() -> None:
    at = page({"pair": "strong", "gamma": "3", "section": "theory"})
    prediction = toy_curve("strong", 1.0)[3]
    _, row = vega_chart(at, "Is every guess kept")
    chances = [r["chance"] for r in row["rows"]]
    in_a_row = prediction.kept_in_a_row
    assert chances == pytest.approx([in_a_row[k] / in_a_row[k - 1] for k in (1, 2, 3)], abs=EXACT)
    assert {r["alpha"] for r in row["rows"]} == {prediction.alpha}
    _, shares = vega_chart(at, "Which words")
    words = corpus()[0]
    for r in shares["rows"]:
        w = words.index(r["word"].strip("“”"))
        assert r["kept"] == pytest.approx(prediction.guessed[w] / prediction.written[w], abs=EXACT)
    assert Origin.BONUS in timeline(page({"pair": "strong", "gamma": "3"}))["origin"]


# ------------------------------------------------------------------- your pair, the Playground's

PLAYGROUND = {
    "pair": "yours",
    "words": "sun,rain,wind,snow",
    "p": "40,30,20,10",
    "q": "10,20,30,40",
    "gamma": "3",
    "c": "0.2",
    "seed": "5",
}


def check_formula(at: AppTest, alpha: float, g: int, c: float) -> None:
    """The metrics are the Playground's: α, then theory's words per call and speed-up."""
    assert metrics(at) == {
        "Guesses kept α": percent(alpha),
        "Words/call": f"{expected_tokens_per_step(alpha, g):.2f}",
        "Speed-up": f"{walltime_speedup(alpha, g, c):.2f}×",
    }


def test_your_pair_from_a_link_is_the_playgrounds_and_the_link_restores_it() -> None:
    at = page(PLAYGROUND)
    assert not at.warning and not at.error
    assert at.selectbox(key="w.pair").value == "yours"
    assert at.selectbox(key="w.pair").format_func("yours") == "Your pair from the Playground"
    weights = ((40, 30, 20, 10), (10, 20, 30, 40))
    alpha = Scenario(p_weights=weights[0], q_weights=weights[1]).step().alpha
    assert alpha == pytest.approx(0.6, abs=EXACT)
    check_formula(at, alpha, 3, 0.2)
    check_against_core(at, weights, 1.0, 3, 60, 5, 0.2, words=("sun", "rain", "wind", "snow"))
    assert Notation().fill(fig.PAIR_BLURBS["yours"]) in all_text(at)
    link = query(at)
    assert link | PLAYGROUND == link
    again = page(link)  # the share link, opened in a new session
    assert metrics(again) == metrics(at) and timeline(again) == timeline(at)


def test_identical_models_keep_every_guess() -> None:
    at = page(PLAYGROUND | {"q": "40,30,20,10", "gamma": "4", "c": "0.1"})
    check_formula(at, 1.0, 4, 0.1)
    assert metrics(at)["Words/call"] == "5.00"
    data = timeline(at)
    assert set(data["kept"]) == {4} and Origin.BUCKET not in data["origin"]


def test_a_draft_that_never_agrees_is_slower_than_plain_decoding() -> None:
    """α = 0: one word per call, and every guess costs time: the verdict says "slower"."""
    at = page(PLAYGROUND | {"p": "100,0,0,0", "q": "0,0,50,50", "gamma": "4", "c": "0.5"})
    check_formula(at, 0.0, 4, 0.5)
    text = all_text(at)
    assert "0.33× plain decoding's speed, slower than plain decoding." in text
    assert "no guess is ever kept" not in text  # c > 0: the sentence for free drafts is not true
    _, data = vega_chart(at, "This text as time")
    assert rows(data, "texts")["verdict"][0]["text"] == "✗ 0.33×: slower than plain decoding"


@pytest.mark.parametrize(("model", "name"), [("p_weights", "target"), ("q_weights", "draft")])
def test_an_all_zero_playground_model_is_a_message_not_a_traceback(model: str, name: str) -> None:
    """A state the Playground's sliders reach (a link with all-zero weights is a notice)."""
    at = page({"pair": "yours"})
    at.session_state["specviz.scenario"] = Scenario(**{model: (0, 0, 0, 0)})
    at.run()
    assert_alive(at)
    (error,) = at.error
    assert f"All the {name}'s weights are zero" in error.value and "Playground" in error.value
    assert not at.get("vega_lite_chart") and not views(at) and not at.metric
    assert query(at)["pair"] == "yours"
    at.selectbox(key="w.pair").set_value("ngram").run()  # another pair: the page is back
    assert_alive(at)
    assert not at.error and len(at.get("vega_lite_chart")) == 3


@pytest.mark.parametrize(("language", "columns"), [("en", 1), ("es", 1), ("zh", 2)])
def test_the_charts_beside_the_controls_fit_a_1280_projectors_side_column(
    language: str, columns: int
) -> None:
    """The two charts sit beside γ and c, in a column of 640 px on a 1280 px projector: their
    titles wrap to it, and the legend takes two columns only where both fit right of the y axis
    (Chinese's short names; English's and Spanish's run past), its chart two legend rows taller
    otherwise. A laptop's legend is one column, as a phone's."""

    def drawn(style: ChartStyle) -> tuple[dict, dict]:
        text.use(language)
        curve, run = toy_curve("ngram", 1.0), toy_run("ngram", 1.0, 4, 60, 7)
        return fig.words_figure(curve, run, style)[0], fig.speed_figure(curve, run, 0.1, style)[0]

    projector = ChartStyle(projector=True)
    words, speed = contextvars.copy_context().run(drawn, projector)
    laptop = contextvars.copy_context().run(drawn, ChartStyle())[0]
    side = projector.side_column()
    for spec in (words, speed):
        for line in spec["title"]:
            assert fit.text_width(line, side.title_size) * 1.1 <= side.width - 2 * fit.SIDE_MARGIN

    def legend(spec: dict) -> dict:
        return next(
            x["encoding"]["color"]["legend"]
            for x in spec["layer"]
            if "color" in x.get("encoding", ())
        )

    assert (legend(words)["columns"], legend(laptop)["columns"]) == (columns, 1)
    more = 0 if columns == 2 else round(2 * vega.key_height(side))
    assert words["height"] == side.height // 2 + 110 + more
