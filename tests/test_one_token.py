"""Exact one-token quantities: hand-derived cases, a long tail, and hypothesis properties.

Notation as in the core: ``p`` is the target, ``q`` the draft. Every reference value below is
derived by hand (or, for the Zipf tail, by an independent pure-Python loop), never copied from the
core.
"""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest
from helpers import REPO as REPO_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from specviz import (
    OneTokenStep,
    normalize,
    step,
)
from specviz._checks import prob_pair
from specviz.limits import ROUNDING
from specviz.one_token import total_variation

#: Tolerance for exact quantities: float64 sums over at most a few thousand terms in [0, 1] carry a
#: rounding error of order 1e-13 at worst, so 1e-12 catches any real mistake with no false alarms.
EXACT = 1e-12

#: The design doc rounds its temperature example to three decimals.
DOC_ROUNDING = 5e-4

#: Property tests: no deadline (first calls pay numpy's warm-up) and a fixed example stream so the
#: suite is as deterministic as the fixed-seed statistics; 200 examples take about a second a test.
PROPERTY = settings(
    deadline=None,
    max_examples=200,
    derandomize=True,
    suppress_health_check=[HealthCheck.filter_too_much],
)


def _geometric_tail(size: int, r: float) -> tuple[np.ndarray, np.ndarray]:
    """A long geometric tail and the same tail shifted by one token (closed-form case below).

    ``p_i = c r^i`` for ``i = 0..V-2`` and ``p_{V-1} = 0``; ``q_0 = 0`` and ``q_i = c r^(i-1)``
    for ``i = 1..V-1``; both sum to ``c (1 - r^(V-1)) / (1 - r) = 1`` with
    ``c = (1 - r) / (1 - r^(V-1))``.
    """
    c = (1 - r) / (1 - r ** (size - 1))
    p = np.zeros(size)
    q = np.zeros(size)
    p[:-1] = c * r ** np.arange(size - 1)
    q[1:] = c * r ** np.arange(size - 1)
    return p, q


GEO_SIZE, GEO_R = 4000, 0.998
GEO_P, GEO_Q = _geometric_tail(GEO_SIZE, GEO_R)
# min(p_i, q_i) = 0 at i = 0 (q = 0) and i = V-1 (p = 0), and c r^i in between (r < 1), so
# alpha = c (r + ... + r^(V-2)) = r (1 - r^(V-2)) / (1 - r^(V-1)); Z = 1 - alpha = c = p_0 (the only
# excess is token 0, which q never proposes), hence the residual is the one-hot at token 0.
GEO_ALPHA = GEO_R * (1 - GEO_R ** (GEO_SIZE - 2)) / (1 - GEO_R ** (GEO_SIZE - 1))
GEO_ACCEPT = np.r_[1.0, np.full(GEO_SIZE - 2, GEO_R), 0.0]  # vacuous 1, p/q = r, filtered 0
GEO_RESIDUAL = np.r_[1.0, np.zeros(GEO_SIZE - 1)]

