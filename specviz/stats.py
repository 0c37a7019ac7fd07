"""Statistics for the Monte Carlo page: the chi-square test of the emitted words, TV paths, and
the noise band of an exact sampler. scipy (slow to import) is imported where it is needed."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import (
    float_vector,
    generator,
    prob_pair,
    prob_vector,
    real,
    short,
    whole,
    whole_array,
)
from specviz._laws import multinomial, tv_rows, words_of
from specviz.limits import (
    BAND_LEVEL,
    CHECKPOINTS,
    MAX_BAND_SIZES,
    MAX_BAND_WORK,
    MAX_CHECKPOINTS,
    MAX_COUNT_DRAWS,
    ROUNDING,
)
from specviz.sampling import SeedLike


class GofResult(NamedTuple):
    """Outcome of :func:`chi_square_gof`; unpacks as ``(statistic, dof, p_value)``."""

    statistic: float
    dof: int
    p_value: float


def chi_square_gof(counts: ArrayLike, probs: ArrayLike) -> GofResult:
    """Pearson's chi-square test of token ``counts`` (whole, not all zero, summing to at most
    ``10**15``) against the law ``probs``, over the tokens with ``probs > 0``; a count where
    ``probs == 0`` gives ``(inf, dof, 0.0)``. Bad input raises ValueError."""
    _refuse_odd_items(counts, "counts")
    obs = whole_array(float_vector(counts, "counts"), "counts", maximum=MAX_COUNT_DRAWS)
    n = float(obs.sum())
    if n > MAX_COUNT_DRAWS:
        raise ValueError(f"counts sums to {n:.3g}; at most {MAX_COUNT_DRAWS:,} draws are allowed")
    law = prob_vector(probs, "probs")
    if obs.shape != law.shape:
        raise ValueError(
            f"counts and probs must have the same length; got {obs.size} and {law.size}"
        )
    if n == 0:
        raise ValueError("counts are all zero; the test needs at least one observation")
    possible = law > 0
    dof = int(possible.sum()) - 1
    if (obs[~possible] > 0).any():
        return GofResult(math.inf, dof, 0.0)
    expected = n * law[possible]
    statistic = float((((obs[possible] - expected) ** 2) / expected).sum())
    if dof == 0:
        return GofResult(statistic, dof, 1.0)
    from scipy.special import chdtrc  # scipy.stats.chi2.sf, without scipy.stats's ~1 s import

    return GofResult(statistic, dof, float(chdtrc(dof, statistic)))


@dataclass(frozen=True)
class TVPath:
    """The word ``counts`` of the first ``N`` draws at strictly increasing ``checkpoints`` (int64,
    one row each) and their ``tv`` to the reference law."""

    checkpoints: np.ndarray
    counts: np.ndarray
    tv: np.ndarray

    @classmethod
    def of_counts(cls, checkpoints: np.ndarray, counts: np.ndarray, law: np.ndarray) -> TVPath:
        """The path of cumulative ``counts`` (checked by the caller) against ``law``."""
        return cls(checkpoints, counts, tv_rows(counts / checkpoints[:, None], law))


def log_checkpoints(n_max: int, num: int = CHECKPOINTS) -> np.ndarray:
    """About ``num`` (2 to 100,000) log-spaced sample sizes from 1 to ``n_max`` (at most
    ``10**15``), both included: strictly increasing int64. ValueError out of range."""
    top = whole(n_max, "n_max", minimum=1, maximum=MAX_COUNT_DRAWS)
    points = whole(num, "num", minimum=2, maximum=MAX_CHECKPOINTS)
    grid = np.unique(np.rint(np.geomspace(1, top, points)).astype(np.int64))
    grid[-1] = top
    return grid


def tv_path(
    law_sampled: ArrayLike, p: ArrayLike, checkpoints: ArrayLike, seed: SeedLike = None
) -> TVPath:
    """Simulated TV-to-``p`` path of i.i.d. draws from ``law_sampled`` at strictly increasing
    ``checkpoints`` (1 to ``10**15``), the same for the same int ``seed``; ValueError on bad
    input. The counts gained between checkpoints are independent multinomial draws, so the cost
    does not grow with ``N``."""
    sampled, law = prob_pair(law_sampled, p, ("law_sampled", "p"))
    _refuse_odd_items(checkpoints, "checkpoints")
    cps = np.atleast_1d(whole_array(checkpoints, "checkpoints", minimum=1, maximum=MAX_COUNT_DRAWS))
    if cps.ndim != 1 or cps.size == 0:
        raise ValueError(
            f"checkpoints must be a non-empty 1-D list of sample sizes; got {short(checkpoints)}"
        )
    steps = np.diff(cps, prepend=0)  # the first is cps[0] >= 1
    if (steps <= 0).any():
        raise ValueError("checkpoints must be strictly increasing")
    counts = np.cumsum(multinomial(generator(seed), steps, sampled), axis=0)
    return TVPath.of_counts(cps, counts, law)


@dataclass(frozen=True)
class TVBand:
    """Law of ``TV(p̂_N, p)`` for an exact sampler at the int64 sizes ``n``: its exact ``mean``, and
    the central interval ``lower`` .. ``upper`` holding a share ``level`` of exact runs."""

    n: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    level: float


def expected_tv_band(p: ArrayLike, n: ArrayLike, level: float = BAND_LEVEL) -> TVBand:
    """The :class:`TVBand` of ``p`` at the sizes ``n`` (1 to ``10**15``, at most :func:`band_sizes`
    of them); ValueError on bad input. The mean is exact, the edges modelled (``_BandModel``;
    tests/test_band_coverage.py checks that they hold ``level`` of exact runs)."""
    law = prob_vector(p, "p")
    _refuse_odd_items(n, "n")
    sizes = whole_array(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS)
    most = band_sizes(law)
    if sizes.size > most:
        raise ValueError(
            f"n holds {sizes.size:,} sample sizes; at most {most:,} go for this p (a band "
            f"computes {MAX_BAND_SIZES:,} sizes, and {MAX_BAND_WORK:,} size-word pairs)"
        )
    share = _level(level)
    edges = _band_model(law.tobytes(), share).evaluate(sizes.reshape(-1))
    return TVBand(sizes, *(values.reshape(sizes.shape) for values in edges), share)


def band_sizes(p: ArrayLike) -> int:
    """How many sample sizes one noise band of ``p`` computes: at most
    :data:`~specviz.limits.MAX_BAND_SIZES` and :data:`~specviz.limits.MAX_BAND_WORK` (size, word)
    pairs. ValueError on a bad ``p``."""
    words = int(np.count_nonzero(prob_vector(p, "p")))
    return min(MAX_BAND_SIZES, MAX_BAND_WORK // words)


def detectable_from(p: ArrayLike, tv: float, level: float = BAND_LEVEL) -> int | None:
    """Smallest ``N`` from which the upper edge of the noise band of target ``p``
    (:func:`expected_tv_band`) stays below a sampler's TV floor ``tv`` (``TV(law, p)`` in [0, 1]);
    1 if it never reaches it; None when ``tv`` is 0 up to rounding. Bad input raises ValueError."""
    law = prob_vector(p, "p")
    bias = real(tv, "tv", low=0.0, high=1.0)
    share = _level(level)
    if bias <= ROUNDING:
        return None
    model = _band_model(law.tobytes(), share)
    if bias > model.max_tv:
        return 1  # no N draws of p are that far from p (an exact sampler's TV is 0 for V = 1)
    # Up to N = 64 every size is looked at. Above, the edge lies between the smooth edge
    # (non-increasing) and it plus one lattice step 1/N: below the bias from ``stop`` on, not
    # before ``start``; the sizes between are looked at one by one, or bisected where too many.
    small = np.arange(1, _STREAM_MAX + 1, dtype=np.int64)
    last_above = int(small[model.evaluate(small)[2] >= bias].max(initial=0))
    start = _first_below(_below(model.upper_core, bias), _STREAM_MAX)
    stop = _first_below(_below(model.upper_roof, bias), start - 1)
    early = last_above + 1 if start == _STREAM_MAX + 1 else start
    if stop - start <= _WINDOW_WORK // 2**model.words:
        window = np.arange(start, stop, dtype=np.int64)
        above = window[model.evaluate(window)[2] >= bias]
        return int(above[-1]) + 1 if above.size else early
    below = _below(lambda sizes: model.evaluate(sizes)[2], bias, np.int64)
    return early if below(start - 1) else _first_below(below, start - 1, stop)


def _below(edge: Callable, bias: float, dtype: type = np.float64) -> Callable[[int], bool]:
    """Whether ``edge`` at one size is below ``bias`` (float sizes by default: beyond int64)."""
    return lambda size: bool(edge(np.array([size], dtype=dtype))[0] < bias)


def _first_below(below: Callable[[int], bool], low: int, high: int | None = None) -> int:
    """The ``N`` in ``(low, high]`` where ``below`` turns from false (at ``low``) to true, by
    bisection; without ``high``, the first ``N > low`` where a non-increasing edge is below,
    doubling first."""
    if high is None:
        high = low + 1
        while not below(high):
            low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if below(middle) else (middle, high)
    return high


# The band's model and its sizes (see _BandModel).
_STREAM_MAX = 64  # N up to which _STREAM_RUNS simulated streams give the band
_STREAM_RUNS = 3_000
_LIMIT_RUNS = 20_000  # draws of the Gaussian limit law
_GRID_RUNS = 2_000  # runs of each exact simulation at N = 64 · 2^k up to _GRID_MAX,
_GRID_MAX = 2.0**15
_NORMAL_COUNT = 20.0  # while some word's N p q is below this
_FEW_WORDS = 12  # at most: the Gaussian limit law and the lattice; more words: the gamma fit
_LATTICE_STEPS = 100.0  # snap while N · upper is below this and N below _SNAP_WORK / 2**V
_SNAP_WORK = 2.0**28
_WINDOW_WORK = 2**22  # most sizes x 2**V lattice evaluations detectable_from does one by one
_NORMAL_MOMENTS = 1_000.0  # N p q from which E|X/N - p| uses its local normal expansion
_NORMAL_POISSON = 100.0  # N p from which the Poisson moments use their normal limit
_EXACT_PAIRS = 1024  # words whose covariances the limit's variance computes exactly
_BAND_SEED = 20_250_601


# Kept: the bands of a page's laws (each rule's check on the Variants lab, every run's band on
# Monte Carlo) reuse one model's simulations. A few kB each, 160 kB at 20,000 words.
@lru_cache(maxsize=16)
def _band_model(raw: bytes, level: float) -> _BandModel:
    return _BandModel(np.frombuffer(raw), level)


class _BandModel:
    """The band of one law at one level, a function of ``(p, level, N)`` only (the simulations
    have fixed seeds and sizes). ``TV = ½ Σ_x |X_x/N - p(x)|`` with ``X ~ Multinomial(N, p)``;
    "words" are the entries of ``p`` with ``p(x) > 0``.

    * The mean is exact: ``E|X_x/N - p(x)| = 2 p q b(⌊N p⌋; N - 1, p)`` (de Moivre), summed
      over the words.
    * ``N = 1``: exact (TV is ``1 - p(x)`` for the drawn word ``x``). ``2 <= N <= 64``: order
      statistics of 3,000 simulated streams of draws, each observed after every draw.
    * ``N > 64``, at most 12 words: the quantiles of the Gaussian limit law of ``√N · TV``
      (20,000 draws) scaled to the exact mean. While some word's count is far from normal
      (``N p q < 20``), exact simulations at ``N = 64 · 2^k`` (2,000 runs each, up to
      ``2**15``) take over, interpolated in ``log N``. While ``N · upper < 100`` and
      ``N < 2**28 / 2**V`` the edges are put on the lattice ``{(k - N p(A)) / N}`` that TV
      lives on (``A`` a set of words, ``k`` whole).
    * ``N > 64``, more words: a gamma law fitted to the exact mean and to the variance of
      independent Poisson counts conditioned on their total (right for many rare words),
      corrected by the Gaussian limit's covariances (right for frequent ones).
    * Both edges are clipped to the TVs ``N`` draws can show, from the smallest (``N p``
      rounded by largest remainders) to ``1 - min p``.
    """

    def __init__(self, law: np.ndarray, level: float) -> None:
        self.p = law[law > 0]
        # The mean and the variance sum over distinct probabilities.
        self.values, self.weights = np.unique(self.p, return_counts=True)
        self.alpha = (1.0 - level) / 2.0
        self.words = int(self.p.size)
        self.max_tv = 1.0 - float(self.p.min())
        self.few = self.words <= _FEW_WORDS

    def evaluate(self, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(mean, lower, upper)`` at the int64 sample sizes ``sizes`` (1-D)."""
        if self.words == 1:
            return np.zeros(sizes.size), np.zeros(sizes.size), np.zeros(sizes.size)
        mean, lower, upper = self._mean(sizes), np.empty(sizes.size), np.empty(sizes.size)
        small = sizes <= _STREAM_MAX
        if small.any():
            lower[small], upper[small] = (edge[sizes[small] - 1] for edge in self._stream)
        large = ~small
        if large.any():
            lower[large], upper[large] = self._large_band(sizes[large], mean[large])
            coarse = large & self.lattice_is_coarse(sizes)
            if coarse.any():
                edges = sizes[coarse], lower[coarse], upper[coarse]
                lower[coarse], upper[coarse] = _by_chunks(self._snap, 2**self.words, *edges)
        floor = _min_tv(self.p, sizes)
        # Sums in another order differ by ~1e-16: an edge on the smallest TV up to rounding
        # stays as it is, and a TV below rounding is 0.
        lower = np.where(np.abs(lower - floor) <= ROUNDING, lower, np.maximum(lower, floor))
        lower = np.minimum(np.where(lower <= ROUNDING, 0.0, lower), self.max_tv)
        return mean, lower, np.clip(upper, lower, self.max_tv)

    def upper_core(self, sizes: np.ndarray) -> np.ndarray:
        """The upper edge above ``N = 64`` before snapping, non-increasing (``sizes``: floats)."""
        return self._large_band(sizes, self._mean(sizes))[1]

    def upper_roof(self, sizes: np.ndarray) -> np.ndarray:
        """:meth:`upper_core` plus one lattice step ``1/N`` where the edges are snapped."""
        return self.upper_core(sizes) + np.where(self.lattice_is_coarse(sizes), 1.0 / sizes, 0.0)

    def lattice_is_coarse(self, sizes: np.ndarray) -> np.ndarray:
        """Where the edges go on the lattice: few words, below a size set by the law alone."""
        if not self.few:
            return np.zeros(sizes.size, dtype=bool)
        c_hi = self._limit_law[1]
        return sizes < min((_LATTICE_STEPS / max(c_hi, 1e-300)) ** 2, _SNAP_WORK / 2**self.words)

    def _mean(self, sizes: np.ndarray) -> np.ndarray:
        return _by_chunks(partial(_mean_tv, self.values, self.weights), self.values.size, sizes)

    def _large_band(self, sizes: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.few:
            return self._limit_band(sizes, mean)
        from scipy.special import gammaincinv

        poisson = partial(_poisson_tv_variance, self.values, self.weights)
        var = _by_chunks(poisson, self.values.size, sizes) + self._gamma_unit / sizes
        var = np.maximum(var, 1e-300)
        shape, scale = mean**2 / var, var / mean
        return gammaincinv(shape, self.alpha) * scale, gammaincinv(shape, 1 - self.alpha) * scale

    def _limit_band(self, sizes: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The limit law's quantiles scaled to the exact mean; between the anchors, the simulated
        ones interpolated in ``log N``."""
        c_lo, c_hi, c_mean = self._limit_law
        scale = mean / c_mean
        lower, upper = c_lo * scale, c_hi * scale
        if self._anchors is None:
            return lower, upper
        grid, a_lo, a_hi = self._anchors
        inside = sizes < grid[-1]
        upper[inside] = np.interp(np.log(sizes[inside]), np.log(grid), a_hi)
        # The lower edge of a lumpy law jumps between neighbouring sizes: take the smaller of the
        # two anchors' ratios to the mean, which moves smoothly.
        ratio = a_lo / self._mean(grid)
        j = np.searchsorted(grid, sizes[inside], side="right") - 1
        lower[inside] = mean[inside] * np.minimum(ratio[j], ratio[j + 1])
        return lower, upper

    @cached_property
    def _anchors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Simulated ``(N, lower, upper)`` at ``N = 64 · 2^k`` while some word's count is far
        from normal, else None; the upper values made non-increasing."""
        normal_from = min(_NORMAL_COUNT / float((self.p * (1.0 - self.p)).min()), _GRID_MAX)
        if normal_from <= _STREAM_MAX:
            return None
        grid = [_STREAM_MAX]
        while grid[-1] < normal_from:
            grid.append(2 * grid[-1])
        sizes = np.array(grid, dtype=np.int64)
        lo, hi = np.empty(sizes.size), np.empty(sizes.size)
        lo[0], hi[0] = self._stream[0][-1], self._stream[1][-1]
        for i, size in enumerate(grid[1:-1], start=1):
            rng = np.random.default_rng([_BAND_SEED, 2, size])
            counts = rng.multinomial(size, self.p, size=_GRID_RUNS)
            t = tv_rows(counts / float(size), self.p)
            (lo[i],), (hi[i],) = _order_quantiles(t[None, :], self.alpha)
        c_lo, c_hi, c_mean = self._limit_law
        scale = self._mean(sizes[-1:])[0] / c_mean
        lo[-1], hi[-1] = c_lo * scale, c_hi * scale
        return sizes, lo, np.maximum.accumulate(hi[::-1])[::-1]

    def _snap(
        self, sizes: np.ndarray, lower: np.ndarray, upper: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Put the edges on the lattice ``N · TV = Σ_{x∈A} X_x - N p(A)`` (``A`` the words drawn
        more often than expected): the lower one on the nearest atom, the upper one on the atom
        at or above it (never below the smooth edge, which :func:`detectable_from` relies on)."""
        n = sizes.astype(np.float64)[:, None]
        offset = n * self._subset_mass
        tol = 1e-9

        def down(x: np.ndarray) -> np.ndarray:
            atoms = (np.floor(x[:, None] * n + offset + tol) - offset) / n
            return np.where(atoms <= x[:, None] + tol / n, atoms, -np.inf).max(axis=1)

        def up(x: np.ndarray) -> np.ndarray:
            atoms = (np.ceil(x[:, None] * n + offset - tol) - offset) / n
            return np.where(atoms >= x[:, None] - tol / n, atoms, np.inf).min(axis=1)

        below, above = down(lower), up(lower)
        nearest = np.where(lower - below <= above - lower, below, above)
        return np.maximum(nearest, 0.0), up(upper)

    @cached_property
    def _subset_mass(self) -> np.ndarray:
        """``p(A)`` for every set of words but the empty and the full one."""
        bits = (np.arange(1, 2**self.words - 1)[:, None] >> np.arange(self.words)) & 1
        return bits @ self.p

    @cached_property
    def _limit_law(self) -> tuple[float, float, float]:
        """``(c_lo, c_hi, mean)`` of the Gaussian limit law of ``√N · TV`` (simulated)."""
        rng = np.random.default_rng([_BAND_SEED, 1])
        z = rng.standard_normal((_LIMIT_RUNS, self.words)) * np.sqrt(self.p)
        # G = √p Z - p Σ√p Z has the multinomial covariance diag(p) - p pᵀ.
        t = tv_rows(z, np.outer(z.sum(axis=1), self.p))
        lo, hi = np.quantile(t, [self.alpha, 1.0 - self.alpha])
        return float(lo), float(hi), float(t.mean())

    @cached_property
    def _gamma_unit(self) -> float:
        """``N`` times the gap between the Gaussian limit's variance and the Poisson one's."""
        return _limit_tv_variance(self.p) - 0.25 * (1.0 - 2.0 / math.pi)

    @cached_property
    def _stream(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` at ``N = 1 .. 64`` from simulated streams (exact at N = 1)."""
        lo, hi = _order_quantiles(_stream_tvs(self.p, _STREAM_MAX, _STREAM_RUNS), self.alpha)
        # At N = 1, TV is 1 - p(x) w.p. p(x). A cumulative share equal to alpha up to rounding
        # reaches it (.4 + .3 + .2 = .9000000001).
        values = 1.0 - self.p
        order = np.argsort(values, kind="stable")
        cum = np.cumsum(self.p[order])
        lo[0] = values[order][np.searchsorted(cum, self.alpha - ROUNDING)]
        hi[0] = values[order][min(np.searchsorted(cum, 1 - self.alpha - ROUNDING), self.words - 1)]
        return lo, hi


def _stream_tvs(p: np.ndarray, length: int, runs: int) -> np.ndarray:
    """TV after each prefix ``N = 1 .. length`` of ``runs`` streams of draws from ``p``, shape
    ``(length, runs)``; in memory ``runs * min(V, length)`` (words relabelled as they appear)."""
    rng = np.random.default_rng([_BAND_SEED, 0])
    tokens = words_of(p, rng.random((length, runs)))
    if p.size <= length:
        local = tokens
        weights = np.broadcast_to(p, (runs, p.size))
        unseen = np.zeros(runs)
    else:
        order = np.argsort(tokens, axis=0, kind="stable")
        ranked = np.take_along_axis(tokens, order, axis=0)
        fresh = np.ones(ranked.shape, dtype=bool)
        fresh[1:] = ranked[1:] != ranked[:-1]
        ids = np.cumsum(fresh, axis=0) - 1
        local = np.empty_like(ids)
        np.put_along_axis(local, order, ids, axis=0)
        weights = np.zeros((runs, length))
        weights[np.broadcast_to(np.arange(runs), ids.shape), ids] = p[ranked]
        # Words a stream never draws each add their full p to |p̂ - p|.
        unseen = np.maximum(1.0 - weights.sum(axis=1), 0.0)
    # d = counts - N p: every word loses p per draw, the drawn one gains 1.
    d = np.zeros(weights.shape)
    rows = np.arange(runs)
    tv = np.empty((length, runs))
    for i in range(length):
        d -= weights
        d[rows, local[i]] += 1.0
        tv[i] = (np.abs(d).sum(axis=1) + (i + 1) * unseen) * (0.5 / (i + 1))
    return tv


def _order_quantiles(samples: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Central sample quantiles of each row: the smallest values with share ``>= alpha`` and
    ``>= 1 - alpha`` at or below them."""
    runs = samples.shape[1]
    k_lo = max(0, math.ceil(alpha * runs - 1e-9) - 1)
    k_hi = min(runs - 1, max(0, math.ceil((1.0 - alpha) * runs - 1e-9) - 1))
    part = np.partition(samples, [k_lo, k_hi], axis=1)
    return part[:, k_lo].copy(), part[:, k_hi].copy()


def _by_chunks(fn: Callable, words: int, *arrays: np.ndarray) -> Any:
    """``fn`` of the ``arrays`` cut into rows so that a (rows x words) table stays near 2
    million entries, the pieces of its result joined."""
    step = max(1, 2_000_000 // words)
    parts = [fn(*(a[i : i + step] for a in arrays)) for i in range(0, len(arrays[0]) or 1, step)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))
    return np.concatenate(parts)


def _mean_tv(p: np.ndarray, weights: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``E TV`` at ``sizes`` of the law holding each probability ``p`` ``weights`` times: half
    the weighted sum of ``E|X/N - p|`` for ``X ~ Binomial(N, p)``. de Moivre:
    ``E|X - Np| = 2 N p q b(⌊Np⌋; N - 1, p)``: ``2 p q^N`` for ``Np < 1``; the local expansion
    of ``b`` at the mode (normal density and its ``1/(Npq)`` Edgeworth terms, error < 1e-7) for
    ``(N - 1) p q >= 1000``, where scipy's pmf loses precision and time; the pmf in between."""
    n = np.broadcast_to(sizes.astype(np.float64)[:, None], (sizes.size, p.size))
    p = np.broadcast_to(p, n.shape)
    s2 = (n - 1.0) * p * (1.0 - p)
    tail = n * p < 1.0
    exact = ~tail & (s2 < _NORMAL_MOMENTS)
    normal = ~(tail | exact)
    out = np.empty(n.shape)
    out[tail] = 2.0 * p[tail] * np.exp(n[tail] * np.log1p(-p[tail]))
    pn, nn, sn = p[normal], n[normal], s2[normal]
    qn = 1.0 - pn
    d = np.floor(nn * pn) - (nn - 1.0) * pn
    correction = 1.0 - (d * d + (qn - pn) * d) / (2.0 * sn) - (1.0 - pn * qn) / (12.0 * sn)
    out[normal] = 2.0 * pn * qn / np.sqrt(2.0 * math.pi * sn) * correction
    if exact.any():
        from scipy.special import betaln, xlog1py, xlogy  # not scipy.stats: ~1 s to import

        pm, nm = p[exact], n[exact]
        k, m = np.floor(nm * pm), nm - 1.0
        log_pmf = -np.log1p(m) - betaln(m - k + 1.0, k + 1.0) + xlogy(k, pm) + xlog1py(m - k, -pm)
        out[exact] = 2.0 * pm * (1.0 - pm) * np.exp(log_pmf)
    return 0.5 * (out * weights).sum(axis=1)


def _poisson_tv_variance(values: np.ndarray, weights: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Variance of TV with the counts independent ``Poisson(N p)`` conditioned on their sum.
    For ``S = Σ f_x(ξ_x)`` the conditioning gives ``Var S - Cov(S, Σξ)² / N``, with per-word
    moments ``a = E|ξ - λ|``, ``Var|ξ - λ| = λ - a²`` and ``c = E[(ξ - λ)|ξ - λ|]``; the law is
    given by its distinct probabilities ``values`` held by ``weights`` words each."""
    n = sizes.astype(np.float64)
    lam = n[:, None] * values
    a, c = _poisson_moments(lam)
    spread = ((lam - a * a) * weights).sum(axis=1)
    drift = (c * weights).sum(axis=1)
    return np.maximum(spread - drift**2 / n, 0.0) / (4.0 * n * n)


def _poisson_moments(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a = E|ξ - λ|`` and ``c = E[(ξ - λ)|ξ - λ|]`` for ``ξ ~ Poisson(λ)``: closed forms for
    ``λ < 1`` (``k = 0``) and the normal limit from ``λ = 100`` on, the pmf in between."""
    a, c = np.empty(lam.shape), np.empty(lam.shape)
    low = lam < 1.0
    exact = ~low & (lam < _NORMAL_POISSON)
    high = ~(low | exact)
    # k = 0: a = 2 λ e^-λ and c = λ (1 - 2 λ e^-λ). Large λ: a = √(2λ/π), and the Poisson
    # skewness 1/√λ gives c = a/3.
    ll = lam[low]
    near_zero = 2.0 * ll * np.exp(-ll)
    a[low], c[low] = near_zero, ll * (1.0 - near_zero)
    root = np.sqrt(2.0 * lam[high] / math.pi)
    a[high], c[high] = root, root / 3.0
    if exact.any():
        from scipy.special import gammaln, pdtr, xlogy

        lm = lam[exact]
        k = np.floor(lm)
        pmf = np.exp(xlogy(k, lm) - lm - gammaln(k + 1.0))
        a[exact] = 2.0 * lm * pmf
        # Stein: E[(ξ-λ) g(ξ)] = λ E[g(ξ+1) - g(ξ)] with g = |· - λ|.
        c[exact] = lm * (1.0 - 2.0 * pdtr(k, lm) + 2.0 * (1.0 - (lm - k)) * pmf)
    return a, c


def _limit_tv_variance(p: np.ndarray) -> float:
    """``N Var TV`` in the Gaussian limit (bivariate-normal identity for each pair of words)."""
    sigma = np.sqrt(p * (1.0 - p))
    diagonal = float((sigma**2).sum()) * (1.0 - 2.0 / math.pi)
    heavy = np.argsort(-p, kind="stable")[:_EXACT_PAIRS]
    ph, sh = p[heavy], sigma[heavy]
    ratio = np.sqrt(ph / (1.0 - ph))
    rho = np.clip(-np.outer(ratio, ratio), -1.0, 0.0)
    # E|X||Y| = σx σy (2/π)(√(1-ρ²) + ρ asin ρ) for a standard bivariate normal pair.
    shape_fn = np.sqrt(1.0 - rho**2) + rho * np.arcsin(rho) - 1.0
    np.fill_diagonal(shape_fn, 0.0)
    exact_pairs = float((np.outer(sh, sh) * shape_fn).sum())
    # For the remaining pairs f(ρ) ≈ ρ²/2, and σx σy ρ²/2 = wx wy / 2 with w = p^1.5/√(1-p).
    w = p**1.5 / np.sqrt(1.0 - p)
    all_pairs, heavy_pairs = (float(v.sum()) ** 2 - float((v**2).sum()) for v in (w, w[heavy]))
    approx_pairs = 0.5 * max(0.0, all_pairs - heavy_pairs)
    return 0.25 * (diagonal + (2.0 / math.pi) * (exact_pairs + approx_pairs))


def _min_tv(p: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Smallest TV that ``N`` draws can show: ``N p`` rounded by largest remainders, giving
    ``Σ|k - N p| = r - 2 (sum of the r largest fractional parts) + Σ parts``."""
    n = sizes.astype(np.float64)
    target = n[:, None] * p
    frac = target - np.floor(target)
    total = frac.sum(axis=1)
    r = np.clip(np.rint(total), 0, p.size).astype(np.int64)
    ranked = np.cumsum(-np.sort(-frac, axis=1), axis=1)
    top = np.where(r > 0, ranked[np.arange(n.size), np.maximum(r - 1, 0)], 0.0)
    return np.maximum(0.5 * (r - 2.0 * top + total) / n, 0.0)


def _level(level: object) -> float:
    return real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)


def _refuse_odd_items(x: object, name: str) -> None:
    """Refuse a list holding anything but real numbers (or nested lists of them): numpy turns
    ``[True, 2]`` into ``[1, 2]`` and ``[1, datetime64("2024-01-01")]`` into ``[1, 19723]``."""
    stack = [x] if isinstance(x, list | tuple) else []
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, bool | np.bool_) or not isinstance(
            item, int | float | np.integer | np.floating | np.ndarray
        ):
            raise ValueError(f"{name} must hold numbers only; got {short(item)} in {short(x)}")
