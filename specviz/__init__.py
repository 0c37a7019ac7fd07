"""SpecViz core: the exact math and the samplers of speculative sampling (numpy, no Streamlit).

``p`` is the target model's next-token distribution, ``q`` the draft model's. :func:`step`
computes every exact quantity of one step at once; the other names are the samplers, the decoding
engine and Leviathan et al.'s formulas, each loaded when first used (PEP 562).
"""

from __future__ import annotations

import importlib

#: The public names, each with the module (``specviz.<module>``) it lives in.
_HOMES: dict[str, str] = {
    "OneTokenStep": "one_token",
    "expected_tokens_per_step": "theory",
    "normalize": "one_token",
    "sample_counts": "sampling",
    "speculative_decode": "decoding",
    "speculative_sample": "sampling",
    "step": "one_token",
    "walltime_speedup": "theory",
}
__all__ = list(_HOMES)


def __getattr__(name: str) -> object:
    """A public name, imported from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'specviz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"specviz.{home}"), name)
    globals()[name] = value
    return value
