"""Ask the room under AppTest, against a real SQLite file: a lecturer starts a class on "For
lecturers", two students join by link or code and answer, the counts are exact; a doubled answer,
an answer outside the options and a student trying to reveal change nothing; wrong room codes are
limited per session and per address. Each test runs on a SQLite file and on a PostgreSQL server
the test module starts (deploy/replicas.py's cluster, as replicas use it); and two replicas behind
nginx share one PostgreSQL and see each student's own address."""

from __future__ import annotations

import asyncio
import importlib.util
import secrets
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import streamlit as st
import websockets
from conftest import _skip_or_fail
from helpers import assert_alive, open_page, query, share_link
from sqlalchemy import Engine, create_engine, text
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.testing.v1 import AppTest

from deploy.replicas import PG_BIN, Replicas, find_nginx, free_port, postgres_cluster
from specviz import classroom, rooms
from specviz.lesson_plan import PLAN
from specviz.limits import (
    ANSWERS_PER_SESSION,
    JOIN_MISSES_PER_ADDRESS,
    JOIN_TRIES,
    JOIN_WINDOW_S,
    ROOM_LIFETIME_S,
)
from specviz.ui import polls

pytestmark = pytest.mark.slow  # the app under AppTest

ROOM_PAGE = "pages/11_Ask_the_room.py"


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster (Debian's programs) on a free port; its server URL."""
    if not PG_BIN or importlib.util.find_spec("psycopg") is None:
        _skip_or_fail("no PostgreSQL binaries (apt-get install -y postgresql) or no psycopg")
    with postgres_cluster(durable=False) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path, monkeypatch) -> Engine:
    """A fresh database for the app (its URL from the environment): a SQLite file, or a new
    database on the test session's PostgreSQL server — the same code for both."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'polls.sqlite'}"
    else:
        server = request.getfixturevalue("postgres")
        name = f"t{uuid.uuid4().hex}"
        admin = create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
        with admin.connect() as db:
            db.execute(text(f"CREATE DATABASE {name}"))
        admin.dispose()
        url = f"{server}/{name}"
    monkeypatch.setenv("SPECVIZ_POLLS_URL", url)
    return rooms.connect(url)


def start(database) -> tuple[str, str, AppTest]:
    """A lecturer clicks *Start a class*: the room's code and key, and their session."""
    at = open_page("pages/10_For_lecturers.py")
    at.button(key="polls.start").click().run()
    assert_alive(at)
    code, key = at.session_state["polls.started"]
    run = [link.proto for link in at.main.get("page_link") if link.proto.page == "Ask_the_room"]
    assert [link.query_string for link in run] == [f"room={code}&key={key}"]
    assert "key" not in query(at)  # the guide's own link never carries it
    joins = [m.value for m in at.main.markdown if "Join at" in m.value]
    assert len(joins) == 1 and f"room={code}" in joins[0] and key not in joins[0]
    qr = [h.proto.body for h in at.main.get("html") if "data:image/svg+xml" in h.proto.body]
    assert len(qr) == 1 and f'alt="QR code of the join link for room {" ".join(code)}"' in qr[0]
    return code, key, at


def lecturer(code: str, key: str) -> AppTest:
    at = open_page(ROOM_PAGE, {"room": code, "key": key})
    assert at.button(key="polls.reveal")  # the lecturer's controls
    return at


def student(code: str) -> AppTest:
    at = open_page(ROOM_PAGE, {"room": code})
    assert not [b for b in at.button if b.key in ("polls.reveal", "polls.ask")]
    assert "key" not in query(at)
    return at


IN = "Your answer is in. Discuss with a neighbour while the room answers."


def shown_counts(at: AppTest) -> list[str]:
    return [bar.proto.text for bar in at.get("progress")]


def send(at: AppTest, choice: int | None = None) -> None:
    if choice is not None:
        at.radio[0].set_value(choice).run()
    (button,) = [b for b in at.button if b.key.startswith("polls.send.")]
    button.click().run()
    assert_alive(at)


