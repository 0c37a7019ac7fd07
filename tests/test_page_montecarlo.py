"""AppTest of the Monte Carlo and Bug zoo pages, reached the way a session reaches them (app.py,
then switch_page). What the pages show is compared with the core's numbers and the step's.

(The message for a model with no weight left is tested for every page in test_pages.py.)
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import all_text, metrics, open_page, query, vega_chart
from streamlit.testing.v1 import AppTest

import specviz.runs as runs_module
import specviz.zoo as zoo_module
from specviz.figures.montecarlo import breakdown_figure, histogram_figure
from specviz.figures.numbers import tv_text
from specviz.limits import N_CHOICES, PATHS, PER_DRAW_MAX, ZOO_N_MAX
from specviz.links import RUNS
from specviz.one_token import normalize, step
from specviz.palette import Notation
from specviz.rules import MISTAKE, RULES, rules_of
from specviz.runs import monte_carlo, monte_carlo_paths, noise_band
from specviz.stats import chi_square_gof
from specviz.zoo import zoo_comparison

pytestmark = pytest.mark.slow  # the app under AppTest

MC = "pages/3_Monte_Carlo.py"
ZOO = "pages/4_Bug_zoo.py"
P = normalize([40, 30, 20, 10])
Q = normalize([10, 20, 30, 40])
SEED = 7  # the default scenario's
DEFAULT_N = RUNS.default
DISJOINT = {"p": "50,50,0,0", "q": "0,0,50,50"}
NOTE = Notation()


def page(script: str, scenario_query: dict | None = None, page_query: dict | None = None):
    """AppTest of app.py (which reads the share link), then the page (which reads its own)."""
    return open_page(script, scenario_query, via_home=True, page_query=page_query)


#: The title of each chart (a Vega-Lite chart has no element id to find it by).
TITLES = {
    "mc.hist": "Emitted words",
    "mc.source": "Accepted drafts + bucket refills",
    "mc.tv": "The correct sampler from several",
    "zoo.law": "The mistake's output",
    "zoo.tv": "The mistake stalls at its floor",
}


def chart(at: AppTest, name: str) -> tuple[dict, dict[str, list[dict]]]:
    """The spec and datasets (rows) of one of the pages' charts (:data:`TITLES`)."""
    return vega_chart(at, TITLES[name])


def rows(at: AppTest, name: str, dataset: str, field: str, **where: object) -> np.ndarray:
    """``field`` of a chart's dataset rows matching ``where``, in order."""
    data = chart(at, name)[1][dataset]
    return np.array([r[field] for r in data if all(r[k] == v for k, v in where.items())])


def chart_caption(at: AppTest, words: str) -> str:
    """The one caption (a chart's description) holding ``words``."""
    (caption,) = [c.value for c in at.caption if words in c.value]
    return caption


def alt_texts(at: AppTest) -> list[str]:
    """The alt text of every chart: the chart's title and where its description is, the same
    for every state (a changing alt text would remount the chart)."""
    return [element.proto.alt for element in at.get("vega_lite_chart")]


# ================================================================================ Monte Carlo


@pytest.fixture(scope="module")
def mc():
    return page(MC)


def test_monte_carlo_defaults(mc) -> None:
    assert mc.title[0].value == "Monte Carlo"
    assert mc.select_slider(key="w.n").value == DEFAULT_N
    assert mc.query_params["n"] == "10k"  # written the short way, as the slider shows it
    assert mc.query_params["p"] == "40,30,20,10"  # the shared scenario stays in the link
    assert not mc.get("plotly_chart") and len(mc.get("vega_lite_chart")) == 3
    assert not mc.error and not mc.warning
    # Every chart named in its alt text, which points to the description under it.
    alts = alt_texts(mc)
    for name in ("mc.hist", "mc.source", "mc.tv"):
        assert chart(mc, name)[0]["title"]
    assert all(alt.startswith("Chart: ") and "Described in the text below" in alt for alt in alts)
    assert "Chart: The correct sampler from several seeds. Described in the text below it." in alts


