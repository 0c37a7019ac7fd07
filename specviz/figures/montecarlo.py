"""The Monte Carlo page's bar charts and their alt text: what came out, and where it came from.

Bars are Plotly figures built as plain dicts (validated once, see :mod:`specviz.figures.style`).
Every number drawn or written is the run's (:mod:`specviz.runs`) or the step's, so a test can
read it back from the figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.figures.convergence import monte_carlo_chart_caption, monte_carlo_spec
from specviz.figures.fit import fit_row
from specviz.figures.numbers import count, percent
from specviz.figures.style import (
    DEFAULT_STYLE,
    ChartStyle,
    figure,
    layout,
    pair_layout,
    share_axis,
    token_axis,
)
from specviz.figures.traces import BAR_WIDTH, LEFT, RIGHT, bar, inside_text, outline, text_row
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.runs import MonteCarloRun
from specviz.stats import TVBand


def histogram_figure(
    labels: Sequence[str],
    step: OneTokenStep,
    run: MonteCarloRun,
    style: ChartStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Emitted words against the target, the draft's proposals against the draft.

    Left bar of each word: how often it was emitted (should match ``p``); right bar: how often the
    draft proposed it (matches ``q`` — the draft alone would be biased). The exact ``p`` and ``q``
    are drawn as outlines over the bars.
    """
    n, p, q = run.n, step.p, step.q
    emitted = run.counts.output_counts / n
    proposed = run.counts.draft_counts / n
    x = np.arange(len(labels), dtype=float)
    left, right = x + LEFT + BAR_WIDTH / 2, x + RIGHT + BAR_WIDTH / 2
    t, d = style.notation.target, style.notation.draft
    common = {"width": BAR_WIDTH, "customdata": list(labels)}
    traces = [
        bar(
            f"{palette.TARGET.icon} emitted words",
            emitted,
            palette.TARGET,
            style,
            offset=LEFT,
            hovertemplate="%{customdata}: emitted %{y:.2%} of the runs<extra></extra>",
            **common,
        ),
        bar(
            f"{palette.DRAFT.icon} draft's proposals",
            proposed,
            palette.DRAFT,
            style,
            offset=RIGHT,
            hovertemplate="%{customdata}: proposed in %{y:.2%} of the runs<extra></extra>",
            **common,
        ),
        outline(f"exact target {t}", left, p, style, "dash"),
        outline(f"exact draft {d}", right, q, style, "dot"),
    ]
    top = float(max(emitted.max(), proposed.max(), p.max(), q.max()))
    # The shares sit above the bar or its outline, whichever is higher: never crossed out; in
    # pairs, so the row is read left bar, right bar, next word.
    x = np.column_stack([left, right]).ravel()
    heights = np.column_stack([np.maximum(emitted, p), np.maximum(proposed, q)]).ravel()
    shares = [percent(v) for v in np.column_stack([emitted, proposed]).ravel()]
    traces.append(text_row(x, heights, fit_row([shares], heights, top * 1.22, style), style))
    title = f"Emitted words ≈ target {t}; proposals ≈ draft {d}"
    return figure(traces, pair_layout(style, title, labels, top))


def histogram_caption(
    labels: Sequence[str], step: OneTokenStep, run: MonteCarloRun, notation: Notation
) -> str:
    """Every word's emitted and proposed share next to its exact p and q."""
    p, q = step.p, step.q
    emitted = run.counts.output_counts / run.n
    proposed = run.counts.draft_counts / run.n
    parts = [
        f"{w}: emitted {percent(e)} (target {percent(pi)}), proposed {percent(r)} "
        f"(draft {percent(qi)})"
        for w, e, pi, r, qi in zip(labels, emitted, p, proposed, q, strict=True)
    ]
    return notation.fill(
        f"Grouped bars after N = {count(run.n, 'run')}, exact values as outlines. "
        + "; ".join(parts)
        + "."
    )


def breakdown_figure(
    labels: Sequence[str], step: OneTokenStep, run: MonteCarloRun, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Where every emitted word came from: accepted drafts stacked under bucket refills."""
    n, p = run.n, step.p
    accepted = run.counts.accepted_counts / n
    bucket = run.counts.residual_counts / n
    x = np.arange(len(labels), dtype=float)
    stack = accepted + bucket
    top = float(max(stack.max(), p.max()))
    above = np.maximum(stack, p)
    inside = fit_row([[percent(v) if v > 0 else "" for v in accepted]], accepted / 2, top, style)
    # The whole bar's share over it (the split is in the hover and the caption): a number over
    # a stack reads as the stack's total.
    totals = [percent(v) if v > 0 else "" for v in stack]
    traces = [
        bar(
            f"{palette.ACCEPTED.icon} accepted drafts",
            accepted,
            palette.ACCEPTED,
            style,
            width=0.6,
            text=inside,
            textposition="inside",
            insidetextanchor="middle",
            insidetextfont=inside_text(palette.ACCEPTED, style),
            textangle=0,
            customdata=[f"{c:,}" for c in run.counts.accepted_counts],
            hovertemplate="accepted drafts: %{customdata} runs (%{y:.2%})<extra></extra>",
        ),
        bar(
            f"{palette.BUCKET.icon} from the bucket",
            bucket,
            palette.BUCKET,
            style,
            width=0.6,
            customdata=[f"{c:,}" for c in run.counts.residual_counts],
            hovertemplate="from the bucket: %{customdata} runs (%{y:.2%})<extra></extra>",
        ),
        outline(f"exact target {style.notation.target}", x, p, style, "dash"),
        # Numbers sit above the stack: none is printed over the dotted fill.
        text_row(x, above, fit_row([totals], above, top * 1.22, style), style),
    ]
    spec = layout(
        style,
        "Where each emitted word came from",
        barmode="stack",
        xaxis=token_axis(labels, style=style),
        yaxis=share_axis(top),
    )
    return figure(traces, spec)


def breakdown_caption(labels: Sequence[str], run: MonteCarloRun) -> str:
    """Accepted and bucket counts of every word."""
    counts = run.counts
    parts = [
        f"{w}: {a:,} accepted drafts + {b:,} from the bucket"
        for w, a, b in zip(labels, counts.accepted_counts, counts.residual_counts, strict=True)
    ]
    total_bucket = int(counts.residual_counts.sum())
    return (
        f"Stacked bars per word, as shares of {count(run.n, 'run')}. " + "; ".join(parts) + ". "
        f"In all, {count(total_bucket, 'run')} ({percent(total_bucket / run.n)}) "
        "were refilled from the "
        "bucket."
    )


def monte_carlo_figures(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle,
    runs: Sequence[MonteCarloRun],
    band: TVBand,
) -> dict[str, tuple[go.Figure | dict, str]]:
    """Every chart of the Monte Carlo page with its alt text: ``{"hist", "source", "tv"}``.

    The convergence chart comes as a Vega-Lite dict: ``st.altair_chart`` would run Altair's schema
    validation (~60 ms) on every rerun, while a cached dict costs nothing. The dict is written
    directly (:func:`~specviz.figures.convergence.monte_carlo_spec`, the same JSON as
    ``monte_carlo_chart(...).to_dict(validate=False)`` without Altair's 25-90 ms of copying); the
    tests validate the Altair chart.
    """
    run, notation = runs[0], style.notation
    return {
        "hist": (
            histogram_figure(labels, step, run, style),
            histogram_caption(labels, step, run, notation),
        ),
        "source": (breakdown_figure(labels, step, run, style), breakdown_caption(labels, run)),
        "tv": (
            monte_carlo_spec(runs, band, style),
            monte_carlo_chart_caption(runs, band, notation),
        ),
    }
