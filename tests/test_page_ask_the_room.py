"""Ask the room against a real SQLite file: a lecturer starts a class on "For lecturers" and runs
it (AppTest), students join on the phone page by link or code and answer (its routes under
Starlette's TestClient), the counts are exact; a doubled answer, an answer outside the options
and a student trying to reveal change nothing; wrong room codes are limited per phone and per
address; a waiting phone is woken when the room moves on, and costs one read a second per room.
Each test runs on a SQLite file and on a PostgreSQL server
the test module starts (deploy/replicas.py's cluster, as replicas use it); and two replicas behind
nginx share one PostgreSQL and see each student's own address."""

from __future__ import annotations

import importlib.util
import json
import re
import secrets
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.client import HTTPConnection
from urllib.parse import urlsplit

import pytest
from conftest import _skip_or_fail
from helpers import assert_alive, open_page, query, share_link
from sqlalchemy import Engine, create_engine, text
from starlette.applications import Starlette
from starlette.testclient import TestClient
from streamlit.testing.v1 import AppTest
from test_languages import CODE, ENGLISH, KEPT

from deploy.replicas import PG_BIN, Replicas, find_nginx, free_port, postgres_cluster
from specviz import classroom, rooms
from specviz.lesson_plan import PLAN
from specviz.limits import (
    JOIN_MISSES_PER_ADDRESS,
    JOIN_TRIES,
    JOIN_WINDOW_S,
    ROOM_LIFETIME_S,
)
from specviz.palette import Notation
from specviz.text import LANGUAGES, language, say
from specviz.ui import phones, polls

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


def app() -> Starlette:
    return Starlette(routes=phones.routes())


class Phone:
    """A student's phone on the room's page (its JSON routes), at ``address``, with a voter id
    of its own (kept in the phone's storage: a reload is the same voter)."""

    def __init__(
        self,
        code: str,
        address: str = "203.0.113.50",
        client: TestClient | None = None,
        **headers: str,
    ) -> None:
        self.code, self.voter, self.pass_ = code, secrets.token_urlsafe(16), ""
        self.client = client or TestClient(app(), client=(address, 50000), headers=headers)

    def open(self, **query: str) -> tuple[int, dict]:
        """The first request of the page: the room with this voter's answer, or why not."""
        got = self.client.get(f"/api/room/{self.code}", params={"voter": self.voter} | query)
        assert got.headers["content-type"] == "application/json"
        self.pass_ = got.json().get("pass", self.pass_)
        return got.status_code, got.json()

    def send(self, choice: object, round_: object = 1, **query: str) -> tuple[int, dict]:
        body = {"round": round_, "choice": choice}
        got = self.client.post(
            f"/api/room/{self.code}/answer", params={"voter": self.voter} | query, json=body
        )
        return got.status_code, got.json()

    def wait(self, round_: int, revealed: bool, **query: str) -> dict:
        """A waiting phone's request: answered when the room is no longer at ``round_``."""
        got = self.client.get(
            f"/api/room/{self.code}",
            params={
                "voter": self.voter,
                "pass": self.pass_,
                "round": round_,
                "revealed": int(revealed),
            }
            | query,
        )
        assert got.status_code == 200
        return got.json()


def shown_counts(at: AppTest) -> list[str]:
    return [bar.proto.text for bar in at.get("progress")]


def phone(code: str, **kwargs) -> Phone:
    one = Phone(code, **kwargs)
    status, seen = one.open()
    assert status == 200 and seen["round"] >= 1 and "answer" not in seen, seen
    return one


def send(one: Phone, choice: int) -> None:
    assert one.send(choice, one.open()[1]["round"]) == (200, {"answered": choice})


