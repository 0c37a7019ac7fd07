"""Helpers for testing SpecViz as a real app: the page list, a Streamlit server, Chromium, reruns.

Plain functions and context managers (no pytest in here), so that fixtures in ``conftest.py`` and
any later test or benchmark can use them:

- ``main_script()``, ``page_scripts()``, ``page_url_path(script)``, ``page_id(script)``: what the
  app serves, found by listing ``pages/*.py`` the same way Streamlit's auto-discovery does.
- ``StreamlitServer`` / ``streamlit_server()``: ``streamlit run app.py`` on a free loopback port.
- ``find_chromium()``, ``launch_chromium(playwright)``: Debian's Chromium with the flags that work.
- ``watch_stream(page)``, ``open_app(page, url)``, ``rerun_waiter(page)``: wait for Streamlit runs
  by decoding the ForwardMsg frames on ``/_stcore/stream`` (the DOM's script state can say
  "notRunning" before a fast rerun has even started), then for the page to draw them.
- ``expected_heading(script)``, ``heading_words(text)``: the first heading AppTest sees on a page,
  in a form that can be compared with what the browser shows.

Set ``SPECVIZ_APP_ROOT`` to point every helper at another app folder (default: the repo root).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright, WebSocket
    from streamlit.testing.v1 import AppTest

REPO_ROOT = Path(__file__).resolve().parents[1]
TESTS_DIR = Path(__file__).resolve().parent
SCREENSHOT_DIR = TESTS_DIR / "screenshots"

# Debian's Chromium: Playwright's own browser download does not work on these machines.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 1600}  # tall: Streamlit scrolls an inner container

# Timings measured by the helpers, printed at the end of a pytest run by conftest.py.
TIMINGS: dict[str, list[float]] = {}


def record_timing(name: str, seconds: float) -> None:
    TIMINGS.setdefault(name, []).append(seconds)


# --------------------------------------------------------------------------- what the app serves


def app_root() -> Path:
    """The folder holding app.py and pages/ (the repo root unless SPECVIZ_APP_ROOT is set)."""
    return Path(os.environ.get("SPECVIZ_APP_ROOT", REPO_ROOT)).resolve()


def main_script() -> Path:
    return app_root() / "app.py"


def page_scripts() -> list[Path]:
    """Every script in pages/, in Streamlit's menu order (same filter as its auto-discovery)."""
    from streamlit.source_util import page_sort_key

    folder = app_root() / "pages"
    if not folder.is_dir():
        return []
    scripts = [
        p
        for p in folder.glob("*.py")
        if p.is_file() and not p.name.startswith(".") and p.name != "__init__.py"
    ]
    return sorted(scripts, key=page_sort_key)


def all_scripts() -> list[Path]:
    """app.py first, then every page."""
    return [main_script(), *page_scripts()]


def page_url_path(script: Path) -> str:
    """The URL path Streamlit serves a script under: "" for app.py, else the file name without
    the numeric prefix, a leading emoji and ".py" (spaces become "_"):
    pages/1_Playground.py -> Playground, pages/2_🐛_Bug zoo.py -> Bug_zoo.

    Streamlit's own rule: ``streamlit.source_util.page_icon_and_name`` (what ``st.Page`` infers).
    """
    from streamlit.source_util import page_icon_and_name

    if script.resolve() == main_script():
        return ""
    _icon, name = page_icon_and_name(script)
    return name


def page_id(script: Path) -> str:
    """A readable test id: "app" for the landing page, "pages/1_Playground" for a page."""
    script = script.resolve()
    if script == main_script():
        return "app"
    return f"{script.parent.name}/{script.stem}"


def key_class(key: str) -> str:
    """The class Streamlit gives the element of a widget or container with this key."""
    return "st-key-" + key.replace(".", "-")


def page_url(base_url: str, script: Path) -> str:
    return f"{base_url.rstrip('/')}/{page_url_path(script)}"


# --------------------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerStartError(RuntimeError):
    """The server did not become healthy; the message includes its output."""


