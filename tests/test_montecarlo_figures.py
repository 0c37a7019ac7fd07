"""The Monte Carlo page's bar charts (specviz.figures.montecarlo) and its sentences
(specviz.figures.prose, figures.numbers.tv_text): the numbers drawn and written are read back from
the figures and compared with the run's and the step's.

The core of the page is tested in test_runs.py, the bug zoo in test_zoo.py, the convergence
charts in test_convergence_figures.py.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pytest
from helpers import trace

from specviz import palette
from specviz.figures import montecarlo as charts
from specviz.figures.convergence import monte_carlo_spec
from specviz.figures.fit import row_fits
from specviz.figures.numbers import percent, tv_text
from specviz.figures.prose import gof_sentence, sampler_note
from specviz.figures.style import ChartStyle
from specviz.figures.zoo import zoo_figures, zoo_law_figure
from specviz.one_token import step
from specviz.palette import Notation
from specviz.runs import monte_carlo, noise_band
from specviz.stats import GofResult
from specviz.zoo import zoo_comparison

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
S = step(P, Q)
SEED = 7
TOL = 1e-12


def strokes(tr) -> tuple[np.ndarray, np.ndarray]:
    """(centre, height) of each short stroke of an outline trace."""
    x = np.array([np.nan if v is None else v for v in tr.x], dtype=float).reshape(-1, 3)
    y = np.array([np.nan if v is None else v for v in tr.y], dtype=float).reshape(-1, 3)
    assert np.isnan(x[:, 2]).all()
    np.testing.assert_array_equal(y[:, 0], y[:, 1])  # flat
    return x[:, :2].mean(axis=1), y[:, 0]


def text_row(fig):
    """The row of numbers printed over the bars (the one unnamed text-only scatter)."""
    (row,) = [t for t in fig.data if t.type == "scatter" and t.mode == "text"]
    return row


@pytest.fixture(scope="module")
def run():
    return monte_carlo(P, Q, 10_000, SEED)


def test_histogram_draws_the_runs_counts_and_the_exact_laws(run) -> None:
    fig = charts.histogram_figure(LABELS, S, run)
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
    fig = charts.breakdown_figure(LABELS, S, run)
    accepted, bucket = trace(fig, "accepted"), trace(fig, "bucket")
    np.testing.assert_allclose(accepted.y, run.counts.accepted_counts / run.n, atol=TOL)
    np.testing.assert_allclose(bucket.y, run.counts.residual_counts / run.n, atol=TOL)
    assert fig.layout.barmode == "stack"
    assert accepted.marker.color == palette.ACCEPTED.color
    assert bucket.marker.pattern.shape == palette.BUCKET.pattern
    _, heights = strokes(trace(fig, "exact target"))
    np.testing.assert_allclose(heights, P, atol=TOL)
    # Over each stack its total share, not a part of it that would read as the total.
    labels = text_row(fig).text
    stack = (run.counts.accepted_counts + run.counts.residual_counts) / run.n
    assert list(labels) == [percent(v) for v in stack]
    caption = charts.breakdown_caption(LABELS, run)
    assert f"{run.counts.accepted_counts[0]:,} accepted drafts" in caption


def test_histogram_caption_lists_every_word(run) -> None:
    text = charts.histogram_caption(LABELS, S, run, Notation())
    for word in LABELS:
        assert f"{word}: emitted" in text
    assert "target 40%" in text and "draft 40%" in text


def test_the_exact_laws_drawn_and_written_are_the_steps(run) -> None:
    """Outlines and captions take p and q from the step (a step of other vectors shows them)."""
    other = step([0.25, 0.25, 0.25, 0.25], Q)
    fig = charts.histogram_figure(LABELS, other, run)
    np.testing.assert_array_equal(strokes(trace(fig, "exact target"))[1], other.p)
    np.testing.assert_array_equal(strokes(trace(fig, "exact draft"))[1], other.q)
    assert "(target 25%)" in charts.histogram_caption(LABELS, other, run, Notation())
    breakdown = charts.breakdown_figure(LABELS, other, run)
    np.testing.assert_array_equal(strokes(trace(breakdown, "exact target"))[1], other.p)


def test_swapped_letters_reach_the_charts(run) -> None:
    style = ChartStyle(notation=Notation(swapped=True))
    fig = charts.histogram_figure(LABELS, S, run, style)
    assert "target q" in fig.layout.title.text
    assert "TV distance to q" in str(monte_carlo_spec([run], noise_band(P, run.n), style))


# --------------------------------------------------------------------------- sentences


def test_sampler_note_names_the_sampler_in_plain_words() -> None:
    small = sampler_note(monte_carlo(P, Q, 10, SEED), Notation())
    big = sampler_note(monte_carlo(P, Q, 10**7, SEED), Notation())
    one = sampler_note(monte_carlo(P, Q, 1, SEED), Notation())
    assert small[0].startswith("**Every run simulated:**") and "each of the 10 runs" in small[0]
    assert one[0].startswith("**Every run simulated:**") and "the run is simulated" in one[0]
    assert big[0].startswith("**Counts drawn directly:**") and "10,000,000 runs" in big[0]
    assert "Multinomial(N, q)" in big[1] and "min(1, p(x)/q(x))" in big[1]
    swapped = sampler_note(monte_carlo(P, Q, 10**7, SEED), Notation(swapped=True))
    assert "Multinomial(N, p)" in swapped[1] and "min(1, q(x)/p(x))" in swapped[1]
    # Plain words: no code names in what the learner reads.
    for text in (*small, *big):
        for code in ("speculative_sample", "sample_counts", "per-draw", "count-level", "_"):
            assert code not in text, (code, text)


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
    assert tv_text(tv) == text


# --------------------------------------------------------------------------- all the page's charts


def test_projector_style_enlarges_chart_text(run) -> None:
    band = noise_band(P, run.n)
    small = charts.monte_carlo_figures(LABELS, S, ChartStyle(), [run], band)
    big = charts.monte_carlo_figures(LABELS, S, ChartStyle(projector=True), [run], band)
    assert set(small) == {"hist", "source", "tv"}
    # The page's dict is the convergence spec, and Vega-Lite's schema accepts it.
    assert small["tv"][0] == monte_carlo_spec([run], band, ChartStyle())
    alt.LayerChart.from_dict(small["tv"][0])
    assert big["hist"][0].layout.font.size > small["hist"][0].layout.font.size
    assert (
        big["tv"][0]["config"]["axis"]["labelFontSize"]
        > (small["tv"][0]["config"]["axis"]["labelFontSize"])
    )
    z = zoo_comparison(P, Q, "inverted_ratio", SEED, n_max=1000)
    figs = zoo_figures(LABELS, S, ChartStyle(projector=True), z)
    assert set(figs) == {"law", "tv"} and isinstance(figs["tv"][0], dict)


def _ten_words():
    p = np.full(10, 0.1)
    q = np.linspace(1, 2, 10) / np.linspace(1, 2, 10).sum()
    return tuple(f"w{i}" for i in range(10)), step(p, q)


def test_no_numbers_over_the_bars_of_a_large_vocabulary() -> None:
    """Ten words: printed shares would collide, so only hover text and the caption carry them."""
    words, ten = _ten_words()
    big = monte_carlo(ten.p, ten.q, 1000, SEED)
    z = zoo_comparison(ten.p, ten.q, "inverted_ratio", SEED, 100)
    for fig in (
        charts.histogram_figure(words, ten, big),
        zoo_law_figure(words, ten, z, "x"),
    ):
        assert all(not t for tr in fig.data if tr.text is not None for t in tr.text)
    breakdown = charts.breakdown_figure(words, ten, big)
    assert not any(text_row(breakdown).text)  # the bucket's shares over the stacks
    small = charts.histogram_figure(LABELS, S, monte_carlo(P, Q, 1000, SEED))
    assert any(tr.text for tr in small.data if tr.type == "scatter" and tr.mode == "text")


def test_numbers_inside_the_accepted_bars_follow_the_fitting_rule() -> None:
    """No word count decides (MAX_LABELLED_WORDS is gone): the shares inside the accepted bars
    are printed where fit_row says the row can be read, and all left out otherwise."""
    for words, one in (_ten_words(), (LABELS, S)):
        run_ = monte_carlo(one.p, one.q, 1000, SEED)
        fig = charts.breakdown_figure(words, one, run_)
        accepted = trace(fig, "accepted")
        shares = [percent(v) if v > 0 else "" for v in accepted.y]
        centres = [v / 2 for v in accepted.y]
        fits = row_fits(shares, centres, fig.layout.yaxis.range[1] / 1.22, ChartStyle())
        assert list(accepted.text) == (shares if fits else [""] * len(shares))
    four = charts.breakdown_figure(LABELS, S, monte_carlo(P, Q, 1000, SEED))
    assert all(trace(four, "accepted").text)  # four words: every share is printed


@pytest.mark.parametrize("projector", [False, True])
@pytest.mark.parametrize("size", [3, 4, 6, 8, 10])
def test_numbers_over_the_histogram_are_printed_exactly_where_they_fit(
    size: int, projector: bool
) -> None:
    """The one fitting rule (figures.fit.row_fits) decides, not a count of words: the shares are
    printed when the row can be read at the chart's narrowest width, and left out otherwise."""
    style = ChartStyle(projector=projector)
    weights = np.arange(1, size + 1, dtype=float)
    one = step(weights / weights.sum(), weights[::-1] / weights.sum())
    words = tuple(f"word{i}" for i in range(size))
    run_ = monte_carlo(one.p, one.q, 1000, SEED)
    fig = charts.histogram_figure(words, one, run_, style)
    row = text_row(fig)
    top = fig.layout.yaxis.range[1]
    shares = [
        percent(v)
        for v in np.column_stack(
            [run_.counts.output_counts / run_.n, run_.counts.draft_counts / run_.n]
        ).ravel()
    ]
    fits = row_fits(shares, list(row.y), top, style)
    assert list(row.text) == (shares if fits else [""] * len(shares))
