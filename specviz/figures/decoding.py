"""The page "Many words per call": its words, its charts (Vega-Lite dicts: every number that
follows the learner's settings lives in the named ``datasets``) and the timeline's data.

Builders receive results (:mod:`specviz.language`'s pure functions, cached by the page) and
compute no probability themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from specviz import palette
from specviz.decoding import LEVIATHAN_TABLE2, Decoding, Origin, WordsPerCall, ranges
from specviz.figures import fit, vega
from specviz.figures.html import palette_css
from specviz.figures.numbers import (
    NUMBERS_JS,
    compare,
    count,
    decimal,
    pace,
    percent,
    significant,
    times,
)
from specviz.figures.style import ChartStyle
from specviz.language import END, Measured
from specviz.limits import CHECK_RUNS, CHECK_WORDS, COMMON_WORDS, PAIR_TITLES
from specviz.links import YOUR_PAIR
from specviz.palette import Notation
from specviz.text import NUMBERS, language, say, templates, titles
from specviz.theory import speedup

PAIR_BLURBS: Mapping[str, str] = titles(
    "decoding.blurb", ("ngram", "strong", "weak", "hotter", "yours", "perfect", "textbook")
)
PAIR_SHORT = titles("decoding.short", ("ngram", "strong", "weak", "hotter", "perfect", "textbook"))
#: Where each pair's name sits from its point on the α chart (in α and speed-up).
_NAME_AT = {
    "ngram": (0, -0.45),
    "strong": (0.03, 0.3),
    "weak": (0, 0.3),
    "hotter": (-0.06, 0.3),
    "perfect": (0, 0.3),
    "textbook": (0, -0.45),
}
#: The expensive draft drawn next to the learner's c and free drafts.
SLOW_COST = 0.5
#: The α chart's curves, each drawn its way: dashes, colour, extra width.
_KINDS = {
    "yours": ([1, 0], palette.TARGET.color, 2),
    "free": ([2, 3], palette.NEUTRAL.color, 0),
    "slow": ([7, 4], palette.NEUTRAL.color, 0),
}
STAR = "M0,-1L.3,-.3L1,-.3L.45,.15L.6,.9L0,.45L-.6,.9L-.45,.15L-1,-.3L-.3,-.3Z"
_SERIES = titles("decoding.series", ("predicted", "simple", "text", "best"))
_ROLES = (palette.TARGET, palette.NEUTRAL, palette.DRAFT, palette.ACCEPTED)
_DIAMOND = {"type": "point", "shape": "diamond", "filled": True, "stroke": palette.INK}


def pair_title(key: str) -> str:
    """The pair selector's name of ``key``: a toy pair's, or the learner's own."""
    return say("decoding.your_pair") if key == YOUR_PAIR else PAIR_TITLES[key]


def best_gamma(curve: Sequence[WordsPerCall], cost: float) -> tuple[int, float]:
    """The γ (0 = plain decoding) with the highest long-run speed-up, and that speed-up (the
    first on a tie, to rounding)."""
    speedups = [w.speedup(cost) for w in curve]
    best = int(np.argmax(np.round(speedups, 12)))
    return best, speedups[best]


def _legends(names: Sequence[str], roles: Sequence[palette.Role], show: int = 1) -> list[dict]:
    """Each name's entry, for :func:`_layer`, in the chart's colour legend of ``show`` columns
    (0: none; the names carry icons)."""
    color = {
        "field": "series",
        "type": "nominal",
        "title": None,
        "legend": {"columns": show} if show else None,
        "scale": vega.legend_scale(names, roles),
    }
    return [
        {"transform": [{"calculate": vega.literal(n), "as": "series"}], "color": color}
        for n in names
    ]


def _layer(data: str | list, mark: dict, legend: dict | None = None, **encoding: object) -> dict:
    """A layer of constant rows, or of a dataset (``"name/kind"``: its rows of that ``kind``),
    in the legend when ``legend``; a channel given as a name shows that field."""
    name, _, kind = data.partition("/") if isinstance(data, str) else ("", "", "")
    source = vega.data(name) if name else {"values": data}
    channels = {k: {"field": v} if isinstance(v, str) else v for k, v in encoding.items()}
    layer = {"data": source, "mark": mark, "encoding": channels}
    chosen = [vega.of_kind(kind)] if kind else []
    if legend or kind:
        layer["transform"] = chosen + (legend["transform"] if legend else [])
    if legend:
        layer["encoding"]["color"] = legend["color"]
    return layer


