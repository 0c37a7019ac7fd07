"""Charts of one step: acceptance per word, the leftover bucket, the picture proof ("Why it's
exact" draws them; the Playground draws the same three live, in the browser: live.js).

Every function takes the vocabulary and the step (:class:`~specviz.one_token.OneTokenStep`) and
returns a Plotly figure; the numbers drawn are the step's, so a test can read them back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.figures.fit import fit_row, text_lines
from specviz.figures.numbers import percent
from specviz.figures.style import DEFAULT_STYLE, ChartStyle, figure, layout, token_axis
from specviz.figures.traces import bar, inside_text, text_row
from specviz.one_token import OneTokenStep


def acceptance_figure(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Acceptance probability min(1, p/q) per token, the rejected remainder stacked on top.

    The ratio p/q is printed over each bar: ``p/q = 1.50 → 1`` where there is room, ``p/q`` over
    the number where words are many, and only on hover (and in the caption) where even that would
    collide.
    """
    p, q, accept = step.p, step.q, step.accept
    proposed = q > 0
    hover, full, compact = [], [], []
    for pi, qi, ai in zip(p, q, accept, strict=True):
        if qi == 0:
            hover.append(style.fill("never proposed ({D} = 0)"))
            full.append(style.fill("never proposed<br>({D} = 0)"))
            compact.append(style.fill("{D} = 0"))
        else:
            ratio = f"{pi / qi:.2f}"
            hover.append(style.fill(f"{{T}}/{{D}} = {ratio}" + (" → 1" if ai >= 1 else "")))
            full.append(hover[-1])
            compact.append(style.fill(f"{{T}}/{{D}}<br>{ratio}"))
    ones = np.ones(len(labels))
    ratio_text = fit_row([full, compact], ones, 1.3, style)
    lines = max(len(text_lines(t)) for t in ratio_text) if any(ratio_text) else 0
    reject = np.where(proposed, 1.0 - accept, 0.0)
    traces = [
        bar(
            f"{palette.ACCEPTED.icon} accepted",
            accept,
            palette.ACCEPTED,
            style,
            text=[percent(a) if ok else "—" for a, ok in zip(accept, proposed, strict=True)],
            textposition="inside",
            insidetextanchor="middle",
            insidetextfont=inside_text(palette.ACCEPTED, style),
            customdata=hover,
            hovertemplate="P(accept) = %{y:.1%}<br>%{customdata}<extra></extra>",
        ),
        bar(
            f"{palette.REJECTED.icon} rejected (bounced to the bucket)",
            reject,
            palette.REJECTED,
            style,
            text=[percent(r) if r > 0 else "" for r in reject],
            textposition="inside",
            insidetextanchor="middle",
            insidetextfont=inside_text(palette.REJECTED, style),
            hovertemplate="P(reject) = %{y:.1%}<extra></extra>",
        ),
        # The ratio sits above each bar, so the rule min(1, p/q) can be read off word by word.
        text_row(range(len(labels)), ones, ratio_text, style, lift=2),
    ]
    spec = layout(
        style,
        style.fill("A proposed word is kept with probability min(1, {T}/{D})"),
        traces,
        barmode="stack",
        bargap=0.35,
        xaxis=token_axis(labels, style=style),
        yaxis={"range": [0, 1.06 + 0.14 * lines], "tickvals": [0, 0.25, 0.5, 0.75, 1]},
    )
    return figure(traces, spec)


def bucket_figure(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """The leftover bucket: the residual r, titled with its size Z = P(rejection)."""
    z, r = step.z, step.residual
    empty = z == 0  # the one rounding rule already made a bucket of rounding noise empty
    traces = [
        bar(
            f"{palette.BUCKET.icon} leftover bucket r",
            r,
            palette.BUCKET,
            style,
            text=[percent(v) if v > 0 else "" for v in r],
            textposition="outside",
            hovertemplate="r = %{y:.1%}<extra></extra>",
            showlegend=True,
        )
    ]
    # The size gets a line of its own: it is the point of the chart.
    title = style.fill(
        f"Leftover bucket r = max(0, {{T}} − {{D}}) / Z<br>Its size Z = {percent(z)} = P(rejection)"
    )
    extra: dict = {"yaxis": {"range": [0, 1 if empty else float(r.max()) * 1.18]}}
    if empty:
        extra["annotations"] = [
            {
                "text": style.fill(
                    "The bucket is empty: {T} = {D},<br>no proposal is ever rejected."
                ),
                "x": 0.5,
                "y": 0.5,
                "xref": "paper",
                "yref": "paper",
                "showarrow": False,
                "font": {"size": style.font_size + 2},
            }
        ]
    spec = layout(style, title, traces, xaxis=token_axis(labels, style=style), **extra)
    return figure(traces, spec)


def proof_figure(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """The picture proof: accepted mass min(p, q) plus bucket mass Z·r(x) lands exactly on p(x)."""
    x = np.arange(len(labels), dtype=float)
    p, kept, topped = step.p, step.kept, step.refill
    half = 0.35  # half a bar
    # The target's outline as one broken line: a flat segment at height p(x) over each bar, wider
    # than the bar so that it shows where it lies on the bar's top edge.
    reach = 0.47
    seg_x = np.column_stack([x - reach, x + reach, np.full(len(x), np.nan)]).ravel()
    seg_y = np.column_stack([p, p, np.full(len(x), np.nan)]).ravel()
    outline_x = [None if np.isnan(v) else float(v) for v in seg_x]
    outline_y = [None if np.isnan(v) else float(v) for v in seg_y]
    top = float(p.max()) * 1.2
    width = style.line_width + 1
    totals = fit_row([[f"= {percent(v)}" for v in p], [percent(v) for v in p]], p, top, style)
    traces = [
        bar(
            style.fill(f"{palette.ACCEPTED.icon} kept guesses: min({{T}}, {{D}})"),
            kept,
            palette.ACCEPTED,
            style,
            hovertemplate="kept guesses: %{y:.1%}<extra></extra>",
        ),
        bar(
            f"{palette.BUCKET.icon} bucket refills: Z·r",
            topped,
            palette.BUCKET,
            style,
            hovertemplate="bucket refills: %{y:.1%}<extra></extra>",
        ),
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"{palette.TARGET.icon} target {style.notation.target} (dashed outline)",
            "x": outline_x,
            "y": outline_y,
            # Dashes in px, short enough that the legend's 30 px sample shows two of them.
            "line": {"color": palette.INK, "width": width, "dash": f"{2 * width}px,{width + 1}px"},
            "hoverinfo": "skip",
            "connectgaps": False,
        },
        text_row(x, p, totals, style, lift=style.line_width / 2 + 3),
    ]
    spec = layout(
        style,
        style.fill("Why it is exact:\nkept + refilled = {T}, word by word"),
        traces,
        barmode="stack",
        bargap=1 - 2 * half,
        xaxis=token_axis(labels, style=style),
        yaxis={"range": [0, top]},
    )
    return figure(traces, spec)
