"""The house rules of the code base, checked: which rooms may import which, where limits live,
and which names are private.

The core stays free of Streamlit and plotting so it is tested in milliseconds and reused anywhere;
it may use scipy, but only inside the functions that need it, so that importing the core (every
page's cold start) does not pay for scipy. Chart builders never touch Streamlit so they can be
tested as plain functions; only ``specviz/ui`` and the pages talk to Streamlit. Every limit and
threshold is written once, in ``specviz/limits.py``.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import specviz

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "specviz"

#: Packages a room may not import at all.
FORBIDDEN = {
    "core": {"streamlit", "plotly", "altair", "pandas"},
    "figures": {"streamlit"},
}

#: Packages a room may import only inside a function (never when the module is imported).
LAZY_ONLY = {
    "core": {"scipy"},
    "figures": {"scipy"},
}

#: Every Python module of the app (tests and benchmarks aside).
APP_MODULES = sorted(
    [*CORE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"],
    key=lambda path: str(path),
)
#: The self-contained HTML views, whose scripts could hold a number too.
TEMPLATES = sorted([*CORE.rglob("*.html"), *CORE.rglob("*.js")])
LIMITS = CORE / "limits.py"


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _top(name: str) -> str:
    return name.split(".")[0]


def imported_modules(tree: ast.AST) -> set[str]:
    """Top-level package names of every import anywhere in ``tree``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(_top(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(_top(node.module))
    return names


def load_time_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node that runs when the module is imported: all but function bodies (class bodies
    and module-level ``if``/``try`` blocks run at import)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))


