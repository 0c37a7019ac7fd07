"""Screenshots of every page for the README, taken from the running app in Chromium.

    .venv/bin/python -m scripts.screenshots            # writes assets/<page>.png
    .venv/bin/python -m scripts.screenshots --readme   # ... and the README's screenshot block

Starts ``streamlit run app.py`` (port 8501 if free, opened as http://localhost:8501 so that the
share link in the sidebar reads as it does for a learner), opens every page — found by listing
pages/, as Streamlit does — at 1280×800, and the Playground also in projector mode at 1920×1080,
waits for the charts and the embedded views, and saves the first screen of each. PNGs are
quantised to a palette (Pillow) to keep the repository small. Needs Debian's Chromium.
"""

from __future__ import annotations

import argparse
import io
import re
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from tests.a11y import wait_for_frames
from tests.streamlit_server import (
    StreamlitServer,
    all_scripts,
    launch_chromium,
    main_script,
    open_app,
    page_url_path,
    wait_for_charts,
)

REPO = Path(__file__).resolve().parents[1]
ASSETS = REPO / "assets"
README = REPO / "README.md"
BEGIN, END = "<!-- screenshots: begin -->", "<!-- screenshots: end -->"
#: Keep every image under this many bytes.
MAX_BYTES = 300_000
#: Animations and Plotly transitions finish within this (ms).
SETTLE_MS = 900


@dataclass(frozen=True)
class Shot:
    script: Path
    name: str  # file stem in assets/
    label: str
    width: int = 1280
    height: int = 800
    projector: bool = False


def page_label(script: Path) -> tuple[str, str]:
    """Menu label and blurb of a page (from the app's menu; from the file name for a page the
    menu does not list yet)."""
    try:
        from specviz.ui.page import PAGES

        rel = str(script.resolve().relative_to(REPO))
        for info in PAGES:
            if info.script == rel:
                return info.label, info.blurb
    except Exception:  # a page being written: fall back on its name
        pass
    name = page_url_path(script) or "Home"
    return name.replace("_", " "), ""


def shots(height: int = 800) -> list[Shot]:
    out = []
    for script in all_scripts():
        path = page_url_path(script)
        name = "home" if script.resolve() == main_script() else path.lower()
        label, _ = page_label(script)
        out.append(Shot(script, name, label, height=height))
        if path == "Playground":
            out.append(
                Shot(script, f"{name}_projector", f"{label}, projector mode", 1920, 1080, True)
            )
    return out


def port_8501_free() -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", 8501))
        except OSError:
            return False
    return True


def save_small(png: bytes, target: Path) -> int:
    """``png`` quantised to at most 256 colours (fewer if it is still too big); bytes written."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    data = b""
    for colours in (256, 128, 64):
        small = image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=0)
        buffer = io.BytesIO()
        small.save(buffer, format="PNG", optimize=True)
        data = buffer.getvalue()
        if len(data) <= MAX_BYTES:
            break
    target.write_bytes(data)
    return len(data)


def take(browser, base_url: str, shot: Shot) -> bytes:
    context = browser.new_context(viewport={"width": shot.width, "height": shot.height})
    try:
        page = context.new_page()
        path = page_url_path(shot.script)
        url = f"{base_url}/{path}" + ("?projector=1" if shot.projector else "")
        watcher = open_app(page, url)
        if watcher.exceptions:
            raise RuntimeError(f"{url}: {watcher.exceptions}")
        wait_for_charts(page)
        wait_for_frames(page)
        page.wait_for_timeout(SETTLE_MS)
        return page.screenshot()
    finally:
        context.close()


def readme_block(taken: list[Shot]) -> str:
    lines = [BEGIN]
    for shot in taken:
        if shot.name == "playground":
            continue  # the large image above
        lines.append(f'<img src="assets/{shot.name}.png" width="49%" alt="SpecViz: {shot.label}">')
    lines.append(END)
    return "\n".join(lines)


def update_readme(block: str) -> bool:
    text = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        return False
    README.write_text(pattern.sub(lambda _m: block, text, count=1), encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ASSETS, help="folder (default: assets/)")
    parser.add_argument(
        "--readme", action="store_true", help=f"rewrite the README between {BEGIN} and {END}"
    )
    parser.add_argument(
        "--height",
        type=int,
        default=800,
        help="window height of the 1280 px shots (default 800;"
        " taller shows more of each page, e.g. for scripts.cvd)",
    )
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    port = 8501 if port_8501_free() else 0
    taken: list[Shot] = []
    failed: list[Shot] = []
    with StreamlitServer(port=port) as server, sync_playwright() as pw:
        # "localhost", as a learner types it: the share link in the sidebar shows it.
        base = f"http://localhost:{server.port}"
        browser = launch_chromium(pw)
        try:
            for shot in shots(args.height):
                try:
                    png = take(browser, base, shot)
                except Exception as exc:  # one broken page: say so, take the others
                    failed.append(shot)
                    print(f"FAILED {shot.name}: {exc}", file=sys.stderr)
                    continue
                size = save_small(png, args.out / f"{shot.name}.png")
                print(
                    f"{args.out / shot.name}.png  {shot.width}×{shot.height}  {size / 1e3:.0f} kB"
                )
                taken.append(shot)
        finally:
            browser.close()
    if failed:
        print(f"{len(failed)} page(s) failed; the README was left alone", file=sys.stderr)
        return 1
    block = readme_block(taken)
    if args.readme:
        done = update_readme(block)
        print("README.md updated" if done else f"README.md has no {BEGIN} … {END} block")
    else:
        print("\nFor the README:\n" + block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
