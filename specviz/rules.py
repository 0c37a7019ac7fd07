"""Verification rules — the correct one, its variants and the bug zoo's mistakes.

Each :class:`Rule` has its exact law in closed form, a literal sampler that never looks at the law
(the tests compare the two), a count-level sampler, its acceptance rate and its words (in rules.po),
lettered ``{T}`` and ``{D}``. Notation: target ``p``, draft ``q``, ``a(x) = min(1, p(x)/q(x))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.random import Generator
from numpy.typing import ArrayLike

from specviz import limits
from specviz._checks import choice, generator, real, whole
from specviz.one_token import OneTokenStep, step
from specviz.rejection import ClassicPlan
from specviz.sampling import SeedLike, inverse_cdf, multinomial_on_support
from specviz.sampling_settings import top_k
from specviz.text import Titles, titles

#: The emitted word has law ``p`` for every pair (p, q).
EXACT = "exact"
#: A bug: the output law is not ``p``, and nobody meant it to be otherwise.
MISTAKE = "mistake"
#: Not ``p`` in general, by design: faster (typical acceptance), or built for another target
#: (greedy verification reproduces greedy decoding, temperature 0, and nothing else).
TRADE_OFF = "trade-off"

#: A float32 uniform (numpy's ``random(dtype=float32)``, PyTorch's ``torch.rand``) is a random
#: 24-bit integer times 2**-24: it is exactly 0 with probability 2**-24 = 1/16,777,216.
FLOAT32_STEP = 2.0 ** -(np.finfo(np.float32).nmant + 1)

#: Each rule's sentences in rules.po, ``rules.<key>.<word>``: a :class:`Rule`'s properties.
_WORDS = ("what", "why", "source")

Values = dict[str, Any]
#: A two-route rule's (proposal law, chance that a proposed word is kept, fallback law).
Laws = tuple[np.ndarray, np.ndarray, np.ndarray]
#: What a literal test gives: (kept?, replacement words, or None to draw them from the fallback).
Tried = tuple[np.ndarray, np.ndarray | None]


@dataclass(frozen=True)
class Param:
    """A rule's numeric parameter: its name, default and allowed range."""

    name: str
    default: float
    low: float
    high: float = math.inf
    integer: bool = False

    def check(self, value: object) -> float | int:
        """``value`` validated (ValueError naming the parameter otherwise)."""
        if self.integer:
            top = None if math.isinf(self.high) else int(self.high)
            return whole(value, self.name, minimum=int(self.low), maximum=top)
        return real(value, self.name, low=self.low, high=self.high)


class RuleUnavailableError(ValueError):
    """The rule has no law on this pair (e.g. redrawing from q when p and q share no word)."""


def _ratio_test(s: OneTokenStep, draft: np.ndarray, keep: np.ndarray, rng: Generator) -> Tried:
    """Keep ``x`` when ``u·q(x) < p(x)``: ``a(x)`` without a division, never passed by p(x) = 0."""
    return rng.random(draft.size) * s.q[draft] < s.p[draft], None


@dataclass(frozen=True)
class _TwoRoutes:
    """A rule that proposes from one law, keeps a proposal with a fixed chance, and on a rejection
    emits a word of a fixed fallback law (its law, unless ``closed_form`` gives it)."""

    routes: Callable[[OneTokenStep, Values], Laws]
    #: A literal test of drafts, given the step, the drafts, the routes' keep chances and the rng.
    test: Callable[[OneTokenStep, np.ndarray, np.ndarray, Generator], Tried] = _ratio_test
    closed_form: Callable[[OneTokenStep], np.ndarray] | None = None

    def law(self, s: OneTokenStep, v: Values) -> np.ndarray:
        if self.closed_form is not None:
            return self.closed_form(s)
        proposal, keep, fallback = self.routes(s, v)
        kept = proposal * keep
        rejected = max(0.0, 1.0 - float(kept.sum()))
        return kept + rejected * fallback / fallback.sum()

    def acceptance(self, s: OneTokenStep, v: Values) -> float:
        proposal, keep, _ = self.routes(s, v)
        return float((proposal * keep).sum())

    def sample(self, s: OneTokenStep, n: int, rng: Generator, v: Values) -> np.ndarray:
        proposal, keep, fallback = self.routes(s, v)
        draft = inverse_cdf(proposal, rng.random(n))
        kept, replacement = self.test(s, draft, keep, rng)
        if replacement is None:
            replacement = draft.copy()
            replacement[~kept] = inverse_cdf(fallback, rng.random(int((~kept).sum())))
        return np.where(kept, draft, replacement)


