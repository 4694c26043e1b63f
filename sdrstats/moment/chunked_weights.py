"""R ``dr``'s case weights on chunks and Dask partitions: SIR, SAVE, DR (one pass) and CUME.

The in-memory rule (:mod:`.case_weights`) is a function of sums over the rows, so chunks can
accumulate it. With ``w⁰`` the given weights of the kept rows (``w⁰ > 1e-30``), ``n`` the
complete rows (zero weights included) and ``c = n / Σw⁰``, R's weights are ``w = c w⁰``, and:

* the whitening is the QR of ``A = √w x`` centred by its plain means: it needs the plain mean
  and covariance of ``A⁰ = √w⁰ x`` (``A = √c A⁰``), and ``z`` does not depend on ``c``;
* SIR's slice means ``Σ_s w z / W_s`` need ``W⁰_s = Σ_s w⁰`` and ``Σ_s w⁰ (A⁰ − Ā⁰)``: sums of
  the columns ``w⁰`` and ``w⁰ A⁰`` per slice, about their means;
* SAVE's (and DR's) ``V_s = ((n_s − 1)/W_s) cov_s(√w z)`` needs the within-slice covariance of
  ``√w⁰ (A⁰ − Ā⁰) = w⁰ x − √w⁰ Ā⁰``: per-slice centred cross-products of the columns
  ``(w⁰ x, √w⁰)``, combined with ``Ā⁰`` at the end; ``c`` enters only through R's rule that
  ``V_s = 0`` when ``W_s <= 1``;
* R²(OLS|dr) and pHd's OLS fit need the plain moments of ``(x, A⁰, √w⁰, w⁰, √w⁰ y, y)``;
* CUME's ``m(t)`` is the running sum of ``w z`` over the sorted response, which whitens the
  running sum of ``w (√w x − Ā)``: once ``c`` and ``Ā`` are known, the unweighted fit's
  passes over the response's ranges (chunks) or the sorted rows (Dask) sum those rows.

Every one of these is a mergeable sum (:class:`~sdrstats.stats.grouped.SliceStats`, centred
and merged pairwise), and none needs ``c`` or ``Ā⁰`` before the pass, so a weighted fit takes
the same passes as an unweighted one: one over the rows (after the exact-slicing passes over
the response of the kept rows), and SAVE one more for the fourth moments of its general test.
The result equals the in-memory weighted fit to rounding.

References
----------
Weisberg, S. (2002). Dimension reduction regression in R. Journal of Statistical Software
7(1).

Chan, T. F., Golub, G. H. and LeVeque, R. J. (1979). Updating formulae and a pairwise
algorithm for computing sample variances. Stanford CS report STAN-CS-79-773.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg

from ..design.weights import MAX_WEIGHT_SPREAD, ZERO_WEIGHT
from ..fitting.estimator import EstimatorOutput
from ..stats.grouped import SliceStats
from ..stats.slicing import Slices
from ._core import SliceMoments, Standardized, standardize_moments
from .chunked import (
    MAX_PAIR_P,
    ChunkedResults,
    PairMoments,
    ValueSums,
    _cume_by_ranges,
    _cut_points,
    check_rows,
)
from .statistics import SliceRule, output_from_kernel


class CaseWeightedStatistics:
    """Mergeable sums of R ``dr``'s case-weighted fit over chunks (see the module notes).

    ``update(X, y, w)`` takes the complete rows of a chunk with their given weights (zero
    weights included: they count in ``n`` before R drops them).

    Parameters
    ----------
    p : int
        Number of predictors.
    rule : SliceRule
        How rows fall into slices (``single`` for pHd).
    second : bool, default False
        Keep the per-slice cross-products SAVE and DR need.
    response : bool, default False
        Keep the moments of a one-column numeric response (R², pHd).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, y, w = rng.standard_normal((50, 2)), rng.standard_normal(50), rng.uniform(size=50)
    >>> acc = CaseWeightedStatistics(2, SliceRule(cuts=np.array([0.0])))
    >>> halves = acc.empty().update(X[:20], y[:20], w[:20]).merge(
    ...     acc.empty().update(X[20:], y[20:], w[20:]))
    >>> whole = acc.empty().update(X, y, w)
    >>> bool(np.allclose(halves.slices.ordered().sums, whole.slices.ordered().sums))
    True
    """

    def __init__(
        self,
        p: int,
        rule: SliceRule,
        *,
        second: bool = False,
        response: bool = False,
        column: str | None = None,
    ) -> None:
        self.p, self.rule, self.second, self.response = p, rule, second, response
        self.column = column
        self.n_complete = 0
        self.w_sum = 0.0
        self.w_min, self.w_max = np.inf, -np.inf
        # plain moments of (x, A⁰, √w⁰, w⁰[, √w⁰ y, y])
        self.overall = SliceStats(2 * p + 2 + (2 if response else 0))
        self.slices = None if rule.single else SliceStats(p + 1)  # (w⁰, w⁰ A⁰) per slice
        self.within = SliceStats(p + 1, second=True) if second else None  # (w⁰ x, √w⁰)

    def empty(self) -> CaseWeightedStatistics:
        return CaseWeightedStatistics(
            self.p, self.rule, second=self.second, response=self.response, column=self.column
        )

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> CaseWeightedStatistics:
        self.n_complete += int(w.size)
        keep = w > ZERO_WEIGHT
        if not keep.all():
            X, y, w = X[keep], y[keep], w[keep]
        if w.size == 0:
            return self
        self.w_sum += float(w.sum())
        self.w_min, self.w_max = min(self.w_min, float(w.min())), max(self.w_max, float(w.max()))
        self.check_spread()  # before the products, which would overflow
        sw = np.sqrt(w)
        A = X * sw[:, None]
        columns = [X, A, sw[:, None], w[:, None]]
        if self.response:
            v = np.asarray(y, dtype=float).reshape(-1)
            columns += [(sw * v)[:, None], v[:, None]]
        single = np.zeros(w.size, dtype=np.int64)
        self.overall.update_coded(np.hstack(columns), single, [0])
        if self.slices is not None:
            keys = self.rule.keys(y)
            self.slices.update(np.column_stack([w, A * w[:, None]]), keys)
            if self.within is not None:
                self.within.update(np.column_stack([X * w[:, None], sw]), keys)
        return self

    def merge(self, other: CaseWeightedStatistics) -> CaseWeightedStatistics:
        self.n_complete += other.n_complete
        self.w_sum += other.w_sum
        self.w_min, self.w_max = min(self.w_min, other.w_min), max(self.w_max, other.w_max)
        self.check_spread()
        self.overall.merge(other.overall)
        if self.slices is not None:
            self.slices.merge(other.slices)
        if self.within is not None:
            self.within.merge(other.within)
        return self

    def check_spread(self) -> None:
        """Refuse weights spanning more than :data:`~sdrstats.design.weights.MAX_WEIGHT_SPREAD`
        (as in memory: the rows of small weight would count for nothing)."""
        if self.w_max > MAX_WEIGHT_SPREAD * self.w_min:
            name = f" column {self.column!r}" if self.column else " option"
            raise ValueError(
                f"The 'weights'{name} spans {self.w_min:.3g} to {self.w_max:.3g} "
                f"({self.w_max / self.w_min:.3g} times): the rows of small weight would count "
                f"for nothing next to the largest (weights spanning more than "
                f"{MAX_WEIGHT_SPREAD:.0e} exceed double precision). Check the largest weights; "
                "give rows to leave out a weight of 0."
            )

    # -- totals --------------------------------------------------------------------------
    @property
    def n(self) -> float:
        """Rows kept (weight above ``1e-30``)."""
        return self.overall.n

    @property
    def rescale(self) -> float:
        """``c``: R's weights are ``c`` times the given ones (they sum to the complete rows)."""
        if self.w_sum <= 0:
            raise ValueError("The 'weights' option is zero for every fitted row.")
        return self.n_complete / self.w_sum

    @property
    def weights_vary(self) -> bool:
        return bool(self.w_max > self.w_min)

    def _block(self, name: str) -> slice:
        p = self.p
        return {
            "x": slice(0, p),
            "A": slice(p, 2 * p),
            "sw": slice(2 * p, 2 * p + 1),
            "w": slice(2 * p + 1, 2 * p + 2),
            "swy": slice(2 * p + 2, 2 * p + 3),
            "y": slice(2 * p + 3, 2 * p + 4),
        }[name]

    def standardized(self, names: list[str] | None = None) -> Standardized:
        """R's whitening: the plain mean and covariance of ``√w x`` (``w`` rescaled)."""
        c = self.rescale
        _, mean, cov = self.overall.moments()
        a = self._block("A")
        return standardize_moments(self.n, np.sqrt(c) * mean[a], c * cov[a, a], names)

    def plain_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of each predictor over the rows kept, unweighted (a constant
        predictor is refused as in memory, before the whitening of ``√w x`` hides it)."""
        _, mean, cov = self.overall.moments()
        x = self._block("x")
        return mean[x], np.diag(cov)[x]

    def response_plain_moments(self) -> tuple[float, float] | None:
        """Variance and mean of the numeric response over the rows kept (None without it)."""
        if not self.response:
            return None
        _, mean, cov = self.overall.moments()
        y = self._block("y").start
        return float(cov[y, y]), float(mean[y])

    def center(self) -> np.ndarray:
        """The plain mean of ``x`` (R's ``dr.direction`` centres by it)."""
        return self.overall.mean[self._block("x")].copy()

    def slice_moments(self, std: Standardized, order: list[Any] | None = None) -> SliceMoments:
        """R's weighted slice fractions, means and (SAVE, DR) second moments of ``z``."""
        c, p = self.rescale, self.p
        _, mean, cov = self.overall.moments()
        a_mean0 = mean[self._block("A")]
        # Σ_s w⁰ (A⁰ − Ā⁰) from sums about the column means, and the overall cov(w⁰, A⁰)
        cov_w_a = cov[self._block("w"), self._block("A")][0]
        sl = self.slices.ordered(order)
        sizes = sl.counts
        weight0 = sl.sums[:, 0] + sizes * sl.mean[0]
        if np.any(weight0 <= 0):
            raise ValueError("A slice has no weight; use fewer slices.")
        centred0 = sl.sums[:, 1:] - np.outer(sl.sums[:, 0], a_mean0) + np.outer(sizes, cov_w_a)
        weight = c * weight0
        scaled = c**1.5 * centred0 / weight[:, None] / std.scale
        means = np.linalg.solve(std.chol, scaled.T).T
        second = None
        if self.within is not None:
            wt = self.within.ordered(order)
            inner = wt.cross - wt.sums[:, :, None] * wt.sums[:, None, :] / sizes[:, None, None]
            lift = np.hstack([np.eye(p), -a_mean0[:, None]])  # √w⁰ a⁰ = (w⁰ x, √w⁰) lift
            K = np.einsum("ia,sab,jb->sij", lift, inner, lift)
            within = std.whiten_moments(c**2 * K / weight[:, None, None])
            within = (within + np.swapaxes(within, 1, 2)) / 2
            within[(weight <= 1) | (sizes <= 1)] = 0.0  # R: no within-slice term then
            second = within + means[:, :, None] * means[:, None, :]
        slices = Slices(np.zeros(0, dtype=np.int64), np.rint(sizes).astype(np.int64))
        return SliceMoments(weight0 / weight0.sum(), means, second, slices)

    def ols_parts(self) -> dict[str, Any] | None:
        """What R²(OLS|dr) and pHd's residuals need: R's OLS fit of ``√w (y − ȳ)`` on the
        centred ``√w x``, as moments (``c`` cancels from R²)."""
        if not self.response:
            return None
        _, mean, cov = self.overall.moments()
        x, a, sw, swy = (self._block(k) for k in ("x", "A", "sw", "swy"))
        y_mean = float(mean[self._block("y")][0])
        # (1/n) Σ (A⁰ − Ā⁰) √w⁰ (y − ȳ)
        g0 = cov[a, swy][:, 0] - y_mean * cov[a, sw][:, 0]
        return {
            "cov_x": cov[x, x].copy(),
            "cov_xa": cov[x, a].copy(),
            "cov_a": cov[a, a].copy(),
            "g0": g0,
            "y_mean": y_mean,
        }


def weighted_ols_r2(parts: dict[str, Any], basis: np.ndarray) -> np.ndarray:
    """R²(OLS|dr) of a case-weighted fit from :meth:`CaseWeightedStatistics.ols_parts`.

    R's OLS fit is ``f = A_c β`` (``A_c`` the centred ``√w x``, ``β = (A_cᵀA_c)⁻¹ A_cᵀ √w (y −
    ȳ)``), and ``R²_k`` is the squared length of its projection on the plain-centred ``x B_k``
    over its own: ``hᵀB_k (B_kᵀ Σ_x B_k)⁻¹ B_kᵀ h / (βᵀ Σ_A β)`` with ``h = Σ_{xA} β``.

    Parameters
    ----------
    parts : dict
        The moments.
    basis : ndarray of shape (p, K)
        Directions.

    Returns
    -------
    ndarray of shape (K,)

    Examples
    --------
    >>> import numpy as np
    >>> parts = {"cov_x": np.eye(2), "cov_xa": np.eye(2), "cov_a": np.eye(2),
    ...          "g0": np.array([1.0, 0.0])}
    >>> weighted_ols_r2(parts, np.eye(2)).tolist()
    [1.0, 1.0]
    """
    beta = np.linalg.solve(parts["cov_a"], parts["g0"])
    denom = float(beta @ parts["cov_a"] @ beta)
    out = np.full(basis.shape[1], np.nan)
    if not denom > 0:
        return out
    h = parts["cov_xa"] @ beta
    for k in range(1, basis.shape[1] + 1):
        B = basis[:, :k]
        proj = B.T @ h
        out[k - 1] = float(proj @ np.linalg.solve(B.T @ parts["cov_x"] @ B, proj)) / denom
    return out


class WeightedPairMoments(PairMoments):
    """:class:`~sdrstats.moment.chunked.PairMoments` of R's weighted ``z`` (rows ``√w x``)."""

    def __init__(self, mean: np.ndarray, W: np.ndarray, rescale: float) -> None:
        super().__init__(mean, W)
        self.c = rescale

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> WeightedPairMoments:
        keep = w > ZERO_WEIGHT
        if keep.any():
            super().update(X[keep] * np.sqrt(self.c * w[keep])[:, None], None)
        return self


def using_weights(line: str, extras: dict[str, Any]) -> str:
    """A chunked fit's Method line with R's "using weights" (when the weights vary, as R).

    Examples
    --------
    >>> using_weights("sir with 8 slices, n = 202, from 2 chunks", {"weights_vary": True})
    'sir with 8 slices, n = 202, using weights, from 2 chunks'
    """
    if extras.get("weights_vary"):
        head, _, tail = line.rpartition(", from ")
        line = f"{head}, using weights, from {tail}"
    return line


class WeightedChunkedResults(ChunkedResults):
    """A case-weighted moment fit from chunks or Dask partitions; the rows are not kept.

    As :class:`~sdrstats.moment.chunked.ChunkedResults`, with R ``dr``'s weighted summary: the
    method line says "using weights" (when the weights vary, as R) and the R²(OLS|dr) row is
    R's weighted one (:func:`weighted_ols_r2`).

    Parameters
    ----------
    estimator, spec, output, call : Estimator, ModelSpec, EstimatorOutput, str
        As :class:`sdrstats.Results`; a formula function given chunked data and ``weights=``
        builds it.
    n_rows : int
        Rows used (weight above ``1e-30``).
    prepared, r2_moments : optional
        Accumulated statistics (``r2_moments`` is None: the weighted R² comes from the
        output's extras).

    See Also
    --------
    sdrstats.moment.chunked.ChunkedResults : Chunked fits without weights.
    sdrstats.moment.results.MomentResults : The same fit in memory.

    References
    ----------
    :cite:t:`weisberg2002`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> ais = sdr.datasets.load("ais").assign(w=np.linspace(0.5, 2, 202))
    >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", parts, weights="w", nslices=8)
    >>> type(fit).__name__, fit.n
    ('WeightedChunkedResults', 202)
    """

    def _method_line(self) -> str:
        return using_weights(super()._method_line(), self.output.extras)

    def _eigen_table(self, k: int) -> pd.DataFrame | None:
        ev = np.asarray(self.output.eigenvalues[:k], dtype=float)
        rows = {getattr(self, "eigen_label", "Eigenvalues"): ev}
        parts = self.output.extras.get("weighted_ols")
        if parts is not None:
            rows["R^2(OLS|dr)"] = weighted_ols_r2(parts, self.output.basis[:, :k])
        return pd.DataFrame(rows, index=self.directions_for(k).columns).T


def weighted_info(
    acc: CaseWeightedStatistics, source: Any, prepared: Any, output: EstimatorOutput
) -> dict[str, Any]:
    """Keyword arguments of the results, and the extras a weighted chunked fit keeps."""
    output.center = acc.center()  # R's dr.direction centres x by its plain mean
    output.extras["weights_vary"] = acc.weights_vary
    output.extras["weighted_ols"] = acc.ols_parts()
    levels = None
    if source.categorical and acc.slices is not None:
        levels = list(acc.slices.ordered(source.level_order).keys)
    return {
        "n_rows": int(round(acc.n)),
        "prepared": prepared,
        "r2_moments": None,
        "y_levels": levels,
        "results_class": WeightedChunkedResults,
    }


def fit_sliced_weighted(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """SIR, SAVE, DR with R ``dr``'s case weights: one pass of the sums above (SAVE: one more
    for its general test's fourth moments, for ``p <= MAX_PAIR_P``)."""
    numeric = not source.categorical
    rule = SliceRule(cuts=_cut_points(estimator, source) if numeric else None, classes=not numeric)
    template = CaseWeightedStatistics(
        source.p, rule, second=estimator.second_moments, response=numeric, column=source.weights
    )
    acc = source.reduce(template)
    c = acc.rescale  # raises when every weight is zero
    check_rows(estimator, acc.n, source.p, acc, source)
    if len(acc.slices.keys) < 2:
        raise ValueError(
            f"The response has a single value, so {estimator.method} finds only one slice; "
            "it needs a response that varies."
        )
    std = acc.standardized(source.x_names)
    moments = acc.slice_moments(std, source.level_order)
    M = estimator.kernel(std, moments, None)
    output = output_from_kernel(estimator, std, moments, M, {"n_chunks": source.n_chunks})
    if getattr(estimator, "test_needs_pair_moments", False) and source.p <= MAX_PAIR_P:
        vectors = output.extras["raw_vectors"]
        W = scipy.linalg.solve_triangular(std.chol, np.eye(source.p), lower=True).T @ vectors
        pairs = source.reduce(WeightedPairMoments(std.mean, W / std.scale[:, None], c))
        output.extras["pair_moments"] = pairs.finish()
    return output, weighted_info(acc, source, (std, moments), output)


def _cume_rows(
    X: np.ndarray, w: np.ndarray, mean: np.ndarray, rescale: float
) -> tuple[np.ndarray, np.ndarray]:
    """R's weights ``w = c w⁰`` of the kept rows and ``w (√w x − Ā)``, whose running sums
    over the sorted response whiten to CUME's ``m(t)`` (times ``n``)."""
    keep = w > ZERO_WEIGHT
    weight = rescale * w[keep]
    return weight, weight[:, None] * (X[keep] * np.sqrt(weight)[:, None] - mean)


class WeightedValueSums(ValueSums):
    """:class:`~sdrstats.moment.chunked.ValueSums` under R's case weights: per distinct
    response value, the sum of the weights and of ``w (√w x − Ā)``."""

    def __init__(self, low: float, high: float, shift: np.ndarray, rescale: float) -> None:
        super().__init__(low, high, shift)
        self.rescale = rescale

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> WeightedValueSums:
        y = np.asarray(y, dtype=float).reshape(-1)
        inside = (y >= self.low) & (y < self.high) & (w > ZERO_WEIGHT)
        weight, rows = _cume_rows(X[inside], w[inside], self.shift, self.rescale)
        self._regroup(
            np.concatenate([self.values, y[inside]]),
            np.concatenate([self.counts, weight]),
            np.vstack([self.sums, rows]),
        )
        return self


def _weighted_part(part: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Design rows, case weights and response of a partition of the sorted rows."""
    X = part.drop(columns="__w__").to_numpy(dtype=float)
    return X, part["__w__"].to_numpy(dtype=float), part.index.to_numpy(dtype=float)


def weighted_partition_total(part: pd.DataFrame, mean: np.ndarray, rescale: float) -> np.ndarray:
    """Sum of ``w (√w x − Ā)`` over one partition of the rows sorted by the response."""
    X, w, _ = _weighted_part(part)
    return _cume_rows(X, w, mean, rescale)[1].sum(axis=0)


def weighted_partition_cume(
    part: pd.DataFrame, offset: np.ndarray, mean: np.ndarray, rescale: float
) -> np.ndarray:
    """``Σ_k W_k C_k C_kᵀ`` over the distinct responses of a partition of the sorted rows
    (``C_k`` the running sum of ``w (√w x − Ā)``, ``W_k`` the weight at value ``k``)."""
    X, w, y = _weighted_part(part)
    keep = w > ZERO_WEIGHT
    if not keep.any():
        return np.zeros((mean.size, mean.size))
    weight, rows = _cume_rows(X, w, mean, rescale)
    _, codes = np.unique(y[keep], return_inverse=True)
    codes = codes.reshape(-1)
    grouped = np.zeros((int(codes.max()) + 1, mean.size))
    np.add.at(grouped, codes, rows)
    running = offset + np.cumsum(grouped, axis=0)
    return running.T @ (running * np.bincount(codes, weights=weight)[:, None])


def fit_cume_weighted(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """CUME with R's case weights: the weighted moments, then ``Σ_k W_k C_k C_kᵀ`` over the
    rows sorted by the response (Dask) or one pass per range of it (chunks), as unweighted."""
    acc = source.reduce(
        CaseWeightedStatistics(
            source.p, SliceRule(single=True), response=True, column=source.weights
        )
    )
    c = acc.rescale
    check_rows(estimator, acc.n, source.p, acc, source)
    std = acc.standardized(source.x_names)
    if source.can_sort:
        args = (std.mean, c)
        cross = source.sorted_scan(weighted_partition_total, weighted_partition_cume, *args)
    else:
        cross = _cume_by_ranges(source, std.mean, functools.partial(WeightedValueSums, rescale=c))
    M = std.whiten_moments(cross / std.n**3)
    output = output_from_kernel(estimator, std, None, (M + M.T) / 2, {"n_chunks": source.n_chunks})
    return output, weighted_info(acc, source, (std, None), output)


__all__ = [
    "CaseWeightedStatistics",
    "WeightedChunkedResults",
    "WeightedPairMoments",
    "WeightedValueSums",
    "fit_cume_weighted",
    "fit_sliced_weighted",
    "weighted_partition_cume",
    "weighted_partition_total",
    "weighted_info",
    "weighted_ols_r2",
]
