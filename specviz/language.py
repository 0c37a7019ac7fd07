"""Toy language models of a small corpus, and the target/draft pairs the decoding page offers.

The corpus (``specviz/data/corpus.txt``, a few hundred short sentences about one house, written
for this project) is read once per process, on first use. Its text is one stream of words, every
sentence ending in ``"."``, the last sentence followed by the first, so that every word and every
pair of words in it is followed by something.

:class:`NgramModel` predicts the next word from the last ``order`` words by their counts in that
stream, mixed with lower orders: the target reads two words back, cheaper drafts read one word
(a bigram model) or none (word frequencies). A draft that reads one word back already knows most
function words and set phrases ("sat on *the*", "a cup *of*"); it misses where the second word
back matters. That is *why* a cheap draft's guesses are kept so often.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from specviz._checks import choice, real, seed_value, sequence, short, whole
from specviz.decoding import (
    Decoding,
    DecodingPair,
    LanguageModel,
    WordsPerCall,
    decode,
    decode_batch,
    decoding_pair,
    with_settings,
    words_per_call,
)
from specviz.limits import (
    CHECK_RUNS,
    CHECK_WORDS,
    COMMON_WORDS,
    CURVE_GAMMA,
    DECODE_KEPT_RESULTS,
    DECODE_KEPT_RUNS,
    IDLE_POLL,
    MAX_DECODE_GAMMA,
    MAX_DECODE_TOKENS,
    SHARES_WORDS,
)
from specviz.precomputed import CheckRow, CommonWords, CurvePoint, Tables, read_tables
from specviz.shared_results import shared

CORPUS_PATH = Path(__file__).resolve().parent / "data" / "corpus.txt"

#: The word that ends a sentence.
END = "."

_WORD = re.compile(r"[A-Za-z']+|\.")


@dataclass(frozen=True, eq=False)
class Corpus:
    """The corpus as word ids.

    Attributes
    ----------
    words : tuple of str
        The vocabulary in lower case, most frequent first (``"."`` included).
    stream : numpy.ndarray
        The whole text as word ids, sentence after sentence (read-only).
    sentences : int
        Number of sentences.
    names : frozenset of str
        Words the corpus writes with a capital inside a sentence (names: Mia, Sam, ...).
    """

    words: tuple[str, ...]
    stream: np.ndarray
    sentences: int
    names: frozenset[str]

    @property
    def size(self) -> int:
        """Vocabulary size."""
        return len(self.words)

    @functools.cached_property
    def _index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    def ids(self, text: str) -> tuple[int, ...]:
        """Word ids of ``text`` (lower-cased; every word must be in the vocabulary)."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a string of corpus words; got {short(text)}")
        out = []
        for word in _WORD.findall(text.lower()):
            if word not in self._index:
                raise ValueError(f"text holds {word!r}, which is not a word of the corpus")
            out.append(self._index[word])
        return tuple(out)

    def spelled(self, ids: Sequence[int], after_end: bool = True) -> list[str]:
        """The words of ``ids`` as they are written: a capital to start a sentence (the first
        word too when ``after_end``) and for names."""
        out, capital = [], after_end
        for i in ids:
            word = self.words[int(i)]
            if word in self.names or (capital and word != END):
                word = word[:1].upper() + word[1:]
            out.append(word)
            capital = word == END
        return out

    def text(self, ids: Sequence[int], after_end: bool = True) -> str:
        """``ids`` as readable text: capitals as in :meth:`spelled`, no space before ``"."``."""
        return " ".join(self.spelled(ids, after_end)).replace(" .", ".")


