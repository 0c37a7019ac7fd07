"""The "one draw at a time" player: a self-contained HTML page that animates precomputed draws.

The server computes the story once (:func:`specviz.story.one_draw_story`); stepping, playing and
pausing happen in the learner's browser, so a class pressing Play costs the server nothing. The
controls are real buttons (keyboard reachable), the current stage is announced in a live region,
and accepted/rejected are told by icon and words as well as colour.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from specviz.figures.html import palette_css
from specviz.figures.numbers import NUMBERS_JS, percent
from specviz.figures.style import ChartStyle
from specviz.one_token import OneTokenStep
from specviz.story import DrawStory

#: What a ``<script>`` element's JSON must escape, which ``</script>`` or ``<!--`` in a label
#: could end: every ``<``, ``>`` and ``&`` as a JSON unicode escape.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def story_data(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle, story: DrawStory, at: int = 0
) -> dict:
    """Everything the player shows, as JSON-ready plain values, from ``at`` steps after the start
    (4 a draw, then 1 for the end; see :data:`~specviz.links.PLAYER_AT`)."""
    return {
        "labels": list(labels),
        "p": step.p.tolist(),
        "q": step.q.tolist(),
        "r": step.residual.tolist(),
        "z": step.z,
        "T": style.notation.target,
        "D": style.notation.draft,
        "u1": story.u_draft.tolist(),
        "draft": story.draft.tolist(),
        "a": story.accept_prob.tolist(),
        "u": story.u_accept.tolist(),
        "accepted": story.accepted.tolist(),
        "u3": [None if np.isnan(v) else float(v) for v in story.u_bucket],
        "output": story.output.tolist(),
        # On a projector the player shares the screen with the page's controls: tighter rows.
        "compact": style.projector,
        "at": at,
    }


def player_html(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle, story: DrawStory, at: int = 0
) -> str:
    """The player page for ``story`` (an HTML document for ``st.iframe``), ``at`` steps in: its
    template lettered, with the palette, the type size, the bucket's size and the JSON data."""
    data = story_data(labels, step, style, story, at)
    # Letters first: the data may hold braces.
    html = style.fill(Path(__file__).with_name("player.html").read_text(encoding="utf-8"))
    replacements = {
        "__FONT__": str(style.html_font_size),
        "__PALETTE__": palette_css(),
        "__Z__": percent(step.z),
        "__NUMBERS__": NUMBERS_JS,
        "__DATA__": json.dumps(data, allow_nan=False).translate(_SCRIPT_SAFE),
    }
    for key, value in replacements.items():
        html = html.replace(key, value)
    return html


#: A script in the page (a components v2 component) that hears where a paused or stepped player
#: is (a message from its frame) and tells the server, which puts it in the share link.
HEAR_PLAYER_JS = """export default function ({ setStateValue }) {
  const hear = (e) => Number.isInteger(e.data?.playerAt) && setStateValue("at", e.data.playerAt);
  window.addEventListener("message", hear);
  return () => window.removeEventListener("message", hear);
}"""
