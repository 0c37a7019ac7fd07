"""The palette as CSS variables, for the views that run in the learner's browser (the player, the
live view, the timeline): each colours its marks by meaning as the charts do."""

from __future__ import annotations

from specviz import palette

#: CSS variable of each role: ``--name`` is its fill, ``--name-text`` its shade for text.
_ROLE_VARIABLES = {
    "target": palette.TARGET,
    "draft": palette.DRAFT,
    "ok": palette.ACCEPTED,
    "bad": palette.REJECTED,
    "bucket": palette.BUCKET,
    "neutral": palette.NEUTRAL,
}


def palette_css() -> str:
    """The palette as CSS custom properties, for a ``:root`` rule."""
    parts = [f"--ink: {palette.INK};"]
    for var, role in _ROLE_VARIABLES.items():
        parts.append(f"--{var}: {role.color}; --{var}-text: {role.text_color};")
    return " ".join(parts)
