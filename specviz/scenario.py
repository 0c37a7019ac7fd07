"""The state a lesson is in — vocabulary, target and draft weights, seed, display mode — with the
presets that teach one lesson each, and the share-link format that restores it from a URL.

Pure Python and numpy, so that the parsing of untrusted links is tested without Streamlit. A link is
never trusted: every field is checked on its own and a bad one falls back to its default with a
notice, so a hostile or mangled link still opens a working page.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from specviz.one_token import normalize

MIN_TOKENS = 3
MAX_TOKENS = 10
MAX_WEIGHT = 100
MAX_LABEL = 12
MAX_SEED = 2**32 - 1
MAX_PARAM_CHARS = 300

DEFAULT_WORDS = ("mat", "sofa", "floor", "bed", "rug", "chair", "roof", "table", "box", "keyboard")
PROMPT = "The cat sat on the …"

# Letters (any script), digits, spaces and a little punctuation: enough for words, and nothing that
# HTML, Markdown or Plotly's text markup would interpret.
_LABEL_OK = re.compile(r"[^\w '\-.!?]|_", flags=re.UNICODE)


@dataclass(frozen=True)
class Scenario:
    """Everything a share link restores.

    Attributes
    ----------
    labels : tuple of str
        The vocabulary, ``MIN_TOKENS`` to ``MAX_TOKENS`` words.
    p_weights, q_weights : tuple of int
        Slider weights (0..100) of the target and the draft; normalised for display.
    seed : int
        Seed of every random draw the pages make.
    projector : bool
        Large type, thick lines, high contrast.
    swapped : bool
        Show Chen et al.'s lettering (q = target, p = draft) instead of Leviathan et al.'s.
    """

    labels: tuple[str, ...] = DEFAULT_WORDS[:4]
    p_weights: tuple[int, ...] = (40, 30, 20, 10)
    q_weights: tuple[int, ...] = (10, 20, 30, 40)
    seed: int = 7
    projector: bool = False
    swapped: bool = False

    @property
    def size(self) -> int:
        """Number of tokens in the vocabulary."""
        return len(self.labels)

    def distributions(self) -> tuple[np.ndarray, np.ndarray]:
        """The normalised target ``p`` and draft ``q``.

        Raises
        ------
        ValueError
            If all the weights of one model are zero (there is no distribution to normalise).
        """
        for name, weights in (("target p", self.p_weights), ("draft q", self.q_weights)):
            if not any(weights):
                raise ValueError(
                    f"All the {name} weights are zero, so there is no distribution to draw from. "
                    "Raise at least one slider."
                )
        return normalize(self.p_weights), normalize(self.q_weights)

    def with_weight(self, model: str, i: int, value: int) -> Scenario:
        """The same scenario with word ``i``'s weight under ``model`` ("p" or "q") set to
        ``value`` (clipped to 0..100)."""
        field = {"p": "p_weights", "q": "q_weights"}[model]
        weights = list(getattr(self, field))
        weights[i] = int(np.clip(int(value), 0, MAX_WEIGHT))
        return replace(self, **{field: tuple(weights)})

    def with_label(self, i: int, text: str) -> Scenario:
        """The same scenario with word ``i`` renamed to ``clean_label(text)`` (unchanged if that
        leaves nothing)."""
        labels = list(self.labels)
        labels[i] = clean_label(text) or labels[i]
        return replace(self, labels=tuple(labels))

    def resized(self, size: int) -> Scenario:
        """The same scenario with ``size`` tokens: new tokens get default words and weight 10."""
        size = int(np.clip(size, MIN_TOKENS, MAX_TOKENS))
        labels = self.labels[:size] + DEFAULT_WORDS[len(self.labels) : size]
        pad = (10,) * max(0, size - self.size)
        return replace(
            self,
            labels=labels,
            p_weights=self.p_weights[:size] + pad,
            q_weights=self.q_weights[:size] + pad,
        )


@dataclass(frozen=True)
class Preset:
    """A ready-made pair (p, q) that teaches one lesson."""

    key: str
    title: str
    lesson: str
    p_weights: tuple[int, ...]
    q_weights: tuple[int, ...]

    def lesson_for(self, labels: tuple[str, ...]) -> str:
        """The lesson, naming the learner's own words (``{w0}`` is the first word, ...)."""
        words = {f"w{i}": word for i, word in enumerate(labels)}
        # {T} and {D} survive for Notation.fill to letter them.
        return self.lesson.format(T="{T}", D="{D}", **words)

    def apply(self, current: Scenario) -> Scenario:
        """Load this preset's weights, keeping the learner's own words where there are enough."""
        sized = current.resized(len(self.p_weights))
        return replace(sized, p_weights=self.p_weights, q_weights=self.q_weights)


