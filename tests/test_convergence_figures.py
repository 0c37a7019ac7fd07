"""Convergence charts (specviz.figures.convergence): the TV paths, the noise band and their
captions, read back from the Vega-Lite specs' named datasets and compared with the core's
numbers; every spec passes Vega-Lite's schema, and only its datasets change with the state."""

from __future__ import annotations

import altair as alt
import numpy as np
import pytest

from specviz import palette
from specviz.figures.convergence import (
    monte_carlo_chart_caption,
    monte_carlo_spec,
    ticks,
    zoo_chart_caption,
    zoo_spec,
)
from specviz.figures.numbers import tv_text
from specviz.figures.style import ChartStyle
from specviz.palette import Notation
from specviz.runs import monte_carlo_paths, noise_band
from specviz.text import say
from specviz.zoo import zoo_comparison

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
SEED = 7
TOL = 1e-12


def valid(spec: dict) -> dict:
    """The spec, after Vega-Lite's schema accepted it (Altair validates what it reads)."""
    alt.LayerChart.from_dict(spec).to_dict(validate=True)
    return spec


def lines_layer(spec: dict) -> dict:
    """The layer drawing the TV paths (the line mark reading dataset ``lines``)."""
    (layer,) = [
        layer
        for layer in spec["layer"]
        if layer["mark"]["type"] == "line" and layer["data"]["name"] == "lines"
    ]
    return layer


def looks(spec: dict) -> dict[str, dict]:
    """Legend entry -> its colour, dash, width and opacity, as Vega draws them: the entries
    (dataset ``legend``) sorted by slot take the scales' ranges in order."""
    enc = lines_layer(spec)["encoding"]
    names = [r["series"] for r in sorted(spec["datasets"]["legend"], key=lambda r: r["slot"])]
    return {
        name: {
            channel: enc[channel]["scale"]["range"][k]
            for channel in ("stroke", "strokeDash", "strokeWidth", "opacity")
        }
        for k, name in enumerate(names)
    }


def without_data(spec: dict) -> dict:
    return {key: value for key, value in spec.items() if key != "datasets"}


def test_monte_carlo_chart_draws_every_seeds_path_and_the_band() -> None:
    runs = monte_carlo_paths(P, Q, 10**6, SEED)
    band = noise_band(P, 10**6)
    spec = valid(monte_carlo_spec(runs, band))
    data = spec["datasets"]
    main = f"{palette.TARGET.icon} seed {SEED}: the run above"
    others = f"seeds {SEED + 1}–{SEED + 4}"
    average = say("montecarlo.tv_mean")
    line_ids = [f"{main} #0"] + [f"{others} #{i}" for i in range(4)]
    for run_, line_id in zip(runs, line_ids, strict=True):
        got = [r for r in data["lines"] if r["line"] == line_id]
        keep = run_.path.tv > 0  # a TV of 0 has no place on a log axis
        np.testing.assert_array_equal([r["n"] for r in got], run_.path.checkpoints[keep])
        np.testing.assert_allclose([r["tv"] for r in got], run_.path.tv[keep], rtol=TOL)
    mean = [r for r in data["lines"] if r["series"] == average]
    np.testing.assert_allclose([r["tv"] for r in mean], band.mean[band.mean > 0], rtol=TOL)
    np.testing.assert_array_equal([r["n"] for r in data["band"]], band.n)
    np.testing.assert_allclose([r["upper"] for r in data["band"]], band.upper, rtol=TOL)
    # A lower edge of 0 (an exact run can land on the target) reaches down to the axis's floor,
    # the bottom of the invisible extent.
    floor = data["extent"][0]["tv"]
    lower = [r["lower"] for r in data["band"]]
    np.testing.assert_allclose(lower, np.maximum(band.lower, floor), rtol=TOL)
    assert {r["band"] for r in data["band"]} == {"95% of exact runs land here"}
    enc = lines_layer(spec)["encoding"]
    assert enc["x"]["scale"]["type"] == "log" and enc["y"]["scale"]["type"] == "log"
    look = looks(spec)
    assert list(look) == [main, average, others]
    assert look[main]["stroke"] == look[others]["stroke"] == palette.TARGET.color
    assert look[main]["strokeDash"] != look[others]["strokeDash"]  # not told apart by width only
    assert look[average]["stroke"] == palette.NEUTRAL.color


