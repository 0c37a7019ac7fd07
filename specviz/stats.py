"""Statistics for the Monte Carlo page, in numpy only.

* :func:`chi_square_gof` — Pearson's goodness-of-fit test of token counts against a law, with the
  chi-square tail from :func:`gamma_q` (the regularized upper incomplete gamma function).
* :func:`total_variation_curve` and :func:`tv_path` — the distance between the empirical law of
  the first ``N`` draws and ``p`` at a list of checkpoints, for the convergence plot.
* :func:`expected_tv_band` — the ``1/sqrt(N)`` reference band that an exact sampler's curve should
  stay in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import (
    MAX_COUNT_DRAWS,
    _short,
    as_count,
    as_float_vector,
    as_generator,
    as_prob_vector,
)
from specviz.sampling import SeedLike, multinomial_on_support

#: Relative step at which the series and the continued fraction of :func:`gamma_q` stop.
_GAMMA_EPS = 2.0**-53
#: Lentz's guard against a zero denominator.
_FPMIN = 1e-300
#: Tokens whose pairwise covariances :func:`expected_tv_band` computes exactly (the rest use the
#: leading term of the expansion, which factorises and costs O(V)).
_BAND_EXACT_TOKENS = 1024


# --------------------------------------------------------------------------------------------
# Incomplete gamma and the chi-square tail
# --------------------------------------------------------------------------------------------


def gamma_q(a: ArrayLike, x: ArrayLike) -> float | np.ndarray:
    """Regularized upper incomplete gamma function ``Q(a, x) = Γ(a, x) / Γ(a)``.

    Parameters
    ----------
    a : float or array_like
        Shape, ``a > 0`` and finite.
    x : float or array_like
        Argument, ``x >= 0`` (``+inf`` gives 0). Broadcast against ``a``.

    Returns
    -------
    float or numpy.ndarray
        ``Q(a, x)`` (a float when both inputs are scalars).

    Raises
    ------
    ValueError
        If ``a`` is not positive and finite, or ``x`` is negative or NaN.

    Notes
    -----
    Numerical Recipes' scheme: the series for ``P = 1 - Q`` when ``x < a + 1``, the continued
    fraction for ``Q`` (modified Lentz) otherwise, both vectorised. The common factor
    ``x**a e**-x / Γ(a)`` is computed in log space as Loader's
    ``-a * D((x - a)/a) + log(a / 2π)/2 - stirlerr(a)`` with ``D(t) = t - log(1 + t)``, which
    avoids both overflow and the cancellation of ``a log x - x - log Γ(a)`` for large ``a``.
    Relative accuracy is ~1e-13 against ``scipy.special.gammaincc`` for ``a >= 0.5`` (values
    below ~1e-300 underflow to 0). Iterations grow like ``sqrt(a)``.

    Examples
    --------
    >>> round(gamma_q(1.0, 2.0), 12)  # exp(-2)
    0.135335283237
    """
    a_arr = np.asarray(_as_real_array(a, "a"))
    x_arr = np.asarray(_as_real_array(x, "x"))
    if not (np.isfinite(a_arr).all() and (a_arr > 0).all()):
        raise ValueError(f"a must be finite and > 0; got {_short(a)}")
    if (x_arr < 0).any():
        raise ValueError(f"x must be >= 0; got {_short(x)}")
    a_b, x_b = np.broadcast_arrays(a_arr, x_arr)
    out = np.empty(a_b.shape, dtype=np.float64)
    flat_a, flat_x, flat_out = a_b.ravel(), x_b.ravel(), out.reshape(-1)

    flat_out[flat_x == 0] = 1.0
    flat_out[np.isinf(flat_x)] = 0.0
    finite = (flat_x > 0) & np.isfinite(flat_x)
    series = finite & (flat_x < flat_a + 1)
    fraction = finite & ~series
    if series.any():
        sa, sx = flat_a[series], flat_x[series]
        flat_out[series] = 1.0 - _gamma_p_series(sa, sx) * np.exp(_log_prefactor(sa, sx))
    if fraction.any():
        fa, fx = flat_a[fraction], flat_x[fraction]
        flat_out[fraction] = _gamma_q_fraction(fa, fx) * np.exp(_log_prefactor(fa, fx))
    np.clip(out, 0.0, 1.0, out=out)
    return float(out) if out.ndim == 0 else out


def chi2_sf(x: ArrayLike, dof: ArrayLike) -> float | np.ndarray:
    """Survival function ``P(X > x)`` of the chi-square law with ``dof`` degrees of freedom.

    Parameters
    ----------
    x : float or array_like
        ``x >= 0``.
    dof : float or array_like
        Degrees of freedom, ``> 0``.

    Returns
    -------
    float or numpy.ndarray
        ``Q(dof/2, x/2)``.
    """
    dof_arr = _as_real_array(dof, "dof")
    if not (np.isfinite(dof_arr).all() and (dof_arr > 0).all()):
        raise ValueError(f"dof must be finite and > 0; got {_short(dof)}")
    x_arr = _as_real_array(x, "x")
    if (x_arr < 0).any():
        raise ValueError(f"x must be >= 0; got {_short(x)}")
    return gamma_q(dof_arr / 2.0, x_arr / 2.0)


def _log_prefactor(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log(x**a e**-x / Γ(a))`` for ``x > 0``, without cancellation (Loader 2000)."""
    t = (x - a) / a
    return -a * _log1pmx_neg(t) + 0.5 * np.log(a / (2 * math.pi)) - _stirlerr(a)


