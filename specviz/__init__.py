"""SpecViz core: the exact math and the samplers of speculative sampling (numpy, no Streamlit).

``p`` is the target model's next-token distribution, ``q`` the draft model's. :func:`step`
computes every exact quantity of one step at once (a frozen :class:`OneTokenStep`); the other
functions are the same quantities one at a time, and the samplers.

The names below are loaded when first used, not when the package is: importing one module of
the core (``specviz.links``, say, for a page's share link) loads that module and what it
imports, never the decoding engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from specviz.decoding import speculative_decode
    from specviz.one_token import (
        OneTokenStep,
        acceptance_probs,
        acceptance_rate,
        normalize,
        output_distribution,
        rejection_mass,
        residual,
        step,
    )
    from specviz.sampling import sample_counts, speculative_sample
    from specviz.theory import expected_tokens_per_step, optimal_gamma, walltime_speedup

#: Where each public name lives.
_HOMES: dict[str, str] = {
    "OneTokenStep": "one_token",
    "acceptance_probs": "one_token",
    "acceptance_rate": "one_token",
    "expected_tokens_per_step": "theory",
    "normalize": "one_token",
    "optimal_gamma": "theory",
    "output_distribution": "one_token",
    "rejection_mass": "one_token",
    "residual": "one_token",
    "sample_counts": "sampling",
    "speculative_decode": "decoding",
    "speculative_sample": "sampling",
    "step": "one_token",
    "walltime_speedup": "theory",
}

__all__ = [
    "OneTokenStep",
    "acceptance_probs",
    "acceptance_rate",
    "expected_tokens_per_step",
    "normalize",
    "optimal_gamma",
    "output_distribution",
    "rejection_mass",
    "residual",
    "sample_counts",
    "speculative_decode",
    "speculative_sample",
    "step",
    "walltime_speedup",
]


def __getattr__(name: str) -> object:
    """A public name, imported from its module on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'specviz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"specviz.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
