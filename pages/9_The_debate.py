"""The debate: the four claims under the article that started SpecViz, judged with your numbers."""

import streamlit as st

from specviz.decoding import RANGES
from specviz.figures.numbers import decimal, pace, percent, times
from specviz.links import CLAIM, CLAIM_WORDS, CLAIMS, DECODE_COST, GAMMA
from specviz.rejection import classic_plan
from specviz.rules import FLOAT32_STEP
from specviz.theory import break_even_alpha, expected_tokens_per_step, walltime_speedup
from specviz.ui import page, state

page.setup("pages/9_The_debate.py")
note = state.notation()

st.title("The debate")
page.intro(
    "Under the article that started SpecViz, four claims drew the most replies. Here is each "
    "with a verdict and the evidence, worked out with your Playground pair and the guesses γ "
    "and their cost c below — change them and the evidence follows. Argue with a neighbour "
    "before you open the next claim."
)
page.show_notices(GAMMA, DECODE_COST, CLAIM)
left, right = st.columns(2, gap="large")
with left:
    gamma = state.param_widget(GAMMA, st.select_slider, label="Guesses per target call γ")
with right:
    cost = state.param_widget(
        DECODE_COST, st.select_slider, label="Cost of one guess c, in target calls"
    )
scenario, one = page.lesson()
alpha = one.alpha
speed = walltime_speedup(alpha, gamma, cost)
even = break_even_alpha(gamma, cost)
plan = classic_plan(one.p, one.q)
yours = f"Your pair keeps {percent(alpha)} of the draft's guesses (α)"
_, tabs = state.param_tabs(CLAIM, CLAIMS)  # every claim drawn: text only, and cheap


def claim(key: str, evidence: str, script: str, label: str) -> None:
    """A claim's tab: what was said, the verdict, the evidence in your numbers, where to see it."""
    quote, verdict = CLAIM_WORDS[key]
    with tabs[key]:
        st.markdown(f"## “{quote}”\n\n**{verdict}**\n\n{note.fill(evidence)}")
        st.page_link(script, label=label, icon=":material/arrow_forward:")


published = "; ".join(f"{r.source}: {r.speedup:g}–{r.high:g}× ({r.setting})" for r in RANGES)
claim(
    "speed",
    f"{yours}: with γ = {gamma} each call writes "
    f"{decimal(expected_tokens_per_step(alpha, gamma), 2)} words on average, and a guess costing "
    f"c = {cost:g} makes it {times(speed)} — {pace(speed)} plain decoding.\n\n"
    f"Published: {published}.",
    "pages/5_Many_words_per_call.py",
    "Many words per call: words per call and speed-up against γ, α and c",
)
claim(
    "close",
    (
        f"With c = {cost:g} a guess costs as much as a target call: no draft is faster."
        if even is None
        else "With free guesses (c = 0) any draft is at least as fast as plain decoding — but "
        "no real draft is free."
        if cost == 0
        else f"With γ = {gamma} and c = {cost:g}, it is faster only when α is above "
        f"{percent(round(even, 3))}."
    )
    + f" Your pair (α = {percent(alpha)}) runs at {times(speed)}."
    + " α is the overlap Σ min({T}, {D}): close where the target puts its weight.",
    "pages/1_Playground.py",
    "Playground: drag the draft towards the target and watch α and the speed-up",
)
claim(
    "rejection",
    (
        f"Classic rejection sampling with your draft needs a bound M = {plan.bound:.3g} and "
        "makes M proposals per word on average"
        + ("." if plan.bound == 1 else ", with no limit on how many one word takes.")
        if plan.runs
        else "Classic rejection sampling cannot run on your pair at all: your draft never "
        f"proposes “{scenario.labels[plan.blocked[0]]}”, which the target can say."
    )
    + f" Speculative sampling makes one proposal, keeps it {percent(alpha)} of the time and "
    f"otherwise draws once from the leftover bucket ({percent(one.z)} of the time).",
    "pages/7_Rejection_sampling.py",
    "Is it just rejection sampling? Both on the same numbers",
)
claim(
    "leaks",
    "Whatever the draft, the words follow the target exactly: kept + refilled = "
    "min({T}, {D}) + max(0, {T} − {D}) = {T} for every word, so a word the target forbids "
    f"never comes out. A bad draft only costs speed. The leak is in code: testing u ≤ {{T}}/{{D}} "
    f"with a 32-bit random number u lets a forbidden guess through when u = 0, about 1 in "
    f"{round(1 / FLOAT32_STEP):,} proposals on a CPU (numpy, CPU PyTorch); PyTorch on a GPU "
    "gives u = 0 about half as often (read from its source, not measured).",
    "pages/6_Why_its_exact.py",
    "Why it's exact: the proof with your numbers, and the float32 leak",
)
state.sync_url()
