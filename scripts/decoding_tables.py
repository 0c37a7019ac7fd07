"""Compute what the decoding page ships in advance and write specviz/data/decoding_tables.json.

Every pair × every offered temperature: the prediction against γ = 0 .. CURVE_GAMMA; and × every
offered γ: the prediction beside words per call measured on many texts, and the commonest words'
kept guesses (see specviz/precomputed.py). Run it after changing the corpus, the models, the
check's size or seed, or the page's choices (tests/test_language.py fails until then):

    .venv/bin/python -m scripts.decoding_tables
"""

from __future__ import annotations

import time

from specviz.language import (
    PAIR_KEYS,
    TABLES_PATH,
    computed_tables,
    tables_header,
)
from specviz.links import DECODE_TEMPERATURE, GAMMA
from specviz.precomputed import Tables, tables_json


def offered() -> Tables:
    """Every record of every (pair, temperature, γ) the decoding page offers, computed now."""
    return computed_tables(PAIR_KEYS, DECODE_TEMPERATURE.choices, GAMMA.choices)


def main() -> None:
    start = time.perf_counter()
    tables = offered()
    TABLES_PATH.write_text(tables_json(tables_header(), tables) + "\n", encoding="utf-8")
    took = time.perf_counter() - start
    sizes = ", ".join(f"{len(getattr(tables, name))} {name}" for name in ("check", "curve",
                                                                           "common"))  # fmt: skip
    print(f"{sizes} in {took:.1f} s -> {TABLES_PATH} ({TABLES_PATH.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
