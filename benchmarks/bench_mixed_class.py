"""A mixed class: real Chromium tabs beside simulated students, opening the link together (issue
19) and, with ``--poll``, answering the lecturer's question from the projector (issue 20).

The app runs as deploy/replicas.py runs it: ``--replicas`` replicas (default one, pinned to core
0) behind nginx, which serves Streamlit's frontend from disk, precompressed (gzip; ``--brotli``
adds Debian's brotli_static module and a .br beside each file). Then, at one moment:

- ``--tabs`` Chromium tabs, each in a browser context of its own (a student's own browser: an
  empty cache, so every tab downloads the frontend), in ``--browsers`` Chromium processes,
  driven from a process of their own (``--browser-cores 1``: Chromium held to core 1, so that the
  replica on core 0 has its core to itself);
- ``--students`` simulated students (benchmarks/bench_classroom.py's websocket protocol), who
  then move a control every ~3 s until ``--seconds`` after the class opened the link.

Each tab's times come from the page's own clock: from the navigation's start to
DOMContentLoaded and to *charts drawn* — the first run finished, no skeleton left, every Plotly
and Vega chart holding its svg/canvas with a size, every svg of the live view (the Playground's
charts, in a shadow root) sized, and no chart added for 1.5 s after — plus the wait before the
browser started the navigation at all, the bytes over HTTP (the static files and the rest, from
Resource Timing) and the websocket's payload. Browser and servers share the machine's cores: the
report gives the CPU seconds of Chromium, of Playwright's driver, of the replicas, of nginx and of
this load tool over the same window, and the machine's speed (bench_classroom's fixed
Playground run) and load average.

``--poll``: a projector tab (1920×1080) opens *For lecturers*, presses *Start a class* (a room
asking its first question) and follows *Run your room*; the tabs then open the join link and the
simulated students too (benchmarks/bench_polls.py's protocol); once all have the question, each
picks an option at a random moment of the same 10 s and presses *Send my answer* 0.3–1 s later
(again 2 s after a traceback or no reply, at most 3 presses). The report checks every answer
counted exactly once (the options each was told "in" for, against the database's counts) and the
count the projector shows.

``--compare-compression``: one replica behind nginx with brotli_static; fresh tabs, one at a
time, alternately asking for gzip only and for brotli (as Chromium does on loopback and HTTPS),
on loopback and on a throttled network: the frontend's bytes and the first tab's time.

Run from the repository root (needs nginx and Chromium; ``--brotli`` and
``--compare-compression`` need ``apt-get install -y libnginx-mod-http-brotli-static brotli``)::

    .venv/bin/python -m benchmarks.bench_mixed_class                      # 20 tabs + 80 students
    .venv/bin/python -m benchmarks.bench_mixed_class --tabs 10 --students 40 --poll
    .venv/bin/python -m benchmarks.bench_mixed_class --replicas 3 --postgres --poll
    .venv/bin/python -m benchmarks.bench_mixed_class --compare-compression

It stops the browsers, nginx, the replicas and PostgreSQL it started, each by its own PID.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx

from benchmarks import bench_polls
from benchmarks.bench_classroom import (
    ClassPlan,
    cpu_seconds,
    machine_reference_ms,
    percentile,
    pin_self,
    report,
    run_watched,
)
from deploy.replicas import Replicas
from specviz import rooms
from tests.streamlit_server import launch_chromium

TAB_TIMEOUT = 120.0  # seconds a tab may take to be drawn, or to answer, before it counts as failed
SETTLE = 1.5  # seconds without a chart added before a tab counts as drawn
LAPTOP = {"width": 1280, "height": 800}
PROJECTOR = {"width": 1920, "height": 1080}
BROTLI_MODULE = Path("/usr/lib/nginx/modules/ngx_http_brotli_static_module.so")
GZIP_ONLY = {"Accept-Encoding": "gzip, deflate"}  # what a browser on plain HTTP asks for

# In every page before its own scripts: counts the websocket's bytes and, on the page under
# test (__PATH__), notes when it is drawn (see the module's docstring), on the page's own clock.
WATCH_JS = """(() => {
  if (window.top !== window || window.__mx) return;
  const mx = window.__mx = {ran: false, ranAt: null, finishedAt: null, drawnAt: null,
                            history: [], ws: 0, frames: 0};
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        mx.frames += 1;
        mx.ws += e.data.byteLength ?? e.data.size ?? e.data.length ?? 0;
      });
    }
  };
  if (!location.pathname.endsWith('__PATH__')) return;
  // The first run: when the page showed it running, and then not running (the server's part).
  new MutationObserver((records) => {
    const state = records.at(-1).target.getAttribute('data-test-script-state');
    if (!mx.ran && (state === 'running' || records.some((r) => r.oldValue === 'running'))) {
      mx.ran = true;
      mx.ranAt = performance.now();
    }
    if (mx.ran && mx.finishedAt === null && state === 'notRunning') {
      mx.finishedAt = performance.now();
    }
  }).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                        attributeFilter: ['data-test-script-state']});
  const sized = (el) => {
    const r = el?.getBoundingClientRect();
    return !!r && r.width > 0 && r.height > 0;
  };
  const charts = () => {  // charts drawn and sized; -1 while a Plotly/Vega chart is not
    let n = 0;
    for (const c of document.querySelectorAll('[data-testid=stPlotlyChart]')) {
      if (!sized(c.querySelector('.main-svg'))) return -1;
      n += 1;
    }
    for (const c of document.querySelectorAll('[data-testid=stVegaLiteChart]')) {
      if (!sized(c.querySelector('canvas, svg'))) return -1;
      n += 1;
    }
    for (const host of document.querySelectorAll('[data-testid=stBidiComponentIsolated]')) {
      for (const svg of host.shadowRoot?.querySelectorAll('svg') ?? []) {
        if (!svg.parentElement.closest('svg') && sized(svg)) n += 1;
      }
    }
    return n;
  };
  const timer = setInterval(() => {
    const now = performance.now();
    if (now > 1000 * __TIMEOUT__ || (mx.drawnAt !== null && now - mx.drawnAt > 10000)) {
      clearInterval(timer);
      return;
    }
    const state = document.querySelector('[data-testid=stApp]')?.getAttribute(
      'data-test-script-state');
    if (state === 'running') mx.ran = true;
    if (!mx.ran || state !== 'notRunning' || document.querySelector('[data-testid=stSkeleton]')) {
      return;
    }
    const n = charts();
    if (n < __MIN_CHARTS__) return;
    if (mx.history.at(-1)?.[1] !== n) mx.history.push([now, n]);
    if (mx.drawnAt === null) mx.drawnAt = now;
  }, 25);
})();"""

# What a drawn tab reports: its timeline (ms from the navigation's start) and its bytes.
MEASURE_JS = """() => {
  const mx = window.__mx, nav = performance.getEntriesByType('navigation')[0];
  const most = Math.max(...mx.history.map((h) => h[1]));
  const files = performance.getEntriesByType('resource');
  const isStatic = (e) => new URL(e.name).pathname.startsWith('/static/');
  const sum = (list, key) => list.reduce((s, e) => s + (e[key] || 0), 0);
  return {
    origin: performance.timeOrigin,
    dcl: nav.domContentLoadedEventEnd,
    run_seen: mx.ranAt,
    run_done: mx.finishedAt,
    drawn: mx.history.find((h) => h[1] === most)[0],
    last_change: mx.history.at(-1)[0],
    charts: most,
    static_files: files.filter(isStatic).length,
    static_wire: sum(files.filter(isStatic), 'transferSize'),
    static_unpacked: sum(files.filter(isStatic), 'decodedBodySize'),
    other_wire: nav.transferSize + sum(files.filter((e) => !isStatic(e)), 'transferSize'),
    ws_bytes: mx.ws,
    ws_frames: mx.frames,
    exceptions: document.querySelectorAll('[data-testid=stException]').length,
  };
}"""

# A tab not drawn in time: how far it got (ms from the navigation's start).
SO_FAR_JS = """() => ({
  dcl: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd || null,
  run_seen: window.__mx?.ranAt ?? null,
  run_done: window.__mx?.finishedAt ?? null,
  state: document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state')
    ?? 'no app',
  frames: window.__mx?.frames ?? 0,
})"""

# The projector: each change of "This round: N answers", on the page's clock (epoch ms).
PROJECTOR_JS = """() => {
  window.__counts = [];
  setInterval(() => {
    for (const el of document.querySelectorAll('[data-testid=stMarkdownContainer]')) {
      const found = /This round: (\\d+) answers?/.exec(el.innerText);
      if (found) {
        const n = Number(found[1]);
        if (window.__counts.at(-1)?.[1] !== n) window.__counts.push([Date.now(), n]);
        return;
      }
    }
  }, 100);
}"""

OUTCOME_JS = """(inText) => {  // the phone page's status line, once a send has an outcome
  const now = Date.now(), text = document.getElementById('status').innerText;
  if (document.getElementById('sendButton').disabled) return null;  // the send is in flight
  if (text.includes(inText)) return [now, 'accepted'];
  if (text.includes('already')) return [now, 'refused: You have already answered'];
  if (/could not|not answering|closed|moved on|revealed|too many|not one/i.test(text)) {
    return [now, text.includes('could not be sent') ? 'no reply' : 'refused: ' + text.slice(0, 60)];
  }
  return null;
}"""


# ------------------------------------------------------------------------- the tabs' process


def perf_of(epoch_ms: float) -> float:
    """A time on a page's clock (epoch ms) as ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux,
    the same in every process of the machine: the two processes' times compare)."""
    return epoch_ms / 1e3 - (time.time() - time.perf_counter())


