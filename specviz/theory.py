"""Leviathan et al.'s formulas for speculative decoding with ``gamma`` draft tokens per target call.

With a per-token acceptance rate ``alpha`` (i.i.d. assumption) one target call emits between 1 and
``gamma + 1`` tokens; ``c`` is the cost of one draft step relative to one target step.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import alpha_values, real, real_array, whole
from specviz.limits import MAX_GAMMA, MAX_POWERS


def _as_result(values: np.ndarray) -> float | np.ndarray:
    return float(values) if values.ndim == 0 else values


def expected_tokens_per_step(alpha: ArrayLike, gamma: int) -> float | np.ndarray:
    """Expected tokens emitted per target call, ``(1 - alpha**(gamma + 1)) / (1 - alpha)``.

    ``alpha`` in [0, 1], or an array of them; ``0 <= gamma <= 10_000`` draft tokens per call.
    Summed as ``1 + alpha + ... + alpha**gamma``: ``gamma + 1`` exactly at ``alpha = 1``.
    """
    a = alpha_values(alpha)
    g = whole(gamma, "gamma", maximum=MAX_GAMMA)
    if a.size * (g + 1) > MAX_POWERS:
        raise ValueError(
            f"alpha has {a.size:,} entries; with gamma = {g:,} that is "
            f"{a.size * (g + 1):,} powers to sum, more than the {MAX_POWERS:,} computed at once"
        )
    return _as_result(_tokens(a, g))


def _tokens(alpha: np.ndarray, gamma: int) -> np.ndarray:
    """:func:`expected_tokens_per_step` on checked values."""
    return np.power.outer(alpha, np.arange(gamma + 1, dtype=np.float64)).sum(axis=-1)


def speedup(words_per_call: ArrayLike, gamma: int, c: float) -> float | np.ndarray:
    """The speed-up over plain decoding, ``words_per_call / (gamma·c + 1)``, when a target call
    costs 1 and each of its ``gamma`` draft steps ``c >= 0``; ``words_per_call`` may be an array."""
    cost = real(c, "c (draft cost / target cost)", low=0.0)
    g = whole(gamma, "gamma", maximum=MAX_GAMMA)
    words = real_array(words_per_call, "words_per_call")
    if not np.isfinite(words).all() or (words < 0).any():
        raise ValueError("words_per_call must be finite and >= 0")
    return _as_result(words / (g * cost + 1.0))


def walltime_speedup(alpha: ArrayLike, gamma: int, c: float) -> float | np.ndarray:
    """Expected walltime improvement over plain decoding, ``(1 - alpha**(gamma + 1)) / ((1 -
    alpha)(gamma·c + 1))``, a draft step costing ``c >= 0`` target steps."""
    return speedup(expected_tokens_per_step(alpha, gamma), gamma, c)


def break_even_alpha(gamma: int, c: float) -> float | None:
    """The acceptance rate above which ``gamma`` guesses a call, each costing ``c``, beat plain
    decoding (:func:`walltime_speedup` ``= 1``), or None when no α does (``c ≥ 1``)."""
    g = whole(gamma, "gamma", minimum=1, maximum=MAX_GAMMA)
    cost = real(c, "c (draft cost / target cost)", low=0.0)
    if cost >= 1.0:
        return None
    # Words per call against γ·c + 1, on checked values: the 60 halvings through the checked
    # walltime_speedup were 2.3 ms of a 10 ms run of The debate.
    target, low, high = g * cost + 1.0, 0.0, 1.0
    for _ in range(60):  # 2**-60: far below any α a page shows
        mid = (low + high) / 2
        low, high = (mid, high) if _tokens(np.float64(mid), g) < target else (low, mid)
    return high
