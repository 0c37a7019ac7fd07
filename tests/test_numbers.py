"""The one rule by which SpecViz writes a number, in Python and in the browser.

``specviz/figures/numbers.py`` and ``numbers.js`` (put before the live view, the timeline and the
player) must print the same text for every value, ties included. Node runs the JavaScript half
here, in the fast tier, on every case Python writes down; Python's half is held to exact rational
rounding (``fractions.Fraction``) for the shares a learner sees, k/N.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from node import run_module

from specviz import text
from specviz.figures import vega
from specviz.figures.live import LIVE_JS
from specviz.figures.numbers import (
    NUMBERS_JS,
    as_written,
    decimal,
    pace,
    percent,
    thousands,
    times,
    tv_text,
)
from specviz.figures.style import ChartStyle


def _in_node(fixed: list[tuple[float, int]], shares: list[float], language: str) -> list[list[str]]:
    return run_module(
        NUMBERS_JS + "\nexport { decimal, percent, useNumbers };",
        "(m, [fixed, shares, style]) => (m.useNumbers(style),"
        " [fixed.map(([x, d]) => m.decimal(x, d)), shares.map(m.percent)])",
        [fixed, shares, text.NUMBERS[language]],
    )


@pytest.fixture
def speaking(request: pytest.FixtureRequest) -> Iterator[str]:
    """The test's language for the Python half, English again after it."""
    text.use(request.param)
    yield request.param
    text.use("en")


def _cases() -> tuple[list[tuple[float, int]], list[float]]:
    rng = np.random.default_rng(34)
    # Every share of 20,000 and of 2,000 draws (where the two halves once disagreed 335 times),
    # shares of the Playground's weights, ties, tiny, huge and near-whole values, random floats.
    shares = [k / 20_000 for k in range(20_001)] + [k / 2_000 for k in range(2_001)]
    shares += [a / b for b in range(1, 101) for a in range(b + 1)]
    shares += [0.1225, 0.125, 0.00125, 0.0065, 0.0005, 0.5e-8, 1 - 1e-9, 2e-9, 1e-300, 0.99996]
    shares += rng.random(2000).tolist() + (10.0 ** rng.uniform(-9, 0, 500)).tolist()
    ties = [1.385, 5.525, 0.125, 2.675, 1.005, 0.5, 1.5, 2.5, 0.045, 123.4565, 9.995, 0.995]
    values = ties + [-x for x in ties] + [0.0, -0.0, 1e-13, 1e15, 3.814697265625e-06]
    values += (rng.random(1000) * 10.0 ** rng.integers(-4, 5, 1000)).tolist()
    values += [a / b for b in range(1, 60) for a in range(0, 4 * b)]
    fixed = [(x, d) for x in values for d in (0, 1, 2, 3)]
    return fixed, shares


@pytest.mark.parametrize("speaking", list(text.LANGUAGES), indirect=True)
def test_the_browser_writes_every_number_as_python_does(speaking: str) -> None:
    fixed, shares = _cases()
    got_fixed, got_shares = _in_node(fixed, shares, speaking)
    wrong = [(x, d, js) for (x, d), js in zip(fixed, got_fixed, strict=True) if js != decimal(x, d)]
    assert not wrong, f"{len(wrong)} of {len(fixed)} differ, e.g. {wrong[:5]}"
    wrong_pct = [(x, js) for x, js in zip(shares, got_shares, strict=True) if js != percent(x)]
    assert not wrong_pct, f"{len(wrong_pct)} of {len(shares)} differ, e.g. {wrong_pct[:5]}"


def test_every_view_gets_the_one_formatter() -> None:
    from specviz.figures.decoding import TIMELINE_JS

    assert NUMBERS_JS.strip().splitlines()[-1] in LIVE_JS  # compacted, but whole lines
    assert TIMELINE_JS.startswith(NUMBERS_JS)
    for view in (LIVE_JS, TIMELINE_JS):  # no second formatter of their own
        assert "function fixed(" not in view and "const pct" not in view


def _half_up(value: Fraction, decimals: int) -> str:
    """``value`` (≥ 0) rounded half up at ``decimals``, by exact integer arithmetic."""
    scaled = value * 10**decimals
    k = scaled.numerator // scaled.denominator
    if 2 * (scaled - k) >= 1:
        k += 1
    text = str(k).rjust(decimals + 1, "0")
    return f"{text[:-decimals]}.{text[-decimals:]}" if decimals else text


