"""The animated flow view: its numbers are the core's, and nothing in a label can become markup."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from specviz.figures.flow import flow_data, flow_html
from specviz.figures.html import script_json
from specviz.figures.style import ChartStyle
from specviz.palette import Notation

LABELS = ("mat", "sofa", "floor", "bed")
P = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([0.1, 0.2, 0.3, 0.4])
TOL = 1e-12


def embedded(html: str) -> dict:
    match = re.search(r'<script id="flow" type="application/json">(.*?)</script>', html, re.S)
    assert match
    return json.loads(match.group(1))


def test_flow_splits_each_word_as_the_proof_says() -> None:
    data = flow_data(LABELS, P, Q)
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
    html = flow_html(LABELS, P, Q, ChartStyle(notation=Notation(swapped=True)), key="k")
    data = embedded(html)
    assert data["key"] == "k" and data["labels"] == list(LABELS)
    assert "target q" in html and "__" not in html.split("<script")[0]


@pytest.mark.parametrize("label", ["</script><b>x", "<!--<script>", "a&b", '"quoted"'])
def test_no_label_can_leave_the_json(label: str) -> None:
    html = flow_html((label, "b", "c", "d"), P, Q)
    assert embedded(html)["labels"][0] == label
    payload = script_json({"x": label})
    assert "<" not in payload and ">" not in payload and "&" not in payload
    assert json.loads(payload) == {"x": label}
