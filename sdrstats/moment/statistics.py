"""The moment family's accumulators: every moment fit is a function of mergeable sums.

A moment method states the passes it needs over the rows as accumulators (``update(X, y[,
w])``, ``merge(other)``, then a finish) and runs them over a *source*: the rows of an
in-memory fit as one chunk (:class:`sdrstats.scale.rows.RowsInMemory`), or chunks and Dask
partitions (:class:`sdrstats.scale.fit.ChunkedData`). The same code runs in both cases, so
the answer cannot depend on where the rows live.

:class:`MomentStatistics` holds the per-slice weights, sums of ``x − x̄`` and (SAVE, DR) sums
of ``(x − x̄)(x − x̄)ᵀ`` (:class:`sdrstats.stats.grouped.SliceStats`); its finish whitens these
p × p statistics into the slice moments of ``z``. How rows fall into slices is fixed when the
accumulator is made (:class:`SliceRule`), so it is the same on every chunk: R ``dr``'s slices
of the whole response in memory, their exact cut points on chunks, class labels, or one
group (pHd, CUME). An accumulator of rows in memory may keep them (the whitening then falls
back to the QR of the rows for nearly collinear predictors, and tests may read them later).

This module also holds the pieces every moment fit over a source shares: the checks of
accumulated totals (with the in-memory messages), the slicing rule of a source, the eigen
step (:func:`output_from_kernel`) and what a fit without rows keeps (:func:`rowless_extras`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.contract import EstimatorOutput
from ..base.validation import constant_response_error, is_constant, too_few_rows_error
from ..design.weights import ZERO_WEIGHT
from ..stats.exact_slicing import MAX_DISTINCT, ResponseSummary
from ..stats.grouped import SliceStats, group_order
from ..stats.slicing import Slices, check_cut_points, cut_labels, make_slices
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
        if self.slices is not None:
            return self.slices.labels
        if self.classes or self.cuts is None:
            return np.asarray(y).reshape(-1)
        return cut_labels(np.asarray(y, dtype=float).reshape(-1), self.cuts)


class MomentStatistics:
    """Mergeable statistics of a slice moment method; ``finish()`` is the fit.

    Parameters
    ----------
    estimator : MomentEstimator
        The method (its kernel turns the slice moments into ``M``).
    p : int
        Number of predictors.
    rule : SliceRule
        How rows fall into slices.
    second : bool, optional
        Keep per-slice cross-products; default the estimator's ``second_moments``.
    response : bool, default False
        Also keep the moments of a one-column numeric response (R²(OLS|dr) of a fit without
        rows, pHd's OLS fit).
    keep_rows : bool, default False
        Keep the rows of the (single) update: an in-memory fit.

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
        second: bool | None = None,
        response: bool = False,
        keep_rows: bool = False,
    ) -> None:
        self.estimator = estimator
        self.rule = rule
        second = estimator.second_moments if second is None else second
        self.stats = SliceStats(p, second=second, response=response)
        self.keep_rows = keep_rows
        self.rows: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None

    def update(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None
    ) -> MomentStatistics:
        """Add rows ``X`` with response ``y`` (and frequency ``weights``)."""
        rule = self.rule
        y_moments = y if self.stats.response else None
        if rule.slices is not None:
            if self.rows is not None or self.stats.n_chunks:
                raise ValueError("An accumulator with given slices takes its rows in one update.")
            keys = list(range(rule.slices.nslices))
            self.stats.update_coded(X, rule.slices.labels, keys, y_moments, weights)
        elif rule.single:
            self.stats.update_coded(
                X, np.zeros(X.shape[0], dtype=np.int64), [0], y_moments, weights
            )
        else:
            self.stats.update(X, rule.keys(y), y_moments, weights)
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

    def move_rows(
        self,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray | None,
        source: Any,
        targets: np.ndarray,
    ) -> MomentStatistics:
        """Move rows already added under the slice key ``source`` to the slices ``targets``
        (a one-pass slicing holds rows under a key until their slice is known)."""
        self.stats.move(X, source, targets, weights)
        return self

    def regroup(self, mapping: dict[Any, Any]) -> MomentStatistics:
        """Rename the slice keys by ``mapping`` (slices given one key are pooled); ``drop``
        removes an emptied key."""
        self.stats = self.stats.regroup(mapping)
        return self

    def drop(self, key: Any) -> MomentStatistics:
        self.stats.drop(key)
        return self

    @property
    def n(self) -> float:
        return self.stats.n

    def column_squares(self) -> np.ndarray:
        """Each predictor's (weighted) sum of squares, ``n (var + mean²)``, from the moments:
        NaN or infinite when a column holds NaN or inf (the in-memory check of the rows,
        :meth:`sdrstats.scale.rows.RowsInMemory.reduce`)."""
        n, mean, cov = self.stats.moments()
        return n * (np.diag(cov) + mean * mean)

    @property
    def n_slices(self) -> int:
        return len(self.stats.keys)

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
        """The estimator output of the rows seen (SIR, SAVE and DR)."""
        est = self.estimator
        std, moments = self.prepared(names)
        return output_from_kernel(est, std, moments, est.kernel(std, moments))

    def ordered_keys(self, order: list[Any] | None = None) -> list[Any]:
        """The slices' keys in the fit's order."""
        if self.rule.slices is not None:
            return list(range(self.rule.slices.nslices))
        return list(self.stats.ordered(order).keys)

    def ols_moments(self) -> dict[str, Any] | None:
        """What R²(OLS|dr) of a fit without rows needs (see
        :func:`sdrstats.results.summary.ols_r2_from_moments`), or None without a response."""
        if not self.stats.response:
            return None
        return {"cov": self.stats.cov, "cov_xy": self.stats.response_moments()[2]}


