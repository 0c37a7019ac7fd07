"""The multi-token engine (specviz.decoding): exact law of the text, words per call against a
prediction made without simulation, the extremes, sampling settings, and bad input.

Statistical tests use fixed seeds, so they are deterministic; each states its tolerance. A
chi-square test "passes" at p > 0.001 (a correct sampler with another seed would fail 1 run in
1,000) and "catches a bias" at p < 1e-6. z-scores pass within 4 standard errors.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from helpers import gof_pvalue, z_score
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specviz import expected_tokens_per_step, speculative_decode, walltime_speedup
from specviz.decoding import (
    CHEN_2023,
    LEVIATHAN_TABLE2,
    DecodingPair,
    LanguageModel,
    MarkovChain,
    Origin,
    _draw_rows,
    autoregressive_decode,
    chain_from_logits,
    decode,
    decode_batch,
    decoding_pair,
    with_settings,
    words_per_call,
)
from specviz.limits import (
    DENSE_CONTEXTS,
    MAX_BATCH_WORK,
    MAX_CHAIN_WORDS,
    MAX_DECODE_GAMMA,
    MAX_DECODE_TOKENS,
    MAX_PROMPT,
)
from specviz.sampling import inverse_cdf

PASS = 1e-3  # chi-square p-value above which an exact sampler passes
BIASED = 1e-6  # ... and below which a biased one is caught
Z_MAX = 4.0

# math.md, "A two-step Markov check".
P = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]])
Q = np.array([[0.3, 0.4, 0.3], [0.3, 0.3, 0.4], [1 / 3, 1 / 3, 1 / 3]])
TWO_STEP = np.array([[0.36, 0.18, 0.06], [0.06, 0.06, 0.18], [0.01, 0.08, 0.01]])


def joint_counts(tokens: np.ndarray, size: int, length: int) -> np.ndarray:
    """Counts of the first ``length`` words of each run, flattened (a, b, ...) row-major."""
    index = np.ravel_multi_index(tokens[:, :length].T, (size,) * length)
    return np.bincount(index, minlength=size**length)


def path_law(matrix: np.ndarray, start: int, length: int) -> np.ndarray:
    """P[start, a] P[a, b] ... for every path of ``length`` words, flattened like joint_counts."""
    size = matrix.shape[0]
    law = np.empty(size**length)
    for k, path in enumerate(itertools.product(range(size), repeat=length)):
        prob, at = 1.0, start
        for w in path:
            prob *= matrix[at, w]
            at = w
        law[k] = prob
    return law


# --------------------------------------------------------------------------- the law of the text


def test_worked_example_two_step_law_is_the_notes() -> None:
    assert np.allclose(path_law(P, 0, 2).reshape(3, 3), TWO_STEP)


@pytest.mark.parametrize("length", [2, 3])
def test_first_words_follow_the_target_chain(length: int) -> None:
    """math.md's example, γ = 4: 200,000 runs, the first two (three) words against
    P[0, a]·P[a, b](·P[b, c])."""
    batch = decode_batch(decoding_pair(P, Q), gamma=4, n_tokens=length, runs=200_000, seed=11)
    counts = joint_counts(batch.tokens, 3, length)
    assert gof_pvalue(counts, path_law(P, 0, length)) > PASS


def test_single_runs_follow_the_target_chain() -> None:
    """The one-run engine itself (not the batch form): 20,000 seeded runs, first two words."""
    pair = decoding_pair(P, Q)
    rng = np.random.default_rng(5)
    tokens = np.array([decode(pair, gamma=4, n_tokens=2, seed=rng).tokens for _ in range(20_000)])
    assert gof_pvalue(joint_counts(tokens, 3, 2), TWO_STEP.ravel()) > PASS


def test_batch_and_single_runs_agree_in_law() -> None:
    """Both engines against each other: the joint law of (words of the first call, first two
    words), a two-sample chi-square test on 20,000 runs each."""
    from scipy import stats

    pair = decoding_pair(P, Q)
    rng = np.random.default_rng(8)
    singles = [decode(pair, gamma=3, n_tokens=2, seed=rng) for _ in range(20_000)]
    one = np.array([[r.accepted_per_call[0], *r.tokens] for r in singles])
    batch = decode_batch(pair, gamma=3, n_tokens=2, runs=20_000, seed=9)
    many = np.column_stack([batch.accepted[:, 0], batch.tokens])
    cells = [np.ravel_multi_index(x.T, (4, 3, 3)) for x in (one, many)]
    table = np.array([np.bincount(c, minlength=36) for c in cells])
    table = table[:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table).pvalue > PASS


def test_the_batch_sampler_maps_uniforms_like_inverse_cdf() -> None:
    """The vectorised sampler is the same mapping as sampling.inverse_cdf, draw for draw."""
    rng = np.random.default_rng(0)
    weights = rng.random((6, 6)) * (rng.random((6, 6)) > 0.3)
    weights[:, 0] += 0.01  # no empty row
    matrix = weights / weights.sum(axis=1, keepdims=True)
    pair = decoding_pair(matrix, matrix)
    contexts = rng.integers(0, 6, 5_000)
    u = np.r_[rng.random(4_998), 0.0, np.nextafter(1.0, 0.0)]
    got = pair.word[_draw_rows(pair, "p", contexts, u)]
    want = [
        pair.word[pair.row(s)][inverse_cdf(pair.p[pair.row(s)], x)]
        for s, x in zip(contexts, u, strict=True)
    ]
    assert got.tolist() == want


def test_same_seed_same_run() -> None:
    a = speculative_decode(P, Q, gamma=3, n_tokens=50, seed=4)
    b = speculative_decode(P, Q, gamma=3, n_tokens=50, seed=4)
    assert a.tokens.tolist() == b.tokens.tolist()
    assert a.accepted_per_call.tolist() == b.accepted_per_call.tolist()


def test_plain_decoding_follows_the_target() -> None:
    rng = np.random.default_rng(2)
    runs = [autoregressive_decode(P, n_tokens=2, start=1, seed=rng) for _ in range(10_000)]
    tokens = np.array([r.tokens for r in runs])
    assert all(r.target_calls == 2 for r in runs)
    assert gof_pvalue(joint_counts(tokens, 3, 2), path_law(P, 1, 2)) > PASS


# --------------------------------------------------------------------------- words per call


def test_prediction_is_the_notes_two_point_seven_three() -> None:
    """math.md: "tokens per target call come out near 2.73" — the long-run words per call."""
    prediction = words_per_call(decoding_pair(P, Q), gamma=4)
    assert prediction.long_run == pytest.approx(2.7292, abs=5e-4)
    assert prediction.settled


def test_prediction_matches_matrix_powers() -> None:
    """An independent computation with dense matrices: E[N | s] = sum_k (M^k 1)[s] and the
    stationary law of K = sum_{k<γ} M^k R + M^γ P (an eigenvector)."""
    gamma = 4
    m, r = np.minimum(P, Q), np.maximum(P - Q, 0)
    by_context = sum(np.linalg.matrix_power(m, k) @ np.ones(3) for k in range(gamma + 1))
    kernel = sum(np.linalg.matrix_power(m, k) @ r for k in range(gamma))
    kernel = kernel + np.linalg.matrix_power(m, gamma) @ P
    values, vectors = np.linalg.eig(kernel.T)
    pi = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    pi /= pi.sum()
    prediction = words_per_call(decoding_pair(P, Q), gamma=gamma)
    assert np.allclose(prediction.by_context, by_context, atol=1e-12)
    assert prediction.first_call == pytest.approx(by_context[0], abs=1e-12)
    assert prediction.long_run == pytest.approx(pi @ by_context, abs=1e-10)
    assert prediction.kept_in_a_row.sum() == pytest.approx(prediction.long_run, abs=1e-12)


def test_first_call_words_follow_the_predicted_law() -> None:
    """Words of the first call: their exact law P(N = k) (from M^k 1, no simulation) against
    100,000 runs (chi-square), and their mean (z-score)."""
    pair = decoding_pair(P, Q)
    prediction = words_per_call(pair, gamma=4)
    batch = decode_batch(pair, gamma=4, n_tokens=5, runs=100_000, seed=21)
    counts = np.bincount(batch.first_call_words - 1, minlength=5)
    assert gof_pvalue(counts, prediction.first_call_law) > PASS
    words = batch.first_call_words
    z = z_score(words.mean(), prediction.first_call, words.std() / np.sqrt(words.size))
    assert abs(z) < Z_MAX, z
    # The first word is a kept guess exactly when the first guess was kept: P(N >= 2).
    kept = 1 - prediction.first_call_law[0]
    share = batch.kept[:, 0].mean()
    assert abs(z_score(share, kept, np.sqrt(kept * (1 - kept) / share.size))) < Z_MAX
    assert (batch.kept[:, 0] == (batch.accepted[:, 0] > 0)).all()


@pytest.mark.parametrize("gamma", [1, 4, 8])
def test_long_run_words_per_call_match_the_prediction(gamma: int) -> None:
    """2,000 runs of 500 words each: words per call (every call counted in full) against the
    renewal-reward prediction; the standard error comes from the independent runs."""
    pair = decoding_pair(P, Q)
    prediction = words_per_call(pair, gamma=gamma)
    batch = decode_batch(pair, gamma=gamma, n_tokens=500, runs=2_000, seed=gamma)
    done = batch.accepted >= 0
    words = np.where(done, batch.accepted + 1, 0).sum(axis=1)
    calls = done.sum(axis=1)
    ratio = words.sum() / calls.sum()
    # Ratio estimator: linearised standard error over independent runs.
    residual = words - ratio * calls
    std_error = residual.std(ddof=1) * np.sqrt(calls.size) / calls.sum()
    # The first call starts from word 0, not from the long-run law: a bias of order 1/calls.
    bias = (prediction.first_call - prediction.long_run) / calls.mean()
    assert abs(z_score(ratio - bias, prediction.long_run, std_error)) < Z_MAX


def test_large_chains_settle_by_iteration_like_an_eigenvector() -> None:
    """Above DENSE_CONTEXTS words the long-run law is iterated: the same answer as a dense
    eigenvector computation on a 120-word chain."""
    rng = np.random.default_rng(3)
    size, gamma = DENSE_CONTEXTS + 20, 3
    target = rng.dirichlet(np.full(size, 0.3), size=size)
    draft = 0.5 * target + 0.5 * rng.dirichlet(np.full(size, 0.3), size=size)
    m, r = np.minimum(target, draft), np.maximum(target - draft, 0)
    kernel = sum(np.linalg.matrix_power(m, k) @ r for k in range(gamma))
    kernel = kernel + np.linalg.matrix_power(m, gamma) @ target
    by_context = sum(np.linalg.matrix_power(m, k) @ np.ones(size) for k in range(gamma + 1))
    values, vectors = np.linalg.eig(kernel.T)
    pi = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    prediction = words_per_call(decoding_pair(target, draft), gamma=gamma)
    assert prediction.settled
    assert prediction.long_run == pytest.approx(pi @ by_context / pi.sum(), abs=1e-9)


def test_a_slowly_mixing_large_chain_is_bounded_and_says_so() -> None:
    """Identical models on a 150-word cycle: the text goes round and round, a periodic chain that
    takes ~10^5 lazy steps to settle. The prediction stops in bounded time, reports that it has
    not settled — and is still right here, since every call writes γ + 1 words wherever it
    starts."""
    size = 150
    cycle = np.roll(np.eye(size), 1, axis=1)
    t0 = time.perf_counter()
    prediction = words_per_call(decoding_pair(cycle, cycle), gamma=4)
    assert time.perf_counter() - t0 < 10
    assert not prediction.settled
    assert prediction.long_run == pytest.approx(5) and prediction.alpha == 1.0


def test_iid_words_give_leviathans_formula() -> None:
    """When every row is the same (words independent of the past), acceptances are i.i.d. with
    α = sum(min(p, q)): the exact prediction is the formula (1 - α^(γ+1))/(1 - α)."""
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.2, 0.6])
    pair = decoding_pair(np.tile(p, (3, 1)), np.tile(q, (3, 1)))
    for gamma in (1, 3, 7):
        prediction = words_per_call(pair, gamma=gamma)
        alpha = np.minimum(p, q).sum()
        assert prediction.alpha == pytest.approx(alpha, abs=1e-12)
        assert prediction.long_run == pytest.approx(expected_tokens_per_step(alpha, gamma))
        assert prediction.iid == pytest.approx(prediction.long_run)
        assert prediction.speedup(0.1) == pytest.approx(walltime_speedup(alpha, gamma, 0.1))


# --------------------------------------------------------------------------- the extremes


@pytest.mark.parametrize("gamma", [1, 4, 7])
def test_identical_models_accept_everything(gamma: int) -> None:
    run = speculative_decode(P, P, gamma=gamma, n_tokens=100, start=2, seed=3)
    assert (run.accepted_per_call == gamma).all()
    assert (run.verdict == 1).all()
    assert (run.final_origin == Origin.BONUS).all()
    assert run.target_calls == -(-100 // (gamma + 1))
    assert run.draft_calls == gamma * run.target_calls
    prediction = words_per_call(decoding_pair(P, P), gamma=gamma)
    assert prediction.long_run == pytest.approx(gamma + 1, abs=1e-12)
    assert prediction.first_call_law.tolist() == [0.0] * gamma + [1.0]
    assert prediction.alpha == 1.0


def disjoint_pair() -> tuple[np.ndarray, np.ndarray]:
    """The target says words 0-1 only, the draft words 2-3 only, after every word."""
    target = np.array([[0.7, 0.3, 0, 0], [0.2, 0.8, 0, 0], [0.5, 0.5, 0, 0], [0.1, 0.9, 0, 0]])
    draft = np.array([[0, 0, 0.5, 0.5], [0, 0, 0.9, 0.1], [0, 0, 0.3, 0.7], [0, 0, 0.6, 0.4]])
    return target, draft


def test_disjoint_models_accept_nothing_and_still_emit_the_target() -> None:
    target, draft = disjoint_pair()
    pair = decoding_pair(target, draft)
    run = decode(pair, gamma=4, n_tokens=200, seed=1)
    assert (run.accepted_per_call == 0).all() and (run.origin == Origin.BUCKET).all()
    assert run.target_calls == 200
    assert words_per_call(pair, gamma=4).long_run == 1.0
    batch = decode_batch(pair, gamma=4, n_tokens=2, runs=100_000, seed=2)
    assert (batch.accepted[:, :2] == 0).all() and not batch.kept.any()
    assert gof_pvalue(joint_counts(batch.tokens, 4, 2), path_law(target, 0, 2)) > PASS


def test_a_word_the_target_never_says_is_never_emitted() -> None:
    """A draft that loves a word the target forbids (a safety filter): always rejected."""
    target = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    draft = np.array([[0.0, 0.1, 0.9], [0.1, 0.0, 0.9], [0.05, 0.05, 0.9]])
    batch = decode_batch(decoding_pair(target, draft), gamma=5, n_tokens=50, runs=2_000, seed=3)
    assert not (batch.tokens == 2).any()


def test_gamma_zero_is_plain_decoding() -> None:
    run = speculative_decode(P, Q, gamma=0, n_tokens=30, seed=1)
    assert run.target_calls == 30 and run.draft_calls == 0
    assert (run.origin == Origin.BONUS).all()


def test_the_last_call_is_cut_at_n_tokens() -> None:
    run = speculative_decode(P, P, gamma=4, n_tokens=7, seed=1)
    assert run.tokens.size == 7 and run.target_calls == 2
    assert run.call_of.tolist() == [0] * 5 + [1] * 2
    assert run.words_per_call == 3.5
    assert run.speedup(0.5) == pytest.approx(7 / (2 + 0.5 * 8))


# --------------------------------------------------------------------------- one run's record


def test_the_record_tells_the_story_of_each_call() -> None:
    run = speculative_decode(P, Q, gamma=4, n_tokens=400, seed=6)
    cursor = 0
    for c in range(run.target_calls):
        k = int(run.accepted_per_call[c])
        verdict = run.verdict[c].tolist()
        assert verdict == [1] * k + ([0] + [-1] * (3 - k) if k < 4 else [])
        assert run.first_rejection[c] == (k if k < 4 else -1)
        words = [*run.drafts[c, :k].tolist(), int(run.final_word[c])]
        origins = [Origin.ACCEPTED] * k + [Origin.BUCKET if k < 4 else Origin.BONUS]
        assert run.final_origin[c] == origins[-1]
        shown = run.tokens[cursor : cursor + k + 1].tolist()
        assert shown == words[: len(shown)]
        assert run.origin[cursor : cursor + k + 1].tolist() == origins[: len(shown)]
        cursor += k + 1
    # Keep chances are the one-token step's min(1, p/q) at each draft's context.
    checked = run.verdict >= 0
    assert np.allclose(
        run.keep_chance[checked], np.minimum(1, run.draft_p[checked] / run.draft_q[checked])
    )


# --------------------------------------------------------------------------- sampling settings

LOGITS_TARGET = np.array([2.0, 1.0, 0.5, -1.0])
LOGITS_DRAFT = np.array([1.0, 2.0, 0.0, 0.8])


@pytest.mark.parametrize(("temperature", "alpha"), [(1.0, 0.533), (0.5, 0.240), (2.0, 0.747)])
def test_temperature_changes_alpha_as_in_the_notes(temperature: float, alpha: float) -> None:
    """math.md: logits target [2, 1, .5, -1], draft [1, 2, 0, .8] → α = .533 / .240 / .747."""
    target = chain_from_logits(np.tile(LOGITS_TARGET, (4, 1)), temperature=temperature)
    draft = chain_from_logits(np.tile(LOGITS_DRAFT, (4, 1)), temperature=temperature)
    pair = decoding_pair(target, draft)
    assert np.allclose(pair.alpha, alpha, atol=5e-4)
    assert words_per_call(pair, gamma=3).alpha == pytest.approx(alpha, abs=5e-4)


SETTINGS = {"temperature": 0.7, "top_k": 3, "top_p": 0.9}


def settings_pair() -> tuple[np.ndarray, np.ndarray]:
    """Logits of a 5-word target, and a draft's: the target's plus noise (a related model)."""
    rng = np.random.default_rng(17)
    target = rng.normal(0, 1.5, (5, 5))
    return target, target + rng.normal(0, 0.8, (5, 5))


def first_words(target: np.ndarray, draft: np.ndarray, seed: int) -> np.ndarray:
    pair = decoding_pair(target, draft, start=0)
    return joint_counts(decode_batch(pair, gamma=4, n_tokens=2, runs=200_000, seed=seed).tokens,
                        5, 2)  # fmt: skip


def pvalue(counts: np.ndarray, law: np.ndarray) -> float:
    """Chi-square p-value; 0 when a path the law forbids was emitted (infinitely unlikely)."""
    return 0.0 if counts[law == 0].sum() else gof_pvalue(counts, law)


def test_settings_on_both_models_stay_exact() -> None:
    logits_t, logits_d = settings_pair()
    target = chain_from_logits(logits_t, **SETTINGS)
    draft = chain_from_logits(logits_d, **SETTINGS)
    assert words_per_call(decoding_pair(target, draft), gamma=4).alpha > 0.5
    assert pvalue(first_words(target, draft, 1), path_law(target, 0, 2)) > PASS


@pytest.mark.parametrize("kwargs", [{"temperature": 0.5}, SETTINGS])
def test_settings_on_the_draft_only_are_caught_as_biased(kwargs: dict) -> None:
    """The settings reach only the draft: the text follows the raw target, not the adjusted
    one the learner asked for — chi-square rejects it (with top-k/top-p the raw target even
    says words the adjusted one never would)."""
    logits_t, logits_d = settings_pair()
    wanted = chain_from_logits(logits_t, **kwargs)
    raw_target = chain_from_logits(logits_t)
    draft = chain_from_logits(logits_d, **kwargs)
    assert pvalue(first_words(raw_target, draft, 2), path_law(wanted, 0, 2)) < BIASED


def test_settings_on_the_target_only_stay_exact_but_accept_less() -> None:
    """The algorithm checks against whatever the target says: still exact, only slower."""
    logits_t, logits_d = settings_pair()
    target = chain_from_logits(logits_t, **SETTINGS)
    both = decoding_pair(target, chain_from_logits(logits_d, **SETTINGS))
    one = decoding_pair(target, chain_from_logits(logits_d))
    assert pvalue(first_words(target, chain_from_logits(logits_d), 3),
                  path_law(target, 0, 2)) > PASS  # fmt: skip
    assert words_per_call(one, gamma=4).alpha < words_per_call(both, gamma=4).alpha


def test_with_settings_is_chain_from_logits_on_probabilities() -> None:
    logits, _ = settings_pair()
    raw = chain_from_logits(logits)
    assert np.allclose(with_settings(raw, **SETTINGS), chain_from_logits(logits, **SETTINGS))


def test_greedy_is_temperature_zero() -> None:
    chain = chain_from_logits(np.tile(LOGITS_TARGET, (4, 1)), temperature=0)
    assert (chain == np.array([1.0, 0, 0, 0])).all()


# --------------------------------------------------------------------------- the richer interface


class SecondOrder(LanguageModel):
    """A model reading two words back, given as a (V, V, V) table."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    @property
    def vocab_size(self) -> int:
        return self.table.shape[0]

    @property
    def order(self) -> int:
        return 2

    def next_word(self, context: tuple[int, ...]) -> np.ndarray:
        if len(context) < 2:
            return self.table[context[-1], context[-1]]
        return self.table[context[-2], context[-1]]


