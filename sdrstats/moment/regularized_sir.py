"""Regularized sliced inverse regression (Ferré & Yao 2003), SIR with a roughness penalty.

SIR's subspace is the span of ``Σ A`` that best reproduces the slice means: with slice
proportions ``f_s``, slice means ``m_s`` of the centred predictors and ``Q_A`` the
projection onto the span of ``Σ A``, plain SIR minimises ``Σ_s f_s ‖(I − Q_A) m_s‖²``. When
the predictors are a curve sampled at many points (``p`` near or above ``n``), ``Σ`` is
ill-conditioned and SIR's directions are rough. Regularized SIR adds a penalty on the
directions themselves,

.. math:: F(A) = \\sum_s f_s \\|(I - Q_A) m_s\\|^2 + λ \\|P A\\|_F^2,

minimised over ``p × d`` matrices ``A`` with orthonormal columns (a Grassmann problem: both
terms depend on the span only). With ``P`` the second-difference matrix the directions
are smooth functions of the sampling index ("functional SIR"). The search runs BFGS on
charts of the Grassmann manifold from the minimiser without a penalty.

The objective is statsmodels 0.15's ``SlicedInverseReg.fit_regularized`` with ``pen_mat =
√λ P``; given the same slices the two give the same subspace and objective.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.linalg
import scipy.optimize

from ..base.budget import check_count, check_loops
from ..base.validation import Interval, Options, TooFewRowsError
from ..base.warnings import ConvergenceWarning
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..results.fitted import Results
from ..stats.grassmann import minimize_on_charts
from ..stats.linalg import canonical_basis
from ..stats.slicing import default_nslices, make_slices
from .estimator import response_vector

#: The named penalty matrices.
PENALTIES = ("second_difference", "first_difference", "identity")


def penalty_matrix_for(
    name: str | np.ndarray, p: int, method: str = "regularized_sir"
) -> np.ndarray:
    """The penalty matrix ``P`` for a name, or a given matrix checked against ``p``.

    Parameters
    ----------
    name : {"second_difference", "first_difference", "identity"} or array of shape (q, p)
        ``"second_difference"``: rows ``(1, −2, 1)`` along the predictors' order (the squared
        second derivative of a sampled curve); ``"first_difference"``: rows ``(−1, 1)``;
        ``"identity"``: a ridge penalty.
    p : int
        Number of predictors.
    method : str
        The method's name, for the messages.

    Returns
    -------
    ndarray of shape (q, p)

    Examples
    --------
    >>> penalty_matrix_for("second_difference", 4)
    array([[ 1., -2.,  1.,  0.],
           [ 0.,  1., -2.,  1.]])
    """
    if isinstance(name, str):
        if name == "identity":
            return np.eye(p)
        order = {"first_difference": 1, "second_difference": 2}[name]
        if p <= order:
            raise ValueError(
                f"The {name!r} penalty of {method} needs more than {order} predictors; got "
                f"p = {p}. Give penalty_matrix as an array, or 'identity'."
            )
        return np.diff(np.eye(p), n=order, axis=0)
    P = np.asarray(name, dtype=float)
    if P.ndim != 2 or P.shape[1] != p:
        raise ValueError(
            f"The 'penalty_matrix' of {method} must have one column per predictor (p = {p}); "
            f"got shape {P.shape}."
        )
    if not np.all(np.isfinite(P)):
        raise ValueError(f"The 'penalty_matrix' of {method} has non-finite values.")
    return P


def _criterion(cov: np.ndarray, M: np.ndarray, K: np.ndarray) -> Any:
    """``F(B) = tr M − tr(Q M) + tr((BᵀB)⁻¹ Bᵀ K B)`` for any basis ``B`` of the span, with
    ``Q`` the projection onto ``Σ B`` and ``K = λ PᵀP``, and its gradient in ``B``."""
    trace_m = float(np.trace(M))

    def criterion(B: np.ndarray) -> tuple[float, np.ndarray]:
        C = cov @ B
        MC = M @ C
        inv_c = np.linalg.inv(C.T @ C)
        inv_b = np.linalg.inv(B.T @ B)
        KB = K @ B
        BKB = B.T @ KB
        value = trace_m - float(np.trace(inv_c @ (C.T @ MC))) + float(np.trace(inv_b @ BKB))
        # d(-tr QM)/dC = -2 (I - Q) M C (CᵀC)⁻¹, pulled back through C = Σ B
        residual = MC - C @ (inv_c @ (C.T @ MC))
        grad = -2.0 * cov @ (residual @ inv_c)
        grad += 2.0 * KB @ inv_b - 2.0 * B @ (inv_b @ BKB @ inv_b)
        return value, grad

    return criterion


class RegularizedSIR(Estimator):
    """Regularized sliced inverse regression (Ferré & Yao 2003): SIR with a penalty.

    Minimises ``Σ_s f_s ‖(I − Q_A) m_s‖² + penalty · ‖P A‖²_F`` over ``p × d`` matrices
    ``A`` with orthonormal columns, where ``Q_A`` projects onto the span of ``Σ A`` and
    ``m_s`` are the slice means of the centred predictors: SIR's fit to the slice means,
    with directions kept smooth (or small) by the penalty matrix ``P``.

    Parameters
    ----------
    penalty_matrix : {"second_difference", "first_difference", "identity"} or array
        ``P`` (``q × p``). The default penalises the second differences of each direction
        along the predictors' order: for predictors that sample a curve, smooth
        directions ("functional SIR"). An array gives ``P`` itself.
    penalty : float, default 1.0
        ``λ`` in front of ``‖P A‖²``. Without a penalty the minimiser is ``Σ⁻¹ U``, ``U``
        the leading eigenvectors of the slice means' covariance: under SIR's linearity
        condition it estimates SIR's target, the central subspace, though on a sample it
        is not SIR's span (SIR whitens before it takes eigenvectors). The slice-mean term is in the predictors' units squared: scale the predictors (or
        ``penalty``) so that the two terms are comparable.
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as R ``dr``'s SIR.
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule, as :class:`SIR`.
    d : int, optional
        Dimension of the subspace (at most p − 1); ``None`` (default) chooses it by
        ``d_rule``.
    d_rule : {"cv", "bootstrap"}
        The rule that chooses ``d`` when it is not given. ``"cv"`` (default) fits every
        ``d = 1..d_max`` and keeps the one whose reduced predictors best predict the
        response out of sample; ``"bootstrap"`` is Ye & Weiss's rule.
    d_max : int, optional
        Largest ``d`` the rule tries; default 4 (below p).
    max_iter : int, default 500
        BFGS iterations per dimension.
    tol : float, default 1e-9
        Stop when every coordinate of the criterion's gradient is below ``tol`` times the
        criterion's scale (the total variance of the slice means plus ``penalty``).
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (the fit itself draws nothing): the rules that resample,
        ``bootstrap()`` and ``conditional_density()`` derive their streams from it.

    See Also
    --------
    regularized_sir : The formula function (``sdr.regularized_sir(formula, data)``).
    SIR : Sliced inverse regression without a penalty.

    Notes
    -----
    The search starts from the minimiser without a penalty and runs BFGS on charts of the
    Grassmann manifold. Given the same slices (statsmodels slices the sorted response into
    equal counts, ``n // slice_n`` of them; this method slices as R ``dr``, which agrees
    when ``n`` is a multiple of the number of slices and the response has no ties), the
    objective and its minimiser equal statsmodels 0.15's
    ``SlicedInverseReg(y, X).fit_regularized(d, pen_mat=sqrt(penalty) * P)``. For
    ``d ≥ 2`` statsmodels' own search can leave the manifold (it projects the gradient as
    one flattened vector, so its columns lose orthonormality) and stop elsewhere; its
    objective and gradient at this method's answer still agree with this method's.

    References
    ----------
    :cite:t:`ferre2003`; :cite:t:`li1991`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> t = np.linspace(0, 1, 12)
    >>> X = np.cumsum(rng.standard_normal((300, 12)), axis=1) / 3  # rough curves
    >>> beta = np.sin(np.pi * t)                                    # a smooth direction
    >>> y = X @ beta / 4 + 0.2 * rng.standard_normal(300)
    >>> fit = sdr.RegularizedSIR(d=1, penalty=0.01).fit(X, y)
    >>> bool(abs(np.corrcoef(fit.directions.iloc[:, 0], beta)[0, 1]) > 0.9)
    True
    """

    method = "regularized_sir"
    response = "continuous"
    capabilities = Capabilities(eigenvalues=False, nested_directions=False)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "penalty_matrix": [Options(PENALTIES), "array-like"],
        "penalty": [Interval(float, 0, None)],
        "nslices": [Interval(int, 2, None), None],
        "slice_function": [Options(("dr", "arc"))],
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("cv", "bootstrap"))],
        "d_max": [Interval(int, 1, None), None],
        "max_iter": [Interval(int, 1, None)],
        "tol": [Interval(float, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }
    results_class = Results

    def __init__(
        self,
        *,
        penalty_matrix: Any = "second_difference",
        penalty: float = 1.0,
        nslices: int | None = None,
        slice_function: str = "dr",
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        max_iter: int = 500,
        tol: float = 1e-9,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        d = self.options["d"]
        if p < 2:
            raise ValueError("regularized_sir needs at least two predictors.")
        if d is not None and d >= p:
            raise ValueError(f"The 'd' option of regularized_sir must be below p = {p}; got {d}.")
        if n <= p:
            raise TooFewRowsError(
                f"regularized_sir needs n > p to estimate the predictors' covariance; got "
                f"n = {n}, p = {p}."
            )
        penalty_matrix_for(self.options["penalty_matrix"], p)
        check_count("regularized_sir", "max_iter", self.options["max_iter"], unit="iterations")
        check_loops(
            "regularized_sir",
            {"max_iter": self.options["max_iter"]},
            1e-9 * p**3,
            unit="BFGS iterations",
            at=f" at p = {p}",
        )

    def fit_output(
        self, spec: Any, *, weights: np.ndarray | None = None, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit at ``d``; with ``d=None`` every candidate of the ``"cv"`` rule.

        Parameters
        ----------
        spec : ModelSpec
            The rows.
        weights : ndarray of shape (n,), optional
            Frequency weights.
        random_state : optional
            The fit's seed.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ log(ssf) + log(wt) + log(hg)", sdr.datasets.load("ais"))
        >>> sdr.RegularizedSIR(d=1, penalty=0).fit_output(spec).basis.shape
        (3, 1)
        """
        if self.options["d"] is None:
            return self.fit_candidates(spec, weights=weights, random_state=random_state)
        return super().fit_output(spec, weights=weights, random_state=random_state)

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        y = response_vector(Y, self.method)
        n, p = X.shape
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        o = self.options
        slices = make_slices(
            y[w > 0], o["nslices"] or default_nslices(p), function=o["slice_function"]
        )
        keep = w > 0
        Xk, wk = X[keep], w[keep]
        total = wk.sum()
        mean = wk @ Xk / total
        centred = Xk - mean
        cov = (centred * wk[:, None]).T @ centred / (total - 1.0)
        h = slices.nslices
        sizes = np.bincount(slices.labels, weights=wk, minlength=h)
        sums = np.zeros((h, p))
        np.add.at(sums, slices.labels, centred * wk[:, None])
        means = sums / sizes[:, None]
        fractions = sizes / total
        M = (means * fractions[:, None]).T @ means
        P = penalty_matrix_for(o["penalty_matrix"], p)
        K = o["penalty"] * (P.T @ P)
        d = o["d"]
        A0 = self._sir_start(cov, M, d)
        A, value, converged = self._search(A0, cov, M, K)
        if not converged:
            import warnings

            warnings.warn(
                f"regularized_sir stopped at max_iter = {o['max_iter']} before the gradient "
                f"fell below tol = {o['tol']:g}; increase max_iter.",
                ConvergenceWarning,
                stacklevel=4,
            )
        basis = canonical_basis(self._orient(A, cov, M))
        extras = {"slice_sizes": np.bincount(slices.labels, minlength=h), "converged": converged}
        return EstimatorOutput(basis=basis, d=d, criterion=value, center=mean, extras=extras)

    @staticmethod
    def _sir_start(cov: np.ndarray, M: np.ndarray, d: int) -> np.ndarray:
        """The minimiser without a penalty, orthonormalised: ``Σ⁻¹ U`` with ``U`` the
        leading ``d`` eigenvectors of the slice means' covariance ``M``."""
        _, vectors = np.linalg.eigh(M)
        return np.linalg.qr(np.linalg.solve(cov, vectors[:, ::-1][:, :d]))[0]

    def _search(
        self, A: np.ndarray, cov: np.ndarray, M: np.ndarray, K: np.ndarray
    ) -> tuple[np.ndarray, float, bool]:
        """BFGS on charts of the Grassmann manifold from ``A``."""
        p = A.shape[0]
        scale = float(np.trace(M)) + float(np.trace(K)) / max(p, 1) + 1e-300
        found = minimize_on_charts(
            _criterion(cov, M, K),
            A,
            gtol=self.options["tol"] * scale,
            max_iter=self.options["max_iter"],
        )
        return found.basis, found.value, found.converged

    @staticmethod
    def _orient(A: np.ndarray, cov: np.ndarray, M: np.ndarray) -> np.ndarray:
        """The span's basis ordered as SIR orders directions: ``Aᵀ M A v = λ Aᵀ Σ A v``."""
        _, vectors = scipy.linalg.eigh(A.T @ M @ A, A.T @ cov @ A)
        return A @ vectors[:, ::-1]


@formula_doc(RegularizedSIR)
def regularized_sir(
    formula: str,
    data: Any,
    *,
    penalty_matrix: Any = "second_difference",
    penalty: float = 1.0,
    nslices: int | None = None,
    slice_function: str = "dr",
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    max_iter: int = 500,
    tol: float = 1e-9,
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> Results:
    """Regularized SIR from a formula; see :class:`RegularizedSIR` for the options.

    The predictors' order in the formula is the order the difference penalties follow.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    Results

    See Also
    --------
    RegularizedSIR : The estimator, for arrays.
    sir : Sliced inverse regression without a penalty.

    References
    ----------
    :cite:t:`ferre2003`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.regularized_sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais,
    ...                           penalty_matrix="identity", penalty=0.001, d=1)
    >>> fit.directions.shape
    (4, 1)
    """
    return fit_formula(RegularizedSIR, locals(), "regularized_sir")


__all__ = ["RegularizedSIR", "regularized_sir", "penalty_matrix_for", "PENALTIES"]
