"""The one-token procedure as a story: every random number of every draw, kept for display.

A learner stepping through draws sees where the pointer landed on the draft's strip, where ``u``
fell against ``a(x)`` and where the bucket draw landed. The story uses the sampler's mappings
(inverse CDF on ``q`` and on the residual, the test ``u·q(x) < p(x)``), so its draws have its law.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import generator, prob_pair, whole
from specviz.limits import MAX_STORY
from specviz.one_token import step
from specviz.sampling import SeedLike, inverse_cdf


@dataclass(frozen=True)
class DrawStory:
    """``n`` draws of the one-token procedure with all their random numbers.

    Attributes
    ----------
    u_draft, draft : numpy.ndarray
        The uniform that picked the proposal on the draft's strip, and the proposal (law ``q``).
    accept_prob : numpy.ndarray
        ``a(x) = min(1, p(x)/q(x))`` of the proposal.
    u_accept, accepted : numpy.ndarray
        The acceptance test's uniform and its verdict (bool): ``u·q(x) < p(x)``.
    u_bucket : numpy.ndarray
        The uniform that picked the replacement on the bucket's strip; NaN where accepted.
    output : numpy.ndarray
        The emitted token (law ``p``): the proposal if accepted, else the bucket's pick.
    """

    u_draft: np.ndarray
    draft: np.ndarray
    accept_prob: np.ndarray
    u_accept: np.ndarray
    accepted: np.ndarray
    u_bucket: np.ndarray
    output: np.ndarray

    def __len__(self) -> int:
        return int(self.draft.size)


def one_draw_story(p: ArrayLike, q: ArrayLike, n: int, seed: SeedLike = None) -> DrawStory:
    """Draw ``n`` runs of the one-token procedure, keeping every uniform for display.

    Parameters
    ----------
    p, q : array_like
        Target and draft probability vectors of equal length.
    n : int
        Number of draws, ``0 <= n <= 2000`` (:data:`~specviz.limits.MAX_STORY`).
    seed : None, int or numpy.random.Generator, optional
        The same int seed tells the same story.

    Returns
    -------
    DrawStory
        Per draw: the three uniforms, the proposal, its ``a(x)``, the verdict, the emitted token.
    """
    p, q = prob_pair(p, q)
    n = whole(n, "n", maximum=MAX_STORY)
    rng = generator(seed)
    one = step(p, q)
    u_draft, u_accept, u_bucket = rng.random((3, n))
    draft = inverse_cdf(q, u_draft)
    accepted = u_accept * q[draft] < p[draft]
    bucket_pick = inverse_cdf(one.bucket_weights, u_bucket)
    return DrawStory(
        u_draft=u_draft,
        draft=draft,
        accept_prob=one.accept[draft],
        u_accept=u_accept,
        accepted=accepted,
        u_bucket=np.where(accepted, np.nan, u_bucket),
        output=np.where(accepted, draft, bucket_pick),
    )
