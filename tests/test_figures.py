"""Chart builders draw the core's numbers: read them back from the figures, compare to the math.

Every builder takes the one-token step (:func:`specviz.one_token.step`): the numbers it draws and
writes are the step's, so they are compared with the step's arrays exactly, and with hand values.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import trace

from specviz.figures import captions
from specviz.figures.numbers import percent
from specviz.figures.playground import acceptance_figure, bucket_figure, proof_figure
from specviz.figures.style import ChartStyle
from specviz.one_token import step
from specviz.palette import Notation

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
S = step(P, Q)
TOL = 1e-12


def ratio_row(fig) -> tuple[str, ...]:
    """The text row printed over the acceptance bars (the one text-only scatter)."""
    (row,) = [t for t in fig.data if t.type == "scatter"]
    return row.text


def test_acceptance_figure_stacks_accept_and_reject_to_one() -> None:
    fig = acceptance_figure(LABELS, S)
    accept = np.array(trace(fig, "accepted").y)
    reject = np.array(trace(fig, "rejected").y)
    np.testing.assert_allclose(accept, [1, 1, 2 / 3, 1 / 4], atol=TOL)
    np.testing.assert_allclose(accept + reject, 1, atol=TOL)
    # At a phone's width the ratio goes over its number; on a projector's, on one line.
    assert ratio_row(fig) == ("p/q<br>4.00", "p/q<br>1.50", "p/q<br>0.67", "p/q<br>0.25")
    wide = acceptance_figure(LABELS, S, ChartStyle(projector=True))
    assert ratio_row(wide) == ("p/q = 4.00 → 1", "p/q = 1.50 → 1", "p/q = 0.67", "p/q = 0.25")


def test_acceptance_figure_names_never_proposed_tokens() -> None:
    q = np.array([0.5, 0.3, 0.2, 0.0])
    fig = acceptance_figure(LABELS, step(P, q))
    assert ratio_row(fig)[3] == "q = 0"  # the compact form a phone's width allows
    wide = acceptance_figure(LABELS, step(P, q), ChartStyle(projector=True))
    assert ratio_row(wide)[3].replace("<br>", " ") == "never proposed (q = 0)"
    assert trace(fig, "rejected").y[3] == 0


def test_bucket_figure_shows_the_residual_and_its_size() -> None:
    fig = bucket_figure(LABELS, S)
    np.testing.assert_allclose(trace(fig, "bucket").y, [0.75, 0.25, 0, 0], atol=TOL)
    # The key point has a line of its own: the size of the bucket is the chance of a rejection.
    lines = fig.layout.title.text.split("<br>")
    assert any("size Z = 40% = P(rejection)" in line for line in lines), lines


def test_empty_bucket_says_so_instead_of_drawing_noise() -> None:
    # Equal up to rounding: p built as thirds, q as the same thirds computed another way.
    p = np.array([1, 1, 1]) / 3
    q = np.array([1 / 3, 1 / 3, 1 - 2 / 3])
    fig = bucket_figure(LABELS[:3], step(p, q))
    assert np.all(np.array(trace(fig, "bucket").y) == 0)
    assert "empty" in fig.layout.annotations[0].text


def test_proof_figure_stacks_exactly_to_p() -> None:
    fig = proof_figure(LABELS, S)
    kept = np.array(trace(fig, "kept").y)
    refill = np.array(trace(fig, "refills").y)
    np.testing.assert_allclose(kept, np.minimum(P, Q), atol=TOL)
    np.testing.assert_allclose(refill, np.maximum(P - Q, 0), atol=TOL)
    np.testing.assert_allclose(kept + refill, P, atol=TOL)
    outline = trace(fig, "outline")
    heights = [y for y in outline.y if y is not None]
    np.testing.assert_allclose(heights, np.repeat(P, 2), atol=TOL)


@pytest.mark.parametrize("build", [acceptance_figure, bucket_figure, proof_figure])
def test_projector_mode_is_larger_and_lettering_can_swap(build) -> None:
    normal = build(LABELS, S, ChartStyle())
    big = build(LABELS, S, ChartStyle(projector=True, notation=Notation(swapped=True)))
    assert big.layout.font.size >= normal.layout.font.size + 6
    assert big.layout.height > normal.layout.height
    assert big.layout.transition.duration > 0  # bars glide between states in the browser
    assert big.layout.title.text != normal.layout.title.text  # the letters changed


def test_swapped_letters_name_the_target_q() -> None:
    style = ChartStyle(notation=Notation(swapped=True))
    assert "min(1, q/p)" in acceptance_figure(LABELS, S, style).layout.title.text


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
    accept, bucket, proof = (
        build(LABELS, S) for build in (acceptance_figure, bucket_figure, proof_figure)
    )
    np.testing.assert_array_equal(trace(accept, "accepted").y, S.accept)
    np.testing.assert_array_equal(trace(accept, "rejected").y, 1.0 - S.accept)
    np.testing.assert_array_equal(trace(bucket, "bucket").y, S.residual)
    np.testing.assert_array_equal(trace(proof, "kept").y, S.kept)
    np.testing.assert_array_equal(trace(proof, "refills").y, S.refill)
    assert f"Z = {percent(S.z)}" in bucket.layout.title.text


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
    accept, bucket, proof = (
        build(LABELS, fake) for build in (acceptance_figure, bucket_figure, proof_figure)
    )
    np.testing.assert_array_equal(trace(accept, "accepted").y, fake.accept)
    np.testing.assert_array_equal(trace(bucket, "bucket").y, fake.residual)
    np.testing.assert_array_equal(trace(proof, "kept").y, fake.kept)
    np.testing.assert_array_equal(trace(proof, "refills").y, fake.refill)
    assert "Z = 50%" in bucket.layout.title.text
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
