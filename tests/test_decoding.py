"""The multi-token engine (specviz.decoding): the exact law of the text, words per call and calls
per text against predictions made without simulation, the extremes, published figures, and bad
input.

Statistical tests use fixed seeds, so they are deterministic; each states its tolerance. A
chi-square test "passes" at p > 0.001 (a correct sampler with another seed would fail 1 run in
1,000) and "catches a bias" at p < 1e-6. z-scores pass within 4 standard errors. Exact
quantities are compared to 1e-12. No test times the code (benchmarks/bench_decoding.py does).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import gof_pvalue, z_score
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specviz import expected_tokens_per_step, speculative_decode, walltime_speedup
from specviz.decoding import (
    LEVIATHAN_TABLE2,
    DecodingPair,
    Origin,
    _draw,
    _sampler,
    curve,
    decode,
    decode_batch,
    decoding_pair,
    expected_calls,
    ranges,
    words_per_call,
)
from specviz.limits import (
    MAX_BATCH_WORK,
    MAX_DECODE_CONTEXTS,
    MAX_DECODE_ENTRIES,
    MAX_DECODE_GAMMA,
    MAX_DECODE_TOKENS,
)
from specviz.sampling import inverse_cdf

PASS = 1e-3  # chi-square p-value above which an exact sampler passes
Z_MAX = 4.0
EXACT = 1e-12

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


def dense(target: np.ndarray, draft: np.ndarray, gamma: int) -> tuple[np.ndarray, np.ndarray]:
    """An independent computation for first-order chains with dense matrices: ``E[N | s] =
    sum_k (M^k 1)[s]`` and the stationary law of ``K = sum_{k<γ} M^k R + M^γ P`` (an
    eigenvector)."""
    m, r = np.minimum(target, draft), np.maximum(target - draft, 0)
    power = np.linalg.matrix_power
    by_context = sum(power(m, k) @ np.ones(len(m)) for k in range(gamma + 1))
    kernel = sum(power(m, k) @ r for k in range(gamma)) + power(m, gamma) @ target
    values, vectors = np.linalg.eig(kernel.T)
    pi = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    return by_context, pi / pi.sum()


@pytest.fixture(scope="module")
def singles() -> list:
    """20,000 seeded runs of the one-run engine, γ = 3, two words each."""
    pair, rng = decoding_pair(P, Q), np.random.default_rng(5)
    return [decode(pair, gamma=3, n_tokens=2, seed=rng) for _ in range(20_000)]


# --------------------------------------------------------------------------- the law of the text


def test_worked_example_two_step_law_is_the_notes() -> None:
    assert np.allclose(path_law(P, 0, 2).reshape(3, 3), TWO_STEP, atol=EXACT)


@pytest.mark.parametrize("length", [2, 3])
def test_first_words_follow_the_target_chain(length: int) -> None:
    """math.md's example, γ = 4: 200,000 runs, the first two (three) words against
    P[0, a]·P[a, b](·P[b, c])."""
    batch = decode_batch(decoding_pair(P, Q), gamma=4, n_tokens=length, runs=200_000, seed=11)
    assert gof_pvalue(joint_counts(batch.tokens, 3, length), path_law(P, 0, length)) > PASS


@pytest.mark.xdist_group("decoding-singles")  # one worker makes them once
def test_single_runs_follow_the_target_chain(singles) -> None:
    """The one-run engine itself (not the batch form): its first two words."""
    tokens = np.array([run.tokens for run in singles])
    assert gof_pvalue(joint_counts(tokens, 3, 2), TWO_STEP.ravel()) > PASS


@pytest.mark.xdist_group("decoding-singles")  # one worker makes them once
def test_batch_and_single_runs_agree_in_law(singles) -> None:
    """Both engines against each other: the joint law of (guesses kept at the first call, first
    two words), a two-sample chi-square test on 20,000 runs each."""
    from scipy import stats

    one = np.array([[r.accepted_per_call[0], *r.tokens] for r in singles])
    batch = decode_batch(decoding_pair(P, Q), gamma=3, n_tokens=2, runs=20_000, seed=9)
    many = np.column_stack([batch.accepted[:, 0], batch.tokens])
    cells = [np.ravel_multi_index(x.T, (4, 3, 3)) for x in (one, many)]
    table = np.array([np.bincount(c, minlength=36) for c in cells])
    assert stats.chi2_contingency(table[:, table.sum(axis=0) > 0]).pvalue > PASS


def test_the_batch_sampler_maps_uniforms_like_inverse_cdf() -> None:
    """The vectorised draw is the same mapping as sampling.inverse_cdf, draw for draw, the ends
    of [0, 1) included."""
    rng = np.random.default_rng(0)
    weights = rng.random((6, 6)) * (rng.random((6, 6)) > 0.3)
    weights[:, 0] += 0.01  # no empty row
    rows = weights / weights.sum(axis=1, keepdims=True)
    contexts = rng.integers(0, 6, 5_000)
    u = np.r_[rng.random(4_998), 0.0, np.nextafter(1.0, 0.0)]
    got = _draw(_sampler(rows), contexts, u)
    assert got.tolist() == [int(inverse_cdf(rows[s], x)) for s, x in zip(contexts, u, strict=True)]


def test_same_seed_same_run() -> None:
    a = speculative_decode(P, Q, gamma=3, n_tokens=50, seed=4)
    b = speculative_decode(P, Q, gamma=3, n_tokens=50, seed=4)
    assert a.tokens.tolist() == b.tokens.tolist()
    assert a.accepted_per_call.tolist() == b.accepted_per_call.tolist()


# --------------------------------------------------------------------------- words per call


def test_prediction_is_the_notes_two_point_seven_three() -> None:
    """math.md: "tokens per target call come out near 2.73" — the long-run words per call."""
    assert words_per_call(decoding_pair(P, Q), gamma=4).long_run == pytest.approx(2.7292, abs=5e-5)


@pytest.mark.parametrize("gamma", [0, 1, 4, 9])
def test_prediction_matches_matrix_powers(gamma: int) -> None:
    by_context, pi = dense(P, Q, gamma)
    prediction = words_per_call(decoding_pair(P, Q), gamma=gamma)
    law = prediction.first_call_law
    assert law @ np.arange(1, gamma + 2) == pytest.approx(by_context[0], abs=EXACT)
    assert prediction.long_run == pytest.approx(pi @ by_context, abs=1e-10)
    assert prediction.kept_in_a_row.sum() == prediction.long_run
    assert prediction.written.sum() == pytest.approx(prediction.long_run, abs=EXACT)


def test_the_curve_is_each_gamma_on_its_own() -> None:
    pair = decoding_pair(P, Q)
    for g, point in enumerate(curve(pair, top=6)):
        alone = words_per_call(pair, gamma=g)
        assert point.gamma == g and point.long_run == pytest.approx(alone.long_run, abs=EXACT)
        assert np.allclose(point.first_call_law, alone.first_call_law, atol=EXACT)


def test_first_call_words_follow_the_predicted_law() -> None:
    """Words of the first call: their exact law P(N = k) against 100,000 runs (chi-square) and
    their mean (z-score); the first word is a kept guess exactly when the first guess was kept."""
    pair = decoding_pair(P, Q)
    prediction = words_per_call(pair, gamma=4)
    batch = decode_batch(pair, gamma=4, n_tokens=5, runs=100_000, seed=21)
    words = batch.accepted[:, 0] + 1
    assert gof_pvalue(np.bincount(words - 1, minlength=5), prediction.first_call_law) > PASS
    mean = prediction.first_call_law @ np.arange(1, 6)
    assert abs(z_score(words.mean(), mean, words.std() / np.sqrt(words.size))) < Z_MAX
    assert (batch.kept[:, 0] == (batch.accepted[:, 0] > 0)).all()


@pytest.mark.parametrize("gamma", [1, 4, 8])
def test_calls_per_text_match_the_exact_expectation(gamma: int) -> None:
    """Like with like: target calls of 3,000 simulated texts of 60 words against the exact mean
    number of calls for that length (no start-up or last-call bias left to excuse)."""
    pair = decoding_pair(P, Q)
    calls = decode_batch(pair, gamma=gamma, n_tokens=60, runs=3_000, seed=gamma).calls
    expected = expected_calls(pair, gamma=gamma, n_tokens=60)
    assert abs(z_score(calls.mean(), expected, calls.std(ddof=1) / np.sqrt(calls.size))) < Z_MAX


def test_calls_per_word_settle_to_the_long_run() -> None:
    """Renewal: each extra word of a long text costs 1 / (words per call) calls — the exact
    expectation and the long-run prediction, computed two ways, agree."""
    pair = decoding_pair(P, Q)
    more = expected_calls(pair, gamma=4, n_tokens=600) - expected_calls(pair, gamma=4, n_tokens=300)
    assert more / 300 == pytest.approx(1 / words_per_call(pair, gamma=4).long_run, abs=1e-10)


@pytest.mark.parametrize("size", [120, MAX_DECODE_CONTEXTS])
def test_large_chains_are_exact_like_an_eigenvector(size: int) -> None:
    rng = np.random.default_rng(size)
    target = rng.dirichlet(np.full(size, 0.3), size=size)
    draft = 0.5 * target + 0.5 * rng.dirichlet(np.full(size, 0.3), size=size)
    by_context, pi = dense(target, draft, 3)
    prediction = words_per_call(decoding_pair(target, draft), gamma=3)
    assert prediction.long_run == pytest.approx(pi @ by_context, abs=1e-9)


def test_a_slowly_mixing_chain_is_still_exact() -> None:
    """Identical models on a 150-word cycle (a periodic chain that takes ~10^5 steps to settle):
    every call writes γ + 1 words, exactly, and α is exactly 1 — the one rounding rule, so on
    every CPU."""
    cycle = np.roll(np.eye(150), 1, axis=1)
    prediction = words_per_call(decoding_pair(cycle, cycle), gamma=4)
    assert prediction.long_run == 5.0 and prediction.alpha == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_identical_random_models_give_exactly_alpha_one(seed: int) -> None:
    """Whatever the summation order of a long-run law over 150 contexts, identical models keep
    every guess: α = 1.0 and γ + 1 words per call, exactly."""
    chain = np.random.default_rng(seed).dirichlet(np.full(150, 0.2), size=150)
    pair = decoding_pair(chain, chain)
    prediction = words_per_call(pair, gamma=4)
    assert prediction.alpha == 1.0 and prediction.long_run == 5.0
    assert prediction.kept_in_a_row.tolist() == [1.0] * 5
    # A text of 50 words: 10 calls, a whole number under the same rule.
    assert expected_calls(pair, gamma=4, n_tokens=50) == 10.0


def test_iid_words_give_leviathans_formula() -> None:
    """When every row is the same (words independent of the past), acceptances are i.i.d. with
    α = sum(min(p, q)): the exact prediction is the formula (1 - α^(γ+1))/(1 - α)."""
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.2, 0.6])
    pair = decoding_pair(np.tile(p, (3, 1)), np.tile(q, (3, 1)))
    alpha = np.minimum(p, q).sum()
    for gamma in (1, 3, 7):
        prediction = words_per_call(pair, gamma=gamma)
        assert prediction.alpha == pytest.approx(alpha, abs=EXACT)
        assert prediction.long_run == pytest.approx(expected_tokens_per_step(alpha, gamma))
        assert prediction.iid == pytest.approx(prediction.long_run, abs=EXACT)
        assert prediction.speedup(0.1) == pytest.approx(walltime_speedup(alpha, gamma, 0.1))


# --------------------------------------------------------------------------- the extremes


@pytest.mark.parametrize("gamma", [1, 4, 7])
def test_identical_models_accept_everything(gamma: int) -> None:
    run = speculative_decode(P, P, gamma=gamma, n_tokens=100, start=2, seed=3)
    assert (run.accepted_per_call == gamma).all() and (run.verdict == 1).all()
    assert (run.final_origin == Origin.BONUS).all()
    assert run.target_calls == -(-100 // (gamma + 1))
    assert run.draft_calls == gamma * run.target_calls
    prediction = words_per_call(decoding_pair(P, P), gamma=gamma)
    assert prediction.long_run == gamma + 1 and prediction.alpha == 1.0
    assert prediction.first_call_law.tolist() == [0.0] * gamma + [1.0]
    calls = expected_calls(decoding_pair(P, P), gamma=gamma, n_tokens=100)
    assert calls == -(-100 // (gamma + 1))  # the one rounding rule: a whole number, exactly


def test_disjoint_models_accept_nothing_and_still_emit_the_target() -> None:
    target = np.array([[0.7, 0.3, 0, 0], [0.2, 0.8, 0, 0], [0.5, 0.5, 0, 0], [0.1, 0.9, 0, 0]])
    draft = np.array([[0, 0, 0.5, 0.5], [0, 0, 0.9, 0.1], [0, 0, 0.3, 0.7], [0, 0, 0.6, 0.4]])
    pair = decoding_pair(target, draft)
    run = decode(pair, gamma=4, n_tokens=200, seed=1)
    assert (run.accepted_per_call == 0).all() and (run.origin == Origin.BUCKET).all()
    assert run.target_calls == 200 and words_per_call(pair, gamma=4).long_run == 1.0
    assert expected_calls(pair, gamma=4, n_tokens=50) == pytest.approx(50, abs=EXACT)
    batch = decode_batch(pair, gamma=4, n_tokens=2, runs=100_000, seed=2)
    assert (batch.accepted[:, :2] == 0).all() and not batch.kept.any()
    assert gof_pvalue(joint_counts(batch.tokens, 4, 2), path_law(target, 0, 2)) > PASS


def test_a_word_the_target_never_says_is_never_emitted() -> None:
    """A draft that loves a word the target forbids (a safety filter): always rejected."""
    target = np.array([[0.5, 0.5, 0.0]] * 3)
    draft = np.array([[0.0, 0.1, 0.9], [0.1, 0.0, 0.9], [0.05, 0.05, 0.9]])
    batch = decode_batch(decoding_pair(target, draft), gamma=5, n_tokens=50, runs=2_000, seed=3)
    assert not (batch.tokens == 2).any()


def test_gamma_zero_is_plain_decoding() -> None:
    run = speculative_decode(P, Q, gamma=0, n_tokens=30, seed=1)
    assert run.target_calls == 30 and run.draft_calls == 0 and (run.origin == Origin.BONUS).all()
    batch = decode_batch(decoding_pair(P, Q), gamma=0, n_tokens=2, runs=50_000, seed=4)
    assert gof_pvalue(joint_counts(batch.tokens, 3, 2), TWO_STEP.ravel()) > PASS


def test_the_last_call_is_cut_at_n_tokens() -> None:
    run = speculative_decode(P, P, gamma=4, n_tokens=7, seed=1)
    assert run.tokens.size == 7 and run.target_calls == 2
    assert run.call_of.tolist() == [0] * 5 + [1] * 2
    assert run.words_per_call == 3.5
    assert run.speedup(0.5) == pytest.approx(7 / (2 + 0.5 * 8), abs=EXACT)


def test_the_record_tells_the_story_of_each_call() -> None:
    run = speculative_decode(P, Q, gamma=4, n_tokens=400, seed=6)
    cursor = 0
    for c in range(run.target_calls):
        k = int(run.accepted_per_call[c])
        assert run.verdict[c].tolist() == [1] * k + ([0] + [-1] * (3 - k) if k < 4 else [])
        words = [*run.drafts[c, :k].tolist(), int(run.final_word[c])]
        origins = [Origin.ACCEPTED] * k + [Origin.BUCKET if k < 4 else Origin.BONUS]
        assert run.final_origin[c] == origins[-1]
        shown = run.tokens[cursor : cursor + k + 1].tolist()
        assert shown == words[: len(shown)]
        assert run.origin[cursor : cursor + k + 1].tolist() == origins[: len(shown)]
        cursor += k + 1
    checked = run.verdict >= 0
    keep = np.minimum(1, run.draft_p[checked] / run.draft_q[checked])
    assert np.allclose(run.keep_chance[checked], keep, atol=EXACT)


# --------------------------------------------------------------------------- contexts of two words


def test_a_second_order_target_with_a_first_order_draft() -> None:
    """Contexts are pairs of words (a·3 + b), ``follow`` leads from (a, b) and w to (b, w): the
    first two words follow the second-order law, the first call its predicted law."""
    rng = np.random.default_rng(4)
    table = rng.dirichlet(np.ones(3), size=(3, 3)).reshape(9, 3)
    follow = np.array([[(s % 3) * 3 + w for w in range(3)] for s in range(9)])
    pair = decoding_pair(table, Q[np.arange(9) % 3], follow=follow, start=3)
    law = np.array([table[3, a] * table[a, b] for a in range(3) for b in range(3)])
    batch = decode_batch(pair, gamma=3, n_tokens=2, runs=100_000, seed=5)
    assert gof_pvalue(joint_counts(batch.tokens, 3, 2), law) > PASS
    words = batch.accepted[:, 0] + 1
    mean = words_per_call(pair, gamma=3).first_call_law @ np.arange(1, 5)
    assert abs(z_score(words.mean(), mean, words.std() / np.sqrt(words.size))) < Z_MAX


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


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(chains())
def test_random_chains_keep_every_invariant(case) -> None:
    target, draft, gamma = case
    pair = decoding_pair(target, draft)
    prediction = words_per_call(pair, gamma=gamma)
    law = prediction.first_call_law
    assert law.min() >= 0 and law.sum() == pytest.approx(1.0, abs=EXACT)
    assert 1 <= prediction.long_run <= gamma + 1
    assert np.all(np.diff(prediction.kept_in_a_row) <= EXACT)
    by_context, _ = dense(target, draft, gamma)
    assert prediction.first_call_law @ np.arange(1, gamma + 2) == pytest.approx(by_context[0])
    run = decode(pair, gamma=gamma, n_tokens=60, seed=1)
    assert run.tokens.size == 60 and run.draft_calls == gamma * run.target_calls
    context = 0
    for word in run.tokens:
        assert target[context, word] > 0, "a word the target cannot say was emitted"
        context = word


@settings(
    max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(chains())
def test_random_chains_emit_the_target_law(case) -> None:
    """On every generated pair: 40,000 runs, the first two words against P[0, a]·P[a, b], and
    the first call's words against their predicted law."""
    target, draft, gamma = case
    pair = decoding_pair(target, draft)
    size = target.shape[0]
    batch = decode_batch(pair, gamma=gamma, n_tokens=2, runs=40_000, seed=size + gamma)
    assert gof_pvalue(joint_counts(batch.tokens, size, 2), path_law(target, 0, 2)) > PASS
    counts = np.bincount(batch.accepted[:, 0], minlength=gamma + 1)
    assert gof_pvalue(counts, words_per_call(pair, gamma=gamma).first_call_law) > PASS


