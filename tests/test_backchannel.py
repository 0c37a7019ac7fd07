"""A back channel that cannot hurt the class (specviz/ui/backchannel.py), over the websocket.

A real server (``streamlit run app.py``), a student's tab and an intruder's, both speaking
Streamlit's protocol as a browser does (the client of benchmarks/bench_classroom.py). Observed
without any timing: Streamlit's cache counters on ``/_stcore/metrics`` (a student's rerun of the
same state either hits the app's shared cache, ``page._cached``, or misses it and computes again),
a ``git`` first on the server's PATH that notes every call, the messages the intruder gets back
and the server's log. The same scenario on a server started with the development switch
(``--client.toolbarMode developer``) shows that each check can fail.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shlex
import urllib.request
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
import streamlit_server as ss
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.bench_classroom import TIMEOUT, Student, change_one, connect, run_once

# Each module fixture starts a server: keep this file's tests on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("backchannel")]

PAGE = "Monte_Carlo"  # a page whose figures and results all come from the shared cache

#: Every back message a tab could send that a student's tab does not need (the debug ones are
#: Streamlit's own development/e2e switches; the others reach specviz.ui.backchannel).
FOREIGN = {
    "clear_cache": BackMsg(clear_cache=True),
    "load_git_info": BackMsg(load_git_info=True),
    "set_run_on_save": BackMsg(set_run_on_save=True),
    "file_urls_request": BackMsg(file_urls_request={"request_id": "r1", "file_names": ["x.csv"]}),
    "backend_operation_request": BackMsg(
        backend_operation_request={"request_id": "r2", "deferred_file": {"file_id": "f"}}
    ),
    "debug_disconnect_websocket": BackMsg(debug_disconnect_websocket=True),
    "debug_shutdown_runtime": BackMsg(debug_shutdown_runtime=True),
}


T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: a worker that ran a Playwright test before keeps
    that library's event loop running in this thread, and asyncio.run refuses to nest in it."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@dataclass
class Server:
    url: str
    git_log: Path  # one line per git command the server ran
    process: ss.StreamlitServer

    def git_calls(self) -> list[str]:
        return self.git_log.read_text().splitlines()

    def lookups(self) -> tuple[int, int]:
        """Hits and misses of the app's shared cache (``specviz.ui.page._cached``) so far."""
        with urllib.request.urlopen(f"{self.url}/_stcore/metrics", timeout=10) as resp:
            text = resp.read().decode()
        counts = {"hit": 0, "miss": 0}
        for labels, value in re.findall(r"^cache_lookups_total\{([^}]*)\} (\d+)$", text, re.M):
            if 'cache="specviz.ui.page._cached"' in labels:
                counts[re.search(r'result="(\w+)"', labels)[1]] += int(value)
        return counts["hit"], counts["miss"]


def _serve(folder: Path, *args: str) -> Iterator[Server]:
    """A server with a fake ``git`` first on its PATH; one page opened, as a class's first tab
    does (the guard is armed by the first page run of the process)."""
    log = folder / "git.log"
    log.touch()
    fake = folder / "git"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {shlex.quote(str(log))}\nexit 1\n')
    fake.chmod(0o755)
    process = ss.StreamlitServer(extra_args=list(args))
    with pytest.MonkeyPatch.context() as env:  # the server copies the environment at its start
        env.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
        try:
            process.start()
        except ss.ServerStartError as exc:
            pytest.fail(str(exc), pytrace=False)
    try:
        server = Server(process.url, log, process)
        assert run(_visit(server.url)).errors == []
        yield server
    finally:
        process.stop()


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _serve(tmp_path_factory.mktemp("production"))


