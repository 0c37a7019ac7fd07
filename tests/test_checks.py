"""Every bad input raises ValueError with a message that starts with the argument's name.

The app shows these messages to learners verbatim, so each test matches ``^<name>\\b`` plus a
fragment saying what is wrong. The public functions come first; the last part checks the
validators of ``specviz/_checks.py`` (the one validation mechanism) directly.
``tests/test_fuzz.py`` throws a whole matrix of bad values at every public function.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from specviz import (
    expected_tokens_per_step,
    normalize,
    sample_counts,
    speculative_sample,
    walltime_speedup,
)
from specviz._checks import (
    SEED_LIMIT,
    alpha_values,
    choice,
    float_vector,
    generator,
    instance,
    mapping,
    prob_pair,
    prob_vector,
    real,
    real_array,
    seed_value,
    sequence,
    short,
    text,
    whole,
    whole_array,
)
from specviz.one_token import step, total_variation

GOOD = [0.5, 0.5]

#: Every public function taking a pair of laws, with valid other arguments, and the names of
#: its two law arguments (``total_variation`` compares any two laws: a, b).
PAIR_FUNCTIONS = {
    "step": (step, ("p", "q")),
    "total_variation": (total_variation, ("a", "b")),
    "speculative_sample": (lambda p, q: speculative_sample(p, q, 10, seed=0), ("p", "q")),
    "sample_counts": (lambda p, q: sample_counts(p, q, 10, seed=0), ("p", "q")),
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


@pytest.mark.parametrize("pair", PAIR_FUNCTIONS.values(), ids=PAIR_FUNCTIONS.keys())
@pytest.mark.parametrize("bad", BAD_VECTORS.values(), ids=BAD_VECTORS.keys())
@pytest.mark.parametrize("which", [0, 1], ids=["first", "second"])
def test_bad_vector(pair, bad, which):
    func, names = pair
    vector, fragment = bad
    args = (vector, GOOD) if which == 0 else (GOOD, vector)
    with pytest.raises(ValueError, match=_error(names[which], fragment)):
        func(*args)


@pytest.mark.parametrize("pair", PAIR_FUNCTIONS.values(), ids=PAIR_FUNCTIONS.keys())
@pytest.mark.parametrize("vector", NOT_SUMMING_TO_ONE)
@pytest.mark.parametrize("which", [0, 1], ids=["first", "second"])
def test_vector_not_summing_to_one(pair, vector, which):
    func, names = pair
    args = (vector, GOOD) if which == 0 else (GOOD, vector)
    with pytest.raises(ValueError, match=_error(names[which], "must sum to 1")):
        func(*args)


@pytest.mark.parametrize("pair", PAIR_FUNCTIONS.values(), ids=PAIR_FUNCTIONS.keys())
def test_length_mismatch(pair):
    func, (first, second) = pair
    with pytest.raises(ValueError, match=rf"^{first} and {second} must have the same length"):
        func([0.5, 0.5], [0.2, 0.3, 0.5])


def test_sum_tolerance_accepts_rounding():
    # 1 + 4e-7 is inside the 1e-6 tolerance: accepted (and renormalised), unlike the cases above.
    assert step([0.5, 0.5 + 4e-7], GOOD).alpha == pytest.approx(1.0, abs=1e-6)


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
}
BAD_ALPHAS = [-0.1, 1.1, -1e-12, 1 + 1e-12, math.nan, math.inf, -math.inf, "abc", [0.5, 1.5]]


@pytest.mark.parametrize("func", ALPHA_FUNCTIONS.values(), ids=ALPHA_FUNCTIONS.keys())
@pytest.mark.parametrize("alpha", BAD_ALPHAS, ids=repr)
def test_bad_alpha(func, alpha):
    with pytest.raises(ValueError, match=_error("alpha")):
        func(alpha)


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


COST_FUNCTIONS = {
    "walltime_speedup": lambda c: walltime_speedup(0.5, 3, c),
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

    alpha and c share their validators (``_checks.alpha_values``, ``_checks.real``) with every
    theory function.
    """
    args = {"alpha": 0.5, "gamma": 3, "c": 0.1, name: value}
    with pytest.raises(ValueError, match=_error(name)):
        walltime_speedup(**args)


