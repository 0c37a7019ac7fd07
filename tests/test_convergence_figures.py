"""Convergence charts (specviz.figures.convergence): the TV paths, the noise band and their
captions, read back from the Vega-Lite dicts and compared with the core's numbers."""

from __future__ import annotations

import numpy as np
import pytest

from specviz import palette
from specviz.figures.convergence import (
    monte_carlo_chart_caption,
    monte_carlo_spec,
    zoo_chart_caption,
    zoo_spec,
)
from specviz.figures.numbers import tv_text
from specviz.figures.style import ChartStyle
from specviz.palette import Notation
from specviz.runs import monte_carlo_paths, noise_band
from specviz.zoo import zoo_comparison

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
SEED = 7
TOL = 1e-12


def layers(spec: dict) -> tuple[list[dict], list[dict], dict]:
    """(line rows, band rows, the lines' encoding) of a convergence chart's Vega-Lite dict,
    found by their marks."""
    by_mark = {layer["mark"]["type"]: layer for layer in spec["layer"]}
    assert set(by_mark) == {"area", "line"}
    lines, area = by_mark["line"], by_mark["area"]
    return lines["data"]["values"], area["data"]["values"], lines["encoding"]


def test_monte_carlo_chart_draws_every_seeds_path_and_the_band() -> None:
    runs = monte_carlo_paths(P, Q, 10**6, SEED)
    band = noise_band(P, 10**6)
    spec = monte_carlo_spec(runs, band)
    rows, band_rows, enc = layers(spec)
    main = f"{palette.TARGET.icon} seed {SEED}: the run above"
    others = f"seeds {SEED + 1}–{SEED + 4}"
    line_ids = [f"{main} #0"] + [f"{others} #{i}" for i in range(4)]
    for run_, line_id in zip(runs, line_ids, strict=True):
        got = [r for r in rows if r["line"] == line_id]
        keep = run_.path.tv > 0  # a TV of 0 has no place on a log axis
        np.testing.assert_array_equal([r["n"] for r in got], run_.path.checkpoints[keep])
        np.testing.assert_allclose([r["tv"] for r in got], run_.path.tv[keep], rtol=TOL)
    np.testing.assert_array_equal([r["n"] for r in band_rows], band.n)
    np.testing.assert_allclose([r["upper"] for r in band_rows], band.upper, rtol=TOL)
    # A lower edge of 0 (an exact run can land on the target) reaches down to the axis's floor.
    floor = enc["y"]["scale"]["domain"][0]
    np.testing.assert_allclose(
        [r["lower"] for r in band_rows], np.maximum(band.lower, floor), rtol=TOL
    )
    assert enc["x"]["scale"]["type"] == "log"
    assert enc["y"]["scale"]["type"] == "log"
    stroke = enc["stroke"]["scale"]
    assert stroke["domain"][:2] == [main, others]
    assert stroke["range"][:2] == [palette.TARGET.color, palette.TARGET.color]
    dashes = enc["strokeDash"]["scale"]["range"]
    assert dashes[0] != dashes[1]  # the other seeds differ by dash, not only by width


def test_monte_carlo_caption_quotes_every_seed_and_the_band_at_n() -> None:
    runs = monte_carlo_paths(P, Q, 10**4, SEED)
    band = noise_band(P, 10**4)
    caption = monte_carlo_chart_caption(runs, band, Notation())
    assert "At N = 10,000: " in caption and "between the emitted words and p" in caption
    for run in runs:
        assert f"seed {run.seed} {tv_text(run.tv)}" in caption
    lo, hi = tv_text(float(band.lower[-1])), tv_text(float(band.upper[-1]))
    assert f"the band there reaches from {lo} to {hi}" in caption
    assert "shaded 95% band" in caption


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
    spec = zoo_spec(z, "Reuse")
    rows, _, enc = layers(spec)
    wrong = [r for r in rows if r["series"] == f"{palette.REJECTED.icon} Reuse"]
    keep = z.wrong.tv > 0
    np.testing.assert_allclose([r["tv"] for r in wrong], z.wrong.tv[keep], rtol=TOL)
    floor = [r for r in rows if r["series"].startswith("its floor")]
    assert [r["tv"] for r in floor] == [z.tv, z.tv] and floor[0]["series"].endswith("0.075")
    names, colours = enc["stroke"]["scale"]["domain"], enc["stroke"]["scale"]["range"]
    assert colours[names.index(f"{palette.REJECTED.icon} Reuse")] == palette.REJECTED.color
    assert colours[names.index(f"{palette.TARGET.icon} correct rule")] == palette.TARGET.color
    assert len({str(d) for d in enc["strokeDash"]["scale"]["range"]}) == len(names)
    caption = zoo_chart_caption(z, "Reuse", Notation())
    assert f"N = {z.detectable_from:,}" in caption and "0.075" in caption


def test_a_harmless_mistake_has_no_floor_line() -> None:
    z = zoo_comparison(P, P, "resample_from_p", SEED, n_max=1000)
    rows, _, enc = layers(zoo_spec(z, "Resample"))
    assert not [r for r in rows if r["series"].startswith("its floor")]
    assert not [n for n in enc["stroke"]["scale"]["domain"] if n.startswith("its floor")]
    assert "happens to be exact" in zoo_chart_caption(z, "Resample", Notation())


def test_swapped_letters_and_projector_sizes_reach_the_charts() -> None:
    runs = monte_carlo_paths(P, Q, 1000, SEED)
    band = noise_band(P, 1000)
    swapped = ChartStyle(notation=Notation(swapped=True))
    assert "TV distance to q" in str(monte_carlo_spec(runs, band, swapped))
    small = monte_carlo_spec(runs, band, ChartStyle())
    big = monte_carlo_spec(runs, band, ChartStyle(projector=True))
    assert big["config"]["axis"]["labelFontSize"] > small["config"]["axis"]["labelFontSize"]
    assert big["height"] > small["height"]


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