def test_a_second_order_target_with_a_first_order_draft() -> None:
    rng = np.random.default_rng(4)
    table = rng.dirichlet(np.ones(3), size=(3, 3))
    target = SecondOrder(table)
    pair = decoding_pair(target, Q, start=(1, 0))
    assert pair.contexts[pair.start] == (1, 0)
    law = np.array([table[1, 0, a] * table[0, a, b] for a in range(3) for b in range(3)])
    batch = decode_batch(pair, gamma=3, n_tokens=2, runs=100_000, seed=5)
    assert gof_pvalue(joint_counts(batch.tokens, 3, 2), law) > PASS
    prediction = words_per_call(pair, gamma=3)
    words = batch.first_call_words
    z = z_score(words.mean(), prediction.first_call, words.std() / np.sqrt(words.size))
    assert abs(z) < Z_MAX


def test_matrices_and_markov_chains_are_the_same_model() -> None:
    a = speculative_decode(P, Q, gamma=3, n_tokens=40, seed=9)
    b = speculative_decode(MarkovChain(P), MarkovChain(Q), gamma=3, n_tokens=40, seed=9)
    assert a.tokens.tolist() == b.tokens.tolist()


# --------------------------------------------------------------------------- random small chains


@st.composite
def chains(draw) -> tuple[np.ndarray, np.ndarray, int]:
    size = draw(st.integers(1, 5))
    cells = st.sampled_from([0.0, 0.0, 0.1, 0.25, 0.5, 1.0, 3.0])

    def matrix() -> np.ndarray:
        rows = []
        for _ in range(size):
            row = np.array(draw(st.lists(cells, min_size=size, max_size=size)))
            if row.sum() == 0:
                row[draw(st.integers(0, size - 1))] = 1.0
            rows.append(row / row.sum())
        return np.array(rows)

    return matrix(), matrix(), draw(st.integers(0, 6))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(chains())
