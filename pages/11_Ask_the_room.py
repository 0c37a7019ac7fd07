"""Ask the room: students answer the question in play on their phones; the lecturer, whose link
holds the room's key, picks the question, shows the room's answers live and reveals."""

import streamlit as st

from specviz import classroom
from specviz.links import KEY, ROOM, VOTER
from specviz.ui import page, polls, state

page.setup("pages/11_Ask_the_room.py")
st.title("Ask the room")
page.show_notices(ROOM, KEY, VOTER)
code, key = state.param(ROOM), state.param(KEY)
now = polls.find(code) if code else None
if now is None:
    polls.join_form()
elif key and classroom.opens(key, now.key_hash):
    polls.lecturer_view(key, now)
else:
    if key:
        st.warning("This link's key does not run this room, so you see what a student sees.")
    polls.student_view(code)
state.sync_url()
