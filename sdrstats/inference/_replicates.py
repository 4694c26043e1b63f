"""Bootstrap replicates of a fit: the engine behind ``bootstrap``, ladle and Ye–Weiss.

Two paths give the same numbers as refitting the estimator on a resample:

- **Methods with a weighted replicate kernel** (``capabilities.weighted_replicates``; SIR, SAVE
  and DR): replicate ``b`` is the weighted fit with the multinomial counts ``c_b`` as case
  weights. This module draws the counts; the fit's kernel (``estimator.replicate_kernel``, the
  moment family's ``WeightedReplicates``) turns a block of them into bases and eigenvalues.
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

from ..core.parallel import effective_n_jobs, parallel_map, spawn_seeds

#: Replicates per task of the weighted path (fixed, so results never depend on n_jobs).
CHUNK = 50


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
    """Whether the fit offers a weighted replicate kernel (``estimator.replicate_kernel``)."""
    return results.estimator.replicate_kernel(results) is not None


class _WeightedChunk:
    """Replicates of a block of seeds through the fit's weighted kernel (picklable task)."""

    def __init__(self, kernel: Any, n: int) -> None:
        self.kernel = kernel
        self.n = n

    def __call__(self, seeds: list[Any]) -> list[tuple[np.ndarray, np.ndarray] | str]:
        counts = np.stack([multinomial_counts(s, self.n) for s in seeds])
        return self.kernel.replicates(counts)


def _refit_one(
    seed: Any, results: Any, changes: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray | None] | str:
    rng = np.random.default_rng(seed)
    X, Y = results.spec.X, results.spec.Y
    rows = rng.integers(0, X.shape[0], size=X.shape[0])
    try:
        out = results.refit(
            X[rows], Y[rows], random_state=int(rng.integers(2**31 - 1)), rows=rows, **changes
        )
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
    kernel = None if engine == "refit" or changes else results.estimator.replicate_kernel(results)
    use_moments = kernel is not None
    if engine == "moments" and changes:
        raise ValueError(
            "The weighted-moment bootstrap refits with the fit's own options; "
            f"option changes {sorted(changes)} need engine='refit'."
        )
    if engine == "moments" and kernel is None:
        raise ValueError(f"The weighted-moment bootstrap is not available for {results.method}.")
    if use_moments:
        fn: Any = _WeightedChunk(kernel, results.n)
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
