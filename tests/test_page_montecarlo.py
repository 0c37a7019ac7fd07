"""AppTest of the Monte Carlo and Bug zoo pages, reached the way a session reaches them (app.py,
then switch_page). What the pages show is compared with the core's numbers."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from specviz import normalize
from specviz.figures.montecarlo import tv_text
from specviz.montecarlo import DEFAULT_N, N_CHOICES, PER_DRAW_MAX, mistaken_rules, monte_carlo
from specviz.scenario import Scenario
from specviz.stats import chi_square_gof
from specviz.variants import RULES

REPO = Path(__file__).resolve().parents[1]
MC = "pages/3_Monte_Carlo.py"
ZOO = "pages/4_Bug_zoo.py"
P = normalize([40, 30, 20, 10])
Q = normalize([10, 20, 30, 40])
SEED = 7  # the default scenario's
DISJOINT = {"p": "50,50,0,0", "q": "0,0,50,50"}


def open_page(script: str, scenario_query: dict | None = None, page_query: dict | None = None):
    """AppTest of app.py (which reads the share link), then the page (which reads its own)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params.update(scenario_query or {})
    at.run()
    at.query_params.update(page_query or {})
    at.switch_page(script).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def decode(value) -> np.ndarray:
    """A Plotly 7 array: a plain list, or {"dtype", "bdata": base64}."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


def plotly_figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def vega_specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def trace(fig: dict, name_part: str) -> dict:
    (match,) = [t for t in fig["data"] if name_part in t.get("name", "")]
    return match


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def all_text(at) -> str:
    parts = [e.value for kind in ("markdown", "info", "warning", "error", "caption", "success")
             for e in getattr(at, kind)]  # fmt: skip
    return "\n".join(parts)


# ================================================================================ Monte Carlo


@pytest.fixture(scope="module")
def mc():
    return open_page(MC)


def test_monte_carlo_defaults(mc) -> None:
    assert mc.title[0].value == "Monte Carlo"
    assert mc.select_slider(key="mc.n_slider").value == DEFAULT_N
    assert mc.query_params["n"] == str(DEFAULT_N)
    assert mc.query_params["p"] == "40,30,20,10"  # the shared scenario stays in the link
    assert len(mc.get("plotly_chart")) == 2 and len(mc.get("vega_lite_chart")) == 1
    assert not mc.error and not mc.warning
    # A caption (alt text) under every chart.
    assert len(mc.caption) >= 3


@pytest.mark.parametrize("n", N_CHOICES)
def test_every_n_runs_and_the_sampler_switches_above_a_million(mc, n: int) -> None:
    mc.select_slider(key="mc.n_slider").set_value(n).run()
    assert not mc.exception, [e.value for e in mc.exception]
    note = mc.info[0].value
    if n <= PER_DRAW_MAX:
        assert note.startswith("**Per-draw sampler**") and f"{n:,} runs" in note
    else:
        assert note.startswith("**Count-level sampler**") and "Multinomial" in note
    assert mc.query_params["n"] == str(n)

    # The chi-square readout is the core's test of the counts the page drew (read back from the
    # histogram: emitted share × N).
    hist = plotly_figures(mc)[0]
    counts = np.rint(decode(trace(hist, "emitted")["y"]) * n).astype(np.int64)
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
    assert shown["TV to p"] == tv_text(run.tv)
    if n < 50:  # 0.1 · n < 5 expected counts
        assert "only rough" in all_text(mc)


def test_the_breakdown_and_convergence_charts_draw_the_pages_run(mc) -> None:
    n = 10**6
    mc.select_slider(key="mc.n_slider").set_value(n).run()
    run = monte_carlo(P, Q, n, SEED)
    source = plotly_figures(mc)[1]
    np.testing.assert_allclose(
        decode(trace(source, "accepted")["y"]), run.counts.accepted_counts / n, atol=1e-12
    )
    np.testing.assert_allclose(
        decode(trace(source, "bucket")["y"]), run.counts.residual_counts / n, atol=1e-12
    )
    (spec,) = vega_specs(mc)
    rows = spec["layer"][1]["data"]["values"]
    main = [r for r in rows if r["line"].endswith("the run above #0")]
    keep = run.path.tv > 0
    np.testing.assert_allclose([r["tv"] for r in main], run.path.tv[keep], rtol=1e-12)
    seeds = {r["line"] for r in rows if r["series"].startswith("seeds")}
    assert len(seeds) == 4  # 5 seeds in all


def test_n_comes_from_the_link() -> None:
    at = open_page(MC, page_query={"n": "1e9"})
    assert at.select_slider(key="mc.n_slider").value == 10**9
    assert at.info[0].value.startswith("**Count-level sampler**")
    assert not at.warning


@pytest.mark.parametrize("bad", ["abc", "7", "1e12", "[x](http://evil.example)"])
def test_a_bad_n_in_the_link_gives_a_notice_and_the_default(bad: str) -> None:
    at = open_page(MC, page_query={"n": bad})
    assert at.select_slider(key="mc.n_slider").value == DEFAULT_N
    (warning,) = at.warning
    assert "'n'" in warning.value and "evil" not in warning.value
    # The notice goes once the learner picks an N.
    at.select_slider(key="mc.n_slider").set_value(100).run()
    assert not at.warning


def test_n_survives_a_trip_to_another_page() -> None:
    at = open_page(MC)
    at.select_slider(key="mc.n_slider").set_value(10**6).run()
    at.switch_page(ZOO).run()
    at.switch_page(MC).run()
    assert at.select_slider(key="mc.n_slider").value == 10**6


def test_projector_mode_enlarges_the_charts() -> None:
    small = open_page(MC)
    big = open_page(MC, scenario_query={"projector": "1"})
    assert (
        plotly_figures(big)[0]["layout"]["font"]["size"]
        > (plotly_figures(small)[0]["layout"]["font"]["size"])
    )
    assert (
        vega_specs(big)[0]["config"]["axis"]["labelFontSize"]
        > (vega_specs(small)[0]["config"]["axis"]["labelFontSize"])
    )


def test_all_zero_weights_give_a_message_not_a_traceback() -> None:
    for script in (MC, ZOO):
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
        at.session_state["specviz.scenario"] = Scenario(p_weights=(0, 0, 0, 0))
        at.switch_page(script).run()
        assert not at.exception
        (error,) = at.error
        assert "All the target p weights are zero" in error.value
        assert not at.get("plotly_chart")


def test_disjoint_supports_are_fine_for_monte_carlo() -> None:
    at = open_page(MC, scenario_query=DISJOINT)
    assert not at.error and not at.warning
    hist = plotly_figures(at)[0]
    emitted = decode(trace(hist, "emitted")["y"])
    assert emitted[2] == emitted[3] == 0  # the target never says floor or bed


# ==================================================================================== Bug zoo

#: math.md's table: the exact TV of each mistake on the default scenario, as the page prints it.
ZOO_TV = {"resample_from_p": "0.14", "inverted_ratio": "0.4", "redraw_from_q": "0.233",
          "reuse_uniform": "0.075"}  # fmt: skip


@pytest.fixture(scope="module")
def zoo():
    return open_page(ZOO)


def test_zoo_opens_on_math_mds_first_exhibit(zoo) -> None:
    assert zoo.title[0].value == "Bug zoo"
    radio = zoo.radio(key="zoo.rule_radio")
    assert radio.value == "resample_from_p"
    assert list(radio.options) == [RULES[k].title for k in mistaken_rules()]
    assert metrics(zoo)["TV(mistake, p)"] == "0.14"
    assert zoo.query_params["bug"] == "resample_from_p"


@pytest.mark.parametrize("key", mistaken_rules())
def test_each_exhibit_shows_its_mistake_and_exact_tv(zoo, key: str) -> None:
    zoo.radio(key="zoo.rule_radio").set_value(key).run()
    assert not zoo.exception and not zoo.error
    rule = RULES[key]
    text = all_text(zoo)
    assert rule.mistake in text and rule.why in text
    shown = metrics(zoo)
    if key in ZOO_TV:
        assert shown["TV(mistake, p)"] == ZOO_TV[key]
    assert shown["TV(correct rule, p)"] == "0"
    assert shown["Bias shows from about"].startswith("N = ")
    law_fig = plotly_figures(zoo)[0]
    np.testing.assert_allclose(decode(trace(law_fig, "target")["y"]), P, atol=1e-12)
    (spec,) = vega_specs(zoo)
    names = spec["layer"][1]["encoding"]["stroke"]["scale"]["domain"]
    assert any(rule.title in name for name in names)
    assert zoo.query_params["bug"] == key


def test_redraw_from_q_with_disjoint_supports_shows_the_cores_message() -> None:
    at = open_page(ZOO, scenario_query=DISJOINT, page_query={"bug": "redraw_from_q"})
    (warning,) = at.warning
    assert "disjoint supports" in warning.value and "Redraw from q" in warning.value
    assert not at.error and not at.get("plotly_chart")
    # Another exhibit on the same pair runs.
    at.radio(key="zoo.rule_radio").set_value("resample_from_p").run()
    assert not at.exception and not at.warning and at.get("plotly_chart")


def test_a_bad_bug_in_the_link_gives_a_notice_and_the_default() -> None:
    at = open_page(ZOO, page_query={"bug": "correct"})
    assert at.radio(key="zoo.rule_radio").value == "resample_from_p"
    (warning,) = at.warning
    assert "does not have" in warning.value


def test_the_zoo_follows_the_swapped_lettering() -> None:
    at = open_page(ZOO, scenario_query={"letters": "chen"})
    assert "TV(mistake, q)" in metrics(at)
    assert at.radio(key="zoo.rule_radio").options[0] == "Rejection resamples from q"
    assert "drawn from q instead of from the residual" in all_text(at)


def test_the_largest_seed_runs_on_both_pages() -> None:
    """Paths use seed, seed + 1, ...: past 2**32 - 1 must still work."""
    for script in (MC, ZOO):
        at = open_page(script, scenario_query={"seed": "4294967295"}, page_query={"n": "1e9"})
        assert not at.error and at.get("vega_lite_chart")
