"""SpecViz: the landing page (what speculative sampling is, one live example, where to go next)
when Streamlit runs this script, and the server itself when ``streamlit run app.py`` imports it:
Streamlit's app with the phones' page of *Ask the room* beside it (:mod:`specviz.ui.phones`)."""

import streamlit as st
from starlette.middleware import Middleware

from specviz.figures import exactness as fx
from specviz.figures.numbers import percent
from specviz.links import QUALITY
from specviz.scenario import PROMPT, home_scenario
from specviz.text import say
from specviz.ui import page, phones, state
from specviz.ui.live import home_view


def home() -> None:
    """The landing page."""
    page.setup("app.py")
    page.show_notices(QUALITY)
    note = state.notation()

    st.title(say("home.title"))
    page.intro(note.fill(say("home.intro")))

    st.header(say("home.try"))
    st.markdown(say("home.next_word", prompt=PROMPT))
    yours = state.current()
    home_view(page.style(), page.cached(fx.home_tally, yours.seed, note))
    st.markdown(fx.overlap_sentence(note))
    st.caption(say("playground.rounded"))
    # Nothing below the view depends on the quality: a move of it changes the view alone.
    st.caption(
        say("home.yours_keeps", alpha=percent(yours.step().alpha))
        if yours.distributions_ok
        else say("home.yours_other")
    )
    if st.button(
        say("home.open"),
        icon=":material/tune:",
        on_click=lambda: state.save(home_scenario(state.param(QUALITY), state.current())),
        help=say("home.open_help"),
    ):
        st.switch_page("pages/1_Playground.py")

    st.header(say("home.order"))
    for number, entry in enumerate(sorted(page.PAGES[1:], key=lambda e: not e.for_learners), 1):
        # The link holds only the page's name: a long label is cut to one line with an ellipsis.
        label = f"{number}. {entry.label}" if entry.for_learners else entry.label
        st.page_link(entry.script, label=f"**{label}**", icon=entry.icon)
        st.caption(entry.blurb)

    state.sync_url()


if __name__ == "__main__":  # a script run, by Streamlit
    home()
else:  # imported by `streamlit run app.py`, which serves this app
    app = st.App("app.py", middleware=[Middleware(phones.FastPath)])