# shared (not functools.cache) here and below: a class opening the page on a fresh server asks
# from many threads at once, and one thread builds while the others wait.
@shared(1)
def corpus() -> Corpus:
    """The corpus, read and counted once per process (a few milliseconds).

    Returns
    -------
    Corpus
        The vocabulary (most frequent first), the text as word ids, and the names.

    Examples
    --------
    >>> corpus().words[:2]
    ('the', '.')
    """
    sentences = []
    names: set[str] = set()
    for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = _WORD.findall(line)
        if not words or words[-1] != END:
            words.append(END)
        names.update(w.lower() for w in words[1:] if w[:1].isupper())
        sentences.append([w.lower() for w in words])
    counts = Counter(w for s in sentences for w in s)
    first_seen: dict[str, int] = {}
    for w in (w for s in sentences for w in s):
        first_seen.setdefault(w, len(first_seen))
    vocab = tuple(sorted(counts, key=lambda w: (-counts[w], first_seen[w])))
    index = {w: i for i, w in enumerate(vocab)}
    stream = np.array([index[w] for s in sentences for w in s], dtype=np.int64)
    stream.setflags(write=False)
    return Corpus(words=vocab, stream=stream, sentences=len(sentences), names=frozenset(names))


class NgramModel(LanguageModel):
    """Next word from the last ``order`` words by their counts in the corpus, mixed with lower
    orders.

    After a context ``(a, b)`` seen in the corpus, the trigram model with weights ``(0.7, 0.3)``
    says ``0.7·count(a b w)/count(a b ·) + 0.3·count(b w)/count(b ·)``. After a context it has
    never seen it backs off to the longest ending it has seen (the weights of the orders it can
    use, renormalised). Order 0 is the plain word frequencies.

    Parameters
    ----------
    order : int
        Words read back: 0 (frequencies), 1 (bigram), 2 (trigram), ...
    weights : sequence of float, optional
        One non-negative weight per order ``order, order - 1, ..., max(order, 1)..1`` (for
        ``order = 0``: ignored), summing to a positive number. Default: all on the full order.
    """

    def __init__(self, order: int, weights: Sequence[float] | None = None) -> None:
        self._order = whole(order, "order (words read back)", maximum=3)
        depth = max(self._order, 1) if self._order else 0
        if weights is None:
            weights = [1.0] + [0.0] * (depth - 1) if depth else []
        w = [real(x, "weights", low=0.0) for x in weights]
        if len(w) != depth or (depth and sum(w) <= 0):
            raise ValueError(
                f"weights must hold {depth} non-negative numbers with a positive sum (one per "
                f"order {self._order} down to 1); got {short(weights)}"
            )
        self._weights = tuple(w)
        self._corpus = corpus()
        self._counts = _counts(self._order)
        self._cache: dict[tuple[int, ...], np.ndarray] = {}
        self._states: dict[tuple[int, ...], tuple[int, ...]] = {}

    @property
    def vocab_size(self) -> int:
        return self._corpus.size

    @property
    def order(self) -> int:
        return self._order

    @property
    def words(self) -> tuple[str, ...]:
        """The vocabulary."""
        return self._corpus.words

    def state(self, context: tuple[int, ...]) -> tuple[int, ...]:
        """The longest ending of ``context`` (at most :attr:`order` words) the corpus has."""
        # Compiling a pair asks this of every (context, word) it reaches, again at each
        # temperature: remembered, it is a dictionary lookup.
        found = self._states.get(context)
        if found is None:
            found = ()
            for length in range(min(self._order, len(context)), 0, -1):
                ending = context[len(context) - length :]
                if ending in self._counts[length]:
                    found = ending
                    break
            self._states[context] = found
        return found

    def next_word(self, context: tuple[int, ...]) -> np.ndarray:
        key = self.state(tuple(context))
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._mix(key)
            hit.setflags(write=False)
        return hit

    def _mix(self, key: tuple[int, ...]) -> np.ndarray:
        out = np.zeros(self.vocab_size)
        if not key:
            return _unigram().copy()
        # Weights of the orders this context allows (len(key) down to 1), renormalised.
        usable = self._weights[self._order - len(key) :]
        if sum(usable) == 0:  # only the orders it cannot use had weight: trust the longest
            usable = (1.0,) + (0.0,) * (len(usable) - 1)
        total = sum(usable)
        for length, weight in zip(range(len(key), 0, -1), usable, strict=True):
            if weight == 0:
                continue
            follows = self._counts[length][key[len(key) - length :]]
            out += (weight / total) * follows
        return out / out.sum()


