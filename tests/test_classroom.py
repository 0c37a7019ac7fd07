"""A small lecture behind a real nginx, with a replica dying in the middle of it.

Two replicas of the app behind nginx (deploy/replicas.py, the same configuration as a
deployment), and a class of 10 simulated students (benchmarks/bench_classroom.py: Streamlit's
websocket protocol, one tab each) deep-linked to the Playground, each moving a weight every ~1.5 s
for 10 s. Halfway through, replica 0 is killed (SIGKILL). Its students' sockets close; they
reconnect through nginx to the other replica as a browser does. Checked: every student got a
page, no run failed or showed an exception, every student of the dead replica came back and kept
working, and the students of the other replica never noticed.

And a replica that dies before its students' first page (no nginx needed): a relay in front of one
server drops every student's first socket once the page was asked for; each student opens the
link again, as a browser does, and gets the page; through a relay that answers late, changes are
timed from when they were due (open loop). And Streamlit's frontend through nginx: from disk,
gzipped for a browser that accepts it, with Streamlit's own types and cache headers.

The test installs nothing: nginx comes from Debian (`apt-get install -y nginx`, in .ci/run).
Without it the test is skipped, except under CI=true, where that is a failure. ~20 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import itertools
import re
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest
import websockets
from conftest import _skip_or_fail
from streamlit_server import StreamlitServer

from benchmarks.bench_classroom import ClassPlan, ClassResult, connect, run_class_async, summary
from deploy.replicas import Replicas, find_nginx

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("replicas")]  # one nginx class at a time

STUDENTS = 10
SECONDS = 10.0
KILL_AT = 5.0


async def _lecture(replicas: Replicas) -> tuple[ClassResult, int, float]:
    plan = ClassPlan(page="Playground", students=STUDENTS, seconds=SECONDS, every=1.5, jitter=0.5)
    start = time.perf_counter()
    task = asyncio.create_task(run_class_async(plan, replicas.url))
    await asyncio.sleep(KILL_AT)
    held = replicas.sessions(0)
    killed_at = time.perf_counter() - start
    replicas.kill(0)
    return await task, held, killed_at


@pytest.fixture(scope="module")
def lecture() -> tuple[ClassResult, int, float]:
    """The class, run once for this module's tests: (result, sessions replica 0 held, kill time)."""
    if find_nginx() is None:
        _skip_or_fail("no nginx (apt-get install -y nginx)")
    with Replicas(count=2) as replicas:
        try:
            # A thread of its own: the browser tests' Playwright keeps an event loop running
            # in this thread for the whole session, and asyncio.run refuses to nest in it.
            with ThreadPoolExecutor(max_workers=1) as pool:
                return pool.submit(asyncio.run, _lecture(replicas)).result()
        except BaseException:
            print(replicas.logs())
            raise


def test_every_student_gets_a_page_and_no_run_fails(lecture) -> None:
    result, _, _ = lecture
    numbers = summary(result)
    errors = [e for s in result.students for e in s.errors]
    assert not errors, errors[:5]
    assert numbers["all_first_pages_s"] < 30, numbers
    assert all(s.reruns for s in result.students), "a student never got a rerun through"
    assert numbers["rerun_p95_ms"] < 5_000, numbers


def test_the_dead_replicas_students_reconnect_and_the_others_never_notice(lecture) -> None:
    result, held, _ = lecture
    assert held >= 1, "round robin left replica 0 without a student: nothing was tested"
    moved = [s for s in result.students if s.reconnects]
    stayed = [s for s in result.students if not s.reconnects]
    assert len(moved) == held, (len(moved), held)
    assert all(s.reconnects == 1 for s in moved)
    for student in moved:  # back to work after the failover: a change went through later
        assert any(t > student.reconnect_at[0] for t in student.rerun_at), student.index
    # The other replica's students: no reconnection, no error, every change shown as made.
    assert stayed, "every student was on the killed replica"
    assert all(not s.errors and not s.lost for s in stayed), [s.lost for s in stayed]


def test_the_first_change_after_a_failover_is_kept(lecture) -> None:
    result, _, _ = lecture
    lost = [f"student {s.index}: {change}" for s in result.students for change in s.lost]
    assert not lost, lost


# ----------------------------------------- a relay in front of one server: a crash, a slow server


