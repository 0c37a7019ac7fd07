"""The debate: the four claims under the article that started SpecViz, judged with your numbers."""

import streamlit as st

from specviz.decoding import ranges
from specviz.figures.numbers import decimal, pace, percent, significant, thousands, times
from specviz.links import CLAIM, CLAIMS, DECODE_COST, GAMMA, claim_words
from specviz.rejection import classic_plan
from specviz.rules import FLOAT32_STEP
from specviz.text import say, titles
from specviz.theory import break_even_alpha, expected_tokens_per_step, walltime_speedup
from specviz.ui import page, state

page.setup("pages/9_The_debate.py")
note = state.notation()

st.title(say("debate.title"))
page.intro(say("debate.intro"))


@page.part
def lesson() -> None:
    """The claims judged with the chosen γ and c."""
    page.show_notices(GAMMA, DECODE_COST, CLAIM)
    left, right = st.columns(2, gap="large")
    gamma = state.param_widget(GAMMA, left.select_slider, label=say("debate.gamma_label"))
    cost = state.param_widget(DECODE_COST, right.select_slider, label=say("debate.cost_label"))
    scenario, one = page.lesson()
    alpha = one.alpha
    speed = walltime_speedup(alpha, gamma, cost)
    even = break_even_alpha(gamma, cost)
    plan = classic_plan(one.p, one.q)
    _, tabs = state.param_tabs(CLAIM, CLAIMS)  # every claim drawn: text only, and cheap

    if even is None:
        close = say("debate.close_never", cost=f"{cost:g}")
    elif cost == 0:
        close = say("debate.close_free")
    else:
        close = say(
            "debate.close_above", gamma=gamma, cost=f"{cost:g}", even=percent(round(even, 3))
        )
    if not plan.runs:
        rejection = say("debate.rejection_blocked", word=scenario.labels[plan.blocked[0]])
    elif plan.bound == 1:
        rejection = say("debate.rejection_one", bound=significant(plan.bound))
    else:
        rejection = say("debate.rejection_unbounded", bound=significant(plan.bound))
    evidence = {
        "speed": say(
            "debate.speed",
            alpha=percent(alpha),
            gamma=gamma,
            words=decimal(expected_tokens_per_step(alpha, gamma), 2),
            cost=f"{cost:g}",
            speed=times(speed),
            pace=pace(speed),
            published="; ".join(
                f"{r.source}: {r.speedup:g}–{r.high:g}× ({r.setting})" for r in ranges()
            ),
        ),
        "close": say("debate.close", verdict=close, alpha=percent(alpha), speed=times(speed)),
        "rejection": say(
            "debate.rejection", verdict=rejection, alpha=percent(alpha), z=percent(one.z)
        ),
        "leaks": say("debate.leaks", one_in=thousands(round(1 / FLOAT32_STEP))),
    }
    scripts = {
        "speed": "pages/5_Many_words_per_call.py",
        "close": "pages/1_Playground.py",
        "rejection": "pages/7_Rejection_sampling.py",
        "leaks": "pages/6_Why_its_exact.py",
    }
    links = titles("debate", ("speed_link", "close_link", "rejection_link", "leaks_link"))
    for key, (quote, verdict) in claim_words().items():
        with tabs[key]:
            st.markdown(
                say("debate.claim", quote=quote, verdict=verdict, evidence=note.fill(evidence[key]))
            )
            st.page_link(scripts[key], label=links[f"{key}_link"], icon=":material/arrow_forward:")


lesson()
state.sync_url()
