"""The Monte Carlo page's bar charts and their alt text: what came out, and where it came from.

Bars are Vega-Lite specs (:mod:`specviz.figures.vega`) whose every number — a share, an exact
value, a label over a bar, the room the labels need — is a row of a named dataset, so a new N,
seed or pair of weights updates the chart on the page in place, and a test can read every
number drawn back from the spec. Every number is the run's (:mod:`specviz.runs`) or the step's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specviz import palette
from specviz.figures import vega
from specviz.figures.convergence import chart_title, monte_carlo_chart_caption, monte_carlo_spec
from specviz.figures.fit import fit_row
from specviz.figures.numbers import count, percent
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.one_token import OneTokenStep
from specviz.palette import Notation, Role
from specviz.runs import MonteCarloRun
from specviz.stats import TVBand

#: Room over the tallest bar, as a share of its height, for the numbers printed over the bars.
HEADROOM = 1.22

#: Gap between the two bars of a pair, as a share of a bar's step.
PAIR_GAP = 0.08
#: How far an exact value's stroke reaches past its bar's sides, as a share of the word's band.
STROKE_PAST = 0.015

#: Steps between the ticks of a share axis, the first that leaves at most six intervals.
_TICK_STEPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25)


def share_axis_y(field: str) -> dict:
    """The y encoding of shares of every bar chart here: percent, from 0 up to the data (no
    rounding up), ticks from dataset ``yticks`` (:func:`share_ticks`)."""
    y = vega.share_y(None, field)
    y["scale"] = {**y["scale"], "nice": False}
    # No tick count: Vega would thin the given values down to it.
    axis = {k: v for k, v in y["axis"].items() if k != "tickCount"}
    y["axis"] = {**axis, "values": {"expr": "pluck(data('yticks'), 'v')"}}
    return y


def share_ticks(room: float) -> list[dict]:
    """The ticks of a share axis reaching up to ``room``: evenly spaced, at most seven, never past
    100 % (a share cannot be more; the axis only goes higher to make room for numbers)."""
    top = min(room, 1.0)
    step = next((s for s in _TICK_STEPS if top / s <= 6 + 1e-9), _TICK_STEPS[-1])
    return [{"v": round(k * step, 10)} for k in range(int(top / step + 1e-9) + 1)]


def room_layers(dataset: str, style: ChartStyle) -> list[dict]:
    """Invisible marks: one at each row's ``room``, so that the y axis reaches up to it (Vega's
    automatic domain follows the data) and the numbers over the bars fit whatever the state;
    one reading the axis's ticks (dataset ``yticks``, at or under the room)."""
    return [
        {
            "data": vega.data(dataset),
            "mark": {"type": "point", "opacity": 0},
            "encoding": {"x": vega.word_x(style), "y": share_axis_y("room")},
        },
        {
            "data": vega.data("yticks"),
            "mark": {"type": "point", "opacity": 0},
            "encoding": {"y": share_axis_y("v")},
        },
    ]


