"""What every page does the same way: setup and menu, the lesson's step or a clear message,
the cached figures of this state, charts with their captions, and the end of the run.

A page script reads top to bottom like its lesson::

    page.setup("Playground")                      # config, menu, sidebar, projector type
    scenario, one = page.lesson()                 # the step, or a message and the end of the page
    figures = page.figures(zoo_figures, runs)     # built once per state, shared by every session
    page.chart(*figures["law"], key="law")
    state.sync_url()                              # the share link
"""

from __future__ import annotations

import functools
import gc
import html
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, TypeVar

# Imported here, at the first page's import, not lazily inside a rerun: a session's first run
# importing pandas while other sessions' runs looked it up raised "partially initialized module
# 'pandas'" in a class under load (benchmarks/README.md). ~0.3 s, once.
import pandas  # noqa: F401
import pyarrow as pa
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from specviz.figures import vega
from specviz.figures.style import ChartStyle
from specviz.figures.tables import markdown_table
from specviz.limits import GC_THRESHOLDS, PAGE_KEPT_RESULTS
from specviz.links import Param
from specviz.one_token import OneTokenStep
from specviz.scenario import Scenario
from specviz.text import language, say, titles, use
from specviz.ui import backchannel, presenter, state

T = TypeVar("T")


@dataclass(frozen=True)
class PageInfo:
    """One page of the menu: its script (relative to the app's root), its ``key`` in the
    catalogs, its icon; its label, what it teaches (the landing page lists it) and what to try
    first are said in the run's language."""

    script: str
    key: str
    icon: str
    #: Part of the learner's path (Home lists these in order); the lecturer's guide is not.
    for_learners: bool = True
    #: The control being taught and the chart it moves (their element keys, or "key selector"
    #: for a part of an element): on a projector both must show without scrolling
    #: (tests/test_browser_seats.py holds this).
    fold: tuple[str, str] = ("", "")

    @property
    def label(self) -> str:
        """The page's name in the menu and the browser's tab."""
        return _LABELS[self.key]

    @property
    def blurb(self) -> str:
        """What the page shows, in a sentence."""
        return _BLURBS[self.key]

    @property
    def hint(self) -> str:
        """What to try first: with :attr:`blurb`, the description a screen reader reaches first."""
        return _TRIES[self.key]


#: Each page's script, Material icon and fold, in teaching order (None: not on the learners' path).
_MENU = (
    ("app.py", "home", ("home.live .quality", "home.live .dist svg")),
    ("pages/1_Playground.py", "tune", ("pg.live .dist svg", "pg.live .flow svg")),
    ("pages/2_One_draw.py", "casino", ("od.player", "od.player")),
    ("pages/3_Monte_Carlo.py", "scatter_plot", ("w.n", "mc.chart.hist")),
    ("pages/4_Bug_zoo.py", "bug_report", ("w.bug", "zoo.chart.law")),
    ("pages/5_Many_words_per_call.py", "fast_forward", ("w.gamma", "dec.chart.gamma")),
    ("pages/6_Why_its_exact.py", "verified", ("w.case", "why.chart.proof")),
    ("pages/7_Rejection_sampling.py", "compare_arrows", ("w.runs", "rs.chart.proposals")),
    ("pages/8_Variants_lab.py", "science", ("w.variant", "lab.chart.variant")),
    ("pages/9_The_debate.py", "forum", ("w.c", "w.claim")),
    ("pages/10_For_lecturers.py", "co_present", None),
    ("pages/11_Ask_the_room.py", "how_to_vote", None),
)
#: Each page's key in the catalogs: its label (page.<key>), what it shows (page.blurb.<key>) and
#: what to try first (page.try.<key>), in the same order.
_KEYS = (
    "home",
    "playground",
    "one_draw",
    "monte_carlo",
    "bug_zoo",
    "many_words_per_call",
    "why_its_exact",
    "rejection_sampling",
    "variants_lab",
    "the_debate",
    "for_lecturers",
    "ask_the_room",
)
_LABELS = titles("page", _KEYS)
_BLURBS = titles("page.blurb", _KEYS)
_TRIES = titles("page.try", _KEYS)

