"""The one share-link schema: every parameter any page reads from a link, and how.

A link is untrusted input. A missing parameter takes its default silently; a repeated one counts
by its last value; one too long or not understood takes its default *with a notice* (one plain
sentence, never echoing the raw text, which could hold markup), so a hostile or mangled link still
opens a working page. The lesson's shared state is :data:`SCENARIO_PARAMS`; each page's own
settings are declared here too, so that one test round-trips them all. Imports no lesson module.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from specviz import limits
from specviz._checks import choice, instance, mapping, sequence, whole
from specviz._checks import text as _text
from specviz.limits import MAX_LABEL, MAX_PARAM_CHARS, MAX_SEED, MAX_TOKENS, MAX_WEIGHT, MIN_TOKENS
from specviz.text import LANGUAGES, say, titles

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
    parse, format : callable
        ``parse(text) -> value`` (raises :class:`LinkError` saying what is allowed) and back.
    shown : callable
        ``shown()``: the default as a notice names it ("seed 7"), in the run's language.
    choices : tuple
        The values a widget offers (empty when any parsed value goes).
    check : callable or None
        Validates what :meth:`write` is given (default: one of ``choices``).
    omit_default : bool
        Leave the parameter out of a link while it has its default.
    tidy : callable or None
        ``tidy(text, value)``: a notice for a value accepted but changed on the way in, or None.
    personal : bool
        Kept in the address bar (a reload keeps it), never in the link the page offers to share.
    """

    name: str
    default: T
    parse: Callable[[str], T]
    format: Callable[[T], str]
    shown: Callable[[], str]
    choices: tuple[T, ...] = ()
    check: Callable[[object], T] | None = field(default=None, compare=False)
    omit_default: bool = False
    tidy: Callable[[str, T], str | None] | None = field(default=None, compare=False)
    personal: bool = False

    def read(self, query: Mapping[str, object]) -> tuple[T, str | None]:
        """The value the link gives this parameter, and a notice if it could not be used."""
        raw = mapping(query, "query").get(self.name)
        if isinstance(raw, list | tuple):  # a repeated parameter counts by its last value
            raw = raw[-1] if raw else ""
        if raw is None:
            return self.default, None
        text = raw if isinstance(raw, str) else str(raw)
        try:
            if len(text) > MAX_PARAM_CHARS:  # refused before parsing
                raise LinkError(say("links.too_long", chars=f"{len(text):,}"))
            value = self.parse(text)
        except LinkError as problem:
            notice = say("links.notice", name=self.name, problem=problem, shown=self.shown())
            return self.default, notice
        return value, self.tidy(text, value) if self.tidy else None

    def write(self, value: T) -> dict[str, str]:
        """The query-string entry for ``value`` (empty when the default is left out); ValueError
        if ``value`` is not one this parameter can take (a link must read back as written)."""
        value = self.check(value) if self.check else choice(value, self.name, self.choices)
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
    read = {param.name: param.read(query) for param in params}
    return {name: value for name, (value, _) in read.items()}, [n for _, n in read.values() if n]


