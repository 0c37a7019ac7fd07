"""Sampling settings by Hugging Face's rules: temperature, top-k and top-p ("nucleus"). The same
settings on target and draft keep speculative sampling exact; on one model only they break it."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import prob_table, prob_vector, real, whole


def sampled(
    rows: ArrayLike, temperature: float, top_k: int | None = None, top_p: float | None = None
) -> np.ndarray:
    """Each row of next-word probabilities as ``transformers``' warpers leave it: logits ``log p``
    divided by ``T``, then top-k (ties with the k-th kept), then top-p (the least likely words
    go while their mass is at most ``1 - top_p``, lower ids first on a tie; never the likeliest).
    ``T = 0`` is greedy (``argmax``). A bad table or setting raises ValueError naming it."""
    rows, t = prob_table(rows, "rows"), real(temperature, "temperature", low=0.0)
    if t == 0:
        return (np.arange(rows.shape[1]) == rows.argmax(axis=1)[:, None]).astype(np.float64)
    out = rows
    if t != 1:  # at T = 1, log then exp would move the numbers by rounding
        with np.errstate(divide="ignore", over="ignore"):  # log 0 = -inf; a tiny T: greedy
            z = np.log(rows)
            out = np.exp((z - z.max(axis=1, keepdims=True)) / t)
        out /= out.sum(axis=1, keepdims=True)
    if top_k is not None:
        k = min(whole(top_k, "top_k (the k likeliest words)", minimum=1), rows.shape[1])
        kth = -np.sort(-out, axis=1)[:, k - 1 : k]
        out = np.where(out < kth, 0.0, out)
        out /= out.sum(axis=1, keepdims=True)
    if top_p is not None:
        mass = real(top_p, "top_p", low=0.0, high=1.0, low_open=True)
        order = np.argsort(out, axis=1, kind="stable")
        drop = np.cumsum(np.take_along_axis(out, order, axis=1), axis=1) <= 1 - mass
        drop[:, -1] = False
        np.put_along_axis(drop, order, drop.copy(), axis=1)
        out = np.where(drop, 0.0, out)
        out /= out.sum(axis=1, keepdims=True)
    return out


def top_k(probs: ArrayLike, k: int) -> np.ndarray:
    """One probability vector cut by :func:`sampled`'s top-k at ``T = 1``, renormalised."""
    return sampled(prob_vector(probs, "probs")[None], 1.0, top_k=k)[0]
