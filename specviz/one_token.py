"""The exact one-token step of speculative sampling, computed once per pair (p, q).

Notation (Leviathan, Kalman & Matias, 2023): the draft ``q`` proposes ``x``, the target ``p``
keeps it with probability ``a(x) = min(1, p(x) / q(x))``, and a rejection draws from the residual
``r = max(0, p - q) / Z``, ``Z = sum(max(0, p - q))``: the emitted token has law exactly ``p``.

One rule for rounding (:data:`~specviz.limits.ROUNDING`): where ``|p(x) - q(x)| <= 1e-12`` the two
are one probability written twice: balanced, adding nothing to the bucket, so two vectors equal up
to rounding have ``Z = 0`` and ``alpha = 1``; except where ``p(x) = 0``, always rejected.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import prob_pair, prob_table, weight_vector
from specviz._laws import tv_rows
from specviz.limits import ROUNDING


@dataclass(frozen=True, eq=False)
class OneTokenStep:
    """Every exact quantity of the one-token step for one pair (p, q), built by :func:`step` (by
    :func:`step_rows` for tables: ``alpha`` and ``z`` one per row); read-only, per token: ``p`` and
    ``q``; ``accept``, ``a(x) = min(1, p(x)/q(x))`` (1.0 where ``q(x) = 0``); ``kept = min(p, q)``;
    ``bounced = max(0, q - p)``, proposed and sent back (``kept + bounced = q``); ``refill = max(0,
    p - q) = Z·r``, from the bucket (``kept + refill = p``); ``residual = refill / Z`` (zeros when
    ``Z = 0``); ``balance``, +1 over-sampled (q > p), -1 under-sampled, 0 balanced;
    ``bucket_weights``, what a rejected proposal's replacement is drawn from: the refill, or ``p``
    when nothing is refilled (a rejection can still happen, with probability ~1e-16, where ``p < q``
    by rounding or ``q(x) <= 1e-12`` for a forbidden word: ``p`` keeps the sampler total, never
    emits a forbidden word, and stays within 1e-12). ``alpha = sum(min(p, q))``, exactly 1 when ``Z
    = 0``; ``z``, the bucket's size ``Z = sum(max(0, p - q)) = P(rejection) = TV(p, q)``."""

    p: np.ndarray
    q: np.ndarray
    accept: np.ndarray
    kept: np.ndarray
    bounced: np.ndarray
    refill: np.ndarray
    residual: np.ndarray
    balance: np.ndarray
    bucket_weights: np.ndarray
    alpha: float
    z: float

    @property
    def size(self) -> int:
        """Number of tokens."""
        return int(self.p.size)

    @property
    def output(self) -> np.ndarray:
        """Law of the emitted token, ``kept + refill = min(p, q) + max(0, p - q) = p``."""
        return self.kept + self.refill


def step(p: ArrayLike, q: ArrayLike) -> OneTokenStep:
    """Compute every quantity of the one-token step for target ``p`` and draft ``q``
    (probability vectors of one length; anything else raises ValueError).

    Examples
    --------
    >>> s = step([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4])
    >>> round(s.alpha, 12), round(s.z, 12)
    (0.6, 0.4)
    >>> s.residual.round(12)
    array([0.75, 0.25, 0.  , 0.  ])
    """
    one = _rows(*prob_pair(p, q))  # p and q: fresh copies, frozen with the rest
    return replace(one, alpha=float(one.alpha), z=float(one.z))


def step_rows(p: ArrayLike, q: ArrayLike) -> OneTokenStep:
    """The one-token step of each row of two (contexts, words) tables of one shape, as the
    decoding engine runs it. Row ``i`` is, bit for bit, ``step(p[i], q[i])``: :func:`_rows` works
    per entry or sums along the last axis, which numpy adds up row by row as it adds up one vector.
    A bad table raises ValueError."""
    p, q = prob_table(p, "p"), prob_table(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape; got {p.shape} and {q.shape}")
    return _rows(p, q)


def _rows(p: np.ndarray, q: np.ndarray) -> OneTokenStep:
    """The ONE implementation of the step, on checked vectors or tables of rows."""
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
    bucket = np.where(refill.any(axis=-1)[..., None], refill, p)
    one = OneTokenStep(p, q, accept, kept, bounced, refill, residual, balance, bucket, alpha, z)
    for field in fields(one):  # a cached result is shared by every session
        getattr(one, field.name).setflags(write=False)
    return one


def normalize(weights: ArrayLike) -> np.ndarray:
    """``weights / sum(weights)`` for 1-D, finite, non-negative weights with a positive sum;
    anything else raises ValueError.

    Examples
    --------
    >>> normalize([1, 1, 2])
    array([0.25, 0.25, 0.5 ])
    """
    w = weight_vector(weights, "weights")
    # One correctly rounded division: equal ratios (3/10, 30/100) give identical floats, so a
    # token the two models weigh alike is exactly "balanced" and p == q gives Z == 0 exactly.
    return w / w.sum()


def total_variation(a: ArrayLike, b: ArrayLike) -> float:
    """Total variation distance ``sum(|a - b|) / 2`` between two probability vectors of one
    length; gaps of at most 1e-12 per token count as 0 (the one rounding rule).

    Examples
    --------
    >>> round(total_variation([0.4, 0.6], [0.5, 0.5]), 12)
    0.1
    """
    a_arr, b_arr = prob_pair(a, b, ("a", "b"))
    return min(1.0, float(tv_rows(np.where(np.abs(a_arr - b_arr) > ROUNDING, a_arr, b_arr), b_arr)))