@dataclass
class StreamlitServer:
    """``streamlit run app.py`` from the app root on a free loopback port.

    ``start()`` waits for /_stcore/health to say "ok"; ``stop()`` ends only this process (its PID).
    """

    root: Path = field(default_factory=app_root)
    script: str = "app.py"
    port: int = 0
    startup_timeout: float = 30.0
    extra_args: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    startup_seconds: float | None = None
    _log_dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            self.script,
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(self.port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
            *self.extra_args,
        ]

    def output(self) -> str:
        """What the server wrote so far (stdout, then stderr)."""
        if self._log_dir is None:
            return ""
        parts = []
        for name in ("stdout", "stderr"):
            path = Path(self._log_dir.name) / name
            if path.exists():
                text = path.read_text(errors="replace").strip()
                parts.append(f"--- server {name} ---\n{text or '(empty)'}")
        return "\n".join(parts)

    def start(self) -> StreamlitServer:
        for attempt in range(3):  # a free port can be taken between free_port() and the bind
            if self.port == 0 or attempt > 0:
                self.port = free_port()
            try:
                self._start_once()
                return self
            except ServerStartError:
                exited = self.process is not None and self.process.poll() is not None
                output = self.output()
                in_use = "is not available" in output or "already in use" in output
                self.stop()
                if not (exited and in_use) or attempt == 2:
                    raise
            except BaseException:  # Ctrl-C while waiting: do not leave the server behind
                self.stop()
                raise
        raise AssertionError("unreachable")

    def _start_once(self) -> None:
        self._log_dir = tempfile.TemporaryDirectory(prefix="specviz-server-")
        log = Path(self._log_dir.name)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        t0 = time.perf_counter()
        with open(log / "stdout", "wb") as out, open(log / "stderr", "wb") as err:
            self.process = subprocess.Popen(
                self.command(),
                cwd=self.root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
            )
        deadline = t0 + self.startup_timeout
        health = f"{self.url}/_stcore/health"
        while True:
            if self.process.poll() is not None:
                raise ServerStartError(
                    f"streamlit exited with code {self.process.returncode} before it was healthy "
                    f"({' '.join(self.command())}, cwd={self.root})\n{self.output()}"
                )
            try:
                with urllib.request.urlopen(health, timeout=2) as resp:
                    ok = resp.status == 200 and resp.read().strip() == b"ok"
                if ok and self.process.poll() is None:  # ours, not another server on the port
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.perf_counter() > deadline:
                raise ServerStartError(
                    f"{health} did not answer 'ok' within {self.startup_timeout:.0f} s "
                    f"({' '.join(self.command())}, cwd={self.root})\n{self.output()}"
                )
            time.sleep(0.1)
        self.startup_seconds = time.perf_counter() - t0
        record_timing("server start to healthy", self.startup_seconds)

    def stop(self) -> None:
        """Terminate the process this object started (by its PID), kill it if it does not exit."""
        proc, self.process = self.process, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self._log_dir is not None:
            self._log_dir.cleanup()
            self._log_dir = None

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def streamlit_server(root: Path | None = None, **kwargs: Any) -> Iterator[StreamlitServer]:
    """``with streamlit_server() as server: ... server.url ...``"""
    with StreamlitServer(root=root or app_root(), **kwargs) as server:
        yield server


# --------------------------------------------------------------------------- the browser


def find_chromium() -> str | None:
    """Debian's Chromium (or CHROMIUM_PATH), or None."""
    explicit = os.environ.get("CHROMIUM_PATH")
    if explicit:
        return shutil.which(explicit) or (explicit if Path(explicit).is_file() else None)
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch_chromium(playwright: Playwright, executable: str | None = None) -> Browser:
    executable = executable or find_chromium()
    if executable is None:
        raise FileNotFoundError("no chromium executable on PATH (apt-get install -y chromium)")
    return playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)


# --------------------------------------------------------------------------- websocket frames


FINISHED_OK_NAMES = ("FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY")


