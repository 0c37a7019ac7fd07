"""The debate page: every claim's evidence is the core's numbers for the learner's state, and
every sentence holds at the extremes (identical models, a disjoint draft, free and costly
guesses, one guess a call)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from helpers import all_text, open_page

from specviz.figures.numbers import decimal, percent, times
from specviz.one_token import normalize, step
from specviz.rejection import classic_plan
from specviz.theory import break_even_alpha, expected_tokens_per_step, walltime_speedup

pytestmark = pytest.mark.slow  # the app under AppTest

DEBATE = "pages/9_The_debate.py"
STATES = {
    "default": {},
    "identical": {"p": "1,1,1,1", "q": "1,1,1,1", "c": "0", "gamma": "1"},
    "disjoint": {"p": "1,0,0,0", "q": "0,0,0,1", "c": "1"},
    "skewed": {"p": "60,20,10,10", "q": "10,20,30,40", "c": "0.5", "gamma": "8"},
}


@pytest.mark.parametrize("name", list(STATES))
def test_the_evidence_is_the_cores_numbers(name) -> None:
    query = {"words": "mat,sofa,floor,bed", "p": "40,30,20,10", "q": "10,20,30,40"}
    query |= STATES[name]
    at = open_page(DEBATE, query)
    text = all_text(at)
    gamma, c = int(query.get("gamma", 4)), float(query.get("c", 0.1))
    p = normalize([int(w) for w in query["p"].split(",")])
    q = normalize([int(w) for w in query["q"].split(",")])
    one = step(p, q)
    speed = walltime_speedup(one.alpha, gamma, c)
    assert f"keeps {percent(one.alpha)} of the draft's guesses" in text
    assert (
        f"each call writes {decimal(expected_tokens_per_step(one.alpha, gamma), 2)} words" in text
    )
    shown = Decimal(decimal(speed, 2))  # judged on the value on show, as the Playground does
    pace = "faster than" if shown > 1 else "as fast as" if shown == 1 else "slower than"
    assert f"makes it {times(speed)} — {pace} plain decoding" in text
    even = break_even_alpha(gamma, c)
    if even is None:
        assert "no draft is faster" in text
    elif c == 0:
        assert "any draft is at least as fast as plain decoding" in text
    else:
        assert f"faster only when α is above {percent(round(even, 3))}" in text
    plan = classic_plan(p, q)
    if plan.runs:
        assert f"needs a bound M = {plan.bound:.3g}" in text
        assert ("no limit on how many" in text) == (plan.bound != 1)
    else:
        assert "cannot run on your pair at all" in text
    assert f"leftover bucket ({percent(one.z)} of the time)" in text
    assert "1 in 16,777,216 proposals" in text  # 2**24: float32's 24-bit uniforms


def test_every_claim_links_to_the_page_that_shows_it() -> None:
    at = open_page(DEBATE)
    quotes = [m.value for m in at.markdown if m.value.startswith("## “")]
    assert len(quotes) == 4
    links = [link.proto.page for link in at.main.get("page_link")]
    assert links == ["Many_words_per_call", "Playground", "Rejection_sampling", "Why_its_exact"]
