"""Central finite differences, the tests' check of analytic gradients."""

from collections.abc import Callable

import numpy as np


def numeric_gradient(
    f: Callable[[np.ndarray], tuple[float, np.ndarray]], at: np.ndarray, step: float = 1e-6
) -> np.ndarray:
    """The central-difference gradient of ``f(x)[0]`` at ``at``, entry by entry."""
    numeric = np.zeros_like(at, dtype=float)
    for index in np.ndindex(*at.shape):
        e = np.zeros_like(at, dtype=float)
        e[index] = step
        numeric[index] = (f(at + e)[0] - f(at - e)[0]) / (2 * step)
    return numeric