#: Largest p for which a fit on chunked data accumulates the fourth moments of SAVE's general
#: test (and pHd's): (p(p+1)/2)² floats, 13 MB at p = 50, 53 MB at p = 70.
MAX_PAIR_P = 70


class PairMoments:
    """Sums of ``q = (w_j w_k)_{j<=k}`` and ``q qᵀ`` over rows, ``w = (x − x̄) W``: the fourth
    moments of the whitened predictors in the eigenvector basis (SAVE's general test).

    With ``rescale`` (R's case weights), the rows are R's ``√(c w) x`` of weight above
    ``1e-30`` and ``update`` takes the weights."""

    def __init__(self, mean: np.ndarray, W: np.ndarray, rescale: float | None = None) -> None:
        self.mean, self.W, self.c = mean, W, rescale
        self.rows, self.cols = np.triu_indices(W.shape[1])
        k = self.rows.size
        self.n = 0
        self.first = np.zeros(k)
        self.second = np.zeros((k, k))

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> PairMoments:
        if self.c is not None:
            keep = w > ZERO_WEIGHT
            X = X[keep] * np.sqrt(self.c * w[keep])[:, None]
        u = (X - self.mean) @ self.W
        q = u[:, self.rows] * u[:, self.cols]
        self.n += X.shape[0]
        self.first += q.sum(axis=0)
        self.second += q.T @ q
        return self

    def merge(self, other: PairMoments) -> PairMoments:
        self.n += other.n
        self.first += other.first
        self.second += other.second
        return self

    def finish(self) -> dict[str, Any]:
        """The covariance (divisor n − 1, as ``np.cov``) of the pair products."""
        mean = self.first / self.n
        cov = (self.second - self.n * np.outer(mean, mean)) / (self.n - 1)
        return {"cov": cov, "p": self.W.shape[1]}