def _q(field: str, title: str | None = None, **extra: object) -> dict:
    return {"field": field, "type": "quantitative", "title": title, **extra}


def _text(style: ChartStyle, **mark: object) -> dict:
    """A text mark in the charts' size for numbers and names."""
    return {"type": "text", "fontSize": style.text_size, **mark}


def _chart(style: ChartStyle, title: str, data: dict, layers: list, **top: object) -> dict:
    """A chart as wide as its container, titled ``title``."""
    return vega.chart(style, vega.title(title, style), data, layers, width="container", **top)


def _slower(x: dict, y: str, style: ChartStyle, right: float, names: str = "") -> list[dict]:
    """The region "slower than plain decoding" (speed-up below 1) up to ``right``, its edge and
    its name in the bottom corner no curve comes to: right, or the one the dataset ``names``
    gives (its fields ``left`` and ``right``: the name, or nothing)."""
    row = [{"x": 0, "x2": right, "y0": 0, "y1": 1, "left": "", "right": say("decoding.slower")}]
    band = {"type": "rect", "color": palette.REJECTED.color, "opacity": 0.12}
    edge = {"type": "rule", "color": palette.INK, "strokeDash": [2, 3], "strokeWidth": 1.5}
    name = _text(style, baseline="bottom", dy=-2, color=palette.REJECTED.text_color)
    q = {"type": "quantitative"}
    return [
        _layer(row, band, x=x | {"field": "x"}, x2="x2", y=_q("y0", y), y2="y1"),
        _layer(row, edge, y=_q("y1", y)),
        *(
            _layer(
                names or row,
                name | {"align": side, "dx": dx},
                x=q | {"datum": at},
                y=q | {"datum": 0},
                text=side,
            )
            for side, dx, at in (("left", 4, 0), ("right", -4, right))
        ),
    ]


def _against_gamma(
    field: str, title: str, curve: list[tuple], point: dict, extra: list, style: ChartStyle
) -> dict:
    """A chart of ``field`` against γ: prediction and simple (i.i.d.) formula (``curve``: γ and
    both, for each γ), this text (``point``: its row), the learner's γ (the legend on the chart
    of words per call, above the other)."""
    legend = field == "words"
    rows = [{"kind": "curve", "g": g, field: v, f"{field}_iid": iid} for g, v, iid in curve]
    names = list(_SERIES.values())
    # One column on a screen (two do not fit a phone's 390 px); on a projector two where they fit
    # right of the y axis (the legend's 22 px names, 30 px of symbol each).
    two = fit.legend_width([names[:2], names[2:]], style.font_size - 2, 30) <= style.width - 90
    columns = 2 if style.projector and two else 1
    key = _legends(names, _ROLES, columns * legend)
    x = _q("g", say("decoding.gamma_axis"), axis={"tickMinStep": 1})
    y = _q(field, title, axis={"minExtent": 2 * style.font_size + 6})  # the two charts align
    line = {"type": "line", "point": True, "strokeWidth": style.line_width + 1}
    mine = {"type": "rule", "color": palette.DRAFT.text_color, "strokeDash": [2, 3]}
    iid = line | {"point": False, "strokeDash": [7, 4]}
    diamond = _DIAMOND | {"size": 440 if style.projector else 220}
    # Each point's numbers on hover, and in the table under the chart.
    shown = (lambda v: decimal(v, 2)) if legend else times
    names, gamma = list(_SERIES.values()), ("g", say("decoding.gamma_axis"))
    tip = vega.tooltip(gamma, (field, names[0], shown), (f"{field}_iid", names[1], shown))
    layers = [
        *extra,
        _layer("rows/point", mine, x=x),
        _layer("rows/curve", line, key[0], x=x, y=y, tooltip=tip),
        _layer("rows/curve", iid, key[1], x=x, y=y | {"field": f"{field}_iid"}, tooltip=tip),
        _layer(
            "rows/point",
            diamond,
            key[2],
            x=x,
            y=y,
            tooltip=vega.tooltip(gamma, (field, names[2], shown)),
        ),
    ]
    name = (say("decoding.speed_title"), say("decoding.words_title"))
    data = {"rows": [*rows, {"kind": "point", **point}]}
    # A projector's legend in one column has two rows more than in two.
    rows_more = 2 * (style.projector and columns == 1)
    height = style.height // 2 + (round(110 + rows_more * vega.key_height(style)) if legend else 40)
    return _chart(style, name[legend], data, layers, height=height)


