"""Samplers for the one-token procedure, of one law: :func:`speculative_sample` simulates every run;
:func:`sample_counts` draws the counts of ``n`` runs from their exact law, in O(V) time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import (
    generator,
    instance,
    real_array,
    short,
    weight_vector,
    whole,
    whole_array,
)
from specviz._laws import count_draws, multinomial, words_of
from specviz.limits import MAX_COUNT_DRAWS, MAX_PER_DRAW
from specviz.one_token import step

SeedLike = int | np.random.Generator | None


@dataclass(frozen=True)
class SpeculativeDraws:
    """``n`` runs of the one-token procedure: per run the token the ``draft`` proposed (law
    ``q``), the token emitted (``output``, law ``p``), and whether the proposal was ``accepted``."""

    draft: np.ndarray
    output: np.ndarray
    accepted: np.ndarray


@dataclass(frozen=True)
class SpeculativeCounts:
    """Token counts of ``n`` runs (int arrays of length V): proposed, proposed and accepted, drawn
    from the bucket, and emitted (the sum of the last two)."""

    draft_counts: np.ndarray
    accepted_counts: np.ndarray
    residual_counts: np.ndarray
    output_counts: np.ndarray


def multinomial_on_support(
    rng: np.random.Generator, n: int | ArrayLike, probs: ArrayLike
) -> np.ndarray:
    """``Multinomial(n, probs)`` counts (``0 <= n <= 10**15``), int64 of shape ``(*shape(n),
    len(probs))``, exactly 0 wherever ``probs`` (weights with a positive sum) is 0: numpy alone
    gives the last category what is left in floating point, ~n·1e-16 draws at n = 10**15."""
    instance(rng, "rng", np.random.Generator, "a numpy Generator (np.random.default_rng(seed))")
    sizes = whole_array(n, "n", maximum=MAX_COUNT_DRAWS)
    return multinomial(rng, sizes, weight_vector(probs, "probs"))


def inverse_cdf(probs: ArrayLike, u: ArrayLike) -> np.ndarray:
    """Map uniforms ``u`` in [0, 1) to tokens (int64, shaped like ``u``) through the
    cumulative sum of ``probs``, weights with a positive sum; a token of weight 0 never comes."""
    weights = weight_vector(probs, "probs")
    uniforms = real_array(u, "u", "a number in [0, 1) or an array of them")
    if not np.isfinite(uniforms).all() or (uniforms < 0).any() or (uniforms >= 1).any():
        raise ValueError(f"u must hold numbers in [0, 1); got {short(u)}")
    return words_of(weights, uniforms)


def speculative_sample(
    p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None
) -> SpeculativeDraws:
    """Run the one-token procedure ``n`` times (at most 50 million); the same int ``seed`` gives
    the same draws. The draft proposes ``x ~ q``, accepted when ``u * q(x) < p(x)`` (``u < min(1,
    p(x)/q(x))`` without a division); otherwise the token is drawn from the residual ``r``."""
    one = step(p, q)
    n = whole(n, "n", maximum=MAX_PER_DRAW)
    rng = generator(seed)
    draft = words_of(one.q, rng.random(n))
    accepted = rng.random(n) * one.q[draft] < one.p[draft]
    output = draft.copy()
    output[~accepted] = words_of(one.bucket_weights, rng.random(int((~accepted).sum())))
    return SpeculativeDraws(draft=draft, output=output, accepted=accepted)


def sample_counts(p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None) -> SpeculativeCounts:
    """Per-token counts of :func:`speculative_sample`'s ``n`` runs (``0 <= n <= 10**15``) from
    their exact law: ``Multinomial(n, q)`` proposals, ``Binomial(k, a(x))`` of the ``k`` of ``x``
    accepted, the ``R`` rejections spread ``Multinomial(R, r)``."""
    one = step(p, q)
    n = whole(n, "n", maximum=MAX_COUNT_DRAWS)
    drafted, accepted, from_bucket = count_draws(
        generator(seed), one.q, one.accept, one.bucket_weights, n
    )
    return SpeculativeCounts(drafted, accepted, from_bucket, accepted + from_bucket)
