"""Verification rules — the correct one, its variants and the bug zoo's mistakes — as objects.

A rule is one way of turning a draft's proposal into an emitted token. Each rule carries

* its **exact law** in closed form (:meth:`Rule.law`);
* a **literal sampler** that runs the procedure step by step with its own uniforms and never looks
  at the law (:meth:`Rule.sample`) — the tests compare the two with a chi-square test, which is
  what proves the closed forms right;
* a **count-level sampler** for huge ``n`` (:meth:`Rule.counts`);
* its **acceptance rate**, the chance that the emitted token is a draft the rule accepted
  (:meth:`Rule.acceptance`);
* the words the app shows for it (title, what the code does, why the output is or is not
  biased, where it was seen), written with ``{T}`` for the target's letter and ``{D}`` for the
  draft's (:class:`~specviz.palette.Notation` fills them).

A rule is added by writing one class (or one instance of a generic class) and listing it in
:data:`RULES` — nothing else. Notation: ``p`` is the target, ``q`` the draft;
``a(x) = min(1, p(x)/q(x))``, ``Z = sum(max(0, p - q))``, ``r = max(0, p - q) / Z`` and
``alpha = sum(min(p, q)) = 1 - Z``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import choice, generator, prob_pair, real, whole
from specviz.limits import (
    DEFAULT_CANDIDATES,
    DEFAULT_TYPICAL_DELTA,
    DEFAULT_TYPICAL_EPS,
    MAX_CANDIDATES,
    MAX_COUNT_DRAWS,
    MAX_REDRAW_PROPOSALS,
    MAX_RULE_DRAWS,
    RULE_TITLES,
)
from specviz.one_token import OneTokenStep, checked_step
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


@dataclass(frozen=True)
class Param:
    """A rule's numeric parameter: its name, default and allowed range."""

    name: str
    default: float
    low: float
    high: float = math.inf
    integer: bool = False

    def check(self, value: object) -> float | int:
        """``value`` validated for this parameter (ValueError naming it otherwise)."""
        if self.integer:
            top = None if math.isinf(self.high) else int(self.high)
            return whole(value, self.name, minimum=int(self.low), maximum=top)
        return real(value, self.name, low=self.low, high=self.high)


class RuleUnavailableError(ValueError):
    """The rule has no law on this pair (e.g. redrawing from q when p and q share no word)."""


