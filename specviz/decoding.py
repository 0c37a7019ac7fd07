"""Speculative decoding: many words per target call (Leviathan et al.'s Algorithm 1) over toy
language models, and words per call and calls per text predicted exactly, without simulation.

Two models are tables over **contexts** (what they read of the text so far): row ``s`` is the
next-word distribution after context ``s``, ``follow[s, w]`` the context after word ``w``. One
target call: the draft guesses ``gamma`` words; the target keeps them left to right while
``u·q_s(x) < p_s(x)``; at the first rejection it draws a word from that context's leftover
bucket, and when every guess is kept it gives a **bonus** word. Each call writes 1 to ``gamma +
1`` words, and the text has exactly the target's law.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import generator, prob_table, real_array, short, whole
from specviz.limits import (
    MAX_BATCH_WORK,
    MAX_CALLS_WORK,
    MAX_CURVE_WORK,
    MAX_DECODE_CONTEXTS,
    MAX_DECODE_GAMMA,
    MAX_DECODE_TOKENS,
    MAX_DECODE_WORK,
    ROUNDING,
)
from specviz.one_token import OneTokenStep, step_rows
from specviz.sampling import SeedLike
from specviz.text import say
from specviz.theory import expected_tokens_per_step, speedup


class _ReadOnly:
    """A result whose arrays are read-only: a cached result is shared by every session."""

    def __post_init__(self) -> None:
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)


def _snap(chances: np.ndarray) -> np.ndarray:
    """The one rounding rule on chances: within :data:`~specviz.limits.ROUNDING` of 0 or 1 they
    are 0 or 1 (identical models keep every guess: α = 1 exactly, whatever the summation order)."""
    chances = np.where(np.abs(chances) <= ROUNDING, 0.0, chances)
    return np.where(np.abs(1.0 - chances) <= ROUNDING, 1.0, chances)


@dataclass(frozen=True, eq=False)
class DecodingPair(_ReadOnly):
    """A target and a draft over S contexts and V words: ``step``, each context's one-token step
    (:func:`~specviz.one_token.step_rows`: read-only (S, V) tables, ``step.p`` the target and
    ``step.q`` the draft), ``follow`` the context after each word, ``start`` the first context."""

    step: OneTokenStep
    follow: np.ndarray
    start: int

    @property
    def size(self) -> int:
        """S, the number of contexts."""
        return int(self.step.p.shape[0])


def decoding_pair(
    target: ArrayLike, draft: ArrayLike, *, follow: ArrayLike | None = None, start: int = 0
) -> DecodingPair:
    """A target and a draft, (S, V) tables, as a :class:`DecodingPair`: ``follow`` (S, V) is the
    context after each word (default: the word itself), ``start`` the first context."""
    p, q = prob_table(target, "target"), prob_table(draft, "draft")
    if p.shape != q.shape:
        raise ValueError(f"target and draft must have one shape; got {p.shape} and {q.shape}")
    size, vocab = p.shape
    if follow is None:
        if size != vocab:
            raise ValueError(f"follow is needed: {size} contexts are not the {vocab} words")
        nxt = np.tile(np.arange(vocab), (size, 1))
    else:
        nxt = real_array(follow, "follow", "a table of context numbers")
        if nxt.shape != p.shape or nxt.min() < 0 or nxt.max() >= size or (nxt % 1).any():
            raise ValueError(f"follow must be a {p.shape} table of contexts 0..{size - 1}")
    first = whole(start, "start (the first context)", maximum=size - 1)
    return DecodingPair(step_rows(p, q), nxt.astype(np.int64), first)


class Origin(enum.IntEnum):
    """Where a written word came from."""

    ACCEPTED = 0  #: a guess of the draft the target kept
    BUCKET = 1  #: drawn from the leftover bucket after a rejection
    BONUS = 2  #: every guess was kept, and the same target call gives one more


@dataclass(frozen=True, eq=False)
class Decoding(_ReadOnly):
    """One run, read-only: per written word its id, :class:`Origin` and call; per call and guess
    (C, gamma) the word, the verdict (1 kept, 0 rejected, -1 never checked), ``min(1, p/q)`` and
    the two probabilities; per call the guesses kept and the word written after them."""

    tokens: np.ndarray
    origin: np.ndarray
    call_of: np.ndarray
    drafts: np.ndarray
    verdict: np.ndarray
    keep_chance: np.ndarray
    draft_p: np.ndarray
    draft_q: np.ndarray
    accepted_per_call: np.ndarray
    final_word: np.ndarray
    final_origin: np.ndarray
    gamma: int
    n_tokens: int
    target_calls: int
    draft_calls: int

    @property
    def words_per_call(self) -> float:
        """``n_tokens / target_calls`` (the last call may be cut at ``n_tokens``)."""
        return self.n_tokens / self.target_calls

    def speedup(self, c: float) -> float:
        """This run's :func:`~specviz.theory.speedup` when a draft step costs ``c``."""
        return speedup(self.words_per_call, self.gamma, c)