def test_whole_numbers_of_any_numeric_type_are_valid():
    assert expected_tokens_per_step(0.5, 3.0) == 1.875
    assert expected_tokens_per_step(0.5, np.int8(3)) == 1.875
    assert expected_tokens_per_step(0.5, np.int64(1)) == 1.5


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


# --- the validators themselves (specviz._checks) -------------------------------------------------


#: Values no number-taking validator accepts: text, bytes, bools, complex numbers, dates, objects.
class Opaque:
    """Something that is not a number, named the same in every process (test ids must be)."""

    def __repr__(self) -> str:
        return "Opaque()"


NOT_NUMBERS = ["3", b"3", "", True, np.bool_(False), 1 + 2j, np.datetime64("2020-01-01"), Opaque()]


@pytest.mark.parametrize("value", [*NOT_NUMBERS, None, {"a": 1}], ids=repr)
def test_real_array_refuses_what_is_not_a_real_number(value):
    with pytest.raises(ValueError, match=_error("x")):
        real_array(value, "x")


@pytest.mark.parametrize("value", [10**400, [10**400, 1], -(10**400)], ids=short)
def test_real_array_refuses_numbers_beyond_a_float(value):
    with pytest.raises(ValueError, match=_error("x", "too large")):
        real_array(value, "x")


def test_real_array_keeps_nan_for_its_callers_and_converts_to_float64():
    out = real_array([1, 2**63, math.nan], "x")
    assert out.dtype == np.float64 and math.isnan(out[2])


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (math.nan, "finite"),
        (math.inf, "finite"),
        (10**400, "too large"),
        ([0.5], "number"),
        (np.array([0.5]), "single number"),
        (-0.1, r"lie in \[0, 1\]"),
        *((v, "number") for v in [*NOT_NUMBERS, None, [0.5, "a"]]),
    ],
    ids=short,
)
def test_real(value, fragment):
    with pytest.raises(ValueError, match=_error("x", fragment)):
        real(value, "x", low=0.0, high=1.0)


def test_real_ends_can_be_open():
    assert real(0.0, "x", low=0.0) == 0.0
    with pytest.raises(ValueError, match=_error("x", r"\(0, 1\]")):
        real(0.0, "x", low=0.0, high=1.0, low_open=True)
    assert real(np.float32(0.5), "x") == 0.5 and real(np.array(0.25), "x") == 0.25


@pytest.mark.parametrize("value", [*BAD_COUNTS, 2**63 + 1, 10**400, 1e300, -(2**63)], ids=repr)
def test_whole(value):
    with pytest.raises(ValueError, match=_error("n")):
        whole(value, "n", maximum=2**63)


def test_whole_accepts_whole_numbers_of_any_numeric_type():
    assert whole(3.0, "n") == 3 and whole(np.int8(3), "n") == 3 and whole(np.float64(3), "n") == 3
    assert type(whole(np.uint64(2**63), "n")) is int
    with pytest.raises(ValueError, match=_error("n", ">= 1")):
        whole(0, "n", minimum=1)
    with pytest.raises(ValueError, match=_error("n", "too large")):
        whole(11, "n", maximum=10)


@pytest.mark.parametrize(
    "value", [[1.5], [math.nan], [-1], [11], "3", [True], [1 + 0j], [[1, "a"]]], ids=repr
)
def test_whole_array(value):
    with pytest.raises(ValueError, match=_error("counts")):
        whole_array(value, "counts", maximum=10)


def test_whole_array_gives_int64():
    out = whole_array([[0, 10], [3.0, 4]], "counts", maximum=10)
    assert out.dtype == np.int64 and out.tolist() == [[0, 10], [3, 4]]


def test_choice_compares_by_equality_not_truthiness_and_returns_the_option():
    assert choice(30.0, "quality", (25, 30)) == 30 and type(choice(30.0, "q", (25, 30))) is int
    assert choice(None, "method", (None, "a")) is None
    for bad in [1, 0, "", "A", np.array(["a"]), [None], math.nan]:
        with pytest.raises(ValueError, match=_error("key", "must be one of")):
            choice(bad, "key", ("a", True, False, None))
    with pytest.raises(ValueError, match=_error("flag")):
        choice(1, "flag", (False, True))  # 1 == True, but 1 is not a bool


