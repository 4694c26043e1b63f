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

Two resampling schemes: ``"multinomial"`` (``n`` rows drawn with replacement, the classical
bootstrap) and ``"poisson"`` (every row an independent Poisson(1) count keyed by its position,
:mod:`.poisson`; a weighted kernel forms its replicates' slice sums in one more pass over the
fit's rows, in memory or on chunks and Dask partitions alike, through its
``poisson_replicates``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ..base.budget import SEED_BYTES, STEP_SECONDS, check_count
from ..base.parallel import (
    as_seed_sequence,
    blas_threads_of,
    effective_n_jobs,
    parallel_map,
    spawn_seeds,
)
from .poisson import counts_from_keys, replicate_keys

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


#: Resampling schemes of ``bootstrap(scheme=...)``.
SCHEMES = ("multinomial", "poisson", "centered")


def centering_supported(results: Any) -> bool:
    """Whether the fit's replicate kernel offers the centred bootstrap (SAVE in memory)."""
    kernel = results.estimator.replicate_kernel(results)
    return kernel is not None and bool(getattr(kernel, "supports_centering", False))


def row_positions(results: Any) -> np.ndarray:
    """0-based positions of the fitted rows among the rows given (the Poisson counts' keys)."""
    n = results.spec.X.shape[0]
    positions = getattr(results.spec, "positions", None)
    if positions is None:
        return np.arange(n)
    positions = np.asarray(positions, dtype=np.int64)
    if positions.shape != (n,):
        raise ValueError(
            f"The fit records {positions.size} row positions for its {n} rows; refit it to "
            "use the Poisson bootstrap."
        )
    return positions


def in_memory_poisson_counts(keys: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Poisson counts (b × n) of the fitted rows at ``positions`` for the replicates ``keys``."""
    if positions.size == 0:
        return np.zeros((keys.shape[0], 0), dtype=np.uint8)
    if positions.size == positions[-1] + 1:  # rows 0..n-1: no gather needed
        return counts_from_keys(keys, 0, positions.size)
    return counts_from_keys(keys, 0, int(positions.max()) + 1)[:, positions]


def _refit_one(
    seed: Any,
    results: Any,
    changes: dict[str, Any],
    scheme: str = "multinomial",
    positions: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None] | str:
    X, Y = results.spec.X, results.spec.Y
    if scheme == "poisson":
        key, child = seed
        counts = in_memory_poisson_counts(key[None], positions)[0]
        rows = np.repeat(np.arange(X.shape[0]), counts)
        # the refit's own seed: a grandchild of replicate b's SeedSequence child, so it is
        # independent of the Philox stream of the counts (keyed by the child itself)
        rng = np.random.default_rng(child.spawn(1)[0])
    else:
        rng = np.random.default_rng(seed)
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
    seeds: list[Any],
    results: Any,
    changes: dict[str, Any],
    scheme: str = "multinomial",
    positions: np.ndarray | None = None,
) -> list[tuple[np.ndarray, np.ndarray | None] | str]:
    return [_refit_one(s, results, changes, scheme, positions) for s in seeds]


def check_replicates(results: Any, B: int, desc: str, option: str = "B") -> None:
    """Refuse ``B`` replicates of ``results`` past ``sdr.set_config``'s memory or time limit,
    before any seed is drawn.

    A replicate keeps its seed, its basis and values (``p × p``) and its distance; a pass
    over chunked data adds its ``h × (1 + p + p(p+1)/2)`` weighted slice sums; and it takes
    at least :data:`~sdrstats.base.budget.STEP_SECONDS`. :func:`parallel_map` then times
    the first replicates and refuses the loop if the rest would run past the limit.
    """
    p = results.p
    per = SEED_BYTES + 16.0 * p * p + 64.0
    if not results.spec.X.shape[0]:  # a fit without rows: one pass holding every replicate
        h = len(results.output.extras.get("slice_sizes", ())) or 10
        per += 8.0 * h * (1 + p + p * (p + 1) / 2)
    check_count(desc, option, B, unit="replicates", seconds_each=STEP_SECONDS,
                bytes_each=per, at=f" at n = {results.n:,}, p = {p}")  # fmt: skip


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
    scheme: str = "multinomial",
    d: int | None = None,
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
    scheme : {"multinomial", "poisson", "centered"}
        Multinomial counts (``n`` rows drawn with replacement), or a Poisson(1) count per row
        keyed by the row's position (:mod:`sdrstats.inference.poisson`), or multinomial
        counts in a world centred on the fitted ``d``-dimensional subspace (the kernel's
        ``centered(d)``; SAVE).
    d : int, optional
        The fitted dimension the ``"centered"`` scheme centres on (required by it).
    """
    changes = dict(changes or {})
    if scheme not in SCHEMES:
        raise ValueError(f"The 'scheme' option must be one of {list(SCHEMES)}; got {scheme!r}.")
    check_replicates(results, B, desc)
    kernel = None if engine == "refit" or changes else results.estimator.replicate_kernel(results)
    if scheme == "poisson":
        return _poisson_replicates(
            results, B, random_state, n_jobs, progress, changes, engine, desc, kernel
        )
    seeds = spawn_seeds(random_state, B)
    chunks = [seeds[i : i + CHUNK] for i in range(0, B, CHUNK)]
    use_moments = kernel is not None
    if engine == "moments" and changes:
        raise ValueError(
            "The weighted-moment bootstrap refits with the fit's own options; "
            f"option changes {sorted(changes)} need engine='refit'."
        )
    if engine == "moments" and kernel is None:
        raise ValueError(f"The weighted-moment bootstrap is not available for {results.method}.")
    if scheme == "centered":
        if kernel is None or not getattr(kernel, "supports_centering", False):
            raise ValueError(
                f"The 'scheme' option 'centered' is not available for this {results.method} "
                "fit (it needs SAVE's weighted replicates of rows in memory, without case "
                "weights or groups); use scheme='multinomial'."
            )
        if d is None:
            raise ValueError("The 'centered' bootstrap needs the fitted dimension d.")
        kernel = kernel.centered(d)
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
    pieces = parallel_map(
        fn,
        chunks,
        n_jobs=n_jobs,
        progress=progress,
        desc=desc,
        count_option=("B", B),
        blas_threads=blas_threads_of(results.spec.X.shape[1]),  # p x p work per replicate
    )
    return _collect(pieces, name)


def _poisson_replicates(
    results: Any,
    B: int,
    random_state: Any,
    n_jobs: int | None,
    progress: bool,
    changes: dict[str, Any],
    engine: str,
    desc: str,
    kernel: Any,
) -> Replicates:
    """The ``"poisson"`` scheme: replicate ``b`` weights row ``i`` by its Poisson count."""
    base = as_seed_sequence(random_state)  # a Generator is consumed once, here
    keys = replicate_keys(base, range(B))
    if kernel is not None:  # weighted slice sums: one pass over the rows, wherever they live
        items = kernel.poisson_replicates(keys, n_jobs=n_jobs, progress=progress, desc=desc)
        return _collect([items], "weighted slice moments, one pass over the data")
    if not results.spec.X.shape[0]:
        raise ValueError(
            f"The Poisson bootstrap of this {results.method} fit needs its rows or its data "
            "source, and it has neither; fit it again on the data."
        )
    if engine == "moments":
        raise ValueError(f"The weighted-moment bootstrap is not available for {results.method}.")
    positions = row_positions(results)
    seeds = list(zip(keys, spawn_seeds(base, B)))
    size = CHUNK if n_jobs in (None, 1) else max(1, -(-B // (4 * effective_n_jobs(n_jobs))))
    blocks = [seeds[i : i + size] for i in range(0, B, size)]
    fn = partial(
        _chunk_refits, results=results, changes=changes, scheme="poisson", positions=positions
    )
    pieces = parallel_map(
        fn,
        blocks,
        n_jobs=n_jobs,
        progress=progress,
        desc=desc,
        count_option=("B", B),
        blas_threads=blas_threads_of(results.spec.X.shape[1]),  # p x p work per replicate
    )
    return _collect(pieces, "refit on rows repeated by their Poisson counts")


def _collect(pieces: list[list[Any]], name: str) -> Replicates:
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
    "SCHEMES",
    "centering_supported",
    "check_replicates",
    "Replicates",
    "in_memory_poisson_counts",
    "row_positions",
    "bootstrap_replicates",
    "fast_path_supported",
    "multinomial_counts",
    "procrustes_cosines",
]
