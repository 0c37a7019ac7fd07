"""Input validation shared by the whole core.

Every public function funnels its arguments through here, so that a bad input always raises
``ValueError`` with a message naming the argument and what is wrong with it — the app shows these
messages to learners verbatim.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

#: How far from 1 a probability vector may sum before it is refused.
SUM_TOLERANCE = 1e-6

#: Sums closer to 1 than this are float rounding of a true 1 (a few ulps per entry for V ~ 1e4).
_ROUNDING = 1e-12

#: How far (a few dozen ulps) an α computed by summing may stray outside [0, 1] and be clipped.
_ALPHA_SLACK = 1e-14

#: Largest ``n`` for the per-draw sampler: it holds ~40 bytes per draw in memory.
MAX_PER_DRAW = 50_000_000

#: Largest ``n`` for the count-level sampler: far beyond any demo, still exact in int64.
MAX_COUNT_DRAWS = 10**15

#: Largest draft length the theory functions accept.
MAX_GAMMA = 10_000


def _numbers(x: object, name: str, what: str) -> np.ndarray:
    """``x`` as a float64 array if it holds real numbers (not text, not bools), else ValueError."""
    if isinstance(x, str | bytes):
        raise ValueError(f"{name} must be {what}; got text {_short(x)}")
    try:
        raw = np.asarray(x)
        arr = raw.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be {what}; got {_short(x)}") from exc
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be {what}; got values of type {raw.dtype}")
    return arr


def as_float_vector(x: object, name: str) -> np.ndarray:
    """Return ``x`` as a finite, non-negative, non-empty 1-D float64 array, or raise ValueError."""
    arr = _numbers(x, name, "a vector of numbers")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; it needs at least one entry")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} contains NaN or infinity (entry {i} is {arr[i]})")
    if (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name} has a negative entry: {name}[{i}] = {arr[i]:g}")
    return arr


def as_prob_vector(x: object, name: str) -> np.ndarray:
    """Validate a probability vector and return it renormalised to sum to 1 in float64.

    The vector must already sum to 1 within :data:`SUM_TOLERANCE`. A vector off by more than
    rounding (e.g. probabilities printed to 7 digits) is renormalised, so every downstream
    identity holds to machine precision; one that is off by rounding only is kept bit for bit,
    so that equal entries of p and q stay equal (no second rounding).
    """
    arr = as_float_vector(x, name)
    total = float(arr.sum())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(
            f"{name} must sum to 1 (within {SUM_TOLERANCE:g}); it sums to {total:.9g}. "
            "Use normalize() to turn weights into probabilities."
        )
    if abs(total - 1.0) > _ROUNDING:
        arr = arr / total
    return arr


def as_prob_pair(p: object, q: object) -> tuple[np.ndarray, np.ndarray]:
    """Validate the target ``p`` and the draft ``q`` together."""
    p_arr = as_prob_vector(p, "p")
    q_arr = as_prob_vector(q, "q")
    if p_arr.shape != q_arr.shape:
        raise ValueError(f"p and q must have the same length; got {p_arr.size} and {q_arr.size}")
    return p_arr, q_arr


def as_alpha(alpha: object) -> np.ndarray:
    """Validate an acceptance rate (scalar or array) in [0, 1]."""
    arr = _numbers(alpha, "alpha", "a number in [0, 1]")
    if not np.isfinite(arr).all():
        raise ValueError("alpha must be a finite number in [0, 1]; got NaN or infinity")
    if (arr < -_ALPHA_SLACK).any() or (arr > 1 + _ALPHA_SLACK).any():
        raise ValueError(f"alpha must lie in [0, 1]; got {_short(alpha)}")
    # An α computed as a sum of rounded terms may sit an ulp outside [0, 1]: that is still α.
    return np.clip(arr, 0.0, 1.0)


def as_count(value: object, name: str, *, maximum: int | None = None) -> int:
    """Validate a whole number ``>= 0`` (ints, numpy ints, or floats with no fractional part)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number >= 0; got a bool ({value})")
    if isinstance(value, numbers.Integral):
        out = operator.index(value)
    elif isinstance(value, numbers.Real):
        fvalue = float(value)
        if not np.isfinite(fvalue) or not fvalue.is_integer():
            raise ValueError(f"{name} must be a whole number >= 0; got {value!r}")
        out = int(fvalue)
    else:
        raise ValueError(f"{name} must be a whole number >= 0; got {_short(value)}")
    if out < 0:
        raise ValueError(f"{name} must be >= 0; got {out}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} = {out:,} is too large; the largest allowed is {maximum:,}")
    return out


def as_cost(c: object) -> float:
    """Validate the draft/target cost ratio ``c >= 0``."""
    arr = _numbers(c, "c", "a number >= 0")
    if arr.ndim != 0:
        raise ValueError(f"c must be a single number; got an array of shape {arr.shape}")
    out = float(arr)
    if not np.isfinite(out) or out < 0:
        raise ValueError(f"c (draft cost / target cost) must be a finite number >= 0; got {c!r}")
    return out


def as_generator(seed: object) -> np.random.Generator:
    """Turn ``None``, a non-negative int or a Generator into a ``numpy.random.Generator``."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(
            f"seed must be None, a non-negative int or a numpy Generator; got {_short(seed)}"
        )
    return np.random.default_rng(int(seed))


def _short(x: object, limit: int = 60) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."
