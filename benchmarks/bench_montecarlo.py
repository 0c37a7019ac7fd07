"""Server-side time to produce the Monte Carlo and Bug zoo pages, measured with Streamlit's AppTest.

As in ``bench_pages.py``, the time is that of the page script (callbacks included) inside
Streamlit's script thread, so AppTest's own polling is not counted.

- "cold": a setting no session has drawn yet (a new seed each round), so the runs are sampled
  and every chart is built — what the first student on a setting pays;
- "cache hit": the same setting again (another student of the class, or a rerun) — the runs and
  the charts come from the cross-session caches.

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_montecarlo``.
"""

from __future__ import annotations

import statistics
import time
import warnings
from pathlib import Path

from streamlit.runtime.scriptrunner import script_runner
from streamlit.testing.v1 import AppTest

ROUNDS = 10
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


def _timed(at: AppTest) -> float:
    """Run the app once; return the seconds its script took on the server."""
    _script_seconds.clear()
    at.run()
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return sum(_script_seconds)


def _page(script: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.query_params.update(query or {})
    at.switch_page(script).run()
    return at


def bench_monte_carlo(n: int) -> None:
    at = _page("pages/3_Monte_Carlo.py", {"n": str(n)})
    assert at.select_slider(key="mc.n_slider").value == n
    for seed in (1000, 1001):  # warm-up: imports, first figures
        at.number_input(key="ui.seed").set_value(seed)
        _timed(at)
    cold, hit = [], []
    for i in range(ROUNDS):
        at.number_input(key="ui.seed").set_value(2000 + i)  # never drawn: sample + build
        cold.append(_timed(at))
        hit.append(_timed(at))  # the same setting again: both caches hit
    report(f"Monte Carlo, N = {n:,}, cold", cold)
    report(f"Monte Carlo, N = {n:,}, cache hit", hit)


def bench_bug_zoo() -> None:
    at = _page("pages/4_Bug_zoo.py")
    for seed in (1000, 1001):
        at.number_input(key="ui.seed").set_value(seed)
        _timed(at)
    cold, hit = [], []
    for i in range(ROUNDS):
        at.number_input(key="ui.seed").set_value(3000 + i)
        cold.append(_timed(at))
        hit.append(_timed(at))
    report("Bug zoo, cold", cold)
    report("Bug zoo, cache hit", hit)


def report(name: str, times: list[float]) -> None:
    ms = sorted(t * 1e3 for t in times)
    print(
        f"{name:40s} median {statistics.median(ms):6.1f} ms   "
        f"p90 {ms[int(0.9 * (len(ms) - 1))]:6.1f} ms   min {ms[0]:6.1f} ms"
    )


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    bench_monte_carlo(10**6)
    bench_monte_carlo(10**9)
    bench_bug_zoo()
