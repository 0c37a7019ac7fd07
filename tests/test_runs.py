"""Monte Carlo runs (specviz.runs) and the Monte Carlo page's link parameter (links.RUNS).

Exact identities on the counts, the laws of both samplers checked statistically with fixed seeds
(tolerances stated next to each check), the noise band the page draws, and the share-link parser
of the number of runs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from specviz.limits import BAND_LEVEL, N_CHOICES, PATHS, PER_DRAW_MAX
from specviz.links import RUNS, format_count
from specviz.one_token import total_variation
from specviz.runs import (
    COUNT_LEVEL,
    PER_DRAW,
    monte_carlo,
    monte_carlo_paths,
    noise_band,
)
from specviz.sampling import sample_counts, speculative_sample
from specviz.stats import chi_square_gof, expected_tv_band, log_checkpoints

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
SEED = 7
TOL = 1e-12
DEFAULT_N = RUNS.default


@pytest.mark.parametrize("n", [1, 10, 1000, PER_DRAW_MAX, PER_DRAW_MAX + 1, 10**9])
def test_run_counts_are_consistent(n: int) -> None:
    run = monte_carlo(P, Q, n, SEED)
    c = run.counts
    assert run.method == (PER_DRAW if n <= PER_DRAW_MAX else COUNT_LEVEL)
    assert c.output_counts.sum() == c.draft_counts.sum() == n
    np.testing.assert_array_equal(c.output_counts, c.accepted_counts + c.residual_counts)
    assert (c.accepted_counts >= 0).all() and (c.residual_counts >= 0).all()
    assert (c.accepted_counts <= c.draft_counts).all()  # only proposals can be accepted
    # The bucket holds max(0, p - q): nothing comes from it where p <= q (floor, bed).
    np.testing.assert_array_equal(c.residual_counts[P <= Q], 0)
    # The path ends at this run's counts, and its TV is the TV of the counts at each checkpoint.
    np.testing.assert_array_equal(run.path.checkpoints, log_checkpoints(n))
    np.testing.assert_array_equal(run.path.counts[-1], c.output_counts)
    np.testing.assert_array_equal(run.path.counts.sum(axis=1), run.path.checkpoints)
    for cp, row, tv in zip(run.path.checkpoints, run.path.counts, run.path.tv, strict=True):
        assert tv == pytest.approx(total_variation(row / cp, P), abs=TOL)
    gof = chi_square_gof(c.output_counts, P)
    assert run.gof.dof == gof.dof
    assert run.gof.statistic == pytest.approx(gof.statistic, rel=1e-9)
    assert run.gof.p_value == pytest.approx(gof.p_value, rel=1e-9)
    assert run.min_expected == pytest.approx(n * 0.1)


def test_same_seed_same_run_and_paths_use_consecutive_seeds() -> None:
    for n in (1000, 10**8):
        a, b = monte_carlo(P, Q, n, SEED), monte_carlo(P, Q, n, SEED)
        np.testing.assert_array_equal(a.path.counts, b.path.counts)
        np.testing.assert_array_equal(a.counts.accepted_counts, b.counts.accepted_counts)
    runs = monte_carlo_paths(P, Q, 1000, SEED, paths=3)
    assert [r.seed for r in runs] == [SEED, SEED + 1, SEED + 2]
    np.testing.assert_array_equal(runs[0].path.counts, monte_carlo(P, Q, 1000, SEED).path.counts)
    assert not np.array_equal(runs[0].counts.output_counts, runs[1].counts.output_counts)
    assert len(monte_carlo_paths(P, Q, 10, SEED)) == PATHS


def test_per_draw_run_tallies_the_core_samplers_draws() -> None:
    n = 20_000
    draws = speculative_sample(P, Q, n, SEED)
    c = monte_carlo(P, Q, n, SEED).counts
    np.testing.assert_array_equal(c.output_counts, np.bincount(draws.output, minlength=4))
    np.testing.assert_array_equal(c.draft_counts, np.bincount(draws.draft, minlength=4))
    np.testing.assert_array_equal(
        c.accepted_counts, np.bincount(draws.draft[draws.accepted], minlength=4)
    )
    # The path's counts at each checkpoint N are those of the first N draws.
    path = monte_carlo(P, Q, n, SEED).path
    for cp, row in zip(path.checkpoints, path.counts, strict=True):
        np.testing.assert_array_equal(row, np.bincount(draws.output[:cp], minlength=4))


@pytest.mark.parametrize("n", [10**7, 10**9])
def test_count_level_run_has_the_procedures_means(n: int) -> None:
    """Each count is a sum of n Bernoulli(x) indicators: within 6 standard deviations of n·x."""
    c = monte_carlo(P, Q, n, SEED).counts
    for counts, share in (
        (c.draft_counts, Q),
        (c.accepted_counts, np.minimum(P, Q)),
        (c.residual_counts, np.maximum(P - Q, 0)),
        (c.output_counts, P),
    ):
        sd = np.sqrt(n * share * (1 - share))
        assert (np.abs(counts - n * share) <= 6 * sd + 1e-9).all(), (counts, n * share)


@pytest.mark.parametrize("n", [1000, 2 * PER_DRAW_MAX])
def test_chi_square_p_values_of_many_seeds_look_uniform(n: int) -> None:
    """If both samplers draw the law p, p-values are ~uniform: of 300 seeds, 5% fall below .05
    (15 expected; Binomial(300, .05) has sd 3.8, so 3..30 is a ±3.2-sd window) and the mean is
    near 1/2 (sd of the mean of 300 uniforms: 0.017, window ±0.07)."""
    p_values = np.array([monte_carlo(P, Q, n, seed, num=2).gof.p_value for seed in range(300)])
    assert 3 <= (p_values < 0.05).sum() <= 30
    assert abs(p_values.mean() - 0.5) < 0.07


def test_count_level_pieces_have_the_law_of_one_sample_counts_call() -> None:
    """Summing sample_counts over the stretches between checkpoints is the same law as one call:
    compare the means of the accepted counts over 300 seeds (sd of the difference of the two
    means ≈ sqrt(2·n·.1·.9/300) ≈ 77 at n = 10**7; window 5 sd)."""
    n = 10**7
    pieces = np.array([monte_carlo(P, Q, n, s, num=12).counts.accepted_counts for s in range(300)])
    whole = np.array([sample_counts(P, Q, n, 10_000 + s).accepted_counts for s in range(300)])
    sd = math.sqrt(2 * n * 0.1 * 0.9 / 300)
    assert np.abs(pieces.mean(axis=0) - whole.mean(axis=0)).max() < 5 * sd


def test_noise_band_is_stats_band_at_the_checkpoints() -> None:
    band = noise_band(P, 10**6)
    ref = expected_tv_band(P, log_checkpoints(10**6), BAND_LEVEL)
    np.testing.assert_array_equal(band.n, ref.n)
    np.testing.assert_allclose(band.upper, ref.upper, rtol=TOL)
    assert band.level == BAND_LEVEL == 0.95


@pytest.mark.parametrize("n", [1, 2, 3, 10])
def test_the_noise_band_at_small_n_never_exceeds_the_largest_possible_tv(n: int) -> None:
    """With N runs of an exact sampler the emitted shares are multiples of 1/N on the words of
    p's support, so TV to p is at most 1 − min p (all N runs on the rarest word)."""
    band = noise_band(P, n)
    assert (band.upper <= 1 - P.min() + TOL).all(), band.upper
    assert (band.lower <= band.upper).all()
    # At N = 1 every outcome is one word: TV is 1 - p(word), i.e. .6, .7, .8 or .9.
    if n == 1:
        assert band.lower[-1] >= 0.6 - TOL and band.upper[-1] <= 0.9 + TOL


