"""The samplers' laws, checked statistically with fixed seeds, plus their exact bookkeeping.

Every goodness-of-fit test asserts a p-value above :data:`P_FLOOR`: a correct sampler fails
such a test with probability 1e-3 per fresh seed (a few percent over the whole file). The seeds
are fixed, so the suite is deterministic; a failure after a core change means the law moved, not
bad luck.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import gof_pvalue, z_score
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from specviz import normalize, sample_counts, speculative_sample, step
from specviz.limits import MAX_COUNT_DRAWS, MAX_PER_DRAW
from specviz.sampling import inverse_cdf, multinomial_on_support

#: Floor on chi-square p-values (false-failure rate 1e-3 per test for a correct sampler).
P_FLOOR = 1e-3

#: Bound on |z| for a single proportion (the brief's "4 standard errors": two-sided 6e-5).
Z_PROPORTION = 4.0

#: Bound on |z| for moment checks done on many tokens/groups at once: two-sided 7e-6 each, so a
#: correct sampler fails the ~40 comparisons of a test with probability below 3e-4.
Z_MOMENTS = 4.5

N_DRAWS = 200_000

# Same pairs as in test_one_token (p = target, q = draft), plus a Zipf tail over 1000 tokens.
_ZIPF = 1000
CASES = {
    "design-doc pair": ([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]),
    "p == q": ([0.5, 0.25, 0.25], [0.5, 0.25, 0.25]),
    "disjoint": ([0.5, 0.5, 0, 0], [0, 0, 0.25, 0.75]),
    "q misses a token": ([0.5, 0.3, 0.2], [0.6, 0.4, 0]),
    "p filters a token": ([0.6, 0.4, 0], [0.5, 0.3, 0.2]),
    "one-hot, different": ([1, 0, 0], [0, 0, 1]),
    "zipf tail": (
        normalize(1 / np.arange(1, _ZIPF + 1) ** 1.1),
        normalize(1 / np.arange(_ZIPF, 0, -1) ** 0.9),
    ),
}


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def draws(request):
    """(p, q, draws) for one case, drawn once per module with a fixed seed.

    The returned p and q are the vectors as the core sees them (it renormalises every input by its
    sum, which can move an entry by an ulp), so that exact comparisons like p < q are the core's.
    """
    p, q = (np.asarray(v, float) for v in CASES[request.param])
    seed = 1000 + list(CASES).index(request.param)
    return p / p.sum(), q / q.sum(), speculative_sample(p, q, N_DRAWS, seed=seed)


# --- speculative_sample: the law of one run -------------------------------------------------------


def test_output_follows_p(draws):
    p, _, d = draws
    assert gof_pvalue(np.bincount(d.output, minlength=p.size), p) > P_FLOOR


def test_draft_follows_q(draws):
    _, q, d = draws
    assert gof_pvalue(np.bincount(d.draft, minlength=q.size), q) > P_FLOOR


def test_rejected_runs_emit_from_the_residual(draws):
    p, q, d = draws
    rejected = d.output[~d.accepted]
    if not np.any(p > q):  # Z = 0: the residual must never be reached
        assert rejected.size == 0
    else:
        assert gof_pvalue(np.bincount(rejected, minlength=p.size), step(p, q).residual) > P_FLOOR


def test_accept_fraction_is_alpha(draws):
    p, q, d = draws
    alpha = step(p, q).alpha
    std_error = np.sqrt(alpha * (1 - alpha) / N_DRAWS)
    assert abs(z_score(d.accepted.mean(), alpha, std_error)) <= Z_PROPORTION


def test_route_bookkeeping(draws):
    """Accepted runs emit their draft; only tokens with p < q are ever rejected; a rejected run
    emits a token with p > q (the residual's support)."""
    p, q, d = draws
    np.testing.assert_array_equal(d.output[d.accepted], d.draft[d.accepted])
    assert (p[d.draft[~d.accepted]] < q[d.draft[~d.accepted]]).all()
    assert (p[d.output[~d.accepted]] > q[d.output[~d.accepted]]).all()


def test_result_shapes_and_dtypes(draws):
    _, _, d = draws
    assert d.draft.shape == d.output.shape == d.accepted.shape == (N_DRAWS,)
    assert np.issubdtype(d.draft.dtype, np.integer)
    assert np.issubdtype(d.output.dtype, np.integer)
    assert d.accepted.dtype == np.bool_


def test_zero_probability_tokens_are_never_drawn():
    """Zeros at both ends and between tiny neighbours: drafts avoid q = 0, outputs avoid p = 0."""
    p = normalize([0, 1e-9, 0, 5, 0, 3, 1e-9, 0])
    q = normalize([1e-9, 0, 4, 0, 2, 1e-9, 0, 3])
    d = speculative_sample(p, q, 4_000_000, seed=7)
    assert not np.isin(d.draft, np.flatnonzero(q == 0)).any()
    assert not np.isin(d.output, np.flatnonzero(p == 0)).any()


def test_same_int_seed_same_draws_and_generator_accepted():
    p, q = CASES["design-doc pair"]
    a = speculative_sample(p, q, 1000, seed=42)
    b = speculative_sample(p, q, 1000, seed=42)
    c = speculative_sample(p, q, 1000, seed=43)
    for field in ("draft", "output", "accepted"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.output, c.output)

    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    first = speculative_sample(p, q, 1000, seed=g1)
    np.testing.assert_array_equal(first.output, speculative_sample(p, q, 1000, seed=g2).output)
    # The Generator is used, not copied: a second call continues its stream.
    assert not np.array_equal(first.output, speculative_sample(p, q, 1000, seed=g1).output)
    speculative_sample(p, q, 10, seed=np.int64(3))  # numpy integers are valid seeds


def test_n_zero_gives_empty_arrays():
    d = speculative_sample([0.4, 0.6], [0.5, 0.5], 0, seed=0)
    assert d.draft.size == d.output.size == d.accepted.size == 0
    assert np.issubdtype(d.output.dtype, np.integer)


def test_whole_float_n_is_accepted():
    assert speculative_sample([0.4, 0.6], [0.5, 0.5], 5.0, seed=0).draft.size == 5


# --- sample_counts -------------------------------------------------------------------------------


@st.composite
def count_problems(draw):
    size = draw(st.integers(1, 20))
    weights = st.lists(
        st.sampled_from([0.0, 0.0, 1e-12, 0.1, 0.5, 1.0, 3.0]), min_size=size, max_size=size
    ).filter(lambda w: sum(w) > 0)
    n = draw(st.one_of(st.integers(0, 1000), st.integers(0, 10**15)))
    return normalize(draw(weights)), normalize(draw(weights)), n, draw(st.integers(0, 2**32))


@settings(deadline=None, max_examples=150, derandomize=True)
@given(count_problems())
def test_counts_add_up(problem):
    p, q, n, seed = problem
    c = sample_counts(p, q, n, seed=seed)
    for counts in (c.draft_counts, c.accepted_counts, c.residual_counts, c.output_counts):
        assert counts.shape == p.shape
        assert np.issubdtype(counts.dtype, np.integer)
        assert (counts >= 0).all()
    assert c.draft_counts.sum() == n
    assert c.output_counts.sum() == n
    np.testing.assert_array_equal(c.accepted_counts + c.residual_counts, c.output_counts)
    assert (c.accepted_counts <= c.draft_counts).all()


def test_counts_follow_the_multinomial_laws():
    """2000 replications at n = 50 on the design-doc pair.

    Each group S of tokens has Binomial(n, mass(S)) counts for the routes' laws: drafts with
    mass q(S), accepted with min(p, q)(S), residual with max(0, p - q)(S), outputs with p(S).
    Means are checked for every single token; for the outputs, variances are checked for every
    single token and every pair, which pins down the covariances -n p_i p_j of the multinomial.
    """
    p = np.array([0.4, 0.3, 0.2, 0.1])
    q = np.array([0.1, 0.2, 0.3, 0.4])
    n, reps = 50, 2000
    runs = [sample_counts(p, q, n, seed=s) for s in range(reps)]
    routes = {
        "draft": (np.array([r.draft_counts for r in runs]), q),
        "accepted": (np.array([r.accepted_counts for r in runs]), np.minimum(p, q)),
        "residual": (np.array([r.residual_counts for r in runs]), np.maximum(p - q, 0)),
        "output": (np.array([r.output_counts for r in runs]), p),
    }
    for name, (counts, mass) in routes.items():
        assert not counts[:, mass == 0].any(), name  # e.g. no residual draws of tokens 2 and 3
        live = mass > 0
        var = n * mass[live] * (1 - mass[live])
        z = (counts[:, live].mean(axis=0) - n * mass[live]) / np.sqrt(var / reps)
        assert (np.abs(z) <= Z_MOMENTS).all(), (name, z)

    output = routes["output"][0]
    groups = [[i] for i in range(4)] + [[i, j] for i in range(4) for j in range(i + 1, 4)]
    for group in groups:
        x = output[:, group].sum(axis=1)  # ~ Binomial(n, m)
        m = p[group].sum()
        var = n * m * (1 - m)
        # Sample variance s^2 has variance ~ (mu4 - var^2) / reps, with the binomial fourth
        # central moment mu4 = var * (1 + 3 (n - 2) m (1 - m)).
        mu4 = var * (1 + 3 * (n - 2) * m * (1 - m))
        z = (x.var(ddof=1) - var) / np.sqrt((mu4 - var**2) / reps)
        assert abs(z) <= Z_MOMENTS, (group, z)


def test_counts_match_per_draw_sampler():
    """Two-sample chi-square on the joint (route, token) table of both samplers, design-doc pair."""
    p, q = CASES["design-doc pair"]
    n = 100_000
    d = speculative_sample(p, q, n, seed=11)
    c = sample_counts(p, q, n, seed=12)
    table = np.array(
        [
            np.r_[
                np.bincount(d.output[d.accepted], minlength=4),
                np.bincount(d.output[~d.accepted], minlength=4),
            ],
            np.r_[c.accepted_counts, c.residual_counts],
        ]
    )
    table = table[:, table.sum(axis=0) > 0]  # the residual never emits tokens 2 and 3
    assert stats.chi2_contingency(table).pvalue > P_FLOOR
    draft_table = np.array([np.bincount(d.draft, minlength=4), c.draft_counts])
    assert stats.chi2_contingency(draft_table).pvalue > P_FLOOR


def test_a_trillion_runs():
    """n = 10**12 in O(V): each frequency within a few multinomial standard errors of its law."""
    p = np.array([0.4, 0.3, 0.2, 0.1])
    q = np.array([0.1, 0.2, 0.3, 0.4])
    n = 10**12
    c = sample_counts(p, q, n, seed=2024)
    for counts, law in ((c.output_counts, p), (c.draft_counts, q)):
        z = (counts / n - law) / np.sqrt(law * (1 - law) / n)
        assert (np.abs(z) <= Z_MOMENTS).all(), z
    alpha = 0.6
    z_accept = z_score(c.accepted_counts.sum() / n, alpha, np.sqrt(alpha * (1 - alpha) / n))
    assert abs(z_accept) <= Z_PROPORTION


def test_largest_n_is_accepted():
    c = sample_counts([0.4, 0.6], [0.5, 0.5], 10**15, seed=0)
    assert c.output_counts.sum() == 10**15
    assert c.output_counts.dtype == np.int64


def test_counts_n_zero_and_reproducibility():
    p, q = CASES["design-doc pair"]
    zero = sample_counts(p, q, 0, seed=0)
    for counts in (
        zero.draft_counts,
        zero.accepted_counts,
        zero.residual_counts,
        zero.output_counts,
    ):
        np.testing.assert_array_equal(counts, np.zeros(4, dtype=np.int64))
        assert np.issubdtype(counts.dtype, np.integer)

    a, b = sample_counts(p, q, 10**6, seed=9), sample_counts(p, q, 10**6, seed=9)
    np.testing.assert_array_equal(a.output_counts, b.output_counts)
    np.testing.assert_array_equal(a.draft_counts, b.draft_counts)
    g = np.random.default_rng(9)
    first = sample_counts(p, q, 10**6, seed=g)
    assert not np.array_equal(first.output_counts, sample_counts(p, q, 10**6, seed=g).output_counts)


def test_counts_never_land_on_zero_probability_tokens():
    """Drafts only where q > 0, outputs only where p > 0, residual draws only where p > q.

    The last token is the sensitive one: numpy's multinomial hands the leftover of its sequential
    binomials to the last category, so a category of probability 0 there must be kept out of the
    call. Checked at the largest allowed n on [.1, .3, .6, 0] (in float 1 - .1 - .3 is
    .6000000000000001 > .6, which leaves a leftover of ~n * 1e-16) and on 200 random pairs whose
    last token is impossible.
    """
    rng = np.random.default_rng(0)
    pairs = [([0.1, 0.3, 0.6, 0.0], [0.1, 0.3, 0.6, 0.0])] * 50
    for _ in range(200):
        wp, wq = rng.random(30), rng.random(30)
        wp[-1] = wq[-1] = 0.0
        pairs.append((normalize(wp), normalize(wq)))
    offenders = []
    for seed, (p, q) in enumerate(pairs):
        c = sample_counts(p, q, 10**15, seed=seed)
        p, q = np.asarray(p), np.asarray(q)
        p, q = p / p.sum(), q / q.sum()  # as the core sees them
        if (
            c.draft_counts[q == 0].any()
            or c.output_counts[p == 0].any()
            or c.residual_counts[p <= q].any()
        ):
            offenders.append(seed)
    assert offenders == []


def test_largest_sizes_come_from_limits():
    p, q = CASES["design-doc pair"]
    assert MAX_COUNT_DRAWS == 10**15 and MAX_PER_DRAW == 50_000_000
    with pytest.raises(ValueError, match="too large"):
        sample_counts(p, q, MAX_COUNT_DRAWS + 1, seed=0)
    with pytest.raises(ValueError, match="too large"):
        speculative_sample(p, q, MAX_PER_DRAW + 1, seed=0)


@pytest.mark.parametrize("seed", [5.0, 2.5, True, "5", [5]])
def test_seeds_must_be_whole_numbers(seed):
    """A seed is an int, a numpy integer, None or a Generator: a float (even 5.0), a bool or
    text is refused up front rather than silently turned into a seed."""
    p, q = CASES["design-doc pair"]
    with pytest.raises(ValueError, match="seed"):
        speculative_sample(p, q, 10, seed=seed)
    with pytest.raises(ValueError, match="seed"):
        sample_counts(p, q, 10, seed=seed)


# --- the public building blocks: inverse_cdf, bucket weights, multinomial_on_support -------------


def test_inverse_cdf_hand_values():
    """Strip [0, .25) -> 0, [.25, .25) (empty) -> never 1, [.25, 1) -> 2; weights need not sum
    to 1; u rounding up to the total goes to the last token with weight."""
    u = np.array([0.0, 0.1, 0.2499, 0.25, 0.6, 0.99999, np.nextafter(1.0, 0.0)])
    np.testing.assert_array_equal(
        inverse_cdf(np.array([0.25, 0.0, 0.75]), u), [0, 0, 0, 2, 2, 2, 2]
    )
    np.testing.assert_array_equal(inverse_cdf(np.array([1.0, 0.0, 3.0]), u), [0, 0, 0, 2, 2, 2, 2])
    # Trailing zero weights are never returned, even for u next to 1.
    np.testing.assert_array_equal(
        inverse_cdf(np.array([0.5, 0.5, 0.0, 0.0]), np.array([0.0, 0.5, np.nextafter(1.0, 0.0)])),
        [0, 1, 1],
    )


def test_inverse_cdf_is_public_and_checks_its_input():
    """Lists are fine and the result is shaped like u; a u outside [0, 1) or weights that are no
    weights are refused, naming the argument."""
    out = inverse_cdf([1, 0, 3], [[0.1, 0.5], [0.0, 0.9]])
    np.testing.assert_array_equal(out, [[0, 2], [0, 2]])
    assert np.issubdtype(out.dtype, np.integer)
    for u in ([1.0], [-0.1], [np.nan]):
        with pytest.raises(ValueError, match=r"^u "):
            inverse_cdf([1, 1], u)
    for probs in ([0, 0], [1, -1], [np.inf, 1]):
        with pytest.raises(ValueError, match=r"^probs "):
            inverse_cdf(probs, [0.5])


def test_inverse_cdf_follows_its_weights():
    weights = np.array([3.0, 0.0, 1.0, 6.0, 0.0])
    picks = inverse_cdf(weights, np.random.default_rng(31).random(N_DRAWS))
    assert gof_pvalue(np.bincount(picks, minlength=weights.size), weights) > P_FLOOR


@pytest.mark.parametrize("case", list(CASES))
def test_rejections_draw_from_the_steps_bucket_weights(case):
    """The sampler replaces a rejected proposal from ``step(p, q).bucket_weights``: the residual's
    weights max(0, p - q) when Z > 0."""
    p, q = CASES[case]
    s = step(p, q)
    if s.z > 0:
        np.testing.assert_allclose(
            s.bucket_weights / s.bucket_weights.sum(), s.residual, atol=1e-12
        )
        np.testing.assert_array_equal(s.bucket_weights == 0, s.residual == 0)
    else:
        np.testing.assert_array_equal(s.bucket_weights, s.p)


def test_multinomial_on_support_never_counts_zero_probabilities():
    """[.1, .3, .6, 0] at n = 10**15: the trailing impossible category gets exactly 0."""
    rng = np.random.default_rng(0)
    probs = np.array([0.1, 0.3, 0.6, 0.0])
    counts = multinomial_on_support(rng, np.array([10**15] * 20), probs)
    assert counts.shape == (20, 4)
    assert not counts[:, 3].any()
    np.testing.assert_array_equal(counts.sum(axis=1), 10**15)


def test_counts_never_emit_a_forbidden_token_the_draft_barely_proposes():
    """p filters token 2 (p = 0); the draft proposes it with probability 1e-13. At n = 10**15
    about 100 proposals of it are expected, and every one must be rejected."""
    p = [0.5, 0.5, 0.0]
    q = [0.5, 0.5 - 1e-13, 1e-13]
    c = sample_counts(p, q, 10**15, seed=1)
    assert c.draft_counts[2] > 0  # the draft did propose it
    assert c.output_counts[2] == 0
