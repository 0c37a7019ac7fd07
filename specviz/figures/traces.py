"""Trace builders every bar chart shares: bars in a role's colour and pattern, numbers inside
or above them, exact values as outlines."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specviz import palette
from specviz.figures.fit import fit_row
from specviz.figures.numbers import percent
from specviz.figures.style import ChartStyle

#: Bars of a pair sit at [x - 0.4, x - 0.02] and [x + 0.02, x + 0.4]: explicit offsets, so that
#: the exact values can be drawn as outlines exactly over them.
BAR_WIDTH = 0.38
LEFT, RIGHT = -0.4, 0.02


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


def law_beside_target(
    labels: Sequence[str],
    p: np.ndarray,
    law: np.ndarray,
    role: palette.Role,
    style: ChartStyle,
    *,
    top: float,
    target_name: str,
    law_name: str,
    who: str,
) -> list[dict]:
    """The target's bars and, beside each, a rule's exact output for the same word: the pair of
    traces the Bug zoo and the Variants lab draw. Each bar's share is printed over it, read in
    pairs, and left out where neighbouring pairs would collide.

    ``target_name`` and ``law_name`` follow the role's icon in the legend; ``who`` names the
    rule in the hover text ("the mistake emits it 12%").
    """
    t = style.notation.target
    pairs = np.column_stack([p, law]).ravel()
    shares = fit_row([[percent(v) for v in pairs]], pairs, top * 1.22, style)
    common = {"width": BAR_WIDTH, "textposition": "outside", "customdata": list(labels)}
    return [
        bar(
            f"{palette.TARGET.icon} {target_name}",
            p,
            palette.TARGET,
            style,
            offset=LEFT,
            text=shares[0::2],
            hovertemplate=f"%{{customdata}}: target {t} = %{{y:.2%}}<extra></extra>",
            **common,
        ),
        bar(
            f"{role.icon} {law_name}",
            law,
            role,
            style,
            offset=RIGHT,
            text=shares[1::2],
            hovertemplate=f"%{{customdata}}: {who} emits it %{{y:.2%}}<extra></extra>",
            **common,
        ),
    ]


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


def outline(
    name: str, centres: Sequence[float], heights: Sequence[float], style: ChartStyle, dash: str
) -> dict:
    """Exact values as short horizontal strokes over bars (one broken line, one legend entry)."""
    half = BAR_WIDTH / 2 + 0.01
    xs: list[float | None] = []
    ys: list[float | None] = []
    for c, h in zip(centres, heights, strict=True):
        xs += [float(c) - half, float(c) + half, None]
        ys += [float(h), float(h), None]
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": xs,
        "y": ys,
        "line": {"color": palette.INK, "width": style.line_width + 1, "dash": dash},
        "hoverinfo": "skip",
        "connectgaps": False,
    }
