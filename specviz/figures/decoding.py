"""The page "Many words per call": the timeline of target calls, words per call and speed-up
against γ, speed-up against α next to published measurements, and the check of the theory.

Every builder takes the page's settings (hashable, so Streamlit caches the result per setting)
and reads the results the core computed once per setting (:mod:`specviz.language`'s ``toy_*``
functions); no builder computes a probability itself. Learner text lives here too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from specviz import palette
from specviz.decoding import (
    CHEN_2023,
    LEVIATHAN_TABLE2,
    Decoding,
    Origin,
    cost_model_speedup,
)
from specviz.figures.fit import wrap
from specviz.figures.html import attribute, render
from specviz.figures.numbers import percent
from specviz.figures.style import ChartStyle, figure, layout
from specviz.figures.traces import bar, inside_text
from specviz.language import (
    PAIR_KEYS,
    PAIR_TITLES,
    STRONG_TOP_P,
    WEAK_TOP_K,
    ToyPair,
    check_row,
    corpus,
    toy_common_words,
    toy_curve,
    toy_pair,
    toy_point,
    toy_run,
)
from specviz.limits import CHECK_RUNS, CHECK_WORDS, CURVE_GAMMA, SHARES_WORDS
from specviz.palette import Notation
from specviz.precomputed import CurvePoint
from specviz.theory import walltime_speedup

#: What the page is about, in three sentences ({T}/{D}: the letters).
INTRO = (
    "A big model writes one word per expensive call. In **speculative decoding** a cheap draft "
    "{D} guesses γ words ahead and **one call** of the target {T} checks them all: it keeps the "
    "guesses up to the first one it rejects, then writes one word itself — from the leftover "
    "bucket after a rejection, or a **bonus** word when every guess was kept. The text follows "
    "{T} exactly; what changes is how many words each expensive call writes."
)

#: The prediction in precise terms, for those who want them.
HOW_PREDICTED = (
    "Write M = min({T}, {D}) for the mass of kept guesses after each context and "
    "R = max(0, {T} − {D}) for the bucket. A call that starts after context s keeps at least k "
    "guesses with probability (Mᵏ1)[s], so it writes E[N | s] = Σₖ₌₀..γ (Mᵏ1)[s] words on "
    "average. The context where the next call starts follows the kernel K = Σₖ<γ MᵏR + Mᵞ{T}; "
    "over a long text, words per call = Σₛ π(s) E[N | s] with π the long-run law of K "
    "(renewal–reward). No simulation is involved; the table checks it against simulated texts. "
    "The i.i.d. formula (1 − αᵞ⁺¹)/(1 − α) is the special case where every context has the "
    "same α."
)

#: How each pair is described to a learner ({T}/{D}: the letters).
PAIR_BLURBS: dict[str, str] = {
    "ngram": (
        "Target {T} reads the last two words (a trigram model of a small corpus about a cat, a "
        "dog and a family); draft {D} reads only the last word (a bigram model of the same "
        "corpus). Cheaper, and right about most small words and set phrases."
    ),
    "strong": (
        "Draft {D} is the target cut down to its likeliest words, the ones that make up "
        f"{percent(STRONG_TOP_P)} of its chances after each context. It never guesses a rare "
        "word: those come from the leftover bucket."
    ),
    "weak": (
        f"Draft {{D}} ignores the context: it guesses among the {WEAK_TOP_K} commonest words of "
        "the corpus, the frequent ones more often (at temperature 0 always the commonest, "
        "“the”). Most of its guesses are rejected."
    ),
    "hotter": (
        "Draft {D} is the target itself run at twice the temperature, so it spreads its guesses "
        "wider than the target does (at temperature 0 both always pick the likeliest word and "
        "agree)."
    ),
    "perfect": (
        "Draft {D} is the target {T} itself: every guess is kept and every call writes γ + 1 "
        "words. No real draft is this good — it would be as slow as the target."
    ),
    "textbook": (
        "A chain of three words small enough to work by hand (sun, rain, wind): a fixed table of "
        "next-word chances for {T} and another for {D}. At temperature 1 and γ = 4, a long text "
        "averages about 2.73 words per call."
    ),
}

#: Short names on charts.
PAIR_SHORT: dict[str, str] = {
    "ngram": "n-gram",
    "strong": "strong",
    "weak": "weak",
    "hotter": "hotter",
    "perfect": "perfect",
    "textbook": "worked example",
}

_ORIGIN_NAME = {
    Origin.ACCEPTED: "a kept guess",
    Origin.BUCKET: "the leftover bucket",
    Origin.BONUS: "the bonus word",
}


def _x(value: float) -> str:
    """A speed-up: 2.44×."""
    return f"{value:.2f}×"


def _title(text: str, style: ChartStyle) -> str:
    """A chart title broken to fit the narrowest column this page shows it in: a phone (about
    340 px of chart) or, on a 1280 px projector, half the page (about 480 px)."""
    return wrap(text, style.title_size, 460 if style.projector else 340)


def best_gamma(curve: Sequence[CurvePoint], cost: float) -> tuple[int, float]:
    """The γ (0 = plain decoding) with the highest long-run speed-up on the chart, and that
    speed-up (the first on a tie)."""
    speedups = [w.speedup(cost) for w in curve]
    best = int(np.argmax(np.round(speedups, 12)))
    return best, speedups[best]


# --------------------------------------------------------------------------- the timeline


def _word(info: ToyPair, word: int) -> str:
    """A word as the chips and charts show it: lower case, names capitalised, the sentence end
    quoted (a lone "." is easy to miss)."""
    text = info.words[int(word)]
    if text == ".":
        return "“.”"
    if info.corpus and text in corpus().names:
        return text[:1].upper() + text[1:]
    return text


def timeline_data(info: ToyPair, run: Decoding, style: ChartStyle) -> dict:
    """The text with each word's origin, and every target call's guesses and verdicts."""
    n = style.notation
    spelled = (
        corpus().spelled(run.tokens) if info.corpus else [info.words[int(w)] for w in run.tokens]
    )
    text = [
        {"w": w, "o": int(o), "c": int(c)}
        for w, o, c in zip(spelled, run.origin, run.call_of, strict=True)
    ]
    shown = np.bincount(run.call_of, minlength=run.target_calls)
    calls = []
    for c in range(run.target_calls):
        guesses = []
        for i in range(run.gamma):
            verdict = int(run.verdict[c, i])
            word = _word(info, run.drafts[c, i])
            chances = n.fill(
                f"{{T}} = {percent(run.draft_p[c, i])}, {{D}} = {percent(run.draft_q[c, i])}"
            )
            if verdict == 1:
                tip = f"Guess “{word}” kept ({chances}: kept with chance "
                tip += f"{percent(run.keep_chance[c, i])})"
            elif verdict == 0:
                tip = f"Guess “{word}” rejected ({chances}: kept only with chance "
                tip += f"{percent(run.keep_chance[c, i])})"
            else:
                tip = f"Guess “{word}” never checked: an earlier guess of this call was rejected"
            # Faded: a kept guess the length cut off (unchecked guesses never became words).
            cut = bool(verdict == 1 and i >= shown[c])
            guesses.append({"w": word, "v": verdict, "tip": tip, "cut": cut})
        origin = int(run.final_origin[c])
        final = _word(info, run.final_word[c])
        tip = (
            f"“{final}” drawn from the leftover bucket after the rejection"
            if origin == Origin.BUCKET
            else f"Bonus word “{final}”: every guess was kept, the same target call gives one more"
        )
        k = int(run.accepted_per_call[c])
        calls.append(
            {
                "guesses": guesses,
                "final": {"w": final, "o": origin, "tip": tip, "cut": bool(k >= shown[c])},
                "words": int(shown[c]),
                "made": k + 1,
            }
        )
    return {
        "T": n.target,
        "D": n.draft,
        "gamma": run.gamma,
        "text": text,
        "calls": calls,
        "projector": style.projector,
    }


def timeline_caption(info: ToyPair, run: Decoding, n: Notation) -> str:
    """The run in words: how many calls, guesses kept, bucket and bonus words."""
    kept = int((run.origin == Origin.ACCEPTED).sum())
    bucket = int((run.origin == Origin.BUCKET).sum())
    bonus = int((run.origin == Origin.BONUS).sum())
    return n.fill(
        f"{run.n_tokens} words from {run.target_calls} calls of the target {{T}} "
        f"({run.words_per_call:.2f} words per call) and {run.draft_calls} draft steps: "
        f"{kept} words are kept guesses of the draft {{D}}, {bucket} come from the leftover "
        f"bucket after a rejection, {bonus} are bonus words after a call whose {run.gamma} "
        "guesses were all kept."
    )


def timeline_html(
    key: str, temperature: float, gamma: int, n_tokens: int, seed: int, style: ChartStyle
) -> str:
    """The text marked by origin and the call-by-call timeline (an HTML document for
    ``st.iframe``; replaying it runs in the browser)."""
    info = toy_pair(key)
    run = toy_run(key, temperature, gamma, n_tokens, seed)
    alt = timeline_caption(info, run, style.notation)
    return render("decoding.html", style, timeline_data(info, run, style), alt=attribute(alt))


# --------------------------------------------------------------------------- against γ


def _marker(role: palette.Role, symbol: str, size: int, style: ChartStyle) -> dict:
    return {
        "color": role.color,
        "symbol": symbol,
        "size": size + (6 if style.projector else 0),
        "line": {"color": palette.INK, "width": 1.5},
    }


def _axis(title: str, style: ChartStyle, **extra: object) -> dict:
    """An axis with the house look and a title (automargin: ticks and title get their room)."""
    return {
        "title": {"text": title, "font": {"size": style.font_size}, "standoff": 6},
        "showline": True,
        "linecolor": palette.INK,
        "ticks": "outside",
        "fixedrange": True,
        "automargin": True,
        **extra,
    }


def _band_below_one(xref: str, yref: str) -> list[dict]:
    """The region "slower than plain decoding" (speed-up below 1) and its edge."""
    return [
        {
            "type": "rect",
            "xref": xref,
            "yref": yref,
            "x0": 0,
            "x1": 1,
            "y0": 0,
            "y1": 1,
            "fillcolor": palette.REJECTED.color,
            "opacity": 0.12,
            "line": {"width": 0},
            "layer": "below",
        },
        {
            "type": "line",
            "xref": xref,
            "yref": yref,
            "x0": 0,
            "x1": 1,
            "y0": 1,
            "y1": 1,
            "line": {"color": palette.INK, "width": 1.5, "dash": "dot"},
        },
    ]


def gamma_figure(
    key: str,
    temperature: float,
    gamma: int,
    n_tokens: int,
    seed: int,
    cost: float,
    style: ChartStyle,
) -> tuple[go.Figure, str]:
    """Words per call (top) and speed-up in the cost model (bottom) against γ: the exact
    prediction, the i.i.d. formula, this text, the best γ and the region S < 1."""
    curve = toy_curve(key, temperature)
    run = toy_run(key, temperature, gamma, n_tokens, seed)
    gammas = list(range(len(curve)))
    exact = [w.long_run for w in curve]
    iid = [w.iid for w in curve]
    speed = [w.speedup(cost) for w in curve]
    speed_iid = [cost_model_speedup(w.iid, g, cost) for g, w in zip(gammas, curve, strict=True)]
    best, best_speed = best_gamma(curve, cost)
    alpha = curve[gamma].alpha
    width = style.line_width + 1
    iid_line = {"color": palette.NEUTRAL.color, "width": width, "dash": "dash"}
    exact_line = {"color": palette.TARGET.color, "width": width}
    dots = {"size": 12 if style.projector else 8, "color": palette.TARGET.color}
    lower = {"xaxis": "x2", "yaxis": "y2", "showlegend": False}
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "predicted",
            "x": gammas,
            "y": exact,
            "line": exact_line,
            "marker": dots,
            "legendgroup": "exact",
            "hovertemplate": "γ = %{x}: %{y:.2f} words per call<extra>predicted</extra>",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"i.i.d. formula, α = {percent(alpha)}",
            "x": gammas,
            "y": iid,
            "line": iid_line,
            "legendgroup": "iid",
            "hovertemplate": "γ = %{x}: %{y:.2f}<extra>i.i.d. formula</extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": "this text",
            "x": [gamma],
            "y": [run.words_per_call],
            "marker": _marker(palette.DRAFT, "diamond", 16, style),
            "legendgroup": "run",
            "hovertemplate": "this text: %{y:.2f} words per call<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": gammas,
            "y": speed,
            "line": exact_line,
            "marker": dots,
            "legendgroup": "exact",
            "hovertemplate": "γ = %{x}: %{y:.2f}×<extra>predicted</extra>",
            **lower,
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": gammas,
            "y": speed_iid,
            "line": iid_line,
            "legendgroup": "iid",
            "hovertemplate": "γ = %{x}: %{y:.2f}×<extra>i.i.d. formula</extra>",
            **lower,
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [gamma],
            "y": [run.speedup(cost)],
            "marker": _marker(palette.DRAFT, "diamond", 16, style),
            "legendgroup": "run",
            "hovertemplate": "this text: %{y:.2f}×<extra></extra>",
            **lower,
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": "best γ",
            "x": [best],
            "y": [best_speed],
            "xaxis": "x2",
            "yaxis": "y2",
            "marker": _marker(palette.ACCEPTED, "star", 22, style),
            "hovertemplate": "best γ = %{x}: %{y:.2f}×<extra></extra>",
        },
    ]
    top = max(max(exact), run.words_per_call) * 1.15
    s_top = max(1.3, max(speed), max(speed_iid), run.speedup(cost)) * 1.22
    free = cost == 0 and best == gammas[-1]
    best_text = (
        f"★ best on the chart: γ = {best}" if free
        else ("★ best: plain decoding" if best == 0 else f"★ best γ = {best}")
    )  # fmt: skip
    spec = layout(
        style,
        _title(f"Words per call, and speed-up when a draft step costs c = {cost:g}", style),
        traces,
        height=style.height + (20 if style.projector else 80),
        xaxis={
            "domain": [0, 1],
            "anchor": "y",
            "range": [-0.4, gammas[-1] + 0.4],
            "dtick": 1,
            "showticklabels": False,
            "fixedrange": True,
        },
        xaxis2=_axis("γ, guesses per target call", style, anchor="y2", matches="x", dtick=1),
        yaxis={
            "domain": [0.56, 1],
            "range": [0, top],
            "tickformat": ".1f",
            "title": {"text": "words / call", "font": {"size": style.font_size}},
        },
        yaxis2=_axis(
            "speed-up",
            style,
            domain=[0, 0.44],
            anchor="x2",
            range=[0, s_top],
            tickformat=".1f",
            ticksuffix="×",
            gridcolor=palette.GRID,
        ),
        shapes=[
            *_band_below_one("x2 domain", "y2"),
            *[
                {
                    "type": "line",
                    "xref": axis,
                    "yref": f"{yaxis} domain",
                    "x0": gamma,
                    "x1": gamma,
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": palette.DRAFT.text_color, "width": 1.5, "dash": "dot"},
                    "layer": "below",
                }
                for axis, yaxis in (("x", "y"), ("x2", "y2"))
            ],
        ],
        annotations=[
            {
                "xref": "x2 domain",
                "yref": "y2",
                "x": 0.99,
                "y": 0.5,
                "xanchor": "right",
                "text": "✗ slower than plain decoding",
                "showarrow": False,
                "font": {"size": style.text_size, "color": palette.REJECTED.text_color},
            },
            {
                "xref": "x2",
                "yref": "y2",
                "x": best,
                "y": best_speed,
                "xshift": 14 if best < gammas[-1] * 0.6 else -14,
                "yshift": 14 if not style.projector else 18,
                "xanchor": "left" if best < gammas[-1] * 0.6 else "right",
                "text": best_text,
                "showarrow": False,
                "font": {"size": style.text_size, "color": palette.ACCEPTED.text_color},
            },
            {
                "xref": "x",
                "yref": "y domain",
                "x": gamma,
                "y": 1,
                "yanchor": "bottom",
                "xanchor": "center",
                "text": f"your γ = {gamma}",
                "showarrow": False,
                "font": {"size": style.text_size, "color": palette.DRAFT.text_color},
            },
        ],
    )
    fig = figure(traces, spec)
    caption = gamma_caption(curve, run, gamma, cost, style.notation)
    return fig, caption


def gamma_caption(
    curve: Sequence[CurvePoint], run: Decoding, gamma: int, cost: float, n: Notation
) -> str:
    """What the γ chart shows, in numbers."""
    best, best_speed = best_gamma(curve, cost)
    here = curve[gamma]
    values = ", ".join(f"γ = {w.gamma}: {w.long_run:.2f}" for w in curve[1::2])
    return n.fill(
        f"Two panels against γ = 0 to {len(curve) - 1}. Top: words per target call predicted "
        f"from the two models ({values}), the i.i.d. formula with α = {percent(here.alpha)} "
        f"(dashed), and this text's {run.words_per_call:.2f} at γ = {gamma} (diamond). Bottom: "
        f"the speed-up when a draft step costs c = {cost:g} target steps — predicted "
        f"{here.speedup(cost):.2f}× at γ = {gamma}, this text {run.speedup(cost):.2f}×; the best "
        f"γ on the chart is {best} ({best_speed:.2f}×). The shaded band below 1× is slower than "
        "plain decoding."
    )


# --------------------------------------------------------------------------- against α

#: The expensive draft drawn next to the learner's c and free drafts (c = 0, the ceiling).
SLOW_COST = 0.5
#: Where the column for results without an α sits, right of α = 1.
_NO_ALPHA_X = 1.13
#: Where each pair's name goes around its point (chosen so that the names rarely collide).
_LABEL_AT = {
    "ngram": "bottom right",
    "strong": "top left",
    "weak": "top center",
    "hotter": "bottom right",
    "perfect": "bottom left",
    "textbook": "top left",
}


def alpha_figure(
    temperature: float, gamma: int, cost: float, style: ChartStyle
) -> tuple[go.Figure, str]:
    """Speed-up against α at the page's γ for free drafts, the learner's c and a slow draft,
    with Leviathan et al.'s Table 2 and Chen et al. as reported and this page's pairs as
    measured."""
    alphas = np.linspace(0, 1, 201)
    costs = sorted({0.0, cost, SLOW_COST})
    top = max(4.0, min(gamma + 1.0, 6.0)) + 0.3
    traces: list[dict] = []
    labels = []
    for c in costs:
        mine = c == cost
        speed = np.asarray(walltime_speedup(alphas, gamma, c))
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": alphas.tolist(),
                "y": speed.tolist(),
                "line": {
                    "color": palette.TARGET.color if mine else palette.NEUTRAL.color,
                    "width": style.line_width + (2 if mine else 0),
                    "dash": "solid" if mine else ("dot" if c == 0 else "dash"),
                },
                "showlegend": False,
                "hovertemplate": f"c = {c:g}: α = %{{x:.2f}} → %{{y:.2f}}×<extra></extra>",
            }
        )
        name = "free drafts" if c == 0 else ("yours" if mine else "slow draft")
        labels.append((c, f"c = {c:g}, {name}", mine))
    cells = LEVIATHAN_TABLE2
    for zero in (True, False):
        group = [cell for cell in cells if ("T=0" in cell.setting) == zero]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"Leviathan et al., T = {0 if zero else 1}",
                "x": [cell.alpha for cell in group],
                "y": [cell.speedup for cell in group],
                "marker": {
                    "symbol": "circle" if zero else "square",
                    "size": 18 if style.projector else 12,
                    "color": palette.INK if zero else "white",
                    "line": {"color": palette.INK, "width": 2},
                },
                "customdata": [
                    [cell.setting, cell.draft, cell.gamma, cell.ceiling] for cell in group
                ],
                "hovertemplate": (
                    "Leviathan et al., %{customdata[0]}, %{customdata[1]}: γ = %{customdata[2]}, "
                    "α = %{x}, reported %{y}× (the formula allows at most %{customdata[3]:.2f}×)"
                    "<extra></extra>"
                ),
            }
        )
    above = [cell for cell in cells if cell.above_ceiling]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "the formula's most for that point",
            "x": [cell.alpha for cell in above],
            "y": [cell.ceiling for cell in above],
            "marker": {
                "symbol": "line-ew",
                "size": 26 if style.projector else 18,
                "line": {"color": palette.REJECTED.color, "width": 4},
            },
            "hovertemplate": "the formula allows at most %{y:.2f}× here<extra></extra>",
        }
    )
    rows = check_rows(temperature, gamma, cost)
    traces.append(
        {
            "type": "scatter",
            "mode": "markers+text",
            "name": "this page's pairs (measured)",
            "x": [row["alpha"] for row in rows],
            "y": [row["measured_speedup"] for row in rows],
            "text": [PAIR_SHORT[row["key"]] for row in rows],
            "textposition": [_LABEL_AT[row["key"]] for row in rows],
            # A white halo: a label over a black marker of the paper's points stays legible.
            "textfont": {
                "size": style.text_size,
                "color": palette.DRAFT.text_color,
                "shadow": "0 0 2px #fff, 0 0 2px #fff, 0 0 2px #fff",
            },
            "marker": _marker(palette.DRAFT, "diamond", 12, style),
            "hovertemplate": "%{text}: α = %{x:.2f}, measured %{y:.2f}×<extra></extra>",
            "cliponaxis": False,
        }
    )
    # Chen et al. give no α: a bar in its own column right of the α axis.
    traces.append(
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "Chen et al. (no α given)",
            "x": [_NO_ALPHA_X, _NO_ALPHA_X],
            "y": [CHEN_2023.speedup, CHEN_2023.speedup_high],
            "line": {"color": palette.INK, "width": style.line_width + 3},
            "marker": {"symbol": "line-ew", "size": 16, "line": {"color": palette.INK, "width": 3}},
            "hovertemplate": "Chen et al.: %{y}× (γ = 4, c ≈ 0.13)<extra></extra>",
        }
    )
    small = style.text_size
    annotations = [
        {
            "x": _LABEL_ALPHA,
            "y": y,
            "xanchor": "center",
            "yanchor": "bottom",
            "yshift": 2,
            "text": f"<b>{text}</b>" if mine else text,
            "showarrow": False,
            "bgcolor": "rgba(255, 255, 255, 0.85)",
            "font": {
                "size": small,
                "color": palette.TARGET.text_color if mine else palette.NEUTRAL.text_color,
            },
        }
        for y, text, mine in _curve_labels(labels, gamma, style, top)
    ]
    annotations += [
        {
            "x": 0.99,
            "y": 0.35,
            "xanchor": "right",
            "text": "✗ slower than plain decoding",
            "showarrow": False,
            "font": {"size": small, "color": palette.REJECTED.text_color},
        },
        {
            "x": 0.02,
            "y": 2.15,
            "xanchor": "left",
            "text": "claimed: 1.8–2.5×",
            "showarrow": False,
            "font": {"size": small, "color": palette.ACCEPTED.text_color},
        },
        {
            "x": _NO_ALPHA_X,
            "y": CHEN_2023.speedup_high,
            "yanchor": "bottom",
            "yshift": 6,
            "text": "Chen",
            "showarrow": False,
            "font": {"size": small, "color": palette.INK},
        },
        {
            "x": _NO_ALPHA_X,
            "y": 0.1,
            "yanchor": "bottom",
            "text": "no α<br>given",
            "showarrow": False,
            "font": {"size": small - 1, "color": palette.NEUTRAL.text_color},
        },
    ]
    spec = layout(
        style,
        _title(f"Speed-up against α, with γ = {gamma} guesses per call", style),
        traces,
        height=style.height + 120,
        xaxis=_axis(
            "α, chance a guess is kept",
            style,
            range=[-0.02, _NO_ALPHA_X + 0.07],
            tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
            ticktext=["0%", "20%", "40%", "60%", "80%", "100%"],
            zeroline=False,
        ),
        yaxis={
            "range": [0, top],
            "tickformat": ".0f",
            "ticksuffix": "×",
            "title": {"text": "speed-up", "font": {"size": style.font_size}},
        },
        shapes=[
            *_band_below_one("x", "y"),
            {
                "type": "rect",
                "x0": 0,
                "x1": 1,
                "y0": 1.8,
                "y1": 2.5,
                "fillcolor": palette.ACCEPTED.color,
                "opacity": 0.12,
                "line": {"width": 0},
                "layer": "below",
            },
            {
                "type": "line",
                "x0": 1.05,
                "x1": 1.05,
                "y0": 0,
                "y1": top,
                "line": {"color": palette.GRID, "width": 2},
            },
        ],
        annotations=annotations,
    )
    return figure(traces, spec), alpha_caption(rows, gamma, cost)


#: Where along α the curves are named (left of every published point, right of the weak pair).
_LABEL_ALPHA = 0.36


def _curve_labels(
    labels: list[tuple[float, str, bool]], gamma: int, style: ChartStyle, top: float
) -> list[tuple[float, str, bool]]:
    """Each curve's name, given as ``(c, name, mine)``, just above the curve at
    α = :data:`_LABEL_ALPHA`, nudged up where two names would overlap."""
    step = top * 1.35 * style.text_size / (0.75 * style.height)
    at = [(walltime_speedup(_LABEL_ALPHA, gamma, c), text, mine) for c, text, mine in labels]
    out: list[tuple[float, str, bool]] = []
    for y, text, mine in sorted(at):  # lowest first
        y = max(y, out[-1][0] + step) if out else y
        out.append((y, text, mine))
    return out


def alpha_caption(rows: list[dict], gamma: int, cost: float) -> str:
    """The α chart in words."""
    above = [cell for cell in LEVIATHAN_TABLE2 if cell.above_ceiling]
    ours = "; ".join(
        f"{PAIR_SHORT[row['key']]} α = {percent(row['alpha'])}, {_x(row['measured_speedup'])}"
        for row in rows
    )
    costs = ", ".join(f"{c:g}" for c in sorted({0.0, cost, SLOW_COST}))
    return (
        f"Speed-up (1 − α^(γ+1)) / ((1 − α)(γc + 1)) against α at γ = {gamma}, for draft costs "
        f"c = {costs} (yours: {cost:g}). Band below 1×: slower than plain decoding. Band "
        "1.8–2.5×: the speed-ups benchmarks claim. Leviathan et al.'s 12 measurements as "
        f"reported, each at its own γ (filled: T = 0, open: T = 1); {len(above)} of them lie "
        "above the most the formula allows them even with free drafts (red dashes). Chen et "
        f"al.: 2–2.5× with no α given, in its own column. This page's pairs, measured: {ours}."
    )


# --------------------------------------------------------------------------- the check


def check_rows(temperature: float, gamma: int, cost: float) -> list[dict]:
    """Per pair: α, the i.i.d. formula, the exact prediction and the measurement."""
    rows = []
    for key in PAIR_KEYS:
        row = check_row(key, temperature, gamma)
        rows.append(
            {
                "key": key,
                "alpha": row.alpha,
                "iid": row.iid,
                "exact": row.exact,
                "measured": row.measured,
                "error": row.std_error,
                "measured_speedup": cost_model_speedup(row.measured, gamma, cost),
                "predicted_speedup": cost_model_speedup(row.exact, gamma, cost),
            }
        )
    return rows


def check_table(temperature: float, gamma: int, cost: float, current: str) -> str:
    """The check as a Markdown table (the current pair in bold)."""
    head = (
        "| pair | α | i.i.d. formula | from the models | measured | speed-up "
        f"(c = {cost:g}) |\n|---|---|---|---|---|---|\n"
    )
    lines = []
    for row in check_rows(temperature, gamma, cost):
        name = PAIR_TITLES[row["key"]]
        if row["key"] == current:
            name = f"**{name} (shown)**"
        error = f" ± {2 * row['error']:.2f}" if row["error"] > 0 else ""
        lines.append(
            f"| {name} | {percent(row['alpha'])} | {row['iid']:.2f} | {row['exact']:.2f} | "
            f"{row['measured']:.2f}{error} | {_x(row['measured_speedup'])} |"
        )
    return head + "\n".join(lines)


def check_note(temperature: float, gamma: int, cost: float) -> str:
    """How far the i.i.d. formula is from the exact prediction, and the published puzzle."""
    rows = check_rows(temperature, gamma, cost)
    gap = max(abs(row["iid"] - row["exact"]) / row["exact"] for row in rows)
    worst = max(rows, key=lambda row: abs(row["iid"] - row["exact"]) / row["exact"])
    off = (
        f"the formula is off by at most {percent(gap)} at γ = {gamma} "
        f"({PAIR_TITLES[worst['key']].lower()})"
        if gap >= 5e-4
        else f"the formula agrees with the exact prediction to within 0.05% at γ = {gamma}"
    )
    above = [cell for cell in LEVIATHAN_TABLE2 if cell.above_ceiling]
    example = next(c for c in above if c.setting == "CNN/DM, T=0")
    return (
        f"Each measurement pools {CHECK_RUNS} texts of {CHECK_WORDS} words (± two standard "
        "errors). The i.i.d. formula pretends every guess is kept with the same chance α, "
        "independently of the others; real guesses are not independent (easy words come in "
        f"runs). On these toy pairs {off}. Published numbers stray further: "
        f"{len(above)} of the 12 speed-ups in Leviathan et al.'s Table 2 lie *above* what the "
        "formula allows even with free drafts (c = 0) — for example "
        f"{example.setting.split(',')[0]} at T = 0 with {example.draft} reports "
        f"{example.speedup}× where α = {example.alpha:g} and γ = {example.gamma} allow at most "
        f"{example.ceiling:.2f}×. The chart plots them as reported."
    )


def in_a_row_figure(
    key: str, temperature: float, gamma: int, style: ChartStyle
) -> tuple[go.Figure, str]:
    """Chance that guess k is kept given the guesses before it were, against α (i.i.d.)."""
    prediction = toy_point(key, temperature, gamma)
    row = prediction.kept_in_a_row
    chances = [
        float(row[k] / row[k - 1]) if row[k - 1] > 0 else float("nan") for k in range(1, gamma + 1)
    ]
    x = list(range(1, gamma + 1))
    shown = [c if c == c else 0.0 for c in chances]  # never reached: an empty bar
    traces = [
        bar(
            f"{palette.TARGET.icon} exact, from the two models",
            np.array(shown),
            palette.TARGET,
            style,
            text=[percent(round(c, 3)) if c == c else "—" for c in chances],
            textposition="inside",
            insidetextanchor="start",
            insidetextfont={**inside_text(palette.TARGET, style), "color": "white"},
            hovertemplate="guess %{x}: kept %{y:.1%} of the time<extra></extra>",
        ),
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"i.i.d. formula: α = {percent(prediction.alpha)} every time",
            "x": [0.5, gamma + 0.5],
            "y": [prediction.alpha, prediction.alpha],
            "line": {"color": palette.INK, "width": style.line_width, "dash": "dash"},
            "hoverinfo": "skip",
        },
    ]
    traces[0]["x"] = x
    spec = layout(
        style,
        _title("Is every guess kept with the same chance?", style),
        traces,
        xaxis=_axis(
            "guess k of a call (the ones before it kept)",
            style,
            tickvals=x,
            range=[0.5, gamma + 0.5],
        ),
        yaxis={"range": [0, 1.05], "tickvals": [0, 0.25, 0.5, 0.75, 1]},
        bargap=0.35,
    )
    caption = (
        "Bars: the chance that guess k of a call is kept, given that the guesses before it were "
        f"kept, in a long text: {', '.join(percent(c) for c in chances if c == c) or 'none'}. "
        f"The i.i.d. formula assumes α = {percent(prediction.alpha)} for every guess (dashed)."
    )
    return figure(traces, spec), caption


def shares_figure(
    key: str, temperature: float, gamma: int, style: ChartStyle
) -> tuple[go.Figure, str]:
    """For the commonest words of a long text: how often each came from a kept guess."""
    info = toy_pair(key)
    common = toy_common_words(key, temperature, gamma)
    kept = np.array(common.kept) / np.array(common.emitted)
    order = np.argsort(kept, kind="stable")  # the easiest word on top
    words = [_word(info, common.words[i]) for i in order]
    kept = kept[order]
    traces = [
        bar(
            f"{palette.ACCEPTED.icon} a kept guess",
            kept,
            palette.ACCEPTED,
            style,
            orientation="h",
            text=[percent(round(v, 2)) for v in kept],
            textposition="inside",
            insidetextanchor="start",
            insidetextfont=inside_text(palette.ACCEPTED, style),
            hovertemplate="%{y}: %{x:.0%} kept guesses<extra></extra>",
        ),
        bar(
            f"{palette.BUCKET.icon} written by the target",
            1 - kept,
            palette.BUCKET,
            style,
            orientation="h",
            hovertemplate="%{y}: %{x:.0%} bucket or bonus words<extra></extra>",
        ),
    ]
    for trace in traces:
        trace["x"], trace["y"] = trace["y"], words
    spec = layout(
        style,
        _title("Which words did the draft guess right?", style),
        traces,
        barmode="stack",
        bargap=0.25,
        height=style.height + 40 + 8 * len(words),
        xaxis=_axis(
            f"share of its uses in {SHARES_WORDS:,} words of text",
            style,
            range=[0, 1],
            tickvals=[0, 0.25, 0.5, 0.75, 1],
            tickformat=".0%",
        ),
        yaxis={"tickformat": "", "showgrid": False, "automargin": True, "type": "category"},
    )
    few = max(1, min(3, len(words) // 2))  # never the same word in both lists
    best = words[::-1][:few]
    worst = words[:few]
    caption = (
        f"Stacked bars for the {len(words)} commonest words in {SHARES_WORDS:,} words of text: the "
        "share of each word's uses that were kept guesses of the draft, the rest written by the "
        f"target (bucket or bonus). Most often guessed right: {', '.join(best)}; least often: "
        f"{', '.join(worst)}."
    )
    return figure(traces, spec), caption


# --------------------------------------------------------------------------- the page's numbers


def summary(
    key: str, temperature: float, gamma: int, n_tokens: int, seed: int, cost: float
) -> dict:
    """The numbers the page's metrics show, from the same results as the charts."""
    run = toy_run(key, temperature, gamma, n_tokens, seed)
    curve = toy_curve(key, temperature)
    best, best_speed = best_gamma(curve, cost)
    return {
        "words_per_call": run.words_per_call,
        "words": run.n_tokens,
        "calls": run.target_calls,
        "drafts": run.draft_calls,
        "predicted": curve[gamma].long_run,
        "iid": curve[gamma].iid,
        "alpha": curve[gamma].alpha,
        "speedup": run.speedup(cost),
        "predicted_speedup": curve[gamma].speedup(cost),
        "best": best,
        "best_speedup": best_speed,
        "free": cost == 0 and best == CURVE_GAMMA,
    }


