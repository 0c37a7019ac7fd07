"""The page "Many words per call" under AppTest: a deep link with every setting, a control
change, bad links, and every number, chart point and word of the timeline read back and compared
with the core (specviz.language's results), so the page shows what the core computed.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from helpers import all_text, assert_alive, metrics, open_page, query, values
from streamlit.testing.v1 import AppTest

from specviz.decoding import LEVIATHAN_TABLE2, Origin
from specviz.figures.decoding import PAIR_BLURBS, best_gamma, check_rows
from specviz.language import PAIR_KEYS, PAIR_TITLES, corpus, toy_curve, toy_run
from specviz.limits import DECODE_COSTS, DECODE_LENGTHS, DECODE_TEMPERATURES
from specviz.palette import Notation

PAGE = "pages/5_Many_words_per_call.py"

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


def page(link: dict[str, str] | None = None) -> AppTest:
    """The page as a shared link's first visit (or, without a link, reached from Home)."""
    if link is None:
        return open_page(PAGE, via_home=True)
    return open_page(PAGE, link)


def timeline(at: AppTest) -> dict:
    (frame,) = at.get("iframe")
    html = frame.proto.srcdoc
    match = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S)
    assert match, "the timeline has no data"
    return json.loads(match.group(1))


def figure(at: AppTest, key: str) -> dict:
    (chart,) = [c for c in at.get("plotly_chart") if c.proto.id.endswith(key)]
    return json.loads(chart.proto.spec)


def trace(spec: dict, name: str) -> dict:
    (found,) = [t for t in spec["data"] if t.get("name") == name]
    return found


def check_against_core(at: AppTest, key: str, t: float, g: int, n: int, seed: int, c: float):
    run = toy_run(key, t, g, n, seed)
    shown = metrics(at)
    assert shown["Words/call"] == f"{run.words_per_call:.2f}"
    assert shown["Speed-up"] == f"{run.speedup(c):.2f}×"
    # The timeline: every word, its origin and every call, as the core ran them.
    data = timeline(at)
    assert len(data["text"]) == n == run.tokens.size
    assert [w["o"] for w in data["text"]] == run.origin.tolist()
    assert len(data["calls"]) == run.target_calls
    for call, k, final in zip(data["calls"], run.accepted_per_call, run.final_origin, strict=True):
        verdicts = [guess["v"] for guess in call["guesses"]]
        assert verdicts.count(1) == k and len(verdicts) == g
        assert call["final"]["o"] == final and call["made"] == k + 1
        # Faded ("cut") are exactly the words the length left out of the last call.
        cut = sum(guess["cut"] for guess in call["guesses"]) + call["final"]["cut"]
        assert cut == call["made"] - call["words"]
    assert sum(call["words"] for call in data["calls"]) == n
    # The γ chart: this text's point is the run, the curve the prediction.
    spec = figure(at, "dec.chart.gamma")
    (point,) = [t for t in spec["data"] if t.get("name") == "this text"]
    assert values(point["y"])[0] == pytest.approx(run.words_per_call)
    curve = toy_curve(key, t)
    predicted = trace(spec, "predicted")
    assert np.allclose(values(predicted["y"]), [w.long_run for w in curve])
    best, speed = best_gamma(curve, c)
    star = trace(spec, "best γ")
    assert values(star["x"])[0] == best and values(star["y"])[0] == pytest.approx(speed)


# --------------------------------------------------------------------------- default and deep link


def test_the_default_page_shows_the_cores_numbers() -> None:
    at = page()
    check_against_core(at, "ngram", 1.0, 4, 60, 7, 0.1)
    link = query(at)
    assert {k: link[k] for k in ("pair", "gamma", "c", "temp", "length")} == {
        "pair": "ngram", "gamma": "4", "c": "0.1", "temp": "1", "length": "60",
    }  # fmt: skip
    assert not at.warning and not at.error


