"""Statistics for the Monte Carlo page (numpy, and scipy imported lazily where a test needs it).

* :func:`chi_square_gof` — Pearson's goodness-of-fit test of token counts against a law (the
  chi-square tail from ``scipy.special.chdtrc``, the function behind ``scipy.stats.chi2.sf``).
* :func:`log_checkpoints`, :func:`total_variation_curve`, :func:`tv_path` and
  :func:`tv_of_counts` — the distance between the empirical law of the first ``N`` draws and
  ``p`` at a list of checkpoints, for the convergence plot.
* :func:`expected_tv_band` — where an exact sampler's TV lies at each ``N`` (central interval,
  exact mean), and :func:`detectable_from` — from which ``N`` a bias of a given size leaves it.

scipy costs a few tenths of a second to import, so it is imported inside the functions that need
it: a page that shows no test and no band never loads it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import (
    float_vector,
    generator,
    prob_vector,
    real,
    short,
    token_array,
    whole,
    whole_array,
)
from specviz.limits import (
    BAND_LEVEL,
    CHECKPOINTS,
    MAX_BAND_SIZES,
    MAX_BAND_WORK,
    MAX_CHECKPOINTS,
    MAX_COUNT_DRAWS,
    ROUNDING,
)
from specviz.sampling import SeedLike, multinomial_on_support

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
        Observed count per token: whole numbers ``>= 0``, not all zero, summing to at most
        ``10**15``.
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
        On counts that are not whole numbers, negative or all zero, a bad ``probs`` or a
        length mismatch.

    Notes
    -----
    The chi-square approximation needs expected counts of about 5 or more per token. Same
    statistic and p-value as ``scipy.stats.chisquare(counts, n * probs)``.
    """
    obs = _count_vector(counts, "counts")
    law = prob_vector(probs, "probs")
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
    if dof == 0:
        return GofResult(statistic, dof, 1.0)
    from scipy.special import chdtrc  # scipy.stats.chi2.sf, without scipy.stats's ~1 s import

    return GofResult(statistic, dof, float(chdtrc(dof, statistic)))


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


def log_checkpoints(n_max: int, num: int = CHECKPOINTS) -> np.ndarray:
    """About ``num`` log-spaced sample sizes from 1 to ``n_max`` (both included, no repeats).

    Parameters
    ----------
    n_max : int
        Largest sample size, ``1 <= n_max <= 10**15``.
    num : int, default 60
        Number of points before rounding removes duplicates, ``2 <= num <= 100_000``.

    Returns
    -------
    numpy.ndarray
        Strictly increasing int64 checkpoints starting at 1 and ending at ``n_max``.

    Raises
    ------
    ValueError
        If ``n_max`` or ``num`` is not a whole number in its range.
    """
    top = whole(n_max, "n_max", minimum=1, maximum=MAX_COUNT_DRAWS)
    points = whole(num, "num", minimum=2, maximum=MAX_CHECKPOINTS)
    grid = np.unique(np.rint(np.geomspace(1, top, points)).astype(np.int64))
    grid[-1] = top
    return grid


def total_variation_curve(draws: ArrayLike, p: ArrayLike, checkpoints: ArrayLike) -> TVPath:
    """TV between the empirical law of the first ``N`` draws and ``p``, at each checkpoint.

    Parameters
    ----------
    draws : array_like
        1-D int array of emitted tokens in ``[0, len(p))``, in the order they were drawn.
    p : array_like
        The reference law (usually the target).
    checkpoints : array_like
        Strictly increasing sample sizes ``1 <= N_1 < ... <= len(draws)``.

    Returns
    -------
    TVPath
        Cumulative counts and ``TV(counts / N, p)`` at each checkpoint.

    Raises
    ------
    ValueError
        On tokens outside ``[0, len(p))``, a bad ``p`` or bad checkpoints.

    Notes
    -----
    One ``bincount`` per stretch between checkpoints, then a cumulative sum: O(len(draws) +
    V * len(checkpoints)), however many checkpoints there are.
    """
    law = prob_vector(p, "p")
    tokens = token_array(draws, law.size, "draws")
    cps = _checkpoints(checkpoints, maximum=tokens.size, limit_name="len(draws)")
    starts = np.concatenate(([0], cps[:-1]))
    pieces = [
        np.bincount(tokens[lo:hi], minlength=law.size) for lo, hi in zip(starts, cps, strict=True)
    ]
    counts = np.cumsum(np.vstack(pieces).astype(np.int64), axis=0)
    return TVPath(cps, counts, _tv_of_counts(counts, cps, law))


def tv_path(
    law_sampled: ArrayLike, p: ArrayLike, checkpoints: ArrayLike, seed: SeedLike = None
) -> TVPath:
    """Simulated TV-to-``p`` path of i.i.d. draws from ``law_sampled``, for ``N`` up to 10**15.

    Parameters
    ----------
    law_sampled : array_like
        The law the sampler actually produces (``p`` itself for an exact sampler).
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

    Raises
    ------
    ValueError
        On bad laws, laws of different lengths, bad checkpoints or a bad seed.

    Notes
    -----
    The counts gained between consecutive checkpoints are independent
    ``Multinomial(N_i - N_{i-1}, law_sampled)`` draws, which is exactly the law of the counts of
    a stream of i.i.d. draws observed at the checkpoints. Cost O(V * len(checkpoints)),
    independent of ``N``.
    """
    sampled = prob_vector(law_sampled, "law_sampled")
    law = prob_vector(p, "p")
    if sampled.shape != law.shape:
        raise ValueError(
            f"law_sampled and p must have the same length; got {sampled.size} and {law.size}"
        )
    cps = _checkpoints(checkpoints, maximum=MAX_COUNT_DRAWS, limit_name="10**15")
    rng = generator(seed)
    steps = np.diff(np.concatenate(([0], cps)))
    counts = np.cumsum(multinomial_on_support(rng, steps, sampled), axis=0)
    return TVPath(cps, counts, _tv_of_counts(counts, cps, law))


