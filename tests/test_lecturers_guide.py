"""The lecturer's guide and presenter mode.

The plan is data (specviz.lesson_plan reads it from docs/lecturers_guide.md): its minutes add up
to 50 in six blocks, every step's link names a page and parses there with no notice. The page
"For lecturers" shows the guide as written, each step a same-tab link that keeps the lecturer's
lettering, projector mode and seed. Presenter mode (``step`` in the URL) shows a bar on every
page; its Previous and Next open the neighbouring steps in their state.
"""

from __future__ import annotations

from itertools import pairwise
from urllib.parse import parse_qsl

import pytest
from helpers import assert_alive, open_page, query, said
from streamlit.testing.v1 import AppTest

from specviz import links
from specviz.classroom import BANK
from specviz.lesson_plan import GUIDE, PLAN, SCRIPTS, guide, plan, read_plan
from specviz.links import CLAIMS, STEP, read_all
from specviz.scenario import from_query
from specviz.text import LANGUAGES
from specviz.ui.page import PAGES
from specviz.ui.presenter import KEPT

#: Every link parameter a page reads (the scenario's and the pages' own).
PARAMS = tuple(p for p in vars(links).values() if isinstance(p, links.Param))
#: The lecturer's settings: Chen's letters, a projector, a seed of their own.
LECTURER = {"letters": "chen", "projector": "1", "seed": "123"}
BLOCKS = [
    "The idea",
    "One draw, then a million",
    "Why it is exact, and the bug zoo",
    "Many words per call: when it pays",
    "The debate: four claims",
    "Exit question",
]
IDS = [f"step{n}" for n in range(1, len(PLAN) + 1)]


# --------------------------------------------------------------------------- the plan's data


def test_the_plan_takes_50_minutes_in_six_blocks() -> None:
    assert PLAN[0].start == 0 and PLAN[-1].end == 50
    for before, step in pairwise(PLAN):
        assert step.start == before.end, f"{step.title} starts at {step.start}, not {before.end}"
    assert all(step.end > step.start for step in PLAN)
    assert sum(step.end - step.start for step in PLAN) == 50
    assert list(dict.fromkeys(step.block for step in PLAN)) == BLOCKS
    debate = [step for step in PLAN if step.block == BLOCKS[4]]
    assert len(debate) == 4 and {s.script for s in debate} == {"pages/9_The_debate.py"}


def test_every_step_has_a_page_a_talking_point_and_a_question() -> None:
    scripts = {info.script for info in PAGES}
    for step in PLAN:
        assert step.script in scripts, f"{step.title}: {step.script} is not in the menu"
        assert (GUIDE.parents[1] / step.script).exists()
        assert len(step.say) > 40 and "?" in step.ask, step.title
    assert {s.script for s in PLAN} >= {i.script for i in PAGES[:7]} | {"pages/9_The_debate.py"}


def test_the_discussion_steps_ask_the_phones() -> None:
    """The debate's four claims are votes, and the exit question is the first one again (before
    and after); a question the phones cannot answer is refused."""
    debate = [step.poll for step in PLAN if step.block == BLOCKS[4]]
    assert debate == [f"claim.{key}" for key in CLAIMS]
    assert PLAN[0].poll == PLAN[-1].poll == "why.worse"
    assert all("📱" not in step.ask and (not step.poll or step.poll in BANK) for step in PLAN)
    row = "| 0–50 | [Home](./) | Say. | Ask? 📱 *Not a question of ours* |"
    with pytest.raises(ValueError, match="none the phones can answer"):
        read_plan(f"## The plan\n\n### A block\n\n{row}\n")


def test_the_step_parameter_counts_the_plans_steps() -> None:
    assert STEP.choices == tuple(range(len(PLAN) + 1)) and STEP.default == 0
    assert STEP.write(0) == {} and STEP.read({"step": "3"}) == (3, None)
    _, notice = STEP.read({"step": str(len(PLAN) + 1)})
    assert notice is not None and notice.endswith("; the page uses no step.")


