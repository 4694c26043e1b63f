"""IRE's and partial IRE's passes over the rows: the slice moments, then the ``Γ_ζ`` sums.

IRE (Cook & Ni 2005) needs, besides the slice moments, the covariance ``Γ_ζ`` of the
per-row vectors ``g_i = vec(z_i a_iᵀ)`` with ``a_i = Aᵀ(e_{s(i)} − f − diag(f) ξ̃ᵀ z_i)``
(``A`` the orthonormal contrasts, ``ξ̃`` the slice means, zero, or projected on a fitted span).
``g_i`` depends on the first pass's whitening, slice fractions and ``ξ``, so ``Γ_ζ`` takes
a second pass. It is accumulated through its structure rather than as ``Σ g_i g_iᵀ``:
with ``c_s = Aᵀ(e_s − f)`` and ``ξ̃ = M Mᵀ ξ̃`` for an orthonormal ``M`` (p × k),
``a_i = c_{s(i)} − E w_i`` with ``w_i = Mᵀ z_i`` and ``E = ζᵀ M`` (ζ = ξ diag(f) A), so

.. math:: Σ_i a_i a_iᵀ ⊗ z_i z_iᵀ = Σ_s c_s c_sᵀ ⊗ S_s − (\text{cross terms in } R_s)
          + (E ⊗ I) Q (E ⊗ I)ᵀ

needs per slice ``S_s = Σ z zᵀ`` (second moments) and ``R_s = Σ w ⊗ z zᵀ`` and over all rows
``Q = Σ (w ⊗ z)(w ⊗ z)ᵀ`` (:class:`GammaSums`; mergeable). Both are kept through their
symmetric pairs (``w_a w_b`` with ``a ≤ b``, ``z_j z_l`` with ``j ≤ l``): one matrix product
of the rows' pair products per block of rows. Every ``Γ_ζ`` the fit uses is then a closed
form of those sums.

The same passes run over the rows in memory (one chunk) and over chunks or Dask partitions.
When the slices are at least as many as the predictors (``h >= p``; R ``dr``'s default ``h =
max(8, p + 3)`` is), the second pass keeps the sums with ``M = I``, the full third and fourth
moments, from which *every* ``Γ_ζ`` of every dimension and re-estimation step follows:
**2 passes** in all, whatever ``d_max`` and ``steps``. With fewer slices than predictors the
sums are kept only along the spans each round needs (the columns of ζ, then the fitted bases
of all ``d`` at once), which is cheaper per pass: the moments, the first ``Γ_ζ`` (and the
independence one), one pass per re-estimation round for all ``d = 1..d_max`` together, and
one for the final ``Γ_ζ`` at the reported span: **steps + 3 passes**. A fit on chunks records
its count in ``row_passes`` (and the response passes in ``slicing_passes``).

The work is that of fourth moments: ``n p⁴/24`` products with ``M = I`` (each sorted
quadruple ``a ≤ b ≤ c ≤ d`` once, by one matrix product per ``b``), ``O(n k² p²)`` along a
span of ``k`` columns; memory per worker ``O(h p³ + p⁴/24)`` floats with ``M = I`` (p = 50,
h = 53: about 30 MB), ``O(Σ_d (h d p² + d² p²))`` otherwise; past ``sdr.set_config(max_memory=...)``
the fit is refused before the sums are allocated.

R ``dr``'s case weights take the same passes: the first is the weighted moments pass of SIR
(R's whitening of ``√w x``, weighted slice means), and the ``Γ_ζ`` passes see the rows ``√(c
w) x`` of weight above ``1e-30`` (:class:`WeightedRows`), with the slice counts as fractions, as
R's ``ire``. Partial IRE with weights is refused.

Partial IRE (Wen & Cook 2007) whitens each group on its own rows by the Householder QR that
R uses; its factor's signs depend on the first rows of the data, so the first pass also keeps
the first p rows of every group (and of all rows) and rebuilds exactly the same factors from
them and the accumulated cross-products. Each group is sliced on its own response (exactly,
on chunks, by passes over the response and the group column only).
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg.blas
from threadpoolctl import threadpool_limits

from ..base.budget import check_memory, keeps_recomputable, size_text
from ..design.weights import ZERO_WEIGHT
from ..fitting.estimator import EstimatorOutput
from ..stats.linalg import sym_eigh_desc
from ..stats.slicing import make_slices
from ._core import standardize_moments
from ._ire_als import IndependenceNorm, covariance_factor, helmert_basis, independence_form
from .pire import solve_partial
from .sliced import prepared_statistics, sliced_statistics
from .statistics import (
    MomentStatistics,
    SliceRule,
    check_levels,
    check_rows,
    level_rules,
    rowless_extras,
)
from .weights import CaseWeightedStatistics

#: Floats of the per-block temporaries of :class:`GammaSums` (the rows' pair products): 8 MB,
#: so that a block's pair products are still in cache when the products read them (at
#: nslices=10, n = 1e5, p = 50 a fit took 1.5 s CPU with 8 MB blocks, 1.9 s with 32 MB and
#: 1.7 s with 2 MB).
BLOCK_FLOATS = 2**20
#: BLAS threads of the Γ_ζ work (passes, covariances, factorisations, ALS). Its products are
#: of a few thousand rows at most, its factorisations of p(h−1) ≤ a few thousand: on two
#: cores that other jobs share, two threads made a fit at n = 1e5, p = 50 11-18 times slower
#: than one (204 s against 18 s at 54 slices), where on idle cores they save at most the
#: factorisations' half.
GAMMA_THREADS = 1


def _pairs(p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index pairs ``j <= l`` of ``p`` columns and the p × p map to their position."""
    rows, cols = np.triu_indices(p)
    where = np.zeros((p, p), dtype=np.int64)
    where[rows, cols] = where[cols, rows] = np.arange(rows.size)
    return rows, cols, where