def test_no_heading_is_repeated_as_its_charts_title(mc) -> None:
    """Each section says its point once: no chart's title repeats a heading of the page."""
    headings = [h.value.lower() for h in mc.header]
    assert "where each emitted word came from" in headings
    for element in mc.get("vega_lite_chart"):
        title = json.loads(element.proto.spec).get("title", "")
        title = title.get("text", "") if isinstance(title, dict) else title
        title = " ".join(title if isinstance(title, list) else [title]).lower()
        assert title and not any(h in title or title in h for h in headings), title


def test_the_distance_is_said_in_plain_words_first(mc) -> None:
    """The metric's name and its tooltip open with plain words; the term comes last."""
    (box,) = [m for m in mc.metric if m.label == "Distance to the target"]
    assert box.proto.help.startswith("Half the summed gaps, word by word")
    assert box.proto.help.endswith("Its name: total variation (TV).")
    assert "TV" not in all_text(mc) and "total variation" not in all_text(mc).lower()


def test_a_new_n_or_seed_changes_only_the_charts_data() -> None:
    """What keys a mounted chart (its spec without the datasets, its alt text) stays the same
    when N or the seed changes: Streamlit sends the new data to the chart on the page."""
    at = page(MC, page_query={"n": "10"})
    before = [(c.proto.spec, c.proto.alt) for c in at.get("vega_lite_chart")]
    data_before = chart(at, "mc.hist")[1]
    at.select_slider(key="w.n").set_value(10**9).run()
    at.number_input(key="ui.seed").set_value(8).run()
    assert [(c.proto.spec, c.proto.alt) for c in at.get("vega_lite_chart")] == before
    assert chart(at, "mc.hist")[1] != data_before


@pytest.mark.parametrize("n", N_CHOICES)
def test_every_n_runs_and_the_sampler_switches_above_a_million(mc, n: int) -> None:
    mc.select_slider(key="w.n").set_value(n).run()
    assert not mc.exception, [e.value for e in mc.exception]
    note = mc.info[0].value
    if n <= PER_DRAW_MAX:
        assert note.startswith("**Every run simulated:**")
        assert ("the run is simulated" if n == 1 else f"{n:,} runs") in note
    else:
        assert note.startswith("**Counts drawn directly:**") and f"{n:,} runs" in note
        assert "Multinomial" in all_text(mc)  # the precise statement, in "How exactly?"
    assert RUNS.read({"n": mc.query_params["n"]}) == (n, None)

    # The chi-square readout is the core's test of the counts the page drew (read back from the
    # histogram: emitted share × N).
    shares = rows(mc, "mc.hist", "bars", "share", j=0)
    counts = np.rint(shares * n).astype(np.int64)
    assert counts.sum() == n
    gof = chi_square_gof(counts, P)
    shown = metrics(mc)
    assert shown["Chi-square statistic"] == f"{gof.statistic:.3g}"
    assert shown["Degrees of freedom"] == str(gof.dof)
    assert shown["p-value"] == f"{gof.p_value:.3g}"
    assert 0.0 <= float(shown["p-value"]) <= 1.0
    # ...and those are the counts of the core's run with the scenario's seed.
    run = monte_carlo(P, Q, n, SEED)
    np.testing.assert_array_equal(counts, run.counts.output_counts)
    assert shown["Distance to the target"] == tv_text(run.tv)
    if n < 50:  # 0.1 · n < 5 expected counts
        assert "only rough" in all_text(mc)


def test_the_breakdown_and_convergence_charts_draw_the_pages_run(mc) -> None:
    n = 10**6
    mc.select_slider(key="w.n").set_value(n).run()
    run = monte_carlo(P, Q, n, SEED)
    np.testing.assert_allclose(
        rows(mc, "mc.source", "parts", "share", j=0), run.counts.accepted_counts / n, atol=1e-12
    )
    np.testing.assert_allclose(
        rows(mc, "mc.source", "parts", "share", j=1), run.counts.residual_counts / n, atol=1e-12
    )
    assert list(rows(mc, "mc.source", "parts", "count", j=1)) == list(run.counts.residual_counts)
    lines = chart(mc, "mc.tv")[1]["lines"]
    main = [r for r in lines if r["line"].endswith("the run above #0")]
    keep = run.path.tv > 0
    np.testing.assert_allclose([r["tv"] for r in main], run.path.tv[keep], rtol=1e-12)
    np.testing.assert_array_equal([r["n"] for r in main], run.path.checkpoints[keep])
    seeds = {r["line"] for r in lines if r["series"].startswith("seeds")}
    assert len(seeds) == PATHS - 1 == 4  # 5 seeds in all


