"""Shared look of every chart: sizes for screen and projector, axes, transitions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import plotly.graph_objects as go

from specviz.palette import GRID, INK, Notation

#: Bars glide from the old state to the new one in the browser, not on the server.
TRANSITION = {"duration": 450, "easing": "cubic-in-out"}


@dataclass(frozen=True)
class ChartStyle:
    """Sizes and lettering of a chart.

    Parameters
    ----------
    projector : bool
        Large type and thick lines, readable from the back of a lecture hall.
    notation : Notation
        Which letters name the target and the draft.
    """

    projector: bool = False
    notation: Notation = field(default_factory=Notation)

    @property
    def font_size(self) -> int:
        """Base font size in px."""
        return 22 if self.projector else 14

    @property
    def line_width(self) -> float:
        """Width of outlines and reference lines in px."""
        return 4.0 if self.projector else 2.0

    @property
    def height(self) -> int:
        """Figure height in px."""
        return 480 if self.projector else 360

    @property
    def text_size(self) -> int:
        """Size of the numbers printed on bars."""
        return 20 if self.projector else 12

    def fill(self, template: str) -> str:
        """Put the target/draft letters into ``template`` (``{T}``, ``{D}``)."""
        return self.notation.fill(template)


DEFAULT_STYLE = ChartStyle()


def token_axis(labels: Sequence[str], notes: Sequence[str] | None = None) -> dict:
    """A numeric x axis labelled with the vocabulary (numeric so repeated words stay apart)."""
    text = (
        list(labels)
        if notes is None
        else [f"{w}<br>{n}" for w, n in zip(labels, notes, strict=True)]
    )
    return {
        "tickmode": "array",
        "tickvals": list(range(len(labels))),
        "ticktext": text,
        "range": [-0.6, len(labels) - 0.4],
        "showgrid": False,
        "fixedrange": True,
    }


def layout(style: ChartStyle, title: str, **overrides: object) -> dict:
    """The house layout (title, fonts, legend on top, transitions) as a plain dict.

    Figures are assembled as dicts and validated once by ``go.Figure``: building them through
    ``update_layout`` and trace constructors costs several times more, on every slider release.
    """
    spec: dict = {
        "title": {
            "text": title,
            "x": 0,
            "xanchor": "left",
            "xref": "container",
            "y": 0.985,
            "yref": "container",
            "yanchor": "top",
            "font": {"size": style.font_size + 4},
        },
        "template": "simple_white",
        "font": {"size": style.font_size, "color": INK},
        "height": style.height,
        "margin": {"l": 10, "r": 10, "t": 4 * style.font_size + 40, "b": 10},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.04, "x": 0},
        "hoverlabel": {"font": {"size": style.font_size}},
        "transition": TRANSITION,
        "uniformtext": {"minsize": style.text_size - 2, "mode": "hide"},
        # Keep the learner's legend clicks across reruns; the data still updates.
        "uirevision": "keep",
        "yaxis": {
            "tickformat": ".0%",
            "gridcolor": GRID,
            "showgrid": True,
            "rangemode": "tozero",
            "fixedrange": True,
            "automargin": True,
        },
    }
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(spec.get(key), dict):
            spec[key] = {**spec[key], **value}
        else:
            spec[key] = value
    return spec


def figure(data: list[dict], layout_spec: dict) -> go.Figure:
    """Validate a dict-built figure once and return it as a ``go.Figure``."""
    return go.Figure({"data": data, "layout": layout_spec})


def percent(x: float) -> str:
    """A probability as a percentage with the precision a reader needs (no fake zeros)."""
    value = 100 * float(x)
    if abs(value - round(value)) < 1e-9:
        return f"{round(value)}%"
    # As few decimals as needed, but never print 0% or 100% for something that is neither.
    for decimals in range(1, 7):
        text = f"{value:.{decimals}f}"
        if float(text) not in (0.0, 100.0):
            return f"{text}%"
    return f"{value:.2g}%"
