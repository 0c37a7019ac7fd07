"""The animated flow: where each word's probability goes, gliding from the last state to this one.

``st.plotly_chart`` in Streamlit 1.67 remounts a chart whenever its data change, so Plotly's own
transitions never run between reruns. This view is a small HTML page instead: it remembers the
state it last drew (``sessionStorage``, per browser tab) and animates from it with CSS transitions,
in the browser — the server only sends the new numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specviz.figures.captions import proof_caption
from specviz.figures.html import render
from specviz.figures.style import DEFAULT_STYLE, ChartStyle
from specviz.one_token import acceptance_probs, acceptance_rate, rejection_mass, residual


def flow_data(
    labels: Sequence[str],
    p: np.ndarray,
    q: np.ndarray,
    style: ChartStyle = DEFAULT_STYLE,
    key: str = "main",
) -> dict:
    """Per word: draft mass kept and bounced, bucket refill, and the totals α and Z."""
    kept = q * acceptance_probs(p, q)  # min(p, q)
    z = rejection_mass(p, q)
    return {
        "key": key,
        "T": style.notation.target,
        "D": style.notation.draft,
        "labels": list(labels),
        "p": p.tolist(),
        "q": q.tolist(),
        "kept": kept.tolist(),
        "bounced": (q - kept).tolist(),  # max(0, q - p): what the test sends back
        "refill": (z * residual(p, q)).tolist(),  # max(0, p - q): what the bucket tops up
        "alpha": acceptance_rate(p, q),
        "z": z,
    }


def flow_html(
    labels: Sequence[str],
    p: np.ndarray,
    q: np.ndarray,
    style: ChartStyle = DEFAULT_STYLE,
    key: str = "main",
) -> str:
    """The animated flow view (an HTML document for ``st.iframe``).

    ``key`` names the view, so two flows on different pages do not animate from each other.
    """
    alt = proof_caption(labels, p, q, style.notation)
    return render("flow.html", style, flow_data(labels, p, q, style, key), alt=_attribute(alt))


def _attribute(text: str) -> str:
    """Text for an HTML attribute value: the captions hold only words, digits and symbols."""
    return (
        text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )
