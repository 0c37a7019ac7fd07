"""The page "Why it's exact": the derivation, its table filled in word by word, the rejection
equation, the float32 leak and the predict-then-reveal answers — text and charts built from a
step (:class:`~specviz.one_token.OneTokenStep`), never from a second computation.

Every number printed is read from the step (``kept``, ``refill``, ``output``, ``bounced``) or from
the core's results (:class:`~specviz.exactness.Float32Leak`), so a test can compare them.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from specviz.exactness import CASES_BY_KEY, QUESTIONS_BY_KEY, WORDS, Float32Leak, Question
from specviz.figures import captions
from specviz.figures.numbers import percent
from specviz.figures.playground import acceptance_figure, bucket_figure, proof_figure
from specviz.figures.style import ChartStyle
from specviz.limits import ROUNDING
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.theory import expected_tokens_per_step

#: The derivation, in LaTeX, lettered with {T} and {D}: one step per line, so that it fits a
#: phone's width as well as a column beside the table.
DERIVATION_LINES = (
    r"P(\text{emit } x) = \underbrace{{D}(x)\cdot\min\!\Big(1, \frac{{T}(x)}{{D}(x)}\Big)}"
    r"_{\text{a kept guess}}",
    r"\qquad + \underbrace{Z\cdot r(x)}_{\text{from the bucket}}",
    r"\qquad = \min({T}, {D})(x) + \max(0,\, {T} - {D})(x)",
    r"\qquad = {T}(x)",
)

#: Over many words, in three lines (the chain rule).
CHAIN_RULE = (
    "1. A text's probability under the target is the product of its next-word laws: "
    r"${T}(x_1 \dots x_n) = \prod_i {T}(x_i \mid x_{<i})$."
    "\n"
    "2. Each word speculative decoding writes comes out of the one-token procedure above, run "
    "with the target's and the draft's next-word laws given the words already written — so, by "
    r"the proof, it follows ${T}(\,\cdot \mid x_{<i})$, whatever the draft guessed."
    "\n"
    "3. Multiply: the whole text follows {T}. Guessing γ words per target call changes how many "
    "calls it takes, not which texts come out."
)

_BIG = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"))


def big_count(n: int) -> str:
    """A large round number in words: ``10**12`` -> "1 trillion", ``10**7`` -> "10 million"."""
    for size, name in _BIG:
        if n >= size and n % size == 0:
            return f"{n // size:,} {name}"
    return f"{n:,}"


def derivation(notation: Notation, projector: bool = False) -> str:
    """The derivation as LaTeX in the learner's lettering: larger on a projector (KaTeX does not
    follow the page's type size), rows spaced so the brace labels clear the line below."""
    # KaTeX leaves a brace's label out of its row's depth: stretched rows make room for it.
    rows = r"\def\arraystretch{2}\begin{array}{l}" + r" \\ ".join(DERIVATION_LINES)
    rows += r"\end{array}"
    return notation.fill(r"{\Large " + rows + "}" if projector else rows)


def proof_table(
    labels: Sequence[str], step: OneTokenStep, notation: Notation
) -> dict[str, list[str]]:
    """The derivation filled in word by word, a column per term and a row of totals.

    Each row reads ``kept + from the bucket = sum``, and the sum (the step's output law) is
    checked against the target column ``p``: the learner sees the two agree.
    """
    t, d = notation.target, notation.draft
    rows = zip(
        labels, step.p, step.q, step.accept, step.kept, step.refill, step.output, strict=True
    )
    table: dict[str, list[str]] = {
        "word": [],
        f"{t}(x)": [],
        f"{d}(x)": [],
        f"a(x) = min(1, {t}/{d})": [],
        f"kept {d}·a": [],
        "bucket Z·r": [],
        f"sum = {t}?": [],
    }
    for word, pi, qi, ai, kept, refill, out in rows:
        values = (
            word,
            percent(pi),
            percent(qi),
            percent(ai) if qi > 0 else "never proposed",
            percent(kept),
            percent(refill),
            f"{percent(out)} " + ("✓" if abs(out - pi) <= ROUNDING else "✗"),
        )
        for column, value in zip(table, values, strict=True):
            table[column].append(value)
    totals = (
        "all",
        percent(step.p.sum()),
        percent(step.q.sum()),
        "",
        f"α = {percent(step.alpha)}",
        f"Z = {percent(step.z)}",
        percent(step.alpha + step.z),
    )
    for column, value in zip(table, totals, strict=True):
        table[column].append(value)
    return table