async def until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.perf_counter()))


async def open_tab(page, url: str, at: float) -> dict[str, Any]:
    """Open ``url`` at ``at`` (perf_counter), wait until it is drawn, and measure it."""
    from playwright.async_api import Error as PlaywrightError

    await until(at)
    asked = time.perf_counter()
    try:
        await page.goto(url, wait_until="commit", timeout=TAB_TIMEOUT * 1e3)
        await page.wait_for_function(
            "() => window.__mx && window.__mx.drawnAt !== null",
            polling=200,
            timeout=TAB_TIMEOUT * 1e3,
        )
        while True:  # until no chart was added for SETTLE s
            found = await page.evaluate(MEASURE_JS)
            quiet = time.perf_counter() - perf_of(found["origin"] + found["last_change"])
            if quiet >= SETTLE:
                break
            await asyncio.sleep(SETTLE - quiet)
    except PlaywrightError as problem:
        failed = {"error": str(problem).splitlines()[0][:160]}
        with contextlib.suppress(PlaywrightError):  # how far it got
            failed |= await page.evaluate(SO_FAR_JS)
        return failed
    found["queued"] = 1e3 * (perf_of(found["origin"]) - asked)  # ms before the navigation began
    found["drawn_at"] = perf_of(found["origin"] + found["drawn"])
    return found