def words_figure(
    curve: Sequence[WordsPerCall], run: Decoding, style: ChartStyle
) -> tuple[dict, str]:
    """Words per call against γ: the exact prediction, the simple (i.i.d.) formula, this text
    (beside the page's controls)."""
    style = style.side_column()
    mine = say("decoding.your_gamma", gamma=run.gamma)
    point = {"g": run.gamma, "words": run.words_per_call, "text": mine}
    label = _text(
        style, y=0, baseline="top", dy=2, dx=4, align="left", color=palette.DRAFT.text_color
    )
    lines = [(w.gamma, w.long_run, w.iid) for w in curve]
    extra = [_layer("rows/point", label, x=_q("g"), text="text")]
    spec = _against_gamma("words", say("decoding.words_axis"), lines, point, extra, style)
    values = ", ".join(f"γ = {w.gamma}: {decimal(w.long_run, 2)}" for w in curve[1::2])
    return spec, style.fill(
        say(
            "decoding.words_alt",
            top=len(curve) - 1,
            values=values,
            alpha=percent(curve[run.gamma].alpha),
            words=decimal(run.words_per_call, 2),
            gamma=run.gamma,
        )
    )


def speed_figure(
    curve: Sequence[WordsPerCall], run: Decoding, cost: float, style: ChartStyle
) -> tuple[dict, str]:
    """The speed-up in the cost model against γ: predicted, simple formula, this text, the best
    γ and the region below 1 (beside the page's controls)."""
    style = style.side_column()
    best, best_speed = best_gamma(curve, cost)
    # The band's name: bottom left if the curve ends in the band, where it never comes (a call
    # writes a word or more: the speed-up is at least 1 / (1 + γc) > 1/5 for γ < 4, c ≤ 1).
    falls = curve[-1].speedup(cost) < 1
    # The star's name: above it (no curve is higher than its best), running from it towards the
    # chart's middle, so never across the y-axis or the right edge (it is under 40% as wide).
    side, dx = ("left", 4) if 2 * best < len(curve) - 1 else ("right", -4)
    slower, axis = say("decoding.slower"), say("decoding.speed_axis")
    point = {
        "g": run.gamma,
        "speed": run.speedup(cost),
        "best": best,
        "best_speed": best_speed,
        "text": say("decoding.best_gamma", best=best),
        "side": side,
        "dx": dx,
        "left": slower if falls else "",
        "right": "" if falls else slower,
    }
    lines = [(w.gamma, w.speedup(cost), speedup(w.iid, w.gamma, cost)) for w in curve]
    x, y = _q("best"), _q("best_speed", axis)
    star = {"type": "point", "shape": STAR, "filled": True, "size": 900 if style.projector else 500}
    label = _text(
        style,
        baseline="bottom",
        dy=-12,
        align={"expr": "datum.side"},
        dx={"expr": "datum.dx"},
        color=palette.ACCEPTED.text_color,
    )
    extra = [
        *_slower(_q("g"), axis, style, len(curve) - 1, "rows/point"),
        _layer(
            "rows/point",
            star,
            _legends(list(_SERIES.values()), _ROLES, 0)[3],
            x=x,
            y=y,
            tooltip=vega.tooltip(
                ("best", say("decoding.gamma_axis")), ("best_speed", _SERIES["best"], times)
            ),
        ),
        _layer("rows/point", label, x=x, y=y, text="text"),
    ]
    return _against_gamma("speed", axis, lines, point, extra, style), say(
        "decoding.speed_alt",
        cost=f"{cost:g}",
        predicted=times(curve[run.gamma].speedup(cost)),
        gamma=run.gamma,
        measured=times(run.speedup(cost)),
        best=best,
        best_speedup=times(best_speed),
    )


