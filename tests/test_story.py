"""The one-draw story (every uniform of every draw) and the player page built from it.

- draw by draw, the story obeys the rule, recomputed here with plain Python: the draft is q's
  inverse-CDF pick at ``u_draft``; accepted iff ``u_accept·q(x) < p(x)``; ``accept_prob`` is
  ``min(1, p/q)`` of the draft; an accepted draft is emitted, a rejected one is replaced by the
  residual's inverse-CDF pick at ``u_bucket`` (NaN exactly where accepted);
- its laws: 50 stories of the maximum length (2000 draws, seeds 0..49) pooled, the emitted words
  follow p and the proposals follow q (chi-square p-value above :data:`P_FLOOR`; the seeds are
  fixed, so a failure means the law moved, not bad luck);
- edge cases, input validation;
- the player builder: the page embeds exactly the story's numbers, labels only as JSON data that
  cannot close the script element, projector type is larger, swapped lettering swaps T and D.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from helpers import gof_pvalue

from specviz.figures.numbers import NUMBERS_JS
from specviz.figures.player import player_html, story_data
from specviz.figures.style import ChartStyle
from specviz.limits import MAX_STORY
from specviz.one_token import normalize, step
from specviz.palette import Notation
from specviz.scenario import PRESETS_BY_KEY
from specviz.story import DrawStory, one_draw_story

#: Floor on chi-square p-values: a correct sampler fails such a test with probability 1e-3.
P_FLOOR = 1e-3

#: Bound on |z| of a single proportion (two-sided 6e-5).
Z_PROPORTION = 4.0

#: Stories pooled for the statistical tests (each of the maximum length).
POOLED_SEEDS = range(50)

LABELS4 = ("mat", "sofa", "floor", "bed")

# (p, q) pairs: the app's default, every preset, and a few hand-made corner cases.
CASES: dict[str, tuple[np.ndarray, np.ndarray]] = {
    "default": (normalize([40, 30, 20, 10]), normalize([10, 20, 30, 40])),
    **{
        f"preset {key}": (normalize(preset.p_weights), normalize(preset.q_weights))
        for key, preset in PRESETS_BY_KEY.items()
    },
    "p == q": (normalize([5, 3, 2]), normalize([5, 3, 2])),
    "disjoint": (np.array([0.5, 0.5, 0, 0]), np.array([0, 0, 0.25, 0.75])),
    "one-hot, different": (np.array([1.0, 0, 0]), np.array([0, 0, 1.0])),
    "zeros in the middle": (normalize([3, 0, 2, 0, 5]), normalize([0, 4, 1, 0, 5])),
}
CASE_IDS = list(CASES)


# --------------------------------------------------------------------------- independent math


def inverse_cdf_pick(probs: np.ndarray, u: float) -> int:
    """The word a uniform ``u`` in [0, 1) lands on when the unit strip is cut into ``probs``
    (normalised here), walking the strip left to right; a word of probability 0 has no share."""
    probs = np.asarray(probs, float) / np.sum(probs)
    edge = 0.0
    for i, share in enumerate(probs):
        edge += share
        if share > 0 and u < edge:
            return i
    return int(np.flatnonzero(probs)[-1])  # u within rounding of 1


def residual_of(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    excess = np.maximum(p - q, 0.0)
    return excess / excess.sum()


# --------------------------------------------------------------------------- draw by draw


@pytest.mark.parametrize("case", CASE_IDS)
def test_every_draw_follows_the_rule(case):
    p, q = CASES[case]
    s = one_draw_story(p, q, MAX_STORY, seed=2024)
    n = MAX_STORY
    for name in ("u_draft", "draft", "accept_prob", "u_accept", "accepted", "u_bucket", "output"):
        assert getattr(s, name).shape == (n,), name
    assert s.draft.size == n
    assert s.accepted.dtype == bool
    for u in (s.u_draft, s.u_accept, s.u_bucket[~s.accepted]):
        assert ((u >= 0) & (u < 1)).all()

    for i in range(n):
        x = int(s.draft[i])
        assert x == inverse_cdf_pick(q, s.u_draft[i]), f"draw {i}: draft is not q's pick"
        assert q[x] > 0, f"draw {i}: proposed a word with q = 0"
        assert s.accept_prob[i] == pytest.approx(min(1.0, p[x] / q[x]), abs=1e-15), f"draw {i}"
        assert bool(s.accepted[i]) == bool(s.u_accept[i] * q[x] < p[x]), f"draw {i}: verdict"
        if s.accepted[i]:
            assert np.isnan(s.u_bucket[i]), f"draw {i}: accepted but u_bucket is a number"
            assert s.output[i] == x, f"draw {i}: accepted but emitted another word"
        else:
            assert not np.isnan(s.u_bucket[i]), f"draw {i}: rejected but u_bucket is NaN"
            pick = inverse_cdf_pick(residual_of(p, q), s.u_bucket[i])
            assert s.output[i] == pick, f"draw {i}: not the residual's pick at u_bucket"
        assert p[s.output[i]] > 0, f"draw {i}: emitted a word with p = 0"

    # the verdict agrees with the displayed form u < a(x) (no float ties at these seeds)
    np.testing.assert_array_equal(s.accepted, s.u_accept < s.accept_prob)


def test_same_seed_same_story_other_seed_other_story():
    p, q = CASES["default"]
    a, b = one_draw_story(p, q, 500, seed=11), one_draw_story(p, q, 500, seed=11)
    for name in ("u_draft", "draft", "accept_prob", "u_accept", "accepted", "u_bucket", "output"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    c = one_draw_story(p, q, 500, seed=12)
    assert not np.array_equal(a.u_draft, c.u_draft)
    assert not np.array_equal(a.output, c.output)
    # a prefix of a longer story is not promised, but the same (seed, n) always is
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    np.testing.assert_array_equal(
        one_draw_story(p, q, 100, seed=g1).output, one_draw_story(p, q, 100, seed=g2).output
    )


@pytest.mark.parametrize("case", CASE_IDS)
def test_the_story_shows_the_steps_acceptance(case):
    """The displayed a(x) is the one-token step's, the number every other view shows."""
    p, q = CASES[case]
    s = one_draw_story(p, q, 300, seed=8)
    np.testing.assert_array_equal(s.accept_prob, step(p, q).accept[s.draft])


