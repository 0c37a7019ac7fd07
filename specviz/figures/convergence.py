"""Convergence charts: the TV distance to the target against N on log–log axes, over the noise
band of an exact sampler, as Vega-Lite specs written as dicts. The Monte Carlo page shows the
correct sampler from several seeds; the Bug zoo a rule that stalls at its floor next to the
correct one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from specviz import palette
from specviz.figures.numbers import tv_text
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.palette import Notation
from specviz.runs import MonteCarloRun
from specviz.stats import TVBand, TVPath
from specviz.zoo import ZooComparison


@dataclass(frozen=True)
class Series:
    """Lines of a convergence chart that share one legend entry (e.g. several seeds).

    Attributes
    ----------
    name : str
        The legend entry.
    paths : tuple of TVPath
        One line per path.
    color : str
        Line colour.
    width : float
        Line width in px.
    dash : tuple of int
        Vega-Lite stroke dash (empty: solid); a second cue besides the colour.
    opacity : float
        Line opacity.
    """

    name: str
    paths: tuple[TVPath, ...]
    color: str
    width: float = 2.0
    dash: tuple[int, ...] = ()
    opacity: float = 1.0


#: Tick labels of the N axis: 1, 10, 100, 1k, ..., 1B.
_N_LABELS = (
    "datum.value >= 1e9 ? format(datum.value / 1e9, '~g') + 'B' : "
    "datum.value >= 1e6 ? format(datum.value / 1e6, '~g') + 'M' : "
    "datum.value >= 1e3 ? format(datum.value / 1e3, '~g') + 'k' : format(datum.value, '~g')"
)


def _decades(lo: float, hi: float) -> list[float]:
    a, b = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    return [10.0**k for k in range(a, b + 1)]


def convergence_rows(series: Sequence[Series], band: TVBand) -> tuple[list[dict], list[dict]]:
    """The chart's data: one row per (line, checkpoint) with TV > 0, and the band's rows.

    Points with TV = 0 (possible at small N, when the counts hit the target exactly) cannot sit
    on a log axis and are left out. The band keeps every checkpoint where it is above 0; a lower
    edge of 0 (an exact run can hit the target exactly) is drawn down to the axis's floor by
    :func:`convergence_spec`.
    """
    lines = [
        {"series": s.name, "line": f"{s.name} #{i}", "n": int(n), "tv": float(tv)}
        for s in series
        for i, path in enumerate(s.paths)
        for n, tv in zip(path.checkpoints, path.tv, strict=True)
        if tv > 0
    ]
    band_rows = [
        {"n": int(n), "lower": float(lo), "upper": float(hi), "mean": float(m)}
        for n, lo, hi, m in zip(band.n, band.lower, band.upper, band.mean, strict=True)
        if hi > 0
    ]
    return lines, band_rows


_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"


def _sorted(**entries: object) -> dict:
    """Altair writes a schema object's properties in alphabetical order."""
    return {key: entries[key] for key in sorted(entries)}


