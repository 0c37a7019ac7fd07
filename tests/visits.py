"""One visit of each page in each seat, shared by the browser tests that look at it.

Loading a page in Chromium is most of a browser test's time. The tests that only look at a page —
its accessibility (axe, contrast), the page by its own URL, its first control moved from the
keyboard, the projector's fold, a phone's chart titles, the menu a deep link must match — read one
:class:`Visit` per (page, seat), made on the first ask in a session and kept (a visit that failed
fails every test that reads it, without loading the page again). Under xdist the tests of one
visit share a group (:func:`group`), so one worker makes it once.

A visit, in order: load the page; let charts and embedded views settle; on the 1920 projector, the
rendered size of every character (tests/test_browser_type.py) and the parts of its γ slider; record
what it shows (exceptions, headings, menu, the fold's boxes on a projector, clipped chart texts and
sideways overflow on a phone and a 1280 px projector); a screenshot; the contrast check (and axe, on
the laptop and the 1920 projector); on the laptop, Tab round the page judging each focus ring
(tests/test_browser_focus.py) and put the page back as it was, move the first slider (or radio
group) from the keyboard, press → in the embedded views, and audit again. The 1280×720 projector is
the 1920 visit's page made smaller (projector mode's styles are one set at both sizes; only the
layout differs, and Streamlit, Plotly, Vega and the views all lay out again on a resize): its fold,
chart texts and width are measured there, without loading the page a second time — but for a page
with an iframe (One draw's player), which gets a visit of its own: Streamlit sizes an iframe to its
document's scroll height, which never drops below the iframe's own, so it can grow but never shrink
(a window made smaller keeps a too tall player until the page is loaded again). Each seat's first
screen is saved in tests/screenshots/ for a human to judge.

What a probe finds that is not the page loading (the sizes, the Tab walk) is kept as the error it
raised, so that it fails only the test that reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from a11y import (
    Audit,
    audit,
    drawn_text,
    embedded_frames,
    keep_place,
    mark_frames,
    press_in_frames,
    put_back,
    tab_walk,
    wait_for_frames,
)
from streamlit_server import (
    REPO_ROOT,
    key_class,
    open_app,
    page_id,
    page_url,
    poll,
    rerun_waiter,
    wait_for_charts,
)

from specviz.ui.page import PAGES


@dataclass(frozen=True)
class Seat:
    name: str
    width: int
    height: int
    projector: bool = False
    #: The contrast check. Projector mode at 1280×720 has the styles and colours of 1920×1080
    #: (only the layout differs, which the fold test holds): not audited a second time.
    audited: bool = True
    #: axe as well. Its rules read the page's structure (roles, names, landmarks, headings),
    #: which is one document for every screen but the projector's (the intro folded into an
    #: expander, the sidebar collapsed): a phone gets the same elements as a laptop, and its
    #: CSS (a table's font, which of the Playground's two weight labels shows) changes colours
    #: and sizes only, which the contrast check holds in every audited seat.
    axe: bool = True


LAPTOP = Seat("laptop", 1280, 800)
PROJECTOR = Seat("projector-1920", 1920, 1080, projector=True)
PROJECTOR_720 = Seat("projector-1280", 1280, 720, projector=True, audited=False, axe=False)
PHONE = Seat("phone", 390, 844, axe=False)
AUDITED = (LAPTOP, PROJECTOR, PHONE)
AXED = tuple(seat for seat in AUDITED if seat.axe)

#: Vega redraws a chart a moment after a rerun.
SETTLE_MS = 600
HEADINGS = '[data-testid="stMain"] :is(h1, h2, h3)'
NAV_LINKS = '[data-testid="stPageLink"] a, [data-testid="stSidebarNavLink"]'
_FOLDS = {info.script: info.fold for info in PAGES if all(info.fold)}


@dataclass
class Moved:
    """The first control of a page, moved one step from the keyboard."""

    what: str
    before: str
    after: str


@dataclass
class Visit:
    """What one page showed in one seat."""

    exceptions: list[str]
    pages_not_found: list[str]
    shown_exceptions: list[str]
    main_text: str
    headings: list[str]
    first_said: tuple[str, str]
    menu: tuple[list[tuple[str, str]], int]  # (text, href) of every page link; sidebar menus
    fold: dict[str, dict[str, float]] = field(default_factory=dict)  # control, chart -> box
    clipped: list[str] = field(default_factory=list)
    overflow: float = 0.0  # how much wider than the screen the page is
    moved: Moved | None = None
    audits: list[Audit] = field(default_factory=list)
    #: The 1920 projector: [size px, characters, text, where, index] of every drawn text
    #: (a11y.drawn_text), and the boxes of the γ slider's thumb, label and value.
    sizes: list[list[Any]] | Exception = field(default_factory=list)
    gamma: dict[str, dict[str, float] | None] | Exception = field(default_factory=dict)
    #: The laptop: every stop of Tab round the page (a11y.tab_walk).
    stops: list[dict[str, Any]] | Exception = field(default_factory=list)
    #: The 1920 projector: the same page at 1280×720.
    small: Visit | None = None


def group(script: Path, seat: Seat) -> pytest.MarkDecorator:
    """The xdist group of the tests that read the visit of (script, seat)."""
    seat = PROJECTOR if seat is PROJECTOR_720 else seat
    return pytest.mark.xdist_group(f"visit-{page_id(script)}-{seat.name}")


def visit_of(request: pytest.FixtureRequest, script: Path, seat: Seat) -> Visit:
    """The visit of (script, seat): made on the first ask in this session, then kept."""
    if seat is PROJECTOR_720 and (small := visit_of(request, script, PROJECTOR).small):
        return small
    visits = request.getfixturevalue("visits")
    key = f"{page_id(script)}-{seat.name}"
    if key not in visits:
        if seat.axe:
            request.getfixturevalue("axe_installed")
        try:
            visits[key] = make_visit(
                request.getfixturevalue("browser"),
                request.getfixturevalue("streamlit_server"),
                script,
                seat,
                request.getfixturevalue("screenshot_dir"),
            )
        except Exception as exc:
            visits[key] = exc
            raise
    found = visits[key]
    if isinstance(found, Exception):
        raise found
    return found


def settle(page: Any) -> None:
    wait_for_charts(page)
    wait_for_frames(page)
    page.wait_for_timeout(SETTLE_MS)


def shows(page: Any, watcher: Any) -> Visit:
    """What a loaded page shows: its exceptions, headings and menu."""
    links = page.locator(NAV_LINKS)
    return Visit(
        exceptions=list(watcher.exceptions),
        pages_not_found=list(watcher.pages_not_found),
        shown_exceptions=page.get_by_test_id("stException").all_inner_texts(),
        main_text=page.get_by_test_id("stMain").inner_text().strip(),
        headings=page.locator(HEADINGS).all_inner_texts(),
        # What a screen reader reaches first in the content: its role, and its words.
        first_said=(
            page.get_by_test_id("stMain").aria_snapshot().splitlines()[1].strip().split(":")[0],
            page.locator("[data-testid=stMain] .about").first.text_content() or "",
        ),
        menu=(
            [
                (links.nth(i).inner_text().strip(), links.nth(i).get_attribute("href") or "")
                for i in range(links.count())
            ],
            page.get_by_test_id("stSidebarNav").count(),
        ),
    )


def make_visit(browser: Any, base_url: str, script: Path, seat: Seat, shots: Path) -> Visit:
    context = browser.new_context(viewport={"width": seat.width, "height": seat.height})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        url = page_url(base_url, script) + ("?projector=1" if seat.projector else "")
        watcher = open_app(page, url)
        settle(page)
        sizes = probe(drawn_text, page) if seat is PROJECTOR else []
        found = shows(page, watcher)
        found.sizes = sizes
        if seat is PROJECTOR:
            found.gamma = probe(lambda page: slider_parts(page, GAMMA), page)
        name = f"{page_id(script).replace('/', '-')}-{seat.name}"
        fold = _FOLDS.get(str(script.relative_to(REPO_ROOT)))
        if seat.projector and fold:
            found.fold = {"control": box(page, fold[0]), "chart": box(page, fold[1])}
        if seat in (PHONE, PROJECTOR_720):
            found.clipped = page.evaluate(CLIPPED_TEXTS)
        found.overflow = page.evaluate(_OVERFLOW)
        page.screenshot(path=str(shots / f"{name}.png"))
        if seat.audited:
            found.audits.append(audit(page, f"{page_id(script)} {seat.name}, loaded", seat.axe))
        if seat is LAPTOP:
            keep_place(page)
            found.stops = probe(tab_walk, page)
            put_back(page)
            found.moved = move_first_control(page)
            if found.moved is not None:
                settle(page)
                label = f"{page_id(script)} {seat.name}, after {found.moved.what}"
                if embedded_frames(page):  # and step the embedded views (the player steps on →)
                    press_in_frames(page)
                    label += ", then → ×4 in the embedded views"
                found.audits.append(audit(page, label))
        if seat is PROJECTOR and fold and not page.locator("[data-testid=stMain] iframe").count():
            found.small = smaller(page, watcher, fold, shots / f"{page_id(script)}-720.png")
        found.exceptions = list(watcher.exceptions)
        found.shown_exceptions = page.get_by_test_id("stException").all_inner_texts()
        return found
    finally:
        context.close()


def probe(measure: Any, page: Any) -> Any:
    """What ``measure(page)`` returns, or the error it raised."""
    try:
        return measure(page)
    except Exception as exc:  # kept for the one test that reads it
        return exc


#: The slider whose parts a projector must draw large (the Playground's draft length γ).
GAMMA = "w.gamma"


def slider_parts(page: Any, key: str) -> dict[str, dict[str, float] | None]:
    """The boxes of the thumb, the label and the value of the slider with this key ({} if the
    page has none)."""
    where = f".{key_class(key)}"
    if not page.locator(where).count():
        return {}
    parts = {
        "thumb": f"{where} div:has(> div > input[type='range'])",
        "label": f"{where} [data-testid='stWidgetLabel']",
        "value": f"{where} [data-testid='stSliderThumbValue']",
    }
    return {name: page.locator(css).bounding_box() for name, css in parts.items()}


def smaller(page: Any, watcher: Any, fold: tuple[str, str], shot: Path) -> Visit:
    """The projector's page at 1280×720: its fold, chart texts and width."""
    page.set_viewport_size({"width": PROJECTOR_720.width, "height": PROJECTOR_720.height})
    settle(page)
    found = shows(page, watcher)
    found.fold = {"control": box(page, fold[0]), "chart": box(page, fold[1])}
    found.clipped = page.evaluate(CLIPPED_TEXTS)
    found.overflow = page.evaluate(_OVERFLOW)
    page.screenshot(path=str(shot.with_name(shot.name.replace("/", "-"))))
    return found


