"""Keep the change a learner makes right after their server changed (a replica died, the app
restarted).

The browser reconnects to another replica and sends nothing until the learner's next change,
which reaches a session that has never run (benchmarks/README.md "A replica dies"). That first
run carries the URL and every widget's value, but Streamlit calls no ``on_change`` (a new session
has no widget metadata), so forcing the URL's value into the widget would undo the change.
Instead, on a session's first run :func:`draw` gives each widget the URL's value as its
*default*: a fresh page load shows it, a reconnected page returns its own value (widget IDs
depend on the key, so they match across replicas), and a value that differs is the learner's
change, applied with the widget's ``on_change``; :func:`end_run` then runs the page once more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

#: session_state: True from the run that read the state from the URL to that run's end.
FIRST_RUN = "specviz.reconnect.first_run"
#: session_state: a change from the browser was applied during this first run.
REPLAYED = "specviz.reconnect.replayed"


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
    # The URL's value as the widget's default: a select box or a radio group takes its index.
    start = {"value": value}
    if getattr(widget, "__name__", "") in ("selectbox", "radio"):
        options = list(kwargs.get("options", ()))
        start = {"index": options.index(value)} if value in options else {}
    shown = widget(key=key, on_change=_changed, **kwargs, **start)
    if shown != value:  # the browser had a value the URL does not: the learner's change
        on_change(shown)
        st.session_state[REPLAYED] = True
    return shown


def end_run() -> None:
    """Called at the end of every run: the first run is over; if it applied a change from the
    browser, run the page once more so that all of it shows the new state."""
    st.session_state[FIRST_RUN] = False
    if st.session_state.get(REPLAYED, False):
        st.session_state[REPLAYED] = False
        st.rerun()