@shared(4)
def _counts(order: int) -> dict[int, dict[tuple[int, ...], np.ndarray]]:
    """Per context length 1..order: context -> next-word frequencies (a distribution)."""
    stream = corpus().stream
    size, n = corpus().size, stream.size
    tables: dict[int, dict[tuple[int, ...], np.ndarray]] = {}
    for length in range(1, order + 1):
        raw: dict[tuple[int, ...], Counter[int]] = defaultdict(Counter)
        for i in range(n):
            # The stream is read in a circle: the last sentence is followed by the first.
            context = tuple(int(stream[(i - length + k) % n]) for k in range(length))
            raw[context][int(stream[i])] += 1
        table = {}
        for context, follow in raw.items():
            row = np.zeros(size)
            row[list(follow)] = list(follow.values())
            table[context] = row / row.sum()
        tables[length] = table
    return tables


@shared(1)
def _unigram() -> np.ndarray:
    freq = np.bincount(corpus().stream, minlength=corpus().size).astype(np.float64)
    return freq / freq.sum()


# ----------------------------------------------------------------------- the page's pairs


@dataclass(frozen=True)
class ToyPair:
    """A target and a draft for the decoding page: a key, a short name, the words and start.

    Attributes
    ----------
    key : str
        The pair's name in links.
    title : str
        A short name for a menu.
    words : tuple of str
        The vocabulary.
    start : tuple of int
        The prompt the text follows (the end of a sentence, for the corpus pairs).
    corpus : bool
        Whether the words are the corpus's (the text is then written as sentences).
    """

    key: str
    title: str
    words: tuple[str, ...]
    start: tuple[int, ...]
    corpus: bool = True


#: The worked example of the design notes (math.md, "A two-step Markov check"): three words.
TEXTBOOK_WORDS = ("sun", "rain", "wind")
TEXTBOOK_TARGET = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]])
TEXTBOOK_DRAFT = np.array([[0.3, 0.4, 0.3], [0.3, 0.3, 0.4], [1 / 3, 1 / 3, 1 / 3]])

#: Weights of the target's orders: 70 % the last two words, 30 % the last word alone (so that it
#: recombines phrases instead of reciting sentences).
TARGET_WEIGHTS = (0.7, 0.3)
#: Nucleus mass of the "strong draft": the target's likeliest words only.
STRONG_TOP_P = 0.8
#: How many times hotter the "hotter draft" runs than the target.
HOTTER = 2.0
#: The words the "weak draft" may guess: the most frequent ones.
WEAK_TOP_K = 40

PAIR_KEYS: tuple[str, ...] = ("ngram", "strong", "weak", "hotter", "perfect", "textbook")
PAIR_TITLES: dict[str, str] = {
    "ngram": "The n-gram pair",
    "strong": "A strong draft",
    "weak": "A weak draft",
    "hotter": "The target, hotter",
    "perfect": "A perfect draft",
    "textbook": "The worked example",
}


def toy_pair(key: str) -> ToyPair:
    """What the page needs to know about a pair besides its models.

    Parameters
    ----------
    key : str
        One of :data:`PAIR_KEYS`.

    Returns
    -------
    ToyPair
        Its name, its words and the prompt its texts follow.
    """
    k = choice(key, "key", PAIR_KEYS)
    if k == "textbook":
        return ToyPair(k, PAIR_TITLES[k], TEXTBOOK_WORDS, (0,), corpus=False)
    words = corpus().words
    return ToyPair(k, PAIR_TITLES[k], words, (words.index(END),))