def test_a_class_answers_and_the_counts_are_exact(database) -> None:
    code, key, _ = start(database)
    room = rooms.room(database, code)
    assert room is not None and room.round == 1 and not room.revealed
    assert classroom.opens(key, room.key_hash) and key not in room.key_hash

    first, second = student(code), student(code)
    send(first, 2)
    assert next(s.value for s in first.success).startswith("Your answer is in")
    send(second, 0)
    with database.connect() as db:
        rows = db.execute(text("SELECT round, choice FROM polls_answers ORDER BY choice")).all()
    assert rows == [(1, 0), (1, 2)]

    teacher = lecturer(code, key)
    assert "2 answers" in " ".join(m.value for m in teacher.markdown)
    bars = shown_counts(teacher)
    assert [b.split(" — ")[1] for b in bars] == ["1 (50%)", "0 (0%)", "1 (50%)", "0 (0%)"]
    assert not any("right answer" in b for b in bars)

    teacher.button(key="polls.reveal").click().run()
    answer = classroom.poll(room.question).answer
    assert sum("right answer" in b for b in shown_counts(teacher)) == 1
    assert "right answer" in shown_counts(teacher)[answer]
    links = [link.proto.page for link in teacher.main.get("page_link")]
    assert "Why_its_exact" in links
    first.run()  # the student's page shows the reveal too
    assert [s.value for s in first.success if s.value.startswith("Answer:")]


def test_a_doubled_or_foreign_answer_changes_nothing(database) -> None:
    code, _, _ = start(database)
    voter = "one-voter"
    rooms.answer(database, code, voter, 1, 1)
    question = rooms.room(database, code).question
    with pytest.raises(ValueError, match="already answered"):
        rooms.answer(database, code, voter, 1, 0)
    with pytest.raises(ValueError, match="not one of this question's options"):
        rooms.answer(database, code, "another", 1, 7)
    with pytest.raises(ValueError, match="not one of this question's options"):
        rooms.answer(database, code, "another", 1, True)
    with pytest.raises(ValueError, match="moved on"):
        rooms.answer(database, code, "another", 2, 0)
    with pytest.raises(ValueError, match="closed or does not exist"):
        rooms.answer(database, "ZZZZZZ", "another", 1, 0)
    assert rooms.counts(database, code, 1, question) == (0, 1, 0, 0)

    # The voter's link in another tab (a neighbour it was sent to): their answer, no second vote.
    voter = secrets.token_urlsafe(16)
    rooms.answer(database, code, voter, 1, 1)
    at = open_page(ROOM_PAGE, {"room": code, "voter": voter})
    assert not at.radio and [s.value for s in at.success] == [IN]
    assert rooms.counts(database, code, 1, question) == (0, 2, 0, 0)


def test_a_new_session_of_the_same_tab_is_the_same_voter(database) -> None:
    """The voter travels in the student's link: a tab whose server died after saving its click
    (or a reload) opens a new session at that address, which finds the answer in the database,
    says so and offers no second vote — and so does a neighbour opening that link."""
    code, _, _ = start(database)
    tab = student(code)
    tab.radio[0].set_value(2).run()
    # The click reached a replica that saved it and died before replying.
    rooms.answer(database, code, query(tab)["voter"], 1, 2)
    for again in (open_page(ROOM_PAGE, query(tab)), open_page(ROOM_PAGE, query(tab))):
        assert not again.radio and [s.value for s in again.success] == [IN]
        assert "C. " in next(m.value for m in again.markdown if "your answer" in m.value)
        assert query(again)["voter"] == query(tab)["voter"]
        assert "voter=" not in share_link(again)  # the link to pass on has none
    other = student(code)  # by the join link: a voter of their own
    assert query(other)["voter"] != query(tab)["voter"]
    send(other, 0)
    assert rooms.counts(database, code, 1, "why.alpha") == (1, 0, 1, 0)


def test_a_link_with_a_malformed_voter_gets_a_new_one_and_a_notice(database) -> None:
    code, _, _ = start(database)
    at = open_page(ROOM_PAGE, {"room": code, "voter": "<b>x</b>"})
    assert any("'voter' is not a voter's id" in w.value for w in at.warning)
    assert len(query(at)["voter"]) == 22 and at.radio


@pytest.fixture
def dead_url(database, tmp_path) -> str:
    """A URL of the same kind as ``database``'s whose database does not answer."""
    if database.dialect.name == "sqlite":
        return f"sqlite:///{tmp_path / 'no such folder' / 'polls.sqlite'}"
    return f"postgresql+psycopg://polls@127.0.0.1:{free_port()}/polls"


