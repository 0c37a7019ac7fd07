"""The message catalogs (specviz/locale): every message the code names exists, is used, and gets
exactly the values its fields ask for; a catalog holds only its own keys."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from specviz import text

ROOT = Path(__file__).resolve().parents[1]
APP_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
APP_FILES += sorted((ROOT / "specviz").rglob("*.py"))
MSGID = re.compile(r'^msgid "(.+)"$', re.MULTILINE)


def fields(message: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(message) if name}


def calls_of(function: str) -> list[tuple[str, ast.Call]]:
    calls = []
    for path in APP_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None)
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            if isinstance(node, ast.Call) and name == function and path.name != "text.py":
                calls.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return calls


def test_every_call_names_a_message_and_gives_exactly_its_values() -> None:
    messages, calls = text.catalog(), calls_of("say")
    assert calls, "the check found no call of say()"
    for where, call in calls:
        key = call.args[0] if call.args else None
        assert isinstance(key, ast.Constant) and isinstance(key.value, str), f"{where}: a key"
        assert key.value in messages, f"{where}: no message {key.value!r}"
        given = {k.arg for k in call.keywords}
        assert None not in given, f"{where}: name each value (no **values)"
        wanted = fields(messages[key.value]) - set(text.LETTERS)
        assert given == wanted, f"{where}: {key.value} wants {sorted(wanted)}, gets {sorted(given)}"


def tuples_of(path: Path) -> dict[str, ast.Tuple]:
    """A module's top-level names bound to a literal tuple (``_KEYS = ("a", "b")``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Tuple)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }


def title_keys(function: str = "titles") -> dict[str, str]:
    """The keys ``titles(group, (key, ...))`` names (the tuple written there or bound to a name
    at the top of the module), each with where; or ``templates(group, (key, ...))``'s."""
    keys = {}
    for where, call in calls_of(function):
        group, names = call.args
        if isinstance(names, ast.Name):
            names = tuples_of(ROOT / where.split(":")[0]).get(names.id, names)
        assert isinstance(group, ast.Constant) and isinstance(names, ast.Tuple), where
        keys |= {f"{group.value}.{name.value}": where for name in names.elts}
    return keys


def test_every_title_names_a_message_without_fields() -> None:
    messages, keys = text.catalog(), title_keys()
    assert keys, "the check found no call of titles()"
    for key, where in keys.items():
        assert key in messages, f"{where}: no message {key!r}"
        assert not fields(messages[key]) - set(text.LETTERS), f"{where}: {key} has fields"


def test_every_template_names_a_message() -> None:
    for where, call in calls_of("template"):
        key = call.args[0]
        assert isinstance(key, ast.Constant) and key.value in text.catalog(), where


def test_every_templates_key_names_a_message() -> None:
    messages, keys = text.catalog(), title_keys("templates")
    assert keys, "the check found no call of templates()"
    for key, where in keys.items():
        assert key in messages, f"{where}: no message {key!r}"


def test_templates_are_the_messages_in_order() -> None:
    keys = ("tab_title", "answer_in", "mine")
    said = text.templates("phone", keys)
    assert tuple(said) == keys
    assert said == {key: text.template(f"phone.{key}") for key in keys}
    with pytest.raises(ValueError, match="no message"):
        text.templates("phone", ("mine", "no_such_message"))


def test_every_message_is_used() -> None:
    named = [call.args[0].value for f in ("say", "template") for _, call in calls_of(f)]
    used = set(named) | set(title_keys()) | set(title_keys("templates"))
    unused = sorted(set(text.catalog()) - used)
    assert not unused, f"messages no code names: {unused}"


@pytest.mark.parametrize("path", sorted((text.LOCALE / "en").glob("*.po")), ids=lambda p: p.name)
def test_a_catalog_holds_its_own_keys_once(path: Path) -> None:
    keys = MSGID.findall(path.read_text(encoding="utf-8"))
    assert keys, f"{path.name} holds no message"
    assert len(keys) == len(set(keys)), f"{path.name}: a key twice"
    assert all(k.startswith(path.stem + ".") for k in keys), f"{path.name}: another's key"


def test_say_fills_values_and_keeps_the_letters() -> None:
    key, message = next((k, m) for k, m in text.catalog().items() if fields(m) - {"T", "D"})
    values = {name: f"<{name}>" for name in fields(message) - {"T", "D"}}
    said = text.say(key, **values)
    assert all(v in said for v in values.values())
    assert said.count("{T}") == message.count("{T}")


def test_say_refuses_an_unknown_key_and_a_missing_value() -> None:
    with pytest.raises(ValueError, match="no message"):
        text.say("no.such.message")
    key = next(k for k, m in text.catalog().items() if fields(m) - {"T", "D"})
    with pytest.raises(ValueError, match="needs a value"):
        text.say(key)
