"""Monte Carlo runs of the one-token procedure and of the bug zoo, for the Monte Carlo and Bug zoo
pages (numpy only).

* :func:`monte_carlo` — ``N`` runs of the real procedure, with the per-draw sampler up to
  :data:`PER_DRAW_MAX` and the count-level sampler above, observed at log-spaced checkpoints: the
  counts per word (accepted draft or bucket), the TV-to-``p`` path and the chi-square test.
* :func:`zoo_comparison` — a mistaken rule next to the correct one on the same ``p``, ``q`` and
  seed: the rule's exact law, its TV floor, both TV paths and the noise band.
* :func:`parse_n`, :func:`parse_rule` — the pages' own share-link parameters, validated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import as_count, as_prob_pair, as_prob_vector
from specviz.one_token import output_distribution, total_variation
from specviz.sampling import SpeculativeCounts, sample_counts, speculative_sample
from specviz.stats import (
    GofResult,
    TVBand,
    TVPath,
    chi_square_gof,
    expected_tv_band,
    log_checkpoints,
    total_variation_curve,
    tv_of_counts,
    tv_path,
)
from specviz.variants import RULE_KEYS, RULES, Rule, rule_output_law

#: The sample sizes the Monte Carlo page offers: 1, 10, ..., 10**9.
N_CHOICES: tuple[int, ...] = tuple(10**k for k in range(10))
#: What a learner sees first: enough draws to see the shape, few enough to see the noise.
DEFAULT_N = 10_000
#: Largest ``N`` simulated draw by draw; above it the counts are drawn from their exact law.
PER_DRAW_MAX = 10**6
#: Number of seeds (seed, seed + 1, ...) whose TV paths the convergence chart shows.
PATHS = 5
#: Points per TV path (before rounding removes duplicate sample sizes).
CHECKPOINTS = 60
#: Largest ``N`` of the bug zoo's TV paths.
ZOO_N_MAX = 10**8
#: The zoo's first exhibit (the first row of math.md's table).
DEFAULT_RULE = "resample_from_p"
#: Quantile level of the noise band.
BAND_LEVEL = 0.95

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
    return PER_DRAW if n <= PER_DRAW_MAX else COUNT_LEVEL


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
        Non-negative seed; the same seed gives the same run.
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
    counts have exactly the law :func:`sample_counts` draws from (multinomial proposals, binomial
    acceptances, multinomial bucket draws); independent draws per stretch, summed, are exactly the
    counts of one stream of ``n`` runs observed at the checkpoints. Cost O(V * num) whatever ``n``.
    """
    p_arr, q_arr = as_prob_pair(p, q)
    size = as_count(n, "n", maximum=10**15)
    if size < 1:
        raise ValueError("n must be at least 1")
    cps = log_checkpoints(size, num)
    vocab = p_arr.size
    if method not in (None, PER_DRAW, COUNT_LEVEL):
        raise ValueError(f"method must be None, {PER_DRAW!r} or {COUNT_LEVEL!r}; got {method!r}")
    if (method or sampler_for(size)) == PER_DRAW:
        draws = speculative_sample(p_arr, q_arr, size, seed)
        path = total_variation_curve(draws.output, p_arr, cps)
        output = path.counts[-1].copy()
        accepted = np.bincount(draws.output[draws.accepted], minlength=vocab).astype(np.int64)
        counts = SpeculativeCounts(
            draft_counts=np.bincount(draws.draft, minlength=vocab).astype(np.int64),
            accepted_counts=accepted,
            residual_counts=output - accepted,
            output_counts=output,
        )
        method = PER_DRAW
    else:
        rng = np.random.default_rng(seed)
        steps = np.diff(np.concatenate(([0], cps)))
        parts = [sample_counts(p_arr, q_arr, int(step), rng) for step in steps]
        path_counts = np.cumsum(np.vstack([c.output_counts for c in parts]), axis=0)
        counts = SpeculativeCounts(
            *(
                np.sum([getattr(c, name) for c in parts], axis=0).astype(np.int64)
                for name in ("draft_counts", "accepted_counts", "residual_counts", "output_counts")
            )
        )
        path = TVPath(cps, path_counts, tv_of_counts(path_counts, cps, p_arr))
        method = COUNT_LEVEL
    return MonteCarloRun(
        n=size,
        seed=int(seed),
        method=method,
        counts=counts,
        path=path,
        gof=chi_square_gof(counts.output_counts, p_arr),
        min_expected=float(size * p_arr[p_arr > 0].min()),
    )


