"""Monte Carlo: run the procedure N times and watch the emitted words converge to the target."""

import streamlit as st

from specviz.figures.montecarlo import gof_sentence, monte_carlo_figures, sampler_note
from specviz.figures.numbers import tv_text
from specviz.limits import PATHS
from specviz.links import RUNS
from specviz.runs import monte_carlo_paths, noise_band
from specviz.ui import page, state

page.setup("pages/3_Monte_Carlo.py")
note = state.notation()

st.title("Monte Carlo")
page.intro(
    note.fill(
        "Run speculative sampling N times with the Playground's target {T}, draft {D} and seed. "
        "The words that come out follow {T} — the more runs, the closer, at the rate 1/√N."
    )
)


@page.part
def lesson() -> None:
    """Everything N moves, and the share link."""
    page.show_notices(RUNS)

    # The number of runs and what it moves, side by side: on a projector both fit one screen.
    controls, chart = st.columns([2, 3], gap="large")
    with controls:
        n = state.param_widget(
            RUNS,
            st.select_slider,
            label="Number of runs N (1 to 1 billion)",
            help="From 1 to 1 billion (B) runs, one power of ten per step: arrow keys move it.",
        )
        scenario, _ = page.lesson()
        with st.spinner("Running the sampler…"):
            runs = page.computed(monte_carlo_paths, n, scenario.seed, PATHS)
            band = page.computed(noise_band, n, target_only=True)
        run = runs[0]
        figures = page.figures(monte_carlo_figures, runs, band, key=(scenario.seed, n))
        summary, detail = sampler_note(run, note)
        st.info(summary, icon=":material/calculate:")
        with st.expander("How exactly?"):
            st.markdown(detail)
    with chart:
        page.chart(*figures["hist"], key="mc.chart.hist")

    st.header("Does the sampler pass a goodness-of-fit test?")
    tips = {
        "Chi-square statistic": "Σ (observed − expected)² / expected over the words.",
        "Degrees of freedom": "Words the target can say, minus one.",
        "p-value": "The chance of a chi-square statistic at least this large if the words follow "
        "the target {T} (this p is a probability, not the target's letter).",
        "Distance to the target": "Half the summed gaps, word by word, between the share of runs "
        "that emitted the word and {T}(x); 0 is a perfect match. Its name: total variation (TV).",
    }
    gof = run.gof
    values = (f"{gof.statistic:.3g}", f"{gof.dof}", f"{gof.p_value:.3g}", tv_text(run.tv))
    for box, (label, tip), value in zip(st.columns(4), tips.items(), values, strict=True):
        box.metric(label, value, help=note.fill(tip))
    st.markdown(gof_sentence(run.gof))
    # A slot whether or not the warning shows: the charts below keep their places in the page, so
    # a new N updates them in place instead of drawing them anew.
    rough = st.empty()
    if run.min_expected < 5:
        rough.caption(
            "With so few runs some expected counts are below 5: the chi-square p-value is only "
            "rough."
        )

    st.header("Where each emitted word came from")
    page.chart(*figures["source"], key="mc.chart.source")
    st.header("Convergence: the distance shrinks like 1/√N")
    page.chart(*figures["tv"], key="mc.chart.tv")

    state.sync_url()


lesson()
