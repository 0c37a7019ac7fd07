"""The one share-link schema (``specviz.links``): every parameter round-trips, and every hostile
value gives the default and one plain notice that never echoes what the link held.

A link is untrusted input typed or pasted by anyone, so the notices are checked for markup and
for the raw text, and every parameter of every page is checked the same way.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import links
from specviz.limits import (
    CASE_TITLES,
    MAX_LABEL,
    MAX_PARAM_CHARS,
    MAX_SEED,
    MAX_TOKENS,
    MIN_TOKENS,
    MISTAKE_KEYS,
    N_CHOICES,
    RULE_TITLES,
)
from specviz.links import (
    BUG,
    DRAWS,
    GAMMA,
    LETTERS,
    P_WEIGHTS,
    PLAYER_AT,
    PROJECTOR,
    Q_WEIGHTS,
    QUALITY,
    RUNS,
    SCENARIO_PARAMS,
    SEED,
    WORDS,
    Param,
    _graphemes,  # the cut clean_label makes
    clean_label,
    format_count,
    read_all,
    short_number,
)
from specviz.palette import Notation
from specviz.rules import MISTAKE, RULES, rules_of
from specviz.scenario import Scenario, from_query

PROPERTY = settings(deadline=None, max_examples=200, derandomize=True)

#: Every parameter any page reads from a link.
ALL_PARAMS: tuple[Param, ...] = tuple(p for p in vars(links).values() if isinstance(p, Param))
CHOICE_PARAMS = tuple(param for param in ALL_PARAMS if param.choices)
FLAGS = (PROJECTOR, LETTERS)


def ids(param: Param) -> str:
    return param.name


def test_every_parameter_has_its_own_name() -> None:
    assert len(ALL_PARAMS) == 30 and len(CHOICE_PARAMS) == 23
    names = [param.name for param in ALL_PARAMS]
    assert len(names) == len(set(names)), names
    assert [param.name for param in SCENARIO_PARAMS] == [
        "words",
        "p",
        "q",
        "seed",
        "projector",
        "letters",
        "lang",
    ]


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("param", CHOICE_PARAMS, ids=ids)
def test_every_choice_round_trips(param: Param) -> None:
    assert param.choices, "a choice parameter lists its choices"
    assert param.default in param.choices
    for value in param.choices:
        assert param.read({param.name: param.format(value)}) == (value, None), value
        assert param.read(param.write(value)) == (value, None), value


def test_the_page_parameters_offer_what_the_pages_show() -> None:
    assert QUALITY.choices == tuple(range(0, 101, 5)) and QUALITY.default == 30
    assert GAMMA.choices == tuple(range(1, 9)) and GAMMA.default == 4
    assert RUNS.choices == N_CHOICES and RUNS.default == 10_000
    assert DRAWS.choices == (20, 50, 200, 500) and DRAWS.default == 50
    assert BUG.choices == rules_of(MISTAKE) and BUG.default == "resample_from_p"


def test_the_names_a_link_carries_are_the_lessons() -> None:
    """links.py reads the rules' and the cases' keys, titles and defaults from limits.py, so that
    it imports no lesson module; the lesson modules build on the same constants."""
    from specviz.exactness import CASES
    from specviz.links import CANDIDATES, CASE, TYPICAL_DELTA, TYPICAL_EPS, VARIANT, VARIANTS

    assert {key: rule.title for key, rule in RULES.items()} == RULE_TITLES
    assert tuple(RULES) == tuple(RULE_TITLES) and rules_of(MISTAKE) == MISTAKE_KEYS
    assert tuple(k for k, rule in RULES.items() if rule.kind != MISTAKE) == VARIANTS
    assert VARIANT.choices == VARIANTS and VARIANT.default == "correct"
    assert {case.key: case.title for case in CASES} == CASE_TITLES
    assert CASE.choices == ("yours", *(case.key for case in CASES))
    assert CANDIDATES.default == RULES["multi_candidate"].defaults["k"]
    assert TYPICAL_EPS.default == RULES["typical_acceptance"].defaults["eps"]
    assert TYPICAL_DELTA.default == RULES["typical_acceptance"].defaults["delta"]
    notice = BUG.read({"bug": "nope"})[1]
    assert notice is not None and "'Rejection resamples from {T}'" in notice


def test_links_loads_no_lesson_module() -> None:
    """A page's share link is read without loading any lesson (the decoding engine took 1.5 s)."""
    code = "import sys, specviz.links; print(sorted(m for m in sys.modules if 'specviz' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(out.stdout.strip()))
    # specviz.text: the notices' words, from the catalogs (it imports nothing of SpecViz).
    assert loaded == {
        "specviz",
        "specviz._checks",
        "specviz.limits",
        "specviz.links",
        "specviz.text",
    }


