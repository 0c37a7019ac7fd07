"""Bug zoo: famous wrong implementations next to the correct rule, and how fast their bias shows."""

import streamlit as st

from specviz import normalize
from specviz.figures import montecarlo as charts
from specviz.figures.style import ChartStyle, percent
from specviz.montecarlo import ZOO_N_MAX, mistaken_rules, parse_rule, swap_letters, zoo_comparison
from specviz.palette import Notation
from specviz.ui import page, state
from specviz.variants import RULES

RULE_KEY = "zoo.rule"  # the exhibit on show: a plain str that survives page switches

page.setup("Bug zoo", ":material/bug_report:")
scenario = state.current()
note = state.notation()
letters = swap_letters if scenario.swapped else str  # the registry's text uses p = target


def title_of(key: str) -> str:
    return letters(RULES[key].title)


state.link_param("bug", RULE_KEY, parse_rule)  # a shared link may name a bug

st.title("Bug zoo")
st.markdown(
    note.fill(
        "Each exhibit is a mistake found in real implementations of speculative sampling. It runs "
        "on the same target {T}, draft {D} and seed as the correct rule; its words drift away "
        "from {T}, and with enough runs the bias stands out of the random noise."
    )
)
page.show_notices()


key = state.bound(
    st.radio,
    "zoo.rule_radio",
    st.session_state[RULE_KEY],
    state.remember(RULE_KEY),
    label="Pick a mistake",
    options=mistaken_rules(),
    format_func=title_of,
    horizontal=True,
)
state.sync_url({"bug": key})
rule, title = RULES[key], title_of(key)

left, right = st.columns(2, gap="large")
left.markdown(f"**✗ What the code does wrong.** {letters(rule.mistake)}")
right.markdown(f"**Why the output is biased.** {letters(rule.why)}")

try:
    scenario.distributions()  # all-zero weights: say so before running anything
except ValueError as problem:
    st.error(str(problem), icon=":material/error:")
    st.stop()


@st.cache_data(max_entries=128, show_spinner="Running both rules…")
def _compare(key: str, p_weights: tuple, q_weights: tuple, seed: int):
    """The rule next to the correct one; shared by every session on the same setting."""
    return zoo_comparison(key, normalize(p_weights), normalize(q_weights), seed, ZOO_N_MAX)


@st.cache_resource(max_entries=128, show_spinner=False)
def _charts(key, labels, p_weights, q_weights, seed, projector, swapped) -> dict:
    """Both charts of one setting with their alt text, shared read-only across sessions."""
    comparison = _compare(key, p_weights, q_weights, seed)
    style = ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    name = swap_letters(RULES[key].title) if swapped else RULES[key].title
    return charts.zoo_figures(labels, normalize(p_weights), comparison, name, style)


setting = (key, scenario.p_weights, scenario.q_weights, scenario.seed)
try:
    comparison = _compare(*setting)
except ValueError as problem:  # redraw_from_q when p and q share no word: the law does not exist
    st.warning(
        note.fill(f"**{title}** cannot run on this target {{T}} and draft {{D}}: {problem}. ")
        + "Pick another mistake, or give the two models a word in common in the Playground.",
        icon=":material/block:",
    )
    st.stop()

m = st.columns(3)
m[0].metric(
    note.fill("TV(mistake, {T})"),
    charts.tv_text(comparison.tv),
    help="Total variation distance of the mistake's exact output law to the target.",
)
m[1].metric(
    note.fill("TV(correct rule, {T})"), charts.tv_text(comparison.tv_correct), help="Exact: 0."
)
m[2].metric(
    "Bias shows from about",
    f"N = {comparison.detectable_from:,}" if comparison.detectable_from else "never",
    help="Runs needed before the bias is larger than the 95% noise band of an exact sampler.",
)
if comparison.detectable_from:
    st.markdown(
        f"TV = **{charts.tv_text(comparison.tv)}**: {percent(comparison.tv)} of the probability "
        "of the emitted words sits on the wrong words. With fewer than about "
        f"{comparison.detectable_from:,} runs the bias hides in the noise any exact sampler "
        "has; with more, it sticks out, and ever more clearly as N grows."
    )
else:
    st.success(
        note.fill("On this {T} and {D} the mistake happens to be harmless: its output is {T}."),
        icon=":material/check:",
    )

figures = _charts(key, scenario.labels, *setting[1:], scenario.projector, scenario.swapped)
for name, (fig, caption) in figures.items():
    page.chart(fig, caption, key=f"zoo.chart.{name}")
