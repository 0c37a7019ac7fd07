"""The "one draw at a time" player: a self-contained HTML page that animates precomputed draws.

The server computes the story once (:func:`specviz.story.one_draw_story`); stepping, playing and
pausing happen in the learner's browser, so a class pressing Play costs the server nothing. The
controls are real buttons (keyboard reachable), the current stage is announced in a live region,
and accepted/rejected are told by icon and words as well as colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specviz.figures.html import render
from specviz.figures.style import DEFAULT_STYLE, ChartStyle, percent
from specviz.one_token import rejection_mass, residual
from specviz.story import DrawStory


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
    return render("player.html", style, data, z=percent(data["z"]))