@dataclass
class StreamWatcher:
    """Decodes the ForwardMsg frames Streamlit sends a page and keeps what the tests care about.

    Attach it before the page loads (``watch_stream(page)``); later websockets are followed too.
    """

    finished: list[str] = field(default_factory=list)  # script_finished statuses, in order
    exceptions: list[str] = field(default_factory=list)  # st.exception / uncaught errors
    pages_not_found: list[str] = field(default_factory=list)
    message_count: int = 0
    sockets: int = 0

    def attach(self, page: Page) -> StreamWatcher:
        page.on("websocket", self._on_websocket)
        return self

    def _on_websocket(self, ws: WebSocket) -> None:
        if ws.url.rstrip("/").endswith("/_stcore/stream"):
            self.sockets += 1
            ws.on("framereceived", self._on_frame)

    def _on_frame(self, payload: str | bytes) -> None:
        if not isinstance(payload, bytes | bytearray):
            return
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = ForwardMsg()
        try:
            msg.ParseFromString(bytes(payload))
        except Exception:  # not a ForwardMsg: ignore, never break the page's event loop
            return
        self.message_count += 1
        kind = msg.WhichOneof("type")
        if kind == "script_finished":
            self.finished.append(ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished))
        elif kind == "page_not_found":
            self.pages_not_found.append(msg.page_not_found.page_name or "(the requested URL)")
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            if element.WhichOneof("type") == "exception":
                exc = element.exception
                self.exceptions.append(f"{exc.type}: {exc.message}")

    @property
    def successes(self) -> int:
        return sum(status in FINISHED_OK_NAMES for status in self.finished)

    def wait_for_successes(
        self, page: Page, count: int, timeout_ms: float, what: str, since: int = 0
    ) -> None:
        """Pump Playwright's event loop (page.wait_for_timeout, never time.sleep) until at least
        ``count`` runs have finished successfully; fail at once on a compile error after
        ``self.finished[since]``."""
        deadline = time.perf_counter() + timeout_ms / 1000
        while self.successes < count:
            if "FINISHED_WITH_COMPILE_ERROR" in self.finished[since:]:
                raise AssertionError(f"{what}: the script did not compile ({self.exceptions})")
            if time.perf_counter() > deadline:
                raise TimeoutError(
                    f"{what}: no successful script_finished within {timeout_ms / 1000:.0f} s "
                    f"(statuses so far: {self.finished}, websockets: {self.sockets}, "
                    f"messages: {self.message_count}, exceptions: {self.exceptions})"
                )
            page.wait_for_timeout(20)


def watch_stream(page: Page) -> StreamWatcher:
    """The page's StreamWatcher, attached now if it was not yet (do it before ``page.goto``)."""
    watcher = getattr(page, "_specviz_stream_watcher", None)
    if watcher is None:
        watcher = StreamWatcher().attach(page)
        page._specviz_stream_watcher = watcher  # type: ignore[attr-defined]
    return watcher


@contextlib.contextmanager
def rerun_waiter(
    page: Page, timeout_ms: float = 15_000, runs: int = 1, settle: bool = True
) -> Iterator[StreamWatcher]:
    """Wait until the rerun(s) triggered inside the block have finished successfully (and, with
    ``settle``, until the page has drawn them: see ``wait_for_render``).

        with rerun_waiter(page):
            page.keyboard.press("ArrowRight")
    """
    watcher = watch_stream(page)
    if watcher.sockets == 0:
        raise RuntimeError("rerun_waiter: the page has no Streamlit websocket; use open_app first")
    before, since = watcher.successes, len(watcher.finished)
    t0 = time.perf_counter()
    yield watcher
    watcher.wait_for_successes(page, before + runs, timeout_ms, "rerun_waiter", since)
    record_timing("rerun: action to script_finished", time.perf_counter() - t0)
    if settle:
        wait_for_render(page, timeout_ms)


def open_app(page: Page, url: str, timeout_ms: float = 30_000) -> StreamWatcher:
    """Load ``url`` and wait until the app has rendered: the first successful script_finished on the
    websocket, then stApp reporting data-test-script-state=notRunning and no skeletons left."""
    watcher = watch_stream(page)
    before, since = watcher.successes, len(watcher.finished)
    t0 = time.perf_counter()
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
    watcher.wait_for_successes(page, before + 1, timeout_ms, f"open_app({url})", since)
    record_timing("page load: goto to first script_finished", time.perf_counter() - t0)
    wait_for_render(page, timeout_ms)
    record_timing("page load: goto to rendered", time.perf_counter() - t0)
    return watcher