@pytest.mark.parametrize("seed", [5.0, True, "5", -1])
def test_seeds_must_be_whole_numbers(seed):
    p, q = CASES["default"]
    with pytest.raises(ValueError, match="seed"):
        one_draw_story(p, q, 10, seed=seed)


# --------------------------------------------------------------------------- laws


@pytest.fixture(scope="module", params=CASE_IDS)
def pooled(request):
    """(p, q, 50 stories of 2000 draws, seeds 0..49, concatenated)."""
    p, q = CASES[request.param]
    stories = [one_draw_story(p, q, MAX_STORY, seed=seed) for seed in POOLED_SEEDS]
    cat = {
        name: np.concatenate([getattr(s, name) for s in stories])
        for name in ("draft", "accepted", "output", "accept_prob")
    }
    return p, q, cat


def test_pooled_output_follows_p(pooled):
    p, _q, d = pooled
    counts = np.bincount(d["output"], minlength=p.size)
    assert gof_pvalue(counts, p) > P_FLOOR, (counts / counts.sum(), p)


def test_pooled_draft_follows_q(pooled):
    _p, q, d = pooled
    counts = np.bincount(d["draft"], minlength=q.size)
    assert gof_pvalue(counts, q) > P_FLOOR, (counts / counts.sum(), q)


def test_pooled_bucket_words_follow_the_residual(pooled):
    p, q, d = pooled
    rejected = d["output"][~d["accepted"]]
    if np.maximum(p - q, 0).sum() == 0:
        assert rejected.size == 0
        return
    counts = np.bincount(rejected, minlength=p.size)
    assert gof_pvalue(counts, residual_of(p, q)) > P_FLOOR


def test_pooled_acceptance_rate_is_alpha(pooled):
    p, q, d = pooled
    alpha = float(np.minimum(p, q).sum())
    n = d["accepted"].size
    se = np.sqrt(alpha * (1 - alpha) / n)
    rate = d["accepted"].mean()
    if se == 0:
        assert rate == alpha
    else:
        assert abs(rate - alpha) / se < Z_PROPORTION, (rate, alpha)


# --------------------------------------------------------------------------- edge cases


def test_p_equals_q_accepts_every_draw():
    p = normalize([5, 3, 2])
    for seed in range(5):
        s = one_draw_story(p, p.copy(), MAX_STORY, seed=seed)
        assert s.accepted.all()
        assert (s.accept_prob == 1).all()
        assert np.isnan(s.u_bucket).all()
        np.testing.assert_array_equal(s.output, s.draft)


