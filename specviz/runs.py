"""Monte Carlo runs of the one-token procedure, observed at log-spaced checkpoints: every run
simulated up to :data:`~specviz.limits.PER_DRAW_MAX`, the counts drawn from their law above it."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import SEED_LIMIT, choice, generator, prob_pair, prob_vector, seed_value, whole
from specviz._laws import count_draws
from specviz.limits import BAND_LEVEL, CHECKPOINTS, MAX_COUNT_DRAWS, PATHS, PER_DRAW_MAX
from specviz.one_token import step
from specviz.sampling import SpeculativeCounts, speculative_sample
from specviz.stats import (
    GofResult,
    TVBand,
    TVPath,
    band_sizes,
    chi_square_gof,
    expected_tv_band,
    log_checkpoints,
)

PER_DRAW = "per-draw"
COUNT_LEVEL = "count-level"


@dataclass(frozen=True)
class MonteCarloRun:
    """``n`` runs from one ``seed``, by ``method`` :data:`PER_DRAW` or :data:`COUNT_LEVEL`: the
    ``counts`` per word, the ``path`` of TV to ``p`` at the checkpoints (the last is ``n``), the
    chi-square test against ``p`` and the smallest ``n p(x)`` (below ~5 the p-value is rough)."""

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


def monte_carlo(
    p: ArrayLike,
    q: ArrayLike,
    n: int,
    seed: int,
    num: int = CHECKPOINTS,
    method: str | None = None,
) -> MonteCarloRun:
    """Run the one-token procedure ``n`` times (1 to ``10**15``) from a whole ``seed``, observed
    at ``num`` log-spaced checkpoints; ``method`` forces a sampler."""
    p_arr, q_arr = prob_pair(p, q)
    size = whole(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS)
    start = seed_value(seed)
    chosen = choice(method, "method", (None, PER_DRAW, COUNT_LEVEL))
    chosen = chosen or (PER_DRAW if size <= PER_DRAW_MAX else COUNT_LEVEL)
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
    vocab = p.size
    draws = speculative_sample(p, q, int(cps[-1]), seed)
    bounds = pairwise(np.concatenate(([0], cps)))
    stretches = [np.bincount(draws.output[a:b], minlength=vocab) for a, b in bounds]
    drafted = np.bincount(draws.draft, minlength=vocab).astype(np.int64)
    accepted = np.bincount(draws.output[draws.accepted], minlength=vocab).astype(np.int64)
    return _tally(p, cps, stretches, drafted, accepted)


def _count_level(
    p: np.ndarray, q: np.ndarray, cps: np.ndarray, seed: int
) -> tuple[SpeculativeCounts, TVPath]:
    """Runs between two checkpoints are i.i.d.: each stretch's counts drawn from their law
    (:func:`~specviz._laws.count_draws`) make one stream of runs, in O(V * num)."""
    steps, one = np.diff(np.concatenate(([0], cps))), step(p, q)
    drafts, accepted, from_bucket = count_draws(
        generator(seed), one.q, one.accept, one.bucket_weights, steps
    )
    return _tally(p, cps, accepted + from_bucket, drafts.sum(axis=0), accepted.sum(axis=0))


def _tally(
    p: np.ndarray, cps: np.ndarray, emitted: ArrayLike, drafted: np.ndarray, accepted: np.ndarray
) -> tuple[SpeculativeCounts, TVPath]:
    path = TVPath.of_counts(cps, np.cumsum(emitted, axis=0, dtype=np.int64), p)
    output = path.counts[-1].copy()
    return SpeculativeCounts(drafted, accepted, output - accepted, output), path


def monte_carlo_paths(
    p: ArrayLike, q: ArrayLike, n: int, seed: int, paths: int = PATHS
) -> tuple[MonteCarloRun, ...]:
    """:func:`monte_carlo` from ``seed``, ``seed + 1``, ..., ``seed + paths - 1``; only the first
    run's counts are shown, so the others are drawn at the count level (the same law)."""
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
    """:func:`~specviz.stats.expected_tv_band` of ``p`` at ``num`` checkpoints up to ``n_max``
    (at most :func:`~specviz.stats.band_sizes`); ValueError on bad input."""
    law = prob_vector(p, "p")
    points = whole(num, "num", minimum=2)
    if points > band_sizes(law):
        raise ValueError(
            f"num = {points:,} checkpoints, but a noise band of this p takes at most "
            f"{band_sizes(law):,} sample sizes (see stats.band_sizes)"
        )
    return expected_tv_band(law, log_checkpoints(n_max, points), BAND_LEVEL)
