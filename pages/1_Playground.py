"""Playground: drag the target p and the draft q, and watch every part of the procedure follow."""

import streamlit as st

from specviz.links import DECODE_COST, GAMMA
from specviz.scenario import PROMPT
from specviz.text import say
from specviz.ui import editor, page, state
from specviz.ui.live import live_view

page.setup("pages/1_Playground.py")
note = state.notation()

st.title(say("page.playground"))
page.intro(note.fill(say("playground.intro", prompt=PROMPT)) + note.explain())

page.show_notices(GAMMA, DECODE_COST)

presets, guesses, costs = st.columns([3, 2, 2], gap="large", vertical_alignment="top")
with presets:  # outside the part below: most drags leave the preset on show as it is
    shown = editor.preset_picker(state.current(), note)
gamma = state.param_widget(GAMMA, guesses.select_slider, label=say("playground.gamma"))
cost = state.param_widget(
    DECODE_COST, costs.select_slider, label=say("playground.cost"), help=say("playground.cost_help")
)


@page.part
def weights(gamma: int, cost: float, shown: tuple[str | None, tuple[str, ...]]) -> None:
    """Everything the words and weights move: the view and the weight editor."""
    scenario = state.current()
    if (editor.current_lesson(scenario), scenario.labels) != shown:  # the preset menu's lesson too
        st.rerun(scope="app")
    live_view(gamma, cost, page.style())
    st.caption(say("playground.rounded"))

    # Drawn only while open: 17 widgets a learner dragging the bars does not see would cost
    # most of the server's time per gesture.
    with st.expander(say("playground.edit"), key="pg.edit", on_change="rerun") as box:
        if box.open:
            editor.weight_editor(scenario, note)


weights(gamma, cost, shown)
state.sync_url()
