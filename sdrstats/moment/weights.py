"""R ``dr``'s case weights (``dr(..., weights=)``) as mergeable sums, followed exactly for parity.

R's rule is peculiar: negative weights are an error, rows with ``w <= 1e-30`` are dropped and
the rest rescaled to ``w_i = n w_i / Σw`` with ``n`` the rows *before* dropping. The
predictors are whitened through the QR of the rows ``√w_i x_i`` centred by their plain column
means (``Z = √n Q``, so the rows of ``Z`` already carry ``√w``), slices come from ``y`` as
without weights (sizes are counts), and the slice statistics weight ``z`` again by ``w``:
SIR's slice means are ``Σ w z / Σ w``; SAVE's within-slice matrix is ``((n_s − 1)/W_s)`` times
the sample covariance of ``√w_i z_i`` (zero when ``W_s <= 1``). These are not frequency
weights (a weight of 2 is not a repeated row); the bootstrap's counts are, and are a different
path.

Every one of these is a function of sums over the rows, so one accumulator serves the rows in
memory (whose weights the formula front has already rescaled) and chunks or Dask partitions
(which see the given weights and rescale at the end). With ``w⁰`` the given weights of the kept
rows, ``n`` the complete rows (zero weights included) and ``c = n / Σw⁰``, R's weights are
``w = c w⁰``, and:

* the whitening is the QR of ``A = √w x`` centred by its plain means: it needs the plain mean
  and covariance of ``A⁰ = √w⁰ x`` (``A = √c A⁰``), and ``z`` does not depend on ``c``;
* SIR's slice means ``Σ_s w z / W_s`` need ``W⁰_s = Σ_s w⁰`` and ``Σ_s w⁰ (A⁰ − Ā⁰)``: sums of
  the columns ``w⁰`` and ``w⁰ A⁰`` per slice, about their means;
* SAVE's (and DR's) ``V_s = ((n_s − 1)/W_s) cov_s(√w z)`` needs the within-slice covariance of
  ``√w⁰ (A⁰ − Ā⁰) = w⁰ x − √w⁰ Ā⁰``: per-slice centred cross-products of the columns
  ``(w⁰ x, √w⁰)``, combined with ``Ā⁰`` at the end; ``c`` enters only through R's rule that
  ``V_s = 0`` when ``W_s <= 1``;
* R²(OLS|dr) and pHd's OLS fit need the plain moments of ``(x, A⁰, √w⁰, w⁰, √w⁰ y, y)``.

None needs ``c`` or ``Ā⁰`` before the pass, so a weighted fit takes the same passes as an
unweighted one. The sums are centred and merged pairwise
(:class:`~sdrstats.stats.grouped.SliceStats`).

References
----------
Weisberg, S. (2002). Dimension reduction regression in R. Journal of Statistical Software
7(1).

Chan, T. F., Golub, G. H. and LeVeque, R. J. (1979). Updating formulae and a pairwise
algorithm for computing sample variances. Stanford CS report STAN-CS-79-773.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..design.weights import MAX_WEIGHT_SPREAD, ZERO_WEIGHT
from ..stats.grouped import SliceStats
from ..stats.slicing import Slices
from ._core import SliceMoments, Standardized, constant_column_error, standardize_moments
from .statistics import SliceRule


class CaseWeightedStatistics:
    """Mergeable sums of R ``dr``'s case-weighted fit (see the module notes).

    ``update(X, y, w)`` takes rows with their weights (zero weights included: they count in
    ``n`` before R drops them).

    Parameters
    ----------
    p : int
        Number of predictors.
    rule : SliceRule
        How rows fall into slices (``single`` for pHd and CUME).
    second : bool, default False
        Keep the per-slice cross-products SAVE and DR need.
    response : bool, default False
        Keep the moments of a one-column numeric response (R², pHd).
    column : str, optional
        The column of the weights, for messages.
    rescaled : bool, default False
        The weights are R's already (an in-memory fit's: rescaled, zero weights dropped).
    keep_rows : bool, default False
        Keep the rows of the (single) update: an in-memory fit (the whitening may then fall
        back to the QR of the rows, and the slices keep each row's label).

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
        rescaled: bool = False,
        keep_rows: bool = False,
    ) -> None:
        self.p, self.rule, self.second, self.response = p, rule, second, response
        self.column, self.rescaled, self.keep_rows = column, rescaled, keep_rows
        self.n_complete = 0
        self.w_sum = 0.0
        self.w_min, self.w_max = np.inf, -np.inf
        # plain moments of (x, A⁰, √w⁰, w⁰[, √w⁰ y, y])
        self.overall = SliceStats(2 * p + 2 + (2 if response else 0))
        self.slices = None if rule.single else SliceStats(p + 1)  # (w⁰, w⁰ A⁰) per slice
        self.within = SliceStats(p + 1, second=True) if second else None  # (w⁰ x, √w⁰)
        self.rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def empty(self) -> CaseWeightedStatistics:
        return CaseWeightedStatistics(
            self.p,
            self.rule,
            second=self.second,
            response=self.response,
            column=self.column,
            rescaled=self.rescaled,
            keep_rows=self.keep_rows,
        )

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> CaseWeightedStatistics:
        self.n_complete += int(w.size)
        keep = w > ZERO_WEIGHT
        if self.rule.slices is not None and not keep.all():
            raise ValueError("Rows with given slices must all have a positive weight.")
        if not keep.all():
            X, y, w = X[keep], y[keep], w[keep]
        if w.size == 0:
            return self
        if self.keep_rows:
            if self.rows is not None:
                raise ValueError("An in-memory accumulator takes its rows in one update.")
            self.rows = (X, y, w)
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
            slices = self.rule.slices
            first, second = self._slice_columns(X, A, w, sw)
            if slices is not None:  # the labels of the rows of an in-memory fit
                codes, keys = slices.labels, list(range(slices.nslices))
                self.slices.update_coded(first, codes, keys)
                if second is not None:
                    self.within.update_coded(second, codes, keys)
            else:
                keys = self.rule.keys(y)
                self.slices.update(first, keys)
                if second is not None:
                    self.within.update(second, keys)
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
        self.rows = None
        return self

    def move_rows(
        self, X: np.ndarray, y: np.ndarray, w: np.ndarray, source: Any, targets: np.ndarray
    ) -> CaseWeightedStatistics:
        """Move rows already added under the slice key ``source`` to the slices ``targets``
        (as :meth:`MomentStatistics.move_rows`; rows of zero weight were never in a slice)."""
        keep = w > ZERO_WEIGHT
        if not keep.all():
            X, w, targets = X[keep], w[keep], np.asarray(targets)[keep]
        if self.slices is None or w.size == 0:
            return self
        sw = np.sqrt(w)
        first, second = self._slice_columns(X, X * sw[:, None], w, sw)
        self.slices.move(first, source, targets)
        if second is not None:
            self.within.move(second, source, targets)
        return self

    def _slice_columns(
        self, X: np.ndarray, A: np.ndarray, w: np.ndarray, sw: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The columns summed per slice (``A = X sqrt(w)``, ``sw = sqrt(w)``): for the slice
        means, and for the within-slice moments when they are kept (else None); ``update``
        adds rows with them and ``move_rows`` moves rows with the same ones."""
        first = np.column_stack([w, A * w[:, None]])
        second = np.column_stack([X * w[:, None], sw]) if self.within is not None else None
        return first, second

    def regroup(self, mapping: dict[Any, Any]) -> CaseWeightedStatistics:
        """Rename the slice keys by ``mapping`` (slices given one key are pooled)."""
        if self.slices is not None:
            self.slices = self.slices.regroup(mapping)
        if self.within is not None:
            self.within = self.within.regroup(mapping)
        return self

    def drop(self, key: Any) -> CaseWeightedStatistics:
        for stats in (self.slices, self.within):
            if stats is not None:
                stats.drop(key)
        return self

    def check_spread(self) -> None:
        """Refuse weights spanning more than :data:`~sdrstats.design.weights.MAX_WEIGHT_SPREAD`
        (the rows of small weight would count for nothing)."""
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
    def n_slices(self) -> int:
        return len(self.slices.keys) if self.slices is not None else 1

    @property
    def rescale(self) -> float:
        """``c``: R's weights are ``c`` times the given ones (they sum to the complete rows)."""
        if self.w_sum <= 0:
            raise ValueError("The 'weights' option is zero for every fitted row.")
        return 1.0 if self.rescaled else self.n_complete / self.w_sum

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
        source = None
        if self.rows is not None:
            X, _, w = self.rows
            error = constant_column_error(X, names)  # √w x of a constant x varies
            if error is not None:
                raise error
            source = X * np.sqrt(c * w)[:, None]  # R's rows √w x: their QR if needed
        std = standardize_moments(self.n, np.sqrt(c) * mean[a], c * cov[a, a], names, source=source)
        std.case_weights = None if self.rows is None else c * self.rows[2]
        return std

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

    def ordered_keys(self, order: list[Any] | None = None) -> list[Any]:
        """The slices' keys in the fit's order."""
        return list(self.slices.ordered(order).keys)

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
        slices = self.rule.slices
        if slices is None:
            slices = Slices(np.zeros(0, dtype=np.int64), np.rint(sizes).astype(np.int64))
        second = None
        if self.within is not None:
            if std.ill_conditioned and self.rows is not None:
                within = self._within_from_rows(std, slices, weight, means)
            else:
                wt = self.within.ordered(order)
                inner = wt.cross - wt.sums[:, :, None] * wt.sums[:, None, :] / sizes[:, None, None]
                lift = np.hstack([np.eye(p), -a_mean0[:, None]])  # √w⁰ a⁰ = (w⁰ x, √w⁰) lift
                K = np.einsum("ia,sab,jb->sij", lift, inner, lift)
                within = std.whiten_moments(c**2 * K / weight[:, None, None])
                within = (within + np.swapaxes(within, 1, 2)) / 2
            within[(weight <= 1) | (sizes <= 1)] = 0.0  # R: no within-slice term then
            second = within + means[:, :, None] * means[:, None, :]
        return SliceMoments(weight0 / weight0.sum(), means, second, slices)

    def _within_from_rows(
        self, std: Standardized, slices: Slices, weight: np.ndarray, means: np.ndarray
    ) -> np.ndarray:
        """R's within-slice matrices from the whitened rows (nearly collinear predictors:
        whitening the cross-products would square their condition number)."""
        Z, w = std.Z, std.case_weights
        h, p = slices.nslices, Z.shape[1]
        within = np.zeros((h, p, p))
        for s in range(h):
            rows = slices.labels == s
            u = Z[rows] * np.sqrt(w[rows])[:, None]
            if rows.sum() > 1:
                within[s] = (rows.sum() - 1) / weight[s] * np.atleast_2d(np.cov(u, rowvar=False))
        return within

    def ols_parts(self) -> dict[str, Any] | None:
        """R's OLS fit of ``√w (y − ȳ)`` on the centred ``√w x``, as moments: what R²(OLS|dr)
        and pHd's residuals need."""
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

    def ols_moments(self) -> dict[str, Any] | None:
        """R²(OLS|dr) of R's weighted OLS fit ``f = A_c β`` (``A_c`` the centred ``√w x``):
        ``h = Σ_{xA} β`` and ``v = βᵀ Σ_A β`` (see
        :func:`sdrstats.results.summary.ols_r2_from_moments`; ``c`` cancels)."""
        parts = self.ols_parts()
        if parts is None:
            return None
        beta = np.linalg.solve(parts["cov_a"], parts["g0"])
        return {
            "cov": parts["cov_x"],
            "cov_xy": parts["cov_xa"] @ beta,
            "var_fitted": float(beta @ parts["cov_a"] @ beta),
        }


__all__ = ["CaseWeightedStatistics", "ZERO_WEIGHT"]