def test_a_database_fault_shows_a_message_never_a_traceback(
    database, dead_url, monkeypatch
) -> None:
    """While the database does not answer (PostgreSQL restarting): a click is tried twice, then
    refused in plain words and not saved; the refreshes keep their last view and say the room
    is reconnecting; a page opened then says to reload. Once it is back, the click goes through."""
    code, key, _ = start(database)
    monkeypatch.setattr(polls, "_PAUSE_S", 0)
    tab, projector = student(code), lecturer(code, key)
    send(student(code), 1)
    tab.radio[0].set_value(2).run()
    projector.run()
    bars = shown_counts(projector)
    url = database.url.render_as_string(hide_password=False)
    found = {code: rooms.room(database, code)}
    monkeypatch.setattr(polls, "find", found.get)  # the pages' room, found before the fault
    monkeypatch.setenv("SPECVIZ_POLLS_URL", dead_url)
    reconnecting = "The room is reconnecting; this view is from a moment ago."
    send(tab)
    assert [e.value for e in tab.error] == [polls._UNSAVED] and not tab.success
    assert any(reconnecting in c.value for c in tab.caption) and tab.radio[0].value == 2
    projector.run()
    assert_alive(projector)
    assert any(reconnecting in c.value for c in projector.caption)
    assert shown_counts(projector) == bars
    projector.button(key="polls.reveal").click().run()
    assert_alive(projector)
    assert [e.value for e in projector.error] == [
        "Not done: the room's database is not answering. Press again in a moment."
    ]
    monkeypatch.undo()  # the page finds its room in the database again, or says it cannot
    monkeypatch.setattr(polls, "_PAUSE_S", 0)
    monkeypatch.setenv("SPECVIZ_POLLS_URL", dead_url)
    opened = open_page(ROOM_PAGE, {"room": code})
    assert opened.warning[0].value.startswith("The room's database is not answering")
    lecturers = open_page("pages/10_For_lecturers.py")
    lecturers.button(key="polls.start").click().run()
    assert_alive(lecturers)
    assert lecturers.error[0].value.startswith("The class could not be started just now")

    monkeypatch.setenv("SPECVIZ_POLLS_URL", url)
    send(tab)
    assert [s.value for s in tab.success] == [IN] and not tab.error
    assert rooms.counts(database, code, 1, "why.alpha") == (0, 1, 1, 0)
    monkeypatch.setattr(polls, "find", found.get)
    monkeypatch.setenv("SPECVIZ_POLLS_URL", dead_url)
    tab.run()  # a refresh failed right after the answer went in: it is shown in, not offered
    assert not tab.radio and [s.value for s in tab.success] == [IN]


def test_only_the_key_runs_the_room(database) -> None:
    code, key, _ = start(database)
    other = classroom.new_key()
    assert not rooms.lecture(database, code, other, "reveal")
    assert not rooms.lecture(database, code, other, "ask", "claim.leaks")
    assert not rooms.lecture(database, code, other, "again")
    room = rooms.room(database, code)
    assert (room.round, room.revealed, room.question) == (1, False, "why.alpha")

    # A wrong key in the link: the page says so and shows a student's view.
    at = open_page(ROOM_PAGE, {"room": code, "key": other})
    assert not [b for b in at.button if b.key == "polls.reveal"]
    assert any("does not run this room" in w.value for w in at.warning)

    teacher = lecturer(code, key)
    # The key stays in the lecturer's address bar, never in the sidebar's link to share.
    assert f"room={code}" in share_link(teacher)
    assert key not in share_link(teacher)
    teacher.selectbox(key="polls.pick").set_value("claim.leaks").run()
    teacher.button(key="polls.ask").click().run()
    room = rooms.room(database, code)
    assert (room.round, room.question) == (2, "claim.leaks")
    teacher.button(key="polls.again").click().run()
    assert rooms.room(database, code).round == 3


