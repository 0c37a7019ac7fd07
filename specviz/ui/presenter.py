"""Presenter mode: the lecturer's plan (:mod:`specviz.lesson_plan`) stepped through in one tab;
the step on show is a page setting (``step`` in the URL; no bar while it is 0)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from specviz.lesson_plan import plan
from specviz.links import STEP
from specviz.scenario import to_query
from specviz.text import language, say, titles
from specviz.ui import state

_SHOWN = "specviz.presenter.shown"  # the step the last run showed, as its link wrote it
KEPT = ("seed", "projector", "letters", "lang")  #: what a step's link keeps of the lecturer's state
_keys = st.components.v2.component("specviz.presenter_keys", js=state.asset("presenter.js"))
_CSS = f"<style>{state.asset('presenter.css')}</style>"


def link(number: int, label: str, **kwargs: Any) -> None:
    """A same-tab link to step ``number``'s page in its state, with the lecturer's settings."""
    kept = {k: v for k, v in to_query(state.current()).items() if k in KEPT}
    step = plan(language())[number - 1]
    query = dict(step.query) | kept | STEP.write(number)
    st.page_link(step.script, label=label, query_params=query, **kwargs)


def on() -> bool:
    """Whether a step of the plan is on show."""
    return bool(state.param(STEP))


def follow() -> None:
    """First in every run: a link to another step than the one on show brings its state."""
    asked = st.query_params.get(STEP.name)
    if asked is not None and asked != st.session_state.get(_SHOWN, asked):
        state.reread()


def bar(page: str) -> None:
    """At the top of the page named ``page`` in presenter mode: the step, its talking point and its
    question."""
    number = state.param(STEP)
    st.session_state[_SHOWN] = STEP.write(number).get(STEP.name)
    if not number:
        return
    steps = plan(language())
    step, total = steps[number - 1], len(steps)
    with st.container(key="presenter", border=True):
        back, where, ahead, end = st.columns([3, 12, 3, 2], vertical_alignment="center")
        labels = titles("polls.step", ("prev", "next"))
        for column, to, name in ((back, number - 1, "prev"), (ahead, number + 1, "next")):
            if 1 <= to <= total:
                way = "back" if to < number else "forward"
                with column.container(key=f"presenter-{name}"):
                    link(to, labels[name], help=steps[to - 1].title, icon=f":material/arrow_{way}:")
        span = f"{step.start}–{step.end}"
        where.markdown(
            say("polls.step_bar", step=number, steps=total, page=page, block=step.block, span=span)
        )
        end.button(say("polls.end"), key="presenter.end", on_click=state.set_param, args=(STEP, 0))
        with st.container(key="presenter-say"):
            st.markdown(step.say)
            from specviz.ui import polls  # the rooms' database code, first needed here

            if step.poll and polls.running():
                polls.in_plan(step.poll, say("polls.ask_line", ask=step.ask))
            else:
                st.markdown(say("polls.ask_line", ask=step.ask))
        st.html(_CSS)
        _keys(key="presenter.keys")
