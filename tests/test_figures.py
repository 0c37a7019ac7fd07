"""Chart builders draw the core's numbers: read them back from the specs' datasets, compare to
the math.

Every builder takes the one-token step (:func:`specviz.one_token.step`): the numbers it draws and
writes are the step's, so they are compared with the step's arrays exactly, and with hand values.
Every spec passes Vega-Lite's schema, and two states with the same words and style give the same
spec but for its datasets: that is what lets Streamlit update a mounted chart in place.
"""

from __future__ import annotations

import contextvars
from dataclasses import replace

import altair as alt
import numpy as np
import pytest

from specviz import text
from specviz.figures import captions, vega
from specviz.figures.exactness import acceptance_figure, bucket_figure, proof_figure
from specviz.figures.numbers import pace, percent
from specviz.figures.style import ChartStyle
from specviz.figures.tables import markdown_table
from specviz.limits import TABLE_ROWS
from specviz.one_token import step
from specviz.palette import Notation

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
S = step(P, Q)
TOL = 1e-12
STYLE = ChartStyle()
BUILDERS = [acceptance_figure, bucket_figure, proof_figure]


def column(spec: dict, field: str, dataset: str = "bars") -> np.ndarray:
    """One field of a dataset, a value per word (in the words' order)."""
    rows = sorted(spec["datasets"][dataset], key=lambda row: row["i"])
    return np.array([row[field] for row in rows])


def texts(spec: dict, field: str) -> tuple[str, ...]:
    return tuple(column(spec, field).tolist())


def ratio_row(spec: dict) -> tuple[str, ...]:
    """The text printed over the acceptance bars, its lines joined by a newline."""
    top, bottom = texts(spec, "ratio_top"), texts(spec, "ratio")
    return tuple("\n".join(t for t in pair if t) for pair in zip(top, bottom, strict=True))


def note(spec: dict) -> dict:
    """The bucket chart's one row of text: its size line and the empty-bucket message."""
    (row,) = spec["datasets"]["note"]
    return row


def title(spec: dict) -> str:
    return " ".join(spec["title"])


def valid(spec: dict) -> dict:
    """The spec passes Vega-Lite's schema (Altair validates what it reads)."""
    assert alt.LayerChart.from_dict(spec).to_dict(validate=True)["layer"]
    return spec


def without_data(spec: dict) -> dict:
    return {key: value for key, value in spec.items() if key != "datasets"}


def test_acceptance_figure_stacks_accept_and_reject_to_one() -> None:
    spec = valid(acceptance_figure(LABELS, S, STYLE))
    accept, reject = column(spec, "accept"), column(spec, "reject")
    np.testing.assert_allclose(accept, [1, 1, 2 / 3, 1 / 4], atol=TOL)
    np.testing.assert_allclose(accept + reject, 1, atol=TOL)
    np.testing.assert_allclose(column(spec, "top"), accept + reject, atol=TOL)
    # The rejected bar is drawn from the accepted one's top to 1.
    rejected = spec["layer"][1]["encoding"]
    assert (rejected["y"]["field"], rejected["y2"]["field"]) == ("top", "accept")
    # At a phone's width the ratio goes over its number; on a projector's, on one line.
    assert ratio_row(spec) == ("p/q\n4.00", "p/q\n1.50", "p/q\n0.67", "p/q\n0.25")
    wide = acceptance_figure(LABELS, S, ChartStyle(projector=True))
    assert ratio_row(wide) == ("p/q = 4.00 → 1", "p/q = 1.50 → 1", "p/q = 0.67", "p/q = 0.25")
    # The numbers inside the bars, and the ratio in every tooltip.
    assert texts(wide, "kept_text") == ("100%", "100%", "66.7%", "25%")
    assert texts(wide, "bounced_text") == ("", "", "33.3%", "75%")
    assert texts(spec, "hover")[0] == "p/q = 4.00 → 1"


def test_acceptance_figure_names_never_proposed_tokens() -> None:
    # A short neighbour ("p/q = 0.50"): two long forms side by side need more than a projector's
    # 800 px at its 24 px type.
    q = np.array([0.3, 0.3, 0.4, 0.0])
    spec = acceptance_figure(LABELS, step(P, q), STYLE)
    assert ratio_row(spec)[3] == "q = 0"  # the compact form a phone's width allows
    wide = acceptance_figure(LABELS, step(P, q), ChartStyle(projector=True))
    assert ratio_row(wide)[3].replace("\n", " ") == "never proposed (q = 0)"
    assert column(spec, "reject")[3] == 0
    assert texts(wide, "kept_text")[3] == "—"
    # The y axis reaches higher for the two lines of text over the bars.
    assert wide["datasets"]["ceiling"] == [{"y": pytest.approx(1.06 + 0.14 * 2)}]


