"""Every bad input raises ValueError with a message that starts with the argument's name.

The app shows these messages to learners verbatim, so each test matches ``^<name>\\b`` plus a
fragment saying what is wrong.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from specviz import (
    acceptance_probs,
    acceptance_rate,
    expected_tokens_per_step,
    normalize,
    optimal_gamma,
    output_distribution,
    rejection_mass,
    residual,
    sample_counts,
    speculative_sample,
    walltime_speedup,
)
from specviz.one_token import total_variation

GOOD = [0.5, 0.5]

#: Every public function taking a pair (p, q), with valid other arguments.
PAIR_FUNCTIONS = {
    "acceptance_probs": acceptance_probs,
    "acceptance_rate": acceptance_rate,
    "rejection_mass": rejection_mass,
    "residual": residual,
    "output_distribution": output_distribution,
    "total_variation": total_variation,
    "speculative_sample": lambda p, q: speculative_sample(p, q, 10, seed=0),
    "sample_counts": lambda p, q: sample_counts(p, q, 10, seed=0),
}

#: (bad vector, fragment of the message), for p, q and normalize's weights alike.
BAD_VECTORS = {
    "2-D": ([[0.5, 0.5], [0.5, 0.5]], "1-D"),
    "scalar": (1.0, "1-D"),
    "empty": ([], "empty"),
    "NaN": ([0.5, math.nan], "NaN"),
    "inf": ([0.5, math.inf], "infinity"),
    "negative": ([1.5, -0.5], "negative"),
    "not numbers": (["a", "b"], "vector of numbers"),
    "object": ({"a": 1}, "vector of numbers"),
}

#: Vectors summing to 1 only approximately, beyond the core's 1e-6 tolerance.
NOT_SUMMING_TO_ONE = [[0.5, 0.4], [0.5, 0.6], [0.5, 0.5 - 2e-6], [2.0, 3.0]]


def _error(name: str, fragment: str = "") -> str:
    """Regex for a message that names ``name`` first and then says ``fragment``."""
    return rf"^{name}\b.*{fragment}"


@pytest.mark.parametrize("func", PAIR_FUNCTIONS.values(), ids=PAIR_FUNCTIONS.keys())
@pytest.mark.parametrize("bad", BAD_VECTORS.values(), ids=BAD_VECTORS.keys())
@pytest.mark.parametrize("which", ["p", "q"])
def test_bad_vector(func, bad, which):
    vector, fragment = bad
    args = (vector, GOOD) if which == "p" else (GOOD, vector)
    with pytest.raises(ValueError, match=_error(which, fragment)):
        func(*args)


@pytest.mark.parametrize("func", PAIR_FUNCTIONS.values(), ids=PAIR_FUNCTIONS.keys())
@pytest.mark.parametrize("vector", NOT_SUMMING_TO_ONE)
@pytest.mark.parametrize("which", ["p", "q"])
def test_vector_not_summing_to_one(func, vector, which):
    args = (vector, GOOD) if which == "p" else (GOOD, vector)
    with pytest.raises(ValueError, match=_error(which, "must sum to 1")):
        func(*args)


@pytest.mark.parametrize("func", PAIR_FUNCTIONS.values(), ids=PAIR_FUNCTIONS.keys())
def test_length_mismatch(func):
    with pytest.raises(ValueError, match=r"^p and q must have the same length"):
        func([0.5, 0.5], [0.2, 0.3, 0.5])


def test_sum_tolerance_accepts_rounding():
    # 1 + 4e-7 is inside the 1e-6 tolerance: accepted (and renormalised), unlike the cases above.
    assert acceptance_rate([0.5, 0.5 + 4e-7], GOOD) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("bad", BAD_VECTORS.values(), ids=BAD_VECTORS.keys())
def test_normalize_bad_weights(bad):
    vector, fragment = bad
    with pytest.raises(ValueError, match=_error("weights", fragment)):
        normalize(vector)


@pytest.mark.parametrize("weights", [[0, 0, 0], [0.0], np.zeros(5)])
def test_normalize_all_zero(weights):
    with pytest.raises(ValueError, match=r"^weights are all zero"):
        normalize(weights)


# --- theory arguments ----------------------------------------------------------------------------

ALPHA_FUNCTIONS = {
    "expected_tokens_per_step": lambda a: expected_tokens_per_step(a, 3),
    "walltime_speedup": lambda a: walltime_speedup(a, 3, 0.1),
    "optimal_gamma": lambda a: optimal_gamma(a, 0.1),
}
BAD_ALPHAS = [-0.1, 1.1, -1e-12, 1 + 1e-12, math.nan, math.inf, -math.inf, "abc", [0.5, 1.5]]


@pytest.mark.parametrize("func", ALPHA_FUNCTIONS.values(), ids=ALPHA_FUNCTIONS.keys())
@pytest.mark.parametrize("alpha", BAD_ALPHAS, ids=repr)
def test_bad_alpha(func, alpha):
    with pytest.raises(ValueError, match=_error("alpha")):
        func(alpha)


def test_optimal_gamma_wants_a_scalar_alpha():
    with pytest.raises(ValueError, match=_error("alpha", "single number")):
        optimal_gamma([0.5, 0.6], 0.1)


#: Not a whole number >= 0 (bools and strings are refused, not coerced).
BAD_COUNTS = [-1, 2.5, math.nan, math.inf, True, False, "3", None, 1 + 0j, np.float64(-2.0)]

GAMMA_FUNCTIONS = {
    "expected_tokens_per_step": lambda g: expected_tokens_per_step(0.5, g),
    "walltime_speedup": lambda g: walltime_speedup(0.5, g, 0.1),
}


@pytest.mark.parametrize("func", GAMMA_FUNCTIONS.values(), ids=GAMMA_FUNCTIONS.keys())
@pytest.mark.parametrize("gamma", [*BAD_COUNTS, 10_001], ids=repr)
def test_bad_gamma(func, gamma):
    with pytest.raises(ValueError, match=_error("gamma")):
        func(gamma)


@pytest.mark.parametrize("max_gamma", [*BAD_COUNTS, 10_001], ids=repr)
def test_bad_max_gamma(max_gamma):
    with pytest.raises(ValueError, match=_error("max_gamma")):
        optimal_gamma(0.5, 0.1, max_gamma=max_gamma)


COST_FUNCTIONS = {
    "walltime_speedup": lambda c: walltime_speedup(0.5, 3, c),
    "optimal_gamma": lambda c: optimal_gamma(0.5, c),
}


@pytest.mark.parametrize("func", COST_FUNCTIONS.values(), ids=COST_FUNCTIONS.keys())
@pytest.mark.parametrize("c", [-0.1, -1e-300, math.nan, math.inf, "abc", None, [0.1]], ids=repr)
def test_bad_cost(func, c):
    with pytest.raises(ValueError, match=_error("c")):
        func(c)


@pytest.mark.parametrize("value", ["0.5", True], ids=repr)
@pytest.mark.parametrize("name", ["alpha", "c"])
def test_strings_and_bools_are_not_numbers_for_alpha_and_c(name, value):
    """Consistency with n, gamma and seed, which refuse "3" and True instead of coercing them.

    alpha and c share their validators (as_alpha, as_cost) with every theory function.
    """
    args = {"alpha": 0.5, "gamma": 3, "c": 0.1, name: value}
    with pytest.raises(ValueError, match=_error(name)):
        walltime_speedup(**args)


def test_whole_numbers_of_any_numeric_type_are_valid():
    assert expected_tokens_per_step(0.5, 3.0) == 1.875
    assert expected_tokens_per_step(0.5, np.int8(3)) == 1.875
    assert optimal_gamma(0.5, 0.1, max_gamma=np.int64(1)) == 1


# --- sampler arguments ---------------------------------------------------------------------------

SAMPLERS = {"speculative_sample": speculative_sample, "sample_counts": sample_counts}


@pytest.mark.parametrize("sampler", SAMPLERS.values(), ids=SAMPLERS.keys())
@pytest.mark.parametrize("n", BAD_COUNTS, ids=repr)
def test_bad_n(sampler, n):
    with pytest.raises(ValueError, match=_error("n")):
        sampler(GOOD, GOOD, n, seed=0)


@pytest.mark.parametrize(
    ("sampler", "n"),
    [
        (speculative_sample, 50_000_001),  # ~40 bytes per draw: refused before allocating 2 GB
        (speculative_sample, 10**12),
        (sample_counts, 10**15 + 1),
        (sample_counts, 1e16),
        (sample_counts, 10**30),
    ],
)
def test_absurd_n(sampler, n):
    with pytest.raises(ValueError, match=_error("n", "too large")):
        sampler(GOOD, GOOD, n, seed=0)


@pytest.mark.parametrize("sampler", SAMPLERS.values(), ids=SAMPLERS.keys())
@pytest.mark.parametrize("seed", [-1, "abc", 1.5, 1.0, True, [1, 2]], ids=repr)
def test_bad_seed(sampler, seed):
    with pytest.raises(ValueError, match=_error("seed")):
        sampler(GOOD, GOOD, 10, seed=seed)
