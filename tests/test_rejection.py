"""Classic rejection sampling next to speculative sampling (specviz.rejection) and the page's
figures (specviz.figures.rejection).

On math.md's pair M = max p/q = 4: a proposal is kept with 1/M = 25%, a word costs 4 proposals on
average, against one for speculative sampling (kept with alpha = 60%). Monte Carlo checks use
fixed seeds; the mean is checked with a z-score (|z| < 4) against the geometric law's exact
standard deviation sqrt(M (M - 1)), and the words with a chi-square test (p-value > 1e-3).
"""

from __future__ import annotations

import json
import math

import altair as alt
import numpy as np
import pytest
from helpers import gof_pvalue, z_score
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz.figures.rejection import (
    cut_note,
    envelope_figure,
    presets_table,
    proposals_figure,
    proposals_shares,
    rejection_figures,
    same_idea,
    structure,
    verdict,
)
from specviz.figures.style import ChartStyle
from specviz.limits import MAX_CLASSIC_PROPOSALS
from specviz.one_token import step
from specviz.palette import Notation
from specviz.rejection import across_presets, classic_plan, rejection_comparison
from specviz.sampling import speculative_sample
from specviz.scenario import PRESETS_BY_KEY

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
MISSES = np.array([0.5, 0.3, 0.2, 0.0])  # a draft that never proposes 'bed'
LABELS = ("mat", "sofa", "floor", "bed")
NOTE = Notation()
MIN_P_VALUE = 1e-3


# ================================================================================ the exact plan


def test_plan_by_hand_on_math_mds_pair() -> None:
    plan = classic_plan(P, Q)
    assert plan.runs and plan.bound == 4.0  # p/q = 4, 1.5, 2/3, 1/4
    assert plan.acceptance == 0.25
    assert plan.blocked.size == 0


def test_a_draft_that_misses_a_word_cannot_run_and_says_so() -> None:
    """No envelope covers a word q never proposes: data, not an exception."""
    plan = classic_plan(P, MISSES)
    assert not plan.runs and math.isinf(plan.bound) and plan.acceptance == 0.0
    assert plan.blocked.tolist() == [3]
    run = rejection_comparison(P, MISSES, 1000, 1).classic
    assert not run.ran and run.output.size == 0 and math.isinf(run.mean_proposals)
    # Speculative sampling still runs, and emits 'bed' from the bucket.
    assert (speculative_sample(P, MISSES, 10_000, 3).output == 3).any()


def test_identical_models_need_one_proposal_either_way() -> None:
    plan = classic_plan(P, P)
    assert plan.bound == 1.0 and plan.acceptance == 1.0
    run = rejection_comparison(P, P, 1000, 2).classic
    assert (run.proposals == 1).all()


def test_a_word_the_target_forbids_is_never_emitted() -> None:
    p = [0.5, 0.5, 0.0]
    run = rejection_comparison(p, [0.2, 0.3, 0.5], 20_000, 4).classic
    assert not (run.output == 2).any()
    assert classic_plan(p, [0.2, 0.3, 0.5]).bound == 2.5


# ================================================================================ Monte Carlo


def test_mean_proposals_is_m() -> None:
    n = 200_000
    run = rejection_comparison(P, Q, n, 5).classic
    assert run.ran and run.proposals.min() >= 1
    z = z_score(run.mean_proposals, 4.0, run.std_error)
    assert abs(z) < 4, (run.mean_proposals, run.std_error)
    assert run.std_error == pytest.approx(math.sqrt(12 / n))


def test_classic_words_follow_p_and_proposals_are_geometric() -> None:
    n = 200_000
    run = rejection_comparison(P, Q, n, 6).classic
    assert gof_pvalue(np.bincount(run.output, minlength=4), P) > MIN_P_VALUE
    # P(K = k) = (1/M)(1 - 1/M)^(k - 1), pooled from 12 on.
    k = np.minimum(run.proposals, 12)
    law = 0.25 * 0.75 ** np.arange(11)
    law = np.append(law, 1 - law.sum())
    assert gof_pvalue(np.bincount(k - 1, minlength=12), law) > MIN_P_VALUE


def test_large_m_and_reproducibility() -> None:
    p, q = [1.0, 0.0, 0.0], [0.01, 0.49, 0.5]  # M = 100
    run = rejection_comparison(p, q, 5_000, 7).classic
    assert (run.output == 0).all()
    z = z_score(run.mean_proposals, 100.0, run.std_error)
    assert abs(z) < 4
    again = rejection_comparison(p, q, 5_000, 7).classic
    np.testing.assert_array_equal(run.proposals, again.proposals)


def test_too_many_proposals_are_refused_before_any_work() -> None:
    p, q = [1.0, 0.0], [1e-9, 1 - 1e-9]  # M = 1e9: even one word is too many proposals
    with pytest.raises(ValueError, match="proposals"):
        rejection_comparison(p, q, 1000, 0)
    assert MAX_CLASSIC_PROPOSALS == 10**8


