"""The toy language (specviz.language): the corpus, the n-gram models, the page's pairs — and the
text speculative decoding writes with them follows the target model exactly.

Chi-square tests use fixed seeds and pass at p > 0.001 (see tests/test_decoding.py).
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from helpers import REPO, gof_pvalue, z_score

from specviz.decoding import decode, decode_batch, words_per_call
from specviz.language import (
    END,
    PAIR_KEYS,
    PAIR_TITLES,
    TEXTBOOK_DRAFT,
    TEXTBOOK_TARGET,
    NgramModel,
    compiled_pair,
    corpus,
    pair_models,
    toy_pair,
)
from specviz.limits import MAX_CONTEXTS

PASS = 1e-3


# --------------------------------------------------------------------------- the corpus


def test_the_corpus_loads_in_milliseconds_once_per_process() -> None:
    code = (
        "import time; t = time.perf_counter(); from specviz.language import corpus; "
        "c = corpus(); c2 = corpus(); print(time.perf_counter() - t, c is c2)"
    )
    # A fresh interpreter: numpy's import is the floor; the corpus itself is a 10 kB file.
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[1] == "True"
    assert float(out[0]) < 1.0


def test_the_corpus_is_a_few_hundred_short_sentences() -> None:
    c = corpus()
    assert 250 <= c.sentences <= 600
    assert 150 <= c.size <= 400
    assert c.stream.size / c.sentences < 10  # short sentences
    assert (c.stream == c.words.index(END)).sum() == c.sentences
    assert c.stream[-1] == c.words.index(END)
    counts = np.bincount(c.stream, minlength=c.size)
    assert (np.diff(counts) <= 0).all(), "the vocabulary is not listed most frequent first"
    assert c.words[:2] == ("the", END)


def test_text_round_trips_with_capitals() -> None:
    c = corpus()
    ids = c.ids("The cat sat on the mat. Mia fed the cat.")
    assert c.text(ids) == "The cat sat on the mat. Mia fed the cat."
    assert c.spelled(c.ids("mia and sam"), after_end=False) == ["Mia", "and", "Sam"]


@pytest.mark.parametrize("bad", ["the zebra", 3, None])
def test_unknown_words_are_refused(bad) -> None:
    with pytest.raises(ValueError, match=r"zebra|text"):
        corpus().ids(bad)


# --------------------------------------------------------------------------- the models


def counts_after(context: tuple[str, ...]) -> Counter[str]:
    """What follows ``context`` in the corpus stream, read in a circle: counted here directly."""
    c = corpus()
    words = [c.words[i] for i in c.stream]
    n, k = len(words), len(context)
    return Counter(
        words[i] for i in range(n) if tuple(words[(i - k + j) % n] for j in range(k)) == context
    )


def test_the_bigram_model_is_the_corpus_counts() -> None:
    c = corpus()
    model = NgramModel(1)
    for word in ("on", "cup", END, "mia"):
        follow = counts_after((word,))
        row = model.next_word((c.words.index(word),))
        total = sum(follow.values())
        assert row.sum() == pytest.approx(1.0)
        for w, k in follow.items():
            assert row[c.words.index(w)] == pytest.approx(k / total)
        assert np.count_nonzero(row) == len(follow)


def test_the_target_mixes_two_words_back_with_one() -> None:
    c = corpus()
    target = NgramModel(2, (0.7, 0.3))
    a, b = c.ids("sat on")
    row = target.next_word((a, b))
    tri, bi = counts_after(("sat", "on")), counts_after(("on",))
    for w in set(tri) | set(bi):
        want = 0.7 * tri[w] / sum(tri.values()) + 0.3 * bi[w] / sum(bi.values())
        assert row[c.words.index(w)] == pytest.approx(want)
    assert row.sum() == pytest.approx(1.0)


def test_an_unseen_pair_backs_off_to_the_last_word() -> None:
    c = corpus()
    target = NgramModel(2, (0.7, 0.3))
    unseen = c.ids("fridge cat")
    assert counts_after(("fridge", "cat")) == Counter()
    assert target.state(unseen) == unseen[-1:]
    assert np.array_equal(target.next_word(unseen), NgramModel(1).next_word(unseen[-1:]))


def test_word_frequencies_are_order_zero() -> None:
    c = corpus()
    row = NgramModel(0).next_word(c.ids("the cat"))
    assert row == pytest.approx(np.bincount(c.stream, minlength=c.size) / c.stream.size)


@pytest.mark.parametrize(
    ("order", "weights", "name"),
    [(4, None, "order"), (-1, None, "order"), ("2", None, "order"), (True, None, "order"),
     (2, (1.0,), "weights"),
     (2, (0.5, -0.5), "weights"), (2, (0.0, 0.0), "weights"), (1, ("a",), "weights")],
)  # fmt: skip
def test_bad_models_are_refused(order, weights, name) -> None:
    with pytest.raises(ValueError, match=name):
        NgramModel(order, weights)


# --------------------------------------------------------------------------- the page's pairs


@pytest.mark.parametrize("key", PAIR_KEYS)
@pytest.mark.parametrize("temperature", [0, 0.5, 1, 2])
def test_every_pair_compiles_at_every_temperature(key: str, temperature: float) -> None:
    pair = compiled_pair(key, temperature)
    assert 1 <= pair.size < MAX_CONTEXTS
    prediction = words_per_call(pair, gamma=4)
    assert prediction.settled
    assert 1 <= prediction.long_run <= 5
    assert key in PAIR_TITLES


def test_the_pairs_teach_what_their_names_say() -> None:
    alpha = {key: words_per_call(compiled_pair(key, 1.0), gamma=4).alpha for key in PAIR_KEYS}
    assert alpha["perfect"] == 1.0
    assert alpha["weak"] < 0.3 < 0.6 < alpha["ngram"] < alpha["hotter"] < alpha["strong"] < 1
    # The worked example of the notes.
    assert words_per_call(compiled_pair("textbook", 1.0), gamma=4).long_run == pytest.approx(
        2.73, abs=0.005
    )


def test_the_worked_example_is_the_notes() -> None:
    target, draft = pair_models("textbook", 1.0)
    assert np.allclose(target, TEXTBOOK_TARGET) and np.allclose(draft, TEXTBOOK_DRAFT)
    assert toy_pair("textbook").words == ("sun", "rain", "wind")


def test_the_text_starts_a_sentence() -> None:
    info = toy_pair("ngram")
    assert [info.words[i] for i in info.start] == [END]


@pytest.mark.parametrize(("key", "temperature"), [("nope", 1.0), ("ngram", -1), ("ngram", "1")])
def test_bad_pairs_are_refused(key, temperature) -> None:
    with pytest.raises(ValueError, match=r"key|temperature"):
        pair_models(key, temperature)


# --------------------------------------------------------------------------- the text's law


def test_the_ngram_pair_writes_text_with_the_targets_law() -> None:
    """200,000 texts of two words after a sentence end: their joint law against the target
    model's P(a | .)·P(b | ., a); rare pairs are pooled by the chi-square helper."""
    pair = compiled_pair("ngram", 1.0)
    target, _ = pair_models("ngram", 1.0)
    start = toy_pair("ngram").start
    first = target.next_word(start)
    size = pair.vocab_size
    law = np.zeros((size, size))
    for a in np.flatnonzero(first):
        law[a] = first[a] * target.next_word((*start, a))
    batch = decode_batch(pair, gamma=4, n_tokens=2, runs=200_000, seed=13)
    counts = np.bincount(batch.tokens[:, 0] * size + batch.tokens[:, 1], minlength=size * size)
    assert gof_pvalue(counts, law.ravel()) > PASS


