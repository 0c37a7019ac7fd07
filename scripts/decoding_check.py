"""Compute the decoding page's check table and write specviz/data/decoding_check.json.

Every pair × every offered temperature × every offered γ: the prediction from the models beside
words per call measured on many texts. Run it after changing the corpus, the models, the check's
size or seed, or the page's choices (tests/test_language.py fails until then):

    .venv/bin/python -m scripts.decoding_check
"""

from __future__ import annotations

import itertools
import time

from specviz.language import CHECK_TABLE_PATH, PAIR_KEYS, check_table_json, computed_check_row
from specviz.links import DECODE_TEMPERATURE, GAMMA


def settings() -> list[tuple[str, float, int]]:
    """Every (pair, temperature, γ) the decoding page offers."""
    return list(itertools.product(PAIR_KEYS, DECODE_TEMPERATURE.choices, GAMMA.choices))


def main() -> None:
    start = time.perf_counter()
    rows = [computed_check_row(*setting) for setting in settings()]
    CHECK_TABLE_PATH.write_text(check_table_json(rows) + "\n", encoding="utf-8")
    took = time.perf_counter() - start
    print(f"{len(rows)} rows in {took:.1f} s -> {CHECK_TABLE_PATH}")


if __name__ == "__main__":
    main()