def _curves(x: dict, y: dict, style: ChartStyle) -> dict:
    """The formula (1 − α^(γ+1)) / ((1 − α)(γc + 1)), drawn by Vega over α = 0 .. 1 for each
    row of kind yours, free and slow (its c and γ): the spec stays the same whatever they are."""
    kind = {"field": "kind", "type": "nominal"}
    dashes, colors, widths = zip(*_KINDS.values(), strict=True)
    names = {
        "yours": say("decoding.curve_yours"),
        "free": say("decoding.curve_free"),
        "slow": say("decoding.curve_slow", cost=f"{SLOW_COST:g}"),
    }
    labels = " : ".join(f"datum.label == '{k}' ? {vega.literal(v)}" for k, v in names.items())
    legend = {
        "title": None,
        "labelExpr": labels + " : ''",
        "symbolType": "stroke",
        "orient": "bottom",
        "direction": "vertical",
    }

    def scale(values: Sequence) -> dict:  # one legend: the three channels merge
        return kind | {"scale": {"domain": list(_KINDS), "range": list(values)}, "legend": legend}

    formula = "datum.a == 1 ? (datum.g + 1) : (1 - pow(datum.a, datum.g + 1)) / (1 - datum.a)"
    return {
        "data": {"sequence": {"start": 0, "stop": 1.0025, "step": 0.005, "as": "a"}},
        "transform": [
            {"calculate": str(list(_KINDS)), "as": "kind"},
            {"flatten": ["kind"]},
            {
                "lookup": "kind",
                "from": {"data": {"name": "rows"}, "key": "kind", "fields": ["c", "g"]},
            },
            {"calculate": f"({formula}) / (datum.g * datum.c + 1)", "as": "s"},
        ],
        "mark": {"type": "line", "clip": True},
        "encoding": {
            "x": x,
            "y": y,
            "detail": kind,
            "stroke": scale(colors),
            "strokeWidth": scale([w + style.line_width for w in widths]),
            "strokeDash": scale(dashes),
        },
    }


#: Leviathan et al.'s cells faster than the formula's most at their α and γ.
_ABOVE = [c for c in LEVIATHAN_TABLE2 if c.speedup > c.ceiling]


def published_rows() -> list[dict]:
    """The published points as reported (a dataset whose numbers never change): Leviathan et
    al.'s cells, the formula's most where a cell beats it, and the ranges quoted without an α,
    right of α = 1."""
    names = titles("decoding.range", ("comments", "leviathan", "chen")).values()
    return (
        [
            {
                "kind": "cell",
                "a": c.alpha,
                "s": c.speedup,
                "T": c.setting[-3:],
                "setting": c.setting,
                "draft": c.draft,
                "g": c.gamma,
                "ceiling": c.ceiling,
            }
            for c in LEVIATHAN_TABLE2
        ]
        + [{"kind": "over", "a": c.alpha, "s": c.ceiling} for c in _ABOVE]
        + [
            {
                "kind": "range",
                "a": 1.1 + 0.09 * i,
                "lo": r.speedup,
                "hi": r.high,
                "setting": r.setting,
                "label": name,
            }
            for i, (name, r) in enumerate(zip(names, ranges(), strict=True))
        ]
    )


def _published(x: dict, y: dict, style: ChartStyle, key: list[dict], size: int) -> list[dict]:
    """The layers of :func:`published_rows` (dataset ``published``), its points of ``size``."""
    cells, quoted = "published/cell", "published/range"
    tip = vega.tooltip(
        ("setting", say("decoding.tip_setting")),
        ("draft", say("decoding.tip_draft")),
        ("g", "γ"),
        ("a", "α"),
        ("s", say("decoding.tip_reported")),
        ("ceiling", say("decoding.tip_most"), times),
    )
    point = {"type": "point", "size": size, "stroke": palette.INK, "strokeWidth": 2}
    layers = []
    for t, shape in enumerate(("circle", "square")):  # T=0 filled, T=1 hollow
        mark = point | {"filled": t == 0, "shape": shape}
        layers.append(_layer(cells, mark, key[t], x=x, y=y, tooltip=tip))
        layers[-1]["transform"].insert(0, {"filter": f"datum.T == 'T={t}'"})
    tick = {"type": "tick", "orient": "horizontal", "thickness": 4, "size": 24}
    rule = {"type": "rule", "strokeWidth": style.line_width + 3}
    label = _text(style, angle=270, align="left", dy=-10)
    axis = say("decoding.speed_axis")
    low, high = _q("lo", axis), _q("hi", axis)
    return [
        *layers,
        _layer("published/over", tick, key[3], x=x, y=y),
        _layer(
            quoted,
            rule,
            key[4],
            x=x,
            y=low,
            y2="hi",
            tooltip=vega.tooltip(
                ("label", say("decoding.tip_source")),
                ("setting", say("decoding.tip_setting")),
                ("lo", say("decoding.tip_from"), times),
                ("hi", say("decoding.tip_to"), times),
            ),
        ),
        _layer(quoted, label, x=x, y=high, text="label"),
    ]


