"""How long the core's heaviest public functions take at the sizes specviz/limits.py allows.

Issue 16 asks every public function to return within 1 s at every size the limits allow; the
tests check what the limits refuse (tests/test_fuzz.py, tests/test_stats.py), this script
measures what they let through. Each call runs ``--repeat`` times in this process after one
warm-up call (so scipy's import, paid once per server process, is not counted); the table shows
the median wall time and the median CPU time of the process (on a shared machine the CPU time
is the steadier of the two).

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_limits``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from specviz.limits import (
    MAX_BAND_SIZES,
    MAX_CHECKPOINTS,
    MAX_COUNT_DRAWS,
    MAX_VOCAB,
    PER_DRAW_MAX,
    ZOO_N_MAX,
)
from specviz.one_token import normalize, step
from specviz.runs import monte_carlo, noise_band
from specviz.stats import detectable_from, expected_tv_band
from specviz.zoo import zoo_comparison

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
#: The largest vocabulary, with a distinct probability for every word (the band's worst case).
ZIPF = normalize(1.0 / np.arange(1, MAX_VOCAB + 1))
RANDOM = normalize(np.random.default_rng(0).random(MAX_VOCAB))
#: Twelve words, eleven of them rare: the band's edges go on the lattice of possible TVs at
#: every size (2**12 offsets a size).
SKEWED = normalize(np.r_[1.0, np.full(11, 1e-6)])
WORDS = f"{MAX_VOCAB:,}"
SIZES = np.unique(np.geomspace(1, MAX_COUNT_DRAWS, MAX_BAND_SIZES).astype(np.int64))

CASES: dict[str, Callable[[], object]] = {
    f"noise_band: Zipf law, {WORDS} words, 60 sizes": lambda: noise_band(ZIPF, MAX_COUNT_DRAWS),
    f"noise_band: random law, {WORDS} words, 60 sizes": lambda: noise_band(RANDOM, 10**9),
    "expected_tv_band: 4 words, 1,000 sizes": lambda: expected_tv_band(P, SIZES),
    "expected_tv_band: 12 words on the lattice, 1,000 sizes": lambda: expected_tv_band(
        SKEWED, np.arange(1, MAX_BAND_SIZES + 1)
    ),
    f"detectable_from: Zipf law, {WORDS} words, tv = 0.1": lambda: detectable_from(ZIPF, 0.1),
    f"detectable_from: Zipf law, {WORDS} words, tv = 2e-12": lambda: detectable_from(ZIPF, 2e-12),
    f"detectable_from: random law, {WORDS} words, tv = 1e-3": lambda: detectable_from(RANDOM, 1e-3),
    "detectable_from: 4 words, tv = 2e-12": lambda: detectable_from(P, 2e-12),
    "detectable_from: 12 words on the lattice, tv = 1e-6": lambda: detectable_from(SKEWED, 1e-6),
    "monte_carlo: 4 words, N = 10**15, 100,000 checkpoints": lambda: monte_carlo(
        P, Q, MAX_COUNT_DRAWS, 3, num=MAX_CHECKPOINTS
    ),
    "monte_carlo: 4 words, N = 10**6 drawn one by one": lambda: monte_carlo(P, Q, PER_DRAW_MAX, 3),
    f"monte_carlo: {WORDS} words, N = 10**15": lambda: monte_carlo(
        ZIPF, RANDOM, MAX_COUNT_DRAWS, 3
    ),
    "zoo_comparison: 4 words, N up to 10**8": lambda: zoo_comparison(
        P, Q, "resample_from_p", 3, ZOO_N_MAX
    ),
    f"zoo_comparison: {WORDS} words, N up to 10**8": lambda: zoo_comparison(
        ZIPF, RANDOM, "resample_from_p", 3, ZOO_N_MAX
    ),
    f"step: {WORDS} words": lambda: step(ZIPF, RANDOM),
}


def measure(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeat`` calls, after one warm-up call."""
    call()
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per case")
    args = parser.parse_args()
    print(f"{'call':<62} {'wall':>8} {'cpu':>8}")
    for name, call in CASES.items():
        wall, cpu = measure(call, args.repeat)
        flag = "  > 1 s" if wall > 1.0 else ""
        print(f"{name:<62} {wall * 1e3:>6.0f}ms {cpu * 1e3:>6.0f}ms{flag}", flush=True)
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
