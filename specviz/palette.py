"""One palette and one notation for every page: one meaning, one colour, pattern, icon and words.

Colours are the Okabe–Ito set (safe for the common colour-vision deficiencies), and a pattern and
an icon say each meaning too. Coloured text uses a darker shade of the hue, 5:1 on white (WCAG AA).
"""

from __future__ import annotations

from dataclasses import dataclass

from specviz.text import say


@dataclass(frozen=True)
class Role:
    """How one meaning is drawn: ``color`` fills bars and lines, ``text_color`` (the same hue,
    darker) colours small text on white; a fill ``pattern`` and an ``icon``."""

    color: str
    pattern: str
    icon: str
    text_color: str


# Text shades: the fill's hue and saturation, lightness lowered to a 5.3:1 contrast on white.
TARGET = Role("#0072B2", "", "●", "#0070AF")  # blue, solid
DRAFT = Role("#E69F00", "/", "◆", "#8F6300")  # orange, hatched
ACCEPTED = Role("#009E73", "", "✓", "#007A59")  # bluish green, solid
REJECTED = Role("#D55E00", "x", "✗", "#B14E00")  # vermillion, crossed
BUCKET = Role("#CC79A7", ".", "◌", "#B04380")  # reddish purple, dotted
NEUTRAL = Role("#595959", "", "=", "#595959")  # 7:1 on white: its own text shade

INK = "#1a1a1a"
GRID = "#d0d0d0"


@dataclass(frozen=True)
class Notation:
    """Letters of the models: ``p`` target, ``q`` draft (Leviathan et al.), or swapped (Chen)."""

    swapped: bool = False

    @property
    def target(self) -> str:
        """Letter of the target model."""
        return "q" if self.swapped else "p"

    @property
    def draft(self) -> str:
        """Letter of the draft model."""
        return "p" if self.swapped else "q"

    def fill(self, template: str) -> str:
        """Replace ``{T}`` and ``{D}`` in ``template`` by the target and draft letters."""
        return template.replace("{T}", self.target).replace("{D}", self.draft)

    def explain(self) -> str:
        """One sentence on which letter names which model, and whose lettering that is."""
        return self.fill(say("palette.chen") if self.swapped else say("palette.leviathan"))
