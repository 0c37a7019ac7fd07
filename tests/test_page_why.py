"""AppTest of the page "Why it's exact": deep links with every setting, a control change, bad link
values, the numbers shown against the core's, and the predict-then-reveal flow (no answer before
a guess; the reveal is the math's; guesses never touch the learner's weights).

(The all-zero weights message and the bad own-setting notice are tested for every page in
test_pages.py.)
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from helpers import all_text, metrics, open_page, own_markdown, query, vega_chart
from streamlit.testing.v1 import AppTest

from specviz.exactness import CASES_BY_KEY, FILTER, QUESTIONS, QUESTIONS_BY_KEY, WORDS, float32_leak
from specviz.figures import exactness as fx
from specviz.figures.style import ChartStyle
from specviz.figures.tables import markdown_table
from specviz.links import CASE, LEAK_RUNS
from specviz.one_token import normalize, step
from specviz.palette import Notation

pytestmark = pytest.mark.slow  # the app under AppTest

WHY = "pages/6_Why_its_exact.py"
P = normalize([40, 30, 20, 10])
Q = normalize([10, 20, 30, 40])
SEED = 7
NOTE = Notation()
LABELS = ("mat", "sofa", "floor", "bed")


def page(scenario_query: dict | None = None, page_query: dict | None = None) -> AppTest:
    return open_page(WHY, scenario_query, via_home=True, page_query=page_query)


def charts(at: AppTest) -> list[tuple[dict, dict]]:
    """Every chart's spec and datasets (as rows), in page order: the proof, the filter case,
    then one per question answered. (A Vega-Lite chart without selections has no element key
    to find it by, and the questions' proof charts share the proof's title.)"""
    return [
        (
            json.loads(c.proto.spec),
            {
                d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist()
                for d in c.proto.datasets
            },
        )
        for c in at.get("vega_lite_chart")
    ]


def column(datasets: dict, field: str) -> np.ndarray:
    """One field of a chart's per-word dataset (as the page sent it), in the words' order."""
    return np.array([row[field] for row in sorted(datasets["bars"], key=lambda r: r["i"])])


def table(at: AppTest) -> str:
    """The page's one Markdown table (the proof, filled in)."""
    (shown,) = [m for m in own_markdown(at) if m.startswith("| ")]
    return shown


@pytest.fixture(scope="module")
def why() -> AppTest:
    return page()


# ================================================================================ the proof


def test_defaults_fill_the_proof_with_the_learners_numbers(why) -> None:
    assert why.title[0].value == "Why it's exact"
    assert why.radio(key="w.case").value == "yours"
    assert table(why) == markdown_table(fx.proof_table(LABELS, step(P, Q), NOTE))
    assert why.latex[0].value.strip("$\n") == fx.derivation(NOTE)
    spec, proof = vega_chart(why, "Why it is exact")
    assert spec["title"] == fx.why_figures(LABELS, step(P, Q), ChartStyle())["proof"][0]["title"]
    np.testing.assert_allclose(column(proof, "kept"), step(P, Q).kept, atol=1e-12)
    np.testing.assert_allclose(column(proof, "refill"), step(P, Q).refill, atol=1e-12)
    np.testing.assert_allclose(column(proof, "p"), P, atol=1e-12)
    _, shown = vega_chart(why, "A proposed word is kept")
    np.testing.assert_array_equal(column(shown, "accept"), FILTER.step().accept)
    assert fx.rejection_equation(LABELS, step(P, Q), NOTE) in all_text(why)
    assert query(why)["case"] == "yours" and query(why)["leak"] == "1e12"
    assert not why.warning and not why.error


def test_the_leak_shown_is_the_cores(why) -> None:
    leak = float32_leak(FILTER.step().p, FILTER.step().q, 10**12, SEED)
    shown = metrics(why)
    assert shown["'bed' came out (≤, float32)"] == f"{leak.leaks:,}"
    assert shown["'bed' came out (<, SpecViz)"] == "0"
    assert shown["A forbidden guess passes ≤ (u = 0, CPU)"] == "1 in 16,777,216"
    text = all_text(why)
    assert fx.leak_sentence(leak, NOTE) in text
    # The CPU and the GPU cases, and that a trillion runs is one draw of the counts, in the text.
    assert (
        "on a CPU (numpy, CPU PyTorch)" in text
        and "On a GPU, PyTorch's random numbers (its CUDA code)" in text
    )
    assert "not 1 trillion random numbers drawn one by one" in text
    assert fx.filter_sentence(WORDS, FILTER.step(), NOTE) in all_text(why)


def test_a_deep_link_restores_every_setting() -> None:
    at = page(
        {"p": "50,30,20,0", "q": "40,30,20,10", "seed": "3"}, {"case": "misses", "leak": "1e9"}
    )
    assert at.radio(key="w.case").value == "misses"
    assert at.select_slider(key="w.leak").value == 10**9
    assert table(at) == markdown_table(fx.proof_table(WORDS, CASES_BY_KEY["misses"].step(), NOTE))
    assert CASES_BY_KEY["misses"].lesson.replace("{D}", "q") in [c.value for c in at.caption]
    leak = float32_leak(FILTER.step().p, FILTER.step().q, 10**9, 3)
    assert metrics(at)["'bed' came out (≤, float32)"] == f"{leak.leaks:,}"
    q = query(at)
    assert (q["case"], q["leak"], q["p"], q["seed"]) == ("misses", "1e9", "50,30,20,0", "3")


