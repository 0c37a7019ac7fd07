"""One palette and one notation for every page: the same meaning gets the same colour, pattern,
icon and words everywhere.

Colours are the Okabe–Ito set, distinguishable with the common colour-vision deficiencies; each
role also has a fill pattern and an icon so that nothing is told by colour alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    """How one meaning is drawn: colour, plotly fill pattern, icon and name."""

    color: str
    pattern: str
    icon: str
    name: str


TARGET = Role("#0072B2", "", "●", "target")  # blue, solid
DRAFT = Role("#E69F00", "/", "◆", "draft")  # orange, hatched
ACCEPTED = Role("#009E73", "", "✓", "accepted")  # bluish green, solid
REJECTED = Role("#D55E00", "x", "✗", "rejected")  # vermillion, crossed
BUCKET = Role("#CC79A7", ".", "◌", "leftover bucket")  # reddish purple, dotted
NEUTRAL = Role("#595959", "", "=", "balanced")

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
