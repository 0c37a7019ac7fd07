"""The "one draw at a time" player: a self-contained HTML page that animates precomputed draws.

The server computes the story once (:func:`specviz.story.one_draw_story`); stepping, playing and
pausing happen in the learner's browser, so a class pressing Play costs the server nothing. The
controls are real buttons (keyboard reachable), the current stage is announced in a live region,
and accepted/rejected are told by icon and words as well as colour.
"""

from __future__ import annotations

import html as markup
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from specviz.figures.html import palette_css
from specviz.figures.numbers import NUMBERS_JS, percent
from specviz.figures.style import ChartStyle
from specviz.one_token import OneTokenStep
from specviz.story import DrawStory
from specviz.text import NUMBERS, language, say, template, templates

#: What a ``<script>`` element's JSON must escape, which ``</script>`` or ``<!--`` in a label
#: could end: every ``<``, ``>`` and ``&`` as a JSON unicode escape.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
#: A placeholder of player.html: ``__NAME__``.
_PLACEHOLDER = re.compile(r"__([A-Z]+(?:_[A-Z]+)*)__")
#: The ``lang`` of a page in each language (BCP 47): Chinese is written in its simplified script.
_HTML_LANG = {"zh": "zh-Hans"}


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


def page_words(step: OneTokenStep) -> dict[str, str]:
    """The player's words in its HTML, in the run's language, by placeholder (``__TITLE__``): its
    title, controls, headings and legend; ``{T}`` and ``{D}`` left for the letters."""
    return {
        "TITLE": say("player.title"),
        "CONTROLS": say("player.controls"),
        "PLAY": say("player.play"),
        "STEP": say("player.step"),
        "STEP_TITLE": say("player.step_title"),
        "NEXT_DRAW": say("player.next_draw"),
        "NEXT_DRAW_TITLE": say("player.next_draw_title"),
        "RESET": say("player.reset"),
        "SPEED": say("player.speed"),
        "SLOW": say("player.slow"),
        "NORMAL": say("player.normal"),
        "FAST": say("player.fast"),
        "INSTANT": say("player.instant"),
        "DRAFT_HEAD": say("player.draft_head"),
        "DRAFT_NOTE": say("player.draft_note"),
        "TEST_HEAD": say("player.test_head"),
        "TEST_NOTE": say("player.test_note"),
        "TEST_WAIT": say("player.test_wait"),
        "ACCEPT": say("player.accept"),
        "REJECT": say("player.reject"),
        "BUCKET_HEAD": say("player.bucket_head"),
        "BUCKET_NOTE": say("player.bucket_note", z=percent(step.z)),
        "TALLY_HEAD": say("player.tally_head"),
        "TALLY_NOTE": say("player.tally_note"),
        "FROM_DRAFT": say("player.from_draft"),
        "FROM_BUCKET": say("player.from_bucket"),
        "TARGET_KEY": say("player.target_key"),
    }


def script_words() -> dict[str, str]:
    """The templates of the sentences the player's script writes, in the run's language: their
    ``{name}`` fields are the script's to fill (``fill(SAY.ready, { draw: 3 })``), ``{T}`` and
    ``{D}`` the letters'."""
    return (
        templates("player", ("play", "pause", "accept", "reject", "from_draft", "from_bucket"))
        | templates("player", ("quoted", "empty_bucket", "counter", "counter_step", "no_draws"))
        | templates("player", ("ready", "accept_if", "accepted", "rejected", "start"))
        # The page's button, as the page names it.
        | {"end": template("player.end").replace("{new}", say("one_draw.new"))}
        | templates("player", ("proposed", "kept", "bounced", "no_bucket", "bucket_draw"))
        | templates("player", ("emitted_one", "emitted_many"))
    )


def _text(words: str) -> str:
    """``words`` as an element's text or a quoted attribute's value: ``&``, ``<``, ``>`` and ``"``
    escaped (an apostrophe is kept as it is)."""
    return markup.escape(words, quote=False).replace('"', "&quot;")


def _script_json(value: object) -> str:
    """``value`` as JSON a ``<script>`` element holds safely."""
    return json.dumps(value, allow_nan=False, ensure_ascii=False).translate(_SCRIPT_SAFE)


def player_html(
    labels: Sequence[str], step: OneTokenStep, style: ChartStyle, story: DrawStory, at: int = 0
) -> str:
    """The player page for ``story`` (an HTML document for ``st.iframe``), ``at`` steps in, in the
    run's language: its words and sentences lettered, with the palette, the type size, the way
    numbers are written and the JSON data."""
    data = story_data(labels, step, style, story, at)
    # Letters first, in the template and the words: the data may hold braces.
    page = style.fill(Path(__file__).with_name("player.html").read_text(encoding="utf-8"))
    words = {name: _text(style.fill(text)) for name, text in page_words(step).items()}
    sentences = {name: style.fill(text) for name, text in script_words().items()}
    replacements = words | {
        "LANG": _HTML_LANG.get(language(), language()),
        "FONT": str(style.html_font_size),
        "PALETTE": palette_css(),
        "NUMBERS": NUMBERS_JS,
        "NUMBER_STYLE": _script_json(NUMBERS[language()]),
        "SAY": _script_json(sentences),
        "DATA": json.dumps(data, allow_nan=False).translate(_SCRIPT_SAFE),
    }
    # One pass: what a placeholder is replaced by (a label, a word) is never read for another.
    return _PLACEHOLDER.sub(lambda found: replacements[found[1]], page)


#: A script in the page (a components v2 component) that hears where a paused or stepped player
#: is (a message from its frame) and tells the server, which puts it in the share link.
HEAR_PLAYER_JS = """export default function ({ setStateValue }) {
  const hear = (e) => Number.isInteger(e.data?.playerAt) && setStateValue("at", e.data.playerAt);
  window.addEventListener("message", hear);
  return () => window.removeEventListener("message", hear);
}"""