async def throttle(page, mbit: float, rtt: float) -> None:
    """Chromium's network emulation for this tab: ``mbit`` Mbit/s each way, ``rtt`` ms."""
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Network.enable")
    rate = mbit * 1e6 / 8
    await cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": rtt, "downloadThroughput": rate, "uploadThroughput": rate},
    )


def told_in(outcome: str) -> bool:
    """Was the student told their answer is in: now, or (a press resent) before?"""
    return outcome == "accepted" or outcome.startswith("refused: You have already")


@dataclass
class TabAnswer:
    """One tab's answer: its pick, each press's outcome, when it was told "in"."""

    choice: int = -1
    outcomes: list[str] = field(default_factory=list)
    clicks: list[float] = field(default_factory=list)  # s from the press being due to its outcome
    told_in_at: float | None = None  # perf_counter
    error: str = ""


async def answer_tab(page, t0: float, rng: random.Random) -> TabAnswer:
    """Pick an option at a random moment of the window, press Send 0.3–1 s later (again 2 s after
    no reply, at most 3 presses), as bench_polls' phones do."""
    from playwright.async_api import Error as PlaywrightError

    done = TabAnswer()
    try:
        options = page.locator("label.option")
        pick = t0 + rng.uniform(0, bench_polls.WINDOW - 1)
        due = pick + rng.uniform(0.3, 1.0)
        done.choice = rng.randrange(await options.count())
        await until(pick)
        await options.nth(done.choice).click(timeout=TAB_TIMEOUT * 1e3)
        while len(done.outcomes) < 3:
            await until(due)
            await page.get_by_role("button", name="Send my answer").click(timeout=TAB_TIMEOUT * 1e3)
            try:
                shown = await page.wait_for_function(
                    OUTCOME_JS, arg=bench_polls.IN, polling=50, timeout=20_000
                )
                at, outcome = await shown.json_value()
            except PlaywrightError:
                at, outcome = time.time() * 1e3, "no reply"
            done.clicks.append(perf_of(at) - due)
            done.outcomes.append(outcome)
            if told_in(outcome):
                done.told_in_at = perf_of(at)
            if outcome != "no reply":
                break
            due = time.perf_counter() + 2.0
    except PlaywrightError as problem:
        done.error = str(problem).splitlines()[0][:160]
    return done


async def first_tab(
    browser, script: str, url: str, headers: dict, mbit: float, rtt: float
) -> dict[str, Any]:
    """A first-time visitor alone: a fresh context (optionally asking for gzip only, on a
    throttled network), ``url`` opened and measured."""
    context = await browser.new_context(viewport=LAPTOP, extra_http_headers=headers)
    await context.add_init_script(script)
    try:
        page = await context.new_page()
        if mbit:
            await throttle(page, mbit, rtt)
        return await open_tab(page, url, time.perf_counter())
    finally:
        await context.close()


