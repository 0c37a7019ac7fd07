"""The Playground in Chromium: a shared link restores its state, the keyboard moves a weight and
every chart and the address bar follow, the charts glide between states, every chart's text can
be read (nothing cut off, hidden or drawn on top of other text), and screenshots in normal and
projector mode (tests/screenshots/playground_*.png) to look at.

Run one at a time (2 cores: Chromium is the bottleneck). Skip with `-m "not browser"`.
"""

from __future__ import annotations

import re
import time
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

pytestmark = pytest.mark.browser

TALL = {"width": 1280, "height": 2400}  # the whole page in one screenshot
BAR = re.compile(r"M([\d.]+),([\d.]+)V([\d.]+)H([\d.]+)V([\d.]+)Z")


# --------------------------------------------------------------------------- reading the page


def metric(page, label: str) -> str:
    box = page.get_by_test_id("stMetric").filter(has_text=label)
    return box.get_by_test_id("stMetricValue").inner_text().strip()


def slider(page, label: str):
    """A slider by its label. Streamlit 1.67 names the range input by aria-labelledby pointing at
    both itself (aria-label) and the visible label, so the accessible name is the label twice."""
    name = re.escape(label)
    return page.get_by_role("slider", name=re.compile(rf"^{name}(?: {name})?$"))


def bar_paths(page, chart: int = 0) -> list[str]:
    """The `d` of every bar of one chart (0: p vs q, 1: acceptance, 2: bucket, 3: proof)."""
    charts = page.get_by_test_id("stPlotlyChart")
    return (
        charts.nth(chart)
        .locator(".js-plotly-plot .bars path")
        .evaluate_all("paths => paths.map(p => p.getAttribute('d'))")
    )


def bar_heights(paths: list[str]) -> list[float]:
    """Pixel heights of vertical bars drawn as M x,base V top H x2 V base Z."""
    heights = []
    for d in paths:
        match = BAR.fullmatch(d)
        assert match, f"not a bar path: {d!r}"
        heights.append(float(match.group(2)) - float(match.group(3)))
    return heights


def tick_texts(page, chart: int = 0) -> list[str]:
    charts = page.get_by_test_id("stPlotlyChart")
    return (
        charts.nth(chart)
        .locator(".xtick text")
        .evaluate_all("nodes => nodes.map(n => n.textContent)")
    )


# --------------------------------------------------------------------------- a shared link


SHARED = {
    "words": "tea,milk,juice,water,soda",
    "p": "50,20,10,10,10",
    "q": "20,20,20,20,20",
    "seed": "3",
}


def test_shared_link_restores_the_state_on_a_fresh_server(page, fresh_streamlit_server) -> None:
    """The first visit after a server start is the shared link itself."""
    watcher = open_app(page, f"{fresh_streamlit_server}/Playground?{urlencode(SHARED)}")
    wait_for_charts(page)
    assert_clean(page, watcher)
    assert page.get_by_test_id("stAlertContainer").filter(has_text="link had problems").count() == 0

    # α = .2 + .2 + .1 + .1 + .1 (min of the normalised weights), worked out by hand.
    assert metric(page, "Acceptance α") == "70%"
    assert metric(page, "Bucket Z") == "30%"

    words = SHARED["words"].split(",")
    for word, p, q in zip(words, SHARED["p"].split(","), SHARED["q"].split(","), strict=True):
        for name, weight in ((f"target p weight of {word}", p), (f"draft q weight of {word}", q)):
            thumb = slider(page, name)
            assert thumb.input_value() == weight, name
            assert thumb.get_attribute("aria-valuetext") == weight, name
    shown_words = [page.get_by_label(f"Word {i + 1}", exact=True).input_value() for i in range(5)]
    assert shown_words == words
    assert [t.split("▼")[0].split("▲")[0].split("=")[0].strip() for t in tick_texts(page)] == words
    assert tick_texts(page, 1) == words
    assert slider(page, "Words in the vocabulary").input_value() == "5"
    assert page.get_by_test_id("stSidebar").locator("input[type=number]").input_value() == "3"

    # Bars are drawn to scale: target bars 50:20:10:10:10, all draft bars equal.
    heights = bar_heights(bar_paths(page))
    target, draft = heights[:5], heights[5:]
    assert target[0] == pytest.approx(5 * target[2], rel=0.02)
    assert target[1] == pytest.approx(2 * target[2], rel=0.02)
    assert max(draft) == pytest.approx(min(draft), rel=0.01)
    assert link_params(page.url) == {**SHARED, "gamma": "4"}  # the page adds its own setting


