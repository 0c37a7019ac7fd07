"""Why it's exact: the proof in the learner's numbers, where real code leaks, guesses first."""

import streamlit as st

from specviz.exactness import CASES_BY_KEY, FILTER, QUESTIONS, WORDS, float32_leak
from specviz.figures import exactness as fx
from specviz.figures.tables import markdown_table
from specviz.links import BUG, CASE, LEAK_RUNS
from specviz.rules import RULES
from specviz.ui import page, state

page.setup("pages/6_Why_its_exact.py")
scenario, note, style = state.current(), state.notation(), page.style()

st.title("Why it's exact")
if not scenario.projector:  # on a projector the case and its proof come first
    st.markdown(
        note.fill(
            "Is the output really the target's, word for word, whatever the draft? Here is the "
            "proof, filled in with numbers you can change — then guess before you look."
        )
    )
page.show_notices(CASE, LEAK_RUNS)
case = state.param_widget(
    CASE,
    st.radio,
    label="Fill the proof in with",
    format_func=lambda k: "Your own numbers" if k == "yours" else CASES_BY_KEY[k].title,
    horizontal=True,
)
scenario, _ = page.lesson()
# The case's lesson has a slot of its own, drawn or not: the elements below keep their places, so
# switching cases updates the proof chart in place instead of remounting it.
lesson = st.empty()
if case == "yours":
    shown = page.figures(fx.why_figures)
else:
    shown = page.cached(fx.case_figures, case, style)
    lesson.caption(note.fill(CASES_BY_KEY[case].lesson))
if scenario.projector:  # the picture first, full width; the table below it
    proof, text = st.container(), st.container()
else:
    text, proof = st.columns([5, 3], gap="small")
text.latex(fx.derivation(note, projector=scenario.projector))
text.markdown(markdown_table(shown["table"]))
text.caption("Each share is rounded, so a column can add up to a little more or less than 100%.")
with proof:
    page.chart(*shown["proof"], key="why.chart.proof")
st.markdown(shown["rejection"])
st.caption(
    "Why min + max gives back the target: for any two numbers a and b, min(a, b) + max(0, a − b) "
    "= a (if a ≤ b it is a + 0, otherwise b + (a − b))."
)

st.header("Can a word the target forbids slip through?")
forbidden = FILTER.step()
st.markdown(fx.filter_sentence(WORDS, forbidden, note))
page.chart(*page.cached(fx.filter_figure, style), key="why.chart.filter")

st.header("Where it can leak: in real code")
rule = RULES["float32_leq"]
st.markdown(note.fill(f"{rule.what} {rule.why}"))
st.caption(f"Seen in: {note.fill(rule.source)}")
n = state.param_widget(
    LEAK_RUNS, st.select_slider, label="Runs of the filter case above", format_func=fx.big_count
)
leak = page.cached(float32_leak, tuple(forbidden.p), tuple(forbidden.q), n, scenario.seed)
m = st.columns(3)
m[0].metric("A forbidden guess passes ≤ (u = 0, CPU)", f"1 in {round(1 / leak.per_proposal):,}")
m[1].metric("'bed' came out (≤, float32)", f"{leak.leaks:,}")
m[2].metric("'bed' came out (<, SpecViz)", f"{leak.strict_leaks:,}")
st.markdown(fx.leak_sentence(leak, note))
if st.button("Open this exhibit in the Bug zoo", key="why.to_zoo", icon=":material/bug_report:"):
    state.set_param(BUG, "float32_leq")
    st.switch_page("pages/4_Bug_zoo.py")

st.header("Many words: the chain rule")
st.markdown(note.fill(fx.CHAIN_RULE))
link = ":blue[See it run: open **Many words per call**]"
st.page_link("pages/5_Many_words_per_call.py", label=link, icon=":material/arrow_forward:")

st.header("Predict, then reveal")
st.caption("Commit to a guess first. Your guesses stay in this browser tab: nothing is stored.")
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
            st.caption("The answer appears once you have guessed.")
            continue
        box = st.success if question.is_right(guess) else st.info
        box(fx.reveal(question, guess, note), icon=":material/lightbulb:")
        figure, caption = page.cached(fx.question_figure, question.key, style)
        page.chart(figure, caption, key=f"why.q.{question.key}")

state.sync_url()
