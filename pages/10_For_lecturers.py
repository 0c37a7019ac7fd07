"""For lecturers: docs/lecturers_guide.md as it is in the repository, except that the plan's
steps are links that keep the lecturer's settings and open in the same tab."""

import streamlit as st

from specviz import classroom
from specviz.lesson_plan import GUIDE, PLAN
from specviz.ui import page, polls, presenter, state

page.setup("pages/10_For_lecturers.py")
page.show_notices()

before, _, after = GUIDE.read_text(encoding="utf-8").partition("\n## The plan\n")
st.markdown(before)
st.markdown("## Ask the room")
st.markdown(
    "Start a class: the room gets a code and a QR code for the projector. Students answer your "
    "question on their phones, with no account and no name; you watch the room split and reveal."
)
polls.start_class()
st.markdown("## The plan")
presenter.link(1, "**Start presenting**", icon=":material/slideshow:")
for number, step in enumerate(PLAN, start=1):
    if number == 1 or step.block != PLAN[number - 2].block:
        end = max(later.end for later in PLAN if later.block == step.block)
        st.markdown(f"### {step.block} · minutes {step.start}–{end}")
    presenter.link(number, f"**{step.start}–{step.end} min · {step.title}**")
    phones = f" 📱 *{classroom.poll(step.poll).title}*" if step.poll else ""
    st.markdown(f"{step.say}\n\n*Ask the room:* {step.ask}{phones}")
st.markdown("## " + after.split("\n## ", 1)[1])  # the plan's own rows are the links above
state.sync_url()