async def _tabs(conn, tabs: int, browsers: int, path: str, min_charts: int) -> None:
    """The tabs' process: launch Chromium, then carry out the main process's orders."""
    from playwright.async_api import async_playwright

    script = (
        WATCH_JS.replace("__PATH__", path)
        .replace("__TIMEOUT__", str(int(TAB_TIMEOUT)))
        .replace("__MIN_CHARTS__", str(min_charts))
    )
    async with async_playwright() as playwright:
        launched = [await launch_chromium(playwright) for _ in range(max(1, browsers))]
        contexts = [
            await launched[i % len(launched)].new_context(viewport=LAPTOP) for i in range(tabs)
        ]
        for context in contexts:
            await context.add_init_script(script)
        pages = [await context.new_page() for context in contexts]
        projector = None
        conn.send(("ok", None))
        while True:
            order, *args = await asyncio.to_thread(conn.recv)
            try:
                if order == "stop":
                    break
                if order == "open":  # url, at
                    reply: Any = await asyncio.gather(*(open_tab(p, *args) for p in pages))
                elif order == "lecturer":  # url: start a class, run the room
                    projector = await launched[0].new_context(viewport=PROJECTOR)
                    reply = await start_class(await projector.new_page(), args[0])
                elif order == "join":  # url, at
                    reply = await asyncio.gather(*(join(p, *args) for p in pages))
                elif order == "answer":  # t0
                    rngs = [random.Random(f"mixed-tab-{i}") for i in range(len(pages))]
                    reply = await asyncio.gather(
                        *(answer_tab(p, args[0], r) for p, r in zip(pages, rngs, strict=True))
                    )
                elif order == "projector":
                    shown = await projector.pages[0].evaluate("() => window.__counts")
                    reply = [(perf_of(at), n) for at, n in shown]
                elif order == "first":  # url, headers, mbit, rtt
                    reply = await first_tab(launched[0], script, *args)
                else:
                    raise ValueError(order)
                conn.send(("ok", reply))
            except Exception:
                conn.send(("error", traceback.format_exc()))
        for browser in launched:
            await browser.close()


def tabs_process(
    conn, tabs: int, browsers: int, path: str, min_charts: int, cores: str | None
) -> None:
    """The target of the tabs' process (spawned: a clean interpreter, no forked event loop); on
    ``cores`` if given, which Playwright's driver and Chromium inherit."""
    pin_self(cores)
    asyncio.run(_tabs(conn, tabs, browsers, path, min_charts))


async def start_class(page, url: str) -> dict[str, Any]:
    """The lecturer: *For lecturers* on the projector, *Start a class*, *Run your room*; the
    room's code, and the projector's count watched from then on."""
    started = time.perf_counter()
    await page.goto(f"{url}/For_lecturers?projector=1", timeout=TAB_TIMEOUT * 1e3)
    await page.get_by_role("button", name="Start a class").click(timeout=TAB_TIMEOUT * 1e3)
    await page.get_by_role("link", name="Run your room").click(timeout=TAB_TIMEOUT * 1e3)
    await page.get_by_text("This round:").first.wait_for(timeout=TAB_TIMEOUT * 1e3)
    await page.evaluate(PROJECTOR_JS)
    query = dict(part.split("=", 1) for part in page.url.split("?", 1)[1].split("&"))
    return {"code": query["room"], "seconds": time.perf_counter() - started}


async def join(page, url: str, at: float) -> dict[str, Any]:
    """A tab opens the join link at ``at``: seconds until its options are shown."""
    from playwright.async_api import Error as PlaywrightError

    await until(at)
    try:
        await page.goto(url, timeout=TAB_TIMEOUT * 1e3)
        await page.locator("label.option").first.wait_for(timeout=TAB_TIMEOUT * 1e3)
    except PlaywrightError as problem:
        return {"error": str(problem).splitlines()[0][:160]}
    return {"seconds": time.perf_counter() - at}


class Tabs:
    """The tabs' process, seen from the main one: ``ask(order, ...)`` waits for its reply."""

    def __init__(
        self, tabs: int, browsers: int, path: str, min_charts: int = 1, cores: str | None = None
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=tabs_process,
            args=(child, tabs, browsers, path, min_charts, cores),
            daemon=True,
        )
        self.process.start()
        self._reply()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _reply(self) -> Any:
        if not self.conn.poll(TAB_TIMEOUT * 3):
            raise TimeoutError("the tabs' process did not answer")
        status, value = self.conn.recv()
        if status != "ok":
            raise RuntimeError(f"the tabs' process failed:\n{value}")
        return value

    def ask(self, *order: Any) -> Any:
        self.conn.send(order)
        return self._reply()

    def stop(self) -> None:
        if self.process.is_alive():
            self.conn.send(("stop",))
            self.process.join(30)
        if self.process.is_alive():
            self.process.terminate()  # this PID only; Playwright's driver ends with its pipe
            self.process.join(10)


# ------------------------------------------------------------------------- what the CPUs did


def pss_mb(pid: int) -> float:
    """Proportional memory of a process in MB (its share of pages shared with others), 0 if gone:
    Chromium's processes share most of their pages, so their RSS summed counts them many times."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(root: int) -> dict[int, str]:
    """Every process below ``root``: pid -> its command name (Linux /proc)."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        name, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :]
        children.setdefault(int(rest.split()[1]), []).append((int(entry.name), name))
    found, todo = {}, [root]
    while todo:
        for pid, name in children.get(todo.pop(), []):
            found[pid] = name
            todo.append(pid)
    return found