def convergence_spec(
    series: Sequence[Series],
    band: TVBand,
    title: str,
    style: ChartStyle = DEFAULT_STYLE,
) -> dict:
    """TV to the target versus N on log–log axes, over the noise band of an exact sampler, as
    a Vega-Lite spec.

    Written as a dict, key for key what Altair would write: building it through Altair cost
    25–90 ms per new state, this 0.24 ms. The tests validate every spec against Vega-Lite's
    schema with Altair (``alt.LayerChart.from_dict``).

    Parameters
    ----------
    series : sequence of Series
        The TV paths, one legend entry per series. A flat "floor" line is a series too (a path
        with two checkpoints).
    band : TVBand
        Where an exact sampler's TV lies (shaded, its own legend) and its mean (dashed grey,
        slope −1/2 on log–log axes).
    title : str
        Chart title (keep it short: it does not wrap).
    style : ChartStyle
        Sizes (projector mode) and lettering.
    """
    mean_name = "average of an exact sampler: 1/√N"
    band_name = f"{100 * band.level:.0f}% of exact runs land here"
    mean = Series(
        mean_name,
        (TVPath(band.n, np.zeros((band.n.size, 0), dtype=np.int64), band.mean),),
        palette.NEUTRAL.color,
        width=2.0,
        dash=(8, 5),
    )
    everything = [*series, mean]
    rows, band_rows = convergence_rows(everything, band)
    names = [s.name for s in everything]
    values = [r["tv"] for r in rows] + [r[k] for r in band_rows for k in ("lower", "upper")]
    values = [v for v in values if v > 0]
    n_max = max(10, int(band.n[-1]))
    y_lo, y_hi = (min(values), max(values)) if values else (1e-3, 1.0)
    floor = y_lo / 1.5  # the axis's bottom: where a band reaching down to 0 is cut
    band_rows = [{**r, "lower": max(r["lower"], floor)} for r in band_rows]
    # A single checkpoint (N = 1) draws no line and no area: mark the point, draw the band as a
    # bar, and start the axis just left of N = 1 so neither sits on its edge.
    single = len(band.n) < 2
    size = style.font_size
    legend = {
        "title": None,
        "orient": "bottom",
        "direction": "vertical",
        "columns": 2,
        "labelLimit": 0,
        "labelFontSize": size,
        "symbolSize": 500 if style.projector else 300,
    }

    def by_series(values_: list) -> dict:
        return {"domain": list(names), "range": values_}

    x = _sorted(
        axis=_sorted(values=_decades(1, n_max), labelExpr=_N_LABELS, grid=True),
        field="n",
        scale=_sorted(type="log", domain=[0.7 if single else 1, n_max]),
        title="N runs (log scale)",
        type="quantitative",
    )
    y_title = style.fill("TV distance to {T} (log scale)")

    def y(field_: str) -> dict:
        return _sorted(
            axis=_sorted(values=_decades(y_lo, y_hi), format="~g", grid=True),
            field=field_,
            scale=_sorted(type="log", domain=[y_lo / 1.5, min(1.0, y_hi * 1.5)]),
            title=y_title,
            type="quantitative",
        )

    line_legend = _sorted(**legend, symbolType="stroke", symbolStrokeWidth=style.line_width + 1)
    area = {
        "data": {"values": band_rows},
        "mark": {"type": "bar", "opacity": 0.6, "width": 18}
        if single
        else {"type": "area", "opacity": 0.6},
        "encoding": _sorted(
            fill=_sorted(
                field="band",
                legend=_sorted(
                    **{**legend, "orient": "bottom-left", "columns": 1},
                    symbolType="square",
                    fillColor="white",
                    padding=6,
                ),
                scale={"domain": [band_name], "range": [palette.GRID]},
                type="nominal",
            ),
            x=x,
            y=y("lower"),
            y2={"field": "upper"},
        ),
        "transform": [{"calculate": f"'{band_name}'", "as": "band"}],
    }
    lines = {
        "data": {"values": rows},
        "mark": {"type": "line", "clip": True, "point": {"filled": True, "size": 90}}
        if single
        else {"type": "line", "clip": True},
        "encoding": _sorted(
            x=x,
            y=y("tv"),
            stroke=_sorted(
                field="series",
                scale=by_series([s.color for s in everything]),
                legend=line_legend,
                type="nominal",
            ),
            strokeDash=_sorted(
                field="series",
                scale=by_series([list(s.dash) or [1, 0] for s in everything]),
                legend=dict(line_legend),
                type="nominal",
            ),
            strokeWidth=_sorted(
                field="series",
                scale=by_series([s.width for s in everything]),
                legend=None,
                type="nominal",
            ),
            opacity=_sorted(
                field="series",
                scale=by_series([s.opacity for s in everything]),
                legend=None,
                type="nominal",
            ),
            detail={"field": "line", "type": "nominal"},
            tooltip=[
                _sorted(field="series", title="line", type="nominal"),
                _sorted(field="n", title="N", format=",", type="quantitative"),
                _sorted(field="tv", title="TV", format=".3g", type="quantitative"),
            ],
        ),
    }
    return {
        "config": {
            "view": {"continuousWidth": 300, "continuousHeight": 300, "stroke": None},
            "axis": _sorted(labelFontSize=size, titleFontSize=size, gridColor=palette.GRID),
            "legend": {"labelFontSize": size},
        },
        "layer": [area, lines],
        "height": style.height + 60,
        "resolve": {"legend": {"fill": "independent", "stroke": "shared"}},
        "title": {"text": title, "anchor": "start", "fontSize": size + 4},
        "$schema": _SCHEMA,
    }


def _flat(tv: float, n_max: int) -> TVPath:
    """A horizontal line at ``tv`` from N = 1 to ``n_max``, as a two-point path."""
    cps = np.array([1, n_max], dtype=np.int64)
    return TVPath(cps, np.zeros((2, 1), dtype=np.int64), np.array([tv, tv]))


def monte_carlo_spec(
    runs: Sequence[MonteCarloRun], band: TVBand, style: ChartStyle = DEFAULT_STYLE
) -> dict:
    """Convergence of the correct sampler: the page's run (thick) and the other seeds (thin)."""
    series = _monte_carlo_series(runs, style)
    return convergence_spec(series, band, f"Correct sampler, {len(runs)} seeds", style)


