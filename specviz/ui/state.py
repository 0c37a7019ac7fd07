"""The state the pages share and the settings each page keeps, tied to the URL.

The lesson's :class:`~specviz.scenario.Scenario` and each page setting (a
:class:`~specviz.links.Param`) are read from the URL once per session and written back on every
run (:func:`sync_url`), so the address bar always restores what is on screen, on any replica.
Widgets take their value from the state and copy a change back in ``on_change`` (:func:`bound`),
so presets, links and widgets never disagree, and a page switch loses nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from specviz.figures.numbers import as_written
from specviz.limits import MAX_SEED
from specviz.links import LANGUAGE, Param
from specviz.palette import Notation
from specviz.scenario import Scenario, from_query, to_query
from specviz.text import LANGUAGES, otherwise, say, titles, use
from specviz.ui import reconnect

_SCENARIO = "specviz.scenario"
_NOTICES = "specviz.notices"
_PAGE_PARAMS = "specviz.page_params"  # the Params the current run's page reads, in order
_SHARED_RUNS = "specviz.share.runs"  # session_state: links written, numbering them
FOLLOW = "specviz.share.follow"  # session_state: the link's parameters a live view moves
_SHARE_WORDS = ("copy", "copied", "selected")
#: The language a document declares for each of SpecViz's (BCP 47: the script for Chinese).
DOCUMENT_LANGUAGE = {"en": "en", "es": "es", "zh": "zh-Hans"}


def asset(name: str) -> str:
    """The text of ``name``, a file of this package (a component's script, a style sheet)."""
    return Path(__file__).with_name(name).read_text("utf-8")


def _session_language() -> str:
    scenario = (
        st.session_state.get(_SCENARIO) if get_script_run_ctx(suppress_warning=True) else None
    )
    return scenario.language if scenario else "en"


otherwise(_session_language)  # a callback or a fragment in a new script thread speaks the session's

_tab_focus = st.components.v2.component("specviz.tab_focus", js=asset("tab_focus.js"))
_share = st.components.v2.component("specviz.share", js=asset("share.js"), css=asset("share.css"))


def current() -> Scenario:
    """The session's scenario, restored from the URL on the session's first run."""
    if _SCENARIO not in st.session_state:
        reread()
        st.session_state[reconnect.FIRST_RUN] = True
    return st.session_state[_SCENARIO]


def browser_language() -> str:
    """The first of SpecViz's languages the learner's browser asks for ("es-AR" is Spanish, every
    Chinese is the simplified one SpecViz writes), or English."""
    asked = st.context.locale or st.context.headers.get("Accept-Language", "")
    for tag in asked.replace(";", ",").split(","):
        code = tag.strip().split("-")[0].lower()
        if code in LANGUAGES:
            return code
    return "en"


def reread() -> None:
    """Take the whole state from the URL again, as a new session does (a step of the plan): a
    link without a language opens in the browser's."""
    query = st.query_params.to_dict()
    query.setdefault(LANGUAGE.name, browser_language())
    use(LANGUAGE.read(query)[0])  # the link's notices are said in it
    st.session_state[_SCENARIO], st.session_state[_NOTICES] = from_query(query)
    for key in [k for k in st.session_state if str(k).startswith("specviz.param.")]:
        del st.session_state[key]  # each page setting is read from the URL again


def save(scenario: Scenario) -> None:
    """Replace the session's scenario (the link's notices are answered once the learner acts)."""
    st.session_state[_SCENARIO] = scenario
    st.session_state[_NOTICES] = []


def update(**changes: Any) -> None:
    """Change some fields of the session's scenario."""
    save(replace(current(), **changes))


def notation() -> Notation:
    """The lettering the learner chose."""
    return current().notation


def notices() -> list[str]:
    """Problems found in the link this session was opened with."""
    current()
    return list(st.session_state.get(_NOTICES, []))


def start_run() -> None:
    """Speak the session's language, and forget the settings the last run read and what its live
    view moved (``page.setup``, before anything on the page is said)."""
    use(current().language)
    st.session_state[_PAGE_PARAMS] = []
    st.session_state.pop(FOLLOW, None)


def _key(param: Param[Any]) -> str:
    return f"specviz.param.{param.name}"


def param(link: Param[Any]) -> Any:
    """This page's value of a link parameter: read from the URL once per session (a bad value
    becomes a notice and the default), then kept; reading it puts it in this page's link."""
    key = _key(link)
    if key not in st.session_state:
        st.session_state[key], notice = link.read(st.query_params.to_dict())
        if notice:
            st.session_state[_NOTICES] = [*notices(), notice]
    used = st.session_state.setdefault(_PAGE_PARAMS, [])
    if link not in used:
        used.append(link)
    return st.session_state[key]


def set_param(link: Param[Any], value: Any) -> None:
    """Change a page setting (from a widget's callback, a preset, a button)."""
    st.session_state[_key(link)] = value
    st.session_state[_NOTICES] = []  # the learner has acted: the link's notices are answered


#: ``bound(widget, key, value, on_change, **kwargs)``: draw ``widget`` showing ``value``; a change
#: by the learner calls ``on_change(new_value)``, also on a session's first run (after a replica
#: died: see :mod:`specviz.ui.reconnect`).
bound = reconnect.draw


def param_widget(link: Param[Any], widget: Callable[..., Any], **kwargs: Any) -> Any:
    """Draw ``widget`` (a select slider, select box or radio) bound to a page setting (its key is
    ``w.<name>``), offering the setting's choices written as its link writes them (a decimal as
    the language writes it) unless ``kwargs`` say otherwise; returns the value."""
    shown = {"format_func": lambda value: as_written(link.format(value))}
    kwargs = {"options": link.choices} | shown | kwargs
    return bound(widget, f"w.{link.name}", param(link), lambda v: set_param(link, v), **kwargs)


def param_tabs(link: Param[str], names: Mapping[str, str]) -> tuple[str, dict[str, Any]]:
    """Tabs bound to a page setting (key ``w.<name>``), one per entry of ``names`` (setting ->
    tab name): the open tab's setting, and each setting's tab. A click on a tab puts it in the
    link (and reruns the page, which may draw the open tab only)."""
    key, shown = f"w.{link.name}", param(link)
    # Set on every run, never as the tabs' ``default``: that is part of their element id, and
    # tabs drawn anew drop the focus of a keyboard user moving along them.
    st.session_state[key] = names[shown]
    by_name = {name: setting for setting, name in names.items()}
    tabs = st.tabs(
        list(names.values()),
        key=key,
        on_change=lambda: set_param(link, by_name[st.session_state[key]]),
    )
    _tab_focus(key=f"focus.{key}")  # gives a tab back the focus a rerun took (see the script)
    return shown, dict(zip(names, tabs, strict=True))


def sync_url() -> None:
    """Write the query string that restores this page as it is (the scenario and the page's
    settings) into the address bar, and show the same link in the sidebar with a copy button,
    under the heading :func:`sidebar_settings` drew (the last call of every page's run, and of
    :func:`stop`). A part's own rerun (:func:`specviz.ui.page.part`) may not write to the
    sidebar: a hidden element of the part hands its link to the sidebar's (share.js)."""
    wanted = to_query(current())
    used = st.session_state.get(_PAGE_PARAMS, [])
    for link in used:
        wanted |= link.write(st.session_state[_key(link)])
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    personal = {link.name for link in used if link.personal}
    shared = {name: value for name, value in wanted.items() if name not in personal}
    run = st.session_state[_SHARED_RUNS] = st.session_state.get(_SHARED_RUNS, 0) + 1
    data = {
        "link": f"{st.context.url or ''}?{urlencode(shared, safe=',')}",
        "follow": st.session_state.pop(FOLLOW, []),
        "say": dict(titles("sidebar", _SHARE_WORDS)),
        "lang": DOCUMENT_LANGUAGE[current().language],
        "run": run,  # the newest link wins in the browser
    }
    if get_script_run_ctx().fragment_ids_this_run:
        _share(key="share.relay", data=data | {"relay": True})
    else:
        with st.sidebar:
            _share(key="share", data=data)
    reconnect.end_run()


def stop(
    message: str, *, kind: str = "error", link: tuple[str, str, str] | None = None
) -> NoReturn:
    """Show ``message`` (an error, warning or info box) and a ``link`` (a page's script, label
    and icon) if given, end the run with its share link and stop the page."""
    box = {"error": st.error, "warning": st.warning, "info": st.info}[kind]
    box(message, icon=":material/error:" if kind == "error" else ":material/info:")
    if link:
        st.page_link(link[0], label=link[1], icon=link[2])
    sync_url()
    st.stop()


def sidebar_settings() -> None:
    """Language, projector mode, lettering and seed: the settings every page shares, in the
    sidebar."""
    scenario = current()
    with st.sidebar:
        st.markdown(say("settings.title"))
        bound(
            st.selectbox,
            "ui.lang",
            scenario.language,
            lambda v: update(language=v),
            label=say("sidebar.language"),
            options=tuple(LANGUAGES),
            format_func=LANGUAGES.__getitem__,
            help=say("sidebar.language_help"),
        )
        toggles = (
            ("projector", say("settings.projector"), say("settings.projector_help")),
            ("swapped", say("settings.swap"), say("settings.swap_help")),
        )
        for name, label, about in toggles:
            bound(
                st.toggle,
                f"ui.{name}",
                getattr(scenario, name),
                lambda v, name=name: update(**{name: bool(v)}),
                label=label,
                help=about,
            )
        bound(
            st.number_input,
            "ui.seed",
            scenario.seed,
            lambda v: update(seed=int(v) if v is not None else scenario.seed),
            label=say("settings.seed"),
            min_value=0,
            max_value=MAX_SEED,
            step=1,
            help=say("settings.seed_help"),
        )
        # The link itself comes at the end of the run (sync_url), once the page has read its state.
        st.markdown(say("settings.share"), help=say("settings.share_help"))
