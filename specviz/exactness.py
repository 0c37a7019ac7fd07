"""The data of the page "Why it's exact": the cases the proof is shown on (its own words and
weights, never the learner's), the predict-then-reveal questions with their answers computed from
the math, the float32 leak; and Home's draws."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import choice, prob_pair, seed_value, whole
from specviz.limits import CASE_TITLES, MAX_COUNT_DRAWS
from specviz.one_token import OneTokenStep
from specviz.rules import FLOAT32_STEP, RULES
from specviz.runs import COUNT_LEVEL, MonteCarloRun, monte_carlo
from specviz.scenario import DEFAULT_WORDS, PRESETS_BY_KEY, Preset, home_scenario
from specviz.text import titles, written

#: The words of every case and question: the Playground's first four.
WORDS: tuple[str, ...] = DEFAULT_WORDS[:4]

_LESSONS = titles(
    "exactness",
    ("lesson_filter", "lesson_misses", "lesson_identical", "lesson_disjoint", "lesson_one_hot"),
)
#: The cases, each an extreme the proof must survive ({T}/{D} letter the models).
CASES: tuple[Preset, ...] = tuple(
    # key=key: each case says its own words, not the last case's.
    Preset(key, lambda key=key: (CASE_TITLES[key], _LESSONS[f"lesson_{key}"]), p, q)
    for key, p, q in (
        ("filter", (50, 30, 20, 0), (0, 5, 5, 90)),
        ("misses", (40, 30, 20, 10), (50, 30, 20, 0)),
        ("identical", (40, 30, 20, 10), (40, 30, 20, 10)),
        ("disjoint", (50, 50, 0, 0), (0, 0, 50, 50)),
        ("one_hot", (100, 0, 0, 0), (40, 30, 20, 10)),
    )
)
CASES_BY_KEY: dict[str, Preset] = {case.key: case for case in CASES}
#: The case whose forbidden word shows the float32 leak.
FILTER = CASES_BY_KEY["filter"]


@dataclass(frozen=True)
class Question:
    """A question answered before the reveal: its :attr:`prompt` lettered with {T}/{D}, its
    ``choices`` (each option by key, said on reading), ``case`` the pair it is about, ``answer``
    the right option's index, computed, ``other`` a pair to compare."""

    key: str
    choices: Mapping[str, str]
    case: Preset
    answer: int
    other: Preset | None = None

    @property
    def prompt(self) -> str:
        """The question, in the language of the run that reads it."""
        return _PROMPTS[f"ask_{self.key}"]

    @property
    def options(self) -> tuple[str, ...]:
        """The options' texts, in order."""
        return tuple(self.choices.values())

    def is_right(self, guess: object) -> bool:
        """Whether ``guess`` (one of :attr:`options`) is the right answer."""
        return choice(guess, "guess", self.options) == self.options[self.answer]


_ALPHA_OPTIONS = (0.10, 0.25, 0.40, 0.60)


class _Shares(Mapping[str, str]):
    """Options that are shares: "0.1" -> "10%", written as the run's language writes it."""

    def __init__(self, shares: tuple[float, ...]) -> None:
        self._shares = {f"{v:g}": v for v in shares}

    def __getitem__(self, key: str) -> str:
        return written(f"{round(100 * self._shares[key])}%")

    def __iter__(self) -> Iterator[str]:
        return iter(self._shares)

    def __len__(self) -> int:
        return len(self._shares)


_TOPPED_UP = ({0}, {2}, {2, 3}, {0, 2, 3})


def _judge_missing(one: OneTokenStep) -> int:
    """How often 'bed' comes out: never, less, exactly or more often than the target wants."""
    out, want = float(one.output[3]), float(one.p[3])
    return 0 if out == 0 else 2 if abs(out - want) <= 1e-15 else 1 if out < want else 3


