"""What the Playground's live view receives from Python and accepts from the browser."""

from __future__ import annotations

import pytest

from specviz.figures.live import live_data
from specviz.figures.style import ChartStyle
from specviz.palette import Notation
from specviz.scenario import Scenario
from specviz.ui.live import gesture_weights


def test_the_data_is_the_state_and_the_look() -> None:
    data = live_data(("a", "b"), (1, 2), (3, 4), 5, ChartStyle(), gesture=9)
    assert (data["labels"], data["p"], data["q"], data["gamma"]) == (["a", "b"], [1, 2], [3, 4], 5)
    assert (data["T"], data["D"], data["gesture"], data["projector"]) == ("p", "q", 9, False)
    big = live_data(("a", "b"), (1, 2), (3, 4), 5, ChartStyle(True, Notation(swapped=True)))
    assert (big["T"], big["D"], big["projector"]) == ("q", "p", True)
    assert big["font"] > data["font"] and big["key"] != data["key"]


GOOD = {"p": [1, 0, 100], "q": [0, 5, 7], "gesture": 3}
THREE = Scenario(labels=("a", "b", "c"), p_weights=(1, 1, 1), q_weights=(1, 1, 1), seed=5)


def test_a_gesture_from_the_view_is_read() -> None:
    moved = Scenario(labels=("a", "b", "c"), p_weights=(1, 0, 100), q_weights=(0, 5, 7), seed=5)
    assert gesture_weights(GOOD, THREE) == (moved, 3)


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "p=1",
        [1, 2, 3],
        {},
        GOOD | {"p": [1, 2]},  # another size
        GOOD | {"p": [1, 2, 101]},  # above the largest weight
        GOOD | {"q": [1, -1, 2]},
        GOOD | {"q": [1, 2.5, 2]},
        GOOD | {"q": [1, True, 2]},
        GOOD | {"q": [1, float("nan"), 2]},
        GOOD | {"q": "1,2,3"},
        GOOD | {"gesture": -1},
        GOOD | {"gesture": "7"},
        GOOD | {"gesture": None},
    ],
)
def test_anything_else_from_a_browser_is_ignored(bad: object) -> None:
    assert gesture_weights(bad, THREE) is None