@pytest.fixture(scope="module")
def development(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _serve(tmp_path_factory.mktemp("development"), "--client.toolbarMode", "developer")


@asynccontextmanager
async def _tab(url: str) -> AsyncIterator:
    """A browser tab's websocket (bench_classroom's client), closed at the end."""
    ws = await connect(url)
    try:
        yield ws
    finally:
        await ws.close()


async def _visit(url: str) -> Student:
    student = Student(0)
    async with _tab(url) as ws:
        await run_once(ws, student, "", url)
    return student


async def _intrude(url: str, *messages: BackMsg) -> list[str]:
    """Send ``messages`` from a tab of one's own, then a heartbeat; the kinds of message received
    up to its acknowledgement. One socket's messages are handled in order, so every message
    before the heartbeat has been handled (or ignored) by then."""
    async with _tab(url) as ws:
        for message in (*messages, BackMsg(app_heartbeat=True)):
            await ws.send(message.SerializeToString())
        kinds: list[str] = []
        while not kinds or kinds[-1] != "heartbeat_ack":
            reply = ForwardMsg()
            reply.ParseFromString(await asyncio.wait_for(ws.recv(), TIMEOUT))
            kinds.append(reply.WhichOneof("type"))
        return kinds


def _lesson(server: Server, *foreign: BackMsg) -> tuple[Student, int, int, list[str]]:
    """A student opens the page; an intruder sends ``foreign``; the student reruns the same
    state. The student, the cache's new hits and misses of that rerun, the intruder's replies."""

    async def scenario() -> tuple[Student, int, int, list[str]]:
        student = Student(1)
        async with _tab(server.url) as ws:
            await run_once(ws, student, PAGE, server.url)
            hits, misses = server.lookups()
            kinds = await _intrude(server.url, *foreign)
            await run_once(ws, student, PAGE, server.url)
            hits_after, misses_after = server.lookups()
        return student, hits_after - hits, misses_after - misses, kinds

    return run(scenario())


def test_a_foreign_clear_cache_leaves_the_class_cached(production: Server) -> None:
    student, hits, misses, kinds = _lesson(production, FOREIGN["clear_cache"])
    assert student.errors == []
    assert (misses, kinds) == (0, ["heartbeat_ack"])
    assert hits > 0  # the rerun took every result from the cache


def test_load_git_info_runs_no_git(production: Server) -> None:
    calls = production.git_calls()
    kinds = run(_intrude(production.url, FOREIGN["load_git_info"]))
    assert production.git_calls() == calls
    assert kinds == ["heartbeat_ack"]


def test_every_other_foreign_message_is_ignored(production: Server) -> None:
    kinds = run(_intrude(production.url, *FOREIGN.values()))
    # No upload URLs, no backend answer, the socket not closed, the server not shut down.
    assert kinds == ["heartbeat_ack"]
    with urllib.request.urlopen(f"{production.url}/_stcore/health", timeout=10) as resp:
        assert resp.read() == b"ok"
    log = production.process.output()
    for kind in FOREIGN:
        if not kind.startswith("debug_"):
            assert f"Ignored a '{kind}' back message" in log
    assert "Client tried to shut down runtime when not in development mode" in log


def test_a_student_still_reruns_and_changes_a_control(production: Server) -> None:
    async def scenario() -> tuple[Student, str | None, int]:
        student = Student(2)
        async with _tab(production.url) as ws:
            await run_once(ws, student, PAGE, production.url)
            await run_once(ws, student, PAGE, production.url)  # the R key: a plain rerun
            misses = production.lookups()[1]
            moved = change_one(student, ("w.n",), random.Random(3))
            await run_once(ws, student, PAGE, production.url)
        return student, moved, production.lookups()[1] - misses

    student, moved, misses = run(scenario())
    assert (student.errors, moved) == ([], "w.n")
    assert misses > 0  # the new number of draws was computed


def test_the_development_switch_lets_them_through(development: Server) -> None:
    calls = development.git_calls()
    student, _hits, misses, kinds = _lesson(
        development,
        FOREIGN["clear_cache"],
        FOREIGN["load_git_info"],
        FOREIGN["file_urls_request"],
    )
    assert student.errors == []
    assert misses > 0  # the same state computed again: the caches were cleared
    assert len(development.git_calls()) > len(calls)
    assert "file_urls_response" in kinds
