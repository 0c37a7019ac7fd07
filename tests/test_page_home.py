"""AppTest of Home's tally: the words drawn with the draft at 0 %, at the learner's quality and at
100 % are shown beside the live bars, as the core drew them, with the exact share of guesses kept
(Σ min(p, q)) and the line on why the backwards draft keeps it.

(The tally's law itself, a chi-square test at both ends of the slider, is in test_exactness.py.)
"""

from __future__ import annotations

import pytest
from helpers import all_text, component_data, open_page
from streamlit.testing.v1 import AppTest

from specviz.figures import exactness as fx
from specviz.palette import Notation
from specviz.scenario import home_scenario

pytestmark = pytest.mark.slow  # the app under AppTest

NOTE = Notation()


def tally(at: AppTest) -> dict:
    """Home's table of words drawn at every quality and its note, as the page hands the live view
    (the browser shows three of its columns: tests/test_browser_live.py)."""
    return component_data(at, "specviz.live")["tally"]


@pytest.mark.parametrize("quality", ["30", "0", "100"])
def test_the_tally_is_the_cores_draws(quality: str) -> None:
    at = open_page("app.py", {"quality": quality, "seed": "8"})
    shown = tally(at)
    assert (shown["columns"], shown["note"]) == fx.home_tally(8, NOTE)
    assert "100,000 words of speculative sampling" in shown["note"] and "(seed 8)" in shown["note"]
    text = all_text(at)
    # The old claim, said without draws, is gone; the line on the backwards draft is computed.
    assert "Whatever the draft, the words that come out follow" not in text
    assert fx.overlap_sentence(NOTE) in text and "keeps 60% of its guesses" in text
    assert not at.exception and not at.error


def test_the_tally_follows_the_lettering() -> None:
    at = open_page("app.py", {"letters": "chen"})
    assert list(tally(at)["columns"])[:3] == ["word", "target q", "draft 0%"]
    assert "Σ min(q, p) = min(40%, 10%)" in all_text(at)


def test_the_pair_opens_in_the_playground_and_nothing_below_the_view_follows_the_quality() -> None:
    """What the page shows under the view is the same at every quality (a move of the control
    changes the view alone); the button puts the pair on show into the Playground."""
    pages = [open_page("app.py", {"quality": k}) for k in ("0", "55")]
    below = [[m.value for m in at.main.caption] for at in pages]
    assert below[0] == below[1] and "Your Playground's pair keeps 60% of its guesses." in below[0]
    at = pages[1]
    at.button(key=at.button[0].key).click().run()
    assert not at.exception
    pair = home_scenario(55)
    assert (at.query_params["p"], at.query_params["q"]) == tuple(
        ",".join(map(str, w)) for w in (pair.p_weights, pair.q_weights)
    )