@pytest.mark.parametrize("value", [[0.5, 0.5], (0.5, 0.5), np.array([0.5, 0.5])], ids=repr)
def test_prob_vector_accepts_sequences_and_arrays(value):
    assert prob_vector(value, "p").tolist() == [0.5, 0.5]


@pytest.mark.parametrize("bad", BAD_VECTORS.values(), ids=BAD_VECTORS.keys())
def test_float_and_prob_vectors(bad):
    vector, fragment = bad
    for validator in (float_vector, prob_vector):
        with pytest.raises(ValueError, match=_error("w", fragment)):
            validator(vector, "w")


def test_prob_vector_renormalises_beyond_rounding_only():
    kept = [0.1, 0.2, 0.7 + 1e-15]
    assert prob_vector(kept, "p").tolist() == kept  # off by rounding only: kept bit for bit
    assert prob_vector([0.5, 0.5 + 4e-7], "p").sum() == pytest.approx(1, abs=1e-15)


def test_prob_pair_names_each_vector_and_checks_lengths():
    with pytest.raises(ValueError, match=_error("q", "NaN")):
        prob_pair(GOOD, [math.nan, 1])
    with pytest.raises(ValueError, match=r"^p and q must have the same length"):
        prob_pair(GOOD, [1.0])


@pytest.mark.parametrize("alpha", [*BAD_ALPHAS, *NOT_NUMBERS, None, 10**400], ids=short)
def test_alpha_values(alpha):
    with pytest.raises(ValueError, match=_error("alpha")):
        alpha_values(alpha)


def test_alpha_values_clip_rounding_only():
    assert alpha_values(1 + 1e-15) == 1.0 and alpha_values(-1e-15) == 0.0
    assert alpha_values([0.25, 0.5]).tolist() == [0.25, 0.5]


@pytest.mark.parametrize("seed", [*BAD_COUNTS, 1.0, 3.5, SEED_LIMIT + 1, -(2**63), [1]], ids=repr)
def test_seed_value_wants_a_whole_number_not_a_float_or_bool(seed):
    with pytest.raises(ValueError, match=_error("seed")):
        seed_value(seed)


def test_seed_value_and_generator_accept_seeds_up_to_the_limit():
    assert seed_value(np.uint64(SEED_LIMIT)) == SEED_LIMIT
    with pytest.raises(ValueError, match=_error("seed", "too large")):
        seed_value(11, maximum=10)
    rng = np.random.default_rng(1)
    assert generator(rng) is rng
    assert isinstance(generator(None), np.random.Generator)
    assert generator(5).random() == np.random.default_rng(5).random()
    with pytest.raises(ValueError, match=_error("seed")):
        generator(2.0)


def test_text_instance_mapping_sequence():
    assert text("a", "name") == "a"
    for bad in [None, b"a", 3, ["a"]]:
        with pytest.raises(ValueError, match=_error("name", "text")):
            text(bad, "name")
    assert text("", "name") == ""
    with pytest.raises(ValueError, match=_error("name", "at most 3")):
        text("abcd", "name", max_chars=3)
    with pytest.raises(ValueError, match=_error("current", "a Scenario")):
        instance(3, "current", dict, "a Scenario")
    assert mapping({}, "query") == {}
    for bad in [None, [], "a=1", [("a", 1)]]:
        with pytest.raises(ValueError, match=_error("query", "mapping")):
            mapping(bad, "query")
    assert sequence([1, 2], "choices", minimum=1) == (1, 2)
    for bad in [None, "ab", np.array([1, 2]), {1: 2}, []]:
        with pytest.raises(ValueError, match=_error("choices")):
            sequence(bad, "choices", minimum=1)


def test_short_cuts_long_reprs_and_survives_a_broken_repr():
    class Broken:
        def __repr__(self):
            raise RuntimeError

    assert len(short("x" * 500)) == 60 and short("x" * 500).endswith("...")
    assert short(Broken()) == "<Broken>"
