"""Monte Carlo runs of the one-token procedure, observed at log-spaced checkpoints: every run
simulated up to :data:`~specviz.limits.PER_DRAW_MAX`, the counts drawn from their law above it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import SEED_LIMIT, choice, generator, prob_pair, prob_vector, seed_value, whole
from specviz._laws import count_draws
from specviz.limits import CHECKPOINTS, MAX_COUNT_DRAWS, PATHS, PER_DRAW_MAX
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
    p: ArrayLike, q: ArrayLike, n: int, seed: int, num: int = CHECKPOINTS, method: str | None = None
) -> MonteCarloRun:
    """Run the one-token procedure ``n`` times (1 to ``10**15``) from a whole ``seed``, observed
    at ``num`` log-spaced checkpoints; ``method`` forces a sampler."""
    p_arr, q_arr = prob_pair(p, q)
    size = whole(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS)
    start = seed_value(seed)
    chosen = choice(method, "method", (None, PER_DRAW, COUNT_LEVEL))
    return _run(p_arr, q_arr, log_checkpoints(size, num), start, chosen)


def _run(
    p: np.ndarray, q: np.ndarray, cps: np.ndarray, seed: int, method: str | None
) -> MonteCarloRun:
    """:func:`monte_carlo` on checked values (``n``: the last checkpoint; ``method`` None: auto)."""
    size = int(cps[-1])
    method = method or (PER_DRAW if size <= PER_DRAW_MAX else COUNT_LEVEL)
    if method == PER_DRAW:
        draws = speculative_sample(p, q, size, seed)
        emitted = [np.bincount(part, minlength=p.size) for part in np.split(draws.output, cps[:-1])]
        drafted = np.bincount(draws.draft, minlength=p.size).astype(np.int64)
        accepted = np.bincount(draws.output[draws.accepted], minlength=p.size).astype(np.int64)
    else:
        # Runs between two checkpoints are i.i.d.: each stretch's counts drawn from their law
        # (count_draws) make one stream of runs, in O(V * num).
        one, steps = step(p, q), np.diff(cps, prepend=0)
        drafts, kept, refilled = count_draws(
            generator(seed), one.q, one.accept, one.bucket_weights, steps
        )
        emitted, drafted, accepted = kept + refilled, drafts.sum(axis=0), kept.sum(axis=0)
    path = TVPath.of_counts(cps, np.cumsum(emitted, axis=0, dtype=np.int64), p)
    output = path.counts[-1].copy()
    return MonteCarloRun(
        n=size,
        seed=seed,
        method=method,
        counts=SpeculativeCounts(drafted, accepted, output - accepted, output),
        path=path,
        gof=chi_square_gof(output, p),
        min_expected=float(size * p[p > 0].min()),
    )


def monte_carlo_paths(
    p: ArrayLike, q: ArrayLike, n: int, seed: int, paths: int = PATHS
) -> tuple[MonteCarloRun, ...]:
    """:func:`monte_carlo` from ``seed``, ``seed + 1``, ..., ``seed + paths - 1``; only the first
    run's counts are shown, so the others are drawn at the count level (the same law)."""
    p_arr, q_arr = prob_pair(p, q)
    cps = log_checkpoints(whole(n, "n", minimum=1, maximum=MAX_COUNT_DRAWS))
    count = whole(paths, "paths", minimum=1, maximum=100)
    start = seed_value(seed)
    if start + count - 1 > SEED_LIMIT:
        raise ValueError(
            f"seed {start:,} + paths - 1 runs past the largest seed, 2**64 - 1; "
            "use a smaller seed or fewer paths"
        )
    others = (_run(p_arr, q_arr, cps, start + k, COUNT_LEVEL) for k in range(1, count))
    return (_run(p_arr, q_arr, cps, start, None), *others)


def noise_band(p: ArrayLike, n_max: int, num: int = CHECKPOINTS) -> TVBand:
    """:func:`~specviz.stats.expected_tv_band` of ``p`` at ``num`` checkpoints up to ``n_max``
    (at most :func:`~specviz.stats.band_sizes`); ValueError on bad input."""
    law = prob_vector(p, "p")
    points, most = whole(num, "num", minimum=2), band_sizes(law)
    if points > most:
        raise ValueError(
            f"num = {points:,} checkpoints, but a noise band of this p takes at most "
            f"{most:,} sample sizes (see stats.band_sizes)"
        )
    return expected_tv_band(law, log_checkpoints(n_max, points))