def load_time_imports(tree: ast.Module) -> set[str]:
    module = ast.Module(body=list(load_time_nodes(tree)), type_ignores=[])
    names: set[str] = set()
    for node in module.body:
        if isinstance(node, ast.Import):
            names.update(_top(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(_top(node.module))
    return names


def room(path: Path) -> str | None:
    parts = path.relative_to(CORE).parts
    if parts[0] == "ui":
        return None
    return "figures" if parts[0] == "figures" else "core"


# --------------------------------------------------------------------------- rooms


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=rel)
def test_rooms_import_only_what_they_may(path: Path) -> None:
    kind = room(path)
    if kind is None:
        return  # specviz/ui is the one place allowed to use Streamlit
    tree = parse(path)
    bad = imported_modules(tree) & FORBIDDEN[kind]
    assert not bad, f"{rel(path)} ({kind}) imports {sorted(bad)}"
    eager = load_time_imports(tree) & LAZY_ONLY[kind]
    assert not eager, f"{rel(path)} ({kind}) imports {sorted(eager)} at import time"


def test_the_lazy_import_check_sees_module_level_imports() -> None:
    """The checker itself: an import in a function is lazy, one in a class or an ``if`` is not."""
    tree = ast.parse(
        "import numpy\n"
        "def f():\n    import scipy\n"
        "class C:\n    import plotly\n"
        "if True:\n    from altair import Chart\n"
    )
    assert load_time_imports(tree) == {"numpy", "plotly", "altair"}
    assert imported_modules(tree) == {"numpy", "scipy", "plotly", "altair"}


def test_importing_the_core_loads_neither_scipy_nor_streamlit_nor_plotting() -> None:
    code = (
        "import sys, specviz, specviz.rules, specviz.runs, specviz.zoo, specviz.stats, "
        "specviz.story, specviz.links, specviz.scenario; "
        "print(sorted(m for m in ('scipy', 'streamlit', 'plotly', 'altair') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- public face


def test_public_face_is_the_documented_api() -> None:
    assert set(specviz.__all__) == {
        "normalize",
        "speculative_sample",
        "sample_counts",
        "expected_tokens_per_step",
        "walltime_speedup",
        "step",
        "OneTokenStep",
        "speculative_decode",
    }
    assert len(specviz.__all__) == len(set(specviz.__all__))
    for name in specviz.__all__:
        assert callable(getattr(specviz, name)), name
        assert getattr(specviz, name).__doc__, f"{name} has no docstring"


# ------------------------------------------------------------------- limits live in one place

#: Module-level MAX_* names allowed outside limits.py: none.
MAX_ELSEWHERE: set[tuple[str, str]] = set()

#: The numbers that are limits.py's to write (ROUNDING, MAX_SEED, MAX_COUNT_DRAWS).
LIMIT_NUMBERS = {1e-12, 2**32, 2**32 - 1, 10**15}
LIMIT_POWERS = {(2, 32), (10, 15)}
#: The same numbers as they could be spelled in a template's script.
LIMIT_TEXT = re.compile(
    r"(?<![\w.])(1e-12|1\.0e-12|0\.000000000001|2\s*\*\*\s*32|10\s*\*\*\s*15|1e15|1e\+15|"
    r"4294967295|4294967296|1000000000000000)(?![\w.])"
)


def module_constants(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    names.add(sub.id)
    return names


def limit_literals(tree: ast.AST) -> list[str]:
    """Every literal 1e-12, 2**32, 10**15 (or 2**32 - 1 written out) in the code."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int | float)
            and not isinstance(node.value, bool)
            and node.value in LIMIT_NUMBERS
        ):
            found.append(f"line {node.lineno}: {node.value!r}")
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Pow)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.right, ast.Constant)
            and (node.left.value, node.right.value) in LIMIT_POWERS
        ):
            found.append(f"line {node.lineno}: {node.left.value}**{node.right.value}")
    return found


@pytest.mark.parametrize("path", [p for p in APP_MODULES if p != LIMITS], ids=rel)
def test_no_limit_is_defined_outside_limits(path: Path) -> None:
    tree = parse(path)
    constants = {
        name
        for name in module_constants(tree)
        if name.startswith("MAX_") and (rel(path), name) not in MAX_ELSEWHERE
    }
    assert not constants, f"{rel(path)} defines {sorted(constants)}: put them in limits.py"
    literals = limit_literals(tree)
    assert not literals, f"{rel(path)} writes a limit of limits.py by hand: {literals}"


@pytest.mark.parametrize("path", TEMPLATES, ids=rel)
def test_no_limit_is_written_into_a_template(path: Path) -> None:
    found = LIMIT_TEXT.findall(path.read_text(encoding="utf-8"))
    assert not found, f"{rel(path)} writes {found}"


def test_the_limit_checks_see_what_they_look_for() -> None:
    tree = ast.parse(
        "MAX_X = 3\nY: int = 2**32 - 1\ndef f(a):\n    return a < 1e-12 or a > 10**15\n"
        "'''1e-12 in a docstring is prose'''\n"
    )
    assert "MAX_X" in module_constants(tree)
    assert len(limit_literals(tree)) == 3
    assert LIMIT_TEXT.findall("if (z < 1e-12 || n > 4294967295) {}") == ["1e-12", "4294967295"]
    assert not LIMIT_TEXT.findall("const w = 11e-123; const k = 10**150;")
    assert 1e-12 in LIMIT_NUMBERS  # the rounding threshold of limits.py is the one looked for
    from specviz.limits import MAX_COUNT_DRAWS, MAX_SEED, ROUNDING

    assert {ROUNDING, MAX_SEED, MAX_COUNT_DRAWS} <= LIMIT_NUMBERS


# --------------------------------------------------------------------------- private names

#: Private names a module may import from another: none.
PRIVATE_ALLOWED: set[tuple[str, str]] = set()


def private_imports(tree: ast.AST) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                    found.append((module, name))
    return found


@pytest.mark.parametrize(
    "path", [*APP_MODULES, *sorted((ROOT / "benchmarks").glob("*.py"))], ids=rel
)
def test_no_module_imports_a_private_name(path: Path) -> None:
    bad = [pair for pair in private_imports(parse(path)) if pair not in PRIVATE_ALLOWED]
    assert not bad, f"{rel(path)} imports private names {bad}"


def test_the_private_import_check_sees_what_it_looks_for() -> None:
    tree = ast.parse(
        "from __future__ import annotations\nfrom a import _b, c, __version__\n"
        "def f():\n    from .d import _e\n"
    )
    assert private_imports(tree) == [("a", "_b"), (".d", "_e")]


@pytest.mark.xdist_group("groups-hold")
def test_a_tests_xdist_group_holds(request) -> None:
    """Tests that read one page visit, or one class of replicas, share a worker through their
    xdist group (tests/visits.py). pytest 9.2 with xdist 3.8 drops the groups without a word, and
    each worker then loads those pages, or starts those replicas, again: hence pytest 9.1 in
    requirements-dev.txt, and this check under xdist."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        assert request.node.nodeid.endswith("@groups-hold"), request.node.nodeid


def specviz_imports(path: Path) -> set[str]:
    """The app's own modules ``path`` imports, anywhere in it (a lazy import is an edge too):
    ``from specviz.ui import polls`` is ``specviz.ui.polls``; a package's ``__init__`` is left
    out (it re-exports, it is not a room)."""

    def module(name: str) -> bool:
        return name.startswith("specviz") and (ROOT / f"{name.replace('.', '/')}.py").exists()

    found = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if module(alias.name)}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named = {f"{node.module}.{alias.name}" for alias in node.names}
            found |= {name for name in named if module(name)} or (
                {node.module} if module(node.module) else set()
            )
    return found


def import_circles() -> list[list[str]]:
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts): p for p in CORE.rglob("*.py")}
    graph = {name: specviz_imports(path) & modules.keys() for name, path in modules.items()}
    circles, done = [], set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            circles.append([*trail[trail.index(name) :], name])
            return
        if name in done:
            return
        for nxt in sorted(graph[name]):
            visit(nxt, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    return circles


def test_no_module_of_the_app_imports_itself_round_a_circle() -> None:
    """Rooms import downwards only; a circle (page → presenter → polls → page) makes the order of
    imports matter and hides which room holds what."""
    assert import_circles() == []
