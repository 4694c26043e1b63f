"""Weighted bootstrap replicates of SIR, SAVE and DR without refitting row by row.

Every statistic these kernels use — slice weights, slice sums and slice cross-products of the
predictors — is linear in the case weights, so replicate ``b`` (multinomial counts ``c_b`` as
frequency weights, the full-sample slices) needs only ``counts (b × n_s) @ features (n_s × k)``
per slice, then p×p work: whitening, the method's own kernel and one eigen-decomposition. The
inference layer draws the counts and asks the fit for this kernel
(``estimator.replicate_kernel(results)``); it never imports the moment family.

The Poisson bootstrap (Hanley & MacGibbon 2006) keys row ``i``'s count ``c_bi`` in replicate
``b`` by the row's position (:mod:`sdrstats.inference.poisson`), so its sums are one more pass
of a mergeable accumulator over the fit's rows (:class:`PoissonSliceSums`): the rows in memory
as one chunk, or the chunks and Dask partitions of a fit that keeps no rows. Either way the
merged sums are finished into ``B`` fits by the same p×p code, so the replicates do not depend
on where the rows live.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.parallel import parallel_map
from ..inference.poisson import counts_from_keys
from ..scale.rows import RowsInMemory
from ..stats.moment_kernels import whiten_slice_sums
from ._core import SliceMoments, Standardized
from .statistics import SliceRule

#: Largest n × (number of features) the weighted path builds; beyond it, refits are used.
MAX_FEATURE_CELLS = 60_000_000
#: Row positions whose Poisson counts are drawn at once (``B × WINDOW`` bytes of counts).
WINDOW = 2**15
#: Feature cells (rows × features) of one block of rows in the Poisson pass: 16 MB of float64.
FEATURE_CELLS = 2**21
#: Replicates finished per task (fixed, so the results never depend on ``n_jobs``).
FINISH_BLOCK = 50


def feature_block_rows(n_features: int) -> int:
    """Rows per block of features: as many as fit :data:`FEATURE_CELLS`, 256 to 8192."""
    return int(np.clip(FEATURE_CELLS // n_features, 256, 8192))


class PoissonSliceSums:
    """Per replicate and slice, the Poisson-weighted sums of ``[1, x0, vech(x0 x0ᵀ)]``.

    The accumulator of the Poisson bootstrap's pass: ``update_positioned(X, y, positions)``
    adds rows with their positions in the data (each block of rows draws its counts from the
    positions, puts its rows in the fit's slices and adds ``counts @ features`` slice by
    slice, one BLAS product per block), ``merge`` adds another accumulator's sums.

    Parameters
    ----------
    keys : ndarray of shape (B, 2), dtype uint64
        Philox keys of the replicates (:func:`sdrstats.inference.poisson.replicate_keys`).
    rule : SliceRule
        How rows fall into the fit's slices: cut points of a continuous response, class
        labels, or (rows in memory, one update of them all) the fit's own slices.
    slice_keys : list
        The slices' keys in the fit's order (the slice numbers for the fit's own slices).
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
    >>> rule = SliceRule(cuts=np.array([0.0]))
    >>> acc = PoissonSliceSums(replicate_keys(0, range(3)), rule, [0, 1], np.zeros(2), np.ones(2))
    >>> whole = acc.update_positioned(X, y, np.arange(100)).sums
    >>> halves = PoissonSliceSums(acc.keys, rule, [0, 1], np.zeros(2), np.ones(2))
    >>> halves = halves.update_positioned(X[:40], y[:40], np.arange(40)).merge(
    ...     PoissonSliceSums(acc.keys, rule, [0, 1], np.zeros(2), np.ones(2))
    ...     .update_positioned(X[40:], y[40:], np.arange(40, 100)))
    >>> whole.shape, bool(np.allclose(whole, halves.sums))
    ((2, 3, 6), True)
    """

    def __init__(
        self,
        keys: np.ndarray,
        rule: SliceRule,
        slice_keys: list[Any],
        center: np.ndarray,
        spread: np.ndarray,
    ) -> None:
        self.keys = np.asarray(keys, dtype=np.uint64)
        self.rule = rule
        self.slice_keys = list(slice_keys)
        self.center = np.asarray(center, dtype=float)
        self.spread = np.asarray(spread, dtype=float)
        p = self.center.size
        self.n_features = 1 + p + p * (p + 1) // 2
        self.sums: np.ndarray | None = None
        self.n_rows = 0

    def _slice_numbers(self, y: np.ndarray) -> np.ndarray:
        """The fit's slice of each row (its place in ``slice_keys``)."""
        found = np.asarray(self.rule.keys(y)).reshape(-1)
        if self.rule.slices is not None:
            numbers = found.astype(np.int64)
        else:
            numbers = pd.Index(self.slice_keys).get_indexer(found)
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


class WeightedReplicates:
    """Bootstrap replicates of a slice moment fit from their case weights.

    One pass over the rows builds the slice order and the per-observation features
    ``[1, x, vech(x xᵀ)]`` (centred and scaled by the full sample); a block of replicates'
    weighted slice sums (the accumulator's statistics, for ``b`` weight vectors at once) is one
    matrix product per slice, then whitening, the method's kernel and one stacked eigen-
    decomposition. Replicate ``b`` equals the weighted refit with its counts as case weights.

    Parameters
    ----------
    results : Results
        A fit of SIR, SAVE or DR (``capabilities.weighted_replicates``).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", ais, nslices=8)
    >>> kernel = WeightedReplicates(fit)
    >>> basis, values = kernel.replicates(np.ones((1, fit.n)))[0]
    >>> bool(np.allclose(values, fit.output.eigenvalues))
    True
    """

    @staticmethod
    def fits(n: int, p: int) -> bool:
        """Whether the feature matrix of ``n`` rows and ``p`` predictors fits the memory cap."""
        return n * (1 + p + p * (p + 1) // 2) <= MAX_FEATURE_CELLS

    def __init__(self, results: Any) -> None:
        est = results.estimator
        X, Y = results.spec.X, results.spec.Y
        n, p = X.shape
        center = X.mean(axis=0)
        spread = X.std(axis=0)
        spread[spread == 0] = 1.0
        self._setup(est, est._slices(Y, p), center, spread)  # the slices a weighted refit uses
        self.Y = Y
        self.n = n
        self.order = np.argsort(self.slices.labels, kind="stable")
        sizes = np.bincount(self.slices.labels, minlength=self.slices.nslices)
        self.bounds = np.concatenate([[0], np.cumsum(sizes)])
        x0 = ((X - center) / spread)[self.order]
        self.features = np.hstack([np.ones((n, 1)), x0, x0[:, self.iu[0]] * x0[:, self.iu[1]]])
        # the Poisson pass reads the rows as one chunk, sliced as the weighted refit slices
        self.source: Any = RowsInMemory.of_spec(results.spec)
        self.rule = SliceRule(slices=self.slices)
        self.slice_keys: list[Any] = list(range(self.slices.nslices))
        self.method = results.method

    def _setup(self, estimator: Any, slices: Any, center: np.ndarray, spread: np.ndarray) -> None:
        self.estimator = estimator
        self.slices = slices
        self.center = np.asarray(center, dtype=float)
        self.spread = np.asarray(spread, dtype=float)
        self.p = self.center.size
        self.iu = np.triu_indices(self.p)
        self.Y = None
        self.source, self.rule, self.slice_keys = None, None, []
        self.n, self.method = 0, getattr(estimator, "method", "")

    @classmethod
    def from_statistics(
        cls, estimator: Any, slices: Any, center: np.ndarray, spread: np.ndarray
    ) -> WeightedReplicates:
        """A kernel that finishes replicates from slice sums formed elsewhere (chunked data).

        The sums (see :meth:`replicates_from_sums`) must be of the features ``[1, x0,
        vech(x0 x0ᵀ)]`` with ``x0 = (x − center) / spread`` (``vech``: the upper triangle, row
        by row, as ``numpy.triu_indices``); any ``center`` and positive ``spread`` give the
        same replicates up to rounding (each replicate is re-standardised by its own weighted
        moments).

        Parameters
        ----------
        estimator : MomentEstimator
            SIR, SAVE or DR, with the fit's options.
        slices : Slices
            The fit's slices (their number and sizes).
        center, spread : ndarray of shape (p,)
            Shift and scale of the features.

        Returns
        -------
        WeightedReplicates
            Without rows: :meth:`replicates` is not available, :meth:`replicates_from_sums` is.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", ais, nslices=8)
        >>> full = WeightedReplicates(fit)
        >>> sums = full.slice_sums(np.ones((1, fit.n)))
        >>> outside = WeightedReplicates.from_statistics(
        ...     fit.estimator, full.slices, full.center, full.spread)
        >>> basis, values = outside.replicates_from_sums(sums)[0]
        >>> bool(np.allclose(values, fit.output.eigenvalues))
        True
        """
        kernel = cls.__new__(cls)
        kernel._setup(estimator, slices, center, spread)
        kernel.features = None
        return kernel

    @classmethod
    def of_source(cls, results: Any) -> WeightedReplicates:
        """The kernel of a fit that keeps no rows: its Poisson replicates take one pass over
        the fit's chunks or Dask partitions.

        Parameters
        ----------
        results : MomentResults
            A SIR, SAVE or DR fit on chunked or Dask data (holding its data source).

        Returns
        -------
        WeightedReplicates
            Without rows: :meth:`poisson_replicates` and :meth:`replicates_from_sums` work.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", sdr.chunks_from([ais[:90], ais[90:]]),
        ...               nslices=8)
        >>> kernel = fit.estimator.replicate_kernel(fit)
        >>> kernel.features is None, len(kernel.slice_keys)
        (True, 8)
        """
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
        std, moments = results._prepared()
        kernel = cls.from_statistics(results.estimator, moments.slices, std.mean, std.scale)
        cuts = extras.get("cut_points")
        kernel.rule = (
            SliceRule(classes=True) if cuts is None else SliceRule(cuts=np.asarray(cuts, float))
        )
        kernel.slice_keys = list(extras["slice_keys"])
        kernel.source = results.spec.data
        kernel.n, kernel.method = results.n, results.method
        return kernel

    def poisson_replicates(
        self, keys: np.ndarray, *, n_jobs: int | None = 1, progress: bool = True, desc: str = ""
    ) -> list[tuple[np.ndarray, np.ndarray] | str]:
        """Basis and eigenvalues (or error text) of the replicates with Philox ``keys``.

        One pass of :class:`PoissonSliceSums` over the fit's rows (in memory or on chunks)
        gives every replicate's weighted slice sums; ``n_jobs`` finishes the replicates in
        blocks of :data:`FINISH_BLOCK` (results do not depend on it).

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
        template = PoissonSliceSums(keys, self.rule, self.slice_keys, self.center, self.spread)
        total = self.source.reduce_positioned(template)
        if total.n_rows != self.n or total.sums is None:
            raise ValueError(
                f"The bootstrap pass read {total.n_rows} complete rows, but the fit used "
                f"{self.n}: the data changed since the fit. Fit again on the data."
            )
        sums = np.ascontiguousarray(np.swapaxes(total.sums, 0, 1))  # (B, h, k)
        blocks = [sums[i : i + FINISH_BLOCK] for i in range(0, sums.shape[0], FINISH_BLOCK)]
        # the finishing tasks need no rows: a kernel without them travels to the workers
        finisher = WeightedReplicates.from_statistics(
            self.estimator, self.slices, self.center, self.spread
        )
        pieces = parallel_map(
            _Finish(finisher), blocks, n_jobs=n_jobs, progress=progress, desc=desc
        )
        return [item for piece in pieces for item in piece]

    @property
    def n_features(self) -> int:
        """Features per row: ``1 + p + p(p+1)/2``."""
        return 1 + self.p + self.p * (self.p + 1) // 2

    def slice_sums(self, counts: np.ndarray) -> np.ndarray:
        """Per-slice sums of the features weighted by each row of ``counts``.

        Parameters
        ----------
        counts : ndarray of shape (b, n)
            Case weights of each replicate, in the fit's row order.

        Returns
        -------
        ndarray of shape (b, h, 1 + p + p(p+1)/2)
        """
        if self.features is None:
            raise ValueError("This kernel holds no rows; give it slice sums instead.")
        counts = np.asarray(counts, dtype=float)[:, self.order]
        h = self.slices.nslices
        sums = np.empty((counts.shape[0], h, self.features.shape[1]))
        for s in range(h):
            lo, hi = self.bounds[s], self.bounds[s + 1]
            sums[:, s] = counts[:, lo:hi] @ self.features[lo:hi]
        return sums

    def replicates(self, counts: np.ndarray) -> list[tuple[np.ndarray, np.ndarray] | str]:
        """Basis and eigenvalues of each replicate (a row of ``counts``), or its error text.

        Parameters
        ----------
        counts : ndarray of shape (b, n)
            Case weights of each replicate (multinomial counts for the bootstrap).

        Returns
        -------
        list of (ndarray, ndarray) or str
        """
        return self.replicates_from_sums(self.slice_sums(counts))

    @property
    def supports_centering(self) -> bool:
        """Whether :meth:`centered` is available: the method declares
        ``capabilities.centered_bootstrap`` (SAVE) and the kernel holds its rows."""
        caps = getattr(self.estimator, "capabilities", None)
        return bool(getattr(caps, "centered_bootstrap", False)) and self.features is not None

    def centered(self, d: int) -> WeightedReplicates:
        """A copy whose replicates resample a world centred on the fitted ``d``-dim subspace.

        SAVE's kernel ``M = Σ_s f_s A_s²`` with ``A_s = I − V_s`` (whitened) squares the slice
        covariances, so its estimation error has a degenerate quadratic part: in the
        population ``A_s`` vanishes off the central subspace, but the fitted ``Â_s`` carries
        there noise of the same order as the replicates' own, and the replicates square the
        sum of both (a degenerate V-statistic, whose plain bootstrap is inconsistent:
        Bretagnolle 1983, Arcones & Giné 1992). Measured with known truth, the plain
        bootstrap distances of SAVE average up to 1.6 times the true error at n = 300 and
        1,000 and their 95% quantile covers it in 0.985–0.995 of data sets; the centred
        ones in 0.925–0.96 (``benchmarks/bench_bootstrap_coverage.md``).

        The centred replicate removes from each replicate's ``A*_s`` the part of the full
        sample's ``Â_s`` outside the fitted subspace (``Â_s − P Â_s P``, ``P`` the projection
        on the top ``d`` eigenvectors of ``M̂``), carried over in covariance units to the
        replicate's own whitening. The resampled world is then one whose slice matrices
        ``P Â_s P`` vanish off the fitted subspace, as the population's vanish off the
        true one, and whose top ``d`` subspace is the fit's; the replicates' deviations
        (the difference ``A*_s − Â_s``) are untouched.

        Parameters
        ----------
        d : int
            Dimension of the fitted subspace the world is centred on.

        Returns
        -------
        WeightedReplicates
            Its :meth:`replicates` give the centred replicates.

        References
        ----------
        Arcones, M. A. & Giné, E. (1992). On the bootstrap of U and V statistics. *The
        Annals of Statistics* 20, 655–674.

        Bretagnolle, J. (1983). Lois limites du bootstrap de certaines fonctionnelles.
        *Annales de l'IHP Probabilités et statistiques* 19, 281–296.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.save("lbm ~ log(wt) + log(ht) + log(hg)", ais, nslices=8)
        >>> kernel = WeightedReplicates(fit).centered(2)
        >>> basis, values = kernel.replicates(np.ones((1, fit.n)))[0]
        >>> bool(sdr.subspace_distance(basis[:, :2], fit.output.basis[:, :2]) < 1e-8)
        True
        """
        if not self.supports_centering:
            raise ValueError(
                f"The 'scheme' option 'centered' is not available for {self.method}; "
                "use scheme='multinomial'."
            )
        if not 1 <= d <= self.p:
            raise ValueError(f"The centred bootstrap needs 1 <= d <= {self.p}; got d = {d}.")
        total, _, scale, chol, counts, means, second = self._whitened_moments(
            self.slice_sums(np.ones((1, self.n)))
        )
        fractions = counts[0] / total[0]
        outer = means[0][:, :, None] * means[0][:, None, :]
        slope = np.eye(self.p)[None] - (second[0] - outer)  # A_s = I - V_s, whitened
        M = np.einsum("s,sij,sjk->ik", fractions, slope, slope)
        _, vectors = np.linalg.eigh((M + M.T) / 2)
        top = vectors[:, ::-1][:, :d]
        proj = top @ top.T
        outside = slope - proj @ slope @ proj
        # back to covariance units of the standardised features x0
        lift = scale[0][:, None] * chol[0]
        copy = WeightedReplicates.__new__(WeightedReplicates)
        copy.__dict__.update(self.__dict__)
        copy.correction = lift @ outside @ lift.T  # (h, p, p)
        return copy

    #: Per-slice correction of the centred bootstrap (covariance units); None when plain.
    correction: np.ndarray | None = None

    def replicates_from_sums(self, sums: np.ndarray) -> list[tuple[np.ndarray, np.ndarray] | str]:
        """Basis and eigenvalues of each replicate from its weighted slice sums, or its error.

        Parameters
        ----------
        sums : ndarray of shape (b, h, 1 + p + p(p+1)/2)
            Per replicate and slice, the weighted sums of the features (:meth:`slice_sums`).

        Returns
        -------
        list of (ndarray, ndarray) or str
        """
        n_reps = sums.shape[0]
        try:
            stats = self._whitened_moments(sums)
        except (ValueError, np.linalg.LinAlgError):
            stats = None  # some replicate is degenerate: go one by one
        if stats is not None:
            try:
                bases, values = self._batched_eigen(*stats)
                return list(zip(bases, values))
            except np.linalg.LinAlgError:
                pass
        out: list[tuple[np.ndarray, np.ndarray] | str] = []
        for b in range(n_reps):
            try:
                one = (
                    self._whitened_moments(sums[b : b + 1])
                    if stats is None
                    else [part[b : b + 1] if part is not None else None for part in stats]
                )
                bases, values = self._batched_eigen(*one)
                out.append((bases[0], values[0]))
            except (ValueError, np.linalg.LinAlgError) as err:
                out.append(str(err))
        return out

    def _batched_eigen(self, total, mean, scale, chol, counts, means, second):
        """The method's kernel per replicate, then one stacked eigen-decomposition.

        Same steps as ``moment._core.eigen_directions`` (symmetrise, order by decreasing
        value or |value|, back-transform ``U^{-1} V``, unit columns, largest entry positive),
        on the whole block of replicates at once.
        """
        est = self.estimator
        kernels = []
        for b in range(total.shape[0]):
            std = Standardized(
                float(total[b]),
                self.center + self.spread * mean[b],
                self.spread * scale[b],
                chol[b],
                None,
                None,
            )
            moments = SliceMoments(
                counts[b] / total[b], means[b], None if second is None else second[b], self.slices
            )
            kernels.append(est.kernel(std, moments))
        M = np.stack(kernels)
        values, vectors = np.linalg.eigh((M + np.swapaxes(M, 1, 2)) / 2)
        order = np.argsort(-np.abs(values) if est.by_abs else -values, axis=1, kind="stable")
        values = np.take_along_axis(values, order, axis=1)
        vectors = np.take_along_axis(vectors, order[:, None, :], axis=2)
        raw = np.linalg.solve(np.swapaxes(chol, 1, 2), vectors)
        raw /= (self.spread * scale)[:, :, None]
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        raw /= np.where(norms == 0, 1.0, norms)
        peak = np.argmax(np.abs(raw), axis=1)[:, None, :]
        signs = np.sign(np.take_along_axis(raw, peak, axis=1))
        return raw * np.where(signs == 0, 1.0, signs), values

    def _whitened_moments(self, sums: np.ndarray) -> list[np.ndarray | None]:
        """Weighted mean, scale, whitening factor and whitened slice moments, per replicate
        (the slice means by :func:`sdrstats.stats.moment_kernels.whiten_slice_sums`)."""
        p, iu = self.p, self.iu
        counts, lin = sums[:, :, 0], sums[:, :, 1 : p + 1]  # (b, h), (b, h, p)
        quad = np.zeros(sums.shape[:2] + (p, p))
        quad[..., iu[0], iu[1]] = sums[..., p + 1 :]
        quad[..., iu[1], iu[0]] = sums[..., p + 1 :]
        w = whiten_slice_sums(counts, lin, quad.sum(axis=1))
        total, mean, cov, scale, chol, means = w.total, w.mean, w.cov, w.scale, w.chol, w.means
        second = None
        if self.estimator.second_moments:
            # E_s[(x-m)(x-m)'] = Q_s/n_s - mu_s m' - m mu_s' + m m', then whitened.
            filled = counts > 0
            safe = np.where(filled, counts, 1.0)
            mu, mean_outer = w.slice_means, mean[:, :, None] * mean[:, None, :]
            outer_scale = scale[:, :, None] * scale[:, None, :]
            raw = quad / safe[..., None, None]
            raw -= mu[..., :, None] * mean[:, None, None, :]
            raw -= mean[:, None, :, None] * mu[..., None, :]
            raw += mean_outer[:, None]
            raw = np.where(filled[..., None, None], raw, cov[:, None])  # empty slice: weight 0
            scaled = raw / outer_scale[:, None]
            L = np.broadcast_to(chol[:, None], scaled.shape)
            left = np.linalg.solve(L, scaled)
            second = np.linalg.solve(L, np.swapaxes(left, -1, -2))
            if self.correction is not None:
                # A*_s - (Â_s - P Â_s P), the correction in the replicate's whitening:
                # V*_s grows by it, so the second moments do (see ``centered``)
                moved = self.correction[None] / outer_scale[:, None]
                moved = np.linalg.solve(L, moved)
                second = second + np.linalg.solve(L, np.swapaxes(moved, -1, -2))
        return [total, mean, scale, chol, counts, means, second]


__all__ = [
    "FEATURE_CELLS",
    "MAX_FEATURE_CELLS",
    "PoissonSliceSums",
    "WINDOW",
    "WeightedReplicates",
]
