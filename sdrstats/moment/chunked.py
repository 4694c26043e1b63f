"""Moment fits from chunks or Dask partitions: the family's accumulator over every chunk.

The generic driver (:mod:`sdrstats.scale.fit`) reads the chunks and reduces accumulators; what
to accumulate and how many passes is decided here. SIR, SAVE and DR take one pass over
per-slice sums (after the exact slicing passes over the response; SAVE a second pass for the
fourth moments of its general test), pHd two (the moments and OLS fit, then the kernel with
the residuals' sums, which give Li's normal-theory test) and a third for ``phdres``'s general
and independence tests (Cook 1998; :mod:`.chunked_phd`), and CUME the moments, then on Dask
two passes over the rows sorted by the response across the cluster, on chunks one pass per
range of the response (per distinct value sums, the ranges in order). IRE and partial IRE
take two passes at the default slicing (the moments, then the sums every ``Γ_ζ`` follows
from), ``steps + 3`` with fewer slices than predictors (:mod:`.chunked_ire`).

R ``dr``'s case weights (``weights="column"``) work for SIR, SAVE, DR, pHd (phdy, phdres),
CUME (:mod:`.chunked_weights`) and IRE (:mod:`.chunked_ire`) with the same passes; partial IRE
with weights is refused (as in memory), and ``phdq`` needs the data in memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg

from ..base.tables import Block
from ..base.validation import constant_response_error, is_constant, too_few_rows_error
from ..fitting.estimator import EstimatorOutput
from ..scale.results import ChunkedMixin
from ..stats.slicing import check_cut_points
from .results import MomentResults
from .statistics import MomentStatistics, SliceRule, output_from_kernel


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
    if acc is None or source is None:
        return
    found = getattr(source, "response_summary", None)
    if found is not None and estimator.options.get("cut_points") is None:
        estimator.check_nslices(n, p, found.more_values_than(estimator.nslices_for(p)))
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


def _cut_points(estimator: Any, source: Any) -> np.ndarray:
    given = estimator.options["cut_points"]
    if given is not None:
        return check_cut_points(given)
    return source.response_cuts(
        estimator.nslices_for(source.p), estimator.options["slice_function"]
    )


def _info(acc: MomentStatistics, source: Any, prepared: Any) -> dict[str, Any]:
    """Keyword arguments of :class:`ChunkedResults` besides estimator, spec, output, call."""
    stats = acc.stats.ordered(source.level_order)
    r2 = None
    if not source.categorical:
        r2 = (stats.cov, stats.response_moments()[2])
    levels = list(stats.keys) if source.categorical else None
    return {
        "n_rows": int(round(stats.n)),
        "prepared": prepared,
        "r2_moments": r2,
        "y_levels": levels,
    }


def fit_sliced(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """SIR, SAVE, DR: one pass of per-slice sums (slices by cut points or class labels)."""
    numeric = not source.categorical
    rule = SliceRule(cuts=_cut_points(estimator, source) if numeric else None, classes=not numeric)
    acc = source.reduce(MomentStatistics(estimator, source.p, rule, response=numeric))
    check_rows(estimator, acc.n, source.p, acc, source)
    if len(acc.stats.keys) < 2:
        raise ValueError(
            f"The response has a single value, so {estimator.method} finds only one slice; "
            "it needs a response that varies."
        )
    std, moments = acc.prepared(source.x_names, order=source.level_order)
    M = estimator.kernel(std, moments, None)
    output = output_from_kernel(estimator, std, moments, M, {"n_chunks": source.n_chunks})
    # the slices in the fit's order, for passes after the fit (the Poisson bootstrap)
    output.extras["slice_keys"] = acc.stats.ordered(source.level_order).keys
    output.extras["cut_points"] = rule.cuts
    if getattr(estimator, "test_needs_pair_moments", False) and source.p <= MAX_PAIR_P:
        vectors = output.extras["raw_vectors"]
        # w = Vᵀz = (x − x̄) W: whitening and the eigenvectors in one p × p map
        W = scipy.linalg.solve_triangular(std.chol, np.eye(source.p), lower=True).T @ vectors
        pairs = source.reduce(PairMoments(std.mean, W / std.scale[:, None]))
        output.extras["pair_moments"] = pairs.finish()
    return output, _info(acc, source, (std, moments))


#: Largest p for which a chunked SAVE fit accumulates the fourth moments its general test
#: needs: (p(p+1)/2)² floats, 13 MB at p = 50, 53 MB at p = 70.
MAX_PAIR_P = 70


class PairMoments:
    """Sums of ``q = (w_j w_k)_{j<=k}`` and ``q qᵀ`` over rows, ``w = (x − x̄) W``: the fourth
    moments of the whitened predictors in the eigenvector basis (SAVE's general test)."""

    def __init__(self, mean: np.ndarray, W: np.ndarray) -> None:
        self.mean, self.W = mean, W
        self.rows, self.cols = np.triu_indices(W.shape[1])
        k = self.rows.size
        self.n = 0
        self.first = np.zeros(k)
        self.second = np.zeros((k, k))

    def update(self, X: np.ndarray, y: np.ndarray) -> PairMoments:
        w = (X - self.mean) @ self.W
        q = w[:, self.rows] * w[:, self.cols]
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


def pair_covariance_block(pair_moments: dict[str, Any], m: int) -> np.ndarray:
    """``cov(vec(u uᵀ))`` for ``u`` the whitened predictors on eigenvectors ``m+1..p``, from
    :class:`PairMoments` (the in-memory test computes the same from the rows)."""
    p = pair_moments["p"]
    index = np.full((p, p), -1)
    rows, cols = np.triu_indices(p)
    index[rows, cols] = index[cols, rows] = np.arange(rows.size)
    full = index[m:, m:].reshape(-1)
    return pair_moments["cov"][np.ix_(full, full)]


def _single_pass(estimator: Any, source: Any) -> tuple[MomentStatistics, Any]:
    acc = source.reduce(
        MomentStatistics(estimator, source.p, SliceRule(single=True), response=True)
    )
    check_rows(estimator, acc.n, source.p, acc, source)
    std, _ = acc.prepared(source.x_names)
    return acc, std


def fit_cume(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """CUME: the moments, then ``Σ_k c_k C_k C_kᵀ`` over the rows sorted by the response."""
    acc, std = _single_pass(estimator, source)
    if source.can_sort:
        cross = source.sorted_scan(partition_total, partition_cume, std.mean)
    else:
        cross = _cume_by_ranges(source, std.mean)
    M = std.whiten_moments(cross / std.n**3)
    M = (M + M.T) / 2
    output = output_from_kernel(estimator, std, None, M, {"n_chunks": source.n_chunks})
    return output, _info(acc, source, (std, None))


#: Rows whose per-value sums one pass of a chunked CUME fit holds (p floats each).
CUME_BATCH_ROWS = 2**18


class ValueSums:
    """Per distinct response value in ``[low, high)``: its rows and the sum of ``x − shift``."""

    def __init__(self, low: float, high: float, shift: np.ndarray) -> None:
        self.low, self.high, self.shift = low, high, shift
        self.values = np.empty(0)
        self.counts = np.empty(0)
        self.sums = np.empty((0, shift.size))

    def _regroup(self, values: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        order = np.argsort(values, kind="stable")
        values, counts, sums = values[order], counts[order], sums[order]
        starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if values.size else []
        self.values = values[starts]
        self.counts = np.add.reduceat(counts, starts) if values.size else counts
        self.sums = np.add.reduceat(sums, starts, axis=0) if values.size else sums

    def update(self, X: np.ndarray, y: np.ndarray) -> ValueSums:
        y = np.asarray(y, dtype=float).reshape(-1)
        inside = (y >= self.low) & (y < self.high)
        self._regroup(
            np.concatenate([self.values, y[inside]]),
            np.concatenate([self.counts, np.ones(int(inside.sum()))]),
            np.vstack([self.sums, X[inside] - self.shift]),
        )
        return self

    def merge(self, other: ValueSums) -> ValueSums:
        self._regroup(
            np.concatenate([self.values, other.values]),
            np.concatenate([self.counts, other.counts]),
            np.vstack([self.sums, other.sums]),
        )
        return self


def _cume_by_ranges(source: Any, mean: np.ndarray, value_sums: Any = None) -> np.ndarray:
    """``Σ_k c_k C_k C_kᵀ`` on chunks: one pass per range of the response (each holding at
    most ``CUME_BATCH_ROWS`` rows), the ranges in increasing order carrying the running sum
    (``value_sums(low, high, mean)``: the per-value accumulator, default :class:`ValueSums`)."""
    make = ValueSums if value_sums is None else value_sums
    running = np.zeros(mean.size)
    total = np.zeros((mean.size, mean.size))
    for low, high in source.response_ranges(CUME_BATCH_ROWS):
        group = source.reduce(make(low, high, mean))
        if group.values.size == 0:
            continue
        cumulative = running + np.cumsum(group.sums, axis=0)
        total += cumulative.T @ (cumulative * group.counts[:, None])
        running = cumulative[-1]
    return total


def partition_total(part: pd.DataFrame, mean: np.ndarray) -> np.ndarray:
    """Sum of ``x − x̄`` over one partition of the rows sorted by the response."""
    return (part.to_numpy(dtype=float) - mean).sum(axis=0)


def partition_cume(part: pd.DataFrame, offset: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """``Σ_k c_k C_k C_kᵀ`` over the distinct responses of a partition of the sorted rows,
    ``C_k`` the running sum of ``x − x̄`` up to value ``k`` (``offset`` carries the earlier
    partitions), ``c_k`` the rows at value ``k``."""
    if part.shape[0] == 0:
        return np.zeros((mean.size, mean.size))
    _, codes, counts = np.unique(
        part.index.to_numpy(dtype=float), return_inverse=True, return_counts=True
    )
    grouped = np.zeros((counts.size, mean.size))
    np.add.at(grouped, codes.reshape(-1), part.to_numpy(dtype=float) - mean)
    running = offset + np.cumsum(grouped, axis=0)
    return running.T @ (running * counts[:, None])


class ChunkedResults(ChunkedMixin, MomentResults):
    """A moment fit computed from accumulated statistics; the rows are not kept.

    Everything that needs only the statistics works as for an in-memory fit (directions,
    eigenvalues, summary, ``transform(newdata)``, the asymptotic tests of SIR, SAVE and pHd,
    pickling); SIR, SAVE and DR's ``bootstrap()`` is a Poisson bootstrap in one more pass over
    the data (:mod:`.chunked_bootstrap`); what needs the rows (``transform()`` of the training
    rows, permutation tests) raises an error saying to load the data in memory.

    Parameters
    ----------
    estimator, spec, output, call : Estimator, ModelSpec, EstimatorOutput, str
        As :class:`sdrstats.Results`; a formula function given chunked data builds it.
    n_rows : int
        Rows used.
    prepared, r2_moments : optional
        Accumulated statistics the predictor tests and the summary's R² need.

    See Also
    --------
    sdrstats.read_csv_chunks, sdrstats.chunks_from : Chunked sources.
    sdrstats.moment.results.MomentResults : The same fit in memory.

    References
    ----------
    :cite:t:`weisberg2002`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8)
    >>> type(fit).__name__, fit.n
    ('ChunkedResults', 202)
    """

    def _dimension_rules(self) -> dict[str, Any]:
        rules = super()._dimension_rules()  # the eigenvalue ratio
        extras = self.output.extras
        if getattr(self.estimator, "asymptotic_test_from_statistics", False) or (
            "pair_moments" in extras or "phd_moments" in extras
        ):
            rules["asymptotic"] = lambda **kw: self.estimator.asymptotic_test(self, **kw)
        return rules

    def _prepared(self) -> Any:
        return self._chunk_prepared

    def _summary_blocks(self) -> list[Block]:
        k = self._numdir()
        blocks = [Block("Call", text=self.call), Block("Method", text=self._method_line())]
        if self.slice_sizes is not None:
            blocks.append(Block("Slice Sizes", text=" ".join(map(str, self.slice_sizes)) + " "))
        blocks.append(
            Block("Estimated Basis Vectors for Central Subspace", table=self.directions_for(k))
        )
        blocks.append(Block("", table=self._eigen_table(k)))
        if "asymptotic" in self._dimension_rules():
            test = self.test_dimension("asymptotic")
            blocks.append(Block(test.title, table=test.display_table()))
        return blocks


__all__ = [
    "ChunkedResults",
    "fit_sliced",
    "fit_cume",
    "check_rows",
    "partition_total",
    "partition_cume",
]
