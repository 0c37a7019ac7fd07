"""The page "Why it's exact": the derivation, its table filled in word by word, the rejection
equation, the charts of one step, the float32 leak, the predict-then-reveal answers; and Home's
tally. Every number shown is read from a step or from the core's results, never computed twice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from specviz import palette
from specviz.exactness import (
    CASES_BY_KEY,
    FILTER,
    QUESTIONS_BY_KEY,
    WORDS,
    Float32Leak,
    Question,
    home_draws,
)
from specviz.figures import captions, fit, vega
from specviz.figures.numbers import decimal, percent, thousands
from specviz.figures.style import ChartStyle
from specviz.limits import ROUNDING
from specviz.links import QUALITY
from specviz.one_token import OneTokenStep
from specviz.palette import Notation, Role
from specviz.scenario import home_scenario
from specviz.text import say
from specviz.theory import expected_tokens_per_step


def big_count(n: int) -> str:
    """A large round number in words: ``10**12`` -> "1 trillion", ``10**7`` -> "10 million"."""
    if n >= 10**12 and n % 10**12 == 0:
        return say("exactness.trillion", count=thousands(n // 10**12))
    if n >= 10**9 and n % 10**9 == 0:
        return say("exactness.billion", count=thousands(n // 10**9))
    if n >= 10**6 and n % 10**6 == 0:
        return say("exactness.million", count=thousands(n // 10**6))
    return thousands(n)


def derivation(notation: Notation, projector: bool = False) -> str:
    """The derivation as LaTeX in the learner's lettering, larger on a projector (KaTeX does not
    follow the page's type size)."""
    # Lettered with {T} and {D}: a step per line, to fit a phone's width.
    lines = (
        r"P(\text{" + say("exactness.emit") + r" } x) = \underbrace{{D}(x)\cdot\min\!\Big(1, "
        r"\frac{{T}(x)}{{D}(x)}\Big)}_{\text{" + say("exactness.a_kept_guess") + "}}",
        r"\qquad + \underbrace{Z\cdot r(x)}_{\text{" + say("exactness.from_the_bucket") + "}}",
        r"\qquad = \min({T}, {D})(x) + \max(0,\, {T} - {D})(x)",
        r"\qquad = {T}(x)",
    )
    # KaTeX leaves a brace's label out of its row's depth: stretched rows make room for it.
    rows = r"\def\arraystretch{2}\begin{array}{l}" + r" \\ ".join(lines) + r"\end{array}"
    return notation.fill(r"{\Large " + rows + "}" if projector else rows)


def proof_table(
    labels: Sequence[str], step: OneTokenStep, notation: Notation
) -> dict[str, list[str]]:
    """The derivation filled in word by word, a column per term and a row of totals: each row's
    ``kept + from the bucket`` (the step's output law) is checked against the target column."""
    t, d = notation.target, notation.draft
    proposed, sums = zip(step.q, step.accept, strict=True), zip(step.p, step.output, strict=True)
    rule = [percent(a) if q > 0 else say("exactness.never_proposed") for q, a in proposed]
    check = [f"{percent(o)} " + ("✓" if abs(o - p) <= ROUNDING else "✗") for p, o in sums]
    kept = notation.fill(say("exactness.table_kept"))
    return {
        say("exactness.word"): [*labels, say("exactness.all")],
        f"{t}(x)": [*map(percent, step.p), percent(step.p.sum())],
        f"{d}(x)": [*map(percent, step.q), percent(step.q.sum())],
        f"a(x) = min(1, {t}/{d})": [*rule, ""],
        kept: [*map(percent, step.kept), f"α = {percent(step.alpha)}"],
        say("exactness.table_bucket"): [*map(percent, step.refill), f"Z = {percent(step.z)}"],
        notation.fill(say("exactness.table_sum")): [*check, percent(step.alpha + step.z)],
    }


