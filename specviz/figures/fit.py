"""Text that fits: how wide a label is drawn, and which form of a row of labels can be read. Vega
neither wraps titles nor picks a label's form, so every chart lays out its own text for its
narrowest width (:attr:`ChartStyle.width`); a label's lines are joined by a newline.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Sequence

from specviz.figures.style import ChartStyle

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
#: A Chinese character or full-width mark: a square, 1 em, and a line may break on either side.
_SQUARE = re.compile(r"([\u2e80-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef])")


def _advance(ch: str) -> int:
    if ch in _ADVANCE:
        return _ADVANCE[ch]
    if _SQUARE.match(ch):
        return 1000
    base = unicodedata.normalize("NFD", ch)[0]  # "é" is as wide as "e"; a no-break space, " "
    return _ADVANCE.get(" " if ch == "\u00a0" else base, _UNKNOWN)


def text_width(text: str, size: float) -> float:
    """How wide ``text`` is drawn in Arial at ``size`` px: its widest line."""
    return max(sum(_advance(ch) for ch in line) * size / 1000 for line in text.split("\n"))


def _pieces(part: str) -> list[tuple[str, str]]:
    """The pieces a line may break between, each with what joins it to the one before: a word
    after a space, or a Chinese character (which needs no space to break)."""
    pieces = []
    for word in part.split(" "):
        for i, piece in enumerate(p for p in _SQUARE.split(word) if p):
            pieces.append((piece, "" if i else " "))
    return pieces


def wrap(text: str, size: float, width: float) -> list[str]:
    """``text`` broken into lines no wider than ``width`` px, at the last space that fits; a
    newline in ``text`` is its natural break, taken only if it does not fit on one line. A word
    wider than ``width`` stays whole: cutting it would not make it readable."""
    joined = text.replace("\n", " ")
    lines: list[str] = []
    for part in [joined] if text_width(joined, size) <= width else text.split("\n"):
        lines.append("")
        for piece, glue in _pieces(part):
            if lines[-1] and text_width(f"{lines[-1]}{glue}{piece}", size) > width:
                lines.append(piece)
            else:
                lines[-1] = f"{lines[-1]}{glue}{piece}" if lines[-1] else piece
    return lines


_VOWELS = set("aeiouyäöüéèàáíóú")


def hyphenate(word: str) -> tuple[str, str] | None:
    """Split a word in two near its middle, before a consonant that opens a syllable
    (``key-board``, ``straw-berries``); ``None`` if it is too short to split."""
    if len(word) < 6:
        return None
    vowel = [ch in _VOWELS for ch in word.lower()]
    cuts = [i for i in range(2, len(word) - 2) if not vowel[i] and vowel[i + 1] and any(vowel[:i])]
    middle = len(word) / 2
    cut = min(cuts, key=lambda i: (abs(i - middle), i)) if cuts else math.ceil(middle)
    return word[:cut] + "-", word[cut:]


#: Side margins (px) of every chart: room for the half of the last tick label past the axis.
SIDE_MARGIN = 10
#: Gap between the two bars of a word, as a share of one bar's step.
PAIR_GAP = 0.08
# Vega-Lite gives a word's pair of bars 0.8 of its slot (a nested offset's padding is 0.2): the
# pair's centres are _PAIR_STEP of a slot apart, the next word's first bar the rest on, and the
# last bar's centre _PAIR_EDGE of a slot short of the plot's end.
_PAIR_STEP = 0.8 / (2 - PAIR_GAP)
_PAIR_EDGE = 1 - _PAIR_STEP * (1 + (1 - PAIR_GAP) / 2)


def legend_width(columns: Sequence[Sequence[str]], size: float, key: float) -> float:
    """How wide a legend is drawn (px): its ``columns`` of names side by side, each as wide as its
    widest name and ``key`` px of symbol and gaps."""
    return sum(max(text_width(name, size) for name in column) + key for column in columns)


def label_gap(size: float) -> float:
    """Gap (px) kept free between two neighbouring labels: more than a space, so that two words
    never read as one phrase."""
    return max(5.0, 0.4 * size)


def slot_width(style: ChartStyle, count: int) -> float:
    """Room (px) of one word on an axis of ``count`` words (it spans ``count + 0.2`` slots) at the
    narrowest width: the chart less the y axis's "100%" and the side margins."""
    plot = style.width - (text_width("100%", style.font_size) + 12) - 2 * SIDE_MARGIN
    return plot / (count + 0.2)


def side_by_side(
    texts: Sequence[str],
    size: float,
    slot: float,
    apart: Sequence[bool] | None = None,
    pairs: bool = False,
) -> bool:
    """Whether labels centred ``slot`` px apart keep :func:`label_gap` between neighbours, the last
    within the chart (0.6 slot past it); neighbours flagged ``apart`` cannot touch. ``pairs``:
    the labels of a word's two bars (:data:`PAIR_GAP`), ``slot`` a word's."""
    steps, edge = ([_PAIR_STEP, 1 - _PAIR_STEP], _PAIR_EDGE) if pairs else ([1.0], 0.6)
    if texts and text_width(texts[-1], size) / 2 > edge * slot + SIDE_MARGIN:
        return False
    pairs_ = list(itertools.pairwise(text_width(t, size) for t in texts))
    return all(
        far or (a + b) / 2 + label_gap(size) <= steps[k % len(steps)] * slot
        for k, ((a, b), far) in enumerate(zip(pairs_, apart or [False] * len(pairs_), strict=True))
    )


def tick_words(labels: Sequence[str], style: ChartStyle) -> tuple[list[str], int]:
    """Horizontal tick labels that fit side by side, and their font size: whole words at the largest
    size that fits (down to ``style.min_tick_size``); failing that, long words broken over two lines
    with a hyphen (``key-\nboard``) at the largest size that fits; as a last resort the smallest
    size."""
    slot = slot_width(style, len(labels))
    for size in range(style.font_size, style.min_tick_size - 1, -1):
        if side_by_side(labels, size, slot):
            return list(labels), size

    def broken(word: str, size: int) -> str:
        parts = hyphenate(word) if text_width(word, size) > slot - 2 * label_gap(size) else None
        return "\n".join(parts) if parts else word

    for size in range(style.font_size, style.min_tick_size - 3, -1):  # two sizes smaller too
        text = [broken(w, size) for w in labels]
        if side_by_side(text, size, slot):
            return text, size
    return text, size


def row_fits(
    text: Sequence[str],
    heights: Sequence[float],
    top: float,
    style: ChartStyle,
    pairs: bool = False,
) -> bool:
    """Whether a row of texts over the words (``pairs``: over each word's two bars), at ``heights``
    on a y axis up to ``top``, can be read: neighbours at about one height (on a plot half the
    chart's height) must not touch."""
    size = style.text_size
    px_per_unit = 0.5 * style.height / top if top > 0 else 0.0
    apart = [
        abs(h - k) * px_per_unit >= (max(a.count("\n"), b.count("\n")) + 1) * 1.3 * size
        for (a, h), (b, k) in itertools.pairwise(zip(text, heights, strict=True))
    ]
    slot = slot_width(style, len(text) // 2 if pairs else len(text))
    return side_by_side(text, size, slot, apart, pairs)


def fit_row(
    forms: Sequence[Sequence[str]],
    heights: Sequence[float],
    top: float,
    style: ChartStyle,
    pairs: bool = False,
) -> list[str]:
    """The most complete form of a row of labels that can be read (:func:`row_fits`), or no
    labels at all."""
    for text in forms:
        if row_fits(text, heights, top, style, pairs):
            return list(text)
    return [""] * len(heights)
