"""Bootstrap of a fit without linear directions, by its embedding of the training rows.

A kernel method (kernel SPCA...) has no basis whose variability could be
measured, but every fit maps rows to ``d`` reduced predictors. Each replicate is refitted on
resampled rows with the fit's own options and then embeds the fixed reference set -- the
full sample's training rows -- through the estimator's generic ``transform_arrays``. The two
``n × d`` embeddings are compared by the distance between their (centred) column spaces,
which is invariant to any rotation or rescaling of the embedding coordinates; per-dimension
stability is the canonical correlations of the two embeddings (the cosines of the principal
angles between the column spaces, largest first).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..base.budget import SEED_BYTES, STEP_SECONDS, check_count
from ..base.parallel import effective_n_jobs, parallel_map, spawn_seeds
from ..base.tables import dir_labels
from .bootstrap_result import BootstrapResult


def _embed_one(seed: Any, results: Any, d: int) -> np.ndarray | str:
    rng = np.random.default_rng(seed)
    X, Y = results.spec.X, results.spec.Y
    rows = rng.integers(0, X.shape[0], size=X.shape[0])
    changes = {"d": d} if d > results.d else {}  # enough components for d
    try:
        out = results.refit(X[rows], Y[rows], random_state=int(rng.integers(2**31 - 1)), **changes)
        emb = results.estimator.transform_arrays(out, X, d)
    except (ValueError, np.linalg.LinAlgError) as err:
        return str(err)
    return np.asarray(emb, dtype=float)


def _chunk(seeds: list[Any], results: Any, d: int) -> list[np.ndarray | str]:
    return [_embed_one(s, results, d) for s in seeds]


def _column_space(E: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the centred column space of an n × d embedding."""
    q, _ = np.linalg.qr(E - E.mean(axis=0))
    return q


def embedding_measures(
    reference: np.ndarray, embedding: np.ndarray, distance: str
) -> tuple[float, np.ndarray]:
    """Distance between the column spaces of two ``n × d`` embeddings, and their canonical
    correlations (descending).

    ``projection`` is ``||P_ref - P_b||_F``; ``det`` is ``1 - prod(rho)``;
    ``trace_correlation`` is ``1 - mean(rho**2)``, with ``rho`` the canonical correlations.
    """
    q_ref, q = _column_space(reference), _column_space(embedding)
    rho = np.clip(np.linalg.svd(q_ref.T @ q, compute_uv=False), 0.0, 1.0)
    d = reference.shape[1]
    if distance == "projection":
        dist = float(np.sqrt(max(0.0, 2.0 * (d - np.sum(rho**2)))))
    elif distance == "det":
        dist = float(max(0.0, 1.0 - np.prod(rho)))
    else:
        dist = float(1.0 - np.sum(rho**2) / d)
    return dist, rho


def embedding_bootstrap(
    results: Any,
    B: int,
    d: int,
    distance: str,
    random_state: Any,
    n_jobs: int | None,
    progress: bool,
    d_rule: str = "given",
) -> Any:
    """Bootstrap by embeddings of the training rows (called by :func:`bootstrap`)."""
    name = results.method
    X = results.spec.X
    output = results.output
    coef = output.extras.get("coef")
    # a replicate keeps an embedding of every training row: n x d floats
    check_count(f"bootstrap {name}", "B", B, unit="replicates", seconds_each=STEP_SECONDS,
                bytes_each=SEED_BYTES + 8.0 * (len(X) + 2) * d + 64.0,
                at=f" at n = {len(X):,}")  # fmt: skip
    if coef is not None and d > np.asarray(coef).shape[1]:
        # more components than the fit computed: the full sample's fit at d is the reference
        output = results.refit(X, results.spec.Y, random_state=results.random_state, d=d)
    reference = np.asarray(results.estimator.transform_arrays(output, X, d), float)
    seeds = spawn_seeds(random_state, B)
    size = max(1, -(-B // (4 * effective_n_jobs(n_jobs))))
    chunks = [seeds[i : i + size] for i in range(0, B, size)]
    pieces = parallel_map(
        partial(_chunk, results=results, d=d),
        chunks,
        n_jobs=n_jobs,
        progress=progress,
        desc=f"bootstrap {name}",
        count_option=("B", B),
    )
    items = [item for piece in pieces for item in piece]
    distances = np.full(B, np.nan)
    cors = np.full((B, d), np.nan)
    embeddings = np.full((B,) + reference.shape, np.nan)
    errors = [item for item in items if isinstance(item, str)][:5]
    if len(errors) and all(isinstance(item, str) for item in items):
        raise ValueError(f"Every bootstrap replicate of {name} failed; first error: {errors[0]}")
    for b, item in enumerate(items):
        if not isinstance(item, str):
            embeddings[b] = item
            distances[b], cors[b] = embedding_measures(reference, item, distance)
    frame = pd.DataFrame(reference, index=results.spec.index, columns=dir_labels(d))
    return BootstrapResult(
        distances=distances,
        cosines=cors,
        directions=embeddings,
        reference=frame,
        distance=distance,
        method=name,
        random_state=random_state,
        engine="refit on resampled rows, embedding of the training rows",
        errors=errors,
        kind="embedding",
        d_rule=d_rule,
    )


__all__ = ["embedding_bootstrap", "embedding_measures"]