def test_bucket_figure_shows_the_residual_and_its_size() -> None:
    spec = valid(bucket_figure(LABELS, S, STYLE))
    np.testing.assert_allclose(column(spec, "r"), [0.75, 0.25, 0, 0], atol=TOL)
    assert texts(spec, "label") == ("75%", "25%", "", "")
    # The key point has a line of its own: the size of the bucket is the chance of a rejection.
    assert note(spec)["size"] == "Its size Z = 40% = P(rejection)"
    assert note(spec)["empty"] == ""


def test_empty_bucket_says_so_instead_of_drawing_noise() -> None:
    # Equal up to rounding: p built as thirds, q as the same thirds computed another way.
    p = np.array([1, 1, 1]) / 3
    q = np.array([1 / 3, 1 / 3, 1 - 2 / 3])
    spec = valid(bucket_figure(LABELS[:3], step(p, q), STYLE))
    assert np.all(column(spec, "r") == 0)
    assert "empty" in note(spec)["empty"] and "Z = 0%" in note(spec)["size"]


def test_proof_figure_stacks_exactly_to_p() -> None:
    spec = valid(proof_figure(LABELS, S, STYLE))
    kept, refill = column(spec, "kept"), column(spec, "refill")
    np.testing.assert_allclose(kept, np.minimum(P, Q), atol=TOL)
    np.testing.assert_allclose(refill, np.maximum(P - Q, 0), atol=TOL)
    np.testing.assert_allclose(kept + refill, P, atol=TOL)
    np.testing.assert_allclose(column(spec, "top"), P, atol=TOL)
    # The target's dashed outline is drawn at field p, the step's target.
    (outline,) = [layer for layer in spec["layer"] if layer["mark"]["type"] == "rule"][:1]
    assert outline["encoding"]["y"]["field"] == "p" and outline["mark"]["strokeDash"]
    np.testing.assert_allclose(column(spec, "p"), P, atol=TOL)
    assert texts(spec, "total") == ("= 40%", "= 30%", "= 20%", "= 10%")


@pytest.mark.parametrize("build", BUILDERS)
def test_projector_mode_is_larger_and_lettering_can_swap(build) -> None:
    normal = build(LABELS, S, ChartStyle())
    big = valid(build(LABELS, S, ChartStyle(projector=True, notation=Notation(swapped=True))))
    assert big["config"]["axis"]["labelFontSize"] >= normal["config"]["axis"]["labelFontSize"] + 6
    assert big["config"]["text"]["fontSize"] > normal["config"]["text"]["fontSize"]
    assert big["height"] > normal["height"]
    assert title(big) != title(normal)  # the letters changed


@pytest.mark.parametrize("build", BUILDERS)
def test_a_new_state_changes_only_the_datasets(build) -> None:
    """Two states with the same words and style: the same spec but for its data, so the chart
    on the page is updated in place (Streamlit sends the new datasets only)."""
    other = step(np.array([0.1, 0.1, 0.1, 0.7]), np.array([0.25, 0.25, 0.5, 0.0]))
    for style in (ChartStyle(), ChartStyle(projector=True, notation=Notation(swapped=True))):
        one, two = build(LABELS, S, style), build(LABELS, other, style)
        assert one["datasets"] != two["datasets"]
        assert without_data(one) == without_data(two)


def test_swapped_letters_name_the_target_q() -> None:
    style = ChartStyle(notation=Notation(swapped=True))
    assert "min(1, q/p)" in title(acceptance_figure(LABELS, S, style))
    names = proof_figure(LABELS, S, style)["layer"][0]["encoding"]["color"]["scale"]["domain"]
    assert names[0] == "✓ kept guesses: min(q, p)" and names[2].startswith("● target q")


def test_every_legend_entry_carries_its_icon() -> None:
    for build in BUILDERS:
        spec = build(LABELS, S, STYLE)
        scales = [
            layer["encoding"]["color"]["scale"]
            for layer in spec["layer"]
            if "color" in layer["encoding"]
        ]
        for name in scales[0]["domain"]:
            assert name[0] in "✓✗◌●", name
        assert all(scale == scales[0] for scale in scales)  # one legend per chart


