"""The bug zoo: its exhibits (rules of kind MISTAKE), the comparison with the correct rule
(specviz.zoo), its share-link parameter (links.BUG) and its charts (specviz.figures.zoo).

math.md's bug-zoo table is checked on the default pair; the caption of the convergence chart
says what is true of the run it describes (inside the noise band or not).
"""

from __future__ import annotations

import re

import altair as alt
import numpy as np
import pytest

from specviz import palette
from specviz.figures import vega
from specviz.figures.convergence import zoo_chart_caption
from specviz.figures.numbers import tv_text
from specviz.figures.style import ChartStyle
from specviz.figures.zoo import zoo_figures, zoo_law_caption, zoo_law_figure
from specviz.limits import BAND_LEVEL, ZOO_N_MAX
from specviz.links import BUG
from specviz.one_token import step
from specviz.palette import Notation
from specviz.rules import (
    EXACT,
    MISTAKE,
    RULES,
    TRADE_OFF,
    RuleUnavailableError,
    rules_of,
)
from specviz.runs import monte_carlo, noise_band
from specviz.stats import detectable_from, expected_tv_band, log_checkpoints, tv_path
from specviz.zoo import zoo_comparison

RULE_KEYS = tuple(RULES)

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
S = step(P, Q)
SEED = 7
TOL = 1e-12

#: math.md's bug-zoo table on (P, Q): rule -> (output law, TV to p).
ZOO_TABLE = {
    "resample_from_p": ([0.26, 0.32, 0.28, 0.14], 0.14),
    "inverted_ratio": ([0.13125, 0.16875, 0.3, 0.4], 0.40),
    "redraw_from_q": ([1 / 6, 1 / 3, 1 / 3, 1 / 6], 0.7 / 3),
    "reuse_uniform": ([0.325, 0.375, 0.2, 0.1], 0.075),
    # By hand: the top-2 draft proposes floor 3/7, bed 4/7 and keeps 2/3 and 1/4 of them (raw
    # ratios); the 4/7 rejected go to the raw bucket (.75, .25, 0, 0). TV = 11/70.
    "topk_mismatch": ([3 / 7, 1 / 7, 2 / 7, 1 / 7], 11 / 70),
}


# ============================================================================ the exhibits


def test_the_zoos_exhibits_are_the_mistakes() -> None:
    assert rules_of(MISTAKE) == (
        "resample_from_p",
        "inverted_ratio",
        "redraw_from_q",
        "reuse_uniform",
        "topk_mismatch",
        "float32_leq",
    )
    assert BUG.choices == rules_of(MISTAKE)
    assert BUG.default == rules_of(MISTAKE)[0] == "resample_from_p"
    # Every rule is of exactly one kind; the correct one is exact.
    kinds = [set(rules_of(kind)) for kind in (EXACT, MISTAKE, TRADE_OFF)]
    assert set().union(*kinds) == set(RULE_KEYS) and sum(map(len, kinds)) == len(RULE_KEYS)
    assert rules_of(EXACT)[0] == "correct"


def test_typical_acceptance_is_a_trade_off_not_a_mistake() -> None:
    assert RULES["typical_acceptance"].kind == TRADE_OFF
    assert "typical_acceptance" not in BUG.choices
    key, notice = BUG.read({"bug": "typical_acceptance"})
    assert key == BUG.default and notice


@pytest.mark.parametrize("key", list(ZOO_TABLE))
def test_zoo_comparison_matches_math_md(key: str) -> None:
    law, tv = ZOO_TABLE[key]
    z = zoo_comparison(P, Q, key, SEED)
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
    assert z.detectable_from == detectable_from(P, tv, BAND_LEVEL)
    assert z.tv_correct == 0.0


def test_all_mistakes_run_on_the_default_pair() -> None:
    for key in rules_of(MISTAKE):
        z = zoo_comparison(P, Q, key, SEED, n_max=1000)
        if key == "float32_leq":  # a 2**-24-sized bias here: real, but hidden up to N ~ 2e15
            assert 0 < z.tv < 2**-24 and z.detectable_from > 10**15
            continue
        assert z.tv > 0.05 and z.detectable_from is not None


