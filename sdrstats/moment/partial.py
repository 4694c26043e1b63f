"""Partial SIR and partial SAVE: one central subspace shared by the levels of a group.

R ``dr``'s ``dr(..., group = ~G, method = "sir")`` and ``method = "save"`` (Chiaromonte, Cook
& Li 2002; Shao 2007), the options ``group=`` and ``pool=`` of :class:`~sdrstats.SIR` and
:class:`~sdrstats.SAVE`. A categorical predictor ``G`` (a treatment, a sex, a site) may shift
and rescale the other predictors; the partial methods look for the directions ``B`` with
``y ⫫ x | (Bᵀx, G)``. Each level ``g`` of ``G`` (in order of first appearance, as R's
``unique``) is handled on its own rows:

* its predictors are centred at the level's mean and whitened by the symmetric inverse square
  root of the level's covariance ``Σ_g`` (divisor ``n_g``), or of the pooled covariance
  ``Σ_pool = Σ_g (n_g/n) Σ_g`` with ``pool=True``: ``z = (x − x̄_g) Σ_g^{-1/2}``;
* its response is sliced on its own with the method's slicing rule (``nslices`` slices per
  level, R's default 2; or the given ``cut_points``; a class label by class), so levels may
  end with different numbers of slices ``h_g``;
* SIR takes the slice means ``z̄_gs``, SAVE the matrices ``I − V_gs`` (``V_gs`` the slice's
  covariance of ``z``, divisor ``n_gs``; ``I`` itself for a slice of fewer than 3 rows).

The kernel pools the levels, ``M = Σ_g Σ_s (n_gs/n) z̄_gs z̄_gsᵀ`` (SIR) or
``M = Σ_g Σ_s (n_gs/n) (I − V_gs)²`` (SAVE); its eigenvectors ``V`` are mapped back by
``Σ_pool^{-1/2} V`` and scaled to unit length.

Tests, as R ``dr`` prints them (``H = Σ_g h_g`` slices in ``G`` levels):

* partial SIR, "mD vs >= (m+1)D": ``n Σ_{j>m} λ_j ~ χ²((H − G − m)(p − m))``;
* partial SAVE, the same rows: with ``θ`` the eigenvectors ``m+1..p`` and ``r = p − m``,
  ``(n/2) Σ_gs (n_gs/n) ‖θᵀ(I − V_gs)θ‖²_F ~ χ²((H − G) r(r + 1)/2)`` (normal theory);
* coordinate tests (marginal; R has no conditional ones for these methods): for SIR,
  ``Σ_g n_g ‖H_gᵀ ζ_g‖²`` with ``ζ_g`` the level's ``√(n_gs/n_g) z̄_gs`` and ``H_g`` the
  dropped directions in the level's ``z`` scale, referred to a weighted sum of χ²₁ with
  weights ``1 − σ²`` (the squared singular values of each ``ζ_g``), each repeated for every
  dropped predictor (Bentler–Xie or Wood); for SAVE, the dimension test's statistic on the
  dropped directions (in the pooled ``z`` scale), with ``(H − G) r(r + 1)/2`` degrees of
  freedom.

One deliberate difference from R ``dr`` 3.0.11: R's partial SIR scales level ``g``'s slice
means by ``√(n_gs/n_g)`` where ``√(n_gs/n)`` is meant (a local ``n`` in its ``psir`` shadows
the total), so its kernel sums the levels' SIR kernels unweighted and its dimension statistics
are ``n/n_g`` times too large: with two equal levels and no dependence at all, R's "0D vs >=
1D" test rejects at the 5% level in about 70% of simulated data sets. Here each level weighs
``n_g/n``, as for SAVE (where R weighs the levels so). With equal level sizes the directions
are R's and the eigenvalues and statistics R's divided by the number of levels; otherwise the
directions differ slightly. The coordinate test of partial SIR uses each level's own ``n_g``
and equals R's. Case weights are not available with ``group=``.

Everything above is a function of per-level, per-slice counts, sums and (SAVE)
cross-products of ``x``: one pass over the rows (:class:`~.statistics.GroupedStatistics`),
which runs over the rows in memory or over chunks and Dask partitions holding the group
column (each level then sliced exactly on its own response by passes over the response and
the column, for a numeric response).

References
----------
Chiaromonte, F., Cook, R. D. and Li, B. (2002). Sufficient dimension reduction in regressions
with categorical predictors. Annals of Statistics 30, 475–497.

Shao, Y. (2007). Topics on dimension reduction. PhD dissertation, School of Statistics,
University of Minnesota (the implementation R ``dr`` follows).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.contract import EstimatorOutput
from ..results.fitted import DimensionTest, Results, choose_by_pvalues, hypothesis_labels
from ..scale import is_chunked
from ..stats.chi2 import chi2_sf, weighted_chi2_sf
from ..stats.linalg import canonical_basis, sym_eigh_desc
from .pire import fit_grouped, group_column, group_values
from .statistics import GroupedStatistics, level_rules

#: R's default number of slices in every level for the partial methods (``dr.fit.psir``).
PARTIAL_NSLICES = 2


def symmetric_power(matrix: np.ndarray, exponent: float) -> np.ndarray:
    """``A^e`` of a symmetric matrix through its eigenvalues' absolute values (R's ``%^%``).

    Examples
    --------
    >>> symmetric_power(np.diag([4.0, 9.0]), -0.5).round(4).tolist()
    [[0.5, 0.0], [0.0, 0.3333]]
    """
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return (vectors * np.abs(values) ** exponent) @ vectors.T


def _check_covariance(cov: np.ndarray, names: list[str], where: str, remedy: str) -> None:
    """Refuse a covariance that cannot be whitened, naming the predictor or the level."""
    var = np.diag(cov)
    if np.any(var <= 0):
        j = int(np.flatnonzero(var <= 0)[0])
        raise ValueError(f"Predictor {names[j]!r} is constant {where}; {remedy}")
    scale = np.sqrt(var)
    corr = cov / scale[:, None] / scale[None, :]
    evals = np.linalg.eigvalsh((corr + corr.T) / 2)
    if evals[0] <= 1e-12 * evals[-1]:
        raise ValueError(f"The predictors are (nearly) collinear {where}; {remedy}")


def fit_partial(est: Any, source: Any) -> EstimatorOutput:
    """The partial SIR or SAVE fit of the rows of ``source`` in the levels of their group.

    One pass over the rows (:class:`~.statistics.GroupedStatistics`): per level and slice,
    the counts, sums and (SAVE) cross-products of ``x``, each level sliced by its own rule; the
    whitening and the kernel follow from these p × p statistics (see the module notes).

    Parameters
    ----------
    est : SIR or SAVE
        The estimator, with its ``group`` option set.
    source : RowsInMemory or sdrstats.scale.fit.ChunkedData
        The rows with their groups (in memory), or chunks that hold the group column.

    Returns
    -------
    EstimatorOutput
        Extras hold, per level, what the tests need: ``group_levels``, ``group_n``,
        ``group_slice_sizes``, ``group_roots`` (``Σ_g^{1/2}`` or ``Σ_pool^{1/2}``),
        ``pool_root`` (``Σ_pool^{1/2}``) and ``group_kernels`` (SIR: the ``p × h_g``
        matrices ``√(n_gs/n_g) z̄_gs``; SAVE: the ``h_g × p × p`` arrays ``√(n_gs/n)(I − V_gs)``).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(ht)", ais, group="sex", nslices=3)
    >>> fit.extras["group_levels"], fit.extras["group_n"]
    (['f', 'm'], [100, 102])
    """
    o = est.options
    method, pool = est.method, bool(o["pool"])
    p, names = source.p, list(source.x_names)
    if source.keeps_rows and not source.categorical and source.Y.reshape(source.n, -1).shape[1] > 1:
        raise ValueError(
            f"Partial {method.upper()} (group=) takes one response column; got "
            f"{source.Y.shape[1]}. R's dr treats a matrix response with group= as an ordinary "
            "multivariate fit: drop group= for that."
        )
    h = o["nslices"] or PARTIAL_NSLICES
    least = 2 if pool else p + 1

    def enough(g: Any, n_g: int) -> None:
        if n_g < least:
            whiten = "the pooled covariance" if pool else "its own covariance"
            raise ValueError(
                f"Group {g!r} of {o['group']!r} has {n_g} rows; partial {method} whitens "
                f"each group by {whiten}, which needs at least {least} rows in every group. "
                "Merge small groups" + (", pass pool=True" if not pool else "") + " or drop "
                "predictors."
            )

    rules = level_rules(est, source, o["group"], h, check=enough)
    if len(rules) < 2:
        (only,) = rules
        raise ValueError(
            f"The 'group' column {o['group']!r} has one level ({only!r}) in the fitted "
            f"rows; partial {method} needs at least two. Drop group= for the ordinary fit."
        )
    template = GroupedStatistics(
        p, rules, second=method == "save", response=not (source.keeps_rows or source.categorical)
    )
    acc = source.reduce(template, column=o["group"])
    levels = list(rules)
    stats = [acc.parts[level].ordered() for level in levels]
    n_rows = [part.n for part in stats]
    n = float(sum(n_rows))
    covs = [part.cov for part in stats]
    pooled = sum((n_g / n) * c for n_g, c in zip(n_rows, covs))
    _check_covariance(pooled, names, "within the groups", "drop or combine predictors.")
    if not pool:
        for g, c in zip(levels, covs):
            _check_covariance(
                c,
                names,
                f"in group {g!r} of {o['group']!r}",
                "drop that predictor, merge groups, or pass pool=True (whiten every group by "
                "the pooled covariance).",
            )
    scales = [pooled if pool else c for c in covs]
    M = np.zeros((p, p))
    kernels, sizes = [], []
    for part, n_g, scale in zip(stats, n_rows, scales):
        root = symmetric_power(scale, -0.5)  # z = (x − x̄_g) Σ^{-1/2}
        counts = part.counts
        sizes.append(np.rint(counts).astype(np.int64))
        slice_means = root @ (part.sums / counts[:, None]).T  # p × h_g, about the level mean
        if method == "sir":
            zeta = slice_means * np.sqrt(counts / n_g)
            kernels.append(zeta)
            M += (n_g / n) * zeta @ zeta.T
        else:
            inner = np.empty((counts.size, p, p))
            for s, count in enumerate(counts):
                within = np.eye(p)
                if count >= 3:  # R: I for a slice of fewer than 3 rows
                    mean_s = part.sums[s] / count
                    cov_s = part.cross[s] / count - np.outer(mean_s, mean_s)
                    within = within - root @ cov_s @ root
                inner[s] = np.sqrt(count / n) * within
            kernels.append(inner)
            M += np.einsum("sij,sjk->ik", inner, inner)
    values, vectors = sym_eigh_desc(M)
    basis = canonical_basis(symmetric_power(pooled, -0.5) @ vectors)
    nonzero = max(1, int(np.sum(np.abs(values) > 1e-15)))
    d = o["d"] or min(o["d_max"], p, nonzero)
    extras: dict[str, Any] = {
        "M": M,
        "raw_vectors": vectors,
        "slice_sizes": np.concatenate(sizes),
        "group_levels": levels,
        "group_n": [int(round(n_g)) for n_g in n_rows],
        "group_slice_sizes": sizes,
        "group_roots": [symmetric_power(scale, 0.5) for scale in scales],
        "pool_root": symmetric_power(pooled, 0.5),
        "group_kernels": kernels,
    }
    center = sum(part.n * part.mean for part in stats) / n
    output = EstimatorOutput(basis=basis, d=d, eigenvalues=values, center=center, extras=extras)
    if not source.keeps_rows:
        output.extras.update(
            {"n_rows": int(round(n)), "n_chunks": source.n_chunks, "ols_moments": acc.ols_moments()}
        )
    return output


def _slices_and_levels(extras: dict[str, Any]) -> tuple[int, int]:
    """``H`` (slices over all levels) and ``G`` (levels)."""
    return int(sum(len(s) for s in extras["group_slice_sizes"])), len(extras["group_levels"])


def partial_dimension_test(
    est: Any, results: Results, rows: int, level: float = 0.05
) -> DimensionTest:
    """The marginal dimension tests of partial SIR or SAVE (see the module docs).

    Parameters
    ----------
    est : SIR or SAVE
        The fit's estimator.
    results : MomentResults
        A partial fit.
    rows : int
        Hypotheses ``m = 0 .. rows − 1`` (fewer for SIR when ``H − G`` is smaller).
    level : float, default 0.05
        Level of the choice of ``d``.

    Returns
    -------
    DimensionTest

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(ht)", ais, group="sex", nslices=4)
    >>> fit.test_dimension().table.columns.tolist()
    ['stat', 'df', 'p_value']
    """
    ex = results.output.extras
    n, p = results.n, results.p
    H, G = _slices_and_levels(ex)
    if est.method == "sir":
        ev = np.asarray(results.output.eigenvalues, dtype=float)
        top = min(p, H - G)
        rows = max(1, min(rows, top))
        stat = np.array([n * ev[m:top].sum() for m in range(rows)])
        df = np.array([(H - m - G) * (p - m) for m in range(rows)])
    else:
        vectors = ex["raw_vectors"]
        inner = np.concatenate(ex["group_kernels"])
        stat = np.array([_save_statistic(inner, vectors[:, m:], n) for m in range(rows)])
        df = np.array([(H - G) * (p - m) * (p - m + 1) // 2 for m in range(rows)])
    pv = np.array([chi2_sf(s, k) for s, k in zip(stat, df)])
    table = pd.DataFrame({"stat": stat, "df": df, "p_value": pv}, index=hypothesis_labels(rows))
    return DimensionTest(
        table,
        choose_by_pvalues(pv, level),
        "asymptotic",
        est.method,
        level=level,
        title="Large-sample Marginal Dimension Tests",
        display_names={"stat": "Stat", "p_value": "p.value"},
    )


def _save_statistic(inner: np.ndarray, theta: np.ndarray, n: int) -> float:
    """``(n/2) Σ_gs ‖θᵀ A_gs θ‖²_F`` for the stacked ``A_gs = √(n_gs/n)(I − V_gs)``."""
    projected = np.einsum("ai,sab,bj->sij", theta, inner, theta)
    return float(n / 2 * np.sum(projected**2))


def _dropped_directions(root: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """An orthonormal basis, in the ``z`` scale of ``root``, of what ``gamma`` drops."""
    kept = root @ gamma
    p = kept.shape[0]
    return np.linalg.qr(kept, mode="complete")[0][:, kept.shape[1] : p]


def partial_coordinate_test(results: Results, gamma: np.ndarray, chi2approx: str) -> dict[str, Any]:
    """The marginal coordinate test of a partial SIR or SAVE fit (see the module docs).

    Parameters
    ----------
    results : MomentResults
        A partial fit.
    gamma : ndarray of shape (p, p − r)
        A basis of the predictors kept.
    chi2approx : {"bx", "wood"}
        Approximation of a weighted sum of χ²₁ (partial SIR).

    Returns
    -------
    dict
        ``statistic``, ``df`` (None for SIR) and ``p_values`` (``"restricted"`` for SIR,
        ``"normal"`` for SAVE).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(ht)", ais, group="sex", nslices=4)
    >>> print(fit.coordinate_test("~ . - log(ht)"))  # doctest: +ELLIPSIS
    Coordinate test (sir, marginal): drop log(ht)
      statistic = ...
    """
    ex = results.output.extras
    p = results.p
    r = p - gamma.shape[1]
    if results.method == "sir":
        stat, weights = 0.0, []
        for n_g, root, zeta, sizes in zip(
            ex["group_n"], ex["group_roots"], ex["group_kernels"], ex["group_slice_sizes"]
        ):
            H = _dropped_directions(root, gamma)
            stat += float(n_g * np.sum((H.T @ zeta) ** 2))
            singular = np.linalg.svd(zeta, compute_uv=False)
            k = min(p, len(sizes) - 1)
            weights.append(1.0 - singular[:k] ** 2)
        repeated = np.tile(np.concatenate(weights), r)
        repeated = repeated[repeated > 1e-5]  # R's cut
        pv = weighted_chi2_sf(stat, repeated, chi2approx)
        return {"statistic": stat, "df": None, "p_values": {"restricted": pv}}
    H_all, G = _slices_and_levels(ex)
    H = _dropped_directions(ex["pool_root"], gamma)
    stat = _save_statistic(np.concatenate(ex["group_kernels"]), H, results.n)
    df = (H_all - G) * r * (r + 1) // 2
    return {"statistic": stat, "df": df, "p_values": {"normal": chi2_sf(stat, df)}}


class PartialSlicing:
    """What :class:`~sdrstats.SIR` and :class:`~sdrstats.SAVE` add for ``group=``.

    With ``group`` set, a fit is the partial method of this module: the formula front
    attaches each row's level to the model spec (as for partial IRE), refits on resampled
    rows keep the levels of their rows, and the dimension and coordinate tests are the
    partial ones. Without it, nothing changes.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> sdr.SIR(group="sex").partial, sdr.SIR().partial
    (True, False)
    """

    options: dict[str, Any]
    method: str

    @property
    def partial(self) -> bool:
        """Whether ``group=`` makes this a partial fit."""
        return self.options["group"] is not None

    def _check_options(self) -> None:
        super()._check_options()  # type: ignore[misc]
        if self.options["pool"] and self.options["group"] is None:
            raise ValueError(
                f"The 'pool' option of {type(self).__name__} whitens the groups of group= by "
                "their pooled covariance, so it needs group= (e.g. group='sex')."
            )

    @classmethod
    def _fit_formula(
        cls,
        formula: str,
        data: Any,
        options: dict[str, Any],
        *,
        missing: str = "drop",
        subset: Any = None,
        weights: Any = None,
    ) -> Results:
        """Fit ``formula`` on ``data``; with ``group=`` the partial method of the groups.

        Parameters
        ----------
        formula, data, options, missing, subset, weights
            As :meth:`sdrstats.fitting.estimator.Estimator.from_formula` (``options`` under
            their names, already translated); ``group`` names a
            column of ``data`` (``"sex"`` or ``"~ sex"``).

        Returns
        -------
        MomentResults

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.SAVE.from_formula("lbm ~ log(wt) + log(ht)", ais, group="~ sex")
        >>> fit.call
        "save('lbm ~ log(wt) + log(ht)', data, group='sex')"
        """
        options = dict(options)
        group = options.get("group")
        if group is None:
            return super()._fit_formula(  # type: ignore[misc]
                formula, data, options, missing=missing, subset=subset, weights=weights
            )
        label = f"Partial {cls.method.upper()} (group=)"
        if weights is not None:
            raise ValueError(
                f"{label} with case weights is not available (R's psir weighs the groups' "
                "covariances but not their slice means). Drop weights= or group=."
            )
        if is_chunked(data):  # the chunks' group column is read with every pass
            options["group"] = group_column(group)
            return super()._fit_formula(  # type: ignore[misc]
                formula, data, options, missing=missing, subset=subset
            )
        options = {k: v for k, v in options.items() if k != "group"}
        return fit_grouped(cls, formula, data, group, missing=missing, subset=subset, **options)

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        if not self.partial:
            super()._check_data(X, Y, categorical)  # type: ignore[misc]
            return
        n, p = X.shape  # the slices are checked in each group by fit_partial
        if n <= p:
            raise ValueError(
                f"{self.method} needs more observations than predictors; got n = {n} and p = {p}."
            )
        d = self.options["d"]
        if d is not None and d > p:
            raise ValueError(f"The 'd' option of {self.method} must be at most p = {p}; got {d}.")

    def fit_output(
        self, spec: Any, *, weights: np.ndarray | None = None, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit of ``spec``'s rows; with ``group=``, the partial fit in the spec's groups.

        Parameters
        ----------
        spec : ModelSpec
            Rows, names, case weights and (partial fits) the level of each row.
        weights : ndarray of shape (n,), optional
            Frequency weights (not with ``group=``: its refits resample rows).
        random_state : optional
            Unused (the moment methods are deterministic).

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"), group="sex")
        >>> fit.estimator.fit_output(fit.spec).extras["group_slice_sizes"]
        [array([50, 50]), array([51, 51])]
        """
        if not self.partial:
            return super().fit_output(  # type: ignore[misc]
                spec, weights=weights, random_state=random_state
            )
        if spec.keeps_rows:
            group_values(self, spec.groups, spec.n, weights)
        if spec.case_weights is not None:
            raise ValueError(
                f"Partial {self.method.upper()} (group=) with case weights is not available."
            )
        return fit_partial(self, self.source_of(spec))

    def replicate_kernel(self, results: Results) -> Any:
        """None for a partial fit (its bootstrap refits resampled rows), else the method's.

        Parameters
        ----------
        results : Results
            The fit to resample.

        Returns
        -------
        WeightedReplicates or None

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"), group="sex")
        >>> fit.estimator.replicate_kernel(fit) is None
        True
        """
        if self.partial:
            return None
        return super().replicate_kernel(results)  # type: ignore[misc]


__all__ = [
    "PARTIAL_NSLICES",
    "PartialSlicing",
    "fit_partial",
    "partial_coordinate_test",
    "partial_dimension_test",
    "symmetric_power",
]
