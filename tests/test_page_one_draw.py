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

import numpy as np
import pytest
from helpers import assert_alive, open_page, query
from streamlit.testing.v1 import AppTest

import specviz.story as story_module
from specviz.figures.numbers import percent
from specviz.limits import MAX_SEED
from specviz.one_token import normalize, step
from specviz.scenario import PRESETS_BY_KEY
from specviz.story import one_draw_story

pytestmark = pytest.mark.slow  # the app under AppTest

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


def one_draw(link: dict[str, str] | None = None) -> AppTest:
    """The page in a new session: app.py then the menu's switch, or (with ``link``) a shared
    link's first visit, where the page is the session's very first run."""
    if link is None:
        return open_page(ONE_DRAW, via_home=True)
    return open_page(ONE_DRAW, link)


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


def new_draws(at: AppTest):
    """The "New draws" button."""
    (button,) = [b for b in at.button if b.label == "New draws"]
    return button


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
    assert at.select_slider(key="w.draws").value == DEFAULT_DRAWS
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
    at.select_slider(key="w.draws").set_value(draws).run()
    assert_alive(at)
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED, draws)
    assert query(at)["draws"] == str(draws)
    assert f"{draws} draws" in "\n".join(m.value for m in at.markdown)


def test_number_of_draws_survives_a_visit_to_another_page():
    at = one_draw()
    at.select_slider(key="w.draws").set_value(200).run()
    at.switch_page("pages/1_Playground.py").run()  # widget keys of One draw are dropped here
    at.switch_page("pages/2_One_draw.py").run()
    assert_alive(at)
    assert at.select_slider(key="w.draws").value == 200
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED, 200)


def test_new_draws_advances_the_seed_and_changes_the_story():
    at = one_draw()
    before = story_json(at)
    new_draws(at).click().run()
    assert_alive(at)
    assert query(at)["seed"] == str(DEFAULT_SEED + 1)
    assert at.number_input(key="ui.seed").value == DEFAULT_SEED + 1
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED + 1, DEFAULT_DRAWS)
    after = story_json(at)
    assert after["u1"] != before["u1"] and after["output"] != before["output"]
    new_draws(at).click().run()
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, DEFAULT_SEED + 2, DEFAULT_DRAWS)


def test_new_draws_wraps_at_the_largest_seed():
    at = one_draw({"seed": str(MAX_SEED)})
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, MAX_SEED, DEFAULT_DRAWS)
    new_draws(at).click().run()
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
    at.session_state["pg.edit"] = True  # the weight editor, open
    at.run()
    assert_alive(at)
    assert [at.slider(key=f"pg.q{i}").value for i in range(4)] == [50, 30, 20, 0]
    at.switch_page(ONE_DRAW).run()
    assert_alive(at)
    assert_player_tells(at, DEFAULT_WORDS, (40, 30, 20, 10), (50, 30, 20, 0), DEFAULT_SEED, 50)


# --------------------------------------------------------------------------- no distribution


@pytest.mark.parametrize("model", ["p", "q"])
def test_all_zero_weights_show_a_clear_error(model):
    at = open_page(PLAYGROUND, via_home=True)
    at.session_state["pg.edit"] = True  # the weight editor, open
    at.run()
    for i in range(4):
        at.slider(key=f"pg.{model}{i}").set_value(0)
    at.run()
    assert_alive(at)
    at.switch_page(ONE_DRAW).run()
    assert_alive(at)
    assert len(at.error) == 1, [e.value for e in at.error]
    message = at.error[0].value
    name = "target" if model == "p" else "draft"
    assert f"All the {name}'s weights are zero" in message
    # This page has no weight sliders: it says where the weights are set, and links there.
    assert "slider" not in message.lower()
    assert message.endswith("Set at least one of its weights above zero on the Playground.")
    links = [link for link in at.get("page_link") if link.proto.label == "Open the Playground"]
    assert len(links) == 1 and links[0].proto.page == "Playground"
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
    assert at.select_slider(key="w.draws").value == draws, (
        f"?draws={draws} was ignored: the slider shows "
        f"{at.select_slider(key='w.draws').value} and the address bar now says "
        f"draws={query(at)['draws']}"
    )
    assert_player_tells(at, DEFAULT_WORDS, DEFAULT_P, DEFAULT_Q, 11, draws)