def test_disjoint_supports_accept_nothing():
    p, q = CASES["disjoint"]
    for seed in range(5):
        s = one_draw_story(p, q, MAX_STORY, seed=seed)
        assert not s.accepted.any()
        assert (s.accept_prob == 0).all()
        assert not np.isnan(s.u_bucket).any()
        assert set(np.unique(s.draft)) <= {2, 3}
        assert set(np.unique(s.output)) <= {0, 1}


@pytest.mark.parametrize("case", CASE_IDS)
def test_zero_probability_words_are_never_emitted_or_proposed(case):
    p, q = CASES[case]
    for seed in range(20):
        s = one_draw_story(p, q, MAX_STORY, seed=seed)
        assert (p[s.output] > 0).all(), f"seed {seed}: emitted a word with p = 0"
        assert (q[s.draft] > 0).all(), f"seed {seed}: proposed a word with q = 0"


def test_zero_length_story():
    p, q = CASES["default"]
    s = one_draw_story(p, q, 0, seed=1)
    assert s.draft.size == 0


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("n", [MAX_STORY + 1, 10**6, -1, 2.5, float("nan"), "10", True])
def test_bad_n_is_refused(n):
    p, q = CASES["default"]
    with pytest.raises(ValueError):
        one_draw_story(p, q, n, seed=0)


def test_largest_n_is_accepted():
    p, q = CASES["default"]
    assert one_draw_story(p, q, MAX_STORY, seed=0).draft.size == MAX_STORY == 2000


@pytest.mark.parametrize(
    ("p", "q"),
    [
        ([0.5, 0.5], [0.2, 0.3, 0.5]),  # lengths differ
        ([0.6, 0.6], [0.5, 0.5]),  # p does not sum to 1
        ([0.5, 0.5], [0.0, 0.0]),  # q all zero
        ([1.5, -0.5], [0.5, 0.5]),  # negative entry
        ([np.nan, 1.0], [0.5, 0.5]),
        ([0.5, 0.5], [np.inf, 0.0]),
        ([], []),
        ("ab", [0.5, 0.5]),
        ([[0.5, 0.5]], [[0.5, 0.5]]),
        ([True, False], [0.5, 0.5]),
    ],
)
def test_bad_p_or_q_is_refused(p, q):
    with pytest.raises(ValueError):
        one_draw_story(p, q, 10, seed=0)


# --------------------------------------------------------------------------- the player page

_STORY_JSON = re.compile(r'<script id="story" type="application/json">(.*?)</script>', re.S)


def embedded(html: str) -> dict:
    """The JSON between <script id="story" type="application/json"> and the first </script>."""
    found = _STORY_JSON.findall(html)
    assert len(found) == 1, "exactly one story script expected"
    return json.loads(found[0])


def assert_embeds(data: dict, labels, p, q, story: DrawStory) -> None:
    assert data["labels"] == list(labels)
    assert data["p"] == p.tolist() and data["q"] == q.tolist()
    excess = np.maximum(p - q, 0.0)
    assert data["z"] == pytest.approx(excess.sum(), abs=1e-15)
    if excess.sum() > 0:
        np.testing.assert_allclose(data["r"], excess / excess.sum(), atol=1e-15)
    # floats survive JSON exactly (repr round trip), so equality is exact
    assert data["u1"] == story.u_draft.tolist()
    assert data["draft"] == story.draft.tolist()
    assert data["a"] == story.accept_prob.tolist()
    assert data["u"] == story.u_accept.tolist()
    assert data["accepted"] == story.accepted.tolist()
    assert data["output"] == story.output.tolist()
    assert len(data["u3"]) == story.draft.size
    for got, want, acc in zip(data["u3"], story.u_bucket, story.accepted, strict=True):
        if acc:
            assert got is None
        else:
            assert got == want


