"""The Playground's live view: what Python hands the browser, which computes the rest.

The view is ``live.js`` and ``live.css`` beside this file, mounted by :mod:`specviz.ui.live` as a
Streamlit component. The browser computes the step, the numbers and the descriptions from the
weights on every frame of a drag, with a port of the core (tests/test_live_math.py holds the two
equal under Node).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from specviz.figures.html import palette_css
from specviz.figures.numbers import NUMBERS_JS
from specviz.figures.style import ChartStyle
from specviz.limits import MAX_WEIGHT, ROUNDING
from specviz.text import template


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


#: What a move did (the view fills these as :func:`specviz.figures.captions.move_sentence` does).
MOVE_MESSAGES = {
    "over": template("captions.move_over"),
    "under": template("captions.move_under"),
    "even": template("captions.move_even"),
    "none": template("captions.move_none"),
    "move": template("captions.move"),
    "quality": template("captions.quality"),
}


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
        "say": MOVE_MESSAGES,
        "quality": quality,
        # What the charts' fixed parts depend on: they are built anew when it changes.
        "key": "|".join([*labels, style.notation.target, str(style.projector)]),
    } | ({"tally": {"columns": tally[0], "note": tally[1]}} if tally else {})
