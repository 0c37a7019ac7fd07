"""AppTest of the Variants lab: every setting from a link, a control change, bad link values, and
the numbers shown against specviz.zoo.rule_check's.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import all_text, metrics, open_page, own_markdown, query, vega_chart
from streamlit.testing.v1 import AppTest

from specviz.figures.numbers import percent, tv_text
from specviz.figures.tables import markdown_table
from specviz.figures.variants import lab_table, run_verdict
from specviz.limits import LAB_RUNS
from specviz.links import VARIANTS
from specviz.one_token import normalize
from specviz.palette import Notation
from specviz.rules import RULES
from specviz.zoo import rule_check

pytestmark = pytest.mark.slow  # the app under AppTest

LAB = "pages/8_Variants_lab.py"
P = normalize([40, 30, 20, 10])
Q = normalize([10, 20, 30, 40])
SEED = 7
NOTE = Notation()


def page(scenario_query: dict | None = None, page_query: dict | None = None) -> AppTest:
    return open_page(LAB, scenario_query, via_home=True, page_query=page_query)


def table(at: AppTest) -> str:
    """The page's one Markdown table (every rule side by side)."""
    (shown,) = [m for m in own_markdown(at) if m.startswith("| ")]
    return shown


def checks(p, q, seed=SEED, k=2, eps=0.09, delta=0.3):
    controls = {"k": k, "eps": eps, "delta": delta}
    return [
        rule_check(
            p, q, key, seed, LAB_RUNS, tuple((x.name, controls[x.name]) for x in RULES[key].params)
        )
        for key in VARIANTS
    ]


@pytest.fixture(scope="module")
def lab() -> AppTest:
    return page()


def test_defaults_show_every_rules_check(lab) -> None:
    assert lab.title[0].value == "Variants lab"
    assert lab.radio(key="w.variant").value == "correct"
    expected = lab_table(checks(P, Q), NOTE)
    assert table(lab) == markdown_table(expected)
    assert expected["keeps a guess"] == ["60%", "10%", "20%", "72%", "100%"]
    shown = metrics(lab)
    assert shown["Keeps a guess"] == "60%" and shown["Distance to p"] == "0"
    assert shown[f"Check of {LAB_RUNS:,} runs"] == "✓ passes"
    assert query(lab)["variant"] == "correct" and query(lab)["k"] == "2"
    assert not lab.warning


def test_picking_a_rule_shows_its_law_and_runs(lab) -> None:
    before, _ = vega_chart(lab, "One rule up close")
    lab.radio(key="w.variant").set_value("typical_acceptance").run()
    c = checks(P, Q)[VARIANTS.index("typical_acceptance")]
    spec, data = vega_chart(lab, "One rule up close")
    rule = [r for r in data["bars"] if r["s"] == 1]
    np.testing.assert_allclose([r["share"] for r in rule], c.law, rtol=0, atol=1e-12)
    np.testing.assert_array_equal([r["runs"] for r in rule], c.counts / c.n)
    assert data["rule"][0]["label"] == "Keep plausible guesses (Medusa)"
    assert data["tv"][0]["label"] == "its words at distance 0.4 from p"
    assert {r["series"] for r in rule} == {"✗ what the rule emits (exact)"}
    assert spec == before  # another rule up close: new data, the same chart
    shown = metrics(lab)
    assert shown["Distance to p"] == tv_text(c.tv) == "0.4"
    assert shown[f"Check of {LAB_RUNS:,} runs"] == "✗ fails"
    assert run_verdict(c) == "✗ stands out of the noise"
    assert NOTE.fill(RULES["typical_acceptance"].why) in all_text(lab)
    assert query(lab)["variant"] == "typical_acceptance"


def test_the_sliders_drive_the_rules(lab) -> None:
    before, _ = vega_chart(lab, "Speed against exactness")
    lab.select_slider(key="w.k").set_value(3).run()
    assert table(lab) == markdown_table(lab_table(checks(P, Q, k=3), NOTE))
    spec, data = vega_chart(lab, "Speed against exactness")
    assert spec == before  # new settings, new data: the chart is updated in place
    shown = {r["name"]: (r["acceptance"], r["tv"]) for r in data["rules"]}
    for c in checks(P, Q, k=3):
        name = next(n for n in shown if NOTE.fill(c.rule.title) in n)
        assert shown[name] == (c.acceptance, c.tv)
    assert data["alpha"][0]["acceptance"] == pytest.approx(0.6, abs=1e-12)
    assert f"| {percent(0.768)} |" in table(lab).splitlines()[5]
    lab.select_slider(key="w.eps").set_value(0.35).run()
    lab.select_slider(key="w.delta").set_value(1.0).run()
    row = lab_table(checks(P, Q, k=3, eps=0.35, delta=1.0), NOTE)
    assert table(lab) == markdown_table(row)
    assert row["keeps a guess"][4] == "30%" and row["distance to p (exact)"][4] == "0.11"
    q = query(lab)
    assert (q["k"], q["eps"], q["delta"]) == ("3", "0.35", "1")


def test_a_deep_link_restores_every_setting() -> None:
    link = {"variant": "multi_candidate", "k": "5", "eps": "0.2", "delta": "0.55"}
    at = page({"p": "100,0,0,0", "seed": "9"}, link)
    assert at.radio(key="w.variant").value == "multi_candidate"
    assert at.select_slider(key="w.k").value == 5
    assert at.select_slider(key="w.eps").value == 0.2
    assert at.select_slider(key="w.delta").value == 0.55
    expected = lab_table(checks([1, 0, 0, 0], Q, 9, 5, 0.2, 0.55), NOTE)
    assert table(at) == markdown_table(expected)
    # One word with all the mass: greedy verification is exact here.
    assert expected["output = p?"][1] == "on this pair only"
    assert {k: query(at)[k] for k in link} == link


@pytest.mark.parametrize(
    ("name", "bad"),
    [("variant", "float32_leq"), ("k", "9"), ("eps", "0.505"), ("delta", "nan"), ("k", "<b>")],
)
def test_bad_link_values_give_a_notice(name: str, bad: str) -> None:
    at = page(page_query={name: bad})
    (warning,) = at.warning
    assert f"The link's '{name}'" in warning.value and "<b>" not in warning.value
    assert not at.exception


def test_the_extremes_run(lab) -> None:
    for scenario in ({"p": "50,50,0,0", "q": "0,0,50,50"}, {"q": "40,30,20,10"}):
        at = page(scenario, {"variant": "greedy"})
        assert not at.exception and not at.error
        assert len(at.get("vega_lite_chart")) == 2 and not at.get("plotly_chart")


def test_the_lettering_switch_and_projector_mode() -> None:
    at = page({"letters": "chen", "projector": "1"})
    assert "| distance to q (exact) |" in table(at)
    assert at.selectbox(key="w.variant").value == "correct"  # a menu on a projector
    assert "Distance to q" in metrics(at)
    assert not [m for m in at.markdown if m.value.startswith("Other ways")]