def pair_models(key: str, temperature: float = 1.0) -> tuple[object, object]:
    """The target and the draft of a pair at a temperature (applied to both models).

    ``ngram``: trigram target, bigram draft. ``strong``: the draft is the target cut to its
    likeliest words (top-p :data:`STRONG_TOP_P`). ``weak``: the draft guesses from word
    frequencies alone (its :data:`WEAK_TOP_K` most frequent words). ``hotter``: the draft is the
    target at :data:`HOTTER` times the temperature. ``perfect``: the draft is the target.
    ``textbook``: math.md's three-word chains.

    Parameters
    ----------
    key : str
        One of :data:`PAIR_KEYS`.
    temperature : float, default 1.0
        ``T >= 0``, applied to both models (see :func:`~specviz.decoding.with_settings`).

    Returns
    -------
    tuple
        ``(target, draft)``: language models (matrices for ``textbook``).

    Raises
    ------
    ValueError
        On an unknown key or a bad temperature.
    """
    k = choice(key, "key", PAIR_KEYS)
    t = real(temperature, "temperature", low=0.0)
    if k == "textbook":
        return (with_settings(TEXTBOOK_TARGET, temperature=t),
                with_settings(TEXTBOOK_DRAFT, temperature=t))  # fmt: skip
    target = _ngram(2, TARGET_WEIGHTS)
    adjusted = with_settings(target, temperature=t)
    drafts = {
        "ngram": lambda: with_settings(_ngram(1), temperature=t),
        "strong": lambda: with_settings(target, temperature=t, top_p=STRONG_TOP_P),
        "weak": lambda: with_settings(_ngram(0), temperature=t, top_k=WEAK_TOP_K),
        "hotter": lambda: with_settings(target, temperature=HOTTER * t),
        "perfect": lambda: adjusted,  # one model: its rows are computed once
    }
    return adjusted, drafts[k]()


@shared(8)
def _ngram(order: int, weights: tuple[float, ...] | None = None) -> NgramModel:
    """One model per order and weights per process: its rows are computed once, whatever the
    pair and the temperature."""
    return NgramModel(order, weights)


def compiled_pair(key: str, temperature: float = 1.0) -> DecodingPair:
    """The pair compiled for the engine, once per (key, temperature) per process.

    Parameters
    ----------
    key : str
        One of :data:`PAIR_KEYS`.
    temperature : float, default 1.0
        Applied to both models.

    Returns
    -------
    DecodingPair
        Every context the two models reach from the pair's prompt (~1,000 for the corpus pairs).

    Raises
    ------
    ValueError
        On an unknown key or a bad temperature (before the shared results see them).
    """
    return _compiled_pair(*_setting(key, temperature))


def _setting(key: object, temperature: object) -> tuple[str, float]:
    """A pair's key and a temperature, validated: what the shared results are keyed on (an
    unhashable or a bool argument never reaches a cache; ``1`` and ``1.0`` are one setting)."""
    return choice(key, "key", PAIR_KEYS), real(temperature, "temperature", low=0.0)


def _gamma(gamma: object, minimum: int = 0) -> int:
    """Drafts per target call, ``minimum .. MAX_DECODE_GAMMA``."""
    return whole(gamma, "gamma (drafts per target call)", minimum=minimum,
                 maximum=MAX_DECODE_GAMMA)  # fmt: skip


@shared(DECODE_KEPT_RESULTS)
def _compiled_pair(key: str, temperature: float) -> DecodingPair:
    """:func:`compiled_pair` of validated arguments, computed once and shared."""
    target, draft = pair_models(key, temperature)
    return decoding_pair(target, draft, start=toy_pair(key).start)


# ------------------------------------------------------------------- what the page shows
# Each result is computed once per setting and process (every session shares it): the page adds
# Streamlit's cache on top, the figures read the same objects.


def toy_run(key: str, temperature: float, gamma: int, n_tokens: int, seed: int) -> Decoding:
    """One run of speculative decoding on a pair (the page's timeline and text).

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma, n_tokens, seed : int
        Drafts per target call, words to write, the seed (a whole number, never None: the run
        is shared).

    Returns
    -------
    Decoding

    Raises
    ------
    ValueError
        On a bad argument, naming it (before the shared results see it).
    """
    k, t = _setting(key, temperature)
    n = whole(n_tokens, "n_tokens", minimum=1, maximum=MAX_DECODE_TOKENS)
    return _toy_run(k, t, _gamma(gamma), n, seed_value(seed))


@shared(DECODE_KEPT_RUNS)
def _toy_run(key: str, temperature: float, gamma: int, n_tokens: int, seed: int) -> Decoding:
    """:func:`toy_run` of validated arguments, computed once and shared."""
    return decode(_compiled_pair(key, temperature), gamma=gamma, n_tokens=n_tokens, seed=seed)