def test_captions_say_what_the_charts_show() -> None:
    n = Notation()
    assert "mat 100%" in captions.acceptance_caption(LABELS, S, n)
    assert "Z = 40%" in captions.bucket_caption(LABELS, S, n)
    assert "empty" in captions.bucket_caption(LABELS, step(P, P), n)
    assert "mat: 10% + 30% = 40%" in captions.proof_caption(LABELS, S, n)


@pytest.mark.parametrize(
    ("x", "text"),
    [(0, "0%"), (1, "100%"), (0.4, "40%"), (1 / 3, "33.3%"), (0.99996, "99.996%"), (1e-4, "0.01%")],
)
def test_percent_never_rounds_to_a_misleading_value(x: float, text: str) -> None:
    assert percent(x) == text


# --------------------------------------------------------------------------- they read the step


def test_every_step_chart_draws_the_steps_arrays_exactly() -> None:
    accept, bucket, proof = (build(LABELS, S, STYLE) for build in BUILDERS)
    np.testing.assert_array_equal(column(accept, "accept"), S.accept)
    np.testing.assert_array_equal(column(accept, "reject"), 1.0 - S.accept)
    np.testing.assert_array_equal(column(bucket, "r"), S.residual)
    np.testing.assert_array_equal(column(proof, "kept"), S.kept)
    np.testing.assert_array_equal(column(proof, "refill"), S.refill)
    np.testing.assert_array_equal(column(proof, "p"), S.p)
    assert f"Z = {percent(S.z)}" in note(bucket)["size"]


def _doctored() -> object:
    """A step whose numbers no builder could recompute from p and q: a builder that shows them
    read them from the step."""
    return replace(
        S,
        accept=np.array([0.9, 0.8, 0.7, 0.6]),
        kept=np.array([0.05, 0.15, 0.25, 0.05]),
        refill=np.array([0.35, 0.15, 0.0, 0.0]),
        residual=np.array([0.5, 0.5, 0.0, 0.0]),
        z=0.5,
        alpha=0.5,
    )


def test_builders_and_captions_take_their_numbers_from_the_step() -> None:
    fake = _doctored()
    accept, bucket, proof = (build(LABELS, fake, STYLE) for build in BUILDERS)
    np.testing.assert_array_equal(column(accept, "accept"), fake.accept)
    np.testing.assert_array_equal(column(bucket, "r"), fake.residual)
    np.testing.assert_array_equal(column(proof, "kept"), fake.kept)
    np.testing.assert_array_equal(column(proof, "refill"), fake.refill)
    assert "Z = 50%" in note(bucket)["size"]
    # The captions quote the same numbers as the charts.
    n = Notation()
    accept_text = captions.acceptance_caption(LABELS, fake, n)
    assert "mat 90%" in accept_text and "sofa 80%" in accept_text
    bucket_text = captions.bucket_caption(LABELS, fake, n)
    assert "Z = 50%" in bucket_text and "mat 50%; sofa 50%" in bucket_text
    assert "mat: 5% + 35% = 40%" in captions.proof_caption(LABELS, fake, n)


def test_captions_quote_the_steps_numbers_for_every_word() -> None:
    n = Notation()
    proof = captions.proof_caption(LABELS, S, n)
    accept = captions.acceptance_caption(LABELS, S, n)
    bucket = captions.bucket_caption(LABELS, S, n)
    for i, word in enumerate(LABELS):
        assert f"{word}: {percent(S.kept[i])} + {percent(S.refill[i])} = {percent(S.p[i])}" in proof
        assert f"{word} {percent(S.accept[i])}" in accept
        if S.residual[i] > 0:
            assert f"{word} {percent(S.residual[i])}" in bucket
    assert f"Z = {percent(S.z)}" in bucket


@pytest.mark.parametrize(
    ("speedup", "verdict"),
    [
        (0.994, "slower than"),
        (0.996, "as fast as"),
        (1.0, "as fast as"),
        (1.004, "as fast as"),
        (1.006, "faster than"),
        (0.0, "slower than"),
    ],
)
def test_pace_judges_the_value_on_show(speedup, verdict):
    """ "1.00×" is never called slower or faster: the verdict of the number a learner reads."""
    assert pace(speedup) == verdict
    assert (f"{speedup:.2f}" == "1.00") == (verdict == "as fast as")


