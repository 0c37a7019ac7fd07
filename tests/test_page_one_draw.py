"""The "One draw at a time" page through AppTest: the player it embeds is the core's story of the
shared scenario, and the page's controls (preset, number of draws, next seed), the shared settings
and hostile links all leave it alive and telling the truth.

The player is an ``st.iframe`` of an HTML document: AppTest has no typed accessor for it, so it is
read as ``at.get("iframe")[0].proto.srcdoc`` and its story is the JSON between
``<script id="story" type="application/json">`` and ``</script>``. That JSON is compared with
:func:`specviz.story.one_draw_story` called here on the scenario's p, q, seed and draws.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from specviz.one_token import normalize
from specviz.scenario import MAX_SEED, PRESETS_BY_KEY
from specviz.story import one_draw_story

REPO = Path(__file__).resolve().parents[1]
ONE_DRAW = "pages/2_One_draw.py"
PLAYGROUND = "pages/1_Playground.py"

DEFAULT_WORDS = ["mat", "sofa", "floor", "bed"]
DEFAULT_P = (40, 30, 20, 10)
DEFAULT_Q = (10, 20, 30, 40)
DEFAULT_SEED = 7
DEFAULT_DRAWS = 50
DRAW_CHOICES = (20, 50, 200, 500)

_STORY_JSON = re.compile(r'<script id="story" type="application/json">(.*?)</script>', re.S)


# --------------------------------------------------------------------------- reaching the page


def one_draw(query: dict[str, str] | None = None) -> AppTest:
    """The page in a new session: app.py then the menu's switch, or (with ``query``) a shared
    link's first visit, where the page is the session's very first run."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    if query is None:
        at.run()
    else:
        for key, value in query.items():
            at.query_params[key] = value
    at.switch_page(ONE_DRAW).run()
    assert_alive(at)
    return at


def assert_alive(at: AppTest) -> None:
    assert not at.exception, "the page raised:\n" + "\n".join(
        f"{e.value}\n" + "\n".join(e.stack_trace or []) for e in at.exception
    )


# --------------------------------------------------------------------------- reading it back


def player_srcdoc(at: AppTest) -> str:
    frames = at.get("iframe")
    assert len(frames) == 1, f"expected one player iframe, found {len(frames)}"
    html = frames[0].proto.srcdoc
    assert html.startswith("<!doctype html>"), "the player is sent as an inline document"
    return html


def story_json(at: AppTest) -> dict:
    found = _STORY_JSON.findall(player_srcdoc(at))
    assert len(found) == 1
    return json.loads(found[0])


def query(at: AppTest) -> dict[str, str]:
    return {key: at.query_params[key] for key in at.query_params}


def warnings(at: AppTest) -> str:
    return "\n".join(w.value for w in at.warning)


def assert_player_tells(at: AppTest, words, p_weights, q_weights, seed: int, draws: int) -> None:
    """The embedded story is the core's story of (p, q, draws, seed), number for number."""
    p, q = normalize(p_weights), normalize(q_weights)
    story = one_draw_story(p, q, draws, seed=seed)
    data = story_json(at)
    assert data["labels"] == list(words)
    np.testing.assert_allclose(data["p"], p, rtol=0, atol=1e-15)
    np.testing.assert_allclose(data["q"], q, rtol=0, atol=1e-15)
    assert len(data["draft"]) == draws
    assert data["u1"] == story.u_draft.tolist()
    assert data["draft"] == story.draft.tolist()
    assert data["a"] == story.accept_prob.tolist()
    assert data["u"] == story.u_accept.tolist()
    assert data["accepted"] == story.accepted.tolist()
    assert data["output"] == story.output.tolist()
    assert data["u3"] == [None if np.isnan(v) else v for v in story.u_bucket.tolist()]


# --------------------------------------------------------------------------- the story shown


def test_default_page_embeds_the_core_story():
    at = one_draw()
    assert at.title[0].value == "One draw at a time"
    assert at.select_slider(key="od.draws").value == DEFAULT_DRAWS
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED, DEFAULT_DRAWS)
    text = "\n".join(m.value for m in at.markdown)
    assert f"Seed **{DEFAULT_SEED}**, {DEFAULT_DRAWS} draws" in text
    # alpha = sum min(p, q) = .1 + .2 + .2 + .1 = 60 %, Z = 40 %
    assert "**60%** of proposals" in text and "**40%** go to the bucket" in text
    assert query(at)["draws"] == str(DEFAULT_DRAWS)
    assert query(at)["seed"] == str(DEFAULT_SEED)
    assert at.get("iframe")[0].proto.alt, "the player needs a text alternative"


