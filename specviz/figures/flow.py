"""The animated flow: where each word's probability goes, gliding from the last state to this one.

``st.plotly_chart`` in Streamlit 1.67 remounts a chart whenever its data change, so Plotly's own
transitions never run between reruns. This view is a small HTML page instead: it remembers the
state it last drew (``sessionStorage``, per browser tab) and animates from it with CSS transitions,
in the browser — the server only sends the new numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from specviz.figures.captions import proof_caption
from specviz.figures.fit import caps_fit, words_fit
from specviz.figures.html import attribute, render
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.one_token import OneTokenStep


def flow_data(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle = DEFAULT_STYLE,
    key: str = "main",
) -> dict:
    """Per word: draft mass kept and bounced, bucket refill, and the totals α and Z."""
    return {
        "key": key,
        "T": style.notation.target,
        "D": style.notation.draft,
        "labels": list(labels),
        "p": step.p.tolist(),
        "q": step.q.tolist(),
        "kept": step.kept.tolist(),
        "bounced": step.bounced.tolist(),
        "refill": step.refill.tolist(),
        "alpha": step.alpha,
        "z": step.z,
        # Values over the bars only where they fit side by side (hover and the caption always
        # have them): decided by the one text-fitting rule, not by a count of words.
        "caps": caps_fit(labels, step, style),
        "words_fit": words_fit(labels, style),
        # On a projector the view shares the screen with the sliders: a lower chart.
        "compact": style.projector,
    }


def flow_html(
    labels: Sequence[str],
    step: OneTokenStep,
    style: ChartStyle = DEFAULT_STYLE,
    key: str = "main",
) -> str:
    """The animated flow view (an HTML document for ``st.iframe``).

    ``key`` names the view, so two flows on different pages do not animate from each other.
    """
    alt = proof_caption(labels, step, style.notation)
    return render("flow.html", style, flow_data(labels, step, style, key), alt=attribute(alt))