def _pair_products(zt: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The products ``z_j z_l`` (``j ≤ l``, in ``numpy.triu_indices`` order) of the columns of
    ``zt`` (p × rows) into ``out`` (pairs × rows): one broadcast product per ``j``."""
    p = zt.shape[0]
    start = 0
    for j in range(p):
        np.multiply(zt[j], zt[j:], out=out[start : start + p - j])
        start += p - j
    return out


@functools.lru_cache(maxsize=1)
def _symmetric_layout(p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where the fourth moments ``Σ z_a z_b z_c z_d`` (``a ≤ b ≤ c ≤ d``) are kept.

    Block ``b`` holds, for rows ``a ≤ b`` and the pairs ``(c, d)`` with ``b ≤ c ≤ d`` (the tail
    of the pairs in ``numpy.triu_indices`` order, from ``start[b]``), the products
    ``(z_a z_b)(z_c z_d)``: every sorted quadruple once, about ``p⁴/24`` numbers where the
    pairs' cross-product has ``p⁴/8``. Returns ``start``, the blocks' ``offset`` in the flat
    store (``p + 1`` entries), and the flat position of every (pair, pair) entry.

    The positions are the large part (``(p(p+1)/2)²`` of them, 32-bit where they fit: 6 MiB
    at p = 50, 24 MiB at p = 70); one fit's reads share them, and only the last ``p``'s
    layout stays cached in the process (computing it costs about 1% of an IRE fit).
    """
    n_pairs = p * (p + 1) // 2
    start = np.concatenate([[0], np.cumsum(np.arange(p, 0, -1))])[:p]
    width = n_pairs - start
    offset = np.concatenate([[0], np.cumsum(np.arange(1, p + 1) * width)])
    rows, cols, where = _pairs(p)
    a, b = rows[:, None], cols[:, None]
    c, d = rows[None, :], cols[None, :]
    m1, m2 = np.maximum(a, c), np.minimum(b, d)
    s0, s3 = np.minimum(a, c), np.maximum(b, d)
    s1, s2 = np.minimum(m1, m2), np.maximum(m1, m2)
    flat = offset[s1] + s0 * width[s1] + where[s2, s3] - start[s1]
    if offset[-1] < np.iinfo(np.int32).max:
        flat = flat.astype(np.int32)
    return start, width, offset, flat


#: Rows ``z_a z_b`` that :meth:`GammaSums._add_symmetric` gathers into one product, at least.
SYMMETRIC_ROWS = 64


@functools.lru_cache(maxsize=4)
def _symmetric_chunks(p: int) -> list[tuple[int, int]]:
    """Consecutive ranges ``[b0, b1)`` of ``b`` whose rows ``z_a z_b`` (``a ≤ b``) number at
    least :data:`SYMMETRIC_ROWS`: each range is one matrix product with the pairs from
    ``(b0, b0)`` on. The pairs between ``(b0, b0)`` and ``(b, b)`` are computed and dropped:
    at p = 50 about 14% more products, in products large enough to run near the BLAS peak
    (1.7 times faster than one product per ``b`` at n = 1e5)."""
    chunks, b0 = [], 0
    while b0 < p:
        b1, rows = b0, 0
        while b1 < p and rows < SYMMETRIC_ROWS:
            rows, b1 = rows + b1 + 1, b1 + 1
        chunks.append((b0, b1))
        b0 = b1
    return chunks


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

    Notes
    -----
    Per slice ``s1 = Σ z``, ``s2 = Σ z zᵀ``; per basis ``third[s] = Σ_{i∈s} w vᵀ`` and
    ``fourth = Σ u vᵀ`` with ``w = Mᵀ z``, ``v`` the pair products ``z_j z_l`` (``j ≤ l``) and
    ``u`` those of ``w``. Frequency weights (``update(X, y, w)``) weigh every sum. The bases'
    ``w`` (and ``u``) are stacked, one set of rows per basis (the identity's shared), so each
    block of rows costs one matrix product per slice and one for all fourth moments.

    Examples
    --------
    >>> import numpy as np
    >>> from sdrstats.moment.statistics import SliceRule
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.standard_normal((50, 2)), rng.standard_normal(50)
    >>> sums = GammaSums(SliceRule(cuts=np.array([0.0])), [0, 1], np.zeros(2), np.eye(2),
    ...                  [np.eye(2)]).update(X, y)
    >>> sums.fourth_moments(0).shape, sums.third_moments(0).shape
    ((2, 2, 2, 2), (2, 2, 2, 2))
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
        self.n = 0.0
        self.s1 = np.zeros((h, p))
        self.s2 = np.zeros((h, p, p))
        # every basis's w (and pairs of w) are rows of one stacked array, so that a block of
        # rows costs one matrix product per slice and one in all, whatever the bases
        identity = [M.shape == (p, p) and bool(np.allclose(M, np.eye(p))) for M in bases]
        self.identity = identity
        self.full = any(identity)
        ks = [M.shape[1] for M in bases]
        self.projected = [j for j, k in enumerate(ks) if k and not identity[j]]
        row, pair = (p if self.full else 0), 0
        self.rows, self.pair_rows = [], []
        for j, k in enumerate(ks):
            if identity[j] or not k:
                self.rows.append(slice(0, k))
                self.pair_rows.append(slice(0, k * (k + 1) // 2))
            else:
                self.rows.append(slice(row, row + k))
                self.pair_rows.append(slice(pair, pair + k * (k + 1) // 2))
                row, pair = row + k, pair + k * (k + 1) // 2
        n_pairs = p * (p + 1) // 2
        self.third = np.zeros((h, row, n_pairs))
        self.fourth = np.zeros((pair, n_pairs))  # the projected bases'
        # M = I: the fully symmetric fourth moments (see _symmetric_layout)
        self.fourth_full = np.zeros(int(_symmetric_layout(p)[2][-1]) if self.full else 0)
        self._full_paired: np.ndarray | None = None  # the spread fourth_full, once summed
        self._projected_pairs, at = [], 0  # rows of the stacked w: each basis's pairs
        for j in self.projected:
            a, b = np.triu_indices(ks[j])
            self._projected_pairs.append((at + a, at + b))
            at += ks[j]
        self._slice_term: tuple[np.ndarray, np.ndarray] | None = None  # covariance's first

    def _codes(self, y: np.ndarray) -> np.ndarray:
        keys = np.asarray(self.rule.keys(y)).reshape(-1)
        if self.rule.slices is not None:
            return keys.astype(np.int64)
        codes = pd.Index(self.keys).get_indexer(keys)
        if np.any(codes < 0):
            raise ValueError(
                f"A row falls in slice {keys[codes < 0][0]!r} that the first pass did not see: "
                "the data changed between the passes of the fit; fit again on unchanging data."
            )
        return codes.astype(np.int64)

    def update(self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> GammaSums:
        """Add rows ``X`` with response ``y`` (and frequency ``weights``).

        The work is many products of a few thousand rows at most, per slice and per block: they
        run under :data:`GAMMA_THREADS` BLAS threads.
        """
        self._full_paired = self._slice_term = None
        with threadpool_limits(GAMMA_THREADS, user_api="blas"):
            return self._update(X, y, weights)

    def _update(self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None) -> GammaSums:
        codes = self._codes(y)
        order = np.argsort(codes, kind="stable")
        z = (X[order] - self.shift) @ self.W
        w = None if weights is None else np.asarray(weights, dtype=float)[order]
        codes = codes[order]
        bounds = np.searchsorted(codes, np.arange(len(self.keys) + 1))
        p = z.shape[1]
        self.n += z.shape[0] if w is None else float(w.sum())
        zw = z if w is None else z * w[:, None]
        for s in range(len(self.keys)):
            lo, hi = bounds[s], bounds[s + 1]
            if hi > lo:
                self.s1[s] += zw[lo:hi].sum(axis=0)
                self.s2[s] += z[lo:hi].T @ zw[lo:hi]
        if not self.third.shape[1]:
            return self
        n_pairs = p * (p + 1) // 2
        step = max(1, BLOCK_FLOATS // n_pairs)
        pairs_t = np.empty((n_pairs, min(step, z.shape[0])))
        stacked = (
            np.column_stack([self.bases[j] for j in self.projected]) if self.projected else None
        )
        for start in range(0, z.shape[0], step):
            zt = np.ascontiguousarray(z[start : start + step].T)  # p × rows of the block
            m = zt.shape[1]
            pairs = _pair_products(zt, pairs_t[:, :m])  # (pairs × rows): z_j z_l, j <= l
            v = pairs if w is None else pairs * w[start : start + step]
            wt = [zt] if self.full else []  # the w of every basis, stacked
            if self.full:
                self._add_symmetric(zt, v)
            n_fourth = 0
            if stacked is not None:
                projected = stacked.T @ zt
                # the pair products of each basis's w
                ut = [projected[a] * projected[b] for a, b in self._projected_pairs]
                # the fourth moments' rows go first: one product per slice with the third
                # moments' rows, so that v is read once for both
                wt = ut + wt + [projected]
                n_fourth = self.fourth.shape[0]
            w_all = wt[0] if len(wt) == 1 else np.vstack(wt)
            edges = np.clip(bounds - start, 0, m)  # slice ranges within the block
            for s in range(len(self.keys)):
                lo, hi = edges[s], edges[s + 1]
                if hi > lo:
                    both = w_all[:, lo:hi] @ v[:, lo:hi].T
                    if n_fourth:
                        self.fourth += both[:n_fourth]
                    self.third[s] += both[n_fourth:]
        return self

    def _add_symmetric(self, zt: np.ndarray, v: np.ndarray) -> None:
        """Add a block's ``Σ z_a z_b (z_c z_d)`` for ``a ≤ b ≤ c ≤ d``: for each ``b``, the
        rows ``z_a z_b`` (``a ≤ b``) times the pairs from ``(b, b)`` on (weighted in ``v``).

        Consecutive ``b`` share one matrix product (:func:`_symmetric_chunks`): the rows of
        the small ``b`` alone made products of a few rows that re-read ``v`` for little work.
        """
        p = zt.shape[0]
        start, width, offset, _ = _symmetric_layout(p)
        for b0, b1 in _symmetric_chunks(p):
            left = np.concatenate([zt[: b + 1] * zt[b] for b in range(b0, b1)])
            block = left @ v[start[b0] :].T  # Σ(b + 1) × width[b0]
            at = 0
            for b in range(b0, b1):
                skip = start[b] - start[b0]  # the pairs (c, d) with c < b: not kept
                kept = self.fourth_full[offset[b] : offset[b + 1]].reshape(b + 1, width[b])
                kept += block[at : at + b + 1, skip:]
                at += b + 1

    def merge(self, other: GammaSums) -> GammaSums:
        """Add the sums of other rows."""
        self._full_paired = self._slice_term = None
        self.n += other.n
        self.s1 += other.s1
        self.s2 += other.s2
        self.third += other.third
        self.fourth += other.fourth
        self.fourth_full += other.fourth_full
        return self

    def third_moments(self, j: int) -> np.ndarray:
        """``Σ_{i∈s} w_a z_j z_l`` of basis ``j`` as an (h, k, p, p) array."""
        p = self.W.shape[1]
        where = _pairs(p)[2]
        return self.third[:, self.rows[j]][:, :, where]

    def _paired_fourth(self, j: int) -> np.ndarray:
        """``Σ w_a w_b v`` of basis ``j`` as a (k, k, pairs) array (kept for ``M = I``, whose
        every ``Γ_ζ`` reads it: until the sums change)."""
        p, k = self.W.shape[1], self.bases[j].shape[1]
        if self.identity[j]:
            if self._full_paired is None:
                paired = self.fourth_full[_symmetric_layout(p)[3]]  # (pairs × pairs)
                self._full_paired = paired[_pairs(k)[2]]
            return self._full_paired
        return self.fourth[self.pair_rows[j]][_pairs(k)[2]]

    def fourth_moments(self, j: int) -> np.ndarray:
        """``Σ w_a w_b z_j z_l`` of basis ``j`` as a (k, p, k, p) array (index a, j, b, l)."""
        where = _pairs(self.W.shape[1])[2]
        return self._paired_fourth(j)[:, :, where].transpose(0, 2, 1, 3)

    def covariance(
        self, j: int, E: np.ndarray, C: np.ndarray, V: np.ndarray | None = None
    ) -> np.ndarray:
        """``Γ_ζ`` (divisor n) for basis ``j`` with ``E = ζᵀ M_j`` and rows ``c_s`` of ``C``.

        ``Σ_i a_i a_iᵀ ⊗ z_i z_iᵀ`` in the layout ``(a, j, b, l)``: ``Σ_s c_s c_sᵀ ⊗ S_s``, less
        the cross terms ``Σ_s c_s ⊗ (E R_s)`` and their transpose, plus ``(E ⊗ I) Q (E ⊗ I)ᵀ``;
        each a few matrix products on the symmetric pairs ``(j, l)``, spread to ``p × p`` once
        at the end. ``V`` (k × r, orthonormal columns), when ``E = E V Vᵀ`` (slice means
        projected on a span of r columns, with the full moments): the third and fourth
        moments are reduced to that span first, and the products run on r columns, not k.
        The first term is the same for every ``E``: it is kept for the next call with ``C``.
        """
        h, p = self.s1.shape
        h1, k = C.shape[1], E.shape[1]
        rows, cols, where = _pairs(p)
        n_pairs = rows.size
        if self._slice_term is None or self._slice_term[0] is not C:
            products = (C[:, :, None] * C[:, None, :]).reshape(h, h1 * h1)
            term = (products.T @ self.s2[:, rows, cols]).reshape(h1, h1, n_pairs)  # (a, b, jl)
            self._slice_term = (C, term)
        total = self._slice_term[1].copy()
        mean = C.T @ self.s1
        if k:
            mean = mean - E @ (self.bases[j].T @ self.s2.sum(axis=0))
            third = self.third[:, self.rows[j]].reshape(h, k, n_pairs)  # (s, m, jl)
            fourth = self._paired_fourth(j)  # (m, m', jl)
            if V is not None:  # E = (E V) Vᵀ: moments along V's columns
                E, k = E @ V, V.shape[1]
                third = np.matmul(V.T, third)
                fourth = np.tensordot(V, np.matmul(V.T, fourth), axes=(0, 0))
        if k:
            summed = (C.T @ third.reshape(h, k * n_pairs)).reshape(h1, k, n_pairs)
            cross = np.matmul(E, summed)  # Σ_m E_bm Σ_s c_sa R_s: (a, b, jl)
            total -= cross
            total -= cross.transpose(1, 0, 2)
            left = (E @ fourth.reshape(k, k * n_pairs)).reshape(h1, k, n_pairs)  # (a, m', jl)
            total += np.matmul(E, left)  # Σ_m' E_bm' (…)_(a, m'): (a, b, jl)
        # symmetric in (a, b) on the pairs, then spread to (a, j, b, l) one block row a at a
        # time: the p(h−1)-square result is symmetric without a transposed pass over it
        total += total.transpose(1, 0, 2)
        total *= 0.5 / self.n
        size = h1 * p
        cov = np.empty((h1, p, h1, p))
        for a in range(h1):
            cov[a] = total[a][:, where].transpose(1, 0, 2)  # (b, j, l) -> (j, b, l)
        cov = cov.reshape(size, size)
        mean = mean.reshape(-1) / self.n
        # cov −= mean meanᵀ in place (BLAS ger on the Fortran view; exactly symmetric)
        scipy.linalg.blas.dger(-1.0, mean, mean, a=cov.T, overwrite_a=True)
        return cov


class GroupedGammaSums:
    """One :class:`GammaSums` per level of a column (``update_groups``), for partial IRE."""

    def __init__(self, parts: dict[Any, GammaSums]) -> None:
        self.parts = parts

    def update_groups(self, X: np.ndarray, y: np.ndarray, values: np.ndarray) -> GroupedGammaSums:
        check_levels(values, self.parts)
        for level, part in self.parts.items():
            rows = values == level
            if rows.any():
                part.update(X[rows], y[rows])
        return self

    def merge(self, other: GroupedGammaSums) -> GroupedGammaSums:
        for level, part in self.parts.items():
            part.merge(other.parts[level])
        return self


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
        self.contrasts, self.f = contrasts, f
        self.scale = scale

    def full_e(self, request: Any) -> tuple[np.ndarray, np.ndarray | None]:
        """``E`` with ``M = I``: ``ζᵀ`` times the projection of the request; and the
        orthonormal basis ``V`` of the span it is projected on (None: not projected)."""
        if isinstance(request, str):
            return np.zeros((self.h - 1, self.zeta.shape[0])), None
        if request is None:
            return self.zeta.T, None
        q = np.linalg.qr(request)[0]
        return (self.zeta.T @ q) @ q.T, q

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

    def independence(self, sums: GammaSums) -> float | None:
        """``‖G^{-T} vec ζ‖²`` for ``Γ_ζ`` under independence (slice means zero) from the
        per-slice second moments alone (:func:`._ire_als.independence_form`), or None."""
        n = sums.n
        form = independence_form(
            self.zeta, self.contrasts, self.f, sums.s2 / n, (self.C.T @ sums.s1).T / n
        )
        return None if form is None else form * self.scale**2

    def factor(
        self, sums: GammaSums, j: int, E: np.ndarray, V: np.ndarray | None = None
    ) -> np.ndarray:
        p = self.zeta.shape[0]
        cov = sums.covariance(j, E, self.C, V)
        factor = covariance_factor(cov, sums.n, p, symmetric=True)
        return factor / self.scale if self.scale != 1.0 else factor


class _RoundGammas:
    """``gammas(requests)`` of :func:`._ire_als.solve_rounds` from passes over the chunks.

    Full sums (``M = I``, when every group has at least p slices) in one pass on the first
    call, then no more passes; else one pass per call with the requested spans. ``full=False``
    takes the spans' passes whatever the slicing (one request: far cheaper than the full
    fourth moments).
    """

    def __init__(
        self,
        source: Any,
        groups: dict[Any, _Group],
        column: str | None,
        rescale: float | None = None,
        full: bool | None = None,
    ) -> None:
        self.source, self.groups, self.column = source, groups, column
        self.rescale = rescale  # R case weights' c: the passes see the rows √(c w) x
        at_least_p = all(g.h >= source.p for g in groups.values())
        self.full = at_least_p if full is None else full and at_least_p
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
        pairs = p * (p + 1) // 2
        floats = 0
        for level, g in self.groups.items():
            for M in bases[level]:
                k = M.shape[1]
                floats += g.h * (k * pairs + p * p + p)
                if k == p and np.allclose(M, np.eye(p)):  # the symmetric fourth moments
                    floats += int(_symmetric_layout(p)[2][-1])
                else:
                    floats += k * (k + 1) // 2 * pairs
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
                self._independence(sums)
                or [g.factor(sums[level], 0, *g.full_e(r)) for level, g in self.groups.items()]
                if isinstance(r, str)
                else [g.factor(sums[level], 0, *g.full_e(r)) for level, g in self.groups.items()]
                for r in requests
            ]
        spans = {level: [g.basis(r) for r in requests] for level, g in self.groups.items()}
        sums = self._pass({level: [M for M, _ in s] for level, s in spans.items()})
        return [
            (isinstance(r, str) and self._independence(sums))
            or [g.factor(sums[level], i, spans[level][i][1]) for level, g in self.groups.items()]
            for i, r in enumerate(requests)
        ]

    def _independence(self, sums: dict[Any, GammaSums]) -> IndependenceNorm | None:
        """The independence request (``"zero"``) without its ``Γ_ζ``: from each group's slice
        second moments (:func:`._ire_als.independence_form`); None if a group's fails."""
        total = 0.0
        for level, g in self.groups.items():
            form = g.independence(sums[level])
            if form is None:
                return None
            total += form
        return IndependenceNorm(total)


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


def _ire_setup(
    estimator: Any, source: Any, full: bool | None = None
) -> tuple[Any, Any, Any, np.ndarray, Any, bool]:
    """IRE's first pass over ``source`` and the ``gammas`` source of its ``Γ_ζ`` factors:
    the accumulator, whitening, slice moments, slice fractions, ``gammas`` and whether R's
    case weights are in play (``full`` as :class:`_RoundGammas`)."""
    p = source.p
    check_ire(estimator, p)
    acc = sliced_statistics(estimator, source)
    std, moments = prepared_statistics(acc, source)
    weighted = isinstance(acc, CaseWeightedStatistics)
    if weighted:
        sizes = moments.slices.sizes
        f = sizes / sizes.sum()
    else:
        f = moments.fractions
    W = np.linalg.inv(std.chol).T / std.scale[:, None]  # z = (x − x̄) W
    keys = acc.ordered_keys(source.level_order)
    group = _Group(acc.rule, keys, std.mean, W, moments.means.T, f)
    rescale = acc.rescale if weighted else None
    rounds = _RoundGammas(source, {None: group}, None, rescale=rescale, full=full)

    def gammas(requests: list[Any]) -> list[Any]:
        return [g if isinstance(g, IndependenceNorm) else g[0] for g in rounds(requests)]

    return acc, std, moments, f, gammas, weighted


#: The extras of an IRE (``gamma_factor``) or partial IRE (``gamma_factors``) fit that its rows
#: give again: the Cholesky factor(s) of the final ``Γ_ζ`` (see :func:`final_factors`).
RECOMPUTABLE = ("gamma_factor", "gamma_factors")


def _keep_within_budget(output: EstimatorOutput, source: Any) -> EstimatorOutput:
    """Leave out of a fit of rows in memory the final ``Γ_ζ`` factor(s) past
    :data:`~sdrstats.base.budget.KEPT_BYTES` (:func:`final_factors` recomputes them from the
    rows); a fit on chunks keeps them (it has no rows to recompute them from)."""
    if not source.keeps_rows:
        return output
    for key in RECOMPUTABLE:
        held = output.extras.get(key)
        if held is None:
            continue
        nbytes = sum(G.nbytes for G in held) if isinstance(held, list) else held.nbytes
        if not keeps_recomputable(nbytes):
            del output.extras[key]
    return output


def fit_ire(estimator: Any, source: Any) -> EstimatorOutput:
    """IRE (or partial IRE with the ``group`` option) of the rows of ``source``, in memory or
    on chunks (see the module notes): the slice moments, then the ``Γ_ζ`` sums.

    With R's case weights the first pass is SIR's weighted one (R's whitening of ``√w x``,
    weighted slice means), the ``Γ_ζ`` passes see the weighted rows, and the slice fractions
    are the counts, as R's ``ire`` takes them. A fit of rows in memory keeps its final
    ``Γ_ζ`` factor only within :data:`~sdrstats.base.budget.KEPT_BYTES` (see
    :func:`final_factors`).
    """
    if estimator.options["group"] is not None:
        if source.case_weighted:
            raise ValueError(
                "Partial IRE (group=) with case weights is not available; R dr itself fails "
                "on it when a weight is zero. Drop weights= or group=."
            )
        return fit_partial_ire(estimator, source)
    acc, std, moments, f, gammas, weighted = _ire_setup(estimator, source)
    with threadpool_limits(GAMMA_THREADS, user_api="blas"):
        output = estimator.solve(std, moments, f, gammas)
    if weighted:
        output.center = acc.center()  # R's dr.direction centres x by its plain mean
    levels = acc.ordered_keys(source.level_order)
    output = rowless_extras(output, source, acc, (std, moments), levels=levels, ols=False)
    return _keep_within_budget(output, source)


#: Final ``Γ_ζ`` factors recomputed from a fit's rows, kept beside the fit while it lives
#: (never in it, so never saved).
_FACTORS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def final_factors(results: Any) -> Any:
    """The Cholesky factor of an IRE fit's final ``Γ_ζ`` (a list of one per group for partial
    IRE), as the fit computed it: held in the fit when within
    :data:`~sdrstats.base.budget.KEPT_BYTES` or when the fit keeps no rows (chunked data),
    else recomputed from the fit's rows when first asked for and kept beside the fit (a
    weak-keyed map, not saved) while it lives.

    The recomputation repeats the fit's first pass (the slice moments) and takes the ``Γ_ζ``
    sums along the span of the largest fitted dimension only (``O(n d² p²)`` products), as the
    fit itself does below p slices: there the factor is the fit's bit for bit. At p slices or
    more the fit formed its final ``Γ_ζ`` from the full fourth moments (``n p⁴/24``
    products), and the span's sums give it again to rounding (1.5e-15 of the largest entry,
    test statistics to 3e-13, at n = 1e5, p = 50 with R's 54 slices): the first coordinate
    test then takes 1.1 s of CPU time, 3.2 s through the full moments (the fit: 6.6 s; the
    next tests 0.04 s). Once per fit.

    Parameters
    ----------
    results : IREResults
        The fit.

    Returns
    -------
    ndarray or list of ndarray
        Upper triangular, ``p(h − 1)`` square (per group).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.ire("lbm ~ log(wt) + log(ht) + log(hg)", sdr.datasets.load("ais"))
    >>> final_factors(fit).shape
    (21, 21)
    """
    ex = results.output.extras
    for key in RECOMPUTABLE:
        if key in ex:
            return ex[key]
    held = _FACTORS.get(results)
    if held is not None:
        return held
    if not results.spec.keeps_rows:
        raise ValueError(
            f"This {results.method} fit on chunked data holds no Γ_ζ factor (it was saved or "
            "made without one) and no rows to recompute it from; refit it."
        )
    estimator, request = results.estimator, ex["raw_solutions"][ex["numdir"]]
    source = estimator.source_of(results.spec)
    if estimator.options["group"] is not None:
        gammas = _partial_setup(estimator, source, full=False)[-1]
    else:
        gammas = _ire_setup(estimator, source, full=False)[4]
    with threadpool_limits(GAMMA_THREADS, user_api="blas"):
        (held,) = gammas([request])
    _FACTORS[results] = held
    return held


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
        check_levels(values, self.groups)
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


def _partial_setup(estimator: Any, source: Any, full: bool | None = None) -> tuple[Any, ...]:
    """Partial IRE's first pass over ``source`` and the ``gammas`` source of its per-group
    ``Γ_ζ`` factors: the accumulator, whitening, pooled QR factor and mean, ``n``, the
    groups' ``(n_g, slice sizes, ζ_g)``, the pooled SIR start and ``gammas`` (``full`` as
    :class:`_RoundGammas`)."""
    o = estimator.options
    column, p = o["group"], source.p
    check_ire(estimator, p)
    if source.categorical:
        raise ValueError(
            "Partial IRE (group=) needs a numeric response (each group is sliced on its own "
            "response); code the classes as numbers or drop group=."
        )
    h, fn = o["nslices"] or p, o["slice_function"]  # R's partial IRE default is p slices
    if source.keeps_rows:
        pooled_rule = SliceRule(
            slices=make_slices(np.asarray(source.Y, dtype=float), h, function=fn)
        )
    else:
        pooled_rule = SliceRule(cuts=source.response_cuts(h, fn))

    def enough(level: Any, n_rows: int) -> None:
        if n_rows < p:
            raise ValueError(
                f"Group {level!r} of {column!r} has {n_rows} rows; partial IRE needs at "
                f"least p = {p} rows in every group. Merge small groups or drop predictors."
            )

    rules = level_rules(estimator, source, column, h, check=enough, given_cuts=False)
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
    gammas = _RoundGammas(source, groups, column, full=full)
    return acc, std, Rp, mean, n, list(groups), seen, sir_vectors, gammas


def fit_partial_ire(estimator: Any, source: Any) -> EstimatorOutput:
    """Partial IRE of the rows of ``source`` (in memory or on chunks): per-group slices, each
    group whitened by its own Householder QR as R, then the groups' ``Γ_ζ`` sums."""
    acc, std, Rp, mean, n, levels, seen, sir_vectors, gammas = _partial_setup(estimator, source)
    with threadpool_limits(GAMMA_THREADS, user_api="blas"):
        output = solve_partial(
            estimator, levels, seen, sir_vectors, Rp, mean, int(round(n)), gammas
        )
    output = rowless_extras(output, source, acc.pooled, (std, None), ols=False)
    return _keep_within_budget(output, source)


__all__ = [
    "RECOMPUTABLE",
    "GammaSums",
    "GroupedGammaSums",
    "PartialMoments",
    "check_ire",
    "final_factors",
    "fit_ire",
]
