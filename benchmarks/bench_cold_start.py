"""Cold start of each page: a fresh server, then one session deep-linked to that page.

What the first student after a server (re)start pays: the server's start until ``/_stcore/health``
answers, then the first run of the page's script — its imports (plotly, altair, scipy where the
page uses it, the core) and its first figures — timed over Streamlit's websocket protocol from
the request to ``script_finished``, as a browser opening the link would see it (minus drawing).

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_cold_start [rounds]``.
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
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