def _log1pmx_neg(t: np.ndarray) -> np.ndarray:
    """``D(t) = t - log(1 + t) >= 0`` for ``t > -1``, accurate also for small ``|t|``."""
    out = np.empty_like(t)
    small = np.abs(t) < 0.5
    big = ~small
    out[big] = t[big] - np.log1p(t[big])
    ts = t[small]
    # With y = t/(2 + t): log(1 + t) = 2 atanh(y), and t - 2y = t*y, so
    # D = t*y - 2 (y^3/3 + y^5/5 + ...), a series with no cancellation and |y| <= 1/3.
    y = ts / (2.0 + ts)
    y2 = y * y
    power = y * y2
    tail = np.zeros_like(ts)
    for k in range(1, 40):
        tail += power / (2 * k + 1)
        power = power * y2
    out[small] = ts * y - 2.0 * tail
    return out


def _stirlerr(a: np.ndarray) -> np.ndarray:
    """``log Γ(a) - ((a - 1/2) log a - a + log(2π)/2)``, the error of Stirling's formula."""
    out = np.empty_like(a)
    large = a >= 15.0
    al = a[large]
    inv2 = 1.0 / (al * al)
    # Asymptotic series; at a >= 15 the first omitted term is below 1e-17 relative.
    out[large] = (
        1.0 / 12.0
        - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 * (1.0 / 1680.0 - inv2 / 1188.0)))
    ) / al
    small = ~large
    lgam = np.array([math.lgamma(v) for v in a[small]], dtype=np.float64)
    asml = a[small]
    out[small] = lgam - ((asml - 0.5) * np.log(asml) - asml + 0.5 * math.log(2 * math.pi))
    return out


def _max_iterations(a: np.ndarray) -> int:
    # Both expansions need O(sqrt(a)) terms near x = a; this bound has a wide margin.
    return 200 + int(30 * math.sqrt(float(a.max())))


