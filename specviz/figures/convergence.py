"""Convergence charts: TV to the target against N on log–log axes over an exact sampler's noise
band — the correct sampler from several seeds (Monte Carlo), a rule stalling at its floor (Bug
zoo). All that follows the state is data, even the legend's names; an entry's look comes by its
place (``slot``) in a list fixed per page, so a new state redraws in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from specviz import palette
from specviz.figures import vega
from specviz.figures.numbers import count, thousands, tv_text
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.palette import Notation
from specviz.runs import MonteCarloRun
from specviz.stats import TVBand, TVPath
from specviz.text import say
from specviz.zoo import ZooComparison


@dataclass(frozen=True)
class Look:
    """How the lines of one legend entry are drawn: colour, width in px, Vega-Lite stroke dash
    (empty: solid; a second cue besides the colour) and opacity."""

    color: str
    width: float = 2.0
    dash: tuple[int, ...] = ()
    opacity: float = 1.0


@dataclass(frozen=True)
class Series:
    """Lines of a convergence chart that share one legend entry ``name`` (several seeds, say),
    one per path; ``slot`` is the entry's place in the chart's list of :class:`Look`."""

    name: str
    paths: tuple[TVPath, ...]
    slot: int
    #: Each path's own name, where an entry's lines differ (its seeds): their tooltips and rows
    #: in the chart's table.
    each: tuple[str, ...] = ()


#: The average TV of an exact sampler: grey, dashed.
MEAN_LOOK = Look(palette.NEUTRAL.color, width=2.0, dash=(8, 5))

#: Tick labels of the N axis: 1, 10, 100, 1k, ..., 1B.
_N_LABELS = (
    "datum.value >= 1e9 ? format(datum.value / 1e9, '~g') + 'B' : "
    "datum.value >= 1e6 ? format(datum.value / 1e6, '~g') + 'M' : "
    "datum.value >= 1e3 ? format(datum.value / 1e3, '~g') + 'k' : format(datum.value, '~g')"
)


def ticks(lo: float, hi: float) -> list[float]:
    """Tick values of a log axis from ``lo`` to ``hi``: the powers of ten between them, or where
    fewer than two fit (an axis needs two), 2 and 5 times them too, or every multiple."""
    a, b = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    for multiples in ((1,), (1, 2, 5), range(1, 10)):
        steps = [
            v for k in range(a, b + 1) for m in multiples if lo <= (v := float(f"{m}e{k}")) <= hi
        ]
        if len(steps) >= 2:
            break
    return steps


def mean_series(band: TVBand, slot: int) -> Series:
    """The exact sampler's average TV as a series (slope −1/2 on log–log axes)."""
    path = TVPath(band.n, np.zeros((band.n.size, 0), dtype=np.int64), band.mean)
    return Series(say("montecarlo.tv_mean"), (path,), slot)


def convergence_spec(
    series: Sequence[Series], looks: Sequence[Look], band: TVBand, title: str, style: ChartStyle
) -> dict:
    """TV to the target versus N on log–log axes over the shaded noise ``band``, whose only state is
    its ``datasets``: ``series`` are the lines, a legend entry each; ``looks`` say how each slot is
    drawn (an unfilled slot is not shown) and, like ``title``, are fixed per page."""
    return vega.chart(
        style,
        vega.title(title, style),
        convergence_datasets(series, band),
        _layers(looks, style),
        height=style.height + 60,
        resolve={"legend": {"fill": "independent", "stroke": "shared"}},
    )


def convergence_datasets(series: Sequence[Series], band: TVBand) -> dict[str, list[dict]]:
    """All a convergence chart shows of the state: its lines, the band, the axes' extent and
    ticks, and the legend's entries. The y axis pads every TV by a factor 1.5 (never above 1);
    the x axis runs from 1 (0.7 for a single checkpoint, whose box then clears the edge) to N,
    at least 10."""
    # One row per (line, checkpoint) with TV > 0 (0 cannot sit on a log axis), flagged ``alone``
    # where it is its line's only point (a line of one point is invisible: it is drawn as a dot).
    rows = []
    for s in series:
        for i, path in enumerate(s.paths):
            pairs = zip(path.checkpoints, path.tv, strict=True)
            keep = [(int(n), float(tv)) for n, tv in pairs if tv > 0]
            who = s.each[i] if s.each else s.name
            line = {"series": s.name, "slot": s.slot, "line": f"{s.name} #{i}", "who": who}
            rows += [line | {"n": n, "tv": tv, "alone": len(keep) == 1} for n, tv in keep]
    values = [r["tv"] for r in rows] + [float(v) for v in (*band.lower, *band.upper) if v > 0]
    y_lo, y_hi = (min(values), max(values)) if values else (1e-3, 1.0)
    floor, top = y_lo / 1.5, min(1.0, y_hi * 1.5)
    x_lo, x_hi = (0.7 if len(band.n) < 2 else 1.0), float(max(10, int(band.n[-1])))
    # The band where it is above 0, a lower edge of 0 drawn down to the floor (an exact run can
    # hit the target); a band of one checkpoint (N = 1) as a narrow box around it.
    name = say("montecarlo.tv_band", level=f"{100 * band.level:.0f}")
    shaded = [
        {"n": float(n), "lower": max(float(lo), floor), "upper": float(hi), "band": name}
        for n, lo, hi in zip(band.n, band.lower, band.upper, strict=True)
        if hi > 0
    ]
    if len(band.n) == 1:
        shaded = [{**r, "n": float(r["n"]) * k} for r in shaded for k in (1 / 1.18, 1.18)]
    return {
        "band": shaded,
        # The axes' extent, drawn invisibly: Vega's automatic domains then follow the data.
        "extent": [{"n": x_lo, "tv": floor}, {"n": x_hi, "tv": top}],
        # The ticks (powers of ten), placed inside the plot where they cannot stretch it.
        "xticks": [{"n": v, "tv": floor} for v in ticks(x_lo, x_hi)],
        "yticks": [{"n": x_lo, "tv": v} for v in ticks(floor, top)],
        "lines": rows,
        # One row per legend entry (a line of one point, which draws nothing): every entry
        # keeps its slot's look even when none of its points can sit on a log axis.
        "legend": [{"series": s.name, "slot": s.slot, "n": x_lo, "tv": top} for s in series],
    }