def test_a_shared_link_scenario_is_the_story():
    link = {"words": "rain,sun,snow", "p": "10,60,30", "q": "50,25,25", "seed": "123"}
    at = one_draw(link)
    assert not at.warning, warnings(at)
    assert_player_tells(at, ["rain", "sun", "snow"], (10, 60, 30), (50, 25, 25), 123, 50)
    for key, value in link.items():
        assert query(at)[key] == value, key


@pytest.mark.parametrize("draws", [c for c in DRAW_CHOICES if c != DEFAULT_DRAWS])
def test_number_of_draws_sets_the_story_length(draws):
    at = one_draw()
    at.select_slider(key="od.draws").set_value(draws).run()
    assert_alive(at)
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED, draws)
    assert query(at)["draws"] == str(draws)
    assert f"{draws} draws" in "\n".join(m.value for m in at.markdown)


def test_number_of_draws_survives_a_visit_to_another_page():
    at = one_draw()
    at.select_slider(key="od.draws").set_value(200).run()
    at.switch_page("pages/1_Playground.py").run()  # widget keys of One draw are dropped here
    at.switch_page("pages/2_One_draw.py").run()
    assert_alive(at)
    assert at.select_slider(key="od.draws").value == 200
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED, 200)


def test_new_draws_advances_the_seed_and_changes_the_story():
    at = one_draw()
    before = story_json(at)
    at.button[0].click().run()
    assert_alive(at)
    assert at.button[0].label == "New draws"
    assert query(at)["seed"] == str(DEFAULT_SEED + 1)
    assert at.number_input(key="ui.seed").value == DEFAULT_SEED + 1
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED + 1, DEFAULT_DRAWS)
    after = story_json(at)
    assert after["u1"] != before["u1"] and after["output"] != before["output"]
    at.button[0].click().run()
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED + 2, DEFAULT_DRAWS)


def test_new_draws_wraps_at_the_largest_seed():
    at = one_draw({"seed": str(MAX_SEED)})
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, MAX_SEED, DEFAULT_DRAWS)
    at.button[0].click().run()
    assert_alive(at)
    assert query(at)["seed"] == "0"
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, 0, DEFAULT_DRAWS)


def test_sidebar_seed_changes_the_story():
    at = one_draw()
    at.number_input(key="ui.seed").set_value(2024).run()
    assert_alive(at)
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, 2024, DEFAULT_DRAWS)


# --------------------------------------------------------------------------- presets


@pytest.mark.parametrize("key", list(PRESETS_BY_KEY))
def test_preset_loads_its_weights(key):
    preset = PRESETS_BY_KEY[key]
    at = one_draw()
    at.selectbox(key="od.preset").set_value(key).run()
    assert_alive(at)
    size = len(preset.p_weights)
    words = [*DEFAULT_WORDS, "rug", "chair", "roof", "table", "box", "keyboard"][:size]
    assert query(at)["p"] == ",".join(map(str, preset.p_weights))
    assert query(at)["q"] == ",".join(map(str, preset.q_weights))
    assert_player_tells(at, words, preset.p_weights, preset.q_weights, DEFAULT_SEED, 50)


def test_garbage_preset_accepts_no_draw_and_identical_accepts_all():
    at = one_draw()
    at.selectbox(key="od.preset").set_value("garbage").run()
    data = story_json(at)
    assert not any(data["accepted"])
    assert all(u is not None for u in data["u3"])
    assert set(data["output"]) <= {0, 1} and set(data["draft"]) <= {2, 3}
    assert "**0%** of proposals" in "\n".join(m.value for m in at.markdown)

    at.selectbox(key="od.preset").set_value("identical").run()
    assert_alive(at)
    data = story_json(at)
    assert all(data["accepted"])
    assert data["u3"] == [None] * DEFAULT_DRAWS
    assert data["output"] == data["draft"]
    assert data["z"] == 0
    assert "**100%** of proposals" in "\n".join(m.value for m in at.markdown)


def test_preset_is_shared_with_the_playground():
    at = one_draw()
    at.selectbox(key="od.preset").set_value("misses").run()
    at.switch_page(PLAYGROUND).run()
    assert_alive(at)
    assert [at.slider(key=f"pg.q{i}").value for i in range(4)] == [50, 30, 20, 0]
    at.switch_page(ONE_DRAW).run()
    assert_alive(at)
    assert_player_tells(at, DEFAULT_WORDS, (40, 30, 20, 10), (50, 30, 20, 0), DEFAULT_SEED, 50)


# --------------------------------------------------------------------------- no distribution


