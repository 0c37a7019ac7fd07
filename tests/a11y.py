"""Accessibility audits of a page in Chromium: axe-core and a computed text-contrast check.

Plain functions (no pytest in here), used by a page's visit (``tests/visits.py``):

- ``axe_path()``: axe-core from the npm registry, pinned in ``tests/js/package-lock.json`` and
  installed with ``npm ci --prefix tests/js``.
- ``audit(page, where)``: axe (WCAG 2 A/AA and best practices) and the contrast check on the main
  document and inside every embedded HTML view (``st.iframe``), as one :class:`Audit`.
- ``tab_walk(page)``: every stop of Tab round the page, with its focus ring judged;
- ``drawn_text(page)``: the rendered size of every drawn character (a projector's back row).

Why a contrast check of our own: axe files most of Streamlit's text under "incomplete" (the text
sits in overlapping scroll containers) and does not look at SVG text at all, so chart labels and
captions would pass unseen. The check walks every visible text node: its colour, times the
opacity of every ancestor, painted over the backgrounds of its ancestors (both candidates of a
striped or gradient background); SVG text (Plotly, Vega) is painted over the chart shapes under
its centre. WCAG 2 AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold) and icon glyphs.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Page

JS_DIR = Path(__file__).resolve().parent / "js"
AXE_FILE = JS_DIR / "node_modules" / "axe-core" / "axe.min.js"
#: What CI runs before pytest (the lock file pins the exact version).
NPM_INSTALL = "npm ci --prefix tests/js"

#: axe rule sets: WCAG 2.0/2.1 A and AA, and axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
#: Impacts that fail the test: every one but "minor" (a skipped heading level, moderate, misleads
#: a screen reader's outline; minor ones are reported).
FAILING_IMPACTS = ("moderate", "serious", "critical")


def axe_path() -> Path | None:
    return AXE_FILE if AXE_FILE.is_file() else None


# --------------------------------------------------------------------------- results


@dataclass
class Violation:
    where: str  # "main document" or "iframe 0 (title…)"
    rule: str
    impact: str
    help: str
    targets: list[str]
    summary: str = ""

    def line(self) -> str:
        shown = ", ".join(self.targets[:4]) + (" …" if len(self.targets) > 4 else "")
        return f"[{self.impact}] {self.rule} in {self.where}: {self.help} — {shown}"


@dataclass
class LowContrast:
    where: str
    text: str
    selector: str
    ratio: float
    required: float
    fg: str
    bg: str
    size: float
    weight: int
    count: int = 1

    def line(self) -> str:
        return (
            f"{self.ratio:.2f}:1 < {self.required}:1 in {self.where}: {self.text!r} at "
            f"{self.selector} ({self.fg} on {self.bg}, {self.size:g}px/{self.weight}"
            + (f", {self.count} nodes" if self.count > 1 else "")
            + ")"
        )


@dataclass
class Audit:
    """Everything found on one page in one state."""

    label: str
    axe: bool = True  # whether axe ran (the contrast check always does)
    violations: list[Violation] = field(default_factory=list)
    incomplete: dict[str, int] = field(default_factory=dict)  # "rule (where)" -> nodes
    contrast: list[LowContrast] = field(default_factory=list)
    texts_checked: int = 0
    frames: int = 0

    @property
    def failing(self) -> list[Violation]:
        return [v for v in self.violations if v.impact in FAILING_IMPACTS]

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "axe": self.axe,
            "frames": self.frames,
            "texts_checked": self.texts_checked,
            "violations": [v.__dict__ for v in self.violations],
            "incomplete": self.incomplete,
            "contrast": [c.__dict__ for c in self.contrast],
        }


# --------------------------------------------------------------------------- axe

_AXE_RUN = """async (tags) => {
  const r = await axe.run(document, {
    runOnly: { type: 'tag', values: tags },
    resultTypes: ['violations'],
    iframes: false,            // each embedded view is audited from inside (audit())
  });
  const pick = (v) => ({
    id: v.id, impact: v.impact || 'minor', help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.flat().join(' '), summary: n.failureSummary })),
  });
  return { violations: r.violations.map(pick), incomplete: r.incomplete.map(pick) };
}"""


def run_axe(frame: Frame) -> dict[str, Any]:
    axe = axe_path()
    if axe is None:
        raise FileNotFoundError(f"{AXE_FILE} is missing: run `{NPM_INSTALL}`")
    if not frame.evaluate("() => typeof window.axe !== 'undefined'"):
        frame.add_script_tag(path=str(axe))
    return frame.evaluate(_AXE_RUN, AXE_TAGS)


# --------------------------------------------------------------------------- contrast

_CONTRAST = r"""(everything) => {
  const cache = new Map();
  const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  // Any CSS colour -> [r, g, b, a] with r, g, b in 0..255 and a in 0..1.
  function parse(text) {
    if (cache.has(text)) return cache.get(text);
    let out = null;
    const num = '\\s*([\\d.]+%?)\\s*';
    const m = new RegExp(`^rgba?\\(${num}[,\\s]${num}[,\\s]${num}(?:[,/]${num})?\\)$`).exec(text);
    if (m) {
      let a = m[4] === undefined ? 1 : parseFloat(m[4]);
      if (m[4] && m[4].endsWith('%')) a /= 100;
      out = [+m[1], +m[2], +m[3], a];
    } else if (text === 'transparent' || text === 'none' || !text) {
      out = [0, 0, 0, 0];
    } else {  // color(srgb ...), oklch(...), a name: let the canvas resolve it
      ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = '#000'; ctx.fillStyle = text;
      ctx.fillRect(0, 0, 1, 1);
      const d = ctx.getImageData(0, 0, 1, 1).data;
      out = [d[0], d[1], d[2], d[3] / 255];
    }
    cache.set(text, out);
    return out;
  }
  const over = (c, base) => {  // c (with alpha) painted on an opaque base
    const a = c[3];
    return [0, 1, 2].map((i) => c[i] * a + base[i] * (1 - a)).concat(1);
  };
  const lerp = (from, to, t) => [0, 1, 2].map((i) => from[i] + (to[i] - from[i]) * t).concat(1);
  const lum = (c) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const x = lum(a), y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };
  const hex = (c) =>
    '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  const styles = new Map();
  const style = (el) => {
    if (!styles.has(el)) styles.set(el, getComputedStyle(el));
    return styles.get(el);
  };
  const colorsIn = (text) => (text.match(/rgba?\([^)]*\)|#[0-9a-f]{3,8}\b/gi) || []).map(parse);

  function selector(el) {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 4; e = e.parentElement) {
      let s = e.tagName.toLowerCase();
      const tid = e.getAttribute('data-testid');
      if (e.id && !/[:\d]{4,}/.test(e.id)) s += '#' + e.id;
      else if (tid) s += `[data-testid="${tid}"]`;
      else if (typeof e.className === 'string' && e.className.trim()) {
        const cls = e.className.trim().split(/\s+/)
          .filter((c) => !/^(st-emotion|e[0-9a-z]{6,}|css-)/.test(c));
        if (cls.length) s += '.' + cls.slice(0, 2).join('.');
      } else if (e.getAttribute && e.getAttribute('class')) {  // SVG
        s += '.' + e.getAttribute('class').trim().split(/\s+/).slice(0, 2).join('.');
      }
      parts.unshift(s);
      if (e.id || tid) break;
    }
    return parts.join(' > ');
  }

  // The chain from <html> down to el (inclusive).
  const chainOf = (el) => {
    const c = [];
    for (let e = el; e; e = e.parentElement) c.unshift(e);
    return c;
  };

  const boxes = new Map();
  const covers = (el, x, y) => {
    if (el === document.documentElement || el === document.body) return true;
    if (!boxes.has(el)) boxes.set(el, el.getBoundingClientRect());
    const b = boxes.get(el);
    return x >= b.left && x <= b.right && y >= b.top && y <= b.bottom;
  };

  // Paint the chain: every element's background (and the candidate colours of a background
  // image such as stripes or a gradient) where its box covers the text's centre (x, y) — a
  // value drawn above a slider's thumb is not on the thumb's colour — then every opacity
  // group, then the text on top.
  // Returns [textPixel, backgroundPixel] pairs, one per candidate background.
  function paint(chain, i, base, fg, shapesAt, x, y, halo) {
    if (i === chain.length) {
      const bases = halo ? [halo] : shapesAt ? shapesAt(base) : [base];
      return bases.map((b) => [over(fg, b), b]);
    }
    const el = chain[i], cs = style(el);
    const opacity = parseFloat(cs.opacity);
    let bases = [base];
    if (!(el instanceof SVGElement) && covers(el, x, y)) {
      const bg = parse(cs.backgroundColor);
      bases = [over(bg, base)];
      const image = cs.backgroundImage;
      if (image && image !== 'none') {
        const stops = colorsIn(image);
        for (const s of stops) bases.push(over(s, bases[0]));
      }
    }
    const out = [];
    for (const b of bases) {
      for (const [t, g] of paint(chain, i + 1, b, fg, shapesAt, x, y, halo)) {
        out.push([lerp(base, t, opacity), lerp(base, g, opacity)]);
      }
    }
    return out;
  }

  // SVG text: the filled shapes under its centre (in paint order), from the chart's container.
  function svgShapes(textEl, x, y) {
    let root = textEl.ownerSVGElement;
    while (root && root.ownerSVGElement) root = root.ownerSVGElement;
    const scope = root ? root.parentElement : null;
    if (!scope) return null;
    const hits = [];
    for (const shape of scope.querySelectorAll('path, rect, circle, ellipse, polygon')) {
      if (!(shape.compareDocumentPosition(textEl) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      const r = shape.getBoundingClientRect();
      if (x < r.left || x > r.right || y < r.top || y > r.bottom) continue;
      const cs = style(shape);
      if (cs.display === 'none' || cs.visibility === 'hidden') continue;
      if (shape.closest('defs, clipPath, mask, pattern')) continue;
      let inside = false;
      try {
        const ctm = shape.getScreenCTM();
        if (!ctm) continue;
        const pt = new DOMPoint(x, y).matrixTransform(ctm.inverse());
        inside = shape.isPointInFill(pt);
      } catch (e) { inside = false; }
      if (!inside) continue;
      let alpha = parseFloat(cs.fillOpacity);
      for (let e = shape; e && e !== scope; e = e.parentElement) {
        alpha *= parseFloat(style(e).opacity);
      }
      let fills;
      const m = /url\(["']?#([^"')]+)["']?\)/.exec(cs.fill);
      if (m) {  // a fill pattern: its background and its strokes are both candidates
        const pat = (shape.ownerDocument || document).getElementById(m[1]);
        fills = [];
        if (pat) for (const part of pat.querySelectorAll('rect, path, circle')) {
          const ps = style(part);
          for (const c of [ps.fill, ps.stroke]) { const p = parse(c); if (p[3] > 0) fills.push(p); }
        }
        if (!fills.length) continue;
      } else {
        const f = parse(cs.fill);
        if (f[3] === 0) continue;
        fills = [f];
      }
      hits.push(fills.map((f) => [f[0], f[1], f[2], f[3] * alpha]));
    }
    return (base) => {
      let bases = [base];
      for (const fills of hits) bases = bases.flatMap((b) => fills.map((f) => over(f, b)));
      return bases.slice(0, 16);
    };
  }

  // A halo: two or more text shadows of one opaque colour, centred on the glyphs (how text on
  // a striped or dotted fill keeps the pattern's lines away from its strokes). The glyphs then
  // stand on the halo's colour.
  function haloOf(cs) {
    const shadow = cs.textShadow;
    if (!shadow || shadow === 'none') return null;
    const layers = shadow.split(/,(?![^(]*\))/).map((l) => l.trim());
    if (layers.length < 2) return null;
    let colour = null;
    for (const layer of layers) {
      const c = layer.match(/rgba?\([^)]*\)|#[0-9a-f]{3,8}\b/i);
      const lengths = layer.replace(c ? c[0] : '', '').trim().split(/\s+/).map(parseFloat);
      if (!c || lengths[0] !== 0 || lengths[1] !== 0) return null;
      if (colour !== null && c[0] !== colour) return null;
      colour = c[0];
    }
    const p = parse(colour);
    return p[3] === 1 ? p : null;
  }

  function clipped(el, rect) {
    let r = { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom };
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
      const cs = style(e);
      if (cs.clip && cs.clip !== 'auto') return true;
      if (cs.clipPath && cs.clipPath !== 'none') {
        const b = e.getBoundingClientRect();
        if (b.width <= 2 || b.height <= 2) return true;
      }
      // Inside a scroll container the text can be scrolled into view: the clips of the
      // containers around the scroller (Streamlit's app frame is one) do not hide it.
      const scrolls = (v) => v === 'auto' || v === 'scroll';
      if (scrolls(cs.overflowX) || scrolls(cs.overflowY)) return false;
      const hidden = (v) => v === 'hidden' || v === 'clip';
      if (hidden(cs.overflowX) || hidden(cs.overflowY)) {
        const b = e.getBoundingClientRect();
        if (hidden(cs.overflowX)) {
          r.left = Math.max(r.left, b.left); r.right = Math.min(r.right, b.right);
        }
        if (hidden(cs.overflowY)) {
          r.top = Math.max(r.top, b.top); r.bottom = Math.min(r.bottom, b.bottom);
        }
        if (r.right - r.left < 1 || r.bottom - r.top < 1) return true;
      }
    }
    return false;
  }

  const SKIP = 'script, style, noscript, template, select, option, textarea, title, desc, defs';
  const found = new Map();
  let checked = 0;
  const root = document.body || document.documentElement;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.data.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const el = node.parentElement;
    if (!el || el.closest(SKIP)) continue;
    const cs = style(el);
    if (cs.visibility !== 'visible') continue;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width >= 1 && r.height >= 1);
    if (!rects.length) continue;
    const rect = rects[0];
    if (rect.right <= 0 || rect.bottom < -5000) continue;  // moved off screen (screen-reader text)
    if (rects.every((r) => clipped(el, r))) continue;
    const isSvg = el instanceof SVGElement;
    let fg;
    if (isSvg) {
      const f = parse(cs.fill);
      if (f[3] === 0) continue;  // outline-only text
      fg = [f[0], f[1], f[2], f[3] * parseFloat(cs.fillOpacity)];
    } else {
      const fill = cs.webkitTextFillColor;
      fg = parse(fill && fill !== cs.color ? fill : cs.color);
    }
    if (fg[3] === 0) continue;
    const x = (rect.left + rect.right) / 2, y = (rect.top + rect.bottom) / 2;
    const shapes = isSvg ? svgShapes(el, x, y) : null;
    const pairs = paint(chainOf(el), 0, [255, 255, 255, 1], fg, shapes, x, y, haloOf(cs));
    let worst = null;
    for (const [t, b] of pairs) {
      const r = ratio(t, b);
      if (!worst || r < worst.r) worst = { r, t, b };
    }
    checked += 1;
    const size = parseFloat(cs.fontSize), weight = parseInt(cs.fontWeight, 10) || 400;
    const icon = /material (symbols|icons)/i.test(cs.fontFamily);
    const large = size >= 24 || (size >= 18.66 && weight >= 700);
    const required = icon || large ? 3 : 4.5;
    if (worst.r + 1e-6 >= required && !everything) continue;
    const sel = selector(el);
    const key = sel + '|' + hex(worst.t) + '|' + hex(worst.b);
    const prev = found.get(key);
    if (prev) { prev.count += 1; continue; }
    found.set(key, {
      text: text.slice(0, 60), selector: sel, ratio: Math.round(worst.r * 100) / 100, required,
      fg: hex(worst.t), bg: hex(worst.b), size, weight, count: 1,
    });
  }
  return { checked, offenders: [...found.values()] };
}"""


def text_contrast(frame: Frame, everything: bool = False) -> dict[str, Any]:
    """``{"checked": n, "offenders": [...]}``; with ``everything``, every text checked."""
    return frame.evaluate(_CONTRAST, everything)


# --------------------------------------------------------------------------- frames and waiting

_FRAMES_READY = """() => [...document.querySelectorAll('iframe')].every((f, i) => {
  let d;
  try { d = f.contentDocument; } catch (e) { return true; }  // another origin: not ours to wait on
  if (!d || d.readyState !== 'complete') return false;
  if (f.hasAttribute('srcdoc') && d.URL !== 'about:srcdoc') return false;
  const old = (window.__a11ySrcdocs || [])[i];
  return !(f.contentWindow.__a11yOld && old !== undefined && old !== f.srcdoc);
})"""

_MARK_FRAMES = """() => {
  window.__a11ySrcdocs = [...document.querySelectorAll('iframe')].map((f) => {
    try { f.contentWindow.__a11yOld = true; } catch (e) { /* another origin */ }
    return f.srcdoc;
  });
}"""

_STILL = """() => document.getAnimations().every((a) => a.playState !== 'running')"""


def embedded_frames(page: Page) -> list[tuple[str, Frame]]:
    """(label, frame) of every iframe of the page (nested ones too), in document order."""
    out = []
    for i, frame in enumerate(f for f in page.frames if f != page.main_frame):
        title = ""
        try:
            title = (frame.frame_element().get_attribute("title") or "").strip()
        except Exception:  # detached meanwhile
            continue
        label = f"iframe {i}" + (f" ({title[:40]}…)" if title else "")
        out.append((label, frame))
    return out


def wait_for_frames(page: Page, timeout_ms: float = 15_000) -> None:
    """Every embedded view has loaded its (new) document and finished its transitions."""
    page.wait_for_function(_FRAMES_READY, timeout=timeout_ms, polling=50)
    for _label, frame in embedded_frames(page):
        with contextlib.suppress(Exception):  # an endless animation: audit it as it is
            frame.wait_for_function(_STILL, timeout=3_000, polling=100)


def mark_frames(page: Page) -> None:
    """Remember each embedded view's document, so that ``wait_for_frames`` waits for new ones."""
    page.evaluate(_MARK_FRAMES)