def _gamma_p_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_n x**n / (a (a+1) ... (a+n))``, so that ``P(a, x) = prefactor * sum``."""
    term = 1.0 / a
    total = term.copy()
    denom = a.copy()
    active = np.ones(a.shape, dtype=bool)
    for _ in range(_max_iterations(a)):
        denom = denom + 1.0
        term = np.where(active, term * x / denom, 0.0)
        total = total + term
        active &= term > total * _GAMMA_EPS
        if not active.any():
            return total
    raise RuntimeError("gamma_q: the series did not converge")  # pragma: no cover


def _gamma_q_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Continued fraction for ``Q(a, x) / prefactor`` (modified Lentz), for ``x >= a + 1``."""
    b = x + 1.0 - a
    c = np.full(a.shape, 1.0 / _FPMIN)
    d = 1.0 / b
    h = d.copy()
    active = np.ones(a.shape, dtype=bool)
    for i in range(1, _max_iterations(a) + 1):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < _FPMIN, _FPMIN, d)
        c = b + an / c
        c = np.where(np.abs(c) < _FPMIN, _FPMIN, c)
        d = 1.0 / d
        delta = np.where(active, d * c, 1.0)
        h = h * delta
        active &= np.abs(delta - 1.0) > 2 * _GAMMA_EPS
        if not active.any():
            return h
    raise RuntimeError("gamma_q: the continued fraction did not converge")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Goodness of fit
# --------------------------------------------------------------------------------------------


class GofResult(NamedTuple):
    """Outcome of :func:`chi_square_gof`; unpacks as ``(statistic, dof, p_value)``."""

    statistic: float
    dof: int
    p_value: float


def chi_square_gof(counts: ArrayLike, probs: ArrayLike) -> GofResult:
    """Pearson's chi-square goodness-of-fit test of token counts against a law.

    Parameters
    ----------
    counts : array_like
        Observed count per token: whole numbers ``>= 0``, not all zero.
    probs : array_like
        The law under test, a probability vector of the same length.

    Returns
    -------
    GofResult
        ``statistic = sum((counts - n probs)**2 / (n probs))`` over tokens with ``probs > 0``,
        ``dof`` = (number of such tokens) - 1 and ``p_value = P(chi2_dof > statistic)``.
        Tokens with ``probs == 0`` are dropped from the test when their count is 0; a positive
        count there is an impossible outcome, reported as ``statistic = inf`` and
        ``p_value = 0.0``. With a single possible token (``dof = 0``) the data cannot disagree:
        ``p_value = 1.0``.

    Raises
    ------
    ValueError
        On non-integer or negative counts, all-zero counts, a bad ``probs`` or a length
        mismatch.

    Notes
    -----
    The chi-square approximation needs expected counts of about 5 or more per token. Same
    statistic and p-value as ``scipy.stats.chisquare(counts, n * probs)``.
    """
    obs = _as_count_vector(counts, "counts")
    law = as_prob_vector(probs, "probs")
    if obs.shape != law.shape:
        raise ValueError(
            f"counts and probs must have the same length; got {obs.size} and {law.size}"
        )
    n = float(obs.sum())
    if n == 0:
        raise ValueError("counts are all zero; the test needs at least one observation")
    possible = law > 0
    dof = int(possible.sum()) - 1
    if (obs[~possible] > 0).any():
        return GofResult(math.inf, dof, 0.0)
    expected = n * law[possible]
    statistic = float((((obs[possible] - expected) ** 2) / expected).sum())
    p_value = 1.0 if dof == 0 else float(chi2_sf(statistic, dof))
    return GofResult(statistic, dof, p_value)


# --------------------------------------------------------------------------------------------
# Convergence in total variation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TVPath:
    """Empirical laws of the first ``N`` draws at a list of checkpoints.

    Attributes
    ----------
    checkpoints : numpy.ndarray
        int64, strictly increasing sample sizes ``N_1 < N_2 < ...``.
    counts : numpy.ndarray
        int64 array of shape ``(len(checkpoints), V)``: token counts among the first ``N_i``
        draws (row ``i`` sums to ``N_i``).
    tv : numpy.ndarray
        ``TV(counts[i] / N_i, p)`` for each checkpoint.
    """

    checkpoints: np.ndarray
    counts: np.ndarray
    tv: np.ndarray