def test_a_deep_link_with_every_setting_restores_it() -> None:
    at = page(DEEP)
    assert not at.warning, [w.value for w in at.warning]
    assert at.selectbox(key="w.pair").value == "weak"
    assert at.select_slider(key="w.gamma").value == 6
    assert at.select_slider(key="w.c").value == 0.3
    assert at.select_slider(key="w.temp").value == 0.5
    assert at.select_slider(key="w.length").value == 120
    check_against_core(at, "weak", 0.5, 6, 120, 11, 0.3)
    assert query(at) | DEEP == query(at)  # every setting is written back as it came
    # Chen's lettering everywhere: the target is q.
    text = all_text(at)
    assert "draft p guesses" in text and "target q checks" in text
    assert "target p" not in text and "draft q" not in text
    assert Notation(swapped=True).fill(PAIR_BLURBS["weak"]) in text
    # Projector mode: the large-type stylesheet and projector-sized charts.
    assert any("Projector mode" in h.proto.body for h in at.get("html"))
    assert figure(at, "dec.chart.gamma")["layout"]["font"]["size"] == 22


def test_a_control_change_reruns_with_the_new_gamma() -> None:
    at = page()
    at.select_slider(key="w.gamma").set_value(2).run()
    assert_alive(at)
    assert query(at)["gamma"] == "2"
    check_against_core(at, "ngram", 1.0, 2, 60, 7, 0.1)
    at.selectbox(key="w.pair").set_value("strong").run()
    assert query(at)["pair"] == "strong"
    check_against_core(at, "strong", 1.0, 2, 60, 7, 0.1)


def test_new_text_takes_the_next_seed() -> None:
    at = page()
    (button,) = [b for b in at.button if b.label == "New text"]
    button.click().run()
    assert query(at)["seed"] == "8"
    check_against_core(at, "ngram", 1.0, 4, 60, 8, 0.1)


# --------------------------------------------------------------------------- bad links


BAD = {"pair": "zzz", "gamma": "99", "c": "abc", "temp": "-1", "length": "7"}


def test_bad_link_values_become_notices_and_defaults() -> None:
    at = page(BAD)
    (notice,) = [w.value for w in at.warning]
    assert "This link had problems" in notice
    for name in BAD:
        assert f"The link's '{name}'" in notice, name
    assert "the page uses 'The n-gram pair'" in notice
    assert "the page uses c = 0.1" in notice and "the page uses temperature 1" in notice
    link = query(at)
    assert (link["pair"], link["gamma"], link["c"], link["temp"], link["length"]) == (
        "ngram", "4", "0.1", "1", "60",
    )  # fmt: skip
    check_against_core(at, "ngram", 1.0, 4, 60, 7, 0.1)


@pytest.mark.parametrize(
    "link",
    [
        {"c": "0.10", "temp": "1.0"},  # other spellings of offered values are understood
        {"pair": "<script>alert(1)</script>"},
        {"length": "9" * 400},
        {"temp": "nan"},
        {"gamma": "-1"},
    ],
)
def test_odd_links_never_raise(link: dict[str, str]) -> None:
    at = page(link)
    assert_alive(at)
    assert "<script>" not in all_text(at)
    if link == {"c": "0.10", "temp": "1.0"}:
        assert not at.warning


# --------------------------------------------------------------------------- every setting


@pytest.mark.parametrize("key", PAIR_KEYS)
def test_every_pair_runs_and_says_what_it_is(key: str) -> None:
    at = page({"pair": key})
    assert not at.warning
    assert Notation().fill(PAIR_BLURBS[key]) in all_text(at)
    assert at.selectbox(key="w.pair").format_func(key) == PAIR_TITLES[key]
    check_against_core(at, key, 1.0, 4, 60, 7, 0.1)


