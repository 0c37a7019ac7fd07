"""Monte Carlo runs of the one-token procedure: ``N`` runs observed at log-spaced checkpoints.

:func:`monte_carlo` simulates every run up to :data:`~specviz.limits.PER_DRAW_MAX` and draws the
counts from their exact law above it; either way the result holds the counts per word (accepted
draft or bucket), the TV-to-``p`` path and the chi-square test of the emitted words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import (
    SEED_LIMIT,
    choice,
    generator,
    prob_pair,
    prob_vector,
    seed_value,
    whole,
)
from specviz.limits import (
    BAND_LEVEL,
    CHECKPOINTS,
    MAX_COUNT_DRAWS,
    PATHS,
    PER_DRAW_MAX,
)
from specviz.one_token import checked_step
from specviz.sampling import SpeculativeCounts, multinomial_on_support, speculative_sample
from specviz.stats import (
    GofResult,
    TVBand,
    TVPath,
    band_sizes,
    chi_square_gof,
    expected_tv_band,
    log_checkpoints,
    total_variation_curve,
    tv_of_counts,
)

PER_DRAW = "per-draw"
COUNT_LEVEL = "count-level"


@dataclass(frozen=True)
class MonteCarloRun:
    """``n`` runs of the one-token procedure from one seed.

    Attributes
    ----------
    n, seed : int
        Number of runs and the seed they were drawn with.
    method : str
        :data:`PER_DRAW` (:func:`~specviz.sampling.speculative_sample`, every run simulated) or
        :data:`COUNT_LEVEL` (:func:`~specviz.sampling.sample_counts` between checkpoints).
    counts : SpeculativeCounts
        Proposals, accepted drafts, bucket draws and emitted words, per word, over all ``n`` runs.
    path : TVPath
        Emitted-word counts of the first ``N`` runs and their TV to ``p`` at the checkpoints
        (the last checkpoint is ``n``, so ``path.counts[-1] == counts.output_counts``).
    gof : GofResult
        Pearson's chi-square test of ``counts.output_counts`` against ``p``.
    min_expected : float
        Smallest expected count ``n * p(x)`` over the words with ``p(x) > 0``: below about 5 the
        chi-square p-value is only a rough approximation.
    """

    n: int
    seed: int
    method: str
    counts: SpeculativeCounts
    path: TVPath
    gof: GofResult
    min_expected: float

    @property
    def tv(self) -> float:
        """TV between the law of the ``n`` emitted words and ``p``."""
        return float(self.path.tv[-1])


def sampler_for(n: int) -> str:
    """Which sampler :func:`monte_carlo` uses for ``n`` runs (:data:`PER_DRAW` up to 10**6)."""
    size = whole(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS)
    return PER_DRAW if size <= PER_DRAW_MAX else COUNT_LEVEL


def monte_carlo(
    p: ArrayLike,
    q: ArrayLike,
    n: int,
    seed: int,
    num: int = CHECKPOINTS,
    method: str | None = None,
) -> MonteCarloRun:
    """Run the one-token procedure ``n`` times and observe it at log-spaced checkpoints.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.
    n : int
        Number of runs, ``1 <= n <= 10**15``.
    seed : int
        A whole number ``>= 0``; the same seed gives the same run.
    num : int, default 60
        Checkpoints of the TV path (:func:`~specviz.stats.log_checkpoints`).
    method : {None, PER_DRAW, COUNT_LEVEL}, default None
        Force a sampler; ``None`` picks :func:`sampler_for` ``(n)``.

    Returns
    -------
    MonteCarloRun

    Notes
    -----
    Up to :data:`PER_DRAW_MAX` every run is simulated (:func:`speculative_sample`) and the counts
    are tallied from the draws. Above it, the runs between two checkpoints are i.i.d., so their
    counts have exactly the law :func:`~specviz.sampling.sample_counts` draws from (multinomial
    proposals, binomial acceptances, multinomial bucket draws); independent draws per stretch,
    summed, are exactly the counts of one stream of ``n`` runs observed at the checkpoints. Cost
    O(V * num) whatever ``n``.
    """
    p_arr, q_arr = prob_pair(p, q)
    size = whole(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS)
    start = seed_value(seed)
    chosen = choice(method, "method", (None, PER_DRAW, COUNT_LEVEL)) or sampler_for(size)
    cps = log_checkpoints(size, num)
    run = _per_draw if chosen == PER_DRAW else _count_level
    counts, path = run(p_arr, q_arr, cps, start)
    return MonteCarloRun(
        n=size,
        seed=start,
        method=chosen,
        counts=counts,
        path=path,
        gof=chi_square_gof(counts.output_counts, p_arr),
        min_expected=float(size * p_arr[p_arr > 0].min()),
    )


def _per_draw(
    p: np.ndarray, q: np.ndarray, cps: np.ndarray, seed: int
) -> tuple[SpeculativeCounts, TVPath]:
    """Every run simulated; the counts tallied from the draws."""
    vocab = p.size
    draws = speculative_sample(p, q, int(cps[-1]), seed)
    path = total_variation_curve(draws.output, p, cps)
    output = path.counts[-1].copy()
    accepted = np.bincount(draws.output[draws.accepted], minlength=vocab).astype(np.int64)
    counts = SpeculativeCounts(
        draft_counts=np.bincount(draws.draft, minlength=vocab).astype(np.int64),
        accepted_counts=accepted,
        residual_counts=output - accepted,
        output_counts=output,
    )
    return counts, path


def _count_level(
    p: np.ndarray, q: np.ndarray, cps: np.ndarray, seed: int
) -> tuple[SpeculativeCounts, TVPath]:
    """``sample_counts`` for every stretch between checkpoints at once (one row each): O(V *
    num) in numpy, not a Python loop over up to ``num`` stretches."""
    rng = generator(seed)
    one = checked_step(p, q)
    steps = np.diff(np.concatenate(([0], cps)))
    drafts = multinomial_on_support(rng, steps, q)
    accepted = rng.binomial(drafts, one.accept).astype(np.int64)
    from_bucket = multinomial_on_support(rng, steps - accepted.sum(axis=1), one.bucket_weights)
    path_counts = np.cumsum(accepted + from_bucket, axis=0)
    counts = SpeculativeCounts(
        draft_counts=drafts.sum(axis=0),
        accepted_counts=accepted.sum(axis=0),
        residual_counts=from_bucket.sum(axis=0),
        output_counts=path_counts[-1].copy(),
    )
    return counts, TVPath(cps, path_counts, tv_of_counts(path_counts, cps, p))


def monte_carlo_paths(
    p: ArrayLike, q: ArrayLike, n: int, seed: int, paths: int = PATHS
) -> tuple[MonteCarloRun, ...]:
    """:func:`monte_carlo` from ``seed``, ``seed + 1``, ..., ``seed + paths - 1``.

    The first run is the one the page's histogram shows; the others show how much an exact
    sampler's TV path wanders from seed to seed. Only their paths are drawn, and the counts at the
    checkpoints have the same law whichever sampler produces them, so they always use the
    count-level one: O(V · checkpoints) each instead of simulating every run again.
    """
    p_arr, q_arr = prob_pair(p, q)
    size = whole(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS)
    count = whole(paths, "paths", minimum=1, maximum=100)
    start = seed_value(seed)
    if start + count - 1 > SEED_LIMIT:
        raise ValueError(
            f"seed {start:,} + paths - 1 runs past the largest seed, 2**64 - 1; "
            "use a smaller seed or fewer paths"
        )
    first = monte_carlo(p_arr, q_arr, size, start)
    others = (
        monte_carlo(p_arr, q_arr, size, start + k, method=COUNT_LEVEL) for k in range(1, count)
    )
    return (first, *others)


def noise_band(p: ArrayLike, n_max: int, num: int = CHECKPOINTS) -> TVBand:
    """:func:`~specviz.stats.expected_tv_band` of ``p`` at the checkpoints up to ``n_max``.

    It depends on ``p``, ``n_max`` and ``num`` only (not on ``q`` or the seed): cache it on
    those.

    Raises
    ------
    ValueError
        On a bad ``p`` or ``n_max``, or more checkpoints than one band computes
        (:func:`~specviz.stats.band_sizes`: 1,000, or 60 for the largest vocabulary).
    """
    law = prob_vector(p, "p")
    points = whole(num, "num", minimum=2)
    if points > band_sizes(law):
        raise ValueError(
            f"num = {points:,} checkpoints, but a noise band of this p takes at most "
            f"{band_sizes(law):,} sample sizes (see stats.band_sizes)"
        )
    return expected_tv_band(law, log_checkpoints(n_max, points), BAND_LEVEL)
