"""The page "Is it just rejection sampling?": both samplers' proposals per word, their envelopes,
and the sentences that compare them. Every changing value of a chart (the bars, M in the legend,
the axis's top) is data: a new state updates it in place.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from specviz import palette
from specviz.figures import vega
from specviz.figures.fit import fit_row
from specviz.figures.numbers import percent
from specviz.figures.style import ChartStyle
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.rejection import ClassicPlan, PresetBounds, RejectionComparison

#: The chart of proposals per word has bars 1, 2, ..., and a last one for "this many or more".
_MOST_BARS = 10

#: The dash of exact values drawn over bars, and their key's stroke.
STROKE_DASH = [6, 3]
_STROKE_KEY = {"stroke": palette.INK, "strokeDash": STROKE_DASH}


def bound_text(bound: float) -> str:
    """``M`` as a learner reads it: 4, 2.5, 901, 1,000 or ∞."""
    if not math.isfinite(bound):
        return "∞"
    return f"{bound:,.0f}" if bound >= 1000 else f"{bound:.3g}"  # never 1e+03


def proposals_shares(comparison: RejectionComparison) -> tuple[np.ndarray, np.ndarray]:
    """Measured and exact shares of words that took 1, 2, ..., K-or-more proposals (classic):
    K = 2M bars show the geometric law's shape, 3 to 10 of them."""
    plan, run = comparison.classic.plan, comparison.classic
    bins = int(min(_MOST_BARS, max(3, math.ceil(2 * plan.bound)))) if plan.runs else 3
    taken = np.bincount(np.minimum(run.proposals, bins) - 1, minlength=bins)
    measured = taken / max(1, run.output.size)
    keep = plan.acceptance
    exact = keep * (1 - keep) ** np.arange(bins)  # exactly k + 1 proposals
    exact[-1] = (1 - keep) ** (bins - 1) if plan.runs else 0.0  # K or more
    return measured, exact


def proposals_figure(comparison: RejectionComparison, style: ChartStyle) -> tuple[dict, str]:
    """Proposals per emitted word: classic rejection sampling (measured, and its exact geometric
    law as strokes) next to speculative sampling (always one); and its alt text."""
    plan, run = comparison.classic.plan, comparison.classic
    measured, exact = proposals_shares(comparison)
    words = [str(k) for k in range(1, measured.size)] + [f"{measured.size} or more"]
    speculative = [float(k == 0) for k in range(measured.size)]
    rows = vega.rows(words, measured=measured, speculative=speculative, exact=exact, runs=plan.runs)
    law = (
        f"classic, exact: M = {bound_text(plan.bound)} on average"
        if plan.runs
        else "classic cannot run here: M = ∞"
    )
    datasets = {"bars": rows, "law": [{"label": law, "line": plan.runs}]}
    title = ["Proposals per word:", "classic vs speculative"]
    if not run.ran:
        classic = "Classic rejection sampling drew nothing: it cannot run on this pair."
    else:
        shares = ", ".join(f"{k + 1}: {percent(v)}" for k, v in enumerate(measured))
        classic = (
            f"Classic rejection sampling, {run.output.size:,} words: share of words by proposals "
            f"taken — {shares} (the last bar counts that many or more); mean "
            f"{run.mean_proposals:.3g}, exactly M = {bound_text(plan.bound)} on average."
        )
    caption = f"Bar chart. {classic} Speculative sampling: every word took exactly 1 proposal."
    # The layers depend on nothing of the state. No numbers over the bars (up to 20 of them): the
    # caption lists every share.
    pair = [f"{palette.REJECTED.icon} classic (measured)", f"{palette.ACCEPTED.icon} speculative"]
    roles = (palette.REJECTED, palette.ACCEPTED)
    colour = vega.colour(pair, roles, style, **vega.legend_over(1, style))
    x = vega.word_x(style, "proposals it took")

    def y(field: str) -> dict:
        share = vega.share_y("share of the words", field)
        share["scale"]["domainMax"] = 1
        return share

    def bars(k: int, field: str) -> dict:
        offset = vega.pair_offset(pair, datum=pair[k])
        tooltip = vega.tooltip(("word", "proposals"), (field, pair[k], percent))
        return {"transform": [vega.named(pair[k])]} | vega.role_bars(
            roles[k], colour, style, x=x, xOffset=offset, y=y(field), tooltip=tooltip
        )

    geometric = vega.strokes(
        x, y("exact"), style, STROKE_DASH, vega.pair_span(0), opacity=vega.shown_if("datum.runs")
    )
    layers = [
        {"data": vega.data("bars")} | layer
        for layer in (bars(0, "measured"), bars(1, "speculative"), geometric)
    ]
    layers += vega.key_row("law", 0, style, _STROKE_KEY)
    # Three rows over the house height: a title line, a legend row and the key.
    return vega.chart(style, title, datasets, layers, height=vega.height(style, 3)), caption