def toy_prediction(key: str, temperature: float, gamma: int) -> WordsPerCall:
    """Words per call predicted without simulation, for one pair and one ``gamma``.

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma : int
        Drafts per target call.

    Returns
    -------
    WordsPerCall
        :func:`~specviz.decoding.words_per_call` of the compiled pair.

    Raises
    ------
    ValueError
        On a bad argument, naming it (before the shared results see it).
    """
    return _toy_prediction(*_setting(key, temperature), _gamma(gamma))


@shared(DECODE_KEPT_RESULTS)
def _toy_prediction(key: str, temperature: float, gamma: int) -> WordsPerCall:
    """:func:`toy_prediction` of validated arguments, computed once and shared."""
    return words_per_call(_compiled_pair(key, temperature), gamma=gamma)


def toy_point(key: str, temperature: float, gamma: int) -> CurvePoint:
    """What the page shows of the prediction at one ``gamma``: shipped when the table has the
    setting (:mod:`specviz.precomputed`), else computed from :func:`toy_prediction`.

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma : int
        Drafts per target call.

    Returns
    -------
    CurvePoint

    Raises
    ------
    ValueError
        On a bad argument, naming it.
    """
    k, t = _setting(key, temperature)
    return _shipped_or_computed("curve", computed_curve_point, k, t, _gamma(gamma))


def toy_curve(key: str, temperature: float) -> tuple[CurvePoint, ...]:
    """The prediction for ``gamma = 0 .. CURVE_GAMMA`` (the page's chart against gamma).

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.

    Returns
    -------
    tuple of CurvePoint
        Entry ``g`` is :func:`toy_point` at ``gamma = g``.

    Raises
    ------
    ValueError
        On a bad argument, naming it.
    """
    k, t = _setting(key, temperature)
    return tuple(toy_point(k, t, g) for g in range(CURVE_GAMMA + 1))


@dataclass(frozen=True)
class Measured:
    """Words per call measured on many texts (the honest check of the prediction).

    Attributes
    ----------
    words_per_call, std_error : float
        Pooled over :attr:`runs` texts of :attr:`n_tokens` words, every call counted in full.
    runs, n_tokens, calls : int
    """

    words_per_call: float
    std_error: float
    runs: int
    n_tokens: int
    calls: int


#: The seed of the page's check and of its long text: every learner sees the same numbers there.
CHECK_SEED = 2023


def toy_measured(key: str, temperature: float, gamma: int, seed: int) -> Measured:
    """Words per call over :data:`~specviz.limits.CHECK_RUNS` texts of
    :data:`~specviz.limits.CHECK_WORDS` words each.

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma, seed : int
        Drafts per target call and the seed (the page uses :data:`CHECK_SEED`).

    Returns
    -------
    Measured
        Words per call (every call counted in full) and its standard error.

    Raises
    ------
    ValueError
        On a bad argument, naming it (before the shared results see it).
    """
    return _toy_measured(*_setting(key, temperature), _gamma(gamma), seed_value(seed))


@shared(DECODE_KEPT_RESULTS)
def _toy_measured(key: str, temperature: float, gamma: int, seed: int) -> Measured:
    """:func:`toy_measured` of validated arguments, computed once and shared."""
    batch = decode_batch(_compiled_pair(key, temperature), gamma=gamma, n_tokens=CHECK_WORDS,
                         runs=CHECK_RUNS, seed=seed)  # fmt: skip
    return Measured(
        words_per_call=batch.words_per_call,
        std_error=batch.words_per_call_error,
        runs=CHECK_RUNS,
        n_tokens=CHECK_WORDS,
        calls=int(batch.calls.sum()),
    )


# ------------------------------------------------------------------------------- the check


def computed_check_row(key: str, temperature: float, gamma: int) -> CheckRow:
    """:class:`~specviz.precomputed.CheckRow` computed from the models (what the shipped table
    holds).

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma : int
        Drafts per target call.

    Returns
    -------
    CheckRow

    Raises
    ------
    ValueError
        On a bad argument, naming it.
    """
    key, temperature = _setting(key, temperature)
    gamma = _gamma(gamma)
    prediction = _toy_prediction(key, temperature, gamma)
    measured = _toy_measured(key, temperature, gamma, CHECK_SEED)
    return CheckRow(
        key=key,
        temperature=temperature,
        gamma=gamma,
        alpha=prediction.alpha,
        iid=prediction.iid,
        exact=prediction.long_run,
        measured=measured.words_per_call,
        std_error=measured.std_error,
        calls=measured.calls,
    )


