"""The Poisson bootstrap of a SIR, SAVE or DR fit on chunks or Dask partitions, in one pass.

A fit from chunked data keeps no rows, but its replicates need only weighted slice sums: with
row ``i``'s Poisson(1) count ``c_bi`` in replicate ``b`` (:mod:`sdrstats.inference.poisson`,
keyed by the row's position), replicate ``b`` is the weighted fit on the full-sample slices,
a function of ``Σ_{i in slice s} c_bi f_i`` with ``f_i = [1, x0_i, vech(x0_i x0_iᵀ)]`` and
``x0 = (x − center) / spread``. One more pass over the data accumulates these ``B × h × k``
sums (:class:`PoissonSliceSums`: each chunk computes its rows' counts from their positions,
puts its rows in the fit's slices and adds ``counts @ features`` slice by slice, one BLAS
product per block of rows); the merged sums are finished into ``B`` fits by the in-memory
kernel's p×p code (:meth:`~sdrstats.moment._replicates.WeightedReplicates.replicates_from_sums`),
so the replicates equal the in-memory ``bootstrap(scheme="poisson")`` of the same rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.parallel import parallel_map
from ..inference.poisson import counts_from_keys
from ..stats.slicing import cut_labels
from ._replicates import WeightedReplicates

#: Row positions whose counts are drawn at once (``B × WINDOW`` bytes of counts).
WINDOW = 2**15
#: Feature cells (rows × features) of one block of rows: 16 MB of float64.
FEATURE_CELLS = 2**21
#: Replicates finished per task (fixed, so the results never depend on ``n_jobs``).
FINISH_BLOCK = 50


def feature_block_rows(n_features: int) -> int:
    """Rows per block of features: as many as fit :data:`FEATURE_CELLS`, 256 to 8192."""
    return int(np.clip(FEATURE_CELLS // n_features, 256, 8192))


class PoissonSliceSums:
    """Per replicate and slice, the Poisson-weighted sums of ``[1, x0, vech(x0 x0ᵀ)]``.

    The accumulator of the chunked Poisson bootstrap: ``update_positioned(X, y, positions)``
    adds rows with their positions in the data, ``merge`` adds another accumulator's sums.

    Parameters
    ----------
    keys : ndarray of shape (B, 2), dtype uint64
        Philox keys of the replicates (:func:`sdrstats.inference.poisson.replicate_keys`).
    slice_keys : list
        The fit's slices in its order: cut-point interval numbers of a continuous response
        (with ``cut_points``), or class labels.
    cut_points : ndarray or None
        Cut points of a continuous response; None for class labels.
    center, spread : ndarray of shape (p,)
        Shift and scale of the features (the fit's mean and standard deviations).

    Attributes
    ----------
    sums : ndarray of shape (h, B, k) or None
        The sums (None until a row is added); ``k = 1 + p + p(p+1)/2``.
    n_rows : int
        Rows added.

    Examples
    --------
    >>> import numpy as np
    >>> from sdrstats.inference.poisson import replicate_keys
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.standard_normal((100, 2)), rng.standard_normal(100)
    >>> acc = PoissonSliceSums(replicate_keys(0, range(3)), [0, 1], np.array([0.0]),
    ...                        np.zeros(2), np.ones(2))
    >>> whole = acc.update_positioned(X, y, np.arange(100)).sums
    >>> halves = PoissonSliceSums(acc.keys, [0, 1], np.array([0.0]), np.zeros(2), np.ones(2))
    >>> halves = halves.update_positioned(X[:40], y[:40], np.arange(40)).merge(
    ...     PoissonSliceSums(acc.keys, [0, 1], np.array([0.0]), np.zeros(2), np.ones(2))
    ...     .update_positioned(X[40:], y[40:], np.arange(40, 100)))
    >>> whole.shape, bool(np.allclose(whole, halves.sums))
    ((2, 3, 6), True)
    """

    def __init__(
        self,
        keys: np.ndarray,
        slice_keys: list[Any],
        cut_points: np.ndarray | None,
        center: np.ndarray,
        spread: np.ndarray,
    ) -> None:
        self.keys = np.asarray(keys, dtype=np.uint64)
        self.slice_keys = list(slice_keys)
        self.cut_points = None if cut_points is None else np.asarray(cut_points, dtype=float)
        self.center = np.asarray(center, dtype=float)
        self.spread = np.asarray(spread, dtype=float)
        p = self.center.size
        self.n_features = 1 + p + p * (p + 1) // 2
        self.sums: np.ndarray | None = None
        self.n_rows = 0

    def _slice_numbers(self, y: np.ndarray) -> np.ndarray:
        """The fit's slice of each row (its place in ``slice_keys``)."""
        if self.cut_points is not None:
            labels = cut_labels(np.asarray(y, dtype=float).reshape(-1), self.cut_points)
            lookup = np.full(self.cut_points.size + 1, -1, dtype=np.int64)
            lookup[np.asarray(self.slice_keys, dtype=np.int64)] = np.arange(len(self.slice_keys))
            numbers = lookup[labels]
        else:
            numbers = pd.Categorical(np.asarray(y).reshape(-1), categories=self.slice_keys).codes
        if np.any(numbers < 0):
            raise ValueError(
                "A row falls in a slice the fit did not have: the data changed since the fit. "
                "Fit again on the data before bootstrapping."
            )
        return np.asarray(numbers, dtype=np.int64)

    def update_positioned(
        self, X: np.ndarray, y: np.ndarray, positions: np.ndarray
    ) -> PoissonSliceSums:
        """Add rows ``X`` (response ``y``) at increasing 0-based ``positions`` in the data."""
        n_rows = X.shape[0]
        if n_rows == 0:
            return self
        h, n_reps = len(self.slice_keys), self.keys.shape[0]
        if self.sums is None:
            self.sums = np.zeros((h, n_reps, self.n_features))
        slices = self._slice_numbers(y)
        positions = np.asarray(positions, dtype=np.int64)
        counts = np.empty((n_reps, WINDOW), dtype=np.uint8)
        start = 0
        while start < n_rows:
            first = int(positions[start])
            stop = int(np.searchsorted(positions, first + WINDOW, side="left"))
            span = int(positions[stop - 1]) - first + 1
            drawn = counts_from_keys(self.keys, first, first + span, out=counts[:, :span])
            self._add(X[start:stop], slices[start:stop], drawn[:, positions[start:stop] - first])
            start = stop
        self.n_rows += n_rows
        return self

    def _add(self, X: np.ndarray, slices: np.ndarray, counts: np.ndarray) -> None:
        """``sums[s] += counts[:, rows of s] @ features(rows of s)``, by blocks of rows."""
        p = self.center.size
        order = np.argsort(slices, kind="stable")
        bounds = np.concatenate(
            [[0], np.cumsum(np.bincount(slices, minlength=len(self.slice_keys)))]
        )
        block = feature_block_rows(self.n_features)
        features = np.empty((min(block, X.shape[0]), self.n_features))
        features[:, 0] = 1.0
        for s in range(len(self.slice_keys)):
            for lo in range(bounds[s], bounds[s + 1], block):
                rows = order[lo : min(lo + block, bounds[s + 1])]
                m = rows.size
                f = features[:m]
                x0 = f[:, 1 : p + 1]
                np.subtract(X[rows], self.center, out=x0)
                x0 /= self.spread
                at = p + 1
                for j in range(p):  # vech(x0 x0ᵀ) in numpy.triu_indices order
                    np.multiply(x0[:, j : j + 1], x0[:, j:], out=f[:, at : at + p - j])
                    at += p - j
                self.sums[s] += counts[:, rows].astype(float) @ f

    def merge(self, other: PoissonSliceSums) -> PoissonSliceSums:
        """Add the sums of other rows."""
        if other.sums is not None:
            self.sums = other.sums.copy() if self.sums is None else self.sums + other.sums
        self.n_rows += other.n_rows
        return self


class _Finish:
    """Replicates of a block of slice sums (a picklable task)."""

    def __init__(self, kernel: WeightedReplicates) -> None:
        self.kernel = kernel

    def __call__(self, sums: np.ndarray) -> list[tuple[np.ndarray, np.ndarray] | str]:
        return self.kernel.replicates_from_sums(sums)


class ChunkedReplicates:
    """Poisson bootstrap replicates of a SIR, SAVE or DR fit on chunks or Dask partitions.

    ``estimator.replicate_kernel(fit)`` of a chunked fit; the bootstrap calls
    :meth:`poisson_replicates`, which reads the data once.

    Parameters
    ----------
    results : ChunkedResults
        The fit, holding its data source.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", sdr.chunks_from([ais[:90], ais[90:]]), nslices=8)
    >>> type(fit.estimator.replicate_kernel(fit)).__name__
    'ChunkedReplicates'
    """

    def __init__(self, results: Any) -> None:
        extras = results.output.extras
        if "weights_vary" in extras:
            raise ValueError(
                f"The bootstrap of a case-weighted {results.method} fit on chunked or Dask data "
                "is not available yet (its replicates need R's weighted sums, which the one-pass "
                "Poisson bootstrap does not form). Load the data with pandas to bootstrap the "
                "weighted fit."
            )
        if "slice_keys" not in extras:
            raise ValueError(
                f"This chunked {results.method} fit does not record its slices; fit it again "
                "to bootstrap it."
            )
        self.source = getattr(results, "_data_source", None)
        std, moments = results._prepared()
        self.kernel = WeightedReplicates.from_statistics(
            results.estimator, moments.slices, std.mean, std.scale
        )
        self.slice_keys = list(extras["slice_keys"])
        cuts = extras.get("cut_points")
        self.cut_points = None if cuts is None else np.asarray(cuts, dtype=float)
        self.n = results.n
        self.method = results.method

    def poisson_replicates(
        self, keys: np.ndarray, *, n_jobs: int | None = 1, progress: bool = True, desc: str = ""
    ) -> list[tuple[np.ndarray, np.ndarray] | str]:
        """Basis and eigenvalues (or error text) of the replicates with Philox ``keys``.

        One pass over the data gives every replicate's weighted slice sums; ``n_jobs``
        finishes the replicates in blocks of :data:`FINISH_BLOCK` (results do not depend
        on it).

        Parameters
        ----------
        keys : ndarray of shape (B, 2), dtype uint64
            From :func:`sdrstats.inference.poisson.replicate_keys`.
        n_jobs : int, default 1
            Workers of the finishing step.
        progress : bool, default True
            Progress bar of the finishing step.
        desc : str
            Its label.

        Returns
        -------
        list of (ndarray, ndarray) or str
        """
        if self.source is None:
            raise ValueError(
                f"This chunked {self.method} fit no longer holds its chunks or Dask DataFrame "
                "(it was pickled or loaded); fit it again on the data to bootstrap it."
            )
        template = PoissonSliceSums(
            keys, self.slice_keys, self.cut_points, self.kernel.center, self.kernel.spread
        )
        total = self.source.reduce_positioned(template)
        if total.n_rows != self.n or total.sums is None:
            raise ValueError(
                f"The bootstrap pass read {total.n_rows} complete rows, but the fit used "
                f"{self.n}: the data changed since the fit. Fit again on the data."
            )
        sums = np.ascontiguousarray(np.swapaxes(total.sums, 0, 1))  # (B, h, k)
        blocks = [sums[i : i + FINISH_BLOCK] for i in range(0, sums.shape[0], FINISH_BLOCK)]
        pieces = parallel_map(
            _Finish(self.kernel), blocks, n_jobs=n_jobs, progress=progress, desc=desc
        )
        return [item for piece in pieces for item in piece]


__all__ = ["ChunkedReplicates", "PoissonSliceSums", "FEATURE_CELLS", "WINDOW"]
