"""The Variants lab's core (specviz.zoo.rule_check: any rule checked by its own runs) and its
figures (specviz.figures.variants), on math.md's pair p = [.4, .3, .2, .1], q = [.1, .2, .3, .4].

Hand values: the standard rule keeps alpha = .6, greedy verification q(mat) = .1 (its law is the
one-hot on mat: TV .6), token matching sum(p·q) = .2, two candidates .72, and typical acceptance
at Medusa's defaults keeps every draft (threshold .3·exp(-H(p)) = .083 < every p(x)): its law is
q, TV .4. Monte Carlo: 100,000 runs of each rule's literal sampler, seed 7.
"""

from __future__ import annotations

import json

import altair as alt
import numpy as np
import pytest
from helpers import gof_pvalue

from specviz import palette
from specviz.figures.style import ChartStyle
from specviz.figures.variants import (
    exactness,
    lab_figures,
    lab_table,
    run_verdict,
    tradeoff_figure,
    variant_figure,
)
from specviz.limits import LAB_RUNS
from specviz.links import VARIANT, VARIANTS
from specviz.one_token import step
from specviz.palette import Notation
from specviz.rules import MISTAKE, RULES, RuleUnavailableError
from specviz.zoo import rule_check

P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
LABELS = ("mat", "sofa", "floor", "bed")
SEED = 7
NOTE = Notation()

#: key -> (params, acceptance, TV of its law to p), by hand.
HAND = {
    "correct": ((), 0.6, 0.0),
    "greedy": ((), 0.1, 0.6),
    "token_matching": ((), 0.2, 0.0),
    "multi_candidate": ((("k", 2),), 0.72, 0.0),
    "typical_acceptance": ((("eps", 0.09), ("delta", 0.3)), 1.0, 0.4),
}


def test_the_lab_shows_every_rule_that_is_not_a_mistake() -> None:
    assert tuple(HAND) == VARIANTS
    assert all(RULES[k].kind != MISTAKE for k in VARIANTS)
    assert VARIANT.default == "correct"


@pytest.fixture(scope="module")
def checks():
    return {key: rule_check(P, Q, key, SEED, LAB_RUNS, HAND[key][0]) for key in HAND}


@pytest.mark.parametrize("key", list(HAND))
def test_hand_values_and_the_monte_carlo_check(checks, key: str) -> None:
    params, acceptance, tv = HAND[key]
    c = checks[key]
    assert c.acceptance == pytest.approx(acceptance, abs=1e-12)
    assert c.tv == pytest.approx(tv, abs=1e-12)
    assert c.params == dict(params) and c.n == LAB_RUNS and c.counts.sum() == LAB_RUNS
    # The runs are the rule's own: they fit its exact law (chi-square, p-value > 1e-3)...
    assert gof_pvalue(c.counts, c.law) > 1e-3
    # ...and an exact rule's runs sit inside the noise band, a biased one's far outside it.
    if tv == 0:
        assert not c.stands_out and c.gof.p_value > 1e-3 and c.detectable_from is None
    else:
        assert c.stands_out and c.gof.p_value < 1e-6 and c.detectable_from < 100
    assert c.run_tv == pytest.approx(0.5 * np.abs(c.counts / c.n - P).sum())


def test_multi_candidate_k_in_the_lab() -> None:
    for k, acceptance in ((1, 0.6), (2, 0.72), (3, 0.768)):
        c = rule_check(P, Q, "multi_candidate", SEED, 20_000, (("k", k),))
        assert c.acceptance == pytest.approx(acceptance) and c.tv == 0


def test_typical_acceptance_drifts_with_its_settings() -> None:
    strict = rule_check(P, Q, "typical_acceptance", SEED, 20_000, (("eps", 0.35), ("delta", 1)))
    # Threshold min(.35, 1·exp(-H(p))) = exp(-1.280) = .278: mat and sofa pass. Kept .1 + .2,
    # the other .7 drawn from p: [.1 + .28, .2 + .21, .14, .07].
    np.testing.assert_allclose(strict.law, [0.38, 0.41, 0.14, 0.07], atol=1e-12)
    assert strict.tv == pytest.approx(0.11) and strict.acceptance == pytest.approx(0.3)


def test_rule_check_refuses_bad_parameters() -> None:
    with pytest.raises(ValueError, match="unknown parameter"):
        rule_check(P, Q, "correct", SEED, 100, (("k", 2),))
    with pytest.raises(ValueError, match=r"params\[0\]"):
        rule_check(P, Q, "correct", SEED, 100, ([1, 2],))
    with pytest.raises(ValueError, match="k"):
        rule_check(P, Q, "multi_candidate", SEED, 100, (("k", 99),))
    with pytest.raises(RuleUnavailableError):
        rule_check([0.5, 0.5, 0], [0, 0, 1], "redraw_from_q", SEED, 100)


# ================================================================================ figures


def test_the_table_reads_the_checks(checks) -> None:
    rows = list(checks.values())
    table = lab_table(rows, NOTE)
    assert table["keeps a guess"] == ["60%", "10%", "20%", "72%", "100%"]
    assert table["distance to p (exact)"] == ["0", "0.6", "0", "0", "0.4"]
    assert table["output = p?"] == [
        "yes, on every pair",
        "no",
        "yes, on every pair",
        "yes, on every pair",
        "no",
    ]
    assert table["Monte Carlo check"][1] == "✗ stands out of the noise"
    assert table["Monte Carlo check"][0] == "✓ inside the noise band"
    assert table["rule"][3] == "Several draft candidates (SpecInfer) (k = 2)"
    assert "(ε = 0.09, δ = 0.3)" in table["rule"][4]


