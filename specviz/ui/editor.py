"""The Playground's controls: presets that each teach one lesson, and the weight editor.

Every change goes through the shared state (``state.save``), so the charts, the other pages and
the share link all follow.
"""

from __future__ import annotations

import streamlit as st

from specviz.limits import MAX_LABEL, MAX_TOKENS, MAX_WEIGHT, MIN_TOKENS
from specviz.palette import Notation
from specviz.scenario import PRESETS, Preset, Scenario, random_scenario
from specviz.ui import state

#: session_state key of the lesson on show (a preset's key, "random", or absent).
LESSON = "playground.lesson"


def _load_preset(preset: Preset) -> None:
    state.save(preset.apply(state.current()))
    st.session_state[LESSON] = preset.key


def _load_random() -> None:
    now = state.current()
    state.save(random_scenario(now, now.next_seed()))
    st.session_state[LESSON] = "random"


def preset_picker(scenario: Scenario, note: Notation) -> None:
    """One button per preset (plus Random), and the lesson of the one last loaded."""
    st.markdown("**Presets** — each one teaches one lesson:")
    per_row = 3 if scenario.projector else 4  # projector type needs wider buttons
    rows = -(-(len(PRESETS) + 1) // per_row)
    slots = [column for _ in range(rows) for column in st.columns(per_row)]
    for column, preset in zip(slots, PRESETS, strict=False):
        column.button(
            preset.title,
            key=f"preset.{preset.key}",
            on_click=_load_preset,
            args=(preset,),
            width="stretch",
        )
    slots[len(PRESETS)].button(
        "Random",
        key="preset.random",
        icon=":material/casino:",
        on_click=_load_random,
        help="Random weights from the next seed (shown in the sidebar), so it can be replayed.",
        width="stretch",
    )
    lesson = st.session_state.get(LESSON)
    for preset in PRESETS:
        if preset.key == lesson:
            st.info(
                f"**{preset.title}.** {note.fill(preset.lesson_for(scenario.labels))}",
                icon=":material/school:",
            )
    if lesson == "random":
        st.info(f"**Random** weights drawn with seed {scenario.seed}.", icon=":material/casino:")


def _set_weight(model: str, i: int, value: int) -> None:
    state.save(state.current().with_weight(model, i, value))
    st.session_state.pop(LESSON, None)  # the preset's lesson no longer describes the bars


def _token_widgets(scenario: Scenario, note: Notation, i: int, slots: list, collapsed: bool):
    """Word ``i`` and its two weight sliders, drawn into three slots (columns or one column)."""
    word = scenario.labels[i]
    visibility = "collapsed" if collapsed else "visible"
    with slots[0]:
        state.bound(
            st.text_input,
            f"pg.word{i}",
            word,
            lambda v: state.save(state.current().with_label(i, v)),
            label=f"Word {i + 1}",
            label_visibility=visibility,
            max_chars=MAX_LABEL,
        )
    for slot, model, letter, role in (
        (slots[1], "p", "{T}", "target"),
        (slots[2], "q", "{D}", "draft"),
    ):
        with slot:
            state.bound(
                st.slider,
                f"pg.{model}{i}",
                getattr(scenario, f"{model}_weights")[i],
                lambda v, model=model: _set_weight(model, i, v),
                label=note.fill(
                    f"{letter}({word})"
                    if scenario.projector
                    else f"{role} {letter} weight of {word}"
                ),
                min_value=0,
                max_value=MAX_WEIGHT,
                label_visibility=visibility,
            )


def weight_editor(scenario: Scenario, note: Notation) -> None:
    """Vocabulary size, then per word: its label and the target's and draft's weights."""
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
        for i, column in enumerate(st.columns(scenario.size)):
            _token_widgets(scenario, note, i, [column] * 3, collapsed=crowded)
    else:
        head = st.columns([2, 3, 3])
        head[0].markdown("**word**")
        head[1].markdown(note.fill("**target {T}** weight"))
        head[2].markdown(note.fill("**draft {D}** weight"))
        for i in range(scenario.size):
            row = st.columns([2, 3, 3], vertical_alignment="center")
            _token_widgets(scenario, note, i, row, collapsed=True)
    st.caption(
        "Weights are relative: each model's weights are divided by their sum, so the charts show "
        "probabilities."
    )