#: The menu, in teaching order — the one definition (sidebar, landing page, tests).
PAGES: tuple[PageInfo, ...] = tuple(
    PageInfo(script, key, f":material/{icon}:", fold is not None, fold or ("", ""))
    for (script, icon, fold), key in zip(_MENU, _KEYS, strict=True)
)

#: Every page's style, and projector mode's on top (read once).
_BASE_CSS, _PROJECTOR_CSS = state.asset("page.css"), state.asset("projector.css")


def setup(script: str) -> None:
    """Start a page: config, the menu in the sidebar, projector styling, the shared settings,
    and the notices of the link it was opened with. The first Streamlit call of every page."""
    _tune_collector()
    backchannel.install()
    me = next(info for info in PAGES if info.script == script)
    presenter.follow()  # a link to another step of the lecturer's plan brings its whole state
    scenario = state.current()
    state.start_run()
    st.set_page_config(
        page_title=f"{me.label} · SpecViz",
        page_icon=me.icon,
        layout="wide",
        # On a projector the page needs the whole width; the menu is one click away.
        initial_sidebar_state="collapsed" if scenario.projector else "auto",
    )
    with st.sidebar:
        st.markdown("### SpecViz")
        for entry in PAGES:
            st.page_link(entry.script, label=entry.label, icon=entry.icon)
    state.sidebar_settings()
    # One style element whatever the mode: the elements below keep their places in the page, so
    # a widget a learner is using is never drawn anew (that drops keyboard focus).
    css = _BASE_CSS + (_PROJECTOR_CSS if state.current().projector else "")
    # The page's description comes first in its content, for a screen reader; on screen the
    # title and intro say it (one element with the style: the elements below keep their places).
    about = html.escape(f"{me.blurb} {me.hint}")
    st.html(f'<style>{css}</style><p class="about" role="note">{about}</p>')
    presenter.bar(me.label)


# The server's pauses under a class were the garbage collector's full collections: with 100
# learners on the decoding page, one every ~3.5 s went through ~270,000 objects (Streamlit's
# sessions, the shared figures) for 150-200 ms, and every run in flight waited (rerun p95
# 350-480 ms; benchmarks/README.md). What is alive at the first run (modules, classes,
# functions) is never garbage: frozen, the collector skips it. A larger young generation lets a
# run's temporaries die young instead of reaching the old one, so full collections come rarely.
# Measured again with Vega charts (3 December 2026, 100 students, a busy machine): about 2 ms
# less server CPU per run with it (Playground 19 against 21 ms, Many words per call 34 against
# 36 ms), rerun p95 within noise — a small gain, kept.
_collector_untuned = threading.Lock()  # taken by the process's first run, never given back


def _tune_collector() -> None:
    if _collector_untuned.acquire(blocking=False):
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)


def intro(text: str) -> None:
    """A page's opening prose: on a screen as text; on a projector folded into an expander, so
    that the control being taught and its chart come first (the lecturer is saying it); left out
    while a step of the lecturer's plan is on show, whose talking point says it instead."""
    if not presenter.on():
        with st.expander(say("page.what_it_shows")) if state.current().projector else nullcontext():
            st.markdown(text)


def show_notices(*params: Param[Any]) -> None:
    """Tell the learner what was wrong with the link they opened (and that defaults are shown).

    ``params`` are the page's own link parameters: they are read first, so that a problem with
    them is told on the very run that found it, whether or not its widget comes later.
    """
    for link in params:
        state.param(link)
    if problems := state.notices():
        note = state.notation()
        st.warning(
            say("page.link_problems") + "\n".join(f"- {note.fill(text)}" for text in problems),
            icon=":material/link_off:",
        )