@pytest.mark.parametrize("step", PLAN, ids=IDS)
def test_every_steps_link_parses_with_no_notice(step) -> None:
    given = dict(step.query)
    assert not set(given) & {*KEPT, STEP.name}, "a step keeps the lecturer's settings"
    assert set(given) <= {p.name for p in PARAMS}, f"{step.title}: {given}"
    values, notices = read_all(PARAMS, given)
    assert notices == [] and from_query(given)[1] == []
    for name, text in given.items():  # written as the page writes it: the address bar agrees
        assert next(p for p in PARAMS if p.name == name).format(values[name]) == text


def test_the_plan_section_holds_only_its_blocks_and_steps() -> None:
    """The page draws the plan from the data: anything else in the section would not show."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.partition("\n## The plan\n")[2].split("\n## ")[0]
    for line in section.splitlines():
        assert not line.strip() or line.startswith(("### ", "|")), line
    rows = [line for line in section.splitlines() if line[:3].strip("| ").isdigit()]
    assert len(rows) == len(PLAN)  # every step row was read


def test_a_plan_without_steps_or_with_a_link_to_no_page_is_refused() -> None:
    with pytest.raises(ValueError, match="no plan"):
        read_plan("# A guide\n\n## The plan\n\nNothing yet.\n")
    row = "| 0–50 | [Nowhere](./Nowhere?n=1) | Say. | Ask? |"
    with pytest.raises(ValueError, match="names no page"):
        read_plan(f"## The plan\n\n### A block\n\n{row}\n")
    assert SCRIPTS[""] == "app.py" and SCRIPTS["Monte_Carlo"] == "pages/3_Monte_Carlo.py"


# ----------------------------------------------------------------- the pages, under AppTest


def bar_text(at: AppTest) -> str:
    """The presenter bar's words (empty without a bar)."""
    shown = [m.value for m in at.main.markdown if m.value.startswith("**Step ")]
    return shown[0] if shown else ""


def bar_links(at: AppTest) -> dict[str, tuple[str, dict[str, str]]]:
    """The bar's Previous and Next: label -> (page's address, query)."""
    return {
        link.proto.label: (link.proto.page, dict(parse_qsl(link.proto.query_string)))
        for link in at.main.get("page_link")
        if link.proto.label in ("Previous", "Next")
    }


def follow(at: AppTest, address: str, params: dict[str, str]) -> AppTest:
    """Click a page link: its page, with exactly its query (Streamlit clears the rest)."""
    at.query_params.clear()
    at.query_params.update(params)
    at.switch_page(SCRIPTS[address]).run()
    assert_alive(at)
    return at


@pytest.mark.slow
@pytest.mark.parametrize("number", range(1, len(PLAN) + 1), ids=IDS)
def test_every_step_opens_its_page_in_its_state_with_the_lecturers_settings(number) -> None:
    step = PLAN[number - 1]
    given = dict(step.query) | LECTURER | {"step": str(number)}
    at = open_page(step.script, given)
    assert not at.warning, f"{step.title}: " + "; ".join(w.value for w in at.warning)
    assert not at.error, f"{step.title}: " + "; ".join(e.value for e in at.error)
    shown = query(at)
    for key, value in given.items():
        assert shown.get(key) == value, f"{step.title}: the page shows {key}={shown.get(key)}"
    label = next(info.label for info in PAGES if info.script == step.script)
    minutes = f"{step.block}, {step.start}–{step.end} min"
    assert bar_text(at) == f"**Step {number} of {len(PLAN)}** · {label} · {minutes}"
    said = [m.value for m in at.main.markdown]
    assert step.say in said and f"**Ask the room:** {step.ask}" in said


