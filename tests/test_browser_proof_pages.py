"""The pages "Why it's exact", "Is it just rejection sampling?" and "Variants lab" in Chromium:
deep links with their settings, a control moved from the keyboard (the address bar follows),
the predict-then-reveal flow, projector mode at 1280×720 showing the page's main control and its
chart without scrolling, and screenshots for a human to judge (tests/screenshots/why_*.png,
rejection_*.png, variants_*.png: 1280×800, projector 1920×1080 and 1280×720, phone 390 px).

Run one file at a time (2 cores): ``pytest tests/test_browser_proof_pages.py -q``.
"""

from __future__ import annotations

from pathlib import Path

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
    watch_stream,
)

pytestmark = pytest.mark.browser

WHY = REPO_ROOT / "pages" / "6_Why_its_exact.py"
REJECTION = REPO_ROOT / "pages" / "7_Rejection_sampling.py"
LAB = REPO_ROOT / "pages" / "8_Variants_lab.py"

#: page -> (its main control, the chart it moves), as Streamlit's st-key-... classes.
FOLD = {
    WHY: (".st-key-w-case", ".st-key-why-chart-proof"),
    REJECTION: (".st-key-w-runs", ".st-key-rs-chart-proposals"),
    LAB: (".st-key-w-variant", ".st-key-lab-chart-variant"),
}
SHOT = {WHY: "why", REJECTION: "rejection", LAB: "variants"}
VIEWS = {
    "": (1280, 800, False),
    "_projector_1920": (1920, 1080, True),
    "_projector_720": (1280, 720, True),
    "_phone": (390, 844, False),
}


def main_text(page) -> str:
    return page.get_by_test_id("stMain").inner_text()


