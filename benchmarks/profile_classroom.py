"""Where a loaded server's time goes: py-spy samples the server while a class works on it.

Two phases on one server pinned to core 0 (this process and py-spy on core 1):

- ``first``: ``--rounds`` classes of ``--students`` open the page's link at the same moment and
  leave (first pages only; after the first round the page's results are in the shared cache,
  as for the rest of a class opening one link);
- ``rerun``: a class opens the page, then py-spy records while every student moves a control
  every ~3 s (reruns only).

For each phase it prints the server CPU per run and the functions that take it: inclusive
milliseconds per run for the frames that matter (the script, figure building, Plotly's
validation, Streamlit's per-run work, the websocket), and the top frames by inclusive time.
py-spy is a measuring tool, not a dependency: ``.venv/bin/pip install py-spy``.

Run from the repository root:
``.venv/bin/python -m benchmarks.profile_classroom --page Playground [--phase first|rerun]``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.bench_classroom import (
    ClassPlan,
    cpu_seconds,
    pin_self,
    pinned_server,
    run_class_async,
    summary,
)

RATE = 250  # samples per second

#: Named costs: a label and a regular expression on a frame ("function (file)"). A sample counts
#: for a label when any of its frames matches (inclusive time).
BUCKETS: tuple[tuple[str, str], ...] = (
    ("page script (all of it)", r"exec_func_with_error_handling"),
    ("  page.setup (menu, settings, css)", r"^setup \(.*specviz/ui/page\.py"),
    ("  state.sync_url (share link)", r"^sync_url \(.*specviz/ui/state\.py"),
    ("  figures built (specviz.figures)", r"\(.*specviz/figures/"),
    ("    Plotly validation", r"\(.*plotly/(basedatatypes|validator|_plotly_utils)"),
    ("    Altair / Vega-Lite spec", r"\(.*(altair|jsonschema)/"),
    ("  core (specviz, not ui/figures)", r"\(.*specviz/(?!ui/|figures/)[a-z_]+\.py"),
    ("  st.plotly_chart", r"(^|\.)plotly_chart \("),
    ("  st.vega_lite_chart / altair_chart", r"(^|\.)(vega_lite_chart|altair_chart) \("),
    ("  st.iframe / st.html", r"(^|\.)(iframe|html) \(.*streamlit/"),
    ("  st.page_link", r"(^|\.)page_link \("),
    ("  widgets (register, session state)", r"register_widget|_register_element_id"),
    ("  element id hashing", r"compute_and_register_element_id"),
    ("  cache lookups (st.cache_*)", r"streamlit/runtime/caching/"),
    ("  sending deltas (enqueue)", r"_enqueue_forward_msg|enqueue \(.*streamlit"),
    ("  message hashing", r"populate_hash_if_needed|calc_hash"),
    ("script runner around the script", r"_run_script \(.*script_runner"),
    ("  new_session message", r"_create_new_session_message|_populate_app_pages"),
    ("  file watcher", r"LocalSourcesWatcher|update_watched_modules|watcher/"),
    ("  gc after the run", r"gc_collect|gc\.collect"),
    ("websocket & event loop (uvicorn, starlette)", r"\((.*uvicorn/|.*starlette/|.*asyncio/)"),
    ("  serialize ForwardMsg", r"serialize_forward_msg"),
    ("  BackMsg handling", r"handle_backmsg"),
)


@dataclass
class Profile:
    samples: Counter  # collapsed stack (tuple of frames, root first) -> count
    rate: int

    @property
    def total(self) -> int:
        return sum(self.samples.values())

    def ms(self, count: int) -> float:
        return 1e3 * count / self.rate


def read_raw(path: Path, rate: int) -> Profile:
    """py-spy's ``--format raw`` output: ``frame;frame;... count`` per line."""
    samples: Counter = Counter()
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            samples[tuple(stack.split(";"))] += int(count)
    return Profile(samples, rate)


def inclusive(profile: Profile, pattern: str) -> int:
    rx = re.compile(pattern)
    return sum(n for stack, n in profile.samples.items() if any(rx.search(f) for f in stack))


def top_frames(profile: Profile, limit: int = 25) -> list[tuple[str, int]]:
    """Frames by inclusive samples (each frame counted once per stack)."""
    counts: Counter = Counter()
    for stack, n in profile.samples.items():
        for frame in set(stack):
            counts[_short(frame)] += n
    return counts.most_common(limit)