class Usage:
    """CPU seconds and memory of groups of processes, sampled every 0.5 s in a thread: the
    browser (every Chromium process below the tabs' process), Playwright's driver (node, and the
    tabs' Python process), the replicas, nginx, and this process. A process that ends keeps its
    last sample."""

    def __init__(self, tabs_pid: int, replicas: Sequence[int], nginx: int) -> None:
        self.tabs_pid, self.replicas, self.nginx = tabs_pid, list(replicas), nginx
        self.cpu: dict[int, float] = {}
        self.group: dict[int, str] = {}
        self.history: list[tuple[float, dict[str, float]]] = []
        self.browser_mb_peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        groups = {pid: "replicas" for pid in self.replicas} | {self.nginx: "nginx"}
        groups |= {pid: "nginx" for pid in descendants(self.nginx)}  # its workers
        groups[self.tabs_pid] = "driver"
        for pid, name in descendants(self.tabs_pid).items():
            groups[pid] = "driver" if name == "node" else "browser"
        # PSS costs the kernel a walk of each process's pages (60 ms of CPU for 48 Chromium
        # processes): every 10th sample only, so that measuring does not load the machine.
        memory, weigh = 0.0, len(self.history) % 10 == 0
        for pid, group in groups.items():
            cpu = cpu_seconds(pid)
            if cpu == cpu:  # not NaN: still there
                self.cpu[pid], self.group[pid] = cpu, group
                memory += pss_mb(pid) if weigh and group == "browser" else 0.0
        self.browser_mb_peak = max(self.browser_mb_peak, memory)
        totals = Counter[str]()
        for pid, cpu in self.cpu.items():
            totals[self.group[pid]] += cpu
        totals["load tool"] = time.process_time()
        self.history.append((time.perf_counter(), dict(totals)))

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self.sample()

    def start(self) -> Usage:
        self.sample()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def between(self, start: float, end: float) -> dict[str, float]:
        """CPU seconds of each group from the last sample at or before ``start`` to the first at
        or after ``end``."""
        before = [h for t, h in self.history if t <= start] or [self.history[0][1]]
        after = [h for t, h in self.history if t >= end] or [self.history[-1][1]]
        return {g: after[0].get(g, 0.0) - before[-1].get(g, 0.0) for g in after[0]}


def cpu_line(usage: Usage, start: float, end: float) -> str:
    spent = usage.between(start, end)
    wall = max(end - start, 1e-9)
    parts = ", ".join(f"{g} {s:.1f} s" for g, s in sorted(spent.items(), key=lambda i: -i[1]))
    both = 100 * sum(spent.values()) / (2 * wall)
    chromium = 100 * spent.get("browser", 0.0) / wall
    return f"{parts}: {both:.0f} % of 2 cores over {wall:.1f} s, Chromium {chromium:.0f} % of one"


# ------------------------------------------------------------------------- the servers


class BrotliReplicas(Replicas):
    """deploy/replicas.py's replicas and nginx, with nginx's brotli_static on and a .br (Debian's
    ``brotli``, quality 11) beside each precompressed file; deploy/ itself is left as it is."""

    def _spawn(self, name: str, command: list[str], env: dict, url: str):
        if name == "nginx":
            assert self.runtime is not None
            add_brotli(self.runtime)
        return super()._spawn(name, command, env, url)


def add_brotli(runtime: Path) -> None:
    """A .br beside every .gz in ``runtime``/static (where smaller), and nginx.conf loading the
    module with ``brotli_static on`` beside ``gzip_static on``."""
    if not (BROTLI_MODULE.exists() and shutil.which("brotli")):
        raise RuntimeError(
            "brotli needs: apt-get install -y libnginx-mod-http-brotli-static brotli"
        )
    sources = [str(gz)[: -len(".gz")] for gz in (runtime / "static").rglob("*.gz")]
    for start in range(0, len(sources), 100):
        subprocess.run(
            ["brotli", "-k", "-f", "-q", "11", *sources[start : start + 100]], check=True
        )
    for source in map(Path, sources):
        packed = source.with_name(source.name + ".br")
        if packed.stat().st_size >= source.stat().st_size:
            packed.unlink()
    conf = runtime / "nginx.conf"
    text = conf.read_text().replace(
        "gzip_static on;", "gzip_static on;\n            brotli_static on;"
    )
    conf.write_text(f"load_module {BROTLI_MODULE};\n{text}")


def start_servers(args: argparse.Namespace, folder: str) -> Replicas:
    kind = BrotliReplicas if args.brotli else Replicas
    polls = None if args.postgres else f"sqlite:///{folder}/polls.sqlite"
    return kind(count=args.replicas, postgres=args.postgres, polls_url=polls).start()


# ------------------------------------------------------------------------- the report


def ms(values: Sequence[float]) -> str:
    """p50 / p95 / max of ``values`` (ms)."""
    if not values:
        return "none"
    return (
        f"p50 {percentile(values, 0.5):,.0f}, p95 {percentile(values, 0.95):,.0f}, "
        f"max {max(values):,.0f} ms"
    )


