"""The Variants lab's table and charts, read from the rules' :class:`~specviz.zoo.RuleCheck`
results: every rule that is not a mistake, side by side, and one rule's output law up close.
Whatever changes with the state is data of the specs: a new state updates the charts in place.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specviz import palette
from specviz.figures import vega
from specviz.figures.fit import fit_row
from specviz.figures.numbers import fine_percent, percent, thousands, tv_text
from specviz.figures.style import ChartStyle
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.rules import EXACT
from specviz.text import say
from specviz.zoo import RuleCheck

#: An X and a star, as SVG paths in the unit square.
_X = "M-1,-.6L-.6,-1L0,-.4L.6,-1L1,-.6L.4,0L1,.6L.6,1L0,.4L-.6,1L-1,.6L-.4,0Z"
_STAR = "M0,-1L.25,-.34L.95,-.31L.4,.13L.59,.81L0,.42L-.59,.81L-.4,.13L-.95,-.31L-.25,-.34Z"
#: One marker shape per rule in the speed-against-exactness chart, in the rules' order.
_SHAPES = ("circle", "square", "diamond", "triangle-up", _X, _STAR, "cross", "triangle-down")

#: Dash of the line at α, and of the runs' strokes over a rule's bars.
_ALPHA_DASH = [8, 5]
_RUNS_DASH = [2, 2]


def role(check: RuleCheck) -> palette.Role:
    """Green (✓) for a rule whose output is the target on this pair, vermillion (✗) otherwise."""
    return palette.ACCEPTED if check.tv == 0 else palette.REJECTED


def exactness(check: RuleCheck) -> str:
    """Whether the rule is exact, in a few words: for every pair, on this one, or not."""
    if check.rule.kind == EXACT:
        return say("variants.exact_always")
    return say("variants.exact_here") if check.tv == 0 else say("variants.exact_no")


def run_verdict(check: RuleCheck) -> str:
    """What the Monte Carlo run says, in a few words."""
    if check.stands_out:
        return say("variants.stands_out")
    if check.detectable_from is not None:
        return say("variants.hidden", n=thousands(check.detectable_from))
    return say("variants.inside")


def lab_table(checks: Sequence[RuleCheck], notation: Notation) -> dict[str, list[str]]:
    """One row per rule: acceptance, exactness, and the Monte Carlo check."""
    n = checks[0].n if checks else 0
    return {
        say("variants.rule"): [_rule_name(c, notation) for c in checks],
        say("variants.col_keeps"): [percent(c.acceptance) for c in checks],
        notation.fill(say("variants.col_distance")): [tv_text(c.tv) for c in checks],
        notation.fill(say("variants.col_exact")): [exactness(c) for c in checks],
        say("variants.col_runs", n=thousands(n)): [tv_text(c.run_tv) for c in checks],
        say("variants.col_check"): [run_verdict(c) for c in checks],
    }


def _rule_name(check: RuleCheck, notation: Notation, before: str = " ") -> str:
    """The rule's title, then its settings (if any) in brackets after ``before``."""
    letters = {"eps": "ε", "delta": "δ"}  # any other setting by its name
    shown = [f"{letters.get(k, k)} = {v:g}" for k, v in check.params.items()]
    return notation.fill(check.rule.title) + (f"{before}({', '.join(shown)})" if shown else "")


def tradeoff_figure(
    checks: Sequence[RuleCheck], alpha: float, style: ChartStyle
) -> tuple[dict, str]:
    """Speed against exactness: each rule's acceptance (x) and its output's TV to the target (y),
    with α marked, the most an exact rule with one draft can keep; and its alt text."""
    verdicts = [
        style.fill(say("variants.exact_legend", icon=palette.ACCEPTED.icon)),
        style.fill(say("variants.inexact_legend", icon=palette.REJECTED.icon)),
    ]
    # A rule's settings on a line of their own in the legend: a phone has no room for both.
    rules = [
        {"i": i, "name": f"{role(c).icon} " + _rule_name(c, style.notation, "\n")}
        | {"acceptance": float(c.acceptance), "tv": float(c.tv), "verdict": verdicts[c.tv != 0]}
        for i, c in enumerate(checks)
    ]
    top = max([c.tv for c in checks] + [0.1]) * 1.15
    line = say("variants.alpha_line", alpha=percent(alpha))
    datasets = {
        "rules": rules,
        "alpha": [{"acceptance": float(alpha), "label": line, "line": True}],
        # The y axis follows the rules' TVs: its ends are data, a little below 0 and above all.
        "frame": [{"tv": -0.02 * top}, {"tv": top}],
    }
    title = style.fill(say("variants.tradeoff_title")).split("\n")
    # Rows over the house height: two title lines, the rules' legend but one, the key, and the
    # legend of colours under the chart. No control moves this chart on a projector's first
    # screen: its plot keeps the two rows :func:`height` gives up there.
    rows = 2 + sum(1 + bool(c.params) for c in checks) - 1 + 1 + 2 + 2 * style.projector
    height = vega.height(style, rows)
    names = [_rule_name(c, style.notation) for c in checks]
    summary = "; ".join(
        say("variants.tradeoff_rule", rule=name, keeps=percent(c.acceptance), tv=tv_text(c.tv))
        for c, name in zip(checks, names, strict=True)
    )
    caption = style.fill(say("variants.tradeoff_caption", rules=summary, alpha=percent(alpha)))
    chart = vega.chart(style, title, datasets, _tradeoff_layers(style, verdicts), height=height)
    return chart, caption