def test_detectable_from_is_where_the_band_drops_below_the_bias() -> None:
    for tv in (0.4, 0.14, 0.075, 0.01, 0.001):
        n = detectable_from(P, tv, BAND_LEVEL)
        upper = expected_tv_band(P, [n - 1, n] if n > 1 else [n], BAND_LEVEL).upper
        assert upper[-1] < tv
        if n > 1:
            assert upper[0] >= tv
    assert detectable_from(P, 0.0, BAND_LEVEL) is None
    assert detectable_from(P, 1e-15, BAND_LEVEL) is None
    # Halving the bias takes four times the runs (the band falls like 1/sqrt(N)).
    assert detectable_from(P, 0.005, BAND_LEVEL) == pytest.approx(
        4 * detectable_from(P, 0.01, BAND_LEVEL), rel=1e-3
    )


def test_redraw_from_q_on_disjoint_supports_is_unavailable() -> None:
    p, q = [0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5]
    assert not RULES["redraw_from_q"].available(p, q)
    assert all(RULES[k].available(p, q) for k in rules_of(MISTAKE) if k != "redraw_from_q")
    with pytest.raises(RuleUnavailableError, match="disjoint supports"):
        zoo_comparison(p, q, "redraw_from_q", SEED)
    assert issubclass(RuleUnavailableError, ValueError)


def test_a_mistake_can_be_harmless_on_some_pair() -> None:
    z = zoo_comparison(P, P, "resample_from_p", SEED, n_max=1000)  # p == q: nothing is rejected
    assert z.tv < TOL and z.detectable_from is None


def test_the_arguments_are_p_q_then_the_rule() -> None:
    a = zoo_comparison(P, Q, "reuse_uniform", SEED, n_max=100)
    b = zoo_comparison(p=P, q=Q, key="reuse_uniform", seed=SEED, n_max=100)
    np.testing.assert_array_equal(a.law, b.law)
    with pytest.raises(ValueError):
        zoo_comparison("reuse_uniform", P, Q, SEED)  # the old order is refused, not misread


# ====================================================================== letters in rule texts

#: A model's letter written by hand: "p", "q(x)", "from q" (but not "top-p" or "p-value").
_BARE_LETTER = re.compile(r"(?<![\w-])[pq](?![\w-])")


@pytest.mark.parametrize("key", RULE_KEYS)
def test_rule_texts_letter_the_models_by_template(key: str) -> None:
    """Titles and explanations name the models with {T}/{D}, so both letterings read right.
    (Sources may quote a paper's own letters: "Chen et al. call the target q".)"""
    rule = RULES[key]
    for text in (rule.title, rule.what, rule.why):
        assert not _BARE_LETTER.search(text), text
        for swapped in (False, True):
            filled = Notation(swapped=swapped).fill(text)
            assert "{" not in filled and "}" not in filled, filled
    assert Notation().fill(RULES["resample_from_p"].title) == "Rejection resamples from p"
    assert Notation(swapped=True).fill(RULES["resample_from_p"].title) == (
        "Rejection resamples from q"
    )
    assert Notation(swapped=True).fill(RULES["inverted_ratio"].title) == (
        "Inverted ratio min(1, p/q)"
    )


# ========================================================================= the link's exhibit


def test_bug_link() -> None:
    for key in rules_of(MISTAKE):
        assert BUG.read({"bug": key}) == (key, None)
    assert BUG.read({}) == (BUG.default, None)
    for bad in ("correct", "nonsense", "<b>x</b>", "typical_acceptance"):
        key, notice = BUG.read({"bug": bad})
        assert key == BUG.default and notice and "<b>" not in notice
        assert notice.endswith("; the page uses 'Rejection resamples from {T}'.")


# ============================================================================= the charts


def law_rows(spec: dict, j: int, field: str) -> np.ndarray:
    """``field`` of the law chart's bars of one side: 0 the target, 1 the mistake."""
    return np.array([r[field] for r in spec["datasets"]["bars"] if r["j"] == j])


def test_zoo_law_figure_draws_the_rules_law_against_p() -> None:
    z = zoo_comparison(P, Q, "resample_from_p", SEED, n_max=1000)
    spec = zoo_law_figure(LABELS, S, z, Notation().fill(RULES["resample_from_p"].title))
    alt.LayerChart.from_dict(spec).to_dict(validate=True)
    np.testing.assert_allclose(law_rows(spec, 0, "share"), P, atol=TOL)
    np.testing.assert_allclose(
        law_rows(spec, 1, "share"), ZOO_TABLE["resample_from_p"][0], atol=TOL
    )
    assert set(law_rows(spec, 1, "kind")) == {f"{palette.REJECTED.icon} output of the mistake"}
    bars = [layer for layer in spec["layer"] if layer["mark"]["type"] == "bar"]
    wrong = next(b for b in bars if b["transform"] == [{"filter": "datum.j == 1"}])["mark"]
    assert wrong["fill"] == palette.REJECTED.color
    assert wrong["strokeDash"] == vega.DASH[palette.REJECTED.pattern]  # not colour alone
    # The rule's name and distance: a line over the bars (data), not the chart's title.
    (heading,) = spec["datasets"]["heading"]
    assert heading["text"] == "Rejection resamples from p: distance 0.14"
    assert "0.14" not in str(spec["title"])
    caption = zoo_law_caption(LABELS, S, z, "x", Notation())
    assert "mat 26% vs 40%" in caption and "0.14" in caption