def check_row(key: str, temperature: float, gamma: int) -> CheckRow:
    """One pair's prediction beside its measurement: shipped when the table has the setting,
    else :func:`computed_check_row` (the same numbers, computed now).

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma : int
        Drafts per target call.

    Returns
    -------
    CheckRow

    Raises
    ------
    ValueError
        On a bad argument, naming it.
    """
    k, t = _setting(key, temperature)
    return _shipped_or_computed("check", computed_check_row, k, t, _gamma(gamma))


def computed_curve_point(key: str, temperature: float, gamma: int) -> CurvePoint:
    """:class:`~specviz.precomputed.CurvePoint` of :func:`toy_prediction` (what the shipped
    table holds).

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma : int
        Drafts per target call.

    Returns
    -------
    CurvePoint

    Raises
    ------
    ValueError
        On a bad argument, naming it.
    """
    k, t = _setting(key, temperature)
    return CurvePoint.of(k, t, _toy_prediction(k, t, _gamma(gamma)))


@dataclass(frozen=True, eq=False)
class WordShares:
    """How often each word of many texts came from a kept guess.

    Attributes
    ----------
    emitted, kept : numpy.ndarray
        Per word of the vocabulary: times it was written, and times as a kept guess.
    n_tokens : int
        Words in all the texts together.
    """

    emitted: np.ndarray
    kept: np.ndarray
    n_tokens: int


def toy_word_shares(key: str, temperature: float, gamma: int, seed: int) -> WordShares:
    """Kept guesses per word over :data:`~specviz.limits.SHARES_WORDS` words: texts of
    :data:`~specviz.limits.CHECK_WORDS` words each, decoded together.

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma, seed : int
        Drafts per target call (at least 1) and the seed.

    Returns
    -------
    WordShares
        Per word: how often it was written, and how often as a kept guess.

    Raises
    ------
    ValueError
        On a bad argument, naming it (before the shared results see it).
    """
    k, t = _setting(key, temperature)
    return _toy_word_shares(k, t, _gamma(gamma, minimum=1), seed_value(seed))


