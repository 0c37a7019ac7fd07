"""One place for the state every page shares (the :class:`~specviz.scenario.Scenario`).

The scenario lives in ``st.session_state`` under one key. It is read once per session from the URL
(a share link; a bad one becomes notices, never an exception) and written back to the URL on every
run, so the address bar is always a link that restores what is on screen. Widgets get their value
from the scenario before they are drawn and copy a change back in their ``on_change`` callback, so
presets, links and sliders never disagree, and a page switch (which forgets widget keys) loses
nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from specviz.palette import Notation
from specviz.scenario import MAX_SEED, Scenario, from_query, to_query

_SCENARIO = "specviz.scenario"
_NOTICES = "specviz.notices"


def current() -> Scenario:
    """The session's scenario, restored from the URL on the session's first run."""
    if _SCENARIO not in st.session_state:
        scenario, notices = from_query(st.query_params.to_dict())
        st.session_state[_SCENARIO] = scenario
        st.session_state[_NOTICES] = notices
    return st.session_state[_SCENARIO]


def save(scenario: Scenario) -> None:
    """Replace the session's scenario (the link notices are answered once the learner acts)."""
    st.session_state[_SCENARIO] = scenario
    st.session_state[_NOTICES] = []


def update(**changes: Any) -> None:
    """Change some fields of the session's scenario."""
    save(replace(current(), **changes))


def notices() -> list[str]:
    """Problems found in the link this session was opened with."""
    current()
    return list(st.session_state.get(_NOTICES, []))


def link_choice(param: str, widget_key: str, choices: Sequence[Any], default: Any) -> None:
    """Start a page's own widget (``widget_key``) from the link's ``param``, once per session.

    A value that is not one of ``choices`` becomes a notice and ``default``. Call before the
    widget is drawn, and draw it without ``value=`` (its value is already in session_state).
    """
    if widget_key in st.session_state:
        return
    value = default
    raw = st.query_params.get(param)
    if raw is not None:
        by_text = {str(choice): choice for choice in choices}
        if raw in by_text:
            value = by_text[raw]
        else:
            current()
            allowed = ", ".join(by_text)
            st.session_state[_NOTICES] = [
                *notices(),
                f"The link's '{param}' must be one of {allowed}; {default} is used.",
            ]
    st.session_state[widget_key] = value


def notation() -> Notation:
    """The lettering the learner chose."""
    return Notation(swapped=current().swapped)


def sync_url(extra: dict[str, str] | None = None) -> None:
    """Write the scenario (plus page-specific ``extra`` parameters) into the address bar, and
    show the same link in the sidebar with a copy button (the last call of every page)."""
    wanted = to_query(current()) | (extra or {})
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    with st.sidebar:
        st.markdown(
            "#### Share this view",
            help="This link restores the words, weights, seed and settings exactly.",
        )
        st.code(share_url(extra), language=None, wrap_lines=True)


def share_url(extra: dict[str, str] | None = None) -> str:
    """The full link that restores this page in this state."""
    base = st.context.url or ""
    return f"{base}?{urlencode(to_query(current()) | (extra or {}), safe=',')}"


def bound(
    widget: Callable[..., Any],
    key: str,
    value: Any,
    on_change: Callable[[Any], None],
    **kwargs: Any,
) -> Any:
    """Draw ``widget`` showing ``value``; a change by the learner calls ``on_change(new_value)``."""
    st.session_state[key] = value

    def _changed() -> None:
        on_change(st.session_state[key])

    return widget(key=key, on_change=_changed, **kwargs)


def sidebar_settings() -> None:
    """Projector mode, lettering and seed: the settings every page shares, in the sidebar."""
    scenario = current()
    with st.sidebar:
        st.markdown("#### Settings")
        bound(
            st.toggle,
            "ui.projector",
            scenario.projector,
            lambda v: update(projector=bool(v)),
            label="Projector mode (large type)",
            help="Bigger text and thicker lines for a classroom projector.",
        )
        bound(
            st.toggle,
            "ui.swapped",
            scenario.swapped,
            lambda v: update(swapped=bool(v)),
            label="Swap letters (q = target)",
            help=(
                "SpecViz writes p for the target model and q for the draft, as Leviathan et al. "
                "(2023). Chen et al. (2023) and many blog posts swap the letters; this switch "
                "relabels every formula and chart."
            ),
        )
        bound(
            st.number_input,
            "ui.seed",
            scenario.seed,
            lambda v: update(seed=int(v) if v is not None else scenario.seed),
            label="Random seed",
            min_value=0,
            max_value=MAX_SEED,
            step=1,
            help="Every random draw on every page uses this seed: same seed, same draws.",
        )
