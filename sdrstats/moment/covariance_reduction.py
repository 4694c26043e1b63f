"""Covariance reducing models (Cook & Forzani 2008): CORE.

For a predictor vector observed in ``h`` classes with covariance matrices ``Σ_g``, CORE finds
the smallest subspace ``S`` such that the class covariances differ only inside it: with
``P`` the projection onto ``S`` (in the inner product of the pooled covariance), ``Σ_g =
Σ + P'(Σ_g − Σ)P`` for every class. Under Wishart models for the sample covariance matrices
``S_g`` its maximum-likelihood estimate maximises, over ``p × d`` matrices ``α``,

.. math:: L_d(α) = \\frac n2 \\log|α' \\tilde Σ α| - \\sum_g \\frac{n_g}2 \\log|α' S_g α|,

where ``Σ̃ = Σ_g (n_g/n) S_g`` is the pooled covariance. ``L_d`` depends only on the span of
``α``. In the coordinates ``z = Σ̃^{-1/2}(x − x̄)`` the first term is constant on matrices
with orthonormal columns, so the fit minimises ``Σ_g f_g log|β' T_g β|`` (``T_g =
Σ̃^{-1/2} S_g Σ̃^{-1/2}``, ``f_g = n_g/n``) over the Grassmann manifold
(BFGS on local charts ``β = β₀ + β₀⊥ A``) and maps ``β`` back, ``α =
Σ̃^{-1/2} β``.

The likelihood-ratio statistic ``Λ_d = 2(L_p − L_d)`` of ``d`` against the full model is
asymptotically χ² with ``(h − 1)(p(p + 1) − d(d + 1))/2 − d(p − d)`` degrees of freedom (the
full model's ``h p(p + 1)/2`` covariance parameters less the reduced model's ``p(p + 1)/2 +
d(p − d) + (h − 1) d(d + 1)/2``); ``d = 0`` is Bartlett's test of equal covariance matrices
without its small-sample factor.

The class covariances have divisor ``n_g − 1`` and are weighted by the class sizes ``n_g``,
as statsmodels' ``CovarianceReduction`` computes them, so the two give the same subspace
and log-likelihood.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.budget import check_count, check_loops
from ..base.parallel import spawn_generators
from ..base.tables import Block
from ..base.validation import Interval, Options, TooFewRowsError
from ..base.warnings import ConvergenceWarning
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..results.fitted import DimensionTest, Results, choose_by_pvalues, hypothesis_labels
from ..stats.chi2 import chi2_sf
from ..stats.grassmann import minimize_on_charts, random_orthonormal_rows
from ..stats.linalg import canonical_basis, sym_eigh_desc

#: Seconds of one BFGS iteration per (p³ h) on a 2-core machine (a d x d solve per class and
#: a p x d product; measured at p = 10, h = 3), with the budget's floor for a Python step.
_STEP_SECONDS_PER_UNIT = 2e-8


def class_covariances(
    X: np.ndarray, codes: np.ndarray, weights: np.ndarray | None, method: str = "core"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class sizes, class covariance matrices (divisor ``n_g − 1``) and the overall mean.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Predictors.
    codes : ndarray of int, shape (n,)
        Class code of each row, ``0..h-1``.
    weights : ndarray of shape (n,), optional
        Frequency weights (a bootstrap's counts): a row counts that many times.
    method : str
        The method's name, for the messages.

    Returns
    -------
    sizes : ndarray of shape (h,)
        Rows (summed weights) per class.
    covs : ndarray of shape (h, p, p)
        ``S_g``.
    mean : ndarray of shape (p,)
        The overall mean.

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [2.0, 1.0], [1.0, 3.0], [1.0, 0.0], [4.0, 2.0], [2.0, 2.0]])
    >>> sizes, covs, _ = class_covariances(X, np.array([0, 0, 0, 1, 1, 1]), None)
    >>> sizes.tolist(), covs[0].round(3).tolist()
    ([3.0, 3.0], [[1.0, 0.0], [0.0, 1.333]])
    """
    w = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=float)
    h = int(codes.max()) + 1
    p = X.shape[1]
    sizes = np.bincount(codes, weights=w, minlength=h)
    covs = np.empty((h, p, p))
    for g in range(h):
        rows = codes == g
        wg = w[rows]
        if sizes[g] <= 1:
            covs[g] = np.nan
            continue
        xg = X[rows]
        centred = xg - wg @ xg / sizes[g]
        covs[g] = (centred * wg[:, None]).T @ centred / (sizes[g] - 1.0)
    return sizes, covs, w @ X / w.sum()