def test_a_class_answers_and_the_counts_are_exact(database) -> None:
    code, key, _ = start(database)
    room = rooms.room(database, code)
    assert room is not None and room.round == 1 and not room.revealed
    assert classroom.opens(key, room.key_hash) and key not in room.key_hash

    first, second = phone(code), phone(code)
    assert first.open()[1] == {
        "round": 1,
        "revealed": False,
        "answered": None,
        "pass": phones.voter_pass(room.key_hash, first.voter),
        "title": classroom.poll(room.question).title,
        "prompt": Notation().fill(classroom.poll(room.question).prompt),
        "options": list(classroom.poll(room.question).options),
    }
    send(first, 2)
    send(second, 0)
    with database.connect() as db:
        rows = db.execute(text("SELECT round, choice FROM polls_answers ORDER BY choice")).all()
    assert rows == [(1, 0), (1, 2)]
    assert first.open()[1]["answered"] == 2  # a reload: the same voter, its answer shown

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
    shown = first.wait(1, False)  # the phone's page shows the reveal too, and where to see why
    assert (shown["revealed"], shown["answer"], shown["why"]) == (True, answer, "Why_its_exact")


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

    # The same through the phone's page: each refused in plain words, nothing saved.
    one = phone(code)
    send(one, 1)
    for choice, round_, words in (
        (0, 1, "already answered"),
        (7, 1, "not one of"),
        ("1", 1, "not one of"),
        (None, 1, "not one of"),
        (0, 2, "moved on"),
        (0, "1", "not one of"),
    ):
        status, said = (
            phone(code).send(choice, round_)
            if words != "already answered"
            else one.send(choice, round_)
        )
        assert status == 409 and words in said["error"], said
    assert rooms.counts(database, code, 1, question) == (0, 2, 0, 0)
    for body in (b"", b"[1, 2]", b"{", b"\xff" * 50, b'{"round": 1e999, "choice": 0}'):
        got = one.client.post(f"/api/room/{code}/answer", params={"voter": one.voter}, content=body)
        assert got.status_code == 409 and "nothing was saved" in got.json()["error"]
    # A student's phone cannot reveal: the page has no such request, and no route takes one.
    assert one.client.post(f"/api/room/{code}/reveal").status_code in (404, 405)
    assert rooms.counts(database, code, 1, question) == (0, 2, 0, 0)


def test_a_waiting_phone_is_woken_when_the_room_moves_on(database) -> None:
    """A phone holds one request while the room stays as it saw it; the lecturer asks again,
    reveals, asks a new question: each wakes it with the room as it is now."""
    code, key, _ = start(database)
    one = phone(code)
    with ThreadPoolExecutor(1) as pool:
        for action, question in (("again", ""), ("reveal", ""), ("ask", "claim.leaks")):
            before = one.open()[1]
            waiting = pool.submit(one.wait, before["round"], before["revealed"])
            time.sleep(0.2)  # the request is waiting (were it not yet, it sees the change anyway)
            assert rooms.lecture(database, code, key, action, question)
            after = waiting.result(timeout=phones.WAIT_S + 5)
            assert (after["round"], after["revealed"]) != (before["round"], before["revealed"])
            assert after == {
                k: v for k, v in one.open()[1].items() if k not in ("answered", "pass")
            }
    assert after["title"] == classroom.poll("claim.leaks").title and not after["revealed"]


def test_waiting_phones_cost_one_read_a_second_per_room(database, monkeypatch) -> None:
    """Twenty phones waiting on one room for ~3 s: the room is read at most once a second (plus
    the first read), not once per phone; the room closing wakes them all."""
    code, _, _ = start(database)
    # One client, one event loop, as a server has (a client of its own starts one per request).
    shared = TestClient(app(), client=("203.0.113.50", 50000)).__enter__()
    class_ = [phone(code, client=shared) for _ in range(20)]
    reads = []
    real = rooms.room
    monkeypatch.setattr(rooms, "room", lambda *a, **k: reads.append(1) or real(*a, **k))
    monkeypatch.setattr(phones, "WAIT_S", 3.0)
    started = time.perf_counter()
    with ThreadPoolExecutor(len(class_)) as pool:
        seen = list(pool.map(lambda one: one.wait(1, False), class_))
    waited = time.perf_counter() - started
    assert all(s["round"] == 1 for s in seen)
    assert len(reads) <= waited / phones.READ_S + 2, (len(reads), waited)
    phones._BY_LOOP.clear()  # another server (nothing kept) takes the pass the first one gave
    assert class_[1].wait(1, False)["round"] == 1
    with database.begin() as db:
        db.execute(text("DELETE FROM polls_rooms"))
    assert class_[0].wait(1, False) == {"closed": True}
    # A phone that did not look the room up here (another replica's, or a guesser) is sent to
    # look it up, where wrong codes count: waiting tells nothing about a code.
    assert Phone(code, client=shared).wait(1, False) == {"rejoin": True}
    assert Phone("ABCDEF", client=shared).wait(1, False) == {"rejoin": True}
    forged = Phone(code, client=shared)
    forged.pass_ = class_[0].pass_  # another voter's pass
    assert forged.wait(1, False) == {"rejoin": True}
    shared.__exit__(None, None, None)