@pytest.mark.slow
def test_next_and_previous_walk_the_plan_keeping_the_lecturers_settings() -> None:
    at = open_page(PLAN[0].script, dict(PLAN[0].query) | LECTURER | {"step": "1"})
    assert set(bar_links(at)) == {"Next"}  # no Previous on the first step
    for number in range(2, len(PLAN) + 1):
        address, params = bar_links(at)["Next"]
        assert params["step"] == str(number) and {k: params[k] for k in LECTURER} == LECTURER
        follow(at, address, params)
        step = PLAN[number - 1]
        assert bar_text(at).startswith(f"**Step {number} of")
        shown = query(at)
        assert {k: shown.get(k) for k in LECTURER} == LECTURER, step.title
        assert all(shown.get(k) == v for k, v in step.query), (step.title, shown)
        assert at.session_state["ui.swapped"] is True
    assert set(bar_links(at)) == {"Previous"}  # no Next on the last step
    address, params = bar_links(at)["Previous"]
    follow(at, address, params)
    assert bar_text(at).startswith(f"**Step {len(PLAN) - 1} of")


@pytest.mark.slow
def test_a_step_on_the_same_page_brings_its_own_state() -> None:
    """Monte Carlo with 100 runs, changed by the lecturer, then Next: a million runs."""
    number = next(n for n, s in enumerate(PLAN, 1) if dict(s.query).get("n") == "100")
    at = open_page("pages/3_Monte_Carlo.py", {"n": "100", "step": str(number)})
    at.select_slider(key="w.n").set_value(1000).run()
    assert query(at)["n"] == "1k" and query(at)["step"] == str(number)  # the step stays
    follow(at, *bar_links(at)["Next"])
    assert query(at)["n"] == dict(PLAN[number].query)["n"] == "1M"
    assert at.select_slider(key="w.n").value == 10**6


@pytest.mark.slow
def test_the_menu_keeps_the_step_and_end_closes_the_bar() -> None:
    at = open_page(PLAN[3].script, dict(PLAN[3].query) | {"step": "4"})
    weights = query(at)["q"]
    follow(at, "Bug_zoo", {})  # the sidebar's menu: a link with no query
    assert bar_text(at).startswith("**Step 4 of") and query(at)["step"] == "4"
    assert query(at)["q"] == weights  # the state stays the lecturer's
    at.button(key="presenter.end").click().run()
    assert bar_text(at) == "" and "step" not in query(at)
    at.run()
    assert bar_text(at) == ""


@pytest.mark.slow
def test_no_bar_without_a_step() -> None:
    at = open_page("pages/1_Playground.py")
    assert bar_text(at) == "" and not bar_links(at) and "step" not in query(at)
    assert not [button for button in at.button if button.key == "presenter.end"]


@pytest.mark.slow
@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_page_shows_the_guide_as_written_and_every_step_as_a_link(language: str) -> None:
    lecturer = LECTURER | {"lang": language}
    at = open_page("pages/10_For_lecturers.py", lecturer)
    shown = "\n".join(m.value for m in at.main.markdown)
    for line in guide(language).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("|"):
            assert line in shown, line
    assert "50" in shown  # minutes
    steps, plan_shown = [link.proto for link in at.main.get("page_link")], plan(language)
    assert steps[0].label == said(language, "polls.start_presenting")
    assert len(steps) == len(PLAN) + 1
    for number, (link, step) in enumerate(zip(steps[1:], plan_shown, strict=True), start=1):
        assert link.label.endswith(f"{step.title}**") and SCRIPTS[link.page] == step.script
        params = dict(parse_qsl(link.query_string))
        assert params == dict(step.query) | lecturer | {"step": str(number)}
    assert dict(parse_qsl(steps[0].query_string)) == dict(parse_qsl(steps[1].query_string))
    assert not at.warning and bar_text(at) == ""


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_every_translation_of_the_guide_keeps_the_plan_step_for_step(language: str) -> None:
    translated = plan(language)
    assert len(translated) == len(PLAN)
    for english, step in zip(PLAN, translated, strict=True):
        assert (step.start, step.end, step.script, step.query, step.poll) == (
            english.start,
            english.end,
            english.script,
            english.query,
            english.poll,
        )
        assert step.title != english.title and step.say != english.say