def test_the_axes_follow_the_data() -> None:
    """The extent pads the data (x from 1 to N, y a factor 1.5 around every TV drawn); the ticks
    are the powers of ten inside it, read by the axes from the datasets."""
    runs = monte_carlo_paths(P, Q, 10**4, SEED)
    band = noise_band(P, 10**4)
    spec = monte_carlo_spec(runs, band)
    data = spec["datasets"]
    values = [r["tv"] for r in data["lines"]] + [*band.lower, *band.upper]
    lo, hi = min(v for v in values if v > 0), max(values)
    (low, high) = data["extent"]
    assert (low["n"], high["n"]) == (1.0, 10**4)
    assert low["tv"] == pytest.approx(lo / 1.5, rel=TOL)
    assert high["tv"] == pytest.approx(min(1.0, hi * 1.5), rel=TOL)
    assert [r["n"] for r in data["xticks"]] == [1, 10, 100, 1000, 10**4]
    assert [r["tv"] for r in data["yticks"]] == [
        v for v in (1e-3, 1e-2, 1e-1, 1.0) if low["tv"] <= v <= high["tv"]
    ]
    x_axis = lines_layer(spec)["encoding"]["x"]["axis"]
    assert "xticks" in x_axis["values"]["expr"]
    # Fewer than two powers of ten: 2 and 5 times them too.
    assert ticks(0.03, 0.5) == [0.05, 0.1, 0.2, 0.5]


def test_one_run_draws_points_and_a_box() -> None:
    """N = 1: a line of one point is invisible, so each is marked as a dot (rows flagged
    ``alone``); the band is a narrow box around N = 1, the x axis starting left of it."""
    runs = monte_carlo_paths(P, Q, 1, SEED)
    band = noise_band(P, 1)
    spec = valid(monte_carlo_spec(runs, band))
    data = spec["datasets"]
    assert data["lines"] and all(r["alone"] for r in data["lines"])
    assert [r["n"] for r in data["band"]] == pytest.approx([1 / 1.18, 1.18])
    assert {r["upper"] for r in data["band"]} == {float(band.upper[0])}
    assert data["extent"][0]["n"] == 0.7
    dots = [layer for layer in spec["layer"] if layer.get("transform")]
    assert dots[0]["transform"] == [{"filter": "datum.alone"}]
    many = monte_carlo_spec(monte_carlo_paths(P, Q, 1000, SEED), noise_band(P, 1000))
    assert not any(r["alone"] for r in many["datasets"]["lines"])


def test_the_spec_changes_with_the_data_only() -> None:
    """N, seed and weights reach the chart as datasets: the rest of the spec (what a mounted
    chart is keyed by) stays the same, so Streamlit updates it in place."""
    specs = [
        monte_carlo_spec(monte_carlo_paths(p, Q, n, seed), noise_band(p, n))
        for p, n, seed in ((P, 1, SEED), (P, 10**4, SEED), (P[::-1], 10**9, 42))
    ]
    assert all(without_data(s) == without_data(specs[0]) for s in specs)
    assert specs[0]["datasets"] != specs[1]["datasets"]
    zoos = [
        zoo_spec(zoo_comparison(P, q, key, seed, n_max=10**4), title)
        for q, key, seed, title in (
            (Q, "reuse_uniform", SEED, "Reuse"),
            (Q, "inverted_ratio", 3, "Inverted"),
            (P, "resample_from_p", SEED, "Resample"),  # harmless here: no floor line
        )
    ]
    assert all(without_data(s) == without_data(zoos[0]) for s in zoos)
    swapped = monte_carlo_spec(
        monte_carlo_paths(P, Q, 10, SEED), noise_band(P, 10), ChartStyle(notation=Notation(True))
    )
    assert without_data(swapped) != without_data(specs[0])  # the lettering is in the spec


def test_monte_carlo_caption_quotes_every_seed_and_the_band_at_n() -> None:
    runs = monte_carlo_paths(P, Q, 10**4, SEED)
    band = noise_band(P, 10**4)
    caption = monte_carlo_chart_caption(runs, band, Notation())
    assert "At N = 10,000: " in caption and "between the emitted words and p" in caption
    for run in runs:
        assert f"seed {run.seed} {tv_text(run.tv)}" in caption
    lo, hi = tv_text(float(band.lower[-1])), tv_text(float(band.upper[-1]))
    assert f"the band there reaches from {lo} to {hi}" in caption
    assert "shaded 95% band" in caption and "for 5 seeds" in caption


