"""The one share-link schema: every parameter any page reads from a link, and how.

A link is untrusted input. Each parameter is a :class:`Param` — its name in the query string, its
default, how its text is parsed and written back — and every parameter is read by the same rules:
a missing one takes its default silently; a repeated one counts by its last value; one longer
than :data:`~specviz.limits.MAX_PARAM_CHARS` or not understood takes its default *with a notice*
(one plain sentence, never echoing the raw text, which could hold markup). A hostile or mangled
link therefore still opens a working page.

The lesson's shared state (words, weights, seed, display settings) is :data:`SCENARIO_PARAMS`;
each page's own settings are declared here too, so that one test can round-trip them all.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from specviz._checks import (
    choice,
    function,
    instance,
    mapping,
    real,
    sequence,
    whole,
    whole_array,
)
from specviz._checks import text as _text
from specviz.limits import (
    CANDIDATE_CHOICES,
    CASE_TITLES,
    DECODE_COSTS,
    DECODE_LENGTHS,
    DECODE_TEMPERATURES,
    DEFAULT_CANDIDATES,
    DEFAULT_TYPICAL_DELTA,
    DEFAULT_TYPICAL_EPS,
    LEAK_RUN_CHOICES,
    MAX_LABEL,
    MAX_PARAM_CHARS,
    MAX_SEED,
    MAX_TOKENS,
    MAX_WEIGHT,
    MIN_TOKENS,
    MISTAKE_KEYS,
    N_CHOICES,
    PAIR_KEYS,
    PAIR_TITLES,
    REJECTION_RUN_CHOICES,
    RULE_TITLES,
    TYPICAL_DELTA_CHOICES,
    TYPICAL_EPS_CHOICES,
)

T = TypeVar("T")


class LinkError(ValueError):
    """A parameter's text is not a value it can take; the message says what is allowed."""


@dataclass(frozen=True)
class Param(Generic[T]):
    """One query-string parameter.

    Attributes
    ----------
    name : str
        Its key in the query string.
    default : object
        The value a missing or refused parameter takes.
    parse : callable
        ``parse(text) -> value``; raises :class:`LinkError` saying what is allowed.
    format : callable
        ``format(value) -> text``, the inverse of ``parse``.
    omit_default : bool
        Leave the parameter out of a link when it has its default (on/off settings).
    tidy : callable or None
        ``tidy(text, value) -> sentence or None``: a notice for a value that was accepted but
        changed on the way in (characters removed from a word), or None.
    describe : callable or None
        ``describe(value) -> words`` naming a value in a notice (default: ``format``).
    choices : tuple
        The values a widget offers for it (empty when any parsed value goes).
    check : callable or None
        ``check(value) -> value``: the value :meth:`write` is given, validated (ValueError
        naming the parameter otherwise).
    """

    name: str
    default: T
    parse: Callable[[str], T]
    format: Callable[[T], str] = str
    omit_default: bool = False
    tidy: Callable[[str, T], str | None] | None = field(default=None, compare=False)
    describe: Callable[[T], str] | None = field(default=None, compare=False)
    choices: tuple[T, ...] = ()
    check: Callable[[object], T] | None = field(default=None, compare=False)

    def read(self, query: Mapping[str, object]) -> tuple[T, str | None]:
        """The value the link gives this parameter, and a notice if it could not be used."""
        raw = mapping(query, "query").get(self.name)
        if isinstance(raw, list | tuple):  # a repeated parameter counts by its last value
            raw = raw[-1] if raw else ""
        if raw is None:
            return self.default, None
        text = raw if isinstance(raw, str) else str(raw)
        fallback = f"the page uses {(self.describe or self.format)(self.default)}"
        if len(text) > MAX_PARAM_CHARS:
            return self.default, (
                f"The link's '{self.name}' is too long ({len(text):,} characters); {fallback}."
            )
        try:
            value = self.parse(text)
        except LinkError as problem:
            return self.default, f"The link's '{self.name}' {problem}; {fallback}."
        return value, self.tidy(text, value) if self.tidy else None

    def write(self, value: T) -> dict[str, str]:
        """The query-string entry for ``value`` (empty when the default is left out).

        Raises
        ------
        ValueError
            If ``value`` is not one this parameter can take (a link must read back as written).
        """
        if self.check is not None:
            value = self.check(value)
        if self.omit_default and value == self.default:
            return {}
        return {self.name: self.format(value)}


