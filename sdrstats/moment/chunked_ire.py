"""IRE and partial IRE from chunks or Dask partitions, equal to the in-memory fit.

IRE (Cook & Ni 2005) needs, besides the slice moments, the covariance ``Γ_ζ`` of the
per-row vectors ``g_i = vec(z_i a_iᵀ)`` with ``a_i = Aᵀ(e_{s(i)} − f − diag(f) ξ̃ᵀ z_i)``
(``A`` the orthonormal contrasts, ``ξ̃`` the slice means, zero, or projected on a fitted span).
``g_i`` depends on the first pass's whitening, slice fractions and ``ξ``, so ``Γ_ζ`` takes
a second pass. It is accumulated through its structure rather than as ``Σ g_i g_iᵀ``:
with ``c_s = Aᵀ(e_s − f)`` and ``ξ̃ = M Mᵀ ξ̃`` for an orthonormal ``M`` (p × k),
``a_i = c_{s(i)} − E w_i`` with ``w_i = Mᵀ z_i`` and ``E = ζᵀ M`` (ζ = ξ diag(f) A), so

.. math:: Σ_i a_i a_iᵀ ⊗ z_i z_iᵀ = Σ_s c_s c_sᵀ ⊗ S_s − (\\text{cross terms in } R_s)
          + (E ⊗ I) Q (E ⊗ I)ᵀ

needs per slice ``S_s = Σ z zᵀ`` and ``R_s = Σ w ⊗ z zᵀ`` and over all rows
``Q = Σ (w ⊗ z)(w ⊗ z)ᵀ`` (:class:`GammaSums`; mergeable, so chunks and Dask partitions add
them up). Every ``Γ_ζ`` the fit uses is then a closed form of those sums.

Passes over the rows (besides the exact-slicing passes over the response alone, which SIR's
chunked fit also takes): when the slices are at least as many as the predictors (``h >= p``;
R ``dr``'s default ``h = max(8, p + 3)`` is), the second pass keeps the sums with ``M = I``,
the full third and fourth moments, from which *every* ``Γ_ζ`` of every dimension and
re-estimation step follows: **2 passes** in all, whatever ``d_max`` and ``steps``. With fewer
slices than predictors the sums are kept only along the spans each round needs (the columns
of ζ, then the fitted bases of all ``d`` at once), which is cheaper per pass: the moments,
the first ``Γ_ζ`` (and the independence one), one pass per re-estimation round for all
``d = 1..d_max`` together, and one for the final ``Γ_ζ`` at the reported span:
**steps + 3 passes**. Each fit records its count in ``row_passes`` (and the response passes
in ``slicing_passes``).

Memory per worker: ``O(h p³ + p⁴)`` floats with ``M = I`` (p = 50, h = 53: about 100 MB),
``O(Σ_d (h d p² + d² p²))`` otherwise; past ``sdr.set_config(max_memory=...)`` the fit is
refused before the sums are allocated.

R ``dr``'s case weights (``weights="column"``) take the same passes: the first is the
weighted moments pass of SIR (R's whitening of ``√w x``, weighted slice means), and the
``Γ_ζ`` passes see the rows ``√(c w) x`` of weight above ``1e-30`` (:class:`WeightedRows`),
with the slice counts as fractions, as R's ``ire``. Partial IRE with weights is refused, as in
memory.

Partial IRE (Wen & Cook 2007) whitens each group on its own rows by the Householder QR that
R uses; its factor's signs depend on the first rows of the data, so the first pass also keeps
the first p rows of every group (and of all rows) and rebuilds exactly the same factors from
them and the accumulated cross-products. Each group is sliced exactly on its own response
(passes over the response and the group column only).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.budget import check_memory, size_text
from ..design.weights import ZERO_WEIGHT
from ..fitting.estimator import EstimatorOutput
from ..stats.exact_slicing import MAX_DISTINCT, ResponseSummary
from ..stats.linalg import sym_eigh_desc
from ._core import standardize_moments
from ._ire_als import covariance_factor, helmert_basis
from .chunked import _cut_points, _info, check_rows
from .chunked_weights import CaseWeightedStatistics, weighted_info
from .pire import solve_partial
from .statistics import MomentStatistics, SliceRule

#: Floats of the per-block temporary ``w ⊗ z`` (rows × k p) an update forms at most (32 MB).
BLOCK_FLOATS = 2**22


class GammaSums:
    """Mergeable sums from which ``Γ_ζ`` follows for slice means projected on given spans.

    Parameters
    ----------
    rule : SliceRule
        How rows fall into slices (the first pass's).
    keys : list
        The slices' keys in the fit's order.
    shift, W : ndarray
        The whitening ``z = (x − shift) W`` of the first pass.
    bases : list of ndarray
        Orthonormal ``M`` (p × k, ``k`` may be 0): one set of sums per basis.

    Examples
    --------
    >>> import numpy as np
    >>> from sdrstats.moment.statistics import SliceRule
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.standard_normal((50, 2)), rng.standard_normal(50)
    >>> sums = GammaSums(SliceRule(cuts=np.array([0.0])), [0, 1], np.zeros(2), np.eye(2),
    ...                  [np.eye(2)]).update(X, y)
    >>> sums.fourth[0].shape, sums.third[0].shape
    ((4, 4), (2, 4, 2))
    """

    def __init__(
        self,
        rule: SliceRule,
        keys: list[Any],
        shift: np.ndarray,
        W: np.ndarray,
        bases: list[np.ndarray],
    ) -> None:
        p, h = W.shape[1], len(keys)
        self.rule, self.keys = rule, list(keys)
        self.shift, self.W, self.bases = shift, W, bases
        self.n = 0
        self.s1 = np.zeros((h, p))
        self.s2 = np.zeros((h, p, p))
        self.third = [np.zeros((h, M.shape[1] * p, p)) for M in bases]
        self.fourth = [np.zeros((M.shape[1] * p, M.shape[1] * p)) for M in bases]

    def _codes(self, y: np.ndarray) -> np.ndarray:
        keys = np.asarray(self.rule.keys(y)).reshape(-1)
        codes = pd.Index(self.keys).get_indexer(keys)
        if np.any(codes < 0):
            raise ValueError(
                f"A row falls in slice {keys[codes < 0][0]!r} that the first pass did not see: "
                "the data changed between the passes of the fit; fit again on unchanging data."
            )
        return codes.astype(np.int64)

    def update(self, X: np.ndarray, y: np.ndarray) -> GammaSums:
        """Add rows ``X`` with response ``y``."""
        codes = self._codes(y)
        order = np.argsort(codes, kind="stable")
        z = (X[order] - self.shift) @ self.W
        codes = codes[order]
        bounds = np.searchsorted(codes, np.arange(len(self.keys) + 1))
        p = z.shape[1]
        self.n += z.shape[0]
        for s in range(len(self.keys)):
            block = z[bounds[s] : bounds[s + 1]]
            if block.shape[0]:
                self.s1[s] += block.sum(axis=0)
                self.s2[s] += block.T @ block
        for j, M in enumerate(self.bases):
            k = M.shape[1]
            if k == 0:
                continue
            step = max(1, BLOCK_FLOATS // (k * p))
            for start in range(0, z.shape[0], step):
                zb = z[start : start + step]
                wz = ((zb @ M)[:, :, None] * zb[:, None, :]).reshape(zb.shape[0], k * p)
                self.fourth[j] += wz.T @ wz
                # the rows are in slice order: each slice's rows of the block are a range
                edges = np.clip(bounds - start, 0, zb.shape[0])
                for s in range(len(self.keys)):
                    lo, hi = edges[s], edges[s + 1]
                    if hi > lo:
                        self.third[j][s] += wz[lo:hi].T @ zb[lo:hi]
        return self

    def merge(self, other: GammaSums) -> GammaSums:
        """Add the sums of other rows."""
        self.n += other.n
        self.s1 += other.s1
        self.s2 += other.s2
        for j in range(len(self.bases)):
            self.third[j] += other.third[j]
            self.fourth[j] += other.fourth[j]
        return self

    def covariance(self, j: int, E: np.ndarray, C: np.ndarray) -> np.ndarray:
        """``Γ_ζ`` (divisor n) for basis ``j`` with ``E = ζᵀ M_j`` and rows ``c_s`` of ``C``."""
        h, p = self.s1.shape
        h1, k = C.shape[1], E.shape[1]
        total = np.einsum("sa,sb,sjl->ajbl", C, C, self.s2, optimize=True)
        mean = C.T @ self.s1
        if k:
            third = self.third[j].reshape(h, k, p, p)
            cross = np.einsum("sa,bk,skjl->ajbl", C, E, third, optimize=True)
            fourth = self.fourth[j].reshape(k, p, k, p)
            total = total - cross - cross.transpose(2, 3, 0, 1)
            total = total + np.einsum("ak,bm,kjml->ajbl", E, E, fourth, optimize=True)
            mean = mean - E @ (self.bases[j].T @ self.s2.sum(axis=0))
        size = h1 * p
        mean = mean.reshape(-1) / self.n
        return total.reshape(size, size) / self.n - np.outer(mean, mean)


class GroupedGammaSums:
    """One :class:`GammaSums` per level of a column (``update_groups``), for partial IRE."""

    def __init__(self, parts: dict[Any, GammaSums]) -> None:
        self.parts = parts

    def update_groups(self, X: np.ndarray, y: np.ndarray, values: np.ndarray) -> GroupedGammaSums:
        _check_levels(values, self.parts)
        for level, part in self.parts.items():
            rows = values == level
            if rows.any():
                part.update(X[rows], y[rows])
        return self

    def merge(self, other: GroupedGammaSums) -> GroupedGammaSums:
        for level, part in self.parts.items():
            part.merge(other.parts[level])
        return self


def _check_levels(values: np.ndarray, known: dict[Any, Any]) -> None:
    new = set(values.tolist()) - set(known)
    if new:
        raise ValueError(
            f"Level(s) {sorted(map(str, new))[:5]} of the group column appeared after the first "
            "pass: the data changed between the passes of the fit; fit again on unchanging data."
        )


class _Group:
    """What ``Γ_ζ`` needs of one group (all rows for IRE): whitening, slices, ζ."""

    def __init__(
        self,
        rule: SliceRule,
        keys: list[Any],
        shift: np.ndarray,
        W: np.ndarray,
        xi: np.ndarray,
        f: np.ndarray,
        scale: float = 1.0,
    ) -> None:
        self.rule, self.keys, self.shift, self.W = rule, keys, shift, W
        self.h = xi.shape[1]
        contrasts = helmert_basis(self.h)
        self.zeta = (xi * f) @ contrasts
        self.C = contrasts - f @ contrasts  # rows c_s = Aᵀ(e_s − f)
        self.scale = scale

    def full_e(self, request: Any) -> np.ndarray:
        """``E`` with ``M = I``: ``ζᵀ`` times the projection of the request."""
        if isinstance(request, str):
            return np.zeros((self.h - 1, self.zeta.shape[0]))
        if request is None:
            return self.zeta.T
        q = np.linalg.qr(request)[0]
        return (self.zeta.T @ q) @ q.T

    def basis(self, request: Any) -> tuple[np.ndarray, np.ndarray]:
        """The span ``M`` a request's slice means lie in, and ``E = ζᵀ M``."""
        p = self.zeta.shape[0]
        if isinstance(request, str):
            M = np.zeros((p, 0))
        elif request is None:
            M = np.linalg.qr(self.zeta)[0]  # ξ̃ = ξ: ζ's columns (at most h − 1)
        else:
            M = np.linalg.qr(request)[0]
        return M, self.zeta.T @ M

    def sums(self, bases: list[np.ndarray]) -> GammaSums:
        return GammaSums(self.rule, self.keys, self.shift, self.W, bases)

    def factor(self, sums: GammaSums, j: int, E: np.ndarray) -> np.ndarray:
        p = self.zeta.shape[0]
        return covariance_factor(sums.covariance(j, E, self.C), sums.n, p) / self.scale


class _RoundGammas:
    """``gammas(requests)`` of :func:`._ire_als.solve_rounds` from passes over the chunks.

    Full sums (``M = I``, when every group has at least p slices) in one pass on the first
    call, then no more passes; else one pass per call with the requested spans.
    """

    def __init__(
        self,
        source: Any,
        groups: dict[Any, _Group],
        column: str | None,
        rescale: float | None = None,
    ) -> None:
        self.source, self.groups, self.column = source, groups, column
        self.rescale = rescale  # R case weights' c: the passes see the rows √(c w) x
        self.full = all(g.h >= source.p for g in groups.values())
        self._full_sums: dict[Any, GammaSums] | None = None

    def _pass(self, bases: dict[Any, list[np.ndarray]]) -> dict[Any, GammaSums]:
        self._check_memory(bases)
        parts = {level: g.sums(bases[level]) for level, g in self.groups.items()}
        if self.column is None:
            ((level, part),) = parts.items()
            if self.rescale is not None:
                return {level: self.source.reduce(WeightedRows(part, self.rescale)).inner}
            return {level: self.source.reduce(part)}
        return self.source.reduce(GroupedGammaSums(parts), column=self.column).parts

    def _check_memory(self, bases: dict[Any, list[np.ndarray]]) -> None:
        """Refuse, before allocating, sums that would not fit (:func:`check_memory`)."""
        p = self.source.p
        floats = 0
        for level, g in self.groups.items():
            for M in bases[level]:
                width = M.shape[1] * p
                floats += g.h * (width * p + p * p + p) + width * width
        # a pass holds the running total, one chunk's (or partition's) sums and the merge
        nbytes = 3 * 8 * floats + 8 * BLOCK_FLOATS
        slices = max(g.h for g in self.groups.values())
        check_memory(
            "ire",
            nbytes,
            f"the sums its Γ_ζ covariances need at p = {p} with up to {slices} slices "
            f"({size_text(nbytes / 3)} per copy, O(h·p³ + p⁴) floats at h >= p)",
            "use fewer slices (nslices below p takes more passes but O(h·p²·d) floats)",
        )

    def __call__(self, requests: list[Any]) -> list[list[np.ndarray]]:
        if self.full:
            if self._full_sums is None:
                eye = np.eye(self.source.p)
                self._full_sums = self._pass({level: [eye] for level in self.groups})
            sums = self._full_sums
            return [
                [g.factor(sums[level], 0, g.full_e(r)) for level, g in self.groups.items()]
                for r in requests
            ]
        spans = {level: [g.basis(r) for r in requests] for level, g in self.groups.items()}
        sums = self._pass({level: [M for M, _ in s] for level, s in spans.items()})
        return [
            [g.factor(sums[level], i, spans[level][i][1]) for level, g in self.groups.items()]
            for i in range(len(requests))
        ]


def check_ire(estimator: Any, p: int) -> None:
    """IRE's checks of ``p`` and ``d`` (as in memory)."""
    if p < 2:
        raise ValueError("ire needs at least two predictors (it fits dimensions below p).")
    d = estimator.options["d"]
    if d is not None and d > p - 1:
        raise ValueError(f"The 'd' option of ire must be at most p - 1 = {p - 1}; got {d}.")
    estimator.check_budget(None, p)


class WeightedRows:
    """An accumulator fed R's weighted rows ``√(c w) x`` of the rows with weight above
    ``1e-30`` (``c`` rescales the weights to sum to the complete rows): R ``dr``'s ``Z`` of a
    case-weighted fit is the whitened ``√w x``, and IRE's ``Γ_ζ`` is then the plain covariance
    over those rows."""

    def __init__(self, inner: Any, rescale: float) -> None:
        self.inner, self.c = inner, rescale

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> WeightedRows:
        keep = w > ZERO_WEIGHT
        if keep.any():
            self.inner.update(X[keep] * np.sqrt(self.c * w[keep])[:, None], y[keep])
        return self

    def merge(self, other: WeightedRows) -> WeightedRows:
        self.inner.merge(other.inner)
        return self


def fit_ire_weighted(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """IRE with R ``dr``'s case weights: the weighted moments pass (R's whitening of ``√w x``,
    weighted slice means), then the ``Γ_ζ`` passes over the weighted rows; the slice fractions
    are the counts, as R's ``ire`` takes them."""
    p = source.p
    check_ire(estimator, p)
    numeric = not source.categorical
    rule = SliceRule(cuts=_cut_points(estimator, source) if numeric else None, classes=not numeric)
    acc = source.reduce(CaseWeightedStatistics(p, rule, response=numeric, column=source.weights))
    c = acc.rescale  # raises when every weight is zero
    check_rows(estimator, acc.n, p, acc, source)
    if len(acc.slices.keys) < 2:
        raise ValueError(
            "The response has a single value, so ire finds only one slice; it needs a "
            "response that varies."
        )
    std = acc.standardized(source.x_names)
    moments = acc.slice_moments(std, source.level_order)
    keys = acc.slices.ordered(source.level_order).keys
    W = np.linalg.inv(std.chol).T / std.scale[:, None]
    sizes = moments.slices.sizes
    f = sizes / sizes.sum()
    group = _Group(rule, keys, std.mean, W, moments.means.T, f)
    gammas = _RoundGammas(source, {None: group}, None, rescale=c)
    output = estimator.solve(std, moments, f, lambda r: [g[0] for g in gammas(r)])
    output.extras["n_chunks"] = source.n_chunks
    info = weighted_info(acc, source, (std, moments), output)
    info["results_class"] = estimator.chunked_results_class
    output.extras["weighted_ols"] = None  # IRE prints no R² row
    return output, info


def fit_ire(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """IRE (or partial IRE with the ``group`` option) from chunked data (see module doc)."""
    weighted = getattr(source, "weights", None) is not None
    if estimator.options["group"] is not None:
        if weighted:
            raise ValueError(
                "Partial IRE (group=) with case weights is not available; R dr itself fails "
                "on it when a weight is zero. Drop weights= or group=."
            )
        return fit_partial_ire(estimator, source)
    if weighted:
        return fit_ire_weighted(estimator, source)
    p = source.p
    check_ire(estimator, p)
    numeric = not source.categorical
    rule = SliceRule(cuts=_cut_points(estimator, source) if numeric else None, classes=not numeric)
    acc = source.reduce(MomentStatistics(estimator, p, rule, response=numeric))
    check_rows(estimator, acc.n, p, acc, source)
    if len(acc.stats.keys) < 2:
        raise ValueError(
            "The response has a single value, so ire finds only one slice; it needs a "
            "response that varies."
        )
    std, moments = acc.prepared(source.x_names, order=source.level_order)
    keys = acc.stats.ordered(source.level_order).keys
    W = np.linalg.inv(std.chol).T / std.scale[:, None]  # z = (x − x̄) W, as in memory
    f = moments.fractions
    group = _Group(rule, keys, std.mean, W, moments.means.T, f)
    gammas = _RoundGammas(source, {None: group}, None)
    output = estimator.solve(std, moments, f, lambda r: [g[0] for g in gammas(r)])
    output.extras["n_chunks"] = source.n_chunks
    return output, _info(acc, source, (std, moments))


def _householder_r(first: np.ndarray, gram: np.ndarray) -> np.ndarray:
    """R of the Householder QR (numpy's LAPACK, R's signs) of rows whose first rows are
    ``first`` (up to p of them) and whose cross-product is ``gram``.

    The signs of Householder QR's R depend only on the first p rows and the cross-product, so
    those rows stacked on any square root of the rest of the cross-product have the same R.
    """
    rest = gram - first.T @ first
    values, vectors = np.linalg.eigh((rest + rest.T) / 2)
    root = np.sqrt(np.clip(values, 0, None))[:, None] * vectors.T
    return np.linalg.qr(np.vstack([first, root]))[1]


class PartialMoments:
    """Partial IRE's first pass: pooled and per-group slice statistics and first rows."""

    def __init__(
        self, estimator: Any, p: int, pooled: SliceRule, rules: dict[Any, SliceRule]
    ) -> None:
        self.p = p
        self.pooled = MomentStatistics(estimator, p, pooled, response=True)
        self.groups = {lv: MomentStatistics(estimator, p, rule) for lv, rule in rules.items()}
        self.first = np.zeros((0, p))
        self.first_by = {lv: np.zeros((0, p)) for lv in rules}

    def update_groups(self, X: np.ndarray, y: np.ndarray, values: np.ndarray) -> PartialMoments:
        _check_levels(values, self.groups)
        self.pooled.update(X, y)
        self.first = np.vstack([self.first, X[: self.p]])[: self.p]
        for level, acc in self.groups.items():
            rows = values == level
            if rows.any():
                acc.update(X[rows], y[rows])
                self.first_by[level] = np.vstack([self.first_by[level], X[rows][: self.p]])[
                    : self.p
                ]
        return self

    def merge(self, other: PartialMoments) -> PartialMoments:
        """Add the statistics of later rows (the first rows keep the data's order)."""
        self.pooled.merge(other.pooled)
        self.first = np.vstack([self.first, other.first])[: self.p]
        for level, acc in self.groups.items():
            acc.merge(other.groups[level])
            self.first_by[level] = np.vstack([self.first_by[level], other.first_by[level]])[
                : self.p
            ]
        return self


def fit_partial_ire(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """Partial IRE from chunked data: exact per-group slices, the in-memory whitening."""
    o = estimator.options
    column, p = o["group"], source.p
    check_ire(estimator, p)
    if source.categorical:
        raise ValueError(
            "Partial IRE (group=) on chunked or Dask data needs a numeric response; load the "
            "data in memory for a class response."
        )
    h, fn = o["nslices"] or p, o["slice_function"]  # R's partial IRE default is p slices
    pooled_rule = SliceRule(cuts=source.response_cuts(h, fn))
    summaries = source.response_levels(column, ResponseSummary(max(MAX_DISTINCT, h + 1)))
    for level, summary in summaries.items():
        if summary.n < p:
            raise ValueError(
                f"Group {level!r} of {column!r} has {summary.n} rows; partial IRE needs at "
                f"least p = {p} rows in every group. Merge small groups or drop predictors."
            )
    rules = {
        level: SliceRule(cuts=source.level_cuts(column, level, h, fn, first=summary))
        for level, summary in summaries.items()
    }
    acc = source.reduce(PartialMoments(estimator, p, pooled_rule, rules), column=column)
    n, mean, cov = acc.pooled.stats.moments()
    check_rows(estimator, n, p, acc.pooled, source)
    std = standardize_moments(n, mean, cov, source.x_names)  # constant/collinear: named
    Rp = _householder_r(acc.first - mean, n * cov)
    inv_p = np.linalg.inv(Rp)

    def whitening(first: np.ndarray, shift: np.ndarray, gram: np.ndarray, rows: float) -> Any:
        """``T`` with ``√rows Q = (x − shift) T`` for the rows of ``Zp = √n (x − x̄) Rp⁻¹``."""
        zp_first = np.sqrt(n) * (first - shift) @ inv_p
        zp_gram = n * inv_p.T @ gram @ inv_p
        return np.sqrt(n * rows) * inv_p @ np.linalg.inv(_householder_r(zp_first, zp_gram))

    groups, seen = {}, []
    for level, part in acc.groups.items():
        stats = part.stats.ordered()
        n_g, mean_g, cov_g = stats.moments()
        T = whitening(acc.first_by[level], mean_g, n_g * cov_g, n_g)
        xi = T.T @ (stats.sums / stats.counts[:, None]).T
        sizes = np.rint(stats.counts).astype(np.int64)
        f = stats.counts / stats.counts.sum()
        groups[level] = _Group(rules[level], stats.keys, mean_g, T, xi, f, np.sqrt(n_g / n))
        seen.append((int(round(n_g)), sizes, groups[level].zeta))
    pooled = acc.pooled.stats.ordered()
    Ts = whitening(acc.first, mean, n * cov, n)
    means = Ts.T @ (pooled.sums / pooled.counts[:, None]).T
    sir_vectors = sym_eigh_desc((means * (pooled.counts / n)) @ means.T)[1]
    gammas = _RoundGammas(source, groups, column)
    output = solve_partial(
        estimator, list(groups), seen, sir_vectors, Rp, mean, int(round(n)), gammas
    )
    output.extras["n_chunks"] = source.n_chunks
    return output, _info(acc.pooled, source, (std, None))


__all__ = ["GammaSums", "GroupedGammaSums", "PartialMoments", "check_ire", "fit_ire"]
