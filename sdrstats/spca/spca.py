"""Supervised PCA by the Hilbert–Schmidt independence criterion (Barshan et al. 2011).

The directions ``U`` maximise ``tr(Uᵀ Xᵀ H L H X U)`` subject to ``UᵀU = I``: the empirical
HSIC between the projection ``Uᵀx`` (linear kernel) and the response (kernel ``L``). With the
response kernel factored as ``L = Δ Δᵀ`` the matrix is ``Ψ Ψᵀ`` with ``Ψ = Xᵀ H Δ`` (p×r),
so the primal (p×p) or the dual (r×r) eigenproblem is solved, whichever is smaller, and the
n×n ``L`` is never formed (rbf: pivoted incomplete Cholesky factor).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.sparse

from ..base.validation import Interval, Options
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..stats.linalg import canonical_sign
from ._eigen import RANK_TOL, check_rank, top_eigen
from ._results import ProjectionResults
from .kernels import RESPONSE_KERNELS, response_factor
from .statistics import SPCAStatistics, fit_spca_statistics


def hsic_matrix_factor(
    X: np.ndarray, factor: np.ndarray | None, add_identity: float, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """``Ψ`` (p×r) with ``Ψ Ψᵀ = Xᵀ H (Δ Δᵀ + a I) H X`` (``L = I`` when ``factor`` is None).

    Returns ``Ψ`` and the (weighted) column means of ``X``. ``H`` is applied to the small
    factor, ``Xᵀ H Δ = Xᵀ (Δ − Δ̄)``, so ``X`` is neither copied nor centred unless the identity
    term needs it; ``weights`` (case weights of a bootstrap) multiply the rows.
    """
    w = None if weights is None else np.asarray(weights, dtype=float)
    center = X.mean(axis=0) if w is None else w @ X / w.sum()
    blocks = []
    if factor is not None and scipy.sparse.issparse(factor):
        # Class indicators: Ψ = Σ_i w_i (x_i − x̄_w) Δ_iᵀ from per-class sums (one pass over X).
        wX = X if w is None else X * w[:, None]
        sums = np.asarray((factor.T @ wX).T)
        weights_per_class = np.asarray(factor.T @ (np.ones(len(X)) if w is None else w))
        blocks.append(sums - np.outer(center, weights_per_class))
    elif factor is not None:
        if w is None:
            blocks.append(((factor - factor.mean(axis=0)).T @ X).T)  # (ΔᵀX)ᵀ: faster BLAS path
        else:
            centred = factor - w @ factor / w.sum()
            blocks.append(((centred * w[:, None]).T @ X).T)
    identity = 1.0 if factor is None else add_identity
    if identity > 0:
        Xc = X - center
        if w is not None:
            Xc *= np.sqrt(w)[:, None]
        blocks.append(np.sqrt(identity) * Xc.T)
    return (blocks[0] if len(blocks) == 1 else np.hstack(blocks)), center


class SPCAResults(ProjectionResults):
    """Results of :class:`SPCA`; eigenvalues are HSIC contributions.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    spca : The method that returns it.

    References
    ----------
    :cite:t:`barshan2011`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=1)
    >>> type(fit).__name__, fit.eigenvalues.shape
    ('SPCAResults', (1,))
    """

    eigen_label = "Eigenvalues (HSIC)"
    eigen_note = (
        "Eigenvalues are HSIC contributions: lambda_j = u_j' X'HLHX u_j / (n-1)^2 is "
        "the empirical HSIC between u_j'x and the response; their sum over "
        "Dir1..Dirk is the HSIC of the k-dimensional projection."
    )


class SPCA(Estimator):
    """Supervised principal component analysis (Barshan, Ghodsi, Azimifar & Jahromi 2011).

    Parameters
    ----------
    d : int, optional
        Number of directions; default ``min(2, rank)``. It cannot exceed the rank of
        ``Xᵀ H L H X`` (a single response with the linear kernel has rank 1; ``c`` classes
        with the delta kernel have rank at most ``c - 1``).
    d_rule : {"permutation", "ladle", "bootstrap", "ratio", "cv"}
        The rule that chooses ``d`` when it is not given; default ``"permutation"``, Cook &
        Yin's test of the HSIC eigenvalues at level 0.05 with 199 permutations (SPCA's fits
        are cheap eigenproblems). A fit on chunked data keeps no rows to permute: there the
        eigenvalue-ratio rule chooses (``fit.d_rule`` says so). See ``docs/vocabulary.md``.
    d_max : int, optional
        Largest ``d`` the rule tries (default the rule's own: 4 for the permutation test).
    kernel_y : {"linear", "delta", "rbf", "identity"}, optional
        Response kernel ``L``. Default: ``"delta"`` for a categorical response (``L_ij =
        1{y_i = y_j}``), ``"linear"`` (``L = YYᵀ``) otherwise. ``"rbf"``: Gaussian kernel with
        the median-distance width (factored by pivoted incomplete Cholesky). ``"identity"``: ``L = I``,
        which is ordinary PCA.
    gamma_y : float, optional
        Width ``exp(-gamma_y ‖y − y'‖²)`` of the rbf response kernel; default the median
        heuristic ``1 / median ‖y_i − y_j‖²``.
    add_identity : float, default 0
        Use ``L + add_identity · I`` (the authors' code adds ``I`` to the delta kernel); makes
        the HSIC matrix full rank so that ``d`` is not limited by the number of classes.
    solver : {"auto", "primal", "dual"}, default "auto"
        ``"primal"``: eigen-decompose the p×p matrix ``Ψ Ψᵀ``; ``"dual"``: the r×r matrix
        ``Ψᵀ Ψ`` and map back, ``U = Ψ V Σ⁻¹`` (for p ≫ n). ``"auto"`` takes the smaller one,
        so the dual whenever ``p > n``.
    random_state : int or Generator, optional
        Only used to subsample rows for the median-heuristic width (n > 1000).

    See Also
    --------
    spca : The formula function (``sdr.spca(formula, data)``).
    sdrstats.spca.spca.SPCAResults : What ``fit`` returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    Notes
    -----
    With ``H = I − 11ᵀ/n`` and ``L = ΔΔᵀ``, ``U`` holds the top eigenvectors of
    ``Ψ Ψᵀ = Xᵀ H L H X``. The reported eigenvalues are divided by ``(n − 1)²`` so that
    ``λ_j`` is the empirical HSIC of ``u_jᵀ x`` and ``y``. Cost: ``O(n p r)`` to form ``Ψ``
    plus ``O(min(p, r)³)``; the n×n ``L`` is never formed (the rbf kernel is factored by
    pivoted incomplete Cholesky, rank ``r`` set by a 1e-9 tolerance).

    References
    ----------
    :cite:t:`barshan2011`; :cite:t:`gretton2005`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SPCA(kernel_y="rbf", d=2).fit(ais[["ht", "wt", "lbm", "bmi"]], ais["ssf"])
    >>> fit.directions.shape
    (4, 2)
    """

    method = "spca"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("permutation", "ladle", "bootstrap", "ratio", "cv"))],
        "d_max": [Interval(int, 1, None), None],
        "kernel_y": [Options(RESPONSE_KERNELS), None],
        "gamma_y": [Interval(float, 0, None, closed="neither"), None],
        "add_identity": [Interval(float, 0, None)],
        "solver": [Options(("auto", "primal", "dual"))],
        "random_state": ["random_state"],
    }
    capabilities = Capabilities(from_statistics=True)
    results_class = SPCAResults

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "permutation",
        d_max: int | None = None,
        kernel_y: str | None = None,
        gamma_y: float | None = None,
        add_identity: float = 0.0,
        solver: str = "auto",
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        d = self.options["d"]
        if d is not None and d > X.shape[1]:
            raise ValueError(
                f"The 'd' option of {self.method} must be at most p = {X.shape[1]}; got {d}."
            )
        if X.shape[0] < 3:
            raise ValueError(f"{self.method} needs at least 3 observations; got {X.shape[0]}.")

    def kernel_for(self, Y: np.ndarray) -> str:
        """The response kernel used for ``Y`` (resolving the default)."""
        kernel = self.options["kernel_y"]
        if kernel is None:
            return "delta" if Y.ndim == 1 and Y.dtype.kind in "iu" else "linear"
        return kernel

    def statistics(self, p: int, *, classes: bool) -> SPCAStatistics:
        """An empty accumulator of class (or response) sums for ``p`` predictors.

        Parameters
        ----------
        p : int
            Number of predictors.
        classes : bool
            The response is a class label (delta kernel), else one numeric column (linear).

        Returns
        -------
        SPCAStatistics

        Examples
        --------
        >>> import sdrstats as sdr
        >>> type(sdr.SPCA().statistics(3, classes=True)).__name__
        'SPCAStatistics'
        """
        return SPCAStatistics(self, p, classes=classes)

    def fit_output(
        self, spec: Any, *, weights: np.ndarray | None = None, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit of ``spec``'s rows, or of its chunks (linear or delta response kernel).

        On chunked or Dask data the fit is one pass of class (or response) sums
        (:func:`~sdrstats.spca.statistics.fit_spca_statistics`), the accumulator that the
        in-memory fit runs over its one chunk.

        Parameters
        ----------
        spec : ModelSpec
            Rows and names, or chunked or Dask data.
        weights : ndarray of shape (n,), optional
            Frequency weights (bootstrap multiplicities; rows in memory only).
        random_state : int, Generator or None, default None
            Seed of the rbf kernel's factor.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> sdr.spca("sex ~ ht + wt", parts, d=1).n  # one pass over the chunks
        202
        """
        if not spec.keeps_rows:
            return fit_spca_statistics(self, spec.data)
        return super().fit_output(spec, weights=weights, random_state=random_state)

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        o = self.options
        kernel = self.kernel_for(Y)
        rng = np.random.default_rng(random_state)
        factor = response_factor(Y, kernel, self.method, gamma=o["gamma_y"], rng=rng, sparse=True)
        classes = Y.ndim == 1 and Y.dtype.kind in "iu"
        if o["add_identity"] == 0 and (
            (classes and kernel in ("linear", "delta"))
            or (kernel == "linear" and not classes and factor.shape[1] == 1)
        ):
            # Ψ is a function of class (or response) sums: the one-chunk case of the accumulator
            return self.statistics(X.shape[1], classes=classes).update(X, Y, weights).finish()
        psi, center = hsic_matrix_factor(X, factor, o["add_identity"], weights)
        values, vectors, route = top_eigen(psi, o["solver"])
        why = f"kernel_y = {kernel!r}"
        if factor is not None and Y.ndim == 1 and Y.dtype.kind in "iu":
            why += f" with {factor.shape[1]} classes"
        elif factor is not None and kernel == "linear":
            why += f" with {factor.shape[1]} response column(s)"
        d = check_rank(o["d"], len(values), self.method, why)
        n_eff = len(X) if weights is None else float(np.sum(weights))
        extras = {
            "kernel_y": kernel,
            "solver": route,
            "rank": len(values),
            "method_details": f"kernel_y = {kernel}, {route} solver",
        }
        return EstimatorOutput(
            basis=canonical_sign(vectors),
            d=d,
            eigenvalues=values / (n_eff - 1) ** 2,
            center=center,
            extras=extras,
        )


@formula_doc(SPCA)
def spca(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "permutation",
    d_max: int | None = None,
    kernel_y: str | None = None,
    gamma_y: float | None = None,
    add_identity: float = 0.0,
    solver: str = "auto",
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> SPCAResults:
    """Supervised PCA from a formula; see :class:`SPCA` for the options.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SPCAResults

    See Also
    --------
    SPCA : The estimator, for arrays (``SPCA(...).fit(X, y)``).
    sdrstats.spca.spca.SPCAResults : What it returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    References
    ----------
    :cite:t:`barshan2011`; :cite:t:`gretton2005`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=1)
    >>> fit.options["kernel_y"] is None, fit.extras["kernel_y"]
    (True, 'delta')
    >>> print(fit.summary())  # doctest: +ELLIPSIS
    Call:
    spca('sex ~ ht + wt + lbm + bmi', data, d=1)
    ...
    Eigenvalues are HSIC contributions...
    """
    return fit_formula(SPCA, locals(), "spca")


__all__ = [
    "SPCA",
    "SPCAResults",
    "spca",
    "hsic_matrix_factor",
    "top_eigen",
    "check_rank",
    "RANK_TOL",
]
