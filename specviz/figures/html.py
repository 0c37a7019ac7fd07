"""Self-contained HTML views (the player, the animated flow): templates filled with JSON data.

They run in the learner's browser inside ``st.iframe``, so animation and stepping cost the server
nothing. Data goes in as JSON inside ``<script type="application/json">``, never as markup. The
templates letter the models with ``{T}`` and ``{D}``, as all prose does
(:meth:`~specviz.palette.Notation.fill`), and take their colours from the palette as CSS
variables (``__PALETTE__``): no colour is written twice.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from specviz import palette
from specviz.figures.fit import html_font_size
from specviz.figures.style import ChartStyle

_HERE = Path(__file__).resolve().parent

#: CSS variable of each role: ``--name`` is its fill, ``--name-text`` its shade for text.
_ROLE_VARIABLES = {
    "target": palette.TARGET,
    "draft": palette.DRAFT,
    "ok": palette.ACCEPTED,
    "bad": palette.REJECTED,
    "bucket": palette.BUCKET,
    "neutral": palette.NEUTRAL,
}


@cache
def _template(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def palette_css() -> str:
    """The palette as CSS custom properties, for a ``:root`` rule."""
    parts = [f"--ink: {palette.INK};"]
    for var, role in _ROLE_VARIABLES.items():
        parts.append(f"--{var}: {role.color}; --{var}-text: {role.text_color};")
    return " ".join(parts)


def script_json(data: object) -> str:
    """JSON that is safe inside a ``<script>`` element.

    A label such as ``</script>`` or ``<!--`` could end or swallow the element: every ``<``, ``>``
    and ``&`` is written as a JSON unicode escape, which parses back to the same string.
    """
    return (
        json.dumps(data, allow_nan=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )


def attribute(text: str) -> str:
    """Text for an HTML attribute value or element (the captions hold only words, digits and
    symbols, but a learner's word must never become markup)."""
    return (
        text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def render(name: str, style: ChartStyle, data: object, **fields: str) -> str:
    """Fill template ``name``: the letters, palette, font size, the JSON ``data`` and ``fields``
    (plain text placed as ``__KEY__``; callers pass only text they built and escaped)."""
    html = style.fill(_template(name))  # letters first: data and fields may hold braces
    replacements = {
        "__FONT__": str(html_font_size(style)),
        "__PALETTE__": palette_css(),
        **{f"__{key.upper()}__": value for key, value in fields.items()},
        "__DATA__": script_json(data),
    }
    for key, value in replacements.items():
        html = html.replace(key, value)
    return html
