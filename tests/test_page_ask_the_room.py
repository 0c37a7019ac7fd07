"""Ask the room under AppTest, against a real SQLite file: a lecturer starts a class on "For
lecturers", two students join by link or code and answer, the counts are exact; a doubled answer,
an answer outside the options and a student trying to reveal change nothing. Each test runs on a
SQLite file and on a PostgreSQL server the test session starts."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import _skip_or_fail
from helpers import assert_alive, open_page, query
from sqlalchemy import Engine, create_engine, text
from streamlit.testing.v1 import AppTest
from streamlit_server import free_port

from specviz import classroom
from specviz.ui import polls

pytestmark = pytest.mark.slow  # the app under AppTest

ROOM_PAGE = "pages/11_Ask_the_room.py"


PG_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster (Debian's binaries) on a free port; its server URL."""
    if not PG_BIN or importlib.util.find_spec("psycopg") is None:
        _skip_or_fail("no PostgreSQL binaries (apt-get install -y postgresql) or no psycopg")
    # In /tmp itself: pytest's own temp folders are closed to other users.
    folder = Path(tempfile.mkdtemp(prefix="specviz-pg-"))
    # PostgreSQL refuses to run as root: as root, the cluster runs as the postgres user.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    initdb, pg_ctl = (str(PG_BIN[-1] / name) for name in ("initdb", "pg_ctl"))
    run = [*as_user, pg_ctl, "-D", str(data)]
    subprocess.run([*as_user, initdb, "-D", str(data), "-U", "polls", "--auth=trust"],
                   check=True, capture_output=True)  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run([*run, "-o", options, "-w", "-l", str(folder / "log"), "start"],
                   check=True, capture_output=True)  # fmt: skip
    try:
        yield f"postgresql+psycopg://polls@127.0.0.1:{port}"
    finally:
        subprocess.run([*run, "-m", "immediate", "stop"], check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


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
    eng = create_engine(url)
    polls.create_schema(eng)
    return eng


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


def shown_counts(at: AppTest) -> list[str]:
    return [bar.proto.text for bar in at.get("progress")]


def send(at: AppTest, choice: int) -> None:
    at.radio[0].set_value(choice).run()
    (button,) = [b for b in at.button if b.key.startswith("polls.send.")]
    button.click().run()
    assert_alive(at)


def test_a_class_answers_and_the_counts_are_exact(database) -> None:
    code, key, _ = start(database)
    room = polls.room(database, code)
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
    polls.answer(database, code, voter, 1, 1)
    question = polls.room(database, code).question
    with pytest.raises(ValueError, match="already answered"):
        polls.answer(database, code, voter, 1, 0)
    with pytest.raises(ValueError, match="not one of this question's options"):
        polls.answer(database, code, "another", 1, 7)
    with pytest.raises(ValueError, match="not one of this question's options"):
        polls.answer(database, code, "another", 1, True)
    with pytest.raises(ValueError, match="moved on"):
        polls.answer(database, code, "another", 2, 0)
    with pytest.raises(ValueError, match="closed or does not exist"):
        polls.answer(database, "ZZZZZZ", "another", 1, 0)
    assert polls.counts(database, code, 1, question) == (0, 1, 0, 0)

    # The same student in the app: their second click is refused by the database.
    at = student(code)
    at.session_state["polls.voter"] = voter
    send(at, 3)
    assert [e.value for e in at.error] == [
        "You have already answered this round; your first answer counts."
    ]
    assert polls.counts(database, code, 1, question) == (0, 1, 0, 0)


def test_only_the_key_runs_the_room(database) -> None:
    code, key, _ = start(database)
    other = classroom.new_key()
    assert not polls.reveal(database, code, other)
    assert not polls.ask(database, code, other, "claim.leaks")
    assert not polls.new_round(database, code, other)
    room = polls.room(database, code)
    assert (room.round, room.revealed, room.question) == (1, False, "why.alpha")

    # A wrong key in the link: the page says so and shows a student's view.
    at = open_page(ROOM_PAGE, {"room": code, "key": other})
    assert not [b for b in at.button if b.key == "polls.reveal"]
    assert any("does not run this room" in w.value for w in at.warning)

    teacher = lecturer(code, key)
    teacher.selectbox(key="polls.pick").set_value("claim.leaks").run()
    teacher.button(key="polls.ask").click().run()
    room = polls.room(database, code)
    assert (room.round, room.question) == (2, "claim.leaks")
    teacher.button(key="polls.again").click().run()
    assert polls.room(database, code).round == 3


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
    for _ in range(classroom.JOIN_TRIES):
        at.text_input(key="polls.code").input("ABCDEF").run()
        at.button(key="polls.join").click().run()
    at.button(key="polls.join").click().run()
    assert next(e.value for e in at.error).startswith("Too many room codes")


def test_old_rooms_and_answers_are_deleted(database) -> None:
    code, _, _ = start(database)
    polls.answer(database, code, "v", 1, 0)
    with database.begin() as db:
        db.execute(text("UPDATE polls_rooms SET created = created - :s"),
                   {"s": classroom.ROOM_LIFETIME_S + 1})  # fmt: skip
    assert polls.room(database, code) is None
    polls.purge(database)
    with database.connect() as db:
        assert db.execute(text("SELECT COUNT(*) FROM polls_answers")).scalar_one() == 0
        assert db.execute(text("SELECT COUNT(*) FROM polls_rooms")).scalar_one() == 0
        assert db.execute(text("SELECT version FROM polls_schema")).scalar_one() == 1


def test_a_second_round_shows_beside_the_first(database) -> None:
    code, key, _ = start(database)
    for i, choice in enumerate((0, 0, 2)):
        polls.answer(database, code, f"v{i}", 1, choice)
    assert polls.new_round(database, code, key)
    polls.answer(database, code, "v0", 2, 2)  # the same student, after the discussion
    teacher = lecturer(code, key)
    text_shown = " ".join(m.value for m in teacher.markdown)
    assert "Round before: 3 answers" in text_shown and "This round: 1 answer" in text_shown
    assert [b.split(" — ")[1] for b in shown_counts(teacher)] == [
        "2 (67%)", "0 (0%)", "1 (33%)", "0 (0%)", "0 (0%)", "0 (0%)", "1 (100%)", "0 (0%)"
    ]  # fmt: skip


def test_answers_are_limited_per_session(database) -> None:
    code, _, _ = start(database)
    at = student(code)
    at.session_state["polls.answers"] = {
        ("OTHER1", r): 0 for r in range(classroom.ANSWERS_PER_SESSION)
    }
    send(at, 1)
    assert [e.value for e in at.error] == [
        "This page has sent too many answers; nothing was saved."
    ]
    assert polls.counts(database, code, 1, "why.alpha") == (0, 0, 0, 0)
