"""Many words per call: predicted against measured words per call and speed-up for every pair of
the page, the engine's speed, and the page's server-side rerun time.

- For each pair (temperature 1, γ = 4, c = 0.1): α, the i.i.d. formula, the prediction from the
  two models (no simulation), and words per call measured over 1,000 texts of 500 words (± two
  standard errors), with the speed-ups of the cost model.
- The engine: words per second of one run and of a batch.
- The page under AppTest: a rerun that changes nothing (warm), γ moved to a state already seen
  (every result cached), and γ / the seed moved to states not seen before (new run, new charts).

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_decoding``.
"""

from __future__ import annotations

import time
import warnings

from streamlit.testing.v1 import AppTest

from benchmarks.rerun_timer import APP, report, timed_run
from specviz.decoding import decode, decode_batch
from specviz.language import PAIR_KEYS, PAIR_TITLES, compiled_pair, toy_curve

GAMMA, COST, TEMPERATURE = 4, 0.1, 1.0
RUNS, WORDS = 1_000, 500
ROUNDS = 20


def bench_predictions() -> None:
    print(f"Temperature {TEMPERATURE:g}, γ = {GAMMA}, c = {COST:g}; measured: {RUNS:,} texts of "
          f"{WORDS} words, ± two standard errors")  # fmt: skip
    print(
        f"{'pair':22s} {'α':>6s} {'i.i.d.':>7s} {'predicted':>9s} {'measured':>16s} "
        f"{'S predicted':>11s} {'S measured':>10s}"
    )
    for key in PAIR_KEYS:
        prediction = toy_curve(key, TEMPERATURE)[GAMMA]
        batch = decode_batch(compiled_pair(key, TEMPERATURE), gamma=GAMMA, n_tokens=WORDS,
                             runs=RUNS, seed=1)  # fmt: skip
        measured, error = batch.words_per_call, batch.words_per_call_error
        print(
            f"{PAIR_TITLES[key]:22s} {prediction.alpha:6.3f} {prediction.iid:7.3f} "
            f"{prediction.long_run:9.3f} {measured:9.3f} ± {2 * error:.3f} "
            f"{prediction.speedup(COST):10.2f}× {measured / (GAMMA * COST + 1):9.2f}×"
        )


def bench_engine() -> None:
    pair = compiled_pair("ngram", TEMPERATURE)
    t0 = time.perf_counter()
    decode(pair, gamma=GAMMA, n_tokens=20_000, seed=1)
    single = 20_000 / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    decode_batch(pair, gamma=GAMMA, n_tokens=200, runs=2_000, seed=1)
    batch = 400_000 / (time.perf_counter() - t0)
    print(f"engine (n-gram pair): one run {single:,.0f} words/s, batch {batch:,.0f} words/s")


def bench_page() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("pages/5_Many_words_per_call.py").run()
    for gamma in (3, 4):  # warm-up: imports, the first results and figures
        at.select_slider(key="w.gamma").set_value(gamma)
        timed_run(at)
    warm = [timed_run(at) for _ in range(ROUNDS)]
    seen = []
    for i in range(ROUNDS):
        at.select_slider(key="w.gamma").set_value(3 if i % 2 else 4)
        seen.append(timed_run(at))
    fresh_gamma = []
    for gamma in (1, 2, 5, 6, 7, 8):  # γ values not drawn yet: new run, charts, table rows
        at.select_slider(key="w.gamma").set_value(gamma)
        fresh_gamma.append(timed_run(at))
    fresh_seed = []
    (button,) = [b for b in at.button if b.label == "New text"]
    for _ in range(ROUNDS):
        button.click()
        fresh_seed.append(timed_run(at))
    report("Decoding page, rerun, nothing changed", warm)
    report("Decoding page, γ to a state already seen", seen)
    report("Decoding page, γ to a new state", fresh_gamma)
    report("Decoding page, new text (next seed)", fresh_seed)


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    bench_predictions()
    bench_engine()
    bench_page()
