"""The Monte Carlo page's bar charts with their alt text (what came out, and where it came from)
and its sentences (what the test says, which sampler ran). Every number drawn is a row of a
named dataset of the Vega-Lite spec: a new state updates the chart in place."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from specviz import palette
from specviz.figures import vega
from specviz.figures.convergence import monte_carlo_chart_caption, monte_carlo_spec
from specviz.figures.fit import fit_row
from specviz.figures.numbers import count, fine_percent, percent, significant, thousands, tv_text
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.limits import PER_DRAW_MAX
from specviz.one_token import OneTokenStep
from specviz.palette import Notation, Role
from specviz.runs import PER_DRAW, MonteCarloRun
from specviz.stats import GofResult, TVBand
from specviz.text import say, titles

#: Room over the tallest bar, as a share of its height, for the numbers printed over the bars.
HEADROOM = 1.22


def pair_data(
    labels: Sequence[str],
    kinds: tuple[str, str],
    left: np.ndarray,
    right: np.ndarray,
    style: ChartStyle,
    *,
    exact: tuple[np.ndarray, np.ndarray] | None = None,
    headroom: float = HEADROOM,
) -> dict[str, list[dict]]:
    """The datasets of two bars per word: ``bars``, a row per (word, bar) with its ``share``, its
    ``exact`` value (a stroke over the bar), the printed share (``label``; where neighbours would
    touch, the left bars' only; "" where unreadable) and its height ``label_y``, over bar or
    stroke; and ``yticks``, up to the rows' ``room``."""
    shares = np.column_stack([left, right]).ravel()
    exacts = np.column_stack(exact).ravel() if exact is not None else shares
    heights = np.maximum(shares, exacts)
    room = float(heights.max()) * headroom  # a law's shares: never all 0
    every = [percent(v) for v in shares]
    printed = fit_row(
        [every, [t if k % 2 == 0 else "" for k, t in enumerate(every)]],
        heights,
        room,
        style,
        pairs=True,
    )
    bars = [
        {"i": k // 2, "j": k % 2, "word": labels[k // 2], "kind": kinds[k % 2], "label": printed[k]}
        | {"share": float(s), "exact": float(e), "label_y": float(h), "room": room}
        for k, (s, e, h) in enumerate(zip(shares, exacts, heights, strict=True))
    ]
    return {"bars": bars, "yticks": vega.share_ticks(room)}


def pair_layers(kinds: tuple[str, str], roles: tuple[Role, Role], style: ChartStyle) -> list:
    """Two bars per word from dataset ``bars`` (:func:`pair_data`), each in its role's look,
    legend names with their icons, the shares over them; the y axis reaches the rows' room."""
    offset, x = vega.pair_offset(kinds, field="kind", title=None), vega.word_x(style)
    tooltip = vega.tooltip(
        "word", ("kind", say("montecarlo.tip_bar")), ("share", None, fine_percent)
    )
    encoding = {"x": x, "xOffset": offset, "y": vega.room_y("share"), "tooltip": tooltip}
    bars = _role_layers("bars", vega.colour(kinds, roles, style, "kind"), roles, style, **encoding)
    over = {"baseline": "bottom", "dy": -(style.line_width + 2)}
    numbers = vega.text("label", over, x=x, xOffset=offset, y=vega.room_y("label_y"))
    return [*bars, {"data": vega.data("bars")} | numbers, *vega.room("bars", "room")]


def _role_layers(
    dataset: str,
    colour: dict,
    roles: Sequence[Role],
    style: ChartStyle,
    mark: dict | None = None,
    **encoding: object,
) -> list[dict]:
    """One layer of bars per role (:func:`vega.role_bars`), of the rows whose ``j`` is its index."""
    return [
        {"data": vega.data(dataset), "transform": [{"filter": f"datum.j == {j}"}]}
        | vega.role_bars(role, colour, style, mark, **encoding)
        for j, role in enumerate(roles)
    ]


def histogram_figure(
    labels: Sequence[str], step: OneTokenStep, run: MonteCarloRun, style: ChartStyle = DEFAULT_STYLE
) -> tuple[dict, str]:
    """Emitted words against the target (left bars), proposals against the draft (right), the exact
    ``p`` and ``q`` as strokes, shares over bar or stroke; and its alt text, word by word."""
    kinds = (
        say("montecarlo.emitted", icon=palette.TARGET.icon),
        say("montecarlo.proposed", icon=palette.DRAFT.icon),
    )
    exact_names = [style.fill(x) for x in titles("montecarlo.exact", ("target", "draft")).values()]
    emitted, proposed = run.counts.output_counts / run.n, run.counts.draft_counts / run.n
    datasets = pair_data(labels, kinds, emitted, proposed, style, exact=(step.p, step.q))
    for row in datasets["bars"]:
        row["exact_name"] = exact_names[row["j"]]
    strokes = [
        {"transform": [{"filter": f"datum.j == {j}"}]}
        | _exact_strokes("bars", vega.pair_span(j), style, exact_names)
        for j in (0, 1)
    ]
    layers = [*pair_layers(kinds, (palette.TARGET, palette.DRAFT), style), *strokes]
    shown = [[percent(v) for v in law] for law in (emitted, step.p, proposed, step.q)]
    parts = [
        say("montecarlo.hist_word", word=w, emitted=e, target=t, proposed=r, draft=d)
        for w, e, t, r, d in zip(labels, *shown, strict=True)
    ]
    caption = say("montecarlo.hist_alt", runs=count(run.n, "run"), words="; ".join(parts))
    title = vega.title(say("montecarlo.hist_title"), style)
    return vega.chart(style, title, datasets, layers), style.fill(caption)


def _exact_strokes(
    dataset: str, span: tuple[float, float], style: ChartStyle, names: list[str]
) -> dict:
    """Exact values (field ``exact``) as ink strokes at ``span`` of a word's band, dashed by
    field ``exact_name`` in a legend of their own: ``names``, the same in every state."""
    legend = {"title": None, "symbolType": "stroke", "symbolStrokeColor": palette.INK}
    legend["symbolStrokeWidth"] = style.line_width + 1
    dashes = {"domain": names, "range": [[7, 4], [2, 3]][: len(names)]}  # target's, draft's
    dash = {"field": "exact_name", "type": "nominal", "scale": dashes, "legend": legend}
    x, y = vega.word_x(style), vega.room_y("exact")
    return {"data": vega.data(dataset)} | vega.strokes(x, y, style, None, span, strokeDash=dash)


def breakdown_figure(
    labels: Sequence[str], step: OneTokenStep, run: MonteCarloRun, style: ChartStyle = DEFAULT_STYLE
) -> tuple[dict, str]:
    """Where every emitted word came from: accepted drafts stacked under bucket refills; and its
    alt text, every word's counts. Its datasets: ``parts`` (a row per word and source, stacked)
    and ``words`` (a row per word: exact p, the accepted share inside its bar, the stack's total
    over it, the room above)."""
    counts, names = run.counts, [style.fill(say("montecarlo.exact.target"))]
    accepted, bucket = counts.accepted_counts / run.n, counts.residual_counts / run.n
    stack = accepted + bucket
    above = np.maximum(stack, step.p)
    top = float(above.max())
    room = top * HEADROOM
    inside = fit_row([[percent(v) if v > 0 else "" for v in accepted]], accepted / 2, top, style)
    totals = fit_row([[percent(v) if v > 0 else "" for v in stack]], above, room, style)
    sources = (
        (accepted, counts.accepted_counts, 0 * accepted),
        (bucket, counts.residual_counts, accepted),
    )
    kinds = (
        say("montecarlo.accepted_drafts", icon=palette.ACCEPTED.icon),
        say("montecarlo.from_bucket", icon=palette.BUCKET.icon),
    )
    # Stacked here (bottom ``base``, top ``top``): one layer per source, as each is drawn.
    parts = [
        {"i": i, "word": w, "part": kinds[j], "j": j, "share": float(share[i])}
        | {"count": int(c[i]), "base": float(base[i]), "top": float(base[i] + share[i])}
        for i, w in enumerate(labels)
        for j, (share, c, base) in enumerate(sources)
    ]
    word_rows = vega.rows(
        labels,
        exact=step.p,
        exact_name=names[0],
        inside=inside,
        inside_y=accepted / 2,
        total=stack,
        label=totals,
        label_y=above,
        room=room,
    )
    datasets = {"parts": parts, "words": word_rows, "yticks": vega.share_ticks(room)}
    roles = (palette.ACCEPTED, palette.BUCKET)
    x = vega.word_x(style)
    tooltip = vega.tooltip(
        "word",
        ("part", say("montecarlo.tip_source")),
        ("count", say("montecarlo.tip_runs"), thousands),
        ("share", None, fine_percent),
    )
    encoding = {"x": x, "y": vega.room_y("top"), "y2": {"field": "base"}, "tooltip": tooltip}
    colour = vega.colour(kinds, roles, style)
    bars = _role_layers("parts", colour, roles, style, {"width": {"band": 0.6}}, **encoding)
    past = vega.STROKE_PAST  # around bars of 0.6 of the band
    exact = _exact_strokes("words", (0.5 - 0.3 - past, 0.5 + 0.3 + past), style, names)
    middle = {"baseline": "middle", "fontWeight": 600}
    over = {"baseline": "bottom", "dy": -(style.line_width + 2)}
    numbers = [
        {"data": vega.data("words")} | vega.text(field, mark, x=x, y=vega.room_y(f"{field}_y"))
        for field, mark in (("inside", middle), ("label", over))
    ]
    layers = [*bars, exact, *numbers, *vega.room("words", "room")]
    words = "; ".join(
        say("montecarlo.source_word", word=w, accepted=thousands(a), bucket=thousands(b))
        for w, a, b in zip(labels, counts.accepted_counts, counts.residual_counts, strict=True)
    )
    refills = int(counts.residual_counts.sum())
    runs, refilled, share = count(run.n, "run"), count(refills, "run"), percent(refills / run.n)
    caption = say("montecarlo.source_alt", runs=runs, words=words, refilled=refilled, share=share)
    title = vega.title(say("montecarlo.source_title"), style)
    return vega.chart(style, title, datasets, layers), caption


def monte_carlo_figures(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle,
    runs: Sequence[MonteCarloRun],
    band: TVBand,
) -> dict[str, tuple[dict, str]]:
    """Every chart of the Monte Carlo page with its alt text: ``{"hist", "source", "tv"}``."""
    tv = monte_carlo_spec(runs, band, style), monte_carlo_chart_caption(runs, band, style.notation)
    return {
        "hist": histogram_figure(labels, step, runs[0], style.side_column()),  # beside N
        "source": breakdown_figure(labels, step, runs[0], style),
        "tv": tv,
    }


def gof_sentence(gof: GofResult) -> str:
    """What the goodness-of-fit test says, in one plain sentence."""
    if gof.dof == 0:
        return say("montecarlo.gof_one_word")
    if math.isinf(gof.statistic):
        return say("montecarlo.gof_impossible")
    return say(
        "montecarlo.gof",
        p=significant(gof.p_value),
        chance=significant(100 * gof.p_value),
        verdict=_verdict(gof.p_value),
    )


def _verdict(p_value: float) -> str:
    return say("montecarlo.gof_red_flag") if p_value < 0.001 else say("montecarlo.gof_fine")


def heard_sentence(run: MonteCarloRun) -> str:
    """What a new number of runs did, said to a screen reader: the runs, the distance to the
    target and the test's p-value with its verdict."""
    return say(
        "montecarlo.heard",
        runs=count(run.n, "run"),
        tv=tv_text(run.tv),
        p=significant(run.gof.p_value),
        verdict=_verdict(run.gof.p_value),
    )


def sampler_note(run: MonteCarloRun, notation: Notation) -> tuple[str, str]:
    """Which sampler drew the run, in plain words, and the precise statement behind it."""
    if run.method != PER_DRAW:
        summary = say("montecarlo.count_level", runs=count(run.n, "run"))
        return summary, notation.fill(say("montecarlo.count_level_how"))
    most = thousands(PER_DRAW_MAX)
    if run.n == 1:
        return say("montecarlo.per_draw_one", most=most), say("montecarlo.per_draw_how")
    return say("montecarlo.per_draw", n=thousands(run.n), most=most), say("montecarlo.per_draw_how")