def _terms(labels: Sequence[str], values: Sequence[float]) -> str:
    """``10% (floor) + 30% (bed)``: the non-zero terms of a sum, each named."""
    parts = [f"{percent(v)} ({w})" for w, v in zip(labels, values, strict=True) if v > 0]
    return " + ".join(parts) if parts else "0"


def rejection_equation(labels: Sequence[str], step: OneTokenStep, notation: Notation) -> str:
    """ "Total rejection probability = the bucket's size", filled in (Markdown)."""
    if step.z == 0:
        return notation.fill(say("exactness.never_rejects"))
    bounced, refill, z = _terms(labels, step.bounced), _terms(labels, step.refill), percent(step.z)
    return notation.fill(say("exactness.rejection_sum", bounced=bounced, z=z, refill=refill))


#: Share of a word's slot a bar fills; the proof's target outline reaches wider than its bars.
BAR_BAND = 0.65
PROOF_BAND = 0.7
OUTLINE_BAND = 0.94
# A legend entry's symbol and gaps (px), and the widest row of them a full-width chart on a
# 1280 px projector holds (its plot is ~1,120 px wide).
LEGEND_KEY, LEGEND_ROW = 40, 1_050


def _x(labels: Sequence[str], style: ChartStyle) -> dict:
    """The words along x (:func:`vega.word_x`) as :func:`fit.tick_words` fits them."""
    x = vega.word_x(style)
    words, size = fit.tick_words(labels, style)
    axis = x["axis"] | {"labelFontSize": size}
    broken = {w: t.split("\n") for w, t in zip(labels, words, strict=True) if "\n" in t}
    if broken:  # a label given as a list of lines is drawn on several lines
        axis["labelExpr"] = f"{vega.literal(broken)}[datum.label] || datum.label"
    return x | {"axis": axis}


def _bars(
    names: Sequence[str],
    roles: Sequence[Role],
    ys: Sequence[str],
    tips: Sequence[tuple],
    x: dict,
    style: ChartStyle,
    band: float = BAR_BAND,
    **legend: object,
) -> tuple[dict, list[dict]]:
    """The chart's one legend (side by side on a projector: a legend row is a row less of plot),
    and a layer of dataset ``bars`` per field of ``ys`` (an entry past them has none): bars in
    ``roles[k]``'s look up to ``ys[k]``, on the bars before; tooltip: the word, then ``tips``."""
    beside = {}
    if style.projector:  # one row, or two where one runs past a 1280 px projector's chart
        row = fit.legend_width([[name] for name in names], style.font_size, LEGEND_KEY)
        beside = {"direction": "horizontal"} | ({"columns": 2} if row > LEGEND_ROW else {})
    colour = vega.colour(names, roles, style, **beside, **legend)
    tooltip, mark = vega.tooltip(("word", say("exactness.word")), *tips), {"width": {"band": band}}
    layers = []
    for k, (name, role, y) in enumerate(zip(names, roles, ys, strict=False)):
        place = {"x": x, "y": vega.room_y(y)} | ({"y2": {"field": ys[k - 1]}} if k else {})
        layer = vega.role_bars(role, colour, style, mark, **place, tooltip=tooltip)
        layers.append({"data": vega.data("bars"), "transform": [vega.named(name)]} | layer)
    return colour, layers


def _text(field: str, y: str, x: dict, **mark: object) -> dict:
    """A row of texts, dataset ``bars``' field ``field`` at the height of field ``y``."""
    return {"data": vega.data("bars")} | vega.text(field, mark, x=x, y=vega.room_y(y))


def _chart(title: str, top: float, layers: list[dict], style: ChartStyle, **datasets: list) -> dict:
    """A chart of ``layers`` titled ``title``, its y axis up to ``top`` (:func:`vega.room`)."""
    datasets |= {"ceiling": [{"y": top}], "yticks": vega.share_ticks(top)}
    return vega.chart(style, vega.title(title, style), datasets, layers + vega.room("ceiling", "y"))


