"""Leviathan et al.'s formulas for speculative decoding with ``gamma`` draft tokens per target call.

With a per-token acceptance rate ``alpha`` (i.i.d. assumption) one target call emits between 1 and
``gamma + 1`` tokens; ``c`` is the cost of one draft step relative to one target step.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import alpha_values, real, whole
from specviz.limits import MAX_GAMMA, MAX_POWERS

#: Most powers :func:`expected_tokens_per_step` sums in one call (32 MB of float64, ~0.3 s):
#: ``len(alpha) * (gamma + 1)`` grows without bound otherwise (10**5 alphas at gamma = 10**4
#: took 76 s and 8 GB).


def _as_result(values: np.ndarray) -> float | np.ndarray:
    return float(values) if values.ndim == 0 else values


def expected_tokens_per_step(alpha: ArrayLike, gamma: int) -> float | np.ndarray:
    """Expected number of tokens emitted per target-model call.

    Parameters
    ----------
    alpha : float or array_like
        Per-token acceptance rate(s) in [0, 1].
    gamma : int
        Draft tokens proposed per target call, ``0 <= gamma <= 10_000``.

    Returns
    -------
    float or numpy.ndarray
        ``(1 - alpha**(gamma + 1)) / (1 - alpha)``, which is ``gamma + 1`` at ``alpha = 1``
        (a float for a scalar ``alpha``, an array otherwise).

    Notes
    -----
    Computed as the geometric sum ``1 + alpha + ... + alpha**gamma``, which is the same number
    without the 0/0 at ``alpha = 1`` or the cancellation just below it. It takes
    ``len(alpha) * (gamma + 1)`` powers: more than 4 million is refused (ValueError naming
    alpha), which bounds the running time.
    """
    a = alpha_values(alpha)
    g = whole(gamma, "gamma", maximum=MAX_GAMMA)
    if a.size * (g + 1) > MAX_POWERS:
        raise ValueError(
            f"alpha has {a.size:,} entries; with gamma = {g:,} that is "
            f"{a.size * (g + 1):,} powers to sum, more than the {MAX_POWERS:,} computed at once"
        )
    powers = np.power.outer(a, np.arange(g + 1, dtype=np.float64))
    return _as_result(powers.sum(axis=-1))


def walltime_speedup(alpha: ArrayLike, gamma: int, c: float) -> float | np.ndarray:
    """Expected walltime improvement factor of speculative decoding over plain decoding.

    Parameters
    ----------
    alpha : float or array_like
        Per-token acceptance rate(s) in [0, 1].
    gamma : int
        Draft tokens per target call, ``0 <= gamma <= 10_000``.
    c : float
        Cost of one draft step divided by the cost of one target step, ``c >= 0``.

    Returns
    -------
    float or numpy.ndarray
        ``(1 - alpha**(gamma + 1)) / ((1 - alpha) * (gamma * c + 1))``.
    """
    cost = real(c, "c (draft cost / target cost)", low=0.0)
    g = whole(gamma, "gamma", maximum=MAX_GAMMA)
    return _as_result(np.asarray(expected_tokens_per_step(alpha, g)) / (g * cost + 1.0))


def optimal_gamma(alpha: float, c: float, max_gamma: int = 64) -> int:
    """The draft length that maximises the expected walltime speedup.

    Parameters
    ----------
    alpha : float
        Per-token acceptance rate in [0, 1].
    c : float
        Draft/target cost ratio, ``c >= 0``.
    max_gamma : int, default 64
        Largest draft length searched, ``0 <= max_gamma <= 10_000``.

    Returns
    -------
    int
        The integer ``gamma`` in ``[0, max_gamma]`` maximising :func:`walltime_speedup`; the
        smallest one on a tie (``gamma = 0`` means "do not speculate").
    """
    a = alpha_values(alpha)
    if a.ndim != 0:
        raise ValueError(f"alpha must be a single number here; got an array of shape {a.shape}")
    cost = real(c, "c (draft cost / target cost)", low=0.0)
    top = whole(max_gamma, "max_gamma", maximum=MAX_GAMMA)
    rate = float(a)
    if cost == 0:
        # Free drafts: every extra guess adds alpha**(gamma+1) > 0 words per call, so the
        # speed-up rises for ever (rounding would flatten it, not the math).
        return top if rate > 0 else 0
    gammas = np.arange(top + 1, dtype=np.float64)
    tokens = np.cumsum(rate**gammas)  # tokens[g] = 1 + a + ... + a**g
    # S(g+1) > S(g)  <=>  a**(g+1) (g c + 1) > c tokens[g]: a sign, not a difference of two
    # nearly equal speed-ups, so rounding cannot end the climb early. S rises while the gain is
    # positive and falls after: the best g is the first whose gain is not.
    gain = rate ** (gammas + 1) * (gammas * cost + 1.0) - cost * tokens
    stop = np.flatnonzero(gain <= 0)
    return int(stop[0]) if stop.size else top
