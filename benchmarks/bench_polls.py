"""Ask the room under load: a class answers one question within the same 10 s while a fault may
hit the servers (issue 20's "What to reach"). Each scenario starts servers of its own:

- ``shared``: 300 students on 3 replicas behind nginx sharing PostgreSQL (deploy/replicas.py);
- ``kill``: the same, replica 0 killed (SIGKILL) 5 s into the answers;
- ``restart``: the same, PostgreSQL restarted (``pg_ctl restart -m fast``) 5 s into the answers;
- ``sqlite``: 100 students on one server (core 0), the rooms in a SQLite file.

A room is started in the database (``rooms.start_room``, what *Start a class* does). The
lecturer's projector opens it with its key and reruns its live fragment every 2 s, as the
browser's ``run_every`` timer does. Each student (benchmarks/bench_classroom.py's websocket
protocol) opens the join link; once the whole class has a page, each picks an option at a random
moment of the 10 s window and clicks *Send my answer* 0.3–1 s later, while its own fragment reruns
every 5 s. A socket that closes is reopened through nginx and the run in flight asked for again
with the same values, the click in them (bench_classroom's reconnection). A click that shows a
traceback or nothing is clicked again 2 s later, at most 3 clicks.

The report: each student's last outcome (accepted, "Your answer is in"; refused with the app's
message; a traceback; no reply); the database's count per option beside the accepted ones
(exactly once: equal; lost: accepted but missing, or no reply at all); the projector's lag from a
student being told "in" to the projector counting them (within one refresh: the first refresh
sent after it counts them); click reruns from when the click was due (open loop); the machine's
speed (bench_classroom's reference run) and the load average. Run from the repository root::

    .venv/bin/python -m benchmarks.bench_polls                      # all four
    .venv/bin/python -m benchmarks.bench_polls kill --students 300
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from sqlalchemy import text
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.bench_classroom import (
    ServerWatch,
    Student,
    closed_while_waiting,
    machine_reference_ms,
    percentile,
    pin_self,
    pinned_server,
    reopen,
    run_once,
)
from deploy.replicas import PG_BIN, Replicas
from specviz import classroom, rooms

WINDOW, TICK, REFRESH = 10.0, 5.0, 2.0  # the answers' window; students' and projector's run_every
FAULT_AT = 5.0  # seconds into the window
SETTLE = 8.0  # after the window: late clicks, retries, the projector's last refreshes
PAGE = "Ask_the_room"
IN = "Your answer is in"
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
    choice: int = -1
    outcomes: list[str] = field(default_factory=list)  # one per click
    told_in_at: float | None = None  # perf_counter when "Your answer is in" came
    clicks: list[float] = field(default_factory=list)  # seconds from due to finished
    timers: dict[float, str] = field(default_factory=dict)
    resent: int = 0  # clicks in flight when the socket closed, sent again
    runs: int = 0  # runs of the page (first pages, timers, picks, clicks, refreshes)
    offered_again: bool = False  # told "in", then a page offered the question to answer again


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


def outcome(tap: Tap) -> str:
    if any(t.startswith(IN) for t in tap.success):
        return "accepted"
    if tap.tracebacks:
        return f"traceback ({tap.tracebacks[0].split(':')[0]})"
    if tap.errors:
        return f"refused: {tap.errors[0]}"
    return "no reply"


async def answer(s: Answerer, url: str, code: str, t0: float, end: float, rng) -> None:
    """Pick, click (again after a traceback or no reply), and the 5-s timer, until ``end``."""
    # The round in play: 1 in a room just started, more once a lecturer has asked again.
    radio = next(w for k, w in s.widgets.items() if k.startswith(f"polls.pick.{code}."))
    send = f"polls.send.{radio.id.rsplit('.', 1)[-1]}"
    s.choice = rng.randrange(len(radio.options))
    pick = t0 + rng.uniform(0, WINDOW - 1)
    events = [(pick, "pick"), (pick + rng.uniform(0.3, 1.0), "click")]
    events += [(t, "tick") for t in _every(t0 + rng.uniform(0, TICK), TICK, end)]
    events.sort()
    while events:
        due, action = events.pop(0)
        if action == "tick" and due < time.perf_counter() - TICK:
            continue  # a timer tick long overdue: the next one is due already
        if action == "pick":
            s.sent[radio.id] = WidgetState(id=radio.id, string_value=radio.options[s.choice])
            s.fragment = s.fragments.get(radio.id, "")
        elif action == "click":
            button = s.ids[send]
            s.trigger = WidgetState(id=button, trigger_value=True)
            s.fragment = s.fragments.get(button, "")
        else:
            s.fragment = s.timers.get(TICK, "")
        tap = await run_due(s, url, due, end)
        s.offered_again |= s.told_in_at is not None and tap.radio
        if action != "click":
            continue
        s.clicks.append(time.perf_counter() - due)
        s.outcomes.append(outcome(tap))
        if s.outcomes[-1] == "accepted":
            s.told_in_at = time.perf_counter()
        elif s.outcomes[-1].startswith(("traceback", "no reply")) and len(s.outcomes) < 3:
            events = sorted([*events, (time.perf_counter() + 2.0, "click")])


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


async def lecture(url: str, code: str, key: str, students: int, fault, pids) -> dict:
    """The class: the projector, every student's page, then the 10-s window (and the fault);
    the servers' (``pids``) CPU seconds meanwhile."""
    watch, cpu = ServerWatch(pids), time.process_time()
    watch.start()
    far = time.perf_counter() + 600
    lecturer = Answerer(-1, query=f"room={code}&key={key}")
    await open_page(lecturer, url, far)
    class_ = [Answerer(i, query=f"room={code}") for i in range(students)]
    t_join = time.perf_counter()
    await asyncio.gather(*(open_page(s, url, far) for s in class_))
    joined = time.perf_counter() - t_join
    t0 = time.perf_counter() + 1.0
    end = t0 + WINDOW + SETTLE
    done = asyncio.Event()
    projector = asyncio.create_task(project(lecturer, url, t0, done, end))
    rngs = [random.Random(f"polls-{s.index}") for s in class_]
    answers = [answer(s, url, code, t0, end, r) for s, r in zip(class_, rngs, strict=True)]
    faults = [_fault_at(t0 + FAULT_AT, fault)] if fault else []
    results = await asyncio.gather(*answers, *faults, return_exceptions=True)
    done.set()
    for s, result in zip(class_, results, strict=False):
        if isinstance(result, BaseException):
            s.errors.append(f"{type(result).__name__}: {result}")
    readings = await projector
    return {"class": class_, "lecturer": lecturer, "joined": joined, "readings": readings,
            "fault": results[len(class_):], "server": watch.stop(),
            "client_cpu": time.process_time() - cpu}  # fmt: skip


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
    command = [*as_user, str(PG_BIN[-1] / "pg_ctl"), "-D", str(data), "-m", "fast", "-w",
               "-l", str(data.parent / "log")]  # fmt: skip
    done = subprocess.run([*command, "restart"], capture_output=True, text=True)
    return f"PostgreSQL restarted (pg_ctl exit {done.returncode})"


