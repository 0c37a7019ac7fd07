"""The Variants lab: every rule that is not a mistake, side by side on the same pair and seed —
a table, a speed-against-exactness chart and one rule's output law up close, all read from the
rules' :class:`~specviz.zoo.RuleCheck` results.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.figures.numbers import percent, tv_text
from specviz.figures.style import ChartStyle, figure, layout, pair_layout
from specviz.figures.traces import BAR_WIDTH, RIGHT, law_beside_target, outline
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.rules import EXACT
from specviz.zoo import RuleCheck

#: One marker shape per rule in the speed-against-exactness chart (the legend names them).
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "pentagon")


def role(check: RuleCheck) -> palette.Role:
    """Green (✓) for a rule whose output is the target on this pair, vermillion (✗) otherwise."""
    return palette.ACCEPTED if check.tv == 0 else palette.REJECTED


def exactness(check: RuleCheck, notation: Notation) -> str:
    """Whether the rule is exact, in a few words: for every pair, on this one, or not."""
    if check.rule.kind == EXACT:
        return "yes, on every pair"
    if check.tv == 0:
        return "on this pair only"
    return "no"


def run_passes(check: RuleCheck) -> str:
    """The Monte Carlo check in one word, for a metric: can the runs be told from the target?"""
    return "✗ fails" if check.stands_out else "✓ passes"


def run_verdict(check: RuleCheck) -> str:
    """What the Monte Carlo run says, in a few words."""
    if check.stands_out:
        return "✗ stands out of the noise"
    if check.detectable_from is not None:
        return f"hidden in the noise (shows from N ≈ {check.detectable_from:,})"
    return "✓ inside the noise band"


def lab_table(checks: Sequence[RuleCheck], notation: Notation) -> dict[str, list[str]]:
    """One row per rule: acceptance, exactness, and the Monte Carlo check."""
    n = checks[0].n if checks else 0
    table: dict[str, list[str]] = {
        "rule": [],
        "keeps a guess": [],
        notation.fill("TV to {T} (exact)"): [],
        notation.fill("output = {T}?"): [],
        f"TV of {n:,} runs": [],
        "Monte Carlo check": [],
    }
    for check in checks:
        values = (
            notation.fill(check.rule.title) + _params_text(check),
            percent(check.acceptance),
            tv_text(check.tv),
            exactness(check, notation),
            tv_text(check.run_tv),
            run_verdict(check),
        )
        for column, value in zip(table, values, strict=True):
            table[column].append(value)
    return table


def _params_text(check: RuleCheck) -> str:
    names = {"k": "k", "eps": "ε", "delta": "δ"}
    shown = [f"{names.get(k, k)} = {v:g}" for k, v in check.params.items()]
    return f" ({', '.join(shown)})" if shown else ""


def tradeoff_figure(checks: Sequence[RuleCheck], alpha: float, style: ChartStyle) -> go.Figure:
    """Speed against exactness: each rule's acceptance (x) and the TV of its output to the
    target (y), with the standard rule's α marked — the most any exact rule with one draft
    can keep."""
    traces: list[dict] = []
    size = 18 if style.projector else 13
    for i, check in enumerate(checks):
        colour = role(check)
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"{colour.icon} {style.fill(check.rule.title)}{_params_text(check)}",
                "x": [check.acceptance],
                "y": [check.tv],
                "marker": {
                    "symbol": _SYMBOLS[i % len(_SYMBOLS)],
                    "size": size,
                    "color": colour.color,
                    "line": {"color": palette.INK, "width": 1.5},
                },
                "hovertemplate": "keeps %{x:.1%} of guesses, TV %{y:.3g}<extra></extra>",
                "cliponaxis": False,
            }
        )
    top = max([c.tv for c in checks] + [0.1]) * 1.15
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"α = {percent(alpha)}: best exact rule with one draft",
            "x": [alpha, alpha],
            "y": [0, top],
            "line": {"color": palette.NEUTRAL.color, "width": style.line_width, "dash": "dash"},
            "hoverinfo": "skip",
        }
    )
    spec = layout(
        style,
        style.fill(
            "Speed against exactness:\nhow often a guess is kept, how far the words are from {T}"
        ),
        traces,
        xaxis={
            "range": [-0.03, 1.03],
            "tickformat": ".0%",
            "title": {"text": "share of guesses kept (faster →)"},
            "fixedrange": True,
            "automargin": True,
        },
        yaxis={
            "range": [-0.02 * top, top],
            "tickformat": ".2~f",
            "title": {"text": style.fill("TV of its words to {T} (0 = exact)")},
        },
    )
    return figure(traces, spec)


def tradeoff_caption(checks: Sequence[RuleCheck], alpha: float, notation: Notation) -> str:
    """Every point of the chart in words."""
    parts = [
        f"{notation.fill(c.rule.title)}{_params_text(c)}: keeps {percent(c.acceptance)}, "
        f"TV {tv_text(c.tv)}"
        for c in checks
    ]
    return notation.fill(
        "Scatter of each rule's share of kept guesses against the TV distance of its output to "
        "{T}: " + "; ".join(parts) + f". Dashed line at α = {percent(alpha)}."
    )


def variant_figure(
    labels: Sequence[str], step: OneTokenStep, check: RuleCheck, style: ChartStyle
) -> go.Figure:
    """One rule up close: its exact output law next to the target, the words of its
    Monte Carlo runs as strokes over its bars."""
    p, law = step.p, check.law
    runs = check.counts / check.n
    title = style.fill(check.rule.title)
    colour = role(check)
    top = float(max(p.max(), law.max(), runs.max()))
    t = style.notation.target
    traces = [
        *law_beside_target(
            labels,
            p,
            law,
            colour,
            style,
            top=top,
            target_name=f"target {t}",
            law_name="what the rule emits (exact)",
            who="the rule",
        ),
        outline(
            f"{check.n:,} runs of it (seed {check.seed})",
            np.arange(len(labels)) + RIGHT + BAR_WIDTH / 2,
            runs,
            style,
            dash="dot",
        ),
    ]
    heading = f"{title}: its words vs {t}, TV = {tv_text(check.tv)}"
    return figure(traces, pair_layout(style, heading, labels, top))


def variant_caption(
    labels: Sequence[str], step: OneTokenStep, check: RuleCheck, notation: Notation
) -> str:
    """The chart's numbers, word by word."""
    runs = check.counts / check.n
    parts = [
        f"{w}: {percent(t)} vs {percent(a)} (runs {percent(r)})"
        for w, t, a, r in zip(labels, step.p, check.law, runs, strict=True)
    ]
    return notation.fill(
        f"Grouped bars, target {{T}} vs '{check.rule.title}' word by word: "
        + "; ".join(parts)
        + f". TV {tv_text(check.tv)} exactly; {check.n:,} runs end at TV "
        f"{tv_text(check.run_tv)} (an exact rule stays below {tv_text(check.band_upper)} in "
        "97.5% of seeds)."
    )


def lab_figures(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle,
    checks: Sequence[RuleCheck],
    selected: int,
) -> dict[str, object]:
    """The lab's table and charts: ``{"table", "tradeoff", "variant"}`` (charts with captions)."""
    note = style.notation
    check = checks[selected]
    return {
        "table": lab_table(checks, note),
        "tradeoff": (
            tradeoff_figure(checks, step.alpha, style),
            tradeoff_caption(checks, step.alpha, note),
        ),
        "variant": (
            variant_figure(labels, step, check, style),
            variant_caption(labels, step, check, note),
        ),
    }