_PRESS = """(key) => {
  for (const type of ['keydown', 'keyup']) {
    document.dispatchEvent(new KeyboardEvent(type, { key, bubbles: true }));
  }
}"""


def press_in_frames(page: Page, key: str = "ArrowRight", times: int = 4) -> None:
    """Press ``key`` inside every embedded view (the player steps on →), then let it settle."""
    for _label, frame in embedded_frames(page):
        for _ in range(times):
            frame.evaluate(_PRESS, key)
            frame.wait_for_timeout(150)
        with contextlib.suppress(Exception):
            frame.wait_for_function(_STILL, timeout=3_000, polling=100)


# --------------------------------------------------------------------------- the audit


def audit(page: Page, label: str, axe: bool = True) -> Audit:
    """The contrast check and (unless ``axe`` is false) axe, on the main document and every
    embedded view."""
    result = Audit(label, axe=axe)
    targets = [("main document", page.main_frame), *embedded_frames(page)]
    result.frames = len(targets) - 1
    for where, frame in targets:
        found = run_axe(frame) if axe else {"violations": [], "incomplete": []}
        for v in found["violations"]:
            result.violations.append(
                Violation(
                    where=where,
                    rule=v["id"],
                    impact=v["impact"],
                    help=v["help"],
                    targets=[n["target"] for n in v["nodes"]],
                    summary=(v["nodes"][0]["summary"] or "") if v["nodes"] else "",
                )
            )
        for v in found["incomplete"]:
            result.incomplete[f"{v['id']} ({where})"] = len(v["nodes"])
        contrast = text_contrast(frame)
        result.texts_checked += contrast["checked"]
        result.contrast.extend(LowContrast(where=where, **c) for c in contrast["offenders"])
    return result


