"""Keep the change a learner makes right after their server changed (a replica died, the app
restarted): the first run of a new server session may carry it.

What happens without this (measured, benchmarks/README.md "A replica dies"): the browser
reconnects through the proxy to another replica within ~0.1 s and keeps showing its page, but
sends nothing — Streamlit's frontend asks for a run on reconnecting only if a run was in flight.
The learner's NEXT change then reaches a server session that has never run: its first
``rerun_script`` carries the query string (the state, as ``state.sync_url`` last wrote it) and
the value of every widget on the page, the changed one included. Streamlit cannot call that
widget's ``on_change`` (a new session has no widget metadata yet, so no callback runs), and
``state.bound`` then writes the URL's value into the widget before drawing it: the change is
undone on screen (the slider snaps back) — one lost change per learner per failover.

The fix, for the widgets drawn through ``state.bound``: on a session's first run, draw the widget
with the URL's value as its *default* instead of forcing it through ``st.session_state``. A
fresh page load sends no widget values, so the default shows, as before; a reconnected page
sends its values, the widget returns them (IDs depend on the key, not the value: they match
across replicas), and a value that differs from the URL's is the learner's change — applied with
the widget's own ``on_change``, then the page runs once more so that everything drawn before that
widget follows too. Buttons (a click as the first action after a failover) get the same through
:func:`button`.

Wiring (specviz/ui/state.py; nothing else changes):

- ``current()``: after reading the scenario from the URL, call ``reconnect.begin_session()``;
- ``bound(...)``: ``return reconnect.draw(widget, key, value, on_change, **kwargs)`` in place
  of its body (``draw`` does what ``bound`` does on every later run);
- ``sync_url()`` (the end of every run): call ``reconnect.end_run()`` last.

Pages with a plain ``st.button(..., on_click=...)`` may use ``reconnect.button`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

#: session_state: True from the run that read the state from the URL to that run's end.
FIRST_RUN = "specviz.reconnect.first_run"
#: session_state: a change from the browser was applied during this first run.
REPLAYED = "specviz.reconnect.replayed"

#: Widgets whose default is an ``index`` into ``options`` rather than a ``value``.
_BY_INDEX = ("selectbox", "radio")


def begin_session() -> None:
    """Called once per session, by the run that reads the lesson's state from the URL."""
    st.session_state[FIRST_RUN] = True


def first_run() -> bool:
    """True during a session's first run (no widget callback can have run before it)."""
    return bool(st.session_state.get(FIRST_RUN, False))


def draw(
    widget: Callable[..., Any],
    key: str,
    value: Any,
    on_change: Callable[[Any], None],
    **kwargs: Any,
) -> Any:
    """Draw ``widget`` showing ``value``; a change by the learner calls ``on_change(new)`` —
    also when the change arrives with a session's first run."""

    def _changed() -> None:
        on_change(st.session_state[key])

    if not first_run():
        st.session_state[key] = value
        return widget(key=key, on_change=_changed, **kwargs)
    shown = widget(key=key, on_change=_changed, **kwargs, **_default(widget, value, kwargs))
    if shown != value:  # the browser had a value the URL does not: the learner's change
        on_change(shown)
        st.session_state[REPLAYED] = True
    return shown


def button(
    place: Any,
    label: str,
    *,
    on_click: Callable[..., None],
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    **options: Any,
) -> bool:
    """``place.button(label, on_click=..., ...)`` (``place``: ``st`` or a container) whose click
    is not lost when it is the first thing a session receives."""
    clicked = place.button(label, on_click=on_click, args=args, kwargs=kwargs, **options)
    if clicked and first_run():  # Streamlit had no callback to call for it
        on_click(*args, **(kwargs or {}))
        st.session_state[REPLAYED] = True
    return clicked


def end_run() -> None:
    """Called at the end of every run: the first run is over; if it applied a change from the
    browser, run the page once more so that all of it shows the new state."""
    st.session_state[FIRST_RUN] = False
    if st.session_state.get(REPLAYED, False):
        st.session_state[REPLAYED] = False
        st.rerun()


def _default(widget: Callable[..., Any], value: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword that makes ``widget`` start at ``value``: ``index`` for a select box or a
    radio group (the position of ``value`` in ``options``), ``value`` for the others."""
    name = getattr(widget, "__name__", "")
    if name in _BY_INDEX:
        options = list(kwargs.get("options", ()))
        return {"index": options.index(value)} if value in options else {}
    return {"value": value}