def _check_run(gamma: object, n_tokens: object) -> tuple[int, int]:
    g = whole(gamma, "gamma (drafts per target call)", maximum=MAX_DECODE_GAMMA)
    n = whole(n_tokens, "n_tokens", minimum=1, maximum=MAX_DECODE_TOKENS)
    if n * (g + 1) > MAX_DECODE_WORK:
        raise ValueError(
            f"n_tokens x (gamma + 1) = {n * (g + 1):,} model steps is more than "
            f"one run takes ({MAX_DECODE_WORK:,})"
        )
    return g, n


def _pair(pair: object) -> DecodingPair:
    if not isinstance(pair, DecodingPair):
        raise ValueError(f"pair must be a DecodingPair (see decoding_pair); got {short(pair)}")
    return pair


def _cumulative(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the cumulative sums that :func:`~specviz.sampling.inverse_cdf` searches, and the
    last word of positive weight (where it sends ``u·total`` rounded up to the total)."""
    last = weights.shape[1] - 1 - np.argmax(weights[:, ::-1] > 0, axis=1)
    return np.cumsum(weights, axis=1), last


def decode(pair: DecodingPair, *, gamma: int, n_tokens: int, seed: SeedLike = None) -> Decoding:
    """Write ``n_tokens`` words (the last call cut there) with ``gamma`` guesses per target call
    (0: plain decoding); the same int ``seed`` gives the same run."""
    pair, (g, n), rng = _pair(pair), _check_run(gamma, n_tokens), generator(seed)
    one, size, random = pair.step, pair.step.p.shape[1], rng.random
    # Python lists and bisect: the same comparisons as np.searchsorted, without numpy's cost
    # per call. The one mapping from a uniform to a word (sampling.inverse_cdf), row by row.
    guess, bucket, bonus = (
        [x.ravel().tolist() for x in _cumulative(w)] for w in (one.q, one.bucket_weights, one.p)
    )
    follow, p, q = (x.ravel().tolist() for x in (pair.follow, one.p, one.q))

    def draw(table: list[list], s: int) -> int:
        (cum, last), lo = table, s * size
        return min(bisect_right(cum, random() * cum[lo + size - 1], lo, lo + size) - lo, last[s])

    calls, s, written = [], pair.start, 0  # s: the context; a guess: its entry s * size + word
    while written < n:
        guesses = []
        for _ in range(g):  # the draft runs ahead on its own guesses
            guesses.append(s * size + draw(guess, s))
            s = follow[guesses[-1]]
        # One target call checks them left to right, up to the first rejection.
        kept = next((i for i, at in enumerate(guesses) if not random() * q[at] < p[at]), g)
        if kept < g:  # a word from the rejected guess's bucket; else the bonus after the last
            s = guesses[kept] // size
        final = draw(bucket if kept < g else bonus, s)
        s = follow[s * size + final]
        calls.append((guesses, kept, final))
        written += kept + 1
    guessed, kept, finals = (np.array(x, dtype=np.int64) for x in zip(*calls, strict=True))
    where, drafts = np.divmod(guessed.reshape(len(calls), g), size)
    ends = np.where(kept < g, Origin.BUCKET, Origin.BONUS).astype(np.int8)  # how each call ended
    column = np.arange(g + 1)
    said = column <= kept[:, None]  # each call's words, left to right: the guesses kept, then
    words = np.c_[drafts, finals]
    words[np.arange(len(calls)), kept] = finals  # the word written after them
    origin = np.where(column < kept[:, None], Origin.ACCEPTED, ends[:, None])[said]
    return Decoding(
        tokens=words[said][:n],
        origin=origin[:n].astype(np.int8),
        call_of=np.repeat(np.arange(len(calls)), kept + 1)[:n],
        drafts=drafts,
        verdict=np.sign(kept[:, None] - column[:g]).astype(np.int8),  # 1, then 0, then -1
        keep_chance=one.accept[where, drafts],
        draft_p=one.p[where, drafts],
        draft_q=one.q[where, drafts],
        accepted_per_call=kept,
        final_word=finals,
        final_origin=ends,
        gamma=g,
        n_tokens=n,
        target_calls=len(calls),
        draft_calls=len(calls) * g,
    )


def speculative_decode(
    target: ArrayLike,
    draft: ArrayLike,
    *,
    gamma: int,
    n_tokens: int,
    start: int = 0,
    seed: SeedLike = None,
) -> Decoding:
    """Write ``n_tokens`` words after word ``start`` with ``gamma`` guesses per call
    (:func:`decode`) from (V, V) first-order chains ``target`` and ``draft`` (row ``i``: after
    word ``i``); the words follow the target exactly.

    Examples
    --------
    >>> P = [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]]
    >>> run = speculative_decode(P, P, gamma=4, n_tokens=10, seed=1)
    >>> run.accepted_per_call.tolist()  # identical models: every guess is kept
    [4, 4]
    """
    pair = decoding_pair(target, draft, start=start)
    return decode(pair, gamma=gamma, n_tokens=n_tokens, seed=seed)


@dataclass(frozen=True, eq=False)
class DecodingBatch(_ReadOnly):
    """Runs of :func:`decode` simulated together (read-only): the words and whether each was a
    kept guess, the guesses kept at each call (-1 after a run's last), and the calls of each."""

    tokens: np.ndarray
    kept: np.ndarray
    accepted: np.ndarray
    calls: np.ndarray


def _sampler(*tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`_draw` searches, for the rows of ``tables`` stacked: the cumulative sums as
    complex keys ``row + i·sum`` (numpy sorts them by real, then imaginary part), each row's
    total, and its last word of positive weight."""
    cum, last = _cumulative(np.concatenate(tables))
    rows = np.repeat(np.arange(cum.shape[0]), cum.shape[1])
    return rows + 1j * cum.ravel(), cum[:, -1], last


def _draw(sampler: tuple, s: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`~specviz.sampling.inverse_cdf` at rows ``s`` at once."""
    keys, totals, last = sampler
    words = len(keys) // len(totals)
    found = np.searchsorted(keys, s + 1j * (u * totals[s]), side="right") - s * words
    return np.minimum(found, last[s])


def decode_batch(
    pair: DecodingPair, *, gamma: int, n_tokens: int, runs: int, seed: SeedLike = None
) -> DecodingBatch:
    """``runs`` independent runs of :func:`decode` at once (at most ``runs x n_tokens x (gamma +
    1) = MAX_BATCH_WORK``): the same law, not the same draws."""
    pair, (g, n) = _pair(pair), _check_run(gamma, n_tokens)
    r = whole(runs, "runs", minimum=1, maximum=MAX_BATCH_WORK)
    if r * n * (g + 1) > MAX_BATCH_WORK:
        raise ValueError(
            f"runs x n_tokens x (gamma + 1) is more than a batch takes ({MAX_BATCH_WORK:,})"
        )
    rng, one = generator(seed), pair.step
    guess, final = _sampler(one.q), _sampler(one.bucket_weights, one.p)  # bucket, then bonus
    tokens, kept = np.full((r, n), -1, dtype=np.int64), np.zeros((r, n), dtype=bool)
    at, written, per_call = np.full(r, pair.start), np.zeros(r, dtype=np.int64), []
    where, words = (np.zeros((r, g + 1), dtype=np.int64) for _ in range(2))
    columns, runs = np.arange(g + 1), np.arange(r)
    while (written < n).any():  # a finished run goes on, its words fall past n and are dropped
        u = rng.random((r, 2 * g + 1))
        for i in range(g):  # the draft runs ahead on its own guesses
            where[:, i], words[:, i] = at, _draw(guess, at, u[:, i])
            at = pair.follow[at, words[:, i]]
        ok = u[:, g:-1] * one.q[where[:, :g], words[:, :g]] < one.p[where[:, :g], words[:, :g]]
        k = np.cumprod(ok, axis=1).sum(axis=1)  # guesses kept: the Trues before the first False
        where[:, g] = at  # after every guess kept, the bonus comes from the context they lead to
        s = where[runs, k]
        words[runs, k] = _draw(final, s + (k == g) * pair.size, u[:, -1])  # after the kept
        slots = written[:, None] + columns
        row, col = np.nonzero((columns <= k[:, None]) & (slots < n))
        tokens[row, slots[row, col]] = words[row, col]
        kept[row, slots[row, col]] = col < k[row]
        per_call.append(np.where(written < n, k, -1))
        written += k + 1
        at = pair.follow[s, words[runs, k]]
    accepted = np.stack(per_call, axis=1)
    return DecodingBatch(tokens, kept, accepted, (accepted >= 0).sum(1))


@dataclass(frozen=True, eq=False)
class WordsPerCall(_ReadOnly):
    """Words per target call from the two models alone (read-only arrays). With ``M = min(P, Q)``,
    ``R = max(0, P - Q)`` and ``P`` as matrices over the contexts, a call from ``s`` keeps at least
    ``k`` guesses with chance ``(M^k 1)[s]``; the next starts where ``K = sum_{k<gamma} M^k R +
    M^gamma P`` leads, in a long text from ``pi``, its long-run law. ``first_call_law``: ``P(N =
    k)`` for the first call; ``kept_in_a_row``: ``pi M^k 1``, summing to ``long_run``; ``alpha``
    over a long text, ``iid`` the i.i.d. formula there; per word, how often a call writes it."""

    gamma: int
    first_call_law: np.ndarray
    kept_in_a_row: np.ndarray
    long_run: float
    alpha: float
    iid: float
    written: np.ndarray
    guessed: np.ndarray

    def speedup(self, c: float) -> float:
        """The long-run :func:`~specviz.theory.speedup` when a guess costs ``c``."""
        return speedup(self.long_run, self.gamma, c)


def _long_run(kernel: np.ndarray) -> np.ndarray:
    """The long-run law of a chain from its first context: the lazy chain ``(I + K)/2`` has the
    same law and no period, so its powers converge; squared up to 64 times (2^64 steps)."""
    lazy, change = 0.5 * (np.eye(len(kernel)) + kernel), 1.0
    for _ in range(64):
        if change <= ROUNDING * 1e-3:
            break
        square = lazy @ lazy
        square /= square.sum(axis=1, keepdims=True)  # rows sum to 1 up to rounding: keep them so
        lazy, change = square, np.abs(square - lazy).max()
    return lazy[0] / lazy[0].sum()


def _kernels(pair: DecodingPair, gamma: int) -> tuple[np.ndarray, list[np.ndarray], list]:
    """The contexts the target reaches from the start (the start first), ``M^k`` for ``k = 0 ..
    gamma``, and ``R`` and ``P`` over them."""
    seen, frontier = np.zeros(pair.size, dtype=bool), np.array([pair.start])
    while frontier.size:
        seen[frontier] = True
        new = np.unique(pair.follow[frontier][pair.step.p[frontier] > 0])
        frontier = new[~seen[new]]
    order = np.r_[pair.start, np.flatnonzero(seen & (np.arange(pair.size) != pair.start))]
    if order.size > MAX_DECODE_CONTEXTS:
        raise ValueError(
            f"the target reaches {order.size:,} contexts from the start; an exact "
            f"prediction takes at most {MAX_DECODE_CONTEXTS:,}"
        )
    # The context-to-context matrices: each entry the target can say moves to its next context.
    index = np.full(pair.size, -1)
    index[order] = np.arange(order.size)
    rows, cols = np.nonzero(pair.step.p[order] > 0)
    dst = index[pair.follow[order][rows, cols]]
    m, r, p = np.zeros((3, order.size, order.size))
    for out, name in zip((m, r, p), ("kept", "refill", "p"), strict=True):
        np.add.at(out, (rows, dst), getattr(pair.step, name)[order][rows, cols])
    powers = list(accumulate([m] * gamma, np.matmul, initial=np.eye(len(order))))
    return order, powers, [r, p]


def words_per_call(pair: DecodingPair, *, gamma: int) -> WordsPerCall:
    """Predict words per target call from the models alone (see :class:`WordsPerCall`).

    Examples
    --------
    >>> P = [[.6, .3, .1], [.2, .2, .6], [.1, .8, .1]]
    >>> Q = [[.3, .4, .3], [.3, .3, .4], [1/3, 1/3, 1/3]]
    >>> round(words_per_call(decoding_pair(P, Q), gamma=4).long_run, 2)
    2.73
    """
    return _predict(_pair(pair), [whole(gamma, "gamma", maximum=MAX_DECODE_GAMMA)])[0]


def curve(pair: DecodingPair, *, top: int) -> tuple[WordsPerCall, ...]:
    """:func:`words_per_call` for ``gamma = 0 .. top``, sharing the work (at most ``(top + 1) x
    contexts³ = MAX_CURVE_WORK``)."""
    top = whole(top, "top (the largest gamma)", maximum=MAX_DECODE_GAMMA)
    return _predict(_pair(pair), range(top + 1))


def _predict(pair: DecodingPair, gammas: Sequence[int]) -> tuple[WordsPerCall, ...]:
    order, powers, (r, p) = _kernels(pair, max(gammas))
    if len(gammas) * order.size**3 > MAX_CURVE_WORK:
        raise ValueError(
            f"{len(gammas)} values of gamma over {order.size} contexts is more "
            f"than a curve takes ({MAX_CURVE_WORK:,})"
        )
    tails = _snap(np.array([power.sum(axis=1) for power in powers]))[:, 0]  # (M^k 1)[start]
    # The target's own chain: where the words of a long text are written.
    alpha = float(_snap(np.clip(_long_run(p) @ pair.step.alpha[order], 0.0, 1.0)))
    moves = np.cumsum([np.zeros_like(p)] + [m @ r for m in powers], axis=0)
    target, kept = pair.step.p[order], pair.step.kept[order]

    def predict(g: int) -> WordsPerCall:  # moves[g] = sum_{k<g} M^k R; the kernel adds M^g P
        law = _snap(np.append(tails[:g] - tails[1 : g + 1], tails[g]))
        pi = _long_run(moves[g] + powers[g] @ p)
        visits = np.array([pi @ m for m in powers[: g + 1]])  # (pi M^j)[s]: a call at s, j kept
        row, iid = _snap(visits.sum(axis=1)), float(expected_tokens_per_step(alpha, g))
        guessed = visits[:-1].sum(axis=0) @ kept  # no guess is kept at gamma = 0
        written = visits.sum(0) @ target
        return WordsPerCall(g, law / law.sum(), row, float(row.sum()), alpha, iid, written, guessed)

    return tuple(map(predict, gammas))


def expected_calls(pair: DecodingPair, *, gamma: int, n_tokens: int) -> float:
    """The expected number of target calls that write ``n_tokens`` words from the start (the last
    call cut there): the sum over ``m < n_tokens`` of the chance that a call starts after ``m``
    words, ``a_m = sum_j a_(m-j) K_j``, ``K_j`` moving a call that writes ``j`` words to where the
    next starts (``M^(j-1) R``, then ``M^gamma P``). At most ``MAX_CALLS_WORK`` multiply-adds."""
    pair, (g, n) = _pair(pair), _check_run(gamma, n_tokens)
    order, powers, (r, p) = _kernels(pair, g)
    if n * (g + 1) * order.size**2 > MAX_CALLS_WORK:
        raise ValueError(f"n_tokens x (gamma + 1) x contexts² is more than {MAX_CALLS_WORK:,}")
    moves = np.array([power @ r for power in powers[:-1]] + [powers[-1] @ p])  # K_1 .. K_(g+1)
    starts = [np.zeros(order.size)] * g + [np.eye(order.size)[0]]  # a_(-g) .. a_(-1), a_0
    for _ in range(1, n):
        past = np.array(starts[-1 : -g - 2 : -1])  # a_(m-1) .. a_(m-g-1)
        starts.append(np.einsum("js,jst->t", past, moves))
    return float(_snap(np.array(starts[g:]).sum(axis=1)).sum())


@dataclass(frozen=True)
class ReportedSpeedup:
    """A speed-up as its source reports it, never fitted to the theory: who, on which task and
    hardware, with which draft, at which γ and α (None where not given), and the speed-up or the
    two ends of a range."""

    source: str
    setting: str
    draft: str
    gamma: int | None
    alpha: float | None
    speedup: float
    high: float

    @property
    def ceiling(self) -> float | None:
        """The formula's most at this α and γ with free drafts, or None."""
        if self.alpha is None or self.gamma is None:
            return None
        return float(expected_tokens_per_step(self.alpha, self.gamma))


#: Leviathan et al. (2023), Table 2: target T5-XXL (11B), batch 1, one TPU-v4; per setting, the
#: drafts T5-small, T5-base and T5-large, each with its γ, α and speed-up.
LEVIATHAN_TABLE2: tuple[ReportedSpeedup, ...] = tuple(
    ReportedSpeedup("Leviathan et al. 2023, Table 2", setting, f"T5-{size}", g, a, s, s)
    for setting, row in (
        ("En→De, T=0", ((7, 0.75, 3.4), (7, 0.80, 2.8), (7, 0.82, 1.7))),
        ("En→De, T=1", ((7, 0.62, 2.6), (5, 0.68, 2.4), (3, 0.71, 1.4))),
        ("CNN/DM, T=0", ((5, 0.65, 3.1), (5, 0.73, 3.0), (3, 0.74, 2.2))),
        ("CNN/DM, T=1", ((5, 0.53, 2.3), (3, 0.55, 2.2), (3, 0.56, 1.7))),
    )
    for size, (g, a, s) in zip(("small", "base", "large"), row, strict=True)
)


def ranges() -> tuple[ReportedSpeedup, ...]:
    """Ranges quoted without an α: the comments under the article that started SpecViz (no
    setting given), Leviathan et al.'s abstract (T5-XXL against the standard T5X implementation)
    and Chen et al. 2023 (K = 4, a draft step 1.8 ms against the target's 14.1 ms); the comments
    named in the run's language."""
    comments = say("decoding.comments_source"), say("decoding.comments_setting")
    return (
        ReportedSpeedup(*comments, "?", None, None, 1.8, 2.5),
        ReportedSpeedup("Leviathan et al. 2023", "T5-XXL 11B, T5X, TPU-v4", "T5", None, None, 2, 3),
        ReportedSpeedup("Chen et al. 2023", "Chinchilla 70B, TPU-v4", "4B draft", 4, None, 2, 2.5),
    )