def known(tabs: list[dict[str, Any]], key: str) -> list[float]:
    """``key`` of every tab that has it (a page may not show its first run as running)."""
    return [t[key] for t in tabs if t.get(key) is not None]


def tabs_report(found: list[dict[str, Any]], at: float, browsers: int) -> list[str]:
    drawn = [t for t in found if "error" not in t]
    errors = Counter(t["error"] for t in found if "error" in t)
    stuck = [t for t in found if "error" in t]
    total = [t["queued"] + t["drawn"] for t in drawn]
    within = sum(t["drawn"] <= 10_000 for t in drawn)
    mb = [t["static_wire"] / 1e6 for t in drawn]
    lines = [
        f"tabs: {len(found)} in {browsers} Chromium process(es), each its own context (empty "
        f"cache); {len(drawn)} drawn, {sum(t['exceptions'] for t in drawn)} exception elements"
        + (f"; failed {dict(errors)}" if errors else ""),
        f"  navigation → DOMContentLoaded  {ms([t['dcl'] for t in drawn])}",
        f"  navigation → first run showing {ms(known(drawn, 'run_seen'))}   "
        "(static files, scripts, websocket)",
        f"  navigation → first run done    {ms(known(drawn, 'run_done'))}",
        *(
            [
                f"  not drawn: how far they got   DOMContentLoaded {ms(known(stuck, 'dcl'))}; "
                f"first run showing {ms(known(stuck, 'run_seen'))}; done "
                f"{ms(known(stuck, 'run_done'))}; app state, websocket frames "
                f"{[(t.get('state'), t.get('frames')) for t in stuck][:5]}"
            ]
            if stuck
            else []
        ),
        f"  navigation → charts drawn      {ms([t['drawn'] for t in drawn])}   "
        f"({within} of {len(found)} within 10 s; charts per tab "
        f"{sorted(Counter(t['charts'] for t in drawn).items())})",
        f"  before the navigation began    {ms([t['queued'] for t in drawn])}   (the browser busy)",
        f"  link opened → charts drawn     {ms(total)}   (all tabs drawn "
        f"{max((t['drawn_at'] - at for t in drawn), default=float('nan')):.2f} s after the class "
        "opened the link)",
    ]
    if drawn:
        lines.append(
            f"  bytes per tab: static {statistics.median(mb):.2f} MB on the wire "
            f"({statistics.median(t['static_unpacked'] for t in drawn) / 1e6:.2f} MB unpacked, "
            f"{statistics.median(t['static_files'] for t in drawn):.0f} files), other HTTP "
            f"{statistics.median(t['other_wire'] for t in drawn) / 1e3:.0f} kB, websocket "
            f"{statistics.median(t['ws_bytes'] for t in drawn) / 1e3:.0f} kB in "
            f"{statistics.median(t['ws_frames'] for t in drawn):.0f} frames (medians); all tabs "
            f"{sum(mb):.1f} MB of static files"
        )
    return lines


def poll_report(
    tabs: list[TabAnswer], students: list, counts: tuple[int, ...], shown: list, started: dict
) -> list[str]:
    """The answers of tabs and simulated students against the database and the projector."""
    told = [
        (t.choice, t.told_in_at)
        for t in [*tabs, *students]
        if t.outcomes and told_in(t.outcomes[-1])
    ]
    tally = tuple(sum(c == i for c, _ in told) for i in range(len(counts)))
    everyone = len(tabs) + len(students)
    missing = sum(max(0, a - d) for a, d in zip(tally, counts, strict=True))
    lost = missing + everyone - len(told)
    last = Counter((t.outcomes[-1] if t.outcomes else t.error or "never clicked") for t in tabs)
    sims = Counter(s.outcomes[-1] if s.outcomes else "never clicked" for s in students)
    tracebacks = sum(n for k, n in [*last.items(), *sims.items()] if k.startswith("traceback"))
    # From each student told "in" (the k-th) to the projector first showing k or more answers.
    lags = []
    for k, at in enumerate(sorted(t for _, t in told if t is not None), 1):
        seen = next((when for when, n in shown if n >= k and when >= at - 0.05), None)
        seen = seen or next((when for when, n in shown if n >= k), float("inf"))
        lags.append(max(0.0, seen - at))
    final = shown[-1][1] if shown else None
    late = sum(lag > bench_polls.REFRESH + 1.0 for lag in lags)
    checks = {
        "counted exactly once": tally == counts and len(told) == sum(counts),
        "projector shows the count": final == sum(counts) and late == 0,
        "0 lost": lost == 0,
        "no traceback": tracebacks == 0,
    }
    return [
        f"poll: room {started['code']} started from the projector (For lecturers → Start a "
        f"class → Run your room) in {started['seconds']:.1f} s; the room's first question",
        f"  outcomes    tabs {dict(last)}; simulated {dict(sims)}",
        f"  counts      told in {tally} = {len(told)} of {everyone}; database {counts} = "
        f"{sum(counts)}; lost {lost}",
        f"  press → 'in' tabs {ms([1e3 * c for t in tabs for c in t.clicks])}; simulated "
        f"{ms([1e3 * c for s in students for c in s.sends])}",
        f"  projector   shows {final} at the end; from 'in' to counted p50 "
        f"{percentile(lags, 0.5):.2f} s, max {max(lags, default=float('nan')):.2f} s; later than "
        f"one refresh + 1 s: {late}",
        f"  verdict     {'PASS' if all(checks.values()) else 'FAIL'} — "
        + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items()),
    ]