# --------------------------------------------------------------------------- published figures


def test_four_of_twelve_cells_beat_the_formulas_own_ceiling() -> None:
    assert len(LEVIATHAN_TABLE2) == 12
    above = [(c.setting, c.draft) for c in LEVIATHAN_TABLE2 if c.speedup > c.ceiling]
    assert above == [
        ("En→De, T=1", "T5-small"),
        ("CNN/DM, T=0", "T5-small"),
        ("CNN/DM, T=1", "T5-small"),
        ("CNN/DM, T=1", "T5-base"),
    ]
    cnn = next(c for c in LEVIATHAN_TABLE2 if c.setting == "CNN/DM, T=0" and c.draft == "T5-small")
    assert (cnn.alpha, cnn.gamma, cnn.speedup) == (0.65, 5, 3.1)
    assert round(cnn.ceiling, 2) == 2.64


def test_ranges_have_their_sources_and_no_alpha() -> None:
    """The comments' 1.8–2.5× beside Leviathan et al.'s 2–3× and Chen et al.'s 2–2.5×."""
    assert [(r.source, r.speedup, r.high) for r in ranges()] == [
        ("the article's comments", 1.8, 2.5),
        ("Leviathan et al. 2023", 2, 3),
        ("Chen et al. 2023", 2, 2.5),
    ]
    assert all(r.alpha is None and r.ceiling is None and r.setting for r in ranges())