def _judge_worse(one: OneTokenStep, other: OneTokenStep) -> int:
    """Whether swapping the draft changes the words that come out, the speed, both or neither."""
    words, speed = not np.allclose(one.output, other.output), one.alpha != other.alpha
    return {(True, False): 0, (False, True): 1, (True, True): 2, (False, False): 3}[words, speed]


_MIRROR = Preset("mirror", lambda: ("Draft has it backwards", ""), (50, 30, 15, 5), (5, 15, 30, 50))
_OFF_BY_ONE = Preset(
    "off", lambda: ("One word under-proposed", ""), (40, 30, 20, 10), (50, 30, 5, 15)
)
_MISSES, _GOOD = CASES_BY_KEY["misses"], PRESETS_BY_KEY["close"]
_BAD = Preset(
    "bad", lambda: ("A draft that always says 'bed'", ""), (40, 30, 20, 10), (0, 0, 0, 100)
)

_PROMPTS = titles("exactness", ("ask_alpha", "ask_topped_up", "ask_missing", "ask_worse"))
_TOPPED_UP_OPTIONS = titles("exactness.topped_up", ("favourite", "floor", "floor_bed", "every"))
_MISSING_OPTIONS = titles("exactness.missing", ("never", "less", "exactly", "more"))
_WORSE_OPTIONS = titles("exactness.worse", ("words", "speed", "both", "neither"))

QUESTIONS: tuple[Question, ...] = (
    Question(
        "alpha",
        _Shares(_ALPHA_OPTIONS),
        _MIRROR,
        int(np.argmin([abs(v - _MIRROR.step().alpha) for v in _ALPHA_OPTIONS])),
    ),
    Question(
        "topped_up",
        _TOPPED_UP_OPTIONS,
        _OFF_BY_ONE,
        _TOPPED_UP.index(set(np.flatnonzero(_OFF_BY_ONE.step().refill > 0).tolist())),
    ),
    Question("missing", _MISSING_OPTIONS, _MISSES, _judge_missing(_MISSES.step())),
    Question("worse", _WORSE_OPTIONS, _BAD, _judge_worse(_BAD.step(), _GOOD.step()), other=_GOOD),
)
QUESTIONS_BY_KEY: dict[str, Question] = {question.key: question for question in QUESTIONS}


@dataclass(frozen=True, eq=False)
class Float32Leak:
    """``n`` count-level runs (one seed) of the float32 ``≤`` test and the strict ``<`` test: the
    chance ``per_proposal`` that a forbidden proposal passes ``≤``, the ``forbidden`` words, how
    often each test emitted one, and ``n`` times the exact chance that the ``≤`` test does."""

    n: int
    per_proposal: float
    forbidden: np.ndarray
    leaks: int
    strict_leaks: int
    expected_leaks: float


def float32_leak(p: ArrayLike, q: ArrayLike, n: int, seed: int) -> Float32Leak:
    """Run the float32 ``≤`` rule and the correct rule ``n`` times each (``0 <= n <= 10**15``) on
    target ``p`` and draft ``q``, both from ``seed``."""
    p, q = prob_pair(p, q)
    size = whole(n, "n", maximum=MAX_COUNT_DRAWS)
    start = seed_value(seed)
    bad = np.flatnonzero((p == 0) & (q > 0))
    leaky = RULES["float32_leq"]
    leaks, strict = (int(r.counts(p, q, size, start)[bad].sum()) for r in (leaky, RULES["correct"]))
    expected = float(size * leaky.law(p, q)[bad].sum())
    return Float32Leak(size, FLOAT32_STEP, bad, leaks, strict, expected)


def home_draws(quality: int, seed: int, n: int = 100_000) -> MonteCarloRun:
    """:func:`~specviz.runs.monte_carlo` of Home's pair with the draft at ``quality``, its counts
    drawn from their exact law (0.35 ms, not 11: Home draws at all 21 qualities for a new seed)."""
    one = home_scenario(quality).step()
    return monte_carlo(one.p, one.q, n, seed, method=COUNT_LEVEL)