def _layers(looks: Sequence[Look], style: ChartStyle) -> list[dict]:
    """The band, the invisible extent and ticks, the lines, lone points as dots, the legend; x
    (N) and y (TV) on log scales, their ticks from data."""
    log = {"type": "quantitative", "scale": {"type": "log", "nice": False}}
    x = log | {"field": "n", "title": say("montecarlo.tv_x")}
    x["axis"] = {"labelExpr": _N_LABELS, "grid": True, "values": vega.ticks_from("xticks", "n")}
    y = log | {"field": "tv", "title": style.fill(say("montecarlo.tv_y"))}
    y["axis"] = {"format": "~g", "grid": True, "values": vega.ticks_from("yticks", "tv")}
    by_series = _series_encoding(looks, style)
    band_legend = _legend(style) | {"orient": "bottom-left", "columns": 1, "symbolType": "square"}
    band = {"field": "band", "type": "nominal", "scale": {"range": [palette.GRID]}}
    band["legend"] = band_legend | {"fillColor": "white", "padding": 6}
    lower = y | {"field": "lower"}
    tooltip = vega.tooltip(
        ("who", say("montecarlo.tip_line")), ("n", "N", thousands), ("tv", "TV", tv_text)
    )
    line = {"x": x, "y": y, **by_series}
    return [
        {
            "data": vega.data("band"),
            "mark": {"type": "area", "opacity": 0.6},
            "encoding": {"x": x, "y": lower, "y2": {"field": "upper"}, "fill": band},
        },
        *(vega.unseen(name, x=x, y=y) for name in ("extent", "xticks", "yticks")),
        {
            "data": vega.data("lines"),
            "mark": {"type": "line", "clip": True},
            "encoding": line | {"detail": {"field": "line", "type": "nominal"}, "tooltip": tooltip},
        },
        # A line's only point (N = 1, or all but one of its TVs 0) as a dot in its colour.
        {
            "data": vega.data("lines"),
            "transform": [{"filter": "datum.alone"}],
            "mark": {"type": "point", "filled": False, "size": 50, "strokeWidth": 7},
            "encoding": {"x": x, "y": y, "stroke": by_series["stroke"]},
        },
        {"data": vega.data("legend"), "mark": {"type": "line"}, "encoding": line},
    ]


def _legend(style: ChartStyle) -> dict:
    return {
        "title": None,
        "orient": "bottom",
        "direction": "vertical",
        # Two columns where a projector has room; one on a phone's width.
        "columns": 2 if style.projector else 1,
        "labelLimit": 0,
        "labelFontSize": style.font_size,
        "symbolSize": 500 if style.projector else 300,
    }


def _series_encoding(looks: Sequence[Look], style: ChartStyle) -> dict:
    """Colour, dash, width and opacity by legend entry: the entries (data) sorted by slot, so
    that the n-th one takes the n-th look."""
    legend = _legend(style) | {"symbolType": "stroke", "symbolStrokeWidth": style.line_width + 1}
    ranges = {
        "stroke": [look.color for look in looks],
        "strokeDash": [list(look.dash) or [1, 0] for look in looks],
        "strokeWidth": [look.width for look in looks],
        "opacity": [look.opacity for look in looks],
    }
    # The first two, colour and dash, make the one legend (Vega merges them); width, opacity none.
    return {
        channel: {"field": "series", "type": "nominal", "sort": {"field": "slot", "op": "min"}}
        | {"scale": {"range": values}, "legend": dict(legend) if k < 2 else None}
        for k, (channel, values) in enumerate(ranges.items())
    }


