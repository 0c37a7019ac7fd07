"""Every language's catalogs: the same messages as the English ones, each translated, with the same
fields, math, code and paragraphs, and no English sentence left."""

from __future__ import annotations

import ast
import contextvars
import json
import re
import string
from pathlib import Path

import pyarrow as pa
import pytest
from babel.messages.pofile import read_po
from helpers import open_page, query, walk
from streamlit.testing.v1 import AppTest

from specviz import text
from specviz.scenario import PROMPT
from specviz.ui.page import PAGES

EN = sorted(path.stem for path in (text.LOCALE / "en").glob("*.po"))
TRANSLATED = [language for language in text.LANGUAGES if language != "en"]
#: Words of English a Spanish or Chinese sentence never holds.
ENGLISH = re.compile(r"\b(the|and|of|is|are|with|your|you|this|that|which|from|when)\b", re.I)
#: What stays as written: fields, math, code, a quoted word of the toy corpus, a citation's title.
KEPT = re.compile(r"\{[^{}]*\}|\$[^$]*\$|`[^`]*`|'[^' ]+'")
#: The marks a translation must carry over, each as many times: math, code, bold, paragraphs.
MARKS = ("$", "`", "**", "\n\n", "<", ">")


def messages(language: str, stem: str) -> dict[str, str]:
    path = text.LOCALE / language / f"{stem}.po"
    with path.open("rb") as file:
        return {m.id: m.string for m in read_po(file) if m.id}


def fields(message: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(message) if name is not None)


def test_every_language_has_a_name_and_the_english_catalogs() -> None:
    assert set(text.LANGUAGES) == {"en", "es", "zh"}
    for language in text.LANGUAGES:
        assert sorted(p.stem for p in (text.LOCALE / language).glob("*.po")) == EN, language
        assert language == "en" or (text.LOCALE / language / "GLOSSARY.md").is_file(), language


@pytest.mark.parametrize("stem", EN)
@pytest.mark.parametrize("language", TRANSLATED)
def test_a_catalog_translates_every_message(language: str, stem: str) -> None:
    english, translated = messages("en", stem), messages(language, stem)
    assert list(translated) == list(english), f"{language}/{stem}.po: not the English messages"
    for key, source in english.items():
        words = translated[key]
        assert words.strip() or not source.strip(), f"{key}: untranslated"
        assert fields(words) == fields(source), f"{key}: fields {fields(source)}"
        for mark in MARKS:
            assert words.count(mark) == source.count(mark), f"{key}: {mark!r} as often as English"
        assert words.endswith("\n") == source.endswith("\n"), f"{key}: ends as English"
        left = KEPT.sub(" ", words)
        assert not ENGLISH.search(left), f"{key}: English left: {ENGLISH.search(left)[0]!r}"
        if language == "zh" and len(re.findall(r"[A-Za-z]{3,}", KEPT.sub(" ", source))) > 2:
            assert re.search(r"[\u4e00-\u9fff]", words), f"{key}: no Chinese"


APP = [*sorted((text.LOCALE.parent).rglob("*.py"))]


def said_at_import(path: Path) -> list[str]:
    """Where a module says a message while it is imported (at its top, in a class body, a default
    argument or a decorator), so in whatever language was current then; a table of
    :func:`~specviz.text.titles` bound to a name as it is is read later, and may stay."""
    found: list[str] = []

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            later = deferred or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            if (
                isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                and not deferred
            ):
                eager = [*child.args.defaults, *child.args.kw_defaults]
                eager += getattr(child, "decorator_list", [])
                for expression in filter(None, eager):
                    visit(ast.Expression(expression), False)
            if isinstance(child, ast.Call) and not later:
                name = getattr(child.func, "id", None) or getattr(child.func, "attr", None)
                kept = name == "titles" and isinstance(node, ast.Assign | ast.AnnAssign)
                if name in ("say", "template", "templates", "titles") and not kept:
                    found.append(f"{path.relative_to(text.LOCALE.parents[1])}:{child.lineno}")
            visit(child, later)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


@pytest.mark.parametrize("path", APP, ids=lambda p: str(p.relative_to(text.LOCALE.parent)))
def test_no_module_says_a_message_while_it_is_imported(path: Path) -> None:
    assert not said_at_import(path), "said once, in one language, for every student"