# ------------------------------------------------------------------------- the runs


def open_the_link(args, replicas: Replicas, tabs: Tabs, usage: Usage, out) -> None:
    """Tabs and simulated students open the link at the same moment; both reports."""
    query = f"?{args.query}" if args.query else ""
    plan = ClassPlan(page=args.page, students=args.students, seconds=args.seconds, query=args.query)
    at = time.perf_counter() + 1.0
    found: dict[str, Any] = {}

    def open_tabs() -> None:
        try:
            found["tabs"] = tabs.ask("open", f"{replicas.url}/{args.page}{query}", at)
        except Exception as problem:  # reported below, after the students' class
            found["problem"] = problem

    opener = threading.Thread(target=open_tabs)
    opener.start()
    load = os.getloadavg()[0]
    if args.students:
        time.sleep(max(0.0, at - time.perf_counter()))
        result = run_watched(plan, replicas.url, replicas.pids)
    opener.join()
    if "problem" in found:
        raise found["problem"]
    end = time.perf_counter()
    out(
        f"{args.tabs} tabs + {args.students} simulated students open /{args.page}{query} at once "
        f"(load average {load:.1f} before, {os.getloadavg()[0]:.1f} after)"
    )
    out("\n".join(tabs_report(found["tabs"], at, args.browsers)))
    if args.students:
        result.reference_ms = args.reference
        out(report(result, f"simulated students on {args.page}"))
    drawn = [t["drawn_at"] for t in found["tabs"] if "drawn_at" in t]
    last = max(drawn, default=end)
    chromium = usage.between(at, last).get("browser", 0.0)
    per_tab = f"{chromium / len(drawn):.1f} s per tab drawn" if drawn else "no tab drawn"
    out(f"CPU until the last tab was drawn: {cpu_line(usage, at, last)}; Chromium {per_tab}")
    out(
        f"CPU over the whole class: {cpu_line(usage, at, end)}; Chromium's memory peak "
        f"{usage.browser_mb_peak:,.0f} MB (PSS summed over its processes)"
    )


async def _students_answer(url: str, code: str, students: int, tabs: Tabs, join_url: str):
    """The simulated phones join with the tabs; once all have the question, everyone answers."""
    class_ = [bench_polls.Phone(i, secrets.token_urlsafe(16)) for i in range(students)]
    far = time.perf_counter() + 600
    at = time.perf_counter() + 1.0
    tabs_joined = asyncio.create_task(asyncio.to_thread(tabs.ask, "join", join_url, at))
    await until(at)
    limits = httpx.Limits(max_connections=4 * students + 10)
    async with httpx.AsyncClient(limits=limits, timeout=60.0) as client:
        await asyncio.gather(*(bench_polls.join(client, s, url, code, far) for s in class_))
        students_joined = time.perf_counter() - at
        joined = await tabs_joined
        t0 = time.perf_counter() + 1.0
        tabs_answered = asyncio.create_task(asyncio.to_thread(tabs.ask, "answer", t0))
        rngs = [random.Random(f"polls-{s.index}") for s in class_]
        done = await asyncio.gather(
            *(
                bench_polls.answer(client, s, url, code, t0, r)
                for s, r in zip(class_, rngs, strict=True)
            ),
            return_exceptions=True,
        )
    for s, result in zip(class_, done, strict=True):
        if isinstance(result, BaseException):
            s.errors.append(f"{type(result).__name__}: {result}")
    return class_, await tabs_answered, joined, students_joined


def run_poll(args, replicas: Replicas, tabs: Tabs, usage: Usage, out) -> None:
    """The lecturer starts a class on the projector; tabs and simulated students answer."""
    load = os.getloadavg()[0]
    try:
        started = tabs.ask("lecturer", replicas.url)
    except RuntimeError as problem:  # the projector's page did not load (a starved browser)
        out(f"\npoll not run: the lecturer's page failed: {str(problem).splitlines()[-1]}")
        return
    join_url = f"{replicas.url}/join?room={started['code']}"
    begin = time.perf_counter()
    class_, answers, joined, students_joined = asyncio.run(
        _students_answer(replicas.url, started["code"], args.students, tabs, join_url)
    )
    time.sleep(2 * bench_polls.REFRESH + 1)  # the projector's next refreshes
    shown = tabs.ask("projector")
    end = time.perf_counter()
    eng = rooms.connect(replicas.polls_url)
    counts = rooms.counts(eng, started["code"], 1, rooms.room(eng, started["code"]).question)
    eng.dispose()
    waits = [j["seconds"] for j in joined if "seconds" in j]
    out(
        f"\njoin link: tabs {len(waits)} of {len(joined)} had the question, "
        f"{ms([1e3 * w for w in waits])}; the {args.students} simulated students all after "
        f"{students_joined:.1f} s"
    )
    out("\n".join(poll_report(answers, class_, counts, shown, started)))
    out(
        f"  CPU         {cpu_line(usage, begin, end)}; load average {load:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after"
    )


