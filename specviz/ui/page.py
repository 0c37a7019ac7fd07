"""Page setup shared by every page: config, projector styling, menu, link notices."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from specviz.ui import state

ROOT = Path(__file__).resolve().parents[2]

#: The menu, in teaching order: (script relative to the app's root, label, icon).
MENU = (
    ("app.py", "Home", ":material/home:"),
    ("pages/1_Playground.py", "Playground", ":material/tune:"),
    ("pages/2_One_draw.py", "One draw at a time", ":material/casino:"),
    ("pages/3_Monte_Carlo.py", "Monte Carlo", ":material/scatter_plot:"),
    ("pages/4_Bug_zoo.py", "Bug zoo", ":material/bug_report:"),
)

_PROJECTOR_CSS = """
<style>
html { font-size: 22px; }
[data-testid="stMetricValue"] { font-size: 2.6rem; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.1rem; }
[data-testid="stSlider"] [role="slider"] { width: 1.4rem; height: 1.4rem; }
</style>
"""


def setup(title: str, icon: str) -> None:
    """Start a page: config, the menu in the sidebar, projector styling, the shared settings.

    Must be the first Streamlit call of every page.
    """
    st.set_page_config(page_title=f"{title} · SpecViz", page_icon=icon, layout="wide")
    scenario = state.current()
    with st.sidebar:
        st.markdown("### SpecViz")
        for script, label, page_icon in MENU:
            if (ROOT / script).exists():
                st.page_link(script, label=label, icon=page_icon)
    state.sidebar_settings()
    if state.current().projector or scenario.projector:
        st.html(_PROJECTOR_CSS)


def show_notices() -> None:
    """Tell the learner what was wrong with the link they opened (and that defaults are shown)."""
    problems = state.notices()
    if problems:
        st.warning(
            "This link had problems, so part of it was replaced by defaults:\n\n"
            + "\n".join(f"- {text}" for text in problems),
            icon=":material/link_off:",
        )