def _inside(texts: Sequence[str], shares: Sequence[float], top: float, style: ChartStyle) -> list:
    """Numbers printed inside bars, each left out where its bar cannot hold it."""
    wide = fit.slot_width(style, len(texts)) * BAR_BAND
    px, size = 0.8 * style.height / top, style.text_size
    return [
        t if s * px >= 1.3 * size and fit.text_width(t, size) <= wide else ""
        for t, s in zip(texts, shares, strict=True)
    ]


def _ratios(step: OneTokenStep, style: ChartStyle) -> tuple[list[str], list[str]]:
    """The rule min(1, {T}/{D}) word by word: a tooltip's text, and the text over the bars: ``p/q =
    1.50 → 1``, or ``p/q`` over the number where words are many, or nothing."""
    never = (say("exactness.never_proposed_tip"), say("exactness.never_proposed_lines"), "{D} = 0")
    forms = []  # per word: its tooltip, its full text and its compact text
    for pi, qi, ai in zip(step.p, step.q, step.accept, strict=True):
        ratio = decimal(pi / qi, 2) if qi else ""
        said = f"{{T}}/{{D}} = {ratio}" + (" → 1" if ai >= 1 else "")
        forms.append((said, said, f"{{T}}/{{D}}\n{ratio}") if qi else never)
    hover, full, compact = ([style.fill(t) for t in form] for form in zip(*forms, strict=True))
    return hover, fit.fit_row([full, compact], np.ones(step.size), 1.3, style)


def acceptance_figure(labels: Sequence[str], step: OneTokenStep, style: ChartStyle) -> dict:
    """Acceptance probability min(1, {T}/{D}) per word, the rejected remainder stacked on top,
    the ratio printed over each bar (:func:`_ratios`) and in its tooltip."""
    proposed, accept = step.q > 0, step.accept
    reject = np.where(proposed, 1 - accept, 0.0)
    hover, ratio = _ratios(step, style)
    top = 1.06 + 0.14 * max((t.count("\n") + 1 for t in ratio if t), default=0)
    kept = [percent(a) if ok else "—" for a, ok in zip(accept, proposed, strict=True)]
    bounced = [percent(r) if r > 0 else "" for r in reject]
    bars = vega.rows(
        labels,
        accept=accept,
        reject=reject,
        top=accept + reject,
        kept_mid=accept / 2,
        bounced_mid=accept + reject / 2,
        kept_text=_inside(kept, accept, top, style),
        bounced_text=_inside(bounced, reject, top, style),
        # Vega stacks a text's further lines below its anchor: each line is a row of its own.
        ratio_top=[t.split("\n")[0] if "\n" in t else "" for t in ratio],
        ratio=[t.split("\n")[-1] for t in ratio],
        hover=hover,
    )
    names = (say("exactness.accepted"), say("exactness.rejected"))
    roles = (palette.ACCEPTED, palette.REJECTED)
    tips = (
        ("accept", say("exactness.p_accept"), percent),
        ("reject", say("exactness.p_reject"), percent),
        ("hover", say("exactness.ratio")),
    )
    x = _x(labels, style)
    _, layers = _bars(names, roles, ("accept", "top"), tips, x, style)
    ink, over = {"fontWeight": 600, "baseline": "middle"}, {"baseline": "bottom", "dy": -4}
    layers += [
        _text("kept_text", "kept_mid", x, **ink),
        _text("bounced_text", "bounced_mid", x, **ink),
        _text("ratio", "top", x, **over),
        _text("ratio_top", "top", x, **over | {"dy": -4 - round(1.2 * style.text_size)}),
    ]
    return _chart(say("exactness.acceptance_title"), top, layers, style, bars=bars)