@pytest.mark.parametrize("n", [1, 10])
def test_the_caption_never_puts_the_band_above_the_largest_possible_tv(n: int) -> None:
    """N runs of an exact sampler emit words of p's support only: TV is at most 1 − min p = .9."""
    runs = monte_carlo_paths(P, Q, n, SEED)
    band = noise_band(P, n)
    caption = monte_carlo_chart_caption(runs, band, Notation())
    hi = (
        caption.split("the band there reaches from ")[1]
        .split(" to ")[1]
        .split(" and")[0]
        .rstrip(".")
    )
    assert float(hi) <= 0.9 + TOL, caption
    assert all(run.tv <= 0.9 + TOL for run in runs)


def test_zoo_chart_shows_the_floor_and_tells_lines_apart_without_colour() -> None:
    z = zoo_comparison(P, Q, "reuse_uniform", SEED)
    spec = valid(zoo_spec(z, "Reuse"))
    rows = spec["datasets"]["lines"]
    wrong = [r for r in rows if r["series"] == f"{palette.REJECTED.icon} Reuse"]
    keep = z.wrong.tv > 0
    np.testing.assert_allclose([r["tv"] for r in wrong], z.wrong.tv[keep], rtol=TOL)
    correct = [r for r in rows if r["series"] == f"{palette.TARGET.icon} correct rule"]
    np.testing.assert_allclose([r["tv"] for r in correct], z.correct.tv[z.correct.tv > 0])
    floor = [r for r in rows if r["series"].startswith("its floor")]
    assert [r["tv"] for r in floor] == [z.tv, z.tv] and floor[0]["series"].endswith("0.075")
    look = looks(spec)
    assert look[f"{palette.REJECTED.icon} Reuse"]["stroke"] == palette.REJECTED.color
    assert look[f"{palette.TARGET.icon} correct rule"]["stroke"] == palette.TARGET.color
    assert len({str(v["strokeDash"]) for v in look.values()}) == len(look) == 4
    caption = zoo_chart_caption(z, "Reuse", Notation())
    assert f"N = {z.detectable_from:,}" in caption and "0.075" in caption


def test_a_harmless_mistake_has_no_floor_line() -> None:
    z = zoo_comparison(P, P, "resample_from_p", SEED, n_max=1000)
    spec = valid(zoo_spec(z, "Resample"))
    assert not [r for r in spec["datasets"]["lines"] if r["series"].startswith("its floor")]
    assert not [n for n in looks(spec) if n.startswith("its floor")]
    assert "happens to be exact" in zoo_chart_caption(z, "Resample", Notation())


def test_swapped_letters_and_projector_sizes_reach_the_charts() -> None:
    runs = monte_carlo_paths(P, Q, 1000, SEED)
    band = noise_band(P, 1000)
    swapped = ChartStyle(notation=Notation(swapped=True))
    assert "distance to q (log scale)" in str(monte_carlo_spec(runs, band, swapped))
    small = monte_carlo_spec(runs, band, ChartStyle())
    big = monte_carlo_spec(runs, band, ChartStyle(projector=True))
    assert big["config"]["axis"]["labelFontSize"] > small["config"]["axis"]["labelFontSize"]
    assert big["height"] > small["height"]
    legend = lines_layer(big)["encoding"]["stroke"]["legend"]
    assert (
        legend["labelFontSize"]
        > lines_layer(small)["encoding"]["stroke"]["legend"]["labelFontSize"]
    )


def test_the_caption_puts_the_mistake_on_its_floor_only_when_the_noise_is_below_it() -> None:
    """float32 ≤ on a pair without forbidden words: a floor of ~3e-8, hidden at N = 10**6."""
    hidden = zoo_comparison(P, Q, "float32_leq", SEED, n_max=10**6)
    assert 0 < hidden.tv < 1e-6 and hidden.wrong.tv[-1] <= hidden.band.upper[-1]
    caption = zoo_chart_caption(hidden, "Float32", Notation())
    assert "still hides its floor" in caption and "above the band" not in caption
    shown = zoo_comparison(P, Q, "reuse_uniform", SEED, n_max=10**6)
    assert shown.wrong.tv[-1] > shown.band.upper[-1]
    caption = zoo_chart_caption(shown, "Reuse", Notation())
    assert "above the band: its floor 0.075" in caption and "hides" not in caption
