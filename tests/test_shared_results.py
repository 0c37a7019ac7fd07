"""Results computed once per process: specviz/shared_results.py."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from specviz.shared_results import shared


def test_a_class_asking_at_once_computes_a_new_result_once() -> None:
    calls: list[int] = []
    started = threading.Event()

    @shared(8)
    def slow(x: int) -> int:
        calls.append(x)
        started.set()
        time.sleep(0.2)  # long enough for every other thread to ask while it computes
        return x * x

    with ThreadPoolExecutor(max_workers=12) as pool:
        first = pool.submit(slow, 3)
        started.wait(5)
        rest = [pool.submit(slow, 3) for _ in range(11)]
        answers = [first.result(), *(f.result() for f in rest)]
    assert answers == [9] * 12
    assert calls == [3]


def test_different_arguments_do_not_wait_for_each_other() -> None:
    gate = threading.Event()

    @shared(8)
    def f(x: int) -> int:
        if x == 1:
            assert gate.wait(5), "x=2 waited for x=1"
        return x

    with ThreadPoolExecutor(max_workers=2) as pool:
        one = pool.submit(f, 1)
        assert pool.submit(f, 2).result(timeout=5) == 2
        gate.set()
        assert one.result(timeout=5) == 1


def test_the_least_recently_used_result_is_dropped_beyond_maxsize() -> None:
    calls: list[int] = []

    @shared(2)
    def f(x: int) -> int:
        calls.append(x)
        return x

    f(1), f(2), f(1), f(3)  # 2 is now the least recently used: dropped
    f(1), f(3)
    assert calls == [1, 2, 3]
    f(2)
    assert calls == [1, 2, 3, 2]


def test_an_error_is_not_kept_and_the_waiters_try_again() -> None:
    calls: list[int] = []

    @shared(4)
    def f(x: int) -> int:
        calls.append(x)
        if len(calls) == 1:
            raise ValueError("first try fails")
        return x

    with pytest.raises(ValueError, match="first try fails"):
        f(5)
    assert f(5) == 5
    assert calls == [5, 5]


def test_keyword_arguments_and_cache_clear() -> None:
    calls: list[tuple] = []

    @shared(4)
    def f(x: int, *, y: int = 0) -> int:
        calls.append((x, y))
        return x + y

    assert f(1, y=2) == f(1, y=2) == 3
    assert f(1) == 1
    f.cache_clear()
    f(1, y=2)
    assert calls == [(1, 2), (1, 0), (1, 2)]
    assert f.__name__ == "f"


def test_whether_a_result_is_kept_is_known_without_computing_it() -> None:
    calls: list[int] = []

    @shared(4)
    def f(x: int) -> int:
        calls.append(x)
        return x

    assert (1,) not in f
    f(1)
    assert (1,) in f and (2,) not in f and calls == [1]
