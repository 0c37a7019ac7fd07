"""Ask the room's pure logic: room codes, keys, the questions and their computed answers, the
tallies."""

from __future__ import annotations

import pytest

from specviz import classroom
from specviz.exactness import QUESTIONS
from specviz.links import CLAIMS, KEY, ROOM, ROOM_ALPHABET, LinkError, room_code


def test_a_code_is_six_characters_that_read_aloud_without_doubt() -> None:
    assert set(ROOM_ALPHABET).isdisjoint("0O1IL") and len(set(ROOM_ALPHABET)) == 31
    codes = {classroom.new_code() for _ in range(500)}
    assert len(codes) == 500  # 887 million codes: no repeat in 500 draws but by a 1-in-7,000 fluke
    for code in codes:
        assert len(code) == 6 and set(code) <= set(ROOM_ALPHABET)
        assert room_code(code) == code


def test_a_typed_code_is_tidied_and_a_malformed_one_refused() -> None:
    assert room_code(" k7m-2qx ") == "K7M2QX"
    bad_codes = ("K7M2Q", "K7M2QXX", "K7M2Q0", "KOM2QX", "K1M2QX", "KIM2QX", "KLM2QX", "", "K7M2Q!")
    for bad in bad_codes:
        with pytest.raises(LinkError, match="is not a room code"):
            room_code(bad)
    assert ROOM.read({"room": "k7m2qx"}) == ("K7M2QX", None)
    assert ROOM.read({"room": "0OIL11"})[0] == "" and ROOM.write("") == {}


def test_a_key_is_32_link_safe_characters_and_only_its_hash_opens_the_room() -> None:
    key = classroom.new_key()
    assert len(key) == 32 and KEY.read({"key": key}) == (key, None)
    assert KEY.read({"key": key[:-1]})[0] == "" and KEY.read({"key": key + "="})[0] == ""
    stored = classroom.key_hash(key)
    assert len(stored) == 64 and key not in stored
    assert classroom.opens(key, stored)
    assert not classroom.opens(classroom.new_key(), stored)


def test_the_bank_holds_why_its_exact_and_the_four_claims() -> None:
    assert list(classroom.BANK) == [f"why.{q.key}" for q in QUESTIONS] + [
        f"claim.{k}" for k in CLAIMS
    ]
    for q in QUESTIONS:
        poll = classroom.poll(f"why.{q.key}")
        assert (poll.options, poll.answer) == (q.options, q.answer)
        assert poll.page == "pages/6_Why_its_exact.py"
    for key in CLAIMS:
        poll = classroom.poll(f"claim.{key}")
        assert poll.options == ("Agree", "Disagree") and poll.answer is None and poll.verdict
        assert poll.page == "pages/9_The_debate.py" and poll.query == (("claim", key),)


def test_what_is_alpha_here_has_the_computed_answer_and_three_distractors() -> None:
    # α = Σ min(p, q) = 0.1 + 0.2 + 0.2 + 0.1 = 60%; Σ p·q = 0.04+0.06+0.06+0.04 = 20%;
    # 1 − α = 40%; α / 2 = 30%.
    key = classroom.alpha_key((40, 30, 20, 10), (10, 20, 30, 40))
    assert key == "alpha:40,30,20,10:10,20,30,40"
    poll = classroom.poll(key)
    assert poll.options == ("20%", "30%", "40%", "60%") and poll.answer == 3
    assert "{T} = 40%, 30%, 20%, 10%" in poll.prompt and "{D} = 10%, 20%, 30%, 40%" in poll.prompt
    assert poll.page == "pages/1_Playground.py"
    assert dict(poll.query) == {"p": "40,30,20,10", "q": "10,20,30,40"}
    # The same pair: α = 100%, and every option still different.
    same = classroom.poll(classroom.alpha_key((50, 50, 0), (1, 1, 0)))
    assert same.options[same.answer] == "100%" and len(set(same.options)) == len(same.options) >= 3


@pytest.mark.parametrize(
    "key",
    [
        "",
        "why.nope",
        "claim.nope",
        "alpha:1,2:1,2",
        "alpha:0,0,0:1,1,1",
        "alpha:1,2,3:1,2",
        "alpha:101,0,0:1,1,1",
        "alpha:1,2,3:1,2,3:4",
        "<script>",
        "x" * 300,
    ],
)
def test_a_question_not_in_the_app_is_refused(key: str) -> None:
    with pytest.raises(ValueError):
        classroom.poll(key)


def test_an_answer_is_one_of_the_options_or_refused() -> None:
    poll = classroom.poll("why.missing")
    assert [classroom.check_choice(poll, i) for i in (0, 2, 3)] == [0, 2, 3]
    for bad in (4, -1, True, 1.0, "1", None):
        with pytest.raises(ValueError, match="not one of this question's options"):
            classroom.check_choice(poll, bad)
