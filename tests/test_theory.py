"""Leviathan et al.'s formulas for gamma drafts per target call: hand-derived values, properties.

E(alpha, gamma) = (1 - alpha^(gamma+1)) / (1 - alpha) tokens per target call (gamma + 1 at
alpha = 1), S = E / (gamma c + 1) walltime improvement, and the integer gamma maximising S.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import expected_tokens_per_step, optimal_gamma, walltime_speedup
from specviz.limits import MAX_GAMMA
from specviz.theory import speedup

#: Exact quantities: a sum of at most ~65 powers in [0, 1] carries rounding far below 1e-12.
EXACT = 1e-12

#: Relative tolerance against the closed form (1 - a^(g+1)) / (1 - a). That form loses about
#: eps / (1 - a) to cancellation, so away from a = 1 (a <= .99) it is good to ~1e-14.
CLOSED_FORM_RTOL = 1e-12

#: Relative slack when comparing speed-ups of different gammas computed along different float paths.
TIE_RTOL = 1e-12

PROPERTY = settings(deadline=None, max_examples=200, derandomize=True)

ALPHAS = st.floats(min_value=0.0, max_value=1.0)
GAMMAS = st.integers(0, 64)
COSTS = st.floats(min_value=0.0, max_value=2.0)


@pytest.mark.parametrize(
    ("alpha", "gamma", "expected"),
    [
        (0.0, 0, 1.0),  # gamma = 0: plain decoding, one token per call
        (0.7, 0, 1.0),
        (0.0, 5, 1.0),  # alpha = 0: every draft rejected, the residual token only
        (1.0, 5, 6.0),  # alpha = 1: all gamma accepted plus the bonus token
        (0.5, 3, 1.875),  # 1 + .5 + .25 + .125
        (0.6, 1, 1.6),  # 1 + .6
        (0.8, 7, 4.1611392),  # (1 - .8^8) / .2 = .83222784 / .2
    ],
)
def test_expected_tokens_hand_values(alpha, gamma, expected):
    got = expected_tokens_per_step(alpha, gamma)
    assert isinstance(got, float)
    assert got == pytest.approx(expected, rel=EXACT)


def test_expected_tokens_vectorised_over_alpha():
    got = expected_tokens_per_step([0.0, 0.5, 1.0], 3)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, [1.0, 1.875, 4.0], rtol=EXACT)


@pytest.mark.parametrize(
    ("alpha", "gamma", "c", "expected"),
    [
        (0.5, 3, 0.1, 1.875 / 1.3),
        (0.6, 1, 0.2, 1.6 / 1.2),  # = (1 + alpha) / (1 + c), the gamma = 1 bound of math.md
        (0.5, 3, 0.0, 1.875),  # free drafts: S = E
        (1.0, 4, 1.0, 1.0),  # drafts as costly as the target: 5 tokens for the price of 5
        (0.0, 2, 0.5, 0.5),  # one token for the price of 1 + 2 * .5
    ],
)
def test_walltime_speedup_hand_values(alpha, gamma, c, expected):
    assert walltime_speedup(alpha, gamma, c) == pytest.approx(expected, rel=EXACT)


def test_speedup_is_words_per_call_over_the_calls_cost():
    """The one cost model the decoding page and walltime_speedup share."""
    assert speedup(3.5, 2, 0.25) == 3.5 / 1.5 and speedup(1.0, 0, 7.0) == 1.0
    np.testing.assert_array_equal(speedup(np.array([1.0, 2.0]), 1, 1.0), [0.5, 1.0])
    with pytest.raises(ValueError, match="words_per_call"):
        speedup(np.inf, 1, 0.1)


def test_walltime_speedup_vectorised_over_alpha():
    got = walltime_speedup(np.array([0.0, 0.5]), 3, 0.1)
    np.testing.assert_allclose(got, [1 / 1.3, 1.875 / 1.3], rtol=EXACT)


@pytest.mark.parametrize(
    ("alpha", "c", "max_gamma", "expected"),
    [
        # S(g) = 2 (1 - .5^(g+1)) / (1 + .1 g): 1, 1.364, 1.458, 1.442 for g = 0..3, then falling.
        (0.5, 0.1, 64, 2),
        # S(g) = 5 (1 - .8^(g+1)) / (1 + .05 g): g = 7: 3.0823, 8: 3.0921, 9: 3.0780, 10: 3.0470.
        (0.8, 0.05, 64, 8),
        (1.0, 0.0, 64, 64),  # S = g + 1 grows without bound: the search edge
        (1.0, 0.0, 10, 10),
        (0.9, 0.0, 12, 12),  # free drafts: E grows with g, so the largest gamma wins
        (1.0, 1.0, 64, 0),  # S = 1 for every gamma: a tie, the smallest gamma is returned
        (0.0, 0.0, 64, 0),  # S = 1 for every gamma again
        (0.0, 0.1, 64, 0),  # nothing is ever accepted: do not speculate
        # c >= 1: S = E / (g c + 1) <= (g + 1) / (g + 1) = 1, with equality only at g = 0.
        (0.95, 1.0, 64, 0),
        (0.5, 0.1, 0, 0),  # empty search range apart from gamma = 0
    ],
)
def test_optimal_gamma_hand_values(alpha, c, max_gamma, expected):
    got = optimal_gamma(alpha, c, max_gamma=max_gamma)
    assert type(got) is int
    assert got == expected


def test_optimal_gamma_default_search_range_is_64():
    assert optimal_gamma(1.0, 0.0) == 64


@pytest.mark.parametrize(
    ("alpha", "max_gamma", "expected"),
    [
        # Free drafts (c = 0): S(g) = 1 + a + ... + a^g rises for ever when a > 0, however little
        # each extra guess adds. In floats the sum stops changing once a^g < 1e-16 (g = 53 at
        # a = .5, which the old brute-force search returned as a "tie"): the search edge wins.
        (0.5, MAX_GAMMA, MAX_GAMMA),
        (0.5, 10_000, 10_000),
        (1e-9, 100, 100),
        (0.999, 10_000, 10_000),
        (0.0, 10_000, 0),  # nothing is ever accepted: S = 1 for every gamma, the smallest wins
    ],
)
def test_optimal_gamma_with_free_drafts_is_the_search_edge(alpha, max_gamma, expected):
    assert optimal_gamma(alpha, 0, max_gamma=max_gamma) == expected


def test_max_gamma_comes_from_limits():
    assert MAX_GAMMA == 10_000
    with pytest.raises(ValueError, match="max_gamma"):
        optimal_gamma(0.5, 0.1, max_gamma=MAX_GAMMA + 1)
    with pytest.raises(ValueError, match="gamma"):
        expected_tokens_per_step(0.5, MAX_GAMMA + 1)


def _exact_best_gamma(alpha: float, c: float, max_gamma: int) -> int:
    """argmax over g of E(g) / (g c + 1) in exact rationals; the smallest g on a tie."""
    a, cost = Fraction(alpha), Fraction(c)
    best, best_value, tokens, power = 0, None, Fraction(0), Fraction(1)
    for g in range(max_gamma + 1):
        tokens += power
        power *= a
        value = tokens / (g * cost + 1)
        if best_value is None or value > best_value:
            best, best_value = g, value
    return best


GRID_ALPHAS = [k / 20 for k in range(21)] + [0.33, 0.999]
GRID_COSTS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.99, 1.0, 2.0]


def test_optimal_gamma_is_the_exact_argmax_on_a_grid():
    """For every alpha on a grid and every cost c > 0, the exact (rational) argmax of S."""
    wrong = [
        (alpha, c, optimal_gamma(alpha, c), _exact_best_gamma(alpha, c, 64))
        for alpha in GRID_ALPHAS
        for c in GRID_COSTS
        if optimal_gamma(alpha, c) != _exact_best_gamma(alpha, c, 64)
    ]
    assert wrong == []


def _exact_expected_tokens(alpha: float, gamma: int) -> Fraction:
    """1 + a + ... + a^gamma in exact rational arithmetic (a is the float's exact value)."""
    a = Fraction(alpha)
    return sum((a**k for k in range(gamma + 1)), Fraction(0))


@PROPERTY
@given(ALPHAS, GAMMAS)
def test_expected_tokens_is_the_exact_geometric_sum(alpha, gamma):
    """Against exact rationals: no 0/0 at alpha = 1 and no cancellation just below it."""
    exact = _exact_expected_tokens(alpha, gamma)
    assert expected_tokens_per_step(alpha, gamma) == pytest.approx(float(exact), rel=EXACT)


@PROPERTY
@given(st.floats(min_value=0.0, max_value=0.99), GAMMAS)
def test_expected_tokens_matches_closed_form(alpha, gamma):
    closed = (1 - alpha ** (gamma + 1)) / (1 - alpha)
    assert expected_tokens_per_step(alpha, gamma) == pytest.approx(closed, rel=CLOSED_FORM_RTOL)


@PROPERTY
@given(GAMMAS)
def test_expected_tokens_at_alpha_one(gamma):
    assert expected_tokens_per_step(1.0, gamma) == gamma + 1


@PROPERTY
@given(ALPHAS, GAMMAS)
def test_expected_tokens_is_the_mean_of_the_law_of_n(alpha, gamma):
    """P(N = k) = a^(k-1) (1 - a) for k <= gamma, P(N = gamma + 1) = a^gamma: a law with mean E."""
    probs = [alpha ** (k - 1) * (1 - alpha) for k in range(1, gamma + 1)] + [alpha**gamma]
    assert sum(probs) == pytest.approx(1.0, abs=EXACT)
    mean = sum(k * pk for k, pk in enumerate(probs, start=1))
    assert expected_tokens_per_step(alpha, gamma) == pytest.approx(mean, rel=EXACT)


@PROPERTY
@given(ALPHAS, GAMMAS, COSTS)
def test_walltime_speedup_is_tokens_over_cost(alpha, gamma, c):
    expected = float(_exact_expected_tokens(alpha, gamma)) / (gamma * c + 1)
    assert walltime_speedup(alpha, gamma, c) == pytest.approx(expected, rel=EXACT)


@PROPERTY
@given(ALPHAS, COSTS, st.integers(0, 64))
def test_optimal_gamma_is_the_brute_force_argmax(alpha, c, max_gamma):
    best = optimal_gamma(alpha, c, max_gamma=max_gamma)
    assert 0 <= best <= max_gamma
    speedups = np.array([walltime_speedup(alpha, g, c) for g in range(max_gamma + 1)])
    # Ties (or float near-ties) between gammas are allowed: best must reach the maximum.
    assert speedups[best] >= speedups.max() * (1 - TIE_RTOL)


@PROPERTY
@given(st.floats(min_value=0.01, max_value=1.0), st.floats(min_value=0.0, max_value=0.99))
def test_speculating_pays_when_alpha_exceeds_c(alpha, c):
    """math.md: if alpha > c, gamma = 1 already gives (1 + alpha) / (1 + c) > 1."""
    if alpha <= c:
        c = alpha / 2
    best = optimal_gamma(alpha, c)
    assert best >= 1
    assert walltime_speedup(alpha, best, c) >= (1 + alpha) / (1 + c) * (1 - TIE_RTOL)


@PROPERTY
@given(ALPHAS, ALPHAS, GAMMAS)
def test_expected_tokens_grows_with_alpha_and_gamma(a1, a2, gamma):
    lo, hi = sorted((a1, a2))
    assert expected_tokens_per_step(lo, gamma) <= expected_tokens_per_step(hi, gamma)
    assert expected_tokens_per_step(lo, gamma) <= expected_tokens_per_step(lo, gamma + 1)
