"""A rule checked against the target: :func:`zoo_comparison` runs a rule next to the correct one;
:func:`rule_check` runs any rule ``n`` times and asks whether the runs can be told from ``p``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import prob_pair, seed_value, sequence, whole
from specviz._laws import tv_rows
from specviz.limits import CHECKPOINTS, MAX_RULE_DRAWS, ZOO_N_MAX
from specviz.one_token import step, total_variation
from specviz.rules import Rule, get_rule
from specviz.runs import monte_carlo, noise_band
from specviz.stats import (
    GofResult,
    TVBand,
    TVPath,
    chi_square_gof,
    detectable_from,
    expected_tv_band,
    tv_path,
)


@dataclass(frozen=True)
class ZooComparison:
    """A ``rule`` beside the correct one on the same ``p``, ``q`` and seed: its exact ``law`` and
    ``tv = TV(law, p)``; the TV paths of the ``correct`` procedure and of draws from ``law``
    (``wrong``); an exact sampler's ``band``; from about which N the bias stands out (None:
    exact); and the correct rule's exact TV to ``p`` (0)."""

    rule: Rule
    law: np.ndarray
    tv: float
    correct: TVPath
    wrong: TVPath
    band: TVBand
    detectable_from: int | None
    tv_correct: float

    @property
    def correct_inside_band(self) -> bool:
        """Whether the correct rule's TV at the last checkpoint lies inside the band there."""
        return bool(self.band.lower[-1] <= self.correct.tv[-1] <= self.band.upper[-1])


def zoo_comparison(
    p: ArrayLike, q: ArrayLike, key: str, seed: int, n_max: int = ZOO_N_MAX, num: int = CHECKPOINTS
) -> ZooComparison:
    """The rule ``key`` and the correct rule, run on the same ``p``, ``q`` and seed; ValueError
    on bad input (:class:`~specviz.rules.RuleUnavailableError` where the rule has no law)."""
    rule = get_rule(key)
    p_arr, q_arr = prob_pair(p, q)
    start = seed_value(seed)
    law = rule.law(p_arr, q_arr)
    band = noise_band(p_arr, n_max, num)  # first: it checks n_max and refuses too many checkpoints
    tv = total_variation(law, p_arr)
    return ZooComparison(
        rule=rule,
        law=law,
        tv=tv,
        correct=monte_carlo(p_arr, q_arr, n_max, start, num).path,
        wrong=tv_path(law, p_arr, band.n, start),
        band=band,
        detectable_from=detectable_from(p_arr, tv),
        tv_correct=total_variation(step(p_arr, q_arr).output, p_arr),
    )


@dataclass(frozen=True, eq=False)
class RuleCheck:
    """A ``rule`` with all its ``params`` checked against ``p``: its exact ``law``, ``tv`` and
    ``acceptance``; the word ``counts`` of ``n`` runs of its sampler from ``seed``, their
    chi-square test and ``run_tv``; the upper edge of an exact sampler's band at ``n``; and from
    about which N this ``tv`` stands out (None: exact)."""

    rule: Rule
    params: dict[str, Any]
    law: np.ndarray
    tv: float
    acceptance: float
    n: int
    seed: int
    counts: np.ndarray
    gof: GofResult
    run_tv: float
    band_upper: float
    detectable_from: int | None

    @property
    def stands_out(self) -> bool:
        """Whether the runs' distance to ``p`` is above the noise band of an exact sampler."""
        return self.run_tv > self.band_upper


def rule_check(
    p: ArrayLike, q: ArrayLike, key: str, seed: int, n: int, params: Sequence[tuple[str, Any]] = ()
) -> RuleCheck:
    """Check the rule ``key`` against ``p``: its exact law, and ``n`` runs (1 to ``10**7``) of its
    sampler from ``seed``; (name, value) ``params`` override its defaults. ValueError on bad
    input (:class:`~specviz.rules.RuleUnavailableError` where the rule has no law)."""
    rule = get_rule(key)
    p_arr, q_arr = prob_pair(p, q)
    start = seed_value(seed)
    size = whole(n, "n", minimum=1, maximum=MAX_RULE_DRAWS)
    pairs = sequence(params, "params")
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, tuple | list) and len(pair) == 2 and isinstance(pair[0], str)):
            raise ValueError(f"params[{i}] must be a (name, value) pair; got {pair!r:.60}")
    values = {**rule.defaults, **dict(pairs)}
    law = rule.law(p_arr, q_arr, **values)
    tv = total_variation(law, p_arr)
    counts = np.bincount(rule.sample(p_arr, q_arr, size, start, **values), minlength=p_arr.size)
    return RuleCheck(
        rule=rule,
        params=values,
        law=law,
        tv=tv,
        acceptance=rule.acceptance(p_arr, q_arr, **values),
        n=size,
        seed=start,
        counts=counts.astype(np.int64),
        gof=chi_square_gof(counts, p_arr),
        run_tv=float(tv_rows(counts / size, p_arr)),
        band_upper=float(expected_tv_band(p_arr, size).upper),
        detectable_from=detectable_from(p_arr, tv),
    )
