"""Keyboard focus shows, in Chromium: Tab through every page on a laptop, and whatever takes the
focus — the menu's links, switches, text and number boxes, menus, buttons, sliders, the live
view's bars and the timeline's buttons (in their shadow roots), the player's (in its iframe) —
wears a ring one can see.

The rule, exactly. The ring is the CSS outline of the focused element or, where the input itself
is hidden behind a drawn control (a slider's thumb, a switch, a text box's frame), of the nearest
of its next four ancestors that has one. It must be solid (or double, dashed, dotted), at least
2 px wide, around a box of at least 8×8 px, and its colour must stand 3:1 against the background
it is drawn on (WCAG 2.2, 1.4.11): the parent's background for a ring outside the box, the box's
own for a ring inside it (a negative offset), each background being every ancestor's background
colour blended over white.

The walk (``a11y.tab_walk``) runs in the laptop's visit of each page (tests/visits.py), right
after the page is loaded and audited, on the page as a learner first sees it.
"""

from __future__ import annotations

import pytest
import visits
from streamlit_server import REPO_ROOT, link_params, open_app, page_id, rerun_waiter
from visits import LAPTOP, visit_of

from specviz.links import CLAIMS
from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

CASES = [
    pytest.param(
        info,
        id=page_id(REPO_ROOT / info.script),
        marks=visits.group(REPO_ROOT / info.script, LAPTOP),
    )
    for info in PAGES
]


@pytest.mark.parametrize("info", CASES)
def test_tab_shows_a_ring_on_every_control(request, info) -> None:
    stops = visit_of(request, REPO_ROOT / info.script, LAPTOP).stops
    if isinstance(stops, Exception):
        raise stops
    names = [s["name"] for s in stops]
    # The walk went round: the menu's links and at least one control of the page itself.
    assert any(n.endswith(f'{info.label}"') for n in names), names
    assert len(stops) > len(PAGES) + 2, names
    bad = [f"{s['name']}: {s['why']}" for s in stops if not s["ok"]]
    assert not bad, f"{info.label}: no ring one can see on\n" + "\n".join(bad)


def test_the_arrows_keep_the_focus_on_the_claim_they_open(page, streamlit_server) -> None:
    """On The debate each arrow press opens the next claim (a rerun) and the focus stays on its
    tab, there and back. On a busy machine Streamlit disabled the tab for a moment in the rerun
    and the focus fell to the page, one press in four or so: the next press went nowhere."""
    open_app(page, f"{streamlit_server}/The_debate")
    claims = list(CLAIMS)
    page.get_by_role("tab", name=CLAIMS[claims[0]]).focus()
    steps = [("ArrowRight", c) for c in claims[1:]] + [("ArrowLeft", c) for c in claims[-2::-1]]
    for key, claim in steps:
        with rerun_waiter(page):
            page.keyboard.press(key)
        focused = page.evaluate(
            "() => document.activeElement.getAttribute('role') + ' ' + "
            "document.activeElement.innerText.trim()"
        )
        assert focused == f"tab {CLAIMS[claim]}", (key, claim)
        assert link_params(page.url).get("claim", claims[0]) == claim
