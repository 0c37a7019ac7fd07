"""The lesson state: presets teach what they say, links round-trip, hostile links are tamed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from specviz import step
from specviz.limits import MAX_LABEL, MAX_SEED, MAX_TOKENS
from specviz.palette import Notation
from specviz.scenario import (
    HOME_TARGET,
    PRESETS_BY_KEY,
    Scenario,
    all_zero,
    clean_label,
    from_query,
    home_scenario,
    random_scenario,
    to_query,
)

# Hand-derived α = Σ min(p, q) of each preset's weights (each model's weights sum to 100 here,
# except the long tail, whose α is checked against the core's formula below).
PRESET_ALPHA = {
    "close": 0.30 + 0.30 + 0.20 + 0.10,  # min of (40,30,20,10) and (30,35,25,10)
    "garbage": 0.0,  # disjoint supports
    "identical": 1.0,
    "misses": 0.40 + 0.30 + 0.20 + 0.0,  # q(bed) = 0
    "filters": 0.40 + 0.30 + 0.20 + 0.0,  # p(bed) = 0
    "one_hot": 0.40,  # only proposals of the first word survive
}


@pytest.mark.parametrize("key", sorted(PRESET_ALPHA))
def test_presets_have_the_stated_acceptance_rate(key: str) -> None:
    one = PRESETS_BY_KEY[key].apply(Scenario()).step()
    s = step(one.p, one.q)
    assert s.alpha == pytest.approx(PRESET_ALPHA[key], abs=1e-12)
    assert s.z == pytest.approx(1 - PRESET_ALPHA[key], abs=1e-12)


def test_long_tail_preset_matches_an_independent_sum() -> None:
    preset = PRESETS_BY_KEY["long_tail"]
    p = np.array(preset.p_weights) / sum(preset.p_weights)
    q = np.array(preset.q_weights) / sum(preset.q_weights)
    alpha = sum(min(a, b) for a, b in zip(p, q, strict=True))
    got = preset.apply(Scenario()).step()
    assert step(got.p, got.q).alpha == pytest.approx(alpha, abs=1e-12)
    assert len(got.p) == MAX_TOKENS


def test_presets_name_the_learners_own_words() -> None:
    labels = ("rug", "box", "lap", "keyboard")
    text = PRESETS_BY_KEY["misses"].lesson_for(labels)
    assert "'keyboard'" in text and "bed" not in text


def test_preset_keeps_edited_words() -> None:
    mine = replace(Scenario(), labels=("a", "b", "c", "d"))
    assert PRESETS_BY_KEY["long_tail"].apply(mine).labels[:4] == ("a", "b", "c", "d")


def test_random_preset_is_reproducible_from_its_seed() -> None:
    a = random_scenario(Scenario(), seed=123)
    b = random_scenario(Scenario(), seed=123)
    c = random_scenario(Scenario(), seed=124)
    assert a == b and a.seed == 123
    assert (a.p_weights, a.q_weights) != (c.p_weights, c.q_weights)
    assert any(a.p_weights) and any(a.q_weights)


def test_all_zero_weights_give_a_clear_error() -> None:
    # The message names the model in words, not by a letter that swaps with the lettering.
    with pytest.raises(ValueError, match=f"^{all_zero()} target's weights are zero"):
        replace(Scenario(), p_weights=(0, 0, 0, 0)).step()
    with pytest.raises(ValueError, match=f"^{all_zero()} draft's weights are zero"):
        replace(Scenario(), q_weights=(0, 0, 0, 0)).step()


scenarios = st.builds(
    lambda size, seed, proj, swap, data: Scenario(
        labels=tuple(data[0][:size]),
        p_weights=tuple(data[1][:size]),
        q_weights=tuple(data[2][:size]),
        seed=seed,
        projector=proj,
        swapped=swap,
    ),
    size=st.integers(3, MAX_TOKENS),
    seed=st.integers(0, 2**32 - 1),
    proj=st.booleans(),
    swap=st.booleans(),
    data=st.tuples(
        st.lists(
            st.text(alphabet="abcxyzé -'", min_size=1, max_size=MAX_LABEL)
            .map(clean_label)
            .filter(bool),
            min_size=MAX_TOKENS,
            max_size=MAX_TOKENS,
        ),
        st.lists(st.integers(1, 100), min_size=MAX_TOKENS, max_size=MAX_TOKENS),
        st.lists(st.integers(0, 100), min_size=MAX_TOKENS, max_size=MAX_TOKENS),
    ),
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(scenarios)
def test_share_link_round_trips(scenario: Scenario) -> None:
    assume(any(scenario.q_weights))  # an all-zero draft is no lesson; a link to one is refused
    restored, notices = from_query(to_query(scenario))
    assert notices == []
    assert restored == scenario


HOSTILE = {
    "not numbers": {"p": "a,b,c,d"},
    "negative": {"p": "40,-30,20,10"},
    "NaN": {"q": "nan,1,1,1"},
    "infinity": {"q": "inf,1,1,1"},
    "above 100": {"p": "400,30,20,10"},
    "too many tokens": {"p": ",".join(["1"] * 50)},
    "too few tokens": {"p": "1,2"},
    "huge string": {"words": "x" * 100_000},
    "all zero": {"p": "0,0,0,0"},
    "length mismatch": {"p": "1,2,3", "q": "1,2,3,4"},
    "bad seed": {"seed": "-5"},
    "seed overflow": {"seed": "9" * 40},
    "bad flag": {"projector": "maybe"},
}


@pytest.mark.parametrize("params", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_links_fall_back_with_a_notice(params: dict[str, str]) -> None:
    scenario, notices = from_query(params)
    assert notices, "a bad link must be reported"
    one = scenario.step()  # still a working lesson
    assert np.isclose(one.p.sum(), 1) and np.isclose(one.q.sum(), 1)
    assert all(len(text) < 300 for text in notices)
    # One sentence per problem, saying what the page does instead, never echoing the raw value.
    assert len(notices) == 1, notices
    assert notices[0].endswith(".") and "; the page uses " in notices[0], notices
    for raw in params.values():
        assert raw not in notices[0], (raw, notices)


def test_script_tags_in_labels_become_plain_words() -> None:
    scenario, notices = from_query({"words": "<script>alert(1)</script>,b,[x](y),**d**"})
    assert notices
    for word in scenario.labels:
        assert not set(word) & set('<>[]()*&"`_'), word
    assert scenario.labels[0] == "scriptalert1"[:MAX_LABEL]


def test_repeated_parameters_take_the_last_value() -> None:
    scenario, notices = from_query({"seed": ["1", "2"]})
    assert scenario.seed == 2 and notices == []


def test_empty_link_is_the_default_scenario() -> None:
    assert from_query({}) == (Scenario(), [])


def test_resize_pads_with_default_words_and_truncates() -> None:
    grown = Scenario().resized(6)
    assert grown.size == 6 and grown.labels[4:] == ("rug", "chair")
    assert grown.resized(3).labels == ("mat", "sofa", "floor")
    assert Scenario().resized(99).size == MAX_TOKENS


def test_editing_one_weight_or_word_changes_only_that() -> None:
    base = Scenario()
    edited = base.with_weight("q", 2, 77)
    assert edited.q_weights == (10, 20, 77, 40) and edited.p_weights == base.p_weights
    assert base.with_weight("p", 0, 250).p_weights[0] == 100  # clipped to the slider's range
    assert base.with_label(1, "  <b>couch</b> ").labels == ("mat", "bcouchb", "floor", "bed")
    assert base.with_label(1, "<>").labels == base.labels  # nothing left: keep the old word


def test_step_is_the_scenarios_pair() -> None:
    one = Scenario().step()
    np.testing.assert_allclose(one.p, [0.4, 0.3, 0.2, 0.1], atol=1e-15)
    np.testing.assert_allclose(one.q, [0.1, 0.2, 0.3, 0.4], atol=1e-15)
    assert one.alpha == pytest.approx(0.6, abs=1e-12)
    assert not one.p.flags.writeable  # shared by the page's cache, so read-only


def test_identical_preset_has_an_exactly_empty_bucket() -> None:
    one = PRESETS_BY_KEY["identical"].apply(Scenario()).step()
    assert one.alpha == 1.0 and one.z == 0.0
    assert not one.residual.any()


def test_notation_follows_the_swap_switch() -> None:
    assert Scenario().notation == Notation()
    assert Scenario(swapped=True).notation == Notation(swapped=True)
    assert (Scenario(swapped=True).notation.target, Scenario(swapped=True).notation.draft) == (
        "q",
        "p",
    )


def test_next_seed_wraps_at_the_largest_seed() -> None:
    assert Scenario(seed=7).next_seed() == 8
    assert Scenario(seed=MAX_SEED).next_seed() == 0
    assert MAX_SEED == 2**32 - 1


@pytest.mark.parametrize("quality", range(0, 101, 5))
def test_home_example_blends_target_and_mirror(quality: int) -> None:
    """q = w p + (1 - w) reversed(p) with w = quality / 100: on tokens 0, 1 the draft is below the
    target, on 2, 3 above, so alpha = q0 + q1 + p2 + p3 = .7 w + .3 (1 - w) + .3 = .6 + .4 w."""
    one = home_scenario(quality).step()
    w = quality / 100
    target = np.array(HOME_TARGET) / sum(HOME_TARGET)
    np.testing.assert_array_equal(one.p, [0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(one.q, w * target + (1 - w) * target[::-1], rtol=0, atol=1e-15)
    assert one.alpha == pytest.approx(0.6 + 0.4 * w, abs=1e-12)
    # The same pair, as whole slider weights, is what "open it in the Playground" loads.
    pair = home_scenario(quality)
    assert all(isinstance(v, int) and 0 <= v <= 100 for v in pair.q_weights)


def test_home_example_at_full_quality_is_exact() -> None:
    one = home_scenario(100).step()
    assert one.alpha == 1.0 and one.z == 0.0
    backwards = home_scenario(0).step()
    assert step(backwards.p, backwards.q).alpha == pytest.approx(0.6, abs=1e-12)


#: Values that break one of the lesson's invariants, each refused by the Scenario itself.
BROKEN = {
    "two words": {"labels": ("a", "b"), "p_weights": (1, 1), "q_weights": (1, 1)},
    "labels in a list": {"labels": ["mat", "sofa", "floor", "bed"]},
    "an empty word": {"labels": ("mat", "", "floor", "bed")},
    "an unclean word": {"labels": ("mat", "so<fa>", "floor", "bed")},
    "a word too long": {"labels": ("mat", "x" * (MAX_LABEL + 1), "floor", "bed")},
    "lengths differ": {"p_weights": (40, 30, 20)},
    "a weight above the top": {"q_weights": (10, 20, 30, 101)},
    "a negative weight": {"p_weights": (40, -1, 20, 10)},
    "a float weight": {"p_weights": (40.0, 30, 20, 10)},
    "a bool weight": {"q_weights": (True, 20, 30, 40)},
    "a numpy weight": {"q_weights": (np.int64(10), 20, 30, 40)},
    "weights in a list": {"p_weights": [40, 30, 20, 10]},
    "a seed too large": {"seed": MAX_SEED + 1},
    "a negative seed": {"seed": -1},
    "projector not a bool": {"projector": 1},
    "swapped not a bool": {"swapped": "yes"},
}


@pytest.mark.parametrize("fields", BROKEN.values(), ids=BROKEN)
def test_a_scenario_refuses_what_breaks_its_invariants(fields: dict) -> None:
    with pytest.raises(ValueError):
        Scenario(**fields)
    with pytest.raises(ValueError):
        replace(Scenario(), **fields)


def test_all_zero_weights_are_a_scenario_the_page_explains() -> None:
    # A state the editor reaches (every slider at 0): kept, and told by step(), not refused.
    scenario = Scenario(p_weights=(0, 0, 0, 0))
    assert not scenario.distributions_ok
    with pytest.raises(ValueError, match=f"^{all_zero()} target's"):
        scenario.step()
