"""The animated flow view: its numbers are the step's, and nothing in a label can become markup."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from specviz.figures.fit import caps_fit, words_fit
from specviz.figures.flow import flow_data, flow_html
from specviz.figures.html import script_json
from specviz.figures.style import ChartStyle
from specviz.one_token import step
from specviz.palette import Notation

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
S = step(P, Q)
TOL = 1e-12


def embedded(html: str) -> dict:
    match = re.search(r'<script id="flow" type="application/json">(.*?)</script>', html, re.S)
    assert match
    return json.loads(match.group(1))


def test_flow_splits_each_word_as_the_proof_says() -> None:
    data = flow_data(LABELS, S)
    kept, bounced, refill = (np.array(data[k]) for k in ("kept", "bounced", "refill"))
    np.testing.assert_allclose(kept, [0.1, 0.2, 0.2, 0.1], atol=TOL)  # min(p, q)
    np.testing.assert_allclose(bounced, [0, 0, 0.1, 0.3], atol=TOL)  # max(0, q - p)
    np.testing.assert_allclose(refill, [0.3, 0.1, 0, 0], atol=TOL)  # max(0, p - q)
    np.testing.assert_allclose(kept + bounced, Q, atol=TOL)  # the draft's mass, all accounted
    np.testing.assert_allclose(kept + refill, P, atol=TOL)  # the emitted law is p
    assert bounced.sum() == pytest.approx(refill.sum(), abs=TOL)  # bounced = refilled = Z
    assert data["alpha"] == pytest.approx(0.6, abs=TOL)
    assert data["z"] == pytest.approx(0.4, abs=TOL)


def test_flow_page_embeds_its_data_and_letters() -> None:
    html = flow_html(LABELS, S, ChartStyle(notation=Notation(swapped=True)), key="k")
    data = embedded(html)
    assert data["key"] == "k" and data["labels"] == list(LABELS)
    assert "target q" in html and "__" not in html.split("<script")[0]


@pytest.mark.parametrize("label", ["</script><b>x", "<!--<script>", "a&b", '"quoted"'])
def test_no_label_can_leave_the_json(label: str) -> None:
    html = flow_html((label, "b", "c", "d"), S)
    assert embedded(html)["labels"][0] == label
    payload = script_json({"x": label})
    assert "<" not in payload and ">" not in payload and "&" not in payload
    assert json.loads(payload) == {"x": label}


# ----------------------------------------------------------------------- it reads the step


@pytest.mark.parametrize(
    ("p", "q"),
    [
        (P, Q),
        ([0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5]),  # disjoint: everything bounced and refilled
        (np.ones(3) / 3, [1 / 3, 1 / 3, 1 - 2 / 3]),  # equal up to rounding: nothing moves
    ],
    ids=["default", "disjoint", "rounding"],
)
def test_the_embedded_numbers_are_the_steps_exactly(p, q) -> None:
    s = step(p, q)
    labels = LABELS[: s.size]
    data = embedded(flow_html(labels, s))
    for key in ("p", "q", "kept", "bounced", "refill"):
        assert data[key] == getattr(s, key).tolist(), key
    assert data["alpha"] == s.alpha and data["z"] == s.z


def test_the_alt_text_is_the_proof_caption_of_the_step() -> None:
    html = flow_html(LABELS, S)
    alt = re.search(r'aria-label="([^"]*)"', html).group(1)
    assert "mat: 10% + 30% = 40%" in alt and "bed: 10% + 0% = 10%" in alt


def test_the_fit_decisions_travel_with_the_data() -> None:
    """Values over the bars and full-size words are shown where the one fitting rule says so."""
    for style in (ChartStyle(), ChartStyle(projector=True)):
        for size in (3, 10):
            labels = tuple(f"word{i}" for i in range(size))
            s = step(np.ones(size) / size, np.arange(1, size + 1) / (size * (size + 1) / 2))
            data = flow_data(labels, s, style)
            assert data["caps"] == caps_fit(labels, s, style)
            assert data["words_fit"] == words_fit(labels, style)
    # Four short words fit on a screen; ten long ones in projector type do not.
    assert flow_data(LABELS, S)["caps"] is True
    ten = tuple(f"keyboard{i}" for i in range(10))
    crowded = flow_data(ten, step(np.ones(10) / 10, np.ones(10) / 10), ChartStyle(projector=True))
    assert crowded["caps"] is False and crowded["words_fit"] is False
