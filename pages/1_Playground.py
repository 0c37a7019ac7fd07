"""Playground: drag the target p and the draft q, and watch every part of the procedure follow."""

import streamlit as st

from specviz.links import GAMMA
from specviz.scenario import PROMPT
from specviz.ui import editor, page, state
from specviz.ui.live import live_view

page.setup("pages/1_Playground.py")
scenario = state.current()
note = state.notation()

st.title("Playground")
page.intro(
    note.fill(
        f"Next word after *“{PROMPT}”*. **Drag the bars** (or focus one and use the arrow keys) to "
        "set how likely each word is under the big **target** {T} and the small **draft** {D}; "
        "every chart follows as you drag.\n\n"
    )
    + note.explain()
)
page.show_notices(GAMMA)

presets, guesses = st.columns([3, 2], gap="large", vertical_alignment="top")
with presets:
    editor.preset_picker(scenario, note)
with guesses:
    gamma = state.param_widget(
        GAMMA,
        st.select_slider,
        label="Guesses per target call γ (for words per call)",
        options=GAMMA.choices,
    )

live_view(gamma, page.style())

with st.expander("Rename the words, change how many there are, or type exact weights"):
    editor.weight_editor(scenario, note)

page.finish()
