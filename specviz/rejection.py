"""Classic rejection sampling next to speculative sampling, on the same ``p`` and ``q``.

Classic rejection sampling (von Neumann, 1951) draws ``x ~ q`` and keeps it with probability
``p(x) / (M q(x))``, again and again until one is kept. It needs an envelope: ``M q >= p``
everywhere, so the smallest bound is ``M = max p/q``; each proposal is kept with probability
``1/M``, so a word costs ``M`` proposals on average (a geometric number of them, without bound).
Where ``q(x) = 0 < p(x)`` no ``M`` will do: the sampler cannot run at all.

Speculative sampling is the same test with ``M = 1`` — the draft itself as the envelope, which
does not cover ``p`` — and one draw from the leftover bucket for the part it misses, instead of a
retry: one proposal per word, at most two draws, never a loop, whatever the pair.

:func:`classic_plan` gives the exact numbers, :func:`classic_sample` runs the loop literally,
:func:`rejection_comparison` puts both samplers side by side for a page, and
:func:`across_presets` gives the exact numbers on each of the Playground's presets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import choice, generator, prob_pair, seed_value, sequence, whole
from specviz.limits import MAX_CLASSIC_PROPOSALS, MAX_RULE_DRAWS, REJECTION_PROPOSAL_BUDGET
from specviz.one_token import OneTokenStep, checked_step, normalize
from specviz.sampling import SeedLike, inverse_cdf, speculative_sample
from specviz.scenario import PRESETS_BY_KEY

#: Every preset of the Playground, in its order.
PRESET_KEYS: tuple[str, ...] = tuple(PRESETS_BY_KEY)


@dataclass(frozen=True, eq=False)
class ClassicPlan:
    """The exact numbers of classic rejection sampling of ``p`` with proposals from ``q``.

    Attributes
    ----------
    p, q : numpy.ndarray
        The target and the proposal (draft) law.
    bound : float
        ``M = max p(x)/q(x)`` over the words with ``p(x) > 0``: the smallest envelope ``M q``
        that covers ``p``; ``inf`` where ``q`` misses a word ``p`` can say.
    blocked : numpy.ndarray
        int, the words with ``q(x) = 0 < p(x)``: no envelope covers them.
    accept : numpy.ndarray
        ``p(x) / (M q(x))``, the chance a proposal of ``x`` is kept (0 where ``q(x) = 0``, and
        everywhere when the sampler cannot run).
    """

    p: np.ndarray
    q: np.ndarray
    bound: float
    blocked: np.ndarray
    accept: np.ndarray

    @property
    def runs(self) -> bool:
        """Whether classic rejection sampling can run on this pair (``M`` is finite)."""
        return math.isfinite(self.bound)

    @property
    def acceptance(self) -> float:
        """Chance that one proposal is kept: ``1/M`` (0 when the sampler cannot run)."""
        return 1.0 / self.bound if self.runs else 0.0

    @property
    def expected_proposals(self) -> float:
        """Proposals per emitted word on average: ``M`` (``inf`` when it cannot run)."""
        return self.bound

    @property
    def proposals_sd(self) -> float:
        """Standard deviation of the proposals per word, ``sqrt(M (M - 1))`` (geometric)."""
        return math.sqrt(self.bound * (self.bound - 1.0)) if self.runs else math.inf


def classic_plan(p: ArrayLike, q: ArrayLike) -> ClassicPlan:
    """The exact numbers of classic rejection sampling of ``p`` with proposals from ``q``.

    Parameters
    ----------
    p, q : array_like
        Target and proposal probability vectors of equal length.

    Returns
    -------
    ClassicPlan
        The bound ``M``, the words no envelope covers, the acceptance per proposal.

    Raises
    ------
    ValueError
        On bad ``p``/``q``. A pair the sampler cannot handle is *not* an error: the plan says
        so (``runs`` is False, ``bound`` is ``inf``).

    Examples
    --------
    >>> plan = classic_plan([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4])
    >>> plan.bound, plan.acceptance, plan.expected_proposals
    (4.0, 0.25, 4.0)
    >>> classic_plan([0.4, 0.3, 0.2, 0.1], [0.5, 0.3, 0.2, 0.0]).runs
    False
    """
    return _plan(*prob_pair(p, q))


def _plan(p: np.ndarray, q: np.ndarray) -> ClassicPlan:
    needed = p > 0
    blocked = np.flatnonzero(needed & (q == 0))
    accept = np.zeros_like(p)
    if blocked.size:
        return ClassicPlan(p, q, math.inf, blocked, accept)
    with np.errstate(over="ignore"):  # a ratio of ~1e308 is a bound of inf: it cannot run
        ratios = p[needed] / q[needed]
    bound = float(ratios.max())
    if not math.isfinite(bound):
        return ClassicPlan(p, q, math.inf, blocked, accept)
    proposed = q > 0
    accept[proposed] = np.minimum(1.0, p[proposed] / (bound * q[proposed]))
    return ClassicPlan(p, q, bound, blocked, accept)


@dataclass(frozen=True, eq=False)
class ClassicRun:
    """``n`` words drawn by the classic rejection loop, each with the proposals it took.

    Attributes
    ----------
    plan : ClassicPlan
        The exact numbers of the pair.
    n : int
        Words asked for; 0 were drawn when the sampler cannot run (``plan.runs`` is False).
    output : numpy.ndarray
        int64, the emitted words (empty when it cannot run).
    proposals : numpy.ndarray
        int64, how many proposals each emitted word took (each at least 1).
    """

    plan: ClassicPlan
    n: int
    output: np.ndarray
    proposals: np.ndarray

    @property
    def ran(self) -> bool:
        """Whether any word was drawn."""
        return self.output.size > 0

    @property
    def mean_proposals(self) -> float:
        """Measured proposals per emitted word (``inf`` when nothing could be drawn)."""
        return float(self.proposals.mean()) if self.ran else math.inf

    @property
    def std_error(self) -> float:
        """Standard error of :attr:`mean_proposals` from the plan's exact spread."""
        return self.plan.proposals_sd / math.sqrt(self.output.size) if self.ran else math.inf


