"""The bug zoo: wrong implementations of speculative sampling, each with its exact output law.

Every rule below is a mistake found in public implementations (or, for ``typical_acceptance``, a
deliberate approximation) of the one-token step "draft proposes ``x ~ q``, target accepts or
replaces it". For each rule the module gives

* its **exact law**, computed in closed form (:func:`rule_output_law`);
* a **per-draw sampler** that literally runs the mistaken procedure (:func:`rule_sample`) — the
  tests check it against the law with a chi-square test, which is what proves the laws right;
* a **count-level sampler** for huge ``n`` (:func:`rule_counts`).

The ``correct`` rule is in the registry too, so a page can show the real rule side by side.
Notation: ``p`` is the target, ``q`` the draft; ``a(x) = min(1, p(x)/q(x))``,
``Z = sum(max(0, p - q))``, ``r = max(0, p - q) / Z`` and ``alpha = sum(min(p, q)) = 1 - Z``.

The module also holds the sampling-settings helpers :func:`softmax` (temperature),
:func:`top_k` and :func:`top_p`: applying the *same* settings to ``p`` and ``q`` keeps speculative
sampling exact, while ``topk_mismatch`` shows what happens when they are applied inconsistently.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import (
    MAX_COUNT_DRAWS,
    _short,
    as_count,
    as_generator,
    as_prob_pair,
    as_prob_vector,
)
from specviz.one_token import accept_ratio
from specviz.sampling import (
    SeedLike,
    _bucket_weights,
    _inverse_cdf,
    multinomial_on_support,
    speculative_sample,
)

#: Largest ``n`` for :func:`rule_sample` (it holds a few arrays of ``n`` numbers in memory).
MAX_RULE_DRAWS = 10_000_000

#: Largest expected number of proposals ``n / alpha`` the literal ``redraw_from_q`` loop may need.
MAX_REDRAW_PROPOSALS = 100_000_000

#: Tolerance of :func:`top_p` when comparing a cumulative sum with the threshold, so that
#: ``[0.5, 0.3, 0.2]`` at ``p = 0.8`` keeps two tokens whatever the rounding of ``0.5 + 0.3``.
TOP_P_TOLERANCE = 1e-12

# Proposals drawn per pending run and per round in the redraw loop: ceil(this / alpha), so that
# a round finishes a run with probability >= 1 - e**-2 (unless capped by _REDRAW_CHUNK).
_REDRAW_BLOCK_FACTOR = 2.0
# Largest number of proposals held in memory at once by the redraw loop.
_REDRAW_CHUNK = 1 << 22
# The round cap leaves some run unfinished with probability below e**-this; it exists only so
# that no input can loop forever.
_REDRAW_LOG_MISS = 60.0


@dataclass(frozen=True)
class Rule:
    """One verification rule, with the text the app shows for it.

    Attributes
    ----------
    key : str
        Short id passed to :func:`rule_output_law`, :func:`rule_sample` and :func:`rule_counts`.
    title : str
        A few words for a legend or a select box.
    mistake : str
        One sentence: what the implementation does differently from the real rule.
    why : str
        One sentence: why that biases the emitted token (or why the real rule does not).
    exact : bool
        Whether the emitted token has law ``p`` for every ``(p, q)``.
    defaults : tuple of (str, object) pairs
        The rule's extra parameters and their default values (empty for most rules).
    """

    key: str
    title: str
    mistake: str
    why: str
    exact: bool = False
    defaults: tuple[tuple[str, Any], ...] = ()

    @property
    def params(self) -> dict[str, Any]:
        """The default parameters as a new dict."""
        return dict(self.defaults)


_RULE_LIST = (
    Rule(
        key="correct",
        title="Correct rule",
        mistake=(
            "None: accept x with probability min(1, p(x)/q(x)); on a rejection draw from the "
            "residual max(0, p − q)/Z."
        ),
        why=(
            "Accepted proposals deliver min(p, q) and the residual delivers max(0, p − q); "
            "together exactly p."
        ),
        exact=True,
    ),
    Rule(
        key="resample_from_p",
        title="Rejection resamples from p",
        mistake="On a rejection the token is drawn from p instead of from the residual.",
        why=(
            "The accepted route already delivered min(p, q), so topping up with Z·p instead of "
            "Z·r counts the shared mass twice: the law is min(p, q) + Z·p, tilted towards q."
        ),
    ),
    Rule(
        key="inverted_ratio",
        title="Inverted ratio min(1, q/p)",
        mistake=(
            "The acceptance test uses min(1, q(x)/p(x)) — p and q swapped, as happens when "
            "mixing papers that name the target q — while the residual is left unchanged."
        ),
        why=(
            "Tokens the draft over-proposes are now always kept and under-proposed ones are "
            "bounced, so the output drifts towards q instead of being corrected to p."
        ),
    ),
    Rule(
        key="redraw_from_q",
        title="Redraw from q until accepted",
        mistake=(
            "On a rejection the draft is discarded and a fresh draft is drawn from q, until one "
            "passes the test; the residual is never used."
        ),
        why=(
            "Only the accepted route min(p, q) ever emits, renormalised to min(p, q)/α; the mass "
            "p has beyond q, which only the residual can supply, is lost."
        ),
    ),
    Rule(
        key="reuse_uniform",
        title="Reuse the acceptance uniform",
        mistake=(
            "The uniform u of the acceptance test is reused to draw the replacement token from "
            "the residual's inverse CDF, instead of a fresh uniform."
        ),
        why=(
            "Given a rejection of x, u is uniform on [a(x), 1), not on [0, 1), so the replacement "
            "favours tokens at the top of the residual's CDF."
        ),
    ),
    Rule(
        key="topk_mismatch",
        title="Top-k draft scored with raw q",
        mistake=(
            "The draft samples from its top-k-filtered, renormalised distribution q_k, but the "
            "acceptance ratio and the residual use the raw, unfiltered q."
        ),
        why=(
            "Proposals arrive with probability q_k(x), not the q(x) the ratio corrects for, so "
            "the accepted mass is q_k·min(1, p/q) instead of min(p, q) and the residual no longer "
            "fills exactly what is missing."
        ),
        defaults=(("k", 2),),
    ),
    Rule(
        key="typical_acceptance",
        title="Typical acceptance (Medusa)",
        mistake=(
            "A draft x is accepted whenever p(x) > min(ε, δ·exp(−H(p))), without a random test; "
            "on a rejection the token is drawn from p."
        ),
        why=(
            "Plausible drafts are kept with probability 1 whatever q is, so tokens the draft "
            "over-proposes are over-represented — a speed/fidelity trade-off, not exact at T > 0."
        ),
        defaults=(("eps", 0.09), ("delta", 0.3)),
    ),
)

#: The registry, in display order: ``RULES[key]`` is a :class:`Rule`.
RULES: Mapping[str, Rule] = {rule.key: rule for rule in _RULE_LIST}

#: The keys of :data:`RULES`, in display order.
RULE_KEYS: tuple[str, ...] = tuple(RULES)


def get_rule(key: str) -> Rule:
    """Look a rule up by its key.

    Parameters
    ----------
    key : str
        One of :data:`RULE_KEYS`.

    Returns
    -------
    Rule
        The registry entry.

    Raises
    ------
    ValueError
        If ``key`` is not a known rule; the message lists the known keys.
    """
    if not isinstance(key, str) or key not in RULES:
        raise ValueError(f"key must be one of {', '.join(RULE_KEYS)}; got {_short(key)}")
    return RULES[key]


# --------------------------------------------------------------------------------------------
# Temperature, top-k, top-p
# --------------------------------------------------------------------------------------------


def softmax(logits: ArrayLike, temperature: float = 1.0) -> np.ndarray:
    """Turn logits into probabilities at a temperature.

    Parameters
    ----------
    logits : array_like
        1-D real numbers; ``-inf`` marks a masked token (probability 0). NaN and ``+inf`` are
        refused, and at least one logit must be finite.
    temperature : float, default 1.0
        ``T >= 0``. Probabilities are ``exp(logits / T)`` normalised; ``T = 0`` is the
        ``T -> 0`` limit, greedy decoding: all mass on the largest logit (shared equally by
        tied maxima, so the result does not depend on token order).

    Returns
    -------
    numpy.ndarray
        float64 probabilities summing to 1.

    Raises
    ------
    ValueError
        On a bad ``logits`` vector or a negative / non-finite ``temperature``.

    Examples
    --------
    >>> softmax([0.0, 0.0])
    array([0.5, 0.5])
    >>> softmax([2.0, 1.0], temperature=0)
    array([1., 0.])
    """
    z = _as_logits(logits)
    t = _as_real(temperature, "temperature")
    if not math.isfinite(t) or t < 0:
        raise ValueError(f"temperature must be a finite number >= 0; got {temperature!r}")
    top = z.max()
    if t == 0:
        peak = (z == top).astype(np.float64)
        return peak / peak.sum()
    # Subtracting the maximum first keeps exp() from overflowing at small temperatures.
    weights = np.exp((z - top) / t)
    return weights / weights.sum()


def top_k(probs: ArrayLike, k: int) -> np.ndarray:
    """Keep the ``k`` most likely tokens and renormalise.

    Parameters
    ----------
    probs : array_like
        A probability vector.
    k : int
        How many tokens to keep, ``k >= 1``; ``k >= len(probs)`` keeps everything.

    Returns
    -------
    numpy.ndarray
        ``probs`` restricted to exactly ``min(k, V)`` tokens (zeros elsewhere), renormalised.
        Ties at the cut are broken towards the lower token index, so the result is
        deterministic.

    Raises
    ------
    ValueError
        If ``probs`` is not a probability vector or ``k`` is not a whole number ``>= 1``.

    Examples
    --------
    >>> top_k([0.2, 0.5, 0.3], 2)
    array([0.   , 0.625, 0.375])
    """
    pr = as_prob_vector(probs, "probs")
    kk = as_count(k, "k")
    if kk < 1:
        raise ValueError("k must be at least 1 (top-k keeps the k most likely tokens); got 0")
    keep = _descending(pr)[: min(kk, pr.size)]
    out = np.zeros_like(pr)
    out[keep] = pr[keep]
    return out / out.sum()


def top_p(probs: ArrayLike, p: float) -> np.ndarray:
    """Nucleus filtering: keep the smallest set of most likely tokens holding mass ``>= p``.

    Parameters
    ----------
    probs : array_like
        A probability vector.
    p : float
        The nucleus mass, ``0 < p <= 1`` (this ``p`` is the top-p threshold, not the target).

    Returns
    -------
    numpy.ndarray
        ``probs`` restricted to the nucleus and renormalised. Tokens are taken in decreasing
        probability (ties towards the lower index) until their cumulative mass reaches ``p``
        (within :data:`TOP_P_TOLERANCE`); at least one token is always kept.

    Raises
    ------
    ValueError
        If ``probs`` is not a probability vector or ``p`` is not in ``(0, 1]``.

    Examples
    --------
    >>> top_p([0.5, 0.2, 0.3], 0.8)
    array([0.625, 0.   , 0.375])
    """
    pr = as_prob_vector(probs, "probs")
    mass = _as_real(p, "p (the top-p nucleus mass)")
    if not 0 < mass <= 1:
        raise ValueError(f"p (the top-p nucleus mass) must lie in (0, 1]; got {p!r}")
    order = _descending(pr)
    cumulative = np.cumsum(pr[order])
    count = int(np.searchsorted(cumulative, mass - TOP_P_TOLERANCE, side="left")) + 1
    keep = order[: min(count, pr.size)]
    out = np.zeros_like(pr)
    out[keep] = pr[keep]
    return out / out.sum()


# --------------------------------------------------------------------------------------------
# Exact laws
# --------------------------------------------------------------------------------------------


def rule_output_law(key: str, p: ArrayLike, q: ArrayLike, **params: Any) -> np.ndarray:
    """Exact law of the token a rule emits, in closed form.

    Parameters
    ----------
    key : str
        A rule of :data:`RULE_KEYS`.
    p, q : array_like
        Target and draft probability vectors of equal length.
    **params
        The rule's parameters (see ``RULES[key].defaults``): ``k`` for ``topk_mismatch``
        (default 2), ``eps`` and ``delta`` for ``typical_acceptance`` (defaults 0.09, 0.3).

    Returns
    -------
    numpy.ndarray
        The output law, non-negative and summing to 1:

        * ``correct``: ``p`` (the theorem).
        * ``resample_from_p``: ``min(p, q) + Z * p``.
        * ``inverted_ratio``: ``q * b + (1 - sum(q * b)) * r`` with ``b = min(1, q/p)``, and
          ``b = 1`` where ``p(x) = 0`` (the coded ``q/p`` is ``inf`` there, so such a proposal
          is always accepted).
        * ``redraw_from_q``: ``min(p, q) / alpha``.
        * ``reuse_uniform``: ``min(p, q)(k) + sum_x q(x) * |[a(x), 1) ∩ I_k|``, where ``I_k`` is
          token ``k``'s interval of the residual's CDF (see Notes).
        * ``topk_mismatch``: ``q_k * a + (1 - sum(q_k * a)) * r`` with ``q_k = top_k(q, k)``.
        * ``typical_acceptance``: ``q * m + (1 - sum(q * m)) * p`` with
          ``m = [p > min(eps, delta * exp(-H(p)))]``.

    Raises
    ------
    ValueError
        On an unknown ``key``, bad ``p``/``q``, an unknown or bad parameter, or for
        ``redraw_from_q`` when ``alpha = 0`` (disjoint supports: no draft is ever accepted, the
        loop never ends and the law does not exist).

    Notes
    -----
    ``reuse_uniform``: x is proposed with probability ``q(x)`` and accepted when
    ``u < a(x)``. After a rejection ``u`` is uniform on ``[a(x), 1)`` (density
    ``1 / (1 - a(x))``) and the replacement is the token ``k`` whose CDF interval
    ``I_k = [F(k-1), F(k))`` contains ``u``. So token ``k`` gains
    ``q(x) (1 - a(x)) * |[a(x), 1) ∩ I_k| / (1 - a(x)) = q(x) |[a(x), 1) ∩ I_k|``. Summed over
    x this is ``G(F(k)) - G(F(k-1))`` with ``G(t) = sum_x q(x) max(0, t - a(x))``, which is
    evaluated exactly in O(V log V) with sorted prefix sums. With one residual token, or
    ``p == q``, the law is exactly ``p``.

    ``topk_mismatch`` filters only the draft: ``p`` is the raw target. On math.md's logits
    example (target ``[2, 1, .5, -1]``, draft ``[1, 2, 0, .8]``, T = 1) the default ``k = 2``
    gives the quoted TV of .11 (.1094). With ``p == q`` its output is ``top_k(p, k)``.

    ``typical_acceptance`` is a one-token simplification of Medusa: the threshold uses the exact
    entropy (Medusa's code adds 1e-5 inside the log), and a rejected draft is replaced by a
    sample from ``p`` (Medusa samples from ``p`` restricted to the tokens above the threshold).

    Examples
    --------
    >>> p, q = [0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]
    >>> rule_output_law("resample_from_p", p, q).round(12)
    array([0.26, 0.32, 0.28, 0.14])
    >>> rule_output_law("reuse_uniform", p, q).round(12)
    array([0.325, 0.375, 0.2  , 0.1  ])
    """
    rule = get_rule(key)
    p_arr, q_arr = as_prob_pair(p, q)
    values = _merge_params(rule, params)
    if rule.key == "correct":
        return p_arr.copy()
    if rule.key == "redraw_from_q":
        accepted = np.minimum(p_arr, q_arr)
        alpha = float(accepted.sum())
        if alpha <= 0:
            raise ValueError(_disjoint_message())
        return _finish(accepted / alpha)
    if rule.key == "reuse_uniform":
        return _finish(_reuse_uniform_law(p_arr, q_arr))
    proposal, accept, bucket = _two_route_parts(rule.key, p_arr, q_arr, values)
    accepted = proposal * accept
    rejected = max(0.0, 1.0 - float(accepted.sum()))
    return _finish(accepted + rejected * bucket / bucket.sum())


def _two_route_parts(
    key: str, p: np.ndarray, q: np.ndarray, params: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(proposal law, acceptance probability per token, unnormalised rejection law).

    Every rule except ``redraw_from_q`` and ``reuse_uniform`` proposes from one law, accepts
    token x with a fixed probability, and on a rejection draws from one fixed law — so its
    output is ``proposal * accept + (1 - sum(proposal * accept)) * bucket``.
    """
    if key == "resample_from_p":
        return q, accept_ratio(p, q), p
    if key == "inverted_ratio":
        return q, _inverted_accept(p, q), _bucket_weights(p, q)
    if key == "topk_mismatch":
        return top_k(q, params["k"]), accept_ratio(p, q), _bucket_weights(p, q)
    if key == "typical_acceptance":
        return q, _typical_mask(p, params["eps"], params["delta"]), p
    raise AssertionError(f"no two-route form for {key}")  # pragma: no cover


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
    """Edges ``E`` with token k owning ``u`` in ``[E[k], E[k+1])``, exactly as ``_inverse_cdf``.

    ``_inverse_cdf`` sends everything past the last positive token's lower edge to that token,
    so its interval is closed at 1 and the zero-mass tokens after it get empty intervals.
    """
    edges = np.concatenate(([0.0], np.cumsum(bucket) / bucket.sum()))
    last = int(np.flatnonzero(bucket)[-1])
    edges[last + 1 :] = 1.0
    return edges


def _reuse_uniform_law(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    accept = accept_ratio(p, q)
    bucket = _bucket_weights(p, q)
    edges = _residual_edges(bucket)
    # Only proposals with a(x) < 1 can be rejected; each spreads its rejected mass q(x)(1 - a(x))
    # uniformly over [a(x), 1) of the residual's CDF axis.
    rejectable = (q > 0) & (accept < 1)
    starts = accept[rejectable]
    weights = q[rejectable]
    order = np.argsort(starts, kind="stable")
    starts, weights = starts[order], weights[order]
    w_cum = np.concatenate(([0.0], np.cumsum(weights)))
    wa_cum = np.concatenate(([0.0], np.cumsum(weights * starts)))
    # G(t) = sum over starts <= t of w * (t - start): the rejected mass with u below t.
    j = np.searchsorted(starts, edges, side="right")
    g = edges * w_cum[j] - wa_cum[j]
    return np.minimum(p, q) + np.diff(g)


def _finish(law: np.ndarray) -> np.ndarray:
    # Differences of prefix sums can leave -1e-17 where the exact value is 0.
    law = np.maximum(law, 0.0)
    return law / law.sum()


def _disjoint_message() -> str:
    return (
        "redraw_from_q needs alpha = sum(min(p, q)) > 0; here p and q have disjoint supports, "
        "so no draft is ever accepted and the redraw loop never ends (the law does not exist)"
    )


# --------------------------------------------------------------------------------------------
# Samplers
# --------------------------------------------------------------------------------------------


def rule_sample(
    key: str, p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None, **params: Any
) -> np.ndarray:
    """Run a rule's procedure ``n`` times, one draw at a time, and return the emitted tokens.

    This literally implements the (mistaken) procedure — draft, test, replacement — with its
    own uniforms; it never samples from :func:`rule_output_law`, so comparing the two is a real
    check of the law.

    Parameters
    ----------
    key : str
        A rule of :data:`RULE_KEYS`.
    p, q : array_like
        Target and draft probability vectors of equal length.
    n : int
        Number of independent runs, ``0 <= n <= 10_000_000`` (:data:`MAX_RULE_DRAWS`).
    seed : None, int or numpy.random.Generator, optional
        The same int seed gives the same draws.
    **params
        The rule's parameters, as in :func:`rule_output_law`.

    Returns
    -------
    numpy.ndarray
        int64 array of the ``n`` emitted tokens.

    Raises
    ------
    ValueError
        On bad input; for ``redraw_from_q`` also when ``alpha = 0`` (the loop would never end)
        or when the expected number of proposals ``n / alpha`` exceeds
        :data:`MAX_REDRAW_PROPOSALS` (use :func:`rule_counts` then).

    Notes
    -----
    Acceptance tests use the division-free forms (``u * q(x) < p(x)`` for ``u < p/q``,
    ``u * p(x) < q(x)`` for the inverted ``u < q/p``), which is how a ``p(x) = 0`` proposal is
    always rejected by the real test and always accepted by the inverted one.
    """
    rule = get_rule(key)
    p_arr, q_arr = as_prob_pair(p, q)
    values = _merge_params(rule, params)
    size = as_count(n, "n", maximum=MAX_RULE_DRAWS)
    rng = as_generator(seed)

    if rule.key == "correct":
        return speculative_sample(p_arr, q_arr, size, rng).output.astype(np.int64)
    if rule.key == "redraw_from_q":
        return _sample_redraw(p_arr, q_arr, size, rng)

    proposal = top_k(q_arr, values["k"]) if rule.key == "topk_mismatch" else q_arr
    draft = _inverse_cdf(proposal, rng.random(size)).astype(np.int64)
    if rule.key == "typical_acceptance":
        # Medusa's test is deterministic: no uniform is drawn.
        u = np.empty(0)
        accepted = _typical_mask(p_arr, values["eps"], values["delta"])[draft] > 0
    else:
        u = rng.random(size)
        if rule.key == "inverted_ratio":
            accepted = u * p_arr[draft] < q_arr[draft]
        else:
            accepted = u * q_arr[draft] < p_arr[draft]

    output = draft.copy()
    rejected = np.flatnonzero(~accepted)
    if rejected.size:
        if rule.key == "reuse_uniform":
            output[rejected] = _inverse_cdf(_bucket_weights(p_arr, q_arr), u[rejected])
        elif rule.key in ("resample_from_p", "typical_acceptance"):
            output[rejected] = _inverse_cdf(p_arr, rng.random(rejected.size))
        else:
            bucket = _bucket_weights(p_arr, q_arr)
            output[rejected] = _inverse_cdf(bucket, rng.random(rejected.size))
    return output


def _sample_redraw(p: np.ndarray, q: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Each run proposes from q and tests, again and again, until a proposal is accepted.

    Runs still waiting are handled together in rounds; in each round every waiting run tries a
    block of proposals in order and keeps the first accepted one (later ones in the block are
    never looked at, as in the sequential loop), so the law is that of the plain loop.
    """
    alpha = float(np.minimum(p, q).sum())
    if alpha <= 0:
        raise ValueError(_disjoint_message())
    if n / alpha > MAX_REDRAW_PROPOSALS:
        raise ValueError(
            f"redraw_from_q with alpha = {alpha:.3g} needs about n/alpha = {n / alpha:,.0f} "
            f"proposals for n = {n:,} runs; the per-draw sampler allows at most "
            f"{MAX_REDRAW_PROPOSALS:,}. Use rule_counts() for this case."
        )
    out = np.empty(n, dtype=np.int64)
    pending = np.arange(n)
    block = min(max(1, math.ceil(_REDRAW_BLOCK_FACTOR / alpha)), _REDRAW_CHUNK)
    rows_per_chunk = max(1, _REDRAW_CHUNK // block)
    # P(one run misses a whole round) = (1 - alpha)**block; pick the rounds so that
    # n * that**rounds < e**-_REDRAW_LOG_MISS.
    miss_per_round = -block * math.log1p(-alpha) if alpha < 1 else math.inf
    max_rounds = max(2, math.ceil((_REDRAW_LOG_MISS + math.log(n + 1)) / miss_per_round) + 1)
    for _ in range(max_rounds):
        if pending.size == 0:
            return out
        still = []
        for start in range(0, pending.size, rows_per_chunk):
            runs = pending[start : start + rows_per_chunk]
            shape = (runs.size, block)
            draft = _inverse_cdf(q, rng.random(shape).ravel()).reshape(shape)
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


def rule_counts(
    key: str, p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None, **params: Any
) -> np.ndarray:
    """Output counts of ``n`` independent runs of a rule, for ``n`` up to ``10**15``.

    The runs are i.i.d. and each emits a token with law ``L = rule_output_law(key, p, q)``, so
    the vector of their output counts is exactly ``Multinomial(n, L)`` — the same law as
    ``np.bincount(rule_sample(key, p, q, n))``, drawn in O(V) time whatever ``n`` is.

    Parameters
    ----------
    key : str
        A rule of :data:`RULE_KEYS`.
    p, q : array_like
        Target and draft probability vectors of equal length.
    n : int
        Number of runs, ``0 <= n <= 10**15``.
    seed : None, int or numpy.random.Generator, optional
        The same int seed gives the same counts.
    **params
        The rule's parameters, as in :func:`rule_output_law`.

    Returns
    -------
    numpy.ndarray
        int64 counts per token, summing to ``n``.

    Raises
    ------
    ValueError
        As :func:`rule_output_law`, or if ``n`` is out of range.
    """
    law = rule_output_law(key, p, q, **params)
    size = as_count(n, "n", maximum=MAX_COUNT_DRAWS)
    rng = as_generator(seed)
    return multinomial_on_support(rng, size, law)


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _merge_params(rule: Rule, params: Mapping[str, Any]) -> dict[str, Any]:
    """The rule's defaults overridden by ``params``, validated."""
    defaults = rule.params
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        allowed = ", ".join(defaults) if defaults else "none"
        raise ValueError(
            f"unknown parameter(s) {', '.join(unknown)} for rule {rule.key!r}; it takes: {allowed}"
        )
    values = {**defaults, **params}
    if "k" in values:
        values["k"] = as_count(values["k"], "k")
        if values["k"] < 1:
            raise ValueError("k must be at least 1 (top-k keeps the k most likely tokens); got 0")
    if "eps" in values:
        values["eps"] = _as_real(values["eps"], "eps")
        if not 0 <= values["eps"] <= 1:
            raise ValueError(f"eps must lie in [0, 1]; got {values['eps']!r}")
    if "delta" in values:
        values["delta"] = _as_real(values["delta"], "delta")
        if not (math.isfinite(values["delta"]) and values["delta"] >= 0):
            raise ValueError(f"delta must be a finite number >= 0; got {values['delta']!r}")
    return values


def _descending(probs: np.ndarray) -> np.ndarray:
    """Token indices by decreasing probability; a stable sort puts ties in index order."""
    return np.argsort(-probs, kind="stable")


def _as_real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number; got {_short(value)}")
    out = float(value)
    if math.isnan(out):
        raise ValueError(f"{name} must be a number; got NaN")
    return out


def _as_logits(logits: object) -> np.ndarray:
    try:
        z = np.asarray(logits, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"logits must be a vector of numbers; got {_short(logits)}") from exc
    if z.ndim != 1:
        raise ValueError(f"logits must be a 1-D vector; got an array of shape {z.shape}")
    if z.size == 0:
        raise ValueError("logits is empty; it needs at least one entry")
    if np.isnan(z).any():
        raise ValueError(f"logits contains NaN (entry {int(np.flatnonzero(np.isnan(z))[0])})")
    if (z == np.inf).any():
        raise ValueError("logits contains +inf; only -inf (a masked token) is allowed")
    if not np.isfinite(z).any():
        raise ValueError("logits are all -inf; at least one token must be allowed")
    return z
