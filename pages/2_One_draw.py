"""One draw at a time: the procedure as a story a lecturer can click through while talking."""

import streamlit as st

from specviz.figures.numbers import percent
from specviz.figures.player import HEAR_PLAYER_JS, player_html
from specviz.links import DRAWS, PLAYER_AT
from specviz.scenario import PRESETS_BY_KEY
from specviz.story import one_draw_story
from specviz.ui import page, state
from specviz.ui.editor import current_lesson, load_preset

page.setup("pages/2_One_draw.py")
note = state.notation()

st.title("One draw at a time")
page.intro(
    note.fill(
        "Follow single draws: ① the draft {D} proposes a word, ② the target {T} tests it: a "
        "random number u between 0 and 1 against its chance to be kept, a(x) = min(1, "
        "{T}(x)/{D}(x)), ③ a rejected proposal is replaced from the leftover bucket, ④ the "
        "emitted word joins the tally, which settles on {T}."
    )
)


def _new_draws() -> None:
    state.update(seed=state.current().next_seed())
    state.set_param(PLAYER_AT, 0)


def _moved() -> None:  # the player was paused or stepped: the link restores it there
    at = str((st.session_state.get("od.at") or {}).get("at"))  # untrusted: the start if odd
    state.set_param(PLAYER_AT, PLAYER_AT.read({PLAYER_AT.name: at})[0])


def story_controls() -> int:
    """Which words and weights, how many draws, a new story: the number of draws."""
    scenario = state.current()
    lesson = current_lesson(scenario)
    left, middle, right = st.columns([3, 2, 2], vertical_alignment="bottom")
    state.bound(
        left.selectbox,
        "od.preset",
        lesson if lesson in PRESETS_BY_KEY else "current",
        load_preset,
        label="Words and weights",
        options=["current", *PRESETS_BY_KEY],
        format_func=lambda k: "as on the Playground" if k == "current" else PRESETS_BY_KEY[k].title,
        help="The Playground's target and draft, or one of its presets.",
    )
    with middle:
        draws = state.param_widget(DRAWS, st.select_slider, label="Draws in the story")
    right.button(
        "New draws",
        icon=":material/refresh:",
        on_click=_new_draws,
        width="stretch",
        help="Draw a new story with the next seed (the seed is in the sidebar and in the link).",
    )
    return int(draws)


page.show_notices(DRAWS, PLAYER_AT)
projector = state.current().projector
# On a projector the player comes first (its own buttons are what the lecturer clicks).
draws = state.param(DRAWS) if projector else story_controls()
scenario, one = page.lesson()
summary = (
    f"Seed **{scenario.seed}**, {draws} draws. In the long run **{percent(one.alpha)}** of "
    f"proposals are accepted (α) and **{percent(one.z)}** go to the bucket (Z) — watch the tally "
    "approach the dashed target. Keys inside the player: → steps, K plays/pauses."
)
if not scenario.projector:  # on a projector the player comes first; this goes under it
    st.markdown(summary)
story = page.computed(one_draw_story, int(draws), scenario.seed)
# The player opens at the link's step. Its own moves change the link, not its document (a new one
# would reload it): the start is read again only when the story or its look changes.
if st.session_state.get("od.shown", (None,))[0] != (scenario, draws):
    st.session_state["od.shown"] = (scenario, draws), state.param(PLAYER_AT)
start = st.session_state["od.shown"][1]
st.container(key="od.player").iframe(
    page.figures(player_html, story, start, key=(scenario.seed, int(draws), start)),
    height="content",
    alt=note.fill(
        "Step-by-step player of speculative sampling: the draft's proposal, the acceptance test "
        "against a(x), the bucket draw on a rejection, and the tally of emitted words against {T}."
    ),
)
if projector:
    story_controls()
    st.markdown(summary)
with st.expander("Why the tally ends up on the target"):
    st.markdown(
        note.fill(
            "A word x arrives two ways. Proposed and kept: probability {D}(x)·min(1, {T}(x)/{D}(x))"
            " = min({T}(x), {D}(x)). From the bucket: P(rejection) · r(x) = Z · max(0, {T}(x) − "
            "{D}(x)) / Z = max(0, {T}(x) − {D}(x)). The two add up to {T}(x) exactly — the "
            "green and the dotted purple parts of each tally bar."
        )
    )
hear = st.components.v2.component("specviz.player_at", js=HEAR_PLAYER_JS)  # the same each run
hear(key="od.at", on_at_change=_moved)

state.sync_url()