def test_captions_are_the_runs_and_the_steps_numbers(mc) -> None:
    mc.select_slider(key="w.n").set_value(1000).run()
    s = step(P, Q)
    run = monte_carlo(s.p, s.q, 1000, SEED)
    labels = ("mat", "sofa", "floor", "bed")
    captions = [c.value for c in mc.caption]
    hist_caption = histogram_figure(labels, s, run)[1]
    breakdown_caption = breakdown_figure(labels, s, run)[1]
    assert hist_caption in captions and breakdown_caption in captions
    # Each caption sits right under its chart.
    assert captions.index(breakdown_caption) > captions.index(hist_caption)
    np.testing.assert_array_equal(rows(mc, "mc.hist", "bars", "exact", j=0), s.p)
    np.testing.assert_array_equal(rows(mc, "mc.hist", "bars", "exact", j=1), s.q)


def test_at_one_run_the_band_never_exceeds_the_largest_possible_tv() -> None:
    """One run emits one word: TV to p is then 1 − p(word), at most 1 − min p = 0.9."""
    at = page(MC, page_query={"n": "1"})
    caption = chart_caption(at, "the band there reaches")
    hi = (
        caption.split("the band there reaches from ")[1]
        .split(" to ")[1]
        .split(" and")[0]
        .rstrip(".")
    )
    assert float(hi) <= 0.9, caption
    assert float(hi) == pytest.approx(float(tv_text(float(noise_band(P, 1).upper[-1]))))
    band = chart(at, "mc.tv")[1]["band"]
    assert band and all(row["upper"] <= 0.9 + 1e-12 for row in band)


def test_n_comes_from_the_link() -> None:
    at = page(MC, page_query={"n": "1e9"})
    assert at.select_slider(key="w.n").value == 10**9
    assert at.info[0].value.startswith("**Counts drawn directly:**")
    assert not at.warning


@pytest.mark.parametrize("bad", ["abc", "7", "1e12", "[x](http://evil.example)"])
def test_a_bad_n_in_the_link_gives_a_notice_and_the_default(bad: str) -> None:
    at = page(MC, page_query={"n": bad})
    assert at.select_slider(key="w.n").value == DEFAULT_N
    (warning,) = at.warning
    assert "'n'" in warning.value and "evil" not in warning.value
    assert warning.value.endswith("; the page uses N = 10,000.")
    # The notice goes once the learner picks an N.
    at.select_slider(key="w.n").set_value(100).run()
    assert not at.warning


def test_n_survives_a_trip_to_another_page() -> None:
    at = page(MC)
    at.select_slider(key="w.n").set_value(10**6).run()
    at.switch_page(ZOO).run()
    at.switch_page(MC).run()
    assert at.select_slider(key="w.n").value == 10**6
    assert query(at)["n"] == "1M"


def test_projector_mode_enlarges_the_charts() -> None:
    small = page(MC)
    big = page(MC, scenario_query={"projector": "1"})
    for name in ("mc.hist", "mc.source", "mc.tv"):
        assert (
            chart(big, name)[0]["config"]["axis"]["labelFontSize"]
            > chart(small, name)[0]["config"]["axis"]["labelFontSize"]
        ), name


def test_disjoint_supports_are_fine_for_monte_carlo() -> None:
    at = page(MC, scenario_query=DISJOINT)
    assert not at.error and not at.warning
    emitted = rows(at, "mc.hist", "bars", "share", j=0)
    assert emitted[2] == emitted[3] == 0  # the target never says floor or bed


# ----------------------------------------------------------------------- computed once per state

#: Calls of the counting wrappers below.
PATH_CALLS: list[tuple] = []
BAND_CALLS: list[tuple] = []


def counted_paths(p, q, n, seed, paths):
    PATH_CALLS.append((tuple(p), tuple(q), n, seed, paths))
    return monte_carlo_paths(p, q, n, seed, paths)


def counted_band(p, n):
    BAND_CALLS.append((tuple(p), n))
    return noise_band(p, n)