def read_all(
    params: Sequence[Param[Any]], query: Mapping[str, object]
) -> tuple[dict[str, Any], list[str]]:
    """Read several parameters: their values by name, and the notices in order."""
    for i, param in enumerate(sequence(params, "params")):
        instance(param, f"params[{i}]", Param, "a links.Param")
    mapping(query, "query")
    values: dict[str, Any] = {}
    notices: list[str] = []
    for param in params:
        values[param.name], notice = param.read(query)
        if notice:
            notices.append(notice)
    return values, notices


# ------------------------------------------------------------------------- building blocks


def choice_param(
    name: str,
    choices: Sequence[T],
    default: T,
    format: Callable[[T], str] = str,
    aliases: Callable[[str], T | None] | None = None,
    problem: str | None = None,
    describe: Callable[[T], str] | None = None,
) -> Param[T]:
    """A parameter that takes one of ``choices``, written as ``format(choice)``.

    ``choices`` are text or finite numbers; ``format`` must write them as distinct, non-empty
    texts without surrounding spaces (so each reads back as itself). ``aliases(text)`` may map
    other spellings to a choice (``1e6`` for ``1M``); ``problem`` is the notice's words for a
    value that is none of them (default: the list of choices); ``describe`` names a choice in
    notices.
    """
    name = _text(name, "name", empty=False)
    options = sequence(choices, "choices", minimum=1)
    for i, option in enumerate(options):
        if not isinstance(option, str):
            real(option, f"choices[{i}]")
    default = choice(default, "default (one of the choices)", options)
    format = function(format, "format")
    aliases = function(aliases, "aliases", optional=True)
    problem = None if problem is None else _text(problem, "problem", empty=False)
    describe = function(describe, "describe", optional=True)
    by_text = _written_choices(options, format)
    shown = list(by_text)
    listed = ", ".join(shown) if len(shown) <= 6 else f"{shown[0]}, {shown[1]}, …, {shown[-1]}"

    def parse(text: str) -> T:
        text = text.strip()
        if text in by_text:
            return by_text[text]
        value = aliases(text) if aliases else None
        if value is not None and value in options:
            return value
        raise LinkError(problem or f"must be one of {listed}")

    return Param(
        name,
        default,
        parse,
        format,
        describe=describe,
        choices=options,
        check=lambda value: choice(value, name, options),
    )


def _written_choices(options: tuple[T, ...], format: Callable[[T], str]) -> dict[str, T]:
    """Each choice by the text ``format`` writes it as (distinct, non-empty, no surrounding
    spaces, short enough for a link), or ValueError."""
    by_text: dict[str, T] = {}
    for option in options:
        written = format(option)
        if not isinstance(written, str) or not written or written != written.strip():
            raise ValueError(
                f"format must write each of the choices as non-empty text without surrounding "
                f"spaces; it writes {option!r} as {written!r}"
            )
        if len(written) > MAX_PARAM_CHARS:
            raise ValueError(f"format writes choices[{options.index(option)}] too long")
        by_text.setdefault(written, option)
    if len(by_text) < len(options):
        raise ValueError("choices must be distinct, and written (by format) as distinct texts")
    return by_text


def whole_param(
    name: str, low: int, high: int, default: int, describe: Callable[[int], str] | None = None
) -> Param[int]:
    """A whole number from ``low`` to ``high`` (both ``>= 0``), written in digits."""
    name = _text(name, "name", empty=False)
    low = whole(low, "low")
    high = whole(high, "high", maximum=10**MAX_PARAM_CHARS - 1)  # readable from a link
    if high < low:
        raise ValueError(f"low must not exceed high; got low = {low:,} and high = {high:,}")
    default = whole(default, f"default (from low {low:,} to high {high:,})", minimum=low)
    if default > high:
        raise ValueError(f"default must lie from low {low:,} to high {high:,}; got {default:,}")
    describe = function(describe, "describe", optional=True)
    digits = len(str(high))

    def parse(text: str) -> int:
        if re.fullmatch(rf"[0-9]{{1,{digits}}}", text.strip()):
            value = int(text)
            if low <= value <= high:
                return value
        raise LinkError(f"is not a whole number from {low} to {high:,}")

    return Param(
        name,
        default,
        parse,
        str,
        describe=describe,
        check=lambda value: whole(value, name, minimum=low, maximum=high),
    )