def _tradeoff_layers(style: ChartStyle, verdicts: list[str]) -> list[dict]:
    """The layers of :func:`tradeoff_figure`: nothing in them depends on the state. One point per
    rule: its shape names the rule (legend entries carry ✓ or ✗ too), its colour says whether it
    is exact (``verdicts``: a legend under the chart, two side by side would not fit a phone)."""
    x = {"field": "acceptance", "type": "quantitative", "title": say("variants.x_title")}
    # Room past 0 and 100% for a point's half and the end label's (Chromium draws "100%" a few px
    # wider than Vega measures it: at 3% it ran 2 px past a 1280 px projector's chart).
    x["scale"] = {"domain": [-0.04, 1.04], "nice": False}
    x["axis"] = {"format": ".0%", "values": [0, 0.2, 0.4, 0.6, 0.8, 1]}
    y = {"field": "tv", "type": "quantitative", "title": style.fill(say("variants.y_title"))}
    y["scale"] = {"zero": False, "nice": False}
    y["axis"] = {"format": ".2~f", "tickCount": 5}
    dash = {"stroke": palette.NEUTRAL.color, "strokeDash": _ALPHA_DASH}
    marker = {
        "data": vega.data("alpha"),
        "mark": {"type": "rule", "strokeWidth": style.line_width, **dash},
        "encoding": {"x": x},
    }
    points = {
        "data": vega.data("rules"),
        "mark": {"type": "point", "filled": True, "opacity": 1, "stroke": palette.INK}
        | {"strokeWidth": 1.5, "size": 400 if style.projector else 200},
        "encoding": {
            "x": x,
            "y": y,
            # Titled for screen readers (each point is described); the legends need no title.
            "shape": {
                "field": "name",
                "type": "nominal",
                "title": say("variants.rule"),
                "sort": {"field": "i", "op": "min"},
                "scale": {"range": list(_SHAPES)},
                "legend": vega.legend_over(1, style)
                | {"symbolFillColor": palette.GRID, "symbolStrokeColor": palette.INK}
                | {"labelExpr": "split(datum.label, '\\n')", "title": None},
            },
            "fill": {
                "field": "verdict",
                "type": "nominal",
                "title": say("variants.exact_field"),
                "scale": vega.legend_scale(verdicts, [palette.ACCEPTED, palette.REJECTED]),
                "legend": {"orient": "bottom", "symbolStrokeColor": palette.INK}
                | {"labelFont": vega.FONT, "title": None},
            },
            "tooltip": vega.tooltip(
                ("name", say("variants.rule")),
                ("acceptance", say("variants.keeps"), percent),
                ("tv", say("variants.distance"), tv_text),
            ),
        },
    }
    return [vega.unseen("frame", y=y), marker, points, *vega.key_row("alpha", 0, style, dash)]