def bucket_figure(labels: Sequence[str], step: OneTokenStep, style: ChartStyle) -> dict:
    """The leftover bucket: the residual r, and its size Z = P(rejection) on a line of its own
    over the plot (the point of the chart; a number in the title would remount it)."""
    r = [float(v) for v in step.residual]
    empty = step.z == 0  # the one rounding rule already made a bucket of rounding noise empty
    top = 1.0 if empty else max(r) * 1.18  # room over the bars for their numbers
    shown = fit.fit_row([[percent(v) if v > 0 else "" for v in r]], r, top, style)
    said = say("exactness.bucket_empty") if empty else ""
    note = {"size": say("exactness.bucket_size", z=percent(step.z)), "empty": style.fill(said)}
    x, over = _x(labels, style), vega.legend_over(1, style)
    name, tips = say("exactness.bucket_name"), [("r", "r", percent)]
    _, layers = _bars([name], [palette.BUCKET], ["r"], tips, x, style, **over)
    big = {"fontSize": style.font_size, "lineBreak": "\n", "align": "center", "baseline": "middle"}
    middle = {"x": {"value": {"expr": "width / 2"}}, "y": {"value": {"expr": "height / 2"}}}
    layers += [
        _text("label", "r", x, baseline="bottom", dy=-3),
        *vega.key_row("note", 0, style, field="size", fontWeight="bold"),
        {"data": vega.data("note")} | vega.text("empty", big, **middle),
    ]
    bars = vega.rows(labels, r=r, label=shown)
    return _chart(say("exactness.bucket_title"), top, layers, style, bars=bars, note=[note])


def proof_figure(labels: Sequence[str], step: OneTokenStep, style: ChartStyle) -> dict:
    """The picture proof: kept guesses min({T}, {D}) plus bucket refills Z·r(x) land exactly on
    the target {T}(x), drawn as a dashed ink outline over each bar."""
    names = (
        style.fill(say("exactness.kept_name")),
        say("exactness.refill_name"),
        style.fill(say("exactness.target_name")),
    )
    # The outline's entry is drawn as the outline is: a dashed ink line.
    ink = replace(palette.TARGET, color=palette.INK, pattern=vega.LINE)
    roles = (palette.ACCEPTED, palette.BUCKET, ink)
    tips = (
        ("kept", say("exactness.kept_guesses"), percent),
        ("refill", say("exactness.bucket_refills"), percent),
        ("p", style.fill(say("exactness.target")), percent),
    )
    x = _x(labels, style)
    colour, layers = _bars(names, roles, ("kept", "top"), tips, x, style, PROOF_BAND)
    # A flat stroke at height p(x), wider than the bar so that it shows on the bar's top edge.
    width, edge = style.line_width + 1, (1 - OUTLINE_BAND) / 2
    dash, span = [2 * width, width + 1], (edge, 1 - edge)
    outline = vega.strokes(x, vega.room_y("p"), style, dash, span, color=colour)
    layers += [
        {"data": vega.data("bars"), "transform": [vega.named(names[2])]} | outline,
        _text("total", "p", x, baseline="bottom", dy=-(style.line_width / 2 + 3)),
    ]
    p = [float(v) for v in step.p]
    top = max(p) * 1.2
    totals = fit.fit_row([[f"= {percent(v)}" for v in p], [percent(v) for v in p]], p, top, style)
    kept, refill = step.kept, step.refill
    bars = vega.rows(labels, kept=kept, refill=refill, top=kept + refill, p=p, total=totals)
    return _chart(say("exactness.proof_title"), top, layers, style, bars=bars)


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


def filter_sentence(labels: Sequence[str], step: OneTokenStep, notation: Notation) -> str:
    """Why the words the target forbids and the draft proposes cannot come out, with the numbers
    of their proposals."""
    z, shut = percent(step.z), np.flatnonzero((step.p == 0) & (step.q > 0))
    q, out = list(map(percent, step.q)), list(map(percent, step.output))
    parts = [say("exactness.filter_word", word=labels[i], q=q[i], z=z, out=out[i]) for i in shut]
    return notation.fill(say("exactness.filter_sentence", words="; ".join(parts)))


def filter_figure(style: ChartStyle) -> tuple[dict, str]:
    """The filter case's acceptance chart: the forbidden word is bounced every time."""
    one, note = FILTER.step(), style.notation
    return acceptance_figure(WORDS, one, style), captions.acceptance_caption(WORDS, one, note)


