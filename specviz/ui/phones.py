"""Ask the room on a phone: one small page and its JSON, served beside Streamlit by ``st.App``.

A script run per phone per refresh cannot fit a class in Community Cloud's guaranteed 0.078 of a
core (300 phones refreshing every 5 s were 60 runs a second). Here a phone fetches one page
(~10 kB, no Streamlit frontend), its room once, sends its answer, and then holds one long request
that answers when the lecturer moves on: one reader per process looks up each room phones wait on
at most once a second, whatever their number. Rooms, answers, keys and limits stay
:mod:`specviz.rooms`'s, in the same database as the lecturer's page (:func:`polls.engine`).

A phone speaks the language of its link (``lang``, which the lecturer's join link carries; English
if none): the page is filled from ``locale/*/phone.po`` once per language, and each request's
words (questions, errors) are said in a copy of the server's context that speaks the request's
``lang``, so phones in three languages share one room, its reads and its waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gzip
import hashlib
import hmac
import html
import json
import math
import os
import re
import weakref
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from specviz import classroom, rooms, text
from specviz.limits import ANSWERS_PER_SESSION, JOIN_TRIES
from specviz.links import LANGUAGE, LETTERS, ROOM, VOTER
from specviz.palette import Notation
from specviz.text import say, templates, titles

#: The phone's page as written: its words are slots ``{{phone.<name>}}`` (:data:`_PAGE_WORDS`),
#: the sentences its script says one JSON object of templates (``{{words}}``): :func:`pages`.
PAGE = (Path(__file__).with_name("phone.html")).read_text(encoding="utf-8")
_SLOT = re.compile(r"\{\{(phone\.[a-z_]+|words|lang|html_lang)\}\}")
_PAGE_WORDS = titles(
    "phone", ("title", "heading", "intro", "room_code", "join", "your_answer", "send", "see_why")
)
WAIT_S = 45.0  # a waiting phone's longest request: under the 60 s idle timeout of common proxies
READ_S = 1.0  # how stale a room may be: the projector refreshes every 2 s


def _engine() -> Engine:
    """:func:`polls.engine`, kept per database URL: it costs a millisecond, a request far less."""
    from specviz.ui import polls  # Streamlit's connection, made outside a script run

    url = os.environ.get("SPECVIZ_POLLS_URL", "")
    if url not in _ENGINES:
        _ENGINES[url] = polls.engine()
    return _ENGINES[url]


_ENGINES: dict[str, Engine] = {}


@cache
def pages(language: str) -> tuple[bytes, bytes]:
    """The phone's page in ``language`` (a key of :data:`text.LANGUAGES`), and gzipped: filled
    once per language, in a copy of this context (the server's own speaks on as it did)."""
    return contextvars.copy_context().run(_filled, language)


def _filled(language: str) -> tuple[bytes, bytes]:
    from specviz.ui.state import DOCUMENT_LANGUAGE  # Streamlit's, as the pages' own

    text.use(language)
    # what the script says, each {name} filled there by fill()
    said = templates(
        "phone", ("tab_title", "answer_in", "mine", "right", "answer", "revealed")
    ) | templates("phone", ("no_reply", "closed", "reconnecting", "opening", "pick", "not_sent"))
    values = {
        "html_lang": DOCUMENT_LANGUAGE[language],
        "lang": language,
        # In a <script>: no "</" can end it early.
        "words": json.dumps(said, ensure_ascii=False).replace("<", "\\u003c"),
    }
    values |= {f"phone.{name}": html.escape(words) for name, words in _PAGE_WORDS.items()}
    page = _SLOT.sub(lambda slot: values[slot[1]], PAGE)
    return page.encode(), gzip.compress(page.encode(), 9, mtime=0)


def _state(now: rooms.Room | None) -> dict[str, Any]:
    """What every phone may see of a room, in no language (what is kept and compared while
    phones wait): its round, whether revealed, and its question's key."""
    if now is None:
        return {"closed": True}
    return {"round": now.round, "revealed": now.revealed, "question": now.question}


@lru_cache(maxsize=1024)
def _question(key: str, revealed: bool, language: str) -> dict[str, Any]:
    """The words of question ``key`` in ``language`` (in a copy of this context): its title,
    prompt and options (still lettered {T}/{D}), and once revealed the answer, the verdict and
    the page that shows why. Built once per question and language, whatever the phones."""
    return contextvars.copy_context().run(_worded, key, revealed, language)


def _worded(key: str, revealed: bool, language: str) -> dict[str, Any]:
    text.use(language)
    question = classroom.poll(key)
    seen: dict[str, Any] = {
        "title": question.title,
        "prompt": question.prompt,
        "options": tuple(question.options),
    }
    if revealed:
        page = Path(question.page).stem.split("_", 1)[1]
        query = "&".join(f"{k}={v}" for k, v in question.query)
        seen |= {
            "answer": question.answer,
            "verdict": question.verdict,
            "why": page + (f"?{query}" if query else ""),
        }
    return seen


def _said(seen: dict[str, Any], language: str) -> dict[str, Any]:
    """``seen`` (a :func:`_state` and more) with its question's key replaced by its words."""
    said: dict[str, Any] = {}
    for name, value in seen.items():
        if name == "question":
            said |= _question(value, seen["revealed"], language)
        else:
            said[name] = value
    return said


class _Rooms:
    """The rooms phones wait on in this process: each read at most once every ``READ_S``, and
    its waiting phones woken when it changes."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[float, dict[str, Any]]] = {}
        self.keys: dict[str, str] = {}  # a room's key hash, once read
        self.changed: dict[str, asyncio.Event] = {}
        self.locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.waiting: Counter[str] = Counter()
        self.reader: asyncio.Task[None] | None = None

    def keep(self, code: str, seen: dict[str, Any]) -> None:
        before = self.seen.get(code, (0.0, None))[1]
        self.seen[code] = asyncio.get_running_loop().time(), seen
        if seen != before and (event := self.changed.pop(code, None)):
            event.set()

    async def fresh(self, code: str) -> dict[str, Any]:
        """``code``'s room as read at most ``READ_S`` ago (one read for all who ask at once); a
        code that never named a room here is not kept (a guesser's fill no memory)."""
        async with self.locks[code]:
            at, seen = self.seen.get(code, (-math.inf, {}))
            if asyncio.get_running_loop().time() - at > READ_S:
                now = await asyncio.to_thread(rooms.room, _engine(), code)
                seen = _state(now)
                if now is not None:
                    self.keys[code] = now.key_hash
                if code in self.keys:
                    self.keep(code, seen)
        if code not in self.keys:
            self.locks.pop(code, None)
        return seen

    def admits(self, code: str, voter: str, given: str) -> bool:
        """Whether ``given`` is the pass this room gave ``voter`` (on any server: it is derived
        from the room's key hash, which only servers know)."""
        key = self.keys.get(code)
        return key is not None and hmac.compare_digest(given, voter_pass(key, voter))

    async def _read(self) -> None:
        while codes := list(self.waiting):
            for code in codes:
                with contextlib.suppress(SQLAlchemyError):  # a restart: they wait, then ask
                    await self.fresh(code)
            await asyncio.sleep(READ_S)

    async def wait(self, code: str, round_: int, revealed: bool) -> dict[str, Any]:
        """``code``'s room as soon as it differs from ``round_``/``revealed``, or after WAIT_S."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        self.waiting[code] += 1
        try:
            if self.reader is None or self.reader.done():
                self.reader = asyncio.create_task(self._read())
            try:
                seen = await self.fresh(code)
            except SQLAlchemyError:  # a restart: wait on what was seen last, if anything
                if code not in self.seen:
                    raise
                seen = self.seen[code][1]
            while (seen.get("round"), seen.get("revealed")) == (round_, revealed):
                event = self.changed.setdefault(code, asyncio.Event())
                try:
                    await asyncio.wait_for(event.wait(), deadline - loop.time())
                except TimeoutError:
                    break
                seen = self.seen[code][1]
            return seen
        finally:
            self.waiting -= Counter([code])  # in place, and a code no phone waits on goes


#: One per event loop: a server has one; a test client may start one per request.
_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Rooms] = weakref.WeakKeyDictionary()


def _rooms() -> _Rooms:
    loop = asyncio.get_running_loop()
    if loop not in _BY_LOOP:
        _BY_LOOP[loop] = _Rooms()
    return _BY_LOOP[loop]


#: Per voter, in this process: rooms joined (looked up freely again), codes tried, answers sent.
_JOINED: set[tuple[str, str]] = set()
_TRIED: Counter[str] = Counter()
_SENT: Counter[str] = Counter()


def _forget_if_large() -> None:
    # Memory, not a limit: a million ids is ~100 MB; a class is hundreds.
    for kept in (_JOINED, _TRIED, _SENT):
        if len(kept) > 100_000:
            kept.clear()


def voter_pass(key_hash: str, voter: str) -> str:
    """What proves a phone looked ``voter``'s room up: an HMAC of the voter by the room's key
    hash (never sent to a phone), so every replica checks it without a shared session."""
    return hmac.new(key_hash.encode(), voter.encode(), hashlib.sha256).hexdigest()[:32]


def _problem(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status, headers={"Cache-Control": "no-store"})


def _answer(seen: dict[str, Any], request: Request) -> JSONResponse:
    """``seen``, in words of the request's language, lettered as the phone's link asks
    (``{T}``/``{D}`` filled)."""
    seen = _said(seen, text.language())
    note = Notation(swapped=LETTERS.read(dict(request.query_params))[0])
    filled = {k: note.fill(seen[k]) for k in ("title", "prompt", "verdict") if k in seen}
    if "options" in seen:
        filled["options"] = [note.fill(o) for o in seen["options"]]
    return JSONResponse(seen | filled, headers={"Cache-Control": "no-store"})


def _spoken(
    handler: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """``handler``, run as a task in a copy of this context that speaks the request's language
    (its ``lang``; English if none or unknown): its words and errors, and the threads it starts.
    The server's own context is never changed."""

    async def speaking(request: Request) -> Response:
        language = LANGUAGE.read(dict(request.query_params))[0]
        context = contextvars.copy_context()
        context.run(text.use, language)
        return await asyncio.create_task(handler(request), context=context)

    speaking.__doc__ = handler.__doc__
    return speaking


def _read(request: Request, param: Any) -> str:
    """The room code of the path, or the voter of the query (needed), checked as links are."""
    given = request.path_params["code"] if param is ROOM else request.query_params.get("voter")
    value, notice = param.read({param.name: given or ""})
    if notice or not value:
        raise ValueError(say("classroom.no_room") if param is ROOM else say("classroom.no_voter"))
    return value


async def page(request: Request) -> Response:
    """The phone's page in its link's language (the room, its code or none, is read by the page
    itself)."""
    plain, zipped = pages(LANGUAGE.read(dict(request.query_params))[0])
    headers = {"Cache-Control": "public, max-age=3600", "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        return HTMLResponse(zipped, headers=headers | {"Content-Encoding": "gzip"})
    return HTMLResponse(plain, headers=headers)


async def room(request: Request) -> Response:
    """GET: the room of the code, with this voter's answer (a first look-up counts a wrong code
    against the visitor's address), or, given ``round`` and ``revealed``, as soon as it moves on
    — given the pass a look-up gave this voter (any server's); anyone else is told to look it up
    (``rejoin``), so that waiting tells a guesser nothing the limited look-up would not."""
    _forget_if_large()
    try:
        code, voter = _read(request, ROOM), _read(request, VOTER)
        if (held := request.query_params.get("round")) is not None:
            if not held.isdigit() or len(held) > 9:
                raise ValueError(say("classroom.no_round"))
            waits = _rooms()
            with contextlib.suppress(SQLAlchemyError):  # a restart: the pass seen last holds
                await waits.fresh(code)
            if not waits.admits(code, voter, request.query_params.get("pass", "")):
                return _answer({"rejoin": True}, request)  # the same for any code: look it up
            revealed = request.query_params.get("revealed") == "1"
            return _answer(await waits.wait(code, int(held), revealed), request)
        address = None
        if (voter, code) not in _JOINED:
            _TRIED[voter] += 1
            if _TRIED[voter] > JOIN_TRIES:
                return _problem(say("classroom.too_many_codes"), 429)
            peer = request.client.host if request.client else None
            address = rooms.visitor_address(peer, request.headers.get("X-Forwarded-For", ""))
        now = await asyncio.to_thread(rooms.room, _engine(), code, address, voter)
    except ValueError as problem:
        return _problem(str(problem), 404)
    except SQLAlchemyError:
        return _problem(say("classroom.down"), 503)
    if now is None:
        return _problem(say("classroom.no_room"), 404)
    _JOINED.add((voter, code))
    waits = _rooms()
    waits.keys[code] = now.key_hash
    waits.keep(code, seen := _state(now))  # a fresh read: the waiting phones' too
    return _answer(
        seen | {"answered": now.answered, "pass": voter_pass(now.key_hash, voter)}, request
    )


async def send(request: Request) -> Response:
    """POST ``{"round": r, "choice": i}``: this voter's answer to round r, saved once."""
    try:
        code, voter = _read(request, ROOM), _read(request, VOTER)
        try:
            sent = json.loads(await request.body())
        except ValueError:  # not JSON, or not UTF-8
            sent = None
        if not isinstance(sent, dict) or type(sent.get("round")) is not int:
            raise ValueError(say("classroom.not_options"))
        if _SENT[voter] >= ANSWERS_PER_SESSION:
            return _problem(say("classroom.too_many_answers"), 429)
        await asyncio.to_thread(
            rooms.answer, _engine(), code, voter, sent["round"], sent.get("choice")
        )
    except ValueError as problem:
        return _problem(str(problem), 409)
    except SQLAlchemyError:
        return _problem(say("classroom.not_saved"), 503)
    _SENT[voter] += 1
    return JSONResponse({"answered": sent["choice"]}, headers={"Cache-Control": "no-store"})


def routes(prefix: str = "") -> list[Route]:
    """The phone's page at ``prefix/join`` and its room's JSON at ``prefix/api/room/CODE``, each
    in the language of its link."""
    return [
        Route(f"{prefix}/join", page),
        Route(f"{prefix}/api/room/{{code}}", _spoken(room)),
        Route(f"{prefix}/api/room/{{code}}/answer", _spoken(send), methods=["POST"]),
    ]


class FastPath:
    """Outermost middleware: a phone's request goes straight to its route, past Streamlit's
    (a signed session cookie, gzip, path checks for files), which cost more than the answer:
    0.6 ms of a 0.7 ms request. Only this module's own paths, matched whole, take it."""

    def __init__(self, app: ASGIApp) -> None:
        from streamlit import config

        self.app = app
        base = (config.get_option("server.baseUrlPath") or "").strip("/")
        prefix = f"/{base}" if base else ""
        self.phones = Router(routes(prefix))
        self.paths = re.compile(rf"{re.escape(prefix)}/(join|api/room/[^/]{{1,64}}(/answer)?)")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.paths.fullmatch(scope["path"]):
            await self.phones(scope, receive, send)
        else:
            await self.app(scope, receive, send)