def open_at(browser, url: str, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    watcher = watch_stream(page)
    open_app(page, url)
    wait_for_charts(page)
    page.wait_for_timeout(500)  # Vega redraws a moment after the run
    return context, page, watcher


def shoot_whole(page, path: Path, width: int) -> None:
    """The whole page: grow the viewport to the main area's height (Streamlit scrolls an inner
    container), wait for the charts, shoot."""
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": width, "height": int(height) + 40})
    wait_for_render(page)
    wait_for_charts(page)
    page.wait_for_timeout(600)
    page.screenshot(path=path)


# ================================================================== every page, every view


@pytest.mark.parametrize("view", list(VIEWS), ids=lambda v: v.strip("_") or "desktop")
@pytest.mark.parametrize("script", list(FOLD), ids=lambda s: SHOT[s])
def test_views_and_screenshots(browser, streamlit_server, screenshot_dir, script, view) -> None:
    width, height, projector = VIEWS[view]
    url = page_url(streamlit_server, script) + ("?projector=1" if projector else "")
    context, page, watcher = open_at(browser, url, width, height)
    try:
        assert_clean(page, watcher)
        # Nothing wider than the screen: the page itself never scrolls sideways.
        overflow = page.evaluate(
            "() => document.querySelector('[data-testid=stMain]').scrollWidth - innerWidth"
        )
        assert overflow <= 1, f"{SHOT[script]}{view}: {overflow}px wider than the screen"
        shoot_whole(page, screenshot_dir / f"{SHOT[script]}{view}.png", width)
    finally:
        context.close()


@pytest.mark.parametrize("script", list(FOLD), ids=lambda s: SHOT[s])
def test_projector_720_shows_the_control_and_its_chart(browser, streamlit_server, script) -> None:
    """A 1280×720 projector: the page's main control and the chart it moves, whole, on the first
    screen — the lecturer never scrolls between them."""
    url = page_url(streamlit_server, script) + "?projector=1"
    context, page, watcher = open_at(browser, url, 1280, 720)
    try:
        assert_clean(page, watcher)
        for selector in FOLD[script]:
            box = page.locator(selector).first.bounding_box()
            assert box is not None, f"{selector} is not on the page"
            assert box["y"] >= 0 and box["y"] + box["height"] <= 720, (selector, box)
            assert box["x"] >= 0 and box["x"] + box["width"] <= 1280, (selector, box)
    finally:
        context.close()


# =================================================================== Why it's exact


def test_why_deep_link_and_keyboard(page, streamlit_server) -> None:
    url = page_url(streamlit_server, WHY) + "?case=misses&leak=1e9&seed=3"
    watcher = open_app(page, url)
    wait_for_charts(page)
    assert_clean(page, watcher)
    main = page.get_by_test_id("stMain")
    assert page.get_by_role("radio", name="Draft misses a word").is_checked()
    assert "never proposed" in main_text(page)
    slider = main.get_by_role("slider", name="Runs of the filter case above")
    assert slider.get_attribute("aria-valuetext") == "1 billion"
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    assert slider.get_attribute("aria-valuetext") == "10 billion"
    page.wait_for_function("() => location.search.includes('leak=1e10')")
    # The case, from the keyboard: the next option.
    checked = page.get_by_role("radio", name="Draft misses a word")
    checked.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    assert page.get_by_role("radio", name="Identical").is_checked()
    page.wait_for_function("() => location.search.includes('case=identical')")
    assert link_params(page.url)["seed"] == "3" and link_params(page.url)["p"] == "40,30,20,10"
    assert "A rejection never happens here" in main_text(page)
    assert_clean(page, watcher)


def test_why_predict_then_reveal(page, streamlit_server) -> None:
    watcher = open_app(page, page_url(streamlit_server, WHY))
    wait_for_charts(page)
    question = page.locator(".st-key-guess-missing")
    assert question.get_by_role("radio", checked=True).count() == 0
    assert page.locator(".st-key-why-q-missing").count() == 0
    charts_before = page.get_by_test_id("stVegaLiteChart").count()
    with rerun_waiter(page):
        question.get_by_text("Yes, exactly 10% of the time").click()
    wait_for_charts(page)
    alert = page.get_by_test_id("stAlertContentSuccess")
    assert "Right." in alert.inner_text() and "0% + 10% = 10%" in alert.inner_text()
    assert page.get_by_test_id("stVegaLiteChart").count() == charts_before + 1
    assert "guess" not in page.url  # the answer is not in the share link
    assert_clean(page, watcher)


def test_why_bad_link_shows_a_notice(page, streamlit_server) -> None:
    watcher = open_app(page, page_url(streamlit_server, WHY) + "?case=nope&leak=1e99")
    assert_clean(page, watcher)
    notice = page.get_by_test_id("stAlertContentWarning").first.inner_text()
    assert "'case'" in notice and "'leak'" in notice
    assert link_params(page.url)["case"] == "yours" and link_params(page.url)["leak"] == "1e12"


# ========================================================= Is it just rejection sampling?


def test_rejection_deep_link_and_keyboard(page, streamlit_server) -> None:
    url = page_url(streamlit_server, REJECTION) + "?runs=100k&q=50,30,20,0"
    watcher = open_app(page, url)
    wait_for_charts(page)
    assert_clean(page, watcher)
    assert "cannot run here" in main_text(page)
    slider = page.get_by_test_id("stMain").get_by_role("slider", name="Words each sampler writes")
    assert slider.get_attribute("aria-valuetext") == "100k"
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowLeft")
    assert slider.get_attribute("aria-valuetext") == "10k"
    page.wait_for_function("() => location.search.includes('runs=10k')")
    assert link_params(page.url)["q"] == "50,30,20,0"
    assert_clean(page, watcher)


# ============================================================================ Variants lab


def test_lab_deep_link_and_keyboard(page, streamlit_server) -> None:
    url = page_url(streamlit_server, LAB) + "?variant=typical_acceptance&k=5&eps=0.2&delta=0.55"
    watcher = open_app(page, url)
    wait_for_charts(page)
    assert_clean(page, watcher)
    main = page.get_by_test_id("stMain")
    assert page.get_by_role("radio", name="Typical acceptance (Medusa)").is_checked()
    slider = main.get_by_role("slider", name="Draft candidates k (SpecInfer)")
    assert slider.get_attribute("aria-valuetext") == "5"
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    assert slider.get_attribute("aria-valuetext") == "6"
    page.wait_for_function("() => location.search.includes('k=6')")
    checked = page.get_by_role("radio", name="Typical acceptance (Medusa)")
    checked.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowLeft")
    assert page.get_by_role("radio", name="Several draft candidates (SpecInfer)").is_checked()
    page.wait_for_function("() => location.search.includes('variant=multi_candidate')")
    q = link_params(page.url)
    assert (q["k"], q["eps"], q["delta"]) == ("6", "0.2", "0.55")
    assert "✓ passes" in main_text(page)
    assert_clean(page, watcher)