def summary_sentence(numbers: dict, gamma: int, cost: float, n: Notation) -> str:
    """One paragraph on what the numbers mean (true for every setting)."""
    s = numbers
    pace = (
        "faster than"
        if s["speedup"] > 1.005
        else ("slower than" if s["speedup"] < 0.995 else "about as fast as")
    )
    if s["free"]:
        best = (
            f"With free drafts every extra guess helps: on the chart γ = {s['best']} is best "
            f"({_x(s['best_speedup'])})."
        )
    elif s["best"] == 0 and cost == 0:
        best = (
            "Here no guess is ever kept, so every γ writes one word per call: no faster and, "
            "with free drafts, no slower than plain decoding."
        )
    elif s["best"] == 0:
        best = (
            "For this pair and cost no γ beats plain decoding: every guess costs more than it "
            "saves, so the best is not to speculate (γ = 0)."
        )
    else:
        best = f"For this pair and cost the best is γ = {s['best']} ({_x(s['best_speedup'])})."
    return n.fill(
        f"A guess of the draft {{D}} is kept **{percent(s['alpha'])}** of the time on average "
        f"(α). With γ = {gamma} guesses per call, the target {{T}} wrote these {s['words']} words "
        f"in **{s['calls']} calls**, where plain decoding needs {s['words']} (one per word): "
        f"**{s['words_per_call']:.2f} words per call** (in a long text: {s['predicted']:.2f}). "
        f"If a draft step costs c = {cost:g} "
        f"target steps, that is **{_x(s['speedup'])}** plain decoding's speed: {pace} writing "
        f"word by word. {best}"
    )


def cost_note() -> str:
    """What the cost model leaves out, said plainly."""
    return (
        "The speed-ups here are a **cost model**, not a stopwatch: a target call costs 1, a "
        "draft step costs c, and nothing else costs anything. Real systems also pay for "
        "memory traffic, batching and longer target calls (checking γ guesses at once is not "
        "quite free), which is why measured speed-ups differ from any formula."
    )
