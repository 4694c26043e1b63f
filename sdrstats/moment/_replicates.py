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
        self.estimator = est
        self.Y = Y
        self.n, self.p = X.shape
        self.slices = est._slices(Y, self.p)  # the same slices a weighted refit uses
        self.order = np.argsort(self.slices.labels, kind="stable")
        sizes = np.bincount(self.slices.labels, minlength=self.slices.nslices)
        self.bounds = np.concatenate([[0], np.cumsum(sizes)])
        self.center = X.mean(axis=0)
        self.spread = X.std(axis=0)
        self.spread[self.spread == 0] = 1.0
        x0 = ((X - self.center) / self.spread)[self.order]
        self.iu = np.triu_indices(self.p)
        self.features = np.hstack([np.ones((self.n, 1)), x0, x0[:, self.iu[0]] * x0[:, self.iu[1]]])

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
        counts = np.asarray(counts, dtype=float)[:, self.order]
        n_reps = counts.shape[0]
        h = self.slices.nslices
        sums = np.empty((n_reps, h, self.features.shape[1]))
        for s in range(h):
            lo, hi = self.bounds[s], self.bounds[s + 1]
            sums[:, s] = counts[:, lo:hi] @ self.features[lo:hi]
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
            kernels.append(est.kernel(std, moments, self.Y))
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
