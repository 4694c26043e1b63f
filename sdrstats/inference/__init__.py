"""Inference shared by every method: dimension rules, bootstrap, permutation (layer 4).

Everything refits through the estimator layer (``Results.refit``) with the fit's own options,
so a new method gets all of it without writing code. Random streams come from one
``random_state`` (``sdrstats.base.parallel.spawn_seeds``), so results do not depend on ``n_jobs``.
"""

from .bootstrap import BootstrapResult, bootstrap
from .dimension import generic_rules
from .ladle import bootstrap_dimension, default_d_max, ladle
from .permutation import permutation_test
from .ratio import eigenvalue_ratio

__all__ = [
    "BootstrapResult",
    "bootstrap",
    "bootstrap_dimension",
    "default_d_max",
    "eigenvalue_ratio",
    "generic_rules",
    "ladle",
    "permutation_test",
]
