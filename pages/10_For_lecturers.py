"""For lecturers: a 15-minute lesson plan through the pages, with the links to open at each step.

The text is docs/lecturers_guide.md, shown as it is in the repository: one text, two places.
"""

from pathlib import Path

import streamlit as st

from specviz.ui import page

page.setup("pages/10_For_lecturers.py")
page.show_notices()

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "lecturers_guide.md"
st.markdown(GUIDE.read_text(encoding="utf-8"))

page.finish()
