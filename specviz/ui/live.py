"""The Playground's live view in the page: a Streamlit component (components v2, no iframe).

The browser redraws the view on every frame of a drag; the server hears of a gesture once, when
it ends, as a ``weights`` trigger, and saves it in the shared state (so the share link, the other
pages and a replica that takes over all follow).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from specviz.figures.live import LIVE_CSS, LIVE_JS, live_data
from specviz.figures.style import ChartStyle
from specviz.limits import MAX_WEIGHT
from specviz.links import QUALITY
from specviz.scenario import home_scenario
from specviz.ui import reconnect, state

KEY = "pg.live"
HOME_KEY = "home.live"
#: session_state: the number of the last gesture saved (echoed to the browser).
_GESTURE = "specviz.live.gesture"

_component = st.components.v2.component(
    "specviz.live", js=LIVE_JS, css=LIVE_CSS, isolate_styles=True
)


def gesture_weights(payload: Any, size: int) -> tuple[tuple[int, ...], tuple[int, ...], int] | None:
    """The target's and draft's weights and the gesture number of a ``weights`` trigger, or None
    if it is not what the view sends (two lists of ``size`` whole numbers in 0..MAX_WEIGHT and a
    whole gesture number): a message from a browser is untrusted input."""
    if not isinstance(payload, dict):
        return None
    p, q, gesture = payload.get("p"), payload.get("q"), payload.get("gesture")

    def whole(x: Any, top: float) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= top

    if not whole(gesture, 2**53):
        return None
    for weights in (p, q):
        if not isinstance(weights, list) or len(weights) != size:
            return None
        if not all(whole(w, MAX_WEIGHT) for w in weights):
            return None
    return tuple(p), tuple(q), gesture


def _apply(payload: Any) -> bool:
    current = state.current()
    parsed = gesture_weights(payload, current.size)
    if parsed is None:
        return False
    p, q, gesture = parsed
    state.save(replace(current, p_weights=p, q_weights=q))
    st.session_state[_GESTURE] = gesture
    return True


def _changed() -> None:
    _apply(st.session_state[KEY].get("weights"))


def live_view(gamma: int, style: ChartStyle) -> None:
    """Mount the live view for the session's words and weights, γ and look."""
    s = state.current()
    data = live_data(
        s.labels, s.p_weights, s.q_weights, gamma, style, st.session_state.get(_GESTURE, 0)
    )
    result = _component(key=KEY, data=data, on_weights_change=_changed)
    # A gesture that reaches a new server session as its first run (a replica died): Streamlit
    # has no callback to call for it yet (see specviz.ui.reconnect).
    if reconnect.first_run() and result.weights is not None and _apply(result.weights):
        st.session_state[reconnect.REPLAYED] = True


def _quality(payload: Any) -> int | None:
    """The quality of a ``quality`` trigger, if it is one Home offers."""
    value = payload.get("quality") if isinstance(payload, dict) else None
    ok = isinstance(value, int) and not isinstance(value, bool) and value in QUALITY.choices
    return value if ok else None


def _apply_quality(payload: Any) -> bool:
    quality = _quality(payload)
    if quality is None:
        return False
    state.set_param(QUALITY, quality)
    gesture = payload.get("gesture")
    if isinstance(gesture, int) and not isinstance(gesture, bool) and gesture >= 0:
        st.session_state[_GESTURE] = gesture
    return True


def _quality_changed() -> None:
    _apply_quality(st.session_state[HOME_KEY].get("quality"))


def home_view(style: ChartStyle) -> int:
    """Mount Home's example: the draft quality (moved in the browser), the pair and its
    numbers. Returns the quality the page shows."""
    quality = state.param(QUALITY)
    pair = home_scenario(quality)
    data = live_data(
        pair.labels, pair.p_weights, pair.q_weights, 4, style,
        st.session_state.get(_GESTURE, 0), quality=quality,
    )  # fmt: skip
    result = _component(key=HOME_KEY, data=data, on_quality_change=_quality_changed)
    if reconnect.first_run() and result.quality is not None and _apply_quality(result.quality):
        st.session_state[reconnect.REPLAYED] = True
    return state.param(QUALITY)