@given(st.integers(1, 20_000), st.data(), st.integers(0, 4))
def test_a_share_rounds_as_its_exact_value_does(n: int, data, decimals: int) -> None:
    k = data.draw(st.integers(0, n))
    assert decimal(k / n, decimals) == _half_up(Fraction(k, n), decimals)
    assert decimal(3 * k / n, decimals) == _half_up(Fraction(3 * k, n), decimals)


@given(st.integers(1, 20_000), st.data())
def test_a_shown_percentage_is_its_share_rounded(n: int, data) -> None:
    k = data.draw(st.integers(0, n))
    exact = Fraction(100 * k, n)
    text = percent(k / n)
    assert text.endswith("%")
    shown = text[:-1]
    if exact.denominator == 1:
        assert shown == str(exact.numerator)
    elif exact < 1:  # two significant digits, trailing zeros dropped
        decimals = next(d for d in range(2, 7) if exact * 10 ** (d - 1) >= 1)
        assert Fraction(shown) == Fraction(_half_up(exact, decimals))
    else:
        decimals = len(shown.partition(".")[2])
        assert shown == _half_up(exact, decimals) and decimals >= 1
        assert decimals == 1 or Fraction(_half_up(exact, decimals - 1)) == 100
    assert (shown not in ("0", "100")) or exact in (0, 100)


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.385, "1.39"),  # the float is 1.38499999999999989...: Python's f"{x:.2f}" says 1.38
        (5.525, "5.53"),
        (0.125, "0.13"),
        (-0.001, "0.00"),  # never "-0.00"
        (2.0, "2.00"),
    ],
)
def test_decimal_rounds_as_a_reader_does(x: float, text: str) -> None:
    assert decimal(x, 2) == text


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0.1225, "12.3%"),
        (0.0065, "0.65%"),
        (0.0005, "0.05%"),
        (0.00996, "1%"),
        (4e-6, "0.0004%"),
        (1e-9, "<0.000001%"),
        (1 - 1e-9, ">99.999999%"),
    ],
)
def test_percent_keeps_two_digits_of_a_small_share(x: float, text: str) -> None:
    assert percent(x) == text


@pytest.mark.parametrize("speaking", ["es"], indirect=True)
def test_spanish_writes_a_decimal_comma_and_groups_from_five_digits(speaking: str) -> None:
    assert (percent(1 / 3), percent(0.0005), percent(1), times(1.385)) == (
        "33,3\u00a0%",
        "0,05\u00a0%",
        "100\u00a0%",
        "1,39×",
    )
    assert (thousands(1234), thousands(12345), thousands(-1234567)) == (
        "1234",
        "12.345",
        "-1.234.567",
    )
    assert (tv_text(0.2333), tv_text(2.64e-5)) == ("0,233", "2,64·10⁻⁵")
    # A control's setting as the link writes it, on screen: "0.1" is "0,1"; a word stays.
    assert [as_written(t) for t in ("0.1", "1000", "strong", "1.2.3")] == [
        "0,1",
        "1000",
        "strong",
        "1.2.3",
    ]


def test_a_speed_up_is_judged_on_what_it_shows() -> None:
    assert (times(1.385), pace(1.385)) == ("1.39×", "faster than")
    assert (times(0.9951), pace(0.9951)) == ("1.00×", "as fast as")
    assert (times(0.99499), pace(0.99499)) == ("0.99×", "slower than")


def test_a_tooltip_number_is_written_by_the_one_formatter() -> None:
    tip = vega.tooltip("word", ("share", None, percent))
    layer = {"data": vega.data("bars"), "mark": "bar", "encoding": {"tooltip": tip}}
    rows = [{"word": "a", "share": 0.0065}, {"word": "b"}]
    spec = vega.chart(ChartStyle(), "t", {"bars": rows}, [{"layer": [layer]}])
    line = spec["layer"][0]["layer"][0]["encoding"]["tooltip"][1]
    assert line == {"field": "share_shown", "type": "nominal", "title": "share"}
    assert [row.get("share_shown") for row in spec["datasets"]["bars"]] == ["0.65%", ""]
    assert "share_shown" not in rows[0]  # the caller's rows are left as they were
    json.dumps(spec)  # nothing but JSON is left in it
    with pytest.raises(ValueError, match="reads no dataset"):
        vega.chart(ChartStyle(), "t", {}, [{"mark": "bar", "encoding": {"tooltip": tip}}])
