"""Bug zoo: famous wrong implementations next to the correct rule, and how fast their bias shows."""

import streamlit as st

from specviz.figures.numbers import percent, thousands, tv_text
from specviz.figures.zoo import zoo_figures
from specviz.limits import ZOO_N_MAX
from specviz.links import BUG
from specviz.rules import RULES
from specviz.text import say
from specviz.ui import page, state
from specviz.zoo import zoo_comparison

page.setup("pages/4_Bug_zoo.py")
note = state.notation()

st.title(say("zoo.title"))
page.intro(note.fill(say("zoo.intro")))


@page.part
def lesson() -> None:
    """Everything the mistake picked moves."""
    page.show_notices(BUG)

    key = state.param_widget(
        BUG,
        st.radio,
        label=say("zoo.pick"),
        format_func=lambda k: note.fill(RULES[k].title),
        horizontal=True,
    )
    rule = RULES[key]
    scenario, one = page.lesson()
    if not rule.available(one.p, one.q):
        state.stop(note.fill(say("zoo.unavailable", rule=rule.title)), kind="warning")
    with st.spinner(say("zoo.running")):
        comparison = page.computed(zoo_comparison, key, scenario.seed, ZOO_N_MAX)
    figures = page.figures(zoo_figures, comparison, key=(key, scenario.seed))

    # The exhibit and its output side by side: on a projector, the choice and its chart on one
    # screen.
    words, law = st.columns([2, 3], gap="large")
    with words:
        st.markdown(note.fill(say("zoo.what", what=rule.what)))
        st.markdown(note.fill(say("zoo.why", why=rule.why)))
        st.caption(say("zoo.seen_in", source=note.fill(rule.source)))
    with law:
        page.chart(*figures["law"], key="zoo.chart.law")

    tv, runs = tv_text(comparison.tv), comparison.detectable_from  # runs: None if it never shows
    shows = f"N = {thousands(runs)}" if runs else say("zoo.never")
    page.metrics(
        (note.fill(say("zoo.distance")), tv, say("zoo.distance_help")),
        (say("zoo.correct"), tv_text(comparison.tv_correct), say("zoo.correct_help")),
        (say("zoo.shows_from"), shows, say("zoo.shows_from_help")),
    )
    if runs:
        st.markdown(say("zoo.bias_note", tv=tv, share=percent(comparison.tv), runs=thousands(runs)))
    else:
        st.success(note.fill(say("zoo.harmless")), icon=":material/check:")

    page.chart(*figures["tv"], key="zoo.chart.tv")


lesson()
state.sync_url()
