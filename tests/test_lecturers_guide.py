"""The lecturer's guide: the same text in the repository and in the app, and every link in it
opens its page in the state the step describes — no notice, no error, projector mode on."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlparse

import pytest
from helpers import REPO, all_text, open_page, query
from streamlit_server import page_scripts, page_url_path

pytestmark = pytest.mark.slow  # the app under AppTest

GUIDE = REPO / "docs" / "lecturers_guide.md"
LINKS = re.findall(r"\]\((\./[^)]*)\)", GUIDE.read_text(encoding="utf-8"))
SCRIPTS = {page_url_path(s): f"pages/{s.name}" for s in page_scripts()} | {"": "app.py"}


def test_the_page_shows_the_guide_as_written() -> None:
    at = open_page("pages/10_For_lecturers.py")
    text = GUIDE.read_text(encoding="utf-8").strip()
    assert any(m.value.strip() == text for m in at.markdown)
    assert "15 minutes" in all_text(at)


def test_the_guide_links_every_learner_page() -> None:
    linked = {urlparse(link).path.strip("./") for link in LINKS}
    assert linked >= {"", "Playground", "One_draw", "Monte_Carlo", "Bug_zoo"}
    assert len(LINKS) >= 12


@pytest.mark.parametrize("link", LINKS)
def test_every_link_opens_its_step(link: str) -> None:
    parsed = urlparse(link)
    path = parsed.path.strip("./")
    assert path in SCRIPTS, f"{link} names no page"
    params = dict(parse_qsl(parsed.query))
    at = open_page(SCRIPTS[path], params)
    assert not at.warning, f"{link}: " + "; ".join(w.value for w in at.warning)
    assert not at.error, f"{link}: " + "; ".join(e.value for e in at.error)
    shown = query(at)
    assert shown.get("projector") == "1", f"{link} does not open in projector mode"
    for key, value in params.items():
        assert shown.get(key) == value, f"{link}: the page shows {key}={shown.get(key)}"
