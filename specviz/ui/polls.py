"""Ask the room: rooms and answers in a database, and the widgets of the lecturer and students.

The database is Streamlit's SQL connection "polls": a SQLite file in the temp directory unless
``SPECVIZ_POLLS_URL`` or ``[connections.polls] url`` in secrets.toml names another (PostgreSQL for
replicas that share rooms). Parameterised queries only; the app creates its schema and records
its version; rooms and their answers go 24 hours after the room started. Every change a lecturer
makes is one UPDATE that names the room *and* its key's hash, so without the key it changes
nothing.
"""

from __future__ import annotations

import os
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import segno
import streamlit as st
from sqlalchemy import Engine, event, text
from sqlalchemy.exc import IntegrityError

from specviz import classroom
from specviz.classroom import Poll
from specviz.links import KEY, ROOM
from specviz.ui import state

SCHEMA_VERSION = 1
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS polls_schema (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS polls_rooms (code VARCHAR(8) PRIMARY KEY, "
    "key_hash VARCHAR(64) NOT NULL, question VARCHAR(200) NOT NULL, round INTEGER NOT NULL, "
    "revealed INTEGER NOT NULL, created DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS polls_answers (code VARCHAR(8) NOT NULL, round INTEGER NOT NULL, "
    "voter VARCHAR(64) NOT NULL, question VARCHAR(200) NOT NULL, choice INTEGER NOT NULL, "
    "created DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, round, voter))",
)
_FIRST_QUESTION = next(iter(classroom.BANK))
_ready: set[int] = set()
_ready_lock = threading.Lock()


def url() -> str | None:
    """The database's URL when the environment names one; None: secrets.toml's, or the default."""
    return os.environ.get("SPECVIZ_POLLS_URL") or None


def engine() -> Engine:
    """The connection's engine, its schema made on first use."""
    chosen = url()
    if chosen is None and not _in_secrets():
        folder = Path(tempfile.gettempdir()) / "specviz"
        folder.mkdir(exist_ok=True)
        chosen = f"sqlite:///{folder / 'polls.sqlite'}"
    kwargs = {"url": chosen} if chosen else {}
    eng = st.connection("polls", type="sql", **kwargs).engine
    with _ready_lock:
        if id(eng) not in _ready:
            if eng.dialect.name == "sqlite":
                event.listen(eng, "connect", _sqlite_pragmas)
            create_schema(eng)
            _ready.add(id(eng))
    return eng


def _sqlite_pragmas(connection: object, _record: object) -> None:
    # A write-ahead log lets the projector read while answers are written: 100 answers at once
    # took p95 72 ms with it, 150-930 ms without (2 busy cores).
    cursor = connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _in_secrets() -> bool:
    return st.secrets.load_if_toml_exists() and "polls" in st.secrets.get("connections", {})


def create_schema(eng: Engine) -> None:
    """Make the tables if missing and record the schema's version; refuse a newer one."""
    with eng.begin() as db:
        for statement in _SCHEMA:
            db.execute(text(statement))
    try:
        with eng.begin() as db:
            db.execute(text("INSERT INTO polls_schema (id, version) VALUES (1, :v)"),
                       {"v": SCHEMA_VERSION})  # fmt: skip
    except IntegrityError:
        pass  # another server made it first
    with eng.connect() as db:
        version = db.execute(text("SELECT version FROM polls_schema WHERE id = 1")).scalar_one()
    if version > SCHEMA_VERSION:
        raise RuntimeError(f"the polls database has schema {version}; this app knows up to 1")


@dataclass(frozen=True)
class Room:
    code: str
    key_hash: str
    question: str
    round: int
    revealed: bool

    @property
    def poll(self) -> Poll:
        return classroom.poll(self.question)


def purge(eng: Engine) -> None:
    """Delete rooms, and their answers, older than a room's lifetime."""
    old = {"t": time.time() - classroom.ROOM_LIFETIME_S}
    with eng.begin() as db:
        db.execute(text("DELETE FROM polls_answers WHERE code IN "
                        "(SELECT code FROM polls_rooms WHERE created < :t)"), old)  # fmt: skip
        db.execute(text("DELETE FROM polls_answers WHERE created < :t"), old)
        db.execute(text("DELETE FROM polls_rooms WHERE created < :t"), old)


def start_room(eng: Engine, key: str) -> str:
    """A new room run by ``key``, asking the first question; its code."""
    purge(eng)
    for _ in range(5):  # a taken code (one in millions) is drawn again
        code = classroom.new_code()
        try:
            with eng.begin() as db:
                db.execute(
                    text("INSERT INTO polls_rooms (code, key_hash, question, round, revealed, "
                         "created) VALUES (:c, :h, :q, 1, 0, :t)"),
                    {"c": code, "h": classroom.key_hash(key), "q": _FIRST_QUESTION,
                     "t": time.time()},
                )  # fmt: skip
            return code
        except IntegrityError:
            continue
    raise RuntimeError("no free room code")  # pragma: no cover


def room(eng: Engine, code: str) -> Room | None:
    """The live room of ``code``, or None (no such room, or older than a room's lifetime)."""
    with eng.connect() as db:
        row = db.execute(
            text("SELECT code, key_hash, question, round, revealed FROM polls_rooms "
                 "WHERE code = :c AND created >= :t"),
            {"c": code, "t": time.time() - classroom.ROOM_LIFETIME_S},
        ).first()  # fmt: skip
    return Room(row[0], row[1], row[2], int(row[3]), bool(row[4])) if row else None


def _lecturer_update(eng: Engine, code: str, key: str, sql: str, **values: object) -> bool:
    """Run ``UPDATE polls_rooms SET <sql>`` on the room, if ``key`` is its key."""
    with eng.begin() as db:
        done = db.execute(
            text(f"UPDATE polls_rooms SET {sql} WHERE code = :c AND key_hash = :h"),
            {"c": code, "h": classroom.key_hash(key), **values},
        )
    return done.rowcount == 1


def ask(eng: Engine, code: str, key: str, question: str) -> bool:
    """Put ``question`` to the room, in a new round; False if ``key`` is not the room's."""
    classroom.poll(question)  # only a question SpecViz asks
    sql = "question = :q, round = round + 1, revealed = 0"
    return _lecturer_update(eng, code, key, sql, q=question)


def new_round(eng: Engine, code: str, key: str) -> bool:
    """The same question again (after a discussion): a fresh round, hidden answer."""
    return _lecturer_update(eng, code, key, "round = round + 1, revealed = 0")


def reveal(eng: Engine, code: str, key: str) -> bool:
    """Show the room the answer; False if ``key`` is not the room's."""
    return _lecturer_update(eng, code, key, "revealed = 1")


def answer(eng: Engine, code: str, voter: str, round_: int, choice: object) -> None:
    """Record ``voter``'s answer to round ``round_``; ValueError with a plain message (and
    nothing saved) if the room, the round or the choice is not right, or they already answered."""
    now = room(eng, code)
    if now is None:
        raise ValueError("This room is closed or does not exist; nothing was saved.")
    if round_ != now.round:
        raise ValueError("The lecturer has moved on to a new question; answer that one.")
    if now.revealed:
        raise ValueError("The answer has been revealed; wait for the next round.")
    value = classroom.check_choice(now.poll, choice)
    try:
        with eng.begin() as db:
            db.execute(
                text("INSERT INTO polls_answers (code, round, voter, question, choice, created) "
                     "VALUES (:c, :r, :v, :q, :x, :t)"),
                {"c": code, "r": round_, "v": voter, "q": now.question, "x": value,
                 "t": time.time()},
            )  # fmt: skip
    except IntegrityError:
        raise ValueError(
            "You have already answered this round; your first answer counts."
        ) from None


def counts(eng: Engine, code: str, round_: int, question: str) -> tuple[int, ...]:
    """How many answered each option of ``question`` in round ``round_``."""
    with eng.connect() as db:
        rows = db.execute(
            text("SELECT choice, COUNT(*) FROM polls_answers WHERE code = :c AND round = :r "
                 "AND question = :q GROUP BY choice"),
            {"c": code, "r": round_, "q": question},
        ).all()  # fmt: skip
    by_choice = dict(rows)
    return tuple(int(by_choice.get(i, 0)) for i in range(len(classroom.poll(question).options)))


# ----------------------------------------------------------------------------- widgets

_VOTER = "polls.voter"
_ANSWERS = "polls.answers"
_TRIES = "polls.tries"
_STARTED = "polls.started"
_IN = "Your answer is in. Discuss with a neighbour while the room answers."


def join_url(code: str) -> str:
    """The student's link to ``code``'s room (never the key): this server, page Ask the room."""
    here = urlsplit(st.context.url or "")
    path = here.path.rsplit("/", 1)[0] + "/Ask_the_room"
    return urlunsplit((here.scheme, here.netloc, path, urlencode({"room": code}), ""))


def show_join(code: str) -> None:
    """The room's code in large type, its join link and a QR code of it (SVG, drawn here)."""
    link = join_url(code)
    # An <img> of a data URI: Streamlit's sanitiser strips inline <svg>, and an image carries alt.
    qr = segno.make(link, error="m").svg_data_uri(scale=6, dark="#1a1a1a")
    spaced = " ".join(code)
    st.html(
        '<div style="display:flex;gap:2rem;align-items:center;flex-wrap:wrap">'
        f'<img src="{qr}" alt="QR code of the join link for room {spaced}" '
        'style="width:min(14rem,60vw);image-rendering:pixelated">'
        '<div><p style="margin:0">Room code</p>'
        f'<p style="font-size:4rem;font-weight:700;letter-spacing:.3rem;'
        f'margin:0;font-family:monospace">{code}</p></div></div>'
    )
    st.markdown(f"Join at [{link}]({link}) or type the code on the page *Ask the room*.")


def start_class() -> None:
    """For lecturers: the *Start a class* button; a started room's code, link and QR code, and
    the lecturer's own link (with the key) to run it."""
    if st.button("Start a class", icon=":material/groups:", key="polls.start"):
        key = classroom.new_key()
        code = start_room(engine(), key)
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
            label="Run your room: pick the question, watch the answers, reveal",
            icon=":material/co_present:",
            query_params={"room": code, "key": key},
        )
        st.caption(
            "Keep that last link to yourself: it holds your key, which runs the room. "
            "Students need only the code or the join link."
        )


