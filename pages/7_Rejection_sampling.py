"""Is it just rejection sampling? Classic rejection sampling next to speculative sampling."""

import streamlit as st

from specviz.figures import rejection as fr
from specviz.figures.numbers import percent
from specviz.figures.tables import markdown_table
from specviz.links import REJECTION_RUNS
from specviz.rejection import across_presets, rejection_comparison
from specviz.ui import page, state

page.setup("pages/7_Rejection_sampling.py")
scenario, note = state.current(), state.notation()

st.title("Is it just rejection sampling?")
if not scenario.projector:  # on a projector the control and its chart come first
    st.markdown(
        note.fill(
            "Skeptics call speculative sampling “rejection sampling in a shiny jacket”. Run both "
            "on the Playground's target {T} and draft {D}, with the same seed, and let the "
            "numbers decide. Classic rejection sampling proposes from {D}, keeps x with "
            "probability {T}(x)/(M·{D}(x)) with M = max {T}/{D}, and retries until it keeps one."
        )
    )
page.show_notices(REJECTION_RUNS)
n = state.param_widget(REJECTION_RUNS, st.select_slider, label="Words each sampler writes")
scenario, one = page.lesson()
with st.spinner("Running both samplers…"):
    comparison = page.computed(rejection_comparison, n, scenario.seed)
figures = page.figures(fr.rejection_figures, comparison, key=(n, scenario.seed))
plan, run = comparison.classic.plan, comparison.classic
if scenario.projector:  # the control's own chart right under it; the numbers after
    page.chart(*figures["proposals"], key="rs.chart.proposals")

m = st.columns(4)
m[0].metric(
    "Classic: proposals/word",
    fr.bound_text(plan.bound),
    help=note.fill("M = max {T}(x)/{D}(x): the average number of proposals per word (exact)."),
)
m[1].metric(
    "…measured",
    f"{run.mean_proposals:.3g}" if run.ran else "none drawn",
    help=f"Mean over {run.n:,} words of the classic loop (standard error {run.std_error:.2g})."
    if run.ran
    else "The classic loop cannot run on this pair: no word was drawn.",
)
m[2].metric("Speculative: proposals/word", "1", help="Always exactly one, whatever the pair.")
m[3].metric(
    "First guess kept",
    f"{percent(one.alpha)} vs {percent(plan.acceptance)}",
    help=note.fill("Speculative α = Σ min({T}, {D}) vs classic 1/M."),
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
st.header("The same question on every preset")
st.markdown(markdown_table(fr.presets_table(page.cached(across_presets), note)))
st.caption(
    "Exact numbers, no sampling. The first-guess column is what decides the speed of "
    "speculative decoding: only a kept first guess lets the draft's next guesses count."
)

state.sync_url()