def part(fn: Callable[..., None]) -> Callable[..., None]:
    """``fn`` as a fragment: a control inside it reruns only ``fn``, not the menu, the settings
    and the prose above it (the server does a third to a half less work per change;
    benchmarks/README.md). ``run_every``: a page with a timed fragment makes Streamlit's frontend
    ask a server it reconnects to (a replica died) for a whole run at once, so that server knows
    the fragment before the next change asks for it — a fragment it does not know, Streamlit
    drops (tests/test_browser_failover.py). Once an hour costs nothing.

    The part's own rerun ends with the share link; a whole run draws it once, at the page's end
    (:func:`state.sync_url`), so a page may have several parts."""

    @functools.wraps(fn)
    def spoken(*args: Any, **kwargs: Any) -> None:
        # A fragment's rerun runs in a new thread: its language set once, not asked of the
        # session at every message (7 % of a change's time on Many words per call).
        scenario = state.current()
        use(scenario.language)
        if st.session_state.get("ui.seed", scenario.seed) != scenario.seed:
            st.rerun()  # a control in here drew a new seed: the sidebar's seed must show it too
        fn(*args, **kwargs)
        if get_script_run_ctx().fragment_ids_this_run:  # this part's rerun, not the page's
            state.sync_url()

    return st.fragment(run_every=3600)(spoken)


def lesson() -> tuple[Scenario, OneTokenStep]:
    """The scenario and its one-token step; if one model's weights are all zero, a message that
    says what to do on *this* page, and the end of the page."""
    scenario = state.current()
    try:
        return scenario, scenario.step()
    except ValueError as problem:
        message = say("page.all_zero", problem=problem)
        state.stop(message, link=(PAGES[1].script, say("page.open_playground"), PAGES[1].icon))


def style() -> ChartStyle:
    """How charts look for this session: projector sizes and lettering."""
    s = state.current()
    return ChartStyle(projector=s.projector, notation=s.notation)


# cache_resource, not cache_data: results and figures are shared read-only, and unpickling them on
# every hit would cost more than building them. One cache for every page: a class on one state
# builds each thing once.
@st.cache_resource(max_entries=PAGE_KEPT_RESULTS, show_spinner=False)
def _cached(_fn: Callable[..., Any], _args: tuple[Any, ...], name: str, key: str) -> Any:
    # ``_fn`` and ``_args`` are not hashed (leading underscore): ``name`` and ``key`` determine
    # them, which is what the callers below guarantee. ``key`` is the repr of a tuple: Streamlit
    # hashes one string 16 times faster than the tuple (0.02 against 0.28 ms, several times a
    # run), and repr is exact for what keys hold (numbers, strings, tuples and frozen dataclasses
    # of them; never an array, whose repr is cut short).
    return _fn(*_args)


def _name(fn: Callable[..., Any]) -> str:
    name = f"{fn.__module__}.{fn.__qualname__}"
    if "<" in name:  # a lambda or a nested function: two of them would share one cache entry
        raise ValueError(f"cache only module-level functions; got {name}")
    return name


