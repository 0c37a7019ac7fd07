"""SpecViz: the landing page (what speculative sampling is, one live example, where to go next)
when Streamlit runs this script, and the server itself when ``streamlit run app.py`` imports it:
Streamlit's app with the phones' page of *Ask the room* beside it (:mod:`specviz.ui.phones`)."""

import streamlit as st
from starlette.middleware import Middleware

from specviz.figures import exactness as fx
from specviz.figures.numbers import percent
from specviz.links import QUALITY
from specviz.scenario import PROMPT, home_scenario
from specviz.ui import page, phones, state
from specviz.ui.live import home_view

_INTRO = (
    "A large language model writes one word at a time, and each word costs a slow pass of the "
    "big **target** model {T}. **Speculative sampling** lets a small, fast **draft** model {D} "
    "guess the next word, and the target only checks the guess: it keeps it with probability "
    "min(1, {T}(x)/{D}(x)), and on a rejection draws a replacement from the *leftover bucket* "
    "— the words the draft under-proposes. The words that come out follow {T} **exactly**, "
    "so the text is as good as the big model's. When the draft guesses well and costs "
    "little, it comes 2–3× faster (Leviathan et al. 2023; Chen et al. 2023); a poor or "
    "costly draft makes it *slower* — the Playground shows when."
)


def home() -> None:
    """The landing page."""
    page.setup("app.py")
    page.show_notices(QUALITY)
    note = state.notation()

    st.title("SpecViz: speculative sampling, seen")
    page.intro(note.fill(_INTRO))

    st.header("Try it: how good is the draft?")
    st.markdown(f"Next word after *“{PROMPT}”*")
    yours = state.current()
    home_view(page.style(), page.cached(fx.home_tally, yours.seed, note))
    st.markdown(fx.overlap_sentence(note))
    # Nothing below the view depends on the quality: a move of it changes the view alone.
    st.caption(
        f"Your Playground's pair keeps {percent(yours.step().alpha)} of its guesses."
        if yours.distributions_ok
        else "Your Playground has its own pair."
    )
    if st.button(
        "Open this pair in the Playground",
        icon=":material/tune:",
        on_click=lambda: state.save(home_scenario(state.param(QUALITY), state.current())),
        help="This replaces the Playground's words and weights with the pair above.",
    ):
        st.switch_page("pages/1_Playground.py")

    st.header("Take the pages in this order")
    learners = [e for e in page.PAGES[1:] if e.for_learners]
    others = [e for e in page.PAGES if not e.for_learners]
    for number, entry in enumerate([*learners, *others], start=1):
        # The link holds only the page's name: a long label is cut to one line with an ellipsis.
        label = f"{number}. {entry.label}" if entry.for_learners else entry.label
        st.page_link(entry.script, label=f"**{label}**", icon=entry.icon)
        st.caption(entry.blurb)

    state.sync_url()


if __name__ == "__main__":  # a script run, by Streamlit
    home()
else:  # imported by `streamlit run app.py`, which serves this app
    app = st.App("app.py", middleware=[Middleware(phones.FastPath)])
