"""Text that fits: how wide a label is drawn, and which form of a row of labels can be read.

Vega neither wraps titles nor chooses between forms of a label, so every chart lays out its own
text with these estimates: a title is wrapped to the narrowest column it is shown in
(:attr:`ChartStyle.width`), tick labels and numbers printed over bars take the most complete form
that leaves a gap between neighbours, or none at all. This is the one place that decides whether
text fits; the HTML views get its answers as data.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from specviz.figures.style import ChartStyle

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


#: Width (px) of a legend entry's symbol and the gap after it, and the gap between two entries.
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


def html_font_size(style: ChartStyle) -> int:
    """Body text size (px) of the HTML views (the flow, the player): a notch above the charts'
    (24 px on a projector, above the page's own 21.6 px)."""
    return style.font_size + 2