def test_greedy_is_exact_for_a_one_hot_target() -> None:
    hot = np.array([0.0, 1.0, 0.0, 0.0])
    c = rule_check(hot, Q, "greedy", SEED, 1000)
    assert c.tv == 0 and exactness(c) == "on this pair only"
    assert run_verdict(c) == "✓ inside the noise band"


def valid(spec: dict) -> dict:
    """The spec passes Vega-Lite's schema (Altair validates what it reads)."""
    alt.LayerChart.from_dict(spec).to_dict(validate=True)
    return spec


def without_data(spec: dict) -> dict:
    """The spec less its datasets: what must not change for the chart to update in place."""
    return {key: value for key, value in spec.items() if key != "datasets"}


def test_the_tradeoff_chart(checks) -> None:
    rows = list(checks.values())
    spec, caption = tradeoff_figure(rows, 0.6, ChartStyle())
    points = valid(spec)["datasets"]["rules"]
    assert [p["i"] for p in points] == list(range(len(rows)))
    for c, point in zip(rows, points, strict=True):
        assert NOTE.fill(c.rule.title) in point["name"]
        assert point["acceptance"] == c.acceptance and point["tv"] == c.tv
    # Each name carries the rule's ✓ or ✗ (exact on this pair or not), its settings on a line
    # of their own; the colour legend says the same.
    assert [p["name"][0] for p in points] == ["✓", "✗", "✓", "✓", "✗"]
    assert points[3]["name"] == "✓ Several draft candidates (SpecInfer)\n(k = 2)"
    assert points[4]["name"].endswith("\n(ε = 0.09, δ = 0.3)")
    assert [p["verdict"] for p in points] == [
        "✓ output = p on this pair" if c.tv == 0 else "✗ output ≠ p" for c in rows
    ]
    assert spec["datasets"]["alpha"] == [
        {"acceptance": 0.6, "label": "α = 60%: best exact rule with one draft", "line": True}
    ]
    # The y axis runs from a little under 0 to a little over the largest TV (0.6).
    assert [f["tv"] for f in spec["datasets"]["frame"]] == pytest.approx([-0.0138, 0.69])
    assert "Match the target's own draw: keeps 20%, distance 0" in caption


def test_the_variant_chart(checks) -> None:
    one = step(P, Q)
    c = checks["typical_acceptance"]
    spec, caption = variant_figure(LABELS, one, c, ChartStyle(projector=True))
    rows = valid(spec)["datasets"]["bars"]
    target = [r for r in rows if r["s"] == 0]
    rule = [r for r in rows if r["s"] == 1]
    assert [r["word"] for r in target] == [r["word"] for r in rule] == list(LABELS)
    np.testing.assert_array_equal([r["share"] for r in target], P)
    np.testing.assert_allclose([r["share"] for r in rule], Q, rtol=0, atol=1e-12)
    np.testing.assert_array_equal([r["runs"] for r in rule], c.counts / c.n)
    assert {r["series"] for r in target} == {"● target p"}
    # Typical acceptance is not exact here: its bars are the rejected role's, ✗ in the legend.
    assert {(r["series"], r["color"], r["patterned"]) for r in rule} == {
        ("✗ what the rule emits (exact)", palette.REJECTED.color, True)
    }
    assert [r["label"] for r in rows] == ["40%", "10%", "30%", "20%", "20%", "30%", "10%", "40%"]
    assert spec["datasets"]["rule"] == [{"label": "Keep plausible guesses (Medusa)"}]
    assert spec["datasets"]["tv"] == [{"label": "its words at distance 0.4 from p"}]
    assert spec["datasets"]["runs"] == [{"label": "100,000 runs of it (seed 7)", "line": True}]
    assert "mat: 40% vs 10%" in caption
    figs = lab_figures(LABELS, one, ChartStyle(), tuple(checks.values()), 4)
    assert set(figs) == {"table", "tradeoff", "variant"}
    exact = valid(variant_figure(LABELS, one, checks["correct"], ChartStyle())[0])
    assert {r["series"] for r in exact["datasets"]["bars"] if r["s"] == 1} == {
        "✓ what the rule emits (exact)"
    }


STYLES = [
    ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    for projector in (False, True)
    for swapped in (False, True)
]


@pytest.mark.parametrize("style", STYLES, ids=["screen", "screen-chen", "projector", "proj-chen"])
def test_a_new_state_changes_the_data_only(checks, style) -> None:
    """Other settings, another pair and seed, another rule up close: the specs differ in their
    datasets alone, so that the charts on the page are updated in place."""
    hot = np.array([0.0, 1.0, 0.0, 0.0])
    other = [
        rule_check(hot, Q, key, 9, 2000, (("k", 5),) if key == "multi_candidate" else params)
        for key, (params, _, _) in HAND.items()
    ]
    first = lab_figures(LABELS, step(P, Q), style, tuple(checks.values()), 0)
    second = lab_figures(LABELS, step(hot, Q), style, tuple(other), 4)
    for name in ("tradeoff", "variant"):
        a, b = valid(first[name][0]), valid(second[name][0])
        assert a["datasets"] != b["datasets"]
        assert without_data(a) == without_data(b)
    assert style.notation.target in json.dumps(first["variant"][0]["title"])
