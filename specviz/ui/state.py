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
    dismiss_notices()


def update(**changes: Any) -> None:
    """Change some fields of the session's scenario."""
    save(replace(current(), **changes))


def notices() -> list[str]:
    """Problems found in the link this session was opened with."""
    current()
    return list(st.session_state.get(_NOTICES, []))


def link_param(param: str, key: str, parse: Callable[[str | None], tuple[Any, str | None]]) -> Any:
    """A page's own setting, read from the link's ``param`` once per session.

    ``parse(raw)`` turns the raw text (None when absent) into ``(value, notice)``; a notice joins
    the link's other notices. The value lives under the plain session key ``key`` (widget keys
    are forgotten on a page switch; this one is not) and is returned on every run.
    """
    if key not in st.session_state:
        value, notice = parse(st.query_params.get(param))
        st.session_state[key] = value
        if notice:
            current()
            st.session_state[_NOTICES] = [*notices(), notice]
    return st.session_state[key]


def choice_parser(
    param: str, choices: Sequence[Any], default: Any
) -> Callable[[str | None], tuple[Any, str | None]]:
    """A ``parse`` for :func:`link_param`: one of ``choices`` written as text, else ``default``."""
    by_text = {str(choice): choice for choice in choices}

    def parse(raw: str | None) -> tuple[Any, str | None]:
        if raw is None:
            return default, None
        if raw in by_text:
            return by_text[raw], None
        allowed = ", ".join(by_text)
        return default, f"The link's '{param}' must be one of {allowed}; {default} is used."

    return parse


def remember(key: str) -> Callable[[Any], None]:
    """An ``on_change`` for :func:`bound` that keeps a page setting under the plain key ``key``
    (read with :func:`link_param`) and answers the link's notices."""

    def store(value: Any) -> None:
        st.session_state[key] = value
        dismiss_notices()

    return store


def dismiss_notices() -> None:
    """The learner has acted: the link's notices no longer describe the page."""
    st.session_state[_NOTICES] = []


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