def compare_compression(args, out) -> None:
    """gzip against brotli for a first-time tab alone: the frontend's bytes and the time."""
    args.brotli = True
    with tempfile.TemporaryDirectory(prefix="specviz-mixed-") as folder:
        replicas = start_servers(args, folder)
        tabs = Tabs(0, 1, args.page, args.min_charts)
        try:
            url = f"{replicas.url}/{args.page}"
            tabs.ask("first", url, {}, 0, 0)  # the server's first run, not measured
            for mbit in (0, args.mbit):
                rows: dict[str, list[dict]] = {"gzip": [], "brotli": []}
                for _ in range(args.repeat):
                    for name, headers in (("gzip", GZIP_ONLY), ("brotli", {})):
                        rows[name].append(tabs.ask("first", url, headers, mbit, args.rtt))
                where = f"{mbit:g} Mbit/s, {args.rtt:g} ms" if mbit else "loopback"
                for name, found in rows.items():
                    ok = [t for t in found if "error" not in t]
                    wire = statistics.median(t["static_wire"] for t in ok) / 1e6
                    files = statistics.median(t["static_files"] for t in ok)
                    out(
                        f"{where:>16} {name:>6}: static {wire:.3f} MB on the wire ({files:.0f} "
                        f"files); navigation → charts drawn {ms([t['drawn'] for t in ok])} "
                        f"({len(ok)} of {len(found)} tabs)"
                    )
        finally:
            tabs.stop()
            replicas.stop()


def main(argv: Sequence[str] | None = None, out=print) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tabs", type=int, default=20, help="Chromium tabs")
    ap.add_argument("--students", type=int, default=80, help="simulated students")
    ap.add_argument("--browsers", type=int, default=1, help="Chromium processes for the tabs")
    ap.add_argument("--page", default="Playground", help="the link's page (URL path)")
    ap.add_argument("--query", default="", help="the link's query string")
    ap.add_argument("--min-charts", type=int, default=1, help="charts a drawn page has at least")
    ap.add_argument("--seconds", type=float, default=30.0, help="the simulated students' class")
    ap.add_argument("--browser-cores", help="taskset-like cores for Chromium (default: any)")
    ap.add_argument("--replicas", type=int, default=1)
    ap.add_argument("--postgres", action="store_true", help="the rooms in PostgreSQL")
    ap.add_argument("--poll", action="store_true", help="then a poll from the projector")
    ap.add_argument("--brotli", action="store_true", help="nginx serves .br files too")
    ap.add_argument("--compare-compression", action="store_true", help="gzip against brotli")
    ap.add_argument("--repeat", type=int, default=3, help="tabs of each kind when comparing")
    ap.add_argument("--mbit", type=float, default=20.0, help="the throttled comparison")
    ap.add_argument("--rtt", type=float, default=40.0, help="the throttled comparison, ms")
    args = ap.parse_args(argv)
    args.reference = machine_reference_ms()  # before any server: the machine as it is
    out(
        f"machine: a fixed Playground run costs {args.reference:.1f} ms of CPU (bench_classroom's "
        f"reference, median of 9); load average {os.getloadavg()[0]:.1f}; 2 cores shared by the "
        "browser, the servers and this tool"
    )
    if args.compare_compression:
        compare_compression(args, out)
        return
    with tempfile.TemporaryDirectory(prefix="specviz-mixed-") as folder:
        replicas = start_servers(args, folder)
        tabs = None
        try:
            packed = "gzip and brotli" if args.brotli else "gzip"
            out(
                f"{args.replicas} replica(s) behind nginx ({packed} static files), replica i on "
                f"core i mod 2, rooms in {'PostgreSQL' if args.postgres else 'SQLite'}; Chromium "
                f"on {'core(s) ' + args.browser_cores if args.browser_cores else 'any core'}"
            )
            tabs = Tabs(args.tabs, args.browsers, args.page, args.min_charts, args.browser_cores)
            assert replicas.proxy is not None
            usage = Usage(tabs.pid, replicas.pids, replicas.proxy.pid).start()
            open_the_link(args, replicas, tabs, usage, out)
            if args.poll:
                run_poll(args, replicas, tabs, usage, out)
            usage.stop()
        finally:
            if tabs is not None:
                tabs.stop()
            replicas.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
