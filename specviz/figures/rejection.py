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
from specviz.figures.numbers import percent, significant, thousands
from specviz.figures.style import ChartStyle
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.rejection import ClassicPlan, PresetBounds, RejectionComparison
from specviz.text import say, titles

#: The chart of proposals per word has bars 1, 2, ..., and a last one for "this many or more".
_MOST_BARS = 10

#: The dash of exact values drawn over bars, and their key's stroke.
STROKE_DASH = [6, 3]
_STROKE_KEY = {"stroke": palette.INK, "strokeDash": STROKE_DASH}


def bound_text(bound: float) -> str:
    """``M`` as a learner reads it: 4, 2.5, 901, 1,000 or ∞."""
    if not math.isfinite(bound):
        return "∞"
    return thousands(bound) if bound >= 1000 else significant(bound)  # never 1e+03


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
    bound, more = bound_text(plan.bound), say("rejection.or_more", bars=measured.size)
    words = [str(k) for k in range(1, measured.size)] + [more]
    speculative = [float(k == 0) for k in range(measured.size)]
    rows = vega.rows(words, measured=measured, speculative=speculative, exact=exact, runs=plan.runs)
    law = say("rejection.law", bound=bound) if plan.runs else say("rejection.law_none")
    datasets = {"bars": rows, "law": [{"label": law, "line": plan.runs}]}
    title = say("rejection.proposals_title").split("\n")
    if not run.ran:
        classic = say("rejection.drew_nothing")
    else:
        shares = ", ".join(f"{k + 1}: {percent(v)}" for k, v in enumerate(measured))
        n, mean = thousands(run.output.size), significant(run.mean_proposals)
        classic = say("rejection.classic_shares", words=n, shares=shares, mean=mean, bound=bound)
    caption = say("rejection.proposals_alt", classic=classic)
    # The layers depend on nothing of the state. No numbers over the bars (up to 20 of them): the
    # caption lists every share.
    pair = [say("rejection.classic_measured"), say("rejection.speculative")]
    roles = (palette.REJECTED, palette.ACCEPTED)
    colour = vega.colour(pair, roles, style, **vega.legend_over(1, style))
    x = vega.word_x(style, say("rejection.proposals_axis"))

    def y(field: str) -> dict:
        share = vega.share_y(say("rejection.share_axis"), field)
        share["scale"]["domainMax"] = 1
        return share

    def bars(k: int, field: str) -> dict:
        offset = vega.pair_offset(pair, datum=pair[k])
        tooltip = vega.tooltip(("word", say("rejection.proposals")), (field, pair[k], percent))
        return {"transform": [vega.named(pair[k])]} | vega.role_bars(
            roles[k], colour, style, x=x, xOffset=offset, y=y(field), tooltip=tooltip
        )

    shown = vega.shown_if("datum.runs")
    geometric = vega.strokes(x, y("exact"), style, STROKE_DASH, vega.pair_span(0), opacity=shown)
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
    key = style.fill(say("rejection.no_envelope_key"))
    if plan.runs:
        # An envelope far above the target would squeeze its bars flat: cut the axis at three
        # times the target's top (the numbers over the strokes give every height).
        top = min(max(top, float(envelope.max()) * 1.15), 3 * float(p.max()))
        words = fit_row([[percent(v) if v <= top else "↑" for v in envelope]], envelope, top, style)
        key = style.fill(say("rejection.envelope_key", bound=bound_text(plan.bound)))
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
    title = style.fill(say("rejection.envelope_title")).split("\n")
    datasets = {"bars": rows, "envelope": [{"label": key, "line": plan.runs}]}
    datasets["yticks"] = vega.share_ticks(top * 1.1)
    texts = ([percent(v) for v in values] for values in (kept, refill, envelope))
    parts = "; ".join(
        say("rejection.envelope_word_m", word=w, kept=k, refill=r, envelope=e)
        if plan.runs
        else say("rejection.envelope_word", word=w, kept=k, refill=r)
        for w, k, r, e in zip(labels, *texts, strict=True)
    )
    if plan.runs:
        caption = say("rejection.envelope_alt", parts=parts, bound=bound_text(plan.bound))
    else:
        caption = say("rejection.envelope_alt_none", parts=parts)
    # Three rows over the house height: a title line, a legend row and the key.
    height = vega.height(style, 3)
    figure = vega.chart(style, title, datasets, _envelope_layers(style), height=height)
    return figure, style.fill(caption)


