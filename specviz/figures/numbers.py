"""Numbers as learners read them: percentages, distances, sample sizes."""

from __future__ import annotations

import numpy as np

from specviz.limits import ROUNDING


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


def tv_text(tv: float) -> str:
    """A total variation distance as math.md writes it, short enough for a metric: three significant
    digits: .14 -> "0.14", .2333 -> "0.233"; below 0.001 in powers of ten, 2.64e-05 -> "2.64·10⁻⁵"
    (never Python's "e-05"); at most 1e-12 (rounding) -> "0"."""
    if tv <= ROUNDING:
        return "0"
    tv = float(f"{tv:.3g}")
    if tv >= 1e-3:
        return np.format_float_positional(tv, precision=3, unique=False, fractional=False, trim="-")
    mantissa, exponent = f"{tv:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}·10{str(int(exponent)).translate(_SUPERSCRIPT)}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` things in words: "1 run", "10,000 runs" (``plural`` for irregular nouns)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def pace(speedup: float) -> str:
    """How a speed-up compares with plain decoding, judged on the value shown (two decimals), as
    the Playground's live view judges it: "1.00×" is never called slower."""
    shown = round(float(speedup), 2)
    return "faster than" if shown > 1 else "slower than" if shown < 1 else "as fast as"
