"""Ask the room's rooms and answers in a SQL database (SQLAlchemy, parameterised queries only;
no Streamlit): a schema the app creates and versions, rooms and answers deleted 24 hours after the
room started. A lecturer's change is one UPDATE naming the room *and* its key's hash."""

from __future__ import annotations

import ipaddress
import tempfile
import time
from dataclasses import dataclass

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import IntegrityError

from specviz import classroom
from specviz.limits import JOIN_MISSES_PER_ADDRESS, JOIN_WINDOW_S, ROOM_LIFETIME_S
from specviz.text import say

SCHEMA_VERSION = 2  # 2: polls_misses
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS polls_schema (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS polls_rooms (code VARCHAR(8) PRIMARY KEY, "
    "key_hash VARCHAR(64) NOT NULL, question VARCHAR(200) NOT NULL, round INTEGER NOT NULL, "
    "revealed INTEGER NOT NULL, created DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS polls_answers (code VARCHAR(8) NOT NULL, round INTEGER NOT NULL, "
    "voter VARCHAR(64) NOT NULL, question VARCHAR(200) NOT NULL, choice INTEGER NOT NULL, "
    "created DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, round, voter))",
    "CREATE TABLE IF NOT EXISTS polls_misses (address VARCHAR(64) NOT NULL, "
    "created DOUBLE PRECISION NOT NULL)",
    "CREATE INDEX IF NOT EXISTS polls_misses_by_address ON polls_misses (address, created)",
    "INSERT INTO polls_schema VALUES (1, :v) ON CONFLICT DO NOTHING",
    "UPDATE polls_schema SET version = :v WHERE version < :v",  # given its new tables above
)


#: Where the rooms live when nothing names a database: a SQLite file, made on first use.
DEFAULT_URL = f"sqlite:///{tempfile.gettempdir()}/specviz-polls.sqlite"
#: pre_ping: after PostgreSQL restarts, a pooled connection is replaced, not used and failed.
ENGINE_OPTIONS = {"pool_pre_ping": True}


def connect(url: str | None = None) -> Engine:
    """An engine on ``url``'s database (None: :data:`DEFAULT_URL`), ready: see :func:`prepare`."""
    return prepare(create_engine(url or DEFAULT_URL, **ENGINE_OPTIONS))


def prepare(eng: Engine) -> Engine:
    """``eng`` with its schema made (and SQLite's write-ahead log on), before its first use."""
    if eng.dialect.name == "sqlite":
        # A write-ahead log lets the projector read as answers are written: 100 at once, p95 72 ms.
        pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
        event.listen(eng, "connect", lambda db, _: db.executescript(pragmas))
    create_schema(eng)
    return eng


def create_schema(eng: Engine) -> None:
    """Make the tables if missing and record the schema's version; refuse a newer one."""
    for attempt in range(2):
        try:
            with eng.begin() as db:
                for statement in _SCHEMA:
                    db.execute(text(statement), {"v": SCHEMA_VERSION})
                version = db.execute(text("SELECT version FROM polls_schema")).scalar_one()
            break
        except IntegrityError:  # PostgreSQL: another replica made a table at the same moment
            if attempt:
                raise
    if version > SCHEMA_VERSION:
        raise RuntimeError(f"the polls database has schema {version}, newer than this app's")


@dataclass(frozen=True)
class Room:
    code: str
    key_hash: str
    question: str
    round: int
    revealed: bool
    answered: int | None = None  # the voter's answer to this round, if :func:`room` was given one


def visitor_address(peer: str | None, forwarded: str) -> str | None:
    """The address a miss counts against: the peer's (the server's own view), unless that is a
    private one and a proxy sent ``forwarded`` (an X-Forwarded-For), whose last entry is what the
    nearest proxy saw. Behind a proxy the peer is that proxy's private address for a whole class,
    and one guesser would lock them all out. None (no address: this machine, a test): no limit."""
    address = forwarded.rsplit(",", 1)[-1].strip() or None
    try:
        private = ipaddress.ip_address(peer or "").is_private
    except ValueError:  # no address, or a name (a test client's): as if none
        return address
    return address if address and private else peer


def purge(eng: Engine) -> None:
    """Delete rooms, and their answers, older than a room's lifetime, and misses out of date."""
    old = {"t": time.time() - ROOM_LIFETIME_S, "m": time.time() - JOIN_WINDOW_S}
    with eng.begin() as db:
        db.execute(
            text(
                "DELETE FROM polls_answers WHERE created < :t OR code IN "
                "(SELECT code FROM polls_rooms WHERE created < :t)"
            ),
            old,
        )
        db.execute(text("DELETE FROM polls_rooms WHERE created < :t"), old)
        db.execute(text("DELETE FROM polls_misses WHERE created < :m"), old)


def start_room(eng: Engine, key: str) -> str:
    """A new room run by ``key``, asking the first question; its code."""
    purge(eng)
    row = {"h": classroom.key_hash(key), "q": next(iter(classroom.BANK))}
    for _ in range(5):  # a taken code (one in millions) is drawn again
        code = classroom.new_code()
        with eng.begin() as db:
            made = db.execute(
                text(
                    "INSERT INTO polls_rooms (code, key_hash, question, round, revealed, "
                    "created) VALUES (:c, :h, :q, 1, 0, :t) ON CONFLICT DO NOTHING"
                ),
                row | {"c": code, "t": time.time()},
            )
        if made.rowcount == 1:
            return code
    raise RuntimeError("no free room code")  # pragma: no cover


def room(eng: Engine, code: str, address: str | None = None, voter: str = "") -> Room | None:
    """The live room of ``code`` with ``voter``'s answer to its round if any, or None (no such
    room, or older than a room's lifetime). Given the visitor's ``address``, a miss counts
    against it (new tabs beat a session's own limit): after ``JOIN_MISSES_PER_ADDRESS`` in the
    window every code is refused (ValueError), right ones too, else the refusal itself would
    tell a guesser which code is right."""
    now = time.time()
    # Hashed, so that the table is no plain list of addresses; rows out of the window go.
    hashed = classroom.key_hash(address) if address else None
    who = {"a": hashed, "t": now, "s": now - JOIN_WINDOW_S}
    with eng.connect() as db:  # one statement: the address's misses, and the room if any
        row = db.execute(
            text(
                "SELECT (SELECT COUNT(*) FROM polls_misses WHERE address = :a AND created >= :s), "
                "r.code, key_hash, r.question, r.round, revealed, choice FROM (SELECT 1) AS one "
                "LEFT JOIN polls_rooms r ON r.code = :c AND r.created >= :r "
                "LEFT JOIN polls_answers a ON a.code = r.code AND a.round = r.round "
                "AND voter = :v"
            ),
            who | {"c": code, "r": now - ROOM_LIFETIME_S, "v": voter},
        ).one()
    if address and row[0] >= JOIN_MISSES_PER_ADDRESS:
        raise ValueError(say("classroom.refused"))
    if row[1] is not None:
        return Room(*row[1:5], bool(row[5]), row[6])
    if address:
        with eng.begin() as db:
            db.execute(text("DELETE FROM polls_misses WHERE created < :s"), who)
            db.execute(text("INSERT INTO polls_misses (address, created) VALUES (:a, :t)"), who)
    return None


def lecture(eng: Engine, code: str, key: str, action: str, question: str = "") -> bool:
    """A lecturer's button: "ask" ``question`` or ask the same "again" (after a discussion), in a
    new round, or "reveal" the answer; False, and nothing changed, if ``key`` is not the room's."""
    if action == "ask":
        classroom.poll(question)  # only a question SpecViz asks
    sql = {
        "ask": "question = :q, round = round + 1, revealed = 0",
        "reveal": "revealed = 1",
        "again": "round = round + 1, revealed = 0",
    }[action]
    with eng.begin() as db:
        done = db.execute(
            text(f"UPDATE polls_rooms SET {sql} WHERE code = :c AND key_hash = :h"),
            {"c": code, "h": classroom.key_hash(key), "q": question},
        )
    return done.rowcount == 1


def answer(eng: Engine, code: str, voter: str, round_: int, choice: object) -> None:
    """Record ``voter``'s answer to round ``round_``; ValueError with a plain message (and
    nothing saved) if the room, the round or the choice is not right, or they already answered."""
    now = room(eng, code)
    if now is None:
        raise ValueError(say("classroom.closed"))
    if round_ != now.round:
        raise ValueError(say("classroom.moved_on"))
    if now.revealed:
        raise ValueError(say("classroom.revealed"))
    value = classroom.check_choice(classroom.poll(now.question), choice)
    with eng.begin() as db:
        done = db.execute(
            text(
                "INSERT INTO polls_answers (code, round, voter, question, choice, created) "
                "VALUES (:c, :r, :v, :q, :x, :t) ON CONFLICT DO NOTHING"
            ),
            {"c": code, "r": round_, "v": voter, "q": now.question, "x": value, "t": time.time()},
        )
    if done.rowcount != 1:
        raise ValueError(say("classroom.answered_already"))


def counts(eng: Engine, code: str, round_: int, question: str) -> tuple[int, ...]:
    """How many answered each option of ``question`` in round ``round_``."""
    with eng.connect() as db:
        by_choice = dict(
            db.execute(
                text(
                    "SELECT choice, COUNT(*) FROM polls_answers WHERE code = :c AND round = :r "
                    "AND question = :q GROUP BY choice"
                ),
                {"c": code, "r": round_, "q": question},
            ).all()
        )
    return tuple(int(by_choice.get(i, 0)) for i in range(len(classroom.poll(question).options)))