def assert_clean(page: Page, watcher: StreamWatcher) -> None:
    """No page-not-found, no exception on the websocket, no exception element on the page."""
    assert not watcher.pages_not_found, watcher.pages_not_found
    assert not watcher.exceptions, watcher.exceptions
    assert page.get_by_test_id("stException").count() == 0


def link_params(url: str) -> dict[str, str]:
    """A link's query parameters (the last value of a repeated one)."""
    return {k: v[-1] for k, v in parse_qs(urlparse(url).query).items()}


def share_link(page: Page) -> str:
    """The share link the sidebar shows, "" if none (in its component's shadow root, which a
    locator pierces); read at once, without waiting."""
    shown = page.locator("[data-testid=stSidebar] .share code").all_inner_texts()
    return shown[0].strip() if shown else ""


def poll(page: Page, check: Any, what: str, timeout_ms: float = 10_000) -> Any:
    """Charts redraw a moment after the rerun: retry ``check`` (pumping the page) until it
    returns something truthy, and return that."""
    deadline = time.perf_counter() + timeout_ms / 1000
    while True:
        result = check()
        if result:
            return result
        if time.perf_counter() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(50)


_TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
_IDLE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.querySelector('[data-testid="stSkeleton"]') === null;
}"""


def wait_for_render(page: Page, timeout_ms: float = 30_000) -> None:
    """After script_finished has arrived: let the frontend handle the frames it already has, then
    wait for stApp data-test-script-state=notRunning and no stSkeleton (lazily loaded elements such
    as charts and page links show a skeleton for up to a second after the run has finished)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page.evaluate(_TWO_FRAMES)
    try:
        page.wait_for_function(_IDLE, timeout=timeout_ms, polling="raf")
    except PlaywrightTimeoutError:
        state = page.evaluate(_STATE)
        raise TimeoutError(
            f"{page.url} did not finish drawing within {timeout_ms / 1000:.0f} s: {state}"
        ) from None


_STATE = """() => ({
  scriptState: document.querySelector('[data-testid="stApp"]')
    ?.getAttribute('data-test-script-state') ?? 'no stApp',
  skeletons: document.querySelectorAll('[data-testid="stSkeleton"]').length,
})"""


def wait_for_charts(page: Page, timeout_ms: float = 15_000) -> None:
    """Plotly and Vega draw a moment after the rerun: wait until every chart has its svg/canvas."""
    for testid, inner in (
        ("stPlotlyChart", ".main-svg"),
        ("stVegaLiteChart", "canvas, svg"),
    ):
        charts = page.get_by_test_id(testid)
        for i in range(charts.count()):
            charts.nth(i).locator(inner).first.wait_for(state="attached", timeout=timeout_ms)
    page.evaluate("document.fonts.ready.then(() => true)")


# --------------------------------------------------------------------------- headings

_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.S)
_ICON = re.compile(r":material/[a-z0-9_]+:|:[a-z0-9_+-]+:")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def heading_words(text: str) -> list[str]:
    """Lower-case words of a heading, without markdown, icons (:material/x:, :emoji:) or $math$,
    so that AppTest's source text and the browser's rendered text can be compared."""
    text = _MATH.sub(" ", text)
    text = _ICON.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    return re.findall(r"[^\W_]+", text.lower())


def first_heading(at: AppTest) -> str | None:
    """Body of the first title/header/subheader (or markdown '# ...' line) in the main area."""

    def walk(node: Any) -> Iterator[Any]:
        yield node
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for key in sorted(children):
                yield from walk(children[key])

    for node in walk(at.main):
        kind = getattr(node, "type", None)
        if kind in ("title", "header", "subheader"):
            return node.value
        if kind == "markdown":
            for line in node.value.splitlines():
                if re.match(r"#{1,3}\s", line.strip()):
                    return line.strip().lstrip("#").strip()
    return None


def run_script(script: Path, timeout: float = 30) -> AppTest:
    """AppTest of app.py, switched to ``script`` if it is a page (how a real session reaches it)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(main_script(), default_timeout=timeout)
    if script.resolve() != main_script():
        at.switch_page(str(script.resolve().relative_to(app_root())))
    return at.run()


def expected_heading(script: Path) -> str | None:
    return first_heading(run_script(script))