@dataclass(frozen=True)
class Rule:
    """One verification rule. Subclasses implement :meth:`_law`, :meth:`_sample` and
    :meth:`_acceptance` on a validated :class:`~specviz.one_token.OneTokenStep`.

    Attributes
    ----------
    key : str
        Short id (``RULES[key]``; also what a share link carries).
    kind : str
        :data:`EXACT` (the output law is ``p`` for every pair), :data:`MISTAKE` (a bug) or
        :data:`TRADE_OFF` (not ``p`` in general, by design: for speed, or exact only for
        greedy decoding).
    title : str
        A few words for a legend or a menu.
    what : str
        One sentence: what the procedure does (for a mistake: what the code does wrong).
    why : str
        One sentence: why its output is — or is not — the target's law.
    source : str
        Where the rule or the mistake comes from (paper, project and file, or issue).
    params : tuple of Param
        Extra parameters with their defaults.
    """

    key: str
    kind: str
    title: str
    what: str
    why: str
    source: str
    params: tuple[Param, ...] = ()

    @property
    def exact(self) -> bool:
        """Whether the emitted token has law ``p`` for every pair (p, q)."""
        return self.kind == EXACT

    @property
    def defaults(self) -> dict[str, Any]:
        """The parameters' default values."""
        return {param.name: param.default for param in self.params}

    # -- the public face: validate, then run the rule on the step --------------------------

    def law(self, p: ArrayLike, q: ArrayLike, **params: Any) -> np.ndarray:
        """Exact law of the token this rule emits.

        Raises
        ------
        ValueError
            On bad ``p``/``q``, an unknown or bad parameter; :class:`RuleUnavailableError` (a
            ValueError) where the rule has no law on this pair.
        """
        s, values = self._prepare(p, q, params)
        return _finish(self._law(s, values))

    def sample(
        self, p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None, **params: Any
    ) -> np.ndarray:
        """Run the procedure ``n`` times, one draw at a time; the ``n`` emitted tokens (int64).

        ``n`` is at most :data:`~specviz.limits.MAX_RULE_DRAWS`.
        """
        s, values = self._prepare(p, q, params)
        size = whole(n, "n", maximum=MAX_RULE_DRAWS)
        rng = generator(seed)
        return self._sample(s, size, rng, values).astype(np.int64)

    def counts(
        self, p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None, **params: Any
    ) -> np.ndarray:
        """Output counts of ``n`` independent runs (``n`` up to 10**15), in O(V) time.

        The runs are i.i.d. with law :meth:`law`, so their counts are exactly
        ``Multinomial(n, law)`` — the law of ``np.bincount(self.sample(p, q, n))``.
        """
        s, values = self._prepare(p, q, params)
        size = whole(n, "n", maximum=MAX_COUNT_DRAWS)
        rng = generator(seed)
        return multinomial_on_support(rng, size, _finish(self._law(s, values)))

    def acceptance(self, p: ArrayLike, q: ArrayLike, **params: Any) -> float:
        """Probability that the emitted token is a draft the rule accepted (one pass)."""
        s, values = self._prepare(p, q, params)
        return float(min(1.0, max(0.0, self._acceptance(s, values))))

    def available(self, p: ArrayLike, q: ArrayLike) -> bool:
        """Whether the rule has a law on this pair (only ``redraw_from_q`` ever has not)."""
        return self._available(checked_step(*prob_pair(p, q)))

    # -- hooks --------------------------------------------------------------------------------

    def _available(self, s: OneTokenStep) -> bool:
        return True

    def _law(self, s: OneTokenStep, v: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def _sample(
        self, s: OneTokenStep, n: int, rng: np.random.Generator, v: dict[str, Any]
    ) -> np.ndarray:
        raise NotImplementedError

    def _acceptance(self, s: OneTokenStep, v: dict[str, Any]) -> float:
        raise NotImplementedError

    def _prepare(
        self, p: object, q: object, params: Mapping[str, Any]
    ) -> tuple[OneTokenStep, dict[str, Any]]:
        s = checked_step(*prob_pair(p, q))
        known = {param.name: param for param in self.params}
        unknown = sorted(set(params) - set(known))
        if unknown:
            allowed = ", ".join(known) if known else "none"
            raise ValueError(
                f"unknown parameter(s) {', '.join(map(str, unknown))} for rule {self.key!r}; "
                f"it takes: {allowed}"
            )
        values = {
            name: param.check(params.get(name, param.default)) for name, param in known.items()
        }
        if not self._available(s):
            raise RuleUnavailableError(self._unavailable_message())
        return s, values

    def _unavailable_message(self) -> str:
        return f"rule {self.key!r} has no law on this pair"


@dataclass(frozen=True)
class TwoRouteRule(Rule):
    """A rule that proposes from one law, accepts token ``x`` with a fixed probability, and on a
    rejection draws from one fixed law. Its output is
    ``proposal * accept + (1 - sum(proposal * accept)) * fallback / sum(fallback)``.

    Subclasses give :meth:`_routes` (the three laws) and :meth:`_test` (the literal acceptance
    test, with its own uniforms).
    """

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(proposal law, acceptance probability per token, unnormalised fallback law)."""
        raise NotImplementedError

    def _test(
        self, s: OneTokenStep, draft: np.ndarray, rng: np.random.Generator, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(accepted?, the uniforms drawn — empty when the test draws none)."""
        u = rng.random(draft.size)
        return u * s.q[draft] < s.p[draft], u

    def _law(self, s: OneTokenStep, v: dict[str, Any]) -> np.ndarray:
        proposal, accept, fallback = self._routes(s, v)
        accepted = proposal * accept
        rejected = max(0.0, 1.0 - float(accepted.sum()))
        return accepted + rejected * fallback / fallback.sum()

    def _acceptance(self, s: OneTokenStep, v: dict[str, Any]) -> float:
        proposal, accept, _ = self._routes(s, v)
        return float((proposal * accept).sum())

    def _replacement(
        self, s: OneTokenStep, fallback: np.ndarray, u: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Tokens replacing the rejected drafts (``u``: their test uniforms)."""
        return inverse_cdf(fallback, rng.random(u.size))

    def _sample(
        self, s: OneTokenStep, n: int, rng: np.random.Generator, v: dict[str, Any]
    ) -> np.ndarray:
        proposal, _, fallback = self._routes(s, v)
        draft = inverse_cdf(proposal, rng.random(n)).astype(np.int64)
        accepted, u = self._test(s, draft, rng, v)
        output = draft.copy()
        rejected = np.flatnonzero(~accepted)
        if rejected.size:
            u_rejected = u[rejected] if u.size else np.empty(rejected.size)
            output[rejected] = self._replacement(s, fallback, u_rejected, rng)
        return output


# --------------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Correct(TwoRouteRule):
    """Leviathan et al.'s rule: accept with min(1, p/q), else draw from the residual."""

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return s.q, s.accept, s.bucket_weights


@dataclass(frozen=True)
class GreedyVerification(TwoRouteRule):
    """Keep the draft only if it is the target's most likely word; otherwise emit that word.

    Its law is the one-hot law on ``argmax p`` (ties: the first such word, as ``np.argmax``):
    the target's greedy choice, which is ``p`` itself only when ``p`` is one-hot.
    """

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        top = _one_hot(s.p)
        return s.q, top, top

    def _test(
        self, s: OneTokenStep, draft: np.ndarray, rng: np.random.Generator, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        # The test compares words, not probabilities: no uniform is drawn.
        return draft == int(np.argmax(s.p)), np.empty(0)

    def _replacement(
        self, s: OneTokenStep, fallback: np.ndarray, u: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        return np.full(u.size, int(np.argmax(s.p)), dtype=np.int64)


@dataclass(frozen=True)
class TokenMatching(Rule):
    """The target draws its own word ``y ~ p``; a draft equal to it is kept, else ``y`` is
    emitted. The output is always ``y``: exactly ``p``, accepted with ``sum(p·q)``."""

    def _law(self, s: OneTokenStep, v: dict[str, Any]) -> np.ndarray:
        # Kept: x = y, probability q(x)p(x). Otherwise the target's own y: p(y)(1 - q(y)).
        return s.q * s.p + s.p * (1.0 - s.q)

    def _acceptance(self, s: OneTokenStep, v: dict[str, Any]) -> float:
        return float((s.p * s.q).sum())

    def _sample(
        self, s: OneTokenStep, n: int, rng: np.random.Generator, v: dict[str, Any]
    ) -> np.ndarray:
        draft = inverse_cdf(s.q, rng.random(n))
        sample = inverse_cdf(s.p, rng.random(n))
        return np.where(draft == sample, draft, sample)


@dataclass(frozen=True)
class MultiCandidate(Rule):
    """SpecInfer's multi-step speculative sampling with ``k`` i.i.d. draft candidates.

    Candidate ``i`` (drawn from ``q``) is tested against the current target ``p_i`` with
    ``min(1, p_i(x)/q(x))``; after a rejection the target becomes the bucket
    ``p_{i+1} = norm(max(0, p_i - q))``; after ``k`` rejections the word is drawn from
    ``p_{k+1}``. Each try is the exact one-token rule for ``p_i``, so by induction the output
    has law ``p``; the word is a kept candidate with probability ``1 - prod(Z_i)``.
    """

    def _steps(self, s: OneTokenStep, k: int) -> list[OneTokenStep]:
        """The one-token steps of the ``k`` tries: ``(p_1, q), (p_2, q), ...``."""
        steps = [s]
        for _ in range(1, k):
            last = steps[-1]
            if last.z == 0:
                break  # every candidate is kept from here on: later targets are never reached
            bucket = last.bucket_weights
            steps.append(checked_step(bucket / bucket.sum(), s.q))
        return steps

    def _law(self, s: OneTokenStep, v: dict[str, Any]) -> np.ndarray:
        law = np.zeros_like(s.p)
        reach = 1.0  # probability that every earlier candidate was rejected
        steps = self._steps(s, v["k"])
        for one in steps:
            law += reach * one.kept
            reach *= one.z
        return law + reach * steps[-1].bucket_weights / steps[-1].bucket_weights.sum()

    def _acceptance(self, s: OneTokenStep, v: dict[str, Any]) -> float:
        return 1.0 - math.prod(one.z for one in self._steps(s, v["k"]))

    def _sample(
        self, s: OneTokenStep, n: int, rng: np.random.Generator, v: dict[str, Any]
    ) -> np.ndarray:
        out = np.empty(n, dtype=np.int64)
        pending = np.arange(n)
        steps = self._steps(s, v["k"])
        for one in steps:
            if pending.size == 0:
                break
            draft = inverse_cdf(s.q, rng.random(pending.size))
            # The same division-free test as the standard rule, against this try's target.
            kept = rng.random(pending.size) * s.q[draft] < one.p[draft]
            out[pending[kept]] = draft[kept]
            pending = pending[~kept]
        if pending.size:
            out[pending] = inverse_cdf(steps[-1].bucket_weights, rng.random(pending.size))
        return out


@dataclass(frozen=True)
class ResampleFromP(TwoRouteRule):
    """On a rejection, draw from p instead of the residual."""

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return s.q, s.accept, s.p


@dataclass(frozen=True)
class InvertedRatio(TwoRouteRule):
    """The acceptance ratio upside down: min(1, q/p)."""

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return s.q, _inverted_accept(s.p, s.q), s.bucket_weights

    def _test(
        self, s: OneTokenStep, draft: np.ndarray, rng: np.random.Generator, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        # The division-free form of u < q/p: a p(x) = 0 proposal is always accepted (q/0 = inf).
        u = rng.random(draft.size)
        return u * s.p[draft] < s.q[draft], u


@dataclass(frozen=True)
class TopkMismatch(TwoRouteRule):
    """The draft samples from its top-k filtered law; the test and the residual use the raw q."""

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return top_k(s.q, v["k"]), s.accept, s.bucket_weights


@dataclass(frozen=True)
class TypicalAcceptance(TwoRouteRule):
    """Medusa's typical acceptance, one token: keep a plausible draft, else draw from p."""

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return s.q, _typical_mask(s.p, v["eps"], v["delta"]), s.p

    def _test(
        self, s: OneTokenStep, draft: np.ndarray, rng: np.random.Generator, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        # Medusa's test is deterministic: no uniform is drawn.
        return _typical_mask(s.p, v["eps"], v["delta"])[draft] > 0, np.empty(0)


@dataclass(frozen=True)
class ReuseUniform(TwoRouteRule):
    """The acceptance test's uniform is reused to pick the replacement from the residual.

    Given a rejection of ``x``, ``u`` is uniform on ``[a(x), 1)``; the replacement is the token
    whose interval of the residual's CDF holds ``u``. Token ``k`` gains
    ``q(x) |[a(x), 1) ∩ I_k|`` from each ``x``: summed, ``G(F(k)) - G(F(k-1))`` with
    ``G(t) = sum_x q(x) max(0, t - a(x))``, evaluated exactly in O(V log V) with sorted
    prefix sums. With one residual token, or ``p == q``, the law is exactly ``p``.
    """

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return s.q, s.accept, s.bucket_weights

    def _law(self, s: OneTokenStep, v: dict[str, Any]) -> np.ndarray:
        edges = _residual_edges(s.bucket_weights)
        # Only proposals with a(x) < 1 can be rejected; each spreads its rejected mass
        # q(x)(1 - a(x)) uniformly over [a(x), 1) of the residual's CDF axis.
        rejectable = (s.q > 0) & (s.accept < 1)
        starts = s.accept[rejectable]
        weights = s.q[rejectable]
        order = np.argsort(starts, kind="stable")
        starts, weights = starts[order], weights[order]
        w_cum = np.concatenate(([0.0], np.cumsum(weights)))
        wa_cum = np.concatenate(([0.0], np.cumsum(weights * starts)))
        # G(t) = sum over starts <= t of w * (t - start): the rejected mass with u below t.
        j = np.searchsorted(starts, edges, side="right")
        g = edges * w_cum[j] - wa_cum[j]
        return s.kept + np.diff(g)

    def _replacement(
        self, s: OneTokenStep, fallback: np.ndarray, u: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        return inverse_cdf(fallback, u)


@dataclass(frozen=True)
class Float32LessEqual(TwoRouteRule):
    """The acceptance test ``u <= p(x)/q(x)`` with a float32 uniform ``u``.

    ``u = j·2**-24`` with ``j`` uniform on ``0 .. 2**24 - 1``, so ``P(u <= r)`` is
    ``(floor(r·2**24) + 1)·2**-24`` for ``r < 1``: never 0, even for ``r = p(x)/q(x) = 0``.
    The bucket is the correct one.
    """

    def _routes(
        self, s: OneTokenStep, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return s.q, _float32_accept(s.p, s.q), s.bucket_weights

    def _test(
        self, s: OneTokenStep, draft: np.ndarray, rng: np.random.Generator, v: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        # A float32 uniform, as torch.rand draws it, compared with <= (a proposal has q > 0).
        u = rng.random(draft.size, dtype=np.float32)
        with np.errstate(over="ignore"):  # a ratio that overflows to inf passes, as it should
            ratio = s.p[draft] / s.q[draft]
        return u <= ratio, u.astype(np.float64)


@dataclass(frozen=True)
class RedrawFromQ(Rule):
    """On a rejection, discard the draft and draw a fresh one from q, until one passes."""

    def _available(self, s: OneTokenStep) -> bool:
        return s.alpha > 0

    def _unavailable_message(self) -> str:
        return (
            "redraw_from_q needs alpha = sum(min(p, q)) > 0; here p and q have disjoint "
            "supports, so no draft is ever accepted and the redraw loop never ends (the law "
            "does not exist)"
        )

    def _law(self, s: OneTokenStep, v: dict[str, Any]) -> np.ndarray:
        return s.kept / s.alpha

    def _acceptance(self, s: OneTokenStep, v: dict[str, Any]) -> float:
        return 1.0  # every emitted token is an accepted draft (eventually)

    def _sample(
        self, s: OneTokenStep, n: int, rng: np.random.Generator, v: dict[str, Any]
    ) -> np.ndarray:
        """Each run proposes from q and tests, again and again, until a proposal is accepted.

        Runs still waiting are handled together in rounds; in each round every waiting run
        tries a block of proposals in order and keeps the first accepted one (later ones in the
        block are never looked at, as in the sequential loop), so the law is the plain loop's.
        """
        p, q, alpha = s.p, s.q, s.alpha
        if n / alpha > MAX_REDRAW_PROPOSALS:
            raise ValueError(
                f"redraw_from_q with alpha = {alpha:.3g} needs about n/alpha = {n / alpha:,.0f} "
                f"proposals for n = {n:,} runs; the per-draw sampler allows at most "
                f"{MAX_REDRAW_PROPOSALS:,}. Use counts() for this case."
            )
        out = np.empty(n, dtype=np.int64)
        pending = np.arange(n)
        chunk = 1 << 22  # proposals held in memory at once
        # A block of ceil(2/alpha) proposals finishes a run with probability >= 1 - e**-2.
        block = min(max(1, math.ceil(2.0 / alpha)), chunk)
        rows_per_chunk = max(1, chunk // block)
        # Enough rounds that some run is still waiting with probability below e**-60.
        miss_per_round = -block * math.log1p(-alpha) if alpha < 1 else math.inf
        max_rounds = max(2, math.ceil((60.0 + math.log(n + 1)) / miss_per_round) + 1)
        for _ in range(max_rounds):
            if pending.size == 0:
                return out
            still = []
            for start in range(0, pending.size, rows_per_chunk):
                runs = pending[start : start + rows_per_chunk]
                shape = (runs.size, block)
                draft = inverse_cdf(q, rng.random(shape).ravel()).reshape(shape)
                accepted = rng.random(shape) * q[draft] < p[draft]
                hit = accepted.any(axis=1)
                first = accepted.argmax(axis=1)
                out[runs[hit]] = draft[hit, first[hit]]
                still.append(runs[~hit])
            pending = np.concatenate(still)
        if pending.size == 0:
            return out
        raise RuntimeError(  # pragma: no cover - probability below e**-60
            f"redraw_from_q: {pending.size} runs still unaccepted after {max_rounds} rounds"
        )


# ------------------------------------------------------------------------------- helpers


def _one_hot(p: np.ndarray) -> np.ndarray:
    """1.0 on the target's most likely word (the first of a tie), 0.0 elsewhere."""
    top = np.zeros_like(p)
    top[int(np.argmax(p))] = 1.0
    return top


def _float32_accept(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``P(u <= p(x)/q(x))`` for a float32 uniform ``u``; 1 where ``q(x) = 0`` (vacuous)."""
    out = np.ones_like(p)
    proposed = q > 0
    with np.errstate(over="ignore"):  # p/q overflows to inf only where the ratio is >= 1 anyway
        ratio = np.minimum(1.0, p[proposed] / q[proposed])
    # u = j·step <= ratio  <=>  j <= ratio/step: floor(ratio/step) + 1 of the 1/step values of j.
    out[proposed] = np.minimum(1.0, (np.floor(ratio / FLOAT32_STEP) + 1.0) * FLOAT32_STEP)
    return out


def _inverted_accept(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``min(1, q/p)``; 1 where ``p == 0`` (the coded ``q/0 = inf``) or ``q == 0`` (vacuous)."""
    out = np.ones_like(p)
    both = (p > 0) & (q > 0)
    out[both] = np.minimum(1.0, q[both] / p[both])
    return out


def _typical_mask(p: np.ndarray, eps: float, delta: float) -> np.ndarray:
    """1.0 where Medusa's typical-acceptance test passes, 0.0 elsewhere."""
    support = p > 0
    entropy = float(-(p[support] * np.log(p[support])).sum())
    threshold = min(eps, delta * math.exp(-entropy))
    return (p > threshold).astype(np.float64)


def _residual_edges(bucket: np.ndarray) -> np.ndarray:
    """Edges ``E`` with token k owning ``u`` in ``[E[k], E[k+1])``, exactly as ``inverse_cdf``.

    ``inverse_cdf`` sends everything past the last positive token's lower edge to that token, so
    its interval is closed at 1 and the zero-mass tokens after it get empty intervals.
    """
    edges = np.concatenate(([0.0], np.cumsum(bucket) / bucket.sum()))
    last = int(np.flatnonzero(bucket)[-1])
    edges[last + 1 :] = 1.0
    return edges


def _finish(law: np.ndarray) -> np.ndarray:
    # Differences of prefix sums can leave -1e-17 where the exact value is 0.
    law = np.maximum(law, 0.0)
    return law / law.sum()


# ------------------------------------------------------------------------------- registry

_ALL: tuple[Rule, ...] = (
    Correct(
        key="correct",
        kind=EXACT,
        title=RULE_TITLES["correct"],
        what=(
            "Accept the draft x with probability min(1, {T}(x)/{D}(x)); on a rejection draw "
            "the replacement from the leftover bucket max(0, {T} − {D})/Z."
        ),
        why=(
            "Accepted drafts deliver min({T}, {D}) and the bucket delivers max(0, {T} − {D}); "
            "together exactly {T}."
        ),
        source="Leviathan, Kalman & Matias (ICML 2023), Algorithm 1; Chen et al. (2023).",
    ),
    GreedyVerification(
        key="greedy",
        kind=TRADE_OFF,
        title=RULE_TITLES["greedy"],
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
            "target's argmax)."
        ),
    ),
    TokenMatching(
        key="token_matching",
        kind=EXACT,
        title=RULE_TITLES["token_matching"],
        what=(
            "The target draws its own word from {T}, independently of the draft; the draft is "
            "kept if it is the same word, and otherwise the target's word is emitted."
        ),
        why=(
            "The word that comes out is always the target's own draw, so it follows {T} "
            "exactly; but the two draws agree only with probability Σ {T}·{D}, never more than "
            "α = Σ min({T}, {D}): fewer guesses are kept."
        ),
        source=(
            "Hugging Face transformers' assisted generation when the draft gives no "
            "probabilities (`src/transformers/generation/utils.py`, `_assisted_decoding`: the "
            "target samples and keeps the candidates equal to its samples); SpecInfer "
            "(Miao et al., 2024) calls it naive sampling."
        ),
    ),
    MultiCandidate(
        key="multi_candidate",
        kind=EXACT,
        title=RULE_TITLES["multi_candidate"],
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
    ResampleFromP(
        key="resample_from_p",
        kind=MISTAKE,
        title=RULE_TITLES["resample_from_p"],
        what="On a rejection the word is drawn from {T} instead of from the leftover bucket.",
        why=(
            "The accepted route already delivered min({T}, {D}), so topping up with Z·{T} "
            "instead of the bucket counts the shared mass twice: the output leans towards {D}."
        ),
        source=(
            "A common shortcut in blog-post implementations; Leviathan et al. draw from the "
            "residual norm(max(0, p − q)) (Algorithm 1)."
        ),
    ),
    InvertedRatio(
        key="inverted_ratio",
        kind=MISTAKE,
        title=RULE_TITLES["inverted_ratio"],
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
    RedrawFromQ(
        key="redraw_from_q",
        kind=MISTAKE,
        title=RULE_TITLES["redraw_from_q"],
        what=(
            "On a rejection the draft is thrown away and a fresh draft is drawn from {D}, again "
            "and again until one passes the test; the leftover bucket is never used."
        ),
        why=(
            "Only the accepted route min({T}, {D}) ever emits, scaled up to sum to 1; the "
            "probability {T} has beyond {D}, which only the bucket can supply, is lost."
        ),
        source=(
            "Classic rejection sampling's retry loop, applied without its bound M ≥ max {T}/{D}."
        ),
    ),
    ReuseUniform(
        key="reuse_uniform",
        kind=MISTAKE,
        title=RULE_TITLES["reuse_uniform"],
        what=(
            "The random number u of the acceptance test is reused to pick the replacement from "
            "the bucket, instead of a fresh one."
        ),
        why=(
            "After a rejection of x, u is known to lie above a(x), not anywhere in [0, 1), so "
            "the replacement favours the words at the top of the bucket's strip."
        ),
        source="A saved random draw in hand-written samplers; every reference implementation "
        "draws a fresh one.",
    ),
    TopkMismatch(
        key="topk_mismatch",
        kind=MISTAKE,
        title=RULE_TITLES["topk_mismatch"],
        what=(
            "The draft proposes from its top-k filtered {D}, but the test and the bucket use "
            "the raw, unfiltered {D}."
        ),
        why=(
            "Proposals arrive with the filtered probabilities, not the {D}(x) the ratio corrects "
            "for, so the accepted part is no longer min({T}, {D}) and the bucket no longer fills "
            "exactly what is missing."
        ),
        source=(
            "Sampling settings applied to one model only (math.md: TV .11 on the logits example)."
        ),
        params=(Param("k", 2, 1, integer=True),),
    ),
    Float32LessEqual(
        key="float32_leq",
        kind=MISTAKE,
        title=RULE_TITLES["float32_leq"],
        what=(
            "The test draws its uniform u as a 32-bit float — a multiple of 2⁻²⁴, exactly 0 "
            "once in 16,777,216 draws — and keeps the draft x when u ≤ {T}(x)/{D}(x)."
        ),
        why=(
            "When u = 0 the test passes even where {T}(x) = 0, so a word the target forbids "
            "comes out about once in 16.8 million proposals of it (and every other share is off "
            "by up to 2⁻²⁴). The fix is one character, < instead of ≤: SpecViz keeps a draft "
            "when u·{D}(x) < {T}(x), which {T}(x) = 0 never passes."
        ),
        source=(
            "Hugging Face transformers, `src/transformers/generation/utils.py`, "
            "`_speculative_sampling`: `r_i = torch.rand_like(probability_ratio)`, "
            "`is_accepted = r_i <= probability_ratio`. vLLM v1, "
            "`vllm/v1/sample/rejection_sampler.py` (early 2025): a float32 `torch.rand` and "
            "`target_prob / draft_prob >= uniform_prob`; later versions draw the uniform in "
            "float64 (citing pytorch/pytorch#16706), which makes u = 0 rarer (2⁻⁵³) but keeps "
            "the ≥."
        ),
    ),
    TypicalAcceptance(
        key="typical_acceptance",
        kind=TRADE_OFF,
        title=RULE_TITLES["typical_acceptance"],
        what=(
            "A draft x is kept whenever {T}(x) > min(ε, δ·exp(−H({T}))) — plausible enough under "
            "the target — without a random test; otherwise a word is drawn from {T}."
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

#: The keys of :data:`RULES`, in display order.
RULE_KEYS: tuple[str, ...] = tuple(RULES)


def get_rule(key: object) -> Rule:
    """Look a rule up by its key (ValueError listing the known keys otherwise)."""
    return RULES[choice(key, "rule key", RULE_KEYS)]


def rules_of(kind: str) -> tuple[str, ...]:
    """Keys of the rules of one :attr:`Rule.kind`, in display order."""
    choice(kind, "kind", (EXACT, MISTAKE, TRADE_OFF))
    return tuple(key for key, rule in RULES.items() if rule.kind == kind)


__all__ = [
    "EXACT",
    "MISTAKE",
    "RULES",
    "RULE_KEYS",
    "TRADE_OFF",
    "Param",
    "Rule",
    "RuleUnavailableError",
    "TwoRouteRule",
    "get_rule",
    "rules_of",
]
