"""The one implementation of each law the samplers share, on values already checked: the public
functions (:mod:`specviz.sampling`, :mod:`specviz.one_token`, ...) check their input, then call
these; the interior calls them directly and checks nothing twice."""

from __future__ import annotations

import numpy as np


def tv_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Total variation ``sum(|a - b|) / 2`` along the last axis: for one pair of laws, or for
    many rows at once (an empirical path, a band's runs)."""
    return 0.5 * np.abs(a - b).sum(axis=-1)


def words_of(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The word of each uniform ``u`` in [0, 1) by the cumulative sum of ``probs`` (weights with a
    positive sum); a word of weight 0 never comes."""
    cdf = np.cumsum(probs)
    idx = np.searchsorted(cdf, u * cdf[-1], side="right")
    # u * total can round up to total itself; send that to the last token with positive mass.
    last = int(np.flatnonzero(probs)[-1])
    return np.minimum(idx, last)


def multinomial(rng: np.random.Generator, sizes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``Multinomial(sizes, weights)`` counts, int64 of shape ``(*shape(sizes), len(weights))``,
    exactly 0 wherever a weight is 0: numpy alone gives the last category what is left in
    floating point, ~n·1e-16 draws at n = 10**15."""
    support = np.flatnonzero(weights > 0)
    counts = np.zeros((*np.shape(sizes), weights.size), dtype=np.int64)
    counts[..., support] = rng.multinomial(sizes, weights[support] / weights[support].sum())
    return counts


def count_draws(
    rng: np.random.Generator,
    q: np.ndarray,
    accept: np.ndarray,
    bucket: np.ndarray,
    runs: int | np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The counts per word of ``runs`` runs of the one-token step (or of each stretch of runs,
    for an array) drawn from their law: proposed ``Multinomial(runs, q)``, accepted
    ``Binomial(k, a(x))`` of the ``k`` proposals of ``x``, the ``R`` rejected drawn
    ``Multinomial(R, bucket)``."""
    drafted = multinomial(rng, runs, q)
    accepted = rng.binomial(drafted, accept).astype(np.int64)
    return drafted, accepted, multinomial(rng, np.asarray(runs) - accepted.sum(axis=-1), bucket)
