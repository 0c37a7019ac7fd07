"""A first-time browser's static download: straight from Streamlit, and through nginx.

One replica behind nginx (deploy/replicas.py: nginx serves ``/static/`` from disk, each file as
its precompressed .gz). For each way in, a fresh Chromium context opens the Playground, once on
loopback and once on a throttled network (``--mbit`` down, ``--rtt`` ms), and the page's own
Resource Timing gives the files under ``/static/``, their bytes on the wire and unpacked, and
when the last one arrived (ms from navigation). Then ``--tabs`` first-time tabs at once fetch
the same files with curl (six at a time each, gzip accepted, as a browser does): the time until
the last tab had them all.

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_static`` (needs nginx and
Chromium). It stops nginx and the replica it started, by PID.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from playwright.sync_api import sync_playwright

from benchmarks.bench_classroom import machine_reference_ms
from deploy.replicas import Replicas
from tests.streamlit_server import launch_chromium, open_app

STATIC_FILES = """() => performance.getEntriesByType('resource')
    .filter(e => new URL(e.name).pathname.startsWith('/static/'))
    .map(e => [e.name, e.transferSize, e.encodedBodySize, e.decodedBodySize, e.responseEnd])"""


def first_visit(browser, url: str, mbit: float | None, rtt: float) -> tuple[list[list], float]:
    """A fresh context opens ``url``/Playground: its static files, and the ms from navigation
    until the page was drawn and the network idle (every file the first page fetches)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        if mbit:
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send(
                "Network.emulateNetworkConditions",
                {
                    "offline": False,
                    "latency": rtt,
                    "downloadThroughput": mbit * 1e6 / 8,
                    "uploadThroughput": mbit * 1e6 / 8,
                },
            )
        start = time.perf_counter()
        open_app(page, f"{url}/Playground", timeout_ms=120_000)
        page.wait_for_load_state("networkidle", timeout=120_000)
        return page.evaluate(STATIC_FILES), 1e3 * (time.perf_counter() - start)
    finally:
        context.close()


def curl_tabs(url: str, paths: Sequence[str], tabs: int) -> tuple[float, float]:
    """``tabs`` first-time downloads of ``paths`` at once: (seconds until all done, MB each)."""
    command = ["curl", "-s", "--no-progress-meter", "--compressed", "--parallel"]
    command += ["--parallel-max", "6"]
    command += ["-w", "%{size_download}\\n"]
    for path in paths:
        command += ["-o", "/dev/null", f"{url}{path}"]
    start = time.perf_counter()
    running = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(tabs)]
    outputs = [p.communicate()[0] for p in running]
    took = time.perf_counter() - start
    return took, sum(int(n) for n in outputs[0].split()) / 1e6


def main(argv: Sequence[str] | None = None, out=print) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="Chromium visits per case (median)")
    ap.add_argument("--mbit", type=float, default=20.0, help="throttled: Mbit/s per tab")
    ap.add_argument("--rtt", type=float, default=40.0, help="throttled: round trip, ms")
    ap.add_argument("--tabs", type=int, default=20, help="curl tabs at once")
    args = ap.parse_args(argv)
    out(
        f"machine: a fixed Playground run costs {machine_reference_ms():.1f} ms of CPU; "
        f"load {os.getloadavg()[0]:.1f}"
    )
    with Replicas(count=1) as replicas, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        ways = {"Streamlit": replicas.replicas[0].url, "nginx": replicas.url}
        paths: list[str] = []
        for network in (None, args.mbit):
            where = f"{network:g} Mbit/s, {args.rtt:g} ms" if network else "loopback"
            for name, url in ways.items():
                visits = [first_visit(browser, url, network, args.rtt) for _ in range(args.repeat)]
                files = visits[-1][0]
                paths = paths or [f[0][len(url) :] for f in files]
                last = statistics.median(max(f[4] for f in v) for v, _ in visits)
                drawn = statistics.median(ms for _, ms in visits)
                out(
                    f"{where:>20} {name:>9}: {len(files)} files, "
                    f"{sum(f[1] for f in files) / 1e6:.2f} MB on the wire "
                    f"({sum(f[3] for f in files) / 1e6:.2f} MB unpacked), the last after "
                    f"{last:.0f} ms; page drawn after {drawn:.0f} ms (medians of {args.repeat})"
                )
        browser.close()
        for name, url in ways.items():
            took, mb = curl_tabs(url, paths, args.tabs)
            out(
                f"{args.tabs} tabs at once (curl) {name:>9}: all {len(paths)} files in "
                f"{took:.2f} s, {mb:.2f} MB each"
            )
    out(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
