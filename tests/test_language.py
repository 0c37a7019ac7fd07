"""The toy language (specviz.language): the corpus, the n-gram models, Hugging Face's sampling
rules, the page's pairs — the text speculative decoding writes with them follows the target
exactly — and the page's check, like with like, over every setting it offers.

Chi-square tests use fixed seeds and pass at p > 0.001, z-scores within 4 standard errors (see
tests/test_decoding.py); exact quantities are compared to 1e-12.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import gof_pvalue, z_score

from specviz.decoding import decode, decode_batch, decoding_pair, expected_calls, words_per_call
from specviz.figures.decoding import spelled
from specviz.language import (
    END,
    HOTTER,
    STRONG_TOP_P,
    TARGET_WEIGHTS,
    TEXTBOOK_DRAFT,
    TEXTBOOK_TARGET,
    WEAK_TOP_K,
    _ngram_tables,
    corpus,
    toy_check,
    toy_curve,
    toy_pair,
    toy_run,
    toy_words,
)
from specviz.limits import CHECK_WORDS, CURVE_GAMMA, DECODE_COSTS, DECODE_TEMPERATURES, PAIR_KEYS
from specviz.one_token import normalize, step
from specviz.sampling_settings import sampled, top_k
from specviz.scenario import PRESETS
from specviz.theory import expected_tokens_per_step, walltime_speedup

PASS = 1e-3
BIASED = 1e-6
EXACT = 1e-12


# --------------------------------------------------------------------------- the corpus


def test_the_corpus_is_twenty_short_sentences_of_35_words() -> None:
    words, stream = corpus()
    end = words.index(END)
    assert len(words) == 35 and (stream == end).sum() == 20 and stream[-1] == end
    assert (np.diff(np.bincount(stream)) <= 0).all(), "not listed most frequent first"
    assert words[:3] == ("the", END, "cat")


def test_text_is_spelled_with_capitals_after_each_end() -> None:
    words, stream = corpus()
    assert " ".join(spelled(words, stream[:8])) == "The cat sat on the mat . The"


def test_the_models_are_the_corpus_counts() -> None:
    """Bigram rows: what follows a word, counted; the target after a pair the corpus has:
    70 % trigram, 30 % bigram; after a pair it never has, the bigram alone."""
    words, stream = corpus()
    tables, follow, start = _ngram_tables()
    v, ids = len(words), {w: i for i, w in enumerate(words)}
    after_sat = np.zeros(v)
    after_sat[[ids["on"], ids["by"]]] = [5 / 6, 1 / 6]
    assert np.allclose(tables["bigram"][ids["sat"]], after_sat, atol=EXACT)
    pair = follow[ids["cat"], ids["sat"]]  # the context after "cat sat"
    trigram = np.zeros(v)
    trigram[ids["on"]] = 1.0  # "cat sat" is always followed by "on"
    mixed = TARGET_WEIGHTS[0] * trigram + TARGET_WEIGHTS[1] * after_sat
    assert np.allclose(tables["target"][pair], mixed, atol=EXACT)
    unseen = follow[ids["sat"], ids["mat"]]  # "sat mat" never occurs: the context is "mat"
    assert unseen == ids["mat"] and start == ids[END]
    assert np.allclose(tables["target"][unseen], tables["bigram"][ids["mat"]], atol=EXACT)
    assert np.allclose(tables["unigram"][0], np.bincount(stream) / stream.size, atol=EXACT)


# --------------------------------------------------------------------------- Hugging Face's rules


def hf_warp(probs: np.ndarray, t: float, top_k: int | None, top_p: float | None) -> np.ndarray:
    """A numpy port of transformers' generation rules on one distribution: greedy decoding
    (``argmax``, the first maximum) at T = 0; else TemperatureLogitsWarper (scores / T),
    TopKLogitsWarper (``scores < topk(scores, k)[0][..., -1]`` removed) and TopPLogitsWarper
    (an ascending sort, ``softmax(sorted).cumsum() <= 1 - top_p`` removed, the last
    ``min_tokens_to_keep = 1`` kept), in that order, then softmax."""
    if t == 0:
        return np.eye(probs.size)[np.argmax(probs)]
    with np.errstate(divide="ignore"):
        scores = np.log(probs) / t
    softmax = lambda z: np.exp(z - z.max()) / np.exp(z - z.max()).sum()  # noqa: E731
    if t == 1:  # the same numbers as the rows the models give (no round trip through log)
        softmax = lambda z: np.where(np.isinf(z), 0.0, probs) / probs[~np.isinf(z)].sum()  # noqa: E731
    if top_k is not None:
        kth = np.sort(scores)[::-1][min(top_k, scores.size) - 1]
        scores = np.where(scores < kth, -np.inf, scores)
    if top_p is not None:
        order = np.argsort(scores, kind="stable")
        remove = np.cumsum(softmax(scores)[order]) <= 1 - top_p
        remove[-1] = False
        scores[order[remove]] = -np.inf
    return softmax(scores)


def test_top_k_keeps_every_word_tied_with_the_kth() -> None:
    """Issue 17's case: [.3, .3, .3, .1] at k = 2 keeps three words, as Hugging Face does."""
    out = sampled(np.array([[0.3, 0.3, 0.3, 0.1]]), 1.0, top_k=2)
    assert np.allclose(out, [[1 / 3, 1 / 3, 1 / 3, 0]], atol=EXACT)


