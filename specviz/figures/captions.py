"""The charts' alt text and captions: a screen-reader user, or a student who cannot tell the
colours apart, gets the same facts as the picture.
"""

from __future__ import annotations

from collections.abc import Sequence

from specviz.figures.numbers import decimal, percent, times
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.text import say
from specviz.theory import expected_tokens_per_step, walltime_speedup


def acceptance_caption(labels: Sequence[str], step: OneTokenStep, n: Notation) -> str:
    """The acceptance probability and the ratio of every word (the chart drops the ratios when
    there are too many words to print them)."""
    parts = [
        say("captions.accept_part", word=w, accept=percent(a), ratio=decimal(pi / qi, 2))
        if qi > 0
        else say("captions.never_proposed", word=w)
        for w, a, pi, qi in zip(labels, step.accept, step.p, step.q, strict=True)
    ]
    return n.fill(say("captions.accept", parts="; ".join(parts)))


def bucket_caption(labels: Sequence[str], step: OneTokenStep, n: Notation) -> str:
    """How big the bucket is and what is in it."""
    z, r = step.z, step.residual
    if z == 0:
        return n.fill(say("captions.empty_bucket"))
    parts = [f"{w} {percent(v)}" for w, v in zip(labels, r, strict=True) if v > 0]
    return say("captions.bucket", z=percent(z), parts="; ".join(parts))


def proof_caption(labels: Sequence[str], step: OneTokenStep, n: Notation) -> str:
    """Per word: mass from accepted drafts plus mass from the bucket equals the target."""
    parts = [
        f"{w}: {percent(k)} + {percent(t)} = {percent(pi)}"
        for w, k, t, pi in zip(labels, step.kept, step.refill, step.p, strict=True)
    ]
    return n.fill(say("captions.proof", parts="; ".join(parts)))


def move_sentence(
    labels: Sequence[str], step: OneTokenStep, i: int, gamma: int, cost: float, n: Notation
) -> str:
    """What moving word ``i``'s bar did, said once the keys rest (the live view's announcement
    for a screen reader): the word's place against the target, then the bucket, α and the
    speed-up with ``gamma`` guesses of cost ``cost``."""
    word, p, q = labels[i], percent(step.p[i]), percent(step.q[i])
    if step.p[i] == 0 and step.q[i] == 0:
        status = say("captions.move_none", word=word)
    elif step.balance[i] > 0:
        status = say("captions.move_over", word=word, p=p, q=q, accept=percent(step.accept[i]))
    elif step.balance[i] < 0:
        status = say("captions.move_under", word=word, p=p, q=q)
    else:
        status = say("captions.move_even", word=word, q=q)
    speed = times(walltime_speedup(step.alpha, gamma, cost))
    z, alpha = percent(step.z), percent(step.alpha)
    return n.fill(say("captions.move", status=status, z=z, alpha=alpha, gamma=gamma, speed=speed))


def quality_sentence(step: OneTokenStep, quality: int, gamma: int, n: Notation) -> str:
    """What Home's draft quality does, said once the control rests: α and words per call."""
    words = decimal(expected_tokens_per_step(step.alpha, gamma), 2)
    alpha = percent(step.alpha)
    return n.fill(say("captions.quality", quality=quality, alpha=alpha, gamma=gamma, words=words))