def log_checkpoints(n_max: int, num: int = 60) -> np.ndarray:
    """About ``num`` log-spaced sample sizes from 1 to ``n_max`` (both included, no repeats).

    Parameters
    ----------
    n_max : int
        Largest sample size, ``1 <= n_max <= 10**15``.
    num : int, default 60
        Number of points before rounding removes duplicates, ``num >= 2``.

    Returns
    -------
    numpy.ndarray
        Strictly increasing int64 checkpoints starting at 1 and ending at ``n_max``.
    """
    top = as_count(n_max, "n_max", maximum=MAX_COUNT_DRAWS)
    if top < 1:
        raise ValueError("n_max must be at least 1")
    points = as_count(num, "num", maximum=100_000)
    if points < 2:
        raise ValueError(f"num must be at least 2; got {points}")
    grid = np.unique(np.rint(np.geomspace(1, top, points)).astype(np.int64))
    grid[-1] = top
    return grid


def total_variation_curve(draws: ArrayLike, p: ArrayLike, checkpoints: ArrayLike) -> TVPath:
    """TV between the empirical law of the first ``N`` draws and ``p``, at each checkpoint.

    Parameters
    ----------
    draws : array_like
        1-D int array of emitted tokens in ``[0, len(p))``, in the order they were drawn
        (e.g. from :func:`specviz.variants.rule_sample`).
    p : array_like
        The reference law (usually the target).
    checkpoints : array_like
        Strictly increasing sample sizes ``1 <= N_1 < ... <= len(draws)``.

    Returns
    -------
    TVPath
        Cumulative counts and ``TV(counts / N, p)`` at each checkpoint.

    Notes
    -----
    One ``bincount`` per stretch between checkpoints, then a cumulative sum: O(len(draws) +
    V * len(checkpoints)), however many checkpoints there are.
    """
    law = as_prob_vector(p, "p")
    tokens = _as_token_array(draws, law.size)
    cps = _as_checkpoints(checkpoints, maximum=tokens.size, limit_name="len(draws)")
    starts = np.concatenate(([0], cps[:-1]))
    pieces = [
        np.bincount(tokens[lo:hi], minlength=law.size) for lo, hi in zip(starts, cps, strict=True)
    ]
    counts = np.cumsum(np.vstack(pieces).astype(np.int64), axis=0)
    return TVPath(cps, counts, tv_of_counts(counts, cps, law))


def tv_path(
    law_sampled: ArrayLike, p: ArrayLike, checkpoints: ArrayLike, seed: SeedLike = None
) -> TVPath:
    """Simulated TV-to-``p`` path of i.i.d. draws from ``law_sampled``, for ``N`` up to 10**15.

    Parameters
    ----------
    law_sampled : array_like
        The law the sampler actually produces (``rule_output_law(...)``; ``p`` itself for an
        exact sampler).
    p : array_like
        The reference law the curve measures the distance to.
    checkpoints : array_like
        Strictly increasing sample sizes ``1 <= N_1 < ... <= 10**15``.
    seed : None, int or numpy.random.Generator, optional
        The same int seed gives the same path.

    Returns
    -------
    TVPath
        Cumulative counts and ``TV(counts / N, p)`` at each checkpoint.

    Notes
    -----
    The counts gained between consecutive checkpoints are independent
    ``Multinomial(N_i - N_{i-1}, law_sampled)`` draws, which is exactly the law of the counts of
    a stream of i.i.d. draws observed at the checkpoints. Cost O(V * len(checkpoints)),
    independent of ``N``.
    """
    sampled = as_prob_vector(law_sampled, "law_sampled")
    law = as_prob_vector(p, "p")
    if sampled.shape != law.shape:
        raise ValueError(
            f"law_sampled and p must have the same length; got {sampled.size} and {law.size}"
        )
    cps = _as_checkpoints(checkpoints, maximum=MAX_COUNT_DRAWS, limit_name="10**15")
    rng = as_generator(seed)
    steps = np.diff(np.concatenate(([0], cps)))
    counts = np.cumsum(multinomial_on_support(rng, steps, sampled), axis=0)
    return TVPath(cps, counts, tv_of_counts(counts, cps, law))


def tv_of_counts(counts: np.ndarray, checkpoints: np.ndarray, law: np.ndarray) -> np.ndarray:
    """TV between ``law`` and the empirical law of each row of cumulative ``counts``.

    ``counts[i]`` holds the counts of the first ``checkpoints[i]`` draws; inputs are trusted
    (the path builders above validate them).
    """
    empirical = counts / np.asarray(checkpoints)[:, None].astype(np.float64)
    return 0.5 * np.abs(empirical - law).sum(axis=1)