@pytest.mark.parametrize("model", ["p", "q"])
def test_all_zero_weights_show_a_clear_error(model):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    at.switch_page(PLAYGROUND).run()
    for i in range(4):
        at.slider(key=f"pg.{model}{i}").set_value(0)
    at.run()
    assert_alive(at)
    at.switch_page(ONE_DRAW).run()
    assert_alive(at)
    assert len(at.error) == 1, [e.value for e in at.error]
    message = at.error[0].value
    name = "target p" if model == "p" else "draft q"
    assert f"All the {name} weights are zero" in message
    assert "Raise at least one slider" in message
    assert not at.get("iframe"), "no player without a distribution"
    # the controls stay, so the learner can load a preset and carry on
    at.selectbox(key="od.preset").set_value("close").run()
    assert_alive(at)
    assert not at.error
    assert_player_tells(at, DEFAULT_WORDS, (40, 30, 20, 10), (30, 35, 25, 10), DEFAULT_SEED, 50)


# --------------------------------------------------------------------------- settings


def test_projector_and_lettering_reach_the_player():
    plain = story_json(one_draw())
    at = one_draw({"projector": "1", "letters": "chen"})
    assert not at.warning, warnings(at)
    html = player_srcdoc(at)
    font = int(re.search(r"--fs:\s*(\d+)px", html).group(1))
    plain_font = int(re.search(r"--fs:\s*(\d+)px", player_srcdoc(one_draw())).group(1))
    assert font > plain_font
    data = story_json(at)
    assert (data["T"], data["D"]) == ("q", "p")
    assert (plain["T"], plain["D"]) == ("p", "q")
    assert data["output"] == plain["output"], "the lettering must not change the draws"
    assert "a(x) = min(1, q(x)/p(x))" in "\n".join(m.value for m in at.markdown)


# --------------------------------------------------------------------------- hostile links


BAD_LINKS = {
    "draws not a number": {"draws": "abc"},
    "draws not a choice": {"draws": "7"},
    "draws huge": {"draws": "1" + "0" * 40},
    "draws negative": {"draws": "-50"},
    "seed text": {"seed": "x"},
    "seed negative": {"seed": "-1"},
    "seed too large": {"seed": str(MAX_SEED + 1)},
    "words with markup": {"words": "<b>a</b>,<script>,c,d"},
    "too few words": {"words": "a,b"},
    "too many words": {"words": ",".join("abcdefghijkl")},
    "words long": {"words": "x" * 5000},
    "p all zero": {"p": "0,0,0,0"},
    "q all zero": {"q": "0,0,0,0"},
    "everything bad": {"draws": "", "seed": "1e3", "words": ",,,", "p": "a", "q": "-1,2,3"},
}


@pytest.mark.parametrize("name", list(BAD_LINKS))
def test_bad_link_leaves_the_page_alive(name):
    at = one_draw(BAD_LINKS[name])  # asserts no exception
    data = story_json(at)
    # a working player of a valid story, with a number of draws the page offers
    assert len(data["draft"]) in DRAW_CHOICES
    assert len(data["labels"]) == len(data["p"]) == len(data["q"])
    for label in data["labels"]:
        assert "<" not in label and ">" not in label
    # the page wrote a clean link back
    assert query(at)["draws"] in {str(c) for c in DRAW_CHOICES}
    assert query(at)["seed"].isdigit()


@pytest.mark.parametrize(
    "name",
    [n for n in BAD_LINKS if not n.startswith("draws")],
)
def test_bad_scenario_link_gets_a_notice(name):
    at = one_draw(BAD_LINKS[name])
    assert at.warning, "a bad link must be answered with a notice"
    assert "This link had problems" in warnings(at)


@pytest.mark.parametrize("name", ["draws not a number", "draws not a choice"])
def test_bad_draws_in_a_link_gets_a_notice(name):
    """The page writes ``draws`` into its share link, so a mangled ``draws`` deserves the same
    notice as a mangled seed (a learner opening a broken link should be told what was replaced)."""
    at = one_draw(BAD_LINKS[name])
    assert len(story_json(at)["draft"]) == DEFAULT_DRAWS
    assert "draws" in warnings(at).lower(), (
        f"link {BAD_LINKS[name]}: the number of draws silently fell back to {DEFAULT_DRAWS}"
    )


@pytest.mark.parametrize("draws", [20, 500])
def test_a_shared_link_restores_the_number_of_draws(draws):
    """The page puts ``draws`` in the address bar (state.sync_url), so the link a lecturer shares
    must open the same story: same seed and the same number of draws."""
    at = one_draw({"seed": "11", "draws": str(draws)})
    assert at.select_slider(key="od.draws").value == draws, (
        f"?draws={draws} was ignored: the slider shows "
        f"{at.select_slider(key='od.draws').value} and the address bar now says "
        f"draws={query(at)['draws']}"
    )
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, 11, draws)