def pair_rows(
    labels: Sequence[str],
    kinds: tuple[str, str],
    left: np.ndarray,
    right: np.ndarray,
    style: ChartStyle,
    *,
    exact: tuple[np.ndarray, np.ndarray] | None = None,
    headroom: float = HEADROOM,
) -> list[dict]:
    """The rows of a chart of two bars per word: one per (word, bar) with its ``share``, its
    exact value (``exact``, optional, drawn as a stroke over the bar), the printed share
    (``label``, "" where the row of numbers could not be read: :func:`fit.fit_row`) and the
    height it is printed at (``label_y``, over the bar or its stroke, whichever is higher)."""
    shares = np.column_stack([left, right]).ravel()
    exacts = np.column_stack(exact).ravel() if exact is not None else shares
    heights = np.maximum(shares, exacts)
    top = float(heights.max()) if heights.size else 0.0
    printed = fit_row([[percent(v) for v in shares]], heights, top * headroom, style)
    return [
        {
            "i": k // 2,
            "j": k % 2,
            "word": labels[k // 2],
            "kind": kinds[k % 2],
            "share": float(shares[k]),
            "exact": float(exacts[k]),
            "label": printed[k],
            "label_y": float(heights[k]),
            "room": top * headroom if top > 0 else 1.0,
        }
        for k in range(shares.size)
    ]


def pair_layers(kinds: tuple[str, str], roles: tuple[Role, Role], style: ChartStyle) -> list:
    """Two bars per word from dataset ``bars`` (:func:`pair_rows`), each in its role's colour and
    outline (the pattern's second cue), legend names with their icons, the shares over them."""
    offset = {
        "field": "kind",
        "type": "nominal",
        "scale": {"domain": list(kinds), "paddingInner": PAIR_GAP, "paddingOuter": 0},
        "title": None,
    }
    x = vega.word_x(style)
    tooltip = [
        {"field": "word", "type": "nominal"},
        {"field": "kind", "type": "nominal", "title": "bar"},
        {"field": "share", "type": "quantitative", "format": ".2%"},
    ]
    encoding = {"x": x, "xOffset": offset, "y": share_axis_y("share"), "tooltip": tooltip}
    bars = role_layers("bars", "kind", kinds, roles, style, encoding)
    numbers = {
        "data": vega.data("bars"),
        "mark": {"type": "text", "baseline": "bottom", "dy": -(style.line_width + 2)},
        "encoding": {
            "x": x,
            "xOffset": offset,
            "y": share_axis_y("label_y"),
            "text": {"field": "label"},
        },
    }
    return [*bars, numbers, *room_layers("bars", style)]


def role_layers(
    dataset: str,
    field: str,
    names: Sequence[str],
    roles: Sequence[Role],
    style: ChartStyle,
    encoding: dict,
    **mark: object,
) -> list[dict]:
    """Bars of several roles, one layer per role (rows with ``j`` = its index), each drawn by
    :func:`vega.role_bar` (colour, and a patterned role's dashed outline). The legend comes
    from fill and outline encoded by ``field`` (Vega-Lite merges them into one legend, the
    names carrying the roles' icons)."""

    def channel(values: list) -> dict:
        scale = {"domain": list(names), "range": values}
        return {"field": field, "type": "nominal", "scale": scale, "legend": {"title": None}}

    legend = {
        "fill": channel([r.color for r in roles]),
        "stroke": channel([_ink(r) for r in roles]),
    }
    return [
        {
            "data": vega.data(dataset),
            "transform": [{"filter": f"datum.j == {j}"}],
            "mark": vega.role_bar(role, style, **mark),
            "encoding": {**encoding, **legend},
        }
        for j, role in enumerate(roles)
    ]


def _ink(role: Role) -> str:
    """A bar's outline: ink (dashed) for a patterned role, its own colour otherwise."""
    return palette.INK if role.pattern else role.color


def histogram_figure(
    labels: Sequence[str],
    step: OneTokenStep,
    run: MonteCarloRun,
    style: ChartStyle = DEFAULT_STYLE,
) -> dict:
    """Emitted words against the target, the draft's proposals against the draft.

    Left bar of each word: how often it was emitted (should match ``p``); right bar: how often the
    draft proposed it (matches ``q`` — the draft alone would be biased). The exact ``p`` and ``q``
    are drawn as strokes over the bars; the shares sit above the bar or its stroke, whichever is
    higher (never crossed out), in pairs, so the row is read left bar, right bar, next word.
    """
    t, d = style.notation.target, style.notation.draft
    kinds = (f"{palette.TARGET.icon} emitted words", f"{palette.DRAFT.icon} draft's proposals")
    exact_names = [f"exact target {t}", f"exact draft {d}"]
    emitted = run.counts.output_counts / run.n
    proposed = run.counts.draft_counts / run.n
    rows = pair_rows(labels, kinds, emitted, proposed, style, exact=(step.p, step.q))
    for row in rows:
        row["exact_name"] = exact_names[kinds.index(row["kind"])]
    dashes = {"domain": exact_names, "range": [[7, 4], [2, 3]]}
    strokes = [exact_rule("bars", pair_band(j), style, dashes, f"datum.j == {j}") for j in (0, 1)]
    layers = [*pair_layers(kinds, (palette.TARGET, palette.DRAFT), style), *strokes]
    title = f"Emitted words ≈ target {t}; proposals ≈ draft {d}"
    datasets = {"bars": rows, "yticks": share_ticks(rows[0]["room"] if rows else 1.0)}
    return vega.chart(style, chart_title(title, style), datasets, layers)


def pair_band(j: int) -> tuple[float, float]:
    """Where bar ``j`` (0 left, 1 right) of a pair sits in its word's band, as fractions of the
    band (Vega's band scale of two with :data:`PAIR_GAP` between them), a little past its sides
    (not past the band's: Vega-Lite's band positions run from 0 to 1)."""
    step = 1 / (2 - PAIR_GAP)
    start = j * step
    return max(0.0, start - STROKE_PAST), min(1.0, start + step * (1 - PAIR_GAP) + STROKE_PAST)


def exact_rule(
    dataset: str, span: tuple[float, float], style: ChartStyle, dashes: dict, keep: str = ""
) -> dict:
    """Exact values (field ``exact``) as dashed ink strokes across a bar at ``span`` of its
    word's band, dashed by field ``exact_name`` with its own legend; ``keep`` filters rows."""
    layer = {
        "data": vega.data(dataset),
        "mark": {"type": "rule", "color": palette.INK, "strokeWidth": style.line_width + 1},
        "encoding": {
            "x": {**vega.word_x(style), "bandPosition": span[0]},
            "x2": {"field": "word", "bandPosition": span[1]},
            "y": share_axis_y("exact"),
            "strokeDash": {
                "field": "exact_name",
                "type": "nominal",
                "scale": dashes,
                "legend": _stroke_legend(style),
            },
        },
    }
    return layer | ({"transform": [{"filter": keep}]} if keep else {})


def _stroke_legend(style: ChartStyle) -> dict:
    """The legend of exact values drawn as strokes: a dashed line in ink."""
    return {
        "title": None,
        "symbolType": "stroke",
        "symbolStrokeColor": palette.INK,
        "symbolStrokeWidth": style.line_width + 1,
    }


def histogram_caption(
    labels: Sequence[str], step: OneTokenStep, run: MonteCarloRun, notation: Notation
) -> str:
    """Every word's emitted and proposed share next to its exact p and q."""
    p, q = step.p, step.q
    emitted = run.counts.output_counts / run.n
    proposed = run.counts.draft_counts / run.n
    parts = [
        f"{w}: emitted {percent(e)} (target {percent(pi)}), proposed {percent(r)} "
        f"(draft {percent(qi)})"
        for w, e, pi, r, qi in zip(labels, emitted, p, proposed, q, strict=True)
    ]
    return notation.fill(
        f"Grouped bars after N = {count(run.n, 'run')}, exact values as outlines. "
        + "; ".join(parts)
        + "."
    )


def breakdown_rows(
    labels: Sequence[str], step: OneTokenStep, run: MonteCarloRun, style: ChartStyle
) -> dict[str, list[dict]]:
    """The breakdown's datasets: ``parts`` (one row per word and source, stacked) and ``words``
    (one per word: exact p, the accepted share printed inside its bar, the whole stack's share
    over it — a number over a stack reads as the stack's total — and the room above)."""
    n, p = run.n, step.p
    counts = run.counts
    accepted, bucket = counts.accepted_counts / n, counts.residual_counts / n
    stack = accepted + bucket
    top = float(max(stack.max(), p.max()))
    above = np.maximum(stack, p)
    inside = fit_row([[percent(v) if v > 0 else "" for v in accepted]], accepted / 2, top, style)
    totals = fit_row([[percent(v) if v > 0 else "" for v in stack]], above, top * HEADROOM, style)
    names = _sources()
    # Stacked here (bottom ``base``, top ``top``): one layer per source, as each is drawn.
    parts = [
        {"i": i, "word": w, "part": names[j], "j": j, "share": float(share), "count": int(c)}
        | {"base": float(base), "top": float(base + share)}
        for i, w in enumerate(labels)
        for j, (share, c, base) in enumerate(
            (
                (accepted[i], counts.accepted_counts[i], 0.0),
                (bucket[i], counts.residual_counts[i], accepted[i]),
            )
        )
    ]
    words = [
        {
            "i": i,
            "word": w,
            "exact": float(p[i]),
            "exact_name": f"exact target {style.notation.target}",
        }
        | {"inside": inside[i], "inside_y": float(accepted[i] / 2), "total": float(stack[i])}
        | {"label": totals[i], "label_y": float(above[i]), "room": top * HEADROOM if top else 1.0}
        for i, w in enumerate(labels)
    ]
    return {
        "parts": parts,
        "words": words,
        "yticks": share_ticks(words[0]["room"] if words else 1.0),
    }


def _sources() -> tuple[str, str]:
    return (f"{palette.ACCEPTED.icon} accepted drafts", f"{palette.BUCKET.icon} from the bucket")


def breakdown_figure(
    labels: Sequence[str], step: OneTokenStep, run: MonteCarloRun, style: ChartStyle = DEFAULT_STYLE
) -> dict:
    """Where every emitted word came from: accepted drafts stacked under bucket refills."""
    names, roles = _sources(), (palette.ACCEPTED, palette.BUCKET)
    x = vega.word_x(style)

    tooltip = [
        {"field": "word", "type": "nominal"},
        {"field": "part", "type": "nominal", "title": "source"},
        {"field": "count", "type": "quantitative", "title": "runs", "format": ","},
        {"field": "share", "type": "quantitative", "format": ".2%"},
    ]
    encoding = {"x": x, "y": share_axis_y("top"), "y2": {"field": "base"}, "tooltip": tooltip}
    stack = role_layers("parts", "part", names, roles, style, encoding, width={"band": 0.6})
    dashes = {"domain": [f"exact target {style.notation.target}"], "range": [[7, 4]]}
    exact = exact_rule("words", (0.5 - 0.3 - STROKE_PAST, 0.5 + 0.3 + STROKE_PAST), style, dashes)
    inside = {
        "data": vega.data("words"),
        "mark": {"type": "text", "baseline": "middle", "fontWeight": 600},
        "encoding": {"x": x, "y": share_axis_y("inside_y"), "text": {"field": "inside"}},
    }
    over = {
        "data": vega.data("words"),
        "mark": {"type": "text", "baseline": "bottom", "dy": -(style.line_width + 2)},
        "encoding": {"x": x, "y": share_axis_y("label_y"), "text": {"field": "label"}},
    }
    layers = [*stack, exact, inside, over, *room_layers("words", style)]
    datasets = breakdown_rows(labels, step, run, style)
    title = "Where each emitted word came from"
    return vega.chart(style, chart_title(title, style), datasets, layers)


def breakdown_caption(labels: Sequence[str], run: MonteCarloRun) -> str:
    """Accepted and bucket counts of every word."""
    counts = run.counts
    parts = [
        f"{w}: {a:,} accepted drafts + {b:,} from the bucket"
        for w, a, b in zip(labels, counts.accepted_counts, counts.residual_counts, strict=True)
    ]
    total_bucket = int(counts.residual_counts.sum())
    return (
        f"Stacked bars per word, as shares of {count(run.n, 'run')}. " + "; ".join(parts) + ". "
        f"In all, {count(total_bucket, 'run')} ({percent(total_bucket / run.n)}) "
        "were refilled from the "
        "bucket."
    )


def monte_carlo_figures(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle,
    runs: Sequence[MonteCarloRun],
    band: TVBand,
) -> dict[str, tuple[dict, str]]:
    """Every chart of the Monte Carlo page (Vega-Lite specs) with its alt text:
    ``{"hist", "source", "tv"}``."""
    run, notation = runs[0], style.notation
    return {
        "hist": (
            histogram_figure(labels, step, run, style),
            histogram_caption(labels, step, run, notation),
        ),
        "source": (breakdown_figure(labels, step, run, style), breakdown_caption(labels, run)),
        "tv": (
            monte_carlo_spec(runs, band, style),
            monte_carlo_chart_caption(runs, band, notation),
        ),
    }
