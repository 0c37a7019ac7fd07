"""The lecturer's 50-minute plan, read once per language from its guide (docs/lecturers_guide.md,
lecturers_guide.es.md, ...): under its plan heading (``## The plan``, the message
``polls.plan_heading``), a ``### `` heading per block, a row ``| 0–3 | [title](./Page?query) |
say | ask |`` per step; an ask cell ends with ``📱 *title*`` if the phones can answer it (the
title of a classroom.BANK question, in the guide's language)."""

from __future__ import annotations

import re
from contextvars import copy_context
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from specviz import classroom
from specviz.text import say, use

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "lecturers_guide.md"
_ROW = re.compile(r"^\| (\d+)–(\d+) \| \[([^\]]+)\]\(\./([^)]*)\) \| (.+?) \| (.+?) \|$", re.M)
_PHONES = re.compile(r"\s*📱 \*([^*]+)\*$")
#: A page's address in the app -> its script ("" is Home; pages/3_Monte_Carlo.py is Monte_Carlo).
SCRIPTS = {"": "app.py"} | {
    p.stem.split("_", 1)[1]: f"pages/{p.name}" for p in GUIDE.parents[1].glob("pages/*.py")
}


@dataclass(frozen=True)
class Step:
    """One step: its block, minutes ``start``–``end``, the link's words, the page's script and
    the link's query (pairs), what to say, what to ask the room, and the key of the question its
    phones can answer ("" if none)."""

    block: str
    start: int
    end: int
    title: str
    script: str
    query: tuple[tuple[str, str], ...]
    say: str
    ask: str
    poll: str = ""


def guide(language: str) -> Path:
    """The lecturer's guide in ``language`` (a key of :data:`specviz.text.LANGUAGES`)."""
    return GUIDE if language == "en" else GUIDE.with_suffix(f".{language}.md")


def _step(polls: dict[str, str], block: str, row: tuple[str, ...]) -> Step:
    """The step of a plan's ``row`` (the groups of :data:`_ROW`) in ``block``."""
    start, end, title, link, say, ask = row
    url = urlsplit(link)
    if url.path not in SCRIPTS:
        raise ValueError(f"the plan's link {link!r} names no page")
    query = tuple(parse_qsl(url.query))
    poll = ""
    if phones := _PHONES.search(ask):
        if phones[1] not in polls:
            raise ValueError(f"the plan's question {phones[1]!r} is none the phones can answer")
        ask, poll = ask[: phones.start()], polls[phones[1]]
    return Step(block, int(start), int(end), title, SCRIPTS[url.path], query, say, ask, poll)


def split_guide(text: str) -> tuple[str, str, str]:
    """A guide in the run's language cut at its plan: what comes before, the plan, and after."""
    before, _, rest = f"\n{text}".partition(f"\n{say('polls.plan_heading')}\n")
    plan, _, after = rest.partition("\n## ")
    return before.lstrip("\n"), plan, f"## {after}" if after else ""


def read_plan(text: str) -> tuple[Step, ...]:
    """The steps of a guide's plan (in the run's language), in order; ValueError if it has none
    or names an unknown page or question for the phones."""
    polls = {classroom.poll(key).title: key for key in classroom.BANK}
    blocks = [block.partition("\n") for block in split_guide(text)[1].split("### ")[1:]]
    steps = tuple(_step(polls, name, row) for name, _, rows in blocks for row in _ROW.findall(rows))
    if not steps:
        raise ValueError("the guide has no plan (a plan heading with step rows)")
    return steps


def _read(language: str) -> tuple[Step, ...]:
    use(language)  # in a copy of the caller's context: the caller's language stays its own
    return read_plan(guide(language).read_text(encoding="utf-8"))


@cache
def plan(language: str) -> tuple[Step, ...]:
    """The lecturer's plan in ``language``, read once."""
    return copy_context().run(_read, language)


#: The plan in English: the guide the other languages translate step for step.
PLAN: tuple[Step, ...] = plan("en")
