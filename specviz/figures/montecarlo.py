"""Charts and their alt text for the Monte Carlo and Bug zoo pages.

Bars are Plotly figures built as plain dicts (validated once, see :mod:`specviz.figures.style`);
the log–log convergence charts are Altair. Every number drawn or written is the core's
(:mod:`specviz.montecarlo`), so a test can read it back from the figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.figures.playground import bar, text_row
from specviz.figures.style import DEFAULT_STYLE, ChartStyle, figure, layout, percent, token_axis
from specviz.montecarlo import PER_DRAW, MonteCarloRun, ZooComparison
from specviz.palette import Notation
from specviz.stats import TVBand, TVPath

#: Bars of a pair sit at [x - 0.4, x - 0.02] and [x + 0.02, x + 0.4]: explicit offsets, so that
#: the exact values can be drawn as outlines exactly over them.
BAR_WIDTH = 0.38
LEFT, RIGHT = -0.4, 0.02
#: TV below this is rounding noise, shown as 0.
ZERO_TV = 1e-12
#: Numbers are printed on the bars only up to this many words; with more they would collide
#: (the values stay in the hover text and in the caption under the chart).
MAX_LABELLED_WORDS = 5


def _printed(labels: Sequence[str], texts: list[str]) -> list[str]:
    """``texts``, or blanks when the vocabulary is too large for numbers on the bars."""
    return texts if len(labels) <= MAX_LABELLED_WORDS else [""] * len(texts)


def tv_text(tv: float) -> str:
    """A total variation distance as math.md writes it, short enough for a metric.

    Three significant digits: .14 -> "0.14", .2333 -> "0.233"; below 0.001 in powers of ten,
    2.64e-05 -> "2.64·10⁻⁵" (never Python's "e-05").
    """
    if tv < ZERO_TV:
        return "0"
    tv = float(f"{tv:.3g}")
    if tv >= 1e-3:
        return np.format_float_positional(tv, precision=3, unique=False, fractional=False, trim="-")
    mantissa, exponent = f"{tv:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}·10{str(int(exponent)).translate(_SUPERSCRIPT)}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _ink(role: palette.Role) -> str:
    return palette.INK if role.pattern else role.color


def outline(
    name: str, centres: Sequence[float], heights: Sequence[float], style: ChartStyle, dash: str
) -> dict:
    """Exact values as short horizontal strokes over bars (one broken line, one legend entry)."""
    half = BAR_WIDTH / 2 + 0.01
    xs: list[float | None] = []
    ys: list[float | None] = []
    for c, h in zip(centres, heights, strict=True):
        xs += [float(c) - half, float(c) + half, None]
        ys += [float(h), float(h), None]
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": xs,
        "y": ys,
        "line": {"color": palette.INK, "width": style.line_width + 1, "dash": dash},
        "hoverinfo": "skip",
        "connectgaps": False,
    }


def _pair_layout(style: ChartStyle, title: str, labels: Sequence[str], top: float) -> dict:
    return layout(
        style,
        title,
        barmode="overlay",
        xaxis=token_axis(labels, style=style),
        yaxis={"range": [0, top * 1.22 if top > 0 else 1]},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )


# ------------------------------------------------------------------------------- Monte Carlo


def histogram_figure(
    labels: Sequence[str],
    p: np.ndarray,
    q: np.ndarray,
    run: MonteCarloRun,
    style: ChartStyle = DEFAULT_STYLE,
) -> go.Figure:
    """Emitted words against the target, the draft's proposals against the draft.

    Left bar of each word: how often it was emitted (should match ``p``); right bar: how often the
    draft proposed it (matches ``q`` — the draft alone would be biased). The exact ``p`` and ``q``
    are drawn as outlines over the bars.
    """
    n = run.n
    emitted = run.counts.output_counts / n
    proposed = run.counts.draft_counts / n
    x = np.arange(len(labels), dtype=float)
    left, right = x + LEFT + BAR_WIDTH / 2, x + RIGHT + BAR_WIDTH / 2
    t, d = style.notation.target, style.notation.draft
    common = {"width": BAR_WIDTH, "customdata": list(labels)}
    traces = [
        bar(
            f"{palette.TARGET.icon} emitted words",
            emitted,
            palette.TARGET,
            style,
            offset=LEFT,
            hovertemplate="%{customdata}: emitted %{y:.2%} of the runs<extra></extra>",
            **common,
        ),
        bar(
            f"{palette.DRAFT.icon} draft's proposals",
            proposed,
            palette.DRAFT,
            style,
            offset=RIGHT,
            hovertemplate="%{customdata}: proposed in %{y:.2%} of the runs<extra></extra>",
            **common,
        ),
        outline(f"exact target {t}", left, p, style, "dash"),
        outline(f"exact draft {d}", right, q, style, "dot"),
        # The shares sit above the bar or its outline, whichever is higher: never crossed out.
        text_row(
            np.concatenate([left, right]),
            np.concatenate([np.maximum(emitted, p), np.maximum(proposed, q)]),
            _printed(labels, [percent(v) for v in np.concatenate([emitted, proposed])]),
            style,
        ),
    ]
    top = float(max(emitted.max(), proposed.max(), p.max(), q.max()))
    title = f"Emitted words ≈ target {t}; proposals ≈ draft {d}"
    return figure(traces, _pair_layout(style, title, labels, top))


def histogram_caption(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, run: MonteCarloRun, notation: Notation
) -> str:
    """Every word's emitted and proposed share next to its exact p and q."""
    emitted = run.counts.output_counts / run.n
    proposed = run.counts.draft_counts / run.n
    parts = [
        f"{w}: emitted {percent(e)} (target {percent(pi)}), proposed {percent(r)} "
        f"(draft {percent(qi)})"
        for w, e, pi, r, qi in zip(labels, emitted, p, proposed, q, strict=True)
    ]
    return notation.fill(
        f"Grouped bars after N = {run.n:,} runs, exact values as outlines. "
        + "; ".join(parts)
        + "."
    )


def breakdown_figure(
    labels: Sequence[str], p: np.ndarray, run: MonteCarloRun, style: ChartStyle = DEFAULT_STYLE
) -> go.Figure:
    """Where every emitted word came from: accepted drafts stacked under bucket refills."""
    n = run.n
    accepted = run.counts.accepted_counts / n
    bucket = run.counts.residual_counts / n
    x = np.arange(len(labels), dtype=float)
    stack = accepted + bucket
    traces = [
        bar(
            f"{palette.ACCEPTED.icon} accepted drafts",
            accepted,
            palette.ACCEPTED,
            style,
            width=0.6,
            text=_printed(labels, [percent(v) if v > 0 else "" for v in accepted]),
            textposition="inside",
            insidetextanchor="middle",
            textangle=0,
            customdata=[f"{c:,}" for c in run.counts.accepted_counts],
            hovertemplate="accepted drafts: %{customdata} runs (%{y:.2%})<extra></extra>",
        ),
        bar(
            f"{palette.BUCKET.icon} from the bucket",
            bucket,
            palette.BUCKET,
            style,
            width=0.6,
            customdata=[f"{c:,}" for c in run.counts.residual_counts],
            hovertemplate="from the bucket: %{customdata} runs (%{y:.2%})<extra></extra>",
        ),
        outline(f"exact target {style.notation.target}", x, p, style, "dash"),
        # The bucket's share sits above the stack: no number is printed over the dotted fill.
        text_row(
            x,
            np.maximum(stack, p),
            _printed(
                labels, [f"{palette.BUCKET.icon} {percent(v)}" if v > 0 else "" for v in bucket]
            ),
            style,
        ),
    ]
    top = float(max(stack.max(), p.max()))
    spec = layout(
        style,
        "Where each emitted word came from",
        barmode="stack",
        xaxis=token_axis(labels, style=style),
        yaxis={"range": [0, top * 1.22 if top > 0 else 1]},
    )
    return figure(traces, spec)


def breakdown_caption(labels: Sequence[str], run: MonteCarloRun) -> str:
    """Accepted and bucket counts of every word."""
    counts = run.counts
    parts = [
        f"{w}: {a:,} accepted drafts + {b:,} from the bucket"
        for w, a, b in zip(labels, counts.accepted_counts, counts.residual_counts, strict=True)
    ]
    total_bucket = int(counts.residual_counts.sum())
    return (
        f"Stacked bars per word, as shares of the {run.n:,} runs. " + "; ".join(parts) + ". "
        f"In all, {total_bucket:,} runs ({percent(total_bucket / run.n)}) were refilled from the "
        "bucket."
    )


def sampler_note(run: MonteCarloRun, notation: Notation) -> str:
    """Which sampler drew the run, and why the count-level one is the same law."""
    if run.method == PER_DRAW:
        return (
            f"**Per-draw sampler** (`speculative_sample`): each of the {run.n:,} runs is simulated "
            "one by one — the draft proposes, the test accepts or rejects, a rejection is "
            "refilled from the bucket. Above 1,000,000 runs the page switches to the count-level "
            "sampler."
        )
    return notation.fill(
        f"**Count-level sampler** (`sample_counts`): {run.n:,} runs are too many to simulate one "
        "by one, so their *counts* are drawn directly. The runs are independent and identically "
        "distributed, so the counts follow an exact law: proposals ~ Multinomial(N, {D}), "
        "accepted ~ Binomial(proposals, min(1, {T}/{D})) per word, refills ~ Multinomial"
        "(rejections, bucket). `sample_counts` draws exactly that law — the same law as the "
        "per-draw sampler's counts, in microseconds."
    )


# ----------------------------------------------------------------------------- convergence


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
    on a log axis and are left out.
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
        if lo > 0
    ]
    return lines, band_rows


