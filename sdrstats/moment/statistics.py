"""The moment family's accumulator: every moment fit is a function of mergeable slice sums.

:class:`MomentStatistics` is what ``MomentEstimator.statistics()`` returns: ``update(X, y,
weights)`` adds rows, ``merge(other)`` adds an accumulator of other rows, ``finish()`` gives
the :class:`~sdrstats.fitting.estimator.EstimatorOutput`. The in-memory fit is its one-chunk case (the rows
are kept, so the whitening may fall back to the QR of the rows and pHd/CUME/IRE read them);
chunks and Dask partitions merge accumulators of their rows (:mod:`.chunked`); the weighted
bootstrap forms the same sums for a block of weight vectors at once (:mod:`._replicates`).

How rows fall into slices is fixed when the accumulator is made, so it is the same on every
chunk: the slices of the whole response (in memory, R ``dr``'s tie-walk), cut points of a
continuous response, the levels of a class label, or one group (pHd, CUME).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..fitting.estimator import EstimatorOutput
from ..stats.grouped import SliceStats, group_order
from ..stats.slicing import Slices, cut_labels
from ._core import (
    SliceMoments,
    Standardized,
    _slice_moments_from_rows,
    constant_column_error,
    eigen_directions,
    slice_moments_from_sums,
    standardize_moments,
)


@dataclass
class SliceRule:
    """How rows get their slice keys: cut points, class labels, one group, or given slices.

    Picklable, so chunk workers slice alike. ``slices`` (in memory only) labels the rows of the
    one chunk that is the whole data.
    """

    cuts: np.ndarray | None = None
    classes: bool = False
    single: bool = False
    slices: Slices | None = None

    def keys(self, y: np.ndarray) -> np.ndarray:
        if self.single:
            return np.zeros(len(y), dtype=np.int64)
        if self.classes or self.cuts is None:
            return np.asarray(y).reshape(-1)
        return cut_labels(np.asarray(y, dtype=float).reshape(-1), self.cuts)


class MomentStatistics:
    """Mergeable statistics of a moment method; ``finish()`` is the fit.

    Parameters
    ----------
    estimator : MomentEstimator
        The method (its kernel turns the slice moments into ``M``).
    p : int
        Number of predictors.
    rule : SliceRule
        How rows fall into slices.
    response : bool, default False
        Also keep the moments of a one-column numeric response (chunked pHd, R²(OLS|dr)).
    keep_rows : bool, default False
        Keep the rows of the (single) update: the in-memory fit.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 3))
    >>> y = X[:, 0] + 0.2 * rng.standard_normal(400)
    >>> cuts = np.quantile(y, [0.25, 0.5, 0.75])
    >>> est = sdr.SIR(cut_points=cuts)
    >>> whole = est.statistics(3).update(X, y)
    >>> halves = est.statistics(3).update(X[:200], y[:200]).merge(
    ...     est.statistics(3).update(X[200:], y[200:]))
    >>> bool(np.allclose(whole.finish().eigenvalues, halves.finish().eigenvalues))
    True
    """

    def __init__(
        self,
        estimator: Any,
        p: int,
        rule: SliceRule,
        *,
        response: bool = False,
        keep_rows: bool = False,
    ) -> None:
        self.estimator = estimator
        self.rule = rule
        self.stats = SliceStats(p, second=estimator.second_moments, response=response)
        self.keep_rows = keep_rows
        self.rows: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None

    def update(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None
    ) -> MomentStatistics:
        """Add rows ``X`` with response ``y`` (and case ``weights``)."""
        rule = self.rule
        if rule.slices is not None:
            if self.rows is not None or self.stats.n_chunks:
                raise ValueError("An accumulator with given slices takes its rows in one update.")
            keys = list(range(rule.slices.nslices))
            self.stats.update_coded(X, rule.slices.labels, keys, y, weights)
        elif rule.single:
            self.stats.update_coded(X, np.zeros(X.shape[0], dtype=np.int64), [0], y, weights)
        else:
            self.stats.update(X, rule.keys(y), y, weights)
        if self.keep_rows:
            if self.rows is not None:
                raise ValueError("An in-memory accumulator takes its rows in one update.")
            self.rows = (X, y, weights)
        return self

    def merge(self, other: MomentStatistics) -> MomentStatistics:
        """Add the statistics of other rows (the kept rows, if any, are dropped)."""
        self.stats.merge(other.stats)
        self.rows = None
        return self

    @property
    def n(self) -> float:
        return self.stats.n

    def prepared(
        self, names: list[str] | None = None, order: list[Any] | None = None
    ) -> tuple[Standardized, SliceMoments | None]:
        """The whitening and the slice moments of the rows seen (``order``: class levels)."""
        stats = self.stats if self.rule.slices is not None else self.stats.ordered(order)
        X, _, w = self.rows if self.rows is not None else (None, None, None)
        n, mean, cov = stats.moments()
        if X is not None and np.any(np.diag(cov) <= 0):
            error = constant_column_error(X, names)
            if error is not None:
                raise error
        std = standardize_moments(n, mean, cov, names, weights=w, source=X)
        if self.rule.single:
            return std, None
        slices = self.rule.slices
        if slices is None:
            slices = Slices(np.zeros(0, dtype=np.int64), np.rint(stats.counts).astype(np.int64))
        if std.ill_conditioned and stats.second and X is not None:
            if np.any(stats.counts <= 0):
                raise ValueError("A slice has no weight; use fewer slices.")
            order_, bounds = group_order(slices.labels, slices.nslices)
            return std, _slice_moments_from_rows(std, slices, stats.counts, order_, bounds)
        moments = slice_moments_from_sums(std, stats.counts, stats.sums, stats.cross, slices)
        return std, moments

    def finish(self, names: list[str] | None = None) -> EstimatorOutput:
        """The estimator output of the rows seen (needs the rows for pHd and CUME)."""
        est = self.estimator
        std, moments = self.prepared(names)
        Y = self.rows[1] if self.rows is not None else None
        return output_from_kernel(est, std, moments, est.kernel(std, moments, Y))


def output_from_kernel(
    estimator: Any,
    std: Standardized,
    moments: SliceMoments | None,
    M: np.ndarray,
    extras: dict[str, Any] | None = None,
) -> EstimatorOutput:
    """Eigen-decompose the kernel ``M`` and wrap directions, eigenvalues and extras."""
    values, vectors, basis = eigen_directions(std, M, by_abs=estimator.by_abs)
    p = std.mean.size
    # by default R summary.dr's count: numdir, but no direction whose eigenvalue is zero to
    # rounding (a 2-class SIR has one)
    nonzero = max(1, int(np.sum(np.abs(values) > 1e-15)))
    d = estimator.options["d"] or min(estimator.options["d_max"], p, nonzero)
    out: dict[str, Any] = {"M": M, "raw_vectors": vectors}
    if moments is not None:
        out["slice_sizes"] = moments.slices.sizes
    out.update(extras or {})
    return EstimatorOutput(basis=basis, d=d, eigenvalues=values, center=std.mean, extras=out)


__all__ = ["MomentStatistics", "SliceRule", "output_from_kernel"]
