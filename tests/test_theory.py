"""Leviathan et al.'s formulas for gamma drafts per target call: hand-derived values, properties.

E(alpha, gamma) = (1 - alpha^(gamma+1)) / (1 - alpha) tokens per target call (gamma + 1 at
alpha = 1), S = E / (gamma c + 1) walltime improvement.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import expected_tokens_per_step, walltime_speedup
from specviz.limits import MAX_GAMMA
from specviz.theory import break_even_alpha, speedup

#: Exact quantities: a sum of at most ~65 powers in [0, 1] carries rounding far below 1e-12.
EXACT = 1e-12

#: Relative tolerance against the closed form (1 - a^(g+1)) / (1 - a). That form loses about
#: eps / (1 - a) to cancellation, so away from a = 1 (a <= .99) it is good to ~1e-14.
CLOSED_FORM_RTOL = 1e-12

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


def test_gamma_limit_comes_from_limits():
    assert MAX_GAMMA == 10_000
    with pytest.raises(ValueError, match="gamma"):
        expected_tokens_per_step(0.5, MAX_GAMMA + 1)


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
@given(st.floats(min_value=0.01, max_value=1.0), st.floats(min_value=0.0, max_value=0.99))
def test_speculating_pays_when_alpha_exceeds_c(alpha, c):
    """math.md: if alpha > c, gamma = 1 already gives (1 + alpha) / (1 + c) > 1."""
    if alpha <= c:
        c = alpha / 2
    assert walltime_speedup(alpha, 1, c) == pytest.approx((1 + alpha) / (1 + c), rel=EXACT)
    assert walltime_speedup(alpha, 1, c) >= 1  # > 1 exactly; 1 + alpha may round to 1 + c


@PROPERTY
@given(ALPHAS, ALPHAS, GAMMAS)
def test_expected_tokens_grows_with_alpha_and_gamma(a1, a2, gamma):
    lo, hi = sorted((a1, a2))
    assert expected_tokens_per_step(lo, gamma) <= expected_tokens_per_step(hi, gamma)
    assert expected_tokens_per_step(lo, gamma) <= expected_tokens_per_step(lo, gamma + 1)


@PROPERTY
@given(st.integers(min_value=1, max_value=64), st.floats(min_value=0.0, max_value=0.999))
def test_break_even_alpha_is_where_the_speedup_crosses_one(gamma, c):
    """Below the break-even α speculating is slower than plain decoding, above it faster."""
    even = break_even_alpha(gamma, c)
    assert even is not None and 0.0 <= even <= 1.0
    assert walltime_speedup(even, gamma, c) == pytest.approx(1.0, abs=1e-12)
    if even > 1e-9:
        assert walltime_speedup(even * (1 - 1e-6), gamma, c) < 1.0
    assert break_even_alpha(gamma, min(0.999, c + 0.01)) >= even


@pytest.mark.parametrize("c", [0.0, 0.01, 0.1, 0.3, 0.5, 0.9])
def test_break_even_alpha_with_one_guess_is_the_cost(c):
    """γ = 1: (1 + α) / (1 + c) = 1 exactly at α = c."""
    assert break_even_alpha(1, c) == pytest.approx(c, abs=1e-12)


@pytest.mark.parametrize("c", [1.0, 2.5])
def test_no_draft_pays_when_a_guess_costs_a_target_call(c):
    assert break_even_alpha(4, c) is None


@pytest.mark.parametrize(("gamma", "c"), [(0, 0.1), (4, -0.1), (4, float("nan")), ("4", 0.1)])
def test_break_even_alpha_refuses_bad_input(gamma, c):
    with pytest.raises(ValueError):
        break_even_alpha(gamma, c)
