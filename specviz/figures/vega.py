"""The one chart mechanism: Vega-Lite specs written as plain dicts.

Every chart keeps its data in named top-level ``datasets`` and nothing else that changes with the
state: Streamlit then sends a new state as new data to the chart already on the page, and
Vega updates it in place (no remount, no flash). Anything that follows the data — an axis
range, a label, a number over a bar — is a data row or a Vega expression over data, never a
literal in the spec. The spec changes only with what the learner does not drag: the words, the
lettering, projector mode.

Specs are written directly (a dict costs microseconds; Altair's objects tens of milliseconds per
chart); the tests validate every one against Vega-Lite's schema with Altair.
"""

from __future__ import annotations

from collections.abc import Sequence

from specviz import palette
from specviz.figures.style import ChartStyle
from specviz.palette import Role

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
FONT = "Arial, 'Liberation Sans', Helvetica, sans-serif"

#: The second cue of a patterned role (Vega-Lite has no fill patterns): its bars' outline.
DASH: dict[str, list[int]] = {"/": [6, 3], ".": [2, 2], "x": [8, 3, 2, 3]}


def config(style: ChartStyle) -> dict:
    """Fonts and sizes for a screen or a projector, the house look of every chart."""
    size = style.font_size
    # Fonts named everywhere: Streamlit sets its own body font on axes and legends otherwise,
    # and the text fitting (:mod:`specviz.figures.fit`) measures Arial.
    fonts = {"labelFont": FONT, "titleFont": FONT}
    return {
        "font": FONT,
        "view": {"stroke": None, "continuousHeight": style.height},
        "axis": {
            **fonts,
            "labelFontSize": size,
            "titleFontSize": size,
            "labelColor": palette.INK,
            "titleColor": palette.INK,
            "gridColor": palette.GRID,
            "domainColor": palette.INK,
            "tickColor": palette.INK,
        },
        "legend": {
            **fonts,
            "labelFontSize": size,
            "titleFontSize": size,
            "labelLimit": 0,
            "orient": "top",
            "direction": "vertical",
            "symbolSize": 400 if style.projector else 200,
        },
        "title": {
            "font": FONT,
            "fontSize": style.title_size,
            "anchor": "start",
            "color": palette.INK,
        },
        "text": {"font": FONT, "fontSize": style.text_size, "color": palette.INK},
    }


def chart(
    style: ChartStyle,
    title: str | list[str],
    datasets: dict[str, list[dict]],
    layers: Sequence[dict],
    **top: object,
) -> dict:
    """A layered chart: ``layers`` read ``{"data": {"name": ...}}`` from ``datasets``.

    ``title`` (a list: one line each; Vega does not wrap titles) must not carry numbers that
    change with the state (that would remount the chart); ``top`` adds or overrides top-level
    properties (``height``, ``resolve``, ...).
    """
    return {
        "$schema": SCHEMA,
        "title": title,
        "config": config(style),
        "height": style.height,
        "datasets": datasets,
        "layer": list(layers),
        **top,
    }


def data(name: str) -> dict:
    """A layer's reference to a named dataset."""
    return {"name": name}


def word_x(style: ChartStyle, title: str | None = None) -> dict:
    """The x encoding of a chart with one group of bars per word: field ``word``, kept in the
    vocabulary's order by field ``i`` (so the order is data, not spec), labels horizontal and
    cut with an ellipsis where they would collide."""
    return {
        "field": "word",
        "type": "nominal",
        # "op": layers' data are combined for the axis, and a sort by field needs an aggregate.
        "sort": {"field": "i", "op": "min"},
        "title": title,
        "axis": {"labelAngle": 0, "labelOverlap": False, "labelLimit": style.width // 4},
    }


def share_y(title: str | None = None, field: str = "share") -> dict:
    """A y encoding of shares (0 to 1, shown as percent)."""
    return {
        "field": field,
        "type": "quantitative",
        "title": title,
        "axis": {"format": ".0%", "tickCount": 5},
        "scale": {"domainMin": 0},
    }


def role_bar(role: Role, style: ChartStyle, **mark: object) -> dict:
    """A bar mark in a role's colour, its pattern's second cue as a dashed ink outline."""
    dash = DASH.get(role.pattern)
    outline = (
        {"stroke": palette.INK, "strokeDash": dash, "strokeWidth": style.line_width / 2 + 0.5}
        if dash
        else {"stroke": role.color, "strokeWidth": 1}
    )
    return {"type": "bar", "fill": role.color, **outline, **mark}


def legend_scale(names: Sequence[str], roles: Sequence[Role]) -> dict:
    """A colour scale naming each role in the legend (the names carry the roles' icons)."""
    return {"domain": list(names), "range": [r.color for r in roles]}
