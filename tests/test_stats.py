"""Tests of the Monte Carlo statistics: the chi-square test (scipy is the oracle), TV paths, the
noise band's exact pieces and its guarantees, and detectable_from.

The band's coverage of exact runs is tested in tests/test_band_coverage.py.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as spst

import specviz.stats as stats_module
from specviz.limits import BAND_LEVEL, MAX_BAND_SIZES, MAX_COUNT_DRAWS
from specviz.stats import (
    GofResult,
    TVBand,
    TVPath,
    chi_square_gof,
    detectable_from,
    expected_tv_band,
    log_checkpoints,
    tv_path,
)

P = np.array([0.4, 0.3, 0.2, 0.1])
#: A law 0.14 away from P in TV (0.14 = ½ (0.1 + 0.1 + 0.04 + 0.04)).
BIASED = np.array([0.3, 0.4, 0.24, 0.06])
#: TVs computed by two summation orders agree to a few ulps; edges are compared up to this.
ROUND = 1e-12

BAD_NUMBERS = [
    pytest.param(2**63, id="2**63"),
    pytest.param(10**400, id="10**400"),
    pytest.param("3", id="text"),
    pytest.param(True, id="bool"),
    pytest.param(1 + 2j, id="complex"),
    pytest.param(np.datetime64("2024-01-01"), id="datetime64"),
    pytest.param(None, id="None"),
    pytest.param(math.nan, id="nan"),
    pytest.param(math.inf, id="inf"),
    pytest.param(-1, id="negative"),
]


def tv_of(counts: np.ndarray, n: int, p: np.ndarray) -> np.ndarray:
    return 0.5 * np.abs(counts / n - p).sum(axis=-1)


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
    assert result.p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


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
    """100,000 draws: from P itself the p-value is uniform (fixed seed: 0.67); from a law 0.14
    away the statistic is ~10,000 on 3 degrees of freedom."""
    rng = np.random.default_rng(3)
    assert chi_square_gof(rng.multinomial(100_000, P), P).p_value > 1e-3
    assert chi_square_gof(rng.multinomial(100_000, BIASED), P).p_value < 1e-100


@pytest.mark.parametrize(
    ("counts", "probs", "match"),
    [
        ([1, 2], [0.5, 0.25, 0.25], "same length"),
        ([0, 0], [0.5, 0.5], "all zero"),
        ([1.5, 2], [0.5, 0.5], "whole numbers"),
        ([-1, 2], [0.5, 0.5], "negative"),
        ([1, 2], [0.5, 0.6], "probs must sum to 1"),
        ([True, 2], [0.5, 0.5], "counts"),
        ([[1, 2]], [0.5, 0.5], "1-D"),
        (["1", "2"], [0.5, 0.5], "counts"),
        ([True, False], [0.5, 0.5], "counts"),
        ([1 + 2j, 2], [0.5, 0.5], "counts"),
        ([2**63, 1], [0.5, 0.5], "counts"),
        ([10**400, 1], [0.5, 0.5], "counts"),
        ([None, 1], [0.5, 0.5], "counts"),
        ([math.nan, 1], [0.5, 0.5], "counts"),
        (np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]"), [0.5, 0.5], "counts"),
        ([1, 2], ["0.5", "0.5"], "probs"),
        ([1, 2], [True, False], "probs"),
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
    assert log_checkpoints(MAX_COUNT_DRAWS)[-1] == MAX_COUNT_DRAWS
    assert log_checkpoints(7.0, 2.0).tolist() == [1, 7]


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 0, 1.5, 10**15 + 1])
def test_log_checkpoints_bad_n_max(bad):
    with pytest.raises(ValueError, match="n_max"):
        log_checkpoints(bad)


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 1, 2.5, 100_001])
def test_log_checkpoints_bad_num(bad):
    with pytest.raises(ValueError, match="num"):
        log_checkpoints(10, bad)


def test_tv_path_huge_n():
    cps = log_checkpoints(10**12, 50)
    exact = tv_path(P, P, cps, seed=1)
    assert (exact.counts.sum(axis=1) == cps).all()
    assert (np.diff(exact.counts, axis=0) >= 0).all()
    assert exact.tv[-1] < 1e-5  # band upper edge at 10**12: 1.3e-6
    biased = tv_path(BIASED, P, cps, seed=1)
    assert biased.tv[-1] == pytest.approx(0.14, abs=1e-5)
    np.testing.assert_array_equal(tv_path(P, P, cps, seed=7).tv, tv_path(P, P, cps, seed=7).tv)
    with pytest.raises(ValueError, match="same length"):
        tv_path([0.5, 0.5], P, cps)
    with pytest.raises(ValueError, match="checkpoints must hold whole numbers from 1 to"):
        tv_path(P, P, [1, 10**16])


@pytest.mark.parametrize("seed", ["3", True, 1.5, -1, 2**64, 1 + 2j, math.nan])
def test_tv_path_bad_seed(seed):
    with pytest.raises(ValueError, match="seed"):
        tv_path(P, P, [1, 2], seed=seed)


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, "123"])
def test_tv_path_bad_checkpoints(bad):
    with pytest.raises(ValueError, match="checkpoints"):
        tv_path(P, P, bad)
    with pytest.raises(ValueError, match="checkpoints"):
        tv_path(P, P, [1, bad])


@pytest.mark.parametrize(
    ("checkpoints", "match"),
    [
        ([2, 1], "strictly increasing"),
        ([0, 1], "from 1 to"),
        ([1.5], "whole numbers"),
        ([], "non-empty"),
        ([[1, 2]], "1-D"),
        ([True, 2], "checkpoints"),
        (np.array(["2024-01-01"], dtype="datetime64[D]"), "checkpoints"),
    ],
)
def test_tv_path_refuses_checkpoints_that_are_no_sample_sizes(checkpoints, match):
    with pytest.raises(ValueError, match=match):
        tv_path(P, P, checkpoints)


def test_tv_path_has_the_law_of_a_stream_of_draws():
    """At N = 1000 the count-level path's TV has the exact mean of the band: 3000 paths give a
    mean with sd ≈ 0.0105 / √3000 ≈ 0.0002, i.e. 0.3 % of 0.0208; tolerance 1.5 %."""
    rng = np.random.default_rng(5)
    tvs = np.array([tv_path(P, P, [10, 1000], seed=rng).tv[1] for _ in range(3000)])
    band = expected_tv_band(P, 1000)
    assert tvs.mean() == pytest.approx(float(band.mean), rel=0.015)


def test_a_path_of_counts_measures_each_row_against_the_law():
    counts = np.array([[1, 0, 0, 0], [3, 2, 1, 0]])
    path = TVPath.of_counts(np.array([1, 6]), counts, P)
    np.testing.assert_allclose(path.tv, tv_of(counts, np.array([[1], [6]]), P))
    np.testing.assert_array_equal(path.counts, counts)


# --------------------------------------------------------------------------------------------
# The band: exact pieces
# --------------------------------------------------------------------------------------------


def test_band_at_one_draw_is_exact():
    """N = 1: TV = 1 - p(x) w.p. p(x), i.e. .6/.7/.8/.9 w.p. .4/.3/.2/.1. Mean Σ p(1-p) = 0.7;
    the 2.5 % quantile is .6 (P(TV = .6) = .4) and the 97.5 % one .9 (P(TV = .9) = .1)."""
    band = expected_tv_band(P, 1)
    assert isinstance(band, TVBand)
    assert band.mean == pytest.approx(0.7, abs=1e-15)
    assert band.lower == 0.6 and band.upper == 0.9
    assert band.level == BAND_LEVEL
    assert band.n.shape == band.mean.shape == ()


def exact_mean_by_enumeration(p: np.ndarray, n: int) -> float:
    """E TV over every outcome of Multinomial(n, p)."""
    total = 0.0
    for head in itertools.product(range(n + 1), repeat=p.size - 1):
        if sum(head) > n:
            continue
        counts = np.array([*head, n - sum(head)])
        total += spst.multinomial.pmf(counts, n, p) * tv_of(counts, n, p)
    return total


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20])
@pytest.mark.parametrize("p", [P, np.array([0.5, 0.25, 0.25]), np.array([0.9, 0.1])])
def test_band_mean_is_exact(p, n):
    assert float(expected_tv_band(p, n).mean) == pytest.approx(
        exact_mean_by_enumeration(p, n), rel=1e-12
    )


def test_band_mean_of_two_words_against_the_binomial():
    """Two words: TV = |X/N - p| with X ~ Binomial(N, p); the mean summed over the pmf."""
    p0 = 0.3
    for n in (50, 999, 5_000, 123_457):
        k = np.arange(n + 1)
        ref = float((spst.binom.pmf(k, n, p0) * np.abs(k / n - p0)).sum())
        band = expected_tv_band([p0, 1 - p0], n)
        assert float(band.mean) == pytest.approx(ref, rel=1e-7)


def test_band_mean_for_huge_n_is_the_normal_limit():
    n = np.array([10**12, 10**15])
    band = expected_tv_band(P, n)
    limit = 0.5 * np.sqrt(2 * P * (1 - P) / math.pi).sum() / np.sqrt(n)
    np.testing.assert_allclose(band.mean, limit, rtol=1e-9)


def test_one_word_law_has_a_zero_band():
    band = expected_tv_band([0.0, 1.0, 0.0], [1, 100, 10**15])
    for field in (band.mean, band.lower, band.upper):
        np.testing.assert_array_equal(field, 0.0)


def test_band_is_deterministic_and_independent_of_the_other_sizes():
    cps = log_checkpoints(10**9, 60)
    # Models are kept between calls: a fresh model, and one that other calls used before
    # (other sizes, detectable_from, other laws), give the same band.
    stats_module._band_model.cache_clear()
    whole = expected_tv_band(P, cps)
    detectable_from(P, 0.01)
    expected_tv_band(np.array([0.9, 0.1]), [7, 10**6])
    used = expected_tv_band(P, cps)
    stats_module._band_model.cache_clear()
    fresh = expected_tv_band(P, cps)
    for again in (used, fresh):
        for name in ("mean", "lower", "upper"):
            np.testing.assert_array_equal(getattr(whole, name), getattr(again, name))
    for i in (0, 5, 20, 40, -1):
        alone = expected_tv_band(P, [int(cps[i])])
        assert alone.upper[0] == whole.upper[i] and alone.lower[0] == whole.lower[i]


def test_band_keeps_the_shape_of_n():
    assert expected_tv_band(P, [[1, 2], [3, 100]]).upper.shape == (2, 2)
    assert expected_tv_band(P, np.int64(5)).upper.shape == ()


def test_band_upper_edge_falls_above_the_small_sizes():
    """Above N = 64, before lattice snapping, the upper edge never increases (from the exact
    mean, E TV_{N+1} <= E TV_N by convexity, and non-increasing anchors); after snapping it
    may rise by less than one step 1/N."""
    for p in (
        P,
        np.array([0.9, 0.1]),
        np.array([100, 1, 1]) / 102,
        np.r_[0.5, np.full(40, 0.5 / 40)],
    ):
        model = stats_module._BandModel(p, BAND_LEVEL)
        n = np.unique(np.r_[np.arange(65, 3000), np.geomspace(65, 10**15, 500).astype(np.int64)])
        core = model.upper_core(n)
        # Slack for the binomial pmf, computed in log space (relative error ~1e-12 to 1e-10).
        assert (np.diff(core) <= 1e-9 * core[:-1]).all()
        upper = model.evaluate(n)[2]
        assert (np.diff(upper) < 1.0 / n[:-1]).all()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 100), min_size=1, max_size=12).filter(lambda w: sum(w) > 0),
    st.integers(1, 10**6) | st.integers(1, 200) | st.sampled_from([10**9, 10**15]),
)
def test_band_is_never_impossible(weights, n):
    """0 <= smallest possible TV <= lower <= upper <= 1 - min p <= 1 at every N, the exact mean
    in between those bounds, and inside the band above the simulated range (below it a rare
    word can put the mean above the 97.5 % quantile: N = 2, p = (.99, .01) has upper .01 and
    mean .0196)."""
    p = np.array(weights, dtype=float) / sum(weights)
    band = expected_tv_band(p, n)
    support = p[p > 0]
    largest = 1.0 - support.min()
    smallest = stats_module._min_tv(support, np.array([n]))[0]
    assert 0.0 <= smallest <= band.lower + ROUND
    assert band.lower <= band.upper <= largest <= 1.0
    assert smallest - ROUND <= band.mean <= largest + ROUND
    if n > stats_module._STREAM_MAX:
        assert band.lower <= band.mean <= band.upper


def test_band_is_possible_for_the_audit_cases():
    """The old band: 1.20 at N = 1 for P; a mean of 1.09 for the long-tail law at N = 1."""
    assert float(expected_tv_band(P, 1).upper) <= 0.9
    w = np.array([100, 50, 33, 25, 20, 17, 14, 13, 11, 10], dtype=float)
    band = expected_tv_band(w / w.sum(), 1)
    assert float(band.mean) == pytest.approx(float((w / w.sum() * (1 - w / w.sum())).sum()))
    assert float(band.upper) <= 1 - w.min() / w.sum()


def test_min_tv_is_the_smallest_possible_tv():
    rng = np.random.default_rng(8)
    for _ in range(30):
        p = rng.dirichlet(np.ones(int(rng.integers(2, 5))))
        n = int(rng.integers(1, 12))
        best = min(
            tv_of(np.array([*h, n - sum(h)]), n, p)
            for h in itertools.product(range(n + 1), repeat=p.size - 1)
            if sum(h) <= n
        )
        assert stats_module._min_tv(p, np.array([n]))[0] == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 0, 1.5, 10**15 + 1, [1, 2**63], [[1], [2, 3]]])
def test_band_bad_n(bad):
    with pytest.raises(ValueError, match="n "):
        expected_tv_band(P, bad)


def test_band_too_many_sizes():
    with pytest.raises(ValueError, match="at most"):
        expected_tv_band(P, np.ones(MAX_BAND_SIZES + 1, dtype=np.int64))


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 0, 1, 0.0, 1.0, 1.5, [0.9]])
def test_band_bad_level(bad):
    with pytest.raises(ValueError, match="level"):
        expected_tv_band(P, 10, level=bad)


@pytest.mark.parametrize("bad", ["0.4 0.6", [0.5, 0.6], [True, False], [1 + 0j, 0], [math.nan, 1]])
def test_band_bad_p(bad):
    with pytest.raises(ValueError, match="p"):
        expected_tv_band(bad, 10)


# --------------------------------------------------------------------------------------------
# detectable_from
# --------------------------------------------------------------------------------------------


def test_detectable_from_zero_bias_is_never():
    assert detectable_from(P, 0.0) is None
    assert detectable_from(P, 1e-15) is None
    assert detectable_from(P, 0) is None


@pytest.mark.parametrize("tv", [0.85, 0.5, 0.2, 0.14, 0.075, 0.03, 0.01, 0.003])
def test_detectable_from_is_where_the_band_drops_below_the_bias_for_good(tv):
    n = detectable_from(P, tv)
    band = expected_tv_band(P, [n - 1, n] if n > 1 else [n])
    assert band.upper[-1] < tv
    if n > 1:
        assert band.upper[0] >= tv
    # ... and stays below: every N for a stretch after it, then log-spaced up to 10**15.
    after = np.unique(np.r_[np.arange(n, n + 3000), np.geomspace(n, MAX_COUNT_DRAWS, 200)])
    # A band takes at most MAX_BAND_SIZES sizes; its values do not depend on the others asked.
    for sizes in np.array_split(after.astype(np.int64), -(-after.size // MAX_BAND_SIZES)):
        assert (expected_tv_band(P, sizes).upper < tv).all()


def test_detectable_from_hand_cases():
    # N = 1: upper = .9; N = 2: upper = .8 (P(TV = .9) = .01, P(TV >= .8) = .05).
    assert detectable_from(P, 0.95) == 1  # above 1 - min p: no N draws of P are that far
    assert detectable_from(P, 0.9) == 2
    assert detectable_from(P, 0.85) == 2
    # One word: an exact sampler's TV is always 0, so any bias shows at once.
    assert detectable_from([1.0, 0.0], 0.3) == 1
    # Large N: upper ≈ c/√N, so quartering the bias multiplies N by about 16.
    assert detectable_from(P, 0.0025) == pytest.approx(16 * detectable_from(P, 0.01), rel=0.01)


def test_detectable_from_is_monotonic_in_the_bias():
    biases = np.geomspace(0.9, 1e-4, 60)
    ns = [detectable_from(P, float(tv)) for tv in biases]
    assert all(a <= b for a, b in itertools.pairwise(ns))
    w = np.array([100, 1, 1], dtype=float) / 102
    ns = [detectable_from(w, float(tv)) for tv in biases]
    assert all(a <= b for a, b in itertools.pairwise(ns))


def test_detectable_from_beyond_the_band_range():
    # A bias of 1e-9 needs ~1.7e18 runs: the large-N formula, outside expected_tv_band's range.
    n = detectable_from(P, 1e-9)
    assert n > MAX_COUNT_DRAWS
    assert n == pytest.approx(detectable_from(P, 0.01) * (0.01 / 1e-9) ** 2, rel=0.01)


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 1.5, [0.1]])
def test_detectable_from_bad_tv(bad):
    with pytest.raises(ValueError, match="tv"):
        detectable_from(P, bad)


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 0, 1])
def test_detectable_from_bad_level(bad):
    with pytest.raises(ValueError, match="level"):
        detectable_from(P, 0.1, level=bad)


def test_detectable_from_bad_p():
    with pytest.raises(ValueError, match="p"):
        detectable_from("0.5 0.5", 0.1)
