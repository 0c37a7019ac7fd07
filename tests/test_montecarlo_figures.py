"""The Monte Carlo page's bar charts and its sentences (specviz.figures.montecarlo,
figures.numbers.tv_text): the numbers drawn and written are read back from
the Vega-Lite specs' named datasets and compared with the run's and the step's. Every spec passes
Vega-Lite's schema, and only its datasets change with the state.

The core of the page is tested in test_runs.py, the bug zoo in test_zoo.py, the convergence
charts in test_convergence_figures.py.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pytest

from specviz import palette
from specviz.figures import fit, vega
from specviz.figures import montecarlo as charts
from specviz.figures.convergence import monte_carlo_spec
from specviz.figures.fit import row_fits
from specviz.figures.numbers import percent, tv_text
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


def valid(spec: dict) -> dict:
    """The spec, after Vega-Lite's schema accepted it (Altair validates what it reads)."""
    alt.LayerChart.from_dict(spec).to_dict(validate=True)
    return spec


def column(rows: list[dict], field: str, **where: object) -> np.ndarray:
    """``field`` of the rows matching ``where``, in order."""
    return np.array([r[field] for r in rows if all(r[k] == v for k, v in where.items())])


def bar_layers(spec: dict) -> list[dict]:
    """The bar layers, one per role, in the order of their rows' ``j``."""
    bars = [layer for layer in spec["layer"] if layer["mark"]["type"] == "bar"]
    return sorted(bars, key=lambda layer: layer["transform"][0]["filter"])


def rules(spec: dict) -> list[dict]:
    """The exact values' stroke layers."""
    return [layer for layer in spec["layer"] if layer["mark"]["type"] == "rule"]


def without_data(spec: dict) -> dict:
    return {key: value for key, value in spec.items() if key != "datasets"}


@pytest.fixture(scope="module")
def run():
    return monte_carlo(P, Q, 10_000, SEED)


def test_histogram_draws_the_runs_counts_and_the_exact_laws(run) -> None:
    spec = valid(charts.histogram_figure(LABELS, S, run)[0])
    rows = spec["datasets"]["bars"]
    emitted, proposed = "● emitted words", "◆ draft's proposals"
    np.testing.assert_allclose(
        column(rows, "share", kind=emitted), run.counts.output_counts / run.n, atol=TOL
    )
    np.testing.assert_allclose(
        column(rows, "share", kind=proposed), run.counts.draft_counts / run.n, atol=TOL
    )
    np.testing.assert_allclose(column(rows, "exact", kind=emitted), P, atol=TOL)
    np.testing.assert_allclose(column(rows, "exact", kind=proposed), Q, atol=TOL)
    assert list(column(rows, "word", kind=emitted)) == list(LABELS)
    assert list(column(rows, "exact_name", kind=proposed)) == ["exact draft q"] * 4
    # Each role in its colour; the draft's bars also dashed in ink (not colour alone).
    target_bars, draft_bars = bar_layers(spec)
    assert target_bars["mark"]["fill"] == palette.TARGET.color
    assert draft_bars["mark"]["fill"] == palette.DRAFT.color
    assert draft_bars["mark"]["strokeDash"] == vega.DASH[palette.DRAFT.pattern]
    colour = target_bars["encoding"]["color"]["scale"]
    assert colour == {
        "domain": [emitted, proposed],
        "range": [palette.TARGET.color, palette.DRAFT.color],
    }
    # The exact strokes span their bars: the left and right part of each word's band.
    left, right = rules(spec)
    for j, layer in enumerate((left, right)):
        assert layer["transform"] == [{"filter": f"datum.j == {j}"}]
        x, x2 = layer["encoding"]["x"], layer["encoding"]["x2"]
        assert (x["bandPosition"], x2["bandPosition"]) == vega.pair_span(j)
    # The bars' offset scale places them where the strokes assume.
    offset = target_bars["encoding"]["xOffset"]["scale"]
    assert (offset["paddingInner"], offset["paddingOuter"]) == (fit.PAIR_GAP, 0)
    assert vega.pair_span(0)[0] == 0 and vega.pair_span(1)[1] == 1
    assert vega.pair_span(0)[1] < vega.pair_span(1)[0]
    dashes = left["encoding"]["strokeDash"]["scale"]
    assert dashes["domain"] == ["exact target p", "exact draft q"]
    assert dashes["range"][0] != dashes["range"][1]
    assert "target p" in spec["title"][0] and "draft q" in "".join(spec["title"])


