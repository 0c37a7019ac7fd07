"""One palette and one notation for every page: the same meaning gets the same colour, pattern,
icon and words everywhere.

Colours are the Okabe–Ito set, distinguishable with the common colour-vision deficiencies; each
role also has a fill pattern and an icon so that nothing is told by colour alone. Several of those
fills are too light for small text on white (vermillion 3.9:1, reddish purple 3.1:1), so each role
also has a darker shade of the same hue for coloured *text*, at least 5:1 on white (WCAG AA).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    """How one meaning is drawn: colour, fill pattern, icon and name.

    ``color`` fills bars and lines; ``text_color`` is the same hue darkened for small text on white.
    """

    color: str
    pattern: str
    icon: str
    name: str
    text_color: str = ""

    def __post_init__(self) -> None:
        if not self.text_color:
            object.__setattr__(self, "text_color", self.color)


# Text shades: the fill's hue and saturation, lightness lowered to a 5.3:1 contrast on white.
TARGET = Role("#0072B2", "", "●", "target", "#0070AF")  # blue, solid
DRAFT = Role("#E69F00", "/", "◆", "draft", "#8F6300")  # orange, hatched
ACCEPTED = Role("#009E73", "", "✓", "accepted", "#007A59")  # bluish green, solid
REJECTED = Role("#D55E00", "x", "✗", "rejected", "#B14E00")  # vermillion, crossed
BUCKET = Role("#CC79A7", ".", "◌", "leftover bucket", "#B04380")  # reddish purple, dotted
NEUTRAL = Role("#595959", "", "=", "balanced")  # 7:1 on white: its own text shade

INK = "#1a1a1a"
GRID = "#d0d0d0"

#: Status of a token: the draft proposes it too often, too rarely, or just right.
OVER = "over-sampled"
UNDER = "under-sampled"
BALANCED = "balanced"
STATUS_ICON = {OVER: "▼", UNDER: "▲", BALANCED: "="}
STATUS_ROLE = {OVER: REJECTED, UNDER: BUCKET, BALANCED: NEUTRAL}


@dataclass(frozen=True)
class Notation:
    """Letters for the two models.

    SpecViz follows Leviathan et al.: ``p`` = target, ``q`` = draft. Chen et al. (DeepMind) and many
    blog posts swap the letters; ``swapped=True`` relabels every formula the app shows.
    """

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
        if self.swapped:
            return (
                "Notation: q = target (the big model), p = draft (the small one), as in Chen et "
                "al. (2023) and many blog posts. Leviathan et al. (2023) swap the two letters — "
                "a classic source of inverted ratios; the *Swap letters* switch in the sidebar "
                "goes back to their lettering."
            )
        return (
            "Notation: p = target (the big model), q = draft (the small one), as in Leviathan "
            "et al. (2023). Chen et al. (2023) and many blog posts swap the two letters — a "
            "classic source of inverted ratios; the *Swap letters* switch in the sidebar "
            "relabels everything."
        )
