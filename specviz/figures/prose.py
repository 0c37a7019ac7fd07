"""Sentences the pages show a learner, built from results: what a test says, which sampler ran.

Plain words first; the precise terms (multinomial, p-value) stay available in a second sentence
or an expander. Prose is lettered with ``{T}``/``{D}`` like everything else.
"""

from __future__ import annotations

import math

from specviz.limits import PER_DRAW_MAX
from specviz.palette import Notation
from specviz.runs import PER_DRAW, MonteCarloRun
from specviz.stats import GofResult


def gof_sentence(gof: GofResult) -> str:
    """What the goodness-of-fit test says, in one plain sentence.

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


def sampler_note(run: MonteCarloRun, notation: Notation) -> tuple[str, str]:
    """Which sampler drew the run, in plain words, and the precise statement behind it."""
    runs = "run" if run.n == 1 else f"{run.n:,} runs"
    if run.method == PER_DRAW:
        return (
            f"**Every run simulated:** {'the' if run.n == 1 else 'each of the'} {runs} is "
            "simulated one by one — the draft proposes, the test accepts or rejects, a rejection "
            f"is refilled from the bucket. Above {PER_DRAW_MAX:,} runs the page draws the counts "
            "directly instead.",
            "Each run draws three random numbers: one picks the draft's word, one tests it, one "
            "picks the bucket's word after a rejection.",
        )
    return (
        f"**Counts drawn directly:** {runs} are too many to simulate one by one, so the page "
        "draws how often each word is proposed, kept and refilled from the exact law of those "
        "counts — the same law as simulating every run, in microseconds.",
        notation.fill(
            "The runs are independent and identically distributed, so their counts follow an "
            "exact law: proposals ~ Multinomial(N, {D}); kept proposals of word x ~ "
            "Binomial(proposals of x, min(1, {T}(x)/{D}(x))); bucket draws ~ Multinomial"
            "(rejections, r)."
        ),
    )