def test_breakdown_stacks_accepted_and_bucket_to_the_emitted_share(run) -> None:
    spec = valid(charts.breakdown_figure(LABELS, S, run)[0])
    parts, words = spec["datasets"]["parts"], spec["datasets"]["words"]
    accepted, bucket = "✓ accepted drafts", "◌ from the bucket"
    np.testing.assert_allclose(
        column(parts, "share", part=accepted), run.counts.accepted_counts / run.n, atol=TOL
    )
    np.testing.assert_allclose(
        column(parts, "share", part=bucket), run.counts.residual_counts / run.n, atol=TOL
    )
    assert list(column(parts, "count", part=bucket)) == list(run.counts.residual_counts)
    # Stacked: the bucket sits on the accepted drafts, the stack's top is the emitted share.
    np.testing.assert_allclose(
        column(parts, "base", part=bucket), column(parts, "top", part=accepted), atol=TOL
    )
    np.testing.assert_allclose(
        column(parts, "top", part=bucket), run.counts.output_counts / run.n, atol=TOL
    )
    accepted_bars, bucket_bars = bar_layers(spec)
    assert accepted_bars["mark"]["fill"] == palette.ACCEPTED.color
    assert bucket_bars["mark"]["strokeDash"] == vega.DASH[palette.BUCKET.pattern]
    np.testing.assert_allclose(column(words, "exact"), P, atol=TOL)
    (exact,) = rules(spec)
    assert exact["encoding"]["y"]["field"] == "exact"
    # Over each stack its total share, not a part of it that would read as the total.
    stack = (run.counts.accepted_counts + run.counts.residual_counts) / run.n
    assert list(column(words, "label")) == [percent(v) for v in stack]
    np.testing.assert_allclose(column(words, "label_y"), np.maximum(stack, P), atol=TOL)
    caption = charts.breakdown_figure(LABELS, S, run)[1]
    assert f"{run.counts.accepted_counts[0]:,} accepted drafts" in caption


def test_histogram_caption_lists_every_word(run) -> None:
    text = charts.histogram_figure(LABELS, S, run)[1]
    for word in LABELS:
        assert f"{word}: emitted" in text
    assert "target 40%" in text and "draft 40%" in text


def test_the_exact_laws_drawn_and_written_are_the_steps(run) -> None:
    """Strokes and captions take p and q from the step (a step of other vectors shows them)."""
    other = step([0.25, 0.25, 0.25, 0.25], Q)
    rows = charts.histogram_figure(LABELS, other, run)[0]["datasets"]["bars"]
    np.testing.assert_array_equal(column(rows, "exact", j=0), other.p)
    np.testing.assert_array_equal(column(rows, "exact", j=1), other.q)
    assert "(target 25%)" in charts.histogram_figure(LABELS, other, run)[1]
    words = charts.breakdown_figure(LABELS, other, run)[0]["datasets"]["words"]
    np.testing.assert_array_equal(column(words, "exact"), other.p)


def test_swapped_letters_reach_the_charts(run) -> None:
    style = ChartStyle(notation=Notation(swapped=True))
    spec = charts.histogram_figure(LABELS, S, run, style)[0]
    assert "target q" in " ".join(spec["title"])
    assert "distance to q" in str(monte_carlo_spec([run], noise_band(P, run.n), style))
    words = charts.breakdown_figure(LABELS, S, run, style)[0]["datasets"]["words"]
    assert {r["exact_name"] for r in words} == {"exact target q"}


def test_the_bar_charts_change_with_the_data_only() -> None:
    """A new N, seed or pair of weights reaches the charts as datasets: the rest of each spec
    stays the same (so Streamlit updates the mounted chart in place); the axis reaches up to the
    room the numbers need, its ticks never past 100 %."""
    states = [(P, Q, 1, SEED), (P, Q, 10**4, SEED), (Q, P, 10**9, 42)]
    built = []
    for p, q, n, seed in states:
        one, run_ = step(p, q), monte_carlo(p, q, n, seed)
        z = zoo_comparison(p, q, "reuse_uniform", seed, n_max=1000)
        built.append(
            [
                charts.histogram_figure(LABELS, one, run_)[0],
                charts.breakdown_figure(LABELS, one, run_)[0],
                zoo_law_figure(LABELS, one, z, "Reuse the acceptance uniform"),
            ]
        )
    for first, *others in zip(*built, strict=True):
        assert all(without_data(s) == without_data(first) for s in others)
        assert first["datasets"] != others[-1]["datasets"]
    one_run = built[0][0]["datasets"]
    room = one_run["bars"][0]["room"]
    assert room == pytest.approx(charts.HEADROOM)  # a word emitted in 100% of the runs
    assert [t["v"] for t in one_run["yticks"]] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


# --------------------------------------------------------------------------- sentences


