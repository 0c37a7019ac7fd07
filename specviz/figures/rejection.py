"""The page "Is it just rejection sampling?": proposals per word for both samplers, the envelopes
each one uses, and the sentences that compare them — all read from
:class:`~specviz.rejection.RejectionComparison` and the step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.figures.fit import fit_row
from specviz.figures.numbers import percent
from specviz.figures.style import ChartStyle, figure, layout, token_axis
from specviz.figures.traces import BAR_WIDTH, LEFT, RIGHT, bar, outline, text_row
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.rejection import ClassicPlan, PresetBounds, RejectionComparison

#: The chart of proposals per word has bars 1, 2, ..., and a last one for "this many or more".
_MOST_BARS = 10


def bound_text(bound: float) -> str:
    """``M`` as a learner reads it: 4, 2.5, 901, 1,000 or ∞."""
    if not math.isfinite(bound):
        return "∞"
    return f"{bound:,.0f}" if bound >= 1000 else f"{bound:.3g}"  # never 1e+03


def _bins(plan: ClassicPlan) -> int:
    """How many bars: enough to show the geometric law's shape, at most 10 (the last lumps the
    tail)."""
    if not plan.runs:
        return 3
    return int(min(_MOST_BARS, max(3, math.ceil(2 * plan.bound))))


def proposals_shares(comparison: RejectionComparison) -> tuple[np.ndarray, np.ndarray]:
    """Measured and exact shares of words that took 1, 2, ..., K-or-more proposals (classic)."""
    plan, run = comparison.classic.plan, comparison.classic
    bins = _bins(plan)
    measured = np.zeros(bins)
    if run.ran:
        counts = np.bincount(np.minimum(run.proposals, bins) - 1, minlength=bins)
        measured = counts / run.output.size
    exact = np.zeros(bins)
    if plan.runs:
        keep = plan.acceptance
        k = np.arange(1, bins)
        exact[:-1] = keep * (1 - keep) ** (k - 1)
        exact[-1] = (1 - keep) ** (bins - 1)  # K or more proposals
    return measured, exact


def proposals_figure(comparison: RejectionComparison, style: ChartStyle) -> go.Figure:
    """Proposals per emitted word: classic rejection sampling (measured, and its exact geometric
    law as strokes) next to speculative sampling (always one)."""
    plan = comparison.classic.plan
    measured, exact = proposals_shares(comparison)
    bins = measured.size
    labels = [str(k) for k in range(1, bins)] + [f"{bins} or more"]
    speculative = np.zeros(bins)
    speculative[0] = 1.0
    top = 1.0
    # No numbers over the bars: Plotly hides the ones wider than their bar, which left a few
    # scattered labels; the caption lists every share.
    traces = [
        bar(
            f"{palette.REJECTED.icon} classic (measured)",
            measured,
            palette.REJECTED,
            style,
            width=BAR_WIDTH,
            offset=LEFT,
            hovertemplate="%{y:.1%} of the words took this many proposals<extra></extra>",
        ),
        bar(
            f"{palette.ACCEPTED.icon} speculative",
            speculative,
            palette.ACCEPTED,
            style,
            width=BAR_WIDTH,
            offset=RIGHT,
            hovertemplate="%{y:.0%} of the words<extra></extra>",
        ),
    ]
    if plan.runs:
        centres = np.arange(bins) + LEFT + BAR_WIDTH / 2
        traces.append(outline("classic, exact", centres, exact, style, dash="dash"))
    title = (
        f"Proposals per word: classic M = {bound_text(plan.bound)} on average, speculative 1"
        if plan.runs
        else "Proposals per word: classic cannot run, speculative 1"
    )
    spec = layout(
        style,
        title,
        traces,
        barmode="overlay",
        xaxis=token_axis(labels, style=style) | {"title": {"text": "proposals it took"}},
        yaxis={"range": [0, top * 1.12], "title": {"text": "share of the words"}},
    )
    return figure(traces, spec)


def proposals_caption(comparison: RejectionComparison, notation: Notation) -> str:
    """The chart's facts in words."""
    plan, run = comparison.classic.plan, comparison.classic
    measured, _ = proposals_shares(comparison)
    if not run.ran:
        classic = "Classic rejection sampling drew nothing: it cannot run on this pair."
    else:
        shares = ", ".join(f"{k + 1}: {percent(v)}" for k, v in enumerate(measured))
        classic = (
            f"Classic rejection sampling, {run.output.size:,} words: share of words by proposals "
            f"taken — {shares} (the last bar counts that many or more); mean "
            f"{run.mean_proposals:.3g}, exactly M = {bound_text(plan.bound)} on average."
        )
    return notation.fill(
        f"Bar chart. {classic} Speculative sampling: every word took exactly 1 proposal."
    )


