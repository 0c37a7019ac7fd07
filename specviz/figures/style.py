"""Shared look of every chart: sizes for screen and projector, axes, transitions.

Plotly neither wraps titles nor keeps tick labels from colliding (it rotates them, or hides the
ones past the edge), so the charts lay out their own text: :func:`text_width` estimates how wide a
string is drawn, and titles, tick labels and legends are sized for the narrowest column a chart is
shown in (:attr:`ChartStyle.width`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import plotly.graph_objects as go

from specviz.palette import GRID, INK, Notation

#: Bars glide from the old state to the new one in the browser, not on the server.
TRANSITION = {"duration": 450, "easing": "cubic-in-out"}

#: Arial's metrics (Liberation Sans and Helvetica share them): the widths below are exact for it.
FONT_FAMILY = "Arial, 'Liberation Sans', Helvetica, sans-serif"

#: Advance widths of Arial in 1/1000 em, by character.
_ADVANCE: dict[str, int] = {
    **dict.fromkeys("'", 191),
    **dict.fromkeys("ijl", 222),
    **dict.fromkeys("|", 260),
    **dict.fromkeys("ftI!,./:;[\\] ·", 278),
    **dict.fromkeys("r()-`{}’", 333),
    **dict.fromkeys('"', 355),
    **dict.fromkeys("*", 389),
    **dict.fromkeys("^", 469),
    **dict.fromkeys("cksvxyzJ", 500),
    **dict.fromkeys("0123456789abdeghnopquL#$?_–", 556),
    **dict.fromkeys("+<=>~−×≈≤≥", 584),
    **dict.fromkeys("●", 604),
    **dict.fromkeys("FTZ", 611),
    **dict.fromkeys("ABEKPSVXY&", 667),
    **dict.fromkeys("wCDHNRU", 722),
    **dict.fromkeys("GOQ", 778),
    **dict.fromkeys("mM", 833),
    **dict.fromkeys("%", 889),
    # Glyphs Arial lacks come from a fallback font (DejaVu Sans), which is wider.
    **dict.fromkeys("✓✗◌◆", 873),
    **dict.fromkeys("W", 944),
    **dict.fromkeys("▲▼→—…", 1000),
    **dict.fromkeys("@", 1015),
}
_UNKNOWN = 667  # a letter outside the table: a wide one, so that text is never under-estimated
_TAG = re.compile(r"<(?!br\s*/?>)[^>]*>", re.IGNORECASE)
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


def text_lines(text: str) -> list[str]:
    """The lines of a Plotly label (split at ``<br>``), without the other markup."""
    return [_TAG.sub("", line) for line in _BREAK.split(text)]


def text_width(text: str, size: float) -> float:
    """How wide ``text`` is drawn in Arial at ``size`` px: its widest line, markup ignored."""
    return max(
        sum(_ADVANCE.get(ch, _UNKNOWN) for ch in line) * size / 1000 for line in text_lines(text)
    )


def wrap(text: str, size: float, width: float) -> str:
    """Break ``text`` into lines no wider than ``width`` px, and return them joined by ``<br>``.

    ``<br>`` always breaks; a newline breaks only if the text does not fit on one line (mark the
    natural break of a title with it); otherwise lines break at the last space that fits. A single
    word wider than ``width`` stays whole: cutting it would not make it readable.
    """
    lines: list[str] = []
    for paragraph in _BREAK.split(text):
        parts = paragraph.split("\n")
        if text_width(" ".join(parts), size) <= width:
            parts = [" ".join(parts)]
        for part in parts:
            line = ""
            for word in part.split(" "):
                candidate = f"{line} {word}" if line else word
                if line and text_width(candidate, size) > width:
                    lines.append(line)
                    line = word
                else:
                    line = candidate
            lines.append(line)
    return "<br>".join(lines)


_VOWELS = set("aeiouyäöüéèàáíóú")


def hyphenate(word: str) -> tuple[str, str] | None:
    """Split a word in two near its middle, before a consonant that opens a syllable
    (``key-board``, ``straw-berries``); ``None`` if it is too short to split."""
    if len(word) < 6:
        return None
    lower = word.lower()
    cuts = [
        i
        for i in range(2, len(word) - 2)
        if lower[i] not in _VOWELS
        and lower[i + 1] in _VOWELS
        and any(ch in _VOWELS for ch in lower[:i])
    ]
    middle = len(word) / 2
    cut = min(cuts, key=lambda i: (abs(i - middle), i)) if cuts else math.ceil(middle)
    return word[:cut] + "-", word[cut:]


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

    @property
    def title_size(self) -> int:
        """Size of the chart title."""
        return self.font_size + 4

    @property
    def min_tick_size(self) -> int:
        """The smallest tick labels may shrink to when many words share the axis."""
        return 16 if self.projector else 11

    @property
    def width(self) -> int:
        """The narrowest width (px) the chart is drawn at: its column in a 1280 px window (460 px
        beside the controls, 820 px below them in projector mode), less a little slack. Titles,
        tick labels and legends are laid out to fit it; wider, there is room to spare."""
        return 800 if self.projector else 450

    def fill(self, template: str) -> str:
        """Put the target/draft letters into ``template`` (``{T}``, ``{D}``)."""
        return self.notation.fill(template)


DEFAULT_STYLE = ChartStyle()

#: Side margins (px) of every chart: room for the half of the last tick label past the axis.
SIDE_MARGIN = 10


def label_gap(size: float) -> float:
    """Horizontal gap (px) kept free between two neighbouring labels: more than a space, so that
    two words never read as one phrase."""
    return max(5.0, 0.4 * size)


def plot_width(style: ChartStyle) -> float:
    """Width (px) of the plot area at the narrowest chart width: less the y axis's "100%"."""
    y_labels = text_width("100%", style.font_size) + 12
    return style.width - y_labels - 2 * SIDE_MARGIN