def test_a_student_joins_by_code_and_bad_codes_are_refused(database) -> None:
    code, _, _ = start(database)
    at = open_page(ROOM_PAGE)
    at.text_input(key="polls.code").input("0OIL11").run()
    at.button(key="polls.join").click().run()
    assert next(e.value for e in at.error).startswith("There is no open room with that code")
    at.text_input(key="polls.code").input(f"{code[:3].lower()}-{code[3:]}").run()
    at.button(key="polls.join").click().run()
    assert_alive(at)
    assert query(at)["room"] == code and at.radio


def test_joins_are_limited_per_session(database) -> None:
    start(database)
    at = open_page(ROOM_PAGE)
    for _ in range(JOIN_TRIES):
        at.text_input(key="polls.code").input("ABCDEF").run()
        at.button(key="polls.join").click().run()
    at.button(key="polls.join").click().run()
    assert next(e.value for e in at.error).startswith("Too many room codes")


def test_old_rooms_and_answers_are_deleted(database) -> None:
    code, _, _ = start(database)
    rooms.answer(database, code, "v", 1, 0)
    with database.begin() as db:
        db.execute(text("UPDATE polls_rooms SET created = created - :s"),
                   {"s": ROOM_LIFETIME_S + 1})  # fmt: skip
    assert rooms.room(database, code) is None
    rooms.purge(database)
    with database.connect() as db:
        assert db.execute(text("SELECT COUNT(*) FROM polls_answers")).scalar_one() == 0
        assert db.execute(text("SELECT COUNT(*) FROM polls_rooms")).scalar_one() == 0
        assert db.execute(text("SELECT version FROM polls_schema")).scalar_one() == 2


def test_a_second_round_shows_beside_the_first(database) -> None:
    code, key, _ = start(database)
    for i, choice in enumerate((0, 0, 2)):
        rooms.answer(database, code, f"v{i}", 1, choice)
    assert rooms.lecture(database, code, key, "again")
    rooms.answer(database, code, "v0", 2, 2)  # the same student, after the discussion
    teacher = lecturer(code, key)
    text_shown = " ".join(m.value for m in teacher.markdown)
    assert "Round before: 3 answers" in text_shown and "This round: 1 answer" in text_shown
    assert [b.split(" — ")[1] for b in shown_counts(teacher)] == [
        "2 (67%)", "0 (0%)", "1 (33%)", "0 (0%)", "0 (0%)", "0 (0%)", "1 (100%)", "0 (0%)"
    ]  # fmt: skip


def presenting(at: AppTest, number: int) -> AppTest:
    """The lecturer's session opens step ``number`` of the plan, as its bar's links do."""
    step = PLAN[number - 1]
    at.query_params.clear()
    at.query_params.update(dict(step.query) | {"step": str(number)})
    at.switch_page(step.script).run()
    assert_alive(at)
    return at


def test_presenter_mode_asks_the_phones_counts_and_reveals(database) -> None:
    """At a step whose question the phones can answer, the session that runs the class asks it,
    sees the answers counted and split, opens a second round and reveals, all from the bar."""
    number = next(n for n, step in enumerate(PLAN, start=1) if step.poll == "claim.speed")
    code, key, at = start(database)
    presenting(at, number - 1)  # a step without a question for the phones: no button
    assert not PLAN[number - 2].poll and not [b for b in at.button if b.key == "presenter.ask"]
    presenting(at, number)
    assert at.button(key="presenter.ask").label == "Ask the phones"
    assert not [b for b in at.button if b.key == "presenter.reveal"]
    at.button(key="presenter.ask").click().run()
    room = rooms.room(database, code)
    assert (room.question, room.round, room.revealed) == ("claim.speed", 2, False)
    send(student(code), 1)
    at.run()
    assert at.button(key="presenter.ask").label == "Vote again"
    assert [p.proto.popover.label for p in at.main.get("popover")] == ["1 answer"]
    assert key not in str(query(at))
    assert [b.split(" — ")[1] for b in shown_counts(at)] == ["0 (0%)", "1 (100%)"]
    at.button(key="presenter.ask").click().run()  # after the neighbours argued
    send(student(code), 0)
    at.run()
    before, now = ["0 (0%)", "1 (100%)"], ["1 (100%)", "0 (0%)"]
    assert [b.split(" — ")[1] for b in shown_counts(at)] == before + now  # side by side
    at.button(key="presenter.reveal").click().run()
    assert rooms.room(database, code).revealed
    assert not [b for b in at.button if b.key == "presenter.reveal"]
    assert [i.value for i in at.info if i.value == classroom.poll("claim.speed").verdict]
    assert "key" not in query(at)
    student_only = open_page(PLAN[number - 1].script, dict(PLAN[number - 1].query) | {
        "step": str(number), "room": code})  # fmt: skip
    assert not [b for b in student_only.button if b.key == "presenter.ask"]