@pytest.mark.parametrize("param", FLAGS, ids=ids)
def test_flags_round_trip_and_stay_out_of_links_while_off(param: Param) -> None:
    assert param.default is False
    assert param.write(False) == {}
    assert param.read({}) == (False, None)
    assert param.read(param.write(True)) == (True, None)
    for off in ("0", "off", "false", ""):
        assert param.read({param.name: off}) == (False, None), off
    for on in ("1", "true", "on", " ON "):
        assert param.read({param.name: on}) == (True, None), on


def test_letters_accept_both_names_of_the_swapped_lettering() -> None:
    assert LETTERS.read({"letters": "chen"}) == (True, None)
    assert LETTERS.read({"letters": "swapped"}) == (True, None)
    assert LETTERS.write(True) == {"letters": "chen"}


@PROPERTY
@given(st.integers(0, MAX_SEED))
def test_every_seed_round_trips(seed: int) -> None:
    assert SEED.read(SEED.write(seed)) == (seed, None)


@pytest.mark.parametrize("seed", [0, 1, 7, MAX_SEED])
def test_edge_seeds_round_trip(seed: int) -> None:
    assert SEED.read({"seed": str(seed)}) == (seed, None)


WEIGHTS = st.lists(st.integers(0, 100), min_size=MIN_TOKENS, max_size=MAX_TOKENS).filter(any)
#: What a reader sees as one character each, made of several code points, and some that are not
#: allowed: learners type emoji and accents, links arrive mangled.
PIECES = (
    "a",
    "é",
    "e\u0301",
    "ß",
    "ж",
    "ह",
    "हि",
    "न्",
    "語",
    "٣",
    "👩\u200d💻",
    "👍🏽",
    "❤️",
    "1️⃣",
    "🇫🇷",
    "🇫",
    "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "👨\u200d👩\u200d👧\u200d👦",
    " ",
    "-",
    "!",
    "\u200d",
    "\u0301",
    "<",
    "*",
    "_",
    "`",
    ",",
)
TYPED = st.lists(st.sampled_from(PIECES), max_size=3 * MAX_LABEL).map("".join) | st.text()
WORD_LISTS = st.lists(TYPED.map(clean_label).filter(bool), min_size=MIN_TOKENS, max_size=MAX_TOKENS)


@PROPERTY
@given(WEIGHTS)
def test_weights_round_trip(weights: list[int]) -> None:
    for param in (P_WEIGHTS, Q_WEIGHTS):
        assert param.read(param.write(tuple(weights))) == (tuple(weights), None)


@PROPERTY
@given(WORD_LISTS)
def test_words_round_trip(words: list[str]) -> None:
    assert WORDS.read(WORDS.write(tuple(words))) == (tuple(words), None)


def test_the_longest_words_still_round_trip() -> None:
    """Ten words of twelve family emoji (7 code points each) fit one link parameter."""
    family = "👨\u200d👩\u200d👧\u200d👦"
    words = tuple(clean_label(family * 20) for _ in range(MAX_TOKENS))
    assert words[0] == family * MAX_LABEL
    assert len(WORDS.write(words)["words"]) <= MAX_PARAM_CHARS
    assert WORDS.read(WORDS.write(words)) == (words, None)


# --------------------------------------------------------------------------- words as typed

#: (typed, kept): whole characters are kept or dropped, never cut; any script and emoji stay.
CLEANED = {
    "wonderfulness": "wonderfulnes",
    "👩\u200d💻": "👩\u200d💻",  # a person at a laptop: one character, not "👩" and a joiner
    "aaaaaaaaaaa👩\u200d💻b": "aaaaaaaaaaa👩\u200d💻",
    "👩\u200d💻" * 13: "👩\u200d💻" * 12,
    "🇫🇷" * 13: "🇫🇷" * 12,  # a flag is two regional letters
    "👍🏽" * 13: "👍🏽" * 12,  # a skin tone belongs to its hand
    "1️⃣" * 13: "1️⃣" * 12,
    "cafe\u0301" + "x" * 20: "café" + "x" * 8,  # NFKC: é written as e and an accent
    "हिन्दी में लिखा हुआ पाठ": "हिन्दी में लिखा हुआ",  # vowel signs and viramas stay with their letters
    "日本語のテキスト": "日本語のテキスト",
    "Ελληνικά": "Ελληνικά",
    "<b>x</b>": "bxb",
    "`c` *e* _u_ [l](x) #h |t|": "c e u lx h t",
    "\u0301\u200d mat": "mat",  # marks with no letter before them
    "  spaced   out  ": "spaced out",
    "\u200d": "",
    "ﬁ™": "fiTM",
}