def test_random_chains_keep_every_invariant(case) -> None:
    target, draft, gamma = case
    pair = decoding_pair(target, draft)
    prediction = words_per_call(pair, gamma=gamma)
    law = prediction.first_call_law
    assert law.min() >= -1e-12 and law.sum() == pytest.approx(1.0)
    assert 1 - 1e-9 <= prediction.long_run <= gamma + 1 + 1e-9
    assert np.all(np.diff(prediction.kept_in_a_row) <= 1e-12)
    run = decode(pair, gamma=gamma, n_tokens=60, seed=1)
    assert run.tokens.size == 60 and run.draft_calls == gamma * run.target_calls
    context = 0
    for word in run.tokens:
        assert target[context, word] > 0, "a word the target cannot say was emitted"
        context = word


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(chains())
def test_random_chains_emit_the_target_law(case) -> None:
    """On every generated pair: 40,000 runs, the first two words against P[0, a]·P[a, b], and the
    first call's words against their predicted law."""
    target, draft, gamma = case
    pair = decoding_pair(target, draft)
    size = target.shape[0]
    batch = decode_batch(pair, gamma=gamma, n_tokens=2, runs=40_000, seed=size + gamma)
    assert gof_pvalue(joint_counts(batch.tokens, size, 2), path_law(target, 0, 2)) > PASS
    law = words_per_call(pair, gamma=gamma).first_call_law
    counts = np.bincount(batch.first_call_words - 1, minlength=gamma + 1)
    assert gof_pvalue(counts, np.clip(law, 0, None)) > PASS


