"""The Playground's controls: presets that each teach one lesson, and the weight editor. Every
change goes through the shared state, so the charts, the other pages and the share link follow."""

from __future__ import annotations

import streamlit as st

from specviz.limits import MAX_LABEL, MAX_TOKENS, MAX_WEIGHT, MIN_TOKENS
from specviz.links import LABEL_RULE, clean_label
from specviz.palette import Notation
from specviz.scenario import PRESETS, PRESETS_BY_KEY, Scenario, random_scenario
from specviz.ui import state


def _load_random() -> None:
    now = state.current()
    state.save(random_scenario(now, now.next_seed()))


def _pick(key: str) -> None:
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


def on_show(scenario: Scenario) -> tuple[str | None, tuple[str, ...]]:
    """What the preset picker shows for ``scenario``: the lesson on show and the words it names."""
    return current_lesson(scenario), scenario.labels


def preset_picker(scenario: Scenario, note: Notation) -> tuple[str | None, tuple[str, ...]]:
    """The presets menu, Random, and the lesson of the preset on show, in a slot that is always
    there (a box appearing above the sliders would redraw them and drop a keyboard user's focus).
    Returns what it shows (:func:`on_show`)."""
    lesson = current_lesson(scenario)
    pick, shuffle = st.columns([3, 2], vertical_alignment="bottom")
    state.bound(
        pick.selectbox,
        "pg.preset",
        lesson if lesson in PRESETS_BY_KEY else "",
        _pick,
        label="Preset",
        options=["", *PRESETS_BY_KEY],
        format_func=lambda k: PRESETS_BY_KEY[k].title if k else "your own weights",
        help="Each preset teaches one lesson; its lesson shows below.",
    )
    shuffle.button(
        "Random",
        key="preset.random",
        icon=":material/casino:",
        on_click=_load_random,
        help="Random weights from the next seed (in the link), so it can be replayed.",
        width="stretch",
    )
    slot = st.empty()
    if lesson == "random":
        slot.info(f"**Random** weights drawn with seed {scenario.seed}.", icon=":material/casino:")
    elif lesson is not None:
        preset = PRESETS_BY_KEY[lesson]
        slot.info(
            f"**{preset.title}.** {note.fill(preset.lesson_for(scenario.labels))}",
            icon=":material/school:",
        )
    return lesson, scenario.labels


#: session_state key of a word that was changed on its way in (shown once, as a toast).
_RENAMED = "pg.renamed"


def _rename(i: int, text: str) -> None:
    state.save(state.current().with_label(i, text))
    kept = state.current().labels[i]
    if kept != " ".join(str(text).split()):
        st.session_state[_RENAMED] = (
            f"The word was changed to '{kept}' ({LABEL_RULE})."
            if clean_label(text)
            else f"That word holds nothing that can be shown ({LABEL_RULE}); '{kept}' is kept."
        )


def _token_widgets(scenario: Scenario, note: Notation, i: int, slots: list) -> None:
    """Word ``i`` and its two weight sliders, drawn into three slots. Their labels say which is
    which; on a wide screen the header row says it once and the labels are hidden (CSS)."""
    word = scenario.labels[i]
    with slots[0]:
        state.bound(
            st.text_input,
            f"pg.word{i}",
            word,
            lambda v: _rename(i, v),
            label=f"Word {i + 1}",
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
                lambda v, model=model: state.save(state.current().with_weight(model, i, v)),
                label=note.fill(f"{role} {letter} weight of {word}"),
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
        label="Words in the vocabulary",
        min_value=MIN_TOKENS,
        max_value=MAX_TOKENS,
    )
    with st.container(key="pg-weights"):
        with st.container(key="pg-weights-head"):
            head = st.columns([2, 3, 3])
            head[0].markdown("**word**")
            head[1].markdown(note.fill("**target {T}**"))
            head[2].markdown(note.fill("**draft {D}**"))
        for i in range(scenario.size):
            row = st.columns([2, 3, 3], vertical_alignment="center")
            _token_widgets(scenario, note, i, row)
    if notice := st.session_state.pop(_RENAMED, None):
        # A toast, not a box: nothing is added above the widgets the learner is using.
        st.toast(notice, icon=":material/edit:")
    st.caption(
        "Weights are relative: each model's weights are divided by their sum, so the charts show "
        "probabilities."
    )
