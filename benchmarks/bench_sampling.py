"""Sampler throughput: per-draw speculative sampling against numpy's own categorical sampler, and
the count-level sampler at n = 10**12.

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_sampling``. Prints the best
of several repeats (the least disturbed by whatever else the machine is doing).
"""

from __future__ import annotations

import time

import numpy as np

from specviz import sample_counts, speculative_sample

V = 64
N = 4_000_000
N_COUNTS = 10**12
REPEATS = 5


def best_time(fn, repeats: int = REPEATS) -> float:
    """Best wall time of ``repeats`` calls, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(V))
    q = rng.dirichlet(np.ones(V))
    gen = np.random.default_rng(1)

    t_spec = best_time(lambda: speculative_sample(p, q, N, seed=gen))
    t_choice = best_time(lambda: gen.choice(V, N, p=p))
    t_counts = best_time(lambda: sample_counts(p, q, N_COUNTS, seed=gen), repeats=50)

    print(f"vocabulary V = {V}, n = {N:,}")
    print(f"speculative_sample : {N / t_spec / 1e6:8.1f} M draws/s  ({t_spec * 1e3:.1f} ms)")
    print(f"Generator.choice   : {N / t_choice / 1e6:8.1f} M draws/s  ({t_choice * 1e3:.1f} ms)")
    print(f"ratio (time spec / time choice): {t_spec / t_choice:.2f}x   (target: <= 2.5x)")
    print(f"sample_counts n = 10^12 : {t_counts * 1e3:.3f} ms   (target: < 5 ms)")


if __name__ == "__main__":
    main()