@settings(max_examples=30, deadline=None, derandomize=True)
@given(chains())
def test_random_chains_predict_like_matrix_powers(case) -> None:
    target, draft, gamma = case
    m = np.minimum(target, draft)
    expected = sum(np.linalg.matrix_power(m, k) @ np.ones(len(m)) for k in range(gamma + 1))
    prediction = words_per_call(decoding_pair(target, draft), gamma=gamma)
    assert np.allclose(prediction.by_context, expected, atol=1e-9)


# --------------------------------------------------------------------------- published figures


def test_four_of_twelve_cells_beat_the_formulas_own_ceiling() -> None:
    assert len(LEVIATHAN_TABLE2) == 12
    above = [(c.setting, c.draft) for c in LEVIATHAN_TABLE2 if c.above_ceiling]
    assert above == [
        ("En→De, T=1", "T5-small"),
        ("CNN/DM, T=0", "T5-small"),
        ("CNN/DM, T=1", "T5-small"),
        ("CNN/DM, T=1", "T5-base"),
    ]
    cnn = next(c for c in LEVIATHAN_TABLE2 if c.setting == "CNN/DM, T=0" and c.draft == "T5-small")
    assert (cnn.alpha, cnn.gamma, cnn.speedup) == (0.65, 5, 3.1)
    assert round(cnn.ceiling, 2) == 2.64