def monte_carlo_paths(
    p: ArrayLike, q: ArrayLike, n: int, seed: int, paths: int = PATHS
) -> tuple[MonteCarloRun, ...]:
    """:func:`monte_carlo` from ``seed``, ``seed + 1``, ..., ``seed + paths - 1``.

    The first run is the one the page's histogram shows; the others show how much an exact
    sampler's TV path wanders from seed to seed. Only their paths are drawn, and the counts at the
    checkpoints have the same law whichever sampler produces them, so they always use the
    count-level one: O(V · checkpoints) each instead of simulating every run again.
    """
    first = monte_carlo(p, q, n, seed)
    others = (monte_carlo(p, q, n, seed + k, method=COUNT_LEVEL) for k in range(1, paths))
    return (first, *others)


def noise_band(p: ArrayLike, n_max: int, num: int = CHECKPOINTS) -> TVBand:
    """:func:`~specviz.stats.expected_tv_band` of ``p`` at the checkpoints up to ``n_max``."""
    return expected_tv_band(p, log_checkpoints(n_max, num), BAND_LEVEL)


def gof_sentence(gof: GofResult) -> str:
    """What the chi-square p-value means, in one plain sentence.

    Examples
    --------
    >>> gof_sentence(GofResult(3.03, 3, 0.387))[:60]
    'If the sampler is right, a p-value of 0.387 or smaller turns'
    """
    if gof.dof == 0:
        return (
            "The target puts all its mass on one word, so every emitted word is that word: "
            "there is nothing to test (p-value 1)."
        )
    if math.isinf(gof.statistic):
        return (
            "A word the target never says was emitted: impossible for a correct sampler "
            "(p-value 0)."
        )
    chance = f"{100 * gof.p_value:.3g}%"
    verdict = (
        "a red flag: the words do not look like draws from the target."
        if gof.p_value < 0.001
        else "no reason to doubt the sampler."
    )
    return (
        f"If the sampler is right, a p-value of {gof.p_value:.3g} or smaller turns up "
        f"{chance} of the time (p-values are uniform between 0 and 1 then); values below 0.001 "
        f"would be a red flag. Here: {verdict}"
    )


# --------------------------------------------------------------------------------- the bug zoo


def mistaken_rules() -> tuple[str, ...]:
    """Keys of every rule of the registry except ``correct``, in display order."""
    return tuple(key for key in RULE_KEYS if not RULES[key].exact)


@dataclass(frozen=True)
class ZooComparison:
    """A mistaken rule side by side with the correct one, on the same ``p``, ``q`` and seed.

    Attributes
    ----------
    rule : Rule
        The registry entry of the mistaken rule.
    law : numpy.ndarray
        Its exact output law (:func:`~specviz.variants.rule_output_law`).
    tv : float
        ``TV(law, p)``: the floor its TV path flattens at.
    correct : TVPath
        TV-to-``p`` path of the correct procedure (:func:`monte_carlo`, count level).
    wrong : TVPath
        TV-to-``p`` path of i.i.d. draws from ``law`` (:func:`~specviz.stats.tv_path`).
    band : TVBand
        Where an exact sampler's TV lies (95%), at the same checkpoints.
    detectable_from : int or None
        About how many draws it takes for the bias to stand out of the noise band
        (:func:`detectable_from`); None if the rule happens to be exact on this pair.
    tv_correct : float
        TV between the correct rule's exact output law and ``p``: 0 up to rounding.
    """

    rule: Rule
    law: np.ndarray
    tv: float
    correct: TVPath
    wrong: TVPath
    band: TVBand
    detectable_from: int | None
    tv_correct: float


def detectable_from(p: ArrayLike, tv: float, level: float = BAND_LEVEL) -> int | None:
    """Smallest ``N`` at which the noise band's upper edge falls below a bias of size ``tv``.

    Parameters
    ----------
    p : array_like
        The target.
    tv : float
        A sampler's TV floor, ``TV(law, p)``.
    level : float, default 0.95
        Quantile level of the band.

    Returns
    -------
    int or None
        ``ceil((upper(1) / tv)**2)`` — the band's upper edge scales exactly like ``1/sqrt(N)`` —
        nudged so that ``upper(N) < tv <= upper(N - 1)``; None when ``tv`` is 0 (up to 1e-12).
    """
    law = as_prob_vector(p, "p")
    if not tv > 1e-12:
        return None
    unit = float(expected_tv_band(law, [1], level).upper[0])
    if unit <= 0:
        return 1
    n = max(1, math.ceil((unit / tv) ** 2))
    # Guard the rounding of the square: step to the first N whose upper edge is below tv.
    while n > 1 and unit / math.sqrt(n - 1) < tv:
        n -= 1
    while unit / math.sqrt(n) >= tv:
        n += 1
    return n