def _criterion(T: np.ndarray, fractions: np.ndarray) -> Any:
    """``F(B) = Σ_g f_g log|Bᵀ T_g B| − log|Bᵀ B|`` (a function of the span of any basis
    ``B``) with its gradient in ``B``."""

    def criterion(B: np.ndarray) -> tuple[float, np.ndarray]:
        TB = np.einsum("gpq,qd->gpd", T, B)
        inner = np.einsum("pd,gpe->gde", B, TB)
        sign, logdet = np.linalg.slogdet(inner)
        gram = B.T @ B
        if np.any(sign <= 0):
            return np.inf, np.zeros_like(B)
        value = float(fractions @ logdet) - np.linalg.slogdet(gram)[1]
        grad = 2.0 * np.einsum("g,gpd,gde->pe", fractions, TB, np.linalg.inv(inner))
        grad -= 2.0 * B @ np.linalg.inv(gram)
        return value, grad

    return criterion


def _orient(beta: np.ndarray, T: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Columns of ``beta`` rotated within their span, ordered by how much the classes'
    covariances differ along them (eigenvectors of ``Σ_g f_g (βᵀ T_g β − I)²``)."""
    d = beta.shape[1]
    reduced = np.einsum("pd,gpq,qe->gde", beta, T, beta) - np.eye(d)
    spread = np.einsum("g,gde,gef->df", fractions, reduced, reduced)
    _, vectors = sym_eigh_desc(spread)
    return beta @ vectors


class COREResults(Results):
    """Results of :class:`CORE`: class sizes and the log-likelihood of each dimension.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; :func:`core` builds it.

    See Also
    --------
    core : The method that returns it.

    References
    ----------
    :cite:t:`cook2008`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.core("sex ~ ht + wt + lbm + ssf", ais, d=1)
    >>> type(fit).__name__, fit.directions.shape
    ('COREResults', (4, 1))
    """

    @property
    def loglik(self) -> pd.Series:
        """The maximised log-likelihood ``L_d`` for ``d = 0, 1, ...`` and the full model.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.core("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=1)
        >>> fit.loglik.index.tolist()
        ['d = 0', 'd = 1', 'd = 2', 'd = 3 (full)']
        """
        ex = self.output.extras
        values = [*ex["loglik"], ex["loglik_full"]]
        labels = [f"d = {k}" for k in range(len(ex["loglik"]))] + [f"d = {self.p} (full)"]
        return pd.Series(values, index=labels, name="loglik")

    def _method_line(self) -> str:
        ex = self.output.extras
        return (
            f"core with {len(ex['class_sizes'])} classes, n = {self.n}: the subspace that "
            "carries every difference among the classes' covariance matrices."
        )

    def _summary_blocks(self) -> list[Block]:
        blocks = super()._summary_blocks()
        ex = self.output.extras
        names = list(getattr(self.spec, "y_levels", None) or [])
        sizes = "  ".join(
            f"{names[lvl] if lvl < len(names) else lvl}: {s:g}"
            for lvl, s in zip(ex["levels"], ex["class_sizes"])
        )
        blocks.insert(2, Block("Class Sizes", text=sizes))
        return blocks


class CORE(Estimator):
    """Covariance reduction (Cook & Forzani 2008): where the class covariances differ.

    CORE estimates, by maximum likelihood on the Grassmann manifold, the smallest subspace
    outside which the class covariance matrices agree. The response is a class label (``factor(g)`` or a text column). The method sees
    differences in spread only: classes that differ in their means but share one covariance
    matrix have ``d = 0`` (use :func:`sir` or :func:`save` for those).

    Parameters
    ----------
    d : int, optional
        Dimension of the subspace (at most p); ``None`` (default) chooses it by ``d_rule``.
    d_rule : {"asymptotic", "bootstrap"}
        The rule that chooses ``d`` when it is not given: ``"asymptotic"`` (default), the
        likelihood-ratio tests of ``d = 0, 1, ...`` against the full model at level 0.05;
        ``"bootstrap"`` is Ye & Weiss's rule.
    d_max : int, default 4
        Largest dimension fitted, shown and tested (below p). Every ``d ≤ d_max`` is fitted,
        whatever ``d`` is given, so the test needs no refit.
    max_iter : int, default 500
        BFGS iterations per start and dimension.
    tol : float, default 1e-9
        Stop when every coordinate of the gradient of the criterion
        ``Σ_g f_g log|β' T_g β|`` (of order one) is below ``tol``.
    n_restarts : int, default 1
        Starts per dimension: the first is the leading eigenvectors of ``Σ_g f_g (T_g −
        I)²`` (the classes' whitened covariances against the pooled one), the others
        random; the largest likelihood wins.
    random_state : int, SeedSequence or Generator, optional
        The random starts; the streams of ``bootstrap()`` and the resampling rules derive
        from it. None draws one, which the summary prints.

    See Also
    --------
    core : The formula function (``sdr.core(formula, data)``).
    sdrstats.moment.covariance_reduction.COREResults : What ``fit`` returns.
    save : Sliced average variance estimation, which sees differences in means as well.

    Notes
    -----
    Every class needs more rows than predictors (its covariance matrix must be
    nonsingular). The class covariances use divisor ``n_g − 1`` and are weighted by ``n_g``
    in the pooled covariance and the likelihood, as statsmodels 0.15's
    ``CovarianceReduction``; on the same data the two give the same subspace and
    log-likelihood (``statsmodels`` starts from the first ``d`` coordinate axes, this
    method from the eigenvectors above, which is where they may part when the likelihood
    has several local maxima). The ``d``-dimensional subspace is reported with its columns
    ordered by ``Σ_g f_g (β' T_g β − I)²`` within it.

    References
    ----------
    :cite:t:`cook2008`; the search on the Grassmann manifold follows Edelman, Arias & Smith
    (1998), with BFGS (Nocedal & Wright 2006) on its charts.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat([0, 1, 2], 200)
    >>> X = rng.standard_normal((600, 4))
    >>> X[:, 0] *= np.array([0.5, 1.0, 2.0])[g]  # the classes differ in x1's spread only
    >>> fit = sdr.CORE(d=1).fit(X, g.astype(str))
    >>> np.abs(fit.directions.iloc[:, 0]).round(1).tolist()
    [1.0, 0.0, 0.0, 0.0]
    """

    method = "core"
    response = "categorical"
    capabilities = Capabilities(eigenvalues=False, asymptotic_test=True, nested_directions=False)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("asymptotic", "bootstrap"))],
        "d_max": [Interval(int, 1, None)],
        "max_iter": [Interval(int, 1, None)],
        "tol": [Interval(float, 0, None, closed="neither")],
        "n_restarts": [Interval(int, 1, None)],
        "random_state": ["random_state"],
    }
    results_class = COREResults

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "asymptotic",
        d_max: int = 4,
        max_iter: int = 500,
        tol: float = 1e-9,
        n_restarts: int = 1,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        d = self.options["d"]
        if d is not None and d > p:
            raise ValueError(f"The 'd' option of core must be at most p = {p}; got {d}.")
        o = self.options
        check_count("core", "n_restarts", o["n_restarts"], unit="starts", seconds_each=None)
        dims = min(max(o["d_max"], d or 0), p)
        h = max(int(np.max(Y)) + 1, 2) if len(Y) else 2
        check_loops(
            "core",
            {"dimensions": dims, "n_restarts": o["n_restarts"], "max_iter": o["max_iter"]},
            _STEP_SECONDS_PER_UNIT * p**3 * h,
            unit="BFGS iterations",
            at=f" at p = {p}",
        )

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        codes = np.asarray(Y).reshape(-1).astype(int)
        n, p = X.shape
        sizes, covs, mean = class_covariances(X, codes, weights)
        present = sizes > 0
        levels = np.flatnonzero(present)
        sizes, covs = sizes[present], covs[present]
        if len(sizes) < 2:
            raise ValueError(
                "core compares the covariance matrices of the classes, but the response has "
                "only one class among the rows used; give a response with two or more classes."
            )
        small = [(int(lvl), s) for lvl, s in zip(levels, sizes) if s <= p]
        if small:
            raise TooFewRowsError(
                f"core needs more rows than predictors (p = {p}) in every class, so that each "
                f"class covariance matrix is nonsingular; class code(s) "
                f"{[lvl for lvl, _ in small]} have {[int(s) for _, s in small]} rows. Merge "
                "small classes or use fewer predictors."
            )
        fractions = sizes / sizes.sum()
        pooled = np.einsum("g,gpq->pq", fractions, covs)
        values, vectors = np.linalg.eigh(pooled)
        if values[0] <= 1e-12 * values[-1]:
            raise ValueError(
                "core: the pooled within-class covariance of the predictors is singular "
                "(collinear predictors); drop redundant predictors."
            )
        root = (vectors / np.sqrt(values)) @ vectors.T  # Σ̃^{-1/2}
        T = np.einsum("pq,gqr,rs->gps", root, covs, root)
        if np.any(np.linalg.eigvalsh(T)[:, 0] <= 1e-12):
            raise ValueError(
                "core: a class covariance matrix is singular (a predictor is constant, or "
                "predictors collinear, within a class); drop those predictors or merge classes."
            )
        d_opt = self.options["d"]
        top = min(max(self.options["d_max"], d_opt or 0), p - 1)
        start_vectors = sym_eigh_desc(
            np.einsum("g,gpq,gqr->pr", fractions, T - np.eye(p), T - np.eye(p))
        )[1]
        rngs = spawn_generators(random_state, max(top, 1))
        by_dimension: dict[int, np.ndarray] = {}
        loglik = [0.0]
        converged: list[bool] = []
        for k in range(1, top + 1):
            beta, value, ok = self._fit_dimension(T, fractions, start_vectors[:, :k], rngs[k - 1])
            by_dimension[k] = beta
            loglik.append(-0.5 * n * value)
            converged.append(ok)
        full = -0.5 * n * float(fractions @ np.linalg.slogdet(T)[1])
        by_dimension[p] = np.eye(p)
        d = top if d_opt is None else d_opt
        if not all(converged):
            import warnings

            bad = [k for k, ok in zip(range(1, top + 1), converged) if not ok]
            warnings.warn(
                f"core: the search for d = {bad} stopped at max_iter = "
                f"{self.options['max_iter']} before converging; increase max_iter.",
                ConvergenceWarning,
                stacklevel=4,
            )
        bases = {k: canonical_basis(root @ b) for k, b in by_dimension.items() if k <= p}
        basis = bases[d] if d >= 1 else bases[1]
        extras = {
            "loglik": np.array(loglik),
            "loglik_full": full,
            "class_sizes": sizes,
            "levels": levels,
            "converged": converged,
            "bases": bases,
        }
        return EstimatorOutput(
            basis=basis, d=max(d, 1), criterion=loglik[d] if d <= top else full,
            center=mean, extras=extras,
        )  # fmt: skip

    def _fit_dimension(
        self, T: np.ndarray, fractions: np.ndarray, start: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, float, bool]:
        """The best of ``n_restarts`` searches at one dimension: ``(β, criterion, converged)``.

        Each search runs BFGS on charts of the Grassmann manifold around its start
        (:func:`sdrstats.stats.grassmann.minimize_on_charts`).
        """
        k, p = start.shape[1], T.shape[1]
        starts = [start] + [
            random_orthonormal_rows(k, p, rng).T for _ in range(self.options["n_restarts"] - 1)
        ]
        criterion = _criterion(T, fractions)
        tol, max_iter = self.options["tol"], self.options["max_iter"]
        runs = [minimize_on_charts(criterion, b, gtol=tol, max_iter=max_iter) for b in starts]
        best = min(runs, key=lambda run: run.value)
        return _orient(best.basis, T, fractions), best.value, best.converged

    def output_for_dimension(
        self, output: EstimatorOutput, d: int, spec: Any, *, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit's output at ``d``, taken from the dimensions it fitted (no refit).

        Parameters
        ----------
        output : EstimatorOutput
            What the fit returned.
        d : int
            The chosen dimension.
        spec : ModelSpec
            The fit's data (used only for a ``d`` past those fitted).
        random_state : optional
            The fit's seed.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("sex ~ ht + wt + lbm", sdr.datasets.load("ais"))
        >>> est = sdr.CORE()
        >>> est.output_for_dimension(est.fit_output(spec), 1, spec).basis.shape
        (3, 1)
        """
        import dataclasses

        bases = output.extras["bases"]
        if d not in bases:
            return self.clone(d=d).fit_output(spec, random_state=random_state)
        loglik = output.extras["loglik"]
        criterion = loglik[d] if d < len(loglik) else output.extras["loglik_full"]
        return dataclasses.replace(output, basis=bases[d], d=d, criterion=float(criterion))

    def asymptotic_test(
        self, results: Results, d_max: int | None = None, level: float = 0.05
    ) -> DimensionTest:
        """Likelihood-ratio tests of ``d = m`` against the full model, ``m = 0, 1, ...``.

        ``Λ_m = 2(L_p − L_m)`` is referred to χ² with ``(h − 1)(p(p + 1) − m(m + 1))/2 −
        m(p − m)`` degrees of freedom (Cook & Forzani 2008); the chosen ``d`` is the
        smallest ``m`` not rejected at ``level``.

        Parameters
        ----------
        results : Results
            The fit.
        d_max : int, optional
            Largest ``m`` tested; default the fit's ``d_max``.
        level : float, default 0.05
            The test level.

        Returns
        -------
        DimensionTest

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.core("sex ~ ht + wt + lbm", sdr.datasets.load("ais"))
        >>> fit.test_dimension().table.index.tolist()
        ['0D vs >= 1D', '1D vs >= 2D', '2D vs >= 3D']
        """
        ex = results.output.extras
        loglik = np.asarray(ex["loglik"])
        p, h = results.p, len(ex["class_sizes"])
        rows = len(loglik) if d_max is None else min(len(loglik), d_max + 1)
        m = np.arange(rows)
        stat = 2.0 * (ex["loglik_full"] - loglik[:rows])
        stat = np.maximum(stat, 0.0)
        df = (h - 1) * (p * (p + 1) - m * (m + 1)) // 2 - m * (p - m)
        pv = np.array([chi2_sf(s, k) for s, k in zip(stat, df)])
        table = pd.DataFrame({"stat": stat, "df": df, "p_value": pv}, index=hypothesis_labels(rows))
        return DimensionTest(
            table,
            choose_by_pvalues(pv, level),
            "asymptotic",
            self.method,
            level=level,
            title="Likelihood-ratio Dimension Tests (against the full model)",
            display_names={"stat": "Stat", "p_value": "p.value"},
        )


@formula_doc(CORE)
def core(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "asymptotic",
    d_max: int = 4,
    max_iter: int = 500,
    tol: float = 1e-9,
    n_restarts: int = 1,
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> COREResults:
    """Covariance reduction (CORE) from a formula; see :class:`CORE` for the options.

    The response is the class label (a text column, ``factor(g)`` or ``C(g)``).

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    COREResults

    See Also
    --------
    CORE : The estimator, for arrays (``CORE(...).fit(X, y)``).
    sdrstats.moment.covariance_reduction.COREResults : What it returns.
    save, bias_corrected_save : Slicing methods that also see differences in means.

    References
    ----------
    :cite:t:`cook2008`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.core("sex ~ ht + wt + lbm + ssf", ais)
    >>> fit.d_rule
    'asymptotic'
    """
    return fit_formula(CORE, locals(), "core")


__all__ = ["CORE", "COREResults", "core", "class_covariances"]