def test_the_phone_page_is_small_and_bad_requests_get_plain_words(database) -> None:
    code, _, _ = start(database)
    one = Phone(code)
    page = one.client.get("/join", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "public, max-age=3600"
    for lang in LANGUAGES:  # the whole first visit, in any language: no other file
        assert len(phones.pages(lang)[0]) < 30_000
    assert '<html lang="en">' in page.text and "<script src" not in page.text
    assert "<link " not in page.text and "http" not in page.text.split("<script>")[1]
    for given, words in (
        ({"voter": "<b>x</b>"}, "no voter's id"),
        ({}, "no voter's id"),
        ({"voter": "x" * 5000}, "no voter's id"),
    ):
        got = one.client.get(f"/api/room/{code}", params=given)
        assert got.status_code == 404 and words in got.json()["error"]
    for path, given, words in (
        (f"/api/room/{'Z' * 3000}", {}, "no open room"),
        ("/api/room/0OIL11", {}, "no open room"),
        (f"/api/room/{code}", {"round": "x"}, "does not exist"),
        (f"/api/room/{code}", {"round": "9" * 99}, "does not"),
    ):
        got = one.client.get(path, params={"voter": one.voter} | given)
        assert got.status_code == 404 and words in got.json()["error"], got.text
    assert one.open(letters="chen")[1]["prompt"].startswith(
        "The draft has the target's taste backwards: q = 50%"
    )


def page_words(page: str) -> list[str]:
    """What a phone page says: its markup's text (the title too) and the sentences its script
    fills (the templates of its ``WORDS``)."""
    script = re.search(r"const WORDS = (.*);\n", page)
    return [*CODE.sub("\n", page).split("\n"), *json.loads(script[1]).values()]


def english_in(words: list[str]) -> list[str]:
    return [w for w in words if ENGLISH.search(KEPT.sub(" ", w))]


def numbers(words: list[str]) -> list[str]:
    """The digits of ``words``, in any language's marks (50%, 50 %; 1.8, 1,8)."""
    return sorted(re.findall(r"\d+", " ".join(words)))


def said(seen: dict) -> list[str]:
    """The words of a phone's JSON: the question, its options and verdict, or the error."""
    return [seen.get(k, "") for k in ("title", "prompt", "verdict", "error")] + seen.get(
        "options", []
    )


def test_a_phone_speaks_the_language_of_its_link(database) -> None:
    """The join link carries the lecturer's language; the phone page and its JSON (the question,
    the options, the verdict, the errors) say theirs in it, with the same numbers as in English
    and no English sentence; phones of two languages wait on one room, each woken in its own; a
    missing or unknown ``lang`` is English, and the server's own language stays English."""
    code, key, _ = start(database)
    for lang in ("es", "zh"):
        at = open_page("pages/10_For_lecturers.py", {"lang": lang})
        at.button(key="polls.start").click().run()
        started, _ = at.session_state["polls.started"]
        links = [m.value for m in at.main.markdown if "/join?" in m.value]
        assert len(links) == 1 and f"/join?room={started}&lang={lang}" in links[0], links
        at = open_page(ROOM_PAGE, {"room": code, "lang": lang})
        assert [b.proto.url for b in at.get("link_button")] == [f"join?room={code}&lang={lang}"]

    client = TestClient(app(), client=("203.0.113.50", 50000))
    english = client.get("/join", params={"room": code}).text
    assert client.get("/join", params={"lang": "xx"}).text == english
    assert client.get("/join", params={"lang": "en"}).text == english
    assert '<html lang="en">' in english and "&lang=en" in english
    for lang, tag in (("es", "es"), ("zh", "zh-Hans")):
        page = client.get("/join", params={"room": code, "lang": lang})
        assert page.headers["cache-control"] == "public, max-age=3600"
        assert f'<html lang="{tag}">' in page.text and f'"&lang={lang}"' in page.text
        assert not english_in(page_words(page.text)), english_in(page_words(page.text))
        assert numbers(page_words(page.text)) == numbers(page_words(english))
        zipped = client.get("/join", params={"lang": lang}, headers={"Accept-Encoding": "gzip"})
        assert zipped.headers["content-encoding"] == "gzip" and zipped.text == page.text

    phones_ = {lang: Phone(code) for lang in LANGUAGES}
    for question in ("why.alpha", "claim.speed", classroom.alpha_key([1, 2, 3], [3, 2, 1])):
        if question != "why.alpha":
            assert rooms.lecture(database, code, key, "ask", question)
        for _ in ("asked", "revealed"):
            seen = {lang: one.open(lang=lang)[1] for lang, one in phones_.items()}
            assert set(seen["es"]) == set(seen["en"]) == set(seen["zh"])
            for lang in ("es", "zh"):
                assert not english_in(said(seen[lang])), (question, english_in(said(seen[lang])))
                assert numbers(said(seen[lang])) == numbers(said(seen["en"])), question
                assert seen[lang].get("answer") == seen["en"].get("answer")
            assert rooms.lecture(database, code, key, "reveal")
    for lang in ("es", "zh"):  # the errors too
        no_voter = phones_[lang].client.get(f"/api/room/{code}", params={"lang": lang})
        for got in (
            Phone("0OIL11").open(lang=lang),
            phones_[lang].send(0, 99, lang=lang),
            (no_voter.status_code, no_voter.json()),
        ):
            assert got[0] in (404, 409) and not english_in(said(got[1])), got
    assert Phone("0OIL11").open(lang="xx")[1] == {"error": say("classroom.no_room")}

    # One server, one room: an English and a Spanish phone wait together, each woken in its own.
    shared = TestClient(app(), client=("203.0.113.50", 50000)).__enter__()
    waiting = {lang: Phone(code, client=shared) for lang in ("en", "es")}
    for lang, one in waiting.items():
        one.open(lang=lang)
    with ThreadPoolExecutor(2) as pool:
        held = {lang: pool.submit(one.wait, 3, True, lang=lang) for lang, one in waiting.items()}
        time.sleep(0.2)
        assert rooms.lecture(database, code, key, "ask", "claim.leaks")
        woken = {lang: future.result(timeout=phones.WAIT_S + 5) for lang, future in held.items()}
    shared.__exit__(None, None, None)
    assert woken["en"]["round"] == woken["es"]["round"] == 4
    assert woken["en"]["title"] == "The debate: Leaks"
    assert woken["es"]["title"] != woken["en"]["title"] and not english_in(said(woken["es"]))
    assert language() == "en"  # the server's own context was never set


@pytest.fixture
def dead_url(database, tmp_path) -> str:
    """A URL of the same kind as ``database``'s whose database does not answer."""
    if database.dialect.name == "sqlite":
        return f"sqlite:///{tmp_path / 'no such folder' / 'polls.sqlite'}"
    return f"postgresql+psycopg://polls@127.0.0.1:{free_port()}/polls"


def test_a_database_fault_shows_a_message_never_a_traceback(
    database, dead_url, monkeypatch
) -> None:
    """While the database does not answer (PostgreSQL restarting): a phone's answer is refused
    in plain words and not saved, its page says it is reconnecting, and a waiting phone keeps
    waiting; the projector keeps its last view and says the room is reconnecting; a lecturer's
    click is refused. Once it is back, the answer goes through."""
    code, key, _ = start(database)
    monkeypatch.setattr(polls, "_PAUSE_S", 0)
    shared = TestClient(app(), client=("203.0.113.50", 50000)).__enter__()  # one loop: a server's
    tab, projector = phone(code, client=shared), lecturer(code, key)
    send(phone(code), 1)
    projector.run()
    bars = shown_counts(projector)
    url = database.url.render_as_string(hide_password=False)
    found = {code: rooms.room(database, code)}
    monkeypatch.setattr(polls, "find", found.get)  # the pages' room, found before the fault
    monkeypatch.setenv("SPECVIZ_POLLS_URL", dead_url)
    reconnecting = "The room is reconnecting; this view is from a moment ago."
    assert tab.send(2) == (
        503,
        {"error": "Your answer could not be saved just now; press Send again."},
    )
    assert Phone(code).open() == (503, {"error": say("classroom.down")})
    monkeypatch.setattr(phones, "WAIT_S", 1.5)
    assert tab.wait(1, False)["round"] == 1  # its last view, from before the fault
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
    opened = open_page(ROOM_PAGE, {"room": code, "key": key})
    assert opened.warning[0].value.startswith("The room's database is not answering")
    lecturers = open_page("pages/10_For_lecturers.py")
    lecturers.button(key="polls.start").click().run()
    assert_alive(lecturers)
    assert lecturers.error[0].value.startswith("The class could not be started just now")

    monkeypatch.setenv("SPECVIZ_POLLS_URL", url)
    send(tab, 2)
    assert rooms.counts(database, code, 1, "why.alpha") == (0, 1, 1, 0)
    shared.__exit__(None, None, None)


def test_only_the_key_runs_the_room(database) -> None:
    code, key, _ = start(database)
    other = classroom.new_key()
    assert not rooms.lecture(database, code, other, "reveal")
    assert not rooms.lecture(database, code, other, "ask", "claim.leaks")
    assert not rooms.lecture(database, code, other, "again")
    room = rooms.room(database, code)
    assert (room.round, room.revealed, room.question) == (1, False, "why.alpha")

    # A wrong key in the link: the page says so and sends them to the students' page.
    at = open_page(ROOM_PAGE, {"room": code, "key": other})
    assert not [b for b in at.button if b.key == "polls.reveal"]
    assert any("does not run this room" in w.value for w in at.warning)
    assert [b.proto.url for b in at.get("link_button")] == [f"join?room={code}&lang=en"]

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
    """The page Ask the room sends a student to the room's phone page, with the link's code if
    it had one; there a typed code is tidied (case, dashes) or refused in plain words."""
    code, _, _ = start(database)
    for given, target in (({}, "join?lang=en"), ({"room": code}, f"join?room={code}&lang=en")):
        at = open_page(ROOM_PAGE, given)
        assert [b.proto.url for b in at.get("link_button")] == [target]
        assert not at.radio and not at.error
    status, said = Phone("0OIL11").open()
    assert status == 404 and said["error"].startswith("There is no open room with that code")
    assert phone(f"{code[:3].lower()}-{code[3:]}").open()[1]["round"] == 1


def test_joins_are_limited_per_phone(database) -> None:
    code, _, _ = start(database)
    one = Phone("ABCDEF" if code != "ABCDEF" else "ABCDEG")
    for _ in range(JOIN_TRIES):
        assert one.open()[0] == 404
    one.code = code
    status, said = one.open()
    assert status == 429 and said["error"].startswith("Too many room codes")


def test_old_rooms_and_answers_are_deleted(database) -> None:
    code, _, _ = start(database)
    rooms.answer(database, code, "v", 1, 0)
    with database.begin() as db:
        db.execute(
            text("UPDATE polls_rooms SET created = created - :s"), {"s": ROOM_LIFETIME_S + 1}
        )
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
        "2 (67%)",
        "0 (0%)",
        "1 (33%)",
        "0 (0%)",
        "0 (0%)",
        "0 (0%)",
        "1 (100%)",
        "0 (0%)",
    ]


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
    send(phone(code), 1)
    at.run()
    assert at.button(key="presenter.ask").label == "Vote again"
    assert [p.proto.popover.label for p in at.main.get("popover")] == ["1 answer"]
    assert key not in str(query(at))
    assert [b.split(" — ")[1] for b in shown_counts(at)] == ["0 (0%)", "1 (100%)"]
    at.button(key="presenter.ask").click().run()  # after the neighbours argued
    send(phone(code), 0)
    at.run()
    before, now = ["0 (0%)", "1 (100%)"], ["1 (100%)", "0 (0%)"]
    assert [b.split(" — ")[1] for b in shown_counts(at)] == before + now  # side by side
    at.button(key="presenter.reveal").click().run()
    assert rooms.room(database, code).revealed
    assert not [b for b in at.button if b.key == "presenter.reveal"]
    assert [i.value for i in at.info if i.value == classroom.poll("claim.speed").verdict]
    assert "key" not in query(at)
    student_only = open_page(
        PLAN[number - 1].script, dict(PLAN[number - 1].query) | {"step": str(number), "room": code}
    )
    assert not [b for b in student_only.button if b.key == "presenter.ask"]


