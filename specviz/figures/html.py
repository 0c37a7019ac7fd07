"""Self-contained HTML views (the player, the animated flow), run in the learner's browser inside
``st.iframe`` at no server cost: templates lettered with ``{T}``/``{D}``, the palette as CSS
variables (``__PALETTE__``), data as JSON, never as markup.
"""

from __future__ import annotations

import json
from pathlib import Path

from specviz import palette
from specviz.figures.style import ChartStyle

#: CSS variable of each role: ``--name`` is its fill, ``--name-text`` its shade for text.
_ROLE_VARIABLES = {
    "target": palette.TARGET,
    "draft": palette.DRAFT,
    "ok": palette.ACCEPTED,
    "bad": palette.REJECTED,
    "bucket": palette.BUCKET,
    "neutral": palette.NEUTRAL,
}
#: What a ``<script>`` element's JSON must escape, which ``</script>`` or ``<!--`` in a label
#: could end: every ``<``, ``>`` and ``&`` as a JSON unicode escape.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def palette_css() -> str:
    """The palette as CSS custom properties, for a ``:root`` rule."""
    parts = [f"--ink: {palette.INK};"]
    for var, role in _ROLE_VARIABLES.items():
        parts.append(f"--{var}: {role.color}; --{var}-text: {role.text_color};")
    return " ".join(parts)


def render(name: str, style: ChartStyle, data: object, **fields: str) -> str:
    """Fill template ``name``: the letters, palette, font size, the JSON ``data`` and ``fields``
    (text placed as ``__KEY__``: callers escape it, with :func:`html.escape`)."""
    # Letters first: data and fields may hold braces.
    html = style.fill(Path(__file__).with_name(name).read_text(encoding="utf-8"))
    replacements = {
        "__FONT__": str(style.html_font_size),
        "__PALETTE__": palette_css(),
        **{f"__{key.upper()}__": value for key, value in fields.items()},
        "__DATA__": json.dumps(data, allow_nan=False).translate(_SCRIPT_SAFE),
    }
    for key, value in replacements.items():
        html = html.replace(key, value)
    return html
