"""Classic rejection sampling next to speculative sampling, on the same ``p`` and ``q``.

Classic rejection sampling (von Neumann, 1951) keeps ``x ~ q`` with probability ``p(x) / (M
q(x))`` and retries until one is kept: it needs an envelope ``M q >= p``, smallest at ``M = max
p/q``, and a word costs ``M`` proposals on average (without bound); where ``q(x) = 0 < p(x)`` it
cannot run. Speculative sampling is the same test with ``M = 1``, the draft as an envelope that
does not cover ``p``, and one bucket draw for the rest: one proposal per word, never a loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import generator, prob_pair, seed_value, whole
from specviz.limits import MAX_CLASSIC_PROPOSALS, MAX_RULE_DRAWS, REJECTION_PROPOSAL_BUDGET
from specviz.one_token import OneTokenStep, step
from specviz.sampling import inverse_cdf, speculative_sample
from specviz.scenario import PRESETS


@dataclass(frozen=True, eq=False)
class ClassicPlan:
    """Classic rejection sampling of target ``p`` with proposals from ``q``: ``bound``, ``M = max
    p(x)/q(x)`` over ``p(x) > 0`` (the smallest envelope, and the mean proposals per word; ``inf``
    where ``q`` misses a word ``p`` can say, the words ``blocked``)."""

    p: np.ndarray
    q: np.ndarray
    bound: float
    blocked: np.ndarray

    @property
    def runs(self) -> bool:
        """Whether ``M`` is finite: classic rejection sampling can run on this pair."""
        return math.isfinite(self.bound)

    @property
    def acceptance(self) -> float:
        """``1/M``, the chance that one proposal is kept (0 when the sampler cannot run)."""
        return 1.0 / self.bound if self.runs else 0.0

    def retry(
        self, n: int, rng: np.random.Generator, tries: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The retry loop for ``n`` runs at once, as one at a time would run them: each waiting
        run tries a block of proposals in order and keeps the first accepted. The words and the
        proposals each took; ``tries``: the mean proposals per word (``M`` unless given)."""
        out = np.empty(n, dtype=np.int64)
        spent = np.zeros(n, dtype=np.int64)
        pending = np.arange(n)
        # A block of twice the mean proposals ends a run with probability >= 1 - e**-2.
        block = min(max(1, math.ceil(2.0 * (tries or self.bound))), 1 << 22)
        rows = max(1, (1 << 20) // block)  # proposals held in memory at once: ~1 million (~30 MB)
        while pending.size:
            still = []
            for start in range(0, pending.size, rows):
                runs = pending[start : start + rows]
                draft = inverse_cdf(self.q, rng.random((runs.size, block)))
                kept = rng.random(draft.shape) * self.bound * self.q[draft] < self.p[draft]
                hit = kept.any(axis=1)
                first = kept.argmax(axis=1)
                out[runs[hit]] = draft[hit, first[hit]]
                spent[runs] += np.where(hit, first + 1, block)
                still.append(runs[~hit])
            pending = np.concatenate(still)
        return out, spent


def classic_plan(p: ArrayLike, q: ArrayLike) -> ClassicPlan:
    """The :class:`ClassicPlan` of target ``p`` and proposals ``q`` (ValueError on bad input).

    Examples
    --------
    >>> plan = classic_plan([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4])
    >>> plan.bound, plan.acceptance
    (4.0, 0.25)
    >>> classic_plan([0.4, 0.3, 0.2, 0.1], [0.5, 0.3, 0.2, 0.0]).runs
    False
    """
    p, q = prob_pair(p, q)
    needed = p > 0
    with np.errstate(divide="ignore", over="ignore"):  # p/0 or a ratio of ~1e308: M = inf
        bound = float((p[needed] / q[needed]).max())
    return ClassicPlan(p, q, bound, np.flatnonzero(needed & (q == 0)))


@dataclass(frozen=True, eq=False)
class ClassicRun:
    """``n`` words asked of the classic rejection loop of a ``plan``: the ``output`` words and the
    ``proposals`` each took (int64; both empty when the sampler cannot run)."""

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
        """Standard error of :attr:`mean_proposals` from the geometric law's exact spread,
        ``sqrt(M (M - 1) / words)``."""
        m, words = self.plan.bound, self.output.size
        return math.sqrt(m * (m - 1.0)) / math.sqrt(words) if self.ran else math.inf


@dataclass(frozen=True, eq=False)
class RejectionComparison:
    """Both samplers on one pair and seed: ``n`` words asked of each, the pair's ``step``, the
    ``classic`` run (fewer words where its budget is short), and how many speculative runs needed
    their bucket draw."""

    n: int
    step: OneTokenStep
    classic: ClassicRun
    speculative_rejections: int

    @property
    def classic_cut(self) -> bool:
        """Whether the classic loop ran fewer words than asked (its M is too large for them)."""
        return self.classic.plan.runs and self.classic.n < self.n

    @property
    def speculative_draws(self) -> float:
        """Measured words drawn per emitted word: one proposal, and a bucket draw after each
        rejection (``1 + Z`` on average)."""
        return 1.0 + self.speculative_rejections / self.n if self.n else 1.0


def rejection_comparison(
    p: ArrayLike, q: ArrayLike, n: int, seed: int, budget: int = REJECTION_PROPOSAL_BUDGET
) -> RejectionComparison:
    """Both samplers, ``n`` words each (``0 <= n <= 10**7``), from the same whole ``seed``. The
    classic loop keeps ``x ~ q`` when ``u·M·q(x) < p(x)``, else starts again, making at most
    ``budget`` proposals (``1 <= budget <= 10**8``): ``floor(budget / ceil(M))`` words (at least
    one) where ``n·M`` is more. ValueError on bad input, or where a word needs more than
    :data:`~specviz.limits.MAX_CLASSIC_PROPOSALS` proposals."""
    plan = classic_plan(p, q)
    start = seed_value(seed)
    size = whole(n, "n", maximum=MAX_RULE_DRAWS)
    cap = whole(budget, "budget", minimum=1, maximum=MAX_CLASSIC_PROPOSALS)
    if plan.runs:
        words = min(size, max(1, cap // math.ceil(plan.bound)))
        if words * plan.bound > MAX_CLASSIC_PROPOSALS:
            raise ValueError(
                f"M = {plan.bound:.3g}: a word needs about that many proposals; the loop makes "
                f"at most {MAX_CLASSIC_PROPOSALS:,}"
            )
        classic = ClassicRun(plan, words, *plan.retry(words, generator(start)))
    else:
        classic = ClassicRun(plan, size, *np.empty((2, 0), dtype=np.int64))
    rejected = ~speculative_sample(plan.p, plan.q, size, start).accepted
    return RejectionComparison(size, step(plan.p, plan.q), classic, int(rejected.sum()))


@dataclass(frozen=True)
class PresetBounds:
    """One preset of the Playground: its acceptance α and classic rejection sampling's ``M``."""

    key: str
    title: str
    alpha: float
    bound: float


def across_presets() -> tuple[PresetBounds, ...]:
    """α and ``M`` on each of the Playground's presets, in its order (exact, no sampling)."""
    steps = ((preset, preset.step()) for preset in PRESETS)
    return tuple(
        PresetBounds(k.key, k.title, s.alpha, classic_plan(s.p, s.q).bound) for k, s in steps
    )
