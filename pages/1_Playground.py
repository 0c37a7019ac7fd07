"""Playground: set the target p and the draft q, and watch every part of the procedure follow."""

import streamlit as st

from specviz import expected_tokens_per_step
from specviz.figures.flow import flow_html
from specviz.figures.numbers import percent
from specviz.figures.playground import playground_figures
from specviz.links import GAMMA
from specviz.scenario import PROMPT
from specviz.ui import editor, page, state

page.setup("pages/1_Playground.py")
scenario = state.current()
note = state.notation()

st.title("Playground")
page.intro(
    note.fill(
        f"Next word after *“{PROMPT}”*. Set how likely each word is under the big **target** "
        "{T} and the small **draft** {D}; every chart follows.\n\n"
    )
    + note.explain()
)
page.show_notices(GAMMA)

# The weights and the view they move, side by side: on a projector both fit one screen.
controls, flow = st.columns([5, 6] if scenario.projector else [2, 3], gap="large")
with controls:
    editor.preset_picker(scenario, note)
    editor.weight_editor(scenario, note)
with flow:
    scenario, one = page.lesson(has_weight_sliders=True)
    st.container(key="pg.flow").iframe(
        flow_html(scenario.labels, one, page.style(), key="playground"),
        height="content",
        alt=note.fill(
            "Animated bars: per word, the draft's mass kept or bounced, and the "
            "kept mass plus bucket refills reaching the target {T}."
        ),
    )

gamma_col, *boxes = st.columns([2, 1, 1, 1, 1], vertical_alignment="bottom")
with gamma_col:
    gamma = state.param_widget(
        GAMMA,
        st.select_slider,
        label="Guesses per target call γ (for words per call)",
        options=GAMMA.choices,
    )
words = expected_tokens_per_step(one.alpha, gamma)
boxes[0].metric(
    "Acceptance α",
    percent(one.alpha),
    help=note.fill("Σ min({T}, {D}): the chance that a guess is kept."),
)
boxes[1].metric(
    "TV distance",
    percent(one.tv),
    help=note.fill(
        "TV({T}, {D}) = ½ Σ |{T} − {D}| (total variation): how far the draft is from the "
        "target. α = 1 − TV."
    ),
)
boxes[2].metric(
    "Bucket Z",
    percent(one.z),
    help=note.fill("Σ max(0, {T} − {D}): the probability that a guess is rejected."),
)
boxes[3].metric(
    "Words/call",
    f"{words:.2f}",
    help=f"With γ = {gamma} guesses: (1 − α^(γ+1)) / (1 − α). A target call checks γ "
    "guesses and always yields at least one word.",
)
st.markdown(
    f"A guess is kept **{percent(one.alpha)}** of the time (α = 1 − distance). "
    f"**P(rejection) = {percent(one.z)} = size of the bucket Z**: every rejection is refilled "
    f"from the bucket, so the words that come out follow the target exactly. "
    f"With γ = {gamma} guesses, one expensive target call yields "
    f"{words:.2f} words on average instead of 1."
)

figures = page.figures(playground_figures)
if scenario.projector:  # one chart at a time, big: the lecturer clicks through them
    tabs = st.tabs(["Target vs draft", "Acceptance", "Bucket", "Why it is exact"])
    for tab, (key, (figure, caption)) in zip(tabs, figures.items(), strict=True):
        with tab:
            page.chart(figure, caption, key=f"pg.chart.{key}")
else:
    for key, (figure, caption) in figures.items():
        page.chart(figure, caption, key=f"pg.chart.{key}")

page.finish()
