"""What a bootstrap compares against: the full-sample basis, the default ``d`` and the
stacked distance and stability measures (used by :mod:`sdrstats.inference.bootstrap`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..stats.distances import orthonormal_basis


def reference_basis(results: Any, d: int) -> tuple[np.ndarray, dict[str, Any]]:
    """Full-sample basis with ``d`` columns, and the option changes refits need for it.

    Eigen methods keep more than ``d`` columns, so they need no change; a method fitted at a
    fixed ``d`` (LSCE, MAVE...) is refitted at the new ``d`` on the full sample.
    """
    basis = results.output.basis
    if basis is None:
        raise ValueError(
            f"bootstrap is not available for {results.method}: it has no linear directions "
            "whose variability could be measured."
        )
    if basis.shape[1] >= d:
        return np.asarray(basis[:, :d], dtype=float), {}
    if "d" not in results.estimator.params:
        raise ValueError(
            f"d = {d} is not available for {results.method}: the fit has {basis.shape[1]} "
            "directions and no 'd' option to refit with."
        )
    changes = {"d": d}
    out = results.refit(
        results.spec.X, results.spec.Y, random_state=results.random_state, **changes
    )
    return np.asarray(out.basis[:, :d], dtype=float), changes


#: Level of the large-sample dimension test that chooses a bootstrap's default ``d``.
DEFAULT_LEVEL = 0.05


def default_dimension(results: Any) -> tuple[int, str]:
    """The dimension a bootstrap compares when none is given, and the rule that chose it.

    The fit's ``d`` when it was given when fitting or chosen by the method itself (by
    cross-validation, say); otherwise, where the method has a large-sample dimension test
    (SIR, SAVE, pHd, IRE), the ``d`` that test chooses at level 0.05, as
    ``fit.test_dimension()`` prints it (at least 1); otherwise the fit's default ``d``,
    which the summary then says was not chosen. Resampling rules (permutation, ladle) are
    never run implicitly: they would multiply the cost and draw from another random stream.
    """
    extras = results.output.extras
    if results.options.get("d") is not None:
        return results.d, "the fit's d (given when fitting)"
    if "d_rule" in extras:
        return results.d, f"the fit's d ({extras['d_rule']})"
    if extras.get("d_chosen_by") == "cv" or "cv_d" in extras:
        return results.d, "the fit's d (chosen by cross-validation when fitting)"
    if results.estimator.capabilities.asymptotic_test:
        test = results.test_dimension("asymptotic", level=DEFAULT_LEVEL)
        rule = f"chosen by the large-sample dimension test at level {DEFAULT_LEVEL:g}"
        if test.d == 0:
            return 1, f"{rule}, which keeps d = 0 (no dependence); the smallest subspace, d = 1"
        return test.d, f"{rule} (fit.test_dimension())"
    return results.d, (
        f"the fit's default d, not a chosen dimension ({results.method} has no large-sample "
        "dimension test): choose one with fit.test_dimension() and pass it as d"
    )


def batched_measures(
    reference: np.ndarray, bases: np.ndarray, distance: str
) -> tuple[np.ndarray, np.ndarray]:
    """Distances to ``reference`` and Procrustes ``|cos|`` of a stack of bases (G, p, d).

    The stacked form of :func:`sdrstats.stats.distances.subspace_distance` and
    :func:`~sdrstats.inference._replicates.procrustes_cosines` (tests check they agree).
    """
    d = reference.shape[1]
    q_ref = orthonormal_basis(reference)
    q, _ = np.linalg.qr(bases)
    cross = np.einsum("pi,gpj->gij", q_ref, q)  # Q_refᵀ Q_b
    if distance == "projection":
        diff = (q_ref @ q_ref.T)[None] - q @ np.swapaxes(q, 1, 2)
        dist = np.sqrt(np.sum(diff**2, axis=(1, 2)))
    elif distance == "det":
        dist = np.maximum(0.0, 1.0 - np.abs(np.linalg.det(cross)))
    else:  # trace_correlation, as the distance 1 - r
        dist = 1.0 - np.sum(cross**2, axis=(1, 2)) / d
    u, _, vt = np.linalg.svd(np.swapaxes(q, 1, 2) @ reference, full_matrices=False)
    matched = q @ (u @ vt)
    norms = np.linalg.norm(reference, axis=0)[None] * np.linalg.norm(matched, axis=1)
    cosines = np.abs(np.sum(matched * reference[None], axis=1)) / norms
    return dist, cosines


__all__ = ["DEFAULT_LEVEL", "batched_measures", "default_dimension", "reference_basis"]
