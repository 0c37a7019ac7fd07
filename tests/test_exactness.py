"""The data and text of the page "Why it's exact" (specviz.exactness, specviz.figures.exactness):
the proof's cases hold at the extremes, each question's answer is the math's, the float32 leak's
numbers, and every number printed is the step's.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pytest
from helpers import z_score

from specviz.exactness import (
    CASES,
    CASES_BY_KEY,
    FILTER,
    QUESTIONS,
    QUESTIONS_BY_KEY,
    WORDS,
    float32_leak,
)
from specviz.figures import exactness as fx
from specviz.figures.style import ChartStyle
from specviz.links import CASE
from specviz.one_token import step
from specviz.palette import Notation
from specviz.scenario import DEFAULT_WORDS

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
NOTE = Notation()


# ================================================================================ the cases


def test_the_words_are_the_playgrounds() -> None:
    assert DEFAULT_WORDS[:4] == WORDS
    assert CASE.choices == ("yours", *CASES_BY_KEY)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.key)
def test_every_case_emits_exactly_the_target(case) -> None:
    one = case.step()
    np.testing.assert_allclose(one.output, one.p, atol=1e-15)
    assert one.p.sum() == pytest.approx(1) and one.q.sum() == pytest.approx(1)


def test_the_filter_case_shuts_both_routes_for_bed() -> None:
    one = FILTER.step()
    assert one.p[3] == 0 and one.q[3] == 0.9
    assert one.accept[3] == 0 and one.residual[3] == 0 and one.output[3] == 0
    text = fx.filter_sentence(WORDS, one, NOTE)
    assert "P(emit bed) = 90%·0 + 90%·0 = **0%**" in text
    assert "a(x) = 0 because p(x) = 0" in text


def test_the_extreme_cases() -> None:
    assert CASES_BY_KEY["identical"].step().z == 0
    assert CASES_BY_KEY["disjoint"].step().alpha == 0
    assert CASES_BY_KEY["misses"].step().refill[3] == pytest.approx(0.1)
    assert CASES_BY_KEY["one_hot"].step().alpha == pytest.approx(0.4)


# ============================================================================ the questions

#: The right answer of each question, by hand.
ANSWERS = {
    # sum min(p, q) = .05 + .15 + .15 + .05 (the default pair's 60% would be a spoiler)
    "alpha": "40%",
    # q < p only for floor (5% < 20%); mat and bed are over-proposed, sofa exact.
    "topped_up": "floor only",
    # bed: 0 kept + max(0, .1 - 0) from the bucket = .1 = p(bed).
    "missing": "Yes, exactly 10% of the time",
    # Both drafts give p; alpha .9 vs .1.
    "worse": "Only the speed: the words still follow {T}",
}


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.key)
def test_each_answer_is_the_maths(question) -> None:
    right = ANSWERS[question.key]
    assert question.options[question.answer] == right
    assert question.is_right(right)
    assert not any(question.is_right(o) for o in question.options if o != right)
    with pytest.raises(ValueError, match="guess"):
        question.is_right("something else")


def test_the_reveals_carry_the_states_numbers() -> None:
    text = fx.reveal(QUESTIONS_BY_KEY["alpha"], NOTE)
    assert "α = Σ min(p, q) = 5% + 15% + 15% + 5% = **40%**" in text
    text = fx.reveal(QUESTIONS_BY_KEY["topped_up"], NOTE)
    assert "**floor**" in text and "mat (50% > 40%)" in text and "bed (15% > 10%)" in text
    text = fx.reveal(QUESTIONS_BY_KEY["missing"], NOTE)
    assert "exactly 10%" in text and "0% + 10% = 10%" in text
    text = fx.reveal(QUESTIONS_BY_KEY["worse"], NOTE)
    assert "from 90% to 10%" in text and "4.10 words" in text and "1.11" in text
    swapped = fx.reveal(QUESTIONS_BY_KEY["alpha"], Notation(swapped=True))
    assert "Σ min(q, p)" in swapped


def column(spec: dict, field: str) -> np.ndarray:
    """One field of a chart's per-word dataset, in the words' order."""
    rows = sorted(spec["datasets"]["bars"], key=lambda row: row["i"])
    return np.array([row[field] for row in rows])


def valid(spec: dict) -> dict:
    """The spec passes Vega-Lite's schema (Altair validates what it reads)."""
    assert alt.LayerChart.from_dict(spec).to_dict(validate=True)["layer"]
    return spec


def test_question_figures_draw_the_questions_state() -> None:
    fig, caption = fx.question_figure("missing", ChartStyle())
    one = CASES_BY_KEY["misses"].step()
    np.testing.assert_array_equal(column(valid(fig), "refill"), one.refill)
    np.testing.assert_array_equal(column(fig, "kept"), one.kept)
    assert "bed: 0% + 10% = 10%" in caption
    fig, _ = fx.question_figure("topped_up", ChartStyle())
    np.testing.assert_allclose(column(valid(fig), "r"), [0, 0, 1, 0])


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.key)
@pytest.mark.parametrize("projector", [False, True])
def test_every_question_figure_is_valid_vega_lite(question, projector) -> None:
    style = ChartStyle(projector=projector, notation=Notation(swapped=projector))
    fig, caption = fx.question_figure(question.key, style)
    valid(fig)
    assert caption and "{T}" not in caption and "{D}" not in caption