def test_zoo_figures_read_the_step_and_letter_the_rule() -> None:
    z = zoo_comparison(P, Q, "resample_from_p", SEED, n_max=1000)
    figs = zoo_figures(LABELS, S, ChartStyle(notation=Notation(swapped=True)), z)
    assert set(figs) == {"law", "tv"} and all(isinstance(f[0], dict) for f in figs.values())
    law_spec, law_caption = figs["law"]
    np.testing.assert_array_equal(law_rows(law_spec, 0, "share"), S.p)
    np.testing.assert_array_equal(law_rows(law_spec, 1, "share"), z.law)
    assert law_spec["datasets"]["heading"][0]["text"].startswith("Rejection resamples from q")
    assert "target q" in " ".join(law_spec["title"])
    assert "'Rejection resamples from q'" in law_caption and "target q" in law_caption
    for word, target in zip(LABELS, S.p, strict=True):
        assert re.search(rf"{word} \d+(\.\d+)?% vs {round(100 * target)}%", law_caption)
    assert "'Rejection resamples from q'" in figs["tv"][1]


def test_picking_another_mistake_changes_the_charts_data_only() -> None:
    """The radio's pick reaches both charts as datasets (the charts update in place)."""
    keys = ("resample_from_p", "inverted_ratio", "reuse_uniform", "float32_leq")
    picks = [zoo_comparison(P, Q, key, SEED, n_max=1000) for key in keys]
    figs = [zoo_figures(LABELS, S, ChartStyle(), z) for z in picks]
    for key in ("law", "tv"):
        specs = [{k: v for k, v in f[key][0].items() if k != "datasets"} for f in figs]
        assert all(spec == specs[0] for spec in specs), key


# ===================================================================== the caption tells the truth


@pytest.fixture(scope="module")
def ends() -> tuple[list[int], list[int]]:
    """Seeds whose correct run of N = 1000 ends outside / inside the noise band there (the zoo's
    correct path is the Monte Carlo run of the same seed)."""
    band = noise_band(P, 1000)
    lo, hi = float(band.lower[-1]), float(band.upper[-1])
    tvs = [monte_carlo(P, Q, 1000, seed).tv for seed in range(400)]
    outside = [seed for seed, tv in enumerate(tvs) if not lo <= tv <= hi]
    inside = [seed for seed, tv in enumerate(tvs) if lo <= tv <= hi]
    return outside, inside


def test_an_exact_sampler_ends_outside_its_band_about_five_percent_of_the_time(ends) -> None:
    """The band is the central 95% interval: of 400 seeds about 20 end outside it (Binomial(400,
    .05) has sd 4.4; window 7..35, about ±3 sd)."""
    outside, _ = ends
    assert 7 <= len(outside) <= 35, len(outside)


def test_the_caption_says_inside_only_when_the_correct_rule_ends_inside_the_band(ends) -> None:
    outside, inside = ends
    for seed in outside[:3]:
        z = zoo_comparison(P, Q, "reuse_uniform", seed, n_max=1000)
        end, lo, hi = z.correct.tv[-1], z.band.lower[-1], z.band.upper[-1]
        assert not lo <= end <= hi and not z.correct_inside_band
        caption = zoo_chart_caption(z, "Reuse", Notation())
        assert "inside" not in caption, caption
        assert f"ends at {tv_text(float(end))}, just outside the shaded" in caption
    for seed in inside[:3]:
        z = zoo_comparison(P, Q, "reuse_uniform", seed, n_max=1000)
        end, lo, hi = z.correct.tv[-1], z.band.lower[-1], z.band.upper[-1]
        assert lo <= end <= hi and z.correct_inside_band
        caption = zoo_chart_caption(z, "Reuse", Notation())
        assert f"ends at {tv_text(float(end))}, inside the shaded 95%" in caption
        assert "outside" not in caption