def test_chen_is_reported_without_alpha() -> None:
    assert CHEN_2023.alpha is None and CHEN_2023.ceiling is None and not CHEN_2023.above_ceiling
    assert (CHEN_2023.speedup, CHEN_2023.speedup_high, CHEN_2023.gamma) == (2.0, 2.5, 4)
    assert CHEN_2023.cost == pytest.approx(0.128, abs=1e-3)


# --------------------------------------------------------------------------- bad input

BAD_MATRICES = {
    "not square": [[0.5, 0.5]],
    "1-D": [0.5, 0.5],
    "empty": np.zeros((0, 0)),
    "row not summing to 1": [[0.5, 0.4], [0.5, 0.5]],
    "negative": [[1.2, -0.2], [0.5, 0.5]],
    "NaN": [[np.nan, 1.0], [0.5, 0.5]],
    "infinity": [[np.inf, 1.0], [0.5, 0.5]],
    "text": "[[1]]",
    "bools": [[True, False], [False, True]],
    "complex": [[1 + 0j, 0], [0, 1]],
    "ragged": [[1.0], [0.5, 0.5]],
    "huge number": [[10**400, 0], [0, 1]],
    "None": None,
}


@pytest.mark.parametrize("bad", list(BAD_MATRICES))
@pytest.mark.parametrize("role", ["target", "draft"])
def test_bad_matrices_are_refused_by_name(bad: str, role: str) -> None:
    good = np.eye(2)
    args = {"target": good, "draft": good} | {role: BAD_MATRICES[bad]}
    with pytest.raises(ValueError, match=role):
        speculative_decode(args["target"], args["draft"], gamma=2, n_tokens=5)
    with pytest.raises(ValueError, match=role):
        decoding_pair(args["target"], args["draft"])


