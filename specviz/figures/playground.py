"""The Playground's four linked charts: p vs q, acceptance, the leftover bucket, the picture proof.

Every function takes the vocabulary and the two (validated) distributions and returns a Plotly
figure; the numbers drawn are the core's, so a test can read them back from the figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.figures.style import (
    DEFAULT_STYLE,
    ChartStyle,
    figure,
    layout,
    percent,
    token_axis,
)
from specviz.one_token import acceptance_probs, rejection_mass, residual, token_balance

#: Below this the bucket is rounding noise (two equal vectors built by different sums), not signal.
EMPTY_BUCKET = 1e-12

_STATUS = {1: palette.OVER, -1: palette.UNDER, 0: palette.BALANCED}


def status_notes(p: np.ndarray, q: np.ndarray) -> list[str]:
    """Per-token tick notes: an icon and a word (never colour alone), coloured as a bonus."""
    notes = []
    for sign in token_balance(p, q):
        status = _STATUS[int(sign)]
        color = palette.STATUS_ROLE[status].color
        word = status.split("-")[0]
        notes.append(f"<span style='color:{color}'>{palette.STATUS_ICON[status]} {word}</span>")
    return notes


def bar(name: str, y: np.ndarray, role: palette.Role, style: ChartStyle, **extra: object) -> dict:
    """A bar trace in a role's colour and pattern, at x = 0..V-1."""
    marker: dict = {
        "color": role.color,
        "line": {"color": palette.INK if role.pattern else role.color, "width": 1},
    }
    if role.pattern:
        marker["pattern"] = {"shape": role.pattern, "fgcolor": palette.INK, "fgopacity": 0.45}
    return {
        "type": "bar",
        "name": name,
        "x": list(range(len(y))),
        "y": [float(v) for v in y],
        "marker": marker,
        "textfont": {"size": style.text_size},
        "cliponaxis": False,
        **extra,
    }


def text_row(x: Sequence[float], y: Sequence[float], text: list[str], style: ChartStyle) -> dict:
    """A row of labels drawn above points (numbers printed over the bars)."""
    return {
        "type": "scatter",
        "mode": "text",
        "x": [float(v) for v in x],
        "y": [float(v) for v in y],
        "text": text,
        "textposition": "top center",
        "textfont": {"size": style.text_size},
        "showlegend": False,
        "hoverinfo": "skip",
        "cliponaxis": False,
    }


def distributions_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Target and draft side by side, each token marked over-, under-sampled or balanced."""
    target, draft = style.notation.target, style.notation.draft
    traces = [
        bar(
            f"{palette.TARGET.icon} target {target}",
            p,
            palette.TARGET,
            style,
            text=[percent(v) for v in p],
            textposition="outside",
            customdata=list(labels),
            hovertemplate=f"%{{customdata}}<br>target {target} = %{{y:.1%}}<extra></extra>",
        ),
        bar(
            f"{palette.DRAFT.icon} draft {draft}",
            q,
            palette.DRAFT,
            style,
            text=[percent(v) for v in q],
            textposition="outside",
            customdata=list(labels),
            hovertemplate=f"%{{customdata}}<br>draft {draft} = %{{y:.1%}}<extra></extra>",
        ),
    ]
    spec = layout(
        style,
        style.fill("Target {T} vs draft {D}: ▼ over-sampled, ▲ under-sampled"),
        barmode="group",
        bargap=0.25,
        bargroupgap=0.05,
        xaxis=token_axis(labels, status_notes(p, q)),
        yaxis={"range": [0, float(max(p.max(), q.max())) * 1.18]},
    )
    return figure(traces, spec)


def acceptance_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Acceptance probability min(1, p/q) per token, the rejected remainder stacked on top."""
    accept = acceptance_probs(p, q)
    proposed = q > 0
    ratio_text = []
    for pi, qi, ai in zip(p, q, accept, strict=True):
        if qi == 0:
            ratio_text.append(style.fill("never proposed ({D} = 0)"))
        elif ai >= 1:
            ratio_text.append(style.fill(f"{{T}}/{{D}} = {pi / qi:.2f} → 1"))
        else:
            ratio_text.append(style.fill(f"{{T}}/{{D}} = {pi / qi:.2f}"))
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
            insidetextfont={"color": palette.INK, "size": style.text_size},
            customdata=ratio_text,
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
            insidetextfont={"color": palette.INK, "size": style.text_size},
            hovertemplate="P(reject) = %{y:.1%}<extra></extra>",
        ),
        # The ratio sits above each bar, so the rule min(1, p/q) can be read off word by word.
        text_row(range(len(labels)), np.ones(len(labels)), ratio_text, style),
    ]
    spec = layout(
        style,
        style.fill("A proposed word is kept with probability min(1, {T}/{D})"),
        barmode="stack",
        bargap=0.35,
        xaxis=token_axis(labels),
        yaxis={"range": [0, 1.18], "tickvals": [0, 0.25, 0.5, 0.75, 1]},
    )
    return figure(traces, spec)


def bucket_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """The leftover bucket: the residual r, titled with its size Z = P(rejection)."""
    z = rejection_mass(p, q)
    empty = z <= EMPTY_BUCKET
    r = np.zeros_like(p) if empty else residual(p, q)
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
    title = style.fill(
        f"Leftover bucket r = max(0, {{T}} − {{D}}) / Z; its size Z = {percent(z)} = P(reject)"
    )
    extra: dict = {"yaxis": {"range": [0, 1 if empty else float(r.max()) * 1.18]}}
    if empty:
        extra["annotations"] = [
            {
                "text": style.fill("The bucket is empty: {T} = {D}, no proposal is ever rejected."),
                "x": 0.5,
                "y": 0.5,
                "xref": "paper",
                "yref": "paper",
                "showarrow": False,
                "font": {"size": style.font_size + 2},
            }
        ]
    return figure(traces, layout(style, title, xaxis=token_axis(labels), **extra))


def proof_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """The picture proof: accepted mass min(p, q) plus bucket mass Z·r(x) lands exactly on p(x)."""
    x = np.arange(len(labels), dtype=float)
    kept = q * acceptance_probs(p, q)  # = min(p, q), the mass that arrives by acceptance
    topped = rejection_mass(p, q) * residual(p, q)  # = max(0, p - q), arriving from the bucket
    half = 0.4
    # The target's outline as one broken line: a flat segment over each bar at height p(x).
    seg_x = np.column_stack([x - half, x + half, np.full(len(x), np.nan)]).ravel()
    seg_y = np.column_stack([p, p, np.full(len(x), np.nan)]).ravel()
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
            "x": [None if np.isnan(v) else float(v) for v in seg_x],
            "y": [None if np.isnan(v) else float(v) for v in seg_y],
            "line": {"color": palette.INK, "width": style.line_width, "dash": "dash"},
            "hoverinfo": "skip",
            "connectgaps": False,
        },
        text_row(x, p, [f"= {percent(v)}" for v in p], style),
    ]
    spec = layout(
        style,
        style.fill("Why it is exact: kept guesses + bucket refills = {T}, word by word"),
        barmode="stack",
        bargap=1 - 2 * half,
        xaxis=token_axis(labels),
        yaxis={"range": [0, float(p.max()) * 1.2]},
    )
    return figure(traces, spec)