def pair_moments_of_rows(U: np.ndarray, block_bytes: int = 1 << 24) -> dict[str, Any]:
    """:class:`PairMoments` of rows already in the eigenvector basis (``u`` = ``U``'s rows), read
    in blocks of rows whose pair products take at most ``block_bytes``: a fit in memory gets
    the same covariance as a fit on chunks without an ``n x p²`` matrix of products (20 GB at
    ``n = 1e6``, ``p = 50``)."""
    n, p = U.shape
    acc = PairMoments(np.zeros(p), np.eye(p))
    pairs = p * (p + 1) // 2
    step = max(1, block_bytes // (8 * pairs))
    for start in range(0, n, step):
        acc.update(U[start : start + step], None)
    return acc.finish()


def pair_moments_fit(n: int, p: int) -> bool:
    """Whether :func:`pair_moments_of_rows` (a ``(p(p+1)/2)²`` matrix) takes less memory than
    the ``n x p²`` products of every row and their centred copy."""
    return (p * (p + 1) // 2) ** 2 < 2 * n * p * p


def pairs_accumulated(p: int) -> bool:
    """Whether a fit on chunks of ``p`` predictors accumulates the fourth moments of its
    general test (``p <= MAX_PAIR_P``)."""
    return p <= MAX_PAIR_P


def pair_covariance_block(pair_moments: dict[str, Any], m: int) -> np.ndarray:
    """``cov(vec(u uᵀ))`` for ``u`` the whitened predictors on eigenvectors ``m+1..p``, from
    :class:`PairMoments`."""
    p = pair_moments["p"]
    index = np.full((p, p), -1)
    rows, cols = np.triu_indices(p)
    index[rows, cols] = index[cols, rows] = np.arange(rows.size)
    full = index[m:, m:].reshape(-1)
    return pair_moments["cov"][np.ix_(full, full)]


def eigen_map(std: Standardized, vectors: np.ndarray) -> np.ndarray:
    """``W`` with ``(x − x̄) W`` the whitened predictors on the eigenvectors ``vectors``."""
    return np.linalg.inv(std.chol).T @ vectors / std.scale[:, None]


# -- fits over a source -----------------------------------------------------------------
def check_rows(estimator: Any, n: float, p: int, acc: Any = None, source: Any = None) -> None:
    """The in-memory fit's checks on accumulated totals, with its messages: more rows than
    predictors, ``d`` at most ``p``, and (given the accumulator ``acc`` and its ``source``) a
    response that varies and, for case-weighted sums, predictors that vary (the whitening of
    ``√w x`` would not see a constant ``x``)."""
    if n <= p:
        raise too_few_rows_error(estimator.method, n, p)
    d = estimator.options["d"]
    if d is not None and d > p:
        raise ValueError(f"The 'd' option of {estimator.method} must be at most p = {p}; got {d}.")
    if acc is None or source is None or source.keeps_rows:
        return  # in memory the rows were checked before the fit
    found = getattr(source, "response_summary", None)
    if found is not None and estimator.options.get("cut_points") is None:
        estimator.check_nslices(n, p, found.more_values_than(estimator.nslices_for(p, n)))
    spread = response_spread(acc)
    if spread is not None and not source.categorical and is_constant(*spread):
        raise constant_response_error(estimator.method, list(source.y_names))
    plain = getattr(acc, "plain_moments", None)
    if plain is not None:
        mean, var = plain()
        for j, name in enumerate(source.x_names):
            if is_constant(var[j], mean[j]):
                raise ValueError(f"Predictor {name!r} is constant; remove it from the formula.")


def response_spread(acc: Any) -> tuple[float, float] | None:
    """(variance, mean) of a one-column numeric response from an accumulator that kept its
    moments, else None."""
    weighted = getattr(acc, "response_plain_moments", None)
    if weighted is not None:
        return weighted()
    stats = getattr(acc, "stats", None)
    if stats is None or not getattr(stats, "response", False):
        return None
    mean, var, _ = stats.response_moments()
    return var, mean


def cut_points(estimator: Any, source: Any) -> np.ndarray:
    """The cut points of a continuous response on chunks: the given ones, or those giving
    exactly R ``dr``'s slices (passes over the response)."""
    given = estimator.options["cut_points"]
    if given is not None:
        return check_cut_points(given)
    function = estimator.options["slice_function"]
    h = estimator.nslices_for(source.p)
    cuts = source.response_cuts(h, function)
    found = getattr(source, "response_summary", None)
    if found is not None and estimator.nslices_for(source.p, found.n) != h:
        # a default that depends on the rows (IRE's): slice again at the rows' count, from
        # the response values the first passes kept
        cuts = source.response_cuts(estimator.nslices_for(source.p, found.n), function)
    return cuts


def slice_rule(estimator: Any, source: Any) -> SliceRule:
    """How the source's rows fall into the estimator's slices: R ``dr``'s slices of the whole
    response for rows in memory (nested for several columns), the exact cut points (or class
    labels) of the response on chunks."""
    if source.keeps_rows:
        return SliceRule(slices=estimator._slices(source.Y, source.p))
    if source.categorical:
        return SliceRule(classes=True)
    return SliceRule(cuts=cut_points(estimator, source))


class GroupedStatistics:
    """Per level of a group column, one :class:`~sdrstats.stats.grouped.SliceStats` of the
    level's rows sliced by the level's own rule (the partial methods; ``update_groups``).

    Parameters
    ----------
    p : int
        Number of predictors.
    rules : dict
        The slice rule of each level, in the levels' order (R's order of first appearance).
    second : bool, default False
        Keep per-slice cross-products (partial SAVE).
    response : bool, default False
        Also keep the pooled moments of the predictors and a one-column numeric response
        (R²(OLS|dr) of a fit without rows).
    """

    def __init__(
        self, p: int, rules: dict[Any, SliceRule], second: bool = False, response: bool = False
    ) -> None:
        self.rules = rules
        self.parts = {level: SliceStats(p, second=second) for level in rules}
        self.pooled = SliceStats(p, response=True) if response else None

    def ols_moments(self) -> dict[str, Any] | None:
        """What R²(OLS|dr) of a fit without rows needs, or None."""
        if self.pooled is None:
            return None
        return {"cov": self.pooled.cov, "cov_xy": self.pooled.response_moments()[2]}

    def update_groups(self, X: np.ndarray, y: np.ndarray, values: np.ndarray) -> GroupedStatistics:
        check_levels(values, self.parts)
        if self.pooled is not None:
            self.pooled.update_coded(X, np.zeros(X.shape[0], dtype=np.int64), [0], y)
        for level, rule in self.rules.items():
            rows = values == level
            if not rows.any():
                continue
            if rule.slices is not None:  # the one chunk of rows in memory
                keys = list(range(rule.slices.nslices))
                self.parts[level].update_coded(X[rows], rule.slices.labels, keys)
            else:
                self.parts[level].update(X[rows], rule.keys(y[rows]))
        return self

    def merge(self, other: GroupedStatistics) -> GroupedStatistics:
        for level, part in self.parts.items():
            part.merge(other.parts[level])
        if self.pooled is not None:
            self.pooled.merge(other.pooled)
        return self


def check_levels(values: np.ndarray, known: dict[Any, Any]) -> None:
    """Refuse a level of the group column that the slicing passes did not see."""
    new = set(values.tolist()) - set(known)
    if new:
        raise ValueError(
            f"Level(s) {sorted(map(str, new))[:5]} of the group column appeared after the first "
            "pass: the data changed between the passes of the fit; fit again on unchanging data."
        )


def level_rules(
    estimator: Any,
    source: Any,
    column: str,
    nslices: int,
    *,
    check: Any = None,
    given_cuts: bool = True,
) -> dict[Any, SliceRule]:
    """The slice rule of each level of ``column`` (in order of first appearance, as R's
    ``unique``): R ``dr``'s slices of the level's response in memory, their exact cut points
    on chunks (passes over the response and the column only). ``check(level, n_rows)`` runs
    for every level before it is sliced; ``given_cuts``: the estimator's ``cut_points``
    option, if set, slices every level."""
    o = estimator.options
    fn = o["slice_function"]
    cuts = o.get("cut_points") if given_cuts else None
    if source.keeps_rows:
        groups = source.groups
        levels = list(dict.fromkeys(groups.tolist()))
        rules = {}
        for level in levels:
            rows = groups == level
            if check is not None:
                check(level, int(rows.sum()))
            rules[level] = SliceRule(
                slices=make_slices(
                    source.Y[rows],
                    nslices,
                    function=fn,
                    categorical=source.categorical,
                    cut_points=cuts,
                )
            )
        return rules
    if source.categorical:
        raise ValueError(
            f"Partial {estimator.method} (group=) on chunked or Dask data needs a numeric "
            "response; load the data in memory for a class response."
        )
    summaries = source.response_levels(column, ResponseSummary(max(MAX_DISTINCT, nslices + 1)))
    rules = {}
    for level, summary in summaries.items():
        if check is not None:
            check(level, int(summary.n))
        if cuts is not None:
            rules[level] = SliceRule(cuts=check_cut_points(cuts))
        else:
            rules[level] = SliceRule(
                cuts=source.level_cuts(column, level, nslices, fn, first=summary)
            )
    return rules


def single_slice_error(method: str) -> ValueError:
    return ValueError(
        f"The response has a single value, so {method} finds only one slice; it needs a "
        "response that varies."
    )


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


def rowless_extras(
    output: EstimatorOutput,
    source: Any,
    acc: Any,
    prepared: Any,
    *,
    levels: list[Any] | None = None,
    ols: bool = True,
) -> EstimatorOutput:
    """Add to ``output`` what a fit that keeps no rows needs later: the rows read (those the
    accumulator ``acc`` saw), the chunks, its whitening and slice moments (predictor and
    dimension tests), the moments of R²(OLS|dr) (``ols``), whether R's case weights vary (the
    summary's "using weights") and a class response's levels. A fit of rows in memory needs
    none of them (it recomputes what it needs from its rows)."""
    if source.keeps_rows:
        return output
    output.extras.update(
        {
            "n_rows": int(round(acc.n)),
            "n_chunks": source.n_chunks,
            "prepared": prepared,
            "ols_moments": acc.ols_moments() if ols else None,
        }
    )
    if getattr(acc, "weights_vary", False):
        output.extras["weights_vary"] = True
    if source.categorical:
        output.extras["y_levels"] = levels
    return output


__all__ = [
    "MAX_PAIR_P",
    "GroupedStatistics",
    "check_levels",
    "level_rules",
    "MomentStatistics",
    "PairMoments",
    "SliceRule",
    "check_rows",
    "cut_points",
    "eigen_map",
    "output_from_kernel",
    "pair_covariance_block",
    "pair_moments_fit",
    "pair_moments_of_rows",
    "pairs_accumulated",
    "response_spread",
    "rowless_extras",
    "single_slice_error",
    "slice_rule",
]
