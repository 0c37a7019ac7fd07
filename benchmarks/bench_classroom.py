"""A class of 40 on one server: every student releases a Playground slider at the same moment.

Starts ``streamlit run app.py`` on a loopback port, opens 40 sessions over Streamlit's own
websocket protocol (what a browser does, minus the browser), loads the Playground in each, then
makes all 40 send a slider change at once and times each one until its rerun has finished on the
server. Two rounds: every student on a different value (no figure is cached), then every student
on the same value (the class follows the lecturer: figures are shared through the cache).

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_classroom [students]``.
It only talks to 127.0.0.1 and stops the server it started.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.streamlit_server import StreamlitServer

STUDENTS = 40
SLIDER_KEY = "pg.p0"
TIMEOUT = 120.0


class Student:
    """One browser tab's worth of protocol: a websocket session on the Playground."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws = None
        self.slider_id: str | None = None

    async def open(self) -> None:
        self.ws = await websockets.connect(
            self.url, subprotocols=["streamlit"], max_size=None, open_timeout=TIMEOUT
        )
        await self.rerun(None)

    async def rerun(self, value: float | None) -> float:
        """Send a rerun (with the slider at ``value``); return seconds until script_finished."""
        msg = BackMsg()
        state = msg.rerun_script
        state.page_name = "Playground"
        if value is not None:
            widget = state.widget_states.widgets.add()
            widget.id = self.slider_id
            widget.double_array_value.data.append(value)
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), TIMEOUT)
            forward = ForwardMsg()
            forward.ParseFromString(raw)
            kind = forward.WhichOneof("type")
            if kind == "delta" and self.slider_id is None:
                element = forward.delta.new_element
                if element.WhichOneof("type") == "slider" and element.slider.id.endswith(
                    SLIDER_KEY
                ):
                    self.slider_id = element.slider.id
            if kind == "script_finished":
                return time.perf_counter() - start

    async def close(self) -> None:
        await self.ws.close()


def report(name: str, seconds: list[float]) -> None:
    ms = sorted(1e3 * s for s in seconds)
    print(
        f"{name:44s} median {statistics.median(ms):7.0f} ms   "
        f"p90 {ms[int(0.9 * (len(ms) - 1))]:7.0f} ms   slowest {ms[-1]:7.0f} ms"
    )


async def classroom(base: str, size: int) -> None:
    url = base.replace("http://", "ws://") + "/_stcore/stream"
    students = [Student(url) for _ in range(size)]
    for student in students:  # they arrive over a few seconds, not in the same millisecond
        await student.open()
    assert all(s.slider_id for s in students), "the Playground's slider was not found"
    print(f"{size} sessions on the Playground")

    # Everyone releases a slider at once, each on a weight no one else chose: nothing cached.
    times = await asyncio.gather(*(s.rerun(50 + i % 50) for i, s in enumerate(students)))
    report("all at once, each a different state", times)
    # The class follows the lecturer: everyone moves to the same value (figures shared).
    times = await asyncio.gather(*(s.rerun(30) for s in students))
    report("all at once, the same state", times)
    # One student alone, for comparison.
    alone = [await students[0].rerun(value) for value in (31, 32, 33, 34, 35)]
    report("one student alone", alone)
    await asyncio.gather(*(s.close() for s in students))


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (Linux)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    server = StreamlitServer().start()
    print(f"server memory after start: {rss_mb(server.process.pid):.0f} MB")
    try:
        asyncio.run(classroom(server.url, int(sys.argv[1]) if len(sys.argv) > 1 else STUDENTS))
        print(f"server memory after the class: {rss_mb(server.process.pid):.0f} MB")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
