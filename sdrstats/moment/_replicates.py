"""Weighted bootstrap replicates of SIR, SAVE and DR without refitting row by row.

Every statistic these kernels use — slice weights, slice sums and slice cross-products of the
predictors — is linear in the case weights, so replicate ``b`` (multinomial counts ``c_b`` as
frequency weights, the full-sample slices) needs only ``counts (b × n_s) @ features (n_s × k)``
per slice, then p×p work: whitening, the method's own kernel and one eigen-decomposition. The
inference layer draws the counts and asks the fit for this kernel
(``estimator.replicate_kernel(results)``); it never imports the moment family.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._core import SliceMoments, Standardized

#: Largest n × (number of features) the weighted path builds; beyond it, refits are used.
MAX_FEATURE_CELLS = 60_000_000


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

    def _setup(self, estimator: Any, slices: Any, center: np.ndarray, spread: np.ndarray) -> None:
        self.estimator = estimator
        self.slices = slices
        self.center = np.asarray(center, dtype=float)
        self.spread = np.asarray(spread, dtype=float)
        self.p = self.center.size
        self.iu = np.triu_indices(self.p)
        self.Y = None

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
        """Weighted mean, scale, whitening factor and whitened slice moments, per replicate."""
        p, iu = self.p, self.iu
        counts, lin = sums[:, :, 0], sums[:, :, 1 : p + 1]  # (b, h), (b, h, p)
        quad = np.zeros(sums.shape[:2] + (p, p))
        quad[..., iu[0], iu[1]] = sums[..., p + 1 :]
        quad[..., iu[1], iu[0]] = sums[..., p + 1 :]
        total = counts.sum(axis=1)  # (b,)
        mean = lin.sum(axis=1) / total[:, None]
        mean_outer = mean[:, :, None] * mean[:, None, :]
        cov = quad.sum(axis=1) / total[:, None, None] - mean_outer
        scale = np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0.0, None))
        if np.any(scale <= 1e-12 * scale.max(axis=1, keepdims=True)):
            raise ValueError("A predictor is constant in this resample.")
        outer_scale = scale[:, :, None] * scale[:, None, :]
        corr = cov / outer_scale
        chol = np.linalg.cholesky((corr + np.swapaxes(corr, 1, 2)) / 2)
        filled = counts > 0
        safe = np.where(filled, counts, 1.0)
        mu = np.where(filled[..., None], lin / safe[..., None], mean[:, None, :])
        centred = ((mu - mean[:, None, :]) / scale[:, None, :]).transpose(0, 2, 1)
        means = np.linalg.solve(chol, centred).transpose(0, 2, 1)  # z-bar_s = L^{-1} ...
        second = None
        if self.estimator.second_moments:
            # E_s[(x-m)(x-m)'] = Q_s/n_s - mu_s m' - m mu_s' + m m', then whitened.
            raw = quad / safe[..., None, None]
            raw -= mu[..., :, None] * mean[:, None, None, :]
            raw -= mean[:, None, :, None] * mu[..., None, :]
            raw += mean_outer[:, None]
            raw = np.where(filled[..., None, None], raw, cov[:, None])  # empty slice: weight 0
            scaled = raw / outer_scale[:, None]
            L = np.broadcast_to(chol[:, None], scaled.shape)
            left = np.linalg.solve(L, scaled)
            second = np.linalg.solve(L, np.swapaxes(left, -1, -2))
        return [total, mean, scale, chol, counts, means, second]


__all__ = ["WeightedReplicates", "MAX_FEATURE_CELLS"]
