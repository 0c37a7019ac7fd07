"""The one validation mechanism of the core: every public function passes each argument through
one of these checks first, so bad input raises ``ValueError`` naming the argument, before any long
computation. Text, bools, complex numbers, dates and objects are refused where a number is
expected (numpy would quietly turn ``"3"`` into 3.0 and ``True`` into 1)."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Mapping

import numpy as np

from specviz.limits import MAX_DECODE_ENTRIES, MAX_ENTRIES, MAX_VOCAB, ROUNDING, SUM_TOLERANCE

#: How far (a few dozen ulps) an α computed by summing may stray outside [0, 1] and be clipped.
_ALPHA_SLACK = 1e-14


def short(x: object, limit: int = 60) -> str:
    """``repr(x)`` cut to ``limit`` characters, for an error message."""
    try:
        text = repr(x)
    except Exception:
        text = f"<{type(x).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def real_array(x: object, name: str, what: str = "a number or an array of numbers") -> np.ndarray:
    """``x`` as a float64 array if it holds ints and floats only; NaN and infinities pass."""
    if isinstance(x, str | bytes):
        raise ValueError(f"{name} must be {what}; got text {short(x)}")
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must be {what}; got {short(x)}") from exc
    if raw.dtype.kind == "O":
        # Python ints beyond int64 land here; so do ragged lists and arbitrary objects.
        try:
            raw = np.asarray(raw.tolist(), dtype=np.float64)
        except OverflowError as exc:
            raise ValueError(
                f"{name} holds a number too large for a float; got {short(x)}"
            ) from exc
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be {what}; got {short(x)}") from exc
        if not np.isfinite(raw).all():
            raise ValueError(f"{name} holds a number too large for a float; got {short(x)}")
    elif raw.dtype.kind not in "iuf":
        kind = "bools" if raw.dtype.kind == "b" else f"values of type {raw.dtype}"
        raise ValueError(f"{name} must be {what}; got {kind}")
    if raw.size > MAX_ENTRIES:
        raise ValueError(f"{name} has {raw.size:,} entries; that is more than the core handles")
    return raw.astype(np.float64)


def real(
    x: object,
    name: str,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """A single finite real number in ``[low, high]`` (ends open on request)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real | np.ndarray):
        raise ValueError(f"{name} must be a number; got {short(x)}")
    arr = real_array(x, name, "a number")
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number; got an array of shape {arr.shape}")
    value = float(arr)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {short(x)}")
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if below or above:
        lo, hi = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}{low:g}, {high:g}{hi}; got {short(x)}")
    return value


def whole(value: object, name: str, *, minimum: int = 0, maximum: int | None = None) -> int:
    """A whole number in ``[minimum, maximum]``: ints, numpy ints, or floats with no fraction."""
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be a whole number; got a bool ({value})")
    if isinstance(value, numbers.Integral):
        out = operator.index(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():  # not NaN or infinite
        out = int(float(value))
    else:
        raise ValueError(f"{name} must be a whole number; got {short(value)}")
    if out < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {out}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} = {out:,} is too large; the largest allowed is {maximum:,}")
    return out


def whole_array(x: object, name: str, *, minimum: int = 0, maximum: int) -> np.ndarray:
    """An int64 array of whole numbers in ``[minimum, maximum]`` (a scalar gives a 0-d array)."""
    arr = real_array(x, name, "a whole number or an array of them")
    if not np.isfinite(arr).all() or (arr != np.floor(arr)).any():
        raise ValueError(f"{name} must hold whole numbers; got {short(x)}")
    if arr.size and (arr.min() < minimum or arr.max() > maximum):
        raise ValueError(
            f"{name} must hold whole numbers from {minimum:,} to {maximum:,}; got {short(x)}"
        )
    return arr.astype(np.int64)


def choice(value: object, name: str, options: tuple) -> object:
    """The one of ``options`` equal to ``value`` (``30.0`` for ``30`` gives ``30``), of its kind:
    text, bool, number or None (``1`` is not ``True``)."""
    kind = _kind(value)
    if kind is not None:
        for option in options:
            if _kind(option) == kind and value == option:
                return option
    allowed = ", ".join(map(repr, options))
    raise ValueError(f"{name} must be one of {allowed}; got {short(value)}")


def _kind(x: object) -> str | None:
    if x is None:
        return "none"
    if isinstance(x, bool | np.bool_):
        return "bool"
    if isinstance(x, str):
        return "text"
    return "number" if isinstance(x, numbers.Real) else None


def text(value: object, name: str, *, max_chars: int | None = None) -> str:
    """A str of at most ``max_chars`` characters."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text; got {short(value)}")
    if max_chars is not None and len(value) > max_chars:
        raise ValueError(f"{name} is {len(value):,} characters long; at most {max_chars:,} go")
    return value


def instance(value: object, name: str, cls: type, what: str) -> object:
    """``value`` if it is an instance of ``cls`` (``what`` names it in the message)."""
    if not isinstance(value, cls):
        raise ValueError(f"{name} must be {what}; got {short(value)}")
    return value


def mapping(value: object, name: str) -> Mapping:
    """A mapping (a dict of query parameters, say)."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a mapping (a dict); got {short(value)}")
    return value


