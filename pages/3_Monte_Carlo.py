"""Monte Carlo: run the procedure N times and watch the emitted words converge to the target."""

import streamlit as st

from specviz.figures.montecarlo import (
    gof_sentence,
    heard_sentence,
    monte_carlo_figures,
    sampler_note,
)
from specviz.figures.numbers import significant, tv_text
from specviz.limits import PATHS
from specviz.links import RUNS
from specviz.runs import monte_carlo_paths, noise_band
from specviz.text import say, titles
from specviz.ui import page, state

page.setup("pages/3_Monte_Carlo.py")
note = state.notation()

st.title(say("montecarlo.title"))
page.intro(note.fill(say("montecarlo.intro")))


@page.part
def lesson() -> None:
    """Everything N moves."""
    page.show_notices(RUNS)

    # The number of runs and what it moves, side by side: on a projector both fit one screen.
    controls, chart = st.columns([2, 3], gap="large")
    with controls:
        n = state.param_widget(
            RUNS,
            st.select_slider,
            label=say("montecarlo.runs_label"),
            help=say("montecarlo.runs_help"),
        )
        scenario, _ = page.lesson()
        with st.spinner(say("montecarlo.running")):
            runs = page.computed(monte_carlo_paths, n, scenario.seed, PATHS)
            band = page.computed(noise_band, n, target_only=True)
        run = runs[0]
        figures = page.figures(monte_carlo_figures, runs, band, key=(scenario.seed, n))
        summary, detail = sampler_note(run, note)
        st.info(summary, icon=":material/calculate:")
        with st.expander(say("montecarlo.how")):
            st.markdown(detail)
    with chart:
        page.chart(*figures["hist"], key="mc.chart.hist")

    st.header(say("montecarlo.gof_header"))
    labels = titles("montecarlo.metric", ("statistic", "dof", "p_value", "tv")).values()
    tips = titles("montecarlo.tip", ("statistic", "dof", "p_value", "tv")).values()
    gof = run.gof
    values = (significant(gof.statistic), f"{gof.dof}", significant(gof.p_value), tv_text(run.tv))
    for box, label, tip, value in zip(st.columns(4), labels, tips, values, strict=True):
        box.metric(label, value, help=note.fill(tip))
    st.markdown(gof_sentence(run.gof))
    page.announce(heard_sentence(run))
    # A slot whether or not the warning shows: the charts below keep their places in the page, so
    # a new N updates them in place instead of drawing them anew.
    rough = st.empty()
    if run.min_expected < 5:
        rough.caption(say("montecarlo.rough"))

    st.header(say("montecarlo.source_header"))
    page.chart(*figures["source"], key="mc.chart.source")
    st.header(say("montecarlo.tv_header"))
    page.chart(*figures["tv"], key="mc.chart.tv")


lesson()
state.sync_url()
