"""The exact one-token step of speculative sampling, computed once per pair (p, q).

Notation (Leviathan, Kalman & Matias, 2023): ``p`` is the **target** model's distribution and ``q``
the **draft** model's. The draft proposes ``x ~ q``; the target accepts it with probability
``a(x) = min(1, p(x) / q(x))``; on a rejection a token is drawn from the residual
``r = max(0, p - q) / Z`` with ``Z = sum(max(0, p - q))``. The emitted token then has law
exactly ``p``.

:func:`step` computes every quantity of the step at once into a frozen :class:`OneTokenStep`;
figures, captions, samplers and the functions below all read it, so each number has one source.

One rule for rounding (:data:`~specviz.limits.ROUNDING`): where ``|p(x) - q(x)|`` is at most
1e-12 the two are the same probability written twice. That token is balanced, keeps all of its
proposals and adds nothing to the bucket; two vectors equal up to rounding have ``Z = 0``,
``alpha = 1`` and an all-zero residual — never a one-hot bucket made of rounding noise. The one
exception is ``p(x) = 0``: a word the target forbids is never balanced, so a proposal of it is
always rejected, however rarely the draft makes one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import float_vector, prob_pair, prob_rows, prob_vector
from specviz.limits import ROUNDING


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class OneTokenStep:
    """Every exact quantity of the one-token step for one pair (p, q).

    Build it with :func:`step`. Arrays are read-only and have one entry per token.

    Attributes
    ----------
    p, q : numpy.ndarray
        The target's and the draft's probabilities.
    accept : numpy.ndarray
        ``a(x) = min(1, p(x)/q(x))``, the chance a proposal of ``x`` is kept; 1.0 where
        ``q(x) = 0`` (never proposed: the value is vacuous).
    kept : numpy.ndarray
        ``q(x)·a(x) = min(p, q)(x)``: probability that ``x`` is proposed and kept.
    bounced : numpy.ndarray
        ``max(0, q - p)(x)``: probability that ``x`` is proposed and sent back
        (``kept + bounced = q``).
    refill : numpy.ndarray
        ``max(0, p - q)(x) = Z·r(x)``: probability that ``x`` arrives from the bucket
        (``kept + refill = p``).
    residual : numpy.ndarray
        ``r = refill / Z``, the bucket's contents; all zeros when ``Z = 0``.
    balance : numpy.ndarray
        int, ``+1`` over-sampled (``q > p``: some proposals bounced), ``-1`` under-sampled
        (``q < p``: topped up from the bucket), ``0`` balanced.
    alpha : float
        Acceptance rate ``sum(min(p, q))``; exactly 1 when ``Z = 0``.
    z : float
        The bucket's size ``Z = sum(max(0, p - q)) = P(rejection)``; also ``TV(p, q)``.
    """

    p: np.ndarray
    q: np.ndarray
    accept: np.ndarray
    kept: np.ndarray
    bounced: np.ndarray
    refill: np.ndarray
    residual: np.ndarray
    balance: np.ndarray
    alpha: float
    z: float

    @property
    def size(self) -> int:
        """Number of tokens."""
        return int(self.p.size)

    @property
    def tv(self) -> float:
        """Total variation distance ``TV(p, q) = sum(|p - q|)/2``; it equals ``Z = 1 - alpha``."""
        return self.z

    @property
    def output(self) -> np.ndarray:
        """Law of the emitted token, assembled from its two routes: ``kept + Z·r``
        (``Z·r`` is the refill).

        Term by term this is ``min(p, q) + max(0, p - q) = p``: the theorem.
        """
        return self.kept + self.refill

    @property
    def bucket_weights(self) -> np.ndarray:
        """What a sampler draws a rejected proposal's replacement from (unnormalised).

        The residual's weights. When nothing is refilled, a rejection can still happen — with
        probability ~1e-16 where ``p < q`` by rounding, or ``q(x) <= 1e-12`` for a word the
        target forbids — and must go somewhere: to ``p``, which keeps the sampler total, never
        emits a forbidden word, and keeps its law within that 1e-12 of exact.
        """
        return self.refill if self.refill.any() else self.p


def step(p: ArrayLike, q: ArrayLike) -> OneTokenStep:
    """Compute the one-token step for target ``p`` and draft ``q``.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.

    Returns
    -------
    OneTokenStep
        Acceptance per token, kept / bounced / refilled mass, the residual, the balance per
        token, α and Z — all from one pass.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector, or their lengths differ.

    Examples
    --------
    >>> s = step([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4])
    >>> round(s.alpha, 12), round(s.z, 12)
    (0.6, 0.4)
    >>> s.residual.round(12)
    array([0.75, 0.25, 0.  , 0.  ])
    """
    return checked_step(*prob_pair(p, q))


def checked_step(p: np.ndarray, q: np.ndarray) -> OneTokenStep:
    """:func:`step` of vectors already validated and renormalised (float64 numpy arrays, as
    :func:`~specviz._checks.prob_pair` returns them): the samplers, rules and engines call it
    after checking their own arguments, so a vector is parsed once per call, not once per layer.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not such a vector (a list, NaN, a negative entry, a sum off 1), or
        their shapes differ. The check is two passes over the entries, without a copy.
    """
    prob_rows(p, q, ndim=1)
    rows = _rows(p, q)
    return OneTokenStep(
        p=_frozen(p.copy()),
        q=_frozen(q.copy()),
        accept=_frozen(rows.accept),
        kept=_frozen(rows.kept),
        bounced=_frozen(rows.bounced),
        refill=_frozen(rows.refill),
        residual=_frozen(rows.residual),
        balance=_frozen(rows.balance),
        alpha=float(rows.alpha),
        z=float(rows.z),
    )


class StepRows(NamedTuple):
    """The one-token step of every row of ``p`` and ``q`` at once (see :func:`step_rows`):
    arrays of their shape, and per row ``alpha``, ``z`` and ``bucket_weights``."""

    accept: np.ndarray
    kept: np.ndarray
    bounced: np.ndarray
    refill: np.ndarray
    residual: np.ndarray
    balance: np.ndarray
    bucket_weights: np.ndarray
    alpha: np.ndarray
    z: np.ndarray


def step_rows(p: np.ndarray, q: np.ndarray) -> StepRows:
    """The one-token step of each row of validated ``p`` and ``q`` (one vector, or a stack of
    them): the ONE implementation of the step, which :func:`checked_step` wraps for one pair and
    the decoding engine runs over every context of a text at once.

    Row ``i`` of the result is, bit for bit, ``checked_step(p[i], q[i])``: every operation is
    per entry or a sum along the last axis, which numpy adds up row by row as it adds up one
    vector (tests/test_one_token.py holds this).

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a float64 numpy array of probability rows, or their shapes
        differ (see :func:`~specviz._checks.prob_rows`).
    """
    prob_rows(p, q)
    return _rows(p, q)


def _rows(p: np.ndarray, q: np.ndarray) -> StepRows:
    """:func:`step_rows` once its arguments are checked."""
    diff = p - q
    # p(x) = 0 is never rounding: it is a filter, and a proposal of x must always be rejected.
    same = (np.abs(diff) <= ROUNDING) & ((p > 0) | (q == 0))
    refill = np.where(same, 0.0, np.maximum(diff, 0.0))
    bounced = np.where(same, 0.0, np.maximum(-diff, 0.0))
    kept = np.where(same, q, np.minimum(p, q))
    accept = np.ones_like(p)
    proposed = q > 0
    accept[proposed] = np.where(same[proposed], 1.0, np.minimum(1.0, p[proposed] / q[proposed]))
    refilled = refill.sum(axis=-1)
    # Z is TV(p, q): half of all the mass that moves. α = 1 - Z exactly, so α + Z = 1 and
    # α = 1 - TV hold to the last bit whatever the balanced tokens' gaps add up to.
    z = np.minimum(1.0, 0.5 * (refilled + bounced.sum(axis=-1)))
    disjoint = ~kept.any(axis=-1)
    # z = 0: no proposal is ever rejected (Σ q itself may be 1 - 1e-16); disjoint supports:
    # every proposal is rejected.
    alpha = np.where(z == 0, 1.0, np.where(disjoint, 0.0, 1.0 - z))
    z = np.where((z != 0) & disjoint, 1.0, z)
    some = (refilled > 0)[..., None]
    residual = np.where(some, refill / np.where(some, refilled[..., None], 1.0), 0.0)
    balance = np.where(same, 0, np.sign(-diff)).astype(np.int64)
    # What a rejection draws from: the refill, or p when nothing is refilled (see
    # OneTokenStep.bucket_weights).
    bucket = np.where(refill.any(axis=-1)[..., None], refill, p)
    return StepRows(accept, kept, bounced, refill, residual, balance, bucket, alpha, z)


# ------------------------------------------------------------------ the public functions


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
    w = float_vector(weights, "weights")
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
    return step(p, q).accept.copy()


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
        single-draft scheme accepts more often (maximal coupling). Exactly 1 for two vectors
        equal up to rounding.

    Examples
    --------
    >>> acceptance_rate([0.5, 0.5], [0.25, 0.75])
    0.75
    """
    return step(p, q).alpha


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

    Examples
    --------
    >>> round(rejection_mass([0.5, 0.5], [0.25, 0.75]), 12)
    0.25
    """
    return step(p, q).z


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
        When ``Z == 0`` (``p == q`` up to rounding) the residual is never reached and all zeros
        are returned — never NaN.

    Examples
    --------
    >>> residual([0.5, 0.5], [0.25, 0.75])
    array([1., 0.])
    """
    return step(p, q).residual.copy()


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

    Examples
    --------
    >>> output_distribution([0.5, 0.5], [0.25, 0.75])
    array([0.5, 0.5])
    """
    return step(p, q).output


def total_variation(a: ArrayLike, b: ArrayLike) -> float:
    """Total variation distance ``sum(|a - b|) / 2`` between two laws.

    Parameters
    ----------
    a, b : array_like
        Probability vectors of equal length.

    Returns
    -------
    float
        The distance in [0, 1]; differences of at most 1e-12 per token count as 0 (the one
        rounding rule), so two vectors equal up to rounding are at distance 0.

    Examples
    --------
    >>> round(total_variation([0.4, 0.6], [0.5, 0.5]), 12)
    0.1
    """
    a_arr = prob_vector(a, "a")
    b_arr = prob_vector(b, "b")
    if a_arr.shape != b_arr.shape:
        raise ValueError(f"a and b must have the same length; got {a_arr.size} and {b_arr.size}")
    gap = np.abs(a_arr - b_arr)
    return min(1.0, float(0.5 * gap[gap > ROUNDING].sum()))
