"""AppTest smoke test: app.py and every script in pages/ run without an exception or an st.error.

Pages are found by listing pages/*.py, so a new page is covered without touching this file. A page
reaches its script the way a real session does: AppTest of app.py, then switch_page("pages/...").
Then what every page shares: the menu, the notices of a bad link to a page's own setting, and the
message when one model has no weight left.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pyarrow as pa
import pytest
from helpers import REPO, assert_alive, chart_numbers, component_data, open_page, query
from streamlit_server import (
    all_scripts,
    app_root,
    first_heading,
    main_script,
    page_id,
    page_scripts,
    run_script,
)

from specviz.figures import vega
from specviz.figures.tables import markdown_table
from specviz.ui.page import PAGES
from specviz.ui.state import FOLLOW

pytestmark = pytest.mark.slow  # the app under AppTest

# An st.error a page shows on purpose with its default inputs: page id -> substrings of the message.
# (Keep it empty unless a page's lesson *is* an error box.)
EXPECTED_ERRORS: dict[str, tuple[str, ...]] = {}

SCRIPTS = all_scripts()
PLAYGROUND = "pages/1_Playground.py"
#: The pages that show the Playground's words and weights: an all-zero model sends them back.
WEIGHTED = {"One draw at a time", "Monte Carlo", "Bug zoo", "Why it's exact", "The debate"}
WEIGHTED |= {"Is it just rejection sampling?", "Variants lab"}


def test_app_layout_is_multipage() -> None:
    assert main_script().is_file(), f"no app.py in {app_root()}"
    assert page_scripts(), f"no page scripts in {app_root() / 'pages'}"


@pytest.mark.parametrize("script", SCRIPTS, ids=[page_id(s) for s in SCRIPTS])
def test_page_runs_cleanly(script) -> None:
    if not script.is_file():
        pytest.fail(f"{script} does not exist", pytrace=False)
    at = run_script(script)
    assert_alive(at)

    allowed = EXPECTED_ERRORS.get(page_id(script), ())
    unexpected = [e.value for e in at.error if not any(s in e.value for s in allowed)]
    if unexpected:
        pytest.fail(f"{page_id(script)} shows st.error: {unexpected}", pytrace=False)

    if not first_heading(at):
        pytest.fail(f"{page_id(script)} has no title or heading in its main area", pytrace=False)


def test_the_menu_lists_every_page_once() -> None:
    listed = [REPO / info.script for info in PAGES]
    assert [p.resolve() for p in listed] == [s.resolve() for s in SCRIPTS]
    at = open_page("app.py")
    links = [link.proto.label for link in at.sidebar.get("page_link")]
    assert links == [info.label for info in PAGES]


# --------------------------------------------------------------------------- a page's own setting

#: script -> (its own link parameter, a bad value, the notice's end: what the page uses instead)
OWN_SETTING = {
    "app.py": ("quality", "7", "; the page uses draft quality 30%."),
    PLAYGROUND: ("gamma", "99", "; the page uses γ = 4."),
    "pages/2_One_draw.py": ("draws", "abc", "; the page uses 50 draws."),
    "pages/3_Monte_Carlo.py": ("n", "2B", "; the page uses N = 10,000."),
    "pages/4_Bug_zoo.py": ("bug", "correct", "; the page uses 'Rejection resamples from p'."),
    "pages/5_Many_words_per_call.py": ("pair", "zzz", "; the page uses 'The n-gram pair'."),
    "pages/9_The_debate.py": ("c", "7", "; the page uses c = 0.1."),
    "pages/6_Why_its_exact.py": ("case", "zzz", "; the page uses your own target and draft."),
    "pages/7_Rejection_sampling.py": ("runs", "7", "; the page uses 10,000 words."),
    "pages/8_Variants_lab.py": ("variant", "float32_leq", "; the page uses 'Correct rule'."),
    "pages/11_Ask_the_room.py": ("room", "0OIL11", "; the page uses no room."),
}


@pytest.mark.parametrize("script", list(OWN_SETTING))
def test_a_bad_own_setting_is_told_on_the_first_visit(script: str) -> None:
    """The notice shows on the run that read the link, whether the widget comes before or after
    the notices on the page, and the page writes the value it uses back into the link."""
    name, bad, end = OWN_SETTING[script]
    at = open_page(script, {name: bad})
    notices = [w.value for w in at.warning]
    assert len(notices) == 1 and "This link had problems" in notices[0], notices
    assert f"The link's '{name}'" in notices[0] and notices[0].endswith(end), notices[0]
    assert query(at).get(name) != bad


#: Pages that have no setting of their own (nothing for a link to carry but the shared state).
NO_OWN_SETTING = {"pages/10_For_lecturers.py"}


def test_every_own_setting_is_covered() -> None:
    assert set(OWN_SETTING) | NO_OWN_SETTING == {info.script for info in PAGES}


# --------------------------------------------------------------------------- no weights left


@pytest.mark.parametrize("model", ["p", "q"])
@pytest.mark.parametrize("script", [i.script for i in PAGES[2:] if i.label in WEIGHTED])
def test_other_pages_send_an_all_zero_model_to_the_playground(script: str, model: str) -> None:
    """All of one model's weights set to 0 with the Playground's sliders, then another page: it
    has no sliders, so it says where the weights are set and links there."""
    at = open_page(PLAYGROUND, via_home=True)
    at.session_state["pg.edit"] = True  # the weight editor, open
    at.run()
    for i in range(4):
        at.slider(key=f"pg.{model}{i}").set_value(0)
    at.run()
    assert not at.error  # the Playground's live view says it, and keeps its bars to raise
    at.switch_page(script).run()
    assert_alive(at)
    (message,) = [e.value for e in at.error]
    name = "target" if model == "p" else "draft"
    assert message.startswith(f"All the {name}'s weights are zero"), message
    assert "slider" not in message.lower()
    assert message.endswith("on the Playground.")
    links = [link.proto for link in at.main.get("page_link")]
    assert [(link.label, link.page) for link in links] == [("Open the Playground", "Playground")]
    assert not at.get("plotly_chart") and not at.get("vega_lite_chart") and not at.get("iframe")
    assert not at.metric
    # The link still describes the state, so it can be shared to get help.
    assert query(at)[model] == "0,0,0,0"


@pytest.mark.parametrize("info", PAGES, ids=[info.label for info in PAGES])
def test_only_a_live_view_moves_the_share_link_in_the_browser(info) -> None:
    """The link's parameters the browser may rewrite (share.js): the bars' weights on the
    Playground, the quality on Home, none elsewhere — even after a run that mounted a live view
    and stopped before writing its link (it left its parameters in the session)."""
    at = open_page(info.script)
    at.session_state[FOLLOW] = ["p", "q"]
    at.run()
    assert_alive(at)
    want = {"Home": ["quality"], "Playground": ["p", "q"]}.get(info.label, [])
    assert component_data(at, "specviz.share")["follow"] == want
    assert component_data(at, "specviz.share")["link"].endswith(urlencode(query(at), safe=","))


@pytest.mark.parametrize(
    "script",
    [
        "pages/4_Bug_zoo.py",
        "pages/6_Why_its_exact.py",
        "pages/7_Rejection_sampling.py",
        "pages/8_Variants_lab.py",
    ],
)
def test_a_pages_metrics_are_heard_as_they_read(script) -> None:
    """A page's row of metrics is said to a screen reader too, once a change moves it: each
    label with the value on show, in one sentence for the page's live region."""
    at = open_page(script)
    shown = [(m.label, m.value) for m in at.metric]
    assert shown and component_data(at, "specviz.heard") == " ".join(
        f"{label}: {value}." for label, value in shown
    )


@pytest.mark.parametrize("info", PAGES, ids=lambda info: info.key)
def test_every_charts_numbers_are_a_table_a_keyboard_opens(info) -> None:
    """Under each chart whose bars have tooltips, a folded table of what they say (for a reader
    who cannot hover: a screen reader, a keyboard, a phone), made from the chart the page sent."""
    at = open_page(info.script)
    wanted = []
    for chart in at.get("vega_lite_chart"):
        rows = {
            d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist()
            for d in chart.proto.datasets
        }
        tables = vega.numbers(json.loads(chart.proto.spec) | {"datasets": rows})
        wanted += ["\n\n".join(map(markdown_table, tables))] if tables else []
    assert chart_numbers(at) == wanted
    assert all("| --- |" in table for table in wanted)