# name: (p, q, alpha, residual, acceptance probabilities), all derived by hand.
CASES = {
    # min = [.1,.2,.2,.1] -> alpha .6; p - q = [.3,.1,-.1,-.3] -> Z .4, r = [.3,.1,0,0]/.4;
    # a = min(1, p/q) = [1, 1, .2/.3, .1/.4].
    "design-doc pair": (
        [0.4, 0.3, 0.2, 0.1],
        [0.1, 0.2, 0.3, 0.4],
        0.6,
        [0.75, 0.25, 0, 0],
        [1, 1, 2 / 3, 1 / 4],
    ),
    # p == q: everything accepted, Z = 0, residual all zeros (never NaN).
    "p == q": ([0.5, 0.25, 0.25], [0.5, 0.25, 0.25], 1.0, [0, 0, 0], [1, 1, 1]),
    # Disjoint supports: alpha 0, every proposal bounced, residual = p; a = 1 where q = 0
    # (vacuous), 0 where p = 0 < q.
    "disjoint": ([0.5, 0.5, 0, 0], [0, 0, 0.25, 0.75], 0.0, [0.5, 0.5, 0, 0], [1, 1, 0, 0]),
    # q misses token 2: min = [.5,.3,0] -> alpha .8; the only excess is token 2 (.2 - 0) -> r = e_2;
    # a = [.5/.6, .3/.4, 1 (never proposed)].
    "q misses a token": ([0.5, 0.3, 0.2], [0.6, 0.4, 0], 0.8, [0, 0, 1], [5 / 6, 3 / 4, 1]),
    # p filters token 2: min = [.5,.3,0] -> alpha .8; excess [.1,.1,0] -> Z .2, r = [.5,.5,0];
    # a = [1, 1, 0] (p = 0 < q: always rejected).
    "p filters a token": ([0.6, 0.4, 0], [0.5, 0.3, 0.2], 0.8, [0.5, 0.5, 0], [1, 1, 0]),
    "one-hot, same": ([0, 1, 0], [0, 1, 0], 1.0, [0, 0, 0], [1, 1, 1]),
    # One-hot on different tokens: alpha 0, r = p; a = [1 (q = 0), 1 (q = 0), 0 (p = 0)].
    "one-hot, different": ([1, 0, 0], [0, 0, 1], 0.0, [1, 0, 0], [1, 1, 0]),
    "single token": ([1.0], [1.0], 1.0, [0.0], [1.0]),
    "geometric tail": (GEO_P, GEO_Q, GEO_ALPHA, GEO_RESIDUAL, GEO_ACCEPT),
}


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request):
    p, q, alpha, r, a = CASES[request.param]
    return np.asarray(p, float), np.asarray(q, float), alpha, np.asarray(r, float), np.asarray(a)


def test_alpha(case):
    p, q, alpha, _, _ = case
    assert step(p, q).alpha == pytest.approx(alpha, abs=EXACT)


def test_z_is_one_minus_alpha(case):
    p, q, alpha, _, _ = case
    assert step(p, q).z == pytest.approx(1 - alpha, abs=EXACT)


def test_total_variation_is_one_minus_alpha(case):
    p, q, alpha, _, _ = case
    assert total_variation(p, q) == pytest.approx(1 - alpha, abs=EXACT)


def test_residual(case):
    p, q, _, r, _ = case
    got = step(p, q).residual
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, r, rtol=0, atol=EXACT)


def test_accept(case):
    p, q, _, _, a = case
    np.testing.assert_allclose(step(p, q).accept, a, rtol=0, atol=EXACT)


def test_output_is_p(case):
    p, q, _, _, _ = case
    out = step(p, q).output
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, p, rtol=0, atol=EXACT)


def test_total_variation_direct():
    # |p - q| = [.3, .1, .1, .3] on the design-doc pair: half of .8 is .4.
    assert total_variation([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]) == pytest.approx(
        0.4, abs=EXACT
    )


def test_inputs_are_not_mutated():
    p = np.array([0.4, 0.3, 0.2, 0.1])
    q = np.array([0.1, 0.2, 0.3, 0.4])
    step(p, q)
    np.testing.assert_array_equal(p, [0.4, 0.3, 0.2, 0.1])
    np.testing.assert_array_equal(q, [0.1, 0.2, 0.3, 0.4])


def test_zipf_tail_against_python_loop():
    """Thousands of tokens, Zipf-like p and a reversed, flatter Zipf q, vs a plain fsum loop."""
    size = 3000
    p = normalize([1 / (i + 1) ** 1.1 for i in range(size)])
    q = normalize([1 / (size - i) ** 0.9 for i in range(size)])
    pl, ql = p.tolist(), q.tolist()
    alpha = math.fsum(min(a, b) for a, b in zip(pl, ql, strict=True))
    excess = [max(0.0, a - b) for a, b in zip(pl, ql, strict=True)]
    z = math.fsum(excess)
    ratio = [1.0 if b == 0 else min(1.0, a / b) for a, b in zip(pl, ql, strict=True)]
    tv = 0.5 * math.fsum(abs(a - b) for a, b in zip(pl, ql, strict=True))

    s = step(p, q)
    assert s.alpha == pytest.approx(alpha, abs=EXACT)
    assert s.z == pytest.approx(z, abs=EXACT)
    assert total_variation(p, q) == pytest.approx(tv, abs=EXACT)
    np.testing.assert_allclose(s.residual, [e / z for e in excess], rtol=0, atol=EXACT)
    np.testing.assert_allclose(s.accept, ratio, rtol=0, atol=EXACT)
    np.testing.assert_allclose(s.output, p, rtol=0, atol=EXACT)