def envelope_figure(
    labels: Sequence[str], step: OneTokenStep, plan: ClassicPlan, style: ChartStyle
) -> go.Figure:
    """The target split into kept guesses and the bucket (speculative sampling's envelope is
    {D} itself, M = 1), under classic rejection sampling's envelope M·{D}."""
    p, kept, refill = step.p, step.kept, step.refill
    traces = [
        bar(
            style.fill(f"{palette.ACCEPTED.icon} under {{D}}: kept guesses"),
            kept,
            palette.ACCEPTED,
            style,
            width=BAR_WIDTH,
            hovertemplate="kept guesses: %{y:.1%}<extra></extra>",
        ),
        bar(
            style.fill(f"{palette.BUCKET.icon} above {{D}}: from the bucket"),
            refill,
            palette.BUCKET,
            style,
            width=BAR_WIDTH,
            hovertemplate="from the bucket: %{y:.1%}<extra></extra>",
        ),
    ]
    x = np.arange(len(labels), dtype=float)
    top = float(p.max()) * 1.25
    if plan.runs:
        envelope = plan.bound * step.q
        # An envelope far above the target would squeeze its bars flat: cut the axis at three
        # times the target's top (the caption gives every height).
        top = min(max(top, float(envelope.max()) * 1.15), 3 * float(p.max()))
        traces.append(
            outline(
                style.fill(f"classic's envelope M·{{D}}, M = {bound_text(plan.bound)}"),
                x,
                envelope,
                style,
                dash="dash",
            )
        )
        words = fit_row([[percent(v) if v <= top else "↑" for v in envelope]], envelope, top, style)
        traces.append(text_row(x, np.minimum(envelope, top), words, style, lift=3))
    spec = layout(
        style,
        style.fill("Envelopes: speculative uses {D} itself,\nclassic needs M·{D} over all of {T}"),
        traces,
        barmode="stack",
        xaxis=token_axis(labels, style=style),
        yaxis={"range": [0, top]},
    )
    return figure(traces, spec)


def envelope_caption(
    labels: Sequence[str], step: OneTokenStep, plan: ClassicPlan, notation: Notation
) -> str:
    """Word by word: the target's two parts, and classic's envelope."""
    parts = []
    for i, word in enumerate(labels):
        envelope = f", envelope {percent(plan.bound * step.q[i])}" if plan.runs else ""
        parts.append(
            f"{word}: {percent(step.kept[i])} under {{D}} + {percent(step.refill[i])} above"
            f"{envelope}"
        )
    tail = (
        f" Classic rejection sampling's envelope is M·{{D}} with M = {bound_text(plan.bound)}."
        if plan.runs
        else " No envelope M·{D} covers {T}: {D} is 0 where {T} is not."
    )
    return notation.fill("Stacked bars of {T}: " + "; ".join(parts) + "." + tail)


def verdict(comparison: RejectionComparison, labels: Sequence[str], notation: Notation) -> str:
    """The comparison in two sentences, with this pair's numbers."""
    plan, one = comparison.classic.plan, comparison.step
    if not plan.runs:
        missing = ", ".join(f"'{labels[i]}'" for i in plan.blocked) or "a word"
        many = plan.blocked.size > 1
        return notation.fill(
            f"**Classic rejection sampling cannot run here:** the draft never proposes "
            f"{missing}, which the target can say, so no M makes M·{{D}} cover {{T}} "
            f"(M = ∞) and {'those words' if many else 'that word'} would never come out. "
            f"**Speculative sampling runs anyway:** one proposal per word, kept "
            f"{percent(one.alpha)} of the time, and {missing} "
            f"{'arrive' if many else 'arrives'} from the bucket."
        )
    draws = comparison.speculative_draws
    speculative = (
        f"**Speculative sampling** keeps the draft's guess with probability α = "
        f"{percent(one.alpha)} and never retries: exactly 1 proposal per word, and at most one "
        f"draw from the bucket ({draws:.3g} draw{'' if draws == 1 else 's'} per word measured, "
        f"1 + Z = {1 + one.z:.3g} on average)."
    )
    if plan.bound == 1:
        return notation.fill(
            "**Classic rejection sampling** keeps every proposal here: M = 1, the draft already "
            f"covers the target, so it never retries. {speculative}"
        )
    return notation.fill(
        f"**Classic rejection sampling** keeps a proposal with probability 1/M = "
        f"{percent(plan.acceptance)} and retries until one is kept: M = "
        f"{bound_text(plan.bound)} proposals per word on average "
        f"({comparison.classic.mean_proposals:.3g} measured), with no upper bound. {speculative}"
    )