def test_answers_are_limited_per_phone(database, monkeypatch) -> None:
    code, key, _ = start(database)
    one = phone(code)
    monkeypatch.setattr(phones, "ANSWERS_PER_SESSION", 1)
    send(one, 1)
    assert rooms.lecture(database, code, key, "again")
    assert one.send(1, 2) == (
        429,
        {"error": "This page has sent too many answers; nothing was saved."},
    )
    assert rooms.counts(database, code, 2, "why.alpha") == (0, 0, 0, 0)


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
        db.execute(text("UPDATE polls_misses SET created = created - :s"), {"s": JOIN_WINDOW_S + 1})
    assert rooms.room(database, code, here).code == code  # after the window
    rooms.purge(database)
    with database.connect() as db:
        assert db.execute(text("SELECT COUNT(*) FROM polls_misses")).scalar_one() == 0


def test_a_guesser_opening_new_tabs_is_refused_by_address(database, monkeypatch) -> None:
    """Ten wrong codes from one address over several phones, each under its own limit: the
    server refuses that address any code, the right one too, in plain words; another address,
    and a phone already in the room, go on."""
    code, _, _ = start(database)
    monkeypatch.setattr(rooms, "JOIN_MISSES_PER_ADDRESS", 10)
    address = "203.0.113.7"
    inside = phone(code, address=address)
    wrong = "ABCDEF" if code != "ABCDEF" else "ABCDEG"
    for typed in (["0OIL11", wrong, wrong, wrong], [wrong] * 3, [wrong] * 4):  # three new phones
        one = Phone(wrong, address=address)
        for value in typed:
            one.code = value
            status, said = one.open()
            assert status == 404 and said["error"].startswith("There is no open room")
    with database.connect() as db:  # a malformed code names no room: it is not counted
        assert db.execute(text("SELECT COUNT(*) FROM polls_misses")).scalar_one() == 10
    assert Phone(code, address=address).open() == (404, {"error": say("classroom.refused")})
    assert inside.open()[0] == 200 and inside.wait(0, False)["round"] == 1
    assert Phone(code, address="198.51.100.2").open()[0] == 200


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


