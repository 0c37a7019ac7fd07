"""The one-token procedure as a story: every random number of every draw, kept for display.

:func:`speculative_sample` throws its uniforms away; a learner stepping through draws wants to see
them — where the pointer landed on the draft's strip, where ``u`` fell against ``a(x)``, where the
bucket draw landed. The story uses the same mappings as the sampler (inverse CDF on ``q`` and on the
residual, the division-free test ``u·q(x) < p(x)``), so its draws have the sampler's law.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specviz._checks import generator, prob_pair, whole
from specviz.limits import MAX_STORY
from specviz.one_token import checked_step
from specviz.sampling import SeedLike, inverse_cdf


@dataclass(frozen=True)
class DrawStory:
    """``n`` draws of the one-token procedure with all their random numbers.

    Attributes
    ----------
    u_draft : numpy.ndarray
        Uniform that picked the proposal on the draft's cumulative strip.
    draft : numpy.ndarray
        Proposed token (law ``q``).
    accept_prob : numpy.ndarray
        ``a(x) = min(1, p(x)/q(x))`` of the proposed token.
    u_accept : numpy.ndarray
        Uniform of the acceptance test; accepted when ``u·q(x) < p(x)`` (i.e. ``u < a(x)``).
    accepted : numpy.ndarray
        bool, the test's verdict.
    u_bucket : numpy.ndarray
        Uniform that picked the replacement on the bucket's strip; NaN where accepted (unused).
    output : numpy.ndarray
        Emitted token (law ``p``): the proposal if accepted, else the bucket's pick.
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

    def tally(self, steps: int) -> tuple[np.ndarray, np.ndarray]:
        """Emitted counts per token after ``steps`` draws: (via accepted drafts, via the bucket)."""
        size = max(int(self.draft.max(initial=0)), int(self.output.max(initial=0))) + 1
        out, acc = self.output[:steps], self.accepted[:steps]
        return (
            np.bincount(out[acc], minlength=size),
            np.bincount(out[~acc], minlength=size),
        )


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
        Per draw: the three uniforms, the proposal, its acceptance probability, the verdict and
        the emitted token.
    """
    p, q = prob_pair(p, q)
    n = whole(n, "n", maximum=MAX_STORY)
    rng = generator(seed)
    one = checked_step(p, q)
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