def test_the_comparison_counts_the_speculative_bucket_draws() -> None:
    n = 100_000
    c = rejection_comparison(P, Q, n, 8)
    assert c.n == n
    # 1 + Z on average: Z = .4, binomial sd sqrt(.24 / n).
    assert abs(z_score(c.speculative_draws, 1.4, math.sqrt(0.24 / n))) < 4
    assert c.step.alpha == pytest.approx(0.6)


def test_a_huge_m_runs_fewer_classic_words_and_says_so() -> None:
    p, q = [1.0, 0.0, 0.0], [0.001, 0.499, 0.5]  # M = 1000
    c = rejection_comparison(p, q, 100_000, 5, budget=1_000_000)
    assert c.n == 100_000 and c.classic.n == 1000 and c.classic_cut
    assert abs(z_score(c.classic.mean_proposals, 1000.0, c.classic.std_error)) < 4
    note = cut_note(c)
    assert note.startswith("With M = 1,000 the classic loop")
    assert "ran 1,000 of the 100,000 words" in note
    assert cut_note(rejection_comparison(P, Q, 1000, 5)) is None


def test_across_presets() -> None:
    rows = {row.key: row for row in across_presets()}
    assert tuple(rows) == tuple(PRESETS_BY_KEY)
    assert math.isinf(rows["misses"].bound) and math.isinf(rows["garbage"].bound)
    assert rows["identical"].bound == 1.0 and rows["identical"].alpha == 1.0
    assert rows["close"].alpha == pytest.approx(0.9)


@st.composite
def pairs(draw):
    size = draw(st.integers(2, 8))
    entry = st.one_of(st.just(0), st.integers(1, 100))
    p = draw(st.lists(entry, min_size=size, max_size=size).filter(any))
    q = draw(st.lists(entry, min_size=size, max_size=size).filter(any))
    return np.array(p) / sum(p), np.array(q) / sum(q)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(pairs())
def test_speculative_keeps_at_least_as_often_as_classic(pair) -> None:
    """alpha = sum min(p, q) >= sum p/M = 1/M: min(p, q) >= p/M word by word."""
    p, q = pair
    plan = classic_plan(p, q)
    alpha = step(p, q).alpha
    assert alpha >= plan.acceptance - 1e-12
    assert plan.runs == bool(((q > 0) | (p == 0)).all())
    if plan.runs:
        # Every proposal's keep chance p/(Mq) is at most 1, and they add up to 1/M.
        keep = np.divide(p, plan.bound * q, out=np.zeros_like(p), where=q > 0)
        assert (keep <= 1 + 1e-12).all() and plan.bound >= 1 - 1e-12
        assert float((q * keep).sum()) == pytest.approx(plan.acceptance, abs=1e-12)


# ================================================================================ figures


def valid(spec: dict) -> dict:
    """The spec passes Vega-Lite's schema (Altair validates what it reads)."""
    alt.LayerChart.from_dict(spec).to_dict(validate=True)
    return spec


def without_data(spec: dict) -> dict:
    """The spec less its datasets: what must not change for the chart to update in place."""
    return {key: value for key, value in spec.items() if key != "datasets"}


def column(rows: list[dict], field: str) -> np.ndarray:
    return np.array([row[field] for row in rows], dtype=float)


@pytest.fixture(scope="module")
def comparison():
    return rejection_comparison(P, Q, 10_000, 7)


def test_proposals_figure_draws_the_run(comparison) -> None:
    spec, caption = proposals_figure(comparison, ChartStyle())
    rows = valid(spec)["datasets"]["bars"]
    measured, exact = proposals_shares(comparison)
    assert measured.size == 8  # ceil(2M) bars, the last one for "8 or more"
    assert [r["word"] for r in rows] == ["1", "2", "3", "4", "5", "6", "7", "8 or more"]
    np.testing.assert_array_equal(column(rows, "measured"), measured)
    np.testing.assert_array_equal(column(rows, "speculative"), [1] + [0] * 7)
    np.testing.assert_array_equal(column(rows, "exact"), exact)
    assert all(r["runs"] for r in rows)
    assert measured.sum() == pytest.approx(1) and exact.sum() == pytest.approx(1)
    counts = np.bincount(np.minimum(comparison.classic.proposals, 8) - 1, minlength=8)
    np.testing.assert_allclose(measured, counts / 10_000, rtol=0, atol=1e-15)
    # The geometric law by hand: 1/M = 1/4 kept, P(K = k) = (1/4)(3/4)^(k - 1), 8 or more pooled.
    np.testing.assert_allclose(exact[:-1], 0.25 * 0.75 ** np.arange(7), rtol=0, atol=1e-15)
    assert exact[-1] == pytest.approx(0.75**7, abs=1e-15)
    (law,) = spec["datasets"]["law"]
    assert law == {"label": "classic, exact: M = 4 on average", "line": True}
    assert f"mean {comparison.classic.mean_proposals:.3g}" in caption


