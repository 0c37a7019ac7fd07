"""One draw at a time: the procedure as a story a lecturer can click through while talking."""

import streamlit as st

from specviz import acceptance_rate, normalize, rejection_mass
from specviz.figures.player import player_html
from specviz.figures.style import ChartStyle, percent
from specviz.palette import Notation
from specviz.scenario import PRESETS_BY_KEY
from specviz.story import one_draw_story
from specviz.ui import page, state

DRAW_CHOICES = (20, 50, 200, 500)
DRAWS_KEY = "od.n_draws"  # a plain key: it survives page switches (widget keys do not)

page.setup("One draw at a time", ":material/casino:")
scenario = state.current()
note = state.notation()

st.title("One draw at a time")
st.markdown(
    note.fill(
        "Follow single draws: ① the draft {D} proposes a word, ② the target {T} tests it with a "
        "uniform u against a(x) = min(1, {T}(x)/{D}(x)), ③ a rejected proposal is replaced from "
        "the leftover bucket, ④ the emitted word joins the tally, which settles on {T}."
    )
)


def _load_preset() -> None:
    key = st.session_state["od.preset"]
    if key in PRESETS_BY_KEY:
        state.save(PRESETS_BY_KEY[key].apply(state.current()))


def _new_draws() -> None:
    state.update(seed=(state.current().seed + 1) % 2**32)


left, middle, right = st.columns([3, 2, 2], vertical_alignment="bottom")
left.selectbox(
    "Words and weights",
    ["current", *PRESETS_BY_KEY],
    format_func=lambda k: "as on the Playground" if k == "current" else PRESETS_BY_KEY[k].title,
    key="od.preset",
    on_change=_load_preset,
    help="The Playground's target and draft, or one of its presets.",
)
with middle:
    draws = state.bound(
        st.select_slider,
        "od.draws",
        state.link_param("draws", DRAWS_KEY, state.choice_parser("draws", DRAW_CHOICES, 50)),
        state.remember(DRAWS_KEY),
        label="Draws in the story",
        options=DRAW_CHOICES,
    )
right.button(
    "New draws",
    icon=":material/refresh:",
    on_click=_new_draws,
    width="stretch",
    help="Draw a new story with the next seed (the seed is in the sidebar and in the link).",
)


@st.cache_data(max_entries=256, show_spinner=False)
def _player(
    labels: tuple[str, ...], pw: tuple, qw: tuple, seed: int, n: int, projector: bool, swapped: bool
) -> str:
    """The player page for one state; cached across sessions (a class on one preset shares it)."""
    p, q = normalize(pw), normalize(qw)
    style = ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    return player_html(labels, p, q, one_draw_story(p, q, n, seed=seed), style)


page.show_notices()
try:
    p, q = scenario.distributions()
except ValueError as problem:
    st.error(str(problem), icon=":material/error:")
    state.sync_url({"draws": str(draws)})
    st.stop()

alpha, z = acceptance_rate(p, q), rejection_mass(p, q)
st.markdown(
    f"Seed **{scenario.seed}**, {draws} draws. In the long run **{percent(alpha)}** of proposals "
    f"are accepted (α) and **{percent(z)}** go to the bucket (Z) — watch the tally approach the "
    "dashed target. Keys inside the player: → steps, K plays/pauses."
)
html = _player(
    scenario.labels,
    scenario.p_weights,
    scenario.q_weights,
    scenario.seed,
    int(draws),
    scenario.projector,
    scenario.swapped,
)
st.iframe(
    html,
    height="content",
    alt=note.fill(
        "Step-by-step player of speculative sampling: the draft's proposal, the acceptance test "
        "against a(x), the bucket draw on a rejection, and the tally of emitted words against {T}."
    ),
)
with st.expander("Why the tally ends up on the target"):
    st.markdown(
        note.fill(
            "A word x arrives two ways. Proposed and kept: probability {D}(x)·min(1, {T}(x)/{D}(x))"
            " = min({T}(x), {D}(x)). From the bucket: P(rejection) · r(x) = Z · max(0, {T}(x) − "
            "{D}(x)) / Z = max(0, {T}(x) − {D}(x)). The two add up to {T}(x) exactly — the "
            "green and the dotted purple parts of each tally bar."
        )
    )

state.sync_url({"draws": str(draws)})