# --------------------------------------------------------------------------------- the report


def report(name: str, run: dict, db_counts: tuple[int, ...], reference: float, load) -> str:
    class_, readings = run["class"], run["readings"]
    last = Counter(s.outcomes[-1] if s.outcomes else "never clicked" for s in class_)
    first = Counter(s.outcomes[0] for s in class_ if s.outcomes)
    told_in = [
        s
        for s in class_
        if s.outcomes and s.outcomes[-1].startswith(("accepted", "refused: You have already"))
    ]
    accepted = tuple(sum(s.choice == i for s in told_in) for i in range(len(db_counts)))
    missing = sum(max(0, a - d) for a, d in zip(accepted, db_counts, strict=True))
    silent = sum(n for k, n in last.items() if k in ("no reply", "never clicked"))
    lost = missing + silent
    refused = sum(n for k, n in last.items() if k.startswith("refused") and "already" not in k)
    tracebacks = sum(n for k, n in last.items() if k.startswith("traceback"))
    extra = sum(max(0, d - a) for a, d in zip(accepted, db_counts, strict=True))
    clicks = [t for s in class_ for t in s.clicks]
    # Within one refresh: the first refresh sent after the k-th student was told "in" went within
    # 2 s (the projector's timer kept time) and counts k; lag: from "in" to a refresh counting k.
    in_at = sorted(s.told_in_at for s in class_ if s.told_in_at)
    lags, late = [], 0
    for k, at in enumerate(in_at, 1):
        after = [r for r in readings if r[0] >= at and r[2] is not None]
        late += not after or after[0][0] - at > REFRESH or after[0][2] < k
        shown = next((f for _, f, c in after if c >= k), None)
        lags.append(float("inf") if shown is None else shown - at)
    final = next((c for *_, c in reversed(readings) if c is not None), None)
    everyone = [*class_, run["lecturer"]]
    cpu, runs = run["server"]["server_cpu_s"], max(1, sum(s.runs for s in everyone))
    shown_errors = Counter(e[:110] for s in everyone for e in s.errors)
    saw_traceback = sum(any(e.startswith("exception") for e in s.errors) for s in everyone)
    p95 = 1e3 * percentile(clicks, 0.95)
    exact = accepted == db_counts and len(told_in) == sum(db_counts)
    checks = {
        "counted exactly once": exact,
        "projector right within one refresh": late == 0 and final == sum(db_counts),
        "click p95 < 500 ms": p95 < 500,
        "0 lost": lost == 0,
        "no traceback shown": saw_traceback == 0,
    }
    lines = [
        f"{name}: {len(class_)} students; all pages after {run['joined']:.1f} s"
        + "".join(f"; {f}" for f in run["fault"]),
        f"  last outcome  {dict(last)}",
        f"  first click   {dict(first)}" if first != last else "",
        f"  counts        told in {accepted} = {len(told_in)}, database {db_counts} = "
        f"{sum(db_counts)}: accepted {len(told_in)}, refused with a message {refused}, "
        f"traceback {tracebacks}, lost {lost}; counted but not told in {extra}",
        f"  projector     {len(readings)} refreshes; lag from 'in' to counted p50 "
        f"{percentile(lags, 0.5):.2f} s, max {max(lags, default=float('nan')):.2f} s; "
        f"answers not counted within one refresh: {late}; last shows {final}",
        f"  click rerun   p50 {1e3 * percentile(clicks, 0.5):.0f} ms, p95 {p95:.0f} ms, max "
        f"{1e3 * max(clicks, default=float('nan')):.0f} ms ({len(clicks)} clicks); reconnections "
        f"{sum(s.reconnects for s in class_) + run['lecturer'].reconnects}, clicks in flight "
        f"then resent {sum(s.resent for s in class_)}",
        f"  pages shown   {dict(shown_errors) or 'no error'}; {saw_traceback} of the "
        f"{len(everyone)} pages showed a traceback (the projector: "
        f"{'yes' if any(e.startswith('exception') for e in run['lecturer'].errors) else 'no'}); "
        f"{sum(s.offered_again for s in class_)} students told 'in' were offered the question "
        "again later",
        f"  servers       {cpu:.1f} s of CPU for {runs} runs of the page, "
        f"{1e3 * cpu / runs:.0f} ms each (first pages, 5-s timers, picks, clicks, projector); "
        f"this load tool {run['client_cpu']:.1f} s",
        f"  machine       a fixed Playground run costs {reference:.1f} ms of CPU; load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after (2 cores)",
        f"  verdict       {'PASS' if all(checks.values()) else 'FAIL'} — "
        + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items()),
    ]
    return "\n".join(line for line in lines if line)


