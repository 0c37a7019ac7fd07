"""The Monte Carlo and Bug zoo pages in Chromium: deep links (with page parameters), keyboard
control, no exception, the address bar following the page, and screenshots for a human to judge
(tests/screenshots/monte_carlo*.png, bug_zoo*.png; normal and projector mode).

Run one at a time (2 cores): ``pytest tests/test_browser_montecarlo.py -q``.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from streamlit_server import (
    REPO_ROOT,
    assert_clean,
    link_params,
    open_app,
    page_url,
    rerun_waiter,
    wait_for_charts,
    wait_for_render,
)

from specviz.figures import vega
from specviz.figures.montecarlo import heard_sentence, histogram_figure
from specviz.limits import PATHS
from specviz.runs import monte_carlo_paths
from specviz.scenario import Scenario
from specviz.text import say

pytestmark = pytest.mark.browser

MC_URL_PATH = REPO_ROOT / "pages" / "3_Monte_Carlo.py"
ZOO_URL_PATH = REPO_ROOT / "pages" / "4_Bug_zoo.py"


def shoot(page, path) -> None:
    """The whole page: grow the viewport to the main area's height (Streamlit scrolls an inner
    container, so full_page=True would stop at the viewport), wait for the charts, shoot."""
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1280, "height": max(1600, int(height) + 40)})
    wait_for_render(page)
    wait_for_charts(page)
    page.wait_for_timeout(600)  # Vega draws a moment after the rerun
    page.screenshot(path=path)


def mark_charts(page) -> None:
    """Tag every chart's element, to tell later whether it was drawn anew."""
    page.evaluate(
        "() => document.querySelectorAll('[data-testid=stVegaLiteChart]')"
        ".forEach(e => { e.dataset.kept = '1'; })"
    )


def charts_kept(page) -> list[bool]:
    """For every chart on the page, whether it is the element tagged by :func:`mark_charts`
    (updated in place) rather than a new one (remounted)."""
    page.wait_for_timeout(300)  # Vega redraws a moment after the rerun
    return page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]"
        ".map(e => e.dataset.kept === '1')"
    )


def metric_values(page) -> list[str]:
    return [t.strip() for t in page.get_by_test_id("stMetricValue").all_inner_texts()]


def test_monte_carlo_deep_link_and_keyboard(page, streamlit_server, screenshot_dir) -> None:
    watcher = open_app(page, page_url(streamlit_server, MC_URL_PATH) + "?n=1000000")
    wait_for_charts(page)
    assert_clean(page, watcher)
    assert urlparse(page.url).path.rstrip("/").endswith("/Monte_Carlo")
    main = page.get_by_test_id("stMain")
    assert "Every run simulated" in main.inner_text()
    assert page.get_by_test_id("stPlotlyChart").count() == 0
    assert page.get_by_test_id("stVegaLiteChart").count() == 3
    shoot(page, screenshot_dir / "monte_carlo_1M.png")

    slider = main.get_by_role("slider", name="Number of runs N (1 to 1 billion)")
    assert slider.get_attribute("aria-valuetext") == "1M"
    mark_charts(page)
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    assert slider.get_attribute("aria-valuetext") == "10M"
    assert charts_kept(page) == [True] * 3  # new data, drawn in place
    assert "Counts drawn directly" in main.inner_text()
    page.wait_for_function("() => location.search.includes('n=10M')")
    assert link_params(page.url)["n"] == "10M" and link_params(page.url)["p"] == "40,30,20,10"
    with rerun_waiter(page):
        page.keyboard.press("End")
    assert slider.get_attribute("aria-valuetext") == "1B"
    assert_clean(page, watcher)
    shoot(page, screenshot_dir / "monte_carlo_1B.png")


