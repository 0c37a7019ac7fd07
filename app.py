"""SpecViz landing page: what speculative sampling is, one live example, where to go next."""

import streamlit as st

from specviz import expected_tokens_per_step
from specviz.figures.landing import home_figure
from specviz.figures.numbers import percent
from specviz.links import QUALITY
from specviz.scenario import PROMPT, home_example, home_scenario
from specviz.ui import page, state

page.setup("app.py")
page.show_notices(QUALITY)
note = state.notation()

st.title("SpecViz: speculative sampling, seen")
page.intro(
    note.fill(
        "A large language model writes one word at a time, and each word costs a slow pass of the "
        "big **target** model {T}. **Speculative sampling** lets a small, fast **draft** model {D} "
        "guess the next word, and the target only checks the guess: it keeps it with probability "
        "min(1, {T}(x)/{D}(x)), and on a rejection draws a replacement from the *leftover bucket* "
        "— the words the draft under-proposes. The words that come out follow {T} **exactly**, "
        "so the text is as good as the big model's, only 2–3× faster."
    )
)

st.header("Try it: how good is the draft?")
left, right = st.columns([2, 3], gap="large")
with left:
    st.markdown(f"Next word after *“{PROMPT}”*")
    quality = state.param_widget(
        QUALITY,
        st.select_slider,
        label="Draft quality",
        options=QUALITY.choices,
        format_func=lambda v: f"{v}%",
        help=note.fill("0%: the draft has {T}'s preferences backwards. 100%: draft = target."),
    )
    example = home_example(quality)
    chart, caption = page.cached(home_figure, quality, page.style())
    yours = state.current()
    st.metric(
        "Acceptance rate α",
        percent(example.alpha),
        help=note.fill("α = Σ min({T}, {D}): the chance a guess is kept."),
    )
    st.metric(
        "Words per target call",
        f"{expected_tokens_per_step(example.alpha, 4):.2f}",
        help="When the draft guesses 4 words ahead (γ = 4) and the target checks them in one "
        "call: (1 − α⁵)/(1 − α), between 1 and 5 words per expensive call.",
    )
    st.caption(
        "Whatever the draft, the words that come out follow the target exactly; a better draft "
        "only means fewer rejections, so more words per expensive call."
    )
    pair = home_scenario(quality, yours)
    if pair == yours:
        st.caption("The Playground shows this very pair.")
    else:
        st.caption(
            f"Your Playground has its own pair (α = {percent(yours.step().alpha)})."
            if yours.distributions_ok
            else "Your Playground has its own pair."
        )
        if st.button(
            "Open this pair in the Playground",
            icon=":material/tune:",
            on_click=lambda: state.save(home_scenario(quality, state.current())),
            help="This replaces the Playground's words and weights with the pair above.",
        ):
            st.switch_page("pages/1_Playground.py")

with right, st.container(key="home.chart"):
    st.vega_lite_chart(chart, width="stretch", theme=None, alt=caption)
    st.caption(caption)

st.header("Take the pages in this order")
learners = [e for e in page.PAGES[1:] if e.for_learners and (page.ROOT / e.script).exists()]
for number, entry in enumerate(learners, start=1):
    # The link holds only the page's name: a long label is cut to one line with an ellipsis.
    st.page_link(entry.script, label=f"**{number}. {entry.label}**", icon=entry.icon)
    st.caption(entry.blurb)
for entry in page.PAGES:
    if not entry.for_learners:
        st.page_link(entry.script, label=f"**{entry.label}**", icon=entry.icon)
        st.caption(entry.blurb)

page.finish()