def _candidate_steps(s: OneTokenStep, k: int) -> list[OneTokenStep]:
    """The one-token steps of the ``k`` tries: ``(p_1, q), (p_2, q), ...``."""
    steps = [s]
    while len(steps) < k and steps[-1].z > 0:  # with z = 0 every later candidate is kept
        bucket = steps[-1].bucket_weights
        steps.append(step(bucket / bucket.sum(), s.q))
    return steps


class _Candidates:
    """SpecInfer's ``k`` i.i.d. draft candidates: candidate ``i`` is tested against ``p_i``, then
    ``p_{i+1}`` is the bucket of ``(p_i, q)``; after ``k`` the word comes from the last bucket."""

    def law(self, s: OneTokenStep, v: Values) -> np.ndarray:
        law = np.zeros_like(s.p)
        reach = 1.0  # probability that every earlier candidate was rejected
        steps = _candidate_steps(s, v["k"])
        for one in steps:
            law += reach * one.kept
            reach *= one.z
        return law + reach * steps[-1].bucket_weights / steps[-1].bucket_weights.sum()

    def acceptance(self, s: OneTokenStep, v: Values) -> float:
        return 1.0 - math.prod(one.z for one in _candidate_steps(s, v["k"]))

    def sample(self, s: OneTokenStep, n: int, rng: Generator, v: Values) -> np.ndarray:
        out = np.empty(n, dtype=np.int64)
        pending = np.arange(n)
        steps = _candidate_steps(s, v["k"])
        for one in steps:  # a run kept early draws nothing more: random(0) takes no numbers
            draft = inverse_cdf(s.q, rng.random(pending.size))
            kept = rng.random(pending.size) * s.q[draft] < one.p[draft]
            out[pending[kept]] = draft[kept]
            pending = pending[~kept]
        out[pending] = inverse_cdf(steps[-1].bucket_weights, rng.random(pending.size))
        return out


class _Redraw:
    """Propose from q and test until a proposal is kept: law ``min(p, q)/alpha`` (``alpha > 0``)."""

    def law(self, s: OneTokenStep, v: Values) -> np.ndarray:
        return s.kept / s.alpha

    def acceptance(self, s: OneTokenStep, v: Values) -> float:
        return 1.0  # every emitted token is an accepted draft (eventually)

    def sample(self, s: OneTokenStep, n: int, rng: Generator, v: Values) -> np.ndarray:
        if n / s.alpha > limits.MAX_CLASSIC_PROPOSALS:
            raise ValueError(
                f"redraw_from_q with alpha = {s.alpha:.3g} needs about n/alpha = "
                f"{n / s.alpha:,.0f} proposals for n = {n:,} runs; the per-draw sampler allows at "
                f"most {limits.MAX_CLASSIC_PROPOSALS:,}. Use counts() for this case."
            )
        # Classic rejection sampling's retry loop with M = 1: the draft as an envelope.
        plan = ClassicPlan(s.p, s.q, 1.0, np.empty(0, dtype=np.int64))
        return plan.retry(n, rng, tries=1.0 / s.alpha)[0]