def test_bigram_counts_of_long_texts_follow_the_target() -> None:
    """Word pairs along 400 texts of 60 words: for the commonest contexts, what follows against
    the target's next-word distribution there (each a chi-square test)."""
    pair = compiled_pair("ngram", 1.0)
    batch = decode_batch(pair, gamma=4, n_tokens=60, runs=400, seed=14)
    target, _ = pair_models("ngram", 1.0)
    c = corpus()
    follow: dict[tuple[int, int], Counter[int]] = {}
    for text in batch.tokens:
        full = (c.words.index(END), *text.tolist())
        for i in range(2, len(full)):
            follow.setdefault(full[i - 2 : i], Counter())[full[i]] += 1
    common = sorted(follow, key=lambda k: -sum(follow[k].values()))[:6]
    for context in common:
        counts = np.bincount(list(follow[context].elements()), minlength=c.size)
        assert gof_pvalue(counts, target.next_word(context)) > PASS / 6, c.text(context)


def test_a_cheap_draft_gets_the_easy_words_right() -> None:
    """The reason speculative decoding works: in a long text from the n-gram pair, the words
    that come from a kept guess are mostly the predictable ones — "." and "the" are kept guesses
    far more often than the text's nouns."""
    pair = compiled_pair("ngram", 1.0)
    run = decode(pair, gamma=4, n_tokens=20_000, seed=3)
    c = corpus()
    kept = np.bincount(run.tokens[run.origin == 0], minlength=c.size)
    total = np.bincount(run.tokens, minlength=c.size)
    share = kept / np.maximum(total, 1)
    easy = [c.words.index(w) for w in (END, "the", "of")]
    nouns = [c.words.index(w) for w in ("garden", "table", "park", "bed", "door")]
    assert share[easy].min() > share[nouns].max()