def _opens(url: str, code: str, source: str) -> tuple[int, dict]:
    """A phone at ``source`` (a loopback address of its own) opening ``code``'s room at ``url``."""
    host, port = urlsplit(url).hostname, urlsplit(url).port
    http = HTTPConnection(host, port, timeout=30, source_address=(source, 0))
    http.request("GET", f"/api/room/{code}?voter={secrets.token_urlsafe(16)}")
    reply = http.getresponse()
    return reply.status, json.loads(reply.read())


@pytest.mark.xdist_group("replicas")  # one nginx class at a time
def test_replicas_share_one_room_store_and_know_each_students_address() -> None:
    """deploy/replicas.py with PostgreSQL: wrong codes from a phone at 127.0.0.2 are counted under
    that address (nginx's X-Forwarded-For, which Streamlit's server believes from 127.0.0.1) in
    the one database, whichever replica served them; at the limit that address is refused the
    right code too, and a phone at 127.0.0.3 opens the room."""
    if find_nginx() is None or not PG_BIN:
        _skip_or_fail("no nginx or PostgreSQL (apt-get install -y nginx postgresql)")
    with Replicas(count=2, postgres=True, pin=False) as replicas:
        eng = rooms.connect(replicas.polls_url)
        code = rooms.start_room(eng, classroom.new_key())
        wrong, guesser = "ABCDEF" if code != "ABCDEF" else "ABCDEG", "127.0.0.2"
        for _ in range(4):  # round robin: two on each replica
            assert _opens(replicas.url, wrong, guesser)[1]["error"].startswith("There is no open")
        with eng.begin() as db:
            misses = db.execute(text("SELECT address, COUNT(*) FROM polls_misses GROUP BY address"))
            assert dict(misses.all()) == {classroom.key_hash(guesser): 4}
            db.execute(
                text("INSERT INTO polls_misses (address, created) VALUES (:a, :t)"),
                [{"a": classroom.key_hash(guesser), "t": time.time()}]
                * (JOIN_MISSES_PER_ADDRESS - 4),
            )
        assert _opens(replicas.url, code, guesser) == (404, {"error": say("classroom.refused")})
        assert _opens(replicas.url, code, "127.0.0.3")[1]["round"] == 1
        eng.dispose()


def test_the_address_is_the_one_the_nearest_proxy_saw(database) -> None:
    """Behind a proxy the server does not believe (a private address), a miss counts against the
    last X-Forwarded-For, what that proxy saw; a public peer's own address counts, whatever it
    claims; with no address at all (a name, as this test client's) against no one — on the phone
    page and on the lecturer's page alike."""
    start(database)
    claimed = "198.51.100.66, 203.0.113.9"
    for peer in ("10.0.0.5", "8.8.8.8", "testclient"):
        forwarded = "" if peer == "testclient" else claimed
        Phone("ABCDEF", address=peer, **{"X-Forwarded-For": forwarded}).open()
    with database.connect() as db:
        misses = db.execute(text("SELECT address, COUNT(*) FROM polls_misses GROUP BY address"))
        assert dict(misses.all()) == {classroom.key_hash(a): 1 for a in ("203.0.113.9", "8.8.8.8")}
    assert rooms.visitor_address("10.0.0.5", claimed) == "203.0.113.9"
    assert rooms.visitor_address("8.8.8.8", claimed) == "8.8.8.8"
    assert rooms.visitor_address(None, "") is None
    assert rooms.visitor_address("10.0.0.5", "") == "10.0.0.5"
