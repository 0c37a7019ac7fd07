"""Bug zoo: famous wrong implementations next to the correct rule, and how fast their bias shows."""

import streamlit as st

from specviz.figures.numbers import percent, tv_text
from specviz.figures.zoo import zoo_figures
from specviz.limits import ZOO_N_MAX
from specviz.links import BUG
from specviz.rules import RULES
from specviz.ui import page, state
from specviz.zoo import zoo_comparison

page.setup("pages/4_Bug_zoo.py")
note = state.notation()

st.title("Bug zoo")
page.intro(
    note.fill(
        "Each exhibit is a mistake found in real implementations of speculative sampling. It runs "
        "on the same target {T}, draft {D} and seed as the correct rule; its words drift away "
        "from {T}, and with enough runs the bias stands out of the random noise."
    )
)
page.show_notices(BUG)

key = state.param_widget(
    BUG,
    st.radio,
    label="Pick a mistake",
    format_func=lambda k: note.fill(RULES[k].title),
    horizontal=True,
)
rule = RULES[key]
scenario, one = page.lesson()
if not rule.available(one.p, one.q):
    state.stop(
        note.fill(
            f"**{rule.title}** cannot run on this target {{T}} and draft {{D}}: they share no "
            "word, so no draft is ever accepted and the redraw loop never ends. Pick another "
            "mistake, or give the two models a word in common on the Playground."
        ),
        kind="warning",
    )
with st.spinner("Running both rules…"):
    comparison = page.computed(zoo_comparison, key, scenario.seed, ZOO_N_MAX)
figures = page.figures(zoo_figures, comparison, key=(key, scenario.seed))

# The exhibit and its output side by side: on a projector the choice and its chart share a screen.
words, law = st.columns([2, 3], gap="large")
with words:
    st.markdown(note.fill(f"**✗ What the code does wrong.** {rule.what}"))
    st.markdown(note.fill(f"**Why the output is biased.** {rule.why}"))
    st.caption(f"Seen in: {note.fill(rule.source)}")
with law:
    page.chart(*figures["law"], key="zoo.chart.law")

m = st.columns(3)
m[0].metric(
    note.fill("Distance of the mistake to {T}"),
    tv_text(comparison.tv),
    help="Total variation distance of the mistake's exact output law to the target.",
)
m[1].metric(
    note.fill("Of the correct rule"),
    tv_text(comparison.tv_correct),
    help="Total variation distance of the correct rule's exact output law to the target: 0.",
)
m[2].metric(
    "Bias shows from about",
    f"N = {comparison.detectable_from:,}" if comparison.detectable_from else "never",
    help="Runs needed before the bias is larger than the 95% noise band of an exact sampler.",
)
if comparison.detectable_from:
    st.markdown(
        f"Distance **{tv_text(comparison.tv)}** (total variation): {percent(comparison.tv)} of "
        "the probability of the emitted words sits on the wrong words. With fewer than about "
        f"{comparison.detectable_from:,} runs the bias hides in the noise any exact sampler "
        "has; with more, it sticks out, and ever more clearly as the runs add up."
    )
else:
    st.success(
        note.fill("On this {T} and {D} the mistake happens to be harmless: its output is {T}."),
        icon=":material/check:",
    )

page.chart(*figures["tv"], key="zoo.chart.tv")

state.sync_url()
