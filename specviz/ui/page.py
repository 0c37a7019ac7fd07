"""What every page does the same way: setup and menu, the lesson's step or a clear message,
the cached figures of this state, charts with their captions, and the end of the run.

A page script reads top to bottom like its lesson::

    page.setup("Playground")                      # config, menu, sidebar, projector type
    scenario, one = page.lesson()                 # the step, or a message and the end of the page
    figures = page.figures(playground_figures)    # built once per state, shared by every session
    page.chart(*figures["accept"], key="accept")
    page.finish()                                 # the share link
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import plotly.graph_objects as go
import streamlit as st

from specviz.figures.style import ChartStyle
from specviz.links import Param
from specviz.one_token import OneTokenStep
from specviz.palette import Notation
from specviz.scenario import Scenario
from specviz.ui import state

ROOT = Path(__file__).resolve().parents[2]

T = TypeVar("T")


@dataclass(frozen=True)
class PageInfo:
    """One page of the menu: its script (relative to the app's root), label, icon, what it
    teaches (the landing page lists it), and whether it shows the Playground's words and weights
    (those pages send a learner with an all-zero model back to the Playground)."""

    script: str
    label: str
    icon: str
    blurb: str = ""
    uses_weights: bool = True


#: The menu, in teaching order — the one definition (sidebar, landing page, tests).
PAGES: tuple[PageInfo, ...] = (
    PageInfo("app.py", "Home", ":material/home:"),
    PageInfo(
        "pages/1_Playground.py",
        "Playground",
        ":material/tune:",
        "Set the target and the draft yourself and watch the acceptance, the leftover bucket "
        "and the picture proof follow.",
    ),
    PageInfo(
        "pages/2_One_draw.py",
        "One draw at a time",
        ":material/casino:",
        "Step through the procedure: propose, test, accept or refill from the bucket.",
    ),
    PageInfo(
        "pages/3_Monte_Carlo.py",
        "Monte Carlo",
        ":material/scatter_plot:",
        "Millions of draws converge to the target at the 1/√N rate, with a goodness-of-fit check.",
    ),
    PageInfo(
        "pages/4_Bug_zoo.py",
        "Bug zoo",
        ":material/bug_report:",
        "Real mistakes from public implementations, run against the correct rule: watch the "
        "bias grow out of the noise.",
    ),
    PageInfo(
        "pages/5_Many_words_per_call.py",
        "Many words per call",
        ":material/fast_forward:",
        "One target call checks several guesses of a cheap draft: see how many words each "
        "call writes, which words the draft gets right, and when it is faster than plain "
        "decoding.",
        uses_weights=False,
    ),
)
_BY_SCRIPT = {info.script: info for info in PAGES}

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


def info(script: str) -> PageInfo:
    """The menu entry of a script."""
    return _BY_SCRIPT[script]


def setup(script: str) -> None:
    """Start a page: config, the menu in the sidebar, projector styling, the shared settings,
    and the notices of the link it was opened with. The first Streamlit call of every page."""
    me = info(script)
    st.set_page_config(page_title=f"{me.label} · SpecViz", page_icon=me.icon, layout="wide")
    state.start_run()
    scenario = state.current()
    with st.sidebar:
        st.markdown("### SpecViz")
        for entry in PAGES:
            if (ROOT / entry.script).exists():
                st.page_link(entry.script, label=entry.label, icon=entry.icon)
    state.sidebar_settings()
    if state.current().projector or scenario.projector:
        st.html(_PROJECTOR_CSS)


def show_notices(*params: Param[Any]) -> None:
    """Tell the learner what was wrong with the link they opened (and that defaults are shown).

    ``params`` are the page's own link parameters: they are read first, so that a problem with
    them is told on the very run that found it, whether or not its widget comes later.
    """
    for link in params:
        state.param(link)
    problems = state.notices()
    if problems:
        note = state.notation()
        st.warning(
            "This link had problems, so part of it was replaced by defaults:\n\n"
            + "\n".join(f"- {note.fill(text)}" for text in problems),
            icon=":material/link_off:",
        )


def finish() -> None:
    """End a run: the address bar and the sidebar's share box show this state's link."""
    state.sync_url()


def stop(message: str, *, kind: str = "error") -> NoReturn:
    """Show ``message`` (an error, warning or info box), finish the run and stop the page."""
    box = {"error": st.error, "warning": st.warning, "info": st.info}[kind]
    box(message, icon=":material/error:" if kind == "error" else ":material/info:")
    finish()
    st.stop()
    raise AssertionError("st.stop() returned")  # pragma: no cover - for the type checker


def lesson(*, has_weight_sliders: bool = False) -> tuple[Scenario, OneTokenStep]:
    """The scenario and its one-token step; if one model's weights are all zero, a message that
    says what to do on *this* page, and the end of the page."""
    scenario = state.current()
    try:
        return scenario, scenario.step()
    except ValueError as problem:
        if has_weight_sliders:
            stop(f"{problem} Raise at least one of its sliders.")
        st.error(
            f"{problem} Set at least one of its weights above zero on the Playground.",
            icon=":material/error:",
        )
        st.page_link(PAGES[1].script, label="Open the Playground", icon=PAGES[1].icon)
        finish()
        st.stop()
        raise AssertionError("st.stop() returned") from problem  # pragma: no cover


def style() -> ChartStyle:
    """How charts look for this session: projector sizes and lettering."""
    return _style(state.current().projector, state.current().swapped)


def _style(projector: bool, swapped: bool) -> ChartStyle:
    return ChartStyle(projector=projector, notation=Notation(swapped=swapped))


# cache_resource, not cache_data: results and figures are shared read-only (st.plotly_chart copies
# figures), and unpickling a Plotly figure on every hit would cost more than building it. One
# cache for every page: a class on one state builds each thing once.
@st.cache_resource(max_entries=768, show_spinner=False)
def _cached(_fn: Callable[..., Any], _args: tuple[Any, ...], name: str, key: tuple) -> Any:
    # ``_fn`` and ``_args`` are not hashed (leading underscore): ``name`` and ``key`` determine
    # them, which is what the two callers below guarantee.
    return _fn(*_args)


def _name(fn: Callable[..., Any]) -> str:
    name = f"{fn.__module__}.{fn.__qualname__}"
    if "<" in name:  # a lambda or a nested function: two of them would share one cache entry
        raise ValueError(f"cache only module-level functions; got {name}")
    return name


def cached(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, computed once per ``args`` (all hashable) and shared by every session."""
    return _cached(fn, args, _name(fn), ("cached", *args))


def computed(fn: Callable[..., T], *args: Any, target_only: bool = False) -> T:
    """``fn(p, q, *args)`` — or ``fn(p, *args)`` with ``target_only`` — for this session's
    target and draft, computed once per (weights, args) and shared by every session.

    ``args`` must be hashable (a seed, a number of runs, a rule's key). Core functions take
    ``(p, q, ...)``; the step's vectors are passed, so nothing is normalised twice.
    """
    s = state.current()
    one = s.step()
    if target_only:
        key = ("target", s.p_weights, args)
        return _cached(fn, (one.p, *args), _name(fn), key)
    key = ("pair", s.p_weights, s.q_weights, args)
    return _cached(fn, (one.p, one.q, *args), _name(fn), key)


def figures(build: Callable[..., T], *data: Any, key: tuple = ()) -> T:
    """``build(labels, step, style, *data)`` for this session's state, built once per state and
    shared by every session.

    ``data`` are results the page already has (runs, a comparison); ``key`` holds the hashable
    values that determine them (a seed, a number of runs), so that the words, weights, display
    settings and ``key`` together determine the figures.
    """
    s = state.current()
    cache_key = ("figures", s.labels, s.p_weights, s.q_weights, s.projector, s.swapped, key)
    return _cached(build, (s.labels, s.step(), style(), *data), _name(build), cache_key)


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