def _plain(value: object) -> str:
    """A choice as a link writes it: a float without a needless ``.0`` (``1``, ``0.1``)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _choice(
    name: str,
    choices: Sequence[T],
    default: T,
    describe: Callable[[T], str] | Mapping[T, str],
    problem: Callable[[str], str] = lambda listed: say("links.one_of", choices=listed),
    format: Callable[[T], str] = _plain,
    omit_default: bool = False,
) -> Param[T]:
    """One of ``choices``, written as ``format(choice)`` (distinct texts); a number choice is
    also read from any spelling of its number. ``problem(listed)`` says the notice's words for any
    other text (``listed``: the choices, shortened past 6); ``describe`` names the default in a
    notice (or holds the choices' titles: the default's is named, quoted)."""
    by_text = {format(option): option for option in choices}
    shown = list(by_text)
    listed = ", ".join(shown) if len(shown) <= 6 else f"{shown[0]}, {shown[1]}, …, {shown[-1]}"

    def parse(text: str) -> T:
        text = text.strip()
        if text in by_text:
            return by_text[text]
        number = None if isinstance(default, str) else _number(text)
        if number is None or number not in choices:
            raise LinkError(problem(listed))
        return choices[choices.index(number)]

    def named() -> str:
        return describe(default) if callable(describe) else f"'{describe[default]}'"

    return Param(name, default, parse, format, named, tuple(choices), omit_default=omit_default)


def _flag(name: str, *on: str) -> Param[bool]:
    """An on/off setting: ``on`` (the first is written), 1, true or on for on; 0, false, off or
    nothing for off. Left out of links while off."""

    def parse(text: str) -> bool:
        word = text.strip().lower()
        if word in (*on, "1", "true", "on"):
            return True
        if word in ("0", "false", "off", ""):
            return False
        raise LinkError(say("links.not_on_off"))

    def write(value: bool) -> str:
        return on[0] if value else "0"

    def shown() -> str:
        return say("links.off", name=name)

    return Param(name, False, parse, write, shown, (False, True), omit_default=True)


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


def _number(text: str) -> float | None:
    """A number in any usual spelling (``1e6``, ``1M``, ``0.10``), or None (NaN is none)."""
    try:
        number = float(text if text.isascii() else "nan")  # not "٣٤": it reads as 34
    except ValueError:
        return short_number(text)
    return number if number == number else None


def label_rule() -> str:
    """What a vocabulary word may hold, in words (said before typing, and in notices)."""
    return say("links.label_rule", most=MAX_LABEL)


#: Most code points a word keeps (a family emoji is 7): any vocabulary fits in a link.
_LABEL_CODES = (MAX_PARAM_CHARS - MAX_TOKENS + 1) // MAX_TOKENS
#: Drawn with the code point before, besides marks: joiner, skin tones, tags; a flag is 2 letters.
_JOINERS = re.compile("[\u200d\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")
_FLAG = re.compile("[\U0001f1e6-\U0001f1ff]{2}")


def _extends(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "M" or bool(_JOINERS.match(ch))


def _graphemes(text: str) -> list[str]:
    """``text`` as the characters a reader sees (Unicode's grapheme clusters, simplified)."""
    out: list[str] = []
    for ch in _text(text, "text"):
        joined = out and out[-1][-1] == "\u200d" and unicodedata.category(ch) == "So"
        if out and (_extends(ch) or joined or _FLAG.fullmatch(out[-1] + ch)):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def clean_label(text: str) -> str:
    """A vocabulary word safe to show anywhere (typed or from a link): nothing HTML or Markdown
    reads, at most :data:`~specviz.limits.MAX_LABEL` characters as a reader counts them."""
    text = unicodedata.normalize("NFKC", _text(text, "text"))
    text = "".join(
        c
        for c in text
        if c.isalnum() or c in " '-.!?" or _extends(c) or unicodedata.category(c) == "So"
    )
    text = " ".join(unicodedata.normalize("NFKC", text).split())  # joined anew: composed again
    start = next((i for i, c in enumerate(text) if c != " " and not _extends(c)), len(text))
    kept = _graphemes(text[start : start + _LABEL_CODES + 1])[:MAX_LABEL]  # no lone mark first
    while len("".join(kept)) > _LABEL_CODES:
        kept.pop()
    return "".join(kept).rstrip()


def _entries(text: str, counted: Callable[[int], str]) -> list[str]:
    """A link's comma-separated list, if it has a vocabulary's length (``counted``: the notice)."""
    parts = text.split(",")
    if not MIN_TOKENS <= len(parts) <= MAX_TOKENS:
        raise LinkError(counted(len(parts)))
    return parts


def _weights(name: str, all_zero: Callable[[], str]) -> Param[tuple[int, ...] | None]:
    """The target's or the draft's weights; None (left out of links) means the default;
    ``all_zero()`` says the notice for weights that are all 0."""

    def parse(text: str) -> tuple[int, ...]:
        entries = _entries(
            text, lambda n: say("links.entries", n=n, least=MIN_TOKENS, most=MAX_TOKENS)
        )
        numbers = [_number(part) for part in entries]
        if any(n is None or not 0 <= n <= MAX_WEIGHT for n in numbers):
            raise LinkError(say("links.bad_weight", most=MAX_WEIGHT))
        weights = tuple(round(n) for n in numbers)
        if not any(weights):
            raise LinkError(all_zero())
        return weights

    def check(value: object) -> tuple[int, ...] | None:
        # All-zero weights are a state the editor can reach: written, they read back as a notice.
        if value is None:
            return None
        weights = sequence(value, name, minimum=MIN_TOKENS, maximum=MAX_TOKENS)
        return tuple(whole(w, f"{name}[{i}]", maximum=MAX_WEIGHT) for i, w in enumerate(weights))

    def join(value: tuple[int, ...]) -> str:
        return ",".join(map(str, value))

    def shown() -> str:
        return say("links.default_weights")

    return Param(name, None, parse, join, shown, check=check, omit_default=True)


def _words() -> Param[tuple[str, ...] | None]:
    """The vocabulary's words, cleaned; None (left out of links) means the default."""

    def parse(text: str) -> tuple[str, ...]:
        parts = _entries(text, lambda n: say("links.words", n=n, least=MIN_TOKENS, most=MAX_TOKENS))
        return tuple(
            clean_label(part) or say("links.word_n", n=i + 1) for i, part in enumerate(parts)
        )

    def tidy(text: str, value: tuple[str, ...]) -> str | None:
        if list(value) != [" ".join(part.split()) for part in text.split(",")]:
            return say("links.words_changed", rule=label_rule())
        return None

    def check(value: object) -> tuple[str, ...] | None:
        if value is None:
            return None
        words = sequence(value, "words", minimum=MIN_TOKENS, maximum=MAX_TOKENS)
        for i, word in enumerate(words):
            if not _text(word, f"words[{i}]") or clean_label(word) != word:
                raise ValueError(f"words[{i}] is not a clean word ({label_rule()}); got {word!r}")
        return words

    def shown() -> str:
        return say("links.default_words")

    return Param("words", None, parse, ",".join, shown, (), check, True, tidy)


def _seed(text: str) -> int:
    """A seed written in digits (LinkError unless from 0 to MAX_SEED)."""
    if re.fullmatch(rf"[0-9]{{1,{len(str(MAX_SEED))}}}", text.strip()) and int(text) <= MAX_SEED:
        return int(text)
    raise LinkError(say("links.bad_seed", most=f"{MAX_SEED:,}"))


WORDS = _words()
P_WEIGHTS = _weights("p", lambda: say("links.no_target"))
Q_WEIGHTS = _weights("q", lambda: say("links.no_draft"))
SEED = Param(
    "seed",
    7,
    _seed,
    str,
    lambda: say("links.seed", seed=7),
    check=lambda v: whole(v, "seed", maximum=MAX_SEED),
)
PROJECTOR = _flag("projector", "1")
LETTERS = _flag("letters", "chen", "swapped")
#: Always written: a link a lecturer shares opens in the language they chose, whatever the
#: student's browser prefers (which only a link without ``lang`` follows).
LANGUAGE = _choice("lang", tuple(LANGUAGES), "en", LANGUAGES)

#: The shared lesson state, in link order (see :func:`specviz.scenario.from_query`).
SCENARIO_PARAMS: tuple[Param[Any], ...] = (
    WORDS,
    P_WEIGHTS,
    Q_WEIGHTS,
    SEED,
    PROJECTOR,
    LETTERS,
    LANGUAGE,
)

#: Home: how good the example's draft is, in percent.
QUALITY = _choice("quality", tuple(range(0, 101, 5)), 30, lambda q: say("links.quality", q=q))
#: Playground and Many words per call: guesses per target call.
GAMMA = _choice("gamma", tuple(range(1, 9)), 4, "γ = {}".format)
#: Monte Carlo: how many runs.
RUNS = _choice(
    "n",
    limits.N_CHOICES,
    10_000,
    "N = {:,}".format,
    lambda listed: say("links.bad_runs", choices=listed),
    format_count,
)
#: One draw at a time: how many draws the story holds.
DRAWS = _choice("draws", (20, 50, 200, 500), 50, lambda n: say("links.draws", n=n))
#: One draw at a time: the player's steps from the start (4 a draw, and 1 for "all done").
PLAYER_AT = _choice(
    "at", range(4 * DRAWS.choices[-1] + 2), 0, lambda _: say("links.start"), omit_default=True
)
#: Bug zoo: the exhibit on show.
BUG = _choice(
    "bug",
    limits.MISTAKE_KEYS,
    "resample_from_p",
    limits.RULE_TITLES,
    lambda _: say("links.bad_bug"),
)

#: Many words per call's pair "your pair from the Playground": the scenario's weights, i.i.d.
YOUR_PAIR = "yours"
DECODE_PAIR = _choice(
    "pair",
    (*limits.PAIR_KEYS, YOUR_PAIR),
    "ngram",
    limits.PAIR_TITLES,
    lambda _: say("links.bad_pair"),
)
#: What one draft step costs, in target steps (the Playground's speed-up uses it too).
DECODE_COST = _choice(
    "c",
    limits.DECODE_COSTS,
    0.1,
    "c = {:g}".format,
    lambda _: say("links.bad_cost", choices=", ".join(map(_plain, limits.DECODE_COSTS))),
)
DECODE_TEMPERATURE = _choice(
    "temp",
    limits.DECODE_TEMPERATURES,
    1.0,
    lambda t: say("links.temperature", t=f"{t:g}"),
    lambda listed: say("links.bad_temperature", choices=listed),
)
DECODE_LENGTH = _choice("length", limits.DECODE_LENGTHS, 60, lambda n: say("links.n_words", n=n))
#: The sections below the controls, one tab each: only the open one is drawn.
DECODE_SECTIONS = titles("links.section", ("calls", "pays", "theory"))
DECODE_SECTION = _choice(
    "section",
    tuple(DECODE_SECTIONS),
    "calls",
    DECODE_SECTIONS,
    lambda _: say("links.bad_section"),
    omit_default=True,
)
DECODE_PARAMS = (DECODE_PAIR, GAMMA, DECODE_COST, DECODE_TEMPERATURE, DECODE_LENGTH, DECODE_SECTION)

#: Why it's exact: the state the proof is filled in with ("yours": the learner's own).
CASE = _choice(
    "case",
    ("yours", *limits.CASE_TITLES),
    "yours",
    lambda _: say("links.your_case"),
    lambda _: say("links.bad_case"),
)
#: Why it's exact: runs of the float32 exhibit, written 1e6 ... 1e12.
LEAK_RUNS = _choice(
    "leak",
    limits.LEAK_RUN_CHOICES,
    limits.LEAK_RUN_CHOICES[-1],
    "N = {:,}".format,
    lambda listed: say("links.bad_runs", choices=listed),
    lambda n: f"1e{len(str(n)) - 1}",
)
#: Is it just rejection sampling?: words each sampler emits.
REJECTION_RUNS = _choice(
    "runs",
    limits.REJECTION_RUN_CHOICES,
    10_000,
    lambda n: say("links.n_words", n=f"{n:,}"),
    lambda listed: say("links.bad_words", choices=listed),
    format_count,
)

#: Variants lab: the rules it shows — every rule that is not a mistake, in registry order.
VARIANTS: tuple[str, ...] = tuple(k for k in limits.RULE_TITLES if k not in limits.MISTAKE_KEYS)
VARIANT = _choice(
    "variant", VARIANTS, VARIANTS[0], limits.RULE_TITLES, lambda _: say("links.bad_variant")
)
CANDIDATES = _choice("k", limits.CANDIDATE_CHOICES, limits.DEFAULT_CANDIDATES, "k = {}".format)
TYPICAL_EPS = _choice(
    "eps",
    limits.TYPICAL_EPS_CHOICES,
    limits.DEFAULT_TYPICAL_EPS,
    "ε = {:g}".format,
    lambda _: say("links.bad_eps"),
)
TYPICAL_DELTA = _choice(
    "delta",
    limits.TYPICAL_DELTA_CHOICES,
    limits.DEFAULT_TYPICAL_DELTA,
    "δ = {:g}".format,
    lambda _: say("links.bad_delta"),
)
LAB_PARAMS = (VARIANT, CANDIDATES, TYPICAL_EPS, TYPICAL_DELTA)

#: Presenter mode: the step of the lecturer's plan on show (0: none; one per step of the plan).
STEP = _choice("step", tuple(range(18)), 0, lambda _: say("links.no_step"), omit_default=True)

#: The debate: the claim on show, one tab each (the lecturer's plan opens each in turn).
_CLAIM_KEYS = ("speed", "close", "rejection", "leaks")
CLAIMS = titles("links.claim", _CLAIM_KEYS)
_SAID = titles("links.said", _CLAIM_KEYS)
_VERDICTS = titles("links.verdict", _CLAIM_KEYS)


def claim_words() -> dict[str, tuple[str, str]]:
    """Each claim as it was said, and the debate's verdict, by key (The debate; Ask the room
    votes on them)."""
    return {key: (_SAID[key], _VERDICTS[key]) for key in _CLAIM_KEYS}


CLAIM = _choice(
    "claim", tuple(CLAIMS), "speed", CLAIMS, lambda _: say("links.bad_claim"), omit_default=True
)

#: Ask the room's codes: no 0/O or 1/I/L, which sound or look alike read out or projected.
ROOM_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
ROOM_LENGTH = 6  # 31**6 ≈ 887 million codes
_KEY = re.compile(r"[A-Za-z0-9_-]{32}")  # secrets.token_urlsafe(24)
_VOTER = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)


