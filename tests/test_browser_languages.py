"""Every page in each of SpecViz's languages, in Chromium: what the browser draws holds no English
sentence and fits its charts on a projector, the document declares its language (a screen reader
picks its voice by it), a link without ``lang`` follows the browser's language, and the sidebar's
choice travels in the link and from page to page."""

from __future__ import annotations

import re

import pytest
from streamlit_server import (
    REPO_ROOT,
    assert_clean,
    key_class,
    link_params,
    open_app,
    page_id,
    page_url,
    rerun_waiter,
)
from test_languages import CODE, ENGLISH, KEPT, TRANSLATED
from visits import CLIPPED_TEXTS

from specviz.scenario import PROMPT
from specviz.ui.page import PAGES
from specviz.ui.state import DOCUMENT_LANGUAGE

pytestmark = pytest.mark.browser

#: Every text node of the page, the live views' and the timeline's (in shadow roots) and the
#: player's (in its iframe) too, but style sheets and scripts.
DRAWN = """() => {
  const texts = [];
  const walk = (root) => {
    const nodes = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = nodes.currentNode; n; n = nodes.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        if (!n.parentElement?.closest("style, script, noscript, template")) texts.push(n.data);
      } else {
        if (n.shadowRoot) walk(n.shadowRoot);
        if (n.tagName === "IFRAME" && n.contentDocument) walk(n.contentDocument);
      }
    }
  };
  walk(document);
  return texts;
}"""


def declares(page, language: str) -> None:
    """The document comes to declare ``language`` (the share link's script sets it once it is
    mounted, which on a busy machine is a moment after the page is drawn)."""
    page.wait_for_function(f"document.documentElement.lang === {language!r}", timeout=10_000)


def english_in(texts: list[str]) -> list[str]:
    """The English sentences left in ``texts`` (but the toy corpus's prompt, its words in quotes,
    and a word alone: the corpus's, or a name)."""
    found = []
    for text in texts:
        left = KEPT.sub(" ", CODE.sub(" ", text.replace(PROMPT, " ")))
        if len(re.findall(r"[A-Za-z]+", left)) > 1 and ENGLISH.search(left):
            found.append(" ".join(left.split())[:140])
    return found


@pytest.mark.parametrize("info", PAGES, ids=lambda info: page_id(REPO_ROOT / info.script))
@pytest.mark.parametrize("language", TRANSLATED)
def test_every_page_is_drawn_in_the_language_of_its_link(
    page, streamlit_server, language, info
) -> None:
    """On a 1280 px projector, whose side columns are the narrowest a chart is drawn in: what it
    draws is in the link's language, and no chart's text runs past its edge (a language's words
    are longer or shorter than English's)."""
    url = f"{page_url(streamlit_server, REPO_ROOT / info.script)}?lang={language}&projector=1"
    watcher = open_app(page, url)
    page.wait_for_timeout(500)  # the views draw their text after the run
    assert_clean(page, watcher)
    declares(page, DOCUMENT_LANGUAGE[language])
    left = english_in(page.evaluate(DRAWN))
    assert not left, "\n".join(left[:20])
    clipped = page.evaluate(CLIPPED_TEXTS)
    assert not clipped, "; ".join(clipped)


def test_a_link_without_a_language_opens_in_the_browsers(browser, streamlit_server) -> None:
    context = browser.new_context(locale="es-AR", viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        open_app(page, page_url(streamlit_server, REPO_ROOT / PAGES[1].script))
        declares(page, "es")
        page.wait_for_url(re.compile(r"[?&]lang=es(&|$)"))
        shown = page.locator(f".{key_class('ui.lang')} input").evaluate(
            "i => i.value || i.placeholder"
        )
        assert shown == "Español"
    finally:
        context.close()


def test_the_sidebars_choice_travels_in_the_link_and_to_the_next_page(
    page, streamlit_server
) -> None:
    open_app(page, page_url(streamlit_server, REPO_ROOT / PAGES[1].script) + "?lang=en")
    page.locator(f".{key_class('ui.lang')} input").click()
    with rerun_waiter(page):
        page.get_by_role("option", name="简体中文").click()
    declares(page, "zh-Hans")
    assert link_params(page.url)["lang"] == "zh"
    with rerun_waiter(page):
        page.get_by_test_id("stSidebar").locator("a[href*='Monte_Carlo']").first.click()
    page.wait_for_url(re.compile("Monte_Carlo"))
    assert link_params(page.url)["lang"] == "zh"
    declares(page, "zh-Hans")
    assert not english_in(page.evaluate(DRAWN))


def test_a_change_inside_a_part_of_the_page_keeps_its_language(page, streamlit_server) -> None:
    """Monte Carlo's runs rerun only their part of the page, in a script thread of their own,
    after the page's setup has run: it still speaks the session's language."""
    open_app(page, page_url(streamlit_server, REPO_ROOT / PAGES[3].script) + "?lang=es")
    slider = page.get_by_test_id("stMain").get_by_role("slider").first
    slider.focus()
    with rerun_waiter(page):
        page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(300)
    assert not english_in(page.evaluate(DRAWN))
    assert "Ejecuta el muestreo especulativo" in page.get_by_test_id("stMain").inner_text()
