"""Variants lab: every rule that is not a mistake, on the same target, draft and seed."""

import streamlit as st

from specviz.figures.numbers import percent, significant, thousands, tv_text
from specviz.figures.tables import markdown_table
from specviz.figures.variants import lab_figures, run_verdict
from specviz.limits import LAB_RUNS
from specviz.links import LAB_PARAMS, VARIANT, VARIANTS
from specviz.rules import RULES
from specviz.text import say, titles
from specviz.ui import page, state
from specviz.zoo import rule_check

page.setup("pages/8_Variants_lab.py")
scenario, note = state.current(), state.notation()

st.title(say("variants.title"))
if not scenario.projector:  # on a projector the control and its chart come first
    st.markdown(note.fill(say("variants.intro")))


@page.part
def lesson() -> None:
    """Everything the rule and its settings move."""
    scenario = state.current()
    page.show_notices(*LAB_PARAMS)
    key = state.param_widget(
        VARIANT,
        st.selectbox if scenario.projector else st.radio,  # a menu where room is short
        label=say("variants.look"),
        format_func=lambda k: note.fill(RULES[k].title),
        **({} if scenario.projector else {"horizontal": True}),
    )
    upper, lower = st.container(), st.container()  # projector: the chart goes above the sliders
    sliders = (lower if scenario.projector else upper).columns(3)
    labels = titles("variants", ("k_label", "eps_label", "delta_label")).values()
    tips = titles("variants", ("k_help", "eps_help", "delta_help")).values()
    controls = {  # k, eps, delta
        link.name: state.param_widget(link, box.select_slider, label=label, help=note.fill(tip))
        for link, box, label, tip in zip(LAB_PARAMS[1:], sliders, labels, tips, strict=True)
    }
    page.lesson()  # the step, or a message and the end of the page
    params = {
        name: tuple((p.name, controls[p.name]) for p in RULES[name].params) for name in VARIANTS
    }
    checks = tuple(
        page.computed(rule_check, n, scenario.seed, LAB_RUNS, params[n]) for n in VARIANTS
    )
    selected = VARIANTS.index(key)
    figures = page.figures(
        lab_figures, checks, selected, key=(scenario.seed, *controls.values(), selected)
    )
    check = checks[selected]

    with upper if scenario.projector else lower:
        page.chart(*figures["variant"], key="lab.chart.variant")
    distance = note.fill(say("variants.distance_metric"))
    tv, band, p_value = (
        tv_text(check.run_tv),
        tv_text(check.band_upper),
        significant(check.gof.p_value),
    )
    about = say(
        "variants.check_help", verdict=run_verdict(check), tv=tv, band=band, p_value=p_value
    )
    page.metrics(
        (say("variants.kept"), percent(check.acceptance), say("variants.kept_help")),
        (distance, tv_text(check.tv), note.fill(say("variants.distance_help"))),
        (
            say("variants.check_metric", n=thousands(LAB_RUNS)),
            say("variants.fails") if check.stands_out else say("variants.passes"),
            about,
        ),
    )
    st.markdown(note.fill(say("variants.what_why", what=check.rule.what, why=check.rule.why)))
    st.caption(say("variants.source", source=note.fill(check.rule.source)))

    st.header(say("variants.side_by_side"))
    st.markdown(markdown_table(figures["table"]))
    page.chart(*figures["tradeoff"], key="lab.chart.tradeoff")
    st.caption(note.fill(say("variants.best")))


lesson()
state.sync_url()
