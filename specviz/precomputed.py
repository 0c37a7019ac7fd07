"""Results of the decoding page computed in advance and shipped with the app: their records and
their file.

A class that opens the decoding page on a freshly started server asks, within its first minute,
for nearly every setting the page offers: 6 pairs × 6 temperatures × 8 values of γ. Computed when
asked, the prediction against γ (~130-390 ms of one core per pair and temperature), the check of
predicted against measured (~30 ms per setting) and the commonest words' kept guesses (~10 ms per
setting) queue behind each other and the class waits seconds. They depend on nothing a learner
chooses besides those settings, so ``python -m scripts.decoding_tables`` computes them once and
writes ``specviz/data/decoding_tables.json``; tests/test_language.py recomputes every record and
compares. A file computed from another corpus, seed or size is not used, and a setting it lacks is
computed as before: shipping it is a cache, never a second source of truth.

This module holds the records and the file's reading and writing; :mod:`specviz.language`
computes the records and says which file and header are current.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from specviz._checks import instance, sequence, short
from specviz.decoding import WordsPerCall, cost_model_speedup

#: A record's setting: (pair key, temperature, gamma).
Setting = tuple[str, float, int]


@dataclass(frozen=True)
class CheckRow:
    """One pair's prediction beside its measurement, at one temperature and ``gamma``.

    Attributes
    ----------
    key : str
    temperature : float
    gamma : int
    alpha, iid, exact : float
        From the prediction: the acceptance rate, the i.i.d. formula's words per call and the
        exact long-run words per call.
    measured, std_error : float
        Words per call measured on many texts at the page's fixed seed, and its standard error.
    calls : int
        Target calls of the measurement.
    """

    key: str
    temperature: float
    gamma: int
    alpha: float
    iid: float
    exact: float
    measured: float
    std_error: float
    calls: int


@dataclass(frozen=True)
class CurvePoint:
    """What the page shows of the prediction at one ``gamma``: a
    :class:`~specviz.decoding.WordsPerCall` without its per-context arrays.

    Attributes
    ----------
    key : str
    temperature : float
    gamma : int
    alpha : float
        The acceptance rate averaged over a long text's contexts.
    iid : float
        The i.i.d. formula's words per call at that ``alpha``.
    long_run : float
        The exact words per call in a long text.
    kept_in_a_row : tuple of float
        ``P(at least k drafts kept)`` for ``k = 0 .. gamma`` in a long text.
    """

    key: str
    temperature: float
    gamma: int
    alpha: float
    iid: float
    long_run: float
    kept_in_a_row: tuple[float, ...]

    @classmethod
    def of(cls, key: str, temperature: float, prediction: WordsPerCall) -> CurvePoint:
        """The point of a full prediction.

        Parameters
        ----------
        key, temperature : str, float
            The setting the prediction was computed for.
        prediction : WordsPerCall

        Returns
        -------
        CurvePoint
        """
        instance(prediction, "prediction", WordsPerCall, "a WordsPerCall")
        return cls(key=key, temperature=temperature, gamma=prediction.gamma,
                   alpha=prediction.alpha, iid=prediction.iid, long_run=prediction.long_run,
                   kept_in_a_row=tuple(float(x) for x in prediction.kept_in_a_row))  # fmt: skip

    def speedup(self, c: float) -> float:
        """The cost model's long-run speed-up (:func:`~specviz.decoding.cost_model_speedup`)."""
        return cost_model_speedup(self.long_run, self.gamma, c)


@dataclass(frozen=True)
class CommonWords:
    """The commonest words of many texts, and how often each came from a kept guess.

    Attributes
    ----------
    key : str
    temperature : float
    gamma : int
    words : tuple of int
        Word ids, most written first (ties: the lower id first); words never written left out.
    emitted, kept : tuple of int
        Per word: times it was written, and times as a kept guess.
    n_tokens : int
        Words in all the texts together.
    """

    key: str
    temperature: float
    gamma: int
    words: tuple[int, ...]
    emitted: tuple[int, ...]
    kept: tuple[int, ...]
    n_tokens: int


@dataclass(frozen=True)
class Tables:
    """The shipped records by setting (empty when the file is missing or stale)."""

    check: Mapping[Setting, CheckRow]
    curve: Mapping[Setting, CurvePoint]
    common: Mapping[Setting, CommonWords]


#: The file's sections: name -> record type.
SECTIONS: dict[str, type] = {"check": CheckRow, "curve": CurvePoint, "common": CommonWords}


def tables_json(header: Mapping[str, object], tables: Tables) -> str:
    """The file's text: the header's fields, then each section's records (floats written to
    round-trip exactly).

    Parameters
    ----------
    header : mapping
        What the records were computed with (see :func:`read_tables`).
    tables : Tables

    Returns
    -------
    str
        JSON.

    Raises
    ------
    ValueError
        If ``tables`` is not a :class:`Tables` of the right records.
    """
    out: dict[str, object] = _header(header)
    instance(tables, "tables", Tables, "a Tables")
    for name, kind in SECTIONS.items():
        records = sequence(list(getattr(tables, name).values()), f"tables.{name}", maximum=10**5)
        for i, record in enumerate(records):
            instance(record, f"tables.{name}[{i}]", kind, f"a {kind.__name__}")
        out[name] = [asdict(r) for r in records]
    try:
        return json.dumps(out, indent=None, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as problem:  # a header value JSON cannot hold
        raise ValueError(f"header must hold JSON values (text, numbers); {problem}") from None


def read_tables(path: Path, header: Mapping[str, object]) -> Tables:
    """The records of a file written by :func:`tables_json`, by setting.

    Parameters
    ----------
    path : pathlib.Path
    header : mapping
        What the records must have been computed with; a file with another header is not used.

    Returns
    -------
    Tables
        Empty if the file is missing, unreadable, malformed or computed with another header.
    """
    wanted = _header(header)
    empty = Tables({}, {}, {})
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(raw, dict) or {k: raw.get(k) for k in wanted} != wanted:
            return empty
        found = {name: _records(raw[name], kind) for name, kind in SECTIONS.items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return empty
    return Tables(**found)


def _header(header: object) -> dict[str, object]:
    if not isinstance(header, Mapping) or not all(isinstance(k, str) for k in header):
        raise ValueError(f"header must map names (text) to values; got {short(header)}")
    if set(header) & set(SECTIONS):
        raise ValueError(f"header must not use the section names {sorted(SECTIONS)}")
    return dict(header)


def _records(items: Sequence[dict], kind: type) -> dict[Setting, object]:
    names = [f.name for f in fields(kind)]
    out = {}
    for item in items:
        if sorted(item) != sorted(names):
            raise ValueError(f"a {kind.__name__} record has fields {sorted(item)}")
        # JSON has lists where the records hold tuples (hashable, read-only).
        record = kind(**{k: tuple(v) if isinstance(v, list) else v for k, v in item.items()})
        out[(record.key, record.temperature, record.gamma)] = record
    return out
