"""AppTest of the page "Is it just rejection sampling?": deep links, the runs control, bad link
values, and the numbers shown against the core's (specviz.rejection), including a pair the
classic sampler cannot run on.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import all_text, metrics, open_page, query, vega_chart
from streamlit.testing.v1 import AppTest

from specviz.figures import rejection as fr
from specviz.figures.style import ChartStyle
from specviz.figures.tables import markdown_table
from specviz.limits import REJECTION_RUN_CHOICES
from specviz.one_token import normalize
from specviz.palette import Notation
from specviz.rejection import across_presets, rejection_comparison

pytestmark = pytest.mark.slow  # the app under AppTest

RS = "pages/7_Rejection_sampling.py"
P = normalize([40, 30, 20, 10])
Q = normalize([10, 20, 30, 40])
SEED = 7
NOTE = Notation()
LABELS = ("mat", "sofa", "floor", "bed")


def page(scenario_query: dict | None = None, page_query: dict | None = None) -> AppTest:
    return open_page(RS, scenario_query, via_home=True, page_query=page_query)


@pytest.fixture(scope="module")
def rs() -> AppTest:
    return page()


def test_defaults_show_the_cores_numbers(rs) -> None:
    assert rs.title[0].value == "Is it just rejection sampling?"
    assert rs.select_slider(key="w.runs").value == 10_000
    c = rejection_comparison(P, Q, 10_000, SEED)
    shown = metrics(rs)
    assert shown["Classic: proposals/word"] == "4"
    assert shown["…measured"] == f"{c.classic.mean_proposals:.3g}"
    assert shown["Speculative: proposals/word"] == "1"
    assert shown["First guess kept"] == "60% vs 25%"
    text = all_text(rs)
    for sentence in (
        fr.verdict(c, LABELS, NOTE),
        fr.structure(c, NOTE),
        fr.same_idea(c, NOTE),
    ):
        assert sentence in text
    measured, exact = fr.proposals_shares(c)
    _, proposals = vega_chart(rs, "Proposals per word")
    np.testing.assert_array_equal([r["measured"] for r in proposals["bars"]], measured)
    np.testing.assert_array_equal([r["exact"] for r in proposals["bars"]], exact)
    assert proposals["law"][0]["label"] == "classic, exact: M = 4 on average"
    _, envelope = vega_chart(rs, "Envelopes")
    np.testing.assert_array_equal([r["kept"] for r in envelope["bars"]], c.step.kept)
    np.testing.assert_array_equal([r["refill"] for r in envelope["bars"]], c.step.refill)
    np.testing.assert_array_equal([r["envelope"] for r in envelope["bars"]], 4 * Q)
    assert markdown_table(fr.presets_table(across_presets(), NOTE)) in all_text(rs)
    assert query(rs)["runs"] == "10k" and not rs.warning


@pytest.mark.parametrize("n", REJECTION_RUN_CHOICES)
def test_every_number_of_words(rs, n: int) -> None:
    rs.select_slider(key="w.runs").set_value(n).run()
    assert not rs.exception
    c = rejection_comparison(P, Q, n, SEED)
    assert metrics(rs)["…measured"] == f"{c.classic.mean_proposals:.3g}"
    assert fr.verdict(c, LABELS, NOTE) in all_text(rs)
    spec, proposals = vega_chart(rs, "Proposals per word")
    np.testing.assert_array_equal(
        [r["measured"] for r in proposals["bars"]], fr.proposals_shares(c)[0]
    )
    # The number of words changes the data only (the spec is the default state's, with the
    # sizing Streamlit adds): the chart on the page is updated in place.
    default, _ = fr.proposals_figure(rejection_comparison(P, Q, 10_000, SEED), ChartStyle())
    assert spec.pop("autosize") == {"contains": "padding", "type": "fit"}
    assert spec == {key: value for key, value in default.items() if key != "datasets"}


def test_a_deep_link_with_a_draft_that_misses_a_word() -> None:
    at = page({"q": "50,30,20,0", "seed": "11"}, {"runs": "100k"})
    assert at.select_slider(key="w.runs").value == 100_000
    shown = metrics(at)
    assert shown["Classic: proposals/word"] == "∞" and shown["…measured"] == "none drawn"
    c = rejection_comparison(P, normalize([50, 30, 20, 0]), 100_000, 11)
    assert fr.verdict(c, LABELS, NOTE) in all_text(at)
    assert "cannot run" in all_text(at) and not at.exception and not at.error
    _, proposals = vega_chart(at, "Proposals per word")
    assert proposals["law"] == [{"label": "classic cannot run here: M = ∞", "line": False}]
    assert not any(r["runs"] for r in proposals["bars"])
    assert query(at)["runs"] == "100k" and query(at)["seed"] == "11"


@pytest.mark.parametrize("bad", ["7", "1e9", "<i>x</i>"])
def test_bad_runs_give_a_notice(bad: str) -> None:
    at = page(page_query={"runs": bad})
    (warning,) = at.warning
    assert "The link's 'runs'" in warning.value and "<i>" not in warning.value
    assert warning.value.endswith("; the page uses 10,000 words.")
    assert at.select_slider(key="w.runs").value == 10_000


def test_the_lettering_switch_and_projector_mode() -> None:
    at = page({"letters": "chen", "projector": "1"})
    text = all_text(at)
    assert "min(q, p) ≥ q/M" in text
    assert not [m for m in at.markdown if m.value.startswith("Skeptics")]
    assert len(at.get("vega_lite_chart")) == 2 and not at.get("plotly_chart")
    spec, _ = vega_chart(at, "Envelopes")
    assert spec["title"] == [
        "Envelopes: speculative uses p itself,",
        "classic needs M·p over all of q",
    ]
    assert spec["config"]["axis"]["labelFontSize"] == 24
