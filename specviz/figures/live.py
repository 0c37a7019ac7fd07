"""The Playground's live view: what Python hands the browser, which computes the rest.

The view is ``live.js`` and ``live.css`` beside this file, mounted by :mod:`specviz.ui.live` as a
Streamlit component. The browser computes the step, the numbers and the descriptions from the
weights on every frame of a drag, with a port of the core (tests/test_live_math.py holds the two
equal under Node). Its words and its way of writing numbers come with the data, in the run's
language (:func:`live_words`, :data:`specviz.text.NUMBERS`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from specviz.figures.html import palette_css
from specviz.figures.numbers import NUMBERS_JS
from specviz.figures.style import ChartStyle
from specviz.limits import MAX_WEIGHT, ROUNDING
from specviz.links import QUALITY
from specviz.scenario import all_zero
from specviz.text import NUMBERS, language, say, template, templates


def _compact(text: str) -> str:
    """The code without its comment lines and indentation: Streamlit sends a component's code
    with every run of its page (36 kB as written, ~half of that compacted)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)  # CSS comments
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


#: The view's code (after the one number formatter, numbers.js) and style, read once (the
#: component is registered with them at import).
LIVE_JS = _compact(NUMBERS_JS + Path(__file__).with_name("live.js").read_text(encoding="utf-8"))
LIVE_CSS = _compact(Path(__file__).with_name("live.css").read_text(encoding="utf-8"))


def move_messages() -> dict[str, str]:
    """What a move did, in the run's language: the templates the view fills as
    :func:`specviz.figures.captions.move_sentence` does."""
    return {
        "over": template("captions.move_over"),
        "under": template("captions.move_under"),
        "even": template("captions.move_even"),
        "none": template("captions.move_none"),
    } | templates("captions", ("move", "quality"))


def live_words() -> dict[str, str]:
    """Every word the view writes but what a move did (:func:`move_messages`), in the run's
    language, by name: templates live.js fills (``{T}`` and ``{D}`` too). Its own are
    ``locale/<lang>/live.po``'s; where it says what the core says, the core's own messages: the
    charts' descriptions (:mod:`specviz.figures.captions`), the sliders' names (the weight
    editor's) and an all-zero model (:class:`~specviz.scenario.Scenario`'s error)."""
    return (
        templates("live", ("no_weights", "pair", "dist", "dist_over", "dist_over_none"))
        | templates("live", ("dist_under", "dist_under_none", "alpha", "alpha_help", "tv"))
        | templates("live", ("tv_help", "z", "z_help", "words", "words_help", "speed"))
        | templates("live", ("speed_help", "verdict_faster", "verdict_even", "verdict_slower"))
        | templates("live", ("summary", "speed_free", "speed_faster", "speed_even", "speed_slower"))
        | templates("live", ("drag_title", "pair_title", "flow_title", "accept_title"))
        | templates("live", ("bucket_title", "tally_title", "quality", "quality_help"))
        | templates("live", ("target_key", "draft_key", "flow_key", "kept_key", "bounced_key"))
        | templates("live", ("refill_key", "line_key", "target_value", "draft_value", "over"))
        | templates("live", ("under", "balanced", "bucket_empty", "no_room", "no_room_projector"))
        | templates("captions", ("accept_part", "never_proposed", "accept", "empty_bucket"))
        | templates("captions", ("bucket", "proof"))
        | templates("editor", ("target_weight", "draft_weight"))
        | {
            "no_target": say("scenario.no_target", all_zero=all_zero()),
            "no_draft": say("scenario.no_draft", all_zero=all_zero()),
        }
    )


def live_data(
    labels: Sequence[str],
    p_weights: Sequence[int],
    q_weights: Sequence[int],
    gamma: int,
    style: ChartStyle,
    gesture: int = 0,
    quality: int | None = None,
    cost: float = 0.0,
    tally: tuple[dict[str, list[str]], str] | None = None,
) -> dict:
    """The data of one live view: plain JSON.

    ``gesture`` is the number of the learner's last gesture this state includes (the browser keeps
    its own weights while a newer one is on its way). With a ``quality`` the view is Home's, not
    draggable: the target ``p_weights`` and the draft of that quality
    (:func:`specviz.scenario.home_scenario`), and a ``tally`` of the words drawn at every quality
    (the browser shows 0 %, the quality on show and 100 %). ``cost``: a guess's cost in calls.
    """
    font = style.html_font_size
    return {
        "labels": list(labels),
        "p": [int(w) for w in p_weights],
        "q": [int(w) for w in q_weights],
        "gamma": int(gamma),
        "cost": float(cost),
        "max_weight": MAX_WEIGHT,
        "rounding": ROUNDING,
        "T": style.notation.target,
        "D": style.notation.draft,
        "font": font,
        "projector": style.projector,
        "css": f"--fs: {font}px; {palette_css()}",
        "gesture": int(gesture),
        "say": move_messages(),
        "words": live_words(),
        "numbers": NUMBERS[language()],
        "quality": quality,
        # What the charts' fixed parts depend on: they are built anew when it changes.
        "key": "|".join([*labels, style.notation.target, str(style.projector), language()]),
    } | ({"tally": _tally(*tally)} if tally else {})


def _tally(columns: dict[str, list[str]], note: str) -> dict:
    """Home's tally as the view reads it: its columns, its note, and which column is which (their
    names are in the run's language): the words', the target's, and the draft's at each quality
    (:func:`specviz.figures.exactness.home_tally` has one per quality, in Home's order)."""
    word, target, *drafts = columns
    qualities = dict(zip(map(str, QUALITY.choices), drafts, strict=True))
    return {"columns": columns, "note": note, "word": word, "target": target, "drafts": qualities}