PRESETS: tuple[Preset, ...] = (
    Preset(
        "close",
        "Close draft",
        "A good draft: α = 90%, so most words cost one cheap guess and a quick check.",
        (40, 30, 20, 10),
        (30, 35, 25, 10),
    ),
    Preset(
        "garbage",
        "Garbage draft",
        "The draft never proposes what the target wants: α = 0, every proposal is rejected and "
        "every word comes from the bucket. Still exactly the target — just no faster.",
        (50, 50, 0, 0),
        (0, 0, 50, 50),
    ),
    Preset(
        "identical",
        "Identical",
        "Draft = target: α = 100%, nothing is ever rejected and the bucket is empty.",
        (40, 30, 20, 10),
        (40, 30, 20, 10),
    ),
    Preset(
        "misses",
        "Draft misses a word",
        "The draft never proposes '{w3}' ({D} = 0), yet '{w3}' comes out 10% of the time: "
        "the bucket supplies it.",
        (40, 30, 20, 10),
        (50, 30, 20, 0),
    ),
    Preset(
        "filters",
        "Target filters a word",
        "The target gives '{w3}' zero probability (a safety filter); the draft proposes it 10% "
        "of the time, and it is rejected every time. The filter holds exactly.",
        (50, 30, 20, 0),
        (40, 30, 20, 10),
    ),
    Preset(
        "long_tail",
        "Long tail",
        "Ten words with a long tail: a sharper draft over-samples the head and the bucket "
        "refills the tail.",
        (100, 50, 33, 25, 20, 17, 14, 13, 11, 10),
        (100, 35, 16, 9, 6, 4, 3, 2, 1, 1),
    ),
    Preset(
        "one_hot",
        "One-hot target",
        "A greedy target always says '{w0}': only proposals of '{w0}' survive, so α = 40%.",
        (100, 0, 0, 0),
        (40, 30, 20, 10),
    ),
)
PRESETS_BY_KEY = {preset.key: preset for preset in PRESETS}