def join_form() -> None:
    """A student without a room: type the code."""
    st.markdown(
        "In class, your lecturer puts a question to the whole room: you answer on your phone, "
        "the projector shows how the room split, you argue with a neighbour and vote again, and "
        "then the answer is revealed. No account, no name: type the room code your lecturer "
        "shows, or scan their QR code."
    )
    typed = st.text_input("Room code", max_chars=20, key="polls.code", placeholder="e.g. K7M2QX")
    if not st.button("Join", icon=":material/login:", key="polls.join"):
        return
    tries = st.session_state.get(_TRIES, 0)
    if tries >= classroom.JOIN_TRIES:
        st.error("Too many room codes tried from this page. Open your lecturer's join link.")
        return
    st.session_state[_TRIES] = tries + 1
    value, notice = ROOM.read({"room": typed or ""})
    if notice or room(engine(), value) is None:
        st.error(
            "There is no open room with that code: it has 6 letters and digits, without "
            "0, O, 1, I or L. Check it with your lecturer."
        )
        return
    state.set_param(ROOM, value)
    st.rerun()


def _bars(question: Poll, tally: tuple[int, ...], revealed: bool, heading: str) -> None:
    note = state.notation()
    total = sum(tally)
    st.markdown(f"**{heading}: {total} answer{'s' if total != 1 else ''}**")
    for i, (option, n) in enumerate(zip(question.options, tally, strict=True)):
        share = n / total if total else 0.0
        right = " ✓ right answer" if revealed and question.answer == i else ""
        st.progress(share, text=f"{chr(65 + i)}. {note.fill(option)} — {n} ({share:.0%}){right}")


