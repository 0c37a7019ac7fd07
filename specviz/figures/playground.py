"""The Playground's four linked charts: p vs q, acceptance, the leftover bucket, the picture proof.

Every function takes the vocabulary and the two (validated) distributions and returns a Plotly
figure; the numbers drawn are the core's, so a test can read them back from the figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.figures.style import DEFAULT_STYLE, ChartStyle, base_layout, percent, token_axis
from specviz.one_token import (
    acceptance_probs,
    rejection_mass,
    residual,
    token_balance,
)

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


def _bar(name: str, x, y, role: palette.Role, style: ChartStyle, **kwargs) -> go.Bar:
    line_color = role.color if not role.pattern else palette.INK
    return go.Bar(
        name=name,
        x=x,
        y=y,
        marker={
            "color": role.color,
            "line": {"color": line_color, "width": style.line_width / 2},
            "pattern": {"shape": role.pattern, "fgcolor": palette.INK, "fgopacity": 0.45}
            if role.pattern
            else {},
        },
        textfont={"size": style.text_size},
        cliponaxis=False,
        **kwargs,
    )


def distributions_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Target and draft side by side, each token marked over-, under-sampled or balanced."""
    x = np.arange(len(labels))
    target, draft = style.notation.target, style.notation.draft
    fig = go.Figure(
        [
            _bar(
                f"{palette.TARGET.icon} target {target}",
                x,
                p,
                palette.TARGET,
                style,
                text=[percent(v) for v in p],
                textposition="outside",
                hovertemplate=f"%{{customdata}}<br>target {target} = %{{y:.1%}}<extra></extra>",
                customdata=list(labels),
                offsetgroup="target",
            ),
            _bar(
                f"{palette.DRAFT.icon} draft {draft}",
                x,
                q,
                palette.DRAFT,
                style,
                text=[percent(v) for v in q],
                textposition="outside",
                hovertemplate=f"%{{customdata}}<br>draft {draft} = %{{y:.1%}}<extra></extra>",
                customdata=list(labels),
                offsetgroup="draft",
            ),
        ]
    )
    fig.update_layout(barmode="group", bargap=0.25, bargroupgap=0.05)
    fig.update_xaxes(token_axis(labels, status_notes(p, q)))
    base_layout(fig, style, style.fill("What each model says: target {T} vs draft {D}"), "")
    fig.update_yaxes(range=[0, max(p.max(), q.max()) * 1.18])
    return fig


def acceptance_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Acceptance probability min(1, p/q) per token, the rejected remainder stacked on top."""
    x = np.arange(len(labels))
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
    fig = go.Figure(
        [
            _bar(
                f"{palette.ACCEPTED.icon} accepted",
                x,
                accept,
                palette.ACCEPTED,
                style,
                text=[percent(a) if ok else "—" for a, ok in zip(accept, proposed, strict=True)],
                textposition="inside",
                insidetextanchor="middle",
                customdata=ratio_text,
                hovertemplate="P(accept) = %{y:.1%}<br>%{customdata}<extra></extra>",
                opacity=1.0,
            ),
            _bar(
                f"{palette.REJECTED.icon} rejected (bounced to the bucket)",
                x,
                reject,
                palette.REJECTED,
                style,
                text=[percent(r) if r > 0 else "" for r in reject],
                textposition="inside",
                insidetextanchor="middle",
                hovertemplate="P(reject) = %{y:.1%}<extra></extra>",
            ),
        ]
    )
    # The ratio sits above each bar, so the rule min(1, p/q) can be read off token by token.
    fig.add_trace(
        go.Scatter(
            x=x,
            y=np.full(len(x), 1.0),
            mode="text",
            text=ratio_text,
            textposition="top center",
            textfont={"size": style.text_size},
            showlegend=False,
            hoverinfo="skip",
            cliponaxis=False,
        )
    )
    fig.update_layout(barmode="stack", bargap=0.35)
    fig.update_xaxes(token_axis(labels))
    base_layout(
        fig,
        style,
        style.fill("When the draft proposes a word: accepted with probability min(1, {T}/{D})"),
        "",
    )
    fig.update_yaxes(range=[0, 1.18], tickvals=[0, 0.25, 0.5, 0.75, 1])
    return fig


def bucket_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """The leftover bucket: the residual r, titled with its size Z = P(rejection)."""
    x = np.arange(len(labels))
    z = rejection_mass(p, q)
    r = residual(p, q) if z > EMPTY_BUCKET else np.zeros_like(p)
    fig = go.Figure(
        _bar(
            f"{palette.BUCKET.icon} leftover bucket r",
            x,
            r,
            palette.BUCKET,
            style,
            text=[percent(v) if v > 0 else "" for v in r],
            textposition="outside",
            hovertemplate="r = %{y:.1%}<extra></extra>",
            showlegend=True,
        )
    )
    fig.update_xaxes(token_axis(labels))
    title = style.fill(
        f"Leftover bucket r = max(0, {{T}} − {{D}}) / Z — size Z = {percent(z)} = P(rejection)"
    )
    base_layout(fig, style, title, "")
    if z <= EMPTY_BUCKET:
        fig.add_annotation(
            text=style.fill("The bucket is empty: {T} = {D}, so no proposal is ever rejected."),
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
            showarrow=False,
            font={"size": style.font_size + 2},
        )
        fig.update_yaxes(range=[0, 1])
    else:
        fig.update_yaxes(range=[0, r.max() * 1.18])
    return fig


def proof_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """The picture proof: accepted mass min(p, q) plus bucket mass Z·r(x) lands exactly on p(x)."""
    x = np.arange(len(labels))
    z = rejection_mass(p, q)
    kept = q * acceptance_probs(p, q)  # = min(p, q), the mass that arrives by acceptance
    topped = z * residual(p, q)  # = max(0, p - q), the mass that arrives from the bucket
    target = style.notation.target
    fig = go.Figure(
        [
            _bar(
                style.fill(f"{palette.ACCEPTED.icon} accepted draft: min({{T}}, {{D}})"),
                x,
                kept,
                palette.ACCEPTED,
                style,
                hovertemplate="accepted: %{y:.1%}<extra></extra>",
            ),
            _bar(
                f"{palette.BUCKET.icon} from the bucket: Z·r",
                x,
                topped,
                palette.BUCKET,
                style,
                hovertemplate="from the bucket: %{y:.1%}<extra></extra>",
            ),
        ]
    )
    # The target's outline as one broken line: a flat segment over each bar at height p(x).
    half = 0.4
    seg_x = np.column_stack([x - half, x + half, np.full(len(x), np.nan)]).ravel()
    seg_y = np.column_stack([p, p, np.full(len(x), np.nan)]).ravel()
    fig.add_trace(
        go.Scatter(
            x=seg_x,
            y=seg_y,
            mode="lines",
            name=f"{palette.TARGET.icon} target {target} (outline)",
            line={"color": palette.INK, "width": style.line_width, "dash": "dash"},
            hoverinfo="skip",
            connectgaps=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=p,
            mode="text",
            text=[f"= {percent(v)}" for v in p],
            textposition="top center",
            textfont={"size": style.text_size},
            showlegend=False,
            hoverinfo="skip",
            cliponaxis=False,
        )
    )
    fig.update_layout(barmode="stack", bargap=1 - 2 * half)
    fig.update_xaxes(token_axis(labels))
    base_layout(
        fig,
        style,
        style.fill("Why it is exact: accepted + bucket = {T}, token by token"),
        "",
    )
    fig.update_yaxes(range=[0, p.max() * 1.2])
    return fig
