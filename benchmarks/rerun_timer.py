"""Time the server side of a Streamlit rerun under AppTest (shared by the page benchmarks).

A rerun's cost to the server is the time spent executing the page script (callbacks included).
It is timed inside Streamlit's script thread, by wrapping the function that executes the script,
so that AppTest's own polling is not counted.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from streamlit.runtime.scriptrunner import script_runner
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")

_script_seconds: list[float] = []
_exec = script_runner.exec_func_with_error_handling


def _timed_exec(func, ctx):
    start = time.perf_counter()
    try:
        return _exec(func, ctx)
    finally:
        _script_seconds.append(time.perf_counter() - start)


script_runner.exec_func_with_error_handling = _timed_exec


def timed_run(at: AppTest) -> float:
    """Run the app once; return the seconds its script took on the server."""
    _script_seconds.clear()
    at.run()
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return sum(_script_seconds)


def report(name: str, times: list[float]) -> None:
    """Print median, 90th percentile and best of ``times`` (seconds) in ms."""
    ms = sorted(t * 1e3 for t in times)
    print(
        f"{name:42s} median {statistics.median(ms):6.1f} ms   "
        f"p90 {ms[int(0.9 * (len(ms) - 1))]:6.1f} ms   min {ms[0]:6.1f} ms"
    )