#: Words that mean "off" for every on/off setting.
_OFF_WORDS = ("0", "false", "off", "")


def flag_param(name: str, on: str, other_on: Sequence[str] = ()) -> Param[bool]:
    """An on/off setting: ``on`` (or one of ``other_on``) for on; absent, ``0`` or ``off``
    for off. Left out of links while off. The words are lower-case, without spaces."""
    name = _text(name, "name", empty=False)
    words = (on, *sequence(other_on, "other_on"))
    for i, word in enumerate(words):
        label = "on" if i == 0 else f"other_on[{i - 1}]"
        _text(word, label, empty=False, max_chars=MAX_PARAM_CHARS)
        if word != word.strip().lower() or word in _OFF_WORDS:
            raise ValueError(
                f"{label} must be a lower-case word without surrounding spaces, other than "
                f"{', '.join(map(repr, _OFF_WORDS))}; got {word!r}"
            )
    true = {*words, "1", "true", "on"}
    false = set(_OFF_WORDS)

    def parse(text: str) -> bool:
        word = text.strip().lower()
        if word in true:
            return True
        if word in false:
            return False
        raise LinkError("is not understood (it is an on/off setting)")

    return Param(
        name,
        False,
        parse,
        lambda v: on if v else "0",
        omit_default=True,
        describe=lambda v: f"'{name}' {'on' if v else 'off'}",
        check=lambda value: choice(value, name, (False, True)),
    )


def short_number(text: str) -> int | None:
    """``"1e6"``, ``"1M"``, ``"10k"`` or ``"1000000"`` as an int; None if it is no such number."""
    text = _text(text, "text")
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?(?:e[0-9]{1,2})?)([kmb]?)", text.strip().lower())
    if not match:
        return None
    value = float(match.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "b": 1e9}[match.group(2)]
    return int(value) if value.is_integer() else None


def format_count(n: int) -> str:
    """A sample size the short way: 1, 10, 100, 1k, 10k, 100k, 1M, 10M, 100M, 1B."""
    n = whole(n, "n")
    for size, suffix in ((10**9, "B"), (10**6, "M"), (10**3, "k")):
        if n >= size and n % size == 0:
            return f"{n // size}{suffix}"
    return f"{n:,}"


# -------------------------------------------------------------------- the lesson's state

# Letters (any script), digits, spaces and a little punctuation: enough for words, and nothing that
# HTML, Markdown or Plotly's text markup would interpret.
_LABEL_OK = re.compile(r"[^\w '\-.!?]|_", flags=re.UNICODE)

#: What a vocabulary word may hold, in words (for notices).
LABEL_RULE = f"words may hold letters, digits, spaces and - ' . ! ?, at most {MAX_LABEL} characters"


def clean_label(text: str) -> str:
    """A vocabulary word safe to show anywhere: plain text, no markup, at most
    :data:`~specviz.limits.MAX_LABEL` characters (typed words and link words alike)."""
    text = unicodedata.normalize("NFKC", _text(text, "text"))
    text = _LABEL_OK.sub("", text)
    text = " ".join(text.split())
    return text[:MAX_LABEL].strip()


def _weights(name: str, label: str) -> Param[tuple[int, ...] | None]:
    def parse(text: str) -> tuple[int, ...]:
        parts = text.split(",")
        if not MIN_TOKENS <= len(parts) <= MAX_TOKENS:
            raise LinkError(
                f"has {len(parts)} entries; between {MIN_TOKENS} and {MAX_TOKENS} are allowed"
            )
        weights = tuple(_link_weight(part) for part in parts)
        if not any(weights):
            raise LinkError(f"gives every word weight 0 (no {label} to draw from)")
        return weights

    def format(value: tuple[int, ...] | None) -> str:
        return "the default weights" if value is None else ",".join(map(str, value))

    def check(value: object) -> tuple[int, ...] | None:
        # All-zero weights are a state the editor can reach: written, they read back as a notice.
        if value is None:
            return None
        weights = whole_array(sequence(value, name), name, maximum=MAX_WEIGHT)
        if weights.ndim != 1 or not MIN_TOKENS <= weights.size <= MAX_TOKENS:
            raise ValueError(
                f"{name} must be a list of {MIN_TOKENS} to {MAX_TOKENS} weights; got {value!r:.60}"
            )
        return tuple(int(w) for w in weights)

    return Param(name, None, parse, format, omit_default=True, check=check)