def scenario(name: str, students: int, reference: float) -> str:
    load = os.getloadavg()[0]
    if name == "sqlite":
        folder = tempfile.TemporaryDirectory(prefix="specviz-polls-")
        os.environ["SPECVIZ_POLLS_URL"] = url = f"sqlite:///{folder.name}/polls.sqlite"
        pin_self("1")  # the one server (inheriting that URL) is on core 0
        server = pinned_server("0")
        try:
            run, counts = _class(url, server.url, students, None, [server.process.pid])
        finally:
            server.stop()
            del os.environ["SPECVIZ_POLLS_URL"]
            folder.cleanup()
    else:
        pin_self("0-1")  # beside the replicas, as bench_replicas is
        with Replicas(count=3, postgres=True) as replicas:
            fault = {"shared": None, "kill": lambda: _kill(replicas),
                     "restart": lambda: restart_postgres(replicas.polls_url)}[name]  # fmt: skip
            run, counts = _class(replicas.polls_url, replicas.url, students, fault, replicas.pids)
    return report(name, run, counts, reference, (load, os.getloadavg()[0]))


def _class(db_url: str, url: str, students: int, fault, pids) -> tuple[dict, tuple[int, ...]]:
    """A room started in the database at ``db_url``, its class through ``url``; the database's
    count of each option once the class is over."""
    eng, key = rooms.connect(db_url), classroom.new_key()
    code = rooms.start_room(eng, key)
    run = asyncio.run(lecture(url, code, key, students, fault, pids))
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
    args = ap.parse_args(argv)
    reference = machine_reference_ms()
    for name in args.scenarios:
        students = args.sqlite_students if name == "sqlite" else args.students
        print(scenario(name, students, reference), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
