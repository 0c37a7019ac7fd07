"""Shared fixtures: a Streamlit server, Chromium and a tall page. The helpers live in
``tests/streamlit_server.py`` so that tests and benchmarks can import them without pytest.

A new browser test needs nothing but these fixtures and two helpers:

    from streamlit_server import open_app, rerun_waiter

    @pytest.mark.browser
    def test_arrow_moves_slider(page, streamlit_server):
        open_app(page, f"{streamlit_server}/Playground")
        page.get_by_role("slider").first.focus()
        with rerun_waiter(page):
            page.keyboard.press("ArrowRight")
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `import streamlit_server` from any test

import streamlit_server as ss


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def _skip_or_fail(reason: str) -> None:
    """A missing browser skips browser tests locally; in CI (CI=true) it is a failure."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: browser tests must run)", pytrace=False)
    pytest.skip(reason)


# --------------------------------------------------------------------------- server


@pytest.fixture(scope="session")
def streamlit_app_server() -> Iterator[ss.StreamlitServer]:
    """The running server object (url, port, startup_seconds, output())."""
    server = ss.StreamlitServer()
    try:
        server.start()
    except ss.ServerStartError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def streamlit_server(streamlit_app_server: ss.StreamlitServer) -> str:
    """Base URL (http://127.0.0.1:PORT) of one `streamlit run app.py` shared by the session."""
    return streamlit_app_server.url


@pytest.fixture
def fresh_streamlit_server() -> Iterator[str]:
    """Base URL of a server started just for this test: the test's first visit is its first."""
    server = ss.StreamlitServer()
    try:
        server.start()
    except ss.ServerStartError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server.url
    finally:
        server.stop()


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def playwright_instance():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - requirements-dev.txt pins playwright
        _skip_or_fail(f"playwright is not installed ({exc})")
    pw = sync_playwright().start()
    try:
        yield pw
    finally:
        pw.stop()


@pytest.fixture(scope="session")
def browser(playwright_instance):
    """Debian's Chromium, headless, launched once per session."""
    executable = ss.find_chromium()
    if executable is None:
        _skip_or_fail("no chromium executable found on PATH (apt-get install -y chromium)")
    browser = ss.launch_chromium(playwright_instance, executable)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh context (its own Streamlit session) and page, 1280x1600, already watching the
    websocket so that `open_app` and `rerun_waiter` work."""
    context = browser.new_context(viewport=ss.VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    ss.watch_stream(page)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    ss.SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return ss.SCREENSHOT_DIR


@pytest.fixture(scope="session")
def axe_installed() -> Path:
    """axe-core from npm (tests/js); without it the accessibility tests skip, and fail in CI."""
    from a11y import NPM_INSTALL, axe_path

    path = axe_path()
    if path is None:
        _skip_or_fail(f"axe-core is not installed (run `{NPM_INSTALL}`)")
    return path


# Session-wide: under xdist a worker may run other modules' tests between two tests of one visit,
# and a module fixture would load the page again (tests/visits.py).
@pytest.fixture(scope="session")
def visits(screenshot_dir: Path) -> Iterator[dict]:
    """(page, seat) id -> its visit, made as the tests ask; the audits go to a JSON report."""
    found: dict = {}
    yield found
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    report = screenshot_dir / f"accessibility{'-' + worker if worker else ''}.json"
    audits = {
        key: repr(v) if isinstance(v, Exception) else [a.as_dict() for a in v.audits]
        for key, v in found.items()
    }
    report.write_text(json.dumps(audits, indent=1), encoding="utf-8")


# --------------------------------------------------------------------------- report


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not ss.TIMINGS:
        return
    terminalreporter.section("SpecViz timings")
    for name, values in ss.TIMINGS.items():
        median = statistics.median(values)
        terminalreporter.write_line(
            f"{name}: n={len(values)} first={values[0]:.2f}s median={median:.2f}s "
            f"max={max(values):.2f}s"
        )