def convergence_chart(
    series: Sequence[Series],
    band: TVBand,
    title: str,
    style: ChartStyle = DEFAULT_STYLE,
) -> alt.LayerChart:
    """TV to the target versus N on log–log axes, over the 1/√N noise band of an exact sampler.

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
    values = [r["tv"] for r in rows] + [r["lower"] for r in band_rows]
    n_max = max(10, int(band.n[-1]))
    y_lo, y_hi = (min(values), max(values)) if values else (1e-3, 1.0)
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

    def by_series(values_: list) -> alt.Scale:
        return alt.Scale(domain=names, range=values_)

    x = alt.X(
        "n:Q",
        title="N runs (log scale)",
        scale=alt.Scale(type="log", domain=[1, n_max]),
        axis=alt.Axis(values=_decades(1, n_max), labelExpr=_N_LABELS, grid=True),
    )
    y_axis = alt.Axis(values=_decades(y_lo, y_hi), format="~g", grid=True)
    y_scale = alt.Scale(type="log", domain=[y_lo / 1.5, min(1.0, y_hi * 1.5)])
    y_title = style.fill("TV distance to {T} (log scale)")
    area = (
        alt.Chart(alt.Data(values=band_rows))
        .mark_area(opacity=0.6)
        .encode(
            x=x,
            y=alt.Y("lower:Q", scale=y_scale, axis=y_axis, title=y_title),
            y2="upper:Q",
            fill=alt.Fill(
                "band:N",
                scale=alt.Scale(domain=[band_name], range=[palette.GRID]),
                # Inside the plot, bottom left: every TV path starts high, so that corner is empty.
                legend=alt.Legend(
                    **{**legend, "orient": "bottom-left", "columns": 1},
                    symbolType="square",
                    fillColor="white",
                    padding=6,
                ),
            ),
        )
        .transform_calculate(band=f"'{band_name}'")
    )
    lines = (
        alt.Chart(alt.Data(values=rows))
        .mark_line(clip=True)
        .encode(
            x=x,
            y=alt.Y("tv:Q", title=y_title, scale=y_scale, axis=y_axis),
            stroke=alt.Stroke(
                "series:N",
                scale=by_series([s.color for s in everything]),
                legend=alt.Legend(
                    **legend, symbolType="stroke", symbolStrokeWidth=style.line_width + 1
                ),
            ),
            strokeDash=alt.StrokeDash(
                "series:N",
                scale=by_series([list(s.dash) or [1, 0] for s in everything]),
                legend=alt.Legend(
                    **legend, symbolType="stroke", symbolStrokeWidth=style.line_width + 1
                ),
            ),
            strokeWidth=alt.StrokeWidth(
                "series:N", scale=by_series([s.width for s in everything]), legend=None
            ),
            opacity=alt.Opacity(
                "series:N", scale=by_series([s.opacity for s in everything]), legend=None
            ),
            detail="line:N",
            tooltip=[
                alt.Tooltip("series:N", title="line"),
                alt.Tooltip("n:Q", title="N", format=","),
                alt.Tooltip("tv:Q", title="TV", format=".3g"),
            ],
        )
    )
    return (
        alt.layer(area, lines)
        .resolve_legend(fill="independent", stroke="shared")
        .properties(
            height=style.height + 60,
            title=alt.TitleParams(title, anchor="start", fontSize=size + 4),
        )
        .configure_axis(labelFontSize=size, titleFontSize=size, gridColor=palette.GRID)
        .configure_legend(labelFontSize=size)
        .configure_view(stroke=None)
    )


def _flat(tv: float, n_max: int) -> TVPath:
    """A horizontal line at ``tv`` from N = 1 to ``n_max``, as a two-point path."""
    cps = np.array([1, n_max], dtype=np.int64)
    return TVPath(cps, np.zeros((2, 1), dtype=np.int64), np.array([tv, tv]))


def monte_carlo_chart(
    runs: Sequence[MonteCarloRun], band: TVBand, style: ChartStyle = DEFAULT_STYLE
) -> alt.LayerChart:
    """Convergence of the correct sampler: the page's run (thick) and the other seeds (thin)."""
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
    return convergence_chart(series, band, f"Correct sampler, {len(runs)} seeds", style)


