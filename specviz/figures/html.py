"""Self-contained HTML views (the player, the animated flow): templates filled with JSON data.

They run in the learner's browser inside ``st.iframe``, so animation and stepping cost the server
nothing. Data goes in as JSON inside ``<script type="application/json">``, never as markup.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from specviz import palette
from specviz.figures.style import ChartStyle

_HERE = Path(__file__).resolve().parent


@cache
def _template(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


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


def render(name: str, style: ChartStyle, data: object, **fields: str) -> str:
    """Fill template ``name``: palette colours, font size, letters, the JSON ``data`` and
    ``fields`` (plain text placed as ``__KEY__``; callers pass only text they built)."""
    replacements = {
        "__FONT__": str(style.font_size + (6 if style.projector else 2)),
        "__DRAFT__": palette.DRAFT.color,
        "__TARGET__": palette.TARGET.color,
        "__ACCEPTED__": palette.ACCEPTED.color,
        "__REJECTED__": palette.REJECTED.color,
        "__BUCKET__": palette.BUCKET.color,
        "__T__": style.notation.target,
        "__D__": style.notation.draft,
        **{f"__{key.upper()}__": value for key, value in fields.items()},
        "__DATA__": script_json(data),
    }
    html = _template(name)
    for key, value in replacements.items():
        html = html.replace(key, value)
    return html