@shared(DECODE_KEPT_RESULTS)
def _toy_word_shares(key: str, temperature: float, gamma: int, seed: int) -> WordShares:
    """:func:`toy_word_shares` of validated arguments, computed once and shared."""
    pair = _compiled_pair(key, temperature)
    runs = -(-SHARES_WORDS // CHECK_WORDS)
    batch = decode_batch(pair, gamma=gamma, n_tokens=CHECK_WORDS, runs=runs, seed=seed)
    size = pair.vocab_size
    emitted = np.bincount(batch.tokens.ravel(), minlength=size)
    kept = np.bincount(batch.tokens[batch.kept], minlength=size)
    emitted.setflags(write=False)
    kept.setflags(write=False)
    return WordShares(emitted=emitted, kept=kept, n_tokens=int(batch.tokens.size))


def computed_common_words(key: str, temperature: float, gamma: int) -> CommonWords:
    """The :data:`~specviz.limits.COMMON_WORDS` commonest words of :func:`toy_word_shares` at
    :data:`CHECK_SEED` (what the shipped table holds).

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma : int
        Drafts per target call (at least 1).

    Returns
    -------
    CommonWords

    Raises
    ------
    ValueError
        On a bad argument, naming it.
    """
    k, t = _setting(key, temperature)
    g = _gamma(gamma, minimum=1)
    shares = _toy_word_shares(k, t, g, CHECK_SEED)
    common = np.argsort(-shares.emitted, kind="stable")[:COMMON_WORDS]
    common = common[shares.emitted[common] > 0]
    return CommonWords(key=k, temperature=t, gamma=g, words=tuple(common.tolist()),
                       emitted=tuple(shares.emitted[common].tolist()),
                       kept=tuple(shares.kept[common].tolist()),
                       n_tokens=shares.n_tokens)  # fmt: skip


def toy_common_words(key: str, temperature: float, gamma: int) -> CommonWords:
    """The commonest words of a long text and their kept guesses: shipped when the table has
    the setting, else :func:`computed_common_words`.

    Parameters
    ----------
    key, temperature : str, float
        The pair and the temperature of both models.
    gamma : int
        Drafts per target call (at least 1).

    Returns
    -------
    CommonWords

    Raises
    ------
    ValueError
        On a bad argument, naming it.
    """
    k, t = _setting(key, temperature)
    g = _gamma(gamma, minimum=1)
    return _shipped_or_computed("common", computed_common_words, k, t, g)


# ---------------------------------------------------------------------- shipped in advance
# See specviz.precomputed: what a class would otherwise compute in its first minute, computed by
# ``python -m scripts.decoding_tables`` and checked by tests/test_language.py.

TABLES_PATH = Path(__file__).resolve().parent / "data" / "decoding_tables.json"

_Record = TypeVar("_Record", CheckRow, CurvePoint, CommonWords)


def corpus_fingerprint() -> str:
    """SHA-256 of the corpus file: a table computed from another corpus is not used."""
    return hashlib.sha256(CORPUS_PATH.read_bytes()).hexdigest()


def tables_header() -> dict[str, object]:
    """What a shipped table must have been computed with to be used."""
    return {"corpus_sha256": corpus_fingerprint(), "seed": CHECK_SEED, "runs": CHECK_RUNS,
            "words": CHECK_WORDS, "shares_words": SHARES_WORDS, "curve_gamma": CURVE_GAMMA,
            "common_words": COMMON_WORDS}  # fmt: skip


def computed_tables(
    pairs: Sequence[str], temperatures: Sequence[float], gammas: Sequence[int]
) -> Tables:
    """Every record the page shows for these settings, computed now (what the file ships).

    Parameters
    ----------
    pairs, temperatures, gammas : sequence
        The settings (``gamma >= 1``; the curve runs over ``0 .. CURVE_GAMMA`` whatever they are).

    Returns
    -------
    Tables

    Raises
    ------
    ValueError
        On a bad setting, naming it.
    """
    keys = [choice(k, "pairs", PAIR_KEYS) for k in sequence(pairs, "pairs", maximum=64)]
    temps = [real(t, "temperatures", low=0.0)
             for t in sequence(temperatures, "temperatures", maximum=64)]  # fmt: skip
    gs = [whole(g, "gammas", minimum=1, maximum=MAX_DECODE_GAMMA)
          for g in sequence(gammas, "gammas", maximum=64)]  # fmt: skip
    settings = [(k, t, g) for k in keys for t in temps for g in gs]
    curve = [(k, t, g) for k in keys for t in temps for g in range(CURVE_GAMMA + 1)]
    return Tables(
        check={s: computed_check_row(*s) for s in settings},
        curve={s: computed_curve_point(*s) for s in curve},
        common={s: computed_common_words(*s) for s in settings},
    )


def _shipped_or_computed(
    section: str, compute: Callable[[str, float, int], _Record], key: str, temperature: float,
    gamma: int,
) -> _Record:  # fmt: skip
    """A record of validated arguments: the shipped one, else computed now (the same numbers)."""
    found = getattr(shipped_tables(), section).get((key, temperature, gamma))
    return found if found is not None else compute(key, temperature, gamma)


@shared(1)
def shipped_tables() -> Tables:
    """The records of specviz/data/decoding_tables.json by (key, temperature, gamma); empty if
    the file is missing, unreadable or computed with another corpus, seed or size."""
    return read_tables(TABLES_PATH, tables_header())


# ------------------------------------------------------------------------ computed in advance
# A class that opens the decoding page and moves its controls asks, within a minute, for nearly
# every compiled pair the page offers: each text is written from one (~1.3 s of one core in all;
# the curves, checks and common words are shipped). Computed when asked, they arrive together
# and queue behind each other. So the page's first visit starts one background thread that
# computes them all (and whatever the shipped tables lack),
# nearest to that visit's setting first. A learner who asks for a result the thread is computing
# waits for it (shared_results); what the thread has not reached yet is computed when asked, as
# before. The thread starts a result only while the server is idle (no run for a moment): while a
# class is busy it would only take the core from their reruns (measured: p95 1.4 s -> 2.5 s).

_warm_lock = threading.Lock()
_warm_thread: threading.Thread | None = None


def warm_up_plan(
    pairs: Sequence[str], temperatures: Sequence[float], gammas: Sequence[int],
    start: tuple[str, float, int],
) -> list[tuple[str, float, int | None]]:  # fmt: skip
    """What :func:`warm_up` computes, in order: ``(key, temperature, None)`` for a compiled pair
    and its curve, ``(key, temperature, gamma)`` for its commonest words.

    Settings one control away from ``start`` (pair, temperature, gamma) come first: a learner
    moves one control at a time. Then two controls away, and so on.

    Parameters
    ----------
    pairs, temperatures, gammas : sequence
        The settings the page offers (keys of :data:`PAIR_KEYS`, ``T >= 0``, ``gamma >= 1``).
    start : tuple
        ``(key, temperature, gamma)`` to start from.

    Returns
    -------
    list of tuple
    """
    keys = [choice(k, "pairs", PAIR_KEYS) for k in sequence(pairs, "pairs", maximum=64)]
    temps = [real(t, "temperatures", low=0.0) for t in sequence(temperatures, "temperatures",
                                                                  maximum=64)]  # fmt: skip
    gs = [whole(g, "gammas", minimum=1, maximum=MAX_DECODE_GAMMA)
          for g in sequence(gammas, "gammas", maximum=64)]  # fmt: skip
    first = sequence(start, "start", minimum=3, maximum=3)
    key0, t0, g0 = choice(first[0], "start", PAIR_KEYS), real(first[1], "start"), first[2]
    items: list[tuple[int, str, float, int | None]] = []
    for t in temps:
        for key in keys:
            away = int(t != t0) + int(key != key0)
            items.append((away, key, t, None))
            items += [(away + int(g != g0), key, t, g) for g in gs]
    items.sort(key=lambda item: (item[0], item[3] is not None))
    return [item[1:] for item in items]


def warm_up(
    pairs: Sequence[str], temperatures: Sequence[float], gammas: Sequence[int],
    start: tuple[str, float, int], *, idle: Callable[[], bool] | None = None,
) -> bool:  # fmt: skip
    """Start computing, once per process in a background thread, every compiled pair, curve and
    commonest-words table of these settings (:func:`warm_up_plan`) the shipped tables lack;
    later calls return at once.

    Parameters
    ----------
    pairs, temperatures, gammas : sequence
        The settings the page offers.
    start : tuple
        ``(key, temperature, gamma)`` of the visit that starts it.
    idle : callable, optional
        Says whether the server is idle; the thread computes the next result only then (checked
        every :data:`~specviz.limits.IDLE_POLL` s), so that learners' runs never queue behind it.
        Default: always go on.

    Returns
    -------
    bool
        Whether this call started the thread.
    """
    global _warm_thread
    plan = warm_up_plan(pairs, temperatures, gammas, start)
    if idle is not None and not callable(idle):
        raise ValueError(f"idle must be a function of no arguments or None; got {short(idle)}")
    with _warm_lock:
        if _warm_thread is not None:
            return False
        _warm_thread = threading.Thread(
            target=_warm, args=(plan, idle), name="specviz-warm-up", daemon=True
        )
    _warm_thread.start()
    return True


def _warm(
    plan: Sequence[tuple[str, float, int | None]], idle: Callable[[], bool] | None = None
) -> None:
    for key, temperature, gamma in plan:
        while idle is not None and not idle():
            time.sleep(IDLE_POLL)
        try:
            if gamma is None:
                compiled_pair(key, temperature)  # every text the page writes needs it
                toy_curve(key, temperature)
            else:
                toy_common_words(key, temperature, gamma)
        except ValueError:
            continue  # the page computes it when asked, and says what is wrong
