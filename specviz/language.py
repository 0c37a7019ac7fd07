"""Toy language models for the page "Many words per call": the six target/draft pairs it offers
and what the page shows of them (pure functions: the page caches their results).

The corpus (``specviz/data/corpus.txt``: twenty short sentences about a cat and a dog) is one
circle of 35 words. The target reads two words back (70 % trigram, 30 % bigram counts, so that it
recombines phrases). A bigram draft already knows the small words and set phrases ("sat on
*the*"); it misses where the second word back matters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from specviz._checks import choice, real, seed_value, short
from specviz.decoding import (
    Decoding,
    DecodingPair,
    WordsPerCall,
    curve,
    decode,
    decode_batch,
    decoding_pair,
    expected_calls,
    words_per_call,
)
from specviz.limits import CHECK_RUNS, CHECK_WORDS, CURVE_GAMMA, PAIR_KEYS
from specviz.one_token import normalize
from specviz.sampling_settings import sampled

CORPUS_PATH = Path(__file__).resolve().parent / "data" / "corpus.txt"
END = "."
_WORD = re.compile(r"[A-Za-z']+|\.")

#: math.md's worked example ("A two-step Markov check"): three words, two chains.
TEXTBOOK_WORDS = ("sun", "rain", "wind")
TEXTBOOK_TARGET = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]])
TEXTBOOK_DRAFT = np.array([[0.3, 0.4, 0.3], [0.3, 0.3, 0.4], [1 / 3, 1 / 3, 1 / 3]])
#: Weights of the target's two words back and its last word alone.
TARGET_WEIGHTS = (0.7, 0.3)
#: The "strong draft" is the target cut to this nucleus mass (top-p).
STRONG_TOP_P = 0.8
#: How many times hotter the "hotter draft" runs than the target.
HOTTER = 2.0
#: The "weak draft" guesses among this many commonest words (and any tied with the last).
WEAK_TOP_K = 8
#: The seed of the page's check: every learner sees the same measurement.
CHECK_SEED = 2023
#: What the page writes with: a pair's key, or the Playground's (target, draft) weights.
Source = str | tuple[tuple[int, ...], tuple[int, ...]]


def corpus() -> tuple[tuple[str, ...], np.ndarray]:
    """The vocabulary (lower case, most frequent first) and the text as a stream of word ids."""
    lines = [s for s in CORPUS_PATH.read_text(encoding="utf-8").splitlines() if s[:1] != "#"]
    text = [w.lower() for line in lines for w in _WORD.findall(line)]
    words = tuple(sorted(dict.fromkeys(text), key=lambda w: -text.count(w)))  # ties: first seen
    return words, np.array([words.index(w) for w in text], dtype=np.int64)


def _ngram_tables() -> tuple[dict[str, np.ndarray], np.ndarray, int]:
    """The corpus models as tables over contexts (each word alone, then each pair of words the
    corpus has), the context after each word, and the start (after a ".")."""
    words, a = corpus()
    v = len(words)
    b, c = np.roll(a, -1), np.roll(a, -2)  # in a circle: the last sentence leads to the first
    pairs = np.unique(a * v + b)
    ids = np.arange(v * v) % v  # the context of "x y": the pair if the corpus has it, else y alone
    ids[pairs], last = v + np.arange(pairs.size), np.r_[np.arange(v), pairs % v]
    bigram, trigram = np.zeros((v, v)), np.zeros((v * v, v))
    np.add.at(bigram, (a, b), 1.0)
    np.add.at(trigram, (a * v + b, c), 1.0)
    bigram = (bigram / bigram.sum(axis=1, keepdims=True))[last]
    trigram = trigram[pairs] / trigram[pairs].sum(axis=1, keepdims=True)
    target = np.r_[bigram[:v], TARGET_WEIGHTS[0] * trigram + TARGET_WEIGHTS[1] * bigram[v:]]
    unigram = np.tile(np.bincount(a, minlength=v) / a.size, (last.size, 1))
    tables = {"target": target, "bigram": bigram, "unigram": unigram}
    return tables, ids[last[:, None] * v + np.arange(v)], words.index(END)


#: The corpus models, counted once when the module is imported (a millisecond).
_NGRAMS = _ngram_tables()
_WORDS = corpus()[0]


def toy_words(key: str) -> tuple[str, ...]:
    """The words of a pair (one of :data:`~specviz.limits.PAIR_KEYS`)."""
    return TEXTBOOK_WORDS if choice(key, "key", PAIR_KEYS) == "textbook" else _WORDS


def toy_pair(key: Source, temperature: float) -> DecodingPair:
    """A pair's target and draft at a temperature applied to both (the text stays exact). The
    Playground's weights give one context: every guess is kept with the same chance α."""
    t = real(temperature, "temperature", low=0.0)
    if not isinstance(key, str):
        if not isinstance(key, tuple) or len(key) != 2:
            raise ValueError(f"key must be a pair's key or two weights; got {short(key)}")
        p, q = (sampled(normalize(weights)[None], t) for weights in key)
        return decoding_pair(p, q, follow=np.zeros(p.shape, dtype=np.int64))
    k = choice(key, "key", PAIR_KEYS)
    if k == "textbook":
        return decoding_pair(sampled(TEXTBOOK_TARGET, t), sampled(TEXTBOOK_DRAFT, t))
    rows, follow, start = _NGRAMS
    target = sampled(rows["target"], t)
    draft = {
        "ngram": lambda: sampled(rows["bigram"], t),
        "strong": lambda: sampled(rows["target"], t, top_p=STRONG_TOP_P),
        "weak": lambda: sampled(rows["unigram"], t, top_k=WEAK_TOP_K),
        "hotter": lambda: sampled(rows["target"], HOTTER * t),
        "perfect": lambda: target,
    }[k]()
    return decoding_pair(target, draft, follow=follow, start=start)


def toy_curve(key: Source, temperature: float) -> tuple[WordsPerCall, ...]:
    """The prediction for ``gamma = 0 .. CURVE_GAMMA`` (entry ``g`` at ``gamma = g``)."""
    return curve(toy_pair(key, temperature), top=CURVE_GAMMA)


def toy_run(key: Source, temperature: float, gamma: int, n_tokens: int, seed: int) -> Decoding:
    """One text of ``n_tokens`` words with ``gamma`` guesses per call, from a whole ``seed``."""
    return decode(toy_pair(key, temperature), gamma=gamma, n_tokens=n_tokens, seed=seed_value(seed))


@dataclass(frozen=True)
class Measured:
    """One pair's long-text ``prediction``, and for texts of
    :data:`~specviz.limits.CHECK_WORDS` words the exact mean number of target calls and what
    :data:`~specviz.limits.CHECK_RUNS` simulated texts took."""

    key: str
    prediction: WordsPerCall
    expected_calls: float
    mean_calls: float
    std_error: float


def toy_check(temperature: float, gamma: int) -> tuple[Measured, ...]:
    """Every pair's :class:`Measured` at a temperature and ``gamma``, at :data:`CHECK_SEED`."""
    rows = []
    for key in PAIR_KEYS:
        pair = toy_pair(key, temperature)
        predicted = words_per_call(pair, gamma=gamma)
        exact = expected_calls(pair, gamma=gamma, n_tokens=CHECK_WORDS)
        calls = decode_batch(
            pair, gamma=gamma, n_tokens=CHECK_WORDS, runs=CHECK_RUNS, seed=CHECK_SEED
        ).calls
        error = calls.std(ddof=1) / np.sqrt(calls.size)
        rows.append(Measured(key, predicted, exact, calls.mean(), error))
    return tuple(rows)
