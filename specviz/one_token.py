"""Exact quantities of the one-token speculative sampling step.

Notation (Leviathan, Kalman & Matias, 2023): ``p`` is the **target** model's distribution and ``q``
the **draft** model's. The draft proposes ``x ~ q``; the target accepts it with probability
``min(1, p(x) / q(x))``; on a rejection a token is drawn from the residual
``r = max(0, p - q) / Z`` with ``Z = sum(max(0, p - q))``. The emitted token then has law
exactly ``p``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import as_float_vector, as_prob_pair


def accept_ratio(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``min(1, p/q)`` with 1.0 where ``q == 0``, on already-validated float arrays."""
    out = np.ones_like(p)
    proposed = q > 0
    out[proposed] = np.minimum(1.0, p[proposed] / q[proposed])
    return out


def normalize(weights: ArrayLike) -> np.ndarray:
    """Turn non-negative weights into a probability vector.

    Parameters
    ----------
    weights : array_like
        1-D, finite, non-negative, with a positive sum (slider positions, counts, ...).

    Returns
    -------
    numpy.ndarray
        float64 probabilities ``weights / sum(weights)``.

    Raises
    ------
    ValueError
        If ``weights`` is not 1-D, is empty, holds NaN/inf or a negative entry, or sums to 0.

    Examples
    --------
    >>> normalize([1, 1, 2])
    array([0.25, 0.25, 0.5 ])
    """
    w = as_float_vector(weights, "weights")
    with np.errstate(over="ignore"):  # an overflowing sum is handled just below
        total = w.sum()
    if total <= 0:
        raise ValueError("weights are all zero; at least one weight must be positive")
    if not np.isfinite(total):
        # Weights near 1e308 overflow the sum: scale by the largest first (one more rounding).
        w = w / w.max()
        total = w.sum()
    # One correctly rounded division: equal ratios (3/10, 30/100) give identical floats, so a
    # token the two models weigh alike is exactly "balanced" and p == q gives Z == 0 exactly.
    return w / total


def acceptance_probs(p: ArrayLike, q: ArrayLike) -> np.ndarray:
    """Per-token probability that a proposal of that token is accepted.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.

    Returns
    -------
    numpy.ndarray
        ``a(x) = min(1, p(x) / q(x))``. Where ``q(x) == 0`` the token is never proposed and the
        value is reported as 1.0 (vacuous).

    Examples
    --------
    >>> acceptance_probs([0.5, 0.5], [0.25, 0.75])
    array([1.        , 0.66666667])
    """
    return accept_ratio(*as_prob_pair(p, q))


def acceptance_rate(p: ArrayLike, q: ArrayLike) -> float:
    """Probability that a draft proposal is accepted.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.

    Returns
    -------
    float
        ``alpha = sum(min(p, q)) = 1 - TV(p, q)``. Symmetric in ``p`` and ``q``; no lossless
        single-draft scheme accepts more often (maximal coupling).

    Examples
    --------
    >>> acceptance_rate([0.5, 0.5], [0.25, 0.75])
    0.75
    """
    p, q = as_prob_pair(p, q)
    # A sum of rounded terms can land an ulp above 1 (p == q summing to 1 + 2e-16); α is a
    # probability, and callers pass it on to functions that insist on [0, 1].
    return min(1.0, float(np.minimum(p, q).sum()))


def rejection_mass(p: ArrayLike, q: ArrayLike) -> float:
    """Size of the "leftover bucket": the probability that a proposal is rejected.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.

    Returns
    -------
    float
        ``Z = sum(max(0, p - q)) = 1 - alpha``: the mass ``p`` has beyond ``q`` on under-sampled
        tokens, which is exactly the probability of a rejection.
    """
    p, q = as_prob_pair(p, q)
    return float(np.maximum(p - q, 0.0).sum())


def total_variation(p: ArrayLike, q: ArrayLike) -> float:
    """Total variation distance ``TV(p, q) = sum(|p - q|) / 2`` (equal to ``1 - alpha``)."""
    p, q = as_prob_pair(p, q)
    return float(0.5 * np.abs(p - q).sum())


def residual(p: ArrayLike, q: ArrayLike) -> np.ndarray:
    """The residual distribution a rejected proposal is replaced from.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.

    Returns
    -------
    numpy.ndarray
        ``r(x) = max(0, p(x) - q(x)) / Z``. It lives on the under-sampled tokens (``q < p``).
        When ``Z == 0`` (``p == q``) the residual is never reached and all zeros are returned —
        never NaN.
    """
    p, q = as_prob_pair(p, q)
    excess = np.maximum(p - q, 0.0)
    z = excess.sum()
    if z == 0:
        return np.zeros_like(p)
    return excess / z


def output_distribution(p: ArrayLike, q: ArrayLike) -> np.ndarray:
    """Exact law of the emitted token, assembled from the procedure's two routes.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.

    Returns
    -------
    numpy.ndarray
        ``q(x) * a(x) + Z * r(x)``: mass arriving by an accepted proposal plus mass arriving from
        the bucket. Term by term this is ``min(p, q) + max(0, p - q) = p`` — the theorem.
    """
    p, q = as_prob_pair(p, q)
    return q * acceptance_probs(p, q) + rejection_mass(p, q) * residual(p, q)


def token_balance(p: ArrayLike, q: ArrayLike) -> np.ndarray:
    """Which way the draft errs on each token.

    Returns
    -------
    numpy.ndarray
        int array: ``+1`` over-sampled (``q > p``: some proposals are bounced), ``-1``
        under-sampled (``q < p``: topped up from the bucket), ``0`` balanced (``q == p``).
    """
    p, q = as_prob_pair(p, q)
    return np.sign(q - p).astype(int)


def mixture(a: ArrayLike, b: ArrayLike, weight: float) -> np.ndarray:
    """The blend ``weight * a + (1 - weight) * b`` of two distributions (a distribution again).

    Parameters
    ----------
    a, b : array_like
        Probability vectors of equal length.
    weight : float
        Share of ``a``, in [0, 1].
    """
    a_arr, b_arr = as_prob_pair(a, b)
    w = float(weight)
    if not 0.0 <= w <= 1.0:
        raise ValueError(f"weight must lie in [0, 1]; got {weight!r}")
    return w * a_arr + (1.0 - w) * b_arr
