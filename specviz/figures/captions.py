"""The charts' alt text and captions: a screen-reader user, or a student who cannot tell the
colours apart, gets the same facts as the picture.
"""

from __future__ import annotations

from collections.abc import Sequence

from specviz.figures.numbers import decimal, percent
from specviz.one_token import OneTokenStep
from specviz.palette import Notation


def acceptance_caption(labels: Sequence[str], step: OneTokenStep, n: Notation) -> str:
    """The acceptance probability and the ratio of every word (the chart drops the ratios when
    there are too many words to print them)."""
    parts = [
        f"{w} {percent(a)} ({{T}}/{{D}} = {decimal(pi / qi, 2)})"
        if qi > 0
        else f"{w} never proposed"
        for w, a, pi, qi in zip(labels, step.accept, step.p, step.q, strict=True)
    ]
    return n.fill(f"Stacked bars of P(accept) = min(1, {{T}}/{{D}}) per word: {'; '.join(parts)}.")


def bucket_caption(labels: Sequence[str], step: OneTokenStep, n: Notation) -> str:
    """How big the bucket is and what is in it."""
    z, r = step.z, step.residual
    if z == 0:
        return n.fill("The leftover bucket is empty (Z = 0): {T} = {D}, nothing is ever rejected.")
    parts = [f"{w} {percent(v)}" for w, v in zip(labels, r, strict=True) if v > 0]
    return (
        f"Bar chart of the leftover bucket r. Size Z = {percent(z)}, which is exactly the "
        f"probability of a rejection. Contents: {'; '.join(parts)}."
    )


def proof_caption(labels: Sequence[str], step: OneTokenStep, n: Notation) -> str:
    """Per word: mass from accepted drafts plus mass from the bucket equals the target."""
    parts = [
        f"{w}: {percent(k)} + {percent(t)} = {percent(pi)}"
        for w, k, t, pi in zip(labels, step.kept, step.refill, step.p, strict=True)
    ]
    return n.fill(
        "Stacked bars per word, accepted drafts plus bucket refills, reaching the dashed target "
        f"outline {{T}}: {'; '.join(parts)}."
    )