def _softmax(logits, temperature):
    z = np.asarray(logits, float) / temperature
    w = np.exp(z - z.max())
    return w / w.sum()


@pytest.mark.parametrize(("temperature", "alpha"), [(1.0, 0.533), (0.5, 0.240), (2.0, 0.747)])
def test_temperature_example_from_design_doc(temperature, alpha):
    """math.md: target logits [2, 1, .5, -1], draft [1, 2, 0, .8], same temperature on both."""
    p = _softmax([2, 1, 0.5, -1], temperature)
    q = _softmax([1, 2, 0, 0.8], temperature)
    s = step(p, q)
    assert s.alpha == pytest.approx(alpha, abs=DOC_ROUNDING)
    np.testing.assert_allclose(s.output, p, rtol=0, atol=EXACT)


def test_vectors_equal_up_to_rounding_are_equal():
    """p and q one ulp apart are the same law written twice (the one rounding rule): Z is 0
    exactly, alpha 1 exactly and the residual all zeros — not a one-hot bucket made of rounding
    noise. (Before the rule, Z was 2^-54 here and r the one-hot e_0.)"""
    # Dyadic entries, so both vectors sum to exactly 1 and the core's renormalisation is a no-op:
    # p - q = [2^-54, -2^-54, 0], far below ROUNDING.
    tiny = 2.0**-54
    p = np.array([0.25, 0.25, 0.5])
    q = np.array([0.25 - tiny, 0.25 + tiny, 0.5])
    s = step(p, q)
    assert s.z == 0.0
    assert s.alpha == 1.0
    assert total_variation(p, q) == 0.0
    np.testing.assert_array_equal(s.residual, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(s.accept, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(s.balance, [0, 0, 0])
    np.testing.assert_allclose(s.output, p, rtol=0, atol=EXACT)


def test_a_difference_just_above_rounding_is_real():
    """Just above ROUNDING the two laws differ: the token is under-sampled and fills the bucket."""
    gap = 4 * ROUNDING
    p = np.array([0.5 + gap, 0.5 - gap])
    q = np.array([0.5, 0.5])
    s = step(p, q)
    np.testing.assert_array_equal(s.balance, [-1, 1])
    assert s.z == pytest.approx(gap, rel=1e-3)
    np.testing.assert_array_equal(s.residual, [1.0, 0.0])


def test_probabilities_are_renormalised_within_tolerance():
    # Sums to 1 + 4e-7, inside the core's 1e-6 tolerance: used as p / sum(p).
    p = np.array([0.5, 0.5 + 4e-7])
    out = step(p, [0.5, 0.5]).output
    assert out.sum() == pytest.approx(1.0, abs=EXACT)
    np.testing.assert_allclose(out, p / p.sum(), rtol=0, atol=EXACT)


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ([1, 1, 2], [0.25, 0.25, 0.5]),
        ([0, 3, 0, 1], [0, 0.75, 0, 0.25]),  # zeros stay exactly zero
        ([7], [1.0]),
        ([1e-300, 3e-300], [0.25, 0.75]),  # tiny but positive weights
        ([5e-324, 5e-324], [0.5, 0.5]),  # subnormal weights
        ([1e308, 1e308], [0.5, 0.5]),  # finite weights whose float sum overflows
    ],
)
def test_normalize(weights, expected):
    out = normalize(weights)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, expected, rtol=0, atol=EXACT)


