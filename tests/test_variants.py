"""The Variants lab's core (specviz.zoo.rule_check: any rule checked by its own runs) and its
figures (specviz.figures.variants), on math.md's pair p = [.4, .3, .2, .1], q = [.1, .2, .3, .4].

Hand values: the standard rule keeps alpha = .6, greedy verification q(mat) = .1 (its law is the
one-hot on mat: TV .6), token matching sum(p·q) = .2, two candidates .72, and typical acceptance
at Medusa's defaults keeps every draft (threshold .3·exp(-H(p)) = .083 < every p(x)): its law is
q, TV .4. Monte Carlo: 100,000 runs of each rule's literal sampler, seed 7.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import gof_pvalue, trace

from specviz.figures.style import ChartStyle
from specviz.figures.variants import (
    exactness,
    lab_figures,
    lab_table,
    run_verdict,
    tradeoff_caption,
    tradeoff_figure,
    variant_caption,
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
    assert table["TV to p (exact)"] == ["0", "0.6", "0", "0", "0.4"]
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
    assert c.tv == 0 and exactness(c, NOTE) == "on this pair only"
    assert run_verdict(c) == "✓ inside the noise band"


def test_the_tradeoff_chart(checks) -> None:
    rows = list(checks.values())
    fig = tradeoff_figure(rows, 0.6, ChartStyle())
    for c in rows:
        point = trace(fig, NOTE.fill(c.rule.title))
        assert list(point.x) == [c.acceptance] and list(point.y) == [c.tv]
    assert list(trace(fig, "α = 60%").x) == [0.6, 0.6]
    caption = tradeoff_caption(rows, 0.6, NOTE)
    assert "Token matching: keeps 20%, TV 0" in caption


def test_the_variant_chart(checks) -> None:
    one = step(P, Q)
    c = checks["typical_acceptance"]
    fig = variant_figure(LABELS, one, c, ChartStyle(projector=True))
    np.testing.assert_array_equal(trace(fig, "target").y, P)
    np.testing.assert_allclose(trace(fig, "emits").y, Q, atol=1e-12)
    runs = [v for v in trace(fig, "runs of it").y if v is not None]
    np.testing.assert_allclose(runs[::2], c.counts / c.n)
    assert "TV = 0.4" in fig.layout.title.text
    assert "mat: 40% vs 10%" in variant_caption(LABELS, one, c, NOTE)
    figs = lab_figures(LABELS, one, ChartStyle(), tuple(checks.values()), 4)
    assert set(figs) == {"table", "tradeoff", "variant"}