# --------------------------------------------------------------------------------------------
# The reference band
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TVBand:
    """Approximate law of ``TV(p̂_N, p)`` for an exact sampler (see :func:`expected_tv_band`).

    Attributes
    ----------
    n : numpy.ndarray
        The sample sizes.
    mean, sd : numpy.ndarray
        Approximate mean and standard deviation of the TV at each ``n``.
    lower, upper : numpy.ndarray
        The ``1 - level`` and ``level`` quantiles: an exact sampler's TV stays below ``upper``
        at a given ``n`` with probability about ``level``.
    level : float
        The quantile level used.
    """

    n: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    level: float


def expected_tv_band(p: ArrayLike, n: ArrayLike, level: float = 0.95) -> TVBand:
    """Where the TV between ``p`` and the empirical law of ``n`` draws from ``p`` should lie.

    Parameters
    ----------
    p : array_like
        The law sampled from (and measured against).
    n : int or array_like of int
        Sample size(s), each ``>= 1``.
    level : float, default 0.95
        Quantile level of ``upper`` (``lower`` is the ``1 - level`` quantile), in (0.5, 1).

    Returns
    -------
    TVBand
        Mean, standard deviation and the two quantiles, each an array shaped like ``n``; all
        scale as ``1 / sqrt(n)``.

    Notes
    -----
    Normal approximation of the multinomial: ``p̂ - p`` is Gaussian with covariance
    ``(diag(p) - p pᵀ) / n``, so ``|p̂(x) - p(x)|`` is half-normal and

    * ``E[TV] = ½ Σ sqrt(2 p (1 - p) / (π n))``;
    * ``Var[TV] = ¼ Σ_{x,y} Cov(|p̂(x) - p(x)|, |p̂(y) - p(y)|)``, using for each pair the
      bivariate-normal identity ``E|X||Y| = σ_x σ_y (2/π)(sqrt(1 - ρ²) + ρ arcsin ρ)`` with the
      multinomial correlation ``ρ = -sqrt(p(x) p(y) / ((1 - p(x))(1 - p(y))))`` (exact for the
      1024 most likely tokens, its leading term ``ρ²/2`` for pairs involving rarer ones);
    * the quantiles are those of the gamma law with that mean and variance (right-skewed like
      the TV itself; for two tokens, where TV is exactly half-normal, its 95% quantile is within
      3% of the half-normal one).

    Good when ``n p(x) >~ 5`` for the tokens carrying most of the mass.
    """
    law = as_prob_vector(p, "p")
    sizes = _as_sizes(n)
    q = _as_level(level)
    mean_unit, var_unit = _tv_moments(law)
    root = np.sqrt(sizes.astype(np.float64))
    mean = mean_unit / root
    sd = math.sqrt(var_unit) / root
    if var_unit <= 0 or mean_unit <= 0:
        zeros = np.zeros_like(mean)
        return TVBand(sizes, mean, sd, zeros, zeros.copy(), q)
    # The gamma shape mean²/var does not depend on n; only the scale does.
    shape = mean_unit**2 / var_unit
    scale_unit = var_unit / mean_unit
    hi = _gamma_quantile(shape, q)
    lo = _gamma_quantile(shape, 1.0 - q)
    return TVBand(sizes, mean, sd, lo * scale_unit / root, hi * scale_unit / root, q)