def test_answers_are_limited_per_session(database) -> None:
    code, _, _ = start(database)
    at = student(code)
    at.session_state["polls.sent"] = ANSWERS_PER_SESSION
    send(at, 1)
    assert [e.value for e in at.error] == [
        "This page has sent too many answers; nothing was saved."
    ]
    assert rooms.counts(database, code, 1, "why.alpha") == (0, 0, 0, 0)


def test_wrong_codes_are_limited_per_address(database) -> None:
    code, _, _ = start(database)
    wrong = "ABCDEF" if code != "ABCDEF" else "ABCDEG"
    here, there = "203.0.113.7", "198.51.100.2"
    for _ in range(JOIN_MISSES_PER_ADDRESS):
        assert rooms.room(database, wrong, here) is None
    # The right code too: a refusal of wrong codes alone would tell a guesser the right one.
    with pytest.raises(ValueError, match="Too many wrong room codes came from your network"):
        rooms.room(database, code, here)
    assert rooms.room(database, code, there).code == code  # another address
    assert rooms.room(database, code).code == code  # a session already in the room
    with database.begin() as db:
        db.execute(text("UPDATE polls_misses SET created = created - :s"),
                   {"s": JOIN_WINDOW_S + 1})  # fmt: skip
    assert rooms.room(database, code, here).code == code  # after the window
    rooms.purge(database)
    with database.connect() as db:
        assert db.execute(text("SELECT COUNT(*) FROM polls_misses")).scalar_one() == 0


def test_a_guesser_opening_new_tabs_is_refused_by_address(database, monkeypatch) -> None:
    """Ten wrong codes from one address over several sessions, each under its own limit: the
    page refuses that address any code, the right one too, typed or by link, in plain words;
    another address, and a student already in the room, go on."""
    code, _, _ = start(database)
    monkeypatch.setattr(rooms, "JOIN_MISSES_PER_ADDRESS", 10)
    address = "203.0.113.7"
    monkeypatch.setattr(type(st.context), "ip_address", property(lambda _: address))
    inside = student(code)
    wrong = "ABCDEF" if code != "ABCDEF" else "ABCDEG"
    for typed in (["0OIL11", wrong, wrong, wrong], [wrong] * 3, [wrong] * 3):  # three new tabs
        at = open_page(ROOM_PAGE)
        for value in typed:
            at.text_input(key="polls.code").input(value).run()
            at.button(key="polls.join").click().run()
            assert next(e.value for e in at.error).startswith("There is no open room")
    by_link = open_page(ROOM_PAGE, {"room": wrong})  # the tenth
    assert by_link.error and "room" not in query(by_link) and not by_link.radio
    with database.connect() as db:  # a malformed code names no room: it is not counted
        assert db.execute(text("SELECT COUNT(*) FROM polls_misses")).scalar_one() == 10

    at = open_page(ROOM_PAGE)
    at.text_input(key="polls.code").input(code).run()
    at.button(key="polls.join").click().run()
    assert [e.value for e in at.error] == [rooms.REFUSED] and not at.radio
    by_link = open_page(ROOM_PAGE, {"room": code})
    assert [e.value for e in by_link.error] == [rooms.REFUSED] and not by_link.radio

    inside.run()
    assert inside.radio and not inside.error
    address = "198.51.100.2"
    assert student(code).radio


def test_an_older_schema_is_brought_up_to_date_and_a_newer_refused(database) -> None:
    with database.begin() as db:
        db.execute(text("DROP TABLE polls_misses"))
        db.execute(text("UPDATE polls_schema SET version = 1"))
    rooms.create_schema(database)
    with database.begin() as db:
        assert db.execute(text("SELECT version FROM polls_schema")).scalar_one() == 2
        assert db.execute(text("SELECT COUNT(*) FROM polls_misses")).scalar_one() == 0
        db.execute(text("UPDATE polls_schema SET version = 3"))
    with pytest.raises(RuntimeError, match="newer than this app"):
        rooms.create_schema(database)


