"""The timeline of "Many words per call" in the page: a Streamlit component (components v2, no
iframe), mounted once and handed each run's data, so that a control redraws it in place."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from specviz.decoding import Decoding
from specviz.figures.decoding import TIMELINE_CSS, TIMELINE_JS, timeline_data
from specviz.figures.style import ChartStyle

KEY = "dec.timeline"

_component = st.components.v2.component(
    "specviz.timeline", js=TIMELINE_JS, css=TIMELINE_CSS, isolate_styles=True
)


def timeline(words: Sequence[str], run: Decoding, style: ChartStyle) -> None:
    """Mount the timeline of ``run`` (its text written with ``words``)."""
    _component(key=KEY, data=timeline_data(words, run, style))