def alpha_figure(
    check: Sequence[Measured], gamma: int, cost: float, style: ChartStyle
) -> tuple[dict, str]:
    """Speed-up against α at the learner's γ for their c, free drafts and a slow draft (curves
    Vega draws from the formula), published measurements as reported, and this page's pairs
    (the ``check``'s predictions, in :data:`~specviz.limits.PAIR_KEYS` order) as predicted."""
    x = _q(
        "a",
        say("decoding.alpha_axis"),
        scale={"domain": [0, 1.32]},
        axis={"values": [0, 0.2, 0.4, 0.6, 0.8, 1], "format": ".0%"},
    )
    speed = say("decoding.speed_axis")
    y = _q("s", speed, scale={"domain": [0, 6.3]}, axis={"format": ".0f"})
    names = tuple(titles("decoding.marks", ("t0", "t1", "pairs", "most", "ranges")).values())
    roles = (palette.NEUTRAL, palette.NEUTRAL, palette.DRAFT, palette.REJECTED, palette.NEUTRAL)
    key = _legends(names, roles)
    size = 260 if style.projector else 120
    text = _text(style, color=palette.DRAFT.text_color)
    layers = [
        *_slower(x, speed, style, 1.0),
        _curves(x, y, style),
        *_published(x, y, style, key, size),
        _layer("rows/pair", _DIAMOND | {"size": size}, key[2], x=x, y=y),
        _layer("rows/pair", text, x=x | {"field": "la"}, y=y | {"field": "ls"}, text="label"),
    ]
    pairs = []
    for k, m in zip(PAIR_SHORT, check, strict=True):
        a, s = m.prediction.alpha, m.prediction.speedup(cost)
        da, ds = _NAME_AT[k]
        pairs.append(
            {"kind": "pair", "a": a, "s": s, "label": PAIR_SHORT[k], "la": a + da, "ls": s + ds}
        )
    params = [{"kind": k, "c": c, "g": gamma} for k, c in zip(_KINDS, (cost, 0, SLOW_COST))]  # noqa: B905
    data = {"rows": params + pairs, "published": published_rows()}
    spec = _chart(style, say("decoding.alpha_title"), data, layers, height=style.height + 200)
    ours = "; ".join(f"{p['label']} α = {percent(p['a'])}, {times(p['s'])}" for p in pairs)
    costs = ", ".join(f"{c:g}" for c in sorted({0.0, cost, SLOW_COST}))
    quoted = "; ".join(f"{r.source}: {r.speedup:g}–{r.high:g}× ({r.setting})" for r in ranges())
    return spec, say(
        "decoding.alpha_alt",
        gamma=gamma,
        costs=costs,
        cost=f"{cost:g}",
        above=len(_ABOVE),
        ranges=quoted,
        ours=ours,
    )


def check_table(check: Sequence[Measured], cost: float, current: str) -> str:
    """The check as a Markdown table (the pair shown in bold): the long-text prediction, then
    texts of :data:`~specviz.limits.CHECK_WORDS` words, exact and measured — like with like."""
    lines = [
        say("decoding.table_head", words=CHECK_WORDS, runs=CHECK_RUNS, cost=f"{cost:g}"),
        "|---|---|---|---|---|---|---|",
    ]
    for m in check:
        w, name = m.prediction, PAIR_TITLES[m.key]
        words = CHECK_WORDS / m.mean_calls
        error = 2 * m.std_error * CHECK_WORDS / m.mean_calls**2  # two standard errors
        cells = (
            say("decoding.table_shown", pair=name) if m.key == current else name,
            percent(w.alpha),
            decimal(w.iid, 2),
            decimal(w.long_run, 2),
            decimal(CHECK_WORDS / m.expected_calls, 2),
            f"{decimal(words, 2)} ± {decimal(error, 2)}",
            times(speedup(words, w.gamma, cost)),
        )
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


def check_note(check: Sequence[Measured]) -> str:
    """What the columns compare, how far the simple formula is off, and the published puzzle."""
    predictions = [m.prediction for m in check]
    gaps = [abs(w.iid - w.long_run) / w.long_run for w in predictions]
    worst, gamma = int(np.argmax(gaps)), predictions[0].gamma
    off = (
        say(
            "decoding.off_by",
            gap=percent(round(gaps[worst], 4)),
            gamma=gamma,
            pair=PAIR_TITLES[list(PAIR_SHORT)[worst]].lower(),
        )
        if gaps[worst] >= 5e-4
        else say("decoding.agrees")
    )
    cnn = next(c for c in _ABOVE if c.setting == "CNN/DM, T=0")
    return say(
        "decoding.check_note",
        words=CHECK_WORDS,
        runs=CHECK_RUNS,
        off=off,
        above=len(_ABOVE),
        draft=cnn.draft,
        speedup=cnn.speedup,
        alpha=f"{cnn.alpha:g}",
        gamma=cnn.gamma,
        ceiling=times(cnn.ceiling),
    )


