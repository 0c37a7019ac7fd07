"""Every sentence a learner reads, by key, from the message catalogs in ``specviz/locale/``.

Code names a message (``say("decoding.intro")``) and passes its numbers; the words live in one
gettext catalog per language and page or view (``locale/es/decoding.po``: message
``decoding.intro``). A message's ``{name}`` fields are filled from the values given; ``{T}`` and
``{D}`` are left for the notation to fill (the target's and the draft's letters).

The language is the run's, not the process's: a page calls :func:`use` first, and every message
is looked up when it is said, so two students on one server read two languages. Nothing says a
message at import (tests/test_languages.py checks); :func:`titles` is a table looked up on reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

LOCALE = Path(__file__).with_name("locale")
#: The languages SpecViz speaks: the link's code, and the name each language calls itself.
LANGUAGES = {"en": "English", "es": "Español", "zh": "简体中文"}
#: How each language writes a number (CLDR): its decimal mark, its thousands mark (Spanish
#: groups from five digits: 2000, 20.000) and its percent sign.
NUMBERS = {
    "en": {"decimal": ".", "group": ",", "percent": "%", "group_from": 4},
    "es": {"decimal": ",", "group": ".", "percent": "\u00a0%", "group_from": 5},
    "zh": {"decimal": ".", "group": ",", "percent": "%", "group_from": 4},
}
# Each thread has its own context: a language set in one holds for that run and no other
# session's. Streamlit starts a new thread for a run that follows a pause, and a callback or a
# fragment there runs before (or without) the page's setup: then the session is asked.
_LANGUAGE: ContextVar[str | None] = ContextVar("specviz.language", default=None)
_otherwise: list[Callable[[], str]] = [lambda: "en"]
#: The models' letters, filled by :meth:`specviz.palette.Notation.fill`, not here.
LETTERS = ("T", "D")


class _Values(dict):
    """The values of a message; a letter of the notation stays a field for the notation."""

    def __missing__(self, key: str) -> str:
        if key in LETTERS:
            return "{" + key + "}"
        raise KeyError(key)


@cache
def catalog(language: str = "en") -> dict[str, str]:
    """Every message of ``language``: key to text (all its ``.po`` files, read once)."""
    messages: dict[str, str] = {}
    for path in sorted((LOCALE / language).glob("*.po")):
        with path.open("rb") as file:
            messages |= {m.id: m.string for m in read_po(file) if m.id}
    return messages


def use(language: str) -> None:
    """Speak ``language`` (a key of :data:`LANGUAGES`) from now on in this thread's context.

    Raises
    ------
    ValueError
        If SpecViz has no catalogs for ``language``.
    """
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}; got {language!r}")
    _LANGUAGE.set(language)


def language() -> str:
    """The language this run speaks (a key of :data:`LANGUAGES`): the one :func:`use` set in
    this context, or else the one :func:`otherwise` names."""
    return _LANGUAGE.get() or _otherwise[0]()


def written(number: str) -> str:
    """``number``, written with "." and "%" ("59.7%"), as this run's language writes it
    ("59,7 %" in Spanish)."""
    marks = NUMBERS[language()]
    return number.replace(".", marks["decimal"], 1).replace("%", marks["percent"])


def otherwise(ask: Callable[[], str]) -> None:
    """Where to ask for the language when none was set in this context (the UI asks the
    session; the default is English)."""
    _otherwise[0] = ask


def template(key: str) -> str:
    """The message ``key`` with its fields left in, for code that fills them later (the browser's
    views, a preset naming the learner's words).

    Raises
    ------
    ValueError
        If no catalog holds ``key``.
    """
    text = catalog(language()).get(key) if isinstance(key, str) else None
    if text is None:
        raise ValueError(f"no message {key!r} in the catalogs of {LOCALE}")
    return text


def templates(group: str, keys: tuple[str, ...]) -> dict[str, str]:
    """The templates of ``keys``, in that order: :func:`template` of each ``"<group>.<key>"``.

    Parameters
    ----------
    group : str
        The messages' group, the part of their keys before the last ``"."``.
    keys : tuple of str
        The messages' last parts, each the key it is found under.

    Returns
    -------
    dict of str to str
        Each key's message with its fields left in, in the run's language.

    Raises
    ------
    ValueError
        If a key has no message.
    """
    return {key: template(f"{group}.{key}") for key in keys}


class Titles(Mapping[str, str]):
    """A table of titles: key to the message ``"<group>.<key>"``, said when it is read."""

    def __init__(self, group: str, keys: tuple[str, ...]) -> None:
        for key in keys:
            template(f"{group}.{key}")  # every key has its message, checked once
        self._group, self._keys = group, tuple(keys)

    def __getitem__(self, key: str) -> str:
        if key not in self._keys:
            raise KeyError(key)
        return say(f"{self._group}.{key}")

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def titles(group: str, keys: tuple[str, ...]) -> Titles:
    """The titles of ``keys``, in that order: the messages ``"<group>.<key>"`` (no fields), each
    in the language of the run that reads it.

    Raises
    ------
    ValueError
        If a key has no message.
    """
    return Titles(group, keys)


def say(key: str, **values: object) -> str:
    """The message ``key`` with its ``{name}`` fields filled from ``values``.

    Parameters
    ----------
    key : str
        A message's key, ``"<catalog>.<name>"``.
    **values
        A value for each field of the message but ``{T}`` and ``{D}``.

    Returns
    -------
    str
        The text, ``{T}`` and ``{D}`` kept for the notation.

    Raises
    ------
    ValueError
        If no catalog holds ``key``, or a field of the message has no value.
    """
    text = template(key)
    try:
        return text.format_map(_Values(values))
    except KeyError as missing:
        raise ValueError(f"message {key!r} needs a value for {missing}") from None
