"""The state a lesson is in — words, target and draft weights, seed, display — the presets that
teach one lesson each, and its share link (read with the one schema of :mod:`specviz.links`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from specviz._checks import instance, mapping, seed_value, sequence, short, whole
from specviz.limits import MAX_SEED, MAX_TOKENS, MAX_WEIGHT, MIN_TOKENS
from specviz.links import SCENARIO_PARAMS, SEED, clean_label, read_all
from specviz.one_token import OneTokenStep, normalize, step
from specviz.palette import Notation
from specviz.text import LANGUAGES, say, template, titles

DEFAULT_WORDS = ("mat", "sofa", "floor", "bed", "rug", "chair", "roof", "table", "box", "keyboard")
PROMPT = "The cat sat on the …"


def all_zero() -> str:
    """How the message of an all-zero model starts."""
    return say("scenario.all_zero")


# A page asks for its step several times a run (its results, its figures, its lesson), and a
# class on one link asks for the same one: computed once per pair of weights, read-only, shared.
@lru_cache(maxsize=256)
def _step_of(p_weights: tuple[int, ...], q_weights: tuple[int, ...]) -> OneTokenStep:
    return step(normalize(p_weights), normalize(q_weights))


@dataclass(frozen=True)
class Scenario:
    """Everything the pages share, and what a share link restores besides a page's own settings:
    the words ``labels``, the slider weights (0..100) of the target and the draft, the ``seed`` of
    every random draw, ``projector`` (large type, high contrast), ``swapped`` (q = target) and
    the ``language`` of every word on screen (a key of :data:`specviz.text.LANGUAGES`)."""

    labels: tuple[str, ...] = DEFAULT_WORDS[:4]
    p_weights: tuple[int, ...] = (40, 30, 20, 10)
    q_weights: tuple[int, ...] = (10, 20, 30, 40)
    seed: int = SEED.default
    projector: bool = False
    swapped: bool = False
    language: str = "en"

    def __post_init__(self) -> None:
        # The lesson's invariants live in the value: a link, a gesture, the editor and a preset
        # each build a Scenario, and a value that breaks one is refused here, never downstream.
        labels = instance(self.labels, "labels", tuple, "a tuple of words")
        n = len(sequence(labels, "labels", minimum=MIN_TOKENS, maximum=MAX_TOKENS))
        if any(not isinstance(w, str) or not w or clean_label(w) != w for w in labels):
            raise ValueError(f"labels must be clean words; got {short(labels)}")
        for name in ("p_weights", "q_weights"):
            weights = instance(getattr(self, name), name, tuple, "a tuple of weights")
            if len(weights) != n or any(
                type(w) is not int or not 0 <= w <= MAX_WEIGHT for w in weights
            ):
                raise ValueError(
                    f"{name} must be {n} whole numbers from 0 to {MAX_WEIGHT}; got {short(weights)}"
                )
        seed_value(self.seed, maximum=MAX_SEED)
        for name in ("projector", "swapped"):
            instance(getattr(self, name), name, bool, "True or False")
        if self.language not in LANGUAGES:
            raise ValueError(
                f"language must be one of {', '.join(LANGUAGES)}; got {self.language!r}"
            )

    @property
    def size(self) -> int:
        """Number of tokens in the vocabulary."""
        return len(self.labels)

    @property
    def notation(self) -> Notation:
        """The lettering the learner chose."""
        return Notation(swapped=self.swapped)

    @property
    def distributions_ok(self) -> bool:
        """Whether both models have a weight above zero (so :meth:`step` has a result)."""
        return any(self.p_weights) and any(self.q_weights)

    def step(self) -> OneTokenStep:
        """The exact one-token step; ValueError (starting :func:`all_zero`) where one model's
        weights are all zero."""
        if not any(self.p_weights):
            raise ValueError(say("scenario.no_target", all_zero=all_zero()))
        if not any(self.q_weights):
            raise ValueError(say("scenario.no_draft", all_zero=all_zero()))
        return _step_of(self.p_weights, self.q_weights)

    def next_seed(self) -> int:
        """The seed after this one (wrapping to 0 after :data:`~specviz.limits.MAX_SEED`)."""
        return (self.seed + 1) % (MAX_SEED + 1)

    def with_weight(self, model: str, i: int, value: int) -> Scenario:
        """Word ``i``'s weight under ``model`` ("p" or "q") set to ``value``, clipped to 0..100."""
        field = {"p": "p_weights", "q": "q_weights"}[model]
        weights = list(getattr(self, field))
        weights[i] = int(np.clip(int(value), 0, MAX_WEIGHT))
        return replace(self, **{field: tuple(weights)})

    def with_label(self, i: int, text: str) -> Scenario:
        """Word ``i`` renamed to ``clean_label(text)`` (unchanged if that leaves nothing)."""
        labels = list(self.labels)
        labels[i] = clean_label(text) or labels[i]
        return replace(self, labels=tuple(labels))

    def resized(self, size: int) -> Scenario:
        """``size`` tokens: new tokens get default words and weight 10."""
        size = int(np.clip(size, MIN_TOKENS, MAX_TOKENS))
        labels = self.labels[:size] + DEFAULT_WORDS[len(self.labels) : size]
        pad = (10,) * max(0, size - self.size)
        p, q = (weights[:size] + pad for weights in (self.p_weights, self.q_weights))
        return replace(self, labels=labels, p_weights=p, q_weights=q)


