"""Cross-validated choice of the dimension for any fit (R ``MAVE``'s ``mave.dim`` criterion).

For ``k = 1..d_max`` the fit's ``k``-dimensional reduced predictors of the training rows
predict the response by a leave-one-out local-constant fit on their ranks
(:mod:`sdrstats.stats.rank_cv`); ``k = 0`` is the leave-one-out mean, and ``d`` minimises the
mean absolute error. What is predicted is a transform of the response that sees its whole
conditional distribution, not only its mean: the class indicators of a categorical response,
and for a numeric one the indicators ``1(y <= q_j)`` at its nine deciles (each response
column's, for several), so a direction that changes only the spread of ``y`` lowers the
error too.

The reduced predictors come from the fit itself: its ``k``-dimensional solution where it has
one (the first ``k`` directions of an eigen method, the candidates of a method that fits each
dimension, ``extras["by_dimension"]``), else a refit at ``k`` on the same rows. As in R
``mave.dim`` the directions are estimated on all rows (only the prediction leaves a row
out), so the rule costs one pass of ``O(n² k)`` per candidate plus the fits a method without
candidates needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.validation import accepts_aliases, check_int
from ..stats.rank_cv import cv_losses, one_se_choice
from .dimension_test import DimensionTest

#: Largest candidate ``d`` of the rule (and of the candidates a method fits for it).
DEFAULT_CV_D_MAX = 4

#: Quantile levels of the indicators of a numeric response.
RESPONSE_QUANTILES = np.arange(1, 10) / 10

#: How the rule picks ``d`` from the CV errors: the minimiser, or the one-standard-error rule.
CV_CHOICES = ("min", "1se")


def cv_d_max(d_max: int | None, p: int) -> int:
    """The largest candidate: ``d_max`` when given, else 4; below ``p`` (``d = p`` is no
    reduction) unless ``p = 1``.

    Examples
    --------
    >>> cv_d_max(None, 10), cv_d_max(None, 3), cv_d_max(6, 10)
    (4, 2, 6)
    """
    limit = max(1, p - 1)
    return max(1, min(DEFAULT_CV_D_MAX if d_max is None else int(d_max), limit))


def response_targets(Y: np.ndarray, categorical: bool) -> np.ndarray:
    """What the rule predicts: class indicators, or indicators of each column at its deciles.

    Examples
    --------
    >>> response_targets(np.arange(10.0), False).shape
    (10, 9)
    >>> response_targets(np.array([0, 1, 1, 2]), True).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if categorical:
        codes = np.asarray(Y).reshape(-1).astype(np.int64)
        return np.eye(int(codes.max()) + 1)[codes]
    Y = np.asarray(Y, dtype=float).reshape(len(Y), -1)
    columns = []
    for j in range(Y.shape[1]):
        cuts = np.unique(np.quantile(Y[:, j], RESPONSE_QUANTILES))
        columns.append((Y[:, j, None] <= cuts[None, :]).astype(float))
    return np.hstack(columns)


def reduced_predictors(results: Any, k: int) -> np.ndarray:
    """The fit's ``k``-dimensional reduced predictors of its training rows (refit if need be)."""
    est, output = results.estimator, results.output
    X = results.spec.X
    if k == output.d:
        return est.transform_arrays(output, X, k)
    by_dimension = output.extras.get("by_dimension")
    if isinstance(by_dimension, dict) and k in by_dimension:
        return est.transform_arrays(by_dimension[k], X, k)
    if est.capabilities.nested_directions and _columns(output) >= k:
        return est.transform_arrays(output, X, k)
    if "solutions" in output.extras and k in output.extras["solutions"]:
        return est.transform_arrays(output, X, k)
    refit = results.refit(X, results.spec.Y, random_state=results.random_state, d=k)
    return est.transform_arrays(refit, X, k)


def _columns(output: Any) -> int:
    if output.basis is not None:
        return int(output.basis.shape[1])
    coef = output.extras.get("coef")
    return int(np.asarray(coef).shape[1]) if coef is not None else int(output.d)


