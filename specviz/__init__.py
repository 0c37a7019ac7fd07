"""SpecViz core: the exact math and the samplers of speculative sampling (numpy, no Streamlit).

``p`` is the target model's next-token distribution, ``q`` the draft model's. :func:`step`
computes every exact quantity of one step at once (a frozen :class:`OneTokenStep`); the other
functions are the same quantities one at a time, and the samplers.
"""

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
