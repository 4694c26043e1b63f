"""Nonparametric bootstrap of a fitted subspace (``Results.bootstrap``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.parallel import call_seed
from ..base.tables import dir_labels
from ..base.validation import check_choice, check_int
from ..stats.distances import DISTANCES, orthonormal_basis
from ._replicates import SCHEMES, bootstrap_replicates, centering_supported
from .bootstrap_result import QUANTILES, BootstrapResult
from .dimension_test import dimension_how
from .embedding import embedding_bootstrap


def reference_basis(results: Any, d: int) -> tuple[np.ndarray, dict[str, Any]]:
    """Full-sample basis with ``d`` columns, and the option changes refits need for it.

    Eigen methods keep more than ``d`` columns, so they need no change; a method fitted at a
    fixed ``d`` (LSCE, MAVE...) is refitted at the new ``d`` on the full sample.
    """
    basis = results.output.basis
    if basis is None:
        raise ValueError(
            f"bootstrap is not available for {results.method}: it has no linear directions "
            "whose variability could be measured."
        )
    if basis.shape[1] >= d:
        return np.asarray(basis[:, :d], dtype=float), {}
    if "d" not in results.estimator.params:
        raise ValueError(
            f"d = {d} is not available for {results.method}: the fit has {basis.shape[1]} "
            "directions and no 'd' option to refit with."
        )
    changes = {"d": d}
    out = results.refit(
        results.spec.X, results.spec.Y, random_state=results.random_state, **changes
    )
    return np.asarray(out.basis[:, :d], dtype=float), changes


def default_dimension(results: Any) -> tuple[int, str]:
    """The dimension a bootstrap compares when none is given, and how it was set.

    The fit's ``d``: the one given when fitting, or the one its dimension rule (``d_rule``)
    chose, as the fit's summary says. Resampling rules are never run again here.
    """
    return results.d, f"the fit's d ({dimension_how(results.d_choice)})"


def batched_measures(
    reference: np.ndarray, bases: np.ndarray, distance: str
) -> tuple[np.ndarray, np.ndarray]:
    """Distances to ``reference`` and Procrustes ``|cos|`` of a stack of bases (G, p, d).

    The stacked form of :func:`sdrstats.stats.distances.subspace_distance` and
    :func:`~sdrstats.inference._replicates.procrustes_cosines` (tests check they agree).
    """
    d = reference.shape[1]
    q_ref = orthonormal_basis(reference)
    q, _ = np.linalg.qr(bases)
    cross = np.einsum("pi,gpj->gij", q_ref, q)  # Q_refᵀ Q_b
    if distance == "projection":
        diff = (q_ref @ q_ref.T)[None] - q @ np.swapaxes(q, 1, 2)
        dist = np.sqrt(np.sum(diff**2, axis=(1, 2)))
    elif distance == "det":
        dist = np.maximum(0.0, 1.0 - np.abs(np.linalg.det(cross)))
    else:  # trace_correlation, as the distance 1 - r
        dist = 1.0 - np.sum(cross**2, axis=(1, 2)) / d
    u, _, vt = np.linalg.svd(np.swapaxes(q, 1, 2) @ reference, full_matrices=False)
    matched = q @ (u @ vt)
    norms = np.linalg.norm(reference, axis=0)[None] * np.linalg.norm(matched, axis=1)
    cosines = np.abs(np.sum(matched * reference[None], axis=1)) / norms
    return dist, cosines


def bootstrap(
    results: Any,
    B: int = 200,
    d: int | None = None,
    distance: str = "projection",
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    scheme: str | None = None,
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
        Dimension of the subspace compared. Default the fit's ``d`` (given when fitting, or
        chosen by its ``d_rule``); the summary says which (``BootstrapResult.d_rule``).
    distance : {"projection", "det", "trace_correlation"}
        Distance of each replicate subspace to the full-sample one (see
        :mod:`sdrstats.stats.distances`; ``trace_correlation`` enters as ``1 - r``).
    random_state : int, SeedSequence, Generator or None
        Seed of the resampling; replicate ``b`` uses child ``b``. Default the fit's
        ``"bootstrap"`` stream (:meth:`sdrstats.Results.stream`): the same every time.
    n_jobs : int, default 1
        joblib workers; results are identical for any ``n_jobs``.
    progress : bool, default True
        Progress bar when the loop runs over about 2 s.
    scheme : {"multinomial", "poisson", "centered"}, optional
        How a replicate weights the rows. Default ``"poisson"`` for a fit on chunked or
        Dask data; ``"centered"`` for SAVE with its rows in memory when its asymptotic test
        supports the ``d`` compared; else ``"multinomial"``. The summary says which and why
        (``BootstrapResult.scheme_reason``).
        ``"multinomial"``: ``n`` rows drawn with replacement (Efron's bootstrap).
        ``"centered"`` (SAVE): multinomial counts in a world centred on the fitted
        ``d``-dimensional subspace, whose distances cover the true error at about the
        nominal rate where SAVE's plain bootstrap over-covers (see Notes). ``"poisson"``: every row gets an independent
        Poisson(1) count, drawn from a counter-based generator keyed by ``random_state``, the
        replicate and the row's position in the data (counting rows dropped for missing
        values; after ``subset``), so a row's counts do not depend on how the data are split
        (:func:`sdrstats.inference.poisson.poisson_counts`). This is the scheme of fits from
        chunks or Dask partitions (their only one), and on a pandas frame it gives the same
        replicates as on chunks of the same rows.

    Returns
    -------
    BootstrapResult

    Notes
    -----
    SIR, SAVE and DR replicates are the weighted fits with the counts as case weights on
    the full-sample slices, computed from per-observation slice statistics (one pass over the
    data, then p×p work per replicate); other methods are refitted on resampled rows with
    their own options and a seed per replicate (under ``"poisson"``, each row repeated by its
    count, so a replicate has about ``n ± √n`` rows).

    **SAVE's centred bootstrap.** SAVE's kernel squares within-slice covariances, so the
    plain bootstrap world (the fitted kernel, whose slice matrices carry estimation noise
    off the fitted subspace) is noisier than the real one: the replicates square the sum of
    that noise and their own, a degenerate V-statistic whose plain bootstrap is
    inconsistent (Bretagnolle 1983; Arcones & Giné 1992). Measured with known truth
    (``benchmarks/bench_bootstrap_coverage.md``: p = 6, d = 2, 200 data sets, B = 200), on
    two models SAVE recovers the plain bootstrap's 95% quantile covered the true distance
    in 0.985–0.995 of the data sets at n = 300 and 1,000, its mean distance up to 1.6 times
    the true error. The ``"centered"`` scheme removes from each replicate's slice matrices
    the full sample's part off the fitted subspace (see
    :meth:`sdrstats.moment._replicates.WeightedReplicates.centered`), so the resampled
    world, like the population, has slice matrices that vanish off its central subspace;
    its quantile covered the truth in 0.925–0.96. It trusts the fitted directions: on a
    model SAVE cannot recover at those n (true distance 0.87–1.32) it covered 0.53–0.785.
    So SAVE's default is ``"centered"`` only when its asymptotic test at level 0.05 supports
    the ``d`` compared, else ``"multinomial"``: coverage 0.925–0.98 in all six settings
    (mostly plain at n = 300, where the test seldom supports d = 2 there). SIR's plain
    bootstrap, unchanged: 0.99 (n = 300) and 0.965 (n = 1,000).

    The Poisson bootstrap (Hanley & MacGibbon 2006) draws the counts independently, so they
    do not sum to ``n``; as ``n`` grows its replicates behave as the multinomial ones
    (Chamandy et al. 2012), and it needs neither ``n`` in advance nor random access to the
    rows, which is what lets chunked data be resampled in one pass. On chunks or Dask
    partitions (SIR, SAVE, DR) that pass holds, per chunk or worker, the ``B × h × (1 + p +
    p(p+1)/2)`` weighted slice sums of the replicates: memory ``O(B h p²)``.

    References
    ----------
    Efron, B. (1979). Bootstrap methods: another look at the jackknife. *The Annals of
    Statistics* 7, 1–26.

    Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
    Poisson frequencies. *Computer Methods and Programs in Biomedicine* 83, 57–62.

    Bretagnolle, J. (1983). Lois limites du bootstrap de certaines fonctionnelles. *Annales
    de l'IHP Probabilités et statistiques* 19, 281–296.

    Arcones, M. A. & Giné, E. (1992). On the bootstrap of U and V statistics. *The Annals
    of Statistics* 20, 655–674.

    Chamandy, N., Muralidharan, O., Najmi, A. & Naidu, S. (2012). Estimating uncertainty for
    massive data streams. Google technical report.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=1)
    >>> boot = fit.bootstrap(B=50, random_state=0, progress=False)
    >>> bool(boot.stability["Dir1"] > 0.9)
    True
    >>> poisson = fit.bootstrap(B=50, random_state=0, progress=False, scheme="poisson")
    >>> bool(poisson.stability["Dir1"] > 0.9)
    True
    >>> save = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)  # d = 1 by its test
    >>> save.bootstrap(B=50, random_state=0, progress=False).scheme
    'centered'
    >>> save.bootstrap(B=50, d=2, random_state=0, progress=False).scheme  # d = 2 not supported
    'multinomial'
    """
    name = results.method
    random_state = call_seed(results, random_state, "bootstrap")  # recorded
    B = check_int(B, "B", "bootstrap", low=2)
    check_choice(distance, "distance", "bootstrap", sorted(DISTANCES))
    if results.output.basis is None:
        scheme, scheme_reason = resolve_scheme(results, scheme)
        if scheme != "multinomial":
            raise ValueError(
                f"The 'scheme' option {scheme!r} is not available for {name}, whose bootstrap "
                "compares embeddings of the resampled rows; use scheme='multinomial'."
            )
        d, d_rule = (
            default_dimension(results)
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
    scheme, scheme_reason = resolve_scheme(results, scheme, d)
    reference, changes = reference_basis(results, d)
    reps = bootstrap_replicates(
        results,
        B,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        changes=changes,
        desc=f"bootstrap {name}",
        scheme=scheme,
        d=d,
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
        scheme=scheme,
        scheme_reason=scheme_reason,
    )


def resolve_scheme(results: Any, scheme: str | None, d: int | None = None) -> tuple[str, str]:
    """The resampling scheme of a bootstrap of ``results``, and why it was chosen.

    The centred scheme (SAVE) is the default when the method's asymptotic test at level
    0.05 supports at least the ``d`` compared: the centred world takes the fitted
    directions as the central subspace, and where they are not yet distinguishable from
    noise it under-covers (``benchmarks/bench_bootstrap_coverage.md``), so the plain
    multinomial scheme is used there.

    Parameters
    ----------
    results : Results
        The fit.
    scheme : str or None
        The scheme asked for; None picks the fit's default.
    d : int, optional
        The dimension compared (needed for the centred default).

    Returns
    -------
    tuple of (str, str)
        The scheme and the reason the summary prints.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.save("lbm ~ log(wt) + log(ht) + log(hg)", ais, nslices=8)
    >>> resolve_scheme(fit, None, d=1)[0], resolve_scheme(fit, "multinomial")
    ('centered', ('multinomial', 'given'))
    """
    if scheme is not None:
        check_choice(scheme, "scheme", "bootstrap", list(SCHEMES))
        return scheme, "given"
    if not results.spec.keeps_rows:
        return "poisson", "the only scheme of a fit on chunked or Dask data"
    if d is None or results.output.basis is None or not centering_supported(results):
        return "multinomial", "the default"
    name = results.method
    try:
        # only the p-values that choose d (SAVE's general-theory ones are not computed)
        supported = results.test_dimension("asymptotic", **results._rule_options("asymptotic")).d
    except (ValueError, np.linalg.LinAlgError):
        return "multinomial", f"the default: {name}'s asymptotic test is not available here"
    if supported >= d:
        return "centered", (
            f"the default for {name} when its asymptotic test supports the d compared (it "
            f"chose d = {supported}): its plain bootstrap overstates the error of its squared "
            "slice covariances and over-covers"
        )
    return "multinomial", (
        f"the default for {name} when its asymptotic test does not support the d compared "
        f"(it chose d = {supported} < {d}): the centred scheme trusts the fitted directions "
        "and would under-cover"
    )


__all__ = [
    "BootstrapResult",
    "bootstrap",
    "batched_measures",
    "default_dimension",
    "reference_basis",
    "resolve_scheme",
    "QUANTILES",
]
