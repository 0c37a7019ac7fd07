"""Many words per call: speculative decoding over toy language models, and when it pays."""

import streamlit as st

from specviz.figures import decoding as fig
from specviz.figures.numbers import decimal, percent, significant, times
from specviz.language import toy_check, toy_curve, toy_run, toy_words
from specviz.links import DECODE_PARAMS, DECODE_SECTIONS, YOUR_PAIR
from specviz.text import say
from specviz.ui import page, state

PAIR, GAMMA, COST, TEMPERATURE, LENGTH, SECTION = DECODE_PARAMS  # the settings, in link order
page.setup("pages/5_Many_words_per_call.py")
scenario, note, style = state.current(), state.notation(), page.style()
# The timeline: mounted once, handed each run's data, so that a control redraws it in place.
timeline = st.components.v2.component(
    "specviz.timeline", js=fig.TIMELINE_JS, css=fig.TIMELINE_CSS, isolate_styles=True
)

st.title(say("decoding.title"))
intro = note.fill(say("decoding.intro"))
if not scenario.projector:  # on a projector the controls and their chart come first
    st.markdown(intro)


@page.part
def lesson() -> None:
    """Everything the settings move."""
    page.show_notices(*DECODE_PARAMS)  # read every setting first: some widgets come later
    temperature, length = state.param(TEMPERATURE), state.param(LENGTH)

    controls, right = st.columns([1.15, 2], gap="large")
    with controls:
        key = state.param_widget(
            PAIR, st.selectbox, label=say("decoding.pair_label"), format_func=fig.pair_title
        )
        gamma = state.param_widget(GAMMA, st.select_slider, label=say("decoding.gamma_label"))
        cost = state.param_widget(
            COST, st.select_slider, label=say("decoding.cost_label"), help=say("decoding.cost_help")
        )
    yours = key == YOUR_PAIR
    if yours:
        with right:
            page.lesson()  # a model with all its weights at zero: a message and the page's end
    source = (scenario.p_weights, scenario.q_weights) if yours else key
    words = scenario.labels if yours else toy_words(key)
    curve = page.cached(toy_curve, source, temperature)
    run = page.cached(toy_run, source, temperature, gamma, length, scenario.seed)
    here = curve[gamma]
    # What determines every chart below; a class shares each chart it draws.
    settings = (source, words, temperature, gamma, length, scenario.seed, cost, style)
    # α → words per call → speed-up, in a long text (the Playground's numbers)
    m = controls.container(horizontal=True)
    m.metric(say("decoding.alpha_metric"), percent(here.alpha), help=say("decoding.alpha_help"))
    this_text = decimal(run.words_per_call, 2)
    about = (
        say("decoding.words_help_yours", words=this_text)
        if yours
        else say("decoding.words_help", words=this_text)
    )
    m.metric(say("decoding.words_metric"), decimal(here.long_run, 2), help=about)
    m.metric(
        say("decoding.speed_metric"),
        times(here.speedup(cost)),
        help=say("decoding.speed_help", speedup=times(run.speedup(cost))),
    )
    with controls:  # the metrics, heard when a setting changes them
        page.announce(
            say(
                "decoding.heard",
                gamma=gamma,
                cost=significant(cost),
                alpha=percent(here.alpha),
                words=decimal(here.long_run, 2),
                speedup=times(here.speedup(cost)),
            )
        )
    with right:
        page.chart(
            *page.drawn(fig.words_figure, curve, run, style, key=settings), key="dec.chart.gamma"
        )
        speed = page.drawn(fig.speed_figure, curve, run, cost, style, key=settings)
        page.chart(*speed, key="dec.chart.speed")

    left, middle, last = st.columns([2, 2, 1], vertical_alignment="bottom")
    state.param_widget(LENGTH, left.select_slider, label=say("decoding.length_label"))
    state.param_widget(
        TEMPERATURE,
        middle.select_slider,
        label=say("decoding.temperature_label"),
        help=say("decoding.temperature_help"),
    )
    last.button(
        say("decoding.new_text"),
        icon=":material/refresh:",
        width="stretch",
        on_click=lambda: state.update(seed=state.current().next_seed()),
        help=say("decoding.new_text_help"),
    )
    st.caption(note.fill(fig.PAIR_BLURBS[key]))
    st.markdown(fig.summary_sentence(curve, run, cost, note))
    if scenario.projector:
        st.markdown(intro)
    # The sections below, as tabs: only the open one is drawn, so that a control redraws one
    # section's charts, not all three sections' (benchmarks/README.md, "Instant").
    section, tabs = state.param_tabs(SECTION, DECODE_SECTIONS)
    with tabs[section]:
        if section == "calls":
            page.chart(
                *page.drawn(fig.time_figure, run, cost, style, key=settings), key="dec.chart.time"
            )
            data = page.drawn(fig.timeline_data, words, run, style, key=settings)
            timeline(key="dec.timeline", data=data)
        elif section == "pays":
            check = page.cached(toy_check, temperature, gamma)  # every pair: predicted, measured
            alpha = page.drawn(fig.alpha_figure, check, gamma, cost, style, key=settings)
            page.chart(*alpha, key="dec.chart.alpha")
            st.markdown(say("decoding.published"))
            st.markdown(say("decoding.cost_note"))
        else:
            check = page.cached(toy_check, temperature, gamma)
            st.container(key="dec-check").markdown(fig.check_table(check, cost, key))
            st.markdown(fig.check_note(check))
            # Side by side on a screen; stacked on a projector (large type needs the width).
            left, right = (
                (st.container(), st.container())
                if scenario.projector
                else st.columns(2, gap="large")
            )
            with left:
                row = page.drawn(fig.in_a_row_figure, here, style, key=settings)
                page.chart(*row, key="dec.chart.row")
            with right:
                shares = page.drawn(fig.shares_figure, here, words, style, key=settings)
                page.chart(*shares, key="dec.chart.shares")
            with st.expander(say("decoding.how_predicted_title")):
                st.markdown(note.fill(say("decoding.how_predicted")))


lesson()
state.sync_url()
