"""Ask the room under load: a class of phones answers one question within the same 10 s while a
fault may hit the servers (issues 20 and 33). Each scenario starts servers of its own:

- ``shared``: 300 phones on 3 replicas behind nginx sharing PostgreSQL (deploy/replicas.py);
- ``kill``: the same, replica 0 killed (SIGKILL) 5 s into the answers;
- ``restart``: the same, PostgreSQL restarted (``pg_ctl restart -m fast``) 5 s into the answers;
- ``sqlite``: 100 phones on one server (core 0), the rooms in a SQLite file.

``--cpu-quota 0.078`` holds each server to that share of a core (Community Cloud's guarantee;
root and cgroup v1 needed; benchmarks/floor.py) once the lecturer's page is open, and then runs,
for reference, the same number of sessions opening the minimal Streamlit page (one slider, one
Plotly chart) at the same share.

A room is started in the database (``rooms.start_room``, what *Start a class* does). The
lecturer's projector opens it with its key and reruns its live fragment every 2 s, as the
browser's ``run_every`` timer does (Streamlit's websocket protocol, bench_classroom's). Each phone
does what the phone page (specviz/ui/phone.html) does over HTTP: it fetches the page and its room
(the question is shown then), holds one waiting request for the room's next change, picks an
option at a random moment of the 10 s window and sends it 0.3–1 s later; a send that fails (no
reply, a 5xx) is sent again 2 s later, at most 3 times; a waiting request that fails is made again
after 1 s. After the window the phones wait, and the servers' CPU meanwhile is what a waiting
class costs; then the lecturer reveals, and each phone's waiting request should bring it.

The report: each phone's last outcome (accepted, "your answer is in"; refused with the app's
message; no reply); the database's count per option beside the accepted ones (exactly once:
equal; lost: accepted but missing, or no reply at all); the projector's lag from a phone being
told "in" to the projector counting it (within one refresh: the first refresh sent after it
counts it); when each phone showed the question, and what its first visit fetched; sends from
when they were due (open loop); the machine's speed (bench_classroom's reference run) and the
load average. Run from the repository root::

    .venv/bin/python -m benchmarks.bench_polls                      # all four
    .venv/bin/python -m benchmarks.bench_polls kill --students 300
    .venv/bin/python -m benchmarks.bench_polls sqlite --sqlite-students 300 --cpu-quota 0.078
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx2 as httpx
import websockets
from sqlalchemy import text
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.bench_classroom import (
    ClassPlan,
    ServerWatch,
    Student,
    closed_while_waiting,
    machine_reference_ms,
    percentile,
    pin_self,
    pinned_server,
    reopen,
    run_class,
    run_once,
    summary,
    warm_up,
)
from benchmarks.floor import cpu_quota, minimal_server
from deploy.replicas import PG_BIN, Replicas
from specviz import classroom, rooms

WINDOW, REFRESH = 10.0, 2.0  # the answers' window; the projector's run_every
QUIET = 20.0  # after the answers: the class waits for the next question
IN = "Your answer is in"  # the phone page's words once an answer is saved
FAULT_AT = 5.0  # seconds into the window
SETTLE = 8.0  # after the window: late clicks, retries, the projector's last refreshes
PAGE = "Ask_the_room"
COUNT = re.compile(r"This round: (\d+) answers?")


class Tap:
    """A websocket that notes what one run drew: alerts, tracebacks, buttons, the projector's
    count, the timed fragments (bench_classroom's ``run_once`` reads and sends through it)."""

    def __init__(self, ws) -> None:
        self.ws, self.errors, self.success, self.tracebacks = ws, [], [], []
        self.buttons: dict[str, str] = {}  # key -> widget id
        self.timers: dict[float, str] = {}  # run_every interval -> fragment id
        self.count: int | None = None
        self.radio = False  # the question's options offered to answer

    async def send(self, data: bytes) -> None:
        await self.ws.send(data)

    async def recv(self) -> bytes:
        raw = await self.ws.recv()
        msg = ForwardMsg.FromString(raw)
        if msg.WhichOneof("type") == "auto_rerun":
            self.timers[round(msg.auto_rerun.interval, 1)] = msg.auto_rerun.fragment_id
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        if kind == "alert":
            alert = element.alert
            (self.success if alert.format == alert.SUCCESS else self.errors).append(alert.body)
        elif kind == "exception":
            self.tracebacks.append(f"{element.exception.type}: {element.exception.message}")
        elif kind == "radio":
            self.radio = True
        elif kind == "button":
            self.buttons[element.button.id.rsplit("-", 1)[-1]] = element.button.id
        elif kind == "markdown" and (found := COUNT.search(element.markdown.body)):
            self.count = int(found[1])
        return raw


@dataclass
class Answerer(Student):
    """The lecturer's projector: a Streamlit session whose live fragment reruns every 2 s."""

    timers: dict[float, str] = field(default_factory=dict)
    resent: int = 0  # runs in flight when the socket closed, sent again
    runs: int = 0  # runs of the page (its first page and its refreshes)


async def attempt(s: Answerer, url: str, end: float) -> Tap:
    """One run of the page as ``s`` stands (fragment, values, trigger); a socket closed during it
    is reopened and the whole page asked for, with the same values, as a browser does."""
    while True:
        tap = Tap(s.socket)
        try:
            await run_once(tap, s, PAGE, url)
        except websockets.ConnectionClosed:
            if await reopen(s, url, end) is None:
                raise
            s.fragment = ""
            s.resent += s.trigger is not None  # a click in flight, sent again
            continue
        s.ids.update(tap.buttons)
        s.timers.update(tap.timers)
        s.runs += 1
        return tap


async def run_due(s: Answerer, url: str, due: float, end: float) -> Tap:
    """Wait for ``due``, then run; a socket closed meanwhile is reopened and, as the frontend does
    for a page with a timed fragment, the whole page run at once."""
    while await closed_while_waiting(s.socket, due):
        if await reopen(s, url, end) is None:
            raise websockets.ConnectionClosed(None, None)
        planned, (s.fragment, s.trigger) = (s.fragment, s.trigger), ("", None)
        await attempt(s, url, end)
        s.fragment, s.trigger = planned
    return await attempt(s, url, end)


async def open_page(s: Answerer, url: str, end: float) -> Tap:
    asked = time.perf_counter()
    await reopen(s, url, end, again=False)
    tap = await attempt(s, url, end)
    s.first_page = time.perf_counter() - asked
    return tap


@dataclass
class Phone:
    """What one phone did and saw (the phone page's requests, over HTTP)."""

    index: int
    voter: str
    choice: int = -1
    shown: float | None = None  # seconds from opening the join link to the question shown
    fetched: int = 0  # bytes on the wire for the first visit (page and room)
    outcomes: list[str] = field(default_factory=list)  # one per send
    told_in_at: float | None = None  # perf_counter when "your answer is in" came
    sends: list[float] = field(default_factory=list)  # seconds from due to answered
    revealed_at: float | None = None  # perf_counter when its waiting request brought the reveal
    waits: int = 0  # waiting requests answered
    retries: int = 0  # waiting requests made again after a failure
    rejoins: int = 0  # waiting requests sent back to look the room up (no valid pass)
    errors: list[str] = field(default_factory=list)
    room: dict = field(default_factory=dict)


async def join(client, phone: Phone, url: str, code: str, end: float) -> None:
    """Open the join link: the page, then the room (again after a failure, as the page does)."""
    opened = time.perf_counter()
    page = await client.get(f"{url}/join?room={code}")
    phone.fetched += page.num_bytes_downloaded
    while time.perf_counter() < end:
        try:
            got = await client.get(f"{url}/api/room/{code}", params={"voter": phone.voter})
        except httpx.HTTPError as problem:
            phone.errors.append(f"join: {type(problem).__name__}")
            await asyncio.sleep(3.0)
            continue
        phone.fetched += got.num_bytes_downloaded
        if got.status_code == 200:
            phone.room, phone.shown = got.json(), time.perf_counter() - opened
            return
        phone.errors.append(f"join: {got.status_code} {got.text[:80]}")
        await asyncio.sleep(3.0)


async def follow(client, phone: Phone, url: str, code: str, end: float) -> None:
    """The page's one waiting request, made again as soon as it is answered, until ``end``."""
    while time.perf_counter() < end:
        room = phone.room
        try:
            got = await client.get(
                f"{url}/api/room/{code}",
                params={
                    "voter": phone.voter,
                    "pass": phone.room.get("pass", ""),
                    "round": room["round"],
                    "revealed": int(room["revealed"]),
                },
            )
            if got.status_code == 200 and got.json().get("rejoin"):  # no pass: look it up
                phone.rejoins += 1
                got = await client.get(f"{url}/api/room/{code}", params={"voter": phone.voter})
            if got.status_code != 200:
                raise httpx.HTTPError(f"status {got.status_code}")
        except httpx.HTTPError:
            phone.retries += 1
            await asyncio.sleep(1.0)
            continue
        phone.waits += 1
        phone.room = {"pass": phone.room.get("pass", "")} | got.json()
        if phone.room.get("revealed") and phone.revealed_at is None:
            phone.revealed_at = time.perf_counter()


async def answer(client, phone: Phone, url: str, code: str, t0: float, rng) -> None:
    """Pick at a random moment of the window and send 0.3–1 s later (again after no reply)."""
    phone.choice = rng.randrange(len(phone.room["options"]))
    due = t0 + rng.uniform(0, WINDOW - 1) + rng.uniform(0.3, 1.0)
    for _ in range(3):
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        try:
            sent = {"round": phone.room["round"], "choice": phone.choice}
            got = await client.post(
                f"{url}/api/room/{code}/answer", params={"voter": phone.voter}, json=sent
            )
            status, said = got.status_code, got.json()
        except (httpx.HTTPError, ValueError) as problem:
            status, said = 0, {"error": type(problem).__name__}
        phone.sends.append(time.perf_counter() - due)
        if status == 200:
            phone.outcomes.append("accepted")
            phone.told_in_at = time.perf_counter()
            return
        phone.outcomes.append(f"refused: {said['error']}" if 400 <= status < 500 else "no reply")
        if status and status < 500:
            return
        due = time.perf_counter() + 2.0


def _every(first: float, period: float, end: float) -> list[float]:
    return [first + k * period for k in range(int((end - first) // period) + 1)]


async def project(lecturer: Answerer, url: str, t0: float, done: asyncio.Event, end: float):
    """The projector's live fragment every 2 s until two refreshes after the class is done:
    (sent, finished, count shown) for each refresh."""
    readings, after = [], 0
    for due in _every(t0, REFRESH, end + 600):
        lecturer.fragment = lecturer.timers.get(REFRESH, "")
        sent = max(due, time.perf_counter())
        try:
            count = (await run_due(lecturer, url, due, end + 600)).count
        except (TimeoutError, websockets.ConnectionClosed) as problem:
            lecturer.errors.append(f"projector: {type(problem).__name__}")
            count = None
        readings.append((sent, time.perf_counter(), count))
        after += done.is_set()
        if after >= 2:
            return readings
    return readings


async def lecture(
    url: str, db_url: str, code: str, key: str, students: int, fault, pids, quota: float | None
) -> dict:
    """The class: the projector (before the quota: the lecturer opens it before class), every
    phone's first visit, the 10-s window (and the fault), a quiet wait, the reveal; the servers'
    (``pids``) CPU seconds in each part."""
    far = time.perf_counter() + 600
    lecturer = Answerer(-1, query=f"room={code}&key={key}")
    await open_page(lecturer, url, far)
    limits = httpx.Limits(max_connections=4 * students, max_keepalive_connections=4 * students)
    timeout = httpx.Timeout(60.0, connect=10.0)
    with contextlib.ExitStack() as held:
        described = "no CPU quota"
        for pid in pids:  # each server its own share, as each Cloud app has
            described = held.enter_context(cpu_quota([pid], quota))
        async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
            watch, cpu = ServerWatch(pids), time.process_time()
            watch.start()
            class_ = [Phone(i, secrets.token_urlsafe(16)) for i in range(students)]
            t_join = time.perf_counter()
            await asyncio.gather(*(join(client, p, url, code, far) for p in class_))
            joined = time.perf_counter() - t_join
            t0 = time.perf_counter() + 1.0
            end = t0 + WINDOW + SETTLE + QUIET + SETTLE
            done = asyncio.Event()
            projector = asyncio.create_task(project(lecturer, url, t0, done, t0 + WINDOW + SETTLE))
            waiting = [asyncio.create_task(follow(client, p, url, code, end)) for p in class_]
            rngs = [random.Random(f"polls-{p.index}") for p in class_]
            answers = [
                answer(client, p, url, code, t0, r) for p, r in zip(class_, rngs, strict=True)
            ]
            faults = [_fault_at(t0 + FAULT_AT, fault)] if fault else []
            results = await asyncio.gather(*answers, *faults, return_exceptions=True)
            done.set()
            for p, result in zip(class_, results, strict=False):
                if isinstance(result, BaseException):
                    p.errors.append(f"{type(result).__name__}: {result}")
            readings = await projector
            answering = watch.stop()
            alive = [pid for pid in pids if os.path.exists(f"/proc/{pid}")]  # a replica killed
            quiet = ServerWatch(alive)  # the class waits for the next question
            await asyncio.sleep(QUIET)
            quiet_cpu = quiet.stop()["server_cpu_s"]
            revealed_at = time.perf_counter()
            await asyncio.to_thread(rooms.lecture, rooms.connect(db_url), code, key, "reveal")
            await asyncio.sleep(SETTLE)
            for task in waiting:
                task.cancel()
    return {
        "class": class_,
        "lecturer": lecturer,
        "joined": joined,
        "readings": readings,
        "fault": results[len(class_) :],
        "server": answering,
        "quiet_cpu": quiet_cpu,
        "revealed_at": revealed_at,
        "quota": described,
        "client_cpu": time.process_time() - cpu,
    }


async def _fault_at(when: float, fault) -> str:
    await asyncio.sleep(max(0.0, when - time.perf_counter()))
    t = time.perf_counter()
    seen = await asyncio.to_thread(fault)
    took = time.perf_counter() - t
    return f"{seen} {t - when + FAULT_AT:.1f} s into the window, in {took:.2f} s"


def restart_postgres(url: str) -> str:
    """``pg_ctl restart -m fast`` on the cluster behind ``url`` (as postgres, when root)."""
    eng = rooms.connect(url)
    with eng.connect() as db:
        data = Path(db.execute(text("SHOW data_directory")).scalar_one())
    eng.dispose()
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    command = [
        *as_user,
        str(PG_BIN[-1] / "pg_ctl"),
        "-D",
        str(data),
        "-m",
        "fast",
        "-w",
        "-l",
        str(data.parent / "log"),
    ]
    done = subprocess.run([*command, "restart"], capture_output=True, text=True)
    return f"PostgreSQL restarted (pg_ctl exit {done.returncode})"


# --------------------------------------------------------------------------------- the report


def report(name: str, run: dict, db_counts: tuple[int, ...], reference: float, load) -> str:
    class_, readings = run["class"], run["readings"]
    last = Counter(p.outcomes[-1] if p.outcomes else "never sent" for p in class_)
    first = Counter(p.outcomes[0] for p in class_ if p.outcomes)
    told_in = [
        p
        for p in class_
        if p.outcomes and p.outcomes[-1].startswith(("accepted", "refused: You have already"))
    ]
    accepted = tuple(sum(p.choice == i for p in told_in) for i in range(len(db_counts)))
    missing = sum(max(0, a - d) for a, d in zip(accepted, db_counts, strict=True))
    silent = sum(n for k, n in last.items() if k in ("no reply", "never sent"))
    lost = missing + silent
    refused = sum(n for k, n in last.items() if k.startswith("refused") and "already" not in k)
    extra = sum(max(0, d - a) for a, d in zip(accepted, db_counts, strict=True))
    sends = [t for p in class_ for t in p.sends]
    # Within one refresh: the first refresh sent after the k-th phone was told "in" went within
    # 2 s (the projector's timer kept time) and counts k; lag: from "in" to a refresh counting k.
    in_at = sorted(p.told_in_at for p in class_ if p.told_in_at)
    lags, late = [], 0
    for k, at in enumerate(in_at, 1):
        after = [r for r in readings if r[0] >= at and r[2] is not None]
        late += not after or after[0][0] - at > REFRESH or after[0][2] < k
        shown = next((f for _, f, c in after if c >= k), None)
        lags.append(float("inf") if shown is None else shown - at)
    final = next((c for *_, c in reversed(readings) if c is not None), None)
    shown_s = [p.shown if p.shown is not None else float("inf") for p in class_]
    fetched = max(p.fetched for p in class_)
    reveal = [p.revealed_at - run["revealed_at"] if p.revealed_at else float("inf") for p in class_]
    cpu = run["server"]["server_cpu_s"]
    p95 = 1e3 * percentile(sends, 0.95)
    exact = accepted == db_counts and len(told_in) == sum(db_counts)
    checks = {
        "counted exactly once": exact,
        "projector right within one refresh": late == 0 and final == sum(db_counts),
        "every question shown within 10 s": max(shown_s) < 10,
        "'in' p95 < 1 s": p95 < 1000,
        "0 lost": lost == 0,
        "first visit <= 300 kB": fetched <= 300_000,
        "every phone shown the reveal": max(reveal) < float("inf"),
    }
    errors = Counter(e[:90] for p in class_ for e in p.errors) + Counter(
        e[:90] for e in run["lecturer"].errors
    )
    lines = [
        f"{name}: {len(class_)} phones; servers {run['quota']}"
        + "".join(f"; {f}" for f in run["fault"]),
        f"  question      shown p50 {percentile(shown_s, 0.5):.2f} s, p95 "
        f"{percentile(shown_s, 0.95):.2f} s, the last after {max(shown_s):.2f} s (all first "
        f"visits after {run['joined']:.1f} s); a first visit fetched {fetched / 1e3:.1f} kB",
        f"  last outcome  {dict(last)}",
        f"  first send    {dict(first)}" if first != last else "",
        f"  counts        told in {accepted} = {len(told_in)}, database {db_counts} = "
        f"{sum(db_counts)}: accepted {len(told_in)}, refused with a message {refused}, "
        f"lost {lost}; counted but not told in {extra}",
        f"  'in'          p50 {1e3 * percentile(sends, 0.5):.0f} ms, p95 {p95:.0f} ms, max "
        f"{1e3 * max(sends, default=float('nan')):.0f} ms from due ({len(sends)} sends)",
        f"  projector     {len(readings)} refreshes; lag from 'in' to counted p50 "
        f"{percentile(lags, 0.5):.2f} s, max {max(lags, default=float('nan')):.2f} s; "
        f"answers not counted within one refresh: {late}; last shows {final}",
        f"  reveal        on every phone p50 {percentile(reveal, 0.5):.2f} s, max "
        f"{max(reveal):.2f} s after the lecturer's click; waiting requests answered "
        f"{sum(p.waits for p in class_)}, made again after a failure "
        f"{sum(p.retries for p in class_)}, looked up again (a phone without a pass) "
        f"{sum(p.rejoins for p in class_)}",
        f"  errors        {dict(errors) or 'none'}",
        f"  servers       {cpu:.2f} s of CPU for the first visits, the answers and the projector "
        f"({1e3 * cpu / len(class_):.1f} ms a phone); {run['quiet_cpu']:.2f} s in {QUIET:.0f} s "
        f"of the class waiting ({100 * run['quiet_cpu'] / QUIET:.1f} % of a core); this load "
        f"tool {run['client_cpu']:.1f} s",
        f"  machine       a fixed Playground run costs {reference:.1f} ms of CPU; load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after (2 cores)",
        f"  verdict       {'PASS' if all(checks.values()) else 'FAIL'} — "
        + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items()),
    ]
    return "\n".join(line for line in lines if line)


def scenario(name: str, students: int, reference: float, quota: float | None) -> str:
    load = os.getloadavg()[0]
    if name == "sqlite":
        folder = tempfile.TemporaryDirectory(prefix="specviz-polls-")
        os.environ["SPECVIZ_POLLS_URL"] = url = f"sqlite:///{folder.name}/polls.sqlite"
        pin_self("1")  # the one server (inheriting that URL) is on core 0
        server = pinned_server("0")
        try:
            run, counts = _class(url, server.url, students, None, [server.process.pid], quota)
        finally:
            server.stop()
            del os.environ["SPECVIZ_POLLS_URL"]
            folder.cleanup()
    else:
        pin_self("0-1")  # beside the replicas, as bench_replicas is
        with Replicas(count=3, postgres=True) as replicas:
            fault = {
                "shared": None,
                "kill": lambda: _kill(replicas),
                "restart": lambda: restart_postgres(replicas.polls_url),
            }[name]
            run, counts = _class(
                replicas.polls_url, replicas.url, students, fault, replicas.pids, quota
            )
    out = report(name, run, counts, reference, (load, os.getloadavg()[0]))
    if quota:
        out += "\n" + minimal_first_pages(students, quota)
    return out


def minimal_first_pages(sessions: int, quota: float) -> str:
    """The same number of sessions opening the minimal Streamlit page at once, one server at the
    same share (warmed up first): what a phone page that is a Streamlit page costs at best."""
    plan = ClassPlan(page="", students=sessions, seconds=0.0, controls=("v",))
    wrap = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    with minimal_server(wrap) as server:
        warm_up(plan, server.url)
        with cpu_quota([server.process.pid], quota):
            result = run_class(plan, server.url)
    s = summary(result)
    return (
        f"  reference     {sessions} sessions opening the minimal Streamlit page (one slider, "
        f"one Plotly chart) at the same share: all first pages after "
        f"{s['all_first_pages_s']:.1f} s (p50 {s['first_p50_s']:.1f} s), errors "
        f"{s['errors']}"
    )


def _class(db_url: str, url: str, students: int, fault, pids, quota) -> tuple[dict, tuple]:
    """A room started in the database at ``db_url``, its class through ``url``; the database's
    count of each option once the class is over."""
    eng, key = rooms.connect(db_url), classroom.new_key()
    code = rooms.start_room(eng, key)
    run = asyncio.run(lecture(url, db_url, code, key, students, fault, pids, quota))
    counts = rooms.counts(eng, code, 1, rooms.room(eng, code).question)
    eng.dispose()
    return run, counts


def _kill(replicas: Replicas) -> str:
    held = replicas.sessions(0)
    replicas.kill(0)
    return f"replica 0 killed (SIGKILL) holding {held} sessions"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*", default=["shared", "kill", "restart", "sqlite"])
    ap.add_argument("--students", type=int, default=300, help="on the replicas")
    ap.add_argument("--sqlite-students", type=int, default=100)
    ap.add_argument(
        "--cpu-quota",
        type=float,
        metavar="CORES",
        help="hold each server to this share of a core (0.078: Community Cloud's "
        "guarantee; needs root), and measure the minimal page at it too",
    )
    args = ap.parse_args(argv)
    reference = machine_reference_ms()
    for name in args.scenarios:
        students = args.sqlite_students if name == "sqlite" else args.students
        print(scenario(name, students, reference, args.cpu_quota), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
