"""The "one draw at a time" player: a self-contained HTML page that animates precomputed draws.

The server computes the story once (:func:`specviz.story.one_draw_story`); stepping, playing and
pausing happen in the learner's browser, so a class pressing Play costs the server nothing. The
controls are real buttons (keyboard reachable), the current stage is announced in a live region,
and accepted/rejected are told by icon and words as well as colour.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from specviz import palette
from specviz.figures.style import DEFAULT_STYLE, ChartStyle, percent
from specviz.one_token import rejection_mass, residual
from specviz.story import DrawStory

_TEMPLATE = Path(__file__).with_name("player.html")


@cache
def _template() -> str:
    return _TEMPLATE.read_text(encoding="utf-8")


def story_data(
    labels: Sequence[str], p: np.ndarray, q: np.ndarray, story: DrawStory, style: ChartStyle
) -> dict:
    """Everything the player shows, as JSON-ready plain values."""
    z = rejection_mass(p, q)
    return {
        "labels": list(labels),
        "p": p.tolist(),
        "q": q.tolist(),
        "r": residual(p, q).tolist(),
        "z": z,
        "T": style.notation.target,
        "D": style.notation.draft,
        "u1": story.u_draft.tolist(),
        "draft": story.draft.tolist(),
        "a": story.accept_prob.tolist(),
        "u": story.u_accept.tolist(),
        "accepted": story.accepted.tolist(),
        "u3": [None if np.isnan(v) else float(v) for v in story.u_bucket],
        "output": story.output.tolist(),
    }


def player_html(
    labels: Sequence[str],
    p: np.ndarray,
    q: np.ndarray,
    story: DrawStory,
    style: ChartStyle = DEFAULT_STYLE,
) -> str:
    """The player page for ``story`` (an HTML document for ``st.iframe``)."""
    data = story_data(labels, p, q, story, style)
    # Inside <script>, "</script" or "<!--" in a label could end or swallow the tag: escape every
    # "<", ">" and "&" as JSON unicode escapes, which parse back to the same strings.
    payload = (
        json.dumps(data, allow_nan=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    replacements = {
        "__FONT__": str(style.font_size + (6 if style.projector else 2)),
        "__DRAFT__": palette.DRAFT.color,
        "__TARGET__": palette.TARGET.color,
        "__ACCEPTED__": palette.ACCEPTED.color,
        "__REJECTED__": palette.REJECTED.color,
        "__BUCKET__": palette.BUCKET.color,
        "__Z__": percent(data["z"]),
        "__T__": style.notation.target,
        "__D__": style.notation.draft,
        "__DATA__": payload,
    }
    html = _template()
    for key, value in replacements.items():
        html = html.replace(key, value)
    return html