# --------------------------------------------------------------------------- the keyboard


def test_keyboard_moves_a_weight_and_everything_follows(page, streamlit_server) -> None:
    watcher = open_app(page, f"{streamlit_server}/Playground")
    wait_for_charts(page)
    assert metric(page, "Acceptance α") == "60%"
    before = {chart: bar_paths(page, chart) for chart in range(4)}

    thumb = slider(page, "target p weight of mat")
    thumb.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    # p = (41, 30, 20, 10)/101, q = (10, 20, 30, 40)/100: α = .1 + .2 + 30/101 = 59.7%.
    poll(page, lambda: metric(page, "Acceptance α") == "59.7%", "α to become 59.7%")
    assert metric(page, "Bucket Z") == "40.3%"
    poll(page, lambda: bar_paths(page, 0) != before[0], "the p-vs-q bars to move")
    poll(page, lambda: bar_paths(page, 3) != before[3], "the proof bars to move")
    assert thumb.input_value() == "41"
    target = bar_heights(bar_paths(page, 0))[:4]
    assert target[0] == pytest.approx(41 / 10 * target[3], rel=0.02)
    assert link_params(page.url)["p"] == "41,30,20,10", page.url

    # PageUp on a draft weight: a bigger step, the same story.
    draft = slider(page, "draft q weight of bed")
    draft.focus()
    before = bar_paths(page, 1)
    with rerun_waiter(page):
        page.keyboard.press("PageUp")
    moved = int(draft.input_value())
    assert moved > 40
    assert link_params(page.url)["q"] == f"10,20,30,{moved}", page.url
    poll(page, lambda: bar_paths(page, 1) != before, "the acceptance bars to move")
    assert_clean(page, watcher)


def _flow_heights(page) -> list[float] | None:
    """Height in px of the first word's "kept" bar in the animated flow view, if it is there."""
    for frame in page.frames:
        if frame is page.main_frame:
            continue
        try:
            height = frame.evaluate(
                "() => { const el = document.querySelector('.part.kept');"
                " return el ? el.getBoundingClientRect().height : null; }"
            )
        except Exception:  # a frame being replaced by the rerun
            continue
        if height is not None:
            return height
    return None


def test_flow_view_glides_between_states(page, streamlit_server) -> None:
    """st.plotly_chart remounts a chart on new data (its React key hashes the spec), so Plotly's
    transitions never run; the flow view animates from the state it drew last. After a key
    press the first word's kept bar must pass through heights between the old and the new."""
    open_app(page, f"{streamlit_server}/Playground")
    start = poll(page, lambda: _flow_heights(page), "the flow view to draw")
    slider(page, "target p weight of mat").focus()
    with rerun_waiter(page, settle=False):
        page.keyboard.press("Home")  # p(mat) 40 -> 0: min(p, q) for mat falls from 10% to 0
    seen: list[float] = []
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        height = _flow_heights(page)
        if height is not None:
            seen.append(height)
            if height < 0.5 and len(seen) > 3:
                break
        page.wait_for_timeout(15)
    assert seen and seen[-1] < 0.5, f"the bar did not fall to 0 (saw {seen[-5:]})"
    between = [h for h in seen if 0.5 < h < start - 0.5]
    assert between, f"the bar jumped from {start:.1f} px to 0 with nothing in between: {seen}"


# --------------------------------------------------------------------------- screenshots


def _open_tall(browser, url: str):
    context = browser.new_context(viewport=TALL)
    page = context.new_page()
    page.set_default_timeout(30_000)
    watcher = watch_stream(page)
    open_app(page, url)
    wait_for_charts(page)
    page.wait_for_timeout(300)  # let plotly finish its first layout pass
    return context, page, watcher


def _tick_font_px(page) -> float:
    size = page.locator(".js-plotly-plot .xtick text").first.evaluate(
        "t => getComputedStyle(t).fontSize"
    )
    return float(size.removesuffix("px"))


SHOTS = {
    "default": {},
    "long_tail": {
        "words": "mat,sofa,floor,bed,rug,chair,roof,table,box,keyboard",
        "p": "100,50,33,25,20,17,14,13,11,10",
        "q": "100,35,16,9,6,4,3,2,1,1",
    },
}