def tv_of_counts(counts: ArrayLike, checkpoints: ArrayLike, law: ArrayLike) -> np.ndarray:
    """TV between ``law`` and the empirical law of each row of cumulative ``counts``.

    Parameters
    ----------
    counts : array_like
        Whole numbers ``>= 0`` of shape ``(len(checkpoints), len(law))``; row ``i`` holds the
        counts of the first ``checkpoints[i]`` draws, so it sums to ``checkpoints[i]``.
    checkpoints : array_like
        Strictly increasing sample sizes ``1 <= N_1 < ... <= 10**15``.
    law : array_like
        The reference law.

    Returns
    -------
    numpy.ndarray
        ``TV(counts[i] / checkpoints[i], law)`` for each row.

    Raises
    ------
    ValueError
        On bad counts, checkpoints or law, mismatched shapes, or a row that does not sum to
        its checkpoint.
    """
    ref = prob_vector(law, "law")
    cps = _checkpoints(checkpoints, maximum=MAX_COUNT_DRAWS, limit_name="10**15")
    _refuse_odd_items(counts, "counts")
    table = whole_array(counts, "counts", minimum=0, maximum=MAX_COUNT_DRAWS)
    if table.shape != (cps.size, ref.size):
        raise ValueError(
            f"counts must have shape (len(checkpoints), len(law)) = ({cps.size}, {ref.size}); "
            f"got {table.shape}"
        )
    sums = table.sum(axis=1)
    if (sums != cps).any():
        i = int(np.flatnonzero(sums != cps)[0])
        raise ValueError(
            f"row {i} of counts sums to {int(sums[i]):,}, not to its checkpoint {int(cps[i]):,}"
        )
    return _tv_of_counts(table, cps, ref)


def _tv_of_counts(counts: np.ndarray, checkpoints: np.ndarray, law: np.ndarray) -> np.ndarray:
    """:func:`tv_of_counts` on trusted inputs (the path builders validate theirs)."""
    empirical = counts / np.asarray(checkpoints)[:, None].astype(np.float64)
    return 0.5 * np.abs(empirical - law).sum(axis=1)


# --------------------------------------------------------------------------------------------
# The noise band
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TVBand:
    """Law of ``TV(p̂_N, p)`` for an exact sampler (see :func:`expected_tv_band`).

    Attributes
    ----------
    n : numpy.ndarray
        The sample sizes (int64).
    mean : numpy.ndarray
        Exact mean of the TV at each ``n``.
    sd : numpy.ndarray
        Its standard deviation (estimated; see :func:`expected_tv_band`).
    lower, upper : numpy.ndarray
        The central interval: an exact sampler's TV at ``n`` falls below ``lower`` with
        probability about ``(1 - level) / 2`` and above ``upper`` with about the same
        probability (at most, where TV is lumpy).
    level : float
        The share of exact runs the band holds.
    """

    n: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    level: float


def expected_tv_band(p: ArrayLike, n: ArrayLike, level: float = BAND_LEVEL) -> TVBand:
    """Where the TV between ``p`` and the empirical law of ``n`` draws from ``p`` lies.

    Parameters
    ----------
    p : array_like
        The law sampled from (and measured against).
    n : int or array_like of int
        Sample size(s), whole numbers from 1 to ``10**15``: at most :func:`band_sizes` of them
        (1,000; 60 at the largest vocabulary).
    level : float, default 0.95
        Share of exact runs the band holds, in (0, 1).

    Returns
    -------
    TVBand
        Mean, standard deviation and central interval, each an array shaped like ``n``.

    Raises
    ------
    ValueError
        On a bad ``p``, sizes that are not whole numbers in ``[1, 10**15]`` or too many of
        them, or a ``level`` outside (0, 1).

    Notes
    -----
    The mean is exact at every ``N``; the edges come from simulated streams up to ``N = 64``,
    then from the Gaussian limit law (few words) or a gamma law fitted to the exact mean
    (many words), put on the lattice of possible TVs where it is coarse (the class
    ``_BandModel`` says how). The upper edge falls with ``N`` except for lattice steps (less
    than ``1/N``) where the TV is lumpy: the exact central interval does the same (two equally
    likely words: 0.357 at ``N = 7``, 0.375 at ``N = 8``).

    Coverage of exact runs (tests/test_band_coverage.py): 95 % within about ±1 % wherever the
    TV is close to continuous, more where the lattice is coarse (tiny ``N``, two words), since
    an interval between atoms must then hold more than ``level``. A cold call costs ~15-30 ms
    for 3 to 10 words at 60 checkpoints, about 0.2 s at the largest vocabulary.
    """
    law = prob_vector(p, "p")
    _refuse_odd_items(n, "n")
    sizes = whole_array(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS)
    most = band_sizes(law)
    if sizes.size > most:
        raise ValueError(
            f"n holds {sizes.size:,} sample sizes; at most {most:,} go for this p {_BAND_LIMITS}"
        )
    share = _level(level)
    mean, sd, lower, upper = _BandModel(law, share).evaluate(sizes.reshape(-1))
    shape = sizes.shape
    return TVBand(
        sizes,
        mean.reshape(shape),
        sd.reshape(shape),
        lower.reshape(shape),
        upper.reshape(shape),
        share,
    )


