"""The one-token procedure as a story: every random number of every draw, kept for display, drawn
with the sampler's own mappings, so its draws have its law."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import generator, whole
from specviz._laws import words_of
from specviz.limits import MAX_STORY
from specviz.one_token import step
from specviz.sampling import SeedLike


@dataclass(frozen=True)
class DrawStory:
    """``n`` draws with all their random numbers: the uniform that picked the proposal and the
    proposal, its ``a(x)``, the test's uniform and verdict, the uniform of the bucket's pick (NaN
    where accepted), and the emitted token."""

    u_draft: np.ndarray
    draft: np.ndarray
    accept_prob: np.ndarray
    u_accept: np.ndarray
    accepted: np.ndarray
    u_bucket: np.ndarray
    output: np.ndarray


def one_draw_story(p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None) -> DrawStory:
    """``n`` runs (0 to :data:`~specviz.limits.MAX_STORY`) of the one-token procedure for target
    ``p`` and draft ``q``, from ``seed``."""
    one = step(p, q)
    n = whole(n, "n", maximum=MAX_STORY)
    u_draft, u_accept, u_bucket = generator(seed).random((3, n))
    draft = words_of(one.q, u_draft)
    accepted = u_accept * one.q[draft] < one.p[draft]
    return DrawStory(
        u_draft=u_draft,
        draft=draft,
        accept_prob=one.accept[draft],
        u_accept=u_accept,
        accepted=accepted,
        u_bucket=np.where(accepted, np.nan, u_bucket),
        output=np.where(accepted, draft, words_of(one.bucket_weights, u_bucket)),
    )
