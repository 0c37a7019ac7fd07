"""Playground: set the target p and the draft q, and watch every part of the procedure follow."""

from dataclasses import replace

import streamlit as st

from specviz import acceptance_rate, expected_tokens_per_step, normalize, rejection_mass
from specviz.figures import captions
from specviz.figures.flow import flow_html
from specviz.figures.playground import (
    acceptance_figure,
    bucket_figure,
    distributions_figure,
    proof_figure,
)
from specviz.figures.style import ChartStyle, percent
from specviz.one_token import total_variation
from specviz.palette import Notation
from specviz.scenario import (
    MAX_TOKENS,
    MAX_WEIGHT,
    MIN_TOKENS,
    PRESETS,
    PROMPT,
    clean_label,
    random_scenario,
)
from specviz.ui import page, state

LESSON = "playground.lesson"

page.setup("Playground", ":material/tune:")
scenario = state.current()
note = state.notation()

st.title("Playground")
st.markdown(
    note.fill(
        f"Next word after *“{PROMPT}”*. Set how likely each word is under the big **target** "
        "{T} and the small **draft** {D}; every chart follows."
    )
)
st.caption(
    note.fill(
        "Notation: {T} = target (the big model), {D} = draft (the small one), as in Leviathan et "
        "al. (2023). Chen et al. (2023) and many blog posts swap the two letters — a classic "
        "source of inverted ratios; the *Swap letters* switch in the sidebar relabels everything."
    )
)
page.show_notices()


# ---------------------------------------------------------------- presets: one lesson per click
def _load_preset(preset) -> None:
    state.save(preset.apply(state.current()))
    st.session_state[LESSON] = preset.key


def _load_random() -> None:
    now = state.current()
    seed = (now.seed + 1) % 2**32
    state.save(random_scenario(now, seed))
    st.session_state[LESSON] = "random"