def random_scenario(current: Scenario, seed: int) -> Scenario:
    """Random weights (0..100) for the current vocabulary, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    size = current.size
    p = rng.integers(0, MAX_WEIGHT + 1, size)
    q = rng.integers(0, MAX_WEIGHT + 1, size)
    # A sum of zero is no distribution; give the first token some weight in that (rare) case.
    p[0] += p.sum() == 0
    q[0] += q.sum() == 0
    return replace(
        current, p_weights=tuple(map(int, p)), q_weights=tuple(map(int, q)), seed=int(seed)
    )


def clean_label(text: str) -> str:
    """A vocabulary word safe to show anywhere: plain text, no markup, at most 12 characters."""
    text = unicodedata.normalize("NFKC", str(text))
    text = _LABEL_OK.sub("", text)
    text = " ".join(text.split())
    return text[:MAX_LABEL].strip()


# ---------------------------------------------------------------------------------------- links


def to_query(scenario: Scenario) -> dict[str, str]:
    """Query parameters that restore ``scenario`` (the share link's ``?...`` part)."""
    query = {
        "words": ",".join(scenario.labels),
        "p": ",".join(map(str, scenario.p_weights)),
        "q": ",".join(map(str, scenario.q_weights)),
        "seed": str(scenario.seed),
    }
    if scenario.projector:
        query["projector"] = "1"
    if scenario.swapped:
        query["letters"] = "chen"
    return query


QUERY_KEYS = ("words", "p", "q", "seed", "projector", "letters")


def from_query(params: Mapping[str, object]) -> tuple[Scenario, list[str]]:
    """Rebuild a scenario from untrusted query parameters.

    Parameters
    ----------
    params : mapping
        Query parameters as received (values may be str or lists of str, e.g. from a repeated key).

    Returns
    -------
    scenario : Scenario
        What the link describes; every field that is missing or invalid takes its default.
    notices : list of str
        One plain sentence per problem found, for the page to show. Empty for a good link.
    """
    default = Scenario()
    notices: list[str] = []
    raw = {key: _one_value(params.get(key)) for key in QUERY_KEYS}
    for key, value in raw.items():
        if value is not None and len(value) > MAX_PARAM_CHARS:
            notices.append(f"The link's '{key}' is too long ({len(value):,} characters); ignored.")
            raw[key] = None

    p_weights = _parse_weights(raw["p"], "p", notices)
    q_weights = _parse_weights(raw["q"], "q", notices)
    labels = _parse_labels(raw["words"], notices)

    sizes = {len(x) for x in (p_weights, q_weights, labels) if x is not None}
    if len(sizes) > 1:
        lengths = ", ".join(str(len(x)) for x in (labels, p_weights, q_weights) if x is not None)
        notices.append(
            f"The link's words, p and q have different lengths ({lengths}); "
            "the default example is shown instead."
        )
        p_weights = q_weights = labels = None
    size = sizes.pop() if len(sizes) == 1 else default.size
    base = default.resized(size)
    scenario = replace(
        base,
        labels=labels or base.labels,
        p_weights=p_weights or base.p_weights,
        q_weights=q_weights or base.q_weights,
        seed=_parse_seed(raw["seed"], default.seed, notices),
        projector=_parse_flag(raw["projector"], "projector", {"1", "true", "on"}, notices),
        swapped=_parse_flag(raw["letters"], "letters", {"chen", "swapped"}, notices),
    )
    return scenario, notices


def _one_value(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, list | tuple):
        value = value[-1] if value else ""
    return str(value)


def _parse_weights(value: str | None, name: str, notices: list[str]) -> tuple[int, ...] | None:
    if value is None:
        return None
    parts = value.split(",")
    if not MIN_TOKENS <= len(parts) <= MAX_TOKENS:
        notices.append(
            f"The link's '{name}' has {len(parts)} entries; between {MIN_TOKENS} and "
            f"{MAX_TOKENS} are allowed. Default weights are used."
        )
        return None
    weights = []
    for part in parts:
        try:
            number = float(part)
        except ValueError:
            number = float("nan")
        if not (np.isfinite(number) and 0 <= number <= MAX_WEIGHT):
            notices.append(
                f"The link's '{name}' has an entry that is not a number from 0 to {MAX_WEIGHT}. "
                "Default weights are used."
            )
            return None
        weights.append(round(number))
    if not any(weights):
        notices.append(f"The link's '{name}' weights are all zero. Default weights are used.")
        return None
    return tuple(weights)


def _parse_labels(value: str | None, notices: list[str]) -> tuple[str, ...] | None:
    if value is None:
        return None
    parts = value.split(",")
    if not MIN_TOKENS <= len(parts) <= MAX_TOKENS:
        notices.append(
            f"The link names {len(parts)} words; between {MIN_TOKENS} and {MAX_TOKENS} are "
            "allowed. The default words are used."
        )
        return None
    cleaned = [clean_label(part) for part in parts]
    if cleaned != [" ".join(part.split()) for part in parts]:
        notices.append(
            "Some characters in the link's words were removed (words may hold letters, digits, "
            f"spaces and - ' . ! ?, at most {MAX_LABEL} characters)."
        )
    return tuple(word or f"word {i + 1}" for i, word in enumerate(cleaned))


def _parse_seed(value: str | None, default: int, notices: list[str]) -> int:
    if value is None:
        return default
    if re.fullmatch(r"[0-9]{1,10}", value) and int(value) <= MAX_SEED:
        return int(value)
    notices.append(
        f"The link's seed is not a whole number from 0 to {MAX_SEED}; seed {default} is used."
    )
    return default


def _parse_flag(value: str | None, name: str, true_values: set[str], notices: list[str]) -> bool:
    if value is None or value.lower() in {"0", "false", "off", "leviathan", ""}:
        return False
    if value.lower() in true_values:
        return True
    notices.append(f"The link's '{name}' setting is not understood; ignored.")
    return False