def monte_carlo_chart_caption(
    runs: Sequence[MonteCarloRun], band: TVBand, notation: Notation
) -> str:
    """The TV of every seed at N, against the band."""
    n = runs[0].n
    tvs = ", ".join(f"seed {r.seed} {tv_text(r.tv)}" for r in runs)
    return notation.fill(
        f"Log–log lines of the TV distance between the emitted words and {{T}} versus N, for "
        f"{len(runs)} seeds, over the shaded {100 * band.level:.0f}% band of an exact sampler. "
        f"At N = {n:,}: {tvs}; the band there reaches from {tv_text(float(band.lower[-1]))} to "
        f"{tv_text(float(band.upper[-1]))} and falls like 1/√N."
    )


# ------------------------------------------------------------------------------------ bug zoo


def zoo_law_figure(
    labels: Sequence[str],
    p: np.ndarray,
    comparison: ZooComparison,
    title: str,
    style: ChartStyle = DEFAULT_STYLE,
) -> go.Figure:
    """The mistaken rule's exact output law next to the target (= the correct rule's output)."""
    law = comparison.law
    t = style.notation.target
    common = {"width": BAR_WIDTH, "textposition": "outside", "customdata": list(labels)}
    traces = [
        bar(
            f"{palette.TARGET.icon} target {t} = output of the correct rule",
            p,
            palette.TARGET,
            style,
            offset=LEFT,
            text=_printed(labels, [percent(v) for v in p]),
            hovertemplate=f"%{{customdata}}: target {t} = %{{y:.2%}}<extra></extra>",
            **common,
        ),
        bar(
            f"{palette.REJECTED.icon} output of the mistake",
            law,
            palette.REJECTED,
            style,
            offset=RIGHT,
            text=_printed(labels, [percent(v) for v in law]),
            hovertemplate="%{customdata}: the mistake emits it %{y:.2%}<extra></extra>",
            **common,
        ),
    ]
    top = float(max(p.max(), law.max()))
    heading = f"{title}: its output vs {t}, TV = {tv_text(comparison.tv)}"
    return figure(traces, _pair_layout(style, heading, labels, top))