@dataclass
class Relay:
    """Between the students and the server at ``url``: with ``drop``, each student's first
    socket is cut (no close frame: a crash) once its page was asked for; every message a
    student sends reaches the server ``delay`` s late (a server that falls behind)."""

    url: str
    drop: bool = False
    delay: float = 0.0
    dropped: set[bytes] = field(default_factory=set)

    async def serve(self, client) -> None:
        asked = await client.recv()
        if self.drop and asked not in self.dropped:  # a student's first request, every try
            self.dropped.add(asked)
            client.transport.abort()
            return
        async with await connect(self.url) as server:

            async def pipe(source, sink, delay: float) -> None:
                with contextlib.suppress(websockets.ConnectionClosed):
                    async for message in source:
                        await asyncio.sleep(delay)
                        await sink.send(message)

            await asyncio.sleep(self.delay)
            await server.send(asked)
            pipes = [
                asyncio.create_task(pipe(client, server, self.delay)),
                asyncio.create_task(pipe(server, client, 0.0)),
            ]
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
            for task in pipes:
                task.cancel()

    def run_class(self, plan: ClassPlan) -> ClassResult:
        async def through_the_relay() -> ClassResult:
            async with websockets.serve(
                self.serve, "127.0.0.1", 0, subprotocols=["streamlit"], max_size=None
            ) as relay:
                port = relay.sockets[0].getsockname()[1]
                return await run_class_async(plan, f"http://127.0.0.1:{port}")

        with ThreadPoolExecutor(max_workers=1) as pool:  # see lecture(): a thread of its own
            return pool.submit(asyncio.run, through_the_relay()).result()


@pytest.fixture(scope="module")
def server() -> Iterator[StreamlitServer]:
    with StreamlitServer() as started:
        yield started


def test_a_student_whose_replica_dies_before_the_first_page_opens_it_again(server) -> None:
    relay = Relay(server.url, drop=True)
    # Own seeds: each student's first request differs from the others' (and not between tries).
    plan = ClassPlan(
        page="Playground", students=4, seconds=3.0, every=1.0, jitter=0.2, own_seed=True
    )
    result = relay.run_class(plan)
    assert len(relay.dropped) == 4
    errors = [e for s in result.students for e in s.errors]
    assert not errors, errors[:5]
    assert all(s.first_page is not None and s.reconnects == 1 for s in result.students)


def test_changes_are_timed_from_when_they_were_due(server) -> None:
    """Changes due every 0.2 s, each answered at least 0.5 s after it was sent: the student falls
    further behind with every change, and each one's time says so (open loop). Timed from its
    sending, as before, each would take about the same. The bound holds on any machine: a
    slower one only answers later."""
    every, delay = 0.2, 0.5
    plan = ClassPlan(page="One_draw", students=1, seconds=3.0, every=every, jitter=0.0)
    student = Relay(server.url, delay=delay).run_class(plan).students[0]
    assert not student.errors, student.errors
    assert len(student.reruns) >= 3, "the first page came too late for any change"
    for before, after in itertools.pairwise(student.reruns):
        assert after - before >= delay - every - 0.01, student.reruns


# ------------------------------------------------------------------- the frontend behind nginx


def _get(url: str, gzipped: bool) -> tuple[bytes, dict[str, str]]:
    headers = {"Accept-Encoding": "gzip"} if gzipped else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
        return r.read(), {k.lower(): v for k, v in r.headers.items()}


def test_nginx_sends_streamlits_frontend_gzipped_with_its_cache_headers() -> None:
    if find_nginx() is None:
        _skip_or_fail("no nginx (apt-get install -y nginx)")
    with Replicas(count=1) as replicas:
        page, _ = _get(f"{replicas.url}/Playground", gzipped=False)
        files = re.findall(r'(?:src|href)="\./(static/[^"]+)"', page.decode())
        assert any(f.endswith(".js") for f in files) and any(f.endswith(".css") for f in files)
        for name in files:
            plain, streamlit = _get(f"{replicas.replicas[0].url}/{name}", gzipped=True)
            packed, nginx = _get(f"{replicas.url}/{name}", gzipped=True)
            unpacked, _ = _get(f"{replicas.url}/{name}", gzipped=False)
            assert "content-encoding" not in streamlit  # what Streamlit sends: uncompressed
            assert nginx["cache-control"] == streamlit["cache-control"], name
            assert nginx["content-type"] == streamlit["content-type"], name
            assert unpacked == plain, name  # a browser without gzip gets the file itself
            if nginx.get("content-encoding") == "gzip":
                assert gzip.decompress(packed) == plain and len(packed) < len(plain), name
            else:  # a file gzip does not make smaller (a font, a one-line script)
                assert packed == plain, name
                assert len(plain) < 1000 or name.endswith(".woff2"), name
