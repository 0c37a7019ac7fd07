"""Cold start of each page: a fresh server, then one session deep-linked to that page.

What the first student after a server (re)start pays: the server's start until ``/_stcore/health``
answers, then the first run of the page's script — its imports (plotly, altair, scipy where the
page uses it, the core) and its first figures — timed over Streamlit's websocket protocol from
the request to ``script_finished``, as a browser opening the link would see it (minus drawing).

With ``--browser``, each page is also opened in Chromium on a fresh server: from ``goto`` until the
page has drawn everything (the run finished, no skeleton left, every chart has its svg/canvas, fonts
loaded) — the first full render a student sees — and once more in a new tab (warm server).

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_cold_start [rounds]
[--browser]`` (the browser needs Debian's Chromium).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.streamlit_server import StreamlitServer, page_scripts, page_url_path

ROUNDS = 3
TIMEOUT = 120.0


async def first_run(base: str, page_name: str) -> float:
    """Seconds from a deep-linked session's first rerun request to its ``script_finished``."""
    url = base.replace("http://", "ws://") + "/_stcore/stream"
    async with websockets.connect(url, subprotocols=["streamlit"], max_size=None) as ws:
        msg = BackMsg()
        msg.rerun_script.page_name = page_name
        start = time.perf_counter()
        await ws.send(msg.SerializeToString())
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(ws.recv(), TIMEOUT))
            if forward.WhichOneof("type") == "script_finished":
                return time.perf_counter() - start


def measure(page_name: str) -> tuple[float, float]:
    server = StreamlitServer().start()
    try:
        return server.startup_seconds or float("nan"), asyncio.run(first_run(server.url, page_name))
    finally:
        server.stop()


def browser_render(page_name: str) -> tuple[float, float, float]:
    """(server start to health, first full render in Chromium, a second tab's render), seconds."""
    from playwright.sync_api import sync_playwright

    from tests.streamlit_server import VIEWPORT, launch_chromium, open_app, wait_for_charts

    server = StreamlitServer().start()
    try:
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            try:
                times = []
                for _ in range(2):
                    context = browser.new_context(viewport=VIEWPORT)
                    page = context.new_page()
                    start = time.perf_counter()
                    open_app(page, f"{server.url}/{page_name}", timeout_ms=120_000)
                    wait_for_charts(page, timeout_ms=60_000)
                    times.append(time.perf_counter() - start)
                    context.close()
            finally:
                browser.close()
        return server.startup_seconds or float("nan"), times[0], times[1]
    finally:
        server.stop()


def main_browser(rounds: int = 1) -> None:
    for name in ["", *(page_url_path(s) for s in page_scripts())]:
        results = [browser_render(name) for _ in range(rounds)]
        health = statistics.median(r[0] for r in results) * 1e3
        first = statistics.median(r[1] for r in results) * 1e3
        warm = statistics.median(r[2] for r in results) * 1e3
        print(
            f"{name or 'Home':24s} server to health {health:5.0f} ms   Chromium: first full "
            f"render {first:5.0f} ms, a second tab {warm:5.0f} ms"
        )


def main(rounds: int = ROUNDS) -> None:
    names = ["", *(page_url_path(s) for s in page_scripts())]
    for name in names:
        results = [measure(name) for _ in range(rounds)]
        health = statistics.median(r[0] for r in results) * 1e3
        first = sorted(r[1] * 1e3 for r in results)
        print(
            f"{name or 'Home':24s} server to health {health:5.0f} ms   first page: "
            f"median {statistics.median(first):5.0f} ms   min {first[0]:5.0f} ms"
        )


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    if "--browser" in sys.argv[1:]:
        main_browser(int(numbers[0]) if numbers else 1)
    else:
        main(int(numbers[0]) if numbers else ROUNDS)