@dataclass(frozen=True)
class Rule:
    """One verification rule: its ``key`` (what a share link carries), its ``kind``
    (:data:`EXACT`, :data:`MISTAKE` or :data:`TRADE_OFF`), its private ``maths``, its ``words``
    (its sentences in rules.po, :attr:`what`, :attr:`why` and :attr:`source`) and its extra
    ``params``."""

    key: str
    kind: str
    maths: _TwoRoutes | _Candidates | _Redraw
    # Called on each reading, so a rule speaks the language of the run that reads it.
    words: Callable[[], Titles]
    params: tuple[Param, ...] = ()

    @property
    def title(self) -> str:
        """A few words for a legend or a menu."""
        return limits.RULE_TITLES[self.key]

    @property
    def what(self) -> str:
        """A sentence on what the procedure does."""
        return self.words()["what"]

    @property
    def why(self) -> str:
        """A sentence on why its output is — or is not — the target's law."""
        return self.words()["why"]

    @property
    def source(self) -> str:
        """Where the procedure is published or seen in code."""
        return self.words()["source"]

    @property
    def defaults(self) -> dict[str, Any]:
        """The parameters' default values."""
        return {param.name: param.default for param in self.params}

    def law(self, p: ArrayLike, q: ArrayLike, **params: Any) -> np.ndarray:
        """Exact law of the token this rule emits (ValueError on bad input;
        :class:`RuleUnavailableError`, a ValueError, where the rule has no law on this pair)."""
        s, values = self._prepare(p, q, params)
        law = np.maximum(self.maths.law(s, values), 0.0)  # prefix sums' differences: -1e-17 for 0
        return law / law.sum()

    def sample(
        self, p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None, **params: Any
    ) -> np.ndarray:
        """The tokens (int64) of ``n`` runs of the procedure (at most ``MAX_RULE_DRAWS``)."""
        s, values = self._prepare(p, q, params)
        size = whole(n, "n", maximum=limits.MAX_RULE_DRAWS)
        return self.maths.sample(s, size, generator(seed), values).astype(np.int64)

    def counts(
        self, p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None, **params: Any
    ) -> np.ndarray:
        """Output counts of ``n`` runs (``n`` up to 10**15), drawn from ``Multinomial(n, law)``."""
        size = whole(n, "n", maximum=limits.MAX_COUNT_DRAWS)
        return multinomial_on_support(generator(seed), size, self.law(p, q, **params))

    def acceptance(self, p: ArrayLike, q: ArrayLike, **params: Any) -> float:
        """Probability that the emitted token is a draft the rule accepted (one pass)."""
        s, values = self._prepare(p, q, params)
        return float(min(1.0, max(0.0, self.maths.acceptance(s, values))))

    def available(self, p: ArrayLike, q: ArrayLike) -> bool:
        """Whether the rule has a law on this pair (only ``redraw_from_q`` ever has not)."""
        return self._available(step(p, q))

    def _available(self, s: OneTokenStep) -> bool:
        return not isinstance(self.maths, _Redraw) or s.alpha > 0  # the loop never ends

    def _prepare(
        self, p: object, q: object, params: Mapping[str, Any]
    ) -> tuple[OneTokenStep, Values]:
        s = step(p, q)
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {', '.join(map(str, unknown))} for rule {self.key!r}; "
                f"it takes: {', '.join(self.defaults) or 'none'}"
            )
        values = {one.name: one.check(params.get(one.name, one.default)) for one in self.params}
        if not self._available(s):
            raise RuleUnavailableError(
                "redraw_from_q needs alpha = sum(min(p, q)) > 0; here p and q have disjoint "
                "supports, so no draft is ever accepted and the redraw loop never ends (the law "
                "does not exist)"
            )
        return s, values


def _standard(s: OneTokenStep, v: Values) -> Laws:
    """Propose from q, keep with ``a(x)``, refill from the bucket: the correct rule's routes."""
    return s.q, s.accept, s.bucket_weights


def _sure_test(s: OneTokenStep, draft: np.ndarray, keep: np.ndarray, rng: Generator) -> Tried:
    """A test that draws no uniform: the routes' keep chance is 1 or 0."""
    return keep[draft] > 0, None