def zoo_law_caption(
    labels: Sequence[str], p: np.ndarray, comparison: ZooComparison, title: str, notation: Notation
) -> str:
    """Both laws, word by word, and their distance."""
    parts = [
        f"{w} {percent(a)} vs {percent(b)}"
        for w, a, b in zip(labels, comparison.law, p, strict=True)
    ]
    return notation.fill(
        f"Grouped bars: output of '{title}' vs target {{T}}, word by word: "
        + "; ".join(parts)
        + f". Total variation distance {tv_text(comparison.tv)}: that share of the probability "
        "mass lands on the wrong words."
    )


def zoo_chart(
    comparison: ZooComparison, title: str, style: ChartStyle = DEFAULT_STYLE
) -> alt.LayerChart:
    """The mistake's TV path flattening at its floor while the correct one keeps falling."""
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
    if comparison.tv >= ZERO_TV:
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
    return convergence_chart(series, comparison.band, "The mistake stalls at its floor", style)


def zoo_chart_caption(comparison: ZooComparison, title: str, notation: Notation) -> str:
    """Where both paths end and from when the bias shows."""
    n = int(comparison.band.n[-1])
    seen = (
        f"From about N = {comparison.detectable_from:,} runs on, the bias is larger than the "
        "noise band."
        if comparison.detectable_from
        else "On this pair the mistake happens to be exact: both lines fall like 1/√N."
    )
    return notation.fill(
        f"Log–log lines of the TV distance to {{T}} versus N, up to N = {n:,}. The correct rule "
        f"ends at {tv_text(float(comparison.correct.tv[-1]))}, inside the shaded "
        f"{100 * comparison.band.level:.0f}% noise band that falls like 1/√N; '{title}' ends at "
        f"{tv_text(float(comparison.wrong.tv[-1]))}, on its floor {tv_text(comparison.tv)}. " + seen
    )