def test_mismatched_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="target and draft"):
        decoding_pair(np.eye(2), np.eye(3))


def test_a_huge_matrix_is_refused_before_any_work() -> None:
    big = np.zeros((MAX_CHAIN_WORDS + 1, MAX_CHAIN_WORDS + 1))
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="target"):
        decoding_pair(big, big)
    assert time.perf_counter() - t0 < 0.1


BAD_RUNS = {
    "gamma": [-1, 1.5, True, "3", None, 10**400, MAX_DECODE_GAMMA + 1, np.nan],
    "n_tokens": [0, -1, 2.5, False, "10", None, MAX_DECODE_TOKENS + 1, np.inf],
    "start": [-1, 3, 1.5, "a", True, None, [], [0] * (MAX_PROMPT + 1), [0, 7]],
    "seed": [-1, 1.5, "x", True, 2**64],
}


@pytest.mark.parametrize(
    ("name", "value"), [(k, v) for k, values in BAD_RUNS.items() for v in values]
)
def test_bad_run_settings_are_refused_by_name(name: str, value: object) -> None:
    args = {"gamma": 2, "n_tokens": 5, "start": 0, "seed": 1} | {name: value}
    with pytest.raises(ValueError, match=name):
        speculative_decode(P, Q, **args)


def test_too_much_work_is_refused_up_front() -> None:
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="n_tokens"):
        speculative_decode(P, Q, gamma=MAX_DECODE_GAMMA, n_tokens=MAX_DECODE_TOKENS)
    with pytest.raises(ValueError, match="runs"):
        decode_batch(decoding_pair(P, Q), gamma=4, n_tokens=1_000, runs=MAX_BATCH_WORK)
    assert time.perf_counter() - t0 < 0.5


