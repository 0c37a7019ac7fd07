"""The Playground's live view in the page: a Streamlit component (components v2, no iframe).

The browser redraws the view on every frame of a drag; the server hears of a gesture once, when
it ends, as a ``weights`` trigger, and saves it in the shared state (so the share link, the other
pages and a replica that takes over all follow).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import streamlit as st

from specviz.figures.live import LIVE_CSS, LIVE_JS, live_data
from specviz.figures.style import ChartStyle
from specviz.links import P_WEIGHTS, Q_WEIGHTS, QUALITY, Param
from specviz.scenario import Scenario, home_scenario
from specviz.ui import reconnect, state

#: session_state: the number of the last gesture saved (echoed to the browser).
_GESTURE = "specviz.live.gesture"

_component = st.components.v2.component(
    "specviz.live", js=LIVE_JS, css=LIVE_CSS, isolate_styles=True
)


def _whole(x: Any, top: float) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= top


def gesture_weights(payload: Any, current: Scenario) -> tuple[Scenario, int] | None:
    """The scenario a ``weights`` trigger moves ``current`` to, and its gesture number; None if
    it is not what the view sends (two lists of weights the Scenario takes, a whole gesture
    number): a message from a browser is untrusted input."""
    if not isinstance(payload, dict) or not _whole(payload.get("gesture"), 2**53):
        return None
    p, q = payload.get("p"), payload.get("q")
    if not (isinstance(p, list) and isinstance(q, list)):
        return None
    try:  # the Scenario refuses weights that break its invariants
        return replace(current, p_weights=tuple(p), q_weights=tuple(q)), payload["gesture"]
    except ValueError:
        return None


def _apply_weights(payload: Any) -> bool:
    parsed = gesture_weights(payload, state.current())
    if parsed is None:
        return False
    state.save(parsed[0])
    st.session_state[_GESTURE] = parsed[1]
    return True


def _apply_quality(payload: Any) -> bool:
    """Home's ``quality`` trigger: a quality Home offers, and a whole gesture number."""
    if not isinstance(payload, dict) or not _whole(payload.get("gesture"), 2**53):
        return False
    quality = payload.get("quality")
    if not _whole(quality, 100) or quality not in QUALITY.choices:
        return False
    state.set_param(QUALITY, quality)
    st.session_state[_GESTURE] = payload["gesture"]
    return True


def _mount(
    key: str, data: dict, event: str, apply: Callable[[Any], bool], moves: tuple[Param, ...]
) -> None:
    """Mount the view, whose ``moves`` (link parameters) the share link follows in the browser;
    ``apply`` applies its ``event`` trigger, also on a new server's first run (a replica died:
    Streamlit has no callback for it yet, see :mod:`specviz.ui.reconnect`)."""
    # ``get``: a client that sends a trigger without the view's state must not break the page.
    callback = {f"on_{event}_change": lambda: apply((st.session_state.get(key) or {}).get(event))}
    result = _component(key=key, data=data, **callback)
    st.session_state[state.FOLLOW] = [param.name for param in moves]
    sent = getattr(result, event)
    if reconnect.first_run() and sent is not None and apply(sent):
        st.session_state[reconnect.REPLAYED] = True


def live_view(gamma: int, cost: float, style: ChartStyle) -> None:
    """Mount the Playground's view for the session's words and weights, γ, draft cost and look."""
    s = state.current()
    gesture = st.session_state.get(_GESTURE, 0)
    data = live_data(s.labels, s.p_weights, s.q_weights, gamma, style, gesture, cost=cost)
    _mount("pg.live", data, "weights", _apply_weights, (P_WEIGHTS, Q_WEIGHTS))


def home_view(style: ChartStyle, tally: tuple[dict[str, list[str]], str]) -> None:
    """Mount Home's example: the draft quality (moved in the browser), the pair, its numbers, and
    its ``tally`` (:func:`specviz.figures.exactness.home_tally`)."""
    quality = state.param(QUALITY)
    pair = home_scenario(quality)
    gesture = st.session_state.get(_GESTURE, 0)
    data = live_data(
        pair.labels, pair.p_weights, pair.q_weights, 4, style, gesture, quality, tally=tally
    )
    _mount("home.live", data, "quality", _apply_quality, (QUALITY,))
