"""The Monte Carlo / Bug zoo core (specviz.montecarlo) and its charts (specviz.figures.montecarlo).

Core: exact identities on the counts, the laws of both samplers checked statistically with fixed
seeds (tolerances stated next to each check), math.md's bug-zoo table, the share-link parsers.
Charts: the numbers drawn are read back from the figure objects and compared with the core's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from specviz import palette
from specviz.figures import montecarlo as charts
from specviz.figures.style import ChartStyle
from specviz.montecarlo import (
    COUNT_LEVEL,
    DEFAULT_N,
    DEFAULT_RULE,
    N_CHOICES,
    PER_DRAW,
    PER_DRAW_MAX,
    ZOO_N_MAX,
    detectable_from,
    format_n,
    gof_sentence,
    mistaken_rules,
    monte_carlo,
    monte_carlo_paths,
    noise_band,
    parse_n,
    parse_rule,
    sampler_for,
    swap_letters,
    zoo_comparison,
)
from specviz.one_token import total_variation
from specviz.palette import Notation
from specviz.sampling import sample_counts, speculative_sample
from specviz.stats import GofResult, chi_square_gof, expected_tv_band, log_checkpoints, tv_path
from specviz.variants import RULE_KEYS, RULES

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
SEED = 7
TOL = 1e-12

#: math.md's bug-zoo table on (P, Q): rule -> (output law, TV to p).
ZOO_TABLE = {
    "resample_from_p": ([0.26, 0.32, 0.28, 0.14], 0.14),
    "inverted_ratio": ([0.13125, 0.16875, 0.3, 0.4], 0.40),
    "redraw_from_q": ([1 / 6, 1 / 3, 1 / 3, 1 / 6], 0.7 / 3),
    "reuse_uniform": ([0.325, 0.375, 0.2, 0.1], 0.075),
}


# ============================================================================ core: Monte Carlo


@pytest.mark.parametrize("n", [1, 10, 1000, PER_DRAW_MAX, PER_DRAW_MAX + 1, 10**9])
def test_run_counts_are_consistent(n: int) -> None:
    run = monte_carlo(P, Q, n, SEED)
    c = run.counts
    assert run.method == sampler_for(n) == (PER_DRAW if n <= PER_DRAW_MAX else COUNT_LEVEL)
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


def test_per_draw_run_tallies_the_core_samplers_draws() -> None:
    n = 20_000
    draws = speculative_sample(P, Q, n, SEED)
    c = monte_carlo(P, Q, n, SEED).counts
    np.testing.assert_array_equal(c.output_counts, np.bincount(draws.output, minlength=4))
    np.testing.assert_array_equal(c.draft_counts, np.bincount(draws.draft, minlength=4))
    np.testing.assert_array_equal(
        c.accepted_counts, np.bincount(draws.draft[draws.accepted], minlength=4)
    )


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
    compare the means of the accepted counts over 400 seeds (sd of the difference of the two
    means ≈ sqrt(2·n·.1·.9/300) ≈ 77 at n = 10**7; window 5 sd)."""
    n = 10**7
    pieces = np.array([monte_carlo(P, Q, n, s, num=12).counts.accepted_counts for s in range(300)])
    whole = np.array([sample_counts(P, Q, n, 10_000 + s).accepted_counts for s in range(300)])
    sd = math.sqrt(2 * n * 0.1 * 0.9 / 300)
    assert np.abs(pieces.mean(axis=0) - whole.mean(axis=0)).max() < 5 * sd


def test_noise_band_is_stats_band_at_the_checkpoints() -> None:
    band = noise_band(P, 10**6)
    ref = expected_tv_band(P, log_checkpoints(10**6), 0.95)
    np.testing.assert_array_equal(band.n, ref.n)
    np.testing.assert_allclose(band.upper, ref.upper, rtol=TOL)


def test_monte_carlo_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        monte_carlo(P, Q, 0, SEED)
    with pytest.raises(ValueError):
        monte_carlo([0.5, 0.6], [0.5, 0.5], 10, SEED)


