"""Shared look of every chart: sizes for screen and projector, the house layout, token axes.

Figures are assembled as dicts and validated once by ``go.Figure`` (:func:`figure`); building
them through ``update_layout`` and trace constructors costs several times more, on every slider
release. Where text goes and whether it fits is :mod:`specviz.figures.fit`'s job.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import plotly.graph_objects as go

from specviz.figures.fit import (
    FONT_FAMILY,
    SIDE_MARGIN,
    legend_rows,
    text_lines,
    tick_words,
    wrap,
)
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
        return 420 if self.projector else 360

    @property
    def text_size(self) -> int:
        """Size of the numbers printed on bars."""
        return 22 if self.projector else 12

    @property
    def title_size(self) -> int:
        """Size of the chart title."""
        return self.font_size + 4

    @property
    def min_tick_size(self) -> int:
        """The smallest tick labels may shrink to when many words share the axis."""
        return 18 if self.projector else 11

    @property
    def width(self) -> int:
        """The narrowest width (px) the chart is drawn at: a phone's 390 px screen less the page's
        margins on screens; on a projector (1280 px or more, the menu folded away) the chart's
        column, less a little slack. Titles, tick labels and legends are laid out to fit it;
        wider, there is room to spare."""
        return 800 if self.projector else 350

    def fill(self, template: str) -> str:
        """Put the target/draft letters into ``template`` (``{T}``, ``{D}``)."""
        return self.notation.fill(template)


DEFAULT_STYLE = ChartStyle()


def token_axis(labels: Sequence[str], style: ChartStyle | None = None) -> dict:
    """A numeric x axis labelled with the vocabulary (numeric so repeated words stay apart).

    With a ``style``, the labels stay horizontal and are fitted side by side
    (:func:`tick_words`). Without one, Plotly lays the labels out (and may rotate them).
    """
    axis: dict = {
        "tickmode": "array",
        "tickvals": list(range(len(labels))),
        "range": [-0.6, len(labels) - 0.4],
        "showgrid": False,
        "fixedrange": True,
        "automargin": True,
    }
    words = list(labels)
    if style is not None:
        words, size = tick_words(labels, style)
        axis |= {"tickangle": 0, "tickfont": {"size": size}}
    axis["ticktext"] = words
    return axis


#: Space (px) above the title, and between title, legend and plot.
_PAD = 8


def legend_names(traces: Sequence[dict]) -> list[str]:
    """The names the legend of ``traces`` shows (none for a lone trace, as in Plotly)."""
    shown = [t["name"] for t in traces if t.get("name") and t.get("showlegend", True)]
    if len(shown) < 2 and not any(t.get("showlegend") for t in traces):
        return []  # Plotly draws no legend for a single trace unless asked to
    return shown


def layout(
    style: ChartStyle, title: str, traces: Sequence[dict] | None = None, **overrides: object
) -> dict:
    """The house layout (title, legend under it, fonts, transitions) as a plain dict.

    The title is wrapped to the chart's narrowest width (a Plotly title never wraps by itself);
    the legend sits in its own band between the title and the plot, and the top margin grows
    with the title's lines and the legend's rows. Pass the figure's ``traces`` so that the band is
    sized to their legend (without them it is sized for one row; Plotly still moves the plot down
    if the legend wraps to more rows in a narrower chart). A ``legend`` override that places the
    legend above the plot (paper ``y`` > 1) keeps its other settings but goes in that band.

    Figures are assembled as dicts and validated once by ``go.Figure``: building them through
    ``update_layout`` and trace constructors costs several times more, on every slider release.
    """
    size = style.title_size
    text = wrap(title, size, style.width - SIDE_MARGIN)
    lines = len(text_lines(text))
    # A Plotly title's first baseline sits at y whatever the anchor, later lines go below it.
    baseline = _PAD + 0.9 * size
    title_bottom = _PAD + 1.15 * size + (lines - 1) * 1.3 * size
    names = legend_names(traces) if traces is not None else ["legend"]
    legend_height = legend_rows(names, style) * 1.5 * style.font_size + 6 if names else 0
    top = title_bottom + _PAD + legend_height + (_PAD if names else 0)
    height = style.height + max(0, round(top - (4 * style.font_size + 40)))
    legend_top = title_bottom + _PAD
    spec: dict = {
        "title": {
            "text": text,
            "x": 0,
            "xanchor": "left",
            "xref": "container",
            "y": 1 - baseline / height,
            "yref": "container",
            "yanchor": "bottom",
            "font": {"size": size},
        },
        # The look of Plotly's "simple_white", spelled out: a named template is deep-copied and
        # validated into every figure, which was two thirds of a Playground rerun.
        "template": "none",
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "xaxis": {"showline": True, "linecolor": INK, "ticks": "outside", "zeroline": False},
        "font": {"size": style.font_size, "color": INK, "family": FONT_FAMILY},
        "height": height,
        "margin": {"l": SIDE_MARGIN, "r": SIDE_MARGIN, "t": round(top), "b": 10},
        # In container coordinates, under the title: Plotly reserves the band the legend needs.
        "legend": {
            "orientation": "h",
            "yref": "container",
            "yanchor": "top",
            "y": 1 - legend_top / height,
            "x": 0,
            "xref": "container",
            "xanchor": "left",
        },
        "hoverlabel": {"font": {"size": style.font_size}},
        "transition": TRANSITION,
        "uniformtext": {"minsize": style.text_size - 2, "mode": "hide"},
        "yaxis": {
            "showline": True,
            "linecolor": INK,
            "ticks": "outside",
            "zeroline": False,
            "tickformat": ".0%",
            "gridcolor": GRID,
            "showgrid": True,
            "rangemode": "tozero",
            "fixedrange": True,
            "automargin": True,
        },
    }
    legend = overrides.get("legend")
    if isinstance(legend, dict) and "y" in legend and "yref" not in legend:
        if legend["y"] > 1:
            # "Above the plot" in paper coordinates: that is the band under the title, which
            # (unlike a legend placed by hand) can never run into the title.
            overrides["legend"] = {
                k: v for k, v in legend.items() if k not in ("x", "xanchor", "y", "yanchor")
            }
        else:  # inside the plot: a position in paper coordinates, as in Plotly
            overrides["legend"] = {"yref": "paper", "xref": "paper", **legend}
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(spec.get(key), dict):
            spec[key] = {**spec[key], **value}
        else:
            spec[key] = value
    return spec


def figure(data: list[dict], layout_spec: dict) -> go.Figure:
    """A dict-built figure as a ``go.Figure``, without Plotly's validation.

    Validating is most of the cost of a new figure (~5 ms of the Playground's four per new
    state, on every slider release that reaches a state no one has drawn); the dicts are right
    by construction, and tests/test_figure_speed.py checks that every builder's figure writes
    exactly the JSON the validated one writes. Validation spells the named template out, so it
    is spelled out here too.
    """
    if layout_spec.get("template") == "none":
        layout_spec = {**layout_spec, "template": _none_template()}
    traces = [_trace_order(trace) if isinstance(trace, dict) else trace for trace in data]
    return go.Figure({"data": traces, "layout": _order(layout_spec)}, _validate=False)


def _order(value: object) -> object:
    """``value`` with every dict's keys in alphabetical order, the order validation writes."""
    if isinstance(value, dict):
        return {key: _order(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple) and any(isinstance(i, dict | list | tuple) for i in value):
        return [_order(item) for item in value]
    return value


def _trace_order(trace: dict) -> dict:
    """A trace's keys as validation writes them: alphabetical, its ``type`` last."""
    ordered = _order({key: value for key, value in trace.items() if key != "type"})
    if "type" in trace:
        ordered["type"] = trace["type"]
    return ordered


def validated_figure(data: list[dict], layout_spec: dict) -> go.Figure:
    """The same figure through Plotly's validation (what :func:`figure` must equal)."""
    return go.Figure({"data": data, "layout": layout_spec})


@functools.cache
def _none_template_json() -> str:
    return json.dumps(go.Layout(template="none").to_plotly_json()["template"])


def _none_template() -> dict:
    """Plotly's "none" template as validation writes it into a figure (a fresh copy)."""
    return json.loads(_none_template_json())


def share_axis(top: float) -> dict:
    """A y axis of shares up to ``top``, with room above the bars for their numbers; its ticks
    never go past 100 % (a share cannot), however much room the numbers need."""
    axis: dict = {"range": [0, top * 1.22 if top > 0 else 1]}
    if top * 1.22 > 1:
        axis["tickvals"] = [0, 0.25, 0.5, 0.75, 1]
    return axis


def pair_layout(style: ChartStyle, title: str, labels: Sequence[str], top: float) -> dict:
    """The layout of two bars per word (overlaid at explicit offsets), the legend above."""
    return layout(
        style,
        title,
        barmode="overlay",
        xaxis=token_axis(labels, style=style),
        yaxis=share_axis(top),
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )
