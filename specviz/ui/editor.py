"""The Playground's controls: presets that each teach one lesson, and the weight editor. Every
change goes through the shared state, so the charts, the other pages and the share link follow."""

from __future__ import annotations

import streamlit as st

from specviz.limits import MAX_PARAM_CHARS, MAX_TOKENS, MAX_WEIGHT, MIN_TOKENS
from specviz.links import clean_label, label_rule
from specviz.palette import Notation
from specviz.scenario import PRESETS, PRESETS_BY_KEY, Scenario, random_scenario
from specviz.text import say
from specviz.ui import presenter, state


def load_preset(key: str) -> None:
    """Load the preset ``key``'s words and weights (any other key changes nothing)."""
    if key in PRESETS_BY_KEY:
        state.save(PRESETS_BY_KEY[key].apply(state.current()))


def current_lesson(scenario: Scenario) -> str | None:
    """The preset whose weights the scenario has ("random" for the Random weights of its seed),
    or None. Derived from the state, so a share link brings the lesson box back with it."""
    for preset in PRESETS:
        if preset.apply(scenario) == scenario:
            return preset.key
    if random_scenario(scenario, scenario.seed) == scenario:
        return "random"
    return None


def preset_picker(scenario: Scenario, note: Notation) -> tuple[str | None, tuple[str, ...]]:
    """The presets menu, Random, and the lesson of the preset on show, in a slot that is always
    there (a box appearing above the sliders would redraw them and drop a keyboard user's focus);
    empty while a step of the lecturer's plan is on show, whose talking point says the lesson.
    Returns what it shows: the lesson on show and the words it names."""
    lesson = current_lesson(scenario)
    pick, shuffle = st.columns([3, 2], vertical_alignment="bottom")
    state.bound(
        pick.selectbox,
        "pg.preset",
        lesson if lesson in PRESETS_BY_KEY else "",
        load_preset,
        label=say("editor.preset"),
        options=["", *PRESETS_BY_KEY],
        format_func=lambda k: PRESETS_BY_KEY[k].title if k else say("editor.own_weights"),
        help=say("editor.preset_help"),
    )
    shuffle.button(
        say("editor.random"),
        key="preset.random",
        icon=":material/casino:",
        on_click=lambda: state.save(random_scenario(state.current(), state.current().next_seed())),
        help=say("editor.random_help"),
        width="stretch",
    )
    slot = st.empty()
    if presenter.on() or lesson is None:
        pass
    elif lesson == "random":
        slot.info(say("editor.random_lesson", seed=scenario.seed), icon=":material/casino:")
    else:
        preset = PRESETS_BY_KEY[lesson]
        said = note.fill(preset.lesson_for(scenario.labels))
        slot.info(say("editor.lesson", title=preset.title, lesson=said), icon=":material/school:")
    return lesson, scenario.labels


#: session_state key (and the word's number) of a word changed on its way in, said once.
_RENAMED = "pg.renamed"


def _rename(i: int, text: str) -> None:
    state.save(state.current().with_label(i, text))
    kept = state.current().labels[i]
    if kept != " ".join(str(text).split()):
        st.session_state[f"{_RENAMED}{i}"] = (
            say("editor.renamed", n=i + 1, kept=kept, rule=label_rule())
            if clean_label(text)
            else say("editor.empty_word", kept=kept, rule=label_rule())
        )


def _token_widgets(scenario: Scenario, note: Notation, i: int, slots: list) -> None:
    """Word ``i`` and its two weight sliders, drawn into three slots. Their labels say which is
    which; on a wide screen the header row says it once and the labels are hidden (CSS)."""
    word = scenario.labels[i]
    with slots[0]:  # cut by the characters a reader sees (clean_label), not by the box
        state.bound(
            st.text_input,
            f"pg.word{i}",
            word,
            lambda v: _rename(i, v),
            label=say("editor.word_n", n=i + 1),
            max_chars=MAX_PARAM_CHARS,
        )
    roles = (say("editor.target_weight", word=word), say("editor.draft_weight", word=word))
    for slot, model, label in zip(slots[1:], "pq", roles, strict=True):
        with slot:
            state.bound(
                st.slider,
                f"pg.{model}{i}",
                getattr(scenario, f"{model}_weights")[i],
                lambda v, model=model: state.save(state.current().with_weight(model, i, v)),
                label=note.fill(label),
                min_value=0,
                max_value=MAX_WEIGHT,
            )


def weight_editor(scenario: Scenario, note: Notation) -> None:
    """Vocabulary size, then per word: its label and the target's and draft's weights."""
    state.bound(
        st.slider,
        "pg.size",
        scenario.size,
        lambda v: state.save(state.current().resized(int(v))),
        label=say("editor.size"),
        min_value=MIN_TOKENS,
        max_value=MAX_TOKENS,
    )
    st.caption(say("editor.weights_note", rule=label_rule()))
    with st.container(key="pg-weights"):
        with st.container(key="pg-weights-head"):
            heads = ("word", "target {T}", "draft {D}")
            for column, head in zip(st.columns([2, 3, 3]), heads, strict=True):
                column.markdown(note.fill(f"**{head}**"))
        for i in range(scenario.size):
            row = st.columns([2, 3, 3], vertical_alignment="center")
            _token_widgets(scenario, note, i, row)
            slot = st.empty()  # its notice: under the row, and the rows below keep their places
            if notice := st.session_state.pop(f"{_RENAMED}{i}", None):
                slot.caption(f":material/edit: {notice}")
