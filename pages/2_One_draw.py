"""One draw at a time: the procedure as a story a lecturer can click through while talking."""

import streamlit as st

from specviz.figures.numbers import percent
from specviz.figures.player import player_html
from specviz.links import DRAWS
from specviz.scenario import PRESETS_BY_KEY
from specviz.story import one_draw_story
from specviz.ui import page, state
from specviz.ui.editor import current_lesson

page.setup("pages/2_One_draw.py")
note = state.notation()

st.title("One draw at a time")
page.intro(
    note.fill(
        "Follow single draws: ① the draft {D} proposes a word, ② the target {T} tests it with a "
        "uniform u against a(x) = min(1, {T}(x)/{D}(x)), ③ a rejected proposal is replaced from "
        "the leftover bucket, ④ the emitted word joins the tally, which settles on {T}."
    )
)


def _load_preset(key: str) -> None:
    if key in PRESETS_BY_KEY:  # "current" keeps the Playground's pair
        state.save(PRESETS_BY_KEY[key].apply(state.current()))


def _new_draws() -> None:
    state.update(seed=state.current().next_seed())


def story_controls() -> int:
    """Which words and weights, how many draws, a new story: the number of draws."""
    scenario = state.current()
    lesson = current_lesson(scenario)
    left, middle, right = st.columns([3, 2, 2], vertical_alignment="bottom")
    state.bound(
        left.selectbox,
        "od.preset",
        lesson if lesson in PRESETS_BY_KEY else "current",
        _load_preset,
        label="Words and weights",
        options=["current", *PRESETS_BY_KEY],
        format_func=lambda k: "as on the Playground" if k == "current" else PRESETS_BY_KEY[k].title,
        help="The Playground's target and draft, or one of its presets.",
    )
    with middle:
        draws = state.param_widget(
            DRAWS, st.select_slider, label="Draws in the story", options=DRAWS.choices
        )
    right.button(
        "New draws",
        icon=":material/refresh:",
        on_click=_new_draws,
        width="stretch",
        help="Draw a new story with the next seed (the seed is in the sidebar and in the link).",
    )
    return int(draws)


page.show_notices(DRAWS)
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
st.container(key="od.player").iframe(
    page.figures(player_html, story, key=(scenario.seed, int(draws))),
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

page.finish()