@pytest.mark.parametrize(
    ("gof", "words"),
    [
        (GofResult(3.03, 3, 0.387), ["0.387", "38.7%", "no reason to doubt"]),
        (GofResult(30.0, 3, 1.4e-6), ["1.4e-06", "red flag: the words"]),
        (GofResult(0.0, 0, 1.0), ["nothing to test"]),
        (GofResult(math.inf, 2, 0.0), ["impossible"]),
    ],
)
def test_gof_sentence(gof: GofResult, words: list[str]) -> None:
    text = gof_sentence(gof)
    for word in words:
        assert word in text


# ============================================================================== core: bug zoo


def test_mistaken_rules_are_the_registry_minus_correct() -> None:
    assert mistaken_rules() == tuple(k for k in RULE_KEYS if k != "correct")
    assert DEFAULT_RULE == mistaken_rules()[0] == "resample_from_p"


@pytest.mark.parametrize("key", list(ZOO_TABLE))
def test_zoo_comparison_matches_math_md(key: str) -> None:
    law, tv = ZOO_TABLE[key]
    z = zoo_comparison(key, P, Q, SEED)
    np.testing.assert_allclose(z.law, law, atol=TOL)
    assert z.tv == pytest.approx(tv, abs=TOL)
    assert z.rule is RULES[key]
    # Both paths share the checkpoints; the correct one is the Monte Carlo page's run at 10**8.
    cps = log_checkpoints(ZOO_N_MAX)
    np.testing.assert_array_equal(z.correct.checkpoints, cps)
    np.testing.assert_array_equal(z.correct.tv, monte_carlo(P, Q, ZOO_N_MAX, SEED).path.tv)
    np.testing.assert_allclose(z.wrong.tv, tv_path(z.law, P, cps, SEED).tv, rtol=TOL)
    # At N = 10**8 the noise is ~1e-4: the mistake sits on its floor (window 1e-3, ~10 sd) and
    # the correct rule is far below it.
    assert abs(z.wrong.tv[-1] - tv) < 1e-3
    assert z.correct.tv[-1] < 1e-3
    assert z.detectable_from == detectable_from(P, tv)


def test_all_mistakes_run_on_the_default_pair() -> None:
    for key in mistaken_rules():
        z = zoo_comparison(key, P, Q, SEED, n_max=1000)
        assert z.tv > 0.05 and z.detectable_from is not None


def test_detectable_from_is_where_the_band_drops_below_the_bias() -> None:
    for tv in (0.4, 0.14, 0.075, 0.01, 0.001):
        n = detectable_from(P, tv)
        upper = expected_tv_band(P, [n - 1, n] if n > 1 else [n]).upper
        assert upper[-1] < tv
        if n > 1:
            assert upper[0] >= tv
    assert detectable_from(P, 0.0) is None
    assert detectable_from(P, 1e-15) is None
    # Halving the bias takes four times the runs (the band falls like 1/sqrt(N)).
    assert detectable_from(P, 0.005) == pytest.approx(4 * detectable_from(P, 0.01), rel=1e-3)


def test_redraw_from_q_on_disjoint_supports_raises_the_cores_message() -> None:
    with pytest.raises(ValueError, match="disjoint supports"):
        zoo_comparison("redraw_from_q", [0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5], SEED)


def test_a_mistake_can_be_harmless_on_some_pair() -> None:
    z = zoo_comparison("resample_from_p", P, P, SEED, n_max=1000)  # p == q: nothing is rejected
    assert z.tv < TOL and z.detectable_from is None


def test_swap_letters() -> None:
    assert swap_letters("min(1, p(x)/q(x))") == "min(1, q(x)/p(x))"
    assert swap_letters("q_k·min(1, p/q) from p") == "p_k·min(1, q/p) from q"
    assert swap_letters("top-p and a plain word like pq or quip") == (
        "top-q and a plain word like pq or quip"
    )
    for rule in RULES.values():
        for text in (rule.title, rule.mistake, rule.why):
            assert swap_letters(swap_letters(text)) == text


# ====================================================================== core: link parameters


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
def test_parse_n_accepts_the_offered_sizes(raw, n: int) -> None:
    assert parse_n(raw) == (n, None)


