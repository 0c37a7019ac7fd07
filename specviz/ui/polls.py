"""Ask the room: the widgets of the lecturer and students, and which database and visitor's
address :mod:`specviz.rooms` works with."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import segno
import streamlit as st
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from streamlit.logger import get_logger

from specviz import classroom, rooms
from specviz.classroom import Poll
from specviz.links import KEY, LANGUAGE, ROOM
from specviz.text import language, say, titles
from specviz.ui import state

_STARTED = "polls.started"
_JOINED = "polls.joined"
_FAULT = "polls.fault"
_PAUSE_S = 1.0  # before a click's one retry: PostgreSQL restarted in 0.57 s under a class


def _retried(write: Callable[[], Any]) -> Any:
    """``write()``, once more after a pause if the database failed it: PostgreSQL restarts in
    under a second, and pool_pre_ping then swaps the pool's dead connections."""
    try:
        return write()
    except SQLAlchemyError as problem:
        get_logger(__name__).warning("Ask the room: trying again after %s", problem)
        time.sleep(_PAUSE_S)
    return write()


def _view(code: str) -> tuple | None:
    """The room of ``code`` (None if closed), its round's answers and the round's before, kept
    in the session; if the database fails (a restart), the ones kept last (None if none) under a
    short notice: a refresh keeps its view, and the next catches up."""
    name = f"polls.live.{code}"
    try:
        eng = engine()
        if (now := rooms.room(eng, code)) is None:
            st.session_state[name] = None, (), ()
        else:
            tally = rooms.counts(eng, code, now.round, now.question)
            before = rooms.counts(eng, code, now.round - 1, now.question) if now.round > 1 else ()
            st.session_state[name] = now, tally, before
    except SQLAlchemyError as problem:
        get_logger(__name__).warning("Ask the room: a refresh failed: %s", problem)
        st.caption(say("polls.reconnecting"))
    return st.session_state.get(name)


def engine() -> Engine:
    """The rooms' database, Streamlit's SQL connection "polls": ``SPECVIZ_POLLS_URL``, else
    ``[connections.polls]`` in secrets.toml (PostgreSQL, for replicas that share rooms), else a
    SQLite file."""
    named = st.secrets.load_if_toml_exists() and "polls" in st.secrets.get("connections", {})
    url = os.environ.get("SPECVIZ_POLLS_URL") or (None if named else rooms.DEFAULT_URL)
    options = rooms.ENGINE_OPTIONS | ({"url": url} if url else {})
    return _prepared(st.connection("polls", type="sql", **options).engine)


# Once per engine: the connection is kept, so its engine is the same object on every run.
_prepared = st.cache_resource(show_spinner=False, hash_funcs={Engine: id})(rooms.prepare)


def find(code: str) -> rooms.Room | None:
    """The live room of ``code`` for this visitor, or None and a message why not. A room this
    session has been in is looked up freely; any other counts against the visitor's address."""
    joined = st.session_state.setdefault(_JOINED, set())
    try:
        address = rooms.visitor_address(
            st.context.ip_address, st.context.headers.get("X-Forwarded-For", "")
        )
        now = _retried(lambda: rooms.room(engine(), code, None if code in joined else address))
        if now is None:
            raise ValueError(say("classroom.no_room"))
    except ValueError as problem:
        st.error(str(problem))
        state.set_param(ROOM, "")  # not looked up, and counted, again on every rerun
        return None
    except SQLAlchemyError:
        state.stop(say("polls.db_down"), kind="warning")
    joined.add(code)
    return now


