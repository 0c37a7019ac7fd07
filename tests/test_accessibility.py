"""Accessibility of every page in Chromium, in every seat: axe-core and computed text contrast.

For every page (found by listing pages/, like Streamlit) in three seats — a laptop (1280×800),
projector mode (``?projector=1``) at 1920×1080, a phone (390×844) — the page is audited once
loaded; on the laptop, once more after its first slider (or radio group) has moved and → has been
pressed four times inside each embedded view (the player steps). Projector mode at 1280×720 has
the same styles and colours as at 1920×1080 (only the layout differs, which
tests/test_browser_seats.py holds), so it is not audited a second time:

- axe-core (npm, pinned in tests/js/package-lock.json) with the WCAG 2 A/AA and best-practice
  rules, in the main document and inside every embedded HTML view (``st.iframe``): no serious or
  critical violation (the others are reported in the JSON below, not failed). On the laptop and
  the projector: axe reads the page's structure, which the phone shares with the laptop (its CSS
  changes sizes and colours only, held by the contrast check; ``visits.Seat.axe``);
- the contrast of every visible text node, SVG chart text included, in all three seats: at least
  4.5:1 (3:1 for large text and icon glyphs). axe files most of Streamlit's text as "incomplete"
  and skips SVG.

Each (page, seat) is loaded and audited once (tests/visits.py: the same visit serves the other
browser tests that only look at the page); ``test_axe`` and ``test_text_contrast`` read its audits.
All findings, failing or not, go to tests/screenshots/accessibility.json, with a screenshot of each
page and seat.

axe-core comes from ``npm ci --prefix tests/js``; without it these tests skip, and fail under
CI=true (like a missing browser). Without a browser, the tests at the end check the embedded
views' document outline and the palette under simulated colour-vision deficiencies (scripts/cvd.py).
"""

from __future__ import annotations

import itertools
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import visits
from streamlit_server import all_scripts, page_id
from visits import AUDITED, AXED, visit_of

from scripts import cvd
from specviz import palette
from specviz.ui.page import PAGES

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = all_scripts()


def cases(seats: tuple) -> list:
    """(page, seat) pairs in the xdist group of their visit (tests/visits.py)."""
    return [
        pytest.param(
            script, seat, id=f"{page_id(script)}-{seat.name}", marks=visits.group(script, seat)
        )
        for script in SCRIPTS
        for seat in seats
    ]


@pytest.mark.browser
@pytest.mark.parametrize(("script", "seat"), cases(AXED))
def test_axe(request, script, seat):
    """No moderate, serious or critical axe violation, in the page or in its embedded views."""
    found = visit_of(request, script, seat).audits
    assert found and all(a.axe for a in found), "axe did not run"
    problems = [f"{a.label}: {v.line()}" for a in found for v in a.failing]
    assert not problems, "axe found moderate/serious/critical violations:\n" + "\n".join(problems)


@pytest.mark.browser
@pytest.mark.parametrize(("script", "seat"), cases(AUDITED))
def test_text_contrast(request, script, seat):
    """Every visible text at least 4.5:1 against what is behind it (3:1 large)."""
    found = visit_of(request, script, seat).audits
    assert all(a.texts_checked > 0 for a in found), "no text found: is the check looking?"
    problems = [f"{a.label}: {c.line()}" for a in found for c in a.contrast]
    assert not problems, "text below WCAG AA contrast:\n" + "\n".join(problems)


@pytest.mark.browser
@pytest.mark.parametrize(("script", "seat"), cases(AXED[:1]))
def test_a_screen_reader_reaches_the_pages_description_first(request, script, seat):
    """Issue 35: before the title, what the page shows and what to try first, in words."""
    info = next(i for i in PAGES if i.script == str(Path(script).relative_to(REPO)))
    role, words = visit_of(request, script, seat).first_said
    assert (role, words) == ("- note", f"{info.blurb} {info.hint}")
    assert info.blurb and info.hint.startswith("Try: ")


# A page with known answers: what the contrast check must find, and what it must leave alone.
KNOWN = """<!doctype html><html lang="en"><head><title>known</title></head>
<body style="margin:0;font:16px sans-serif;color:#1a1a1a;background:#fff"><main>
<p style="color:#2f2d2b;opacity:.6">faded caption</p>
<p style="color:#888">small grey</p>
<h1 style="font-size:30px;color:#888">large grey</h1>
<p style="color:#555">plain dark grey</p>
<div style="background-image:repeating-linear-gradient(45deg, rgba(0,0,0,.5) 0 2px,
  transparent 2px 8px)"><span style="color:#555">striped</span>
  <span style="color:#555;text-shadow:0 0 2px #fff,0 0 2px #fff">haloed</span></div>
<span style="position:absolute;left:-9999px;color:#ddd">screen-reader text</span>
<div style="width:0;overflow:hidden;white-space:nowrap"><span style="color:#ddd">cut</span></div>
<div style="position:relative;margin-top:40px;width:12px;height:12px;background:#c53948">
  <span style="position:absolute;bottom:16px;color:#c53948;white-space:nowrap">30%</span></div>
<svg width="300" height="100"><rect width="200" height="50" fill="#0072B2"/>
  <text x="10" y="30" fill="#000">on blue</text>
  <text x="120" y="30" fill="#fff">white on blue</text>
  <text x="10" y="80" fill="#999">grey axis</text></svg>
</main></body></html>"""