async def _tab(url: str, query: str, source: str) -> list[str]:
    """What Ask the room shows (messages, the answer's radio) to a tab at ``source``, a loopback
    address of its own, opening the page at ``url`` with ``query``: Streamlit's protocol."""
    ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
    async with websockets.connect(ws_url, subprotocols=["streamlit"], local_addr=(source, 0)) as ws:
        msg = BackMsg()
        msg.rerun_script.page_name, msg.rerun_script.query_string = "Ask_the_room", query
        msg.rerun_script.context_info.url = f"{url}/Ask_the_room"
        await ws.send(msg.SerializeToString())
        shown, done = [], ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY
        while True:
            reply = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), 60))
            element = reply.delta.new_element
            if element.WhichOneof("type") in ("alert", "radio", "exception"):
                shown.append(element.alert.body or element.radio.label or str(element.exception))
            if reply.WhichOneof("type") == "script_finished" and reply.script_finished == done:
                return shown


@pytest.mark.xdist_group("replicas")  # one nginx class at a time
def test_replicas_share_one_room_store_and_know_each_students_address() -> None:
    """deploy/replicas.py with PostgreSQL: wrong codes from a tab at 127.0.0.2 are counted under
    that address (nginx's X-Forwarded-For, which Streamlit's server believes from 127.0.0.1) in
    the one database, whichever replica served them; at the limit that address is refused the
    right code too, and a tab at 127.0.0.3 opens the room."""
    if find_nginx() is None or not PG_BIN:
        _skip_or_fail("no nginx or PostgreSQL (apt-get install -y nginx postgresql)")
    with Replicas(count=2, postgres=True, pin=False) as replicas, ThreadPoolExecutor(1) as pool:
        # A thread of its own: the browser tests' Playwright may run an event loop in this one.
        def tab(query: str, source: str) -> list[str]:
            return pool.submit(asyncio.run, _tab(replicas.url, query, source)).result()

        eng = rooms.connect(replicas.polls_url)
        code = rooms.start_room(eng, classroom.new_key())
        wrong, guesser = "ABCDEF" if code != "ABCDEF" else "ABCDEG", "127.0.0.2"
        for _ in range(4):  # round robin: two on each replica
            assert tab(f"room={wrong}", guesser)[0].startswith("There is no open room")
        with eng.begin() as db:
            misses = db.execute(text("SELECT address, COUNT(*) FROM polls_misses GROUP BY address"))
            assert dict(misses.all()) == {classroom.key_hash(guesser): 4}
            db.execute(text("INSERT INTO polls_misses (address, created) VALUES (:a, :t)"),
                       [{"a": classroom.key_hash(guesser), "t": time.time()}]
                       * (JOIN_MISSES_PER_ADDRESS - 4))  # fmt: skip
        assert tab(f"room={code}", guesser) == [rooms.REFUSED]
        assert tab(f"room={code}", "127.0.0.3") == ["Your answer"]
        eng.dispose()


def test_the_address_is_the_one_the_nearest_proxy_saw(database, monkeypatch) -> None:
    """Behind a proxy Streamlit's server does not believe (a private address), a miss counts
    against the last X-Forwarded-For, what that proxy saw; a public peer's own address counts,
    whatever it claims; with no address at all (this machine) a miss counts against no one."""
    start(database)
    seen: dict = {}
    monkeypatch.setattr(type(st.context), "ip_address", property(lambda _: seen["ip"]))
    monkeypatch.setattr(type(st.context), "headers", property(lambda _: seen))
    claimed = "198.51.100.66, 203.0.113.9"
    for ip, forwarded in (("10.0.0.5", claimed), ("8.8.8.8", claimed), (None, "")):
        seen.update({"ip": ip, "X-Forwarded-For": forwarded})
        open_page(ROOM_PAGE, {"room": "ABCDEF"})
    with database.connect() as db:
        misses = db.execute(text("SELECT address, COUNT(*) FROM polls_misses GROUP BY address"))
        assert dict(misses.all()) == {classroom.key_hash(a): 1 for a in ("203.0.113.9", "8.8.8.8")}
