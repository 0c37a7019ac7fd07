"""Sampling settings: temperature, top-k and top-p ("nucleus") filtering.

A model's settings turn its raw scores into the distribution it samples from. Applying the *same*
settings to the target and the draft keeps speculative sampling exact (the test then runs on the
adjusted pair); applying them to one model only breaks it (see the ``topk_mismatch`` rule).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import prob_vector, real, real_array, whole
from specviz.limits import ROUNDING

#: Tolerance of :func:`top_p` when comparing a cumulative sum with the threshold, so that
#: ``[0.5, 0.3, 0.2]`` at ``p = 0.8`` keeps two tokens whatever the rounding of ``0.5 + 0.3``.
TOP_P_TOLERANCE = ROUNDING


def softmax(logits: ArrayLike, temperature: float = 1.0) -> np.ndarray:
    """Turn logits into probabilities at a temperature.

    Parameters
    ----------
    logits : array_like
        1-D real numbers; ``-inf`` marks a masked token (probability 0). NaN and ``+inf`` are
        refused, and at least one logit must be finite.
    temperature : float, default 1.0
        ``T >= 0``. Probabilities are ``exp(logits / T)`` normalised; ``T = 0`` is the
        ``T -> 0`` limit, greedy decoding: all mass on the largest logit (shared equally by
        tied maxima, so the result does not depend on token order).

    Returns
    -------
    numpy.ndarray
        float64 probabilities summing to 1.

    Raises
    ------
    ValueError
        On a bad ``logits`` vector or a negative / non-finite ``temperature``.

    Examples
    --------
    >>> softmax([0.0, 0.0])
    array([0.5, 0.5])
    >>> softmax([2.0, 1.0], temperature=0)
    array([1., 0.])
    """
    z = _as_logits(logits)
    t = real(temperature, "temperature", low=0.0)
    top = z.max()
    if t == 0:
        peak = (z == top).astype(np.float64)
        return peak / peak.sum()
    # Subtracting the maximum first keeps exp() from overflowing at small temperatures; at a
    # tiny one (5e-324) the scaled gaps overflow to -inf, whose exp() is the greedy limit's 0.
    with np.errstate(over="ignore"):
        weights = np.exp((z - top) / t)
    return weights / weights.sum()


def top_k(probs: ArrayLike, k: int) -> np.ndarray:
    """Keep the ``k`` most likely tokens and renormalise.

    Parameters
    ----------
    probs : array_like
        A probability vector.
    k : int
        How many tokens to keep, ``k >= 1``; ``k >= len(probs)`` keeps everything.

    Returns
    -------
    numpy.ndarray
        ``probs`` restricted to exactly ``min(k, V)`` tokens (zeros elsewhere), renormalised.
        Ties at the cut are broken towards the lower token index, so the result is
        deterministic.

    Raises
    ------
    ValueError
        If ``probs`` is not a probability vector or ``k`` is not a whole number ``>= 1``.

    Examples
    --------
    >>> top_k([0.2, 0.5, 0.3], 2)
    array([0.   , 0.625, 0.375])
    """
    pr = prob_vector(probs, "probs")
    kk = whole(k, "k (top-k keeps the k most likely tokens)", minimum=1)
    keep = _descending(pr)[: min(kk, pr.size)]
    out = np.zeros_like(pr)
    out[keep] = pr[keep]
    return out / out.sum()


def top_p(probs: ArrayLike, p: float) -> np.ndarray:
    """Nucleus filtering: keep the smallest set of most likely tokens holding mass ``>= p``.

    Parameters
    ----------
    probs : array_like
        A probability vector.
    p : float
        The nucleus mass, ``0 < p <= 1`` (this ``p`` is the top-p threshold, not the target).

    Returns
    -------
    numpy.ndarray
        ``probs`` restricted to the nucleus and renormalised. Tokens are taken in decreasing
        probability (ties towards the lower index) until their cumulative mass reaches ``p``
        (within :data:`TOP_P_TOLERANCE`); at least one token is always kept.

    Raises
    ------
    ValueError
        If ``probs`` is not a probability vector or ``p`` is not in ``(0, 1]``.

    Examples
    --------
    >>> top_p([0.5, 0.2, 0.3], 0.8)
    array([0.625, 0.   , 0.375])
    """
    pr = prob_vector(probs, "probs")
    mass = real(p, "p (the top-p nucleus mass)", low=0.0, high=1.0, low_open=True)
    order = _descending(pr)
    cumulative = np.cumsum(pr[order])
    count = int(np.searchsorted(cumulative, mass - TOP_P_TOLERANCE, side="left")) + 1
    keep = order[: min(count, pr.size)]
    out = np.zeros_like(pr)
    out[keep] = pr[keep]
    return out / out.sum()


def _descending(probs: np.ndarray) -> np.ndarray:
    """Token indices by decreasing probability; a stable sort puts ties in index order."""
    return np.argsort(-probs, kind="stable")


def _as_logits(logits: object) -> np.ndarray:
    z = real_array(logits, "logits", "a vector of numbers")
    if z.ndim != 1:
        raise ValueError(f"logits must be a 1-D vector; got an array of shape {z.shape}")
    if z.size == 0:
        raise ValueError("logits is empty; it needs at least one entry")
    if np.isnan(z).any():
        raise ValueError(f"logits contains NaN (entry {int(np.flatnonzero(np.isnan(z))[0])})")
    if (z == np.inf).any():
        raise ValueError("logits contains +inf; only -inf (a masked token) is allowed")
    if not np.isfinite(z).any():
        raise ValueError("logits are all -inf; at least one token must be allowed")
    return z
