"""One draw at a time: the procedure as a story a lecturer can click through while talking."""

import streamlit as st

from specviz.figures.numbers import percent
from specviz.figures.player import HEAR_PLAYER_JS, player_html
from specviz.links import DRAWS, PLAYER_AT
from specviz.scenario import PRESETS_BY_KEY
from specviz.story import one_draw_story
from specviz.text import say
from specviz.ui import page, state
from specviz.ui.editor import current_lesson, load_preset

page.setup("pages/2_One_draw.py")
note = state.notation()

st.title(say("one_draw.title"))
page.intro(note.fill(say("one_draw.intro")))


def _new_draws() -> None:
    state.update(seed=state.current().next_seed())
    state.set_param(PLAYER_AT, 0)


def _moved() -> None:  # the player was paused or stepped: the link restores it there
    at = str((st.session_state.get("od.at") or {}).get("at"))  # untrusted: the start if odd
    state.set_param(PLAYER_AT, PLAYER_AT.read({PLAYER_AT.name: at})[0])


def story_controls() -> int:
    """Which words and weights, how many draws, a new story: the number of draws."""
    lesson = current_lesson(state.current())
    left, middle, right = st.columns([3, 2, 2], vertical_alignment="bottom")
    state.bound(
        left.selectbox,
        "od.preset",
        lesson if lesson in PRESETS_BY_KEY else "current",
        load_preset,
        label=say("one_draw.words_label"),
        options=["current", *PRESETS_BY_KEY],
        format_func=lambda k: say("one_draw.as_now") if k == "current" else PRESETS_BY_KEY[k].title,
        help=say("one_draw.words_help"),
    )
    draws = state.param_widget(DRAWS, middle.select_slider, label=say("one_draw.draws_label"))
    right.button(
        say("one_draw.new"),
        icon=":material/refresh:",
        on_click=_new_draws,
        width="stretch",
        help=say("one_draw.new_help"),
    )
    return draws


@page.part
def lesson() -> None:
    """The player and the settings of its story."""
    page.show_notices(DRAWS, PLAYER_AT)
    projector = state.current().projector
    # On a projector the player comes first (its own buttons are what the lecturer clicks).
    draws = state.param(DRAWS) if projector else story_controls()
    scenario, one = page.lesson()
    summary = say(
        "one_draw.summary",
        seed=scenario.seed,
        draws=draws,
        alpha=percent(one.alpha),
        z=percent(one.z),
    )
    if not projector:  # on a projector the player comes first; this goes under it
        st.markdown(summary)
    story = page.computed(one_draw_story, draws, scenario.seed)
    # The player opens at the link's step. Its own moves change the link, not its document (a new
    # one would reload it): the start is read again only when the story or its look changes.
    if st.session_state.get("od.shown", (None,))[0] != (scenario, draws):
        st.session_state["od.shown"] = (scenario, draws), state.param(PLAYER_AT)
    start = st.session_state["od.shown"][1]
    st.container(key="od.player").iframe(
        page.figures(player_html, story, start, key=(scenario.seed, draws, start)),
        height="content",
        alt=note.fill(say("one_draw.player_alt")),
    )
    if projector:
        story_controls()
        st.markdown(summary)
    with st.expander(say("one_draw.why")):
        st.markdown(note.fill(say("one_draw.why_text")))
    hear = st.components.v2.component("specviz.player_at", js=HEAR_PLAYER_JS)  # the same each run
    hear(key="od.at", on_at_change=_moved)


lesson()
state.sync_url()
