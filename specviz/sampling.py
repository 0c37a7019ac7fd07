"""Samplers for the one-token procedure: one draw at a time, or aggregated counts.

Both run the same law. :func:`speculative_sample` simulates every run (three uniforms per draw: the
proposal, the acceptance test, the bucket draw); :func:`sample_counts` draws the counts that ``n``
runs would produce directly from their multinomial/binomial laws, in O(V) time whatever ``n`` is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import MAX_COUNT_DRAWS, MAX_PER_DRAW, as_count, as_generator, as_prob_pair
from specviz.one_token import accept_ratio

SeedLike = int | np.random.Generator | None


@dataclass(frozen=True)
class SpeculativeDraws:
    """Outcome of ``n`` independent runs of the one-token procedure.

    Attributes
    ----------
    draft : numpy.ndarray
        int array, the token each run's draft proposed (law ``q``).
    output : numpy.ndarray
        int array, the token each run emitted (law ``p``).
    accepted : numpy.ndarray
        bool array, whether the proposal was accepted (``output == draft`` there).
    """

    draft: np.ndarray
    output: np.ndarray
    accepted: np.ndarray

    def __len__(self) -> int:
        return int(self.draft.size)


@dataclass(frozen=True)
class SpeculativeCounts:
    """Token counts of ``n`` runs, per token (each an int array of length V).

    Attributes
    ----------
    draft_counts : numpy.ndarray
        How often each token was proposed.
    accepted_counts : numpy.ndarray
        How often each token was proposed and accepted.
    residual_counts : numpy.ndarray
        How often each token was emitted from the bucket after a rejection.
    output_counts : numpy.ndarray
        How often each token was emitted: ``accepted_counts + residual_counts``.
    """

    draft_counts: np.ndarray
    accepted_counts: np.ndarray
    residual_counts: np.ndarray
    output_counts: np.ndarray

    @property
    def n(self) -> int:
        """Number of runs."""
        return int(self.draft_counts.sum())


def _bucket_weights(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Unnormalised residual, safe to sample from.

    If rounding leaves ``p <= q`` everywhere while some ``p(x) < q(x)`` (sums equal only to the last
    ulp), a rejection can still happen with probability ~1e-16 and has nowhere to go; sending it to
    ``p`` keeps the sampler total and its law within that 1e-16 of exact.
    """
    excess = np.maximum(p - q, 0.0)
    return excess if excess.sum() > 0 else p


def multinomial_on_support(
    rng: np.random.Generator, n: int | np.ndarray, probs: np.ndarray
) -> np.ndarray:
    """``Multinomial(n, probs)`` counts that are exactly 0 wherever ``probs`` is 0.

    numpy draws the categories one by one and gives the last one whatever is left, computing the
    remaining mass in floating point (1 - .1 - .3 = .6000000000000001): a trailing category of
    probability 0 can then receive ~n·1e-16 draws, and at n = 10**15 a safety-filtered token is
    emitted. Drawing over the support only removes that. ``n`` may be an array of trial counts
    (one row of counts each).
    """
    support = np.flatnonzero(probs > 0)
    sizes = np.asarray(n)
    counts = np.zeros((*sizes.shape, probs.size), dtype=np.int64)
    counts[..., support] = rng.multinomial(sizes, probs[support] / probs[support].sum())
    return counts


def _inverse_cdf(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Map uniforms in [0, 1) to tokens; a token of probability 0 is never returned."""
    cdf = np.cumsum(probs)
    idx = np.searchsorted(cdf, u * cdf[-1], side="right")
    # u * total can round up to total itself; send that to the last token with positive mass.
    last = int(np.flatnonzero(probs)[-1])
    return np.minimum(idx, last)


def speculative_sample(
    p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None
) -> SpeculativeDraws:
    """Run the one-token speculative sampling procedure ``n`` times.

    Each run: the draft proposes ``x ~ q``; a uniform ``u`` is drawn and the proposal is accepted
    when ``u * q(x) < p(x)`` (the division-free form of ``u < min(1, p(x)/q(x))``, which never
    accepts a token with ``p(x) = 0``); otherwise the emitted token is drawn from the residual
    ``r = max(0, p - q) / Z``.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.
    n : int
        Number of independent runs, ``0 <= n <= 50_000_000`` (memory grows with ``n``; use
        :func:`sample_counts` for more).
    seed : None, int or numpy.random.Generator, optional
        The same int seed gives the same draws.

    Returns
    -------
    SpeculativeDraws
        int arrays ``draft`` and ``output`` and a bool array ``accepted``, each of length ``n``.
    """
    p, q = as_prob_pair(p, q)
    n = as_count(n, "n", maximum=MAX_PER_DRAW)
    rng = as_generator(seed)

    draft = _inverse_cdf(q, rng.random(n))
    accepted = rng.random(n) * q[draft] < p[draft]
    output = draft.copy()
    rejected = np.flatnonzero(~accepted)
    if rejected.size:
        output[rejected] = _inverse_cdf(_bucket_weights(p, q), rng.random(rejected.size))
    return SpeculativeDraws(draft=draft, output=output, accepted=accepted)


def sample_counts(p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None) -> SpeculativeCounts:
    """Per-token counts of ``n`` runs, drawn from their exact joint law in O(V) time.

    Proposals are ``Multinomial(n, q)``; of the ``k`` proposals of token ``x``,
    ``Binomial(k, a(x))`` are accepted; the ``R`` rejections are spread ``Multinomial(R, r)`` over
    the residual. This is the law of the counts of :func:`speculative_sample`, without the loop.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.
    n : int
        Number of runs, ``0 <= n <= 10**15``.
    seed : None, int or numpy.random.Generator, optional
        The same int seed gives the same counts.

    Returns
    -------
    SpeculativeCounts
        ``draft_counts``, ``accepted_counts``, ``residual_counts`` and ``output_counts`` (int64
        arrays of length V); ``output_counts = accepted_counts + residual_counts`` sums to ``n``.
    """
    p, q = as_prob_pair(p, q)
    n = as_count(n, "n", maximum=MAX_COUNT_DRAWS)
    rng = as_generator(seed)

    draft_counts = multinomial_on_support(rng, n, q)
    accepted_counts = rng.binomial(draft_counts, accept_ratio(p, q)).astype(np.int64)
    rejections = int(n - accepted_counts.sum())
    bucket = _bucket_weights(p, q)
    residual_counts = multinomial_on_support(rng, rejections, bucket)
    return SpeculativeCounts(
        draft_counts=draft_counts,
        accepted_counts=accepted_counts,
        residual_counts=residual_counts,
        output_counts=accepted_counts + residual_counts,
    )