def test_changing_the_case_changes_the_proof_and_the_link() -> None:
    at = page()
    before, _ = vega_chart(at, "Why it is exact")
    at.radio(key="w.case").set_value("filter").run()
    # The same chart with the case's numbers: only its data changed, so it updates in place.
    after, shown = vega_chart(at, "Why it is exact")
    assert after == before
    np.testing.assert_allclose(column(shown, "kept"), FILTER.step().kept, atol=1e-12)
    np.testing.assert_allclose(column(shown, "p"), FILTER.step().p, atol=1e-12)
    expected = fx.proof_table(WORDS, FILTER.step(), NOTE)
    assert table(at) == markdown_table(expected)
    assert expected["sum = p?"][3] == "0% ✓" and expected["kept q·a"][3] == "0%"
    assert query(at)["case"] == "filter"
    # The learner's own weights are untouched.
    assert query(at)["p"] == "40,30,20,10" and query(at)["q"] == "10,20,30,40"
    at.select_slider(key="w.leak").set_value(10**6).run()
    assert query(at)["leak"] == "1e6"


@pytest.mark.parametrize(
    ("name", "bad"), [("case", "zzz"), ("case", "<b>x</b>"), ("leak", "1e13"), ("leak", "lots")]
)
def test_bad_link_values_give_a_notice_and_the_default(name: str, bad: str) -> None:
    at = page(page_query={name: bad})
    (warning,) = at.warning
    assert f"The link's '{name}'" in warning.value and "<b>" not in warning.value
    param = {"case": CASE, "leak": LEAK_RUNS}[name]
    assert query(at)[name] == param.write(param.default)[name]


def test_the_lettering_switch_and_projector_mode() -> None:
    at = page({"letters": "chen", "projector": "1"})
    assert r"\frac{q(x)}{p(x)}" in at.latex[0].value and r"\Large" in at.latex[0].value
    assert table(at).startswith("| word | q(x) | p(x) |")
    assert not [m for m in at.markdown if m.value.startswith("Is the output really")]
    assert not at.exception


def test_the_next_page_is_a_link_that_says_so(why) -> None:
    """The chain rule's way on reads and looks like a link: an arrow, "open", the page's name."""
    (link,) = [e.proto for e in why.get("page_link") if "See it run" in e.proto.label]
    assert link.page == "Many_words_per_call" and link.icon == ":material/arrow_forward:"
    # In a link's colour (and the arrow and "open" say it without colour).
    assert link.label == ":blue[See it run: open **Many words per call**]"


def test_the_bug_zoo_button_opens_the_exhibit() -> None:
    at = page()
    at.button(key="why.to_zoo").click().run()
    assert at.title[0].value == "Bug zoo"
    assert at.radio(key="w.bug").value == "float32_leq"


# ======================================================================== predict, reveal


def test_no_answer_before_a_guess(why) -> None:
    for question in QUESTIONS:
        assert why.radio(key=f"guess.{question.key}").value is None
    assert len(charts(why)) == 2  # the proof and the filter case: no question's chart
    waiting = [c.value for c in why.caption if c.value.startswith("The answer appears")]
    assert len(waiting) == len(QUESTIONS)
    assert not why.success and not why.info


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.key)
def test_a_guess_reveals_the_answer_and_why(question) -> None:
    at = page()
    wrong = next(o for i, o in enumerate(question.options) if i != question.answer)
    at.radio(key=f"guess.{question.key}").set_value(wrong).run()
    (box,) = at.info
    right_answer = NOTE.fill(question.options[question.answer])
    assert box.value == fx.reveal(question, wrong, NOTE)
    assert box.value.startswith(f"**Not quite. The answer: “{right_answer}”.**")
    fig, caption = fx.question_figure(question.key, ChartStyle())
    # The question's chart comes after the page's two, and only it: the others stay closed.
    (shown,) = charts(at)[2:]
    spec, datasets = shown
    assert spec["title"] == fig["title"] and spec["layer"] == fig["layer"]
    assert datasets == fig["datasets"]
    assert caption in [c.value for c in at.caption]
    at.radio(key=f"guess.{question.key}").set_value(question.options[question.answer]).run()
    (box,) = at.success
    assert box.value.startswith(f"**Right: “{right_answer}”.**") and not at.info
    # A guess is session data, not the learner's scenario: the link and weights are unchanged.
    assert query(at)["p"] == "40,30,20,10" and query(at)["q"] == "10,20,30,40"
    assert not any(key.startswith("guess") for key in query(at))


def test_the_reveal_of_alpha_is_the_maths() -> None:
    at = page()
    at.radio(key="guess.alpha").set_value("60%").run()
    (box,) = at.info
    assert box.value.startswith("**Not quite. The answer: “40%”.**")
    assert "α = Σ min(p, q): 5% + 15% + 15% + 5%, word by word." in box.value
    (shown,) = charts(at)[2:]
    one = QUESTIONS_BY_KEY["alpha"].case.step()
    np.testing.assert_allclose(column(shown[1], "kept"), one.kept, atol=1e-12)
    np.testing.assert_allclose(column(shown[1], "refill"), one.refill, atol=1e-12)


def test_guesses_survive_a_trip_to_another_page() -> None:
    at = page()
    at.radio(key="guess.missing").set_value("Never: the draft never proposes it").run()
    at.switch_page("pages/1_Playground.py").run()
    at.switch_page(WHY).run()
    assert at.radio(key="guess.missing").value == "Never: the draft never proposes it"
    assert at.info  # still revealed
