"""The landing page's small live example (Altair)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt

from specviz import palette
from specviz.figures.numbers import percent
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.one_token import OneTokenStep
from specviz.scenario import DEFAULT_WORDS, home_example


def pair_chart(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle = DEFAULT_STYLE
) -> alt.Chart:
    """Target and draft as grouped bars, each bar also labelled with its letter and value."""
    p, q = step.p, step.q
    target, draft = style.notation.target, style.notation.draft
    names = {
        target: f"{palette.TARGET.icon} target {target}",
        draft: f"{palette.DRAFT.icon} draft {draft}",
    }
    rows = [
        {"word": w, "model": names[letter], "prob": float(v), "tag": percent(v)}
        for letter, dist in ((target, p), (draft, q))
        for w, v in zip(labels, dist, strict=True)
    ]
    order = list(labels)
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X("word:N", sort=order, title=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("model:N", sort=list(names.values())),
        y=alt.Y("prob:Q", title=None, axis=alt.Axis(format="%")),
    )
    bars = base.mark_bar(stroke=palette.INK, strokeWidth=1).encode(
        color=alt.Color(
            "model:N",
            scale=alt.Scale(
                domain=list(names.values()), range=[palette.TARGET.color, palette.DRAFT.color]
            ),
            legend=alt.Legend(orient="top", title=None),
        ),
        strokeDash=alt.StrokeDash(
            "model:N",
            scale=alt.Scale(domain=list(names.values()), range=[[1, 0], [4, 2]]),
            legend=None,
        ),
        tooltip=["word:N", "model:N", alt.Tooltip("prob:Q", format=".1%")],
    )
    text = base.mark_text(dy=-8, fontSize=style.text_size).encode(text="tag:N")
    return (
        (bars + text)
        .properties(height=style.height - 100)
        .configure_axis(labelFontSize=style.font_size, titleFontSize=style.font_size)
        .configure_legend(labelFontSize=style.font_size, symbolSize=200)
    )


def landing_figure(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle = DEFAULT_STYLE
) -> tuple[dict, str]:
    """The landing chart as a Vega-Lite spec, and its caption (alt text).

    The spec is converted once: converting an Altair chart costs ~30 ms, too much per rerun.
    """
    caption = style.fill(
        f"Bar chart of target {{T}} and draft {{D}} over {', '.join(labels)}. "
        f"Target {{T}}: {', '.join(percent(v) for v in step.p)}; "
        f"draft {{D}}: {', '.join(percent(v) for v in step.q)}. "
        f"They overlap on {percent(step.alpha)} of their mass: that is the acceptance rate."
    )
    return pair_chart(labels, step, style).to_dict(), caption


def home_figure(quality: int, style: ChartStyle = DEFAULT_STYLE) -> tuple[dict, str]:
    """Home's example chart at a draft quality of ``quality`` percent (see
    :func:`specviz.scenario.home_example`)."""
    return landing_figure(DEFAULT_WORDS[:4], home_example(quality), style)