def zoo_comparison(
    key: str, p: ArrayLike, q: ArrayLike, seed: int, n_max: int = ZOO_N_MAX, num: int = CHECKPOINTS
) -> ZooComparison:
    """The mistaken rule ``key`` and the correct rule, run on the same ``p``, ``q`` and seed.

    Raises
    ------
    ValueError
        If the rule has no law on this pair (``redraw_from_q`` with disjoint supports) or on bad
        input; the message is meant for the learner.
    """
    p_arr, q_arr = as_prob_pair(p, q)
    law = rule_output_law(key, p_arr, q_arr)
    cps = log_checkpoints(n_max, num)
    tv = total_variation(law, p_arr)
    return ZooComparison(
        rule=RULES[key],
        law=law,
        tv=tv,
        # The caller's p and q, untouched: the very run the Monte Carlo page shows at n_max.
        correct=monte_carlo(p, q, n_max, seed, num).path,
        wrong=tv_path(law, p_arr, cps, seed),
        band=expected_tv_band(p_arr, cps, BAND_LEVEL),
        detectable_from=detectable_from(p_arr, tv),
        tv_correct=total_variation(output_distribution(p_arr, q_arr), p_arr),
    )


_LETTER = re.compile(r"(?<![A-Za-z])[pq](?![A-Za-z])")


def swap_letters(text: str) -> str:
    """Swap the standalone letters p and q (Chen et al.'s lettering); words are left alone.

    Examples
    --------
    >>> swap_letters("min(1, p(x)/q(x)) and q_k, not a phrase")
    'min(1, q(x)/p(x)) and p_k, not a phrase'
    """
    return _LETTER.sub(lambda m: "q" if m.group() == "p" else "p", text)


# ------------------------------------------------------------------------- share-link parameters


def format_n(n: int) -> str:
    """A sample size the short way: 1, 10, 100, 1k, 10k, 100k, 1M, 10M, 100M, 1B."""
    for size, suffix in ((10**9, "B"), (10**6, "M"), (10**3, "k")):
        if n >= size and n % size == 0:
            return f"{n // size}{suffix}"
    return f"{n:,}"


def parse_n(raw: object) -> tuple[int, str | None]:
    """The link's ``n``: one of :data:`N_CHOICES` (digits, ``1e6`` or ``1M`` style).

    Returns
    -------
    n : int
        The sample size, :data:`DEFAULT_N` if ``raw`` is missing or bad.
    notice : str or None
        One sentence for the learner when ``raw`` was bad (it never repeats the raw text, which
        could hold markup).
    """
    if raw is None:
        return DEFAULT_N, None
    text = str(raw[-1] if isinstance(raw, list | tuple) and raw else raw).strip().lower()
    value = _short_number(text) if len(text) <= 20 else None
    if value in N_CHOICES:
        return value, None
    return DEFAULT_N, (
        f"The link's 'n' is not one of the offered sample sizes ({format_n(N_CHOICES[0])}, "
        f"{format_n(N_CHOICES[1])}, …, {format_n(N_CHOICES[-1])} draws); "
        f"N = {DEFAULT_N:,} is shown."
    )


def _short_number(text: str) -> int | None:
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?(?:e[0-9]{1,2})?)([kmb]?)", text)
    if not match:
        return None
    value = float(match.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "b": 1e9}[match.group(2)]
    return int(value) if value.is_integer() else None


def parse_rule(raw: object) -> tuple[str, str | None]:
    """The link's ``bug``: a key of :func:`mistaken_rules`, else the default and a notice."""
    if raw is None:
        return DEFAULT_RULE, None
    text = str(raw[-1] if isinstance(raw, list | tuple) and raw else raw).strip()
    if text in mistaken_rules():
        return text, None
    return DEFAULT_RULE, (
        f"The link names a mistake the zoo does not have; '{RULES[DEFAULT_RULE].title}' is shown."
    )