@dataclass(frozen=True)
class Preset:
    """A ready-made pair of weights that teaches one lesson: ``said()`` gives its title and its
    lesson in the run's language (``{T}``/``{D}`` letter the models, ``{w0}``, ``{w1}``, ... name
    the learner's words)."""

    key: str
    said: Callable[[], tuple[str, str]]
    p_weights: tuple[int, ...]
    q_weights: tuple[int, ...]

    @property
    def title(self) -> str:
        """The preset's name in menus."""
        return self.said()[0]

    @property
    def lesson(self) -> str:
        """The lesson, its words' fields ``{w0}``, ``{w1}``, ... left in."""
        return self.said()[1]

    def lesson_for(self, labels: tuple[str, ...]) -> str:
        """The lesson, naming the learner's own words."""
        words = {f"w{i}": word for i, word in enumerate(labels)}
        return self.lesson.format(T="{T}", D="{D}", **words)  # {T}, {D} are for Notation.fill

    def apply(self, current: Scenario) -> Scenario:
        """Load this preset's weights, keeping the learner's own words where there are enough."""
        sized = current.resized(len(self.p_weights))
        return replace(sized, p_weights=self.p_weights, q_weights=self.q_weights)

    def step(self) -> OneTokenStep:
        """The exact one-token step of this pair."""
        return _step_of(self.p_weights, self.q_weights)


#: The presets, in menu order: each one's title is the message ``scenario.<key>``.
_PRESET_KEYS = ("close", "garbage", "identical", "misses", "filters", "long_tail", "one_hot")
_PRESET_TITLES = titles("scenario", _PRESET_KEYS)
_LESSONS: dict[str, Callable[[], str]] = {
    "close": lambda: template("scenario.close_lesson"),
    "garbage": lambda: template("scenario.garbage_lesson"),
    "identical": lambda: template("scenario.identical_lesson"),
    "misses": lambda: template("scenario.misses_lesson"),
    "filters": lambda: template("scenario.filters_lesson"),
    "long_tail": lambda: template("scenario.long_tail_lesson"),
    "one_hot": lambda: template("scenario.one_hot_lesson"),
}
PRESETS: tuple[Preset, ...] = tuple(
    Preset(key, lambda key=key: (_PRESET_TITLES[key], _LESSONS[key]()), p, q)
    for key, p, q in (
        ("close", (40, 30, 20, 10), (30, 35, 25, 10)),
        ("garbage", (50, 50, 0, 0), (0, 0, 50, 50)),
        ("identical", (40, 30, 20, 10), (40, 30, 20, 10)),
        ("misses", (40, 30, 20, 10), (50, 30, 20, 0)),
        ("filters", (50, 30, 20, 0), (40, 30, 20, 10)),
        (
            "long_tail",
            (100, 50, 33, 25, 20, 17, 14, 13, 11, 10),
            (100, 35, 16, 9, 6, 4, 3, 2, 1, 1),
        ),
        ("one_hot", (100, 0, 0, 0), (40, 30, 20, 10)),
    )
)
PRESETS_BY_KEY = {preset.key: preset for preset in PRESETS}

