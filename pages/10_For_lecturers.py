"""For lecturers: the lecturer's guide in the page's language (docs/lecturers_guide.md and its
translations) as it is in the repository, except that the plan's steps are links that keep the
lecturer's settings and open in the same tab."""

import streamlit as st

from specviz import classroom
from specviz.lesson_plan import guide, plan, split_guide
from specviz.text import language, say
from specviz.ui import page, polls, presenter, state

page.setup("pages/10_For_lecturers.py")
page.show_notices()

before, _, after = split_guide(guide(language()).read_text(encoding="utf-8"))
steps = plan(language())
st.markdown(before)
st.markdown(say("polls.ask_heading"))
st.markdown(say("polls.lecturers_intro"))
polls.start_class()
st.markdown(say("polls.plan_heading"))
presenter.link(1, say("polls.start_presenting"), icon=":material/slideshow:")
for number, step in enumerate(steps, start=1):
    if number == 1 or step.block != steps[number - 2].block:
        end = max(later.end for later in steps if later.block == step.block)
        st.markdown(say("polls.block_heading", block=step.block, start=step.start, end=end))
    presenter.link(number, say("polls.step_link", start=step.start, end=step.end, title=step.title))
    phones = f" 📱 *{classroom.poll(step.poll).title}*" if step.poll else ""
    st.markdown(say("polls.step_text", say=step.say, ask=step.ask, phones=phones))
st.markdown(after)  # the plan's own rows are the links above
state.sync_url()