@pytest.mark.parametrize(("typed", "kept"), CLEANED.items(), ids=[repr(t)[:20] for t in CLEANED])
def test_a_word_is_cut_by_the_characters_a_reader_sees(typed: str, kept: str) -> None:
    assert clean_label(typed) == kept


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("👩\u200d💻", 1),
        ("👨\u200d👩\u200d👧\u200d👦", 1),
        ("🇫🇷🇩🇪", 2),
        ("🇫🇷🇩", 2),
        ("e\u0301", 1),
        ("हिन्दी", 3),
        ("❤️", 1),
        ("👍🏽x", 2),
        ("a\u200db", 2),
        ("", 0),
    ],
)
def test_graphemes_of_named_cases(text: str, count: int) -> None:
    assert len(_graphemes(text)) == count


@PROPERTY
@given(TYPED)
def test_a_clean_word_is_clean(typed: str) -> None:
    """Cleaning twice changes nothing (a link reads back what it wrote); at most MAX_LABEL
    characters; no markup; graphemes only cut, never change, the text."""
    kept = clean_label(typed)
    assert clean_label(kept) == kept
    assert "".join(_graphemes(typed)) == typed
    assert len(_graphemes(kept)) <= MAX_LABEL and kept == kept.strip()
    assert not set(kept) & set('<>&*_`[]()#|$:\\/{}~^=+"\n\t,;')


def test_player_steps_round_trip_and_other_numbers_are_refused() -> None:
    top = 4 * DRAWS.choices[-1] + 1  # the last draw's four steps, then "all done"
    assert PLAYER_AT.choices == tuple(range(top + 1)) and PLAYER_AT.default == 0
    assert PLAYER_AT.write(0) == {}  # the start stays out of links
    for raw in ("-1", str(top + 1), "2.5", "True", "None", "٣٤"):
        value, notice = PLAYER_AT.read({"at": raw})
        assert value == 0 and notice is not None, raw


def test_a_missing_parameter_is_its_default_without_a_notice() -> None:
    for param in ALL_PARAMS:
        assert param.read({}) == (param.default, None), param.name
    values, notices = read_all(ALL_PARAMS, {})
    assert values == {param.name: param.default for param in ALL_PARAMS}
    assert notices == []


def test_repeated_parameters_take_the_last_value() -> None:
    assert GAMMA.read({"gamma": ["2", "5"]}) == (5, None)
    assert RUNS.read({"n": ("1k", "1M")}) == (10**6, None)


# --------------------------------------------------------------------------- numbers of runs


def test_short_number_and_format_count_are_inverse_on_the_offered_sizes() -> None:
    shown = [format_count(n) for n in N_CHOICES]
    assert shown == ["1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1B"]
    for n, text in zip(N_CHOICES, shown, strict=True):
        assert short_number(text) == n
        assert short_number(text.lower()) == n
        assert short_number(str(n)) == n
        assert format_count(short_number(text)) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1e6", 10**6), ("1E6", 10**6), ("10k", 10**4), ("1.5k", 1500), (" 100 ", 100)],
)
def test_short_number_reads_the_usual_spellings(text: str, expected: int) -> None:
    assert short_number(text) == expected


@pytest.mark.parametrize("text", ["", "1e400", "-10", "1.5", "1e-3", "ten", "1,000", "0x10", "nan"])
def test_short_number_refuses_everything_else(text: str) -> None:
    assert short_number(text) is None


def test_runs_take_every_spelling_of_an_offered_size() -> None:
    for text in ("1e6", "1000000", "1M", "1m"):
        assert RUNS.read({"n": text}) == (10**6, None), text
    value, notice = RUNS.read({"n": "12345"})  # a number, but not one the page offers
    assert value == RUNS.default and notice


# --------------------------------------------------------------------------- hostile values

#: Values nobody should send, and a mangled link might: each must give the default and one notice.
HOSTILE = {
    "100k characters": "x" * 100_000,
    "just too long": "1" * (MAX_PARAM_CHARS + 1),
    "script": "<script>alert(1)</script>",
    "markup": "**bold** [link](javascript:alert(1))",
    "list ending in a bad value": ["7", "<img src=x onerror=alert(1)>"],
    "empty": "",
    "empty list": [],
    "NaN": "NaN",
    "1e400": "1e400",
    "negative": "-17",
    "far too big": "9" * 40,
    "control characters": "\x00\n\t",
    "unicode digits": "٣٤",
}