def _link_weight(text: str) -> int:
    """One weight of a link, rounded to a whole number (LinkError unless from 0 to MAX_WEIGHT)."""
    try:
        number = float(text)
    except ValueError:
        number = float("nan")
    if not 0 <= number <= MAX_WEIGHT:  # NaN fails too
        raise LinkError(f"has an entry that is not a number from 0 to {MAX_WEIGHT}")
    return round(number)


def _words() -> Param[tuple[str, ...] | None]:
    def parse(text: str) -> tuple[str, ...]:
        parts = text.split(",")
        if not MIN_TOKENS <= len(parts) <= MAX_TOKENS:
            raise LinkError(
                f"names {len(parts)} words; between {MIN_TOKENS} and {MAX_TOKENS} are allowed"
            )
        return tuple(clean_label(part) or f"word {i + 1}" for i, part in enumerate(parts))

    def tidy(text: str, value: tuple[str, ...]) -> str | None:
        if list(value) != [" ".join(part.split()) for part in text.split(",")]:
            return f"Some characters in the link's words were changed ({LABEL_RULE})."
        return None

    def format(value: tuple[str, ...] | None) -> str:
        return "the default words" if value is None else ",".join(value)

    def check(value: object) -> tuple[str, ...] | None:
        if value is None:
            return None
        words = sequence(value, "words", minimum=MIN_TOKENS, maximum=MAX_TOKENS)
        for i, word in enumerate(words):
            if not _text(word, f"words[{i}]") or clean_label(word) != word:
                raise ValueError(f"words[{i}] is not a clean word ({LABEL_RULE}); got {word!r}")
        return words

    return Param("words", None, parse, format, omit_default=True, tidy=tidy, check=check)


WORDS = _words()
P_WEIGHTS = _weights("p", "target")
Q_WEIGHTS = _weights("q", "draft")
SEED = whole_param("seed", 0, MAX_SEED, 7, describe=lambda seed: f"seed {seed}")
PROJECTOR = flag_param("projector", "1")
LETTERS = flag_param("letters", "chen", other_on=("swapped",))

#: The shared lesson state, in link order (see :func:`specviz.scenario.from_query`).
SCENARIO_PARAMS: tuple[Param[Any], ...] = (WORDS, P_WEIGHTS, Q_WEIGHTS, SEED, PROJECTOR, LETTERS)

# --------------------------------------------------------------------------- each page's own

#: Home: how good the example's draft is, in percent (steps of 5).
QUALITY = choice_param(
    "quality", tuple(range(0, 101, 5)), 30, describe=lambda v: f"draft quality {v}%"
)
#: Playground: guesses per target call for the "words per call" number.
GAMMA = choice_param("gamma", tuple(range(1, 9)), 4, describe=lambda g: f"γ = {g}")
#: Monte Carlo: how many runs.
RUNS = choice_param(
    "n",
    N_CHOICES,
    10_000,
    format_count,
    aliases=short_number,
    problem="is not one of the offered numbers of runs (1, 10, …, 1B)",
    describe=lambda n: f"N = {n:,}",
)
#: One draw at a time: how many draws the story holds.
DRAWS = choice_param("draws", (20, 50, 200, 500), 50, describe=lambda n: f"{n} draws")
#: Bug zoo: the exhibit on show.
BUG = choice_param(
    "bug",
    MISTAKE_KEYS,
    "resample_from_p",
    problem="names a mistake the zoo does not have",
    describe=lambda key: f"'{RULE_TITLES[key]}'",
)

# ------------------------------------------------------------- Many words per call (decoding)
# The decoding page's own settings. Its γ is the Playground's GAMMA (one γ for the session).


def _decimal(text: str) -> float | None:
    """``"0.10"`` or ``"1.0"`` as a number (the offered values are written ``0.1``, ``1``)."""
    try:
        value = float(text)
    except ValueError:
        return None
    # NaN is never an offered value; + 0.0 turns "-0" into 0 (written back as "0", not "-0").
    return value + 0.0 if value == value else None


