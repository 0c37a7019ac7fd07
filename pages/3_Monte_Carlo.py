"""Monte Carlo: run the procedure N times and watch the emitted words converge to the target."""

import streamlit as st

from specviz.figures.montecarlo import monte_carlo_figures
from specviz.figures.numbers import tv_text
from specviz.figures.prose import gof_sentence, sampler_note
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
            options=RUNS.choices,
            format_func=RUNS.format,
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
    m = st.columns(4)
    m[0].metric(
        "Chi-square statistic",
        f"{run.gof.statistic:.3g}",
        help="Σ (observed − expected)² / expected over the words.",
    )
    m[1].metric("Degrees of freedom", f"{run.gof.dof}", help="Words the target can say, minus one.")
    m[2].metric(
        "p-value",
        f"{run.gof.p_value:.3g}",
        help=note.fill(
            "The chance of a chi-square statistic at least this large if the words follow the "
            "target {T} (this p is a probability, not the target's letter)."
        ),
    )
    m[3].metric(
        "Distance to the target",
        tv_text(run.tv),
        help=note.fill(
            "Total variation TV: half the summed gaps between the emitted shares and the target "
            "{T}; 0 means a perfect match."
        ),
    )
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

    page.finish()


lesson()
