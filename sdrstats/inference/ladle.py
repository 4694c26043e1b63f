"""Bootstrap rules for the dimension: the ladle (Luo & Li 2016) and Ye & Weiss (2003)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..base.parallel import call_seed
from ..base.validation import accepts_aliases, check_choice, check_int
from ..stats.distances import DISTANCES, orthonormal_basis, subspace_distance
from ._replicates import bootstrap_replicates
from .dimension_test import DimensionTest
from .embedding import _column_space, embedding_bootstrap
from .permutation import require_eigenvalues


def default_d_max(p: int) -> int:
    """Luo & Li's largest candidate: ``p - 2`` if ``p <= 10``, else ``floor(p / log p)``.

    Examples
    --------
    >>> default_d_max(6), default_d_max(20)
    (4, 6)
    """
    return p - 2 if p <= 10 else int(math.floor(p / math.log(p)))


def given_d_max(results: Any) -> int | None:
    """The fit's ``d_max`` when the user set it (not its class default), else None.

    The moment methods' default ``d_max = 4`` is R ``dr``'s ``numdir`` (directions shown and
    tested); a rule with a recommended range of its own (the ladle's) keeps that range
    unless the user chose another.
    """
    own = results.options.get("d_max")
    default = results.estimator.params.get("d_max")
    return int(own) if own is not None and own != default else None


def _d_max(results: Any, d_max: int | None, columns: int, rule: str) -> int:
    """The largest candidate: the call's, else the fit's ``d_max`` option, else Luo & Li's;
    at most ``p - 1`` and the ``columns`` (directions or components) the fit has."""
    limit = min(results.p - 1, columns)
    if limit < 1:
        raise ValueError(
            f"The {rule!r} dimension test is not available for {results.method}: it compares "
            f"candidate dimensions k >= 1, and this fit has {columns} direction(s) for "
            f"p = {results.p} predictor(s)."
        )
    if d_max is None:
        own = given_d_max(results)
        d_max = min(own if own is not None else max(1, default_d_max(results.p)), limit)
    d_max = check_int(d_max, "d_max", f"the {rule} rule", low=1, high=max(1, limit))
    if d_max < 1:
        raise ValueError(f"The {rule} rule needs at least 3 predictors; got p = {results.p}.")
    return d_max


@accepts_aliases({"numdir": "d_max"})
def ladle(
    results: Any,
    *,
    B: int = 200,
    d_max: int | None = None,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
) -> DimensionTest:
    """Ladle estimate of the dimension (Luo & Li 2016).

    Parameters
    ----------
    results : Results
        A fit with eigenvalues.
    B : int, default 200
        Bootstrap replicates.
    d_max : int, optional
        Largest candidate dimension (R's ``numdir`` is an alias); default the fit's ``d_max``
        when it was given, else ``p - 2`` if ``p <= 10`` and ``floor(p / log p)``
        beyond (capped at ``p - 1`` and at the directions the fit has; a kernel of rank
        ``r`` has ``r``, and the eigenvalue after the last is 0).
    random_state, n_jobs, progress : optional
        As :func:`sdrstats.inference.bootstrap.bootstrap`; by default the fit's
        ``"test_dimension/ladle"`` stream.

    Returns
    -------
    DimensionTest
        ``table`` indexed by ``k = 0..d_max`` with columns ``f`` (scaled bootstrap
        eigenvector variability), ``phi`` (scaled eigenvalue) and ``g = f + phi``; ``d`` is
        the minimiser of ``g``.

    See Also
    --------
    DimensionTest : What it returns.
    permutation_test, bootstrap_dimension : The other resampling rules.

    Notes
    -----
    With ``B̂_k`` the first ``k`` estimated directions and ``B*_{k,b}`` those of replicate
    ``b``, ``f0(k) = mean_b (1 - |det(Q̂_kᵀ Q*_{k,b})|)`` (``Q`` orthonormal bases, original
    predictor scale; ``f0(0) = 0``), ``f(k) = f0(k) / (1 + Σ_i f0(i))`` and
    ``phi(k) = λ_{k+1} / (1 + Σ_i λ_{i+1})`` over ``i = 0..d_max``, with ``λ`` the
    ``|eigenvalues|`` in decreasing order. Eigenvectors vary little below the true dimension
    and a lot beyond it, while eigenvalues are large below it and small beyond: ``g`` has
    its minimum (the ladle's bowl) at the dimension.

    Calibration (``benchmarks/calibration.md``; normal predictors, n = 200, p = 6, SIR,
    B = 100, 1000 replications): d = 1 was chosen in 99.8% of the runs of a single-index
    model, and d = 2 in 63% of the runs of Li's (1991) two-index model (d = 1 in 35%).

    References
    ----------
    :cite:t:`luo2016`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    >>> fit.test_dimension("ladle", B=50, random_state=0, progress=False).d
    1
    """
    name = results.method
    random_state = call_seed(results, random_state, "test_dimension/ladle")  # recorded
    if results.output.basis is None and results.output.eigenvalues is not None:
        return _embedding_ladle(results, B, d_max, random_state, n_jobs, progress)
    eig = np.sort(
        require_eigenvalues(
            results, "ladle", "the ladle combines eigenvalues with eigenvector variability, and"
        )
    )[::-1]
    B = check_int(B, "B", "the ladle rule", low=2)
    # a kernel of rank r (SPCA with one response) has r eigenvalues and directions: the
    # candidates stop at r, and the eigenvalue after the last is zero
    d_max = _d_max(results, d_max, min(len(eig), results.output.basis.shape[1]), "ladle")
    reps = bootstrap_replicates(
        results,
        B,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        desc=f"ladle {name}",
    )
    full = np.asarray(results.output.basis, dtype=float)
    f0 = np.zeros(d_max + 1)
    good = [b for b in reps.bases if b is not None]
    if not good:
        raise ValueError(f"Every bootstrap replicate of {name} failed: {reps.errors[0]}")
    for k in range(1, d_max + 1):
        q = orthonormal_basis(full[:, :k])
        f0[k] = np.mean([1 - abs(np.linalg.det(q.T @ orthonormal_basis(b[:, :k]))) for b in good])
    note = "d minimises g = f (eigenvector variability) + phi (eigenvalue); "
    note += f"replicates: {reps.engine}" + (f", {reps.n_failed} failed." if reps.n_failed else ".")
    return _ladle_result(f0, eig, name, B, random_state, note)


def _ladle_result(
    f0: np.ndarray, eig: np.ndarray, name: str, B: int, random_state: Any, note: str
) -> DimensionTest:
    """Luo & Li's ``g = f + phi`` from the raw variability ``f0(k)`` and the eigenvalues."""
    d_max = len(f0) - 1
    f = f0 / (1 + f0.sum())
    lam = np.r_[eig, np.zeros(max(0, d_max + 1 - len(eig)))][: d_max + 1]
    phi = lam / (1 + lam.sum())
    g = f + phi
    table = pd.DataFrame({"f": f, "phi": phi, "g": g}, index=pd.Index(range(d_max + 1), name="k"))
    return DimensionTest(
        table,
        int(np.argmin(g)),
        "ladle",
        name,
        level=None,
        n_replicates=B,
        random_state=random_state,
        title=f"Ladle estimate of the dimension for {name}",
        note=note,
    )


def _embedding_ladle(
    results: Any, B: Any, d_max: int | None, random_state: Any, n_jobs: Any, progress: bool
) -> DimensionTest:
    """The ladle of a fit without linear directions (kernel SPCA), from its embeddings.

    The eigenvector variability of the linear ladle becomes that of the embedding of the
    training rows: ``Ê_k`` spans the first ``k`` coordinates of the full fit's embedding
    (centred, orthonormalised), ``Ê*_{k,b}`` those of replicate ``b``, refitted on resampled
    rows and embedding the same rows, and ``f0(k) = mean_b (1 - |det(Ê_kᵀ Ê*_{k,b})|)``.
    The eigenvalues are the method's own (of its kernel eigenproblem), divided by the
    largest: Luo & Li's ``phi`` is not scale-free, and a kernel eigenproblem's eigenvalues
    have no natural scale (kernel SPCA's shrink as ``1/n²``), so unscaled they were so small
    beside ``f`` that the ladle chose ``d = 0`` on every model with more than one direction.
    """
    name = results.method
    B = check_int(B, "B", "the ladle rule", low=2)
    eig = np.sort(np.abs(np.asarray(results.output.eigenvalues, dtype=float)))[::-1]
    if eig.size and eig[0] > 0:
        eig = eig / eig[0]
    coef = results.output.extras.get("coef")
    width = np.asarray(coef).shape[1] if coef is not None else len(eig)
    d_max = _d_max(results, d_max, min(len(eig), width), "ladle")
    boot = embedding_bootstrap(
        results, B, d_max, "det", random_state, n_jobs, progress, d_rule="the ladle's"
    )
    reference = boot.reference.to_numpy()
    good = [e for e in boot.directions if np.isfinite(e).all()]
    if not good:
        raise ValueError(f"Every bootstrap replicate of {name} failed: {boot.errors[0]}")
    f0 = np.zeros(d_max + 1)
    for k in range(1, d_max + 1):
        q = _column_space(reference[:, :k])
        f0[k] = np.mean([1 - abs(np.linalg.det(q.T @ _column_space(e[:, :k]))) for e in good])
    failed = B - len(good)
    note = "d minimises g = f (variability of the embedding of the training rows) + phi "
    note += "(eigenvalue / the largest); replicates refit resampled rows" + (
        f", {failed} failed." if failed else "."
    )
    return _ladle_result(f0, eig, name, B, random_state, note)


@accepts_aliases({"numdir": "d_max"})
def bootstrap_dimension(
    results: Any,
    *,
    B: int = 200,
    d_max: int | None = None,
    distance: str = "trace_correlation",
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
) -> DimensionTest:
    """Ye & Weiss (2003) bootstrap rule: the dimension whose estimate varies least.

    Parameters
    ----------
    results : Results
        Any fit with linear directions. Eigen methods are resampled once and every
        candidate ``k`` uses the first ``k`` directions; methods fitted at a fixed ``d``
        (LSCE, MAVE...) are refitted at each ``k`` (``d_max`` times the cost).
    B : int, default 200
        Bootstrap replicates (per candidate for fixed-``d`` methods; the same resamples are
        used for every ``k``).
    d_max : int, optional
        Largest candidate; default as :func:`ladle`.
    distance : {"trace_correlation", "projection", "det"}, default "trace_correlation"
        Distance of a replicate's ``k``-dimensional subspace to the full-sample one.
        ``1 - r`` (trace correlation) is on the same 0..1 scale for every ``k``, which the
        comparison across ``k`` needs; ``projection`` grows with ``k``.
    random_state, n_jobs, progress : optional
        As :func:`sdrstats.inference.bootstrap.bootstrap`.

    Returns
    -------
    DimensionTest
        ``table`` indexed by ``k = 1..d_max`` with the mean, sd and median distance; ``d``
        minimises the mean distance.

    See Also
    --------
    DimensionTest : What it returns.
    ladle : The rule that adds the eigenvalues to this variability.

    Notes
    -----
    Ye & Weiss suggest plotting the variability against ``k`` and taking a ``k`` of small
    variability; the automatic rule here takes the least variable one. It does not
    over-estimate, but misses a second direction when the first is stable on its own.
    Calibration (``benchmarks/calibration.md``; normal predictors, n = 200, p = 6, SIR,
    B = 100, 1000 replications): d = 1 was chosen in 100% of the runs of a single-index
    model, but d = 2 in only 26% of the runs of Li's (1991) two-index model; prefer
    :func:`ladle` or a test when d >= 2 is plausible.

    References
    ----------
    :cite:t:`ye2003`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    >>> fit.test_dimension("bootstrap", B=50, random_state=0, progress=False).d
    1
    """
    name = results.method
    random_state = call_seed(results, random_state, "test_dimension/bootstrap")  # recorded
    B = check_int(B, "B", "the bootstrap rule", low=2)
    check_choice(distance, "distance", "the bootstrap rule", sorted(DISTANCES))
    basis = results.output.basis
    if basis is None:
        raise ValueError(
            f"The 'bootstrap' dimension test is not available for {name}: it has "
            "no linear directions whose variability could be measured. Available for this "
            "fit: test_dimension('ladle') (its eigenvalues with the variability of its "
            "embedding of the training rows) and bootstrap() (stability of that embedding)."
        )
    eigen = results.output.eigenvalues is not None and basis.shape[1] >= min(results.p - 1, 2)
    if eigen:
        d_max = _d_max(results, d_max, basis.shape[1], "bootstrap")
        reps = bootstrap_replicates(
            results,
            B,
            random_state=random_state,
            n_jobs=n_jobs,
            progress=progress,
            desc=f"bootstrap rule {name}",
        )
        per_k = [(np.asarray(basis[:, :k], dtype=float), reps) for k in range(1, d_max + 1)]
        note = ""
    else:
        d_max = _d_max(results, d_max, results.p - 1, "bootstrap")
        per_k, note = _refitted_candidates(results, B, d_max, random_state, n_jobs, progress)
    table = _distance_table(per_k, distance, name)
    return DimensionTest(
        table,
        int(table["mean_distance"].idxmin()),
        "bootstrap",
        name,
        level=None,
        n_replicates=B,
        random_state=random_state,
        title=f"Bootstrap (Ye & Weiss) dimension rule for {name}",
        display_names={"mean_distance": f"mean {distance}"},
        note="d minimises the mean bootstrap distance to the full-sample estimate." + note,
        extras={"distance": distance},
    )


def _refitted_candidates(
    results: Any, B: int, d_max: int, random_state: Any, n_jobs: int | None, progress: bool
) -> tuple[list[tuple[np.ndarray, Any]], str]:
    """Reference basis and bootstrap replicates at each ``k`` of a method fitted at fixed d.

    Directions of a fixed-d method are not nested, so each candidate ``k`` other than the
    fit's own is refitted, on the full sample and in every replicate. Candidates stop at the
    first ``k`` the method cannot fit (the note says why).
    """
    name = results.method
    if "d" not in results.estimator.params:
        raise ValueError(
            f"The 'bootstrap' dimension test is not available for {name}: "
            "it has neither eigenvalues nor a 'd' option to refit with."
        )
    per_k: list[tuple[np.ndarray, Any]] = []
    for k in range(1, d_max + 1):
        changes = {} if k == results.d else {"d": k}
        try:
            ref = (
                results.output.basis
                if not changes
                else results.refit(
                    results.spec.X, results.spec.Y, random_state=results.random_state, **changes
                ).basis
            )
        except ValueError as err:
            if k == 1:
                raise
            return per_k, f" Candidates stop at k = {k - 1}: {name} cannot fit d = {k} ({err})"
        replicates = bootstrap_replicates(
            results,
            B,
            random_state=random_state,
            n_jobs=n_jobs,
            progress=progress,
            changes=changes,
            engine="refit",
            desc=f"bootstrap rule {name} k={k}",
        )
        per_k.append((np.asarray(ref, dtype=float)[:, :k], replicates))
    return per_k, ""


def _distance_table(per_k: list[tuple[np.ndarray, Any]], distance: str, name: str) -> pd.DataFrame:
    """Mean, sd and median distance of the replicates to the reference, for each ``k``."""
    rows = []
    for k, (ref, reps) in enumerate(per_k, start=1):
        dist = np.array(
            [subspace_distance(ref, b[:, :k], distance) for b in reps.bases if b is not None]
        )
        if dist.size == 0:
            raise ValueError(f"Every bootstrap replicate of {name} failed: {reps.errors[0]}")
        rows.append(
            {
                "mean_distance": dist.mean(),
                "sd": dist.std(ddof=1),
                "median": np.median(dist),
                "replicates": dist.size,
            }
        )
    return pd.DataFrame(rows, index=pd.Index(range(1, len(rows) + 1), name="k"))


__all__ = ["ladle", "bootstrap_dimension", "default_d_max", "given_d_max"]