def _tv_moments(law: np.ndarray) -> tuple[float, float]:
    """Mean and variance of TV at n = 1 under the normal approximation (both scale in n)."""
    p = law[(law > 0) & (law < 1)]
    if p.size == 0:
        return 0.0, 0.0
    sigma = np.sqrt(p * (1.0 - p))
    mean = 0.5 * math.sqrt(2.0 / math.pi) * float(sigma.sum())
    diagonal = float((sigma**2).sum()) * (1.0 - 2.0 / math.pi)

    order = np.argsort(-p, kind="stable")
    heavy = order[:_BAND_EXACT_TOKENS]
    ph, sh = p[heavy], sigma[heavy]
    ratio = np.sqrt(ph / (1.0 - ph))
    rho = np.clip(-np.outer(ratio, ratio), -1.0, 0.0)
    shape_fn = np.sqrt(1.0 - rho**2) + rho * np.arcsin(rho) - 1.0
    np.fill_diagonal(shape_fn, 0.0)
    exact_pairs = float((np.outer(sh, sh) * shape_fn).sum())
    # For the remaining pairs f(ρ) ≈ ρ²/2, and σ_x σ_y ρ² / 2 = w_x w_y / 2 with
    # w = p^1.5 / sqrt(1 - p): a sum over pairs that factorises.
    w = p**1.5 / np.sqrt(1.0 - p)
    wh = w[heavy]
    all_pairs = float(w.sum()) ** 2 - float((w**2).sum())
    heavy_pairs = float(wh.sum()) ** 2 - float((wh**2).sum())
    approx_pairs = 0.5 * max(0.0, all_pairs - heavy_pairs)
    off_diagonal = (2.0 / math.pi) * (exact_pairs + approx_pairs)
    return mean, max(0.0, 0.25 * (diagonal + off_diagonal))


def _gamma_quantile(shape: float, level: float) -> float:
    """``y`` with ``P(shape, y) = level`` (unit scale), by bisection on ``log y``."""
    lo, hi = 0.0, max(1.0, shape)
    while float(gamma_q(shape, hi)) > 1.0 - level:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if float(gamma_q(shape, mid)) > 1.0 - level:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * hi:
            break
    return 0.5 * (lo + hi)


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def _as_real_array(x: object, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must be a number or an array of numbers; got {_short(x)}"
        ) from exc
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    return arr


def _as_count_vector(x: object, name: str) -> np.ndarray:
    arr = as_float_vector(x, name)
    if (arr != np.floor(arr)).any():
        i = int(np.flatnonzero(arr != np.floor(arr))[0])
        raise ValueError(f"{name} must hold whole numbers; {name}[{i}] = {arr[i]!r}")
    return arr


def _as_token_array(x: object, vocab: int) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"draws must be a 1-D array of tokens; got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"draws must be integer token ids; got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= vocab):
        bad = int(arr.min()) if arr.min() < 0 else int(arr.max())
        raise ValueError(f"draws holds token {bad}, outside 0..{vocab - 1} (len(p) = {vocab})")
    return arr


def _as_checkpoints(x: object, *, maximum: int, limit_name: str) -> np.ndarray:
    try:
        raw = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"checkpoints must be whole numbers; got {_short(x)}") from exc
    raw = np.atleast_1d(raw)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError("checkpoints must be a non-empty 1-D list of sample sizes")
    if not np.isfinite(raw).all() or (raw != np.floor(raw)).any():
        raise ValueError(f"checkpoints must be whole numbers; got {_short(x)}")
    if raw[0] < 1 or (np.diff(raw) <= 0).any():
        raise ValueError("checkpoints must be strictly increasing and start at >= 1")
    if raw[-1] > maximum:
        raise ValueError(f"checkpoints go up to {raw[-1]:,.0f}, beyond {limit_name} = {maximum:,}")
    return raw.astype(np.int64)


def _as_sizes(n: object) -> np.ndarray:
    try:
        raw = np.asarray(n, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"n must be a whole number >= 1 or an array of them; got {_short(n)}"
        ) from exc
    if not np.isfinite(raw).all() or (raw != np.floor(raw)).any() or (raw < 1).any():
        raise ValueError(f"n must be whole numbers >= 1; got {_short(n)}")
    return raw.astype(np.int64)


def _as_level(level: object) -> float:
    try:
        out = float(level)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"level must be a number in (0.5, 1); got {_short(level)}") from exc
    if not 0.5 < out < 1.0:
        raise ValueError(f"level must lie in (0.5, 1); got {level!r}")
    return out