def box(page: Any, key: str) -> dict[str, float]:
    """The box of the element with this key, or of a part of it: "key selector" (a selector
    inside the element; it reaches into the live view's shadow root)."""
    key, _, inside = key.partition(" ")
    locator = page.locator(f".{key_class(key)} {inside}".strip()).first
    locator.wait_for(state="visible", timeout=15_000)
    found = locator.bounding_box()
    assert found is not None, f"{key} is not drawn"
    return found


def move_first_control(page: Any) -> Moved | None:
    """Move the first slider of the main area one step (back one if it is at its end), or else
    pick the next option of the first radio group, and wait for the rerun. None if the page has
    neither."""
    main = page.get_by_test_id("stMain")
    sliders = main.get_by_role("slider").filter(visible=True)
    radios = main.get_by_role("radio").filter(visible=True)
    if not (sliders.count() or radios.count()):
        return None
    if sliders.count():
        control = sliders.first  # Streamlit's thumb is an <input type=range>
        at_end = control.evaluate("(e) => Number(e.value) >= Number(e.max)")
        key = "ArrowLeft" if at_end else "ArrowRight"
        what = f"slider {control.get_attribute('aria-label')!r} {key}"

        def value() -> str:
            return control.input_value()
    else:
        control = main.get_by_role("radio", checked=True).first
        key, what = "ArrowRight", "radio group ArrowRight"

        def value() -> str:
            now = main.get_by_role("radio", checked=True).first
            return now.get_attribute("aria-label") or now.evaluate("e => e.value")

    before = value()
    mark_frames(page)
    control.focus()
    with rerun_waiter(page):
        page.keyboard.press(key)
    poll(page, lambda: value() != before, f"the {what} to move", timeout_ms=5_000)
    return Moved(what, before, value())


_OVERFLOW = "() => document.querySelector('[data-testid=stMain]').scrollWidth - innerWidth"

CLIPPED_TEXTS = """() => {
  const out = [];
  const charts = document.querySelectorAll(
    '[data-testid="stPlotlyChart"] .main-svg, [data-testid="stVegaLiteChart"] svg.marks');
  charts.forEach((svg, i) => {
    const frame = svg.getBoundingClientRect();
    const texts = svg.matches('.main-svg')
      ? svg.parentElement.querySelectorAll('.gtitle, .legend .traces text')
      : svg.querySelectorAll('text');  // a Vega chart: every title, legend and axis text
    texts.forEach((t) => {
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < frame.left - 1 || r.right > frame.right + 1)) {
        const where = `${r.left.toFixed(0)}..${r.right.toFixed(0)}`;
        const room = `${frame.left.toFixed(0)}..${frame.right.toFixed(0)}`;
        out.push(`chart ${i}: "${t.textContent}" spans ${where} in a chart ${room}`);
      }
    });
  });
  return out;
}"""
