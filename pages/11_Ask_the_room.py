"""Ask the room: the lecturer, whose link holds the room's key, picks the question, shows the
room's answers live and reveals; students answer on the room's own phone page."""

import streamlit as st

from specviz import classroom
from specviz.links import KEY, ROOM
from specviz.text import say
from specviz.ui import page, polls, state

page.setup("pages/11_Ask_the_room.py")
st.title(say("polls.title"))
page.show_notices(ROOM, KEY)
code, key = state.param(ROOM), state.param(KEY)
now = polls.find(code) if code and key else None
if now and classroom.opens(key, now.key_hash):
    polls.lecturer_view(key, now)
else:
    if now:
        st.warning(say("polls.wrong_key"))
    polls.join_form(code if now or not key else "")
state.sync_url()