# ------------------------------------------------------------------------------ one setting


def monte_carlo_figures(
    labels: Sequence[str],
    p: np.ndarray,
    q: np.ndarray,
    runs: Sequence[MonteCarloRun],
    band: TVBand,
    style: ChartStyle = DEFAULT_STYLE,
) -> dict[str, tuple[go.Figure | dict, str]]:
    """Every chart of the Monte Carlo page with its alt text: ``{"hist", "source", "tv"}``.

    The convergence chart comes as a Vega-Lite dict: ``st.altair_chart`` would run Altair's schema
    validation (~60 ms) on every rerun, while a cached dict costs nothing. The dict is produced
    without validation; the tests validate the same chart (``monte_carlo_chart(...).to_dict()``).
    """
    run, notation = runs[0], style.notation
    return {
        "hist": (
            histogram_figure(labels, p, q, run, style),
            histogram_caption(labels, p, q, run, notation),
        ),
        "source": (breakdown_figure(labels, p, run, style), breakdown_caption(labels, run)),
        "tv": (
            monte_carlo_chart(runs, band, style).to_dict(validate=False),
            monte_carlo_chart_caption(runs, band, notation),
        ),
    }


def zoo_figures(
    labels: Sequence[str],
    p: np.ndarray,
    comparison: ZooComparison,
    title: str,
    style: ChartStyle = DEFAULT_STYLE,
) -> dict[str, tuple[go.Figure | dict, str]]:
    """Both charts of the Bug zoo page with their alt text: ``{"law", "tv"}`` (see above)."""
    notation = style.notation
    return {
        "law": (
            zoo_law_figure(labels, p, comparison, title, style),
            zoo_law_caption(labels, p, comparison, title, notation),
        ),
        "tv": (
            zoo_chart(comparison, title, style).to_dict(validate=False),
            zoo_chart_caption(comparison, title, notation),
        ),
    }