# ============================================================================= the proof


def test_the_table_adds_up_word_by_word() -> None:
    table = fx.proof_table(WORDS, step(P, Q), NOTE)
    assert table["word"] == [*WORDS, "all"]
    assert table["kept q·a"] == ["10%", "20%", "20%", "10%", "α = 60%"]
    assert table["bucket Z·r"] == ["30%", "10%", "0%", "0%", "Z = 40%"]
    assert table["sum = p?"] == ["40% ✓", "30% ✓", "20% ✓", "10% ✓", "100%"]
    swapped = fx.proof_table(WORDS, step(P, Q), Notation(swapped=True))
    assert "q(x)" in swapped and "kept p·a" in swapped


def test_a_word_never_proposed_says_so() -> None:
    table = fx.proof_table(WORDS, CASES_BY_KEY["misses"].step(), NOTE)
    assert table["a(x) = min(1, p/q)"][3] == "never proposed"
    assert table["kept q·a"][3] == "0%" and table["bucket Z·r"][3] == "10%"
    assert table["sum = p?"][3] == "10% ✓"


def test_the_rejection_equation() -> None:
    text = fx.rejection_equation(WORDS, step(P, Q), NOTE)
    assert "10% (floor) + 30% (bed) = **40%**" in text
    assert "30% (mat) + 10% (sofa) = **Z = 40%**" in text
    assert "never happens" in fx.rejection_equation(WORDS, step(P, P), NOTE)
    disjoint = CASES_BY_KEY["disjoint"].step()
    assert "= **Z = 100%**" in fx.rejection_equation(WORDS, disjoint, NOTE)


def test_the_derivation_follows_the_lettering() -> None:
    assert r"\frac{p(x)}{q(x)}" in fx.derivation(NOTE)
    assert r"\frac{q(x)}{p(x)}" in fx.derivation(Notation(swapped=True))
    assert "{T}" not in fx.derivation(NOTE)


def test_big_count() -> None:
    assert fx.big_count(10**12) == "1 trillion" and fx.big_count(10**7) == "10 million"
    assert fx.big_count(10**9) == "1 billion" and fx.big_count(1234) == "1,234"


# ============================================================================ the float32 leak


def test_the_leak_at_a_trillion_runs() -> None:
    """Exactly 2**-24 per forbidden proposal; at N = 1e12 with q(bed) = .9 about 53,644 leaks
    (Poisson sd 232): the count-level sampler shows them; the strict test none."""
    leak = float32_leak(FILTER.step().p, FILTER.step().q, 10**12, 7)
    assert leak.per_proposal == 2.0**-24 and leak.forbidden.tolist() == [3]
    assert leak.law[3] == pytest.approx(0.9 * 2.0**-24, rel=1e-12)
    assert leak.expected_leaks == pytest.approx(10**12 * 0.9 / 2**24, rel=1e-12)
    z = z_score(leak.leaks, leak.expected_leaks, math.sqrt(leak.expected_leaks))
    assert abs(z) < 4 and leak.leaks > 50_000
    assert leak.strict_leaks == 0 and leak.counts.sum() == leak.strict_counts.sum() == 10**12
    text = fx.leak_sentence(leak, NOTE)
    assert f"**{leak.leaks:,} times**" in text and "1 trillion runs" in text
    assert "**0 times**" in text and "16,777,216" in text


def test_a_million_runs_rarely_show_it() -> None:
    leak = float32_leak(FILTER.step().p, FILTER.step().q, 10**6, 7)
    assert leak.expected_leaks == pytest.approx(0.0536, abs=1e-4)
    assert leak.strict_leaks == 0


def test_the_filter_figure() -> None:
    fig, caption = fx.filter_figure(ChartStyle())
    np.testing.assert_array_equal(column(valid(fig), "accept"), FILTER.step().accept)
    assert "bed 0%" in caption


# ========================================================================= in place, on the page


@pytest.mark.parametrize("style", [ChartStyle(), ChartStyle(projector=True)], ids=["screen", "big"])
def test_the_proof_chart_updates_in_place_between_cases(style) -> None:
    """The proof chart shows the learner's numbers or a case's on the same words: switching
    changes its datasets only, so the chart on the page is updated, not remounted."""
    mine = fx.why_figures(WORDS, step(P, Q), style)["proof"][0]
    specs = [valid(mine)] + [fx.case_figures(c.key, style)["proof"][0] for c in CASES]
    bare = [{k: v for k, v in spec.items() if k != "datasets"} for spec in specs]
    assert all(spec == bare[0] for spec in bare)
    assert len({str(spec["datasets"]) for spec in specs}) == len(specs)