# --------------------------------------------------------------------------- bad input

BAD_TABLES = {
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


@pytest.mark.parametrize("bad", list(BAD_TABLES))
@pytest.mark.parametrize("role", ["target", "draft"])
def test_bad_tables_are_refused_by_name(bad: str, role: str) -> None:
    args = {"target": np.eye(2), "draft": np.eye(2)} | {role: BAD_TABLES[bad]}
    with pytest.raises(ValueError, match=role):
        speculative_decode(args["target"], args["draft"], gamma=2, n_tokens=5)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"target": np.eye(2), "draft": np.eye(3)}, "target and draft"),
        ({"target": [[0.5, 0.5]], "draft": [[0.5, 0.5]]}, "follow"),
        ({"target": np.eye(2), "draft": np.eye(2), "follow": [[0, 2], [0, 1]]}, "follow"),
        ({"target": np.eye(2), "draft": np.eye(2), "follow": [[0, 0.5], [0, 1]]}, "follow"),
        ({"target": np.eye(2), "draft": np.eye(2), "start": 2}, "start"),
        ({"target": np.zeros((1, MAX_DECODE_ENTRIES + 1)), "draft": np.eye(2)}, "target"),
    ],
)
def test_bad_pairs_are_refused_by_name(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        decoding_pair(**kwargs)


BAD_RUNS = {
    "gamma": [-1, 1.5, True, "3", None, 10**400, MAX_DECODE_GAMMA + 1, np.nan],
    "n_tokens": [0, -1, 2.5, False, "10", None, MAX_DECODE_TOKENS + 1, np.inf],
    "start": [-1, 3, 1.5, "a", True, None],
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
    pair = decoding_pair(P, Q)
    with pytest.raises(ValueError, match="n_tokens"):
        speculative_decode(P, Q, gamma=MAX_DECODE_GAMMA, n_tokens=MAX_DECODE_TOKENS)
    with pytest.raises(ValueError, match="batch"):
        decode_batch(pair, gamma=4, n_tokens=1_000, runs=MAX_BATCH_WORK)
    cycle = np.roll(np.eye(MAX_DECODE_CONTEXTS), 1, axis=1)
    with pytest.raises(ValueError, match="more than"):
        expected_calls(decoding_pair(cycle, cycle), gamma=4, n_tokens=2_000)
    with pytest.raises(ValueError, match="more than a curve"):
        curve(decoding_pair(cycle, cycle), top=MAX_DECODE_GAMMA)
    big = np.roll(np.eye(MAX_DECODE_CONTEXTS + 1), 1, axis=1)
    with pytest.raises(ValueError, match="contexts"):
        words_per_call(decoding_pair(big, big), gamma=1)


@pytest.mark.parametrize(
    "call",
    [
        lambda: decode(P, gamma=2, n_tokens=3),
        lambda: decode_batch(P, gamma=2, n_tokens=3, runs=2),
        lambda: words_per_call(P, gamma=2),
        lambda: curve(P, top=2),
        lambda: expected_calls(P, gamma=2, n_tokens=3),
    ],
)
def test_pair_functions_want_a_pair(call) -> None:
    with pytest.raises(ValueError, match="pair"):
        call()


@pytest.mark.parametrize("bad", [-1, 2.5, "1", True, MAX_DECODE_GAMMA + 1])
def test_predictions_refuse_a_bad_gamma(bad: object) -> None:
    with pytest.raises(ValueError, match="gamma"):
        words_per_call(decoding_pair(P, Q), gamma=bad)
    with pytest.raises(ValueError, match="gamma"):
        expected_calls(decoding_pair(P, Q), gamma=bad, n_tokens=5)


@pytest.mark.parametrize("bad", [0, -3, 1.5, "9", MAX_BATCH_WORK + 1])
def test_decode_batch_refuses_bad_runs(bad: object) -> None:
    with pytest.raises(ValueError, match="runs"):
        decode_batch(decoding_pair(P, Q), gamma=1, n_tokens=1, runs=bad)


def test_the_pair_and_the_run_are_read_only() -> None:
    pair = decoding_pair(P, Q)
    assert isinstance(pair, DecodingPair)
    with pytest.raises(ValueError):
        pair.step.p[0] = 1.0
    with pytest.raises(ValueError):
        decode(pair, gamma=2, n_tokens=5, seed=1).tokens[0] = 1
    given_p = P.copy()
    decoding_pair(given_p * 1.0000001, Q)  # renormalised: a copy, never the caller's array
    assert np.array_equal(given_p, P)


def test_the_speedup_of_a_run_is_words_over_the_calls_cost() -> None:
    run = speculative_decode(P, Q, gamma=3, n_tokens=40, seed=2)
    cost = run.n_tokens / (run.target_calls + 0.5 * run.draft_calls)
    assert run.speedup(0.5) == pytest.approx(cost, abs=EXACT)
    with pytest.raises(ValueError, match="c \\(draft cost"):
        run.speedup(-0.1)
    with pytest.raises(ValueError, match="c \\(draft cost"):
        words_per_call(decoding_pair(P, Q), gamma=2).speedup(np.nan)
