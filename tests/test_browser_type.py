"""The back row reads every page on a 1920×1080 projector: in Chromium, every character the page
draws — its text, the charts' SVG text, the live view's (in its shadow root) and the embedded
views' (in their iframes) — is at least 24 px as rendered.

The rule, exactly. A character is a non-blank, non-zero-width character of a text node whose
element is drawn (``checkVisibility`` with opacity and CSS visibility, a box over 1×1 px — what is
visually hidden for screen readers is 1 px); an icon's ligature (``home``) is one character. Its
rendered size is the element's computed font size times its scale: for SVG text the screen CTM's
(a chart drawn to a viewBox shrinks its text), for HTML the CSS transforms of it and its
ancestors. Every character must be at least 24 px, except, by name:

- the sidebar while it is collapsed (off screen; a projector starts with it closed, and it holds
  the lecturer's menu and settings, not the lesson);
- KaTeX's MathML copy of a formula (for screen readers; the drawn formula is measured);
- a formula's indices and exponents (KaTeX ``msupsub``): typeset at 70 % of their formula by
  convention and read with their base letter, they must be at least 20 px.

On 1280×720 the same pages are smaller (24 px there is a 1920 screen's 36), and the control being
taught with its chart must still fit one screen: tests/test_browser_seats.py holds that.

The sizes (``a11y.drawn_text``) are measured in the 1920 projector's visit of each page
(tests/visits.py), as soon as the page has settled.
"""

from __future__ import annotations

import pytest
import visits
from streamlit_server import REPO_ROOT, page_id
from visits import PROJECTOR, visit_of

from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

LEAST = 24.0
LEAST_INDEX = 20.0

CASES = [
    pytest.param(
        info,
        id=page_id(REPO_ROOT / info.script),
        marks=visits.group(REPO_ROOT / info.script, PROJECTOR),
    )
    for info in PAGES
]


@pytest.mark.parametrize("info", CASES)
def test_every_character_reads_from_the_back_row_on_a_1920_projector(request, info) -> None:
    rows = visit_of(request, REPO_ROOT / info.script, PROJECTOR).sizes
    if isinstance(rows, Exception):
        raise rows
    total = sum(chars for _size, chars, *_ in rows)
    small = [r for r in rows if r[0] < (LEAST_INDEX if r[4] else LEAST) - 1e-6]
    share = 1 - sum(r[1] for r in small) / total
    assert total > 200, f"{info.label}: only {total} characters found"
    assert not small, (
        f"{info.label}: {100 * share:.1f}% of {total} characters at ≥ {LEAST:g} px; smaller:\n"
        + "\n".join(f"  {size:.1f}px {text!r} ({where})" for size, _, text, where, _ in small[:20])
    )
