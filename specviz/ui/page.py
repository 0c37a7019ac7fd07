"""Page setup shared by every page: config, projector styling, menu, link notices, charts."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
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
/* Projector mode: everything a student reads from the back row, one step larger. */
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li,
[data-testid="stCaptionContainer"], [data-testid="stWidgetLabel"] p,
[data-testid="stBaseButton-secondary"] p, [data-testid="stPageLink"] p,
[data-testid="stAlertContentInfo"] p, [data-testid="stAlertContentWarning"] p
  { font-size: 1.35rem !important; line-height: 1.4; }
[data-testid="stMetricLabel"] p { font-size: 1.3rem !important; }
[data-testid="stMetricValue"] p { font-size: 3rem !important; font-weight: 600; }
[data-testid="stSliderThumbValue"], [data-testid="stSliderTickBarMin"],
[data-testid="stSliderTickBarMax"] { font-size: 1.2rem !important; }
[data-testid="stSlider"] [role="slider"] { width: 1.5rem; height: 1.5rem; }
h1 { font-size: 3.4rem !important; }
h2, h3 { font-size: 2.2rem !important; }
input { font-size: 1.3rem !important; }
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


#: Plotly's mode bar is noise on a projector; charts follow the column width.
CHART_CONFIG = {"displayModeBar": False, "responsive": True}


def chart(figure: go.Figure | dict, caption: str, key: str) -> None:
    """Show a chart with its caption as alt text and, below it, as visible text.

    ``figure`` is a Plotly figure or a Vega-Lite spec (an Altair chart converted once and
    cached: converting on every rerun costs tens of milliseconds). ``theme=None`` keeps the
    builders' font sizes, which Streamlit's theme would override (projector mode).
    """
    if isinstance(figure, dict):
        st.vega_lite_chart(spec=figure, width="stretch", key=key, theme=None, alt=caption)
    else:
        st.plotly_chart(
            figure, width="stretch", key=key, config=CHART_CONFIG, theme=None, alt=caption
        )
    st.caption(caption)