def _reveal_text(question: Poll) -> None:
    note = state.notation()
    if question.answer is not None:
        right = question.options[question.answer]
        st.success(f"Answer: {chr(65 + question.answer)}. {note.fill(right)}",
                   icon=":material/check_circle:")  # fmt: skip
    if question.verdict:
        st.info(note.fill(question.verdict), icon=":material/gavel:")
    st.page_link(question.page, label="See why on its page", icon=":material/arrow_forward:",
                 query_params=dict(question.query))  # fmt: skip


def lecturer_view(code: str, key: str, now: Room) -> None:
    """The projector's view: the join box, the question in play, the live answers, the controls."""
    eng = engine()
    left, right = st.columns([2, 3], gap="large")
    with left:
        show_join(code)
        st.caption(
            ":material/key: This page's address holds your key to the room: whoever has it can "
            "ask and reveal. Project in full screen (F11), and share the join link, not this one."
        )
    scenario = state.current()
    keys = list(classroom.BANK)
    if scenario.distributions_ok:
        keys.insert(0, classroom.alpha_key(scenario.p_weights, scenario.q_weights))
    with right:
        chosen = st.selectbox("Question", keys, format_func=lambda k: classroom.poll(k).title,
                              index=keys.index(now.question) if now.question in keys else 0,
                              key="polls.pick")  # fmt: skip
        one, two, three = st.columns(3)
        if one.button("Ask", icon=":material/help:", key="polls.ask"):
            ask(eng, code, key, chosen)
        if two.button("Vote again", icon=":material/replay:", key="polls.again"):
            new_round(eng, code, key)
        if three.button("Reveal", icon=":material/visibility:", key="polls.reveal"):
            reveal(eng, code, key)
        live(code)


