"""Ask the room: the questions a class answers on their phones, room codes and keys.

Pure: no Streamlit, no storage (:mod:`specviz.rooms` keeps rooms and answers). A question is
named by its key, so any server rebuilds it from the key a room stores: ``why.<key>`` for the
questions of "Why it's exact", ``claim.<key>`` for the debate's four claims, and
``alpha:<target>:<draft>`` ("what is α here?") for a Playground pair's weights.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from specviz._checks import sequence, text, whole
from specviz.exactness import QUESTIONS, QUESTIONS_BY_KEY
from specviz.limits import MAX_TOKENS, MAX_WEIGHT, MIN_TOKENS
from specviz.links import CLAIMS, ROOM_ALPHABET, ROOM_LENGTH, claim_words
from specviz.one_token import normalize, step
from specviz.text import say, titles, written


@dataclass(frozen=True)
class Poll:
    """One question put to the room: ``prompt`` and ``options`` lettered with {T}/{D};
    ``answer`` the right option's index (computed from the math; None for a claim, a vote whose
    reveal is the debate's ``verdict``); ``page`` the script of the page that shows why, and
    ``query`` the link parameters that open it on the right part."""

    key: str
    title: str
    prompt: str
    options: tuple[str, ...]
    answer: int | None
    verdict: str
    page: str
    query: tuple[tuple[str, str], ...] = ()


_WHY_TITLES = titles("classroom.why", ("alpha", "topped_up", "missing", "worse"))
_VOTES = titles("classroom.vote", ("agree", "disagree"))

#: Every fixed question's key: "Why it's exact"'s, then the debate's claims.
BANK: tuple[str, ...] = (*(f"why.{q.key}" for q in QUESTIONS), *(f"claim.{k}" for k in CLAIMS))


def _fixed_poll(key: str) -> Poll:
    """The question of ``key`` (in :data:`BANK`), in the run's language."""
    kind, name = key.split(".")
    if kind == "why":
        q = QUESTIONS_BY_KEY[name]
        title = _WHY_TITLES.get(name, say("classroom.why_exact"))
        return Poll(key, title, q.prompt, q.options, q.answer, "", "pages/6_Why_its_exact.py")
    said, verdict = claim_words()[name]
    return Poll(
        key,
        say("classroom.claim_title", name=CLAIMS[name]),
        say("classroom.claim_prompt", claim=said),
        tuple(_VOTES.values()),
        None,
        verdict,
        "pages/9_The_debate.py",
        (("claim", name),),
    )


_ALPHA_KEY = re.compile(r"alpha:([0-9,]{1,60}):([0-9,]{1,60})")


def _percent(x: float) -> str:
    return written(f"{round(100 * x, 1):g}%")


def alpha_key(p_weights: Sequence[int], q_weights: Sequence[int]) -> str:
    """The key of "what is α here?" for a Playground pair's weights (ValueError unless they are
    one: 3 to 10 whole weights from 0 to 100 each, as many for both, neither all zero)."""
    pair = []
    for name, weights in (("p_weights", p_weights), ("q_weights", q_weights)):
        w = sequence(weights, name, minimum=MIN_TOKENS, maximum=MAX_TOKENS)
        pair.append(tuple(whole(x, f"{name}[{i}]", maximum=MAX_WEIGHT) for i, x in enumerate(w)))
        if not any(pair[-1]):
            raise ValueError(f"{name} are all zero: there is no distribution to draw from")
    if len(pair[0]) != len(pair[1]):
        raise ValueError("p_weights and q_weights must have the same number of words")
    return "alpha:" + ":".join(",".join(map(str, w)) for w in pair)


def _alpha_poll(key: str) -> Poll:
    match = _ALPHA_KEY.fullmatch(key)
    if not match:
        raise ValueError("This is not a question SpecViz asks.")
    p_w, q_w = (tuple(int(x) for x in g.split(",") if x) for g in match.groups())
    key = alpha_key(p_w, q_w)  # checks them
    one = step(normalize(p_w), normalize(q_w))
    alpha = one.alpha
    # Distractors a learner reaches by a wrong idea: the chance two independent draws agree
    # (Σ {T}·{D}), the bucket's share (1 − α), and α moved; each kept only if it reads
    # differently from α and from the others.
    agree, bucket = float(np.dot(one.p, one.q)), 1 - alpha
    moved = (alpha / 2, (1 + alpha) / 2, min(1.0, alpha + 0.2), max(0.0, alpha - 0.2))
    shown = {_percent(alpha): alpha}
    for x in (agree, bucket, *moved):
        if len(shown) < 4:
            shown.setdefault(_percent(x), x)
    options = tuple(sorted(shown, key=shown.__getitem__))
    p, q = (", ".join(map(_percent, x)) for x in (one.p, one.q))
    return Poll(
        key,
        say("classroom.alpha_title"),
        say("classroom.alpha_prompt", p=p, q=q),
        options,
        options.index(_percent(alpha)),
        say("classroom.alpha_verdict", alpha=_percent(alpha)),
        "pages/1_Playground.py",
        (("p", ",".join(map(str, p_w))), ("q", ",".join(map(str, q_w)))),
    )


def poll(key: str) -> Poll:
    """The question of ``key`` (in :data:`BANK`, or :func:`alpha_key`'s), in the run's language;
    ValueError if none."""
    key = text(key, "question", max_chars=200)
    return _fixed_poll(key) if key in BANK else _alpha_poll(key)


def new_code() -> str:
    """A fresh room code, easy to read aloud, drawn with :mod:`secrets`."""
    return "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_LENGTH))


def new_key() -> str:
    """A fresh lecturer's key (192 random bits, 32 link-safe characters)."""
    return secrets.token_urlsafe(24)


def key_hash(key: str) -> str:
    """What a room stores instead of its key: a leaked database opens no room."""
    return hashlib.sha256(text(key, "key").encode()).hexdigest()


def opens(key: str, stored_hash: str) -> bool:
    """Whether ``key`` is the key of the room that stores ``stored_hash`` (constant time)."""
    return hmac.compare_digest(key_hash(key), stored_hash)


def check_choice(question: Poll, value: object) -> int:
    """``value`` as the index of one of the question's options; ValueError (a plain sentence)
    if it is not one."""
    integer = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if not (integer and 0 <= value < len(question.options)):
        raise ValueError(say("classroom.not_an_option"))
    return int(value)
