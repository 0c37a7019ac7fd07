"""AppTest smoke test: app.py and every script in pages/ run without an exception or an st.error.

Pages are found by listing pages/*.py, so a new page is covered without touching this file. A page
reaches its script the way a real session does: AppTest of app.py, then switch_page("pages/...").
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest
from streamlit_server import (
    all_scripts,
    app_root,
    first_heading,
    main_script,
    page_id,
    page_scripts,
    run_script,
)

# An st.error a page shows on purpose with its default inputs: page id -> substrings of the message.
# (Keep it empty unless a page's lesson *is* an error box.)
EXPECTED_ERRORS: dict[str, tuple[str, ...]] = {}

SCRIPTS = all_scripts()


def _describe_exceptions(at: AppTest) -> str:
    return "\n".join(
        f"{e.value}\n" + "\n".join(getattr(e, "stack_trace", []) or []) for e in at.exception
    )


def test_app_layout_is_multipage() -> None:
    assert main_script().is_file(), f"no app.py in {app_root()}"
    assert page_scripts(), f"no page scripts in {app_root() / 'pages'}"


@pytest.mark.parametrize("script", SCRIPTS, ids=[page_id(s) for s in SCRIPTS])
def test_page_runs_cleanly(script) -> None:
    if not script.is_file():
        pytest.fail(f"{script} does not exist", pytrace=False)
    at = run_script(script)

    if at.exception:
        pytest.fail(f"{page_id(script)} raised:\n{_describe_exceptions(at)}", pytrace=False)

    allowed = EXPECTED_ERRORS.get(page_id(script), ())
    unexpected = [e.value for e in at.error if not any(s in e.value for s in allowed)]
    if unexpected:
        pytest.fail(f"{page_id(script)} shows st.error: {unexpected}", pytrace=False)

    if not first_heading(at):
        pytest.fail(f"{page_id(script)} has no title or heading in its main area", pytrace=False)
