"""Chart builders draw the core's numbers: read them back from the figures, compare to the math."""

from __future__ import annotations

import numpy as np
import pytest

from specviz.figures import captions
from specviz.figures.landing import pair_chart
from specviz.figures.playground import (
    acceptance_figure,
    bucket_figure,
    distributions_figure,
    proof_figure,
)
from specviz.figures.style import ChartStyle, percent
from specviz.palette import Notation

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
TOL = 1e-12


def trace(fig, name_part: str):
    matches = [t for t in fig.data if t.name and name_part in t.name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


def test_distributions_figure_draws_p_and_q_with_status_labels() -> None:
    fig = distributions_figure(LABELS, P, Q)
    np.testing.assert_allclose(trace(fig, "target").y, P, atol=TOL)
    np.testing.assert_allclose(trace(fig, "draft").y, Q, atol=TOL)
    ticks = fig.layout.xaxis.ticktext
    # mat, sofa under-sampled (q < p); floor, bed over-sampled (q > p): icon AND word.
    assert ["▲ under" in t for t in ticks] == [True, True, False, False]
    assert ["▼ over" in t for t in ticks] == [False, False, True, True]
    assert trace(fig, "draft").marker.pattern.shape  # hatched: not colour alone


def test_balanced_tokens_are_marked_balanced() -> None:
    fig = distributions_figure(LABELS, P, P)
    assert all("= balanced" in t for t in fig.layout.xaxis.ticktext)


def test_acceptance_figure_stacks_accept_and_reject_to_one() -> None:
    fig = acceptance_figure(LABELS, P, Q)
    accept = np.array(trace(fig, "accepted").y)
    reject = np.array(trace(fig, "rejected").y)
    np.testing.assert_allclose(accept, [1, 1, 2 / 3, 1 / 4], atol=TOL)
    np.testing.assert_allclose(accept + reject, 1, atol=TOL)
    ratios = next(t for t in fig.data if t.type == "scatter").text
    assert ratios == ("p/q = 4.00 → 1", "p/q = 1.50 → 1", "p/q = 0.67", "p/q = 0.25")


def test_acceptance_figure_names_never_proposed_tokens() -> None:
    q = np.array([0.5, 0.3, 0.2, 0.0])
    fig = acceptance_figure(LABELS, P, q)
    label = next(t for t in fig.data if t.type == "scatter").text[3]
    assert label.replace("<br>", " ") == "never proposed (q = 0)"
    assert trace(fig, "rejected").y[3] == 0


def test_bucket_figure_shows_the_residual_and_its_size() -> None:
    fig = bucket_figure(LABELS, P, Q)
    np.testing.assert_allclose(trace(fig, "bucket").y, [0.75, 0.25, 0, 0], atol=TOL)
    # The key point has a line of its own: the size of the bucket is the chance of a rejection.
    lines = fig.layout.title.text.split("<br>")
    assert any("size Z = 40% = P(rejection)" in line for line in lines), lines


def test_empty_bucket_says_so_instead_of_drawing_noise() -> None:
    # Equal up to rounding: p built as thirds, q as the same thirds computed another way.
    p = np.array([1, 1, 1]) / 3
    q = np.array([1 / 3, 1 / 3, 1 - 2 / 3])
    fig = bucket_figure(LABELS[:3], p, q)
    assert np.all(np.array(trace(fig, "bucket").y) == 0)
    assert "empty" in fig.layout.annotations[0].text


def test_proof_figure_stacks_exactly_to_p() -> None:
    fig = proof_figure(LABELS, P, Q)
    kept = np.array(trace(fig, "kept").y)
    refill = np.array(trace(fig, "refills").y)
    np.testing.assert_allclose(kept, np.minimum(P, Q), atol=TOL)
    np.testing.assert_allclose(refill, np.maximum(P - Q, 0), atol=TOL)
    np.testing.assert_allclose(kept + refill, P, atol=TOL)
    outline = trace(fig, "outline")
    heights = [y for y in outline.y if y is not None]
    np.testing.assert_allclose(heights, np.repeat(P, 2), atol=TOL)


@pytest.mark.parametrize(
    "build", [distributions_figure, acceptance_figure, bucket_figure, proof_figure]
)
def test_projector_mode_is_larger_and_lettering_can_swap(build) -> None:
    normal = build(LABELS, P, Q, ChartStyle())
    big = build(LABELS, P, Q, ChartStyle(projector=True, notation=Notation(swapped=True)))
    assert big.layout.font.size >= normal.layout.font.size + 6
    assert big.layout.height > normal.layout.height
    assert big.layout.transition.duration > 0  # bars glide between states in the browser
    assert big.layout.title.text != normal.layout.title.text  # the letters changed


def test_swapped_letters_name_the_target_q() -> None:
    style = ChartStyle(notation=Notation(swapped=True))
    assert distributions_figure(LABELS, P, Q, style).layout.title.text.startswith(
        "Target q vs draft p"
    )
    assert "min(1, q/p)" in acceptance_figure(LABELS, P, Q, style).layout.title.text


def test_captions_say_what_the_charts_show() -> None:
    n = Notation()
    text = captions.distributions_caption(LABELS, P, Q, n)
    assert "Over-sampled" in text and "floor (30% > 20%)" in text and "mat (10% < 40%)" in text
    assert "mat 100%" in captions.acceptance_caption(LABELS, P, Q, n)
    assert "Z = 40%" in captions.bucket_caption(LABELS, P, Q, n)
    assert "empty" in captions.bucket_caption(LABELS, P, P, n)
    assert "mat: 10% + 30% = 40%" in captions.proof_caption(LABELS, P, Q, n)


def test_landing_chart_carries_both_distributions() -> None:
    spec = pair_chart(LABELS, P, Q).to_dict()
    rows = spec["data"]["values"] if "values" in spec.get("data", {}) else None
    if rows is None:
        rows = next(iter(spec["datasets"].values()))
    probs = sorted(round(r["prob"], 12) for r in rows)
    assert probs == sorted(np.round(np.concatenate([P, Q]), 12).tolist())
    assert {r["tag"].split()[0] for r in rows} == {"p", "q"}  # letters, not colour alone


@pytest.mark.parametrize(
    ("x", "text"),
    [(0, "0%"), (1, "100%"), (0.4, "40%"), (1 / 3, "33.3%"), (0.99996, "99.996%"), (1e-4, "0.01%")],
)
def test_percent_never_rounds_to_a_misleading_value(x: float, text: str) -> None:
    assert percent(x) == text
