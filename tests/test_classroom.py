"""A small lecture behind a real nginx, with a replica dying in the middle of it.

Two replicas of the app behind nginx (deploy/replicas.py, the same configuration as a
deployment), and a class of 10 simulated students (benchmarks/bench_classroom.py: Streamlit's
websocket protocol, one tab each) deep-linked to the Playground, each moving a weight every ~1.5 s
for 10 s. Halfway through, replica 0 is killed (SIGKILL). Its students' sockets close; they
reconnect through nginx to the other replica as a browser does. Checked: every student got a
page, no run failed or showed an exception, every student of the dead replica came back and kept
working, and the students of the other replica never noticed.

The test installs nothing: nginx comes from Debian (`apt-get install -y nginx`, in .ci/run).
Without it the test is skipped, except under CI=true, where that is a failure. ~20 s.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import _skip_or_fail

from benchmarks.bench_classroom import ClassPlan, ClassResult, run_class_async, summary
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
