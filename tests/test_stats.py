"""Tests of the Monte Carlo statistics; scipy is the oracle for the incomplete gamma and chi2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special as sps
from scipy import stats as spst

import specviz.stats as stats_module
from specviz.stats import (
    GofResult,
    TVBand,
    TVPath,
    chi2_sf,
    chi_square_gof,
    expected_tv_band,
    gamma_q,
    log_checkpoints,
    total_variation_curve,
    tv_path,
)
from specviz.variants import rule_output_law, rule_sample

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])

# Below this scipy's gammaincc is subnormal or 0 and relative errors mean nothing.
TINY = 1e-290
# Measured against 50-digit mpmath, gamma_q's relative error is <= 1.6e-13 on these grids, while
# scipy's own error reaches 1e-12 for a <= 500 (e.g. a = 484, x = 1415) and 1.2e-11 for a up to
# 20_000 (a = 7805, x = 11298): the tolerances below leave room for scipy's error, not ours.
RTOL_VS_SCIPY = 1e-11
RTOL_VS_SCIPY_LARGE_A = 1e-10


# --------------------------------------------------------------------------------------------
# Incomplete gamma
# --------------------------------------------------------------------------------------------


def _assert_close_to_scipy(a, x, rtol=RTOL_VS_SCIPY):
    ours = gamma_q(a, x)
    ref = sps.gammaincc(a, x)
    big = ref > TINY
    rel = np.abs(ours[big] - ref[big]) / ref[big]
    assert rel.max() < rtol, (rel.max(), a[big][rel.argmax()], x[big][rel.argmax()])
    assert (ours[~big] < 1e-280).all()


def test_gamma_q_matches_scipy_on_a_wide_grid():
    # a = dof/2 for dof = 1..1000, x from 1e-3 to 1e6 (the chi-square statistic's range).
    a, x = np.meshgrid(np.arange(1, 1001) / 2.0, np.geomspace(1e-3, 1e6, 120), indexing="ij")
    _assert_close_to_scipy(a, x)


def test_gamma_q_matches_scipy_near_the_bulk():
    # x = a + z sqrt(a): where both expansions are slowest and the switch at x = a + 1 happens.
    a = np.arange(1, 1001)[:, None] / 2.0
    x = np.maximum(a + np.sqrt(a) * np.linspace(-6, 8, 57)[None, :], 1e-6)
    x = np.concatenate([x, a + 1, a + 1 - 1e-9], axis=1)
    _assert_close_to_scipy(np.broadcast_to(a, x.shape), x)


def test_gamma_q_matches_scipy_for_non_integer_and_large_shapes():
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(0.5, 30, 500), rng.uniform(500, 20_000, 200)])
    x = a * np.exp(rng.normal(0, 0.5, a.size))
    _assert_close_to_scipy(a, x, RTOL_VS_SCIPY_LARGE_A)


def test_gamma_q_closed_forms():
    x = np.geomspace(1e-6, 700, 50)
    np.testing.assert_allclose(gamma_q(1.0, x), np.exp(-x), rtol=1e-13)
    erfc = np.array([math.erfc(math.sqrt(v)) for v in x])
    big = erfc > TINY
    np.testing.assert_allclose(gamma_q(0.5, x)[big], erfc[big], rtol=1e-12)
    assert gamma_q(3.0, 0.0) == 1.0
    assert gamma_q(3.0, math.inf) == 0.0
    assert isinstance(gamma_q(2.0, 1.0), float)
    assert gamma_q(np.array([1.0, 2.0]), 1.0).shape == (2,)


@pytest.mark.parametrize(
    ("a", "x"), [(0.0, 1.0), (-1.0, 1.0), (math.inf, 1.0), (math.nan, 1.0), (1.0, -1.0)]
)
def test_gamma_q_bad_input(a, x):
    with pytest.raises(ValueError):
        gamma_q(a, x)


def test_chi2_sf_matches_scipy():
    dof = np.arange(1, 301)[:, None]
    x = dof * np.linspace(0.05, 5, 40)[None, :]
    ref = spst.chi2.sf(x, dof)
    big = ref > TINY
    ours = chi2_sf(x, dof)
    np.testing.assert_allclose(ours[big], ref[big], rtol=RTOL_VS_SCIPY)
    with pytest.raises(ValueError, match="dof"):
        chi2_sf(1.0, 0)
    with pytest.raises(ValueError, match="x must be >= 0"):
        chi2_sf(-1.0, 3)


# --------------------------------------------------------------------------------------------
# Goodness of fit
# --------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.01, 1.0), min_size=2, max_size=30),
    st.integers(10, 10**7),
    st.integers(0, 2**32 - 1),
)
def test_chi_square_gof_matches_scipy(weights, n, seed):
    probs = np.array(weights) / sum(weights)
    rng = np.random.default_rng(seed)
    sampled = rng.dirichlet(np.ones(probs.size) * 50)  # sometimes far from probs, sometimes near
    counts = rng.multinomial(n, sampled)
    result = chi_square_gof(counts, probs)
    ref = spst.chisquare(counts, n * probs)
    assert isinstance(result, GofResult)
    assert result.dof == probs.size - 1
    assert result.statistic == pytest.approx(ref.statistic, rel=1e-10)
    if ref.pvalue > TINY:
        assert result.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    else:
        assert result.p_value < 1e-280


def test_chi_square_gof_zero_probability_tokens():
    counts = np.array([40, 0, 35, 25])
    probs = np.array([0.4, 0.0, 0.35, 0.25])
    stat, dof, pval = chi_square_gof(counts, probs)
    ref = spst.chisquare([40, 35, 25], [40, 35, 25])
    assert dof == 2
    assert stat == pytest.approx(ref.statistic, abs=1e-12)
    assert pval == pytest.approx(ref.pvalue)
    # One draw of an impossible token is decisive.
    assert chi_square_gof([40, 1, 35, 25], probs) == (math.inf, 2, 0.0)


def test_chi_square_gof_single_possible_token():
    assert chi_square_gof([7, 0, 0], [1.0, 0.0, 0.0]) == (0.0, 0, 1.0)
    assert chi_square_gof([7, 1, 0], [1.0, 0.0, 0.0]).p_value == 0.0


def test_chi_square_gof_detects_and_accepts():
    n = 100_000
    good = rule_sample("correct", P, Q, n, seed=3)
    bad = rule_sample("reuse_uniform", P, Q, n, seed=3)
    assert chi_square_gof(np.bincount(good, minlength=4), P).p_value > 1e-3
    assert chi_square_gof(np.bincount(bad, minlength=4), P).p_value < 1e-100


@pytest.mark.parametrize(
    ("counts", "probs", "match"),
    [
        ([1, 2], [0.5, 0.25, 0.25], "same length"),
        ([0, 0], [0.5, 0.5], "all zero"),
        ([1.5, 2], [0.5, 0.5], "whole numbers"),
        ([-1, 2], [0.5, 0.5], "negative"),
        ([1, 2], [0.5, 0.6], "probs must sum to 1"),
        ([[1, 2]], [0.5, 0.5], "1-D"),
    ],
)
def test_chi_square_gof_bad_input(counts, probs, match):
    with pytest.raises(ValueError, match=match):
        chi_square_gof(counts, probs)


# --------------------------------------------------------------------------------------------
# TV curves
# --------------------------------------------------------------------------------------------


def test_log_checkpoints():
    cps = log_checkpoints(10**9, 40)
    assert cps[0] == 1 and cps[-1] == 10**9
    assert (np.diff(cps) > 0).all()
    assert cps.dtype == np.int64
    np.testing.assert_array_equal(log_checkpoints(3, 50), [1, 2, 3])
    with pytest.raises(ValueError):
        log_checkpoints(0)
    with pytest.raises(ValueError):
        log_checkpoints(10, 1)


def test_total_variation_curve_matches_a_direct_computation():
    draws = rule_sample("resample_from_p", P, Q, 50_000, seed=11)
    cps = log_checkpoints(draws.size, 30)
    path = total_variation_curve(draws, P, cps)
    assert isinstance(path, TVPath)
    np.testing.assert_array_equal(path.checkpoints, cps)
    for i, n in enumerate(cps):
        counts = np.bincount(draws[:n], minlength=4)
        np.testing.assert_array_equal(path.counts[i], counts)
        assert path.tv[i] == pytest.approx(0.5 * np.abs(counts / n - P).sum(), abs=1e-15)
    # The bias grows out of the noise: TV tends to the law's distance, .14.
    assert path.tv[-1] == pytest.approx(0.14, abs=0.01)


@pytest.mark.parametrize(
    ("draws", "checkpoints", "match"),
    [
        (np.array([0, 1, 4]), [1, 2], "outside"),
        (np.array([0, -1]), [1], "outside"),
        (np.array([0.0, 1.0]), [1], "integer"),
        (np.array([[0, 1]]), [1], "1-D"),
        (np.array([0, 1, 2]), [2, 1], "strictly increasing"),
        (np.array([0, 1, 2]), [0, 1], "start at >= 1"),
        (np.array([0, 1, 2]), [1, 4], "beyond len"),
        (np.array([0, 1, 2]), [1.5], "whole numbers"),
        (np.array([0, 1, 2]), [], "non-empty"),
    ],
)
def test_total_variation_curve_bad_input(draws, checkpoints, match):
    with pytest.raises(ValueError, match=match):
        total_variation_curve(draws, P, checkpoints)


def test_tv_path_huge_n():
    cps = log_checkpoints(10**12, 50)
    exact = tv_path(P, P, cps, seed=1)
    assert (exact.counts.sum(axis=1) == cps).all()
    assert (np.diff(exact.counts, axis=0) >= 0).all()
    assert exact.tv[-1] < 1e-5
    biased_law = rule_output_law("reuse_uniform", P, Q)
    biased = tv_path(biased_law, P, cps, seed=1)
    assert biased.tv[-1] == pytest.approx(0.075, abs=1e-5)
    np.testing.assert_array_equal(tv_path(P, P, cps, seed=7).tv, tv_path(P, P, cps, seed=7).tv)
    with pytest.raises(ValueError, match="same length"):
        tv_path([0.5, 0.5], P, cps)
    with pytest.raises(ValueError, match="beyond"):
        tv_path(P, P, [1, 10**16])


def test_tv_path_has_the_law_of_a_stream_of_draws():
    # At a fixed checkpoint the count-level path and the per-draw stream agree in distribution:
    # compare the mean TV at N = 1000 over many replications with the band's mean.
    cps = [10, 1000]
    rng = np.random.default_rng(5)
    tvs = np.array([tv_path(P, P, cps, seed=rng).tv[1] for _ in range(3000)])
    band = expected_tv_band(P, 1000)
    assert tvs.mean() == pytest.approx(float(band.mean), rel=0.04)


# --------------------------------------------------------------------------------------------
# Reference band
# --------------------------------------------------------------------------------------------

BAND_CASES = [
    ("math_md", P, 1000),
    ("two_tokens", np.array([0.5, 0.5]), 1000),
    ("skewed", np.array([0.97, 0.01, 0.01, 0.01]), 10_000),
    ("fifty", np.random.default_rng(3).dirichlet(np.ones(50)), 100_000),
]


@pytest.mark.parametrize(("name", "p", "n"), BAND_CASES, ids=[c[0] for c in BAND_CASES])
def test_expected_tv_band_against_simulation(name, p, n):
    rng = np.random.default_rng(2024)
    counts = rng.multinomial(n, p, size=20_000)
    tvs = 0.5 * np.abs(counts / n - p).sum(axis=1)
    band = expected_tv_band(p, n)
    assert isinstance(band, TVBand)
    assert float(band.mean) == pytest.approx(tvs.mean(), rel=0.02)
    assert float(band.sd) == pytest.approx(tvs.std(), rel=0.04)
    assert float(band.upper) == pytest.approx(np.quantile(tvs, 0.95), rel=0.04)
    # About 95% of the runs stay under the upper band.
    assert 0.93 < (tvs <= band.upper).mean() < 0.97


def test_expected_tv_band_scaling_and_formula():
    n = np.array([1, 100, 10_000])
    band = expected_tv_band(P, n)
    assert band.mean.shape == (3,)
    np.testing.assert_allclose(band.mean * np.sqrt(n), band.mean[0], rtol=1e-14)
    np.testing.assert_allclose(band.upper * np.sqrt(n), band.upper[0], rtol=1e-14)
    formula = 0.5 * np.sqrt(2 * P * (1 - P) / (math.pi * 100)).sum()
    assert band.mean[1] == pytest.approx(formula, rel=1e-14)
    assert (band.lower < band.mean).all() and (band.mean < band.upper).all()
    # Two tokens: TV = |p̂(0) - p(0)| is exactly half-normal, so sd is known in closed form.
    two = expected_tv_band([0.3, 0.7], 50)
    assert float(two.sd) == pytest.approx(math.sqrt(0.21 / 50 * (1 - 2 / math.pi)), rel=1e-12)


def test_expected_tv_band_large_vocabulary_approximation(monkeypatch):
    # Beyond _BAND_EXACT_TOKENS tokens, rare pairs use the leading term of the covariance series.
    p = np.random.default_rng(1).dirichlet(np.ones(1500))
    monkeypatch.setattr(stats_module, "_BAND_EXACT_TOKENS", 50)
    approx = expected_tv_band(p, 10**6)
    monkeypatch.setattr(stats_module, "_BAND_EXACT_TOKENS", 2000)
    exact = expected_tv_band(p, 10**6)
    assert float(approx.sd) == pytest.approx(float(exact.sd), rel=1e-6)


def test_expected_tv_band_degenerate_and_bad_input():
    band = expected_tv_band([0.0, 1.0, 0.0], 100)
    assert band.mean == 0 and band.upper == 0 and band.sd == 0
    for bad in (0, -1, 1.5, [10, 0]):
        with pytest.raises(ValueError, match="n must be"):
            expected_tv_band(P, bad)
    for level in (0.5, 1.0, "high"):
        with pytest.raises(ValueError, match="level"):
            expected_tv_band(P, 10, level=level)