def test_figures_when_classic_cannot_run() -> None:
    c = rejection_comparison(P, MISSES, 1000, 1)
    spec, caption = proposals_figure(c, ChartStyle())
    rows = valid(spec)["datasets"]["bars"]
    np.testing.assert_array_equal(column(rows, "measured"), [0, 0, 0])
    np.testing.assert_array_equal(column(rows, "exact"), [0, 0, 0])
    assert not any(r["runs"] for r in rows)  # no strokes of an exact law
    assert spec["datasets"]["law"] == [{"label": "classic cannot run here: M = ∞", "line": False}]
    assert "cannot run" in caption
    env, caption = envelope_figure(LABELS, c.step, c.classic.plan, ChartStyle())
    valid(env)
    assert not any(r["runs"] for r in env["datasets"]["bars"])  # no envelope drawn
    assert {r["label"] for r in env["datasets"]["bars"]} == {""}
    (key,) = env["datasets"]["envelope"]
    assert key == {"label": "no envelope M·q covers p: M = ∞", "line": False}
    assert "No envelope" in caption
    text = verdict(c, LABELS, NOTE)
    assert "cannot run" in text and "'bed'" in text and "arrives from the bucket" in text


def test_envelope_figure_is_the_step_and_m_q(comparison) -> None:
    spec, _ = envelope_figure(LABELS, comparison.step, comparison.classic.plan, ChartStyle())
    valid(spec)
    rows = spec["datasets"]["bars"]
    assert [r["word"] for r in rows] == list(LABELS)
    np.testing.assert_array_equal(column(rows, "kept"), comparison.step.kept)
    np.testing.assert_array_equal(column(rows, "refill"), comparison.step.refill)
    np.testing.assert_array_equal(
        column(rows, "stacked"), comparison.step.kept + comparison.step.refill
    )
    np.testing.assert_array_equal(column(rows, "envelope"), 4 * Q)
    # The axis is cut at 3 p_max = 1.2 (the envelope would reach 1.6): bed's stroke is drawn
    # at the cut, an arrow over it, every other height printed over its stroke.
    np.testing.assert_allclose(column(rows, "drawn"), [0.4, 0.8, 1.2, 1.2], rtol=0, atol=1e-15)
    assert [r["label"] for r in rows] == ["40%", "80%", "120%", "↑"]
    assert column(rows, "top") == pytest.approx([1.32] * 4, abs=1e-12)
    assert spec["datasets"]["envelope"] == [
        {"label": "classic's envelope M·q, M = 4", "line": True}
    ]


def test_sentences_carry_the_numbers(comparison) -> None:
    text = verdict(comparison, LABELS, NOTE)
    assert "1/M = 25%" in text and "α = 60%" in text and "M = 4 proposals" in text
    assert "1/M = 25%" in structure(comparison, NOTE) and "α ≥ 1/M" in structure(comparison, NOTE)
    assert "M = 1" in same_idea(comparison, NOTE)
    swapped = verdict(comparison, LABELS, Notation(swapped=True))
    assert "α = 60%" in swapped
    figs = rejection_figures(LABELS, comparison.step, ChartStyle(projector=True), comparison)
    assert set(figs) == {"proposals", "envelope"}


STYLES = [
    ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    for projector in (False, True)
    for swapped in (False, True)
]


@pytest.mark.parametrize("style", STYLES, ids=["screen", "screen-chen", "projector", "proj-chen"])
def test_a_new_state_changes_the_data_only(style) -> None:
    """Two pairs, numbers of words and seeds (one where classic cannot run): the specs differ in
    their datasets alone, so that the chart on the page is updated in place."""
    states = [rejection_comparison(P, Q, 10_000, 7), rejection_comparison(P, MISSES, 1000, 1)]
    states.append(rejection_comparison(P, np.array([0.25, 0.25, 0.25, 0.25]), 100_000, 3))
    figures = [rejection_figures(LABELS, c.step, style, c) for c in states]
    for name in ("proposals", "envelope"):
        specs = [valid(f[name][0]) for f in figures]
        assert specs[0]["datasets"] != specs[1]["datasets"]
        assert without_data(specs[0]) == without_data(specs[1]) == without_data(specs[2])
    # The lettering and projector mode are in the spec: the words follow the notation.
    assert style.notation.draft in json.dumps(figures[0]["envelope"][0]["title"])


def test_titles_and_keys_in_projector_mode(comparison) -> None:
    big = rejection_figures(LABELS, comparison.step, ChartStyle(projector=True), comparison)
    small = rejection_figures(LABELS, comparison.step, ChartStyle(), comparison)
    for name in ("proposals", "envelope"):
        assert big[name][0]["config"]["axis"]["labelFontSize"] == 24
        assert big[name][0]["height"] > small[name][0]["height"]
        texts = [
            layer["mark"]["fontSize"]
            for layer in big[name][0]["layer"]
            if layer["mark"]["type"] == "text" and "fontSize" in layer["mark"]
        ]
        assert texts and min(texts) >= 24


def test_presets_table() -> None:
    table = presets_table(across_presets(), NOTE)
    rows = dict(zip(table["preset"], table["proposals per word: classic M"], strict=True))
    assert rows["Draft misses a word"] == "∞: cannot run" and rows["Identical"] == "1"
    assert set(table["proposals per word: speculative"]) == {"1"}
