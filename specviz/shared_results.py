"""Results computed once per process and shared by every session's thread.

A class that opens the same link asks for the same new result at the same moment; with
:func:`functools.lru_cache` each of those threads would compute it. :class:`SharedResults` lets
the first thread compute and the others wait for its answer.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")
_MISSING = object()


class SharedResults(Generic[_P, _R]):
    """``fn(*args)`` computed once per arguments and process, and shared by every thread.

    Like :func:`functools.lru_cache` (hashable arguments, the least recently used dropped beyond
    ``maxsize``, an exception not kept), with one difference that matters when a class asks for
    the same new result at the same moment: a thread that asks for a result another thread is
    computing waits for it instead of computing it again.
    """

    def __init__(self, fn: Callable[_P, _R], maxsize: int) -> None:
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._maxsize = maxsize
        self._results: OrderedDict[Any, _R] = OrderedDict()
        self._pending: dict[Any, threading.Lock] = {}
        self._lock = threading.Lock()

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        while True:
            with self._lock:
                hit = self._results.get(key, _MISSING)
                if hit is not _MISSING:
                    self._results.move_to_end(key)
                    return hit  # type: ignore[return-value]
                busy = self._pending.get(key)
                if busy is None:
                    busy = self._pending[key] = threading.Lock()
                    busy.acquire()
                    break
            with busy:  # another thread is computing it: wait, then look again
                pass
        try:
            value = self._fn(*args, **kwargs)
            with self._lock:
                self._results[key] = value
                while len(self._results) > self._maxsize:
                    self._results.popitem(last=False)
            return value
        finally:
            with self._lock:
                del self._pending[key]
            busy.release()

    def __contains__(self, args: object) -> bool:
        """Whether ``fn(*args)`` is kept (positional arguments as a tuple; nothing computed)."""
        with self._lock:
            return args in self._results

    def cache_clear(self) -> None:
        """Forget every result (as ``functools.lru_cache``'s ``cache_clear``)."""
        with self._lock:
            self._results.clear()


def shared(maxsize: int) -> Callable[[Callable[_P, _R]], SharedResults[_P, _R]]:
    """Decorator: the function's results computed once and shared (:class:`SharedResults`),
    at most ``maxsize`` of them kept."""
    return lambda fn: SharedResults(fn, maxsize)
