"""Every chart is a valid Vega-Lite spec, and its state is data only.

Charts are written as dicts (:mod:`specviz.figures.vega`), not through Altair (tens of
milliseconds a chart, on every new state): every one must pass Vega-Lite's schema (the one Altair
ships). Every page's charts are checked as the page sends them, found by running every page under
AppTest, so a new page or chart is covered without touching this file.
"""

from __future__ import annotations

import json
import random

import pyarrow as pa
import pytest
from helpers import REPO, valid_vega_lite
from streamlit.testing.v1 import AppTest
from streamlit_server import all_scripts, page_id

from specviz.figures.exactness import acceptance_figure, bucket_figure, proof_figure
from specviz.figures.montecarlo import monte_carlo_figures
from specviz.figures.style import ChartStyle
from specviz.figures.zoo import zoo_figures
from specviz.palette import Notation
from specviz.rules import RULES
from specviz.runs import monte_carlo_paths, noise_band
from specviz.scenario import Scenario
from specviz.zoo import zoo_comparison

pytestmark = pytest.mark.slow  # the app under AppTest

STYLES = [
    ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    for projector in (False, True)
    for swapped in (False, True)
]


def sent_spec(chart) -> dict:
    """A chart's spec as the browser gets it: the datasets Streamlit moved out, put back."""
    spec = json.loads(chart.proto.spec)
    datasets = {
        d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist() for d in chart.proto.datasets
    }
    return spec | ({"datasets": datasets} if datasets else {})


@pytest.mark.parametrize("script", all_scripts(), ids=[page_id(s) for s in all_scripts()])
@pytest.mark.parametrize("mode", ["", "projector=1&letters=chen"])
def test_every_pages_charts_are_valid_vega_lite(script, mode) -> None:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    for key, value in (pair.split("=") for pair in mode.split("&") if pair):
        at.query_params[key] = value
    at.run()
    if script.name != "app.py":
        at.switch_page(str(script.relative_to(REPO))).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.get("plotly_chart"), "one chart mechanism: Vega-Lite"
    for chart in at.get("vega_lite_chart"):
        valid_vega_lite(sent_spec(chart))


def test_step_figures_of_many_states_are_valid_vega_lite() -> None:
    """The charts of "Why it's exact" for random states of 3 to 10 words: valid Vega-Lite, and
    two states of the same words give the same spec but for its datasets (updated in place)."""
    rng = random.Random(11)
    checked = 0
    for i in range(12):
        size = rng.randint(3, 10)
        scenario = Scenario().resized(size)
        for model in "pq":
            for j in range(size):
                scenario = scenario.with_weight(model, j, rng.choice([0, 1, 5, 37, 100]))
        if not (any(scenario.p_weights) and any(scenario.q_weights)):
            continue
        even = Scenario().resized(size)  # the same words, every weight 10: another state
        for build in (acceptance_figure, bucket_figure, proof_figure):
            spec = build(scenario.labels, scenario.step(), STYLES[i % len(STYLES)])
            valid_vega_lite(spec)
            other = build(even.labels, even.step(), STYLES[i % len(STYLES)])
            assert {**spec, "datasets": None} == {**other, "datasets": None}
            checked += 1
    assert checked >= 30


MC_WEIGHTS = [((40, 30, 20, 10), (10, 20, 30, 40)), ((50, 50, 0, 0), (0, 0, 50, 50))]


def _monte_carlo_specs(weights, n: int, chart_style: ChartStyle) -> dict[str, dict]:
    scenario = Scenario(p_weights=weights[0], q_weights=weights[1])
    one = scenario.step()
    runs = monte_carlo_paths(one.p, one.q, n, 7, 5)
    figures = monte_carlo_figures(scenario.labels, one, chart_style, runs, noise_band(one.p, n))
    return {key: spec for key, (spec, _) in figures.items()}


def _without_data(spec: dict) -> dict:
    return {**spec, "datasets": None}


@pytest.mark.parametrize("n", [1, 10, 1000, 10**6, 10**9])
def test_monte_carlo_specs_are_valid_vega_lite(n) -> None:
    """The Monte Carlo page's charts for every N: valid Vega-Lite, and for each style the same
    spec but for its datasets whatever N and the weights (a new state updates them in place)."""
    for chart_style in (STYLES[0], STYLES[3]):
        reference = _monte_carlo_specs(MC_WEIGHTS[0], 10, chart_style)
        for weights in MC_WEIGHTS:
            specs = _monte_carlo_specs(weights, n, chart_style)
            for key, spec in specs.items():
                valid_vega_lite(spec)
                assert _without_data(spec) == _without_data(reference[key]), key
        # One run has no line to draw: its points are marked (a layer of the same spec).
        assert n > 1 or all(r["alone"] for r in specs["tv"]["datasets"]["lines"])


_DEFAULT = Scenario().step()
RUNNABLE = [key for key in RULES if RULES[key].available(_DEFAULT.p, _DEFAULT.q)]


def _zoo_specs(key: str, chart_style: ChartStyle) -> dict[str, dict]:
    scenario = Scenario()
    one = scenario.step()
    comparison = zoo_comparison(one.p, one.q, key, 7, 10**6)
    figures = zoo_figures(scenario.labels, one, chart_style, comparison)
    return {name: spec for name, (spec, _) in figures.items()}


@pytest.mark.parametrize("key", RUNNABLE)
def test_zoo_specs_are_valid_vega_lite(key) -> None:
    """The Bug zoo's charts for every mistake: valid Vega-Lite, the same spec but for its
    datasets whichever mistake is picked (the pick updates them in place)."""
    for chart_style in (STYLES[0], STYLES[1]):
        reference = _zoo_specs(RUNNABLE[0], chart_style)
        for name, spec in _zoo_specs(key, chart_style).items():
            valid_vega_lite(spec)
            assert _without_data(spec) == _without_data(reference[name]), name