@pytest.mark.browser
def test_contrast_check_knows_the_answers(page):
    """The check flags faded, grey, striped and SVG text, and skips hidden and off-screen text,
    a value drawn outside the coloured box it belongs to, and text haloed off its stripes."""
    from a11y import text_contrast

    page.set_content(KNOWN)
    found = {o["text"]: o["ratio"] for o in text_contrast(page.main_frame)["offenders"]}
    assert set(found) == {"faded caption", "small grey", "striped", "on blue", "grey axis"}, found
    assert 3.8 < found["faded caption"] < 4.0  # Streamlit's old caption: #828180, 3.88:1


# --------------------------------------------------------------------------- without a browser

VIEWS = sorted((REPO / "specviz" / "figures").glob("*.html"))


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lang = ""
        self.title = ""
        self.mains = 0
        self.headings: list[int] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.lang = dict(attrs).get("lang") or ""
        elif tag == "title":
            self._in_title = True
        elif tag == "main":
            self.mains += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


@pytest.mark.parametrize("view", VIEWS, ids=[v.name for v in VIEWS])
def test_embedded_view_is_a_document(view):
    """An embedded view is a document of its own: a language, a title, one main landmark, one
    h1 and headings that never skip a level (axe: html-has-lang, document-title, region,
    landmark-one-main, page-has-heading-one, heading-order)."""
    outline = _Outline()
    outline.feed(view.read_text(encoding="utf-8"))
    assert outline.lang, f"{view.name}: <html> has no lang"
    assert outline.title.strip(), f"{view.name}: no <title>"
    assert outline.mains == 1, f"{view.name}: {outline.mains} <main> elements"
    levels = outline.headings
    assert levels.count(1) == 1 and levels[0] == 1, f"{view.name}: headings {levels}"
    skips = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
    assert not skips, f"{view.name}: heading levels skip {skips}"


ROLES = {
    "target": palette.TARGET,
    "draft": palette.DRAFT,
    "accepted": palette.ACCEPTED,
    "rejected": palette.REJECTED,
    "bucket": palette.BUCKET,
    "neutral": palette.NEUTRAL,
}
#: CIEDE2000: about 2.3 is just noticeable; 10 and more is told apart at a glance.
MIN_DELTA_E = 10.0


@pytest.mark.parametrize("vision", ["typical", *cvd.KINDS])
def test_role_colours_stay_apart(vision):
    """Every two role colours stay clearly different with each colour-vision deficiency
    (Machado et al. 2009, severity 1). Pattern and icon carry each meaning too (below): this
    keeps a palette edit from making colour a misleading cue."""
    seen = {
        name: role.color if vision == "typical" else cvd.simulate_hex(role.color, vision)
        for name, role in ROLES.items()
    }
    close = [
        f"{a}/{b}: ΔE00 {cvd.delta_e(seen[a], seen[b]):.1f} ({seen[a]} vs {seen[b]})"
        for a, b in itertools.combinations(ROLES, 2)
        if cvd.delta_e(seen[a], seen[b]) < MIN_DELTA_E
    ]
    assert not close, f"{vision}: role colours too close:\n" + "\n".join(close)


def test_roles_differ_by_more_than_colour():
    """Colour is never the only signal: every role has its own icon, and roles drawn in one
    chart (target/draft; accepted/rejected/bucket, which are also over/under) have their own
    fill pattern."""
    icons = [role.icon for role in ROLES.values()]
    assert len(set(icons)) == len(icons), icons
    for group in (("target", "draft"), ("accepted", "rejected", "bucket")):
        patterns = [ROLES[name].pattern for name in group]
        assert len(set(patterns)) == len(patterns), (group, patterns)


@pytest.mark.parametrize("name", list(ROLES))
def test_role_text_colour_reads_on_white(name):
    """Coloured text uses the role's text shade: at least 4.5:1 on white (WCAG AA)."""
    role = ROLES[name]
    white = cvd.hex_rgb("#ffffff")
    ratio = _contrast(cvd.hex_rgb(role.text_color), white)
    assert ratio >= 4.5, f"{name}: {role.text_color} on white is {ratio:.2f}:1"


def _contrast(a, b) -> float:
    lum = [float(cvd.to_linear(c / 255) @ [0.2126, 0.7152, 0.0722]) for c in (a, b)]
    return (max(lum) + 0.05) / (min(lum) + 0.05)