def _greedy_routes(s: OneTokenStep, v: Values) -> Laws:
    """Keep only the target's top word (the first of a tie, as ``np.argmax``), else emit it."""
    top = (np.arange(s.size) == np.argmax(s.p)).astype(np.float64)
    return s.q, top, top


def _matching_test(s: OneTokenStep, draft: np.ndarray, keep: np.ndarray, rng: Generator) -> Tried:
    """The target draws its own word ``y ~ p``: a draft equal to it is kept, else ``y`` is."""
    own = inverse_cdf(s.p, rng.random(draft.size))
    return draft == own, own


def _inverted_test(s: OneTokenStep, draft: np.ndarray, keep: np.ndarray, rng: Generator) -> Tried:
    """``u < q(x)/p(x)`` without a division: a p(x) = 0 proposal always passes (q/0 = inf)."""
    return rng.random(draft.size) * s.p[draft] < s.q[draft], None


def _capped(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """``min(1, top/bottom)``; 1 where ``bottom == 0`` (the coded ``top/0 = inf``)."""
    with np.errstate(over="ignore"):  # a ratio overflows to inf only where it is >= 1 anyway
        return np.minimum(1.0, np.divide(top, bottom, out=np.ones_like(top), where=bottom > 0))


def _typical_mask(p: np.ndarray, eps: float, delta: float) -> np.ndarray:
    """1.0 where Medusa's test ``p(x) > min(eps, delta·exp(-H(p)))`` passes, 0.0 elsewhere."""
    support = p > 0
    entropy = float(-(p[support] * np.log(p[support])).sum())
    return (p > min(eps, delta * math.exp(-entropy))).astype(np.float64)


def _reuse_test(s: OneTokenStep, draft: np.ndarray, keep: np.ndarray, rng: Generator) -> Tried:
    """The ratio test, whose uniform then also picks the replacement from the bucket."""
    u = rng.random(draft.size)
    return u * s.q[draft] < s.p[draft], inverse_cdf(s.bucket_weights, u)


def _reuse_law(s: OneTokenStep) -> np.ndarray:
    """Law of the reused uniform: given a rejection of ``x``, ``u`` is uniform on ``[a(x), 1)``, and
    token ``k`` gains ``q(x)·|[a(x), 1) ∩ I_k|`` (``I_k`` its interval of the bucket's CDF, as
    :func:`~specviz.sampling.inverse_cdf` cuts it); summed over ``x``, ``G(F(k)) - G(F(k-1))`` with
    ``G(t) = sum_x q(x) max(0, t - a(x))``: sorted prefix sums."""
    bucket = s.bucket_weights
    edges = np.concatenate(([0.0], np.cumsum(bucket) / bucket.sum()))
    # inverse_cdf gives everything past the last positive token's lower edge to that token.
    edges[int(np.flatnonzero(bucket)[-1]) + 1 :] = 1.0
    rejectable = (s.q > 0) & (s.accept < 1)
    order = np.argsort(s.accept[rejectable], kind="stable")
    starts, weights = s.accept[rejectable][order], s.q[rejectable][order]
    w_cum = np.concatenate(([0.0], np.cumsum(weights)))
    wa_cum = np.concatenate(([0.0], np.cumsum(weights * starts)))
    j = np.searchsorted(starts, edges, side="right")
    return s.kept + np.diff(edges * w_cum[j] - wa_cum[j])


def _float32_accept(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``P(u <= p(x)/q(x))`` for a float32 uniform ``u``; 1 where ``q(x) = 0`` (vacuous)."""
    # u = j·step <= ratio  <=>  j <= ratio/step: floor(ratio/step) + 1 of the 1/step values of j.
    return np.minimum(1.0, (np.floor(_capped(p, q) / FLOAT32_STEP) + 1.0) * FLOAT32_STEP)


def _float32_test(s: OneTokenStep, draft: np.ndarray, keep: np.ndarray, rng: Generator) -> Tried:
    """A float32 uniform, as torch.rand draws it, compared with <= (a proposal has q > 0)."""
    u = rng.random(draft.size, dtype=np.float32)
    with np.errstate(over="ignore"):  # a ratio that overflows to inf passes, as it should
        return u <= s.p[draft] / s.q[draft], None


_ALL: tuple[Rule, ...] = (
    Rule("correct", EXACT, _TwoRoutes(_standard), lambda: titles("rules.correct", _WORDS)),
    Rule(
        "greedy",
        TRADE_OFF,
        _TwoRoutes(_greedy_routes, _sure_test),
        lambda: titles("rules.greedy", _WORDS),
    ),
    Rule(
        "token_matching",
        EXACT,
        # Kept: x = y, with chance q(x)p(x). Otherwise the target's own y: p(y)(1 - q(y)).
        _TwoRoutes(
            lambda s, v: (s.q, s.p, s.p * (1 - s.q)),
            _matching_test,
            lambda s: s.q * s.p + s.p * (1.0 - s.q),
        ),
        lambda: titles("rules.token_matching", _WORDS),
    ),
    Rule(
        "multi_candidate",
        EXACT,
        _Candidates(),
        lambda: titles("rules.multi_candidate", _WORDS),
        (Param("k", limits.DEFAULT_CANDIDATES, 1, limits.MAX_CANDIDATES, integer=True),),
    ),
    Rule(
        "resample_from_p",
        MISTAKE,
        _TwoRoutes(lambda s, v: (s.q, s.accept, s.p)),
        lambda: titles("rules.resample_from_p", _WORDS),
    ),
    Rule(
        "inverted_ratio",
        MISTAKE,
        _TwoRoutes(lambda s, v: (s.q, _capped(s.q, s.p), s.bucket_weights), _inverted_test),
        lambda: titles("rules.inverted_ratio", _WORDS),
    ),
    Rule("redraw_from_q", MISTAKE, _Redraw(), lambda: titles("rules.redraw_from_q", _WORDS)),
    Rule(
        "reuse_uniform",
        MISTAKE,
        _TwoRoutes(_standard, _reuse_test, _reuse_law),
        lambda: titles("rules.reuse_uniform", _WORDS),
    ),
    Rule(
        "topk_mismatch",
        MISTAKE,
        _TwoRoutes(lambda s, v: (top_k(s.q, v["k"]), s.accept, s.bucket_weights)),
        lambda: titles("rules.topk_mismatch", _WORDS),
        (Param("k", 2, 1, integer=True),),
    ),
    Rule(
        "float32_leq",
        MISTAKE,
        _TwoRoutes(lambda s, v: (s.q, _float32_accept(s.p, s.q), s.bucket_weights), _float32_test),
        lambda: titles("rules.float32_leq", _WORDS),
    ),
    Rule(
        "typical_acceptance",
        TRADE_OFF,
        _TwoRoutes(lambda s, v: (s.q, _typical_mask(s.p, v["eps"], v["delta"]), s.p), _sure_test),
        lambda: titles("rules.typical_acceptance", _WORDS),
        (
            Param("eps", limits.DEFAULT_TYPICAL_EPS, 0.0, 1.0),
            Param("delta", limits.DEFAULT_TYPICAL_DELTA, 0.0),
        ),
    ),
)

#: The registry, in display order: ``RULES[key]`` is a :class:`Rule`.
RULES: Mapping[str, Rule] = {rule.key: rule for rule in _ALL}


def get_rule(key: object) -> Rule:
    """Look a rule up by its key (ValueError listing the known keys otherwise)."""
    return RULES[choice(key, "rule key", tuple(RULES))]


def rules_of(kind: str) -> tuple[str, ...]:
    """Keys of the rules of one :attr:`Rule.kind`, in display order."""
    choice(kind, "kind", (EXACT, MISTAKE, TRADE_OFF))
    return tuple(key for key, rule in RULES.items() if rule.kind == kind)