#: Home's target, doubled: every draft Home offers (a blend in steps of 5 %) then has whole
#: weights, and the Playground can show exactly the same pair.
HOME_TARGET = (80, 60, 40, 20)


def home_scenario(quality: int, current: Scenario | None = None) -> Scenario:
    """Home's example: the default words and target, and the draft ``quality% · target + (100 -
    quality)% · reversed target`` (``quality`` in steps of 5); ``current`` gives the rest."""
    k = whole(quality, "quality", maximum=100)
    if k % 5:
        raise ValueError(f"quality must be a multiple of 5 from 0 to 100; got {k}")
    base = Scenario() if current is None else instance(current, "current", Scenario, "a Scenario")
    draft = tuple(
        (k * t + (100 - k) * r) // 100 for t, r in zip(HOME_TARGET, HOME_TARGET[::-1], strict=True)
    )
    return replace(base, labels=DEFAULT_WORDS[:4], p_weights=HOME_TARGET, q_weights=draft)


def random_scenario(current: Scenario, seed: int) -> Scenario:
    """Random weights (0..100) for the current words from ``seed``, which becomes the seed."""
    instance(current, "current", Scenario, "a Scenario")
    seed = seed_value(seed, maximum=MAX_SEED)
    weights = np.random.default_rng(seed).integers(0, MAX_WEIGHT + 1, (2, current.size))
    weights[:, 0] += weights.sum(axis=1) == 0  # a sum of zero is no distribution (a rare case)
    p, q = (tuple(map(int, row)) for row in weights)
    return replace(current, p_weights=p, q_weights=q, seed=int(seed))


def to_query(scenario: Scenario) -> dict[str, str]:
    """Query parameters that restore ``scenario`` (the share link's ``?...`` part)."""
    s = instance(scenario, "scenario", Scenario, "a Scenario")
    values = {"words": s.labels, "p": s.p_weights, "q": s.q_weights, "seed": s.seed}
    values |= {"projector": s.projector, "letters": s.swapped, "lang": s.language}
    query: dict[str, str] = {}
    for param in SCENARIO_PARAMS:
        query |= param.write(values[param.name])
    return query


def from_query(params: Mapping[str, object]) -> tuple[Scenario, list[str]]:
    """Rebuild a scenario from untrusted query parameters: what the link says, every missing or
    invalid field at its default, and a plain sentence per problem found."""
    values, notices = read_all(SCENARIO_PARAMS, mapping(params, "params"))
    labels, p_weights, q_weights = values["words"], values["p"], values["q"]
    sizes = [len(x) for x in (labels, p_weights, q_weights) if x is not None]
    if len(set(sizes)) > 1:
        notices.append(say("scenario.lengths_differ", lengths=", ".join(map(str, sizes))))
        labels = p_weights = q_weights = None
        sizes = []
    base = Scenario().resized(sizes[0]) if sizes else Scenario()  # the default, at the link's size
    given = (labels or base.labels, p_weights or base.p_weights, q_weights or base.q_weights)
    settings = (values["seed"], values["projector"], values["letters"], values["lang"])
    return Scenario(*given, *settings), notices
