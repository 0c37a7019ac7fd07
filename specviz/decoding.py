"""Speculative decoding: many words per target call, over toy language models.

A **language model** here gives the distribution of the next word given the words so far. The
plainest one is a first-order chain: a (V, V) row-stochastic matrix whose row ``i`` is the
next-word distribution after word ``i``. Richer models (the n-gram models of
:mod:`specviz.language`) implement :class:`LanguageModel`. The engine runs on either.

Leviathan et al.'s Algorithm 1, one **target call** at a time:

1. the draft proposes ``gamma`` words one after the other, each from its own next-word
   distribution given the text so far and the drafts before it;
2. one target call scores all of them at once; left to right, draft ``x`` at context ``s`` is kept
   while ``u·q_s(x) < p_s(x)`` (the division-free, strict form of ``u < p/q``);
3. at the first rejection a word is drawn from that position's leftover bucket
   ``max(0, p_s - q_s)`` and the call ends; if every draft is kept, the target's distribution after
   the last draft gives a **bonus** word for free.

Each call emits between 1 and ``gamma + 1`` words and the text has exactly the target's law.

Compute once, run many: :func:`decoding_pair` turns a target and a draft into a frozen
:class:`DecodingPair` — every context the two models can reach from the start, with both
next-word distributions and the one-token step's kept mass, bucket and acceptance per (context,
word) — and :func:`decode`, :func:`decode_batch` and :func:`words_per_call` all read it.
:func:`speculative_decode` and :func:`autoregressive_decode` do both steps for one run.
"""

from __future__ import annotations

import enum
import math
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import generator, prob_vector, real, real_array, short, whole
from specviz.limits import (
    DENSE_CONTEXTS,
    MAX_BATCH_WORK,
    MAX_CHAIN_WORDS,
    MAX_CONTEXTS,
    MAX_DECODE_GAMMA,
    MAX_DECODE_TOKENS,
    MAX_DECODE_WORK,
    MAX_EDGES,
    MAX_PROMPT,
    MAX_SETTLE_STEPS,
    MAX_SETTLE_WORK,
    ROUNDING,
    SETTLE_TOLERANCE,
    STEP_BLOCK,
)
from specviz.one_token import step_rows
from specviz.sampling import SeedLike, inverse_cdf
from specviz.sampling_settings import softmax, top_k, top_p
from specviz.theory import expected_tokens_per_step

__all__ = [
    "CHEN_2023",
    "LEVIATHAN_TABLE2",
    "Decoding",
    "DecodingBatch",
    "DecodingPair",
    "LanguageModel",
    "MarkovChain",
    "Origin",
    "PlainDecoding",
    "ReportedSpeedup",
    "WordsPerCall",
    "autoregressive_decode",
    "chain_from_logits",
    "decode",
    "decode_batch",
    "decoding_pair",
    "speculative_decode",
    "with_settings",
    "words_per_call",
]


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


# ----------------------------------------------------------------------------- the models


class LanguageModel(ABC):
    """A next-word model: the distribution of the next word given the words so far.

    Subclasses give :attr:`vocab_size`, :attr:`order` and :meth:`next_word`; :meth:`state` may be
    overridden to say which contexts the model cannot tell apart (a back-off n-gram model reads
    fewer words after an unseen pair). The engine evaluates each model once per distinct state.
    """

    @property
    @abstractmethod
    def vocab_size(self) -> int:
        """Number of words ``V``; words are ids ``0 .. V-1``."""

    @property
    @abstractmethod
    def order(self) -> int:
        """How many previous words the model reads at most (1 for a first-order chain)."""

    @abstractmethod
    def next_word(self, context: tuple[int, ...]) -> np.ndarray:
        """The next-word distribution (length ``vocab_size``, summing to 1) after ``context``."""

    def state(self, context: tuple[int, ...]) -> tuple[int, ...]:
        """The part of ``context`` the model reads: a suffix of it.

        Contract (what lets the engine track finitely many contexts): ``next_word(context) ==
        next_word(state(context))``, and ``state(context + (w,))`` depends on ``context`` only
        through ``state(context)``. The default, the last :attr:`order` words, satisfies both.
        """
        return context[max(0, len(context) - self.order) :] if self.order else ()


class MarkovChain(LanguageModel):
    """A first-order chain given as a (V, V) row-stochastic matrix (row ``i``: after word ``i``).

    Parameters
    ----------
    matrix : array_like
        Square, finite, non-negative, every row summing to 1 (within
        :data:`~specviz.limits.SUM_TOLERANCE`; rows off by more than rounding are renormalised).
    name : str, default "matrix"
        How error messages name the argument.
    """

    def __init__(self, matrix: ArrayLike, name: str = "matrix") -> None:
        self._matrix = _frozen(_chain_matrix(matrix, name))

    @property
    def matrix(self) -> np.ndarray:
        """The validated (V, V) matrix (read-only)."""
        return self._matrix

    @property
    def vocab_size(self) -> int:
        return int(self._matrix.shape[0])

    @property
    def order(self) -> int:
        return 1

    def next_word(self, context: tuple[int, ...]) -> np.ndarray:
        return self._matrix[context[-1]]