def test_top_k_of_one_vector_is_the_same_rule() -> None:
    """The bug zoo's top-k draft: one row of :func:`sampled` at T = 1."""
    assert top_k([0.3, 0.3, 0.3, 0.1], 2) == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0], abs=EXACT)
    assert top_k([0.2, 0.5, 0.3], 2) == pytest.approx([0, 0.625, 0.375], abs=EXACT)
    assert top_k([0.2, 0.5, 0.3], 10).tolist() == [0.2, 0.5, 0.3]


def test_top_p_removes_while_the_mass_from_below_is_at_most_one_minus_p() -> None:
    """[.5, .3, .2] at p = .8: from the bottom .2 > 1 − .8 = 0.19999999999999996 in float64, so
    all three stay; at p = .75 the .2 goes."""
    rows = np.array([[0.5, 0.3, 0.2]])
    assert np.count_nonzero(sampled(rows, 1.0, top_p=0.8)) == 3
    assert np.allclose(sampled(rows, 1.0, top_p=0.75), [[0.625, 0.375, 0]], atol=EXACT)
    assert np.count_nonzero(sampled(rows, 1.0, top_p=1e-9)) == 1  # the likeliest always stays


def test_temperature_zero_is_greedy_the_first_argmax() -> None:
    assert sampled(np.array([[0.2, 0.4, 0.4]]), 0.0).tolist() == [[0.0, 1.0, 0.0]]
    assert sampled(np.array([[0.2, 0.4, 0.4]]), 0.0, top_k=1, top_p=0.1).tolist() == [[0, 1, 0]]


@pytest.mark.parametrize(
    ("t", "nuclei"), [(0.0, (0.5, 0.875)), (0.5, ()), (1.0, (0.5, 0.75, 0.875, 0.9)), (2.0, (0.9,))]
)
def test_the_rules_match_a_port_of_hugging_face_on_ties_and_boundaries(t: float, nuclei) -> None:
    """3,000 distributions in sixteenths (ties everywhere, and cumulative sums that land on
    1 − p exactly, with no rounding to decide it): the same words kept, the same probabilities,
    as the port. Top-p is compared where the sums are exact (T = 1) or never tie (T = 2)."""
    rng = np.random.default_rng(int(10 * t))
    rows = rng.multinomial(16, np.full(6, 1 / 6), size=3_000) / 16
    settings = [(k, p) for k in (None, 1, 2, 4) for p in (None, *nuclei)]
    for i, (k, p) in enumerate(settings):
        part = rows[i :: len(settings)]
        want = np.array([hf_warp(row, t, k, p) for row in part])
        got = sampled(part, t, top_k=k, top_p=p)
        assert ((got > 0) == (want > 0)).all(), (k, p)
        assert np.allclose(got, want, atol=1e-12), (k, p)


LOGITS_TARGET = np.array([2.0, 1.0, 0.5, -1.0])
LOGITS_DRAFT = np.array([1.0, 2.0, 0.0, 0.8])


