"""Why it's exact: the proof in the learner's numbers, where real code leaks, guesses first."""

import streamlit as st

from specviz.exactness import CASES_BY_KEY, FILTER, QUESTIONS, WORDS, float32_leak
from specviz.figures import exactness as fx
from specviz.figures.numbers import thousands
from specviz.figures.tables import markdown_table
from specviz.links import BUG, CASE, LEAK_RUNS
from specviz.rules import RULES
from specviz.text import say
from specviz.ui import page, state

page.setup("pages/6_Why_its_exact.py")
scenario, note, style = state.current(), state.notation(), page.style()

st.title(say("exactness.title"))
if not scenario.projector:  # on a projector the case and its proof come first
    st.markdown(note.fill(say("exactness.intro")))


@page.part
def proof() -> None:
    """The proof filled in with the chosen case's numbers."""
    page.show_notices(CASE, LEAK_RUNS)
    case = state.param_widget(
        CASE,
        st.radio,
        label=say("exactness.fill_with"),
        format_func=lambda k: (
            say("exactness.your_numbers") if k == "yours" else CASES_BY_KEY[k].title
        ),
        horizontal=True,
    )
    scenario, _ = page.lesson()
    # The case's lesson has a slot of its own, drawn or not: the elements below keep their places,
    # so switching cases updates the proof chart in place instead of remounting it.
    told = st.empty()
    if case == "yours":
        shown = page.figures(fx.why_figures)
    else:
        shown = page.cached(fx.case_figures, case, style)
        told.caption(note.fill(CASES_BY_KEY[case].lesson))
    if scenario.projector:  # the picture first, full width; the table below it
        picture, text = st.container(), st.container()
    else:
        text, picture = st.columns([5, 3], gap="small")
    text.latex(fx.derivation(note, projector=scenario.projector))
    text.markdown(markdown_table(shown["table"]))
    text.caption(say("exactness.rounded"))
    with picture:
        page.chart(*shown["proof"], key="why.chart.proof")
    st.markdown(shown["rejection"])
    st.caption(say("exactness.min_max"))


# Three parts: a change of the case, of the leak's runs or a guess resends only its own part.
proof()
st.header(say("exactness.filter_header"))
forbidden = FILTER.step()
st.markdown(fx.filter_sentence(WORDS, forbidden, note))
page.chart(*page.cached(fx.filter_figure, style), key="why.chart.filter")

st.header(say("exactness.leak_header"))
rule = RULES["float32_leq"]
st.markdown(note.fill(f"{rule.what} {rule.why}"))
st.caption(say("exactness.seen_in", source=note.fill(rule.source)))


@page.part
def leak() -> None:
    """The float32 leak counted over the chosen number of proposals."""
    n = state.param_widget(
        LEAK_RUNS, st.select_slider, label=say("exactness.leak_runs"), format_func=fx.big_count
    )
    seed = state.current().seed
    leak = page.cached(float32_leak, tuple(forbidden.p), tuple(forbidden.q), n, seed)
    one_in = say("exactness.one_in", n=thousands(round(1 / leak.per_proposal)))
    page.metrics(
        (say("exactness.passes"), one_in, None),
        (say("exactness.came_out_leq"), thousands(leak.leaks), None),
        (say("exactness.came_out_strict"), thousands(leak.strict_leaks), None),
    )
    st.markdown(fx.leak_sentence(leak, note))
    if st.button(say("exactness.to_zoo"), key="why.to_zoo", icon=":material/bug_report:"):
        state.set_param(BUG, "float32_leq")
        st.switch_page("pages/4_Bug_zoo.py")


leak()
st.header(say("exactness.chain_header"))
st.markdown(note.fill(say("exactness.chain_rule")))
link = say("exactness.see_it_run")
st.page_link("pages/5_Many_words_per_call.py", label=link, icon=":material/arrow_forward:")

st.header(say("exactness.predict_header"))
st.caption(say("exactness.commit"))


@page.part
def questions() -> None:
    """Each question, and its answer once the learner has guessed."""
    for number, question in enumerate(QUESTIONS, start=1):
        remembered = f"specviz.guess.{question.key}"
        with st.container(border=True):
            st.markdown(f"**{number}. {note.fill(question.prompt)}**")
            guess = state.bound(
                st.radio,
                f"guess.{question.key}",
                st.session_state.get(remembered),
                lambda value, k=remembered: st.session_state.__setitem__(k, value),
                label=note.fill(question.prompt),
                label_visibility="collapsed",
                options=question.options,
                format_func=note.fill,
                index=None,
            )
            if guess is None:
                st.caption(say("exactness.answer_appears"))
                continue
            box = st.success if question.is_right(guess) else st.info
            box(fx.reveal(question, guess, note), icon=":material/lightbulb:")
            figure, caption = page.cached(fx.question_figure, question.key, style)
            page.chart(figure, caption, key=f"why.q.{question.key}")


questions()
state.sync_url()
