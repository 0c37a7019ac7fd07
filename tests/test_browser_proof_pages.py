"""The pages "Why it's exact", "Is it just rejection sampling?" and "Variants lab" in Chromium:
deep links with their settings, a control moved from the keyboard (the address bar follows),
and the predict-then-reveal flow. Every seat (the fold on a projector, nothing wider than a
phone) and the screenshots: tests/test_browser_seats.py, from the visits of tests/visits.py.

Run one file at a time (2 cores): ``pytest tests/test_browser_proof_pages.py -q``.
"""

from __future__ import annotations

import pytest
from streamlit_server import (
    REPO_ROOT,
    assert_clean,
    link_params,
    open_app,
    page_url,
    rerun_waiter,
    wait_for_charts,
)

pytestmark = pytest.mark.browser

WHY = REPO_ROOT / "pages" / "6_Why_its_exact.py"
REJECTION = REPO_ROOT / "pages" / "7_Rejection_sampling.py"
LAB = REPO_ROOT / "pages" / "8_Variants_lab.py"


def main_text(page) -> str:
    return page.get_by_test_id("stMain").inner_text()


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
    # Only the leak's part ran: it redrew the sidebar's share link, once.
    shared = page.locator(".st-key-share code")
    assert shared.count() == 1 and "leak=1e10" in shared.inner_text()
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
    said = alert.inner_text()
    assert "Right: “Yes, exactly 10% of the time”." in said and "0% + 10% = 10%" in said
    assert said.count("exactly 10%") == 1  # the answer once, not again in the why
    assert page.get_by_test_id("stVegaLiteChart").count() == charts_before + 1
    assert "guess" not in page.url  # the answer is not in the share link
    assert page.locator(".st-key-share code").count() == 1
    assert_clean(page, watcher)


def test_why_the_way_on_looks_like_a_link(page, streamlit_server) -> None:
    """The link to "Many words per call" is drawn in a link's colour, not the text's, with an
    arrow, and takes the learner there."""
    watcher = open_app(page, page_url(streamlit_server, WHY))
    link = page.get_by_test_id("stPageLink").filter(has_text="See it run")
    assert link.inner_text().strip().endswith("See it run: open Many words per call")
    colour = link.locator("a p span").first.evaluate("e => getComputedStyle(e).color")
    body = page.get_by_test_id("stMarkdownContainer").first.evaluate(
        "e => getComputedStyle(e).color"
    )
    assert colour != body
    assert link.locator("a").get_attribute("href").endswith("Many_words_per_call")
    with rerun_waiter(page):
        link.click()
    page.wait_for_function("() => location.pathname.endsWith('Many_words_per_call')")
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
    assert page.get_by_role("radio", name="Keep plausible guesses (Medusa)").is_checked()
    slider = main.get_by_role("slider", name="Draft candidates k (SpecInfer)")
    assert slider.get_attribute("aria-valuetext") == "5"
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowRight")
    assert slider.get_attribute("aria-valuetext") == "6"
    page.wait_for_function("() => location.search.includes('k=6')")
    checked = page.get_by_role("radio", name="Keep plausible guesses (Medusa)")
    checked.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowLeft")
    assert page.get_by_role("radio", name="Several draft candidates (SpecInfer)").is_checked()
    page.wait_for_function("() => location.search.includes('variant=multi_candidate')")
    q = link_params(page.url)
    assert (q["k"], q["eps"], q["delta"]) == ("6", "0.2", "0.55")
    assert "✓ passes" in main_text(page)
    assert_clean(page, watcher)
