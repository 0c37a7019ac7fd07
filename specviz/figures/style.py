"""The look of every chart for a screen or a projector: sizes and lettering."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from specviz.palette import Notation


@dataclass(frozen=True)
class ChartStyle:
    """Sizes and lettering of a chart: large type and thick lines for a ``projector``
    (readable from the back of a lecture hall), the letters of ``notation``; ``beside`` a chart
    in the column beside the control it answers (half a page), not across the page."""

    projector: bool = False
    notation: Notation = field(default_factory=Notation)
    beside: bool = False

    @property
    def font_size(self) -> int:
        """Base font size in px: 24 on a projector, the back row's least on a 1920 px screen (the
        page's own type grows with the screen, a chart's cannot)."""
        return 24 if self.projector else 14

    @property
    def line_width(self) -> float:
        """Width of outlines and reference lines in px."""
        return 4.0 if self.projector else 2.0

    @property
    def height(self) -> int:
        """Figure height in px."""
        return 420 if self.projector else 360

    @property
    def text_size(self) -> int:
        """Size of the numbers printed on bars."""
        return 24 if self.projector else 12

    @property
    def title_size(self) -> int:
        """Size of the chart title."""
        return self.font_size + 4

    @property
    def html_font_size(self) -> int:
        """Body text size of the HTML views on a 1280 px screen: a notch above the charts' on a
        laptop, 24 px on a projector (their CSS grows it with the screen)."""
        return 24 if self.projector else self.font_size + 2

    @property
    def min_tick_size(self) -> int:
        """The smallest tick labels may shrink to when many words share the axis."""
        return 18 if self.projector else 11

    @property
    def width(self) -> int:
        """The narrowest width (px) a chart is drawn at, which its text is laid out to fit: a
        phone's screen less the page's margins (where columns stack), or a projector's chart
        column (a side column of a 1280 px projector is 640 px)."""
        return (640 if self.beside else 800) if self.projector else 350

    def side_column(self) -> ChartStyle:
        """This style for a chart drawn beside the control it answers."""
        return replace(self, beside=True)

    def fill(self, template: str) -> str:
        """Put the target/draft letters into ``template`` (``{T}``, ``{D}``)."""
        return self.notation.fill(template)


DEFAULT_STYLE = ChartStyle()