def room_code(text: str) -> str:
    """A room code as typed or linked, tidied (case, spaces, dashes); LinkError if none."""
    code = re.sub(r"[\s-]", "", _text(text, "room code")[:40]).upper()
    if len(code) != ROOM_LENGTH or any(c not in ROOM_ALPHABET for c in code):
        raise LinkError(say("links.bad_room", length=ROOM_LENGTH))
    return code


def lecturer_key(text: str) -> str:
    """A lecturer's key as linked; LinkError if it cannot be one."""
    if not _KEY.fullmatch(_text(text, "key")):
        raise LinkError(say("links.bad_key"))
    return text


def voter_id(text: str) -> str:
    """A student's voter id as linked; LinkError if it cannot be one."""
    if not _VOTER.fullmatch(_text(text, "voter")):
        raise LinkError(say("links.bad_voter"))
    return text


def _optional(
    name: str, parse: Callable[[str], str], shown: Callable[[], str], personal: bool = False
) -> Param[str]:
    """A text parameter that is "" (left out of links) when absent."""

    def check(value: object) -> str:
        return "" if value == "" else parse(_text(value, name))

    return Param(name, "", parse, str, shown, check=check, omit_default=True, personal=personal)


#: Ask the room: the room a student joins or a lecturer runs.
ROOM = _optional("room", room_code, lambda: say("links.no_room"))
#: Ask the room: the lecturer's key, only ever in the lecturer's own link.
KEY = _optional("key", lecturer_key, lambda: say("links.no_key"), personal=True)
#: Ask the room: a phone's voter id, kept in the phone's storage and sent with its requests
#: (specviz/ui/phones.py), so that a reload, or another server, is the same voter: the round's
#: first answer counts, never a second. Join links and QR codes carry none.
VOTER = _optional("voter", voter_id, lambda: say("links.new_voter"), personal=True)