#: Which target and draft write the text.
DECODE_PAIR = choice_param(
    "pair",
    PAIR_KEYS,
    "ngram",
    problem="names a pair of models the page does not have",
    describe=lambda key: f"'{PAIR_TITLES[key]}'",
)
#: What one draft step costs, in target steps.
DECODE_COST = choice_param(
    "c",
    DECODE_COSTS,
    0.1,
    format=lambda c: f"{c:g}",
    aliases=_decimal,
    problem=f"is not one of the offered draft costs ({', '.join(f'{c:g}' for c in DECODE_COSTS)})",
    describe=lambda c: f"c = {c:g}",
)
#: The temperature of both models.
DECODE_TEMPERATURE = choice_param(
    "temp",
    DECODE_TEMPERATURES,
    1.0,
    format=lambda t: f"{t:g}",
    aliases=_decimal,
    problem="is not one of the offered temperatures "
    f"({', '.join(f'{t:g}' for t in DECODE_TEMPERATURES)})",
    describe=lambda t: f"temperature {t:g}",
)
#: How many words the page writes.
DECODE_LENGTH = choice_param("length", DECODE_LENGTHS, 60, describe=lambda n: f"{n} words")
#: Every setting of the decoding page, in link order.
DECODE_PARAMS: tuple[Param[Any], ...] = (
    DECODE_PAIR,
    GAMMA,
    DECODE_COST,
    DECODE_TEMPERATURE,
    DECODE_LENGTH,
)

# ------------------------------------------- Why it's exact, rejection sampling, variants lab

#: Why it's exact: the state the proof is filled in with ("yours": the learner's own).
CASE = choice_param(
    "case",
    ("yours", *CASE_TITLES),
    "yours",
    problem="names a case the page does not have",
    describe=lambda key: "your own target and draft" if key == "yours" else f"'{CASE_TITLES[key]}'",
)
#: Why it's exact: runs of the float32 exhibit, a million to a trillion (written 1e6 ... 1e12).
LEAK_RUNS = choice_param(
    "leak",
    LEAK_RUN_CHOICES,
    LEAK_RUN_CHOICES[-1],
    format=lambda n: f"1e{len(str(n)) - 1}",
    aliases=short_number,
    problem="is not one of the offered numbers of runs (1e6, 1e7, …, 1e12)",
    describe=lambda n: f"N = {n:,}",
)
#: Is it just rejection sampling?: words each sampler emits.
REJECTION_RUNS = choice_param(
    "runs",
    REJECTION_RUN_CHOICES,
    10_000,
    format_count,
    aliases=short_number,
    problem="is not one of the offered numbers of words (100, 1k, 10k, 100k)",
    describe=lambda n: f"{n:,} words",
)
#: Variants lab: the rules it shows — every rule that is not a mistake, in registry order.
VARIANTS: tuple[str, ...] = tuple(key for key in RULE_TITLES if key not in MISTAKE_KEYS)
#: Variants lab: the rule looked at closely.
VARIANT = choice_param(
    "variant",
    VARIANTS,
    VARIANTS[0],
    problem="names a rule the lab does not have",
    describe=lambda key: f"'{RULE_TITLES[key]}'",
)
#: Variants lab: draft candidates of the multi-candidate rule.
CANDIDATES = choice_param(
    "k",
    CANDIDATE_CHOICES,
    DEFAULT_CANDIDATES,
    describe=lambda k: f"k = {k}",
)
#: Variants lab: typical acceptance's ε and δ.
TYPICAL_EPS = choice_param(
    "eps",
    TYPICAL_EPS_CHOICES,
    DEFAULT_TYPICAL_EPS,
    format=lambda v: f"{v:g}",
    aliases=_decimal,
    problem="is not one of the offered values of ε (0 to 0.5 in steps of 0.01)",
    describe=lambda v: f"ε = {v:g}",
)
TYPICAL_DELTA = choice_param(
    "delta",
    TYPICAL_DELTA_CHOICES,
    DEFAULT_TYPICAL_DELTA,
    format=lambda v: f"{v:g}",
    aliases=_decimal,
    problem="is not one of the offered values of δ (0 to 1 in steps of 0.05)",
    describe=lambda v: f"δ = {v:g}",
)
#: Every setting of the Variants lab, in link order.
LAB_PARAMS: tuple[Param[Any], ...] = (VARIANT, CANDIDATES, TYPICAL_EPS, TYPICAL_DELTA)