def _envelope_layers(style: ChartStyle) -> list[dict]:
    """The layers of :func:`envelope_figure`: nothing in them depends on the state."""
    pair = [style.fill(say("rejection.under_name")), style.fill(say("rejection.above_name"))]
    roles = (palette.ACCEPTED, palette.BUCKET)
    colour = vega.colour(pair, roles, style, **vega.legend_over(1, style))
    x, y, envelope = vega.word_x(style), vega.room_y("kept"), vega.room_y("drawn")

    def bars(k: int, field: str, title: str, **encoding: dict) -> dict:
        tooltip = vega.tooltip(("word", say("rejection.word")), (field, title, percent))
        return {"transform": [vega.named(pair[k])]} | vega.role_bars(
            roles[k], colour, style, x=x, y=y, tooltip=tooltip, **encoding
        )

    tip = vega.tooltip(
        ("word", say("rejection.word")), ("envelope", say("rejection.classic_envelope"), percent)
    )
    shown = vega.shown_if("datum.runs")
    cover = vega.strokes(x, envelope, style, STROKE_DASH, opacity=shown, tooltip=tip)
    over = {"baseline": "bottom", "dy": -(style.line_width + 3)}
    layers = [
        bars(0, "kept", say("rejection.kept_guesses")),
        bars(1, "refill", say("rejection.from_the_bucket"), y2={"field": "stacked"}),
        cover,
        vega.text("label", over, x=x, y=envelope),
    ]
    layers = [{"data": vega.data("bars")} | layer for layer in layers]
    return layers + vega.room("bars", "top") + vega.key_row("envelope", 0, style, _STROKE_KEY)


def verdict(comparison: RejectionComparison, labels: Sequence[str], notation: Notation) -> str:
    """The comparison in two sentences, with this pair's numbers."""
    plan, one = comparison.classic.plan, comparison.step
    alpha = percent(one.alpha)
    if not plan.runs:
        missing = ", ".join(f"'{labels[i]}'" for i in plan.blocked) or say("rejection.a_word")
        if plan.blocked.size > 1:
            return notation.fill(say("rejection.cannot_run_many", missing=missing, alpha=alpha))
        return notation.fill(say("rejection.cannot_run_one", missing=missing, alpha=alpha))
    draws, mean = significant(comparison.speculative_draws), significant(1 + one.z)
    if comparison.speculative_draws == 1:
        speculative = say("rejection.speculative_one", alpha=alpha, draws=draws, mean=mean)
    else:
        speculative = say("rejection.speculative_many", alpha=alpha, draws=draws, mean=mean)
    if plan.bound == 1:
        return notation.fill(say("rejection.classic_keeps_all", speculative=speculative))
    said = say(
        "rejection.classic_retries",
        acceptance=percent(plan.acceptance),
        bound=bound_text(plan.bound),
        measured=significant(comparison.classic.mean_proposals),
        speculative=speculative,
    )
    return notation.fill(said)


def cut_note(comparison: RejectionComparison) -> str | None:
    """Said when the classic loop ran fewer words than asked, and why (None otherwise)."""
    if not comparison.classic_cut:
        return None
    run = comparison.classic
    spent = int(run.proposals.sum())
    bound, ran, asked = bound_text(run.plan.bound), thousands(run.n), thousands(comparison.n)
    return say("rejection.cut", bound=bound, ran=ran, asked=asked, spent=thousands(spent))


def structure(comparison: RejectionComparison, notation: Notation) -> str:
    """The structural difference, with this pair's α and 1/M."""
    plan, one = comparison.classic.plan, comparison.step
    first = percent(plan.acceptance) if plan.runs else say("rejection.cannot_run_share")
    return notation.fill(say("rejection.structure", first=first, alpha=percent(one.alpha)))


def same_idea(comparison: RejectionComparison, notation: Notation) -> str:
    """Where the two really are the same idea."""
    return notation.fill(say("rejection.same_idea", bucket=percent(comparison.step.z)))


def presets_table(bounds: Sequence[PresetBounds], notation: Notation) -> dict[str, list[str]]:
    """The same comparison on each of the Playground's presets (exact numbers)."""
    keys = titles("rejection.column", ("preset", "alpha", "acceptance", "bound", "speculative"))
    cannot, infinite = say("rejection.cannot_run"), say("rejection.infinite")
    rows = [
        (row.title, percent(row.alpha), percent(1 / row.bound), bound_text(row.bound), "1")
        if math.isfinite(row.bound)
        else (row.title, percent(row.alpha), cannot, infinite, "1")
        for row in bounds
    ]
    return {name: [notation.fill(r[k]) for r in rows] for k, name in enumerate(keys.values())}


def rejection_figures(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle, comparison: RejectionComparison
) -> dict[str, tuple[dict, str]]:
    """Both charts of the page with their captions: ``{"proposals", "envelope"}``."""
    return {
        "proposals": proposals_figure(comparison, style),
        "envelope": envelope_figure(labels, step, comparison.classic.plan, style),
    }