def show_join(code: str) -> None:
    """The room's code in large type, its join link (this server's phone page, in the lecturer's
    language; never the key) and a QR code of it (SVG, drawn here)."""
    here = urlsplit(st.context.url or "")
    path = here.path.rsplit("/", 1)[0] + "/join"
    link = urlunsplit((here.scheme, here.netloc, path, _join_query(code), ""))
    # An <img> of a data URI: Streamlit's sanitiser strips inline <svg>, and an image carries alt.
    qr = segno.make(link, error="m").svg_data_uri(scale=6, dark="#1a1a1a")
    st.html(
        '<div style="display:flex;gap:2rem;align-items:center;flex-wrap:wrap">'
        f'<img src="{qr}" alt="{say("polls.qr_alt", code=" ".join(code))}" '
        'style="width:min(14rem,60vw);image-rendering:pixelated">'
        f'<div><p style="margin:0">{say("polls.room_code")}</p>'
        f'<p style="font-size:4rem;font-weight:700;letter-spacing:.3rem;'
        f'margin:0;font-family:monospace">{code}</p></div></div>'
    )
    st.markdown(say("polls.join_at", link=link))


def start_class() -> None:
    """For lecturers: the *Start a class* button; a started room's code, link and QR code, and
    the lecturer's own link (with the key) to run it."""
    if st.button(say("polls.start"), icon=":material/groups:", key="polls.start"):
        key = classroom.new_key()
        try:
            code = _retried(lambda: rooms.start_room(engine(), key))
        except SQLAlchemyError:
            st.error(say("polls.start_failed"))
            return
        # Kept for "Ask the room" in this session, and never read here: this page's own link
        # (on the projector) must not carry the key.
        state.set_param(ROOM, code)
        state.set_param(KEY, key)
        st.session_state[_STARTED] = code, key
    if _STARTED in st.session_state:
        code, key = st.session_state[_STARTED]
        show_join(code)
        st.page_link(
            "pages/11_Ask_the_room.py",
            label=say("polls.run_room"),
            icon=":material/co_present:",
            query_params={"room": code, "key": key},
        )
        st.caption(say("polls.keep_key"))


def _join_query(code: str) -> str:
    """The phone page's query: the room's code (if any), and this session's language."""
    return urlencode(({"room": code} if code else {}) | LANGUAGE.write(language()))


def join_form(code: str) -> None:
    """A student: the room is answered on a page of its own (light enough for a class of phones
    on the host's smallest share), opened here with ``code`` if the link had one."""
    st.markdown(say("polls.join_intro"))
    st.link_button(
        say("polls.open_page"),
        f"join?{_join_query(code)}",
        icon=":material/smartphone:",
        type="primary",
    )


def _answers(total: int) -> str:
    return say("polls.one_answer") if total == 1 else say("polls.answers", total=total)


def _bars(question: Poll, tally: tuple[int, ...], revealed: bool, heading: str) -> None:
    note = state.notation()
    total = sum(tally)
    st.markdown(say("polls.heading", heading=heading, answers=_answers(total)))
    for i, (option, n) in enumerate(zip(question.options, tally, strict=True)):
        share = n / total if total else 0.0
        letter, option, part = chr(65 + i), note.fill(option), f"{share:.0%}"
        if revealed and question.answer == i:
            label = say("polls.bar_right", letter=letter, option=option, n=n, share=part)
        else:
            label = say("polls.bar", letter=letter, option=option, n=n, share=part)
        st.progress(share, text=label)


def _reveal_text(question: Poll) -> None:
    note = state.notation()
    if question.answer is not None:
        right = question.options[question.answer]
        answer = say("polls.answer", letter=chr(65 + question.answer), option=note.fill(right))
        st.success(answer, icon=":material/check_circle:")
    if question.verdict:
        st.info(note.fill(question.verdict), icon=":material/gavel:")
    st.page_link(
        question.page,
        label=say("polls.see_why"),
        icon=":material/arrow_forward:",
        query_params=dict(question.query),
    )


def _lecture(code: str, key: str, action: str, question: str) -> None:
    """A lecturer's button, before the run that shows its effect (and :func:`_faulted` a fault)."""
    try:
        _retried(lambda: rooms.lecture(engine(), code, key, action, question))
    except SQLAlchemyError:
        st.session_state[_FAULT] = True