def test_monte_carlo_is_heard_and_its_charts_read_as_tables(page, streamlit_server) -> None:
    """A screen reader hears what a new N did, once and in words, through one polite live region
    (the core's numbers), and a chart's numbers are a table in the accessibility tree that the
    keyboard opens: the rows the core's figure has (issue 35)."""
    watcher = open_app(page, page_url(streamlit_server, MC_URL_PATH) + "?n=10000")
    wait_for_charts(page)
    main = page.get_by_test_id("stMain")
    heard = main.locator(".st-key-heard [role=status]")
    assert heard.text_content() == ""  # a first visit is read as the page, not announced
    slider = main.get_by_role("slider", name="Number of runs N (1 to 1 billion)")
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    scenario = Scenario()
    step = scenario.step()
    run = monte_carlo_paths(step.p, step.q, 100_000, scenario.seed, PATHS)[0]
    page.wait_for_function(
        "() => document.querySelector('.st-key-heard [role=status]')?.textContent !== ''"
    )
    assert heard.text_content() == heard_sentence(run)
    assert main.get_by_role("status").filter(has_text="runs: distance").count() == 1

    table = main.get_by_role("group").filter(has_text=say("page.chart_numbers")).first
    table.locator("summary").focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stExpander] details[open] table')"
    )
    (numbers,) = vega.numbers(histogram_figure(scenario.labels, step, run)[0])
    rows = [" ".join(cells) for cells in zip(*numbers.values(), strict=True)]
    tree = table.aria_snapshot()
    assert [f'row "{row}"' in tree for row in rows] == [True] * len(rows), tree
    assert_clean(page, watcher)


def test_monte_carlo_projector(page, streamlit_server, screenshot_dir) -> None:
    watcher = open_app(page, page_url(streamlit_server, MC_URL_PATH) + "?projector=1&n=10000")
    wait_for_charts(page)
    assert_clean(page, watcher)
    shoot(page, screenshot_dir / "monte_carlo_projector.png")


def test_monte_carlo_bad_link_shows_a_notice(page, streamlit_server) -> None:
    watcher = open_app(page, page_url(streamlit_server, MC_URL_PATH) + "?n=lots")
    assert_clean(page, watcher)
    alert = page.get_by_test_id("stAlertContentWarning")
    assert "'n'" in alert.first.inner_text()
    assert link_params(page.url)["n"] == "10k"  # the link is repaired


def test_bug_zoo_deep_link_and_keyboard(page, streamlit_server, screenshot_dir) -> None:
    watcher = open_app(page, page_url(streamlit_server, ZOO_URL_PATH) + "?bug=reuse_uniform")
    wait_for_charts(page)
    assert_clean(page, watcher)
    assert urlparse(page.url).path.rstrip("/").endswith("/Bug_zoo")
    assert metric_values(page)[:2] == ["0.075", "0"]
    shoot(page, screenshot_dir / "bug_zoo.png")

    checked = page.get_by_role("radio", name="Reuse the test's random number")
    assert checked.is_checked()
    mark_charts(page)
    checked.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowLeft")  # the previous exhibit: Redraw from q until accepted
    assert page.get_by_role("radio", name="Redraw from q until accepted").is_checked()
    assert charts_kept(page) == [True] * 2  # new data, drawn in place
    page.wait_for_function("() => location.search.includes('bug=redraw_from_q')")
    assert metric_values(page)[0] == "0.233"
    assert_clean(page, watcher)


def test_bug_zoo_projector(page, streamlit_server, screenshot_dir) -> None:
    url = page_url(streamlit_server, ZOO_URL_PATH) + "?projector=1&bug=inverted_ratio"
    watcher = open_app(page, url)
    wait_for_charts(page)
    assert_clean(page, watcher)
    assert metric_values(page)[0] == "0.4"
    shoot(page, screenshot_dir / "bug_zoo_projector.png")


def test_bug_zoo_disjoint_supports(page, streamlit_server, screenshot_dir) -> None:
    url = page_url(streamlit_server, ZOO_URL_PATH) + ("?p=50,50,0,0&q=0,0,50,50&bug=redraw_from_q")
    watcher = open_app(page, url)
    assert_clean(page, watcher)
    alert = page.get_by_test_id("stAlertContentWarning")
    assert "share no word" in alert.first.inner_text()
    shoot(page, screenshot_dir / "bug_zoo_disjoint.png")