st.markdown("**Presets** — each one teaches one lesson:")
per_row = 3 if scenario.projector else 4  # projector type needs wider buttons
rows = -(-(len(PRESETS) + 1) // per_row)
buttons = [column for _ in range(rows) for column in st.columns(per_row)]
for column, preset in zip(buttons, PRESETS, strict=False):
    column.button(
        preset.title,
        key=f"preset.{preset.key}",
        on_click=_load_preset,
        args=(preset,),
        width="stretch",
    )
buttons[len(PRESETS)].button(
    "Random",
    key="preset.random",
    icon=":material/casino:",
    on_click=_load_random,
    help="Random weights from the next seed (shown in the sidebar), so it can be replayed.",
    width="stretch",
)
lesson_key = st.session_state.get(LESSON)
for preset in PRESETS:
    if preset.key == lesson_key:
        st.info(
            f"**{preset.title}.** {note.fill(preset.lesson_for(scenario.labels))}",
            icon=":material/school:",
        )
if lesson_key == "random":
    st.info(f"**Random** weights drawn with seed {scenario.seed}.", icon=":material/casino:")


# ---------------------------------------------------------------- the learner's own p and q
def _set_weight(field: str, i: int, value: int) -> None:
    now = state.current()
    weights = list(getattr(now, field))
    weights[i] = int(value)
    state.save(replace(now, **{field: tuple(weights)}))
    st.session_state.pop(LESSON, None)


def _set_label(i: int, value: str) -> None:
    now = state.current()
    labels = list(now.labels)
    labels[i] = clean_label(value) or labels[i]
    state.save(replace(now, labels=tuple(labels)))


def _token_widgets(i: int, word: str, slots: list, collapsed: bool) -> None:
    """The word and its two weight sliders, drawn into three slots (columns or one column)."""
    visibility = "collapsed" if collapsed else "visible"
    with slots[0]:
        state.bound(
            st.text_input,
            f"pg.word{i}",
            word,
            lambda v: _set_label(i, v),
            label=f"Word {i + 1}",
            label_visibility=visibility,
            max_chars=12,
        )
    with slots[1]:
        state.bound(
            st.slider,
            f"pg.p{i}",
            scenario.p_weights[i],
            lambda v: _set_weight("p_weights", i, v),
            label=note.fill(
                f"{{T}}({word})" if scenario.projector else f"target {{T}} weight of {word}"
            ),
            min_value=0,
            max_value=MAX_WEIGHT,
            label_visibility=visibility,
        )
    with slots[2]:
        state.bound(
            st.slider,
            f"pg.q{i}",
            scenario.q_weights[i],
            lambda v: _set_weight("q_weights", i, v),
            label=note.fill(
                f"{{D}}({word})" if scenario.projector else f"draft {{D}} weight of {word}"
            ),
            min_value=0,
            max_value=MAX_WEIGHT,
            label_visibility=visibility,
        )


def _controls() -> None:
    state.bound(
        st.slider,
        "pg.size",
        scenario.size,
        lambda v: state.save(state.current().resized(int(v))),
        label="Words in the vocabulary",
        min_value=MIN_TOKENS,
        max_value=MAX_TOKENS,
    )
    if scenario.projector:
        # One column per word: wide enough for large type, and it reads like the bar charts.
        # Past five words the labels would wrap letter by letter: say the order once instead.
        crowded = scenario.size > 5
        if crowded:
            st.markdown(
                note.fill(
                    "Each column: the word, its **target {T}** weight, then its "
                    "**draft {D}** weight."
                )
            )
        for i, (word, column) in enumerate(
            zip(scenario.labels, st.columns(scenario.size), strict=True)
        ):
            _token_widgets(i, word, [column] * 3, collapsed=crowded)
    else:
        head = st.columns([2, 3, 3])
        head[0].markdown("**word**")
        head[1].markdown(note.fill("**target {T}** weight"))
        head[2].markdown(note.fill("**draft {D}** weight"))
        for i, word in enumerate(scenario.labels):
            _token_widgets(i, word, st.columns([2, 3, 3], vertical_alignment="center"), True)
    st.caption(
        "Weights are relative: each model's weights are divided by their sum, so the charts show "
        "probabilities."
    )


if scenario.projector:
    _controls()
    charts = st.container()
else:
    controls, charts = st.columns([2, 3], gap="large")
    with controls:
        _controls()


# cache_resource, not cache_data: the figures are shared read-only (st.plotly_chart copies them),
# and unpickling a Plotly figure on every hit would cost more than building it.
@st.cache_resource(max_entries=128, show_spinner=False)
def _figures(
    labels: tuple[str, ...], p_weights: tuple, q_weights: tuple, projector: bool, swapped: bool
) -> dict:
    """Every chart of one state; cached across sessions, so a class on one preset shares it."""
    p, q = normalize(p_weights), normalize(q_weights)
    style = ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    builders = {
        "dist": (distributions_figure, captions.distributions_caption),
        "accept": (acceptance_figure, captions.acceptance_caption),
        "bucket": (bucket_figure, captions.bucket_caption),
        "proof": (proof_figure, captions.proof_caption),
    }
    return {
        key: (build(labels, p, q, style), describe(labels, p, q, style.notation))
        for key, (build, describe) in builders.items()
    }


with charts:
    try:
        p, q = scenario.distributions()
    except ValueError as problem:
        st.error(str(problem), icon=":material/error:")
        state.sync_url()
        st.stop()

    alpha = acceptance_rate(p, q)
    z = rejection_mass(p, q)
    gamma = st.select_slider(
        "Guesses per target call γ (for the last number)",
        options=list(range(1, 9)),
        value=4,
        key="pg.gamma",
    )
    m = st.columns(4)
    m[0].metric(
        "Acceptance α",
        percent(alpha),
        help=note.fill("Σ min({T}, {D}): the chance that a guess is kept."),
    )
    m[1].metric(
        "TV distance",
        percent(total_variation(p, q)),
        help=note.fill(
            "TV({T}, {D}) = ½ Σ |{T} − {D}|: how far the draft is from the target. α = 1 − TV."
        ),
    )
    m[2].metric(
        "Bucket Z",
        percent(z),
        help=note.fill("Σ max(0, {T} − {D}): the probability that a guess is rejected."),
    )
    m[3].metric(
        "Words/call",
        f"{expected_tokens_per_step(alpha, gamma):.2f}",
        help=f"With γ = {gamma} guesses: (1 − α^(γ+1)) / (1 − α). A target call checks γ "
        "guesses and always yields at least one word.",
    )
    st.markdown(
        f"A guess is kept **{percent(alpha)}** of the time (α = 1 − TV). "
        f"**P(rejection) = {percent(z)} = size of the bucket Z**: every rejection is refilled "
        f"from the bucket, so the words that come out follow the target exactly. "
        f"With γ = {gamma} guesses, one expensive target call yields "
        f"{expected_tokens_per_step(alpha, gamma):.2f} words on average instead of 1."
    )

    st.iframe(
        flow_html(scenario.labels, p, q, ChartStyle(scenario.projector, note), key="playground"),
        height="content",
        alt=note.fill(
            "Animated bars: per word, the draft's mass kept or bounced, and the "
            "kept mass plus bucket refills reaching the target {T}."
        ),
    )
    for key, (figure, caption) in _figures(
        scenario.labels,
        scenario.p_weights,
        scenario.q_weights,
        scenario.projector,
        scenario.swapped,
    ).items():
        page.chart(figure, caption, key=f"pg.chart.{key}")

state.sync_url()