def sequence(value: object, name: str, *, minimum: int = 0, maximum: int | None = None) -> tuple:
    """A list or tuple (not text, not an array) of ``minimum`` to ``maximum`` items, as a tuple."""
    if not isinstance(value, list | tuple):
        raise ValueError(f"{name} must be a list or a tuple; got {short(value)}")
    if len(value) < minimum or (maximum is not None and len(value) > maximum):
        most = "" if maximum is None else f" and at most {maximum:,}"
        raise ValueError(
            f"{name} must hold at least {minimum:,}{most} items; it holds {len(value):,}"
        )
    return tuple(value)


def float_vector(x: object, name: str) -> np.ndarray:
    """A finite, non-negative, non-empty 1-D float64 array."""
    arr = real_array(x, name, "a vector of numbers")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; it needs at least one entry")
    if arr.size > MAX_VOCAB:
        raise ValueError(f"{name} has {arr.size:,} entries; at most {MAX_VOCAB:,} are allowed")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} contains NaN or infinity (entry {i} is {arr[i]})")
    if (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name} has a negative entry: {name}[{i}] = {arr[i]:g}")
    return arr


def weight_vector(x: object, name: str) -> np.ndarray:
    """Finite non-negative weights with a positive sum (scaled down where it would overflow)."""
    arr = float_vector(x, name)
    if not arr.any():
        raise ValueError(f"{name} are all zero; at least one must be positive")
    with np.errstate(over="ignore"):
        total = arr.sum()
    return arr if np.isfinite(total) else arr / arr.max()


def prob_vector(x: object, name: str) -> np.ndarray:
    """A probability vector summing to 1 within :data:`~specviz.limits.SUM_TOLERANCE`: renormalised
    if off by more than rounding, else kept bit for bit (equal entries of p and q stay equal)."""
    arr = float_vector(x, name)
    total = float(arr.sum())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(
            f"{name} must sum to 1 (within {SUM_TOLERANCE:g}); it sums to {total:.9g}. "
            "Use normalize() to turn weights into probabilities."
        )
    if abs(total - 1.0) > ROUNDING:
        arr = arr / total
    return arr


def prob_pair(
    p: object, q: object, names: tuple[str, str] = ("p", "q")
) -> tuple[np.ndarray, np.ndarray]:
    """Two probability vectors of one length: the target ``p`` and the draft ``q`` by default."""
    a, b = prob_vector(p, names[0]), prob_vector(q, names[1])
    if a.shape != b.shape:
        raise ValueError(
            f"{' and '.join(names)} must have the same length; got {a.size} and {b.size}"
        )
    return a, b


def prob_table(x: object, name: str) -> np.ndarray:
    """``x`` as a (rows, words) table of probability rows, each as :func:`prob_vector` makes it."""
    shape = getattr(x, "shape", None)  # refuse a huge array before copying it
    if isinstance(shape, tuple) and len(shape) == 2 and shape[0] * shape[1] > MAX_DECODE_ENTRIES:
        raise ValueError(f"{name} has shape {shape}; at most {MAX_DECODE_ENTRIES:,} entries")
    arr = real_array(x, name, "a table of probabilities (row s: the words after context s)")
    if arr.ndim != 2 or 0 in arr.shape or arr.size > MAX_DECODE_ENTRIES:
        raise ValueError(
            f"{name} must be a non-empty (contexts, words) table of at most "
            f"{MAX_DECODE_ENTRIES:,} entries; got shape {arr.shape}"
        )
    bad = np.argwhere(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        i, j = (int(k) for k in bad[0])
        raise ValueError(f"{name}[{i}, {j}] = {arr[i, j]} is not a probability")
    totals = arr.sum(axis=1)
    off = np.flatnonzero(np.abs(totals - 1.0) > SUM_TOLERANCE)
    if off.size:
        raise ValueError(f"{name}[{off[0]}] sums to {totals[off[0]]:.9g}, not 1")
    return arr / np.where(np.abs(totals - 1.0) > ROUNDING, totals, 1.0)[:, None]


def alpha_values(alpha: object) -> np.ndarray:
    """An acceptance rate (scalar or array) in [0, 1]."""
    arr = real_array(alpha, "alpha", "a number in [0, 1] or an array of them")
    if not np.isfinite(arr).all():
        raise ValueError("alpha must be a finite number in [0, 1]; got NaN or infinity")
    if (arr < -_ALPHA_SLACK).any() or (arr > 1 + _ALPHA_SLACK).any():
        raise ValueError(f"alpha must lie in [0, 1]; got {short(alpha)}")
    # An α computed as a sum of rounded terms may sit an ulp outside [0, 1]: that is still α.
    return np.clip(arr, 0.0, 1.0)


#: Largest seed the core takes (the pages offer ``[0, MAX_SEED]`` and add a few for extra paths).
SEED_LIMIT = 2**64 - 1


def generator(seed: object) -> np.random.Generator:
    """``None`` (fresh entropy), a whole number in ``[0, 2**64 - 1]`` or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(None if seed is None else seed_value(seed))


def seed_value(seed: object, maximum: int = SEED_LIMIT) -> int:
    """A whole number in ``[0, maximum]`` (at most ``2**64 - 1``); not a float, even a whole one
    (a seed is an id, not a quantity)."""
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, numbers.Integral):
        raise ValueError(
            "seed must be a whole number from 0 to 2**64 - 1 (or None, or a numpy Generator, "
            f"where a fresh one is allowed); got {short(seed)}"
        )
    return whole(seed, "seed", maximum=min(maximum, SEED_LIMIT))
