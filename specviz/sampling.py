"""Samplers for the one-token procedure, of one law: :func:`speculative_sample` simulates every run
(three uniforms: proposal, test, bucket draw); :func:`sample_counts` draws the counts of ``n``
runs from their exact law, in O(V) time whatever ``n`` is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import (
    generator,
    instance,
    prob_pair,
    real_array,
    short,
    weight_vector,
    whole,
    whole_array,
)
from specviz.limits import MAX_COUNT_DRAWS, MAX_PER_DRAW
from specviz.one_token import step

SeedLike = int | np.random.Generator | None


@dataclass(frozen=True)
class SpeculativeDraws:
    """``n`` runs of the one-token procedure: per run the token the ``draft`` proposed (law
    ``q``), the token emitted (``output``, law ``p``), and whether the proposal was
    ``accepted`` (``output == draft`` there)."""

    draft: np.ndarray
    output: np.ndarray
    accepted: np.ndarray


@dataclass(frozen=True)
class SpeculativeCounts:
    """Token counts of ``n`` runs (int arrays of length V): proposed (``draft_counts``), proposed
    and accepted (``accepted_counts``), drawn from the bucket (``residual_counts``), and emitted
    (``output_counts``, the sum of the last two)."""

    draft_counts: np.ndarray
    accepted_counts: np.ndarray
    residual_counts: np.ndarray
    output_counts: np.ndarray


def multinomial_on_support(
    rng: np.random.Generator, n: int | ArrayLike, probs: ArrayLike
) -> np.ndarray:
    """``Multinomial(n, probs)`` counts (``0 <= n <= 10**15``), int64 of shape ``(*shape(n),
    len(probs))``, exactly 0 wherever ``probs`` (weights with a positive sum) is 0: drawn over the
    support, as numpy gives the last category what is left in floating point (1 - .1 - .3 =
    .6000000000000001), ~n·1e-16 draws of a filtered word at n = 10**15."""
    instance(rng, "rng", np.random.Generator, "a numpy Generator (np.random.default_rng(seed))")
    sizes = whole_array(n, "n", maximum=MAX_COUNT_DRAWS)
    weights = weight_vector(probs, "probs")
    support = np.flatnonzero(weights > 0)
    counts = np.zeros((*sizes.shape, weights.size), dtype=np.int64)
    counts[..., support] = rng.multinomial(sizes, weights[support] / weights[support].sum())
    return counts


def inverse_cdf(probs: ArrayLike, u: ArrayLike) -> np.ndarray:
    """Map uniforms ``u`` in [0, 1) to tokens (int64, shaped like ``u``) through the
    cumulative sum of ``probs``, weights with a positive sum; a token of weight 0 never comes."""
    weights = weight_vector(probs, "probs")
    uniforms = real_array(u, "u", "a number in [0, 1) or an array of them")
    if not np.isfinite(uniforms).all() or (uniforms < 0).any() or (uniforms >= 1).any():
        raise ValueError(f"u must hold numbers in [0, 1); got {short(u)}")
    return _inverse_cdf(weights, uniforms)


def _inverse_cdf(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`inverse_cdf` on trusted inputs (the samplers' inner loop)."""
    cdf = np.cumsum(probs)
    idx = np.searchsorted(cdf, u * cdf[-1], side="right")
    # u * total can round up to total itself; send that to the last token with positive mass.
    last = int(np.flatnonzero(probs)[-1])
    return np.minimum(idx, last)


def speculative_sample(
    p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None
) -> SpeculativeDraws:
    """Run the one-token procedure ``n`` times (at most 50 million; :func:`sample_counts` for
    more); the same int ``seed`` gives the same draws.

    Each run: the draft proposes ``x ~ q``; the proposal is accepted when ``u * q(x) < p(x)``
    for a uniform ``u`` (``u < min(1, p(x)/q(x))`` without a division: a token with
    ``p(x) = 0`` is never accepted); otherwise the token is drawn from the residual ``r``."""
    p, q = prob_pair(p, q)
    n = whole(n, "n", maximum=MAX_PER_DRAW)
    rng = generator(seed)
    draft = _inverse_cdf(q, rng.random(n))
    accepted = rng.random(n) * q[draft] < p[draft]
    output = draft.copy()
    rejected = np.flatnonzero(~accepted)
    if rejected.size:
        bucket = step(p, q).bucket_weights
        output[rejected] = _inverse_cdf(bucket, rng.random(rejected.size))
    return SpeculativeDraws(draft=draft, output=output, accepted=accepted)


def sample_counts(p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None) -> SpeculativeCounts:
    """Per-token counts of :func:`speculative_sample`'s ``n`` runs (``0 <= n <= 10**15``), drawn
    from their exact joint law in O(V) time: proposals are ``Multinomial(n, q)``; of the ``k``
    proposals of token ``x``, ``Binomial(k, a(x))`` are accepted; the ``R`` rejections are spread
    ``Multinomial(R, r)`` over the residual."""
    p, q = prob_pair(p, q)
    n = whole(n, "n", maximum=MAX_COUNT_DRAWS)
    rng = generator(seed)
    one = step(p, q)
    draft_counts = multinomial_on_support(rng, n, q)
    accepted_counts = rng.binomial(draft_counts, one.accept).astype(np.int64)
    rejections = int(n - accepted_counts.sum())
    residual_counts = multinomial_on_support(rng, rejections, one.bucket_weights)
    return SpeculativeCounts(
        draft_counts=draft_counts,
        accepted_counts=accepted_counts,
        residual_counts=residual_counts,
        output_counts=accepted_counts + residual_counts,
    )
