"""The lecturer's 50-minute plan, read once from docs/lecturers_guide.md: under ``## The plan``,
a ``### `` heading per block, a row ``| 0–3 | [title](./Page?query) | say | ask |`` per step;
an ask cell ends with ``📱 *title*`` if the phones can answer it (a title of classroom.BANK)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from specviz.classroom import BANK

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "lecturers_guide.md"
_ROW = re.compile(r"^\| (\d+)–(\d+) \| \[([^\]]+)\]\(\./([^)]*)\) \| (.+?) \| (.+?) \|$", re.M)
_PHONES = re.compile(r"\s*📱 \*([^*]+)\*$")
_POLLS = {poll.title: key for key, poll in BANK.items()}
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


def _step(block: str, start: str, end: str, title: str, link: str, say: str, ask: str) -> Step:
    url = urlsplit(link)
    if url.path not in SCRIPTS:
        raise ValueError(f"the plan's link {link!r} names no page")
    query = tuple(parse_qsl(url.query))
    poll = ""
    if phones := _PHONES.search(ask):
        if phones[1] not in _POLLS:
            raise ValueError(f"the plan's question {phones[1]!r} is none the phones can answer")
        ask, poll = ask[: phones.start()], _POLLS[phones[1]]
    return Step(block, int(start), int(end), title, SCRIPTS[url.path], query, say, ask, poll)


def read_plan(text: str) -> tuple[Step, ...]:
    """The steps of a guide's plan, in order; ValueError if it has none or names an unknown page
    or question for the phones."""
    section = f"\n{text}".partition("\n## The plan\n")[2].split("\n## ")[0]
    blocks = [block.partition("\n") for block in section.split("### ")[1:]]
    steps = tuple(_step(name, *row) for name, _, rows in blocks for row in _ROW.findall(rows))
    if not steps:
        raise ValueError("the guide has no plan (a '## The plan' section with step rows)")
    return steps


PLAN: tuple[Step, ...] = read_plan(GUIDE.read_text(encoding="utf-8"))
