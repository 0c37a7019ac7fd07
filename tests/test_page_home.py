"""AppTest of Home's tally: the words drawn with the draft at 0 %, at the learner's quality and at
100 % are shown beside the live bars, as the core drew them, with the exact share of guesses kept
(Σ min(p, q)) and the line on why the backwards draft keeps it.

(The tally's law itself, a chi-square test at both ends of the slider, is in test_exactness.py.)
"""

from __future__ import annotations

import pytest
from helpers import all_text, open_page
from streamlit.testing.v1 import AppTest

from specviz.exactness import home_draws
from specviz.figures import exactness as fx
from specviz.figures.tables import markdown_table
from specviz.palette import Notation

pytestmark = pytest.mark.slow  # the app under AppTest

NOTE = Notation()


def tally(at: AppTest) -> str:
    """Home's one Markdown table: the words drawn per draft quality."""
    (shown,) = [m.value for m in at.markdown if m.value.startswith("| word |")]
    return shown


@pytest.mark.parametrize(
    ("quality", "shown"), [("30", (0, 30, 100)), ("0", (0, 100)), ("100", (0, 100))]
)
def test_the_tally_is_the_cores_draws(quality: str, shown: tuple[int, ...]) -> None:
    at = open_page("app.py", {"quality": quality, "seed": "8"})
    runs = [home_draws(k, 8) for k in shown]
    assert tally(at) == markdown_table(fx.tally_table(shown, runs, NOTE))
    text = all_text(at)
    assert "**The same words, whatever the draft**" in text
    assert "100,000 words drawn by speculative sampling" in text and "(seed 8)" in text
    # The old claim, said without draws, is gone; the line on the backwards draft is computed.
    assert "Whatever the draft, the words that come out follow" not in text
    assert fx.overlap_sentence(NOTE) in text and "keeps 60% of its guesses" in text
    assert not at.exception and not at.error


def test_the_tally_follows_the_lettering() -> None:
    at = open_page("app.py", {"letters": "chen"})
    assert tally(at).startswith("| word | target q | draft 0% | draft 30% | draft 100% |")
    assert "Σ min(q, p) = min(40%, 10%)" in all_text(at)