def page_words(at: AppTest) -> list[str]:
    """Every piece of text a page hands the browser: prose, labels, help, options, charts' titles
    and data, the views' sentences (what a learner may read, open or hear)."""
    pieces: list[str] = []

    def strings(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in ("field", "expr", "test", "labelExpr", "name", "$schema", "link"):
                    strings(value)
        elif isinstance(node, list):
            for value in node:
                strings(value)
        elif isinstance(node, str):
            pieces.append(node)

    for node in walk(at._tree):
        kind = getattr(node, "type", "")
        words = [getattr(node, name, None) for name in ("label", "help", "placeholder")]
        words += [getattr(node, "value", None)] if kind in TEXT_KINDS else []
        pieces += [word for word in words if isinstance(word, str)]
        pieces += [str(option) for option in getattr(node, "options", None) or ()]
        if kind == "vega_lite_chart":
            spec = json.loads(node.proto.spec)
            strings(spec)
            # A tooltip line without a title is headed by its field's name: a word of the code.
            pieces += [line.get("title") or f"the {line['field']}" for line in tooltips(spec)]
            for dataset in node.proto.datasets:
                strings(pa.ipc.open_stream(dataset.data.data).read_all().to_pylist())
        elif kind == "bidi_component":
            strings(json.loads(node.proto.json or "null"))
        elif kind in ("html", "iframe"):
            pieces.append(getattr(node.proto, "body", "") or getattr(node.proto, "srcdoc", ""))
    return [piece for piece in pieces if isinstance(piece, str) and piece.strip()]


def figures(at: AppTest) -> list[list[str]]:
    """Each metric's numbers, whatever marks their thousands and decimals ("1,234.5" and
    "1234,5" are both 1234 and 5), in order of size."""
    unmarked = (re.sub(r"(?<=\d)[.,\s](?=\d{3}\b)", "", str(m.value)) for m in at.metric)
    return [sorted(re.findall(r"\d+", value)) for value in unmarked]


def tooltips(node: object) -> list[dict]:
    """Every tooltip line of a chart's spec."""
    if isinstance(node, list):
        return [line for value in node for line in tooltips(value)]
    if not isinstance(node, dict):
        return []
    lines = node.get("tooltip") if isinstance(node.get("tooltip"), list) else []
    return lines + [line for k, v in node.items() if k != "tooltip" for line in tooltips(v)]


TEXT_KINDS = {"title", "header", "subheader", "markdown", "caption", "alert", "success", "info"}
TEXT_KINDS |= {"warning", "error", "exception", "latex", "code"}
#: Where a page may still hold English words: markup, style sheets and scripts, not sentences.
CODE = re.compile(r"<style>.*?</style>|<script.*?</script>|<[^>]+>|https?://\S+", re.S)


@pytest.mark.parametrize("script", [info.script for info in PAGES])
@pytest.mark.parametrize("language", TRANSLATED)
def test_every_page_speaks_the_language_of_its_link(language: str, script: str) -> None:
    at = open_page(script, {"lang": language})
    english = []
    for piece in page_words(at):
        if len(piece.split()) < 2:
            continue  # a word alone is data (the toy corpus's) or a name, not a sentence
        left = KEPT.sub(" ", CODE.sub(" ", piece.replace(PROMPT, " ")))
        if hit := ENGLISH.search(left):
            english.append(f"{hit[0]!r} in {' '.join(left.split())[:140]!r}")
    assert not english, "\n".join(english)
    assert query(at)["lang"] == language
    # The same figures, written the language's way and in its word order, in every metric.
    assert figures(at) == figures(open_page(script))


def test_a_questions_shares_are_written_in_the_language() -> None:
    from specviz import classroom
    from specviz.exactness import QUESTIONS_BY_KEY

    def spanish() -> tuple[tuple[str, ...], tuple[str, ...]]:
        text.use("es")
        return QUESTIONS_BY_KEY["alpha"].options, classroom.poll(
            classroom.alpha_key((1, 2, 3), (3, 2, 1))
        ).options

    shares, poll = contextvars.copy_context().run(spanish)
    assert shares == ("10\u00a0%", "25\u00a0%", "40\u00a0%", "60\u00a0%")
    assert all(re.fullmatch(r"\d+(,\d)?\u00a0%", option) for option in poll), poll
    assert QUESTIONS_BY_KEY["alpha"].options == ("10%", "25%", "40%", "60%")
