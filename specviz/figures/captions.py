"""The charts' alt text and captions: a screen-reader user, or a student who cannot tell the
colours apart, gets the same facts as the picture.
"""

from __future__ import annotations

from collections.abc import Sequence

from specviz.figures.numbers import decimal, percent
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.text import say


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
