"""Plain words first (issue 17): no learner's page shows a precise term before its plain phrase.

Every learner's page runs under AppTest at its defaults and in a few states (identical models,
presets, projector mode, its own choices). The text a learner sees without opening anything is
collected in page order: markdown, captions, headings, alerts, widget labels and options, metric
labels and values, page links, expander labels, the charts' titles, axes and legends, the player's
words. Tooltips (``help=``) and expander bodies are where the precise terms belong, and code spans
(`like this`) are code cited as a source: neither is collected. Each term of :data:`TERMS` is
then checked: never shown, or shown only after its plain phrase.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

import pyarrow as pa
import pytest
from helpers import open_page
from streamlit.testing.v1 import AppTest

from specviz.limits import MISTAKE_KEYS
from specviz.links import VARIANTS
from specviz.ui.page import PAGES

pytestmark = pytest.mark.slow  # the app under AppTest


@dataclass(frozen=True)
class Term:
    """A precise term and how a learner may meet it.

    ``plain`` is None: never in visible text (a tooltip or an expander only). Otherwise the plain
    phrase must come before the term in the same piece of text — in every piece (``first_only``
    False), or in the piece where the page first shows it (a symbol defined once, then used).
    """

    name: str
    pattern: str
    plain: str | None = None
    first_only: bool = False


TERMS: tuple[Term, ...] = (
    Term("Z", r"(?<![\w'])Z(?!\w)", r"bucket", first_only=True),
    Term("α", r"α", r"accept|kept|keep", first_only=True),
    Term("γ", r"γ", r"(?i)guess", first_only=True),
    Term("ε", r"ε", r"(?i)plausib", first_only=True),
    Term("δ", r"δ", r"(?i)plausib", first_only=True),
    Term("TV", r"\bTV\b"),
    Term("total variation", r"(?i)total variation", r"(?i)distance"),
    Term("i.i.d.", r"(?i)\bi\.i\.d\b|identically distributed"),
    Term("renewal–reward", r"(?i)renewal"),
    Term("kernel K", r"(?i)\bkernel\b"),
    Term("SpecInfer", r"SpecInfer", r"(?i)candidates?|et al\."),
    Term("Medusa", r"Medusa", r"(?i)plausible|et al\."),
    # A noun for a random number; "uniform between 0 and 1" says what it means.
    Term("uniform (a random number)", r"(?i)\buniforms?\b(?! between)"),
    Term("residual (the bucket)", r"(?i)\bresidual\b"),
    Term("argmax", r"(?i)\bargmax\b"),
    Term("coupling", r"(?i)\bcoupling\b"),
    Term("multinomial/binomial", r"(?i)\b(multi|bi)nomial\b"),
    Term("entropy", r"(?i)\bentropy\b", r"(?i)spread"),
    # Not x_1 or \prod_i of a formula.
    Term("snake_case name", r"(?<!\\)\b[a-z]{2,}[a-z0-9]*(?:_[a-z0-9]+)+\b"),
)

LEARNER_PAGES = [info.script for info in PAGES if info.for_learners]
#: Shared states: defaults, identical models (p == q), two presets, projector mode.
STATES: dict[str, dict[str, str]] = {
    "default": {},
    "identical": {"p": "40,30,20,10", "q": "40,30,20,10"},
    "misses": {"p": "40,30,20,10", "q": "50,30,20,0"},
    "garbage": {"p": "50,50,0,0", "q": "0,0,50,50"},
    "projector": {"projector": "1"},
}
#: A page's own choices worth a look of their own (the default is covered above).
OWN: dict[str, list[dict[str, str]]] = {
    "pages/4_Bug_zoo.py": [{"bug": key} for key in MISTAKE_KEYS[1:]],
    "pages/8_Variants_lab.py": [{"variant": key} for key in VARIANTS[1:]],
    "pages/5_Many_words_per_call.py": [
        {"pair": "yours"},
        {"pair": "yours", "p": "40,30,20,10", "q": "40,30,20,10"},
        {"pair": "yours", "p": "50,50,0,0", "q": "0,0,50,50"},
        {"section": "pays"},
        {"section": "theory"},
        {"section": "theory", "pair": "yours", "p": "40,30,20,10", "q": "40,30,20,10"},
    ],
}
CASES = [(script, name, query) for script in LEARNER_PAGES for name, query in STATES.items()] + [
    (script, "+".join(f"{k}={v}" for k, v in query.items()), query)
    for script, queries in OWN.items()
    for query in queries
]

_CODE_SPAN = re.compile(r"`[^`]*`")
_TAG = re.compile(r"<(script|style)\b.*?</\1>|<[^>]+>", re.S)
_TEXT_KINDS = {"title", "header", "subheader", "markdown", "caption", "alert", "success", "info"}
_TEXT_KINDS |= {"warning", "error", "exception"}


def _chart_text(proto: object) -> str:
    """A chart's words: every title (chart, axes, legends) and every word in its data."""
    found: list[str] = []

    def collect(node: object, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k not in ("data", "datasets", "tooltip", "labelExpr", "test", "expr", "field"):
                    collect(v, k)
        elif isinstance(node, list):
            for v in node:
                collect(v, key)
        elif isinstance(node, str) and key in ("title", "text", "value") and node[:1] != "#":
            found.append(node)

    collect(json.loads(proto.spec))
    for dataset in proto.datasets:
        for row in pa.ipc.open_stream(dataset.data.data).read_all().to_pylist():
            found += [v for v in row.values() if isinstance(v, str) and v[:1] != "#"]
    return "\n".join(found)


def visible_text(at: AppTest) -> list[str]:
    """The pieces of text a learner sees without opening a tooltip or an expander, in page
    order; a chart, a player or a markdown element is one piece, a widget's label and each of its
    options are one piece each."""
    pieces: list[str] = []

    def walk(node: object) -> None:
        kind = getattr(node, "type", "")
        if kind in _TEXT_KINDS and isinstance(getattr(node, "value", None), str):
            pieces.append(node.value)
        elif kind == "metric":
            pieces.extend((node.label, str(node.value)))
        elif kind == "vega_lite_chart":
            pieces.append(_chart_text(node.proto))
        elif kind in ("iframe", "html"):
            pieces.append(html.unescape(_TAG.sub(" ", getattr(node.proto, "srcdoc", "") or "")))
            pieces[-1] += html.unescape(_TAG.sub(" ", getattr(node.proto, "body", "") or ""))
        elif isinstance(getattr(node, "label", None), str):
            pieces.append(node.label)  # widgets, buttons, page links, expanders, tabs
            pieces.extend(str(o) for o in getattr(node, "options", None) or ())
        if kind == "expander":
            return  # its body is where the precise words may stay
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return [_CODE_SPAN.sub("`…`", piece) for piece in pieces if piece.strip()]


def problems(pieces: list[str]) -> list[str]:
    """What breaks :data:`TERMS` in these pieces of text, one line each."""
    found = []
    for term in TERMS:
        for piece in pieces:
            hit = re.search(term.pattern, piece)
            if hit is None:
                continue
            if term.plain is None or not re.search(term.plain, piece[: hit.start()]):
                found.append(f"{term.name!r} in: {' '.join(piece.split())[:160]!r}")
            if term.first_only:
                break  # defined where first used: later uses are fine
    return found


@pytest.mark.parametrize(
    ("script", "query"),
    [(script, query) for script, _, query in CASES],
    ids=[f"{script.split('/')[-1].removesuffix('.py')}-{name}" for script, name, _ in CASES],
)
def test_a_precise_term_comes_after_its_plain_phrase(script: str, query: dict[str, str]) -> None:
    at = open_page(script, query)
    shown = problems(visible_text(at))
    assert not shown, f"{script} with {query or 'defaults'}:\n" + "\n".join(shown)


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (["The leftover bucket: its size Z = 40%.", "Z = 0"], []),
        (["Z = 40%", "the bucket's size Z"], ["'Z' in: 'Z = 40%'"]),
        (["TV to p"], ["'TV' in: 'TV to p'"]),
        (["Distance (total variation)"], []),
        (["Keep plausible guesses (Medusa)", "Medusa"], ["'Medusa' in: 'Medusa'"]),
        (["Seen in: `_speculative_sampling`"], []),
        (["the redraw_from_q rule"], ["'snake_case name' in: 'the redraw_from_q rule'"]),
        ([r"$\prod_i p(x_i)$"], []),
    ],
)
def test_the_check_knows_the_answers(pieces: list[str], expected: list[str]) -> None:
    pieces = [_CODE_SPAN.sub("`…`", piece) for piece in pieces]
    assert problems(pieces) == expected