def in_a_row_figure(prediction: WordsPerCall, style: ChartStyle) -> tuple[dict, str]:
    """Chance that guess k is kept given the guesses before it were, against the simple
    formula's α."""
    row = prediction.kept_in_a_row
    chances = [row[k] / row[k - 1] if row[k - 1] > 0 else None for k in range(1, row.size)]
    names = tuple(titles("decoding.row", ("exact", "simple")).values())
    key = _legends(names, (palette.TARGET, palette.NEUTRAL))
    title = say("decoding.row_axis")
    x = {"field": "k", "type": "ordinal", "axis": {"labelAngle": 0}, "title": title}
    y = vega.share_y(None, "chance") | {"scale": {"domain": [0, 1]}}
    bars = [
        {
            "k": k + 1,
            "chance": c or 0.0,
            "text": percent(round(c, 3)) if c else "—",
            "alpha": prediction.alpha,
        }
        for k, c in enumerate(chances)
    ]
    inside = _text(style, baseline="top", dy=6, color="white")
    dash = {"type": "rule", "strokeDash": [7, 4], "strokeWidth": style.line_width}
    tip = vega.tooltip(("k", title), ("text", names[0]), ("alpha", names[1], percent))
    layers = [
        _layer("rows", vega.role_bar(palette.TARGET, style), key[0], x=x, y=y, tooltip=tip),
        _layer("rows", inside, x=x, y=y, text="text"),
        _layer("rows", dash, key[1], y=y | {"field": "alpha"}),
    ]
    shown = ", ".join(percent(c) for c in chances if c is not None) or say("decoding.none")
    return _chart(style, say("decoding.row_title"), {"rows": bars}, layers), say(
        "decoding.row_alt", shown=shown, alpha=percent(prediction.alpha)
    )


