"""Helpers shared by the test files: statistics, reading figures back, and pages under AppTest.

Plain functions (no fixtures), imported as ``from helpers import ...`` (``tests/`` is on the path,
see ``conftest.py``). Browser helpers live in ``streamlit_server.py``.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
from altair.vegalite.v6 import schema as vega_lite_schema
from scipy import stats
from streamlit.testing.v1 import AppTest

from specviz import text

REPO = Path(__file__).resolve().parents[1]

#: Smallest expected count a chi-square bin may have; rarer tokens are pooled into one bin.
MIN_EXPECTED = 5.0


# --------------------------------------------------------------------------- statistics


def gof_pvalue(counts: Any, probs: Any) -> float:
    """Chi-square goodness-of-fit p-value of token counts against a law.

    Tokens of probability 0 must have no counts at all (asserted, not tested statistically); tokens
    with small expected counts are pooled into one bin. A law with a single possible token leaves no
    degrees of freedom: then the zero-count assertion is the whole test and 1.0 is returned.
    """
    counts = np.asarray(counts)
    probs = np.asarray(probs, float)
    assert counts[probs == 0].sum() == 0, "a token of probability 0 was drawn"
    expected = counts.sum() * probs / probs.sum()
    big = expected >= MIN_EXPECTED
    small = ~big & (probs > 0)
    obs = np.r_[counts[big], counts[small].sum()] if small.any() else counts[big]
    exp = np.r_[expected[big], expected[small].sum()] if small.any() else expected[big]
    if obs.size < 2:
        return 1.0
    return float(stats.chisquare(obs, exp).pvalue)


def z_score(observed: float, expected: float, std_error: float) -> float:
    """How many standard errors ``observed`` lies from ``expected`` (0 for an exact match)."""
    if std_error == 0:
        return 0.0 if observed == expected else np.inf
    return (observed - expected) / std_error


# --------------------------------------------------------------------------- figures


def open_page(
    script: str,
    query: dict[str, str] | None = None,
    *,
    via_home: bool = False,
    page_query: dict[str, str] | None = None,
) -> AppTest:
    """A page in a new AppTest session, alive (no exception).

    By default the page is the session's very first run, with ``query`` as its link (a shared
    link's first visit). With ``via_home``, app.py runs first with ``query`` (it reads the shared
    state from it) and the menu then switches to the page, whose own link is ``page_query``.
    """
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    if via_home:
        at.query_params.update(query or {})
        at.run()
        at.query_params.update(page_query or {})
    else:
        for key, value in {**(query or {}), **(page_query or {})}.items():
            at.query_params[key] = value
    if script != "app.py":
        at.switch_page(script)
    at.run()
    assert_alive(at)
    return at


def assert_alive(at: AppTest) -> None:
    """The run raised nothing (the message carries every exception's stack)."""
    assert not at.exception, "the page raised:\n" + "\n".join(
        f"{e.value}\n" + "\n".join(e.stack_trace or []) for e in at.exception
    )


def query(at: AppTest) -> dict[str, str]:
    """The page's query string (its share link) as a dict."""
    return {key: at.query_params[key] for key in at.query_params}


def component_data(at: AppTest, name: str) -> dict:
    """The data the page hands its one component ``name`` (components v2, e.g. "specviz.live")."""
    (view,) = [v for v in at.get("bidi_component") if v.proto.component_name == name]
    return json.loads(view.proto.json)


def share_link(at: AppTest) -> str:
    """The share link the sidebar shows, as the run wrote it (share.js shows it)."""
    return component_data(at, "specviz.share")["link"]


def metrics(at: AppTest) -> dict[str, str]:
    """Metric label -> shown value."""
    return {m.label: m.value for m in at.metric}


@cache
def _vega_lite_validator() -> Any:
    """Vega-Lite's JSON schema as Altair ships it, compiled once: Altair's own check builds its
    validator again for every chart (0.8 s a chart against 0.1 s)."""
    schema = json.loads((resources.files(vega_lite_schema) / "vega-lite-schema.json").read_text())
    return jsonschema.validators.validator_for(schema)(schema)


def valid_vega_lite(spec: dict) -> None:
    """Assert that a layered chart passes Vega-Lite's schema (a ValidationError says where not),
    and that its tooltips show texts the app wrote, never a number in a format of Vega's own."""
    _vega_lite_validator().validate(spec)
    assert spec["layer"], "a chart without layers"
    for layer in _layers(spec):
        lines = layer.get("encoding", {}).get("tooltip", [])
        for line in lines if isinstance(lines, list) else [lines]:
            assert "format" not in line and line.get("type", "nominal") == "nominal", line


def _layers(spec: dict) -> Iterator[dict]:
    for layer in spec.get("layer", []):
        yield layer
        yield from _layers(layer)


def vega_chart(at: AppTest, title: str) -> tuple[dict, dict[str, list[dict]]]:
    """The spec and the named datasets (as rows) of the one Vega-Lite chart whose title
    contains ``title`` (a chart without selections has no element id to find it by).

    Streamlit moves a spec's named datasets out of it and sends them as Arrow tables, so that a
    new state reaches the mounted chart as new data only.
    """
    import pyarrow as pa

    (element,) = [
        c
        for c in at.get("vega_lite_chart")
        if title in json.dumps(json.loads(c.proto.spec).get("title", ""), ensure_ascii=False)
    ]
    datasets = {
        d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist()
        for d in element.proto.datasets
    }
    return json.loads(element.proto.spec), datasets


def chart_numbers(at: AppTest) -> list[str]:
    """The tables of the charts' numbers (each under its chart, folded: what the tooltips say)."""
    label = text.say("page.chart_numbers")
    return [m.value for e in at.expander if e.label == label for m in e.markdown]


def own_markdown(at: AppTest) -> list[str]:
    """The page's markdown but the tables of its charts' numbers."""
    numbers = set(chart_numbers(at))
    return [m.value for m in at.markdown if m.value not in numbers]


def all_text(at: AppTest) -> str:
    """The page's prose: markdown (but the charts' tables of numbers, which say what their
    tooltips say), boxes and captions, in order of kind."""
    kinds = ("info", "warning", "error", "caption", "success")
    return "\n".join(own_markdown(at) + [e.value for kind in kinds for e in getattr(at, kind)])


def walk(node: Any) -> Iterator[Any]:
    """Every element of an AppTest tree, depth first."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def said(language: str, key: str, **values: object) -> str:
    """The message ``key`` as a page speaking ``language`` says it (this thread's language
    unchanged)."""

    def run() -> str:
        text.use(language)
        return text.say(key, **values)

    return contextvars.copy_context().run(run)