def band_sizes(p: ArrayLike) -> int:
    """How many sample sizes one noise band of ``p`` computes: at most
    :data:`~specviz.limits.MAX_BAND_SIZES`, and at most :data:`~specviz.limits.MAX_BAND_WORK`
    (size, word) pairs, since the exact mean is a pass over the words per size (60 sizes for
    the largest vocabulary).

    Raises
    ------
    ValueError
        On a bad ``p``.
    """
    words = int(np.count_nonzero(prob_vector(p, "p")))
    return min(MAX_BAND_SIZES, MAX_BAND_WORK // words)


#: The end of the message refusing too many sizes for a band.
_BAND_LIMITS = f"(a band computes {MAX_BAND_SIZES:,} sizes, and {MAX_BAND_WORK:,} size-word pairs)"


def detectable_from(p: ArrayLike, tv: float, level: float = BAND_LEVEL) -> int | None:
    """Smallest ``N`` from which the noise band's upper edge is below a bias of size ``tv``.

    Parameters
    ----------
    p : array_like
        The target.
    tv : float
        A sampler's TV floor, ``TV(law, p)``, a number in [0, 1].
    level : float, default 0.95
        Share of exact runs the band holds, in (0, 1).

    Returns
    -------
    int or None
        The ``N`` with ``upper(N) < tv <= upper(N - 1)`` after which the upper edge of
        :func:`expected_tv_band` never reaches ``tv`` again (it can step up by less than
        ``1/N`` where TV is lumpy, so "first below" alone would not do); 1 if it never does;
        None when ``tv`` is 0 up to rounding (1e-12). For a bias so small that ``N`` exceeds
        ``10**15`` the band's large-``N`` formula is extended beyond the sizes
        :func:`expected_tv_band` accepts.

    Raises
    ------
    ValueError
        On a bad ``p``, a ``tv`` that is not a number in [0, 1] (NaN included) or a bad
        ``level``.

    Notes
    -----
    Up to ``N = 64`` every value is looked at. Above, the edge before lattice snapping
    (non-increasing) is below ``tv`` from some ``N_0`` on and the edge after snapping (less
    than ``1/N`` higher) from some ``N_1`` on; both are found by :func:`_first_below` (a few
    passes over the law's words), and the sizes in between (about ``2 / tv`` of them, none
    once ``N · upper >= 100`` or ``N >= 2**28 / 2**V``) are evaluated one by one. The exact
    mean of a law with words of probability ~1e-6 wiggles with ``N`` by a few parts in 10**7
    (the binomial's mode moves by whole draws); where ``tv`` meets the edge inside such a
    wiggle, ``N`` is one of the sizes where it crosses.
    """
    law = prob_vector(p, "p")
    bias = real(tv, "tv", low=0.0, high=1.0)
    share = _level(level)
    if bias <= ROUNDING:
        return None
    model = _BandModel(law, share)
    if bias > model.max_tv:
        return 1  # no N draws of p are that far from p (an exact sampler's TV is 0 for V = 1)
    return _crossing(model, bias)


def _crossing(model: _BandModel, bias: float) -> int:
    """:func:`detectable_from` for a bias some ``N`` draws can show."""
    small = np.arange(1, _STREAM_MAX + 1, dtype=np.int64)
    last_above = int(small[model.upper(small) >= bias].max(initial=0))
    first = _STREAM_MAX + 1
    start = _first_below(model.upper_core, bias, first)  # below it the edge is >= core >= bias
    stop = _first_below(model.upper_roof, bias, start)  # from it on the edge is < roof < bias
    early = last_above + 1 if start == first else start
    if stop - start > _WINDOW_WORK // 2**model.words:
        # Only for laws with words of probability ~1e-9: bisect on the snapped edge itself,
        # which still gives upper(N) < tv <= upper(N - 1), if not "for good".
        return _last_crossing(model, bias, start - 1, stop, early)
    if stop > start:
        window = np.arange(start, stop, dtype=np.int64)
        above = window[model.upper(window) >= bias]
        if above.size:
            return int(above[-1]) + 1
    return early


def _last_crossing(model: _BandModel, bias: float, below: int, above: int, early: int) -> int:
    """Bisection on the snapped upper edge between ``below`` and ``above`` (where it is
    below ``bias``); ``early`` if the edge is below ``bias`` at ``below`` already."""

    def edge(size: int) -> float:
        return float(model.upper(np.array([size], dtype=np.int64))[0])

    if edge(below) < bias:
        return early
    while above - below > 1:
        middle = (below + above) // 2
        if edge(middle) < bias:
            above = middle
        else:
            below = middle
    return above


def _first_below(edge: Callable[[np.ndarray], np.ndarray], bias: float, start: int) -> int:
    """Smallest ``N >= start`` with ``edge(N) < bias`` for a non-increasing ``edge``.

    ``edge`` takes float sizes (``N`` may pass the int64 range) and costs a pass over the law's
    words per size, so the sizes asked for are few: the bracket is found by a jump to where an
    edge falling like ``1/√N`` would cross ``bias``, then narrowed by probing both sides of the
    point where ``log edge``, interpolated linearly in ``log N``, meets ``log bias`` (a handful
    of steps, where bisection takes one per bit of ``N``). A step that does not halve the
    bracket is followed by one at its middle, so on an edge the interpolation cannot follow (a
    staircase) the search asks at most about three sizes per bit. The answer is the same as a
    bisection's: the bracket always holds it.
    """

    def at(*sizes: int) -> list[float]:
        return edge(np.array(sizes, dtype=np.float64)).tolist()

    (value,) = at(start)
    if value < bias:
        return start
    below, high = start, value
    while True:  # the bracket: jump past the crossing of a 1/√N edge
        guess = max(2 * below, math.ceil(below * min((high / bias) ** 2 * 1.1, 2.0**80)))
        (value,) = at(guess)
        if value < bias:
            above, low = guess, value
            break
        below, high = guess, value
    halved = True
    while above - below > 8:
        width = above - below
        if halved:  # both sides of the interpolated crossing, a 256th of the bracket apart
            middle, step = _log_crossing(below, high, above, low, bias), max(1, width >> 8)
            probes = sorted(
                {min(max(x, below + 1), above - 1) for x in (middle - step, middle + step)}
            )
        else:  # the interpolation missed: one bisection step
            probes = [below + width // 2]
        for size, value in zip(probes, at(*probes), strict=True):
            if value >= bias:
                below, high = size, value
            elif size < above:  # the probes are in order: the first one below bias counts
                above, low = size, value
        halved = above - below <= width // 2
    inside = list(range(below + 1, above))
    crossed = [size for size, value in zip(inside, at(*inside), strict=True) if value < bias]
    return crossed[0] if crossed else above


def _log_crossing(below: int, high: float, above: int, low: float, bias: float) -> int:
    """Where the line through ``(log below, log high)`` and ``(log above, log low)`` reaches
    ``log bias``; the middle of the bracket where the logs cannot tell (an edge of 0, or two
    values a few ulps apart)."""
    fall = math.log(high) - math.log(low) if low > 0.0 else 0.0
    if not fall > 0.0:
        return below + (above - below) // 2
    share = (math.log(high) - math.log(bias)) / fall
    x0, x1 = math.log(below), math.log(above)
    return round(math.exp(x0 + share * (x1 - x0)))


# ---------------------------------------------------------------------------------- internals

#: ``N`` up to which the band comes from simulated streams observed at every prefix.
_STREAM_MAX = 64
_STREAM_RUNS = 3_000
#: Cells of the lookup table that turns uniforms into words.
_CELLS = 4_096
#: Runs per exact simulation at a grid point of the intermediate range.
_GRID_RUNS = 2_000
_GRID_MAX = 2**15
#: Draws of the Gaussian limit law.
_LIMIT_RUNS = 20_000
#: Laws with at most this many words use the Gaussian limit law; larger ones the gamma fit
#: (simulating the limit costs ``_LIMIT_RUNS * V`` normals, and many words make TV normal).
_FEW_WORDS = 16
#: A word's count ``Binomial(N, p)`` is close enough to normal once ``N p q`` reaches this.
_NORMAL_COUNT = 20.0
#: Edges are snapped to the lattice of possible TVs while the upper edge spans fewer than this
#: many steps ``1/N``; beyond, one step is below 1 % of the edge.
_LATTICE_STEPS = 100.0
#: Laws of at most this many words get their edges snapped (``2**V`` lattice offsets), up to
#: ``N = _SNAP_WORK / 2**V``: that bounds the work of :func:`detectable_from`, which may have
#: to snap every size up to there (2**16 sizes for 12 words, 2**26 for two).
_SNAP_WORDS = 12
_SNAP_WORK = 2.0**28
#: Most ``sizes x 2**V`` lattice evaluations :func:`detectable_from` does one size at a time.
_WINDOW_WORK = 2**22
#: ``N p q`` above which a word's mean absolute deviation uses its local normal expansion.
_NORMAL_MOMENTS = 1_000.0
#: ``N p`` above which the Poisson moments of the variance use their normal limit.
_NORMAL_POISSON = 100.0
#: Tokens whose pairwise covariances the Gaussian limit's variance computes exactly (rarer
#: pairs use the leading term of the expansion, which factorises).
_EXACT_PAIRS = 1024
_BAND_SEED = 20_250_601


class _BandModel:
    """The band of one law at one level; evaluates any ``N`` once its simulations are done.

    Every value depends on ``(p, level, N)`` only, never on which other sizes are asked for:
    the simulations have fixed seeds and fixed sizes.

    ``TV = ½ Σ_x |X_x/N - p(x)|`` with ``X ~ Multinomial(N, p)``; "words" are the entries of
    ``p`` with ``p(x) > 0``. How each piece is computed:

    * The mean is exact at every ``N``: ``E|X_x/N - p(x)| = 2 p q b(⌊N p⌋; N - 1, p)`` with
      ``q = 1 - p`` and ``b`` the binomial pmf (de Moivre), summed over the words (the local
      normal expansion of ``b`` once ``N p q >= 1000``, where they agree to 1e-7).
    * ``N = 1``: exact (TV is ``1 - p(x)`` for the drawn word ``x``).
    * ``2 <= N <= 64``: order statistics of 3,000 simulated streams of draws (fixed seed), each
      observed after every draw, so every ``N`` comes from exact runs.
    * ``N > 64``, at most 16 words: the quantiles of the Gaussian limit law of ``√N · TV``
      (20,000 draws, fixed seed) scaled to the exact mean. While some word's count is far from
      normal (``N p q < 20``), exact multinomial simulations at ``N = 64 · 2^k`` (2,000 runs
      each, up to ``2**15``) take over, interpolated in ``log N``. For at most 12 words,
      while ``N · upper < 100`` and ``N < 2**28 / 2**V``, the edges are put on the lattice
      ``{(k - N p(A)) / N}`` that TV lives on (``A`` a set of words, ``k`` a whole number):
      the lower edge on the nearest point, the upper edge on the point at or above it.
    * ``N > 64``, more words: a gamma law fitted to the exact mean and to the variance of
      independent Poisson counts conditioned on their total (right for many rare words),
      corrected by the Gaussian limit's covariances (right for frequent ones).
    * Both edges are clipped to the TVs ``N`` draws can produce: from the smallest (``N p``
      rounded by largest remainders) to ``1 - min p`` (all draws on the rarest word).
    """

    def __init__(self, law: np.ndarray, level: float) -> None:
        self.p = law[law > 0]
        # The mean and the variance sum over distinct probabilities: found once per law.
        self.values, self.weights = np.unique(self.p, return_counts=True)
        self.alpha = (1.0 - level) / 2.0
        self.words = int(self.p.size)
        self.max_tv = 1.0 - float(self.p.min())
        self.few = self.words <= _FEW_WORDS
        self._stream: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._limit: tuple[float, float, float, float] | None = None
        self._anchors: tuple[np.ndarray, ...] | None = None
        self._anchors_done = False
        self._subset_mass: np.ndarray | None = None
        self._gamma_unit: float | None = None

    def evaluate(self, sizes: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(mean, sd, lower, upper)`` at the int64 sample sizes ``sizes`` (1-D)."""
        mean = self._mean(sizes) if self.words > 1 else np.zeros(sizes.size)
        return (mean, *self._edges(sizes, mean))

    def upper(self, sizes: np.ndarray) -> np.ndarray:
        """The upper edge alone at int64 ``sizes``: the exact mean (a pass over the words per
        size) only where the edge needs it, above ``N = 64``."""
        mean = np.zeros(sizes.size)
        large = sizes > _STREAM_MAX
        if self.words > 1 and large.any():
            mean[large] = self._mean(sizes[large])
        return self._edges(sizes, mean)[2]

    def _edges(self, sizes: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(sd, lower, upper)`` at ``sizes``, given the exact mean where ``N > 64``."""
        count = sizes.size
        if self.words == 1:
            return np.zeros(count), np.zeros(count), np.zeros(count)
        sd, lower, upper = np.empty(count), np.empty(count), np.empty(count)
        small = sizes <= _STREAM_MAX
        if small.any():
            stream_sd, stream_lo, stream_hi = self._stream_raw()
            index = sizes[small] - 1
            sd[small], lower[small], upper[small] = (
                stream_sd[index],
                stream_lo[index],
                stream_hi[index],
            )
        large = ~small
        if large.any():
            sd[large], lower[large], upper[large] = self._large_band(sizes[large], mean[large])
            coarse = large & self.lattice_is_coarse(sizes)
            if coarse.any():
                lower[coarse], upper[coarse] = self._snap(
                    sizes[coarse], lower[coarse], upper[coarse]
                )
        floor = _min_tv(self.p, sizes)
        # TVs computed by different sums differ by ~1e-16: an edge equal to the smallest
        # possible TV up to rounding stays as it is, and a TV below rounding is 0.
        close = np.abs(lower - floor) <= ROUNDING
        lower = np.where(close, lower, np.maximum(lower, floor))
        lower = np.where(lower <= ROUNDING, 0.0, lower)
        lower = np.minimum(lower, self.max_tv)
        upper = np.clip(upper, lower, self.max_tv)
        return sd, lower, upper

    def _mean(self, sizes: np.ndarray) -> np.ndarray:
        """Exact ``E TV`` at each size (:func:`_tv_mean`)."""
        return _tv_mean(self.values, self.weights, sizes)

    def upper_core(self, sizes: np.ndarray) -> np.ndarray:
        """The upper edge above ``N = 64`` before lattice snapping: non-increasing in ``N``
        (``sizes`` may be floats beyond the int64 range)."""
        return self._large_band(sizes, self._mean(sizes))[2]

    def upper_roof(self, sizes: np.ndarray) -> np.ndarray:
        """:meth:`upper_core` plus one lattice step ``1/N`` where the edges are snapped: the
        snapped edge lies between the two, and both are non-increasing."""
        coarse = self.lattice_is_coarse(sizes)
        return self.upper_core(sizes) + np.where(coarse, 1.0 / sizes, 0.0)

    def lattice_is_coarse(self, sizes: np.ndarray) -> np.ndarray:
        """Where :meth:`evaluate` snaps the edges to the lattice of possible TVs.

        Only for laws of at most ``_SNAP_WORDS`` words (the lattice has ``2**V`` offsets), and
        only while the band's upper edge spans fewer than ``_LATTICE_STEPS`` steps ``1/N``
        (and ``N < 2**28 / 2**V``). The cut-off is a size that depends on the law only.
        """
        if self.words > _SNAP_WORDS:
            return np.zeros(sizes.size, dtype=bool)
        c_hi = self._limit_law()[1]
        cut = min((_LATTICE_STEPS / max(c_hi, 1e-300)) ** 2, _SNAP_WORK / 2**self.words)
        return sizes < cut

    # ---------------------------------------------------------------------------- large N

    def _large_band(self, sizes: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(sd, lower, upper)`` above the stream range, before snapping and clipping."""
        if not self.few:
            return self._gamma_band(sizes, mean)
        sd, lower, upper = self._limit_band(mean)
        anchors = self._anchor_table()
        if anchors is not None:
            grid, a_sd, a_lo, a_hi = anchors
            inside = sizes < grid[-1]
            x = np.log(sizes[inside].astype(np.float64))
            xs = np.log(grid.astype(np.float64))
            sd[inside] = np.interp(x, xs, a_sd)
            upper[inside] = np.interp(x, xs, a_hi)
            # The lower edge of a lumpy law jumps between neighbouring sizes: take the smaller
            # of the two anchors' ratios to the mean, which moves smoothly.
            ratio = a_lo / self._mean(grid)
            j = np.searchsorted(grid, sizes[inside], side="right") - 1
            lower[inside] = mean[inside] * np.minimum(ratio[j], ratio[j + 1])
        return sd, lower, upper

    def _snap(
        self, sizes: np.ndarray, lower: np.ndarray, upper: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Put the edges on the lattice of TVs that ``N`` draws can produce.

        ``N · TV = Σ_{x∈A} X_x - N p(A)`` with ``A`` the words drawn more often than expected,
        so TV lies on ``{(k - N p(A)) / N}``; for a coarse lattice (few words, moderate ``N``)
        each atom holds several percent of the runs and a smooth edge between two atoms
        misses or gains one. The lower edge goes to the nearest atom (a continuity
        correction: the atom's mass is spread over the half-steps around it); the upper edge
        to the atom at or above it, so it never drops below the smooth edge, which
        :func:`detectable_from` relies on.
        """
        if self._subset_mass is None:
            bits = (np.arange(1, 2**self.words - 1)[:, None] >> np.arange(self.words)) & 1
            self._subset_mass = bits @ self.p
        step = max(1, 2_000_000 // self._subset_mass.size)  # ~16 MB per table
        if sizes.size > step:
            parts = [
                self._snap(sizes[i : i + step], lower[i : i + step], upper[i : i + step])
                for i in range(0, sizes.size, step)
            ]
            return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])
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

    def _limit_law(self) -> tuple[float, float, float, float]:
        """``(c_lo, c_hi, sd, mean)`` of the Gaussian limit law of ``√N · TV`` (simulated)."""
        if self._limit is None:
            rng = np.random.default_rng([_BAND_SEED, 1])
            z = rng.standard_normal((_LIMIT_RUNS, self.words)) * np.sqrt(self.p)
            # G = √p Z - p Σ√p Z has the multinomial covariance diag(p) - p pᵀ.
            g = z - np.outer(z.sum(axis=1), self.p)
            t = 0.5 * np.abs(g).sum(axis=1)
            lo, hi = np.quantile(t, [self.alpha, 1.0 - self.alpha])
            self._limit = (float(lo), float(hi), float(t.std()), float(t.mean()))
        return self._limit

    def _limit_band(self, mean: np.ndarray) -> tuple[np.ndarray, ...]:
        """The limit law's quantiles scaled to the exact mean at each ``N``."""
        c_lo, c_hi, c_sd, c_mean = self._limit_law()
        scale = mean / c_mean
        return c_sd * scale, c_lo * scale, c_hi * scale

    def _anchor_table(self) -> tuple[np.ndarray, ...] | None:
        """Simulated ``(N, sd, lower, upper)`` between the stream range and normal counts.

        None when every word's count is already near normal at ``N = 64``. The first anchor is
        the streams' ``N = 64``, the last the limit law at the first ``N = 64·2^k`` where every
        count is near normal (or ``2**15``), so the band joins both neighbours. Upper values
        are made non-increasing along the anchors; interpolating linearly in ``log N`` keeps
        that.
        """
        if self._anchors_done:
            return self._anchors
        self._anchors_done = True
        spread = float((self.p * (1.0 - self.p)).min())
        normal_from = min(_NORMAL_COUNT / spread, float(_GRID_MAX))
        if normal_from <= _STREAM_MAX:
            return None
        grid = [_STREAM_MAX]
        while grid[-1] < normal_from:
            grid.append(2 * grid[-1])
        sizes = np.array(grid, dtype=np.int64)
        sd, lo, hi = np.empty(sizes.size), np.empty(sizes.size), np.empty(sizes.size)
        stream_sd, stream_lo, stream_hi = self._stream_raw()
        sd[0], lo[0], hi[0] = stream_sd[-1], stream_lo[-1], stream_hi[-1]
        for i in range(1, sizes.size - 1):
            size = int(sizes[i])
            rng = np.random.default_rng([_BAND_SEED, 2, size])
            counts = rng.multinomial(size, self.p, size=_GRID_RUNS)
            t = 0.5 * np.abs(counts / float(size) - self.p).sum(axis=1)
            t_lo, t_hi = _order_quantiles(t[None, :], self.alpha)
            sd[i], lo[i], hi[i] = t.std(), t_lo[0], t_hi[0]
        l_sd, l_lo, l_hi = self._limit_band(self._mean(sizes[-1:]))
        sd[-1], lo[-1], hi[-1] = l_sd[0], l_lo[0], l_hi[0]
        hi = np.maximum.accumulate(hi[::-1])[::-1]
        self._anchors = (sizes, sd, lo, hi)
        return self._anchors

    def _gamma_band(self, sizes: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, ...]:
        """Many words: gamma quantiles from the exact mean and an approximate variance."""
        from scipy.special import gammaincinv

        var = (
            _poisson_tv_variance(self.values, self.weights, sizes)
            + self._gamma_correction() / sizes
        )
        var = np.maximum(var, 1e-300)
        shape = mean**2 / var
        scale = var / mean
        lower = gammaincinv(shape, self.alpha) * scale
        upper = gammaincinv(shape, 1.0 - self.alpha) * scale
        return np.sqrt(var), lower, upper

    def _gamma_correction(self) -> float:
        """``N`` times the gap between the Gaussian limit's variance and the Poisson one's.

        Conditioning independent Poisson counts on their total captures the multinomial's
        dependence to first order only; the Gaussian limit has it all. Their difference is a
        ``1/N`` term that matters for frequent words and vanishes for rare ones.
        """
        if self._gamma_unit is None:
            self._gamma_unit = _limit_tv_variance(self.p) - 0.25 * (1.0 - 2.0 / math.pi)
        return self._gamma_unit

    # ---------------------------------------------------------------------------- small N

    def _stream_raw(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(sd, lower, upper)`` at ``N = 1 .. 64`` from simulated streams (exact at N = 1)."""
        if self._stream is None:
            tv = _stream_tvs(self.p, _STREAM_MAX, _STREAM_RUNS)
            lo, hi = _order_quantiles(tv, self.alpha)
            sd = tv.std(axis=1)
            lo[0], hi[0], sd[0] = _one_draw_band(self.p, self.alpha)
            self._stream = (sd, lo, hi)
        return self._stream


def _stream_tvs(p: np.ndarray, length: int, runs: int) -> np.ndarray:
    """TV after each prefix ``N = 1 .. length`` of ``runs`` streams of i.i.d. draws from ``p``.

    Returns an array of shape ``(length, runs)``. Draws are generated prefix by prefix, so the
    first ``N`` rows do not depend on ``length``. For more words than draws, each stream's
    words are relabelled in order of appearance, so memory is ``runs * min(V, length)``.
    """
    rng = np.random.default_rng([_BAND_SEED, 0])
    tokens = _categorical(p, rng.random((length, runs)))
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
    # d = counts - N p, updated in place: every word loses p per draw, the drawn one gains 1.
    d = np.zeros(weights.shape)
    rows = np.arange(runs)
    tv = np.empty((length, runs))
    for i in range(length):
        d -= weights
        d[rows, local[i]] += 1.0
        tv[i] = (np.abs(d).sum(axis=1) + (i + 1) * unseen) * (0.5 / (i + 1))
    return tv


def _categorical(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF tokens for uniforms ``u``: a lookup table of ``_CELLS`` equal cells, with a
    binary search only for the uniforms that fall in a cell holding a word boundary (about
    ``V / _CELLS`` of them); 4x faster than searching every uniform."""
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    edges = np.arange(_CELLS + 1) / _CELLS
    first = np.searchsorted(cdf, edges[:-1], side="right")
    last = np.searchsorted(cdf, edges[1:], side="left")
    cell = np.minimum((u * _CELLS).astype(np.int64), _CELLS - 1)
    tokens = first[cell]
    mixed = (last != first)[cell]
    tokens[mixed] = np.searchsorted(cdf, u[mixed], side="right")
    return np.minimum(tokens, p.size - 1)


def _order_quantiles(samples: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Central sample quantiles of each row: the smallest values with share ``>= alpha`` and
    ``>= 1 - alpha`` at or below them (attained values, as for an exact discrete law)."""
    runs = samples.shape[1]
    k_lo = max(0, math.ceil(alpha * runs - 1e-9) - 1)
    k_hi = min(runs - 1, max(0, math.ceil((1.0 - alpha) * runs - 1e-9) - 1))
    part = np.partition(samples, [k_lo, k_hi], axis=1)
    return part[:, k_lo].copy(), part[:, k_hi].copy()


def _one_draw_band(p: np.ndarray, alpha: float) -> tuple[float, float, float]:
    """Exact ``(lower, upper, sd)`` at ``N = 1``, where TV is ``1 - p(x)`` w.p. ``p(x)``."""
    values = 1.0 - p
    order = np.argsort(values, kind="stable")
    # A cumulative share equal to alpha up to rounding reaches it (.4 + .3 + .2 = .9000000001).
    cum = np.cumsum(p[order])
    lo = values[order][np.searchsorted(cum, alpha - ROUNDING)]
    hi = values[order][min(np.searchsorted(cum, 1.0 - alpha - ROUNDING), p.size - 1)]
    mean = float((p * values).sum())
    sd = math.sqrt(max(float((p * values**2).sum()) - mean**2, 0.0))
    return float(lo), float(hi), sd


def _tv_mean(values: np.ndarray, weights: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Exact ``E TV(p̂_N, p)`` at each size, for a law whose distinct probabilities (all > 0)
    are ``values``, held by ``weights`` words each."""
    return np.concatenate(
        [
            0.5 * (_binomial_abs_dev(values, chunk) * weights).sum(axis=1)
            for chunk in _chunks(sizes, values.size)
        ]
    )


def _chunks(sizes: np.ndarray, words: int) -> list[np.ndarray]:
    """``sizes`` cut so that a (sizes x words) table stays near 2 million entries."""
    step = max(1, 2_000_000 // max(words, 1))
    return [sizes[i : i + step] for i in range(0, max(sizes.size, 1), step)]


def _binomial_abs_dev(p: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``E|X/N - p|`` for ``X ~ Binomial(N, p)``, shape ``(len(sizes), len(p))``.

    de Moivre: ``E|X - Np| = 2 N p q b(⌊Np⌋; N - 1, p)``. ``⌊Np⌋ = 0`` (``Np < 1``) gives
    ``2 p q^N`` in closed form; for ``(N - 1) p q >= 1000`` the local expansion of ``b`` at the
    mode (normal density with its ``1/(Npq)`` Edgeworth terms, relative error < 1e-7) replaces
    scipy's pmf, which costs ~0.1 µs a word and size. Each entry is computed by its own formula
    only (a table of 100,000 words and 60 sizes would otherwise pay for all three).
    """
    n = np.broadcast_to(sizes.astype(np.float64)[:, None], (sizes.size, p.size))
    p = np.broadcast_to(p, n.shape)
    s2 = (n - 1.0) * p * (1.0 - p)
    tail = n * p < 1.0
    exact = ~tail & (s2 < _NORMAL_MOMENTS)
    normal = ~(tail | exact)
    out = np.empty(n.shape)
    pt = p[tail]
    out[tail] = 2.0 * pt * np.exp(n[tail] * np.log1p(-pt))
    pn, nn, sn = p[normal], n[normal], s2[normal]
    qn = 1.0 - pn
    d = np.floor(nn * pn) - (nn - 1.0) * pn
    correction = 1.0 - (d * d + (qn - pn) * d) / (2.0 * sn) - (1.0 - pn * qn) / (12.0 * sn)
    out[normal] = 2.0 * pn * qn / np.sqrt(2.0 * math.pi * sn) * correction
    if exact.any():
        pm, nm = p[exact], n[exact]
        out[exact] = 2.0 * pm * (1.0 - pm) * _binomial_pmf(np.floor(nm * pm), nm - 1.0, pm)
    return out


def _binomial_pmf(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``P(X = k)`` for ``X ~ Binomial(n, p)``, in log space through ``betaln`` (accurate for huge
    ``n`` and small ``k``). ``scipy.special`` only: ``scipy.stats`` costs ~1 s to import."""
    from scipy.special import betaln, xlog1py, xlogy

    log_pmf = -np.log1p(n) - betaln(n - k + 1.0, k + 1.0) + xlogy(k, p) + xlog1py(n - k, -p)
    return np.exp(log_pmf)


def _poisson_tv_variance(values: np.ndarray, weights: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Variance of TV with the counts independent ``Poisson(N p)`` conditioned on their sum.

    For ``S = Σ f_x(ξ_x)`` the conditioning gives ``Var S - Cov(S, Σξ)² / N`` (the classical
    variance of separable statistics of a multinomial), with per-word moments
    ``a = E|ξ - λ|``, ``Var|ξ - λ| = λ - a²`` and ``c = E[(ξ - λ)|ξ - λ|]``. The law is given
    by its distinct probabilities ``values`` and their ``weights``, as for :func:`_tv_mean`.
    """
    parts = []
    for chunk in _chunks(sizes, values.size):
        n = chunk.astype(np.float64)[:, None]
        lam = n * values
        a, c = _poisson_moments(lam)
        spread = ((lam - a * a) * weights).sum(axis=1)
        drift = (c * weights).sum(axis=1)
        n1 = n[:, 0]
        parts.append(np.maximum(spread - drift**2 / n1, 0.0) / (4.0 * n1 * n1))
    return np.concatenate(parts)


def _poisson_moments(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a = E|ξ - λ|`` and ``c = E[(ξ - λ)|ξ - λ|]`` for ``ξ ~ Poisson(λ)``, each entry by its
    own formula: closed forms for ``λ < 1`` (``k = 0``) and the normal limit from ``λ = 100``
    on, the Poisson pmf in between."""
    a, c = np.empty(lam.shape), np.empty(lam.shape)
    low = lam < 1.0
    exact = ~low & (lam < _NORMAL_POISSON)
    high = ~(low | exact)
    # k = 0 (λ < 1): a = 2 λ e^-λ and c = λ (1 - 2 λ e^-λ). Large λ: a = √(2λ/π) and the
    # Poisson skewness 1/√λ gives c = √(2λ/π)/3.
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
    order = np.argsort(-p, kind="stable")
    heavy = order[:_EXACT_PAIRS]
    ph, sh = p[heavy], sigma[heavy]
    ratio = np.sqrt(ph / (1.0 - ph))
    rho = np.clip(-np.outer(ratio, ratio), -1.0, 0.0)
    # E|X||Y| = σx σy (2/π)(√(1-ρ²) + ρ asin ρ) for a standard bivariate normal pair.
    shape_fn = np.sqrt(1.0 - rho**2) + rho * np.arcsin(rho) - 1.0
    np.fill_diagonal(shape_fn, 0.0)
    exact_pairs = float((np.outer(sh, sh) * shape_fn).sum())
    # For the remaining pairs f(ρ) ≈ ρ²/2, and σx σy ρ²/2 = wx wy / 2 with w = p^1.5/√(1-p).
    w = p**1.5 / np.sqrt(1.0 - p)
    wh = w[heavy]
    all_pairs = float(w.sum()) ** 2 - float((w**2).sum())
    heavy_pairs = float(wh.sum()) ** 2 - float((wh**2).sum())
    approx_pairs = 0.5 * max(0.0, all_pairs - heavy_pairs)
    return 0.25 * (diagonal + (2.0 / math.pi) * (exact_pairs + approx_pairs))


def _min_tv(p: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Smallest TV that ``N`` draws can show: ``N p`` rounded by largest remainders.

    Rounding each ``N p(x)`` down and giving the ``r = N - Σ⌊N p⌋`` missing draws to the
    largest fractional parts minimises ``Σ|k - N p|`` under ``Σ k = N``; then
    ``Σ|k - N p| = r - 2 (sum of the r largest parts) + Σ parts``.
    """
    n = sizes.astype(np.float64)
    if p.size > 64:  # a full sort per size would cost V log V; a partition costs V
        out = np.empty(n.size)
        for i, size in enumerate(n.tolist()):
            frac = size * p - np.floor(size * p)
            r = min(max(round(float(frac.sum())), 0), p.size)
            top = float(np.partition(frac, p.size - r)[p.size - r :].sum()) if r else 0.0
            out[i] = 0.5 * (r - 2.0 * top + float(frac.sum())) / size
        return np.maximum(out, 0.0)
    target = n[:, None] * p
    frac = target - np.floor(target)
    total = frac.sum(axis=1)
    r = np.clip(np.rint(total), 0, p.size).astype(np.int64)
    ranked = np.cumsum(-np.sort(-frac, axis=1), axis=1)
    top = np.where(r > 0, ranked[np.arange(n.size), np.maximum(r - 1, 0)], 0.0)
    return np.maximum(0.5 * (r - 2.0 * top + total) / n, 0.0)


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def _level(level: object) -> float:
    return real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)


def _refuse_odd_items(x: object, name: str) -> None:
    """Refuse a list holding anything but real numbers (or nested lists of them).

    numpy quietly turns ``[True, 2]`` into ``[1, 2]`` and ``[1, datetime64("2024-01-01")]``
    into ``[1, 19723]`` (days since 1970); arrays are checked by their dtype instead.
    """
    stack = [x] if isinstance(x, list | tuple) else []
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, bool | np.bool_) or not isinstance(
            item, int | float | np.integer | np.floating | np.ndarray
        ):
            raise ValueError(f"{name} must hold numbers only; got {short(item)} in {short(x)}")


def _count_vector(x: object, name: str) -> np.ndarray:
    _refuse_odd_items(x, name)
    arr = float_vector(x, name)
    if (arr != np.floor(arr)).any():
        i = int(np.flatnonzero(arr != np.floor(arr))[0])
        raise ValueError(f"{name} must hold whole numbers; {name}[{i}] = {arr[i]!r}")
    if float(arr.sum()) > MAX_COUNT_DRAWS:
        raise ValueError(
            f"{name} sums to {float(arr.sum()):.3g}; at most {MAX_COUNT_DRAWS:,} draws are allowed"
        )
    return arr


def _checkpoints(x: object, *, maximum: int, limit_name: str) -> np.ndarray:
    """A non-empty, strictly increasing 1-D array of whole sample sizes in ``[1, maximum]``."""
    _refuse_odd_items(x, "checkpoints")
    raw = np.atleast_1d(whole_array(x, "checkpoints", minimum=0, maximum=2**62))
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(
            f"checkpoints must be a non-empty 1-D list of sample sizes; got {short(x)}"
        )
    if raw[0] < 1 or (np.diff(raw) <= 0).any():
        raise ValueError("checkpoints must be strictly increasing and start at >= 1")
    if raw[-1] > maximum:
        raise ValueError(f"checkpoints go up to {raw[-1]:,}, beyond {limit_name} = {maximum:,}")
    return raw
