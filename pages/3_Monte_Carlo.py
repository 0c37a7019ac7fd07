"""Monte Carlo: run the procedure N times and watch the emitted words converge to the target."""

import streamlit as st

from specviz import normalize
from specviz.figures import montecarlo as charts
from specviz.figures.style import ChartStyle
from specviz.montecarlo import (
    N_CHOICES,
    PATHS,
    format_n,
    gof_sentence,
    monte_carlo_paths,
    noise_band,
    parse_n,
)
from specviz.palette import Notation
from specviz.ui import page, state

N_KEY = "mc.n"  # the page's N: a plain int that survives page switches (widget keys do not)

page.setup("Monte Carlo", ":material/scatter_plot:")
scenario = state.current()
note = state.notation()
state.link_param("n", N_KEY, parse_n)  # a shared link may carry N

st.title("Monte Carlo")
st.markdown(
    note.fill(
        "Run speculative sampling N times with the Playground's target {T}, draft {D} and seed. "
        "The words that come out follow {T} — the more runs, the closer, at the rate 1/√N."
    )
)
page.show_notices()


n = state.bound(
    st.select_slider,
    "mc.n_slider",
    st.session_state[N_KEY],
    state.remember(N_KEY),
    label="Number of runs N (1 to 1 billion)",
    options=N_CHOICES,
    format_func=format_n,
    help="From 1 to 1 billion (B) runs, one power of ten per step: arrow keys move it.",
)
state.sync_url({"n": str(n)})

try:
    scenario.distributions()
except ValueError as problem:
    st.error(str(problem), icon=":material/error:")
    st.stop()


@st.cache_data(max_entries=64, show_spinner="Running the sampler…")
def _runs(p_weights: tuple, q_weights: tuple, seed: int, n: int):
    """All seeds' runs and the noise band: shared by every session on the same setting."""
    p, q = normalize(p_weights), normalize(q_weights)
    return monte_carlo_paths(p, q, n, seed, PATHS), noise_band(p, n)


@st.cache_resource(max_entries=64, show_spinner=False)
def _charts(labels, p_weights, q_weights, seed, n, projector, swapped) -> dict:
    """Every chart of one setting with its alt text, shared read-only across sessions."""
    runs, band = _runs(p_weights, q_weights, seed, n)
    style = ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    p, q = normalize(p_weights), normalize(q_weights)
    return charts.monte_carlo_figures(labels, p, q, runs, band, style)


setting = (scenario.p_weights, scenario.q_weights, scenario.seed, n)
run = _runs(*setting)[0][0]
figures = _charts(scenario.labels, *setting, scenario.projector, scenario.swapped)

st.info(charts.sampler_note(run, note), icon=":material/calculate:")

st.subheader("Does the sampler pass a goodness-of-fit test?")
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
    help=note.fill("P(χ² ≥ statistic) if the words follow {T}."),
)
m[3].metric(
    note.fill("TV to {T}"),
    charts.tv_text(run.tv),
    help="Half the summed gaps between the emitted shares and the target.",
)
st.markdown(gof_sentence(run.gof))
if run.min_expected < 5:
    st.caption(
        "With so few runs some expected counts are below 5: the chi-square p-value is only rough."
    )


def _show(key: str) -> None:
    page.chart(*figures[key], key=f"mc.chart.{key}")


st.subheader("What came out, and where it came from")
if scenario.projector:
    _show("hist")
    _show("source")
else:
    left, right = st.columns(2, gap="large")
    with left:
        _show("hist")
    with right:
        _show("source")

st.subheader("Convergence: the distance to the target shrinks like 1/√N")
_show("tv")
