"""Numbers as learners read them: percentages, distances, sample sizes."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np

from specviz.limits import ROUNDING
from specviz.text import NUMBERS, language, titles, written


def _snapped(x: float) -> Decimal:
    """``x`` exactly, snapped to 12 significant digits, a tie to the larger magnitude (as
    JavaScript's ``toExponential(11)`` rounds: numbers.js)."""
    exact = Decimal(float(x))
    if not exact:
        return exact
    return exact.quantize(Decimal(1).scaleb(exact.adjusted() - 11), rounding=ROUND_HALF_UP)


def _written(value: Decimal, decimals: int) -> str:
    rounded = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{rounded if rounded else abs(rounded):f}"  # never "-0.00"


def as_written(text: str) -> str:
    """A number a link writes ("0.1", "1000") as the run's language writes it ("0,1" in
    Spanish); any other text as it is."""
    return written(text) if re.fullmatch(r"-?\d+\.\d+", text) else text


def decimal(x: float, decimals: int) -> str:
    """``x`` with ``decimals`` decimals, rounded as a reader rounds by hand: 1.385 -> "1.39".

    The one rule for every number SpecViz writes, in Python and in the browser (numbers.js, held
    equal by tests/test_numbers.py): ``x`` snapped to 12 significant digits, so that float noise
    (a sum added in another order) changes nothing, then rounded half away from zero, so that a
    share k/N at its tie rounds up whichever float holds it (Python's own f"{x:.2f}" rounds the
    float: 1.385 is 1.38499999999999989... and prints "1.38").
    """
    return written(_written(_snapped(x), decimals))


def percent(x: float, decimals: int = 1) -> str:
    """A probability as a percentage with the precision a reader needs and no fake zeros:
    ``decimals`` decimals (1/3 -> "33.3%"), two significant digits below 1 % (0.0065 -> "0.65%",
    0.0005 -> "0.05%"), more only to keep something that is neither 0 nor 1 off "0%" and "100%"
    (0.99996 -> "99.996%"; below a millionth of a percent, "<0.000001%"). numbers.js writes the
    same for ``decimals`` = 1. Each in the run's language: "33,3 %" in Spanish."""
    return written(_percent(x, decimals))


def _percent(x: float, decimals: int) -> str:
    value = _snapped(x).scaleb(2)
    if value == value.to_integral_value():
        return f"{_written(value, 0)}%"
    if abs(value) < 1:
        places = max(decimals, 1 - value.adjusted())
        if places > 6:
            return "<0.000001%"
        return f"{_written(value, places).rstrip('0').rstrip('.')}%"
    for places in range(decimals, 7):
        text = _written(value, places)
        if Decimal(text) != 100:
            return f"{text}%"
    return ">99.999999%"


def fine_percent(x: float) -> str:
    """A measured share in a tooltip, where its second decimal shows the draws converging:
    0.25341 -> "25.34%"."""
    return percent(x, decimals=2)


def thousands(n: float, decimals: int = 0) -> str:
    """A count (or a number with ``decimals`` decimals) with its thousands marked as the run's
    language marks them: 12345 -> "12,345", 59604.64 -> "59,604.6" with one decimal (Spanish
    "12.345", "59.604,6"; 1234 stays "1234" there)."""
    style = NUMBERS[language()]
    whole, _, part = f"{abs(n):.{decimals}f}".partition(".")
    if len(whole) >= style["group_from"]:
        whole = f"{int(whole):,}".replace(",", style["group"])
    negative = n < 0 and any(ch in "123456789" for ch in whole + part)
    return ("-" if negative else "") + whole + (style["decimal"] + part if part else "")


def significant(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, as a statistic is shown: 0.04567 -> "0.0457"
    (Spanish "0,0457"); from 10 ** ``digits`` on, the whole number (never "1e+03")."""
    if abs(x) >= 10**digits:
        return thousands(x)
    return written(f"{x:.{digits}g}")


def times(x: float) -> str:
    """A speed-up or a ratio of times, as the pages print it: 1.385 -> "1.39×"."""
    return f"{decimal(x, 2)}×"


def tv_text(tv: float) -> str:
    """A total variation distance as math.md writes it, short enough for a metric: three significant
    digits: .14 -> "0.14", .2333 -> "0.233"; below 0.001 in powers of ten, 2.64e-05 -> "2.64·10⁻⁵"
    (never Python's "e-05"); at most 1e-12 (rounding) -> "0"."""
    if tv <= ROUNDING:
        return "0"
    tv = float(f"{tv:.3g}")
    if tv >= 1e-3:
        return written(
            np.format_float_positional(tv, precision=3, unique=False, fractional=False, trim="-")
        )
    mantissa, exponent = f"{tv:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return written(f"{mantissa}·10{str(int(exponent)).translate(_SUPERSCRIPT)}")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


#: The things SpecViz counts in words, each a message in its one and its many form.
_NOUNS = ("word", "seed", "run")
_ONE = titles("numbers.one", _NOUNS)
_MANY = titles("numbers.many", _NOUNS)
_PACES = titles("numbers.pace", ("slower", "even", "faster"))


def count(n: int, noun: str) -> str:
    """``n`` things in the run's language: "1 run", "10,000 runs" (``noun`` one of "word",
    "seed", "run")."""
    return f"{thousands(n)} {_ONE[noun] if n == 1 else _MANY[noun]}"


def compare(speedup: float) -> int:
    """How a speed-up compares with plain decoding, judged on the value shown (two decimals), as
    the Playground's live view judges it: -1 slower, 0 as fast ("1.00×" is never called slower),
    1 faster."""
    shown = Decimal(_written(_snapped(speedup), 2))
    return (shown > 1) - (shown < 1)


def pace(speedup: float) -> str:
    """:func:`compare` in words, before "plain decoding": "faster than"."""
    return list(_PACES.values())[compare(speedup) + 1]


#: The same rule for the browser's views, put before their own code (they cannot import).
NUMBERS_JS = Path(__file__).with_name("numbers.js").read_text(encoding="utf-8")
