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

import warnings

from streamlit.testing.v1 import AppTest

from benchmarks.rerun_timer import APP, report, timed_run

ROUNDS = 10


def _page(script: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.query_params.update(query or {})
    at.switch_page(script).run()
    return at


def bench_monte_carlo(n: int) -> None:
    at = _page("pages/3_Monte_Carlo.py", {"n": str(n)})
    assert at.select_slider(key="w.n").value == n
    for seed in (1000, 1001):  # warm-up: imports, first figures
        at.number_input(key="ui.seed").set_value(seed)
        timed_run(at)
    cold, hit = [], []
    for i in range(ROUNDS):
        at.number_input(key="ui.seed").set_value(2000 + i)  # never drawn: sample + build
        cold.append(timed_run(at))
        hit.append(timed_run(at))  # the same setting again: both caches hit
    report(f"Monte Carlo, N = {n:,}, cold", cold)
    report(f"Monte Carlo, N = {n:,}, cache hit", hit)


def bench_bug_zoo() -> None:
    at = _page("pages/4_Bug_zoo.py")
    for seed in (1000, 1001):
        at.number_input(key="ui.seed").set_value(seed)
        timed_run(at)
    cold, hit = [], []
    for i in range(ROUNDS):
        at.number_input(key="ui.seed").set_value(3000 + i)
        cold.append(timed_run(at))
        hit.append(timed_run(at))
    report("Bug zoo, cold", cold)
    report("Bug zoo, cache hit", hit)


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    bench_monte_carlo(10**6)
    bench_monte_carlo(10**9)
    bench_bug_zoo()