def leak_sentence(leak: Float32Leak, notation: Notation) -> str:
    """What the count-level runs of the float32 exhibit found, in one paragraph."""
    said = say(
        "exactness.leak",
        runs=big_count(leak.n),
        words=", ".join(f"'{WORDS[i]}'" for i in leak.forbidden) or say("exactness.no_word"),
        leaks=thousands(leak.leaks),
        expected=thousands(leak.expected_leaks, 1),
        one_in=thousands(round(1 / leak.per_proposal)),
        strict=thousands(leak.strict_leaks),
    )
    return notation.fill(said)


def reveal(question: Question, guess: str, notation: Notation) -> str:
    """The verdict on ``guess``, the right answer named once, and why it is right, with the
    numbers of the question's state."""
    one, answer = question.case.step(), question.options[question.answer]
    if question.key == "alpha":
        why = say("exactness.why_alpha", terms=" + ".join(map(percent, one.kept)))
    elif question.key == "topped_up":
        too_often = np.flatnonzero(one.balance > 0)
        over = ", ".join(
            f"{WORDS[i]} ({percent(one.q[i])} > {percent(one.p[i])})" for i in too_often
        )
        why = say("exactness.why_topped_up", bucket=_terms(WORDS, one.refill), over=over)
    elif question.key == "missing":
        refill, z, out = percent(one.refill[3]), percent(one.z), percent(one.output[3])
        why = say("exactness.why_missing", refill=refill, z=z, out=out)
    else:
        other, gamma = (question.other or question.case).step(), 4
        writes, instead = (
            decimal(expected_tokens_per_step(s.alpha, gamma), 2) for s in (one, other)
        )
        why = say(
            "exactness.why_worse",
            before=percent(other.alpha),
            after=percent(one.alpha),
            gamma=gamma,
            writes=writes,
            instead=instead,
        )
    if question.is_right(guess):
        return notation.fill(say("exactness.right", answer=answer, why=why))
    return notation.fill(say("exactness.not_quite", answer=answer, why=why))


def question_figure(key: str, style: ChartStyle) -> tuple[dict, str]:
    """The chart a question's answer is shown with, and its caption."""
    one, note = QUESTIONS_BY_KEY[key].case.step(), style.notation
    if key == "topped_up":
        return bucket_figure(WORDS, one, style), captions.bucket_caption(WORDS, one, note)
    return proof_figure(WORDS, one, style), captions.proof_caption(WORDS, one, note)


def home_tally(seed: int, notation: Notation) -> tuple[dict[str, list[str]], str]:
    """Home's draws (:func:`~specviz.exactness.home_draws`, with ``seed``) at every quality Home
    offers as table columns — the words' shares, then the guesses kept, drawn and exactly
    (α = Σ min(p, q)) — and the note that says what they are."""
    t, d = notation.target, notation.draft
    columns = {say("exactness.word"): [*WORDS, say("exactness.guesses_kept"), f"Σ min({t}, {d})"]}
    target = notation.fill(say("exactness.target"))
    columns[target] = [*map(percent, home_scenario(0).step().p), "", ""]
    for k in QUALITY.choices:
        run = home_draws(k, seed)
        shares = (*run.counts.output_counts, run.counts.accepted_counts.sum())
        drawn = [f"{100 * c / run.n:.1f}%" for c in shares]
        alpha = percent(home_scenario(k).step().alpha)
        columns[say("exactness.draft_quality", k=k)] = [*drawn, alpha]
    return columns, say("exactness.tally_note", n=thousands(run.n), seed=seed)


def overlap_sentence(notation: Notation) -> str:
    """Why Home's backwards draft (quality 0) keeps its share of guesses: Σ min(p, q)."""
    one = home_scenario(0).step()
    pairs = zip(one.p, one.q, strict=True)
    terms = " + ".join(f"min({percent(a)}, {percent(b)})" for a, b in pairs)
    return notation.fill(say("exactness.overlap", alpha=percent(one.alpha), terms=terms))