def _monte_carlo_series(runs: Sequence[MonteCarloRun], style: ChartStyle) -> list[Series]:
    main, others = runs[0], runs[1:]
    series = [
        Series(
            f"{palette.TARGET.icon} seed {main.seed}: the run above",
            (main.path,),
            palette.TARGET.color,
            width=style.line_width + 2,
        )
    ]
    if others:
        series.append(
            Series(
                f"seeds {others[0].seed}–{others[-1].seed}",
                tuple(r.path for r in others),
                palette.TARGET.color,
                width=style.line_width / 2 + 0.5,
                dash=(4, 2),
                opacity=0.7,
            )
        )
    return series


def monte_carlo_chart_caption(
    runs: Sequence[MonteCarloRun], band: TVBand, notation: Notation
) -> str:
    """The TV of every seed at N, against the band."""
    n = runs[0].n
    tvs = ", ".join(f"seed {r.seed} {tv_text(r.tv)}" for r in runs)
    zeros = [int(m) for m, lo in zip(band.n, band.lower, strict=True) if lo == 0 and m > 1]
    where = ", ".join(f"{m:,}" for m in zeros)
    exact = (
        f" Where the band reaches the bottom of the chart (N = {where}) an exact run can land"
        " exactly on {T}, at distance 0."
        if zeros
        else ""
    )
    return notation.fill(
        f"Log–log lines of the TV distance between the emitted words and {{T}} versus N, for "
        f"{_count(len(runs), 'seed')}, over the shaded {100 * band.level:.0f}% band of an exact "
        f"sampler. At N = {n:,}: {tvs}; the band there reaches from "
        f"{tv_text(float(band.lower[-1]))} to {tv_text(float(band.upper[-1]))}"
        + (" and falls like 1/√N." if n > 1 else ".")
        + exact
    )


def _count(k: int, noun: str) -> str:
    return f"{k:,} {noun}" if k == 1 else f"{k:,} {noun}s"


# ------------------------------------------------------------------------------------ bug zoo


def zoo_spec(comparison: ZooComparison, title: str, style: ChartStyle = DEFAULT_STYLE) -> dict:
    """The mistake's TV path flattening at its floor while the correct one keeps falling."""
    series = _zoo_series(comparison, title, style)
    return convergence_spec(series, comparison.band, "The mistake stalls at its floor", style)


def _zoo_series(comparison: ZooComparison, title: str, style: ChartStyle) -> list[Series]:
    width = style.line_width + 1
    series = [
        Series(
            f"{palette.TARGET.icon} correct rule",
            (comparison.correct,),
            palette.TARGET.color,
            width=width,
        ),
        Series(
            f"{palette.REJECTED.icon} {title}",
            (comparison.wrong,),
            palette.REJECTED.color,
            width=width,
            dash=(10, 4),
        ),
    ]
    if comparison.tv > 0:  # total_variation already counts rounding as 0
        n_max = int(comparison.band.n[-1])
        series.append(
            Series(
                f"its floor: TV = {tv_text(comparison.tv)}",
                (_flat(comparison.tv, n_max),),
                palette.INK,
                width=style.line_width / 2 + 0.5,
                dash=(2, 3),
            )
        )
    return series


def zoo_chart_caption(comparison: ZooComparison, title: str, notation: Notation) -> str:
    """Where both paths end and from when the bias shows."""
    n = int(comparison.band.n[-1])
    seen = (
        f"From about N = {comparison.detectable_from:,} runs on, the bias is larger than the "
        "noise band."
        if comparison.detectable_from
        else "On this pair the mistake happens to be exact: both lines fall like 1/√N."
    )
    band = f"the shaded {100 * comparison.band.level:.0f}% noise band that falls like 1/√N"
    # Say what is true of this run: an exact sampler ends outside its band 5% of the time.
    where = (
        f"inside {band}"
        if comparison.correct_inside_band
        else f"just outside {band} (an exact sampler lands outside it in "
        f"{100 * (1 - comparison.band.level):.0f}% of runs)"
    )
    # The wrong rule sits on its floor only once the noise has fallen below it: say which.
    wrong_end = float(comparison.wrong.tv[-1])
    if comparison.tv <= 0:
        wrong = f"'{title}' ends at {tv_text(wrong_end)}."
    elif wrong_end > float(comparison.band.upper[-1]):
        wrong = (
            f"'{title}' ends at {tv_text(wrong_end)}, above the band: its floor "
            f"{tv_text(comparison.tv)} is larger than the noise at this N."
        )
    else:
        wrong = (
            f"'{title}' ends at {tv_text(wrong_end)}, like an exact sampler: at this N the noise "
            f"still hides its floor {tv_text(comparison.tv)}."
        )
    return notation.fill(
        f"Log–log lines of the TV distance to {{T}} versus N, up to N = {n:,}. The correct rule "
        f"ends at {tv_text(float(comparison.correct.tv[-1]))}, {where}; {wrong} " + seen
    )
