"""Every chart's numbers as a table a screen reader reads, on every page, in Chromium: the folded
table under each chart opens with the keyboard (Tab to its heading, Enter), and Chromium's
accessibility tree (Playwright's ``aria_snapshot``) then holds a table whose rows are the rows the
page's own chart data make (the same link read by AppTest, in this process); a page without one
has none.

Run one at a time (2 cores): ``pytest tests/test_browser_tables.py -q``.
"""

from __future__ import annotations

import pytest
from helpers import chart_numbers, open_page
from streamlit_server import all_scripts, assert_clean, open_app, page_url, wait_for_charts

from specviz.text import say

pytestmark = pytest.mark.browser

REPO = all_scripts()[0].parent


def rows(markdown: str) -> list[str]:
    """A Markdown table's rows (its heading first) as a screen reader names them: the cells, one
    space apart."""
    lines = [line for line in markdown.splitlines() if line.startswith("|") and "---" not in line]
    return [" ".join(cell.strip() for cell in line.strip("|").split(" | ")) for line in lines]


@pytest.mark.parametrize("script", all_scripts(), ids=lambda script: script.stem)
def test_every_charts_table_is_read_as_a_table(page, streamlit_server, script) -> None:
    wanted = chart_numbers(open_page(str(script.relative_to(REPO))))
    watcher = open_app(page, page_url(streamlit_server, script))
    wait_for_charts(page)
    folds = page.get_by_test_id("stExpander").filter(has_text=say("page.chart_numbers"))
    assert folds.count() == len(wanted)
    for i, tables in enumerate(wanted):
        summary = folds.nth(i).locator("summary")
        summary.focus()
        page.keyboard.press("Enter")
        folds.nth(i).locator("details[open] table").first.wait_for()
        tree = folds.nth(i).aria_snapshot()
        for table in tables.split("\n\n"):
            named = [f'row "{row}"' in tree for row in rows(table)]
            assert named == [True] * len(named), f"chart {i + 1}:\n{tree}"
    assert_clean(page, watcher)