# --------------------------------------------------------------------------- keyboard focus
# The rule: tests/test_browser_focus.py. The walk runs inside the laptop's visit (tests/visits.py),
# between its two audits, and puts the page back as it found it (:func:`put_back`).

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


def tab_walk(page: Page) -> list[dict[str, Any]]:
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


#: Every scrolled box's place (the main document, its open shadow roots and its embedded views):
#: the walk scrolls what it focuses, and the audit after it must see the page as loaded.
_KEEP_PLACE = """() => {
  const roots = [];
  const collect = (root) => {
    roots.push(root);
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) collect(e.shadowRoot);
      if (e.tagName === 'IFRAME') {
        try { if (e.contentDocument) collect(e.contentDocument); } catch (x) { /* other origin */ }
      }
    }
  };
  collect(document);
  window.__specvizRoots = roots;
  window.__specvizPlaces = roots.flatMap((root) => [...root.querySelectorAll('*')]
    .filter((e) => e.scrollHeight > e.clientHeight || e.scrollWidth > e.clientWidth)
    .map((e) => [e, e.scrollTop, e.scrollLeft]));
}"""

_PUT_BACK = """() => {
  for (const [e, top, left] of window.__specvizPlaces || []) {
    e.scrollTop = top;
    e.scrollLeft = left;
  }
  for (const root of window.__specvizRoots || []) {
    root.activeElement?.blur?.();
    root.querySelectorAll('[data-focus-seen]').forEach((e) => e.removeAttribute('data-focus-seen'));
  }
}"""