def cut_note(comparison: RejectionComparison) -> str | None:
    """Said when the classic loop ran fewer words than asked, and why (None otherwise)."""
    if not comparison.classic_cut:
        return None
    run = comparison.classic
    spent = int(run.proposals.sum())
    return (
        f"With M = {bound_text(run.plan.bound)} the classic loop ran {run.n:,} of the "
        f"{comparison.n:,} words: they took {spent:,} proposals already."
    )


def structure(comparison: RejectionComparison, notation: Notation) -> str:
    """The structural difference, with this pair's α and 1/M."""
    plan, one = comparison.classic.plan, comparison.step
    first = percent(plan.acceptance) if plan.runs else "0% (it cannot run)"
    return notation.fill(
        "**Why the loop matters.** In speculative decoding the draft writes γ guesses in a row, "
        "each continuing the one before, and one target call scores all of them. Only the "
        "draft's own guess comes with its continuation already written and scored, so what "
        "counts is how often *that first guess* is kept: "
        f"1/M = {first} for classic rejection sampling, α = {percent(one.alpha)} for "
        "speculative sampling — and α ≥ 1/M on every pair, because min({T}, {D}) ≥ {T}/M "
        "word by word. A rejection then costs one draw from the bucket, from numbers the same "
        "call already computed, and the next call starts from there: every position gets exactly "
        "one verdict, so γ of them fit in one pass. A retry loop has no such fixed shape."
    )


def same_idea(comparison: RejectionComparison, notation: Notation) -> str:
    """Where the two really are the same idea."""
    one = comparison.step
    return notation.fill(
        "**Where they are the same idea.** Both propose from {D} and keep x with a chance "
        "proportional to {T}(x)/{D}(x): classic with {T}(x)/(M·{D}(x)), speculative with "
        "min(1, {T}(x)/{D}(x)). Speculative sampling *is* rejection sampling with M = 1 — the "
        "draft itself as the envelope, which does not cover the target — and the part of {T} "
        f"that sticks out above {{D}} (the bucket, {percent(one.z)} here) is drawn directly "
        "instead of being reached by retries. When {D} = {T} the two coincide: M = 1, α = 100%, "
        "every proposal kept."
    )


def presets_table(bounds: Sequence[PresetBounds], notation: Notation) -> dict[str, list[str]]:
    """The same comparison on each of the Playground's presets (exact numbers)."""
    table: dict[str, list[str]] = {
        "preset": [],
        "first guess kept: speculative α": [],
        "first guess kept: classic 1/M": [],
        "proposals per word: classic M": [],
        "proposals per word: speculative": [],
    }
    for row in bounds:
        runs = math.isfinite(row.bound)
        values = (
            row.title,
            percent(row.alpha),
            percent(1 / row.bound) if runs else "cannot run",
            bound_text(row.bound) if runs else "∞: cannot run",
            "1",
        )
        for column, value in zip(table, values, strict=True):
            table[column].append(notation.fill(value))
    return table


def rejection_figures(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle, comparison: RejectionComparison
) -> dict[str, tuple[go.Figure, str]]:
    """Both charts of the page with their captions: ``{"proposals", "envelope"}``."""
    note, plan = style.notation, comparison.classic.plan
    return {
        "proposals": (proposals_figure(comparison, style), proposals_caption(comparison, note)),
        "envelope": (
            envelope_figure(labels, step, plan, style),
            envelope_caption(labels, step, plan, note),
        ),
    }