def classic_sample(p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None) -> ClassicRun:
    """Run classic rejection sampling ``n`` times, one proposal at a time.

    Each run draws ``x ~ q`` and a uniform ``u``, keeps ``x`` when ``u·M·q(x) < p(x)``, and
    otherwise starts again; it never looks at the law it produces.

    Parameters
    ----------
    p, q : array_like
        Target and proposal probability vectors of equal length.
    n : int
        Words to draw, ``0 <= n <= 10**7``; about ``n·M`` proposals are made, at most
        ``10**8`` (:data:`~specviz.limits.MAX_CLASSIC_PROPOSALS`).
    seed : None, int or numpy.random.Generator, optional
        The same int seed gives the same run.

    Returns
    -------
    ClassicRun
        The words and the proposals each took; no words (and ``ran`` False) where the sampler
        cannot run, which is not an error.

    Raises
    ------
    ValueError
        On bad input, or when ``n·M`` is beyond the proposals the loop may make.
    """
    plan = _plan(*prob_pair(p, q))
    size = whole(n, "n", maximum=MAX_RULE_DRAWS)
    rng = generator(seed)
    if not plan.runs:
        empty = np.empty(0, dtype=np.int64)
        return ClassicRun(plan, size, empty, empty)
    if size * plan.bound > MAX_CLASSIC_PROPOSALS:
        raise ValueError(
            f"n = {size:,} words with M = {plan.bound:.3g} need about {size * plan.bound:,.0f} "
            f"proposals; the loop makes at most {MAX_CLASSIC_PROPOSALS:,}: ask for fewer words"
        )
    return ClassicRun(plan, size, *_loop(plan, size, rng))


