"""SpecViz core: the exact math and the samplers of speculative sampling (numpy only).

``p`` is the target model's next-token distribution, ``q`` the draft model's.
"""

from specviz.one_token import (
    acceptance_probs,
    acceptance_rate,
    normalize,
    output_distribution,
    rejection_mass,
    residual,
)
from specviz.sampling import sample_counts, speculative_sample
from specviz.theory import expected_tokens_per_step, optimal_gamma, walltime_speedup

__all__ = [
    "acceptance_probs",
    "acceptance_rate",
    "expected_tokens_per_step",
    "normalize",
    "optimal_gamma",
    "output_distribution",
    "rejection_mass",
    "residual",
    "sample_counts",
    "speculative_sample",
    "walltime_speedup",
]