def _terms(labels: Sequence[str], values: Sequence[float]) -> str:
    """``10% (floor) + 30% (bed)``: the non-zero terms of a sum, each named."""
    parts = [f"{percent(v)} ({w})" for w, v in zip(labels, values, strict=True) if v > 0]
    return " + ".join(parts) if parts else "0"


def rejection_equation(labels: Sequence[str], step: OneTokenStep, notation: Notation) -> str:
    """ "Total rejection probability = the bucket's size", filled in (Markdown)."""
    bounced, refill = _terms(labels, step.bounced), _terms(labels, step.refill)
    if step.z == 0:
        return notation.fill(
            "**A rejection never happens here:** every word has {D}(x) ≤ {T}(x) up to rounding, "
            "so every guess is kept, Σ {D}(x)·(1 − a(x)) = 0 and the bucket is empty: Z = 0."
        )
    return notation.fill(
        "**P(rejection) = the bucket's size.** A guess of x is bounced with probability "
        "{D}(x)·(1 − a(x)) = max(0, {D} − {T})(x). Summed: "
        f"{bounced} = **{percent(step.z)}**. The bucket holds max(0, {{T}} − {{D}}): "
        f"{refill} = **Z = {percent(step.z)}**. Both sums are TV({{T}}, {{D}}), so every rejected "
        "guess is replaced by exactly one word from the bucket: no probability is lost or "
        "counted twice."
    )


def why_figures(labels: Sequence[str], step: OneTokenStep, style: ChartStyle) -> dict[str, object]:
    """Everything the proof section draws for one state: ``{"proof": (figure, caption),
    "table": columns, "rejection": Markdown}``."""
    note = style.notation
    return {
        "proof": (proof_figure(labels, step, style), captions.proof_caption(labels, step, note)),
        "table": proof_table(labels, step, note),
        "rejection": rejection_equation(labels, step, note),
    }


def case_figures(key: str, style: ChartStyle) -> dict[str, object]:
    """:func:`why_figures` of one of the page's own cases (never the learner's state)."""
    return why_figures(WORDS, CASES_BY_KEY[key].step(), style)


# ------------------------------------------------------------------------ a forbidden word


def filter_sentence(labels: Sequence[str], step: OneTokenStep, notation: Notation) -> str:
    """Why no word the target forbids can come out, with the numbers of its proposals."""
    forbidden = [i for i in range(step.size) if step.p[i] == 0 and step.q[i] > 0]
    if not forbidden:
        return notation.fill("Here the draft never proposes a word the target forbids.")
    parts = []
    for i in forbidden:
        w = labels[i]
        parts.append(
            f"'{w}': proposed {percent(step.q[i])} of the time, kept with a({w}) = "
            f"min(1, 0/{percent(step.q[i])}) = 0, and the bucket's share "
            f"r({w}) = max(0, 0 − {percent(step.q[i])}) / Z = 0, so "
            f"P(emit {w}) = {percent(step.q[i])}·0 + {percent(step.z)}·0 = "
            f"**{percent(step.output[i])}**"
        )
    return notation.fill(
        "; ".join(parts)
        + ". Whatever the draft proposes: a(x) = 0 because {T}(x) = 0, and r(x) = 0 because "
        "max(0, 0 − {D}(x)) = 0. Both routes are shut."
    )


