"""Server-side rerun time of each page after warm-up, measured with Streamlit's AppTest.

A rerun is what a slider release costs the server: the time spent executing the page script
(callbacks included), timed inside Streamlit's script thread so that AppTest's own polling is not
counted. "new state" moves a slider to a value not seen
before (every chart is rebuilt); "seen state" returns to an earlier one (charts come from the
cross-session cache, as when a class loads the same preset).

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_pages``.
"""

from __future__ import annotations

import warnings

from streamlit.testing.v1 import AppTest

from benchmarks.rerun_timer import APP, report, timed_run

ROUNDS = 20


def bench_playground() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/1_Playground.py").run()
    for _ in range(3):  # warm-up: imports, first figures
        at.slider(key="pg.p0").set_value(41)
        timed_run(at)
    fresh, seen = [], []
    for i in range(ROUNDS):
        at.slider(key="pg.p0").set_value(50 + i)  # a weight not used before: new figures
        fresh.append(timed_run(at))
        at.slider(key="pg.p0").set_value(41)  # back to a state already drawn: cached figures
        seen.append(timed_run(at))
    report("Playground, slider to a new state", fresh)
    report("Playground, slider to a seen state", seen)


def bench_one_draw() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/2_One_draw.py").run()
    for _ in range(2):
        timed_run(at)
    fresh = []
    for _ in range(ROUNDS):
        at.button[0].click()  # "New draws (next seed)": a story not drawn before
        fresh.append(timed_run(at))
    report("One draw, new story (next seed)", fresh)


def bench_landing() -> None:
    # The quality moves in the browser; the server runs Home once a gesture, with its new value
    # in the link: a run of each quality through the link.
    new, seen = [], []
    for times in (new, seen):
        for value in range(0, 101, 5):
            at = AppTest.from_file(APP, default_timeout=60)
            at.query_params["quality"] = str(value)
            at.run()
            times.append(timed_run(at))
    report("Home, a run at a quality (first time)", new)
    report("Home, a run at a quality (again)", seen)


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    bench_landing()
    bench_playground()
    bench_one_draw()
