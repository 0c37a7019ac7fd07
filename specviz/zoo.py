"""The bug zoo's comparison: a rule next to the correct one, on the same ``p``, ``q`` and seed.

The rule's exact law and its distance to ``p`` (the floor its TV path flattens at), both TV paths
up to ``n_max``, the noise band of an exact sampler, and from about which ``N`` the bias stands
out of that band.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import prob_pair, seed_value, whole
from specviz.limits import BAND_LEVEL, CHECKPOINTS, MAX_COUNT_DRAWS, ZOO_N_MAX
from specviz.one_token import checked_step, total_variation
from specviz.rules import Rule, get_rule
from specviz.runs import monte_carlo
from specviz.stats import (
    TVBand,
    TVPath,
    detectable_from,
    expected_tv_band,
    log_checkpoints,
    tv_path,
)


@dataclass(frozen=True)
class ZooComparison:
    """A rule side by side with the correct one, on the same ``p``, ``q`` and seed.

    Attributes
    ----------
    rule : Rule
        The registry entry of the rule on show.
    law : numpy.ndarray
        Its exact output law (:meth:`Rule.law`).
    tv : float
        ``TV(law, p)``: the floor its TV path flattens at (0 for an exact rule).
    correct : TVPath
        TV-to-``p`` path of the correct procedure (:func:`~specviz.runs.monte_carlo`): the very
        run the Monte Carlo page shows at ``n_max``.
    wrong : TVPath
        TV-to-``p`` path of i.i.d. draws from ``law`` (:func:`~specviz.stats.tv_path`).
    band : TVBand
        Where an exact sampler's TV lies, at the same checkpoints.
    detectable_from : int or None
        About how many draws it takes for the bias to stand out of the band
        (:func:`~specviz.stats.detectable_from`); None if the rule is exact on this pair.
    tv_correct : float
        TV between the correct rule's exact output law and ``p``: 0 (up to rounding, which
        counts as 0).
    """

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
        end = float(self.correct.tv[-1])
        return float(self.band.lower[-1]) <= end <= float(self.band.upper[-1])


def zoo_comparison(
    p: ArrayLike,
    q: ArrayLike,
    key: str,
    seed: int,
    n_max: int = ZOO_N_MAX,
    num: int = CHECKPOINTS,
) -> ZooComparison:
    """The rule ``key`` and the correct rule, run on the same ``p``, ``q`` and seed.

    Raises
    ------
    ValueError
        On bad input; :class:`~specviz.rules.RuleUnavailableError` where the rule has no law on
        this pair (``redraw_from_q`` with disjoint supports).
    """
    rule = get_rule(key)
    p_arr, q_arr = prob_pair(p, q)
    start = seed_value(seed)
    top = whole(n_max, "n_max", minimum=1, maximum=MAX_COUNT_DRAWS)
    law = rule.law(p_arr, q_arr)
    cps = log_checkpoints(top, num)
    tv = total_variation(law, p_arr)
    return ZooComparison(
        rule=rule,
        law=law,
        tv=tv,
        correct=monte_carlo(p_arr, q_arr, top, start, num).path,
        wrong=tv_path(law, p_arr, cps, start),
        band=expected_tv_band(p_arr, cps, BAND_LEVEL),
        detectable_from=detectable_from(p_arr, tv, BAND_LEVEL),
        tv_correct=total_variation(checked_step(p_arr, q_arr).output, p_arr),
    )
