"""The debate: the four claims under the article that started SpecViz, judged with your numbers."""

import streamlit as st

from specviz.decoding import RANGES
from specviz.figures.numbers import decimal, pace, percent, times
from specviz.links import CLAIM, CLAIM_WORDS, CLAIMS, DECODE_COST, GAMMA
from specviz.rejection import classic_plan
from specviz.rules import FLOAT32_STEP
from specviz.text import say
from specviz.theory import break_even_alpha, expected_tokens_per_step, walltime_speedup
from specviz.ui import page, state

page.setup("pages/9_The_debate.py")
note = state.notation()

st.title(say("debate.title"))
page.intro(say("debate.intro"))
page.show_notices(GAMMA, DECODE_COST, CLAIM)
left, right = st.columns(2, gap="large")
with left:
    gamma = state.param_widget(GAMMA, st.select_slider, label=say("debate.gamma_label"))
with right:
    cost = state.param_widget(DECODE_COST, st.select_slider, label=say("debate.cost_label"))
scenario, one = page.lesson()
alpha = one.alpha
speed = walltime_speedup(alpha, gamma, cost)
even = break_even_alpha(gamma, cost)
plan = classic_plan(one.p, one.q)
_, tabs = state.param_tabs(CLAIM, CLAIMS)  # every claim drawn: text only, and cheap


def claim(key: str, evidence: str, script: str, label: str) -> None:
    """A claim's tab: what was said, the verdict, the evidence in your numbers, where to see it."""
    quote, verdict = CLAIM_WORDS[key]
    with tabs[key]:
        st.markdown(say("debate.claim", quote=quote, verdict=verdict, evidence=note.fill(evidence)))
        st.page_link(script, label=label, icon=":material/arrow_forward:")


published = "; ".join(f"{r.source}: {r.speedup:g}–{r.high:g}× ({r.setting})" for r in RANGES)
words = decimal(expected_tokens_per_step(alpha, gamma), 2)
claim(
    "speed",
    say(
        "debate.speed",
        alpha=percent(alpha),
        gamma=gamma,
        words=words,
        cost=f"{cost:g}",
        speed=times(speed),
        pace=pace(speed),
        published=published,
    ),
    "pages/5_Many_words_per_call.py",
    say("debate.speed_link"),
)
if even is None:
    verdict = say("debate.close_never", cost=f"{cost:g}")
elif cost == 0:
    verdict = say("debate.close_free")
else:
    verdict = say("debate.close_above", gamma=gamma, cost=f"{cost:g}", even=percent(round(even, 3)))
claim(
    "close",
    say("debate.close", verdict=verdict, alpha=percent(alpha), speed=times(speed)),
    "pages/1_Playground.py",
    say("debate.close_link"),
)
if not plan.runs:
    verdict = say("debate.rejection_blocked", word=scenario.labels[plan.blocked[0]])
elif plan.bound == 1:
    verdict = say("debate.rejection_one", bound=f"{plan.bound:.3g}")
else:
    verdict = say("debate.rejection_unbounded", bound=f"{plan.bound:.3g}")
claim(
    "rejection",
    say("debate.rejection", verdict=verdict, alpha=percent(alpha), z=percent(one.z)),
    "pages/7_Rejection_sampling.py",
    say("debate.rejection_link"),
)
claim(
    "leaks",
    say("debate.leaks", one_in=f"{round(1 / FLOAT32_STEP):,}"),
    "pages/6_Why_its_exact.py",
    say("debate.leaks_link"),
)
state.sync_url()
