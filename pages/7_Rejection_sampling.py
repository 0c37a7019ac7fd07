"""Is it just rejection sampling? Classic rejection sampling next to speculative sampling."""

import streamlit as st

from specviz.figures import rejection as fr
from specviz.figures.numbers import percent, significant, thousands
from specviz.figures.tables import markdown_table
from specviz.links import REJECTION_RUNS
from specviz.rejection import across_presets, rejection_comparison
from specviz.text import say
from specviz.ui import page, state

page.setup("pages/7_Rejection_sampling.py")
scenario, note = state.current(), state.notation()

st.title(say("rejection.title"))
if not scenario.projector:  # on a projector the control and its chart come first
    st.markdown(note.fill(say("rejection.intro")))


@page.part
def lesson() -> None:
    """Everything the number of words moves."""
    page.show_notices(REJECTION_RUNS)
    n = state.param_widget(REJECTION_RUNS, st.select_slider, label=say("rejection.words_each"))
    scenario, one = page.lesson()
    with st.spinner(say("rejection.running")):
        comparison = page.computed(rejection_comparison, n, scenario.seed)
    figures = page.figures(fr.rejection_figures, comparison, key=(n, scenario.seed))
    plan, run = comparison.classic.plan, comparison.classic
    if scenario.projector:  # the control's own chart right under it; the numbers after
        page.chart(*figures["proposals"], key="rs.chart.proposals")

    if run.ran:
        measured = significant(run.mean_proposals)
        about = say(
            "rejection.measured_help", words=thousands(run.n), error=significant(run.std_error, 2)
        )
    else:
        measured, about = say("rejection.none_drawn"), say("rejection.cannot_run_help")
    versus = say("rejection.versus", alpha=percent(one.alpha), acceptance=percent(plan.acceptance))
    page.metrics(
        (
            say("rejection.classic_metric"),
            fr.bound_text(plan.bound),
            note.fill(say("rejection.classic_help")),
        ),
        (say("rejection.measured"), measured, about),
        (say("rejection.speculative_metric"), "1", say("rejection.speculative_help")),
        (say("rejection.first_kept"), versus, note.fill(say("rejection.first_kept_help"))),
    )
    st.markdown(fr.verdict(comparison, scenario.labels, note))
    if cut := fr.cut_note(comparison):
        st.caption(cut)
    if scenario.projector:
        page.chart(*figures["envelope"], key="rs.chart.envelope")
    else:
        left, right = st.columns(2, gap="large")
        with left:
            page.chart(*figures["proposals"], key="rs.chart.proposals")
        with right:
            page.chart(*figures["envelope"], key="rs.chart.envelope")

    st.markdown(fr.structure(comparison, note))
    st.markdown(fr.same_idea(comparison, note))


lesson()
# The presets do not move with N: drawn once, not resent by every change of it.
st.header(say("rejection.presets_header"))
st.markdown(markdown_table(fr.presets_table(page.cached(across_presets), note)))
st.caption(say("rejection.presets_caption"))
state.sync_url()