def monte_carlo_spec(
    runs: Sequence[MonteCarloRun], band: TVBand, style: ChartStyle = DEFAULT_STYLE
) -> dict:
    """Convergence of the correct sampler: the page's run (thick) and the other seeds (thin)."""
    main, others = runs[0], runs[1:]
    name = say("montecarlo.tv_main", icon=palette.TARGET.icon, seed=main.seed)
    series = [Series(name, (main.path,), 0), mean_series(band, 1)]
    if others:
        name = say("montecarlo.tv_seeds", first=others[0].seed, last=others[-1].seed)
        each = tuple(say("montecarlo.tip_seed", seed=r.seed) for r in others)
        series.append(Series(name, tuple(r.path for r in others), 2, each))
    looks = [
        Look(palette.TARGET.color, width=style.line_width + 2),
        MEAN_LOOK,
        Look(palette.TARGET.color, width=style.line_width / 2 + 0.5, dash=(4, 2), opacity=0.7),
    ]
    return convergence_spec(series, looks, band, say("montecarlo.tv_title"), style)


def monte_carlo_chart_caption(
    runs: Sequence[MonteCarloRun], band: TVBand, notation: Notation
) -> str:
    """The TV of every seed at N, against the band."""
    tvs = ", ".join(say("montecarlo.tv_seed", seed=r.seed, tv=tv_text(r.tv)) for r in runs)
    zeros = [int(m) for m, lo in zip(band.n, band.lower, strict=True) if lo == 0 and m > 1]
    seeds, level, n = count(len(runs), "seed"), f"{100 * band.level:.0f}", thousands(runs[0].n)
    low, high = tv_text(float(band.lower[-1])), tv_text(float(band.upper[-1]))
    if runs[0].n > 1:
        caption = say(
            "montecarlo.tv_alt", seeds=seeds, level=level, n=n, tvs=tvs, low=low, high=high
        )
    else:
        caption = say(
            "montecarlo.tv_alt_one", seeds=seeds, level=level, tvs=tvs, low=low, high=high
        )
    if zeros:
        caption += " " + say("montecarlo.tv_alt_zero", where=", ".join(thousands(m) for m in zeros))
    return notation.fill(caption)


def zoo_spec(comparison: ZooComparison, title: str, style: ChartStyle = DEFAULT_STYLE) -> dict:
    """The mistake's TV path flattening at its floor while the correct one keeps falling;
    ``title`` (the rule's name) is a legend entry, data: the chart's title is the same for all."""
    band = comparison.band
    series = [
        Series(say("montecarlo.zoo_correct", icon=palette.TARGET.icon), (comparison.correct,), 0),
        Series(f"{palette.REJECTED.icon} {title}", (comparison.wrong,), 1),
        mean_series(band, 2),
    ]
    if comparison.tv > 0:  # total_variation already counts rounding as 0
        ends, tvs = np.array([1, int(band.n[-1])]), np.array([comparison.tv] * 2)  # a flat line
        floor = TVPath(ends, np.zeros((2, 1), dtype=np.int64), tvs)
        series.append(Series(say("montecarlo.zoo_floor", tv=tv_text(comparison.tv)), (floor,), 3))
    width = style.line_width + 1
    looks = [
        Look(palette.TARGET.color, width=width),
        Look(palette.REJECTED.color, width=width, dash=(10, 4)),
        MEAN_LOOK,
        Look(palette.INK, width=style.line_width / 2 + 0.5, dash=(2, 3)),
    ]
    return convergence_spec(series, looks, band, say("montecarlo.zoo_title"), style)


def zoo_chart_caption(comparison: ZooComparison, title: str, notation: Notation) -> str:
    """Where both paths end and from when the bias shows."""
    n, correct = thousands(int(comparison.band.n[-1])), tv_text(float(comparison.correct.tv[-1]))
    seen = say("montecarlo.zoo_exact")
    if comparison.detectable_from:
        seen = say("montecarlo.zoo_seen", n=thousands(comparison.detectable_from))
    level, out = f"{100 * comparison.band.level:.0f}", f"{100 * (1 - comparison.band.level):.0f}"
    # Say what is true of this run: an exact sampler ends outside its band 5% of the time.
    where = say("montecarlo.zoo_inside", level=level)
    if not comparison.correct_inside_band:
        where = say("montecarlo.zoo_outside", level=level, out=out)
    # The wrong rule sits on its floor only once the noise has fallen below it: say which.
    end, floor = float(comparison.wrong.tv[-1]), tv_text(comparison.tv)
    if comparison.tv <= 0:
        wrong = say("montecarlo.zoo_wrong", title=title, end=tv_text(end))
    elif end > float(comparison.band.upper[-1]):
        wrong = say("montecarlo.zoo_wrong_above", title=title, end=tv_text(end), floor=floor)
    else:
        wrong = say("montecarlo.zoo_wrong_hidden", title=title, end=tv_text(end), floor=floor)
    caption = say("montecarlo.zoo_alt", n=n, correct=correct, where=where, wrong=wrong, seen=seen)
    return notation.fill(caption)
