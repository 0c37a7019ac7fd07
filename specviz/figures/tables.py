"""Tables as Markdown pipe tables: unlike ``st.table``'s fixed small font, they follow the page's
type size (projector mode enlarges them) and scroll in their own box on a phone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_SPACES = re.compile(r"[ \t\r\n]+")


def markdown_table(columns: Mapping[str, Sequence[str]]) -> str:
    """A pipe table of ``columns`` (every column as long as the first), header first.

    Examples
    --------
    >>> print(markdown_table({"word": ["mat"], "p(x)": ["40%"]}))
    | word | p(x) |
    | --- | --- |
    | mat | 40% |
    """
    names = list(columns)
    rows = [names, ["---"] * len(names), *zip(*(columns[name] for name in names), strict=True)]
    # A pipe would end a cell, a newline its row: neither may come through (a no-break space
    # stays: "40 %" must not break in Spanish).
    cells = [
        [_SPACES.sub(" ", str(v).replace("|", "\\|")).strip() or " " for v in row] for row in rows
    ]
    return "\n".join("| " + " | ".join(row) + " |" for row in cells)
