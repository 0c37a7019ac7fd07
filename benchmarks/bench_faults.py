"""Faults on one server: what misbehaving clients and links do to everyone else.

One server (pinned to core 0 like benchmarks/bench_classroom.py). Twenty "bystanders" keep
working on the Playground (a change every ~2 s) during every fault, and the report says whether
any of them saw an error and how slow their reruns got. The faults:

- ``drops``: 20 sessions send a change and close their socket while the run is going;
- ``frames``: clients send garbage bytes, a malformed protobuf, a text frame, an oversized frame
  (6 MB, over server.maxMessageSize), and four 190 MB frames at once — each client's socket must
  be closed and the server's memory must not balloon;
- ``clearcache``: a client sends the BackMsg that clears every cache (Streamlit obeys it, for
  every session): what it costs the others;
- ``burst``: 40 sessions deep-link at once to a freshly started server (one per page in turn);
- ``links``: hostile query strings on every page — the page must finish its run without an
  exception element (a traceback is what a learner would see);
- ``rounds``: 5 rounds of 40 students who connect, move a control, and leave — the server's
  memory after each round.

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_faults [fault ...]``
(default: all of them). It only talks to 127.0.0.1 and stops the servers it started.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable, Sequence

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg

from benchmarks.bench_classroom import (
    ClassPlan,
    ClassResult,
    Student,
    change_one,
    connect,
    machine_reference_ms,
    percentile,
    pin_self,
    pinned_server,
    read_forward,
    rerun_message,
    rss_mb,
    run_class_async,
    run_once,
    summary,
)
from tests.streamlit_server import page_scripts, page_url_path

BYSTANDERS = ClassPlan(page="Playground", students=20, seconds=20.0, every=2.0, jitter=0.5)

#: Links a learner could be handed: broken, hostile or absurd (every page gets every one).
HOSTILE_QUERIES = (
    "p=abc&q=1,2,3",
    "p=-5,300,1e9,nan&q=inf,0,0,0",
    "p=0,0,0,0&q=0,0,0,0",
    "words=" + "x" * 5000,
    "words=<script>alert(1)</script>,<b>b</b>,%00,%E2%80%AE",
    "words=a,a,a,a&p=1,2&q=1,2,3,4,5,6,7,8,9,10,11,12",
    "seed=-1&seed=99999999999999999999&n=1e99&gamma=0&draws=7&bug=nope",
    "projector=maybe&letters=klingon&pair=__proto__&temp=-1&length=1e6&c=NaN",
    "%ZZ=%ZZ&&&==&p=%FF%FE",
    "&".join(f"k{i}={i}" for i in range(2000)),
    "n=" + "9" * 400 + "&seed=" + "1" * 400,
    "words=" + ",".join(["𝓤𝓷𝓲𝓬𝓸𝓭𝓮"] * 12) + "&p=" + ",".join(["50"] * 12),
)


def pages() -> list[str]:
    return ["", *(page_url_path(script) for script in page_scripts())]


# ----------------------------------------------------------------------------- the bystanders


async def with_bystanders(url: str, fault: Callable[[], Awaitable[str]]) -> tuple[str, ClassResult]:
    """Run ``fault`` while the bystander class works; returns (what the fault saw, the class)."""
    class_task = asyncio.create_task(run_class_async(BYSTANDERS, url))
    await asyncio.sleep(4.0)  # the class is in and working
    # The fault runs in a thread with its own event loop, so that pushing 760 MB of frames does
    # not stall the bystanders' clients (their times are the server's, not this process's).
    seen = await asyncio.to_thread(lambda: asyncio.run(fault()))
    return seen, await class_task


def bystander_line(result: ClassResult) -> str:
    s = summary(result)
    errors = [e for st in result.students for e in st.errors]
    return (
        f"bystanders: {s['reruns']} reruns, p50 {s['rerun_p50_ms']:.0f} ms, p95 "
        f"{s['rerun_p95_ms']:.0f} ms, max {s['rerun_max_ms']:.0f} ms, errors {len(errors)}"
        + (f" {errors[:3]}" if errors else "")
    )


# ----------------------------------------------------------------------------------- faults


async def drop_mid_rerun(url: str, count: int = 20) -> str:
    """``count`` sessions open the Playground, send a change and close at once."""

    async def one(i: int) -> str:
        student = Student(i)
        ws = await connect(url)
        await run_once(ws, student, "Playground", url)
        change_one(student, ("bars",), random.Random(i))
        await ws.send(rerun_message(student, "Playground", url))
        await asyncio.sleep(random.Random(i).uniform(0.0, 0.03))  # inside the ~30 ms run
        await ws.close()
        return "closed"

    results = await asyncio.gather(*(one(i) for i in range(count)), return_exceptions=True)
    problems = [repr(r) for r in results if r != "closed"]
    return f"{count} sessions dropped mid-rerun; client-side problems: {problems or 'none'}"


async def _send_raw(url: str, payload: bytes | str, label: str) -> str:
    """Open a socket, send ``payload``, report how the server answered."""
    try:
        ws = await connect(url)
    except OSError as problem:
        return f"{label}: could not connect ({problem})"
    try:
        await ws.send(payload)
        try:
            raw = await asyncio.wait_for(ws.recv(), 5.0)
            student = Student(0)
            read_forward(student, raw)
            return f"{label}: socket kept, the server answered a message (errors {student.errors})"
        except TimeoutError:
            return f"{label}: socket kept open, message ignored"
    except websockets.ConnectionClosed as closed:
        code = closed.rcvd.code if closed.rcvd else None
        return f"{label}: socket closed by the server (code {code})"
    finally:
        await ws.close()


def malformed_backmsg() -> bytes:
    """A BackMsg whose rerun_script field claims more bytes than follow."""
    good = BackMsg()
    good.rerun_script.page_name = "Playground"
    data = good.SerializeToString()
    return data[:2] + b"\xff\xff\xff\x0f" + data[2:]


def clear_cache_backmsg() -> bytes:
    msg = BackMsg()
    msg.clear_cache = True
    return msg.SerializeToString()


async def bad_frames(url: str, server_pid: int) -> str:
    rng = random.Random(5)
    lines = [
        await _send_raw(url, bytes(rng.getrandbits(8) for _ in range(4096)), "garbage bytes"),
        await _send_raw(url, malformed_backmsg(), "malformed protobuf"),
        await _send_raw(url, "hello, I am text", "text frame"),
        await _send_raw(url, b"\x00" * (6 * 1024 * 1024), "6 MB frame"),
    ]
    before = rss_mb(server_pid)
    big = b"\x00" * (190 * 1024 * 1024)
    answers = await asyncio.gather(*(_send_raw(url, big, f"190 MB frame #{i}") for i in range(4)))
    after = rss_mb(server_pid)
    lines += list(answers)
    lines.append(f"server RSS {before:.0f} MB before the four 190 MB frames, {after:.0f} MB after")
    return "\n    ".join(lines)


async def clear_cache(url: str) -> str:
    """Any client may send ``clear_cache``: Streamlit empties every cache, for everyone."""
    return await _send_raw(url, clear_cache_backmsg(), "clear_cache BackMsg")


async def hostile_links(url: str) -> str:
    """Every page with every hostile query: its run must finish without an exception element."""
    bad: list[str] = []
    runs = 0
    for page in pages():
        for query in HOSTILE_QUERIES:
            student = Student(0, query=query)
            try:
                ws = await connect(url)
                try:
                    await run_once(ws, student, page, url)
                finally:
                    await ws.close()
            except Exception as problem:  # a closed socket or a timeout is a failure too
                student.errors.append(f"{type(problem).__name__}: {problem}")
            runs += 1
            if student.errors:
                bad.append(f"{page or 'Home'} ?{query[:40]}: {student.errors[:2]}")
    return f"{runs} hostile links opened ({len(pages())} pages); failures: {bad or 'none'}"


async def burst_on_fresh_server(cores: str | None, students: int = 40) -> str:
    """A freshly started server; ``students`` deep links at once, spread over the pages."""
    lines = []
    for page in ("Playground", "Monte_Carlo", "Many_words_per_call"):
        server = pinned_server(cores)
        try:
            plan = ClassPlan(page=page, students=students, seconds=0.0)
            result = await run_class_async(plan, server.url)
            s = summary(result)
            firsts = [st.first_page for st in result.students if st.first_page is not None]
            lines.append(
                f"{page}: {students} deep links at once to a server healthy after "
                f"{server.startup_seconds:.2f} s — first page p50 {s['first_p50_s']:.2f} s, p95 "
                f"{percentile(firsts, 0.95):.2f} s, max {s['first_max_s']:.2f} s; errors "
                f"{s['errors']}; RSS {rss_mb(server.process.pid):.0f} MB"
            )
        finally:
            server.stop()
    return "\n    ".join(lines)


async def memory_rounds(url: str, pid: int, rounds: int = 5, students: int = 40) -> str:
    lines = [f"RSS before: {rss_mb(pid):.0f} MB"]
    for i in range(rounds):
        plan = ClassPlan(page="Playground", students=students, seconds=6.0, every=2.0, seed=i)
        result = await run_class_async(plan, url)
        await asyncio.sleep(1.0)
        lines.append(
            f"after round {i + 1} of {students}: {rss_mb(pid):.0f} MB "
            f"({summary(result)['errors']} errors)"
        )
    return "; ".join(lines)


# ------------------------------------------------------------------------------------ main


async def run(faults: Sequence[str], cores: str | None = "0", out=print) -> None:
    if "burst" in faults:
        out("burst:\n    " + await burst_on_fresh_server(cores))
    server = pinned_server(cores)
    try:
        url, pid = server.url, server.process.pid
        for name, fault in (
            ("drops", lambda: drop_mid_rerun(url)),
            ("frames", lambda: bad_frames(url, pid)),
            ("clearcache", lambda: clear_cache(url)),
            ("links", lambda: hostile_links(url)),
        ):
            if name in faults:
                seen, result = await with_bystanders(url, fault)
                out(f"{name}:\n    {seen}\n    {bystander_line(result)}")
                health = "ok" if server.process.poll() is None else "DEAD"
                out(f"    server {health}, RSS {rss_mb(pid):.0f} MB")
        if "rounds" in faults:
            out("rounds: " + await memory_rounds(url, pid))
    finally:
        server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    faults = list(argv or ()) or ["drops", "frames", "clearcache", "burst", "links", "rounds"]
    pin_self("1")
    out = print
    out(
        f"machine: a fixed Playground run costs {machine_reference_ms():.1f} ms of CPU; "
        f"load before: {os.getloadavg()[0]:.1f}"
    )
    start = time.perf_counter()
    asyncio.run(run(faults, out=out))
    elapsed, load = time.perf_counter() - start, os.getloadavg()[0]
    out(f"done in {elapsed:.0f} s; machine load after: {load:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