def slot_width(style: ChartStyle, count: int) -> float:
    """Horizontal room (px) of one word on a :func:`token_axis` of ``count`` words, at the
    narrowest chart width (the axis spans ``count + 0.2`` slots)."""
    return plot_width(style) / (count + 0.2)


def side_by_side(texts: Sequence[str], size: float, slot: float) -> bool:
    """Whether labels centred ``slot`` px apart keep :func:`label_gap` between neighbours, the last
    one within the chart (the axis runs on 0.6 slot past it, then the side margin)."""
    widths = [text_width(t, size) for t in texts]
    if widths and widths[-1] / 2 > 0.6 * slot + SIDE_MARGIN:
        return False
    gap = label_gap(size)
    return all((a + b) / 2 + gap <= slot for a, b in itertools.pairwise(widths))


def fit_labels(forms: Sequence[Sequence[str]], size: float, slot: float) -> list[str] | None:
    """The first set of labels (most complete first) that fits side by side, ``slot`` px apart."""
    for labels in forms:
        if side_by_side(labels, size, slot):
            return list(labels)
    return None


def tick_words(labels: Sequence[str], style: ChartStyle) -> tuple[list[str], int]:
    """Horizontal tick labels that fit side by side, and their font size.

    Whole words at the largest size that fits (down to ``style.min_tick_size``); failing that, long
    words broken over two lines with a hyphen (``key-<br>board``) at the largest size that fits;
    as a last resort the smallest size.
    """
    slot = slot_width(style, len(labels))
    sizes = range(style.font_size, style.min_tick_size - 1, -1)
    for size in sizes:
        if side_by_side(labels, size, slot):
            return list(labels), size

    def broken(word: str, size: int) -> str:
        parts = hyphenate(word) if text_width(word, size) > slot - 2 * label_gap(size) else None
        return "<br>".join(parts) if parts else word

    for size in [*sizes, *range(style.min_tick_size - 1, style.min_tick_size - 3, -1)]:
        text = [broken(w, size) for w in labels]
        if side_by_side(text, size, slot):
            return text, size
    return text, size


def token_axis(
    labels: Sequence[str],
    notes: Sequence[str] | None = None,
    style: ChartStyle | None = None,
    short_notes: Sequence[str] | None = None,
) -> dict:
    """A numeric x axis labelled with the vocabulary (numeric so repeated words stay apart).

    ``notes`` go on a line under each word. With a ``style``, the labels stay horizontal and are
    fitted side by side (:func:`tick_words`); ``short_notes`` replace ``notes`` when those do not
    fit. Without one, Plotly lays the labels out (and may rotate them).
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
        if notes is not None:
            slot = slot_width(style, len(labels))
            notes = fit_labels([notes, short_notes or notes], size, slot) or short_notes or notes
        axis |= {"tickangle": 0, "tickfont": {"size": size}}
    if notes is not None:
        # Notes on one row even where a word is broken over two lines.
        depth = max(len(text_lines(w)) for w in words)
        words = [w + "<br> " * (depth - len(text_lines(w))) for w in words]
        words = [f"{w}<br>{n}" for w, n in zip(words, notes, strict=True)]
    axis["ticktext"] = words
    return axis


#: Space (px) above the title, and between title, legend and plot.
_PAD = 8
#: Width (px) of a legend entry's symbol and the gap after it, and the gap between two entries.
_LEGEND_SYMBOL = 44
_LEGEND_GAP = 5


def legend_rows(names: Sequence[str], style: ChartStyle) -> int:
    """How many rows a horizontal legend of ``names`` takes at the narrowest chart width.

    Plotly's rule: one row if every entry fits side by side in the plot's width, otherwise columns
    as wide as the widest entry.
    """
    if not names:
        return 0
    room = plot_width(style)
    entries = [_LEGEND_SYMBOL + text_width(name, style.font_size) for name in names]
    if sum(entries) + _LEGEND_GAP * (len(entries) - 1) < room:
        return 1
    columns = max(1, int((room + _LEGEND_GAP) // (max(entries) + _LEGEND_GAP)))
    return math.ceil(len(entries) / columns)


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
