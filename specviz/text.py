"""Every sentence a learner reads, by key, from the message catalogs in ``specviz/locale/``.

Code names a message (``say("decoding.intro")``) and passes its numbers; the words live in one
gettext catalog per page or view (``locale/en/decoding.po``: message ``decoding.intro``), the
layer a translation replaces. A message's ``{name}`` fields are filled from the values given;
``{T}`` and ``{D}`` are left for the notation to fill (the target's and the draft's letters).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

LOCALE = Path(__file__).with_name("locale")
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


def template(key: str) -> str:
    """The message ``key`` with its fields left in, for code that fills them later (the browser's
    views, a preset naming the learner's words).

    Raises
    ------
    ValueError
        If no catalog holds ``key``.
    """
    text = catalog().get(key) if isinstance(key, str) else None
    if text is None:
        raise ValueError(f"no message {key!r} in the catalogs of {LOCALE}")
    return text


def titles(group: str, keys: tuple[str, ...]) -> dict[str, str]:
    """The titles of ``keys``, in that order: the messages ``"<group>.<key>"`` (no fields).

    Raises
    ------
    ValueError
        If a key has no message.
    """
    return {key: say(f"{group}.{key}") for key in keys}


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