def test_a_charts_numbers_are_its_tooltips_as_a_table() -> None:
    """What a tooltip says of each bar, as a table a screen reader or a keyboard can read: its
    headings, and every row's written value; a line of hundreds of points is left out."""
    rows = [{"word": "mat", "share": 0.4, "n": 1200}, {"word": "sofa", "share": 0.125, "n": 7}]
    tip = vega.tooltip("word", ("share", "Target p", percent), ("n", "Runs"))
    bars = {"data": vega.data("bars"), "mark": "bar", "encoding": {"tooltip": tip}}
    long = {"data": vega.data("line"), "mark": "line", "encoding": {"tooltip": tip}}
    datasets = {"bars": rows, "line": rows * (TABLE_ROWS // 2 + 1)}
    figure = vega.chart(ChartStyle(), "t", datasets, [bars, bars, long])
    assert vega.numbers(figure) == [
        {"word": ["mat", "sofa"], "Target p": ["40%", "12.5%"], "Runs": ["1,200", "7"]}
    ]


def test_a_charts_table_has_a_few_points_of_each_line_with_its_ends() -> None:
    """Lines of hundreds of points (the convergence charts): their table keeps, of each line,
    points evenly spaced along it, its first and last among them, at most TABLE_ROWS in all."""
    points = 3 * TABLE_ROWS
    rows = [{"line": name, "n": n} for name in ("a", "b", "c") for n in range(points)]
    tip = vega.tooltip(("line", "line"), ("n", "N"))
    line = {"data": vega.data("d"), "mark": "line"}
    line["encoding"] = {"detail": {"field": "line", "type": "nominal"}, "tooltip": tip}
    (table,) = vega.numbers(vega.chart(ChartStyle(), "t", {"d": rows}, [line]))
    each = TABLE_ROWS // 3
    assert table["line"] == ["a"] * each + ["b"] * each + ["c"] * each
    n = [int(v) for v in table["N"][:each]]
    assert n[0] == 0 and n[-1] == points - 1 and table["N"][-1] == f"{points - 1:,}"
    assert max(np.diff(n)) - min(np.diff(n)) <= 1  # evenly spaced


def test_a_charts_table_holds_the_rows_its_layer_draws() -> None:
    """One dataset holds several kinds of rows (a chart's cells and its ranges): each layer's
    table holds the rows of its kind only (the published chart's table had ranges' blank cells
    under its cells, and its ranges' table the cells' settings)."""
    rows = [{"kind": "cell", "a": 0.5, "s": 2.0}, {"kind": "range", "a": 1.1, "lo": 1.8}]
    cells = {"data": vega.data("d"), "transform": [vega.of_kind("cell")], "mark": "point"}
    ranges = {"data": vega.data("d"), "transform": [vega.of_kind("range")], "mark": "rule"}
    cells["encoding"] = {"tooltip": vega.tooltip(("a", "α"), ("s", "×"))}
    ranges["encoding"] = {"tooltip": vega.tooltip(("lo", "from"))}
    figure = vega.chart(ChartStyle(), "t", {"d": rows}, [cells, ranges, {"layer": [ranges]}])
    assert vega.numbers(figure) == [{"α": ["0.5"], "×": ["2"]}, {"from": ["1.8"]}]


def test_a_table_cell_keeps_its_no_break_space() -> None:
    """Spanish writes "40 %" with a no-break space, which a table must keep (the cell would
    break between the number and its sign); a newline or a pipe still cannot come through."""
    assert markdown_table({"p": ["40\u00a0%", "a\nb|c"]}).splitlines()[2:] == [
        "| 40\u00a0% |",
        "| a b\\|c |",
    ]


@pytest.mark.parametrize(("language", "rows"), [("en", 1), ("es", 2), ("zh", 1)])
def test_a_projector_legend_is_one_row_where_it_fits(language: str, rows: int) -> None:
    """On a projector the proof's legend runs side by side, on one row where its words fit a
    1280 px projector's chart and on two where they would run past its edge (Spanish: ~1,120 px
    of words)."""

    def legend() -> dict:
        text.use(language)
        spec = proof_figure(LABELS, S, ChartStyle(projector=True))
        return spec["layer"][0]["encoding"]["color"]["legend"]

    shown = contextvars.copy_context().run(legend)
    assert shown["direction"] == "horizontal"
    assert shown.get("columns") == (2 if rows == 2 else None)
    assert (
        "columns" not in proof_figure(LABELS, S, STYLE)["layer"][0]["encoding"]["color"]["legend"]
    )
