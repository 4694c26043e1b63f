"""Bootstrap replicates of a fit: the engine behind ``bootstrap``, ladle and Ye–Weiss.

Two paths give the same numbers as refitting the estimator on a resample:

- **Slice moment methods** (SIR, SAVE, DR): replicate ``b`` is the weighted refit with the
  multinomial counts ``c_b`` as frequency weights and the full-sample slices. Every statistic
  those kernels use — slice counts, slice sums and slice cross-products of the predictors — is
  linear in the weights, so one pass builds the per-observation features
  ``[1, x, vech(x xᵀ)]`` (sorted by slice) and a block of replicates is one matrix product
  ``counts (b × n_s) @ features (n_s × k)`` per slice. Each replicate then costs only p×p work:
  whitening, the method's own kernel and one eigen-decomposition.
- **Every other method**: rows are resampled and the estimator is refitted through
  ``results.refit`` with its own options (and a seed of its own for restarts).

Replicate ``b`` draws from child ``b`` of ``random_state`` (SeedSequence.spawn), so the results
do not depend on ``n_jobs`` or on how replicates are grouped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from .._parallel import effective_n_jobs, parallel_map, spawn_seeds

#: Replicates per task of the fast moment path (fixed, so results never depend on n_jobs).
CHUNK = 50
#: Largest n × (number of features) the fast path builds; beyond it, refits are used.
MAX_FEATURE_CELLS = 60_000_000


@dataclass
class Replicates:
    """Bases (and eigenvalues) of the bootstrap refits.

    ``bases[b]`` is ``None`` when replicate ``b`` failed (e.g. a resample with a constant
    predictor); ``errors`` keeps the first few messages.
    """

    bases: list[np.ndarray | None]
    eigenvalues: list[np.ndarray | None]
    engine: str
    errors: list[str] = field(default_factory=list)

    @property
    def n_failed(self) -> int:
        return sum(b is None for b in self.bases)


def multinomial_counts(seed: Any, n: int) -> np.ndarray:
    """Counts of each row in one bootstrap resample of ``n`` rows (drawn with replacement)."""
    rng = np.random.default_rng(seed)
    return np.bincount(rng.integers(0, n, size=n), minlength=n)


def fast_path_supported(results: Any) -> bool:
    """Whether the fit's kernel is a function of weighted slice moments only."""
    from ..moment.methods import DR, SAVE, SIR, MomentEstimator

    est = results.estimator
    if not isinstance(est, MomentEstimator) or not est.uses_slices:
        return False
    known = type(est).kernel in (SIR.kernel, SAVE.kernel, DR.kernel)
    if not (known or getattr(est, "kernel_from_moments", False)):
        return False
    p = results.p
    return results.n * (1 + p + p * (p + 1) // 2) <= MAX_FEATURE_CELLS


class _MomentPlan:
    """One pass over the rows: slice order and the per-observation features."""

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

    def chunk(self, seeds: list[Any]) -> list[tuple[np.ndarray, np.ndarray] | str]:
        """Bases and eigenvalues of the replicates drawn from ``seeds``."""
        counts = np.stack([multinomial_counts(s, self.n) for s in seeds])[:, self.order]
        h = self.slices.nslices
        sums = np.empty((len(seeds), h, self.features.shape[1]))
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
        for b in range(len(seeds)):
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
        from ..moment._core import SliceMoments, Standardized

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


def _refit_one(
    seed: Any, results: Any, changes: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray | None] | str:
    rng = np.random.default_rng(seed)
    X, Y = results.spec.X, results.spec.Y
    rows = rng.integers(0, X.shape[0], size=X.shape[0])
    try:
        out = results.refit(X[rows], Y[rows], random_state=int(rng.integers(2**31 - 1)), **changes)
    except (ValueError, np.linalg.LinAlgError) as err:
        return str(err)
    if out.basis is None:
        return "the refit has no linear directions"
    ev = None if out.eigenvalues is None else np.asarray(out.eigenvalues, dtype=float)
    return np.asarray(out.basis, dtype=float), ev


def _chunk_refits(
    seeds: list[Any], results: Any, changes: dict[str, Any]
) -> list[tuple[np.ndarray, np.ndarray | None] | str]:
    return [_refit_one(s, results, changes) for s in seeds]


def bootstrap_replicates(
    results: Any,
    B: int,
    *,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    changes: dict[str, Any] | None = None,
    engine: str = "auto",
    desc: str = "bootstrap",
) -> Replicates:
    """``B`` bootstrap replicates of ``results``.

    Parameters
    ----------
    results : Results
        A fitted result with linear directions.
    B : int
        Number of replicates.
    random_state : int, SeedSequence, Generator or None
        Replicate ``b`` uses child ``b`` of this seed.
    n_jobs : int, default 1
        joblib workers; results do not depend on it.
    progress : bool
        tqdm bar for loops longer than about 2 s.
    changes : dict, optional
        Option changes for the refits (e.g. ``{"d": 2}``); forces the refit path.
    engine : {"auto", "moments", "refit"}
        ``"auto"`` uses the weighted-moment path where the method allows it.
    """
    changes = dict(changes or {})
    seeds = spawn_seeds(random_state, B)
    chunks = [seeds[i : i + CHUNK] for i in range(0, B, CHUNK)]
    use_moments = engine == "moments" or (
        engine == "auto" and not changes and fast_path_supported(results)
    )
    if engine == "moments" and changes:
        raise ValueError(
            "The weighted-moment bootstrap refits with the fit's own options; "
            f"option changes {sorted(changes)} need engine='refit'."
        )
    if engine == "moments" and not fast_path_supported(results):
        raise ValueError(f"The weighted-moment bootstrap is not available for {results.method}.")
    if use_moments:
        plan = _MomentPlan(results)
        fn: Any = plan.chunk
        name = "weighted slice moments"
    else:
        fn = partial(_chunk_refits, results=results, changes=changes)
        name = "refit on resampled rows"
    if not use_moments and n_jobs not in (None, 1):
        # Refits dominate: about four tasks per worker balance the load while the fit
        # (and its data) is sent to the workers only a few times. Each replicate keeps its
        # own seed, so the grouping does not change the results.
        size = max(1, -(-B // (4 * effective_n_jobs(n_jobs))))
        chunks = [seeds[i : i + size] for i in range(0, B, size)]
    pieces = parallel_map(fn, chunks, n_jobs=n_jobs, progress=progress, desc=desc)
    bases: list[np.ndarray | None] = []
    values: list[np.ndarray | None] = []
    errors: list[str] = []
    for piece in pieces:
        for item in piece:
            if isinstance(item, str):
                bases.append(None)
                values.append(None)
                if len(errors) < 5:
                    errors.append(item)
            else:
                bases.append(item[0])
                values.append(item[1])
    return Replicates(bases, values, name, errors)


def procrustes_cosines(reference: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """|cos| of each reference direction with its match in span(``basis``).

    The bootstrap subspace's orthonormal basis ``Q`` is rotated by the orthogonal ``R``
    minimising ``||Q R - reference||_F`` (orthogonal Procrustes); column ``j`` of ``Q R`` is
    the match of reference direction ``j``.
    """
    q, _ = np.linalg.qr(basis)
    u, _, vt = np.linalg.svd(q.T @ reference, full_matrices=False)
    matched = q @ (u @ vt)
    norms = np.linalg.norm(reference, axis=0) * np.linalg.norm(matched, axis=0)
    return np.abs(np.sum(matched * reference, axis=0)) / norms


__all__ = [
    "Replicates",
    "bootstrap_replicates",
    "fast_path_supported",
    "multinomial_counts",
    "procrustes_cosines",
]
