"""Variants lab: every rule that is not a mistake, on the same target, draft and seed."""

import streamlit as st

from specviz.figures.numbers import percent, tv_text
from specviz.figures.tables import markdown_table
from specviz.figures.variants import lab_figures, run_verdict
from specviz.limits import LAB_RUNS
from specviz.links import CANDIDATES, LAB_PARAMS, TYPICAL_DELTA, TYPICAL_EPS, VARIANT, VARIANTS
from specviz.rules import RULES
from specviz.ui import page, state
from specviz.zoo import rule_check

page.setup("pages/8_Variants_lab.py")
scenario, note = state.current(), state.notation()

st.title("Variants lab")
if not scenario.projector:  # on a projector the control and its chart come first
    st.markdown(
        note.fill(
            "Other ways to check a draft's guess, run on the Playground's target {T}, draft {D} "
            "and seed. Which ones still give exactly {T}'s words, and how often does each keep a "
            "guess? Exact rules can be checked: no run of them stands out of the noise."
        )
    )
page.show_notices(*LAB_PARAMS)
key = state.param_widget(
    VARIANT,
    st.selectbox if scenario.projector else st.radio,  # a menu where room is short
    label="Look closely at",
    format_func=lambda k: note.fill(RULES[k].title),
    **({} if scenario.projector else {"horizontal": True}),
)
upper, lower = st.container(), st.container()  # projector: the chart goes above the sliders
left, middle, right = (lower if scenario.projector else upper).columns(3)
with left:
    k = state.param_widget(
        CANDIDATES,
        st.select_slider,
        label="Draft candidates k (SpecInfer)",
        help="How many draft candidates the rule 'Several draft candidates' tries before "
        "the bucket (SpecInfer, Miao et al. 2024).",
    )
with middle:
    eps = state.param_widget(
        TYPICAL_EPS,
        st.select_slider,
        label="Plausibility bar: at most ε",
        help=note.fill(
            "Typical acceptance (Medusa, Cai et al. 2024) keeps a draft x when "
            "{T}(x) > min(ε, δ·exp(−H({T}))): the bar is never above ε."
        ),
    )
with right:
    delta = state.param_widget(
        TYPICAL_DELTA,
        st.select_slider,
        label="Plausibility bar: scale δ",
        help=note.fill(
            "On a spread-out target the bar is δ·exp(−H({T})), H({T}) being the target's "
            "entropy: a flatter target lowers the bar."
        ),
    )
scenario, one = page.lesson()
controls = {"k": k, "eps": eps, "delta": delta}
params = {name: tuple((p.name, controls[p.name]) for p in RULES[name].params) for name in VARIANTS}
checks = tuple(page.computed(rule_check, n, scenario.seed, LAB_RUNS, params[n]) for n in VARIANTS)
selected = VARIANTS.index(key)
figures = page.figures(lab_figures, checks, selected, key=(scenario.seed, k, eps, delta, selected))
check = checks[selected]

with upper if scenario.projector else lower:
    page.chart(*figures["variant"], key="lab.chart.variant")
m = st.columns(3)
m[0].metric("Keeps a guess", percent(check.acceptance), help="The chance the word is a kept draft.")
m[1].metric(
    note.fill("Distance to {T}"),
    tv_text(check.tv),
    help=note.fill("Total variation distance of the rule's exact output law to {T}: 0 = exact."),
)
m[2].metric(
    f"Check of {LAB_RUNS:,} runs",
    "✗ fails" if check.stands_out else "✓ passes",
    help=f"{run_verdict(check)}: distance of the runs' words {tv_text(check.run_tv)}; an exact "
    f"rule stays below {tv_text(check.band_upper)} in 97.5% of seeds. Chi-square p-value "
    f"{check.gof.p_value:.3g}.",
)
st.markdown(note.fill(f"**What it does.** {check.rule.what} **Is it exact?** {check.rule.why}"))
st.caption(f"Source: {note.fill(check.rule.source)}")

st.header("All of them side by side")
st.markdown(markdown_table(figures["table"]))
page.chart(*figures["tradeoff"], key="lab.chart.tradeoff")
st.caption(
    note.fill(
        "No exact rule that looks at one draft keeps more guesses than the correct rule, "
        "α = Σ min({T}, {D}); several candidates beat it by spending more draft proposals, "
        "keeping plausible guesses by giving up exactness."
    )
)

state.sync_url()
