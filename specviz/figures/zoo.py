"""The Bug zoo's charts and their alt text: a rule's exact output law next to the target, and its
TV path stalling at its floor while the correct rule's keeps falling."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from specviz import palette
from specviz.figures.convergence import zoo_chart_caption, zoo_spec
from specviz.figures.numbers import percent, tv_text
from specviz.figures.style import DEFAULT_STYLE, ChartStyle, figure, pair_layout
from specviz.figures.traces import law_beside_target
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.zoo import ZooComparison


def zoo_law_figure(
    labels: Sequence[str],
    step: OneTokenStep,
    comparison: ZooComparison,
    title: str,
    style: ChartStyle = DEFAULT_STYLE,
) -> go.Figure:
    """The mistaken rule's exact output law next to the target (= the correct rule's output)."""
    p, law = step.p, comparison.law
    t = style.notation.target
    top = float(max(p.max(), law.max()))
    traces = law_beside_target(
        labels,
        p,
        law,
        palette.REJECTED,
        style,
        top=top,
        target_name=f"target {t} = output of the correct rule",
        law_name="output of the mistake",
        who="the mistake",
    )
    heading = f"{title}: its output vs {t}, TV = {tv_text(comparison.tv)}"
    return figure(traces, pair_layout(style, heading, labels, top))


def zoo_law_caption(
    labels: Sequence[str],
    step: OneTokenStep,
    comparison: ZooComparison,
    title: str,
    notation: Notation,
) -> str:
    """Both laws, word by word, and their distance."""
    parts = [
        f"{w} {percent(a)} vs {percent(b)}"
        for w, a, b in zip(labels, comparison.law, step.p, strict=True)
    ]
    return notation.fill(
        f"Grouped bars: output of '{title}' vs target {{T}}, word by word: "
        + "; ".join(parts)
        + f". Total variation distance {tv_text(comparison.tv)}: that share of the probability "
        "mass lands on the wrong words."
    )


def zoo_figures(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle,
    comparison: ZooComparison,
) -> dict[str, tuple[go.Figure | dict, str]]:
    """Both charts of the Bug zoo page with their alt text: ``{"law", "tv"}``.

    The convergence chart comes as an unvalidated Vega-Lite dict written directly
    (:func:`specviz.figures.convergence.zoo_spec`; see
    :func:`specviz.figures.montecarlo.monte_carlo_figures`).
    """
    notation = style.notation
    title = style.fill(comparison.rule.title)
    return {
        "law": (
            zoo_law_figure(labels, step, comparison, title, style),
            zoo_law_caption(labels, step, comparison, title, notation),
        ),
        "tv": (
            zoo_spec(comparison, title, style),
            zoo_chart_caption(comparison, title, notation),
        ),
    }