#: Every core module whose docstrings show an example (found, not listed: a new one is run too).
EXAMPLES = sorted(
    ".".join(path.relative_to(REPO_ROOT).with_suffix("").parts)
    for path in (REPO_ROOT / "specviz").rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


@pytest.mark.parametrize("name", EXAMPLES)
def test_docstring_examples_hold(name):
    """The core's docstrings show learners examples; they must print what the code returns."""
    result = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0 and result.failed == 0


# --- hypothesis properties -----------------------------------------------------------------------

#: Weights: many exact zeros, ordinary magnitudes, and a few tiny ones (far below the others).
WEIGHT = st.one_of(
    st.just(0.0),
    st.floats(min_value=1e-3, max_value=1e3),
    st.floats(min_value=1e-300, max_value=1e-250),
)


def weight_vectors(size: int):
    return hnp.arrays(np.float64, size, elements=WEIGHT).filter(lambda w: w.sum() > 0)


@st.composite
def prob_pairs(draw, max_size=50):
    """(p, q) of a common length 1..max_size, each normalized; sometimes q == p or a tweak of p."""
    size = draw(st.integers(1, max_size))
    p = normalize(draw(weight_vectors(size)))
    how = draw(st.sampled_from(["independent", "equal", "tweaked"]))
    if how == "independent":
        return p, normalize(draw(weight_vectors(size)))
    w = p.copy()
    if how == "tweaked":  # q differs from p on one token only
        w[draw(st.integers(0, size - 1))] = draw(WEIGHT)
    return p, (normalize(w) if w.sum() > 0 else p.copy())


def _as_core_sees_them(p, q):
    """The core renormalises an input whose sum is off by more than rounding (see
    ``_checks.prob_vector``), which can move entries by an ulp; exact support statements
    (p <= q, p == 0) refer to the vectors the core works with."""
    return prob_pair(p, q)


@PROPERTY
@given(prob_pairs())
def test_law_and_identities(pq):
    """Output law is p; alpha is symmetric, equals 1 - TV, and alpha + Z = 1."""
    p, q = pq
    s = step(p, q)
    np.testing.assert_allclose(s.output, p, rtol=0, atol=EXACT)
    alpha = s.alpha
    assert -EXACT <= alpha <= 1 + EXACT
    assert alpha == pytest.approx(step(q, p).alpha, abs=EXACT)
    assert alpha == pytest.approx(1 - total_variation(p, q), abs=EXACT)
    assert alpha + s.z == pytest.approx(1.0, abs=EXACT)


@PROPERTY
@given(prob_pairs())
def test_residual_and_acceptance_live_where_they_should(pq):
    """r is a distribution on the under-sampled tokens (zeros if Z = 0); a is in [0, 1], is 1 where
    p >= q (vacuously where q = 0) or where p and q agree up to rounding, 0 where p = 0 and q is
    more than rounding, and q * a = min(p, q)."""
    p, q = _as_core_sees_them(*pq)
    s = step(*pq)
    r = s.residual
    assert r.shape == p.shape
    assert np.isfinite(r).all()
    assert (r >= 0).all()
    assert (r[p <= q] == 0).all()
    if s.refill.any():
        assert r.sum() == pytest.approx(1.0, abs=EXACT)
    else:
        assert not r.any()
    if s.z == 0:
        assert not r.any()

    a = s.accept
    assert ((a >= 0) & (a <= 1)).all()
    assert (a[p >= q] == 1).all()
    # The one rounding rule: a gap of at most 1e-12 is no gap — except where the target forbids
    # the word (p = 0): a proposal of it, however rare, is always rejected.
    assert (a[(np.abs(p - q) <= ROUNDING) & (p > 0)] == 1).all()
    assert (a[(p == 0) & (q > 0)] == 0).all()
    np.testing.assert_allclose(q * a, np.minimum(p, q), rtol=0, atol=EXACT)


@PROPERTY
@given(st.integers(1, 50).flatmap(weight_vectors))
def test_normalize_properties(weights):
    """Sums to 1, keeps exactly the zero pattern, and ignores the overall scale."""
    out = normalize(weights)
    assert out.sum() == pytest.approx(1.0, abs=EXACT)
    np.testing.assert_array_equal(out == 0, weights == 0)
    np.testing.assert_allclose(normalize(weights * 8.0), out, rtol=0, atol=EXACT)


# --- the one-token step: every field at once ---------------------------------------------------

DESIGN_P = [0.4, 0.3, 0.2, 0.1]
DESIGN_Q = [0.1, 0.2, 0.3, 0.4]


def test_step_fields_on_the_design_doc_pair():
    """Every field by hand: min(p, q) = [.1, .2, .2, .1] (alpha .6), p - q = [.3, .1, -.1, -.3]
    (Z .4, r = [.3, .1, 0, 0] / .4), a = [1, 1, 2/3, 1/4]; tokens 0 and 1 are under-sampled (-1),
    2 and 3 over-sampled (+1)."""
    s = step(DESIGN_P, DESIGN_Q)
    assert isinstance(s, OneTokenStep)
    assert s.size == 4
    np.testing.assert_array_equal(s.p, DESIGN_P)
    np.testing.assert_array_equal(s.q, DESIGN_Q)
    np.testing.assert_allclose(s.accept, [1, 1, 2 / 3, 1 / 4], rtol=0, atol=EXACT)
    np.testing.assert_allclose(s.kept, [0.1, 0.2, 0.2, 0.1], rtol=0, atol=EXACT)
    np.testing.assert_allclose(s.bounced, [0, 0, 0.1, 0.3], rtol=0, atol=EXACT)
    np.testing.assert_allclose(s.refill, [0.3, 0.1, 0, 0], rtol=0, atol=EXACT)
    np.testing.assert_allclose(s.residual, [0.75, 0.25, 0, 0], rtol=0, atol=EXACT)
    np.testing.assert_array_equal(s.balance, [-1, -1, 1, 1])
    assert np.issubdtype(s.balance.dtype, np.integer)
    assert s.alpha == pytest.approx(0.6, abs=EXACT)
    assert s.z == pytest.approx(0.4, abs=EXACT)
    np.testing.assert_allclose(s.output, DESIGN_P, rtol=0, atol=EXACT)
    # A rejection draws from the residual's weights (Z > 0).
    np.testing.assert_array_equal(s.bucket_weights, s.refill)


def test_bucket_weights_fall_back_to_p_when_the_bucket_is_empty():
    """Z = 0: nothing is ever rejected; the weights a sampler would use are p, never all zeros."""
    s = step([0.5, 0.25, 0.25], [0.5, 0.25, 0.25])
    assert s.z == 0.0 and s.alpha == 1.0
    np.testing.assert_array_equal(s.residual, [0, 0, 0])
    np.testing.assert_array_equal(s.bucket_weights, s.p)


def test_step_is_frozen_and_its_arrays_read_only():
    s = step(DESIGN_P, DESIGN_Q)
    for name in ("p", "q", "accept", "kept", "bounced", "refill", "residual", "balance"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(s, name)[0] = 0
    with pytest.raises(AttributeError):
        s.alpha = 1.0  # type: ignore[misc]


def test_step_copies_its_inputs():
    p, q = np.array(DESIGN_P), np.array(DESIGN_Q)
    s = step(p, q)
    p[0] = q[0] = 0.7
    np.testing.assert_array_equal(s.p, DESIGN_P)
    np.testing.assert_array_equal(s.q, DESIGN_Q)


@pytest.mark.parametrize(
    ("p", "q"), [([0.5, 0.6], [0.5, 0.5]), ([0.5, 0.5], [1.0]), ("ab", [0.5, 0.5])]
)
def test_step_refuses_bad_pairs(p, q):
    with pytest.raises(ValueError, match=r"^[pq]\b"):
        step(p, q)


@PROPERTY
@given(prob_pairs())
def test_step_identities(pq):
    """kept + bounced = q; kept + refill = p off the balanced tokens (within rounding on them);
    alpha + Z = 1; the output is p; balance is the sign of q - p beyond rounding."""
    p, q = _as_core_sees_them(*pq)
    s = step(*pq)
    np.testing.assert_array_equal(s.p, p)
    np.testing.assert_array_equal(s.q, q)
    np.testing.assert_allclose(s.kept + s.bounced, q, rtol=0, atol=EXACT)
    real = s.balance != 0
    np.testing.assert_allclose((s.kept + s.refill)[real], p[real], rtol=0, atol=EXACT)
    assert (np.abs(s.kept + s.refill - p)[~real] <= ROUNDING + EXACT).all()
    assert s.alpha + s.z == pytest.approx(1.0, abs=EXACT)
    np.testing.assert_allclose(s.output, p, rtol=0, atol=EXACT)
    np.testing.assert_array_equal(s.balance[q - p > ROUNDING], 1)
    np.testing.assert_array_equal(s.balance[p - q > ROUNDING], -1)
    np.testing.assert_array_equal(s.balance[(np.abs(p - q) <= ROUNDING) & (p > 0)], 0)
    np.testing.assert_array_equal(s.balance[(p == 0) & (q > 0)], 1)  # forbidden: always bounced
    # Nothing is bounced or refilled on a balanced token; the bucket lives where p > q.
    assert not s.bounced[~real].any() and not s.refill[~real].any()
    assert (s.refill[s.balance >= 0] == 0).all() and (s.bounced[s.balance <= 0] == 0).all()
    for name in ("p", "q", "accept", "kept", "bounced", "refill", "residual", "balance"):
        arr = getattr(s, name)
        assert arr.shape == p.shape and not arr.flags.writeable, name


@PROPERTY
@given(prob_pairs())
def test_total_variation_is_the_steps_z(pq):
    assert total_variation(*pq) == pytest.approx(step(*pq).z, abs=EXACT)


# --- the one rounding rule ---------------------------------------------------------------------


def test_identities_hold_with_near_balanced_tokens():
    """alpha + Z = 1, alpha = 1 - TV and alpha(p, q) = alpha(q, p) within 1e-12 (documented by
    the core: "Z = 1 - alpha") also when two tokens differ by 9e-13 each — balanced by the
    rounding rule — while the others differ for real (Z = 1e-6)."""
    p = np.array([0.3, 0.2, 0.25, 0.25])
    q = np.array([0.3 - 1e-6, 0.2 + 1e-6 - 1.8e-12, 0.25 + 9e-13, 0.25 + 9e-13])
    s = step(p, q)
    np.testing.assert_array_equal(s.balance, [-1, 1, 0, 0])
    assert s.alpha + s.z == pytest.approx(1.0, abs=EXACT)
    assert s.alpha == pytest.approx(1 - total_variation(p, q), abs=EXACT)
    assert s.alpha == pytest.approx(step(q, p).alpha, abs=EXACT)


@PROPERTY
@given(st.integers(1, 50).flatmap(weight_vectors))
def test_a_law_against_itself_is_exact(weights):
    """alpha of (p, p) is exactly 1.0 (it was 0.9999999999999999 for some p) and the bucket
    exactly empty."""
    p = normalize(weights)
    s = step(p, p)
    assert s.alpha == 1.0
    assert s.z == 0.0
    assert total_variation(p, p) == 0.0
    assert not s.residual.any()
    np.testing.assert_array_equal(s.balance, 0)


@PROPERTY
@given(st.integers(1, 50).flatmap(weight_vectors), st.sampled_from([1.0, -1.0]))
def test_a_law_against_its_rounded_copy_is_exact(weights, direction):
    """Every entry moved by one ulp (~1e-17 to 1e-16): still the same law — Z = 0, alpha = 1,
    an all-zero residual and TV 0."""
    p = normalize(weights)
    # Positive entries only: a zero moved to 5e-324 is a word the target forbids and the draft
    # may now propose — always rejected, a real (if tiny) bucket; see the forbidden-word tests.
    p_rounded = np.where(p > 0, np.nextafter(p, direction * np.inf), 0.0)
    assert not np.array_equal(p, p_rounded)
    assert np.abs(p - p_rounded).max() <= 2.3e-16
    s = step(p, p_rounded)
    assert not s.residual.any()
    assert not step(p_rounded, p).residual.any()
    assert s.z == 0.0
    assert s.alpha == 1.0
    assert total_variation(p, p_rounded) == 0.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(prob_pairs(max_size=12), min_size=1, max_size=6), st.integers(1, 12))
def test_step_rows_is_step_row_by_row_bit_for_bit(pairs, width) -> None:
    """The decoding engine computes every context's step at once: row i of step_rows must be
    step of row i exactly (rows padded with zeros to one width, as the engine does)."""
    from specviz.one_token import step_rows

    width = max(width, *(p.size for p, _ in pairs))
    p_rows, q_rows = np.zeros((len(pairs), width)), np.zeros((len(pairs), width))
    for i, (p, q) in enumerate(pairs):
        p_rows[i, : p.size], q_rows[i, : q.size] = p, q
    rows = step_rows(p_rows, q_rows)
    for i in range(len(pairs)):
        one = step(p_rows[i], q_rows[i])
        for name in ("accept", "kept", "bounced", "refill", "residual", "balance"):
            assert np.array_equal(getattr(rows, name)[i], getattr(one, name)), name
        assert np.array_equal(rows.bucket_weights[i], one.bucket_weights)
        assert (rows.alpha[i], rows.z[i]) == (one.alpha, one.z)


def test_step_rows_covers_the_two_special_cases() -> None:
    from specviz.one_token import step_rows

    p = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    q = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.3, 0.2]])
    rows = step_rows(p, q)
    assert rows.alpha.tolist() == [1.0, 0.0, 0.7] and rows.z[:2].tolist() == [0.0, 1.0]
    assert np.array_equal(rows.bucket_weights[0], p[0])  # nothing refilled: back to p
    assert np.array_equal(rows.residual[1], [1.0, 0.0, 0.0])
