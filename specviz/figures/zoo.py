"""The Bug zoo's charts and their alt text: a rule's exact output law next to the target, and its
TV path stalling at its floor. The rule's name and TV are data (a line over the bars, legend
entries), not titles: picking another mistake updates the charts in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from specviz import palette
from specviz.figures import vega
from specviz.figures.convergence import zoo_chart_caption, zoo_spec
from specviz.figures.montecarlo import pair_data, pair_layers
from specviz.figures.numbers import percent, tv_text
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.text import say
from specviz.zoo import ZooComparison

#: Room over the tallest bar, as a share of its height: the numbers over the bars and, above
#: them, the line naming the rule and its distance.
ZOO_HEADROOM = 1.35


def zoo_law_figure(
    labels: Sequence[str],
    step: OneTokenStep,
    comparison: ZooComparison,
    title: str,
    style: ChartStyle = DEFAULT_STYLE,
) -> dict:
    """The mistaken rule's exact output law next to the target (= the correct rule's output),
    under a line naming the rule (``title``) and its TV distance to the target."""
    kinds = (
        style.fill(say("zoo.target_kind", icon=palette.TARGET.icon)),
        say("zoo.mistake_kind", icon=palette.REJECTED.icon),
    )
    datasets = pair_data(labels, kinds, step.p, comparison.law, style, headroom=ZOO_HEADROOM)
    datasets["heading"] = [{"text": say("zoo.heading", rule=title, tv=tv_text(comparison.tv))}]
    mark = {"align": "left", "baseline": "top", "fontSize": style.font_size, "fontWeight": 600}
    corner = {"value": 4}
    heading = {"data": vega.data("heading")} | vega.text("text", mark, x=corner, y=corner)
    layers = [*pair_layers(kinds, (palette.TARGET, palette.REJECTED), style), heading]
    return vega.chart(style, vega.title(say("zoo.law_title"), style), datasets, layers)


def zoo_law_caption(
    labels: Sequence[str],
    step: OneTokenStep,
    comparison: ZooComparison,
    title: str,
    notation: Notation,
) -> str:
    """Both laws, word by word, and their distance."""
    words = "; ".join(
        say("zoo.caption_word", word=w, rule=percent(a), target=percent(b))
        for w, a, b in zip(labels, comparison.law, step.p, strict=True)
    )
    return notation.fill(say("zoo.law_caption", rule=title, words=words, tv=tv_text(comparison.tv)))


def zoo_figures(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle, comparison: ZooComparison
) -> dict[str, tuple[dict, str]]:
    """Both charts of the Bug zoo page with their alt text: ``{"law", "tv"}``."""
    title, notation = style.fill(comparison.rule.title), style.notation
    law = zoo_law_figure(labels, step, comparison, title, style)
    return {
        "law": (law, zoo_law_caption(labels, step, comparison, title, notation)),
        "tv": (zoo_spec(comparison, title, style), zoo_chart_caption(comparison, title, notation)),
    }