def variant_figure(
    labels: Sequence[str], step: OneTokenStep, check: RuleCheck, style: ChartStyle
) -> tuple[dict, str]:
    """One rule up close: its exact output law next to the target, the words of its
    Monte Carlo runs as strokes over its bars; and its alt text, the numbers word by word."""
    p, law = step.p, check.law
    runs, n = check.counts / check.n, thousands(check.n)
    colour = role(check)
    room = float(max(p.max(), law.max(), runs.max())) * 1.22  # for the numbers over the bars
    pairs = np.column_stack([p, law]).ravel()
    # Each bar's share over it, read in pairs, left out where neighbouring pairs would collide.
    shares = fit_row([[percent(v) for v in pairs]], pairs, room, style)
    names = (
        style.fill(say("variants.target_kind", icon=palette.TARGET.icon)),
        say("variants.rule_kind", icon=colour.icon),
    )
    bars = [
        {"i": i, "word": w, "s": s, "share": float(v), "label": shares[2 * i + s]}
        | {"series": names[s], "color": r.color, "patterned": bool(r.pattern)}
        # The runs' strokes go over the rule's bars only (the target's rows carry a copy).
        | {"runs": float(runs[i]), "top": room}
        for i, w in enumerate(labels)
        for s, (v, r) in enumerate(((p[i], palette.TARGET), (law[i], colour)))
    ]
    tv, run_tv, band = tv_text(check.tv), tv_text(check.run_tv), tv_text(check.band_upper)
    datasets = {
        "runs": [{"label": say("variants.runs_key", n=n, seed=check.seed), "line": True}],
        # The rule and its distance to the target, over the plot (the title cannot change).
        "rule": [{"label": style.fill(check.rule.title)}],
        "tv": [{"label": style.fill(say("variants.tv_label", tv=tv))}],
        "bars": bars,
        "yticks": vega.share_ticks(room),
    }
    title = style.fill(say("variants.close_title"))
    parts = [
        say("variants.close_word", word=w, target=percent(t), rule=percent(a), runs=percent(r))
        for w, t, a, r in zip(labels, p, law, runs, strict=True)
    ]
    rule, words = check.rule.title, "; ".join(parts)
    caption = style.fill(
        say("variants.close_caption", rule=rule, words=words, n=n, tv=tv, run_tv=run_tv, band=band)
    )
    # Four rows over the house height: the legend's second, the runs' key, the rule, its TV.
    height = vega.height(style, 4)
    return vega.chart(style, title, datasets, _variant_layers(style), height=height), caption


def _variant_layers(style: ChartStyle) -> list[dict]:
    """The layers of :func:`variant_figure`: nothing in them depends on the state."""
    x, y = vega.word_x(style), vega.room_y("share")
    beside = vega.pair_offset([0, 1], field="s")
    tip = vega.tooltip("word", ("runs", say("variants.its_runs"), fine_percent))
    shown = vega.shown_if("datum.s == 1")  # over the rule's bars only
    runs = vega.strokes(
        x, vega.room_y("runs"), style, _RUNS_DASH, vega.pair_span(1), opacity=shown, tooltip=tip
    )
    over = {"baseline": "bottom", "dy": -(style.line_width + 3)}
    numbers = vega.text("label", over, x=x, xOffset=beside, y=y)
    bars = _bars_in_their_roles(style, x=x, xOffset=beside, y=y)
    layers = [{"data": vega.data("bars")} | layer for layer in (bars, runs, numbers)]
    key = vega.key_row("runs", 2, style, {"stroke": palette.INK, "strokeDash": _RUNS_DASH})
    heading = vega.key_row("rule", 1, style, fontWeight="bold") + vega.key_row("tv", 0, style)
    return layers + vega.room("bars", "top") + key + heading


def _bars_in_their_roles(style: ChartStyle, **encoding: object) -> dict:
    """Bars whose role is data, each row's "series" (its legend entry), "color" and "patterned":
    what :func:`vega.role_bars` spells out for a role known in advance."""
    patterned, bar = "datum.patterned", say("variants.bar")
    ink = vega.role_bar(palette.REJECTED, style)  # the one patterned role that can occur here

    def outline(key: str, otherwise: object) -> dict:
        return {"condition": {"test": patterned, "value": ink[key]}} | otherwise

    return {
        "mark": {"type": "bar"},
        "encoding": {
            **encoding,
            # A scale whose range is the rows' field "color", in the order of its domain, the
            # series' names (one colour to a name: the range keeps each colour once).
            "fill": {
                "field": "series",
                "type": "nominal",
                "title": bar,  # for screen readers: each bar is described
                "scale": {"range": {"field": "color"}},
                "legend": vega.legend_over(3, style) | {"title": None},
            },
            "stroke": outline("stroke", {"field": "color", "type": "nominal", "scale": None}),
            "strokeDash": outline("strokeDash", {"value": [1, 0]}),
            "strokeWidth": outline("strokeWidth", {"value": 1}),
            "opacity": vega.shown_if("datum.share != 0"),
            "tooltip": vega.tooltip("word", ("series", bar), ("share", None, fine_percent)),
        },
    }


def lab_figures(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle,
    checks: Sequence[RuleCheck],
    selected: int,
) -> dict[str, object]:
    """The lab's table and charts: ``{"table", "tradeoff", "variant"}`` (charts with captions)."""
    return {
        "table": lab_table(checks, style.notation),
        "tradeoff": tradeoff_figure(checks, step.alpha, style),
        "variant": variant_figure(labels, step, checks[selected], style),
    }