def softmax_rows(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(("t", "alpha"), [(1.0, 0.533), (0.5, 0.240), (2.0, 0.747)])
def test_temperature_changes_alpha_as_in_the_notes(t: float, alpha: float) -> None:
    """math.md: logits target [2, 1, .5, -1], draft [1, 2, 0, .8] → α = .533 / .240 / .747."""
    target = sampled(np.tile(softmax_rows(LOGITS_TARGET), (4, 1)), t)
    draft = sampled(np.tile(softmax_rows(LOGITS_DRAFT), (4, 1)), t)
    pair = decoding_pair(target, draft)
    assert np.allclose(pair.step.alpha, alpha, atol=5e-4)
    assert words_per_call(pair, gamma=3).alpha == pytest.approx(alpha, abs=5e-4)


SETTINGS = {"temperature": 0.7, "top_k": 3, "top_p": 0.9}


def chains(draft_settings: dict | None, target_settings: dict | None) -> tuple:
    """A 5-word target and a related draft (its logits plus noise), each with its settings."""
    rng = np.random.default_rng(17)
    logits = rng.normal(0, 1.5, (5, 5))
    raw = softmax_rows(logits), softmax_rows(logits + rng.normal(0, 0.8, (5, 5)))

    def adjust(rows: np.ndarray, s: dict | None) -> np.ndarray:
        return (
            rows if s is None else sampled(rows, s["temperature"], s.get("top_k"), s.get("top_p"))
        )

    return adjust(raw[0], target_settings), adjust(raw[1], draft_settings), raw[0]


def first_words(target: np.ndarray, draft: np.ndarray, seed: int) -> np.ndarray:
    tokens = decode_batch(
        decoding_pair(target, draft), gamma=4, n_tokens=2, runs=200_000, seed=seed
    ).tokens
    return np.bincount(tokens[:, 0] * 5 + tokens[:, 1], minlength=25)


def path_law(matrix: np.ndarray) -> np.ndarray:
    return np.array([matrix[0, a] * matrix[a, b] for a in range(5) for b in range(5)])


def pvalue(counts: np.ndarray, law: np.ndarray) -> float:
    """Chi-square p-value; 0 when a path the law forbids was emitted (infinitely unlikely)."""
    return 0.0 if counts[law == 0].sum() else gof_pvalue(counts, law)


def test_settings_on_both_models_stay_exact() -> None:
    target, draft, _ = chains(SETTINGS, SETTINGS)
    assert words_per_call(decoding_pair(target, draft), gamma=4).alpha > 0.5
    assert pvalue(first_words(target, draft, 1), path_law(target)) > PASS


@pytest.mark.parametrize("kwargs", [{"temperature": 0.5}, SETTINGS])
def test_settings_on_the_draft_only_are_caught_as_biased(kwargs: dict) -> None:
    """The settings reach only the draft: the text follows the raw target, not the adjusted
    one the learner asked for — chi-square rejects it."""
    wanted, _, _ = chains(None, kwargs)
    _, draft, raw = chains(kwargs, None)
    assert pvalue(first_words(raw, draft, 2), path_law(wanted)) < BIASED


def test_settings_on_the_target_only_stay_exact_but_accept_less() -> None:
    target, raw_draft, _ = chains(None, SETTINGS)
    both, _, _ = chains(SETTINGS, SETTINGS)
    assert pvalue(first_words(target, raw_draft, 3), path_law(target)) > PASS
    alpha = [words_per_call(decoding_pair(target, d), gamma=4).alpha for d in (raw_draft, both)]
    assert alpha[0] < alpha[1]


# --------------------------------------------------------------------------- the page's pairs


@pytest.mark.parametrize(("key", "t"), list(itertools.product(PAIR_KEYS, DECODE_TEMPERATURES)))
def test_every_pair_builds_at_every_temperature(key: str, t: float) -> None:
    pair = toy_pair(key, t)
    assert np.allclose(pair.step.p.sum(axis=1), 1, atol=EXACT)
    assert np.allclose(pair.step.q.sum(axis=1), 1, atol=EXACT)
    assert pair.step.p.shape[1] == len(toy_words(key))


def test_the_pairs_teach_what_their_names_say() -> None:
    alpha = {key: toy_curve(key, 1.0)[4].alpha for key in PAIR_KEYS}
    assert alpha["perfect"] == 1.0
    assert alpha["weak"] == min(alpha.values()) < 0.3
    assert alpha["strong"] > alpha["ngram"] > 0.7
    assert alpha["hotter"] < 1 and toy_curve("hotter", 0.0)[4].alpha == 1.0  # T = 0: both greedy
    assert (STRONG_TOP_P, HOTTER, WEAK_TOP_K) == (0.8, 2.0, 8)


def test_the_weak_draft_guesses_the_commonest_words_and_their_ties() -> None:
    q = toy_pair("weak", 1.0).step.q[0]
    counts = np.bincount(corpus()[1])
    assert np.count_nonzero(q) == (counts >= np.sort(counts)[::-1][WEAK_TOP_K - 1]).sum()
    assert toy_pair("weak", 0.0).step.q[:, 0].tolist() == [1.0] * toy_pair("weak", 0.0).size


def test_the_worked_example_is_the_notes() -> None:
    pair = toy_pair("textbook", 1.0)
    assert np.array_equal(pair.step.p, TEXTBOOK_TARGET)
    assert np.array_equal(pair.step.q, TEXTBOOK_DRAFT)
    assert toy_curve("textbook", 1.0)[4].long_run == pytest.approx(2.7292, abs=5e-5)


def test_a_text_starts_a_sentence() -> None:
    run = toy_run("ngram", 1.0, 4, 30, 7)
    assert spelled(toy_words("ngram"), run.tokens)[0] == "The"


@pytest.mark.parametrize(
    ("key", "t"),
    [
        ("nope", 1.0),
        ("ngram", -1),
        ("ngram", "1"),
        (3, 1.0),
        (((1, 2, 3),), 1.0),
        (((0, 0, 0), (1, 2, 3)), 1.0),  # the Playground's target, all zero
    ],
)
def test_bad_pairs_are_refused(key, t) -> None:
    with pytest.raises(ValueError, match=r"key|temperature|zero"):
        toy_pair(key, t)


@pytest.mark.parametrize(
    "call",
    [
        lambda: toy_run("ngram", 1.0, -1, 30, 7),
        lambda: toy_run("ngram", 1.0, 4, 0, 7),
        lambda: toy_run("ngram", 1.0, 4, 30, None),
        lambda: toy_check(1.0, 99),
        lambda: sampled(np.ones((1, 2)) / 2, 1.0, top_k=0),
        lambda: sampled(np.ones((1, 2)) / 2, 1.0, top_p=0),
        lambda: sampled(np.ones((1, 2)) / 2, np.nan),
    ],
)
def test_bad_settings_are_refused(call) -> None:
    with pytest.raises(ValueError):
        call()


# --------------------------------------------------------------------------- the text's law


def test_the_ngram_pair_writes_text_with_the_targets_law() -> None:
    """200,000 texts of two words after a sentence end: their joint law against the target's
    P(a | .)·P(b | ., a)."""
    pair = toy_pair("ngram", 1.0)
    size, first = pair.step.p.shape[1], pair.step.p[pair.start]
    law = first[:, None] * pair.step.p[pair.follow[pair.start]]
    batch = decode_batch(pair, gamma=4, n_tokens=2, runs=200_000, seed=13)
    counts = np.bincount(batch.tokens[:, 0] * size + batch.tokens[:, 1], minlength=size * size)
    assert gof_pvalue(counts, law.ravel()) > PASS


def test_shares_of_kept_guesses_are_exact_and_match_long_texts() -> None:
    """Exact identities (a call writes N words, N - 1 of them kept guesses; a long text's words
    follow the target), then the commonest words' kept shares against 1,000 texts of 200
    words, read after their first 50 words (a ratio of sums over independent texts)."""
    pair, prediction = toy_pair("ngram", 1.0), toy_curve("ngram", 1.0)[4]
    assert prediction.guessed.sum() == pytest.approx(prediction.long_run - 1, abs=EXACT)
    assert prediction.written.sum() == pytest.approx(prediction.long_run, abs=EXACT)
    batch = decode_batch(pair, gamma=4, n_tokens=200, runs=1_000, seed=15)
    tokens, kept = batch.tokens[:, 50:], batch.kept[:, 50:]
    for word in np.argsort(-prediction.written)[:5]:
        n, k = (tokens == word).sum(axis=1), ((tokens == word) & kept).sum(axis=1)
        ratio = k.sum() / n.sum()
        error = (k - ratio * n).std(ddof=1) * np.sqrt(n.size) / n.sum()
        share = prediction.guessed[word] / prediction.written[word]
        assert abs(z_score(ratio, share, error)) < 4, corpus()[0][word]


def test_a_cheap_draft_gets_the_easy_words_right() -> None:
    """The reason speculative decoding works: "." and "the" are kept guesses far more often
    than the nouns after them."""
    prediction, words = toy_curve("ngram", 1.0)[4], corpus()[0]
    share = prediction.guessed / np.maximum(prediction.written, 1e-300)
    easy = [words.index(w) for w in (END, "the", "on")]
    nouns = [words.index(w) for w in ("mat", "table", "door", "bird")]
    assert share[easy].min() > share[nouns].max()


def test_a_run_is_the_same_for_the_same_seed() -> None:
    a, b = toy_run("strong", 0.7, 3, 60, 5), toy_run("strong", 0.7, 3, 60, 5)
    assert a.tokens.tolist() == b.tokens.tolist()
    assert decode(toy_pair("strong", 0.7), gamma=3, n_tokens=60, seed=5).tokens.tolist() == (
        a.tokens.tolist()
    )


# --------------------------------------------------------------------------- the page's check


def test_the_check_covers_its_prediction_95_percent_of_the_time_over_all_rows() -> None:
    """Like with like over every setting the page offers (6 pairs × 6 temperatures × γ = 1..8,
    288 rows): calls of simulated texts of CHECK_WORDS words against the exact mean for that
    length. ± 2 standard errors cover it in about 95 % of rows: at least 90 % here (a fair
    coin would need 4 SE of bad luck to fail); rows without noise (greedy decoding, the
    perfect draft) match exactly."""
    covered, rows = 0, 0
    for t in DECODE_TEMPERATURES:
        for gamma in range(1, 9):
            for m in toy_check(t, gamma):
                rows += 1
                gap = abs(m.mean_calls - m.expected_calls)
                if m.std_error == 0:
                    assert gap <= 1e-9 * m.expected_calls, (t, gamma, m)
                covered += gap <= 2 * m.std_error + 1e-9 * m.expected_calls
    assert rows == 288 and covered / rows >= 0.90, covered


def test_the_check_predicts_what_the_engine_computes() -> None:
    for m, key in zip(toy_check(1.0, 4), PAIR_KEYS, strict=True):
        pair = toy_pair(key, 1.0)
        assert m.key == key
        assert m.expected_calls == expected_calls(pair, gamma=4, n_tokens=CHECK_WORDS)
        assert m.prediction.long_run == toy_curve(key, 1.0)[4].long_run
    assert len(toy_curve("ngram", 1.0)) == CURVE_GAMMA + 1


# ------------------------------------------------------------------ your pair, the Playground's

#: The Playground's pairs: its presets (α = 0.9, 0, 1, ..., a one-hot target) and one word each.
YOURS = [(p.p_weights, p.q_weights) for p in PRESETS] + [
    ((0, 100, 0), (0, 100, 0)),
    ((100, 0, 0), (0, 0, 7)),
]


@pytest.mark.parametrize("weights", YOURS, ids=[p.key for p in PRESETS] + ["one_word", "two_words"])
def test_your_pair_is_the_simple_formula_exactly(weights) -> None:
    """One context, the same α at every guess: the exact prediction is the i.i.d. formula and
    the speed-up theory's, for every γ and c, and α is the Playground's (α = 0 and 1 exactly)."""
    # The Playground's step (one or two words are pairs of this page, not Playground states).
    alpha = step(normalize(weights[0]), normalize(weights[1]))
    curve = toy_curve(weights, 1.0)
    assert toy_pair(weights, 1.0).size == 1
    for w in curve:
        assert w.alpha == pytest.approx(alpha.alpha, abs=EXACT)
        assert abs(w.long_run - expected_tokens_per_step(w.alpha, w.gamma)) <= EXACT
        assert w.iid == expected_tokens_per_step(w.alpha, w.gamma)
        for c in DECODE_COSTS:
            assert abs(w.speedup(c) - walltime_speedup(w.alpha, w.gamma, c)) <= EXACT
    if alpha.alpha in (0.0, 1.0):
        assert [w.long_run for w in curve] == [1 + alpha.alpha * g for g in range(CURVE_GAMMA + 1)]


SIMULATED = [(YOURS[i], g) for i, g in ((0, 4), (1, 4), (2, 4), (5, 2), (6, 8))]


@pytest.mark.parametrize(("weights", "gamma"), SIMULATED)
def test_your_pairs_simulated_text_writes_the_formulas_words_per_call(weights, gamma) -> None:
    """A text of 50,000 words (seed 3): the calls it takes against renewal theory's n/μ, with
    standard error √(n σ²/μ³) for μ, σ² the words a call writes (α^(k-1)(1 - α) for k ≤ γ, α^γ
    for γ + 1); within 4 standard errors (exactly n/μ at α = 0 and 1, where σ² = 0)."""
    n = 50_000 if gamma < 8 else 55_000
    alpha = toy_curve(weights, 1.0)[gamma].alpha
    k = np.arange(1, gamma + 2)
    law = np.r_[alpha ** (k[:-1] - 1) * (1 - alpha), alpha**gamma]
    mu, var = law @ k, law @ k**2 - (law @ k) ** 2
    assert mu == pytest.approx(expected_tokens_per_step(alpha, gamma), abs=EXACT)
    run = toy_run(weights, 1.0, gamma, n, 3)
    assert abs(z_score(run.target_calls, n / mu, np.sqrt(n * var / mu**3))) < 4