@pytest.mark.parametrize(
    "raw", ["abc", "5", "0", "-10", "1e10", "2B", "1.5", "", "9" * 500, "[x](http://e.com)"]
)
def test_parse_n_refuses_everything_else_with_a_notice(raw: str) -> None:
    n, notice = parse_n(raw)
    assert n == DEFAULT_N
    assert notice and "'n'" in notice and f"{DEFAULT_N:,}" in notice
    assert "http" not in notice  # the raw text is never echoed (it could hold markup)


def test_parse_n_without_a_value_is_silent() -> None:
    assert parse_n(None) == (DEFAULT_N, None)


def test_parse_rule() -> None:
    for key in mistaken_rules():
        assert parse_rule(key) == (key, None)
    assert parse_rule(None) == (DEFAULT_RULE, None)
    for bad in ("correct", "nonsense", "<b>x</b>"):
        key, notice = parse_rule(bad)
        assert key == DEFAULT_RULE and notice and "<b>" not in notice


def test_format_n() -> None:
    assert [format_n(n) for n in N_CHOICES] == [
        "1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1B",
    ]  # fmt: skip
    assert format_n(1234) == "1,234"


# ============================================================================ figures: Plotly


def trace(fig, name_part: str):
    matches = [t for t in fig.data if t.name and name_part in t.name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


def strokes(tr) -> tuple[np.ndarray, np.ndarray]:
    """(centre, height) of each short stroke of an outline trace."""
    x = np.array([np.nan if v is None else v for v in tr.x], dtype=float).reshape(-1, 3)
    y = np.array([np.nan if v is None else v for v in tr.y], dtype=float).reshape(-1, 3)
    assert np.isnan(x[:, 2]).all()
    np.testing.assert_array_equal(y[:, 0], y[:, 1])  # flat
    return x[:, :2].mean(axis=1), y[:, 0]


@pytest.fixture(scope="module")
def run():
    return monte_carlo(P, Q, 10_000, SEED)


def test_histogram_draws_the_runs_counts_and_the_exact_laws(run) -> None:
    fig = charts.histogram_figure(LABELS, P, Q, run)
    emitted, proposed = trace(fig, "emitted"), trace(fig, "proposals")
    np.testing.assert_allclose(emitted.y, run.counts.output_counts / run.n, atol=TOL)
    np.testing.assert_allclose(proposed.y, run.counts.draft_counts / run.n, atol=TOL)
    assert proposed.marker.pattern.shape == palette.DRAFT.pattern  # hatched: not colour alone
    assert emitted.marker.color == palette.TARGET.color
    # The exact laws are strokes centred over their bars.
    for name, law, bar_trace in (("exact target", P, emitted), ("exact draft", Q, proposed)):
        centres, heights = strokes(trace(fig, name))
        np.testing.assert_allclose(heights, law, atol=TOL)
        np.testing.assert_allclose(centres, np.arange(4) + bar_trace.offset + bar_trace.width / 2)
    assert "target p" in fig.layout.title.text and "draft q" in fig.layout.title.text


def test_breakdown_stacks_accepted_and_bucket_to_the_emitted_share(run) -> None:
    fig = charts.breakdown_figure(LABELS, P, run)
    accepted, bucket = trace(fig, "accepted"), trace(fig, "bucket")
    np.testing.assert_allclose(accepted.y, run.counts.accepted_counts / run.n, atol=TOL)
    np.testing.assert_allclose(bucket.y, run.counts.residual_counts / run.n, atol=TOL)
    assert fig.layout.barmode == "stack"
    assert accepted.marker.color == palette.ACCEPTED.color
    assert bucket.marker.pattern.shape == palette.BUCKET.pattern
    _, heights = strokes(trace(fig, "exact target"))
    np.testing.assert_allclose(heights, P, atol=TOL)
    labels = next(t for t in fig.data if t.type == "scatter" and t.mode == "text").text
    assert labels[0].startswith(palette.BUCKET.icon) and labels[2] == labels[3] == ""
    caption = charts.breakdown_caption(LABELS, run)
    assert f"{run.counts.accepted_counts[0]:,} accepted drafts" in caption


def test_histogram_caption_lists_every_word(run) -> None:
    text = charts.histogram_caption(LABELS, P, Q, run, Notation())
    for word in LABELS:
        assert f"{word}: emitted" in text
    assert "target 40%" in text and "draft 40%" in text


def test_swapped_letters_reach_the_charts(run) -> None:
    style = ChartStyle(notation=Notation(swapped=True))
    fig = charts.histogram_figure(LABELS, P, Q, run, style)
    assert "target q" in fig.layout.title.text
    assert "TV distance to q" in str(
        charts.monte_carlo_chart([run], noise_band(P, run.n), style).to_dict()
    )


def test_sampler_note_names_the_sampler_and_the_law() -> None:
    small = charts.sampler_note(monte_carlo(P, Q, 10, SEED), Notation())
    big = charts.sampler_note(monte_carlo(P, Q, 10**7, SEED), Notation())
    assert "Per-draw" in small and "speculative_sample" in small
    assert "Count-level" in big and "sample_counts" in big and "Multinomial(N, q)" in big


def test_zoo_law_figure_draws_the_rules_law_against_p() -> None:
    z = zoo_comparison("resample_from_p", P, Q, SEED, n_max=1000)
    fig = charts.zoo_law_figure(LABELS, P, z, RULES["resample_from_p"].title)
    np.testing.assert_allclose(trace(fig, "target").y, P, atol=TOL)
    wrong = trace(fig, "mistake")
    np.testing.assert_allclose(wrong.y, ZOO_TABLE["resample_from_p"][0], atol=TOL)
    assert wrong.marker.color == palette.REJECTED.color
    assert wrong.marker.pattern.shape == palette.REJECTED.pattern
    assert "TV = 0.14" in fig.layout.title.text
    caption = charts.zoo_law_caption(LABELS, P, z, "x", Notation())
    assert "mat 26% vs 40%" in caption and "0.14" in caption


TV_TEXTS = [
    (0.14, "0.14"),
    (0.4000000000000001, "0.4"),
    (0.7 / 3, "0.233"),
    (0.07500000000000012, "0.075"),
    (2.64e-5, "2.64·10⁻⁵"),
    (1e-5, "1·10⁻⁵"),
    (0.00099999, "0.001"),
    (1e-16, "0"),
]


@pytest.mark.parametrize(("tv", "text"), TV_TEXTS)
def test_tv_text_writes_tv_as_math_md_does(tv: float, text: str) -> None:
    assert charts.tv_text(tv) == text


# ============================================================================ figures: Altair


def layers(spec: dict) -> tuple[list[dict], list[dict]]:
    """(line rows, band rows) of a convergence chart's Vega-Lite dict."""
    area, lines = spec["layer"]
    assert area["mark"]["type"] == "area" and lines["mark"]["type"] == "line"
    return lines["data"]["values"], area["data"]["values"]


def test_monte_carlo_chart_draws_every_seeds_path_and_the_band() -> None:
    runs = monte_carlo_paths(P, Q, 10**6, SEED)
    band = noise_band(P, 10**6)
    spec = charts.monte_carlo_chart(runs, band).to_dict()
    rows, band_rows = layers(spec)
    main = f"{palette.TARGET.icon} seed {SEED}: the run above"
    others = f"seeds {SEED + 1}–{SEED + 4}"
    line_ids = [f"{main} #0"] + [f"{others} #{i}" for i in range(4)]
    for run_, line_id in zip(runs, line_ids, strict=True):
        got = [r for r in rows if r["line"] == line_id]
        keep = run_.path.tv > 0  # a TV of 0 has no place on a log axis
        np.testing.assert_array_equal([r["n"] for r in got], run_.path.checkpoints[keep])
        np.testing.assert_allclose([r["tv"] for r in got], run_.path.tv[keep], rtol=TOL)
    np.testing.assert_array_equal([r["n"] for r in band_rows], band.n)
    np.testing.assert_allclose([r["upper"] for r in band_rows], band.upper, rtol=TOL)
    np.testing.assert_allclose([r["lower"] for r in band_rows], band.lower, rtol=TOL)
    enc = spec["layer"][1]["encoding"]
    assert spec["layer"][1]["encoding"]["x"]["scale"]["type"] == "log"
    assert enc["y"]["scale"]["type"] == "log"
    stroke = enc["stroke"]["scale"]
    assert stroke["domain"][:2] == [main, others]
    assert stroke["range"][:2] == [palette.TARGET.color, palette.TARGET.color]
    dashes = enc["strokeDash"]["scale"]["range"]
    assert dashes[0] != dashes[1]  # the other seeds differ by dash, not only by width


def test_zoo_chart_shows_the_floor_and_tells_lines_apart_without_colour() -> None:
    z = zoo_comparison("reuse_uniform", P, Q, SEED)
    spec = charts.zoo_chart(z, "Reuse").to_dict()
    rows, _ = layers(spec)
    wrong = [r for r in rows if r["series"] == f"{palette.REJECTED.icon} Reuse"]
    keep = z.wrong.tv > 0
    np.testing.assert_allclose([r["tv"] for r in wrong], z.wrong.tv[keep], rtol=TOL)
    floor = [r for r in rows if r["series"].startswith("its floor")]
    assert [r["tv"] for r in floor] == [z.tv, z.tv] and floor[0]["series"].endswith("0.075")
    enc = spec["layer"][1]["encoding"]
    names, colours = enc["stroke"]["scale"]["domain"], enc["stroke"]["scale"]["range"]
    assert colours[names.index(f"{palette.REJECTED.icon} Reuse")] == palette.REJECTED.color
    assert colours[names.index(f"{palette.TARGET.icon} correct rule")] == palette.TARGET.color
    assert len({str(d) for d in enc["strokeDash"]["scale"]["range"]}) == len(names)
    caption = charts.zoo_chart_caption(z, "Reuse", Notation())
    assert f"N = {z.detectable_from:,}" in caption and "0.075" in caption


def test_projector_style_enlarges_chart_text(run) -> None:
    band = noise_band(P, run.n)
    small = charts.monte_carlo_figures(LABELS, P, Q, [run], band, ChartStyle())
    big = charts.monte_carlo_figures(LABELS, P, Q, [run], band, ChartStyle(projector=True))
    assert set(small) == {"hist", "source", "tv"}
    # The page's unvalidated dict is the spec that passes Altair's schema validation.
    assert small["tv"][0] == charts.monte_carlo_chart([run], band, ChartStyle()).to_dict()
    assert big["hist"][0].layout.font.size > small["hist"][0].layout.font.size
    assert (
        big["tv"][0]["config"]["axis"]["labelFontSize"]
        > (small["tv"][0]["config"]["axis"]["labelFontSize"])
    )
    z = zoo_comparison("inverted_ratio", P, Q, SEED, n_max=1000)
    figs = charts.zoo_figures(LABELS, P, z, "Inverted", ChartStyle(projector=True))
    assert set(figs) == {"law", "tv"} and isinstance(figs["tv"][0], dict)


def test_no_numbers_on_the_bars_of_a_large_vocabulary() -> None:
    """Ten words: printed shares would collide, so only hover text and the caption carry them."""
    p = np.full(10, 0.1)
    q = np.linspace(1, 2, 10) / np.linspace(1, 2, 10).sum()
    words = tuple(f"w{i}" for i in range(10))
    big = monte_carlo(p, q, 1000, SEED)
    for fig in (
        charts.histogram_figure(words, p, q, big),
        charts.breakdown_figure(words, p, big),
        charts.zoo_law_figure(words, p, zoo_comparison("inverted_ratio", p, q, SEED, 100), "x"),
    ):
        assert all(not t for tr in fig.data if tr.text is not None for t in tr.text)
    small = charts.histogram_figure(LABELS, P, Q, monte_carlo(P, Q, 1000, SEED))
    assert any(tr.text for tr in small.data if tr.type == "scatter" and tr.mode == "text")