def shares_figure(
    prediction: WordsPerCall, words: Sequence[str], style: ChartStyle
) -> tuple[dict, str]:
    """For the commonest words of a long text: the share of each one's uses that the draft
    guessed right (exact, from the two models)."""
    common = np.argsort(-prediction.written, kind="stable")[:COMMON_WORDS]
    common = common[prediction.written[common] > 0]
    share = prediction.guessed[common] / prediction.written[common]
    order = np.argsort(-share, kind="stable")  # the easiest word on top
    shown = [_word(words, int(w)) for w in common[order]]
    names = (
        say("decoding.kept_guess", icon=palette.ACCEPTED.icon),
        say("decoding.by_target", icon=palette.BUCKET.icon),
    )
    key = _legends(names, (palette.ACCEPTED, palette.BUCKET))
    bars = [
        {"word": w, "i": i, "kept": s, "all": 1.0, "text": percent(round(s, 2))}
        for i, (w, s) in enumerate(zip(shown, share[order], strict=True))
    ]
    y = {"field": "word", "type": "nominal", "sort": {"field": "i", "op": "min"}, "title": None}
    x = _q("kept", say("decoding.shares_axis"), scale={"domain": [0, 1]}, axis={"format": ".0%"})
    bucket, kept = (vega.role_bar(r, style) for r in (palette.BUCKET, palette.ACCEPTED))
    zero = {"datum": 0, "type": "quantitative", "scale": x["scale"]}
    layers = [
        _layer("rows", bucket, key[1], y=y, x=x | {"field": "all"}, x2="kept"),
        _layer("rows", kept, key[0], y=y, x=x, tooltip=vega.tooltip("word", ("text", x["title"]))),
        _layer("rows", _text(style, align="left", dx=4), y=y, text="text", x=zero),
    ]
    few = max(1, min(3, len(shown) // 2))
    step = {"step": 26 if style.projector else 20}
    return _chart(style, say("decoding.shares_title"), {"rows": bars}, layers, height=step), say(
        "decoding.shares_alt",
        count=len(shown),
        most=", ".join(shown[:few]),
        least=", ".join(shown[::-1][:few]),
    )


def summary_sentence(curve: Sequence[WordsPerCall], run: Decoding, cost: float, n: Notation) -> str:
    """One paragraph on what the numbers mean (true at every setting)."""
    best, best_speed = best_gamma(curve, cost)
    here = curve[run.gamma]
    if cost == 0 and best == len(curve) - 1:
        verdict = say("decoding.verdict_free", best=best, speedup=times(best_speed))
    elif best == 0 and cost == 0:
        verdict = say("decoding.verdict_never")
    elif best == 0:
        verdict = say("decoding.verdict_slower")
    else:
        verdict = say("decoding.verdict_best", best=best, speedup=times(best_speed))
    return n.fill(
        say(
            "decoding.summary",
            alpha=percent(here.alpha),
            gamma=run.gamma,
            words=run.n_tokens,
            calls=run.target_calls,
            per_call=decimal(run.words_per_call, 2),
            long_run=decimal(here.long_run, 2),
            verdict=verdict,
        )
    )


#: The time view's bars: the band of the chart's y each fills.
_PARTS = {"target": (2.4, 3.4), "call": (0.4, 1.4), "draft": (0.65, 1.15)}


def time_figure(run: Decoding, cost: float, style: ChartStyle) -> tuple[dict, str]:
    """This text as time in the cost model, two lanes on one axis: plain decoding (a target
    call, costing 1, per word) over speculative decoding (each call: γ guesses costing ``c``,
    then the target call). Each lane ends at its total: ``n_tokens``, and ``target_calls + c ×
    draft_calls`` exactly."""
    g, n, calls = run.gamma, run.n_tokens, run.target_calls
    ends = [j + cost * (j * g) for j in range(calls + 1)]  # j target calls and jγ guesses
    total, speed = ends[-1], run.speedup(cost)
    parts = [("target", i, i + 1, say("decoding.tip_word", word=i + 1)) for i in range(n)]
    written = np.bincount(run.call_of, minlength=calls).tolist()
    for j, k in enumerate(written):
        at = ends[j + 1] - 1  # where call j's target call starts, after its guesses
        parts += [
            ("draft", ends[j], at, say("decoding.tip_guesses", call=j + 1, gamma=g)),
            ("call", at, ends[j + 1], say("decoding.tip_call", call=j + 1, words=count(k, "word"))),
        ]
    icon = "✗=✓"[compare(speed) + 1]
    verdict = say("decoding.time_verdict", icon=icon, speedup=times(speed), pace=pace(speed))
    c, t = f"{cost:g}", f"{total:g}"
    lane = say("decoding.speculative_lane", calls=calls, cost=c, guesses=run.draft_calls, total=t)
    plain = say("decoding.plain_lane", n=n)
    texts = [("verdict", 4.3, verdict), ("lane", 3.5, plain), ("lane", 1.5, lane)]
    edge = 0.5 if max(n, total) <= 150 else 0  # white edges between calls, while they show
    data = {
        "bars": [
            {"kind": kind, "x": x0, "x2": x1, "tip": tip, "edge": 0 if kind == "draft" else edge}
            | dict(zip(("y", "y2"), _PARTS[kind], strict=True))
            for kind, x0, x1, tip in parts
        ],
        "texts": [{"kind": kind, "y": y, "text": t} for kind, y, t in texts],
        "end": [{"x": total, "y": y, "y2": y + 1.1} for y in (0.35, 2.35)],
        # Each call's numbers, at its end on the lower lane: its tooltip, and the chart's table.
        "calls": [
            {"call": j + 1, "words": k, "x": ends[j + 1], "y": 0.9} for j, k in enumerate(written)
        ],
    }
    names = (say("decoding.part_target"), say("decoding.part_draft"))
    key = _legends(names, (palette.TARGET, palette.DRAFT))
    x = _q("x", say("decoding.time_axis"), scale={"domainMin": 0}, axis={"grid": False})
    y = {"field": "y", "type": "quantitative", "axis": None, "scale": {"domain": [0.2, 4.8]}}
    rect = {"type": "rect", "stroke": "white"}
    stroke = _q("edge", scale=None)
    bar = {"x": x, "x2": "x2", "y": y, "y2": "y2", "tooltip": "tip", "strokeWidth": stroke}
    words = {"type": "text", "align": "left", "baseline": "bottom", "fontSize": style.font_size}
    bold = words | {"fontWeight": "bold", "fontSize": style.title_size}
    place = {"x": {"datum": 0, "type": "quantitative"}, "y": y, "text": "text"}
    end = {
        "type": "rule",
        "strokeDash": [4, 3],
        "color": palette.INK,
        "strokeWidth": style.line_width,
    }
    layers = [
        *(_layer(f"bars/{kind}", rect, key[kind == "draft"], **bar) for kind in _PARTS),
        _layer("end", end, x=x, y=y, y2="y2"),
        _layer(
            "calls",
            {"type": "point", "opacity": 0},
            x=x,
            y=y,
            tooltip=vega.tooltip(
                ("call", say("decoding.tip_target_call")),
                ("words", say("decoding.tip_words")),
                ("x", say("decoding.tip_ends"), significant),
            ),
        ),
        _layer("texts/lane", words, **place),
        _layer("texts/verdict", bold, **place),
    ]
    height = 330 if style.projector else 250
    spec = _chart(style, say("decoding.time_title"), data, layers, height=height)
    return spec, say(
        "decoding.time_alt",
        n=n,
        cost=c,
        calls=calls,
        guesses=run.draft_calls,
        total=t,
        speedup=times(speed),
        pace=pace(speed),
    )


#: The timeline view's code and style (the page mounts it).
TIMELINE_JS = NUMBERS_JS + Path(__file__).with_name("timeline.js").read_text(encoding="utf-8")
TIMELINE_CSS = Path(__file__).with_name("timeline.css").read_text(encoding="utf-8")


def timeline_words() -> dict[str, str]:
    """Every word of the timeline view in the run's language (``locale/<lang>/timeline.po``), by
    name: templates its script fills (``{T}``, ``{D}`` and the numbers it writes)."""
    return (
        templates("timeline", ("text_title", "text_note", "word", "kept_guess", "bucket_word"))
        | templates("timeline", ("bonus_word", "calls_title", "replay", "stop", "show_all"))
        | templates("timeline", ("calls_label", "kept", "rejected", "skipped", "from_bucket"))
        | templates("timeline", ("bonus", "cut", "call", "call_said", "guess_kept"))
        | templates("timeline", ("guess_rejected", "guess_skipped", "bucket_tip", "bonus_tip"))
        | templates("timeline", ("fit", "one_word", "many_words"))
    )


def spelled(words: Sequence[str], ids: np.ndarray) -> list[str]:
    """Words as the page writes them: a capital to start the text and after each "."."""
    out = []
    for i in ids:
        word = words[int(i)]
        out.append(word[:1].upper() + word[1:] if not out or out[-1] == END else word)
    return out


def _word(words: Sequence[str], word: int) -> str:
    """A word as chips and charts show it (a lone "." quoted: it is easy to miss)."""
    return "“.”" if words[word] == "." else words[word]


def timeline_data(words: Sequence[str], run: Decoding, style: ChartStyle) -> dict:
    """The text with each word's origin and every call's guesses, verdicts and odds, plain JSON
    for the timeline view (``timeline.js``: the replay, and each guess's tooltip, are made in
    the browser)."""
    name = np.array([_word(words, i) for i in range(len(words))])
    odds = np.stack([run.draft_p, run.draft_q, run.keep_chance], axis=-1)
    kept, bucket, bonus = (int((run.origin == o).sum()) for o in Origin)
    alt = style.fill(  # the run in words: calls, guesses kept, bucket and bonus words
        say(
            "decoding.timeline_alt",
            words=run.n_tokens,
            calls=run.target_calls,
            per_call=decimal(run.words_per_call, 2),
            steps=run.draft_calls,
            kept=kept,
            bucket=bucket,
            bonus=bonus,
            gamma=run.gamma,
        )
    )
    return {
        "gamma": run.gamma,
        "text": spelled(words, run.tokens),
        "origin": run.origin.tolist(),
        "call": run.call_of.tolist(),
        "drafts": name[run.drafts].tolist(),
        "verdict": run.verdict.tolist(),
        "odds": np.round(odds, 6).tolist(),
        "kept": run.accepted_per_call.tolist(),
        "final": name[run.final_word].tolist(),
        "final_origin": run.final_origin.tolist(),
        "shown": np.bincount(run.call_of, minlength=run.target_calls).tolist(),
        "T": style.notation.target,
        "D": style.notation.draft,
        "alt": alt,
        "css": f"--fs: {style.html_font_size}px; {palette_css()}",
        "words": timeline_words(),
        "numbers": NUMBERS[language()],
    }
