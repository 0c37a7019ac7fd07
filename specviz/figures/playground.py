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
    SIDE_MARGIN,
    ChartStyle,
    figure,
    label_gap,
    layout,
    percent,
    slot_width,
    text_lines,
    text_width,
    token_axis,
)
from specviz.one_token import acceptance_probs, rejection_mass, residual, token_balance

#: Below this the bucket is rounding noise (two equal vectors built by different sums), not signal.
EMPTY_BUCKET = 1e-12

_STATUS = {1: palette.OVER, -1: palette.UNDER, 0: palette.BALANCED}


def status_notes(
    p: np.ndarray, q: np.ndarray, short: bool = False, icon_size: int | None = None
) -> list[str]:
    """Per-token tick notes: an icon and a word (never colour alone), coloured as a bonus in the
    role's dark text shade. ``short``: the icon alone (``icon_size`` px), for crowded axes; the
    chart's title says what the icons mean."""
    notes = []
    for sign in token_balance(p, q):
        status = _STATUS[int(sign)]
        css = f"color:{palette.STATUS_ROLE[status].text_color}"
        icon = palette.STATUS_ICON[status]
        if short and icon_size:
            css += f";font-size:{icon_size}px"
        note = icon if short else f"{icon} {status.split('-')[0]}"
        notes.append(f"<span style='{css}'>{note}</span>")
    return notes


def bar(name: str, y: np.ndarray, role: palette.Role, style: ChartStyle, **extra: object) -> dict:
    """A bar trace in a role's colour and pattern, at x = 0..V-1.

    Numbers printed on it stay horizontal: where they do not fit they are hidden (the layout's
    ``uniformtext``), never turned on their side.
    """
    marker: dict = {
        "color": role.color,
        "line": {"color": palette.INK if role.pattern else role.color, "width": 1},
    }
    if role.pattern:
        # "overlay": the pattern is drawn over the role's colour (the default would replace the
        # colour with a white background, leaving hatching alone to tell the roles apart).
        marker["pattern"] = {
            "shape": role.pattern,
            "fgcolor": palette.INK,
            "fgopacity": 0.45,
            "fillmode": "overlay",
        }
    return {
        "type": "bar",
        "name": name,
        "x": list(range(len(y))),
        "y": [float(v) for v in y],
        "marker": marker,
        "textfont": {"size": style.text_size},
        "textangle": 0,
        "cliponaxis": False,
        **extra,
    }


def inside_text(role: palette.Role, style: ChartStyle) -> dict:
    """Numbers inside a bar: dark ink (every fill is light enough for it), haloed in the fill's
    colour so that a pattern's lines stop short of the digits."""
    halo = ", ".join([f"0 0 2px {role.color}"] * 4) if role.pattern else "none"
    return {"color": palette.INK, "size": style.text_size, "shadow": halo, "weight": 600}


def text_row(
    x: Sequence[float], y: Sequence[float], text: list[str], style: ChartStyle, lift: float = 0
) -> dict:
    """A row of labels drawn above points (numbers printed over the bars), ``lift`` px higher
    (clear of a thick line drawn at the same height)."""
    row = {
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
    if lift:
        # Plotly sets text off by a marker's radius: an invisible marker of that radius lifts it.
        row |= {"mode": "markers+text", "marker": {"size": 2 * lift, "opacity": 0}}
    return row


def row_fits(text: Sequence[str], heights: Sequence[float], top: float, style: ChartStyle) -> bool:
    """Whether a :func:`text_row` over a token axis can be read: neighbours at about the same
    height (judged on a plot half the figure's height, ``top`` the y range's top) must not touch.
    """
    slot = slot_width(style, len(text))
    if text and text_width(text[-1], style.text_size) / 2 > 0.6 * slot + SIDE_MARGIN:
        return False  # past the chart's right edge
    px_per_unit = 0.5 * style.height / top if top > 0 else 0.0
    for i in range(len(text) - 1):
        a, b = text[i], text[i + 1]
        tall = max(len(text_lines(a)), len(text_lines(b))) * 1.3 * style.text_size
        if abs(heights[i] - heights[i + 1]) * px_per_unit >= tall:
            continue  # one is well above the other
        wide = (text_width(a, style.text_size) + text_width(b, style.text_size)) / 2
        if wide + label_gap(style.text_size) > slot:
            return False
    return True


def fit_row(
    forms: Sequence[Sequence[str]], heights: Sequence[float], top: float, style: ChartStyle
) -> list[str]:
    """The most complete form of a row of labels that can be read, or no labels at all."""
    for text in forms:
        if row_fits(text, heights, top, style):
            return list(text)
    return [""] * len(heights)


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
        style.fill("Target {T} vs draft {D}:\n▼ over-sampled, ▲ under-sampled"),
        traces,
        barmode="group",
        bargap=0.25,
        bargroupgap=0.05,
        # Many words: the icon alone under each word (the title says what it means).
        xaxis=token_axis(
            labels, status_notes(p, q), style, status_notes(p, q, True, style.font_size)
        ),
        yaxis={"range": [0, float(max(p.max(), q.max())) * 1.18]},
    )
    return figure(traces, spec)


def acceptance_figure(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Acceptance probability min(1, p/q) per token, the rejected remainder stacked on top.

    The ratio p/q is printed over each bar: ``p/q = 1.50 → 1`` where there is room, ``p/q`` over
    the number where words are many, and only on hover (and in the caption) where even that would
    collide.
    """
    accept = acceptance_probs(p, q)
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
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """The picture proof: accepted mass min(p, q) plus bucket mass Z·r(x) lands exactly on p(x)."""
    x = np.arange(len(labels), dtype=float)
    kept = q * acceptance_probs(p, q)  # = min(p, q), the mass that arrives by acceptance
    topped = rejection_mass(p, q) * residual(p, q)  # = max(0, p - q), arriving from the bucket
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
        style.fill("Why it is exact:\nkept guesses + bucket refills = {T}, word by word"),
        traces,
        barmode="stack",
        bargap=1 - 2 * half,
        xaxis=token_axis(labels, style=style),
        yaxis={"range": [0, top]},
    )
    return figure(traces, spec)