def test_sampler_note_names_the_sampler_in_plain_words() -> None:
    small = charts.sampler_note(monte_carlo(P, Q, 10, SEED), Notation())
    big = charts.sampler_note(monte_carlo(P, Q, 10**7, SEED), Notation())
    one = charts.sampler_note(monte_carlo(P, Q, 1, SEED), Notation())
    assert small[0].startswith("**Every run simulated:**") and "each of the 10 runs" in small[0]
    assert one[0].startswith("**Every run simulated:**") and "the run is simulated" in one[0]
    assert big[0].startswith("**Counts drawn directly:**") and "10,000,000 runs" in big[0]
    assert "Multinomial(N, q)" in big[1] and "min(1, p(x)/q(x))" in big[1]
    swapped = charts.sampler_note(monte_carlo(P, Q, 10**7, SEED), Notation(swapped=True))
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
    text = charts.gof_sentence(gof)
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
    assert small["tv"][0] == monte_carlo_spec([run], band, ChartStyle())
    for key in small:
        valid(small[key][0])
        valid(big[key][0])
        size = {
            s: f[key][0]["config"]["axis"]["labelFontSize"] for s, f in (("s", small), ("b", big))
        }
        assert size["b"] > size["s"], key
        assert (
            big[key][0]["config"]["text"]["fontSize"] > small[key][0]["config"]["text"]["fontSize"]
        )
    z = zoo_comparison(P, Q, "inverted_ratio", SEED, n_max=1000)
    figs = zoo_figures(LABELS, S, ChartStyle(projector=True), z)
    assert set(figs) == {"law", "tv"} and all(isinstance(f[0], dict) for f in figs.values())


def _ten_words():
    p = np.full(10, 0.1)
    q = np.linspace(1, 2, 10) / np.linspace(1, 2, 10).sum()
    return tuple(f"w{i}" for i in range(10)), step(p, q)


def test_no_numbers_over_the_bars_of_a_large_vocabulary() -> None:
    """Ten words: printed shares would collide, so only the tooltips and the caption carry them."""
    words, ten = _ten_words()
    big = monte_carlo(ten.p, ten.q, 1000, SEED)
    z = zoo_comparison(ten.p, ten.q, "inverted_ratio", SEED, 100)
    for spec in (charts.histogram_figure(words, ten, big)[0], zoo_law_figure(words, ten, z, "x")):
        assert not any(column(spec["datasets"]["bars"], "label"))
    breakdown = charts.breakdown_figure(words, ten, big)[0]["datasets"]["words"]
    assert not any(column(breakdown, "label"))  # the shares over the stacks
    # Four words on a projector's width: every share is printed.
    four = monte_carlo(P, Q, 1000, SEED)
    wide = charts.histogram_figure(LABELS, S, four, ChartStyle(projector=True))[0]
    assert all(column(wide["datasets"]["bars"], "label"))


def test_numbers_inside_the_accepted_bars_follow_the_fitting_rule() -> None:
    """No word count decides: the shares inside the accepted bars are printed where fit_row says
    the row can be read, and all left out otherwise."""
    for words, one in (_ten_words(), (LABELS, S)):
        run_ = monte_carlo(one.p, one.q, 1000, SEED)
        spec = charts.breakdown_figure(words, one, run_)[0]
        parts, rows = spec["datasets"]["parts"], spec["datasets"]["words"]
        accepted = column(parts, "share", j=0)
        shares = [percent(v) if v > 0 else "" for v in accepted]
        np.testing.assert_allclose(column(rows, "inside_y"), accepted / 2, atol=TOL)
        fits = row_fits(shares, list(accepted / 2), rows[0]["room"] / charts.HEADROOM, ChartStyle())
        assert list(column(rows, "inside")) == (shares if fits else [""] * len(shares))
    four = charts.breakdown_figure(LABELS, S, monte_carlo(P, Q, 1000, SEED))[0]
    assert all(column(four["datasets"]["words"], "inside"))  # four words: every share printed


@pytest.mark.parametrize("projector", [False, True])
@pytest.mark.parametrize("size", [3, 4, 6, 8, 10])
def test_numbers_over_the_histogram_are_printed_exactly_where_they_fit(
    size: int, projector: bool
) -> None:
    """The one fitting rule (figures.fit.row_fits) decides, not a count of words: the shares are
    printed when the row can be read at the chart's narrowest width, the emitted words' alone
    when only they can, and none otherwise."""
    style = ChartStyle(projector=projector)
    weights = np.arange(1, size + 1, dtype=float)
    one = step(weights / weights.sum(), weights[::-1] / weights.sum())
    words = tuple(f"word{i}" for i in range(size))
    run_ = monte_carlo(one.p, one.q, 1000, SEED)
    rows = charts.histogram_figure(words, one, run_, style)[0]["datasets"]["bars"]
    shares = [
        percent(v)
        for v in np.column_stack(
            [run_.counts.output_counts / run_.n, run_.counts.draft_counts / run_.n]
        ).ravel()
    ]
    assert [percent(v) for v in column(rows, "share")] == shares
    # Over the bar or its exact stroke, whichever is higher.
    heights = np.maximum(column(rows, "share"), column(rows, "exact"))
    np.testing.assert_allclose(column(rows, "label_y"), heights, atol=TOL)
    # Every share, or the left bars' (the emitted words') where neighbours would touch, or none.
    left = [s if k % 2 == 0 else "" for k, s in enumerate(shares)]
    forms = [f for f in (shares, left) if row_fits(f, list(heights), rows[0]["room"], style, True)]
    assert list(column(rows, "label")) == (forms[0] if forms else [""] * len(shares))