@pytest.mark.parametrize("state", list(SHOTS))
def test_screenshots_normal_and_projector(browser, streamlit_server, screenshot_dir, state) -> None:
    sizes = {}
    for mode, extra in (("normal", {}), ("projector", {"projector": "1"})):
        url = f"{streamlit_server}/Playground?{urlencode(SHOTS[state] | extra)}"
        context, page, watcher = _open_tall(browser, url)
        try:
            assert_clean(page, watcher)
            assert page.get_by_test_id("stPlotlyChart").count() == 4
            sizes[mode] = _tick_font_px(page)
            page.screenshot(path=screenshot_dir / f"playground_{state}_{mode}.png")
            # One picture per chart; in projector mode each is in a tab of its own.
            charts = page.get_by_test_id("stPlotlyChart")
            tabs = ("Target vs draft", "Acceptance", "Bucket", "Why it is exact")
            for i, chart in enumerate(("dist", "accept", "bucket", "proof")):
                if mode == "projector":
                    page.get_by_role("tab", name=tabs[i]).click()
                    page.wait_for_timeout(400)
                path = screenshot_dir / f"playground_{state}_{mode}_{chart}.png"
                charts.nth(i).screenshot(path=path)
        finally:
            context.close()
    assert sizes["projector"] > sizes["normal"], sizes


# --------------------------------------------------------------------------- legibility

_TEXT_LAYOUT = """chart => {
  const svg = chart.querySelector('.main-svg').getBoundingClientRect();
  const box = el => {
    const r = el.getBoundingClientRect();
    return {left: r.left - svg.left, right: r.right - svg.left, top: r.top - svg.top,
            bottom: r.bottom - svg.top};
  };
  const shown = el => getComputedStyle(el).display !== 'none' && el.textContent.trim() !== '';
  const labels = sel => Array.from(chart.querySelectorAll(sel)).filter(shown)
    .map(el => ({text: el.textContent, ...box(el)}));
  return {
    width: svg.width,
    height: svg.height,
    title: labels('.gtitle')[0],
    legend: labels('.legend .traces'),
    ticks: Array.from(chart.querySelectorAll('.xtick text'))
      .map(el => ({text: el.textContent, hidden: !shown(el), ...box(el)})),
    labels: labels('.scatterlayer .textpoint text, .barlayer .bartext, .xtick text'),
  };
}"""


def _overlap(a: dict, b: dict, slack: float = 1.0) -> bool:
    return (
        a["left"] < b["right"] - slack
        and b["left"] < a["right"] - slack
        and a["top"] < b["bottom"] - slack
        and b["top"] < a["bottom"] - slack
    )


def text_problems(page, words: list[str]) -> list[str]:
    """What a reader of each chart would miss: unlabelled words, text cut at the chart's edge,
    a legend drawn over the title, labels drawn over each other."""
    problems = []
    names = ("p vs q", "acceptance", "bucket", "proof")
    charts = page.get_by_test_id("stPlotlyChart")
    for i, name in enumerate(names):
        layout = charts.nth(i).evaluate(_TEXT_LAYOUT)
        width = layout["width"]
        for word, tick in zip(words, layout["ticks"], strict=False):
            if tick["hidden"] or tick["left"] < -1 or tick["right"] > width + 1:
                problems.append(f"{name}: the word {word!r} has no visible label")
        if len(layout["ticks"]) != len(words):
            problems.append(f"{name}: {len(layout['ticks'])} tick labels for {len(words)} words")
        title = layout["title"]
        if title["right"] > width + 1:
            problems.append(
                f"{name}: the title is cut off ({title['right']:.0f} px wide, chart "
                f"{width:.0f} px): {title['text']!r}"
            )
        for item in layout["legend"]:
            if _overlap(item, title):
                problems.append(f"{name}: the legend entry {item['text']!r} overlaps the title")
        labels = layout["labels"]
        for k, a in enumerate(labels):
            for b in labels[k + 1 :]:
                if _overlap(a, b):
                    problems.append(f"{name}: {a['text']!r} is drawn over {b['text']!r}")
    return problems


@pytest.mark.parametrize("mode", ["normal", "projector"])
@pytest.mark.parametrize("state", list(SHOTS))
def test_chart_text_is_not_cut_hidden_or_stacked(page, streamlit_server, state, mode) -> None:
    """At 1280 px wide, the size of a lecture-hall projector or a laptop."""
    query = SHOTS[state] | ({"projector": "1"} if mode == "projector" else {})
    watcher = open_app(page, f"{streamlit_server}/Playground?{urlencode(query)}")
    wait_for_charts(page)
    page.wait_for_timeout(300)  # let plotly finish its first layout pass
    assert_clean(page, watcher)
    words = (SHOTS[state].get("words") or "mat,sofa,floor,bed").split(",")
    problems = text_problems(page, words)
    assert not problems, "\n".join(problems)