def test_measured_words_per_call_match_the_prediction_for_every_pair() -> None:
    for key in PAIR_KEYS:
        pair = compiled_pair(key, 1.0)
        prediction = words_per_call(pair, gamma=4)
        batch = decode_batch(pair, gamma=4, n_tokens=200, runs=200, seed=1)
        done = batch.accepted >= 0
        words = np.where(done, batch.accepted + 1, 0).sum(axis=1)
        calls = done.sum(axis=1)
        ratio = words.sum() / calls.sum()
        error = (words - ratio * calls).std(ddof=1) * np.sqrt(calls.size) / calls.sum()
        if error == 0:  # a perfect draft: every call gives γ + 1 words
            assert ratio == 5 and prediction.long_run == pytest.approx(5)
            continue
        assert abs(z_score(ratio, prediction.long_run, error)) < 4, key


# --------------------------------------------------------------------- the shipped tables


@pytest.fixture(scope="module")
def offered_tables():
    """Every record the page offers, computed now from the models (~12 s of one core)."""
    from scripts.decoding_tables import offered

    return offered()


def test_the_shipped_tables_are_every_offered_setting(offered_tables) -> None:
    from specviz.language import shipped_tables

    shipped = shipped_tables()
    stale = "stale table: run python -m scripts.decoding_tables"
    for name in ("check", "curve", "common"):
        assert sorted(getattr(shipped, name)) == sorted(getattr(offered_tables, name)), stale


def test_the_shipped_check_is_recomputed(offered_tables) -> None:
    """Every row of the shipped check is what the models give now, to 1e-12."""
    from specviz.language import shipped_tables

    for setting, row in shipped_tables().check.items():
        fresh = offered_tables.check[setting]
        assert row.calls == fresh.calls, setting
        for name in ("alpha", "iid", "exact", "measured", "std_error"):
            assert getattr(row, name) == pytest.approx(getattr(fresh, name), rel=0, abs=1e-12), (
                setting,
                name,
            )


def test_the_shipped_curve_is_recomputed(offered_tables) -> None:
    """Every point of the shipped prediction against γ is what the models give now, to 1e-12."""
    from specviz.language import shipped_tables

    for setting, point in shipped_tables().curve.items():
        fresh = offered_tables.curve[setting]
        for name in ("alpha", "iid", "long_run"):
            assert getattr(point, name) == pytest.approx(getattr(fresh, name), rel=0, abs=1e-12)
        assert len(point.kept_in_a_row) == len(fresh.kept_in_a_row) == setting[2] + 1, setting
        np.testing.assert_allclose(point.kept_in_a_row, fresh.kept_in_a_row, rtol=0, atol=1e-12)


def test_the_shipped_common_words_are_recounted(offered_tables) -> None:
    """Counts are exact: the same seed gives the same texts."""
    from specviz.language import shipped_tables

    for setting, common in shipped_tables().common.items():
        assert common == offered_tables.common[setting], setting


def test_a_point_is_the_full_prediction_without_its_arrays() -> None:
    from specviz.language import computed_curve_point, toy_prediction

    for gamma in (0, 1, 4):
        full, point = toy_prediction("ngram", 1.0, gamma), computed_curve_point("ngram", 1.0, gamma)
        assert (point.alpha, point.iid, point.long_run) == (full.alpha, full.iid, full.long_run)
        assert point.kept_in_a_row == tuple(full.kept_in_a_row)
        assert point.speedup(0.1) == full.speedup(0.1)


def test_the_common_words_are_the_commonest_of_the_full_count() -> None:
    from specviz.language import CHECK_SEED, computed_common_words, toy_word_shares
    from specviz.limits import COMMON_WORDS

    shares = toy_word_shares("weak", 1.0, 3, CHECK_SEED)
    common = computed_common_words("weak", 1.0, 3)
    assert len(common.words) == COMMON_WORDS
    rest = np.delete(shares.emitted, list(common.words))
    assert min(common.emitted) >= rest.max()  # no word left out is commoner
    assert common.emitted == tuple(shares.emitted[list(common.words)])
    assert common.kept == tuple(shares.kept[list(common.words)])
    assert common.n_tokens == shares.n_tokens


