"""AppTest of Home's tally: the words drawn with the draft at 0 %, at the learner's quality and at
100 % are shown beside the live bars, as the core drew them, with the exact share of guesses kept
(Σ min(p, q)) and the line on why the backwards draft keeps it.

(The tally's law itself, a chi-square test at both ends of the slider, is in test_exactness.py.)
"""

from __future__ import annotations

import json

import pytest
from helpers import all_text, open_page
from streamlit.testing.v1 import AppTest

from specviz.figures import exactness as fx
from specviz.palette import Notation

pytestmark = pytest.mark.slow  # the app under AppTest

NOTE = Notation()


def tally(at: AppTest) -> dict:
    """Home's table of words drawn at every quality and its note, as the page hands the live view
    (the browser shows three of its columns: tests/test_browser_live.py)."""
    (view,) = at.get("bidi_component")
    return json.loads(view.proto.json)["tally"]


@pytest.mark.parametrize("quality", ["30", "0", "100"])
def test_the_tally_is_the_cores_draws(quality: str) -> None:
    at = open_page("app.py", {"quality": quality, "seed": "8"})
    shown = tally(at)
    assert (shown["columns"], shown["note"]) == fx.home_tally(8, NOTE)
    assert (
        "100,000 words drawn by speculative sampling" in shown["note"]
        and "(seed 8)" in shown["note"]
    )
    text = all_text(at)
    # The old claim, said without draws, is gone; the line on the backwards draft is computed.
    assert "Whatever the draft, the words that come out follow" not in text
    assert fx.overlap_sentence(NOTE) in text and "keeps 60% of its guesses" in text
    assert not at.exception and not at.error


def test_the_tally_follows_the_lettering() -> None:
    at = open_page("app.py", {"letters": "chen"})
    assert list(tally(at)["columns"])[:3] == ["word", "target q", "draft 0%"]
    assert "Σ min(q, p) = min(40%, 10%)" in all_text(at)