def _faulted() -> None:
    if st.session_state.pop(_FAULT, False):
        st.error(say("polls.not_done"))


def lecturer_view(key: str, now: rooms.Room) -> None:
    """The projector's view (this session runs the class from now on, in presenter mode too): the
    join box, the question in play, the live answers, the controls."""
    code = now.code
    st.session_state[_STARTED] = code, key
    left, right = st.columns([2, 3], gap="large")
    with left:
        show_join(code)
        st.caption(say("polls.key_note"))
    scenario = state.current()
    keys = list(classroom.BANK)
    if scenario.distributions_ok:
        keys.insert(0, classroom.alpha_key(scenario.p_weights, scenario.q_weights))
    with right:
        chosen = st.selectbox(
            say("polls.question"),
            keys,
            format_func=lambda k: classroom.poll(k).title,
            index=keys.index(now.question) if now.question in keys else 0,
            key="polls.pick",
        )
        buttons = (
            ("ask", say("polls.ask"), "help"),
            ("again", say("polls.vote_again"), "replay"),
            ("reveal", say("polls.reveal"), "visibility"),
        )
        for column, (action, label, icon) in zip(st.columns(3), buttons, strict=True):
            column.button(
                label,
                key=f"polls.{action}",
                icon=f":material/{icon}:",
                on_click=_lecture,
                args=(code, key, action, chosen),
            )
        _faulted()
        live(code)


def _split(now: rooms.Room, tally: tuple[int, ...], before: tuple[int, ...]) -> None:
    """The question in play, the room's answers (the round before beside them), the reveal."""
    question = classroom.poll(now.question)
    prompt = state.notation().fill(question.prompt)
    st.markdown(say("polls.round_heading", round=now.round, title=question.title, prompt=prompt))
    heads = titles("polls.round", ("before", "now"))
    shown = {heads["before"]: before, heads["now"]: tally} if sum(before) else {heads["now"]: tally}
    for column, (heading, votes) in zip(st.columns(len(shown)), shown.items(), strict=True):
        with column:
            _bars(question, votes, now.revealed, heading)
    if now.revealed:
        _reveal_text(question)


@st.fragment(run_every=2)
def live(code: str) -> None:
    """The question in play and the room's answers, fresh every 2 s."""
    view = _view(code)
    if view and view[0] is None:
        st.warning(say("polls.closed"))
    elif view:
        _split(*view)


def running() -> bool:
    """Whether this session runs a class (started here, or its room's page opened with the key)."""
    return _STARTED in st.session_state


@st.fragment(run_every=2)
def in_plan(question: str, ask: str) -> None:
    """Presenter mode, at a step whose ``question`` the phones can answer, in the class this
    session runs: the step's ``ask`` line with buttons to ask it (or again, after a discussion)
    and reveal, and its answers counted every 2 s, their split in a pop-over."""
    code, key = st.session_state[_STARTED]
    _faulted()
    if (view := _view(code)) is None or not view[0]:
        st.markdown(ask)
        return
    now, tally, before = view
    asked = now.question == question
    # The ask line's own row: a step's control and chart must still fit under the bar.
    row = st.container(key="presenter-phones", horizontal=True, vertical_alignment="center")
    row.markdown(ask)
    action, icon = ("again", "replay") if asked else ("ask", "smartphone")
    label = say("polls.vote_again") if asked else say("polls.ask_phones")
    row.button(
        label,
        key="presenter.ask",
        icon=f":material/{icon}:",
        on_click=_lecture,
        args=(code, key, action, question),
    )
    if asked and not now.revealed:
        row.button(
            say("polls.reveal"),
            key="presenter.reveal",
            on_click=_lecture,
            args=(code, key, "reveal", question),
        )
    if asked:
        answers = _answers(sum(tally))
        with row.popover(answers, icon=":material/bar_chart:", key="presenter.answers"):
            st.caption(say("polls.room", code=code))
            _split(now, tally, before)