@pytest.mark.parametrize(
    "link",
    [
        {"c": f"{min(DECODE_COSTS):g}", "gamma": "8"},
        {"c": f"{max(DECODE_COSTS):g}", "gamma": "1", "pair": "weak"},
        {"temp": f"{min(DECODE_TEMPERATURES):g}", "pair": "textbook"},
        {"temp": f"{max(DECODE_TEMPERATURES):g}", "length": f"{max(DECODE_LENGTHS)}"},
        {"length": f"{min(DECODE_LENGTHS)}", "pair": "perfect", "gamma": "8"},
        {"pair": "textbook", "temp": "0", "c": "0"},  # greedy: the two never agree, α = 0
    ],
)
def test_the_extremes_run_and_their_sentences_hold(link: dict[str, str]) -> None:
    at = page(link)
    assert not at.warning and not at.error
    text = all_text(at)
    key = link.get("pair", "ngram")
    t = float(link.get("temp", 1))
    g = int(link.get("gamma", 4))
    c = float(link.get("c", 0.1))
    run = toy_run(key, t, g, int(link.get("length", 60)), 7)
    curve = toy_curve(key, t)
    best, _ = best_gamma(curve, c)
    if c == 0 and best == 0:
        assert curve[g].alpha == 0 and "no guess is ever kept" in text
    elif c == 0:
        assert "every extra guess helps" in text
    elif best == 0:
        assert "no γ beats plain decoding" in text
    else:
        assert f"the best is γ = {best}" in text
    speed = run.speedup(c)
    pace = "faster than" if speed > 1.005 else "slower than" if speed < 0.995 else "about as fast"
    assert pace in text
    if key == "perfect":
        assert run.words_per_call == min(g + 1, run.n_tokens) or run.target_calls > 1


def test_the_weak_draft_at_a_high_cost_is_slower_than_plain_decoding() -> None:
    at = page({"pair": "weak", "c": "0.5"})
    assert float(metrics(at)["Speed-up"].rstrip("×")) < 1
    assert "slower than writing word by word" in all_text(at)


# --------------------------------------------------------------------------- the charts and table


def test_published_points_are_plotted_as_reported() -> None:
    spec = figure(page(), "dec.chart.alpha")
    points = {}
    for zero in (0, 1):
        t = trace(spec, f"Leviathan et al., T = {zero}")
        for x, y in zip(values(t["x"]), values(t["y"]), strict=True):
            points[(round(x, 2), y)] = True
    assert sorted(points) == sorted((c.alpha, c.speedup) for c in LEVIATHAN_TABLE2)
    dashes = trace(spec, "the formula's most for that point")
    above = [c for c in LEVIATHAN_TABLE2 if c.above_ceiling]
    assert np.allclose(values(dashes["y"]), [c.ceiling for c in above])
    assert len(above) == 4
    chen = trace(spec, "Chen et al. (no α given)")
    assert values(chen["y"]).tolist() == [2.0, 2.5]
    assert min(values(chen["x"])) > 1  # in its own column, not at any α


def test_the_table_and_the_alpha_chart_show_the_same_check() -> None:
    at = page()
    rows = check_rows(1.0, 4, 0.1)
    table = next(m.value for m in at.markdown if m.value.startswith("| pair"))
    for row in rows:
        line = next(x for x in table.splitlines() if PAIR_TITLES[row["key"]] in x)
        assert f"| {row['exact']:.2f} |" in line and f"{row['measured']:.2f}" in line
    pairs = trace(figure(at, "dec.chart.alpha"), "this page's pairs (measured)")
    assert np.allclose(values(pairs["y"]), [row["measured_speedup"] for row in rows])


def test_every_chart_has_its_caption_as_alt_text() -> None:
    at = page()
    captions = [c.value for c in at.caption]
    for chart in at.get("plotly_chart"):
        assert chart.proto.alt and chart.proto.alt in captions
    (frame,) = at.get("iframe")
    assert frame.proto.alt.startswith("60 words from")


def test_the_text_is_the_runs_words() -> None:
    data = timeline(page())
    run = toy_run("ngram", 1.0, 4, 60, 7)
    assert [w["w"] for w in data["text"]] == corpus().spelled(run.tokens)
    bonus = [w for w in data["text"] if w["o"] == Origin.BONUS]
    assert len(bonus) == int((run.origin == Origin.BONUS).sum())


def test_other_spellings_are_written_back_the_offered_way() -> None:
    at = page({"c": "-0", "temp": "2.0"})
    assert not at.warning
    link = query(at)
    assert (link["c"], link["temp"]) == ("0", "2")