def cached(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, computed once per ``args`` (all hashable) and language (a result may hold
    words) and shared by every session."""
    return _cached(fn, args, _name(fn), repr(("cached", language(), *args)))


def computed(fn: Callable[..., T], *args: Any, target_only: bool = False) -> T:
    """``fn(p, q, *args)`` — or ``fn(p, *args)`` with ``target_only`` — for this session's
    target and draft, computed once per (weights, args) and shared by every session.

    ``args`` must be hashable (a seed, a number of runs, a rule's key). Core functions take
    ``(p, q, ...)``; the step's vectors are passed, so nothing is normalised twice.
    """
    s, n = state.current(), 1 if target_only else 2
    one = s.step()
    models, weights = (one.p, one.q)[:n], (s.p_weights, s.q_weights)[:n]
    return _cached(fn, (*models, *args), _name(fn), repr((*weights, args)))


def drawn(build: Callable[..., T], *data: Any, key: tuple) -> T:
    """``build(*data)``, built once per ``key`` (the hashable values that determine ``data``: a
    page's settings, its chart style) and language, and shared by every session: a class that
    moves one control between a few values draws each chart once."""
    return _cached(build, data, _name(build), repr(("drawn", language(), *key)))


def figures(build: Callable[..., T], *data: Any, key: tuple = ()) -> T:
    """``build(labels, step, style, *data)`` for this session's state, built once per state and
    shared by every session.

    ``data`` are results the page already has (runs, a comparison); ``key`` holds the hashable
    values that determine them (a seed, a number of runs), so that the words, weights, display
    settings, the language and ``key`` together determine the figures.
    """
    s = state.current()
    cache_key = ("figures", s.labels, s.p_weights, s.q_weights, s.projector, s.swapped, s.language)
    cache_key += (key,)
    return _cached(build, (s.labels, s.step(), style(), *data), _name(build), repr(cache_key))


def chart(figure: dict, caption: str, key: str) -> None:
    """Show a Vega-Lite chart (:mod:`specviz.figures.vega`) with its caption below it.

    ``theme=None`` keeps the builders' font sizes, which Streamlit's theme would override
    (projector mode).
    """
    # The alt text names the chart and points to its description below: a caption in ``alt``
    # would change with the data and remount the chart instead of updating it in place.
    title = figure.get("title", "")
    title = " ".join(title) if isinstance(title, list) else title
    # A keyed container: a chart without selections has no element id; tests and the fold check
    # find it by the container's ``st-key-`` class.
    arrows, numbers = _shown(figure)
    with st.container(key=key):
        st.vega_lite_chart(
            spec=figure | {"datasets": arrows},
            width="stretch",
            theme=None,
            alt=say("page.chart_alt", title=title),
        )
    st.caption(caption)
    if numbers:  # what a tooltip says, for a reader who cannot hover
        with st.expander(say("page.chart_numbers")):
            st.markdown(numbers)


_heard = st.components.v2.component("specviz.heard", js=state.asset("heard.js"))


def announce(sentence: str) -> None:
    """Say ``sentence`` to a screen reader when it differs from the last run's: what a control
    did, in words (a polite live region, out of the page's flow; one per page)."""
    _heard(key="heard", data=sentence)


def metrics(*shown: tuple[str, str, str | None]) -> None:
    """A row of metrics, each ``(label, value, help)``, said to a screen reader too when a
    change moves them (:func:`announce`)."""
    for box, (label, value, about) in zip(st.columns(len(shown)), shown, strict=True):
        box.metric(label, value, help=about)
    announce(" ".join(say("page.heard_metric", label=label, value=v) for label, v, _ in shown))


#: What is shown of the figures shown lately, by the figure's identity; the figure is kept
#: with it, so its id cannot be taken by another while the entry lives.
_SHOWN_OF: dict[int, tuple[dict, dict, str]] = {}


def _shown(figure: dict) -> tuple[dict, str]:
    """The figure's datasets as Arrow tables and its numbers as Markdown tables, made once per
    figure: a shared figure (from :func:`figures`) is shown by every run of every session on its
    state, and converting its rows again was a tenth of a change's server time
    (profile_classroom, 7 December 2026)."""
    hit = _SHOWN_OF.get(id(figure))
    if hit is None:
        if len(_SHOWN_OF) >= 128:  # a bound on memory, not an order: a class shares a few
            _SHOWN_OF.clear()
        arrows = {name: _arrow(rows) for name, rows in figure["datasets"].items()}
        numbers = "\n\n".join(markdown_table(table) for table in vega.numbers(figure))
        hit = _SHOWN_OF[id(figure)] = (figure, arrows, numbers)
    return hit[1], hit[2]


def _arrow(rows: list[dict]) -> pa.Table | list[dict]:
    """A dataset as an Arrow table, which Streamlit sends as it is: a list of rows goes through
    pandas first (2 ms a dataset against 0.1 ms, measured on the decoding page). A column Arrow
    cannot type (numbers and words mixed) stays rows."""
    columns = dict.fromkeys(key for row in rows for key in row)
    try:
        return pa.table({key: [row.get(key) for row in rows] for key in columns})
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return rows