def _specs(at: AppTest) -> list[tuple]:
    """Every chart's spec with its data (which Streamlit sends apart from the spec)."""
    return [
        (c.proto.spec, [(d.name, d.data.data) for d in c.proto.datasets])
        for c in at.get("vega_lite_chart")
    ]


def test_runs_and_band_are_computed_once_per_state(monkeypatch) -> None:
    monkeypatch.setattr(runs_module, "monte_carlo_paths", counted_paths)
    monkeypatch.setattr(runs_module, "noise_band", counted_band)
    PATH_CALLS.clear()
    BAND_CALLS.clear()
    scenario = {"words": "ant,bee,cat", "p": "11,22,33", "q": "33,22,11", "seed": "41"}
    a = page(MC, scenario, page_query={"n": "100"})
    b = page(MC, scenario, page_query={"n": "100"})  # another session, same state
    assert len(PATH_CALLS) == 1 and len(BAND_CALLS) == 1
    assert _specs(a) == _specs(b)
    assert [c.value for c in a.caption] == [c.value for c in b.caption]
    # A new draft: new runs, but the band depends on the target and N only.
    a.switch_page("pages/1_Playground.py").run()
    a.session_state["pg.edit"] = True  # the weight editor is drawn only while open
    a.run()
    a.slider(key="pg.q0").set_value(30).run()
    a.switch_page(MC).run()
    assert len(PATH_CALLS) == 2 and len(BAND_CALLS) == 1
    # A new N: both; the projector: neither (only the figures are rebuilt).
    a.select_slider(key="w.n").set_value(1000).run()
    assert len(PATH_CALLS) == 3 and len(BAND_CALLS) == 2
    b.toggle(key="ui.projector").set_value(True).run()
    assert len(PATH_CALLS) == 3 and len(BAND_CALLS) == 2
    assert [call[2:] for call in PATH_CALLS] == [
        (100, 41, PATHS),
        (100, 41, PATHS),
        (1000, 41, PATHS),
    ]


# ==================================================================================== Bug zoo

#: math.md's table: the exact TV of each mistake on the default scenario, as the page prints it.
ZOO_TV = {
    "resample_from_p": "0.14",
    "inverted_ratio": "0.4",
    "redraw_from_q": "0.233",
    "reuse_uniform": "0.075",
    "topk_mismatch": "0.157",
    "float32_leq": "2.98·10⁻⁸",
}


@pytest.fixture(scope="module")
def zoo():
    return page(ZOO)


def test_zoo_opens_on_math_mds_first_exhibit(zoo) -> None:
    assert zoo.title[0].value == "Bug zoo"
    radio = zoo.radio(key="w.bug")
    assert radio.value == "resample_from_p"
    assert list(radio.options) == [NOTE.fill(RULES[k].title) for k in rules_of(MISTAKE)]
    assert metrics(zoo)["Distance of the mistake to p"] == "0.14"
    assert zoo.query_params["bug"] == "resample_from_p"


@pytest.mark.parametrize("key", rules_of(MISTAKE))
def test_each_exhibit_shows_its_mistake_and_exact_tv(zoo, key: str) -> None:
    zoo.radio(key="w.bug").set_value(key).run()
    assert not zoo.exception and not zoo.error
    rule = RULES[key]
    text = all_text(zoo)
    assert NOTE.fill(rule.what) in text and NOTE.fill(rule.why) in text
    shown = metrics(zoo)
    assert shown["Distance of the mistake to p"] == ZOO_TV[key]
    assert shown["Of the correct rule"] == "0"
    assert shown["Bias shows from about"].startswith("N = ")
    np.testing.assert_allclose(rows(zoo, "zoo.law", "bars", "share", j=0), P, atol=1e-12)
    (heading,) = chart(zoo, "zoo.law")[1]["heading"]
    assert heading["text"] == f"{NOTE.fill(rule.title)}: distance {ZOO_TV[key]}"
    names = [r["series"] for r in chart(zoo, "zoo.tv")[1]["legend"]]
    assert any(NOTE.fill(rule.title) in name for name in names)
    assert zoo.query_params["bug"] == key