def keep_place(page: Page) -> None:
    """Remember where every scrolled box of the page is, for :func:`put_back`."""
    page.evaluate(_KEEP_PLACE)


def put_back(page: Page) -> None:
    """Scroll every box back where :func:`keep_place` found it, take the focus off and drop the
    walk's marks."""
    page.evaluate(_PUT_BACK)


# --------------------------------------------------------------------------- type size
# The rule: tests/test_browser_type.py. Measured inside the 1920×1080 projector's visit, as
# soon as the page has settled.

#: [size px, characters, text, where] of every drawn text node of a document (and the open
#: shadow roots inside it).
_SIZES = """() => {
  const out = [];
  const skip = 'style, script, noscript, title, .katex-mathml, '
    + '[data-testid=stSidebar][data-collapsed=true]';
  // closest() across shadow roots: a component's text in the collapsed sidebar is skipped too.
  const closest = (el, sel) => el && (el.closest(sel) || closest(el.getRootNode().host, sel));
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
    const id = closest(el, '[data-testid]')?.dataset.testid || '';
    const cls = (el.getAttribute('class') || '').split(' ')[0];
    return `${id} ${el.tagName.toLowerCase()}${cls ? '.' + cls : ''}`.trim();
  };
  const walk = (root) => {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      const el = n.parentElement;
      let chars = n.textContent.replace(/[\\s\\u200b-\\u200d\\ufeff]/g, '').length;
      if (!chars || !el || closest(el, skip) || !drawn(el)) continue;
      if (el.closest('[data-testid=stIconMaterial]')) chars = 1;  // one glyph
      const index = !!el.closest('.msupsub');
      out.push([size(el), chars, n.textContent.trim().slice(0, 40), where(el), index]);
    }
    root.querySelectorAll('*').forEach((e) => e.shadowRoot && walk(e.shadowRoot));
  };
  walk(document.body);
  return out;
}"""


def drawn_text(page: Page) -> list[list[Any]]:
    """The size rows of the page and of every embedded view that is drawn."""
    rows = page.evaluate(_SIZES)
    for frame in page.frames[1:]:
        if frame.frame_element().is_visible():
            rows += frame.evaluate(_SIZES)
    return rows
