"""Many words per call: speculative decoding over toy language models, and when it pays."""

import streamlit as st

from specviz.figures.decoding import (
    HOW_PREDICTED,
    INTRO,
    PAIR_BLURBS,
    alpha_figure,
    check_note,
    check_table,
    cost_note,
    gamma_figure,
    in_a_row_figure,
    shares_figure,
    summary,
    summary_sentence,
    timeline_caption,
    timeline_html,
)
from specviz.language import PAIR_TITLES, toy_pair, toy_run, warm_up
from specviz.links import (
    DECODE_COST,
    DECODE_LENGTH,
    DECODE_PAIR,
    DECODE_PARAMS,
    DECODE_TEMPERATURE,
    GAMMA,
)
from specviz.ui import page, state

page.setup("pages/5_Many_words_per_call.py")
scenario = state.current()
note = state.notation()
style = page.style()

st.title("Many words per call")
intro = note.fill(INTRO)
if not scenario.projector:  # on a projector the controls and their chart come first
    st.markdown(intro)
page.show_notices(*DECODE_PARAMS)  # read every setting first: some widgets come later

temperature = state.param(DECODE_TEMPERATURE)
length = state.param(DECODE_LENGTH)
# The first visit starts computing, while the server is idle, what a class will ask for.
warm_up(
    DECODE_PAIR.choices,
    DECODE_TEMPERATURE.choices,
    GAMMA.choices,
    (state.param(DECODE_PAIR), temperature, state.param(GAMMA)),
    idle=page.server_idle,
)
controls, right = st.columns([1.15, 2], gap="large")
with controls:
    key = state.param_widget(
        DECODE_PAIR,
        st.selectbox,
        label="Draft and target",
        options=DECODE_PAIR.choices,
        format_func=lambda k: PAIR_TITLES[k],
    )
    gamma = state.param_widget(
        GAMMA, st.select_slider, label="Guesses per target call γ", options=GAMMA.choices
    )
    cost = state.param_widget(
        DECODE_COST,
        st.select_slider,
        label="Draft step cost c",
        options=DECODE_COST.choices,
        format_func=lambda c: f"{c:g}",
        help="How long one step of the draft takes, counted in target calls: at c = 0.1, ten "
        "draft steps cost as much as one target call.",
    )
    numbers = page.cached(summary, key, temperature, gamma, length, scenario.seed, cost)
    m = st.columns(2)
    m[0].metric(
        "Words/call",
        f"{numbers['words_per_call']:.2f}",
        help=f"This text: {length} words from {numbers['calls']} target calls. Predicted for "
        f"a long text: {numbers['predicted']:.2f}.",
    )
    m[1].metric(
        "Speed-up",
        f"{numbers['speedup']:.2f}×",
        help="Plain decoding's cost (one target call per word) divided by this text's: target "
        f"calls plus c × {numbers['drafts']} draft steps. A cost model, not a stopwatch.",
    )
with right:
    page.chart(
        *page.cached(gamma_figure, key, temperature, gamma, length, scenario.seed, cost, style),
        key="dec.chart.gamma",
    )

left, middle, last = st.columns([2, 2, 1], vertical_alignment="bottom")
with left:
    state.param_widget(
        DECODE_TEMPERATURE,
        st.select_slider,
        label="Temperature of both models",
        options=DECODE_TEMPERATURE.choices,
        format_func=lambda t: f"{t:g}",
        help="Below 1 each model favours its likeliest words more, above 1 less; 0 always "
        "picks the likeliest. Applied to both models, the text stays exact.",
    )
with middle:
    state.param_widget(
        DECODE_LENGTH, st.select_slider, label="Words to write", options=DECODE_LENGTH.choices
    )
last.button(
    "New text",
    icon=":material/refresh:",
    on_click=lambda: state.update(seed=state.current().next_seed()),
    width="stretch",
    help="Write another text with the next seed (the seed is in the sidebar and in the link).",
)
st.caption(note.fill(PAIR_BLURBS[key]))
st.markdown(summary_sentence(numbers, gamma, cost, note))
if scenario.projector:
    st.markdown(intro)

st.header("Call by call")
run = page.cached(toy_run, key, temperature, gamma, length, scenario.seed)
st.iframe(
    page.cached(timeline_html, key, temperature, gamma, length, scenario.seed, style),
    height="content",
    alt=timeline_caption(toy_pair(key), run, note),
)

st.header("When does it pay?")
page.chart(*page.cached(alpha_figure, temperature, gamma, cost, style), key="dec.chart.alpha")
st.markdown(cost_note())

st.header("Theory against measurement")
if scenario.projector:  # the house's large type does not reach table cells
    st.html("<style>.st-key-dec-check :is(td, th) { font-size: 1.35rem !important; }</style>")
st.container(key="dec-check").markdown(page.cached(check_table, temperature, gamma, cost, key))
st.markdown(page.cached(check_note, temperature, gamma, cost))
# Side by side on a screen; one under the other on a projector (large type needs the width).
left, right = (st.container(), st.container()) if scenario.projector else st.columns(2, gap="large")
with left:
    page.chart(*page.cached(in_a_row_figure, key, temperature, gamma, style), key="dec.chart.row")
with right:
    page.chart(*page.cached(shares_figure, key, temperature, gamma, style), key="dec.chart.words")
with st.expander("How the prediction is computed"):
    st.markdown(note.fill(HOW_PREDICTED))

page.finish()
