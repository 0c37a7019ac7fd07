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
"""

from __future__ import annotations

import pytest
from streamlit_server import REPO_ROOT, open_app, page_id, page_url
from visits import PROJECTOR, settle

from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

LEAST = 24.0
LEAST_INDEX = 20.0

#: [size px, characters, text, where] of every drawn text node of a document (and the open
#: shadow roots inside it).
_SIZES = """() => {
  const out = [];
  const skip = 'style, script, noscript, title, .katex-mathml, '
    + '[data-testid=stSidebar][data-collapsed=true]';
  const drawn = (el) => {
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };
  const size = (el) => {
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      return m ? px * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : px;
    }
    let scale = 1;  // the CSS transforms of the element and its ancestors (shadow hosts too)
    for (let e = el; e; e = e.parentElement || e.getRootNode().host) {
      const t = getComputedStyle(e).transform;
      const m = t && t !== 'none' ? new DOMMatrix(t) : null;
      if (m) scale *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    }
    return px * scale;
  };
  const where = (el) => {
    const id = el.closest('[data-testid]')?.dataset.testid || '';
    const cls = (el.getAttribute('class') || '').split(' ')[0];
    return `${id} ${el.tagName.toLowerCase()}${cls ? '.' + cls : ''}`.trim();
  };
  const walk = (root) => {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      const el = n.parentElement;
      let chars = n.textContent.replace(/[\\s\\u200b-\\u200d\\ufeff]/g, '').length;
      if (!chars || !el || el.closest(skip) || !drawn(el)) continue;
      if (el.closest('[data-testid=stIconMaterial]')) chars = 1;  // one glyph
      const index = !!el.closest('.msupsub');
      out.push([size(el), chars, n.textContent.trim().slice(0, 40), where(el), index]);
    }
    root.querySelectorAll('*').forEach((e) => e.shadowRoot && walk(e.shadowRoot));
  };
  walk(document.body);
  return out;
}"""


def drawn_text(page) -> list[list]:
    """The size rows of the page and of every embedded view that is drawn."""
    rows = page.evaluate(_SIZES)
    for frame in page.frames[1:]:
        if frame.frame_element().is_visible():
            rows += frame.evaluate(_SIZES)
    return rows


@pytest.mark.parametrize("info", PAGES, ids=[page_id(REPO_ROOT / i.script) for i in PAGES])
def test_every_character_reads_from_the_back_row_on_a_1920_projector(browser, streamlit_server,
                                                                      info) -> None:  # fmt: skip
    context = browser.new_context(viewport={"width": PROJECTOR.width, "height": PROJECTOR.height})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        open_app(page, page_url(streamlit_server, REPO_ROOT / info.script) + "?projector=1")
        settle(page)
        rows = drawn_text(page)
    finally:
        context.close()
    total = sum(chars for _size, chars, *_ in rows)
    small = [r for r in rows if r[0] < (LEAST_INDEX if r[4] else LEAST) - 1e-6]
    share = 1 - sum(r[1] for r in small) / total
    assert total > 200, f"{info.label}: only {total} characters found"
    assert not small, (
        f"{info.label}: {100 * share:.1f}% of {total} characters at ≥ {LEAST:g} px; smaller:\n"
        + "\n".join(f"  {size:.1f}px {text!r} ({where})" for size, _, text, where, _ in small[:20])
    )
