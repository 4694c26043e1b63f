"""Nonparametric bootstrap of a fitted subspace (``Results.bootstrap``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.parallel import resolve_random_state
from ..core.summary import dir_labels
from ..core.validation import check_choice, check_int
from ..stats.distances import DISTANCES
from ._reference import batched_measures, default_dimension, reference_basis
from ._replicates import bootstrap_replicates
from .bootstrap_result import QUANTILES, BootstrapResult
from .embedding import embedding_bootstrap


def bootstrap(
    results: Any,
    B: int = 200,
    d: int | None = None,
    distance: str = "projection",
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
) -> BootstrapResult:
    """Nonparametric bootstrap of a fitted subspace.

    Parameters
    ----------
    results : Results
        A fit; one without linear directions (kernel SPCA) is compared through its
        embedding of the training rows (:mod:`sdrstats.inference.embedding`).
    B : int, default 200
        Number of bootstrap replicates.
    d : int, optional
        Dimension of the subspace compared. Default: the fit's ``d`` when it was given when
        fitting or chosen by the method (cross-validation); else, for a method with a
        large-sample dimension test (SIR, SAVE, pHd, IRE), the ``d`` that test chooses at
        level 0.05; else the fit's default ``d``. The summary prints which rule chose it
        (``BootstrapResult.d_rule``); see :func:`default_dimension`.
    distance : {"projection", "det", "trace_correlation"}
        Distance of each replicate subspace to the full-sample one (see
        :mod:`sdrstats.stats.distances`; ``trace_correlation`` enters as ``1 - r``).
    random_state : int, SeedSequence, Generator or None
        Seed of the resampling; replicate ``b`` uses child ``b``.
    n_jobs : int, default 1
        joblib workers; results are identical for any ``n_jobs``.
    progress : bool, default True
        Progress bar when the loop runs over about 2 s.

    Returns
    -------
    BootstrapResult

    Notes
    -----
    SIR, SAVE and DR replicates are the weighted fits with multinomial counts as case
    weights on the full-sample slices, computed from per-observation slice statistics (one
    pass over the data, then p×p work per replicate); other methods are refitted on resampled
    rows with their own options and a seed per replicate.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=1)
    >>> boot = fit.bootstrap(B=50, random_state=0, progress=False)
    >>> bool(boot.stability["Dir1"] > 0.9)
    True
    """
    name = results.method
    random_state = resolve_random_state(random_state)  # recorded, so None is repeatable
    B = check_int(B, "B", "bootstrap", low=2)
    check_choice(distance, "distance", "bootstrap", sorted(DISTANCES))
    if results.output.basis is None:
        d, d_rule = (
            (results.d, "the fit's d")
            if d is None
            else (check_int(d, "d", "bootstrap", low=1), "given")
        )
        return embedding_bootstrap(
            results, B, d, distance, random_state, n_jobs, progress, d_rule=d_rule
        )
    if d is None:
        d, d_rule = default_dimension(results)
    else:
        d, d_rule = check_int(d, "d", "bootstrap", low=1, high=results.p), "given"
    reference, changes = reference_basis(results, d)
    reps = bootstrap_replicates(
        results,
        B,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        changes=changes,
        desc=f"bootstrap {name}",
    )
    p = results.p
    distances = np.full(B, np.nan)
    cosines = np.full((B, d), np.nan)
    directions = np.full((B, p, d), np.nan)
    if reps.n_failed == B:
        raise ValueError(
            f"Every bootstrap replicate of {name} failed; first error: {reps.errors[0]}"
        )
    good = np.array([b for b, basis in enumerate(reps.bases) if basis is not None])
    directions[good] = np.stack([reps.bases[b][:, :d] for b in good])
    distances[good], cosines[good] = batched_measures(reference, directions[good], distance)
    frame = pd.DataFrame(reference, index=results.x_names, columns=dir_labels(d))
    return BootstrapResult(
        distances=distances,
        cosines=cosines,
        directions=directions,
        reference=frame,
        distance=distance,
        method=name,
        random_state=random_state,
        engine=reps.engine,
        errors=reps.errors,
        d_rule=d_rule,
    )


__all__ = [
    "BootstrapResult",
    "bootstrap",
    "batched_measures",
    "default_dimension",
    "reference_basis",
    "QUANTILES",
]