@st.fragment(run_every=2)
def live(code: str) -> None:
    """The question in play and the room's answers, fresh every 2 s."""
    eng = engine()
    now = room(eng, code)
    if now is None:
        st.warning("This room has closed (rooms last 24 hours). Start a new class.")
        return
    question = now.poll
    prompt = state.notation().fill(question.prompt)
    st.markdown(f"## Round {now.round}: {question.title}\n\n{prompt}")
    tally = counts(eng, code, now.round, now.question)
    before = counts(eng, code, now.round - 1, now.question) if now.round > 1 else ()
    if sum(before):
        a, b = st.columns(2)
        with a:
            _bars(question, before, now.revealed, "Round before")
        with b:
            _bars(question, tally, now.revealed, "This round")
    else:
        _bars(question, tally, now.revealed, "This round")
    if now.revealed:
        _reveal_text(question)


@st.fragment(run_every=5)
def student_view(code: str) -> None:
    """The question in play; one answer per round; the reveal when the lecturer shows it."""
    eng = engine()
    now = room(eng, code)
    if now is None:
        st.warning("This room has closed or does not exist. Ask your lecturer for the code.")
        return
    question, note = now.poll, state.notation()
    voter = st.session_state.setdefault(_VOTER, secrets.token_urlsafe(16))
    mine = st.session_state.setdefault(_ANSWERS, {})
    st.markdown(f"## {question.title}\n\n{note.fill(question.prompt)}")
    labels = [f"{chr(65 + i)}. {note.fill(o)}" for i, o in enumerate(question.options)]
    mine_now = mine.get((code, now.round))
    if mine_now is not None or now.revealed:
        # Text, not a disabled radio: greyed-out options are too faint to read (axe, 2.5:1).
        st.markdown("\n".join(f"- {label}{' — **your answer**' if i == mine_now else ''}"
                               for i, label in enumerate(labels)))  # fmt: skip
        if mine_now is not None and not now.revealed:
            st.success(_IN)
    else:
        picked = st.radio("Your answer", range(len(labels)), format_func=labels.__getitem__,
                          index=None, key=f"polls.pick.{code}.{now.round}")  # fmt: skip
        if st.button("Send my answer", key=f"polls.send.{now.round}"):
            if picked is None:
                st.warning("Pick an answer first.")
            elif len(mine) >= classroom.ANSWERS_PER_SESSION:
                st.error("This page has sent too many answers; nothing was saved.")
            else:
                try:
                    answer(eng, code, voter, now.round, picked)
                except ValueError as problem:
                    st.error(str(problem))
                else:
                    mine[(code, now.round)] = picked
                    st.success(_IN)
    if now.revealed:
        _reveal_text(question)
