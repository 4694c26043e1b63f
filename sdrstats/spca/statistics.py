"""The SPCA accumulator: with a linear or class (delta) response kernel, ``Ψ = Xᵀ H Δ`` is a
function of mergeable sums.

``Ψ`` is ``n cov(x, y)`` for a numeric response (linear kernel) and the centred class sums of
``x`` for a categorical one (delta, or linear on the one-hot coding); ``add_identity = a`` adds
``√(a n)`` times a Cholesky factor of the covariance, which leaves ``Ψ Ψᵀ`` as with the rows.
:class:`SPCAStatistics` (``SPCA.statistics()``) accumulates the sums over chunks, Dask
partitions or, in memory, the one chunk that is the data; :func:`fit_spca_statistics` is the
chunked fit the generic driver calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.validation import constant_response_error, is_constant
from ..fitting.estimator import EstimatorOutput
from ..stats.grouped import SliceStats
from ..stats.linalg import canonical_sign
from ._eigen import check_rank, top_eigen


class SPCAStatistics:
    """Mergeable statistics of linear/delta SPCA; ``finish()`` is the fit.

    Parameters
    ----------
    estimator : SPCA
        The options (``d``, ``add_identity``, ``solver``, ``kernel_y``).
    p : int
        Number of predictors.
    classes : bool
        The response is a class label (delta kernel) rather than one numeric column (linear).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> X, y = ais[["ht", "wt"]].to_numpy(), ais["sex"].to_numpy()
    >>> acc = sdr.SPCA(d=1).statistics(2, classes=True)
    >>> acc.update(X[:100], y[:100]).merge(sdr.SPCA(d=1).statistics(2, classes=True).update(
    ...     X[100:], y[100:])).finish().basis.shape
    (2, 1)
    """

    def __init__(self, estimator: Any, p: int, *, classes: bool) -> None:
        self.estimator = estimator
        self.classes = bool(classes)
        self.stats = SliceStats(p, second=False, response=not classes)

    def update(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None
    ) -> SPCAStatistics:
        """Add rows ``X`` with response ``y`` (class labels or one numeric column)."""
        if self.classes:
            self.stats.update(X, np.asarray(y).reshape(-1), None, weights)
        else:
            codes = np.zeros(X.shape[0], dtype=np.int64)
            self.stats.update_coded(X, codes, [0], np.asarray(y, dtype=float), weights)
        return self

    def merge(self, other: SPCAStatistics) -> SPCAStatistics:
        """Add the statistics of other rows."""
        self.stats.merge(other.stats)
        return self

    @property
    def kernel(self) -> str:
        return self.estimator.options["kernel_y"] or ("delta" if self.classes else "linear")

    def finish(self, order: list[Any] | None = None) -> EstimatorOutput:
        """Directions and HSIC eigenvalues of the rows seen (``order``: class levels)."""
        est, o = self.estimator, self.estimator.options
        stats = self.stats.ordered(order)
        n, mean, cov = stats.moments()
        if n < 3:
            raise ValueError(f"spca needs at least 3 observations; got {int(n)}.")
        if self.classes:
            if stats.counts.size < 2:
                raise ValueError(
                    "The response has a single class; spca needs a response that varies."
                )
            psi = stats.sums.T
        else:
            _, var_y, cov_xy = stats.response_moments()
            if var_y <= 0:
                raise ValueError("The response is constant; spca needs a response that varies.")
            psi = n * cov_xy[:, None]
        if o["add_identity"] > 0:
            psi = np.hstack([psi, np.sqrt(o["add_identity"] * n) * np.linalg.cholesky(cov)])
        values, vectors, route = top_eigen(psi, o["solver"])
        kernel = self.kernel
        why = f"kernel_y = {kernel!r}" + (
            f" with {stats.counts.size} classes" if self.classes else " with 1 response column(s)"
        )
        d = check_rank(o["d"], len(values), est.method, why)
        extras = {
            "kernel_y": kernel,
            "solver": route,
            "rank": len(values),
            "method_details": f"kernel_y = {kernel}, {route} solver",
        }
        return EstimatorOutput(
            basis=canonical_sign(vectors),
            d=d,
            eigenvalues=values / (n - 1) ** 2,
            center=mean,
            extras=extras,
        )


def fit_spca_statistics(estimator: Any, source: Any) -> EstimatorOutput:
    """SPCA on chunked data: one pass of class (or response) sums; the output also keeps
    what a fit without rows needs later (the rows read, the chunks, R²(OLS|dr)'s moments, a
    class response's levels)."""
    categorical = source.categorical
    kernel = estimator.options["kernel_y"] or ("delta" if categorical else "linear")
    if kernel not in ("linear", "delta") or (kernel == "delta" and not categorical):
        raise ValueError(
            f"spca on chunked or Dask data supports kernel_y='linear' (numeric or class "
            f"response) and 'delta' (class response); got kernel_y={kernel!r}. The rbf kernel "
            "needs the rows in memory."
        )
    acc = source.reduce(estimator.statistics(source.p, classes=categorical))
    if not categorical and acc.stats.n > 0:  # the in-memory fit's check and message
        y_mean, y_var, _ = acc.stats.response_moments()
        if is_constant(y_var, y_mean):
            raise constant_response_error(estimator.method, list(source.y_names))
    output = acc.finish(source.level_order)
    stats = acc.stats.ordered(source.level_order)
    output.extras.update(
        {
            "n_rows": int(round(stats.n)),
            "n_chunks": source.n_chunks,
            "ols_moments": None
            if categorical
            else {"cov": stats.cov, "cov_xy": stats.response_moments()[2]},
        }
    )
    if categorical:
        output.extras["y_levels"] = list(stats.keys)
    return output


__all__ = ["SPCAStatistics", "fit_spca_statistics"]