@pytest.mark.parametrize("fn", [decode, decode_batch, words_per_call])
def test_pair_functions_want_a_pair(fn) -> None:
    with pytest.raises(ValueError, match="pair"):
        fn(P, gamma=2, n_tokens=3, runs=2) if fn is decode_batch else (
            fn(P, gamma=2, n_tokens=3) if fn is decode else fn(P, gamma=2)
        )


@pytest.mark.parametrize("bad", [-1, 2.5, "1", True, MAX_DECODE_GAMMA + 1])
def test_words_per_call_refuses_a_bad_gamma(bad: object) -> None:
    with pytest.raises(ValueError, match="gamma"):
        words_per_call(decoding_pair(P, Q), gamma=bad)


@pytest.mark.parametrize("bad", [0, -3, 1.5, "9", MAX_BATCH_WORK + 1])
def test_decode_batch_refuses_bad_runs(bad: object) -> None:
    with pytest.raises(ValueError, match="runs"):
        decode_batch(decoding_pair(P, Q), gamma=1, n_tokens=1, runs=bad)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"temperature": -1}, "temperature"),
        ({"temperature": np.nan}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"top_k": 0}, "top_k"),
        ({"top_k": 1.5}, "top_k"),
        ({"top_p": 0}, "top_p"),
        ({"top_p": 1.5}, "top_p"),
        ({"top_p": True}, "top_p"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        with_settings(P, **kwargs)
    with pytest.raises(ValueError, match=name):
        chain_from_logits(np.zeros((2, 2)), **kwargs)


@pytest.mark.parametrize(
    "logits",
    [[[np.nan, 0], [0, 0]], [[np.inf, 0], [0, 0]], [[-np.inf, -np.inf], [0, 0]], [1, 2], "x"],
)
def test_bad_logits_are_refused(logits) -> None:
    with pytest.raises(ValueError, match="logits"):
        chain_from_logits(logits)


def test_autoregressive_decode_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="target"):
        autoregressive_decode([[0.5, 0.4], [0.5, 0.5]], n_tokens=3)
    with pytest.raises(ValueError, match="n_tokens"):
        autoregressive_decode(P, n_tokens=0)
    with pytest.raises(ValueError, match="start"):
        autoregressive_decode(P, n_tokens=3, start=5)


