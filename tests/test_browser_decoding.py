"""The page "Many words per call" in Chromium: a deep link with every setting restores it on a
fresh server, the keyboard moves γ and the numbers, the address bar and the chart follow (the
chart updated in place, not remounted), projector mode shows γ and its chart without scrolling
at 1920×1080 and 1280×720, the sections below are tabs (a click or the keyboard opens one, drawn
only then, kept in the link), the timeline replays in the browser without asking the server and
is updated in place (a component, no iframe to reload), chart titles fit their charts, and
screenshots (tests/screenshots/many_words_*.png) to look at.

Run one at a time (2 cores: Chromium is the bottleneck). Skip with `-m "not browser"`.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from streamlit_server import (
    assert_clean,
    link_params,
    open_app,
    poll,
    rerun_waiter,
    wait_for_charts,
    watch_stream,
)

from specviz.figures.numbers import decimal, times
from specviz.language import toy_curve, toy_run
from specviz.links import DECODE_SECTIONS

pytestmark = pytest.mark.browser

PATH = "/Many_words_per_call"
GAMMA_LABEL = "Guesses per target call γ"
DEEP = {"pair": "strong", "gamma": "6", "c": "0.05", "temp": "0.7", "length": "30", "seed": "5"}
CHART = ".st-key-dec-chart-gamma [data-testid=stVegaLiteChart]"
CHARTS = "[data-testid=stVegaLiteChart]"
TIMELINE = ".st-key-dec-timeline"


def slider(page, label: str):
    """A slider by its label (Streamlit 1.67 names the thumb by its label, sometimes twice)."""
    name = re.escape(label)
    return page.get_by_role("slider", name=re.compile(rf"^{name}(?: {name})?$"))


def metric(page, label: str) -> str:
    box = page.get_by_test_id("stMetric").filter(has_text=label)
    return box.get_by_test_id("stMetricValue").inner_text().strip()


def timeline_frame(page):
    """The timeline view (its shadow root: Playwright's locators reach inside)."""
    view = page.locator(TIMELINE)
    poll(page, lambda: view.locator(".calls").count() == 1, "the timeline view")
    return view


def test_a_deep_link_restores_every_setting_on_a_fresh_server(page, fresh_streamlit_server):
    watcher = open_app(page, f"{fresh_streamlit_server}{PATH}?{urlencode(DEEP)}")
    wait_for_charts(page)
    assert_clean(page, watcher)
    assert page.get_by_test_id("stAlertContainer").filter(has_text="link had problems").count() == 0
    shown = {GAMMA_LABEL: "6", "Draft step cost c": "0.05", "Temperature of both models": "0.7"}
    for label, value in (shown | {"Words to write": "30"}).items():
        assert slider(page, label).get_attribute("aria-valuetext") == value
    box = page.get_by_test_id("stMain").get_by_test_id("stSelectbox")
    shown = (
        box.inner_text()
        + " "
        + " ".join(
            box.locator("input").evaluate_all(
                "inputs => inputs.map(i => i.value + ' ' + (i.getAttribute('aria-label') || ''))"
            )
        )
    )
    assert "A strong draft" in shown, shown
    run, long = toy_run("strong", 0.7, 6, 30, 5), toy_curve("strong", 0.7)[6]
    assert metric(page, "Words/call") == f"{decimal(long.long_run, 2)}"
    assert metric(page, "Speed-up") == f"{times(long.speedup(0.05))}"
    frame = timeline_frame(page)
    assert frame.locator(".calls li").count() == run.target_calls
    assert frame.locator(".text .w").count() == 30
    assert link_params(page.url).items() >= DEEP.items()


def test_the_keyboard_moves_gamma_and_the_chart_updates_in_place(page, streamlit_server) -> None:
    watcher = open_app(page, f"{streamlit_server}{PATH}")
    wait_for_charts(page)
    page.locator(CHART).evaluate("chart => { window.mounted = chart.querySelector('canvas, svg') }")
    timeline_frame(page)
    page.evaluate("() => { window.timeline = window.specviz.timeline.box }")
    thumb = slider(page, GAMMA_LABEL)
    thumb.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    run, long = toy_run("ngram", 1.0, 5, 60, 7), toy_curve("ngram", 1.0)[5]
    poll(page, lambda: metric(page, "Words/call") == f"{decimal(long.long_run, 2)}", "the metric")
    assert metric(page, "Speed-up") == f"{times(long.speedup(0.1))}"
    assert link_params(page.url)["gamma"] == "5"
    frame = timeline_frame(page)
    poll(page, lambda: frame.locator(".calls li").count() == run.target_calls, "the timeline")
    same = "chart => chart.querySelector('canvas, svg') === window.mounted"
    assert page.locator(CHART).evaluate(same), "the chart was remounted, not updated"
    shown = "() => window.specviz.timeline.box === window.timeline && window.timeline.isConnected"
    assert page.evaluate(shown), "the timeline was remounted, not updated"
    assert page.get_by_test_id("stIFrame").count() == 0
    with rerun_waiter(page):  # the thumb kept the keyboard focus: a second press moves it on
        page.keyboard.press("ArrowRight")
    assert link_params(page.url)["gamma"] == "6"
    assert_clean(page, watcher)


def test_a_new_text_shows_its_seed_in_the_sidebar_too(page, streamlit_server) -> None:
    """The "New text" button draws a new seed inside the page's part: the sidebar's seed said the
    old one while the link and the text had the new (a fragment's run does not redraw the
    sidebar)."""
    watcher = open_app(page, f"{streamlit_server}{PATH}")
    wait_for_charts(page)
    seed = page.get_by_test_id("stSidebar").get_by_role("spinbutton")
    assert seed.input_value() == "7"
    page.get_by_role("button", name="New text").click()
    poll(page, lambda: link_params(page.url).get("seed") == "8", "the new seed in the link")
    poll(page, lambda: seed.input_value() == "8", "the new seed in the sidebar")
    assert_clean(page, watcher)


def test_the_timeline_replays_without_the_server(page, streamlit_server) -> None:
    watcher = open_app(page, f"{streamlit_server}{PATH}")
    frame = timeline_frame(page)
    calls = frame.locator(".calls li")
    total, runs = calls.count(), len(watcher.finished)
    frame.locator(".play").click()
    poll(page, lambda: 0 < frame.locator(".calls li:not(.hidden)").count() < total, "a replay")
    poll(
        page,
        lambda: frame.locator(".calls li:not(.hidden)").count() == total,
        "the end",
        timeout_ms=total * 650 + 5_000,
    )
    poll(page, lambda: frame.locator(".play").inner_text().startswith("▶"), "the replay's end")
    assert len(watcher.finished) == runs, "the replay asked the server for a rerun"


def open_tab(page) -> str:
    """The label of the selected tab."""
    return page.get_by_role("tab", selected=True).inner_text().strip()


def focused_tab(page) -> str:
    """The label of the tab that has the keyboard focus ("" if the focus is not on a tab)."""
    return page.evaluate(
        "() => document.activeElement?.getAttribute('role') === 'tab'"
        " ? document.activeElement.innerText.trim() : ''"
    )


def test_a_tab_opens_its_section_and_the_link_keeps_it(page, streamlit_server) -> None:
    """The sections are tabs, drawn when opened: the keyboard moves along them and keeps its
    focus through each rerun (the timeline and its chart leave the page), a click opens one, the
    address bar holds the open tab, a reload opens it again, and γ still moves the section on
    show."""
    watcher = open_app(page, f"{streamlit_server}{PATH}")
    wait_for_charts(page)
    assert open_tab(page) == DECODE_SECTIONS["calls"] and "section" not in link_params(page.url)
    assert page.locator(CHARTS).count() == 3 and page.locator(TIMELINE).count() == 1
    page.get_by_role("tab", name=DECODE_SECTIONS["calls"]).focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")  # the next tab: focused and opened
    alpha = page.locator(".st-key-dec-chart-alpha")
    poll(page, lambda: alpha.locator("svg, canvas").count() > 0, "the α chart")
    assert page.locator(CHARTS).count() == 3 and page.locator(TIMELINE).count() == 0
    assert link_params(page.url)["section"] == "pays"
    # On a busy machine Streamlit disabled the tab for a moment in the rerun, and the focus fell
    # to the page (specviz/ui/tab_focus.js gives it back): the next press went nowhere.
    assert focused_tab(page) == DECODE_SECTIONS["pays"]
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    poll(page, lambda: page.locator(".st-key-dec-check td").count() > 0, "the check's table")
    assert link_params(page.url)["section"] == "theory"
    assert focused_tab(page) == DECODE_SECTIONS["theory"]
    watcher = open_app(page, page.url)  # a reload: the address bar restores the tab
    wait_for_charts(page)
    assert open_tab(page) == DECODE_SECTIONS["theory"] and page.locator(CHARTS).count() == 4
    with rerun_waiter(page):
        slider(page, GAMMA_LABEL).focus()
        page.keyboard.press("ArrowRight")
    assert link_params(page.url)["gamma"] == "5" and link_params(page.url)["section"] == "theory"
    assert open_tab(page) == DECODE_SECTIONS["theory"]
    assert page.locator(TIMELINE).count() == 0
    with rerun_waiter(page):
        page.get_by_role("tab", name=DECODE_SECTIONS["calls"]).click()
    poll(page, lambda: page.locator(TIMELINE).count() == 1, "the timeline")
    assert "section" not in link_params(page.url)  # the first tab: left out of the link
    assert_clean(page, watcher)


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1920x1080", "1280x720"])
def test_projector_shows_gamma_and_its_chart_without_scrolling(
    browser, streamlit_server, screenshot_dir, size
) -> None:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        watch_stream(page)
        watcher = open_app(page, f"{streamlit_server}{PATH}?projector=1")
        wait_for_charts(page)
        assert_clean(page, watcher)
        for name, box in (
            ("the γ slider", slider(page, GAMMA_LABEL).bounding_box()),
            ("the γ chart", page.locator(CHART).bounding_box()),
        ):
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (name, box)
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (name, box)
        page.screenshot(path=screenshot_dir / f"many_words_projector_{width}x{height}.png")
        with rerun_waiter(page):
            page.get_by_role("tab", name=DECODE_SECTIONS["theory"]).click()
        cell = page.locator(".st-key-dec-check td").first
        assert float(cell.evaluate("c => parseFloat(getComputedStyle(c).fontSize)")) >= 20
    finally:
        context.close()


@pytest.mark.parametrize(
    ("viewport", "query"),
    [
        ((1280, 800), {}),
        ((390, 844), {"pair": "yours", "section": "theory"}),
        ((1280, 800), {"projector": "1", "section": "theory"}),
        ((390, 844), {"section": "pays"}),
    ],
    ids=["laptop", "phone-yours-theory", "projector-theory", "phone-pays"],
)
def test_charts_fit_their_column(browser, streamlit_server, viewport, query) -> None:
    """Every chart (title, legend and plot) is drawn inside the page: none sticks out of its
    column, none makes the page scroll sideways (each section is a tab: charts of two)."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    try:
        page = context.new_page()
        watch_stream(page)
        open_app(page, f"{streamlit_server}{PATH}?{urlencode(query)}")
        wait_for_charts(page)
        boxes = page.get_by_test_id("stVegaLiteChart").evaluate_all(
            "charts => charts.map(c => [c.getBoundingClientRect(), c.querySelector('canvas, "
            "svg').getBoundingClientRect()].map(r => [r.left, r.right]))"
        )
        assert len(boxes) == {"calls": 3, "pays": 3, "theory": 4}[query.get("section", "calls")]
        for (left, right), (inner_left, inner_right) in boxes:
            assert inner_left >= left - 1 and inner_right <= right + 1
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= viewport[0] + 1
    finally:
        context.close()


SHOTS = {
    "laptop": ({"width": 1280, "height": 800}, {}),
    "phone": ({"width": 390, "height": 844}, {}),
    "weak_expensive": ({"width": 1280, "height": 800}, {"pair": "weak", "c": "0.5"}),
    "yours_projector": ({"width": 1920, "height": 1080}, {"pair": "yours", "projector": "1"}),
}


@pytest.mark.parametrize("name", list(SHOTS))
def test_screenshots(browser, streamlit_server, screenshot_dir, name) -> None:
    viewport, query = SHOTS[name]
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        watch_stream(page)
        watcher = open_app(page, f"{streamlit_server}{PATH}?{urlencode(query)}")
        wait_for_charts(page)
        assert_clean(page, watcher)
        page.screenshot(path=screenshot_dir / f"many_words_{name}.png")
        # The whole page: a viewport as tall as the page (Streamlit scrolls an inner element).
        tall = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
        page.set_viewport_size({"width": viewport["width"], "height": min(tall + 80, 8000)})
        page.wait_for_timeout(500)
        page.screenshot(path=screenshot_dir / f"many_words_{name}_full.png")
    finally:
        context.close()


@pytest.mark.parametrize("query", [{"projector": "1"}, {}], ids=["projector", "laptop"])
def test_a_help_icon_sits_by_no_other_label(page, streamlit_server, query) -> None:
    """Streamlit puts a control's help icon at the right end of its column: the temperature's
    icon stood just left of "Words to write" and read as that control's help. Now no label
    starts within 120 px right of any help icon on the row."""
    page.set_viewport_size(
        {"width": 1920, "height": 1080} if query else {"width": 1280, "height": 800}
    )
    watcher = open_app(page, f"{streamlit_server}{PATH}?{urlencode({'pair': 'weak', **query})}")
    assert_clean(page, watcher)
    row = page.get_by_test_id("stHorizontalBlock").filter(has_text="Temperature of both models")
    icons = row.last.get_by_test_id("stSlider").get_by_test_id("stTooltipIcon")  # not a button's
    labels = row.last.get_by_test_id("stWidgetLabel")
    assert icons.count() == 1 and labels.count() == 2
    icon = icons.first.bounding_box()
    for i in range(labels.count()):
        box = labels.nth(i).bounding_box()
        gap = box["x"] - (icon["x"] + icon["width"])
        overlaps = box["y"] < icon["y"] + icon["height"] and icon["y"] < box["y"] + box["height"]
        assert not (overlaps and 0 <= gap < 120), f"a label starts {gap:.0f} px right of the icon"
