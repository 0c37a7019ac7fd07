"""Verification rules — the correct one, its variants and the bug zoo's mistakes.

Each :class:`Rule` has its exact law in closed form, a literal sampler that never looks at the law
(the tests compare the two), a count-level sampler, its acceptance rate, and its words, lettered
with ``{T}`` and ``{D}``. Notation: target ``p``, draft ``q``, ``a(x) = min(1, p(x)/q(x))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.random import Generator
from numpy.typing import ArrayLike

from specviz._checks import choice, generator, prob_pair, real, whole
from specviz.limits import (
    DEFAULT_CANDIDATES,
    DEFAULT_TYPICAL_DELTA,
    DEFAULT_TYPICAL_EPS,
    MAX_CANDIDATES,
    MAX_CLASSIC_PROPOSALS,
    MAX_COUNT_DRAWS,
    MAX_RULE_DRAWS,
    RULE_TITLES,
)
from specviz.one_token import OneTokenStep, step
from specviz.rejection import ClassicPlan
from specviz.sampling import SeedLike, inverse_cdf, multinomial_on_support
from specviz.sampling_settings import top_k

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
        for one in steps:
            if pending.size == 0:
                break
            draft = inverse_cdf(s.q, rng.random(pending.size))
            kept = rng.random(pending.size) * s.q[draft] < one.p[draft]
            out[pending[kept]] = draft[kept]
            pending = pending[~kept]
        if pending.size:
            out[pending] = inverse_cdf(steps[-1].bucket_weights, rng.random(pending.size))
        return out


class _Redraw:
    """Propose from q and test until a proposal is kept: law ``min(p, q)/alpha`` (``alpha > 0``)."""

    def law(self, s: OneTokenStep, v: Values) -> np.ndarray:
        return s.kept / s.alpha

    def acceptance(self, s: OneTokenStep, v: Values) -> float:
        return 1.0  # every emitted token is an accepted draft (eventually)

    def sample(self, s: OneTokenStep, n: int, rng: Generator, v: Values) -> np.ndarray:
        if n / s.alpha > MAX_CLASSIC_PROPOSALS:
            raise ValueError(
                f"redraw_from_q with alpha = {s.alpha:.3g} needs about n/alpha = "
                f"{n / s.alpha:,.0f} proposals for n = {n:,} runs; the per-draw sampler allows at "
                f"most {MAX_CLASSIC_PROPOSALS:,}. Use counts() for this case."
            )
        # Classic rejection sampling's retry loop with M = 1: the draft as an envelope.
        plan = ClassicPlan(s.p, s.q, 1.0, np.empty(0, dtype=np.int64))
        return plan.retry(n, rng, tries=1.0 / s.alpha)[0]


@dataclass(frozen=True)
class Rule:
    """One verification rule: its ``key`` (what a share link carries), its ``kind``
    (:data:`EXACT`, :data:`MISTAKE` or :data:`TRADE_OFF`), a sentence on ``what`` the procedure
    does and one on ``why`` its output is — or is not — the target's law, its ``source``, its
    private ``maths`` and its extra ``params``."""

    key: str
    kind: str
    what: str
    why: str
    source: str
    maths: _TwoRoutes | _Candidates | _Redraw
    params: tuple[Param, ...] = ()

    @property
    def title(self) -> str:
        """A few words for a legend or a menu."""
        return RULE_TITLES[self.key]

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
        size = whole(n, "n", maximum=MAX_RULE_DRAWS)
        return self.maths.sample(s, size, generator(seed), values).astype(np.int64)

    def counts(
        self, p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None, **params: Any
    ) -> np.ndarray:
        """Output counts of ``n`` runs (``n`` up to 10**15), drawn from ``Multinomial(n, law)``."""
        size = whole(n, "n", maximum=MAX_COUNT_DRAWS)
        return multinomial_on_support(generator(seed), size, self.law(p, q, **params))

    def acceptance(self, p: ArrayLike, q: ArrayLike, **params: Any) -> float:
        """Probability that the emitted token is a draft the rule accepted (one pass)."""
        s, values = self._prepare(p, q, params)
        return float(min(1.0, max(0.0, self.maths.acceptance(s, values))))

    def available(self, p: ArrayLike, q: ArrayLike) -> bool:
        """Whether the rule has a law on this pair (only ``redraw_from_q`` ever has not)."""
        return self._available(step(*prob_pair(p, q)))

    def _available(self, s: OneTokenStep) -> bool:
        return not isinstance(self.maths, _Redraw) or s.alpha > 0  # the loop never ends

    def _prepare(
        self, p: object, q: object, params: Mapping[str, Any]
    ) -> tuple[OneTokenStep, Values]:
        s = step(*prob_pair(p, q))
        known = {param.name: param for param in self.params}
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {', '.join(map(str, unknown))} for rule {self.key!r}; "
                f"it takes: {', '.join(known) or 'none'}"
            )
        values = {
            name: param.check(params.get(name, param.default)) for name, param in known.items()
        }
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
    Rule(
        key="correct",
        kind=EXACT,
        maths=_TwoRoutes(_standard),
        what=(
            "Accept the draft x with probability min(1, {T}(x)/{D}(x)); on a rejection draw "
            "the replacement from the leftover bucket max(0, {T} − {D}), rescaled to sum to 1."
        ),
        why=(
            "Accepted drafts deliver min({T}, {D}) and the bucket delivers max(0, {T} − {D}); "
            "together exactly {T}."
        ),
        source="Leviathan, Kalman & Matias (ICML 2023), Algorithm 1; Chen et al. (2023).",
    ),
    Rule(
        key="greedy",
        kind=TRADE_OFF,
        maths=_TwoRoutes(_greedy_routes, _sure_test),
        what=(
            "The draft x is kept only if it is the target's most likely word (the largest "
            "{T}(x)); otherwise that most likely word is emitted instead."
        ),
        why=(
            "Exact for greedy decoding (temperature 0), where the target itself always says its "
            "top word. Wherever {T} spreads over several words it is not {T}: the top word "
            "always comes out and the others never do."
        ),
        source=(
            "Leviathan et al. (2023) for temperature 0; serving engines verify greedy requests "
            "this way (vLLM v1, `vllm/v1/sample/rejection_sampler.py`, "
            "`rejection_greedy_sample_kernel`: a draft is rejected when it differs from the "
            "target's top word)."
        ),
    ),
    Rule(
        key="token_matching",
        kind=EXACT,
        # Kept: x = y, with chance q(x)p(x). Otherwise the target's own y: p(y)(1 - q(y)).
        maths=_TwoRoutes(
            lambda s, v: (s.q, s.p, s.p * (1 - s.q)),
            _matching_test,
            lambda s: s.q * s.p + s.p * (1.0 - s.q),
        ),
        what=(
            "The target draws its own word from {T}, independently of the draft; the draft is "
            "kept if it is the same word, and otherwise the target's word is emitted."
        ),
        why=(
            "The word that comes out is always the target's own draw, so it follows {T} "
            "exactly; but the two draws agree only with probability Σ {T}·{D}, never more than "
            "the share of guesses the correct rule keeps, α = Σ min({T}, {D})."
        ),
        source=(
            "Hugging Face transformers' assisted generation when the draft gives no "
            "probabilities (`src/transformers/generation/utils.py`, `_assisted_decoding`: the "
            "target samples and keeps the candidates equal to its samples); Miao et al.'s "
            "SpecInfer (2024) calls it naive sampling."
        ),
    ),
    Rule(
        key="multi_candidate",
        kind=EXACT,
        maths=_Candidates(),
        what=(
            "The draft offers k candidates, each drawn from {D}, tried in turn: each is kept "
            "with min(1, {T}'(x)/{D}(x)) for the current target {T}', and after each rejection "
            "{T}' is replaced by its leftover bucket; after k rejections the word comes from "
            "the last bucket."
        ),
        why=(
            "Each try is the exact one-token rule for the current target, so the word that "
            "comes out follows {T} exactly; every extra candidate is another chance to keep a "
            "guess, paid for with another draft proposal."
        ),
        source=(
            "Miao et al., SpecInfer (ASPLOS 2024), multi-step speculative sampling; with k = 1 "
            "it is the standard rule."
        ),
        params=(Param("k", DEFAULT_CANDIDATES, 1, MAX_CANDIDATES, integer=True),),
    ),
    Rule(
        key="resample_from_p",
        kind=MISTAKE,
        maths=_TwoRoutes(lambda s, v: (s.q, s.accept, s.p)),
        what="On a rejection the word is drawn from {T} instead of from the leftover bucket.",
        why=(
            "The accepted route already delivered min({T}, {D}), so topping up every rejection "
            "from {T} instead of the bucket counts the shared mass twice: the output leans "
            "towards {D}."
        ),
        source=(
            "A common shortcut in blog-post implementations; Leviathan et al. draw from the "
            "leftover bucket (Algorithm 1)."
        ),
    ),
    Rule(
        key="inverted_ratio",
        kind=MISTAKE,
        maths=_TwoRoutes(lambda s, v: (s.q, _capped(s.q, s.p), s.bucket_weights), _inverted_test),
        what=(
            "The test keeps a draft with probability min(1, {D}(x)/{T}(x)) — the two models "
            "swapped, as happens when mixing papers that name the target differently — while "
            "the bucket is left unchanged."
        ),
        why=(
            "Words the draft over-proposes are now always kept and under-proposed ones are "
            "bounced, so the output drifts towards the draft instead of being corrected."
        ),
        source=(
            "Chen et al. (2023) call the target q and the draft p; code that follows one paper's "
            "letters with the other's formula inverts the ratio."
        ),
    ),
    Rule(
        key="redraw_from_q",
        kind=MISTAKE,
        maths=_Redraw(),
        what=(
            "On a rejection the draft is thrown away and a fresh draft is drawn from {D}, again "
            "and again until one passes the test; the leftover bucket is never used."
        ),
        why=(
            "Only the accepted route min({T}, {D}) ever emits, scaled up to sum to 1; the "
            "probability {T} has beyond {D}, which only the bucket can supply, is lost."
        ),
        source=(
            "Classic rejection sampling's retry loop, without the bound M ≥ max {T}/{D} that "
            "makes that loop exact."
        ),
    ),
    Rule(
        key="reuse_uniform",
        kind=MISTAKE,
        maths=_TwoRoutes(_standard, _reuse_test, _reuse_law),
        what=(
            "The random number u of the acceptance test is reused to pick the replacement from "
            "the bucket, instead of a fresh one."
        ),
        why=(
            "After a rejection of x, u is known to lie above x's acceptance chance a(x), not "
            "anywhere in [0, 1), so "
            "the replacement favours the words at the top of the bucket's strip."
        ),
        source="A saved random draw in hand-written samplers; every reference implementation "
        "draws a fresh one.",
    ),
    Rule(
        key="topk_mismatch",
        kind=MISTAKE,
        maths=_TwoRoutes(lambda s, v: (top_k(s.q, v["k"]), s.accept, s.bucket_weights)),
        what=(
            "The draft proposes only among its k likeliest words (top-k), but the test and the "
            "bucket use the full, untrimmed {D}."
        ),
        why=(
            "Proposals arrive with the filtered probabilities, not the {D}(x) the ratio corrects "
            "for, so the accepted part is no longer min({T}, {D}) and the bucket no longer fills "
            "exactly what is missing."
        ),
        source="A sampling setting applied to one model only: a real bug in a major library.",
        params=(Param("k", 2, 1, integer=True),),
    ),
    Rule(
        key="float32_leq",
        kind=MISTAKE,
        maths=_TwoRoutes(
            lambda s, v: (s.q, _float32_accept(s.p, s.q), s.bucket_weights), _float32_test
        ),
        what=(
            "The test draws its random number u as a 32-bit float — a multiple of 2⁻²⁴, exactly 0 "
            "once in 16,777,216 draws on a CPU (numpy, CPU PyTorch) — and keeps the draft x "
            "when u ≤ {T}(x)/{D}(x)."
        ),
        why=(
            "When u = 0 the test passes even where {T}(x) = 0, so a word the target forbids "
            "comes out about once in 16.8 million proposals of it on a CPU (and every other "
            "share is off by up to 2⁻²⁴). On a GPU, PyTorch's random numbers (its CUDA code) "
            "are made in (0, 1] and moved onto [0, 1), so u = 0 comes about half as often (≈ 2⁻²⁵) "
            "(read from PyTorch's source, not measured). The fix is one character, < instead of ≤: "
            "SpecViz keeps a draft when u·{D}(x) < {T}(x), which {T}(x) = 0 never passes."
        ),
        source=(
            "Hugging Face transformers, `src/transformers/generation/utils.py`, "
            "`_speculative_sampling`: `r_i = torch.rand_like(probability_ratio)`, "
            "`is_accepted = r_i <= probability_ratio`. vLLM v1, "
            "`vllm/v1/sample/rejection_sampler.py` (early 2025): a float32 `torch.rand` and "
            "`target_prob / draft_prob >= uniform_prob`; later versions draw that random number in "
            "float64 (citing pytorch/pytorch#16706), which makes u = 0 rarer (2⁻⁵³) but keeps "
            "the ≥."
        ),
    ),
    Rule(
        key="typical_acceptance",
        kind=TRADE_OFF,
        maths=_TwoRoutes(
            lambda s, v: (s.q, _typical_mask(s.p, v["eps"], v["delta"]), s.p), _sure_test
        ),
        what=(
            "A draft x is kept, without a random test, whenever the target finds it plausible "
            "enough: {T}(x) above a bar, min(ε, δ·exp(−H({T}))), that is lower when {T} is spread "
            "out (H, its entropy, measures the spread); otherwise a word is drawn from {T}."
        ),
        why=(
            "Plausible drafts are kept whatever {D} says, so words the draft over-proposes come "
            "out too often: faster, but not exact at a temperature above 0."
        ),
        source="Cai et al., Medusa (2024), typical acceptance (ε = .09, δ = .3 by default).",
        params=(
            Param("eps", DEFAULT_TYPICAL_EPS, 0.0, 1.0),
            Param("delta", DEFAULT_TYPICAL_DELTA, 0.0),
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