def test_monte_carlo_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        monte_carlo(P, Q, 0, SEED)
    with pytest.raises(ValueError):
        monte_carlo([0.5, 0.6], [0.5, 0.5], 10, SEED)


@pytest.mark.parametrize("seed", [True, 7.0, 7.5, None, "7", -1])
def test_seeds_must_be_whole_numbers_up_front(seed: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        monte_carlo(P, Q, 10, seed)
    with pytest.raises(ValueError, match="seed"):
        monte_carlo_paths(P, Q, 10, seed)


# ====================================================================== the link's number of runs


@pytest.mark.parametrize(
    ("raw", "n"),
    [
        ("1", 1),
        ("10000", 10_000),
        (" 1000000 ", 10**6),
        ("1e6", 10**6),
        ("1M", 10**6),
        ("10k", 10**4),
        ("1B", 10**9),
        ("1000000000", 10**9),
        (["5", "100"], 100),  # a repeated key: the last one counts
    ],
)
def test_runs_link_accepts_the_offered_sizes(raw, n: int) -> None:
    assert RUNS.read({"n": raw}) == (n, None)


@pytest.mark.parametrize(
    "raw", ["abc", "5", "0", "-10", "1e10", "2B", "1.5", "", "9" * 500, "[x](http://e.com)"]
)
def test_runs_link_refuses_everything_else_with_a_notice(raw: str) -> None:
    n, notice = RUNS.read({"n": raw})
    assert n == DEFAULT_N
    assert notice and "'n'" in notice and f"{DEFAULT_N:,}" in notice
    assert notice.endswith(f"; the page uses N = {DEFAULT_N:,}.")
    assert "http" not in notice  # the raw text is never echoed (it could hold markup)


def test_runs_link_without_a_value_is_silent() -> None:
    assert RUNS.read({}) == (DEFAULT_N, None)


def test_format_count() -> None:
    assert [format_count(n) for n in N_CHOICES] == [
        "1",
        "10",
        "100",
        "1k",
        "10k",
        "100k",
        "1M",
        "10M",
        "100M",
        "1B",
    ]
    assert format_count(1234) == "1,234"
