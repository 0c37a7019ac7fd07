"""Playground: set the target p and the draft q, and watch every part of the procedure follow."""

import streamlit as st

from specviz import acceptance_rate, expected_tokens_per_step, normalize, rejection_mass
from specviz.figures import captions
from specviz.figures.flow import flow_html
from specviz.figures.playground import (
    acceptance_figure,
    bucket_figure,
    distributions_figure,
    proof_figure,
)
from specviz.figures.style import ChartStyle, percent
from specviz.one_token import total_variation
from specviz.palette import Notation
from specviz.scenario import (
    PROMPT,
)
from specviz.ui import editor, page, state

page.setup("Playground", ":material/tune:")
scenario = state.current()
note = state.notation()

st.title("Playground")
st.markdown(
    note.fill(
        f"Next word after *“{PROMPT}”*. Set how likely each word is under the big **target** "
        "{T} and the small **draft** {D}; every chart follows."
    )
)
st.caption(
    note.fill(
        "Notation: {T} = target (the big model), {D} = draft (the small one), as in Leviathan et "
        "al. (2023). Chen et al. (2023) and many blog posts swap the two letters — a classic "
        "source of inverted ratios; the *Swap letters* switch in the sidebar relabels everything."
    )
)
page.show_notices()


editor.preset_picker(scenario, note)

if scenario.projector:
    editor.weight_editor(scenario, note)
    charts = st.container()
else:
    controls, charts = st.columns([2, 3], gap="large")
    with controls:
        editor.weight_editor(scenario, note)


# cache_resource, not cache_data: the figures are shared read-only (st.plotly_chart copies them),
# and unpickling a Plotly figure on every hit would cost more than building it.
@st.cache_resource(max_entries=128, show_spinner=False)
def _figures(
    labels: tuple[str, ...], p_weights: tuple, q_weights: tuple, projector: bool, swapped: bool
) -> dict:
    """Every chart of one state; cached across sessions, so a class on one preset shares it."""
    p, q = normalize(p_weights), normalize(q_weights)
    style = ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    builders = {
        "dist": (distributions_figure, captions.distributions_caption),
        "accept": (acceptance_figure, captions.acceptance_caption),
        "bucket": (bucket_figure, captions.bucket_caption),
        "proof": (proof_figure, captions.proof_caption),
    }
    return {
        key: (build(labels, p, q, style), describe(labels, p, q, style.notation))
        for key, (build, describe) in builders.items()
    }


with charts:
    try:
        p, q = scenario.distributions()
    except ValueError as problem:
        st.error(str(problem), icon=":material/error:")
        state.sync_url()
        st.stop()

    alpha = acceptance_rate(p, q)
    z = rejection_mass(p, q)
    gamma = st.select_slider(
        "Guesses per target call γ (for the last number)",
        options=list(range(1, 9)),
        value=4,
        key="pg.gamma",
    )
    m = st.columns(4)
    m[0].metric(
        "Acceptance α",
        percent(alpha),
        help=note.fill("Σ min({T}, {D}): the chance that a guess is kept."),
    )
    m[1].metric(
        "TV distance",
        percent(total_variation(p, q)),
        help=note.fill(
            "TV({T}, {D}) = ½ Σ |{T} − {D}|: how far the draft is from the target. α = 1 − TV."
        ),
    )
    m[2].metric(
        "Bucket Z",
        percent(z),
        help=note.fill("Σ max(0, {T} − {D}): the probability that a guess is rejected."),
    )
    m[3].metric(
        "Words/call",
        f"{expected_tokens_per_step(alpha, gamma):.2f}",
        help=f"With γ = {gamma} guesses: (1 − α^(γ+1)) / (1 − α). A target call checks γ "
        "guesses and always yields at least one word.",
    )
    st.markdown(
        f"A guess is kept **{percent(alpha)}** of the time (α = 1 − TV). "
        f"**P(rejection) = {percent(z)} = size of the bucket Z**: every rejection is refilled "
        f"from the bucket, so the words that come out follow the target exactly. "
        f"With γ = {gamma} guesses, one expensive target call yields "
        f"{expected_tokens_per_step(alpha, gamma):.2f} words on average instead of 1."
    )

    st.iframe(
        flow_html(scenario.labels, p, q, ChartStyle(scenario.projector, note), key="playground"),
        height="content",
        alt=note.fill(
            "Animated bars: per word, the draft's mass kept or bounced, and the "
            "kept mass plus bucket refills reaching the target {T}."
        ),
    )
    for key, (figure, caption) in _figures(
        scenario.labels,
        scenario.p_weights,
        scenario.q_weights,
        scenario.projector,
        scenario.swapped,
    ).items():
        page.chart(figure, caption, key=f"pg.chart.{key}")

state.sync_url()