def filter_figure(style: ChartStyle) -> tuple[go.Figure, str]:
    """The filter case's acceptance chart: the forbidden word is bounced every time."""
    one = CASES_BY_KEY["filter"].step()
    return (
        acceptance_figure(WORDS, one, style),
        captions.acceptance_caption(WORDS, one, style.notation),
    )


def leak_sentence(leak: Float32Leak, notation: Notation) -> str:
    """What the count-level runs of the float32 exhibit found, in one paragraph."""
    one_in = round(1 / leak.per_proposal)
    words = ", ".join(f"'{WORDS[i]}'" for i in leak.forbidden) or "no word"
    return notation.fill(
        f"In {big_count(leak.n)} runs of the case above the ≤ test emitted {words} "
        f"**{leak.leaks:,} times** (about {leak.expected_leaks:,.1f} expected: one proposal in "
        f"{one_in:,} passes with u = 0); the strict test u·{{D}}(x) < {{T}}(x) emitted it "
        f"**{leak.strict_leaks:,} times**, as it always will."
    )


# ------------------------------------------------------------------------ predict, reveal


def reveal(question: Question, notation: Notation) -> str:
    """Why the right answer is right, with the numbers of the question's state."""
    one = question.case.step()
    if question.key == "alpha":
        terms = " + ".join(percent(v) for v in one.kept)
        return notation.fill(
            f"α = Σ min({{T}}, {{D}}) = {terms} = **{percent(one.alpha)}**. A guess only has to "
            "be kept as often as the target wants that word, so every word the two models share "
            "counts, however badly the draft orders them."
        )
    if question.key == "topped_up":
        under = [w for w, r in zip(WORDS, one.refill, strict=True) if r > 0]
        over = [
            f"{w} ({percent(qi)} > {percent(pi)})"
            for w, pi, qi, b in zip(WORDS, one.p, one.q, one.balance, strict=True)
            if b > 0
        ]
        return notation.fill(
            f"Only the words with {{D}}(x) < {{T}}(x) are topped up: **{', '.join(under)}**. "
            f"The bucket max(0, {{T}} − {{D}}) holds {_terms(WORDS, one.refill)}. Words the "
            f"draft proposes too often — {', '.join(over)} — have guesses bounced, never "
            "topped up; a word proposed exactly as often as the target wants is left alone."
        )
    if question.key == "missing":
        return notation.fill(
            f"Yes — exactly {percent(one.output[3])}. 'bed' is never a kept guess (0%), but the "
            f"bucket holds max(0, {{T}} − {{D}})(bed) = {percent(one.refill[3])} of it, and "
            f"every rejection (Z = {percent(one.z)}) draws from the bucket: "
            f"0% + {percent(one.refill[3])} = {percent(one.p[3])}."
        )
    other = question.other.step() if question.other else one
    gamma = 4
    return notation.fill(
        f"Only the speed. α falls from {percent(other.alpha)} to {percent(one.alpha)}, so with "
        f"γ = {gamma} guesses a target call writes "
        f"{float(expected_tokens_per_step(other.alpha, gamma)):.2f} words on average instead of "
        f"{float(expected_tokens_per_step(one.alpha, gamma)):.2f}. But kept guesses + bucket = "
        "{T}, word by word, for both drafts: the chart shows the bad draft's words arriving "
        "mostly from the bucket, in exactly the target's proportions."
    )


def question_figure(key: str, style: ChartStyle) -> tuple[go.Figure, str]:
    """The chart a question's answer is shown with, and its caption."""
    question = QUESTIONS_BY_KEY[key]
    one, note = question.case.step(), style.notation
    if key == "topped_up":
        return bucket_figure(WORDS, one, style), captions.bucket_caption(WORDS, one, note)
    return proof_figure(WORDS, one, style), captions.proof_caption(WORDS, one, note)
