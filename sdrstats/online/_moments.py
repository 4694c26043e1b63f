"""Slice moments a stream keeps for its inference: the SIR test and the online Poisson bootstrap.

The recursion of :mod:`sdrstats.online._updates` keeps what Cheng & Cui's (2020) algorithm
needs (slice counts and sums, the mean; ``Σ̂`` only for O-SIR). The result of a stream also
offers Li's (1991) χ² dimension test and a bootstrap, which need the covariance of the
predictors as well. :class:`SliceMomentSums` keeps, for the stream's rows, the slice counts
``n_h``, the slice sums ``Σ_{i∈h}(x_i − c)`` and the cross-product ``Σ_i (x_i − c)(x_i − c)ᵀ``
about a fixed shift ``c`` (the mean of the initial batch, so that the sums do not lose
precision to a large mean): ``O(pH + p²)`` numbers, updated in ``O(m p²)`` for ``m`` rows.

The online Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012) keeps the same
sums ``B`` more times, each row weighted by an independent Poisson(1) count per replicate.
The counts come from :func:`sdrstats.inference.poisson.counts_from_keys`, keyed by the fit's
``"bootstrap"`` stream, the replicate and the row's position in the stream, so they do not
depend on how the rows were split into chunks, and replicate ``b`` is the replicate ``b`` of
``sdr.sir(..., cut_points=..., random_state=seed).bootstrap(B, scheme="poisson")`` on the
same rows (the moment family's one-pass Poisson bootstrap draws the same counts).

:func:`sir_from_sums` finishes any number of these accumulators into SIR fits: the
standardise → slice means → kernel → eigen → back-transform path of R ``dr`` (divisor ``n``
covariance, ``M = Σ_h f_h z̄_h z̄_hᵀ``), stacked over the accumulators.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..base.parallel import as_seed_sequence, derived_stream
from ..inference.poisson import counts_from_keys, replicate_keys
from ..stats.linalg import canonical_basis, sym_eigh_desc
from ..stats.moment_kernels import sir_kernel, whiten_slice_sums

#: The fit's stream (:func:`sdrstats.base.parallel.derived_stream`) the counts are drawn from:
#: the one ``Results.bootstrap`` draws from by default, so the replicates are the bootstrap's.
BOOTSTRAP_STREAM = "bootstrap"
#: Rows whose weights are formed at once (``(1 + B) × WINDOW`` numbers).
WINDOW = 8192


def bootstrap_keys(seed: Any, B: int) -> np.ndarray:
    """Philox keys of the ``B`` replicates of the stream whose fit seed is ``seed``."""
    if B == 0:
        return np.zeros((0, 2), dtype=np.uint64)
    return replicate_keys(as_seed_sequence(derived_stream(seed, BOOTSTRAP_STREAM)), range(B))


class SliceMomentSums:
    """Slice counts, shifted slice sums and cross-products of a stream: once unweighted, then
    once per bootstrap replicate (see the module's description).

    Parameters
    ----------
    shift : ndarray of shape (p,)
        The shift ``c`` of the sums (the initial batch's mean).
    nslices : int
        ``H``.
    keys : ndarray of shape (B, 2), dtype uint64
        Philox keys of the bootstrap replicates (:func:`bootstrap_keys`); ``B = 0`` keeps none.

    Attributes
    ----------
    counts : ndarray of shape (1 + B, H)
        Weighted slice counts; row 0 unweighted, row ``b + 1`` replicate ``b``.
    sums : ndarray of shape (1 + B, H, p)
        Weighted slice sums of ``x − c``.
    cross : ndarray of shape (1 + B, p, p)
        Weighted ``Σ (x − c)(x − c)ᵀ``.
    rows : int
        Rows added so far: the position of the next row.
    """

    def __init__(self, shift: np.ndarray, nslices: int, keys: np.ndarray) -> None:
        shift = np.asarray(shift, dtype=float)
        p, k = shift.size, 1 + keys.shape[0]
        self.shift = shift.copy()
        self.keys = np.asarray(keys, dtype=np.uint64).reshape(-1, 2)
        self.counts = np.zeros((k, nslices))
        self.sums = np.zeros((k, nslices, p))
        self.cross = np.zeros((k, p, p))
        self.rows = 0

    @property
    def replicates(self) -> int:
        """``B``, the bootstrap replicates kept."""
        return int(self.keys.shape[0])

    def update(self, X: np.ndarray, labels: np.ndarray) -> None:
        """Add rows ``X`` (``m x p``) in slices ``labels`` at the next ``m`` positions.

        The sums of the rows are formed first and added to the accumulators at the end, so
        an error while forming them leaves the accumulators as they were.
        """
        m = X.shape[0]
        if m == 0:
            return
        parts = [
            self._sums_of(
                X[start : start + WINDOW], labels[start : start + WINDOW], self.rows + start
            )
            for start in range(0, m, WINDOW)
        ]
        for counts, sums, cross in parts:
            self.counts += counts
            self.sums += sums
            self.cross += cross
        self.rows += m

    def _sums_of(self, X: np.ndarray, labels: np.ndarray, first: int) -> tuple:
        """Weighted slice counts, slice sums and cross-products of rows at positions
        ``first, first + 1, ...``: row 0 unweighted, row ``b + 1`` by replicate ``b``'s
        Poisson counts."""
        m = X.shape[0]
        weights = np.ones((1 + self.replicates, m))
        if self.replicates:
            weights[1:] = counts_from_keys(self.keys, first, first + m)
        centred = X - self.shift
        k, h, p = self.sums.shape
        indicator = np.zeros((m, h))
        indicator[np.arange(m), labels] = 1.0
        counts, sums, cross = np.empty((k, h)), np.empty((k, h, p)), np.empty((k, p, p))
        for b in range(k):
            weighted = indicator if b == 0 else indicator * weights[b][:, None]
            counts[b] = weighted.sum(axis=0)
            np.matmul(weighted.T, centred, out=sums[b])
            rows = centred if b == 0 else centred * weights[b][:, None]
            np.matmul(rows.T, centred, out=cross[b])  # the cost: m p² a replicate
        return counts, sums, cross

    def shifted(self, shift: np.ndarray) -> SliceMomentSums:
        """The same sums about another shift (exact: ``x − a = (x − c) + (c − a)``)."""
        out = copy.deepcopy(self)
        delta = self.shift - np.asarray(shift, dtype=float)  # c - a
        lin = self.sums.sum(axis=1)  # (K, p): Σ w (x - c)
        total = self.counts.sum(axis=1)
        out.cross = (
            self.cross
            + lin[:, :, None] * delta[None, None, :]
            + delta[None, :, None] * lin[:, None, :]
            + total[:, None, None] * np.outer(delta, delta)[None]
        )
        out.sums = self.sums + self.counts[:, :, None] * delta[None, None, :]
        out.shift = np.asarray(shift, dtype=float).copy()
        return out

    def merged(self, other: SliceMomentSums, moved: Any = None) -> SliceMomentSums:
        """These sums plus ``other``'s (rows of another stream).

        Parameters
        ----------
        other : SliceMomentSums
            The other stream's, with as many bootstrap replicates.
        moved : callable, optional
            Maps ``other``'s per-slice ``(sums (p x H), counts (H,))`` onto this stream's
            slices (different cut points); default none needed.

        Returns
        -------
        SliceMomentSums
        """
        theirs = other.shifted(self.shift)
        if moved is not None:
            pairs = [moved(theirs.sums[k].T, theirs.counts[k]) for k in range(len(theirs.counts))]
            theirs.sums = np.stack([s.T for s, _ in pairs])
            theirs.counts = np.stack([c for _, c in pairs])
        out = copy.deepcopy(self)
        out.counts = self.counts + theirs.counts
        out.sums = self.sums + theirs.sums
        out.cross = self.cross + theirs.cross
        return out

    def state(self) -> dict[str, Any]:
        """The accumulators as plain arrays (a deep copy), for ``state_dict`` and results."""
        return copy.deepcopy(
            {
                "shift": self.shift,
                "keys": self.keys,
                "counts": self.counts,
                "sums": self.sums,
                "cross": self.cross,
                "rows": self.rows,
            }
        )

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> SliceMomentSums:
        """Rebuild from :meth:`state` (the caller has checked the fields)."""
        out = cls.__new__(cls)
        out.shift = np.asarray(state["shift"], dtype=float)
        out.keys = np.asarray(state["keys"], dtype=np.uint64).reshape(-1, 2)
        out.counts = np.asarray(state["counts"], dtype=float)
        out.sums = np.asarray(state["sums"], dtype=float)
        out.cross = np.asarray(state["cross"], dtype=float)
        out.rows = int(state["rows"])
        return out


def sir_from_sums(
    counts: np.ndarray, sums: np.ndarray, cross: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray] | str]:
    """SIR fits from weighted slice sums: per accumulator its basis (p x p, unit columns,
    largest entry positive) and eigenvalues (decreasing), or the error text of a degenerate
    one (a predictor constant among its weighted rows, a singular covariance).

    Parameters
    ----------
    counts : ndarray of shape (K, H)
    sums : ndarray of shape (K, H, p)
        Slice sums of ``x − c`` for any fixed ``c``.
    cross : ndarray of shape (K, p, p)
        ``Σ w (x − c)(x − c)ᵀ`` about the same ``c``.

    Returns
    -------
    list of (ndarray, ndarray) or str

    Notes
    -----
    :func:`sdrstats.stats.moment_kernels.whiten_slice_sums` gives the whitened slice means
    ``z̄_h = L⁻¹ D⁻¹ (S_h/n_h − (x̄ − c))`` (divisor-``n`` covariance, as R ``dr``), then
    ``M = Σ_h (n_h/n) z̄_h z̄_hᵀ``; a direction is ``D⁻¹ L⁻ᵀ v`` for an eigenvector ``v`` of
    ``M``. These are the moment family's SIR numbers from the same statistics.
    """
    out: list[tuple[np.ndarray, np.ndarray] | str] = []
    for k in range(counts.shape[0]):
        try:
            out.append(_sir_one(counts[k], sums[k], cross[k]))
        except (ValueError, np.linalg.LinAlgError) as err:
            out.append(str(err))
    return out


def _sir_one(counts: np.ndarray, sums: np.ndarray, cross: np.ndarray):
    whitened = whiten_slice_sums(counts, sums, cross)
    filled = counts > 0
    kernel = sir_kernel(whitened.fractions[filled], whitened.means[filled])
    values, vectors = sym_eigh_desc(kernel)
    basis = np.linalg.solve(whitened.chol.T, vectors) / whitened.scale[:, None]
    return canonical_basis(basis), values


def nonempty_slices(counts: np.ndarray) -> int:
    """Slices holding rows (the ``h`` of the test; an empty slice is no slice, as in
    :func:`sdrstats.stats.slicing.make_slices`)."""
    return int(np.sum(np.asarray(counts) > 0))


__all__ = [
    "BOOTSTRAP_STREAM",
    "SliceMomentSums",
    "bootstrap_keys",
    "nonempty_slices",
    "sir_from_sums",
]
