"""How instant the app feels, in Chromium: a key press or a drag step until the page stops
changing, beside two references measured in the same run.

    .venv/bin/python -m benchmarks.bench_instant            # medians of 5
    .venv/bin/python -m benchmarks.bench_instant --repeat 7 --pages all

References, served in the same run:
- a minimal Streamlit page: one slider and one Plotly chart (what every rerun of Streamlit costs);
- plain HTML: the same Plotly figure updated with ``Plotly.react`` on a key press (the floor).

"Settled" is the last change to the page (a MutationObserver on the document and on every shadow
root) after the input, read once the page has been quiet for a while: the time a learner waits
for what they did to show. Streamlit's bookkeeping during a server run is not a change one sees
and is not counted (its running flags, class swaps undone by the end, an attribute set again to
the value it had), but an element it dims while the server runs is (checked every frame). Three
columns: the charts, the main area (the charts and numbers) and the whole page (the sidebar's
share link too).
Also: frames during a continuous drag and during a glide, messages sent to the server during a
drag, the server's CPU time per gesture (/proc), the first render of each page (navigation to
settled, a new browser context each time) and the JS heap of a tab.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import itertools

from streamlit_server import StreamlitServer, launch_chromium, page_url

from benchmarks.floor import MINIMAL_APP
from specviz.ui.page import PAGES

ROOT = Path(__file__).resolve().parents[1]

# Every change to the page, inside shadow roots too: the time of the last one, anywhere and
# outside the sidebar; the time of the last input (a key or a pointer move); messages sent.
PROBE = """
(() => {
  const probe = window.__probe = { last: 0, lastMain: 0, lastChart: 0, any: 0, input: 0, sent: 0,
                                   frames: [] };
  // A chart: a Plotly or Vega chart, or anything in a shadow root (the live view).
  const inChart = (n) => {
    const el = n.nodeType === 1 ? n : n.parentElement;
    return !!el && (el.getRootNode() instanceof ShadowRoot || !!el.closest(
      '[data-testid="stPlotlyChart"], [data-testid="stVegaLiteChart"], #chart'));
  };
  const inSidebar = (n) => {
    const el = n.nodeType === 1 ? n : n.parentElement;
    return !!(el && el.closest && el.closest('[data-testid="stSidebar"]'));
  };
  // Streamlit's bookkeeping during a run changes nothing on screen and is not counted as a
  // change: data-stale and the app's running state (a dimmed element is caught each frame
  // below instead), and class swaps that are undone by the end (counted in settled() only for
  // an element whose class differs from what it had before the input).
  const bookkeeping = new Set(["data-stale", "data-test-script-state"]);
  const seen = (records) => {
    const now = performance.now();
    probe.any = now;  // any mutation at all: the quiet wait waits for bookkeeping too
    const counted = records.filter((r) => {
      // The head (the tab's title and icon, set again by every run) is not on screen.
      if (document.head.contains(r.target)) return false;
      if (r.type !== "attributes") return true;
      if (bookkeeping.has(r.attributeName)) return false;
      // An attribute set to the value it had (a slider's aria-valuetext, set again by every
      // run) changes nothing.
      if (r.attributeName !== "class" && r.oldValue === r.target.getAttribute(r.attributeName)) {
        return false;
      }
      if (r.attributeName !== "class") return true;
      const entry = probe.classes.get(r.target) || { old: r.oldValue, at: 0 };
      entry.at = now;
      probe.classes.set(r.target, entry);
      return false;
    });
    if (!counted.length) return;
    probe.last = now;
    if (counted.some((r) => !inSidebar(r.target))) probe.lastMain = now;
    if (counted.some((r) => inChart(r.target))) probe.lastChart = now;
  };
  probe.classes = new Map();
  probe.mark = (el, now) => {
    probe.last = Math.max(probe.last, now);
    if (!inSidebar(el)) probe.lastMain = Math.max(probe.lastMain, now);
    if (inChart(el)) probe.lastChart = Math.max(probe.lastChart, now);
  };
  const options = { subtree: true, childList: true, attributes: true, characterData: true,
                    attributeOldValue: true };
  const observer = new MutationObserver(seen);
  observer.observe(document, options);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    observer.observe(root, options);
    return root;
  };
  for (const type of ["keydown", "pointermove", "pointerdown"]) {
    window.addEventListener(type, () => { probe.input = performance.now(); probe.classes.clear(); },
                            true);
  }
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) { probe.sent += 1; return send.apply(this, args); };
  const frame = (t) => {
    probe.frames.push(t);
    if (probe.frames.length > 4000) probe.frames.shift();
    // An element dimmed while the server runs (Streamlit's stale look) is a change one sees.
    for (const el of document.querySelectorAll('[data-stale="true"]')) {
      const box = el.getBoundingClientRect();
      if (box.width * box.height > 0 && parseFloat(getComputedStyle(el).opacity) < 1) {
        probe.mark(el, performance.now());
      }
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();
"""

PLAIN_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>reference</title>
<script>{plotly}</script></head><body>
<input id="v" type="range" min="0" max="100" value="50" aria-label="value">
<div id="chart" style="width:700px;height:450px"></div>
<script>
const bars = (v) => [{{type: "bar", x: ["a", "b", "c", "d"], y: [v, 100 - v, 30, 20]}}];
Plotly.newPlot("chart", bars(50));
document.getElementById("v").addEventListener("input", (e) =>
  Plotly.react("chart", bars(Number(e.target.value))));
</script></body></html>"""


def quiet(page, ms: int) -> None:
    """Wait until the page has neither changed nor had an input for ``ms``."""
    page.wait_for_function(
        "() => { const p = window.__probe; "
        f"return p.last > 0 && performance.now() - Math.max(p.last, p.any, p.input) > {ms}; }}",
        timeout=60_000,
        polling=50,
    )


def settled(page) -> tuple[float, float, float]:
    """(the chart, main area, whole page): ms from the last input to the last change there."""
    p = page.evaluate(
        """() => { const p = window.__probe;
          for (const [el, entry] of p.classes) {
            if (el.getAttribute("class") !== entry.old) p.mark(el, entry.at);
          }
          const { input, lastChart, lastMain, last } = p;
          return { input, lastChart, lastMain, last }; }"""
    )
    return tuple(max(0.0, p[k] - p["input"]) for k in ("lastChart", "lastMain", "last"))


def server_cpu(server: StreamlitServer) -> float:
    """CPU seconds the server process has used (user + system)."""
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def new_page(browser, width: int = 1280, height: int = 1000):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_init_script(PROBE)
    return context, context.new_page()


def open_settled(page, url: str) -> float:
    """Navigate and wait for the page to settle; ms from navigation to its last change."""
    page.goto(url)
    quiet(page, 1500)
    return page.evaluate("() => window.__probe.last")


def key_presses(page, target, keys: list[str], quiet_ms: int) -> list[tuple[float, float]]:
    out = []
    for key in keys:
        target.focus()
        page.keyboard.press(key)
        quiet(page, quiet_ms)
        out.append(settled(page))
    return out


#: Drags whose server CPU is measured: /proc counts in 10 ms ticks, a gesture costs ~5 ms.
CPU_GESTURES = 20


def gesture_cpu(page, app: StreamlitServer, x: float, y: float) -> tuple[float, float]:
    """The server's CPU ms per drag of the bar at (x, y) (20 moves, one run when let go), and
    its ms per second with no input, measured right after over as long a stretch."""
    cpu0, t0 = server_cpu(app), time.perf_counter()
    for i in range(CPU_GESTURES):
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x, y - 4 * (1 + i % 5), steps=20)
        page.mouse.up()
        quiet(page, 1000)
    busy, span = server_cpu(app) - cpu0, time.perf_counter() - t0
    idle0 = server_cpu(app)
    page.wait_for_timeout(1000 * span)
    idle = server_cpu(app) - idle0
    return 1000 * (busy - idle) / CPU_GESTURES, 1000 * idle / span


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fmt(values: list[tuple[float, ...]]) -> list[str]:
    return [f"{median([v[k] for v in values]):,.0f} ms" for k in range(3)]


def reference_rows(browser, minimal: StreamlitServer, repeat: int) -> dict[str, list]:
    rows: dict[str, list] = {}
    context, page = new_page(browser)
    open_settled(page, minimal.url)
    thumb = page.get_by_role("slider").first
    keys = ["ArrowRight", "ArrowLeft"] * ((repeat + 1) // 2)
    rows["minimal Streamlit page: one slider, one Plotly chart"] = key_presses(
        page, thumb, keys[:repeat], 1000
    )
    context.close()
    plotly_js = Path(__import__("plotly").__file__).parent / "package_data" / "plotly.min.js"
    context, page = new_page(browser)
    html = PLAIN_HTML.format(plotly=plotly_js.read_text())
    page.route(
        "http://reference.test/", lambda route: route.fulfill(body=html, content_type="text/html")
    )
    page.goto("http://reference.test/")
    quiet(page, 1000)
    rows["plain HTML, Plotly.react"] = key_presses(page, page.locator("#v"), keys[:repeat], 500)
    context.close()
    return rows


def playground_rows(browser, app: StreamlitServer, repeat: int) -> tuple[dict, dict]:
    rows: dict[str, list] = {}
    extra: dict[str, str] = {}
    context, page = new_page(browser)
    open_settled(page, f"{app.url}/Playground")
    keys = ["ArrowUp", "ArrowDown"] * ((repeat + 1) // 2)
    if not page.evaluate("() => !!window.specviz?.live?.view"):
        # An app from before the live view (for the "before" column): its weight slider.
        name = re.compile(r"^target p weight of mat( target p weight of mat)?$")
        thumb = page.get_by_role("slider", name=name)
        rows["Playground: a key on a weight"] = key_presses(page, thumb, keys[:repeat], 1500)
        context.close()
        return rows, extra
    handle = page.get_by_role("slider", name="target p weight of mat", exact=True)
    rows["Playground: a key on a bar"] = key_presses(page, handle, keys[:repeat], 1500)

    # A drag: each step timed, then one continuous drag for the frames, then what the server
    # was sent and what it spent.
    draft = page.get_by_role("slider", name="draft q weight of bed", exact=True)
    box = draft.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    steps = []
    sent_during = 0
    for _ in range(max(2, repeat // 2)):
        page.mouse.move(x, y)
        sent_before = page.evaluate("() => window.__probe.sent")
        page.mouse.down()
        for k in range(1, 6):
            page.mouse.move(x, y - 6 * k)
            quiet(page, 300)
            steps.append(settled(page))
        sent_during += page.evaluate("() => window.__probe.sent") - sent_before
        page.mouse.move(x, y)
        page.mouse.up()
        quiet(page, 1500)
    rows["Playground: a drag step"] = steps
    page.evaluate("() => { window.__probe.frames = []; }")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - 80, steps=60)
    frames = page.evaluate("() => window.__probe.frames")
    page.mouse.up()
    quiet(page, 1500)
    gaps = [b - a for a, b in itertools.pairwise(frames)]
    per_gesture, idle_rate = gesture_cpu(page, app, x, y)
    drags = max(2, repeat // 2)
    extra["messages to the server while a bar was held"] = f"{sent_during} (in {drags} drags)"
    extra["continuous drag: frames, longest frame"] = (
        f"{len(frames)} frames over {frames[-1] - frames[0]:,.0f} ms, longest {max(gaps):.0f} ms"
        if len(frames) > 1
        else "n/a"
    )
    extra["server CPU per gesture"] = (
        f"{per_gesture:.1f} ms ({CPU_GESTURES} drags; the server's CPU in as long a stretch "
        f"with no input, {idle_rate:.1f} ms a second, taken off)"
    )

    # A glide: a preset from the server, watched frame by frame.
    page.evaluate("() => { window.__probe.frames = []; }")
    page.get_by_role("button", name="Random", exact=True).click()
    quiet(page, 1500)
    frames = page.evaluate("() => window.__probe.frames")
    gaps = [b - a for a, b in itertools.pairwise(frames)]
    extra["glide after Random: longest frame"] = f"{max(gaps):.0f} ms" if gaps else "n/a"
    heap = context.new_cdp_session(page)
    heap.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in heap.send("Performance.getMetrics")["metrics"]}
    extra["JS heap of a Playground tab"] = f"{metrics['JSHeapUsedSize'] / 2**20:.1f} MB"
    context.close()
    return rows, extra


def home_rows(browser, app: StreamlitServer, repeat: int) -> dict[str, list]:
    """Home's draft-quality slider, a control of the live view like the Playground's bars."""
    context, page = new_page(browser)
    open_settled(page, app.url)
    quality = page.locator(".st-key-home-live input[type='range']")
    quality.wait_for(timeout=60_000)
    keys = ["ArrowRight", "ArrowLeft"] * ((repeat + 1) // 2)
    rows = {"Home: a key on the draft's quality": key_presses(page, quality, keys[:repeat], 1500)}
    context.close()
    return rows


def other_rows(browser, app: StreamlitServer, repeat: int, scripts: list) -> dict[str, list]:
    rows: dict[str, list] = {}
    for info in scripts:
        control = info.fold[0]
        if not control or " " in control:
            continue
        context, page = new_page(browser)
        open_settled(page, page_url(app.url, ROOT / info.script))
        # A page's first visit to a server can pause longer than the quiet wait (Many words per
        # call builds its models) and run again: without waiting, its row was left out, silently.
        box = page.locator(f".st-key-{control.replace('.', '-')}")
        box.wait_for(timeout=60_000)
        quiet(page, 1500)
        thumb = box.locator("input[type='range']")
        try:
            thumb.first.wait_for(timeout=5_000)
        except PlaywrightTimeoutError:  # not a slider
            context.close()
            continue
        keys = ["ArrowRight", "ArrowLeft"] * ((repeat + 1) // 2)
        rows[f"{info.label}: its slider"] = key_presses(page, thumb.first, keys[:repeat], 1500)
        context.close()
    return rows


def first_renders(browser, urls: dict[str, str], repeat: int) -> dict[str, float]:
    out = {}
    for name, url in urls.items():
        times = []
        for _ in range(repeat):
            context, page = new_page(browser)
            times.append(open_settled(page, url))
            context.close()
        out[name] = median(times)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="measurements per row (median)")
    parser.add_argument(
        "--pages",
        default="changed",
        help="changed (Home and the Playground), all, or page labels separated by commas "
        "(e.g. 'Many words per call'): those pages only, beside the references",
    )
    args = parser.parse_args()
    labels = {info.label: info for info in PAGES}
    chosen = [] if args.pages in ("changed", "all") else args.pages.split(",")
    if unknown := [name for name in chosen if name not in labels]:
        parser.error(f"unknown pages {unknown}; pages: {', '.join(labels)}")
    chromium = shutil.which("chromium")
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as pw:
        Path(folder, "app.py").write_text(MINIMAL_APP)
        minimal = StreamlitServer(root=Path(folder)).start()
        app = StreamlitServer().start()
        browser = launch_chromium(pw, chromium)
        try:
            rows = reference_rows(browser, minimal, args.repeat)
            extra: dict[str, str] = {}
            if not chosen or "Playground" in chosen:
                live, extra = playground_rows(browser, app, args.repeat)
                rows |= live
            if not chosen or "Home" in chosen:
                rows |= home_rows(browser, app, args.repeat)
            pages = [labels[n] for n in chosen] or (PAGES if args.pages == "all" else PAGES[:2])
            others = [i for i in pages if args.pages != "changed" and i.script != PAGES[1].script]
            rows |= other_rows(browser, app, args.repeat, others)
            urls = {"minimal Streamlit page": minimal.url}
            for info in pages:
                urls[info.label] = page_url(app.url, ROOT / info.script)
            first = first_renders(browser, urls, args.repeat)
        finally:
            browser.close()
            app.stop()
            minimal.stop()
    reference = median([v[0] for v in rows["minimal Streamlit page: one slider, one Plotly chart"]])
    print(f"\ninput → page settled, median of {args.repeat} (Chromium, {os.cpu_count()} cores)\n")
    print("| what | the chart | main area | whole page | × minimal page's (chart / main / whole) |")
    print("|---|---|---|---|---|")
    for name, values in rows.items():
        chart_ms, main_ms, whole_ms = fmt(values)
        ratios = " / ".join(f"{median([v[k] for v in values]) / reference:.2f}" for k in range(3))
        print(f"| {name} | {chart_ms} | {main_ms} | {whole_ms} | {ratios} |")
    print("\n| first render (navigation → settled) | ms | × minimal page |")
    print("|---|---|---|")
    for name, ms in first.items():
        print(f"| {name} | {ms:,.0f} | {ms / first['minimal Streamlit page']:.2f} |")
    print()
    for name, value in extra.items():
        print(f"- {name}: {value}")


if __name__ == "__main__":
    main()