def test_a_table_from_another_corpus_or_missing_is_not_used(tmp_path, monkeypatch) -> None:
    import json

    from specviz import language

    good = json.loads(language.TABLES_PATH.read_text(encoding="utf-8"))
    row, point = good["check"][0], good["curve"][5]
    setting = (row["key"], row["temperature"], row["gamma"])
    at = (point["key"], point["temperature"], point["gamma"])
    lied = {**good, "check": [{**row, "measured": 99.0}], "curve": [{**point, "long_run": 99.0}]}
    cases = {
        "another corpus": {**lied, "corpus_sha256": "0" * 64},
        "another seed": {**lied, "seed": good["seed"] + 1},
        "another curve": {**lied, "curve_gamma": good["curve_gamma"] + 1},
        "broken rows": {**good, "check": [{"key": "ngram"}]},
        "a section missing": {k: v for k, v in good.items() if k != "common"},
    }
    try:
        for name, content in cases.items():
            path = tmp_path / f"{name}.json"
            path.write_text(json.dumps(content), encoding="utf-8")
            monkeypatch.setattr(language, "TABLES_PATH", path)
            language.shipped_tables.cache_clear()
            assert language.shipped_tables() == language.Tables({}, {}, {}), name
            assert language.check_row(*setting) == language.computed_check_row(*setting), name
            assert language.toy_point(*at) == language.computed_curve_point(*at), name
        path = tmp_path / "right.json"
        path.write_text(json.dumps(lied), encoding="utf-8")
        monkeypatch.setattr(language, "TABLES_PATH", path)
        language.shipped_tables.cache_clear()
        assert language.check_row(*setting).measured == 99.0  # the table is what is read
        assert language.toy_point(*at).long_run == 99.0
        monkeypatch.setattr(language, "TABLES_PATH", tmp_path / "missing.json")
        language.shipped_tables.cache_clear()
        assert language.check_row(*setting).measured != 99.0
        assert language.toy_point(*at).long_run != 99.0
    finally:
        monkeypatch.undo()
        language.shipped_tables.cache_clear()


# ------------------------------------------------------------------------- computed in advance


def test_the_warm_up_starts_at_the_visit_and_covers_every_setting() -> None:
    from specviz.language import warm_up_plan

    temps, gammas = (0.0, 1.0, 2.0), (1, 2, 3)
    plan = warm_up_plan(PAIR_KEYS, temps, gammas, ("weak", 1.0, 2))
    assert plan[:2] == [("weak", 1.0, None), ("weak", 1.0, 2)]  # the visit's own setting first
    assert len(plan) == len(set(plan)) == len(PAIR_KEYS) * len(temps) * (1 + len(gammas))
    away = [int(k != "weak") + int(t != 1.0) + int(g not in (None, 2)) for k, t, g in plan]
    assert away == sorted(away)  # one control away before two


def test_the_warm_up_computes_what_the_page_will_ask_for() -> None:
    from specviz import language

    plan = language.warm_up_plan(("textbook",), (0.85,), (2, 5), ("textbook", 0.85, 2))
    language._warm(plan)
    assert ("textbook", 0.85) in language._compiled_pair
    for g in range(language.CURVE_GAMMA + 1):  # no table ships this temperature: computed
        assert ("textbook", 0.85, g) in language._toy_prediction
    for g in (2, 5):
        assert ("textbook", 0.85, g, language.CHECK_SEED) in language._toy_word_shares


def test_the_warm_up_waits_while_the_server_is_busy() -> None:
    import threading

    from specviz import language

    # A temperature no page offers: no other warm-up in this process computes it.
    plan = language.warm_up_plan(("textbook",), (1.25,), (3,), ("textbook", 1.25, 3))
    idle = threading.Event()
    worker = threading.Thread(target=language._warm, args=(plan, idle.is_set), daemon=True)
    worker.start()
    worker.join(0.5)
    assert worker.is_alive() and ("textbook", 1.25) not in language._compiled_pair  # busy: waits
    idle.set()
    worker.join(30)
    assert not worker.is_alive() and ("textbook", 1.25) in language._compiled_pair