def envelope_figure(
    labels: Sequence[str], step: OneTokenStep, plan: ClassicPlan, style: ChartStyle
) -> tuple[dict, str]:
    """The target split into kept guesses and the bucket (speculative sampling's envelope is
    {D} itself, M = 1), under classic rejection sampling's envelope M·{D}; and its alt text."""
    p, kept, refill = step.p, step.kept, step.refill
    top = float(p.max()) * 1.25
    envelope = plan.bound * step.q if plan.runs else np.zeros(p.size)
    words = [""] * p.size
    key = style.fill("no envelope M·{D} covers {T}: M = ∞")
    if plan.runs:
        # An envelope far above the target would squeeze its bars flat: cut the axis at three
        # times the target's top (the numbers over the strokes give every height).
        top = min(max(top, float(envelope.max()) * 1.15), 3 * float(p.max()))
        words = fit_row([[percent(v) if v <= top else "↑" for v in envelope]], envelope, top, style)
        key = style.fill(f"classic's envelope M·{{D}}, M = {bound_text(plan.bound)}")
    rows = vega.rows(
        labels,
        kept=kept,
        refill=refill,
        stacked=kept + refill,
        envelope=envelope,
        # The envelope's strokes and numbers are drawn at most at the axis's top.
        drawn=np.minimum(envelope, top),
        label=words,
        runs=plan.runs,
        # The axis's top follows the data: room over the strokes for their numbers.
        top=top * 1.1,
    )
    title = [
        style.fill("Envelopes: speculative uses {D} itself,"),
        style.fill("classic needs M·{D} over all of {T}"),
    ]
    datasets = {"bars": rows, "envelope": [{"label": key, "line": plan.runs}]}
    datasets["yticks"] = vega.share_ticks(top * 1.1)
    parts = [
        f"{word}: {percent(step.kept[i])} under {{D}} + {percent(step.refill[i])} above"
        + (f", envelope {percent(plan.bound * step.q[i])}" if plan.runs else "")
        for i, word in enumerate(labels)
    ]
    tail = (
        f" Classic rejection sampling's envelope is M·{{D}} with M = {bound_text(plan.bound)}."
        if plan.runs
        else " No envelope M·{D} covers {T}: {D} is 0 where {T} is not."
    )
    caption = style.fill("Stacked bars of {T}: " + "; ".join(parts) + "." + tail)
    # Three rows over the house height: a title line, a legend row and the key.
    height = vega.height(style, 3)
    return vega.chart(style, title, datasets, _envelope_layers(style), height=height), caption


def _envelope_layers(style: ChartStyle) -> list[dict]:
    """The layers of :func:`envelope_figure`: nothing in them depends on the state."""
    pair = [
        style.fill(f"{palette.ACCEPTED.icon} under {{D}}: kept guesses"),
        style.fill(f"{palette.BUCKET.icon} above {{D}}: from the bucket"),
    ]
    roles = (palette.ACCEPTED, palette.BUCKET)
    colour = vega.colour(pair, roles, style, **vega.legend_over(1, style))
    x, y, envelope = vega.word_x(style), vega.room_y("kept"), vega.room_y("drawn")

    def bars(k: int, field: str, title: str, **encoding: dict) -> dict:
        tooltip = vega.tooltip(("word", "word"), (field, title, percent))
        return {"transform": [vega.named(pair[k])]} | vega.role_bars(
            roles[k], colour, style, x=x, y=y, tooltip=tooltip, **encoding
        )

    tip = vega.tooltip(("word", "word"), ("envelope", "classic's envelope", percent))
    shown = vega.shown_if("datum.runs")
    cover = vega.strokes(x, envelope, style, STROKE_DASH, opacity=shown, tooltip=tip)
    over = {"baseline": "bottom", "dy": -(style.line_width + 3)}
    layers = [
        bars(0, "kept", "kept guesses"),
        bars(1, "refill", "from the bucket", y2={"field": "stacked"}),
        cover,
        vega.text("label", over, x=x, y=envelope),
    ]
    layers = [{"data": vega.data("bars")} | layer for layer in layers]
    return layers + vega.room("bars", "top") + vega.key_row("envelope", 0, style, _STROKE_KEY)


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
        "**Why the loop matters.** In speculative decoding the draft writes several guesses "
        "in a row (γ of them), each continuing the one before, and one target call scores all "
        "of them. Only the draft's own guess comes with its continuation already written and "
        "scored, so what "
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
    columns = (
        "preset",
        "first guess kept: speculative α",
        "first guess kept: classic 1/M",
        "proposals per word: classic M",
        "proposals per word: speculative",
    )
    rows = [
        (row.title, percent(row.alpha), percent(1 / row.bound), bound_text(row.bound), "1")
        if math.isfinite(row.bound)
        else (row.title, percent(row.alpha), "cannot run", "∞: cannot run", "1")
        for row in bounds
    ]
    return {name: [notation.fill(r[k]) for r in rows] for k, name in enumerate(columns)}


def rejection_figures(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle, comparison: RejectionComparison
) -> dict[str, tuple[dict, str]]:
    """Both charts of the page with their captions: ``{"proposals", "envelope"}``."""
    return {
        "proposals": proposals_figure(comparison, style),
        "envelope": envelope_figure(labels, step, comparison.classic.plan, style),
    }