@pytest.mark.parametrize("case", ["default", "preset garbage", "preset identical", "disjoint"])
def test_player_embeds_exactly_the_story(case):
    p, q = CASES[case]
    labels = [f"w{i}" for i in range(p.size)]
    story = one_draw_story(p, q, 200, seed=99)
    html = player_html(labels, step(p, q), ChartStyle(), story)
    data = embedded(html)
    assert_embeds(data, labels, p, q, story)
    assert data == story_data(labels, step(p, q), ChartStyle(), story)
    assert data["T"] == "p" and data["D"] == "q"
    # every placeholder of the template was filled, the letters too
    assert not re.search(r"__[A-Z]+__", html), re.findall(r"__[A-Z]+__", html)
    assert "{T}" not in html and "{D}" not in html
    assert NUMBERS_JS in html  # the one formatter writes its numbers (tests/test_numbers.py)


def test_player_of_an_empty_story_is_valid():
    p, q = CASES["default"]
    story = one_draw_story(p, q, 0, seed=1)
    data = embedded(player_html(LABELS4, step(p, q), ChartStyle(), story))
    assert data["draft"] == data["output"] == data["u3"] == []


HOSTILE = [
    "</script><b>bold</b>",
    "</SCRIPT><img src=x onerror=alert(1)>",
    "x</scr\u0131pt>",
    '"}; alert(1); //',
]


@pytest.mark.parametrize("label", HOSTILE)
def test_a_label_is_data_never_markup(label):
    p, q = CASES["default"]
    labels = [label, "sofa", "floor", "bed"]
    story = one_draw_story(p, q, 20, seed=4)
    html = player_html(labels, step(p, q), ChartStyle(), story)
    # the label is not in the page as markup: nothing of it outside the JSON block
    if "</" in label:
        assert label not in html
    outside = _STORY_JSON.sub("", html)
    assert "bold" not in outside and "<img" not in outside and "alert" not in outside
    # the story script is closed by the template's own </script>, and holds the label as data
    data = embedded(html)
    assert data["labels"] == labels
    assert_embeds(data, labels, p, q, story)
    # the rest of the document (the player script) is intact after the JSON block
    tail = html.split('<script id="story" type="application/json">', 1)[1]
    assert tail.count("</script>") == 2, "the JSON block must end at the template's </script>"


def test_a_label_cannot_swallow_the_player_script():
    """Inside a script element the HTML tokenizer also reacts to "<!--" followed by "<script":
    in that "double escaped" state the next "</script>" does not close the element, so the JSON
    block runs on over the player's own script, which never executes (checked in Chromium: with
    the label "<!--<script>", ``window.specviz`` is undefined). The payload must therefore hold
    neither "<!--" nor "<script" (escaping every "<" as \\u003c does both)."""
    p, q = CASES["default"]
    labels = ["<!--<script>", "sofa", "floor", "bed"]
    story = one_draw_story(p, q, 20, seed=4)
    html = player_html(labels, step(p, q), ChartStyle(), story)
    payload = _STORY_JSON.findall(html)[0]
    assert json.loads(payload)["labels"] == labels
    assert "<!--" not in payload, "the payload opens an HTML comment inside <script>"
    assert "<script" not in payload.lower(), "the payload holds '<script' inside <script>"


def test_projector_mode_gives_larger_type():
    p, q = CASES["default"]
    story = one_draw_story(p, q, 10, seed=0)

    def font_px(style: ChartStyle) -> int:
        html = player_html(LABELS4, step(p, q), style, story)
        return int(re.search(r"--fs:\s*(\d+)px", html).group(1))

    normal, projector = font_px(ChartStyle()), font_px(ChartStyle(projector=True))
    assert projector > normal
    assert projector >= 24, "projector type should be readable from the back row"


def test_swapped_notation_swaps_the_letters():
    p, q = CASES["default"]
    story = one_draw_story(p, q, 10, seed=0)
    plain = player_html(LABELS4, step(p, q), ChartStyle(), story)
    swapped = player_html(LABELS4, step(p, q), ChartStyle(notation=Notation(swapped=True)), story)
    d_plain, d_swapped = embedded(plain), embedded(swapped)
    assert (d_plain["T"], d_plain["D"]) == ("p", "q")
    assert (d_swapped["T"], d_swapped["D"]) == ("q", "p")
    # only the lettering changes: the numbers are the same
    letters = {"T", "D"}
    assert {k: v for k, v in d_plain.items() if k not in letters} == {
        k: v for k, v in d_swapped.items() if k not in letters
    }
    assert "(a pointer on q's strip)" in plain
    assert "(a pointer on p's strip)" in swapped
    assert "vs target p (dashed)" in plain
    assert "vs target q (dashed)" in swapped