def test_a_bad_draws_notice_says_what_the_page_uses():
    at = one_draw({"draws": "7"})
    assert "The link's 'draws' must be one of 20, 50, 200, 500; the page uses 50 draws." in (
        warnings(at)
    )


# --------------------------------------------------------------------------- one step, one source


def test_the_player_and_the_sentence_read_the_step():
    at = one_draw({"words": "rain,sun,snow", "p": "10,60,30", "q": "50,25,25", "seed": "3"})
    s = step(normalize([10, 60, 30]), normalize([50, 25, 25]))
    data = story_json(at)
    assert data["p"] == s.p.tolist() and data["q"] == s.q.tolist()
    assert data["r"] == s.residual.tolist() and data["z"] == s.z
    # By hand: Z = (.6 - .25) + (.3 - .25) = 40%, α = .1 + .25 + .25 = 60%.
    assert percent(s.z) == "40%" and percent(s.alpha) == "60%"
    assert "(size Z = 40% = P(rejection))" in player_srcdoc(at)
    text = "\n".join(m.value for m in at.markdown)
    assert "**60%** of proposals are accepted" in text and "**40%** go to the bucket" in text


def test_the_same_state_in_two_sessions_gets_the_same_player():
    link = {"words": "rain,sun,snow", "p": "10,60,30", "q": "50,25,25", "seed": "3"}
    first, second = one_draw(link), one_draw(link)
    assert player_srcdoc(first) == player_srcdoc(second)


#: Every call of the counting story below: (p, q, draws, seed).
TOLD: list[tuple] = []


def counted_one_draw_story(p, q, n, seed):
    """``one_draw_story``, counting its calls (module level: the page cache names it)."""
    TOLD.append((tuple(p), tuple(q), n, seed))
    return one_draw_story(p, q, n, seed)


def test_the_story_is_drawn_once_per_state(monkeypatch):
    monkeypatch.setattr(story_module, "one_draw_story", counted_one_draw_story)
    TOLD.clear()
    link = {"words": "ant,bee,cat", "p": "11,22,33", "q": "33,22,11", "seed": "31"}
    a = one_draw(link)
    assert len(TOLD) == 1
    b = one_draw(link)  # another session, same state: the cached story
    assert len(TOLD) == 1 and story_json(a) == story_json(b)
    a.toggle(key="ui.projector").set_value(True).run()  # the story does not depend on it
    assert len(TOLD) == 1
    a.select_slider(key="w.draws").set_value(200).run()
    new_draws(a).click().run()  # New draws: seed 32
    assert len(TOLD) == 3
    b.select_slider(key="w.draws").set_value(200).run()
    new_draws(b).click().run()  # the same two states: nothing new is drawn
    assert_alive(a)
    assert_alive(b)
    assert len(TOLD) == 3 and len(set(TOLD)) == 3
    assert [(n, seed) for *_, n, seed in TOLD] == [(50, 31), (200, 31), (200, 32)]
    assert story_json(a)["output"] == story_json(b)["output"]


# --------------------------------------------------------------------------- the player's place


def test_a_link_opens_the_player_at_its_step_and_keeps_it():
    """``at`` is steps from the start (4 a draw): 9 is draw 3, step ①."""
    at = one_draw({"seed": "4", "at": "9"})
    assert not at.warning, warnings(at)
    assert story_json(at)["at"] == 9 and query(at)["at"] == "9"
    at.toggle(key="ui.projector").set_value(True).run()  # a new look: still step 9
    assert story_json(at)["at"] == 9 and query(at)["at"] == "9"


def test_the_players_own_moves_change_the_link_not_its_document():
    """The player reports a pause or a step (a component's state, set here as its callback
    does); a new document would reload the player and drop a keyboard user's focus."""
    at = one_draw({"seed": "4"})
    before = player_srcdoc(at)
    assert "at" not in query(at) and story_json(at)["at"] == 0
    at.session_state["specviz.param.at"] = 13
    at.run()
    assert query(at)["at"] == "13" and player_srcdoc(at) == before
    new_draws(at).click().run()  # a new story starts at its beginning
    assert "at" not in query(at) and story_json(at)["at"] == 0


@pytest.mark.parametrize("raw", ["-3", "abc", "99999", "2.5"])
def test_a_bad_step_in_a_link_is_the_start_with_a_notice(raw):
    at = one_draw({"at": raw})
    assert story_json(at)["at"] == 0 and "at" not in query(at)
    assert "The link's 'at'" in warnings(at)
