"""Keyboard focus shows, in Chromium: Tab through every page on a laptop, and whatever takes the
focus — the menu's links, switches, text and number boxes, menus, buttons, sliders, the live
view's bars (in its shadow root), the player's and the timeline's buttons (in their iframes) —
wears a ring one can see.

The rule, exactly. The ring is the CSS outline of the focused element or, where the input itself
is hidden behind a drawn control (a slider's thumb, a switch, a text box's frame), of the nearest
of its next four ancestors that has one. It must be solid (or double, dashed, dotted), at least
2 px wide, around a box of at least 8×8 px, and its colour must stand 3:1 against the background
it is drawn on (WCAG 2.2, 1.4.11): the parent's background for a ring outside the box, the box's
own for a ring inside it (a negative offset), each background being every ancestor's background
colour blended over white.
"""

from __future__ import annotations

import pytest
from streamlit_server import REPO_ROOT, open_app, page_id, page_url
from visits import LAPTOP, settle

from specviz.ui.page import PAGES

pytestmark = pytest.mark.browser

#: Tab presses per page at most (the longest page has about 60 stops).
MOST_TABS = 150

#: The focused element and its ring: {name, ok, why}; null where nothing but the page has focus.
#: Marks each element it reports, so that the walk stops when the focus comes round again.
_RING = """() => {
  let doc = document, el = document.activeElement, where = '';
  for (;;) {
    if (el?.tagName === 'IFRAME' && el.contentDocument) {
      where += `${el.title || 'iframe'} › `; doc = el.contentDocument; el = doc.activeElement;
    } else if (el?.shadowRoot?.activeElement) {
      where += 'live view › '; el = el.shadowRoot.activeElement;
    } else break;
  }
  if (!el || el === doc.body || el === doc.documentElement) return null;
  const label = (el.getAttribute('aria-label') || el.textContent || el.tagName).trim();
  const name = where + `${el.tagName.toLowerCase()} "${label.slice(0, 50)}"`;
  const again = el.hasAttribute('data-focus-seen');
  el.setAttribute('data-focus-seen', '');
  const up = (e) => e.parentElement || e.getRootNode().host;
  const rgba = (text) => {
    const v = text.match(/[\\d.]+/g).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
  const background = (e) => {
    const chain = [];
    for (; e; e = up(e)) chain.unshift(e);
    return chain.reduce((under, a) => over(rgba(getComputedStyle(a).backgroundColor), under),
                        [255, 255, 255]);
  };
  const luminance = (c) => {
    const l = c.map((x) => (x /= 255) <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  };
  const contrast = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  let ring = null;
  for (let e = el, i = 0; e?.nodeType === 1 && i < 5 && !ring; e = up(e), i++) {
    const s = getComputedStyle(e);
    if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) ring = e;
  }
  if (!ring) return { name, again, ok: false, why: 'no outline' };
  const s = getComputedStyle(ring), box = ring.getBoundingClientRect();
  if (!['solid', 'double', 'dashed', 'dotted'].includes(s.outlineStyle) ||
      box.width < 8 || box.height < 8) {
    const why = `${s.outlineStyle} outline around ${box.width}x${box.height}`;
    return { name, again, ok: false, why };
  }
  const bg = background(parseFloat(s.outlineOffset) < 0 ? ring : up(ring));
  const ratio = contrast(over(rgba(s.outlineColor), bg), bg);
  const why = `${s.outlineWidth} ${s.outlineColor} on rgb(${bg.map(Math.round)}): `;
  return { name, again, ok: ratio >= 3, why: why + `${ratio.toFixed(2)}:1` };
}"""


def tab_walk(page) -> list[dict]:
    """Every stop of Tab from the top of the page round to the first again."""
    stops = []
    for _ in range(MOST_TABS):
        page.keyboard.press("Tab")
        stop = page.evaluate(_RING)
        if stop is not None and stop["again"]:
            break
        if stop is not None:
            stops.append(stop)
    return stops


@pytest.mark.parametrize("info", PAGES, ids=[page_id(REPO_ROOT / i.script) for i in PAGES])
def test_tab_shows_a_ring_on_every_control(browser, streamlit_server, info) -> None:
    context = browser.new_context(viewport={"width": LAPTOP.width, "height": LAPTOP.height})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        open_app(page, page_url(streamlit_server, REPO_ROOT / info.script))
        settle(page)
        stops = tab_walk(page)
    finally:
        context.close()
    names = [s["name"] for s in stops]
    # The walk went round: the menu's links and at least one control of the page itself.
    assert any(n.endswith(f'{info.label}"') for n in names), names
    assert len(stops) > len(PAGES) + 2, names
    bad = [f"{s['name']}: {s['why']}" for s in stops if not s["ok"]]
    assert not bad, f"{info.label}: no ring one can see on\n" + "\n".join(bad)