class Broken(LanguageModel):
    """A model whose answers or states are wrong in a chosen way."""

    def __init__(self, how: str) -> None:
        self.how = how

    @property
    def vocab_size(self) -> int:
        return 0 if self.how == "size" else 3

    @property
    def order(self) -> int:
        return 1

    def next_word(self, context: tuple[int, ...]) -> np.ndarray:
        return {
            "nan": np.array([np.nan, 0.5, 0.5]),
            "sum": np.array([0.5, 0.1, 0.1]),
            "length": np.array([0.5, 0.5]),
        }.get(self.how, np.full(3, 1 / 3))

    def state(self, context: tuple[int, ...]) -> tuple[int, ...]:
        return (0, 0, 0) if self.how == "state" else super().state(context)


@pytest.mark.parametrize("how", ["nan", "sum", "length", "state", "size"])
def test_a_broken_model_is_refused_by_name(how: str) -> None:
    with pytest.raises(ValueError, match="target"):
        decoding_pair(Broken(how), Q)


def test_the_pair_is_read_only() -> None:
    pair = decoding_pair(P, Q)
    assert isinstance(pair, DecodingPair)
    with pytest.raises(ValueError):
        pair.p[0] = 1.0
    run = decode(pair, gamma=2, n_tokens=5, seed=1)
    with pytest.raises(ValueError):
        run.tokens[0] = 1


def test_the_cost_model_speedup_is_words_per_call_over_the_calls_cost() -> None:
    from specviz.decoding import cost_model_speedup

    assert cost_model_speedup(3.0, 4, 0.5) == 1.0  # 3 words for 1 + 4·0.5 = 3 target calls
    assert cost_model_speedup(2.5, 0, 7.0) == 2.5  # no drafts: nothing to pay for them
    with pytest.raises(ValueError, match="c \\(draft cost"):
        cost_model_speedup(2.0, 1, -0.1)


@pytest.mark.parametrize(("key", "temperature"), [("ngram", 1.0), ("weak", 2.0), ("strong", 0.7)])
def test_a_compiled_pair_is_each_contexts_one_token_step_bit_for_bit(key, temperature) -> None:
    """The compile computes the steps of many contexts at once; each must be exactly the
    one-token step of that context's two distributions (what the Playground shows)."""
    from specviz.language import pair_models, toy_pair
    from specviz.one_token import checked_step

    target, draft = pair_models(key, temperature)
    pair = decoding_pair(target, draft, start=toy_pair(key).start)
    for s in range(0, pair.size, 7):
        p, q = target.next_word(pair.contexts[s]), draft.next_word(pair.contexts[s])
        one, rows = checked_step(p, q), pair.row(s)
        words = np.flatnonzero((p > 0) | (q > 0))
        assert np.array_equal(pair.word[rows], words)
        assert np.array_equal(pair.p[rows], p[words]) and np.array_equal(pair.q[rows], q[words])
        for name, full in (("accept", one.accept), ("kept", one.kept), ("refill", one.refill),
                           ("bucket", one.bucket_weights)):  # fmt: skip
            assert np.array_equal(getattr(pair, name)[rows], full[words]), (s, name)
        assert pair.alpha[s] == one.alpha, s