def _short(frame: str) -> str:
    frame = re.sub(r"/[^ ]*/site-packages/", "", frame)
    return re.sub(r"/work/main/", "", frame)


def describe(profile: Profile, runs: int, out=print) -> None:
    per = max(1, runs)
    out(
        f"  {profile.total} samples = {profile.ms(profile.total) / 1e3:.1f} s CPU, {runs} runs:"
        f" {profile.ms(profile.total) / per:.1f} ms per run"
    )
    for label, pattern in BUCKETS:
        n = inclusive(profile, pattern)
        out(f"  {label:46s} {profile.ms(n) / per:7.1f} ms/run  {100 * n / profile.total:5.1f} %")
    out("  top frames (inclusive):")
    for frame, n in top_frames(profile):
        out(f"    {profile.ms(n) / per:7.1f} ms/run  {frame[:110]}")


# ----------------------------------------------------------------------------------- running


def py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(found).exists():
        raise SystemExit("py-spy is not installed: .venv/bin/pip install py-spy")
    return found


async def record(pid: int, seconds: float, output: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        "taskset",
        "-c",
        "1",
        py_spy(),
        "record",
        "--pid",
        str(pid),
        "--rate",
        str(RATE),
        "--format",
        "raw",
        "--output",
        str(output),
        "--duration",
        str(int(seconds)),
        "--nonblocking",
        "--gil",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def first_pages(plan: ClassPlan, url: str, pid: int, rounds: int, out: Path) -> int:
    """Rounds of first pages only; returns how many runs were recorded."""
    await run_class_async(replace(plan, seconds=0), url)  # warm-up: imports, shared results
    spy = await record(pid, 3600, out)
    await asyncio.sleep(1.0)
    runs = 0
    for _ in range(rounds):
        result = await run_class_async(replace(plan, seconds=0), url)
        runs += summary(result)["students"]
    spy.send_signal(2)  # SIGINT: py-spy writes what it has
    await spy.wait()
    return runs


async def reruns(plan: ClassPlan, url: str, pid: int, out: Path) -> tuple[int, float]:
    """A class; py-spy records from the last first page to the end. Returns (runs, cpu s)."""
    task = asyncio.create_task(run_class_async(plan, url))
    await asyncio.sleep(plan.arrive + 8.0)  # every first page is in by now (checked below)
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    spy = await record(pid, plan.seconds - plan.arrive - 10.0, out)
    await spy.wait()
    cpu, t1 = cpu_seconds(pid) - cpu0, time.perf_counter()
    result = await task
    if summary(result)["all_first_pages_s"] > plan.arrive + 8.0:
        print("  (some first pages came late: they are in the profile)")
    runs = sum(t0 <= t <= t1 for s in result.students for t in s.rerun_at)
    return runs, cpu


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", default="Playground")
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--own-seed", action="store_true")
    ap.add_argument("--phase", choices=("first", "rerun", "both"), default="both")
    ap.add_argument("--server-arg", action="append", default=[])
    ap.add_argument("--keep", help="folder to keep the raw profiles in")
    args = ap.parse_args(argv)
    plan = ClassPlan(args.page, args.students, args.seconds, own_seed=args.own_seed)
    pin_self("1")
    folder = Path(args.keep or tempfile.mkdtemp(prefix="specviz-profile-"))
    folder.mkdir(parents=True, exist_ok=True)
    server = pinned_server("0", [a for arg in args.server_arg for a in arg.split()])
    try:
        pid = server.process.pid
        if args.phase in ("first", "both"):
            raw = folder / f"{args.page or 'Home'}-first.txt"
            runs = asyncio.run(first_pages(plan, server.url, pid, args.rounds, raw))
            print(f"{args.page}: first pages ({args.rounds} rounds of {args.students})")
            describe(read_raw(raw, RATE), runs)
        if args.phase in ("rerun", "both"):
            raw = folder / f"{args.page or 'Home'}-rerun.txt"
            runs, cpu = asyncio.run(reruns(plan, server.url, pid, raw))
            print(f"{args.page}: reruns ({args.students} students; server CPU {cpu:.1f} s)")
            describe(read_raw(raw, RATE), runs)
    finally:
        server.stop()
    print(f"raw profiles in {folder}")


if __name__ == "__main__":
    main(sys.argv[1:])