@accepts_aliases({"numdir": "d_max"})
def cv_dimension(results: Any, *, d_max: int | None = None, choice: str = "min") -> DimensionTest:
    """Leave-one-out cross-validated choice of ``d`` among ``0..d_max``.

    Parameters
    ----------
    results : Results
        Any fit that keeps its rows (``transform`` of the training rows).
    d_max : int, optional
        Largest candidate (R's ``numdir`` is an alias); default the fit's ``d_max`` option
        when it has one, else 4, below ``p``.
    choice : {"min", "1se"}, default "min"
        How ``d`` is read from the errors: ``"min"`` the first minimiser (R ``mave.dim``'s
        ``dim.min``); ``"1se"`` the smallest ``d`` whose error is within one standard error
        of the minimum, the standard error of each ``d``'s row-wise loss differences from the
        minimiser's (:func:`one_se_choice`). ``"1se"`` guards against the optimism of a
        larger ``d`` whose directions were fitted on the rows it predicts.

    Returns
    -------
    DimensionTest
        ``table`` indexed by ``d = 0..d_max`` with the ``cv`` error and the kernel
        ``bandwidth`` (and, with ``"1se"``, the paired standard error ``se``); ``d`` is the
        choice (it may be 0: no dependence).

    Notes
    -----
    The criterion is R ``mave.dim``'s (Xia, Tong, Li & Zhu 2002, section 3.4; see
    :mod:`sdrstats.stats.rank_cv`) on the response transform described in
    :mod:`sdrstats.inference.cv`. Directions estimated on all rows make the error of a
    larger ``k`` slightly optimistic; the leave-one-out kernel fit, whose bandwidth grows
    with ``k``, pays for every useless direction with a noisier neighbourhood, which is what
    lets the minimum sit at the dimension.

    References
    ----------
    Xia, Y., Tong, H., Li, W. K. & Zhu, L.-X. (2002). An adaptive estimation of dimension
    reduction space. *JRSS B* 64, 363–410. Hang, W. & Xia, Y. (2021). MAVE: methods for
    dimension reduction. R package version 1.3.11.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
    >>> test = fit.test_dimension("cv")
    >>> test.table.index.tolist(), test.d
    ([0, 1, 2, 3], 1)
    """
    name = results.method
    if results.spec.X.shape[0] == 0:
        raise ValueError(
            f"The 'cv' dimension test is not available for this {name} fit: it predicts the "
            "training rows, which a fit on chunked or streamed data does not keep."
        )
    if d_max is None:
        d_max = results.options.get("d_max")
    if choice not in CV_CHOICES:
        raise ValueError(
            f"The 'choice' option of the cv rule must be one of {list(CV_CHOICES)}; got {choice!r}."
        )
    if d_max is not None:
        d_max = check_int(d_max, "d_max", "the cv rule", low=1)
    d_max = cv_d_max(d_max, results.p)
    targets = response_targets(results.spec.Y, results.spec.categorical)
    reduced: dict[int, np.ndarray] = {}
    stopped = ""
    for k in range(1, d_max + 1):
        try:
            reduced[k] = np.asarray(reduced_predictors(results, k), dtype=float)
        except ValueError as err:
            if k == 1:
                raise
            stopped = f" Candidates stop at d = {k - 1}: {name} cannot fit d = {k} ({err})"
            break
    losses, bandwidths = cv_losses(reduced, targets, None)
    n = losses.shape[0]
    index = pd.Index([0, *sorted(reduced)], name="d")
    table = pd.DataFrame(
        {"cv": [float(np.ones(n) @ losses[:, j]) / n for j in range(losses.shape[1])],
         "bandwidth": bandwidths},
        index=index,
    )  # fmt: skip
    display = {"cv": "CV", "bandwidth": "Bandwidth"}
    if choice == "1se":
        position, se = one_se_choice(losses)
        table["se"] = se
        display["se"] = "SE"
        how = (
            "Chosen d: the smallest whose CV is within one standard error (of its row-wise "
            "differences from the minimiser's) of the minimum."
        )
    else:
        position = int(np.argmin(table["cv"].to_numpy()))
        how = "Chosen d minimises CV."
    kind = "class indicators" if results.spec.categorical else "response indicators at deciles"
    return DimensionTest(
        table,
        int(table.index[position]),
        "cv",
        name,
        level=None,
        title=f"Cross-validation dimension choice for {name}",
        display_names=display,
        note=f"Leave-one-out local-constant prediction of the {kind} from the ranks of the d "
        f"reduced predictors (R mave.dim's criterion); d = 0: leave-one-out mean. {how}" + stopped,
        extras={"choice": choice},
    )


__all__ = [
    "CV_CHOICES",
    "DEFAULT_CV_D_MAX",
    "cv_d_max",
    "cv_dimension",
    "one_se_choice",
    "reduced_predictors",
    "response_targets",
]