def test_the_zoo_reads_the_step_and_its_caption_tells_the_truth(zoo) -> None:
    zoo.radio(key="w.bug").set_value("reuse_uniform").run()
    z = zoo_comparison(P, Q, "reuse_uniform", SEED, ZOO_N_MAX)
    np.testing.assert_array_equal(rows(zoo, "zoo.law", "bars", "share", j=0), step(P, Q).p)
    np.testing.assert_array_equal(rows(zoo, "zoo.law", "bars", "share", j=1), z.law)
    wrong = [r for r in chart(zoo, "zoo.tv")[1]["lines"] if r["series"].startswith("✗")]
    np.testing.assert_allclose([r["tv"] for r in wrong], z.wrong.tv[z.wrong.tv > 0], rtol=1e-12)
    caption = chart_caption(zoo, "The correct rule ends at")
    assert f"The correct rule ends at {tv_text(float(z.correct.tv[-1]))}, " in caption
    assert ("inside the shaded" in caption) == z.correct_inside_band
    assert ("just outside" in caption) == (not z.correct_inside_band)
    assert f"N = {z.detectable_from:,}" in metrics(zoo)["Bias shows from about"]


def test_another_mistake_changes_only_the_charts_data() -> None:
    """Picking another exhibit keeps both charts' spec and alt text: their data changes."""
    at = page(ZOO)
    before = [(c.proto.spec, c.proto.alt) for c in at.get("vega_lite_chart")]
    data_before = chart(at, "zoo.law")[1]
    at.radio(key="w.bug").set_value("inverted_ratio").run()
    assert [(c.proto.spec, c.proto.alt) for c in at.get("vega_lite_chart")] == before
    assert chart(at, "zoo.law")[1] != data_before


def test_redraw_from_q_with_disjoint_supports_says_why_it_cannot_run() -> None:
    at = page(ZOO, scenario_query=DISJOINT, page_query={"bug": "redraw_from_q"})
    (warning,) = at.warning
    assert "share no word" in warning.value and "Redraw from q until accepted" in warning.value
    assert not at.error and not at.get("vega_lite_chart")
    # Another exhibit on the same pair runs.
    at.radio(key="w.bug").set_value("resample_from_p").run()
    assert not at.exception and not at.warning and len(at.get("vega_lite_chart")) == 2


def test_a_bad_bug_in_the_link_gives_a_notice_and_the_default() -> None:
    at = page(ZOO, page_query={"bug": "correct"})
    assert at.radio(key="w.bug").value == "resample_from_p"
    (warning,) = at.warning
    assert "does not have" in warning.value
    assert warning.value.endswith("; the page uses 'Rejection resamples from p'.")


def test_the_zoo_follows_the_swapped_lettering() -> None:
    at = page(ZOO, scenario_query={"letters": "chen"})
    assert "Distance of the mistake to q" in metrics(at)
    assert at.radio(key="w.bug").options[0] == "Rejection resamples from q"
    assert "drawn from q instead of from the leftover bucket" in all_text(at)


ZOO_CALLS: list[tuple] = []


def counted_zoo_comparison(p, q, key, seed, n_max):
    ZOO_CALLS.append((tuple(p), tuple(q), key, seed, n_max))
    return zoo_comparison(p, q, key, seed, n_max)


def test_each_comparison_is_run_once_per_state(monkeypatch) -> None:
    monkeypatch.setattr(zoo_module, "zoo_comparison", counted_zoo_comparison)
    ZOO_CALLS.clear()
    scenario = {"words": "ant,bee,cat", "p": "11,22,33", "q": "33,22,11", "seed": "43"}
    a = page(ZOO, scenario)
    b = page(ZOO, scenario)
    assert len(ZOO_CALLS) == 1 and _specs(a) == _specs(b)
    a.radio(key="w.bug").set_value("inverted_ratio").run()
    b.radio(key="w.bug").set_value("inverted_ratio").run()
    a.radio(key="w.bug").set_value("resample_from_p").run()
    assert len(ZOO_CALLS) == 2
    assert [call[2:] for call in ZOO_CALLS] == [
        ("resample_from_p", 43, ZOO_N_MAX),
        ("inverted_ratio", 43, ZOO_N_MAX),
    ]


def test_the_largest_seed_runs_on_both_pages() -> None:
    """Paths use seed, seed + 1, ...: past 2**32 - 1 must still work."""
    for script in (MC, ZOO):
        at = page(script, scenario_query={"seed": "4294967295"}, page_query={"n": "1e9"})
        assert not at.error and at.get("vega_lite_chart")