def _raw_text(raw: object) -> str:
    return str(raw[-1]) if isinstance(raw, list) and raw else str(raw or "")


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("param", ALL_PARAMS, ids=ids)
def test_a_hostile_value_gives_the_default_and_one_plain_notice(param: Param, raw: object) -> None:
    value, notice = param.read({param.name: raw})
    assert value == param.default
    text = _raw_text(raw)
    if param in FLAGS and text == "":
        assert notice is None  # an empty on/off setting is simply "off"
        return
    assert isinstance(notice, str) and notice
    assert notice.startswith(f"The link's '{param.name}' ")
    assert notice.endswith(f"; the page uses {param.shown()}."), notice
    assert len(notice) < 300
    assert "<" not in notice and ">" not in notice
    if text.strip():
        assert text not in notice, notice
    # Filled with either lettering, no template placeholder is left.
    for notation in (Notation(), Notation(swapped=True)):
        assert "{" not in notation.fill(notice), notice


def test_a_seed_notice_in_full() -> None:
    assert SEED.read({"seed": "-5"}) == (
        7,
        "The link's 'seed' is not a whole number from 0 to 4,294,967,295; the page uses seed 7.",
    )


def test_a_bug_notice_names_the_default_exhibit_in_the_learners_letters() -> None:
    _, notice = BUG.read({"bug": "correct"})  # a rule, but not a mistake: not in the zoo
    assert notice is not None
    title = RULES[BUG.default].title
    assert Notation().fill(notice).endswith(f"the page uses '{Notation().fill(title)}'.")
    assert (
        Notation(swapped=True)
        .fill(notice)
        .endswith(f"the page uses '{Notation(swapped=True).fill(title)}'.")
    )


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("param", SCENARIO_PARAMS, ids=ids)
def test_a_hostile_scenario_link_opens_the_default_lesson(param: Param, raw: object) -> None:
    scenario, notices = from_query({param.name: raw})
    assert scenario == Scenario()
    expected = 0 if param in FLAGS and _raw_text(raw) == "" else 1
    assert len(notices) == expected, notices


@pytest.mark.parametrize(
    "query",
    [
        {"p": "1,2,3", "q": "1,2,3,4"},
        {"words": "a,b,c,d,e", "p": "1,2,3,4"},
        {"words": "a,b,c", "q": "1,2,3,4,5"},
    ],
)
def test_mismatched_lengths_give_the_default_example_and_one_notice(query) -> None:
    scenario, notices = from_query({**query, "seed": "11"})
    assert scenario == replace(Scenario(), seed=11)
    assert len(notices) == 1
    assert notices[0].endswith("; the page uses the default example.")
    for raw in query.values():
        assert raw not in notices[0]


def test_bad_parameters_are_reported_in_link_order() -> None:
    _, notices = read_all(ALL_PARAMS, {"gamma": "99", "seed": "x", "words": "a"})
    assert [notice.split("'")[2] for notice in notices] == ["words", "seed", "gamma"]


#: What the link's notice says of a value a parameter does not take, after "The link's '<name>' ".
NOTICES = {
    "n": "is not one of the offered numbers of runs (1, 10, …, 1B); the page uses N = 10,000",
    "leak": "is not one of the offered numbers of runs (1e6, 1e7, …, 1e12); "
    "the page uses N = 1,000,000,000,000",
    "runs": "is not one of the offered numbers of words (100, 1k, 10k, 100k); "
    "the page uses 10,000 words",
    "c": "is not one of the offered draft costs (0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1); "
    "the page uses c = 0.1",
    "temp": "is not one of the offered temperatures (0, 0.5, 0.7, 1, 1.5, 2); "
    "the page uses temperature 1",
    "gamma": "must be one of 1, 2, …, 8; the page uses γ = 4",
    "draws": "must be one of 20, 50, 200, 500; the page uses 50 draws",
    "projector": "is not understood (it is an on/off setting); the page uses 'projector' off",
    "case": "names a case the page does not have; the page uses your own target and draft",
}


@pytest.mark.parametrize("name", NOTICES)
def test_a_notice_in_full(name: str) -> None:
    param = next(param for param in ALL_PARAMS if param.name == name)
    assert param.read({name: "zzz"}) == (param.default, f"The link's '{name}' {NOTICES[name]}.")