def _chain_matrix(x: object, name: str) -> np.ndarray:
    """A (V, V) row-stochastic float64 matrix, or ValueError naming ``name``."""
    if isinstance(x, MarkovChain):
        return x.matrix
    shape = getattr(x, "shape", None)
    if isinstance(shape, tuple) and len(shape) == 2 and max(shape) > MAX_CHAIN_WORDS:
        # Refuse before copying: a matrix this big is memory, not a lesson.
        raise ValueError(
            f"{name} has shape {shape}; a chain may have at most {MAX_CHAIN_WORDS:,} words"
        )
    arr = real_array(x, name, "a square matrix of probabilities (row i: the words after word i)")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(
            f"{name} must be a square (V, V) matrix; got an array of shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; a chain needs at least one word")
    if arr.shape[0] > MAX_CHAIN_WORDS:
        raise ValueError(
            f"{name} has {arr.shape[0]:,} words; a chain may have at most {MAX_CHAIN_WORDS:,}"
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise ValueError(f"{name} contains NaN or infinity ({name}[{i}, {j}] = {arr[i, j]})")
    if (arr < 0).any():
        i, j = (int(k) for k in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} has a negative entry: {name}[{i}, {j}] = {arr[i, j]:g}")
    # Each row through the one probability-vector rule (sum within tolerance, renormalised).
    return np.stack([prob_vector(row, f"{name}[{i}]") for i, row in enumerate(arr)])


def _model(x: object, name: str) -> LanguageModel:
    """A LanguageModel, or a matrix wrapped as a :class:`MarkovChain`."""
    if isinstance(x, LanguageModel):
        size = x.vocab_size
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1:
            raise ValueError(f"{name}.vocab_size must be a whole number >= 1; got {short(size)}")
        if size > MAX_CHAIN_WORDS * 10:
            raise ValueError(f"{name} has {size:,} words; the engine takes at most "
                             f"{MAX_CHAIN_WORDS * 10:,}")  # fmt: skip
        return x
    return MarkovChain(x, name)


def _prompt(start: object, vocab: int) -> tuple[int, ...]:
    """``start`` as a tuple of word ids: one word id, or a sequence of them (the prompt)."""
    if isinstance(start, tuple | list) or (isinstance(start, np.ndarray) and start.ndim >= 1):
        words = list(start)
        if not 1 <= len(words) <= MAX_PROMPT:
            raise ValueError(
                f"start must hold 1 to {MAX_PROMPT} word ids; got {len(words)} of them"
            )
        return tuple(whole(w, "start", maximum=vocab - 1) for w in words)
    return (whole(start, "start", maximum=vocab - 1),)


# ------------------------------------------------------------------- sampling settings


def _settings(
    temperature: object, k: object, nucleus: object
) -> tuple[float, int | None, float | None]:
    t = real(temperature, "temperature", low=0.0)
    kk = None if k is None else whole(k, "top_k (keeps the k most likely words)", minimum=1)
    pp = (
        None
        if nucleus is None
        else real(nucleus, "top_p (the nucleus mass)", low=0.0, high=1.0, low_open=True)
    )
    return t, kk, pp


def _adjust(
    probs: np.ndarray, temperature: float, k: int | None, nucleus: float | None
) -> np.ndarray:
    """Temperature, then top-k, then top-p, on one next-word distribution (as samplers do)."""
    out = probs
    if temperature != 1.0:
        # p^(1/T) normalised is softmax(log p / T); a word of probability 0 stays at 0 (-inf).
        with np.errstate(divide="ignore"):
            out = softmax(np.log(out), temperature)
    if k is not None:
        out = top_k(out, k)
    if nucleus is not None:
        out = top_p(out, nucleus)
    return out


class _Adjusted(LanguageModel):
    """A model sampled with temperature / top-k / top-p (see :func:`with_settings`)."""

    def __init__(self, model: LanguageModel, temperature: float, k: int | None,
                 nucleus: float | None) -> None:  # fmt: skip
        self._model, self._t, self._k, self._p = model, temperature, k, nucleus
        # Many contexts share a state (a bigram draft reads one word of a trigram pair's
        # contexts): each state's row is adjusted once.
        self._rows: dict[tuple[int, ...], np.ndarray] = {}

    @property
    def vocab_size(self) -> int:
        return self._model.vocab_size

    @property
    def order(self) -> int:
        return self._model.order

    def state(self, context: tuple[int, ...]) -> tuple[int, ...]:
        return self._model.state(context)

    def next_word(self, context: tuple[int, ...]) -> np.ndarray:
        state = self._model.state(context)
        row = self._rows.get(state)
        if row is None:
            probs = prob_vector(self._model.next_word(state), "the model's next-word distribution")
            row = self._rows[state] = _frozen(np.array(_adjust(probs, self._t, self._k, self._p)))
        return row


def with_settings(
    model: ArrayLike | LanguageModel,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> np.ndarray | LanguageModel:
    """A model as a sampler with these settings sees it: temperature, then top-k, then top-p.

    Parameters
    ----------
    model : array_like or LanguageModel
        A (V, V) chain or a :class:`LanguageModel`.
    temperature : float, default 1.0
        ``T >= 0``; each next-word distribution becomes ``p^(1/T)`` normalised (``T = 0``: all
        mass on the likeliest word, shared by ties).
    top_k : int or None
        Keep the ``k`` likeliest words of each distribution.
    top_p : float or None
        Keep the smallest set of likeliest words holding at least this mass, ``0 < top_p <= 1``.

    Returns
    -------
    numpy.ndarray or LanguageModel
        A matrix for a matrix, a model for a model. Apply the same settings to the target and
        the draft and speculative decoding stays exact for the adjusted target.

    Examples
    --------
    >>> with_settings([[0.5, 0.5], [0.9, 0.1]], top_k=1)
    array([[1., 0.],
           [1., 0.]])
    """
    t, k, nucleus = _settings(temperature, top_k, top_p)
    if isinstance(model, LanguageModel):
        return _Adjusted(_model(model, "model"), t, k, nucleus)
    matrix = _chain_matrix(model, "model")
    return np.stack([_adjust(row, t, k, nucleus) for row in matrix])


def chain_from_logits(
    logits: ArrayLike,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> np.ndarray:
    """A first-order chain from a (V, V) matrix of logits: row ``i`` scores the words after ``i``.

    Each row goes through softmax at ``temperature``, then top-k, then top-p (see
    :func:`with_settings`). ``-inf`` masks a word; NaN and ``+inf`` are refused.

    Returns
    -------
    numpy.ndarray
        A (V, V) row-stochastic matrix.

    Examples
    --------
    >>> chain_from_logits([[0.0, 0.0], [0.0, -np.inf]])
    array([[0.5, 0.5],
           [1. , 0. ]])
    """
    t, k, nucleus = _settings(temperature, top_k, top_p)
    shape = getattr(logits, "shape", None)
    if isinstance(shape, tuple) and len(shape) == 2 and max(shape) > MAX_CHAIN_WORDS:
        raise ValueError(f"logits has shape {shape}; at most {MAX_CHAIN_WORDS:,} words")
    z = real_array(logits, "logits", "a square matrix of numbers (row i: scores after word i)")
    if z.ndim != 2 or z.shape[0] != z.shape[1] or z.shape[0] == 0:
        raise ValueError(f"logits must be a non-empty square (V, V) matrix; got shape {z.shape}")
    if z.shape[0] > MAX_CHAIN_WORDS:
        raise ValueError(f"logits has {z.shape[0]:,} words; at most {MAX_CHAIN_WORDS:,}")
    rows = []
    for i, row in enumerate(z):
        if np.isnan(row).any() or (row == np.inf).any() or not np.isfinite(row).any():
            raise ValueError(
                f"logits[{i}] must hold finite numbers or -inf (a masked word), with at least "
                f"one finite; got {short(row.tolist())}"
            )
        rows.append(_adjust(softmax(row, t), 1.0, k, nucleus))
    return np.stack(rows)


# ------------------------------------------------------------------------ the compiled pair


@dataclass(frozen=True, eq=False)
class DecodingPair:
    """A target and a draft over every context they can reach from the start, computed once.

    Stored sparsely: context ``s`` owns the entries ``ptr[s] .. ptr[s+1]-1``, one per word that
    either model can say there (the other words have probability 0 under both). Arrays are
    read-only.

    Attributes
    ----------
    contexts : tuple of tuple of int
        Each context, as the words the models read (for a chain: the last word).
    start : int
        Index of the context the text starts from.
    vocab_size : int
        Number of words.
    ptr : numpy.ndarray
        Entry offsets per context, length ``S + 1``.
    source, word, follow : numpy.ndarray
        Per entry: its context, the word, and the context after that word.
    p, q : numpy.ndarray
        Per entry: the target's and the draft's probability of the word.
    accept : numpy.ndarray
        ``min(1, p/q)``: the chance a draft of the word is kept (the one-token step's).
    kept, refill : numpy.ndarray
        ``min(p, q)`` and ``max(0, p - q)`` with the one rounding rule: kept and bucket mass.
    bucket : numpy.ndarray
        What a rejection draws from (the step's ``bucket_weights``).
    alpha : numpy.ndarray
        Per context, the acceptance rate ``sum(min(p, q))``.
    """

    contexts: tuple[tuple[int, ...], ...]
    start: int
    vocab_size: int
    ptr: np.ndarray
    source: np.ndarray
    word: np.ndarray
    follow: np.ndarray
    p: np.ndarray
    q: np.ndarray
    accept: np.ndarray
    kept: np.ndarray
    refill: np.ndarray
    bucket: np.ndarray
    alpha: np.ndarray

    @property
    def size(self) -> int:
        """Number of contexts ``S``."""
        return len(self.contexts)

    def row(self, s: int) -> slice:
        """The entries of context ``s``."""
        return slice(int(self.ptr[s]), int(self.ptr[s + 1]))

    def distribution(self, s: int, model: str = "target") -> np.ndarray:
        """The full next-word distribution of ``model`` ("target" or "draft") at context ``s``."""
        out = np.zeros(self.vocab_size)
        rows = self.row(s)
        out[self.word[rows]] = (self.p if model == "target" else self.q)[rows]
        return out

    def build_tables(self) -> None:
        """Build the samplers' tables now (otherwise they are built on first use)."""
        self._tables, self._search  # noqa: B018 - cached properties: reading builds them

    # Per-table helpers of the vectorised sampler, built on first use.
    @cached_property
    def _tables(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = {}
        for name, weights in (("p", self.p), ("q", self.q), ("bucket", self.bucket)):
            cum = np.empty_like(weights)
            last = np.zeros(self.size, dtype=np.int64)
            for s in range(self.size):
                rows = self.row(s)
                # np.cumsum of the row slice: bit for bit what inverse_cdf computes for that row.
                cum[rows] = np.cumsum(weights[rows])
                positive = np.flatnonzero(weights[rows])
                last[s] = positive[-1] if positive.size else 0
            out[name] = (cum, last)
        return out

    @cached_property
    def _search(self) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per table, what :func:`_draw_rows` searches: every entry as the complex number
        ``context + i·cum`` (sorted: contexts in order, sums non-decreasing within one, and numpy
        orders complex numbers by real part, then imaginary part, both exact float64), each
        context's total (its last sum) and its last entry of positive weight."""
        out = {}
        for name, (cum, last) in self._tables.items():
            keys = np.empty(cum.size, dtype=np.complex128)
            keys.real = self.source
            keys.imag = cum
            out[name] = (keys, cum[self.ptr[1:] - 1], self.ptr[:-1] + last)
        return out

    @cached_property
    def _lists(self) -> dict[str, tuple[list[float], list[int]]]:
        """The tables as Python lists, for :func:`decode`'s one-draw-at-a-time loop (``bisect``
        on a list: the same comparisons as ``searchsorted`` on the array, without numpy's
        per-call cost)."""
        return {name: (cum.tolist(), last.tolist()) for name, (cum, last) in self._tables.items()}

    @cached_property
    def _target_laws(self) -> list[tuple[np.ndarray, int | None]]:
        """Long-run laws of the target's own chain already computed (see ``_target_law``)."""
        return []

    @cached_property
    def _target_edges(self) -> np.ndarray:
        """Entries the target can say: the kept mass, the bucket and the bonus all live there."""
        return np.flatnonzero(self.p > 0)


def decoding_pair(
    target: ArrayLike | LanguageModel,
    draft: ArrayLike | LanguageModel,
    *,
    start: int | Sequence[int] = 0,
) -> DecodingPair:
    """Compile a target and a draft into a :class:`DecodingPair`.

    Parameters
    ----------
    target, draft : array_like or LanguageModel
        (V, V) row-stochastic matrices (first-order chains) or :class:`LanguageModel` objects
        over the same ``V`` words.
    start : int or sequence of int, default 0
        The word the text follows (for a model reading more words: the prompt, as word ids).

    Returns
    -------
    DecodingPair
        Every context reachable from ``start`` by words either model can say, with both
        distributions and the one-token step of each context.

    Raises
    ------
    ValueError
        On a bad matrix (not square, a row not summing to 1, negative, NaN/inf), different
        vocabularies, a bad ``start``, or more than :data:`~specviz.limits.MAX_CONTEXTS`
        contexts.
    """
    if not isinstance(target, LanguageModel) and not isinstance(draft, LanguageModel):
        p_mat = _chain_matrix(target, "target")
        q_mat = _chain_matrix(draft, "draft")
        _same_size(p_mat.shape[0], q_mat.shape[0])
        (first,) = _prompt(start, p_mat.shape[0])[-1:]
        return _compile_chains(p_mat, q_mat, first)
    t_model, d_model = _model(target, "target"), _model(draft, "draft")
    _same_size(t_model.vocab_size, d_model.vocab_size)
    return _compile_models(t_model, d_model, _prompt(start, t_model.vocab_size))


def _same_size(v_target: int, v_draft: int) -> None:
    if v_target != v_draft:
        raise ValueError(
            f"target and draft must share one vocabulary; got {v_target} and {v_draft} words"
        )


def _compile_chains(p_mat: np.ndarray, q_mat: np.ndarray, start: int) -> DecodingPair:
    """Two first-order chains: the context is the last word, so the next context is the word."""
    size = p_mat.shape[0]
    rows = step_rows(p_mat, q_mat)
    src, word = np.nonzero((p_mat > 0) | (q_mat > 0))  # row-major: entries grouped by context
    table = {
        name: getattr(rows, name)[src, word]
        for name in ("accept", "kept", "refill", "bucket_weights")
    }
    return DecodingPair(
        contexts=tuple((s,) for s in range(size)),
        start=start,
        vocab_size=size,
        ptr=_frozen(np.r_[0, np.cumsum(np.bincount(src, minlength=size))].astype(np.int64)),
        source=_frozen(src.astype(np.int64)),
        word=_frozen(word.astype(np.int64)),
        follow=_frozen(word.astype(np.int64)),
        p=_frozen(p_mat[src, word]),
        q=_frozen(q_mat[src, word]),
        accept=_frozen(table["accept"]),
        kept=_frozen(table["kept"]),
        refill=_frozen(table["refill"]),
        bucket=_frozen(table["bucket_weights"]),
        alpha=_frozen(rows.alpha),
    )


def _compile_models(
    target: LanguageModel, draft: LanguageModel, prompt: tuple[int, ...]
) -> DecodingPair:
    """Breadth-first over the contexts the two models tell apart, from the prompt."""

    # Asked once per (context, word) reached: ~10^4-10^5 times per pair, so kept lean.
    target_state, draft_state = _reader(target), _reader(draft)

    def key(context: tuple[int, ...]) -> tuple[int, ...]:
        # Both states are suffixes of the text: the longer one determines the shorter one.
        a, b = target_state(context), draft_state(context)
        n = len(context)
        if (type(a) is not tuple or type(b) is not tuple or context[n - len(a):] != a
                or context[n - len(b):] != b):  # fmt: skip
            name = "target" if type(a) is not tuple or context[n - len(a) :] != a else "draft"
            raise ValueError(f"{name}.state() must return a suffix of the context (a tuple)")
        return a if len(a) >= len(b) else b

    size = target.vocab_size
    index = {key(prompt): 0}
    contexts: list[tuple[int, ...]] = [key(prompt)]
    checked: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    # Kept sparse (the words either model can say): a vocabulary may be large.
    supports: list[np.ndarray] = []
    p_rows: list[np.ndarray] = []
    q_rows: list[np.ndarray] = []
    follows: list[np.ndarray] = []
    edges = 0
    i = 0
    while i < len(contexts):  # the graph: every context, its words and where each leads
        context = contexts[i]
        p = _model_row(target, context, "target", size, checked)
        q = _model_row(draft, context, "draft", size, checked)
        support = np.flatnonzero((p > 0) | (q > 0))
        edges += support.size
        if edges > MAX_EDGES:
            raise ValueError(
                f"target and draft can say more than {MAX_EDGES:,} (context, word) pairs; "
                "that is more than the engine tracks"
            )
        follow = np.empty(support.size, dtype=np.int64)
        for k, w in enumerate(support.tolist()):
            nxt = key((*context, w))
            j = index.get(nxt)
            if j is None:
                if len(contexts) >= MAX_CONTEXTS:
                    raise ValueError(
                        f"target and draft reach more than {MAX_CONTEXTS:,} contexts from the "
                        "start; that is more than the engine tracks"
                    )
                j = index[nxt] = len(contexts)
                contexts.append(nxt)
            follow[k] = j
        supports.append(support)
        p_rows.append(p[support])
        q_rows.append(q[support])
        follows.append(follow)
        i += 1
    # The one-token step of every context, a block of contexts at a time (one numpy pass each,
    # bounded memory whatever the vocabulary).
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("source", "word", "p", "q", "accept",
                                                          "kept", "refill", "bucket")}  # fmt: skip
    alphas = []
    counts = [f.size for f in follows]
    block = max(1, STEP_BLOCK // size)
    for lo in range(0, len(contexts), block):
        hi = min(lo + block, len(contexts))
        src = np.repeat(np.arange(hi - lo), counts[lo:hi])
        word = np.concatenate(supports[lo:hi])
        # Each row in full again (zeros outside its words): the step sums whole rows.
        p_block, q_block = np.zeros((hi - lo, size)), np.zeros((hi - lo, size))
        p_block[src, word] = np.concatenate(p_rows[lo:hi])
        q_block[src, word] = np.concatenate(q_rows[lo:hi])
        rows = step_rows(p_block, q_block)
        for name, values in (("p", p_block), ("q", q_block), ("accept", rows.accept),
                             ("kept", rows.kept), ("refill", rows.refill),
                             ("bucket", rows.bucket_weights)):  # fmt: skip
            parts[name].append(values[src, word])
        parts["source"].append(src + lo)
        parts["word"].append(word)
        alphas.append(rows.alpha)
    arrays = {name: np.concatenate(values) for name, values in parts.items()}
    return DecodingPair(
        contexts=tuple(contexts),
        start=0,
        vocab_size=size,
        ptr=_frozen(np.r_[0, np.cumsum(counts)].astype(np.int64)),
        source=_frozen(arrays["source"].astype(np.int64)),
        word=_frozen(arrays["word"].astype(np.int64)),
        follow=_frozen(np.concatenate(follows)),
        p=_frozen(arrays["p"]),
        q=_frozen(arrays["q"]),
        accept=_frozen(arrays["accept"]),
        kept=_frozen(arrays["kept"]),
        refill=_frozen(arrays["refill"]),
        bucket=_frozen(arrays["bucket"]),
        alpha=_frozen(np.concatenate(alphas)),
    )


def _reader(model: LanguageModel) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """The model's :meth:`~LanguageModel.state` (an adjusted model reads what its model reads)."""
    while isinstance(model, _Adjusted):
        model = model._model
    return model.state


def _model_row(
    model: LanguageModel, context: tuple[int, ...], name: str, size: int,
    checked: dict[int, tuple[np.ndarray, np.ndarray]],
) -> np.ndarray:  # fmt: skip
    raw = model.next_word(context)
    # Many contexts share one read-only row (a draft that reads fewer words): checked once.
    # The entry holds the row itself, so its id cannot be reused by another array.
    hit = checked.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    try:
        row = prob_vector(raw, f"{name}'s next-word distribution")
    except ValueError as problem:
        raise ValueError(f"{problem} (after the words {list(context)})") from problem
    if row.size != size:
        raise ValueError(
            f"{name}'s next-word distribution has {row.size} entries; its vocab_size is {size}"
        )
    if isinstance(raw, np.ndarray) and not raw.flags.writeable:
        checked[id(raw)] = (raw, row)
    return row


# ----------------------------------------------------------------------------- one run


class Origin(enum.IntEnum):
    """Where an emitted word came from."""

    #: A draft the target kept.
    ACCEPTED = 0
    #: Drawn from the leftover bucket after a rejection.
    BUCKET = 1
    #: The bonus word: every draft was kept, and the target's call gives one more.
    BONUS = 2


@dataclass(frozen=True, eq=False)
class Decoding:
    """One run of speculative decoding: the text and every target call behind it.

    Arrays are read-only. ``C`` is the number of target calls, ``gamma`` the drafts per call.

    Attributes
    ----------
    tokens : numpy.ndarray
        The ``n_tokens`` emitted word ids.
    origin : numpy.ndarray
        Per emitted word, its :class:`Origin` (int).
    call_of : numpy.ndarray
        Per emitted word, the index of the target call that emitted it.
    drafts : numpy.ndarray
        (C, gamma) the words the draft proposed at each call.
    verdict : numpy.ndarray
        (C, gamma) per draft: 1 kept, 0 rejected, -1 never checked (after the first rejection).
    keep_chance : numpy.ndarray
        (C, gamma) ``min(1, p/q)`` of each draft at its context.
    draft_p, draft_q : numpy.ndarray
        (C, gamma) the target's and the draft's probability of each draft at its context.
    accepted_per_call : numpy.ndarray
        (C,) drafts kept at each call, ``0 .. gamma``.
    final_word, final_origin : numpy.ndarray
        (C,) the word each call emitted after its kept drafts, and whether it came from the
        bucket or was the bonus (recorded even where the text was cut before it).
    gamma, n_tokens, target_calls, draft_calls : int
        Drafts per call, words asked for, target calls, draft steps (``gamma`` per call).
    start : tuple of int
        The context the text follows.
    """

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
    start: tuple[int, ...]

    @property
    def first_rejection(self) -> np.ndarray:
        """(C,) the position (0-based) of each call's first rejected draft; -1 where all kept."""
        return np.where(self.accepted_per_call < self.gamma, self.accepted_per_call, -1)

    @property
    def words_per_call(self) -> float:
        """Words in the text per target call, ``n_tokens / target_calls`` (the last call may be
        cut short at ``n_tokens``)."""
        return self.n_tokens / self.target_calls

    def cost(self, c: float) -> float:
        """Cost of the run in target steps when a draft step costs ``c`` of one."""
        return (
            self.target_calls + real(c, "c (draft cost / target cost)", low=0.0) * self.draft_calls
        )

    def speedup(self, c: float) -> float:
        """Plain decoding's cost (one target step per word) over this run's, in the cost model
        where a draft step costs ``c`` target steps and nothing else costs anything."""
        return self.n_tokens / self.cost(c)


def _check_run(gamma: object, n_tokens: object) -> tuple[int, int]:
    g = whole(gamma, "gamma (drafts per target call)", maximum=MAX_DECODE_GAMMA)
    n = whole(n_tokens, "n_tokens", minimum=1, maximum=MAX_DECODE_TOKENS)
    if n * (g + 1) > MAX_DECODE_WORK:
        raise ValueError(
            f"n_tokens x (gamma + 1) = {n * (g + 1):,} model steps is more than one run takes "
            f"({MAX_DECODE_WORK:,}); ask for fewer words or a smaller gamma"
        )
    return g, n


def decode(pair: DecodingPair, *, gamma: int, n_tokens: int, seed: SeedLike = None) -> Decoding:
    """Run speculative decoding once on a compiled pair (Leviathan et al.'s Algorithm 1).

    Parameters
    ----------
    pair : DecodingPair
        From :func:`decoding_pair`.
    gamma : int
        Drafts per target call, ``0 .. MAX_DECODE_GAMMA`` (0: every call emits one target word —
        plain decoding).
    n_tokens : int
        Words to emit, ``>= 1``; the last call is cut there.
    seed : None, int or numpy.random.Generator
        The same int seed gives the same run.

    Returns
    -------
    Decoding
        The text, each word's origin and every call's drafts and verdicts.
    """
    if not isinstance(pair, DecodingPair):
        raise ValueError(f"pair must be a DecodingPair (see decoding_pair); got {short(pair)}")
    g, n = _check_run(gamma, n_tokens)
    rng = generator(seed)
    tables = pair._lists
    ptr, follow, source = pair.ptr.tolist(), pair.follow.tolist(), pair.source.tolist()
    p, q = pair.p.tolist(), pair.q.tolist()
    random = rng.random

    def draw(table: str, s: int) -> int:
        # The one mapping from a uniform to a word (sampling.inverse_cdf), on context s's entries:
        # the row's cumulative sums (the same np.cumsum), the first sum above u·total, clamped to
        # the row's last word of positive weight.
        cum, last = tables[table]
        lo, hi = ptr[s], ptr[s + 1]
        return lo + min(bisect_right(cum, random() * cum[hi - 1], lo, hi) - lo, last[s])

    drafts, verdicts, accepted, finals, final_origins = [], [], [], [], []
    context, emitted = pair.start, 0
    while emitted < n:
        entries, at = [], context
        for _ in range(g):  # the draft runs ahead on its own guesses
            e = draw("q", at)
            entries.append(e)
            at = follow[e]
        verdict = [-1] * g
        kept = 0
        for i, e in enumerate(entries):  # one target call checks them left to right
            if random() * q[e] < p[e]:
                verdict[i] = 1
                kept += 1
                context = follow[e]
                continue
            verdict[i] = 0
            final, origin = draw("bucket", source[e]), Origin.BUCKET
            break
        else:
            final, origin = draw("p", at), Origin.BONUS
        context = follow[final]
        drafts.append(entries)
        verdicts.append(verdict)
        accepted.append(kept)
        finals.append(final)
        final_origins.append(origin)
        emitted += kept + 1
    return _record(pair, g, n, drafts, verdicts, accepted, finals, final_origins)


def _record(pair: DecodingPair, g: int, n: int, drafts: list, verdicts: list, accepted: list,
            finals: list, final_origins: list) -> Decoding:  # fmt: skip
    calls = len(accepted)
    entries = np.array(drafts, dtype=np.int64).reshape(calls, g)
    final_words = pair.word[np.array(finals, dtype=np.int64)]
    tokens, origin, call_of = [], [], []
    for c in range(calls):
        k = accepted[c]
        tokens += [*pair.word[entries[c, :k]].tolist(), int(final_words[c])]
        origin += [Origin.ACCEPTED] * k + [final_origins[c]]
        call_of += [c] * (k + 1)
    return Decoding(
        tokens=_frozen(np.array(tokens[:n], dtype=np.int64)),
        origin=_frozen(np.array(origin[:n], dtype=np.int8)),
        call_of=_frozen(np.array(call_of[:n], dtype=np.int64)),
        drafts=_frozen(pair.word[entries]),
        verdict=_frozen(np.array(verdicts, dtype=np.int8).reshape(calls, g)),
        keep_chance=_frozen(pair.accept[entries]),
        draft_p=_frozen(pair.p[entries]),
        draft_q=_frozen(pair.q[entries]),
        accepted_per_call=_frozen(np.array(accepted, dtype=np.int64)),
        final_word=_frozen(final_words.astype(np.int64)),
        final_origin=_frozen(np.array(final_origins, dtype=np.int8)),
        gamma=g,
        n_tokens=n,
        target_calls=calls,
        draft_calls=calls * g,
        start=pair.contexts[pair.start],
    )


def speculative_decode(
    target: ArrayLike | LanguageModel,
    draft: ArrayLike | LanguageModel,
    *,
    gamma: int,
    n_tokens: int,
    start: int | Sequence[int] = 0,
    seed: SeedLike = None,
) -> Decoding:
    """Decode ``n_tokens`` words from the target, with the draft guessing ``gamma`` per call.

    Parameters
    ----------
    target, draft : array_like or LanguageModel
        (V, V) row-stochastic matrices (row ``i``: the next-word distribution after word ``i``)
        or :class:`LanguageModel` objects over the same words.
    gamma : int
        Drafts per target call (0: plain decoding).
    n_tokens : int
        Words to emit after ``start``.
    start : int or sequence of int, default 0
        The word (or the prompt) the text follows.
    seed : None, int or numpy.random.Generator
        The same int seed gives the same run.

    Returns
    -------
    Decoding
        ``tokens``, ``accepted_per_call``, ``target_calls``, ``draft_calls`` and each call's
        drafts, verdicts and final word. The tokens have exactly the target chain's law.

    Raises
    ------
    ValueError
        On a bad matrix or model, different vocabularies, or a bad ``gamma``, ``n_tokens``,
        ``start`` or ``seed`` — each naming the argument.

    Examples
    --------
    >>> P = [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]]
    >>> run = speculative_decode(P, P, gamma=4, n_tokens=10, seed=1)
    >>> run.accepted_per_call.tolist()  # identical models: every draft is kept
    [4, 4]
    """
    _check_run(gamma, n_tokens)  # cheap checks before compiling
    rng = generator(seed)
    return decode(decoding_pair(target, draft, start=start), gamma=gamma, n_tokens=n_tokens,
                  seed=rng)  # fmt: skip


@dataclass(frozen=True, eq=False)
class PlainDecoding:
    """Plain (autoregressive) decoding: one target call per word.

    Attributes
    ----------
    tokens : numpy.ndarray
        The emitted word ids.
    target_calls : int
        Equal to the number of words.
    """

    tokens: np.ndarray
    target_calls: int


def autoregressive_decode(
    target: ArrayLike | LanguageModel,
    *,
    n_tokens: int,
    start: int | Sequence[int] = 0,
    seed: SeedLike = None,
) -> PlainDecoding:
    """The baseline: draw each word from the target given the text so far.

    Parameters
    ----------
    target : array_like or LanguageModel
        A (V, V) chain or a :class:`LanguageModel`.
    n_tokens : int
        Words to emit, ``1 .. MAX_DECODE_TOKENS``.
    start : int or sequence of int, default 0
        The word (or prompt) the text follows.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    PlainDecoding
        The words and the number of target calls (one per word).
    """
    _, n = _check_run(0, n_tokens)
    rng = generator(seed)
    model = _model(target, "target")
    # The target paired with itself: every context it reaches, its distribution, nothing more.
    pair = decoding_pair(model, model, start=start)
    tokens, context = np.empty(n, dtype=np.int64), pair.start
    for i in range(n):
        lo, hi = pair.ptr[context], pair.ptr[context + 1]
        e = int(lo + inverse_cdf(pair.p[lo:hi], rng.random()))
        tokens[i] = pair.word[e]
        context = int(pair.follow[e])
    return PlainDecoding(tokens=_frozen(tokens), target_calls=n)


# ------------------------------------------------------------------------- many runs at once


@dataclass(frozen=True, eq=False)
class DecodingBatch:
    """Many independent runs of :func:`decode`, simulated together.

    Attributes
    ----------
    tokens : numpy.ndarray
        (runs, n_tokens) the emitted words.
    kept : numpy.ndarray
        (runs, n_tokens) bool, whether each word was a kept draft (else bucket or bonus).
    accepted : numpy.ndarray
        (runs, max calls) drafts kept at each call; -1 after a run's last call.
    calls : numpy.ndarray
        (runs,) target calls of each run.
    gamma, n_tokens : int
    """

    tokens: np.ndarray
    kept: np.ndarray
    accepted: np.ndarray
    calls: np.ndarray
    gamma: int
    n_tokens: int

    @property
    def first_call_words(self) -> np.ndarray:
        """(runs,) words the first call produced, ``1 .. gamma + 1``."""
        return self.accepted[:, 0] + 1

    @property
    def words_per_call(self) -> float:
        """Words the calls produced (uncut: the last call counted in full) per call, pooled."""
        done = self.accepted >= 0
        return float((self.accepted[done] + 1).sum() / done.sum())

    @property
    def words_per_call_error(self) -> float:
        """Standard error of :attr:`words_per_call` (a ratio of sums over independent runs,
        linearised: calls within a run are not independent, runs are). NaN for one run."""
        done = self.accepted >= 0
        words = np.where(done, self.accepted + 1, 0).sum(axis=1)
        calls = done.sum(axis=1)
        if calls.size < 2:
            return math.nan
        ratio = words.sum() / calls.sum()
        return float((words - ratio * calls).std(ddof=1) * math.sqrt(calls.size) / calls.sum())


def _draw_rows(pair: DecodingPair, table: str, contexts: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`~specviz.sampling.inverse_cdf` for many contexts at once: the same cumulative sums,
    the same ``searchsorted(..., side="right")`` (as a count of ``cum <= u·total``), the same
    clamp to the row's last positive weight."""
    keys, totals, ends = pair._search[table]
    # (context, u·total) among the (context, cumulative sum) keys: the first entry past it is
    # the row's start + the count of its sums <= u·total; then the clamp.
    wanted = np.empty(contexts.size, dtype=np.complex128)
    wanted.real = contexts
    wanted.imag = u * totals[contexts]
    return np.minimum(np.searchsorted(keys, wanted, side="right"), ends[contexts])


def decode_batch(
    pair: DecodingPair, *, gamma: int, n_tokens: int, runs: int, seed: SeedLike = None
) -> DecodingBatch:
    """``runs`` independent runs of :func:`decode` at once (numpy over runs).

    The same per-step mappings — a uniform to a word through the context's cumulative weights,
    the test ``u·q < p``, the bucket after the first rejection, the bonus after ``gamma`` kept
    drafts — applied to every still-running run together; uniforms are drawn in another order,
    so runs agree with :func:`decode` in law, not draw for draw.

    Parameters
    ----------
    pair : DecodingPair
    gamma : int
        Drafts per target call.
    n_tokens : int
        Words per run.
    runs : int
        Independent runs, ``runs x n_tokens x (gamma + 1) <= MAX_BATCH_WORK``.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    DecodingBatch
    """
    if not isinstance(pair, DecodingPair):
        raise ValueError(f"pair must be a DecodingPair (see decoding_pair); got {short(pair)}")
    g = whole(gamma, "gamma (drafts per target call)", maximum=MAX_DECODE_GAMMA)
    n = whole(n_tokens, "n_tokens", minimum=1, maximum=MAX_DECODE_TOKENS)
    r = whole(runs, "runs", minimum=1, maximum=MAX_BATCH_WORK)
    if r * n * (g + 1) > MAX_BATCH_WORK:
        raise ValueError(
            f"runs x n_tokens x (gamma + 1) = {r * n * (g + 1):,} model steps is more than a "
            f"batch takes ({MAX_BATCH_WORK:,})"
        )
    rng = generator(seed)
    tokens = np.full((r, n), -1, dtype=np.int64)
    from_draft = np.zeros((r, n), dtype=bool)
    context = np.full(r, pair.start, dtype=np.int64)
    position = np.zeros(r, dtype=np.int64)
    per_call: list[np.ndarray] = []
    columns = np.arange(g)

    while (active := np.flatnonzero(position < n)).size:
        m = active.size
        at = context[active]
        where = np.empty((m, g), dtype=np.int64)
        entries = np.empty((m, g), dtype=np.int64)
        for i in range(g):
            where[:, i] = at
            entries[:, i] = _draw_rows(pair, "q", at, rng.random(m))
            at = pair.follow[entries[:, i]]
        q_drafts, p_drafts = pair.q[entries], pair.p[entries]
        alive = np.ones(m, dtype=bool)
        kept = np.zeros(m, dtype=np.int64)
        refused: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (runs, context, uniform)
        for i in range(g):
            u = rng.random(m)
            if i and not alive.any():
                continue  # every draft of this call is decided; its uniforms are drawn all the same
            ok = alive & (u * q_drafts[:, i] < p_drafts[:, i])
            kept += ok
            rejected = np.flatnonzero(alive & ~ok)
            if rejected.size:
                refused.append((rejected, where[rejected, i], rng.random(rejected.size)))
            alive = ok
        final = np.empty(m, dtype=np.int64)  # the word after the kept drafts: bucket or bonus
        if refused:  # the bucket draws, their uniforms taken in the order above
            runs_, at_, u_ = (np.concatenate(part) for part in zip(*refused, strict=True))
            final[runs_] = _draw_rows(pair, "bucket", at_, u_)
        if alive.any():
            final[alive] = _draw_rows(pair, "p", at[alive], rng.random(int(alive.sum())))
        # The call's words, the last call cut at n_tokens: its kept drafts, then the final word.
        start = position[active]
        slots = start[:, None] + columns
        rows, cols = np.nonzero((columns < kept[:, None]) & (slots < n))
        tokens[active[rows], slots[rows, cols]] = pair.word[entries[rows, cols]]
        from_draft[active[rows], slots[rows, cols]] = True
        end = start + kept
        inside = end < n
        tokens[active[inside], end[inside]] = pair.word[final[inside]]
        position[active] = end + 1
        context[active] = pair.follow[final]
        record = np.full(r, -1, dtype=np.int64)
        record[active] = kept
        per_call.append(record)
    accepted = np.stack(per_call, axis=1)
    return DecodingBatch(
        tokens=_frozen(tokens),
        kept=_frozen(from_draft),
        accepted=_frozen(accepted),
        calls=_frozen((accepted >= 0).sum(axis=1)),
        gamma=g,
        n_tokens=n,
    )


# ------------------------------------------------------------------ prediction, no simulation


@dataclass(frozen=True, eq=False)
class WordsPerCall:
    """Words per target call, computed from the two models without simulation.

    With ``M = min(P, Q)`` (kept mass) and ``R = max(0, P - Q)`` (bucket mass), a call starting at
    context ``s`` keeps at least ``k`` drafts with probability ``(M^k 1)[s]``, so
    ``E[N | s] = sum_{k=0..gamma} (M^k 1)[s]``. The context at which the next call starts follows
    the kernel ``K = sum_{k<gamma} M^k R + M^gamma P``; by renewal-reward the long-run words per
    call is ``E_pi[N]`` for ``pi`` the long-run law of ``K`` from the start.

    Attributes
    ----------
    gamma : int
    first_call_law : numpy.ndarray
        ``P(N = k)`` for ``k = 1 .. gamma + 1``: the words the first call emits from the start.
    first_call : float
        Its mean.
    by_context : numpy.ndarray
        ``E[N | s]`` for every context.
    long_run : float
        Words per call in a long text (``E_pi[N]``).
    kept_in_a_row : numpy.ndarray
        ``P(at least k drafts kept)`` for ``k = 0 .. gamma`` in a long text (``pi M^k 1``); its
        sum is ``long_run``. Ratios of neighbours are the chance a draft is kept given that the
        ones before it in the call were: the i.i.d. theory says ``alpha`` every time.
    alpha : float
        The acceptance rate averaged over the contexts of a long text (each context weighted by
        how often the target's text visits it): the ``alpha`` of the i.i.d. theory.
    iid : float
        The i.i.d. theory's words per call at that ``alpha``: ``(1 - alpha^(gamma+1)) /
        (1 - alpha)``. Real acceptances are not independent; ``long_run`` is exact.
    settled : bool
        Whether the long-run laws settled within :data:`~specviz.limits.SETTLE_TOLERANCE` in
        the bounded number of steps (always, for small pairs: computed exactly).
    """

    gamma: int
    first_call_law: np.ndarray
    first_call: float
    by_context: np.ndarray
    long_run: float
    kept_in_a_row: np.ndarray
    alpha: float
    iid: float
    settled: bool

    def speedup(self, c: float) -> float:
        """The cost model's long-run speed-up (:func:`cost_model_speedup` of ``long_run``)."""
        return cost_model_speedup(self.long_run, self.gamma, c)


def cost_model_speedup(words_per_call: float, gamma: int, c: float) -> float:
    """Plain decoding's cost over speculative decoding's, per word, in the cost model.

    One target call costs 1 and writes ``words_per_call`` words on average; its ``gamma`` draft
    steps cost ``c`` each. Plain decoding writes one word per target call.

    Parameters
    ----------
    words_per_call : float
        Average words per target call, ``>= 0``.
    gamma : int
        Draft steps per target call.
    c : float
        Cost of one draft step in target calls, ``c >= 0``.

    Returns
    -------
    float
        ``words_per_call / (gamma·c + 1)``.
    """
    words = real(words_per_call, "words_per_call", low=0.0)
    g = whole(gamma, "gamma (drafts per target call)", maximum=MAX_DECODE_GAMMA)
    return words / (g * real(c, "c (draft cost / target cost)", low=0.0) + 1)


def words_per_call(pair: DecodingPair, *, gamma: int) -> WordsPerCall:
    """Predict words per target call from the models alone (see :class:`WordsPerCall`).

    Parameters
    ----------
    pair : DecodingPair
    gamma : int
        Drafts per target call, ``0 .. MAX_DECODE_GAMMA``.

    Returns
    -------
    WordsPerCall

    Examples
    --------
    >>> P = [[.6, .3, .1], [.2, .2, .6], [.1, .8, .1]]
    >>> Q = [[.3, .4, .3], [.3, .3, .4], [1/3, 1/3, 1/3]]
    >>> round(words_per_call(decoding_pair(P, Q), gamma=4).long_run, 2)
    2.73
    """
    if not isinstance(pair, DecodingPair):
        raise ValueError(f"pair must be a DecodingPair (see decoding_pair); got {short(pair)}")
    g = whole(gamma, "gamma (drafts per target call)", maximum=MAX_DECODE_GAMMA)
    edges = pair._target_edges  # kept, bucket and bonus mass all sit where p > 0
    src, dst = pair.source[edges], pair.follow[edges]
    kept, refill, p = pair.kept[edges], pair.refill[edges], pair.p[edges]
    size = pair.size

    def pull(v: np.ndarray, weights: np.ndarray) -> np.ndarray:  # (W v)[s]
        return np.bincount(src, weights=weights * v[dst], minlength=size)

    def push(x: np.ndarray, weights: np.ndarray) -> np.ndarray:  # (x W)[s']
        return np.bincount(dst, weights=x[src] * weights, minlength=size)

    tails = [np.ones(size)]
    for _ in range(g):
        tails.append(pull(tails[-1], kept))  # (M^k 1)[s] = P(at least k drafts kept | s)
    by_context = np.sum(tails, axis=0)
    at_least = np.array([tail[pair.start] for tail in tails])
    law = np.append(at_least[:-1] - at_least[1:], at_least[-1])
    # The one rounding rule: a chance within 1e-12 of 0 is 0 (identical models: exactly γ + 1).
    law = np.where(np.abs(law) <= ROUNDING, 0.0, law)
    law /= law.sum()

    def next_call(x: np.ndarray) -> np.ndarray:  # x K: the context where the next call starts
        out, running = np.zeros(size), x
        for _ in range(g):
            at = running[src]  # what push(running, ·) gathers, gathered once for both pushes
            out += np.bincount(dst, weights=at * refill, minlength=size)
            running = np.bincount(dst, weights=at * kept, minlength=size)
        return out + push(running, p)

    # Bounded time: each step of the call chain pushes mass over every edge 2γ + 1 times.
    steps = max(1, min(MAX_SETTLE_STEPS, MAX_SETTLE_WORK // (edges.size * (2 * g + 1) + 1)))
    calls, settled_calls = _long_run(next_call, size, pair.start, steps)
    words, settled_words = _target_law(pair, steps)
    # The one rounding rule again, on the long-run chances: within 1e-12 of 0 or 1 they are 0 or
    # 1 (identical models keep every draft: alpha = 1 exactly, whatever the summation order).
    alpha = float(_snap(np.clip(words @ pair.alpha, 0.0, 1.0)))
    in_a_row = _snap(np.array([float(calls @ tail) for tail in tails]))
    return WordsPerCall(
        gamma=g,
        first_call_law=_frozen(law),
        first_call=float(law @ np.arange(1, g + 2)),
        by_context=_frozen(by_context),
        long_run=float(in_a_row.sum()),
        kept_in_a_row=_frozen(in_a_row),
        alpha=alpha,
        iid=float(expected_tokens_per_step(alpha, g)),
        settled=settled_calls and settled_words,
    )


def _snap(chances: np.ndarray) -> np.ndarray:
    """Chances within :data:`~specviz.limits.ROUNDING` of 0 or 1, made 0 or 1."""
    chances = np.where(np.abs(chances) <= ROUNDING, 0.0, chances)
    return np.where(np.abs(1.0 - chances) <= ROUNDING, 1.0, chances)


def _target_law(pair: DecodingPair, max_steps: int) -> tuple[np.ndarray, bool]:
    """:func:`_long_run` of the target's own chain (``x P``), which does not depend on γ: kept
    on the pair and reused for another ``max_steps`` whenever that gives the same law to the
    last bit (the dense path ignores ``max_steps``; an iteration that settled after ``n`` plain
    steps is the same for any bound whose lazy steps start after ``n``)."""
    for law, plain_steps in pair._target_laws:
        if plain_steps is None or plain_steps < max_steps // 20:
            return law, True
    edges = pair._target_edges
    src, dst, p = pair.source[edges], pair.follow[edges], pair.p[edges]

    def next_word(x: np.ndarray) -> np.ndarray:  # x P: the target's own chain
        return np.bincount(dst, weights=x[src] * p, minlength=pair.size)

    law, settled, steps = _long_run_counted(next_word, pair.size, pair.start, max_steps)
    if settled and (steps is None or steps < max_steps // 20):
        pair._target_laws.append((law, steps))
    return law, settled


def _long_run(step_fn, size: int, start: int, max_steps: int) -> tuple[np.ndarray, bool]:
    law, settled, _steps = _long_run_counted(step_fn, size, start, max_steps)
    return law, settled


def _long_run_counted(
    step_fn, size: int, start: int, max_steps: int
) -> tuple[np.ndarray, bool, int | None]:
    """The long-run law of a chain from ``start``: ``lim (1/n) sum_t delta_start K^t``, whether
    it settled, and the index of the step that settled it (None on the dense path).

    The lazy chain ``(I + K)/2`` has the same long-run law and no period, so its powers converge.
    Small chains: ``(I + K)/2`` squared 64 times (``2^64`` steps, exact up to rounding whatever the
    mixing). Large ones: iterated until one step moves the law by less than the tolerance — plain
    steps first (twice as fast when the chain has no period), lazy ones after the first
    twentieth of ``max_steps`` (a periodic chain never settles otherwise); after ``max_steps``
    the law is returned as it is, reported as not settled.
    """
    if size <= DENSE_CONTEXTS:
        kernel = np.stack([step_fn(row) for row in np.eye(size)])
        lazy = 0.5 * (np.eye(size) + kernel)
        for _ in range(64):
            lazy = lazy @ lazy
            # Rows sum to 1 up to rounding; 2^64 steps would blow a 1e-16 excess up (or down).
            lazy /= lazy.sum(axis=1, keepdims=True)
        law = lazy[start]
        return law / law.sum(), True, None
    law = np.zeros(size)
    law[start] = 1.0
    for i in range(max_steps):
        new = step_fn(law)
        if i >= max_steps // 20:
            new = 0.5 * (law + new)
        change = np.abs(new - law).sum()
        law = new
        if change < SETTLE_TOLERANCE:
            return law / law.sum(), True, i
    return law / law.sum(), False, max_steps


# -------------------------------------------------------------------- published measurements


@dataclass(frozen=True)
class ReportedSpeedup:
    """A walltime speed-up a paper reports, as reported (never fitted to the theory).

    Attributes
    ----------
    source, setting, draft : str
        Who reports it, on which task and temperature, with which draft model.
    gamma : int
        Drafts per target call.
    alpha : float or None
        The acceptance rate reported with it (None where the notes give none).
    speedup : float
        The reported speed-up (the low end of a range).
    speedup_high : float
        The high end of a range (equal to ``speedup`` for a single number).
    cost : float or None
        Draft step cost / target step cost, where reported.
    """

    source: str
    setting: str
    draft: str
    gamma: int
    alpha: float | None
    speedup: float
    speedup_high: float
    cost: float | None = None

    @property
    def ceiling(self) -> float | None:
        """The most the i.i.d. formula allows at this ``alpha`` and ``gamma`` (free drafts,
        ``c = 0``): ``(1 - alpha^(gamma+1)) / (1 - alpha)``."""
        if self.alpha is None:
            return None
        return float(expected_tokens_per_step(self.alpha, self.gamma))

    @property
    def above_ceiling(self) -> bool:
        """Whether the reported speed-up beats that ceiling (the formula cannot explain it)."""
        ceiling = self.ceiling
        return ceiling is not None and self.speedup > ceiling + 1e-9


def _t2(
    setting: str, cells: tuple[tuple[str, int, float, float], ...]
) -> tuple[ReportedSpeedup, ...]:
    return tuple(
        ReportedSpeedup("Leviathan et al. 2023, Table 2", setting, draft, g, a, s, s)
        for draft, g, a, s in cells
    )


#: Leviathan et al. (2023), Table 2: target T5-XXL (11B), batch 1, one TPU-v4.
LEVIATHAN_TABLE2: tuple[ReportedSpeedup, ...] = (
    *_t2("En→De, T=0", (("T5-small", 7, 0.75, 3.4), ("T5-base", 7, 0.80, 2.8),
                        ("T5-large", 7, 0.82, 1.7))),
    *_t2("En→De, T=1", (("T5-small", 7, 0.62, 2.6), ("T5-base", 5, 0.68, 2.4),
                        ("T5-large", 3, 0.71, 1.4))),
    *_t2("CNN/DM, T=0", (("T5-small", 5, 0.65, 3.1), ("T5-base", 5, 0.73, 3.0),
                         ("T5-large", 3, 0.74, 2.2))),
    *_t2("CNN/DM, T=1", (("T5-small", 5, 0.53, 2.3), ("T5-base", 3, 0.55, 2.2),
                         ("T5-large", 3, 0.56, 1.7))),
)  # fmt: skip

#: Chen et al. (2023): Chinchilla 70B with a 4B draft, K = 4 drafts per call, draft 1.8 ms per
#: word against the target's 14.1 ms (c = 1.8 / 14.1); 2 to 2.5 times faster. No alpha in the notes.
CHEN_2023 = ReportedSpeedup(
    "Chen et al. 2023", "Chinchilla 70B", "4B draft", 4, None, 2.0, 2.5, cost=1.8 / 14.1
)
