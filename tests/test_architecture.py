"""The house rules of the code base, checked: which rooms may import which.

The core stays numpy-only so it is tested in milliseconds and reused anywhere; chart builders
never touch Streamlit so they can be tested as plain functions; only ``specviz/ui`` and the pages
talk to Streamlit.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import specviz

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "specviz"

FORBIDDEN = {
    "core": {"streamlit", "plotly", "altair", "scipy", "pandas"},
    "figures": {"streamlit", "scipy"},
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def room(path: Path) -> str | None:
    parts = path.relative_to(CORE).parts
    if parts[0] == "ui":
        return None
    return "figures" if parts[0] == "figures" else "core"


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_rooms_import_only_what_they_may(path: Path) -> None:
    kind = room(path)
    if kind is None:
        return  # specviz/ui is the one place allowed to use Streamlit
    bad = imported_modules(path) & FORBIDDEN[kind]
    assert not bad, f"{path.relative_to(ROOT)} ({kind}) imports {sorted(bad)}"


def test_public_face_is_the_documented_api() -> None:
    assert set(specviz.__all__) == {
        "normalize",
        "acceptance_probs",
        "acceptance_rate",
        "rejection_mass",
        "residual",
        "output_distribution",
        "speculative_sample",
        "sample_counts",
        "expected_tokens_per_step",
        "walltime_speedup",
        "optimal_gamma",
    }
    for name in specviz.__all__:
        assert callable(getattr(specviz, name)), name
        assert getattr(specviz, name).__doc__, f"{name} has no docstring"


def test_importing_the_core_does_not_load_streamlit_or_plotting() -> None:
    import subprocess
    import sys

    code = (
        "import sys, specviz, specviz.sampling, specviz.variants, specviz.stats, specviz.story; "
        "print(sorted(m for m in ('streamlit', 'plotly', 'altair') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