def _loop(plan: ClassicPlan, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The retry loop for ``n`` runs at once, in rounds.

    In each round every waiting run tries a block of proposals in order and keeps the first one
    accepted (later ones in the block are never looked at, as in the one-at-a-time loop), so the
    words and their proposal counts have the plain loop's law.
    """
    out = np.empty(n, dtype=np.int64)
    spent = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    # A block of ceil(2M) proposals ends a run with probability >= 1 - e**-2.
    block = max(1, math.ceil(2.0 * plan.bound))
    rows = max(1, (1 << 20) // block)  # proposals held in memory at once: ~1 million (~30 MB)
    while pending.size:
        still = []
        for start in range(0, pending.size, rows):
            runs = pending[start : start + rows]
            shape = (runs.size, block)
            draft = inverse_cdf(plan.q, rng.random(shape).ravel()).reshape(shape)
            kept = rng.random(shape) * plan.bound * plan.q[draft] < plan.p[draft]
            hit = kept.any(axis=1)
            first = kept.argmax(axis=1)
            out[runs[hit]] = draft[hit, first[hit]]
            spent[runs[hit]] += first[hit] + 1
            spent[runs[~hit]] += block
            still.append(runs[~hit])
        pending = np.concatenate(still)
    return out, spent


@dataclass(frozen=True, eq=False)
class RejectionComparison:
    """Classic rejection sampling and speculative sampling on the same pair and seed.

    Attributes
    ----------
    n : int
        Words asked of each sampler.
    step : OneTokenStep
        The speculative step of the pair (α, the bucket ``Z``).
    classic : ClassicRun
        Words of the classic loop: ``n``, or as many as its proposal budget allows (about
        ``budget / M``); none if it cannot run.
    speculative_rejections : int
        How many of ``n`` speculative runs (same seed) needed their one bucket draw.
    speculative_output : numpy.ndarray
        int64 word counts of those ``n`` runs.
    """

    n: int
    step: OneTokenStep
    classic: ClassicRun
    speculative_rejections: int
    speculative_output: np.ndarray

    @property
    def classic_cut(self) -> bool:
        """Whether the classic loop ran fewer words than asked (its M is too large for them)."""
        return self.classic.plan.runs and self.classic.n < self.n

    @property
    def speculative_draws(self) -> float:
        """Measured random draws of words per emitted word: one proposal, plus a bucket draw
        after each rejection (exactly ``1 + Z`` on average)."""
        return 1.0 + self.speculative_rejections / self.n if self.n else 1.0


def rejection_comparison(
    p: ArrayLike, q: ArrayLike, n: int, seed: int, budget: int = REJECTION_PROPOSAL_BUDGET
) -> RejectionComparison:
    """Both samplers, ``n`` words each, from the same seed.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.
    n : int
        Words per sampler, ``0 <= n <= 10**7``.
    seed : int
        A whole number ``>= 0``; both samplers start from it.
    budget : int, default 10**7
        Most proposals the classic loop may make, ``1 <= budget <= 10**8``: with ``n·M`` beyond
        it, the loop runs ``floor(budget / ceil(M))`` words (at least one) instead of ``n``.

    Returns
    -------
    RejectionComparison
    """
    p_arr, q_arr = prob_pair(p, q)
    start = seed_value(seed)
    size = whole(n, "n", maximum=MAX_RULE_DRAWS)
    cap = whole(budget, "budget", minimum=1, maximum=MAX_CLASSIC_PROPOSALS)
    plan = _plan(p_arr, q_arr)
    words = size
    if plan.runs:
        words = min(size, max(1, cap // math.ceil(plan.bound)))
    classic = classic_sample(p_arr, q_arr, words, start)
    draws = speculative_sample(p_arr, q_arr, size, start)
    return RejectionComparison(
        n=size,
        step=checked_step(p_arr, q_arr),
        classic=classic,
        speculative_rejections=int((~draws.accepted).sum()),
        speculative_output=np.bincount(draws.output, minlength=p_arr.size).astype(np.int64),
    )


@dataclass(frozen=True)
class PresetBounds:
    """One preset of the Playground: its acceptance α and classic rejection sampling's ``M``."""

    key: str
    title: str
    alpha: float
    bound: float


def across_presets(keys: Sequence[str] = PRESET_KEYS) -> tuple[PresetBounds, ...]:
    """α and ``M`` on some of the Playground's presets (exact, no sampling).

    Parameters
    ----------
    keys : sequence of str, default every preset
        Preset keys (:data:`~specviz.scenario.PRESETS_BY_KEY`), in the order wanted.

    Returns
    -------
    tuple of PresetBounds
    """
    out = []
    for i, key in enumerate(sequence(keys, "keys")):
        preset = PRESETS_BY_KEY[choice(key, f"keys[{i}]", PRESET_KEYS)]
        p, q = normalize(preset.p_weights), normalize(preset.q_weights)
        out.append(
            PresetBounds(preset.key, preset.title, checked_step(p, q).alpha, _plan(p, q).bound)
        )
    return tuple(out)


__all__ = [
    "ClassicPlan",
    "ClassicRun",
    "PresetBounds",
    "RejectionComparison",
    "across_presets",
    "classic_plan",
    "classic_sample",
    "rejection_comparison",
]
