"""Lasso-SIR (Lin, Zhao & Liu 2019): sparse SIR directions by Lasso on a pseudo-response.

The predictors are centred and scaled to unit variance but never whitened, so the method works
when ``p > n``. The eigen-decomposition of the slice-mean kernel goes through the ``H x H``
Gram matrix of the slice means, and each direction is one scikit-learn Lasso fit. The number of
directions is chosen by Li's (1991) χ² test of the kernel where ``n`` is large enough for it,
else as R ``LassoSIR`` chooses it (a two-group k-means of ``λ̂_j ‖β̂_j‖``), or by the
eigenvalue-ratio rule.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.budget import check_loops
from ..base.parallel import as_seed_sequence, parallel_map
from ..base.tables import Block
from ..base.validation import Interval, Options, check_int
from ..base.warnings import ConvergenceWarning
from ..fitting.estimator import Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..inference.dimension_test import sir_dimension_test, sir_test_unavailable
from ..inference.ratio import ratio_choice
from ..results.fitted import DimensionTest, Results
from ..stats.linalg import canonical_basis
from ..stats.slicing import make_slices

#: Largest dimension the rules for ``d`` consider by default (the ``d_max`` option).
MAX_AUTO_D = 10

#: An eigenvalue of the slice-mean kernel counts as positive when it exceeds this fraction of
#: the largest. The kernel has rank at most ``min(p, H - 1)``; its null eigenvalues come out of
#: the Gram route at about ``1e-16`` times the largest (rounding), far below this.
EIGEN_RTOL = 1e-10

#: Size ``n * p`` above which the cross-validated Lasso works from the Gram matrix ``ZᵀZ``.
PRECOMPUTE_SIZE = 100_000

#: The rules of the ``d_rule`` option.
D_RULES = ("auto", "asymptotic", "kmeans", "ratio")

#: The smallest eigenvalue of the predictors' correlation matrix below which Li's χ² test,
#: which whitens the kernel by its inverse, is not computed (the predictors are collinear).
COLLINEAR_RTOL = 1e-10

#: The cross-validated rules of the ``penalty`` option (``"cv"`` is the older name of
#: ``"cv_min"``) and the ``cv.glmnet`` penalty each takes.
PENALTY_RULES = ("cv_1se", "cv_min", "cv")
CV_CHOICE = {"cv_1se": "1se", "cv_min": "min", "cv": "min"}

#: The refits of the ``refit`` option: ridge-stabilised on the union of the supports of the
#: directions up to each one or of all of them, ridge-stabilised or plain least squares on
#: each direction's own support.
REFIT_RULES = ("nested", "union", "ridge", "ols")

#: Ridge penalty of ``refit="ridge"`` per row, on the unit-variance columns: the refit solves
#: ``(Z_SᵀZ_S + RIDGE_REFIT·n·I) β = Z_SᵀỸ``, i.e. adds this to the diagonal of the selected
#: predictors' correlation matrix.
RIDGE_REFIT = 0.1

#: How the summary names each refit (None: no refit).
REFIT_NOTES = {
    "nested": (
        f"ridge on the union of the supports of each direction and those before it "
        f"(penalty {RIDGE_REFIT:g} n, unit-variance columns)"
    ),
    "union": (
        f"ridge on the union of the directions' supports (penalty {RIDGE_REFIT:g} n, "
        "unit-variance columns)"
    ),
    "ridge": f"ridge on the support (penalty {RIDGE_REFIT:g} n, unit-variance columns)",
    "ols": "least squares on the support",
    None: "none (the Lasso coefficients)",
}


def refit_rule(refit: str | bool) -> str | None:
    """The refit a ``refit`` option value names (``"nested"``, ``"union"``, ...) or None.

    ``True`` is the older spelling of ``"ols"`` (what ``refit=True`` meant before the ridge
    refits became the default), so fits saved with it keep their numbers; None: no refit.
    """
    if refit is False or refit is None:
        return None
    if isinstance(refit, (bool, np.bool_)):
        return "ols" if refit else None
    return str(refit)


def refit_support(Z: np.ndarray, target: np.ndarray, selected: np.ndarray, rule: str) -> np.ndarray:
    """Coefficients of ``target`` on the columns ``selected`` of ``Z`` (centred), by ``rule``.

    ``"ols"``: least squares; ``"ridge"`` (and the others): ridge regression with penalty
    ``RIDGE_REFIT · n`` (``Z`` has unit-variance columns, so the penalty adds
    :data:`RIDGE_REFIT` to the diagonal of the selected predictors' correlation matrix).
    ``target`` may hold several responses as columns (``n x k``), each refitted on the same
    columns. Returns the ``len(selected)`` coefficients (``len(selected) x k``).
    """
    chosen = Z[:, selected] - Z[:, selected].mean(axis=0)
    centred = target - target.mean(axis=0)
    if rule == "ols":
        return np.linalg.lstsq(chosen, centred, rcond=None)[0]
    gram = chosen.T @ chosen + RIDGE_REFIT * Z.shape[0] * np.eye(selected.size)
    return np.linalg.solve(gram, chosen.T @ centred)


def refit_union(
    Z: np.ndarray, targets: np.ndarray, coefs: np.ndarray, nested: bool = False
) -> np.ndarray:
    """The directions ``coefs`` (p x d) refitted by ridge on unions of their supports.

    Column ``j`` becomes the ridge regression (penalty ``RIDGE_REFIT · n``, as
    :func:`refit_support`) of ``targets[:, j]`` (the pseudo-responses, n x d) on every
    predictor some direction selects (``nested=True``: some direction ``1..j``, so the
    first column is kept). A direction that selects nothing stays 0, and a column whose
    own support is already that union, or whose union holds ``n - 1`` or more predictors,
    is kept as it is.
    """
    out = coefs.copy()
    for j in range(coefs.shape[1]):
        if not coefs[:, j].any():
            continue
        support = np.flatnonzero(coefs[:, : j + 1 if nested else None].any(axis=1))
        if support.size == np.count_nonzero(coefs[:, j]) or support.size >= Z.shape[0] - 1:
            continue
        out[:, j] = 0.0
        out[support, j] = refit_support(Z, targets[:, j], support, "union")
    return out


def slice_mean_eigen(
    X: np.ndarray, labels: np.ndarray, nslices: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eigenpairs of ``Γ̂ = Σ_h f_h x̄_h x̄_hᵀ`` (centred slice means) through its ``H x H`` Gram.

    Returns the eigenvalues (decreasing; those at most ``EIGEN_RTOL`` times the largest, the
    kernel's null space, are set to 0), the eigenvectors ``η`` (p x H, zero columns for the
    null eigenvalues), the slice means (H x p) and the slice fractions. With equal slices
    ``f_h = 1/H``, the Lasso-SIR kernel.
    """
    n = X.shape[0]
    counts = np.bincount(labels, minlength=nslices).astype(float)
    sums = np.zeros((nslices, X.shape[1]))
    np.add.at(sums, labels, X)
    means = sums / np.maximum(counts, 1.0)[:, None]
    fractions = counts / n
    A = means.T * np.sqrt(fractions)  # Γ̂ = A Aᵀ
    gram = A.T @ A
    values, vectors = np.linalg.eigh((gram + gram.T) / 2)
    order = np.argsort(-values)
    values, vectors = values[order], vectors[:, order]
    positive = values > values[0] * EIGEN_RTOL if values[0] > 0 else np.zeros_like(values, bool)
    values = np.where(positive, values, 0.0)
    eta = np.zeros((X.shape[1], nslices))
    eta[:, positive] = A @ vectors[:, positive] / np.sqrt(values[positive])
    return values, eta, means, fractions


def response_slices(Y: np.ndarray, nslices: int) -> Any:
    """Lasso-SIR's slices of the response: equal counts, or one per class (integer codes)."""
    categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
    return make_slices(
        Y if categorical else Y.reshape(-1), nslices, function="arc", categorical=categorical
    )


def whitened_kernel_eigenvalues(Z: np.ndarray, labels: np.ndarray, nslices: int) -> np.ndarray:
    """Eigenvalues of ``Σ̂^{-1/2} Γ̂ Σ̂^{-1/2}`` (SIR's kernel on Lasso-SIR's slices), length p.

    ``Z`` holds the centred predictors (any scaling: the eigenvalues do not depend on it);
    ``Σ̂ = ZᵀZ/n``. Computed through the ``H x H`` matrix ``Aᵀ Σ̂⁻¹ A`` with ``Γ̂ = A Aᵀ``; the
    ``p - min(p, H)`` others are 0. Li's (1991) χ² test reads them.

    Raises
    ------
    ValueError
        When ``n <= p`` or the predictors are (nearly) collinear: ``Σ̂`` cannot be inverted.
    """
    n, p = Z.shape
    if n <= p:
        raise ValueError(
            f"Li's χ² test of lasso_sir needs more rows than predictors to invert their "
            f"covariance; got n = {n}, p = {p}. Use d_rule='kmeans' (R LassoSIR's rule)."
        )
    cov = Z.T @ Z / n
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    if np.linalg.eigvalsh((corr + corr.T) / 2)[0] <= COLLINEAR_RTOL:
        raise ValueError(
            "Li's χ² test of lasso_sir inverts the predictors' covariance, and the predictors "
            "are (nearly) collinear. Use d_rule='kmeans' (R LassoSIR's rule)."
        )
    counts = np.bincount(labels, minlength=nslices).astype(float)
    sums = np.zeros((nslices, p))
    np.add.at(sums, labels, Z)
    means = sums / np.maximum(counts, 1.0)[:, None]
    A = means.T * np.sqrt(counts / n)  # Γ̂ = A Aᵀ
    inner = A.T @ np.linalg.solve(cov, A)
    values = np.clip(np.linalg.eigvalsh((inner + inner.T) / 2)[::-1], 0.0, None)
    out = np.zeros(p)
    k = min(p, nslices)
    out[:k] = values[:k]
    return out


def kernel_asymptotic_test(
    results: LassoSIRResults, d_max: int | None = None, level: float = 0.05
) -> DimensionTest:
    """Li's (1991) χ² test of Lasso-SIR's slice-mean kernel (R ``dr``'s test of SIR).

    ``n Σ_{j>m} θ̂_j ~ χ²((p - m)(H - m - 1))`` with ``θ̂_j`` the kernel's eigenvalues whitened
    by ``Σ̂`` (:func:`whitened_kernel_eigenvalues`), ``H`` the slices holding rows; the
    hypotheses ``m = 0..min(d_max, r) - 1`` (``r`` the kernel's rank), as ``sdr.sir`` tests
    on the same slices. Needs ``n > p``.
    """
    ex, o = results.extras, results.options
    values = ex.get("whitened_eigenvalues")
    if values is None:
        Z = results.spec.X - results.spec.X.mean(axis=0)
        slices = response_slices(results.spec.Y, o["nslices"])
        values = whitened_kernel_eigenvalues(Z, slices.labels, slices.nslices)
    rank = int(np.sum(np.asarray(ex["kernel_eigenvalues"]) > 0))
    most = o["d_max"] if d_max is None else check_int(d_max, "d_max", "test_dimension", low=1)
    h = int(np.sum(np.asarray(ex["slice_sizes"]) > 0))
    rows = max(1, min(most, rank, results.p))
    return sir_dimension_test(values, results.n, results.p, h, rows, level, results.method)


def two_means_smaller_group(values: np.ndarray) -> int:
    """Size of the smaller group in the best split of ``values`` into two k-means clusters.

    In one dimension the optimal two-cluster partition cuts the sorted values once, so every
    cut is tried and the one with the least within-group sum of squares is kept (the first on
    a tie). Fewer than two distinct values give 1.
    """
    v = np.sort(np.asarray(values, dtype=float))
    m = v.size
    if m < 2 or v[0] == v[-1]:
        return 1
    left = np.arange(1, m)
    csum, csq = np.cumsum(v), np.cumsum(v**2)
    ss_left = csq[left - 1] - csum[left - 1] ** 2 / left
    ss_right = (csq[-1] - csq[left - 1]) - (csum[-1] - csum[left - 1]) ** 2 / (m - left)
    cut = int(np.argmin(ss_left + ss_right)) + 1
    return min(cut, m - cut)


def kmeans_dimension(statistic: np.ndarray, categorical: bool) -> int:
    """R ``LassoSIR``'s automatic ``d`` from ``s_j = λ̂_j ‖β̂_j‖`` over ``j = 1..min(p, H)``.

    ``s / s_1`` is split into two k-means groups and ``d`` is the size of the smaller; for a
    categorical response ``d`` is the number of positive ``s_j`` (R: ``H - 1``).
    """
    positive = int(np.sum(statistic > 0))
    if categorical or positive <= 1 or statistic[0] <= 0:
        return max(1, positive) if categorical else 1
    return min(two_means_smaller_group(statistic / statistic[0]), positive)


def glmnet_eps(n: int, p: int) -> float:
    """glmnet's ``lambda.min.ratio``: the smallest penalty of the path over the largest."""
    return 1e-2 if n < p else 1e-4


def cv_lasso(
    Z: np.ndarray,
    target: np.ndarray,
    n_folds: int,
    max_iter: int,
    seed: int,
    choice: str = "min",
) -> tuple[np.ndarray, float]:
    """Lasso coefficients at a cross-validated penalty, as ``cv.glmnet`` chooses it.

    The path has glmnet's 100 penalties from the smallest that selects nothing down to
    :func:`glmnet_eps` times it. ``choice="min"`` (R ``LassoSIR``'s ``lambda.min``) is the
    smallest penalty with the least mean cross-validated squared error; ``choice="1se"``
    (glmnet's ``lambda.1se``) the largest penalty whose mean error is within one standard
    error of that least error (the standard error of the mean over the folds, as glmnet
    computes it). Neither is ever the first penalty of the path (whose fit is empty).
    """
    from sklearn.linear_model import Lasso, LassoCV  # here: scikit-learn takes 0.15 s to import
    from sklearn.model_selection import KFold

    n, p = Z.shape
    folds = KFold(n_folds, shuffle=True, random_state=int(seed))
    model = LassoCV(
        cv=folds,
        eps=glmnet_eps(n, p),
        alphas=100,
        fit_intercept=True,
        max_iter=max_iter,
        # scikit-learn's Gram route re-validates its inputs at every penalty (about 1 ms each);
        # it pays only when one sweep over n x p values costs more than that
        precompute="auto" if n * p > PRECOMPUTE_SIZE else False,
    ).fit(Z, target)
    error = model.mse_path_.mean(axis=1)
    k = max(int(np.flatnonzero(error == error.min())[-1]), 1)
    if choice == "1se":
        spread = model.mse_path_[k].std(ddof=1) / np.sqrt(model.mse_path_.shape[1])
        # the penalties decrease along the path: the first one within reach is the largest
        k = max(int(np.flatnonzero(error <= error[k] + spread)[0]), 1)
    alpha = float(model.alphas_[k])
    if alpha == float(model.alpha_):
        return np.asarray(model.coef_, dtype=float), alpha
    refit = Lasso(alpha=alpha, fit_intercept=True, max_iter=max_iter).fit(Z, target)
    return np.asarray(refit.coef_, dtype=float), alpha


def fixed_lasso(Z: np.ndarray, target: np.ndarray, alpha: float, max_iter: int) -> np.ndarray:
    """One Lasso fit, ``argmin (1/2n)‖target - Zβ‖² + alpha‖β‖₁`` (no intercept: all centred)."""
    from sklearn.linear_model import Lasso

    return np.asarray(
        Lasso(alpha=alpha, fit_intercept=False, max_iter=max_iter).fit(Z, target).coef_,
        dtype=float,
    )


class LassoSIRResults(Results):
    """Results of Lasso-SIR: the summary lists the predictors each direction selects.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    lasso_sir : The method that returns it.

    References
    ----------
    :cite:t:`lin2019`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.lasso_sir("lbm ~ ht + wt + ssf + rcc + wcc + hg", ais, d=1, random_state=0)
    >>> type(fit).__name__
    'LassoSIRResults'
    """

    def selected(self) -> dict[str, list[str]]:
        """Predictors with a non-zero coefficient, per direction."""
        basis = self._require_basis()
        return {
            f"Dir{j + 1}": [self.x_names[i] for i in np.flatnonzero(basis[:, j])]
            for j in range(self.d)
        }

    def _penalty_note(self, j: int) -> str:
        return f"; penalty {self.extras['penalties'][j]:.4g}"

    def _method_line(self) -> str:
        ex = self.extras
        refit = ex.get("refit_rule")
        return (
            f"lasso_sir with {ex['nslices']} slices, n = {self.n}, p = {self.p}; "
            f"penalty: {ex['penalty_rule']}" + (f"; refit: {refit}." if refit else ".")
        )

    def _dimension_rules(self) -> dict[str, Any]:
        rules = super()._dimension_rules()
        rules["kmeans"] = lambda **kw: kmeans_test(self, **kw)
        if "kernel_eigenvalues" in self.extras and self.n > self.p:
            rules["asymptotic"] = lambda **kw: kernel_asymptotic_test(self, **kw)
        return rules

    def _default_rule(self) -> tuple[str | None, str | None]:
        """``d_rule="auto"``: Li's χ² test where the fit found it valid, else the k-means
        rule, with the reason (see :class:`LassoSIR`)."""
        rule = self.options.get("d_rule")
        if rule != "auto":
            return rule, None
        if self.extras.get("whitened_eigenvalues") is not None:
            return "asymptotic", None
        return "kmeans", self.extras.get("asymptotic_unavailable") or "no test on this fit"

    def _summary_blocks(self) -> list[Block]:
        blocks = super()._summary_blocks()
        basis_title = "Estimated Basis Vectors for Central Subspace"
        for block in blocks:
            if block.title == basis_title and block.table is not None:
                # A sparse basis of p >> n rows prints only the rows some direction uses.
                table = block.table
                used = table.index[(table.to_numpy() != 0).any(axis=1)]
                if len(used) < len(table):
                    block.table = table.loc[used]
                    block.title = (
                        f"{basis_title} (the {len(used)} selected predictors; the "
                        f"other {len(table) - len(used)} coefficients are 0)"
                    )
        lines = []
        for j, (label, names) in enumerate(self.selected().items()):
            shown = ", ".join(names[:25]) + (", ..." if len(names) > 25 else "")
            lines.append(
                f"{label} ({len(names)} of {self.p}{self._penalty_note(j)}): {shown or '(none)'}"
            )
        blocks.append(Block("Selected predictors", text="\n".join(lines)))
        return blocks


def kmeans_test(results: LassoSIRResults) -> DimensionTest:
    """R ``LassoSIR``'s choice of ``d`` as a table: ``s_j = λ̂_j ‖β̂_j‖`` and its k-means split.

    Uses the statistic the fit computed for it (``d=None`` with ``d_rule="kmeans"``), else
    fits the Lasso of every direction with a positive kernel eigenvalue once more.
    """
    statistic = results.extras.get("d_statistic")
    if statistic is None:
        est = results.estimator.clone(d=None, d_rule="kmeans", progress=False)
        statistic = est.fit_output(results.spec, random_state=results.random_state).extras[
            "d_statistic"
        ]
    statistic = np.asarray(statistic, dtype=float)
    d = min(kmeans_dimension(statistic, results.spec.categorical), results.options["d_max"])
    scaled = statistic / statistic[0] if statistic[0] > 0 else statistic
    table = pd.DataFrame(
        {"statistic": statistic, "scaled": scaled},
        index=pd.Index(range(1, statistic.size + 1), name="j"),
    )
    note = (
        "statistic = lambda_j * |beta_j|; d is the size of the smaller of two k-means groups "
        "of statistic / statistic_1 (a categorical response: the number of positive ones)."
    )
    return DimensionTest(
        table,
        d,
        "kmeans",
        results.method,
        level=None,
        title=f"k-means dimension rule for {results.method} (R LassoSIR)",
        note=note,
    )


class LassoSIR(Estimator):
    """Lasso-SIR: sparse sliced inverse regression for ``p`` larger than ``n``.

    Parameters
    ----------
    nslices : int
        Number of equal-count slices ``H`` (default 10; unlike SIR's ``max(8, p + 3)``, the
        number of slices cannot grow with ``p`` when ``p > n``). A categorical response
        gets one slice per level.
    d : int, optional
        Number of directions, at most the rank of the slice-mean kernel (``min(p, H - 1)``
        for data in general position). ``None`` (default) chooses it by ``d_rule``.
    d_rule : {"auto", "asymptotic", "kmeans", "ratio"}
        How ``d=None`` chooses ``d`` (``fit.test_dimension()`` prints the rule's table;
        ``fit.d_rule`` and the summary say which rule chose). ``"auto"`` (default): Li's
        (1991) χ² test of the slice-mean kernel at level 0.05 (``"asymptotic"``) when ``n``
        is at least ``2 p H`` (two rows per coordinate of the slice means; the test whitens
        the kernel by ``Σ̂⁻¹``, so it needs ``n > p``, and it turns conservative as ``n`` nears
        ``p``: see :data:`sdrstats.inference.dimension_test.SIR_TEST_ROWS_PER_CELL`) and the
        predictors are not collinear; else, and always for ``p > n``, R ``LassoSIR``'s
        k-means rule (``"kmeans"``), and the summary says why ("d = 1 (chosen by R
        LassoSIR's k-means rule: too few rows for the test, n = 120 < 2 x p x slices =
        4000)"). ``"asymptotic"``: the test whenever ``n > p``: the hypotheses
        "mD vs >= (m+1)D", ``m = 0..min(d_max, r) - 1`` (``r`` the kernel's rank), each
        ``n Σ_{j>m} θ̂_j`` against χ² with ``(p - m)(H - m - 1)`` degrees of freedom, the
        ``θ̂_j`` the kernel's eigenvalues whitened by ``Σ̂``: ``sdr.sir``'s test on the same
        slices, so ``d`` is the smallest ``m`` not rejected. ``"kmeans"`` is R ``LassoSIR``'s
        rule (Lin, Zhao & Liu 2019, Algorithm 5): fit the Lasso for every direction with a
        positive kernel eigenvalue, form ``s_j = λ̂_j ‖β̂_j‖`` for ``j = 1..min(p, H)`` (0
        past the kernel's rank), split ``s / s_1`` into two k-means groups and take the size
        of the smaller; a categorical response gets ``d`` = the kernel's rank (R: ``H - 1``).
        It costs one (cross-validated) Lasso per positive eigenvalue, up to
        ``min(p, H - 1)``. On the default ``lambda.1se`` fits the noise directions'
        ``‖β̂_j‖`` are mostly 0, which separates the groups: at ``n = 120, p = 200`` with a
        5-predictor single index it chose ``d = 1`` in 19 of 30 replications (11 of 30 on
        R's ``lambda.min`` fits, ``benchmarks/bench_online.md``). ``"ratio"``: the ``k``
        maximising ``λ̂_k / λ̂_{k+1}`` over ``k`` up to ``r - 1`` (so at most
        ``min(p, H - 1) - 1``) and ``d_max``
        (:func:`sdrstats.inference.ratio.eigenvalue_ratio`); it needs the Lasso of the
        chosen directions only, and chose ``d = 1`` for every single-index replication there
        but also for half of the two-index ones at ``n = 1000``. Why the test is the default
        where it is valid: the k-means rule reads one drop, and when the first statistic
        dominates it puts it in a group alone, so on a three-index model (n = 400, p = 6,
        ``benchmarks/bench_sparse_rules.md``) it chose ``d = 1`` in all of 50 data sets
        (scaled statistics 1, 0.21, 0.05, ... in the median) although every test there
        rejects "1D" in all 50; the test chose 2 in 44 and 3 in 6, at the price of its
        level on a single index (d = 2 in 2 of 50, where the k-means rule chose 1 in all).
    d_max : int, default 10
        Largest ``d`` the rules choose (the test's hypotheses stop at ``d_max``).
    penalty : {"cv_1se", "cv_min", "cv"} or float
        For each direction the Lasso penalty from ``n_folds``-fold cross-validation on
        glmnet's path of 100 penalties (never the first, empty one). ``"cv_1se"``
        (default; glmnet's ``lambda.1se``, the choice of glmnet users who want a sparse
        model, Hastie, Tibshirani & Friedman 2009, §7.10): the largest penalty whose mean
        cross-validated error is within one standard error of the least; the least-error
        penalty fits the noise of the pseudo-response when ``p > n`` (48 of 200 predictors
        selected on average for a 5-predictor truth at ``n = 120``,
        ``benchmarks/bench_online.md``). ``"cv_min"`` (R ``LassoSIR``'s choice, glmnet's
        ``lambda.min``; ``"cv"`` is its older name): the smallest penalty with the least
        mean cross-validated error. A float ``C`` gives the theoretical
        penalty ``μ_j = C·sqrt(log p / (n λ̂_j))``. R ``LassoSIR``'s rule is
        ``penalty="cv_min", refit=False, d_rule="kmeans"``.
    refit : {"nested", "union", "ridge", "ols"} or bool
        How the coefficients of the predictors the directions' Lasso fits (Tibshirani 1996)
        select are refitted: the larger ``lambda.1se`` penalty shrinks a direction's
        coefficients unevenly, and refitted, the two-index model of
        ``benchmarks/bench_online.md`` at ``n = 1000`` is estimated at sine 0.21 instead of
        0.47 (0.31 under R's rule). ``"nested"`` (default): direction ``j`` is refitted by
        ridge regression (Hoerl & Kennard 1970) of its pseudo-response on the union ``U_j``
        of the supports of directions ``1..j``,
        ``β_j = (Z_UᵀZ_U + 0.1·n·I)⁻¹ Z_UᵀỸ_j`` on the centred unit-variance columns (the
        first direction on its own support; a direction whose Lasso selects nothing stays
        0). Why unions: what Lasso-SIR estimates is a subspace, and the predictors it
        selects are the rows of its basis that are not all 0, whatever basis of the
        subspace is reported (Chen, Zou & Cook 2010), so refitting on unions of the
        supports adds no non-zero row, while a weaker direction's own ``lambda.1se`` support
        can leave out predictors the subspace needs: on the two-index model of
        ``benchmarks/bench_online.md`` at ``n = 300, p = 200`` the second direction's own
        support held about 6 predictors and the refit on it was less accurate than R's
        wider ``lambda.min`` fit. Why nested: the directions come in decreasing order of
        their kernel eigenvalue, and a trailing direction that the rule for ``d`` adds in
        excess brings noise predictors, which must not reach the stronger ones; so the
        first ``k`` directions are the same whatever ``d`` is chosen above ``k``. Over 100
        data sets of that model the mean sine to the truth was 0.533 against 0.659 under
        R's rule and 0.681 under ``"ridge"`` (paired against R's rule -0.125, s.e. 0.015,
        better in 73 of 100, with 10.3 non-zero rows against 51.9), and at ``n = 1000``
        0.168 against 0.298 and 0.219 (30 data sets, 5.1 non-zero rows). ``d`` is chosen
        before this refit, from each direction refitted on its own support (as
        ``"ridge"``), so it is ``"ridge"``'s ``d``; with ``d = 1`` the two give the same
        numbers. ``"union"``: every direction on the union of all ``d`` supports
        (``selected()`` then lists the union for every direction); as accurate on the
        two-index model (0.539 and 0.158), but on the single index at ``n = 300`` the fits
        where the rule chose ``d = 2`` moved the first direction (mean sine 0.143 against
        0.133 over 30 data sets, worse in 2, the same in 28). ``"ridge"`` (the default before
        ``"nested"``): each direction refitted by ridge on its own support ``S``,
        ``β_S = (Z_SᵀZ_S + 0.1·n·I)⁻¹ Z_SᵀỸ_j``: least squares with 0.1 added to the
        diagonal of the selected predictors' correlation matrix ``Z_SᵀZ_S / n``
        (:data:`RIDGE_REFIT`, which the unions use too). Why the ridge: the least-squares
        refit is noisy where the support holds correlated predictors or a sizeable share of
        the rows (its variance grows with the inverse of that matrix's smallest eigenvalue,
        which the penalty bounds below by 0.1), while on uncorrelated selected predictors
        the penalty scales every coefficient by ``1/1.1`` and leaves the unit-length
        direction unchanged; the penalty is per row (``0.1·n``) so that its weight against
        the ``Z_SᵀZ_S`` of ``n`` rows is the same at every ``n`` (it does not vanish as
        ``n`` grows). It selects the same predictors as ``"ols"`` (only the refitted values
        differ); on the sparse-recovery benchmark (``p = 200``, 5 active predictors with
        correlated neighbours, ``benchmarks/bench_online.md``) its mean sine to the truth
        was lower than the least-squares refit's in every cell, by 0.001 to 0.019 (n = 120,
        300 and 1000, 30 data sets a cell; 0.1 was chosen from 0.01, 0.05 and 0.1 on one
        cell), while with independent predictors, where least squares on the support is
        already well conditioned, it was slightly worse (``p = 100, n = 200``: mean
        ``1 - |cos|`` 0.0185 against 0.0169 over 20 data sets). ``"ols"``: least squares
        on each direction's support (post-Lasso, Belloni & Chernozhukov 2013; the relaxed
        Lasso of Meinshausen 2007 at its end point), the default before ``"ridge"``;
        ``True`` is its older spelling. Every refit leaves a direction whose Lasso selects
        (``"nested"``, ``"union"``: a union of) ``n - 1`` or more predictors at its own
        refit or Lasso coefficients. ``False``: the Lasso coefficients (R ``LassoSIR``).
        The k-means rule for ``d`` reads the coefficients of each direction's own refit
        (``"nested"``, ``"union"``: the ridge on its own support), and the summary names
        the refit.
    n_folds : int
        Folds of the cross-validation (default 10).
    max_iter : int
        Coordinate-descent iterations per Lasso fit (default 5000).
    random_state : int, Generator or None
        Shuffles the cross-validation folds; the rules that resample and ``bootstrap()`` draw
        from streams derived from it. None draws one, which the summary prints.
    n_jobs : int, default 1
        Directions (each a cross-validated Lasso path) fitted on this many workers; results
        do not depend on it.
    progress : bool, default True
        A progress bar over the directions (shown for long fits only).

    See Also
    --------
    lasso_sir : The formula function (``sdr.lasso_sir(formula, data)``).
    sdrstats.online.LassoSIRResults : What ``fit`` returns.
    online_sir : The same method over a stream of rows.

    Notes
    -----
    The predictors are first centred and scaled to unit variance, ``z = (x - x̄) / s``
    (standard deviations with divisor ``n``, as the moment methods and glmnet's
    standardisation use), so the fit does not depend on the units of the columns; the
    directions are reported in the original scale, ``β = β_z / s``. With slices
    ``h = 1..H`` of fractions ``f_h`` and means ``z̄_h``, ``Γ̂ = Σ_h f_h z̄_h z̄_hᵀ`` has top
    eigenpairs ``(λ̂_j, η̂_j)``. The pseudo-response ``Ỹ_ij = z̄_{h(i)}ᵀ η̂_j / λ̂_j``
    satisfies ``ZᵀỸ_j / n = η̂_j``, so the Lasso

    .. math:: \\hat\\beta_j = \\arg\\min_\\beta \\frac{1}{2n}\\|Ỹ_j - Z\\beta\\|^2 + μ_j\\|\\beta\\|_1

    (its coefficients refitted on its support unless ``refit=False``) estimates
    ``Σ_z^{-1}η_j`` sparsely (scikit-learn's objective is exactly this, and so is
    glmnet's with its default standardisation). Columns are scaled to unit length with the
    canonical sign. R ``LassoSIR`` does not scale ``x`` before its eigen step (glmnet scales
    it inside each Lasso), so on columns of unit variance the two agree; with ``p > n`` its
    default also screens the predictors down to ``n`` by their slice-mean variance
    (``screening=TRUE``), which this implementation never does.

    Checked against R ``LassoSIR`` 1.0 with glmnet 4.1-8 on data of unit-variance columns
    (with ``screening=FALSE``; ``penalty="cv_min", d_rule="kmeans", refit=False``): equal kernel eigenvalues (to 1e-14), the same automatic ``d``
    where R's does not depend on its folds, the same Lasso at the same penalty (to glmnet's
    convergence tolerance, about 1e-3 in the unit direction) and the same penalty grid.
    When ``p < H`` R recycles its ``p`` eigenvalues to length ``H``, so its automatic ``d``
    counts statistics more than once (each twice when ``H = 2p``); this implementation counts
    each once.

    References
    ----------
    :cite:t:`lin2019`; :cite:t:`tibshirani1996`; :cite:t:`hoerl1970`;
    :cite:t:`belloni2013`; :cite:t:`meinshausen2007`; :cite:t:`chen2010cise`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 30))
    >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(100)
    >>> fit = sdr.LassoSIR(d=1, random_state=0).fit(X, y)
    >>> fit.selected()["Dir1"][:2]
    ['x1', 'x2']
    """

    method = "lasso_sir"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "nslices": [Interval(int, 2, None)],
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(D_RULES)],
        "d_max": [Interval(int, 1, None)],
        "penalty": [Options(PENALTY_RULES), Interval(float, 0, None, closed="neither")],
        "refit": [Options(REFIT_RULES), "boolean"],
        "n_folds": [Interval(int, 2, None)],
        "max_iter": [Interval(int, 1, None)],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs", None],
        "progress": ["boolean"],
    }
    results_class = LassoSIRResults

    def __init__(
        self,
        *,
        nslices: int = 10,
        d: int | None = None,
        d_rule: str = "auto",
        d_max: int = MAX_AUTO_D,
        penalty: str | float = "cv_1se",
        refit: str | bool = "nested",
        n_folds: int = 10,
        max_iter: int = 5000,
        random_state: Any = None,
        n_jobs: int | None = 1,
        progress: bool = True,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n = X.shape[0]
        if Y.ndim == 2 and Y.shape[1] > 1:
            raise ValueError(f"lasso_sir needs a single response column; got {Y.shape[1]}.")
        h = self.options["nslices"]
        if not categorical and h > n / 2:
            raise ValueError(
                f"The 'nslices' option of lasso_sir must be at most n/2 = {n // 2} so that "
                f"slices hold at least two cases; got {h}."
            )
        if self.options["penalty"] in CV_CHOICE and self.options["n_folds"] > n:
            raise ValueError(
                f"The 'n_folds' option of lasso_sir must be at most n = {n}; "
                f"got {self.options['n_folds']}."
            )
        # each direction is one lasso (n_folds + 1 of them under CV), of at most max_iter
        # compiled coordinate-descent sweeps over n x p (about 1e-9 s a cell)
        o, p = self.options, X.shape[1]
        solves = (o["n_folds"] + 1 if o["penalty"] in CV_CHOICE else 1) * max(1, h - 1)
        check_loops("lasso_sir", {"max_iter": o["max_iter"]}, solves * max(1e-9 * n * p, 1e-6),
                    unit="sweeps", at=f" in each of {solves} lasso fits at n = {n:,}, p = {p}")  # fmt: skip

    def fit_output(
        self,
        spec: Any,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        """Lasso-SIR of ``spec``'s rows; its errors name the spec's predictors.

        Parameters
        ----------
        spec : ModelSpec
            Rows and names.
        weights : ndarray of shape (n,), optional
            Frequency weights (rows are repeated by their rounded counts).
        random_state : int, Generator or None, default None
            Seed of the cross-validation folds.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ log(wt) + log(ht) + ssf", sdr.datasets.load("ais"))
        >>> sdr.LassoSIR(d=1, random_state=0).fit_output(spec).basis.shape
        (3, 1)
        """
        if spec.case_weights is not None:
            raise self._no_case_weights()
        return self._fit_named(spec.X, spec.Y, weights, random_state, list(spec.x_names))

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        return self._fit_named(X, Y, weights, random_state, None)

    def _fit_named(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        weights: np.ndarray | None,
        random_state: Any,
        names: list[str] | None,
    ) -> EstimatorOutput:
        if weights is not None:  # resampling by weights: replicate rows by their counts
            counts = np.asarray(np.round(weights), dtype=int)
            X, Y = np.repeat(X, counts, axis=0), np.repeat(Y, counts, axis=0)
        o = self.options
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        slices = response_slices(Y, o["nslices"])
        H = slices.nslices
        if H < 2:
            raise ValueError("The response has a single value; lasso_sir needs it to vary.")
        n, p = X.shape
        center, scale = X.mean(axis=0), X.std(axis=0)
        constant = np.flatnonzero(~(scale > 0))
        if constant.size:
            name = (names or [f"x{j + 1}" for j in range(p)])[constant[0]]
            raise ValueError(f"Predictor {name!r} is constant; remove it from the formula.")
        Z = (X - center) / scale
        values, eta, means, _ = slice_mean_eigen(Z, slices.labels, H)
        rank = int(np.sum(values > 0))
        if rank == 0:
            raise ValueError(
                "Every slice of the response has the same predictor means; lasso_sir finds no "
                "direction. Check the response, or use fewer slices."
            )
        whitened, unavailable = self._test_eigenvalues(Z, slices.labels, slices.sizes, H)
        seed = int(np.random.default_rng(as_seed_sequence(random_state)).integers(2**31 - 1))
        fits: dict[int, tuple[np.ndarray, float]] = {}

        def direction(j: int) -> tuple[np.ndarray, float]:
            if j not in fits:
                target = means[slices.labels] @ eta[:, j] / values[j]  # Ỹ_j
                fits[j] = self._lasso(Z, target, values[j], seed)
            return fits[j]

        test_size = (n, int(np.sum(np.asarray(slices.sizes) > 0)))  # Li's test: rows, slices
        d, statistic = self._choose_d(
            values, rank, direction, categorical, p, H, whitened, test_size
        )
        pseudo = means[slices.labels] @ eta[:, :d] / values[:d]  # Ỹ (n x d)
        todo = [j for j in range(d) if j not in fits]  # those the rule for d did not fit
        done = parallel_map(
            lambda j: self._lasso(Z, means[slices.labels] @ eta[:, j] / values[j], values[j], seed),
            todo,
            n_jobs=o["n_jobs"],
            progress=o["progress"],
            desc="lasso_sir directions",
        )
        fits.update(zip(todo, done))
        basis_z = np.column_stack([direction(j)[0] for j in range(d)])
        if refit_rule(o["refit"]) in ("nested", "union"):  # unions of the directions' supports
            targets = np.column_stack(
                [means[slices.labels] @ eta[:, j] / values[j] for j in range(d)]
            )
            basis_z = refit_union(Z, targets, basis_z, nested=refit_rule(o["refit"]) == "nested")
        penalties = np.array([direction(j)[1] for j in range(d)])
        empty = np.flatnonzero(~basis_z.any(axis=0))
        if empty.size:
            warnings.warn(
                f"lasso_sir selected no predictor for direction(s) "
                f"{[int(j) + 1 for j in empty]}; lower the penalty or d.",
                ConvergenceWarning,
                stacklevel=3,
            )
        rule = (
            f"{o['n_folds']}-fold CV, lambda.{CV_CHOICE[o['penalty']]}"
            if o["penalty"] in CV_CHOICE
            else f"C*sqrt(log p/(n*lambda_j)), C = {o['penalty']:g}"
        )
        extras = {
            "slice_sizes": slices.sizes,
            "nslices": H,
            "penalties": penalties,
            "pseudo_response": pseudo,
            "kernel_eigenvalues": values,
            "kernel_vectors": eta[:, :d],
            "scale": scale,
            "coef_standardized": basis_z,
            "d_statistic": statistic,
            "penalty_rule": rule,
            "refit_rule": REFIT_NOTES[refit_rule(o["refit"])],
        }
        if whitened is not None or unavailable is not None:
            # what d_rule="auto" (and "asymptotic") read: the test's eigenvalues, or why not
            extras["whitened_eigenvalues"] = whitened
            extras["asymptotic_unavailable"] = unavailable
        return EstimatorOutput(
            basis=canonical_basis(basis_z / scale[:, None]),
            d=d,
            eigenvalues=values[:rank],  # every positive one: the rules compare them
            center=center,
            extras=extras,
        )

    def _test_eigenvalues(
        self, Z: np.ndarray, labels: np.ndarray, sizes: np.ndarray, H: int
    ) -> tuple[np.ndarray | None, str | None]:
        """The whitened kernel's eigenvalues Li's χ² test reads, or why ``d_rule="auto"``
        does not use the test on these rows (``(None, None)`` for the other rules, whose
        ``test_dimension("asymptotic")`` computes them when asked)."""
        o = self.options
        if o["d_rule"] == "asymptotic" and o["d"] is None:
            return whitened_kernel_eigenvalues(Z, labels, H), None
        if o["d_rule"] != "auto":
            return None, None
        n, p = Z.shape
        unavailable = sir_test_unavailable(n, p, int(np.sum(np.asarray(sizes) > 0)))
        if unavailable is not None:
            return None, unavailable
        try:
            return whitened_kernel_eigenvalues(Z, labels, H), None
        except ValueError:
            return None, "the predictors are (nearly) collinear, so the test cannot whiten"

    def _choose_d(
        self,
        values: np.ndarray,
        rank: int,
        direction: Any,
        categorical: bool,
        p: int,
        H: int,
        whitened: np.ndarray | None = None,
        test_size: tuple[int, int] = (0, 0),
    ) -> tuple[int, np.ndarray | None]:
        """``d`` and (k-means rule) the statistic ``λ̂_j ‖β̂_j‖``; ``test_dimension`` reads
        the same statistic (Li's test: the same ``whitened`` eigenvalues), so the fit's
        ``d`` is its rule's choice."""
        o = self.options
        if o["d"] is not None:
            if o["d"] > rank:
                raise ValueError(
                    f"The 'd' option of lasso_sir must be at most {rank}, the rank of the "
                    f"slice-mean kernel (at most H - 1 = {H - 1} with H = {H} slices, and "
                    f"p = {p}); got {o['d']}. Use more slices or a smaller d."
                )
            return o["d"], None
        if o["d_rule"] == "ratio":
            return ratio_choice(values, o["d_max"]), None
        if whitened is not None:  # "asymptotic", or "auto" where the test is valid
            n, h = test_size
            rows = max(1, min(o["d_max"], rank, p))
            test = sir_dimension_test(whitened, n, p, h, rows, 0.05, self.method)
            return min(max(test.d, 1), rank), None
        statistic = np.zeros(min(p, H))  # R's min(p, H) slots; 0 past the kernel's rank
        for j in range(rank):
            statistic[j] = values[j] * np.linalg.norm(direction(j)[0])
        return min(kmeans_dimension(statistic, categorical), o["d_max"]), statistic

    def _lasso(
        self, Z: np.ndarray, target: np.ndarray, value: float, seed: int
    ) -> tuple[np.ndarray, float]:
        coef, alpha = self._lasso_fit(Z, target, value, seed)
        selected = np.flatnonzero(coef)
        rule = refit_rule(self.options["refit"])
        if rule is not None and 0 < selected.size < Z.shape[0] - 1:
            # post-Lasso: the selected predictors' coefficients refitted (all columns centred)
            solution = refit_support(Z, target, selected, rule)
            coef = np.zeros_like(coef)
            coef[selected] = solution
        return coef, alpha

    def _lasso_fit(
        self, Z: np.ndarray, target: np.ndarray, value: float, seed: int
    ) -> tuple[np.ndarray, float]:
        o = self.options
        n, p = Z.shape
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=UserWarning)  # sklearn's own convergence
            if o["penalty"] in CV_CHOICE:
                choice = CV_CHOICE[o["penalty"]]
                return cv_lasso(Z, target, o["n_folds"], o["max_iter"], seed, choice)
            mu = o["penalty"] * np.sqrt(np.log(p) / (n * value))
            return fixed_lasso(Z, target, mu, o["max_iter"]), float(mu)


@formula_doc(LassoSIR)
def lasso_sir(
    formula: str,
    data: Any,
    *,
    nslices: int = 10,
    d: int | None = None,
    d_rule: str = "auto",
    d_max: int = 10,
    penalty: str | float = "cv_1se",
    refit: str | bool = "nested",
    n_folds: int = 10,
    max_iter: int = 5000,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    missing: str = "drop",
    subset: Any = None,
) -> LassoSIRResults:
    """Lasso-SIR from a formula; see :class:`LassoSIR` for the options and the method.

    The formula's predictors may outnumber the rows (``p > n``).

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    LassoSIRResults

    See Also
    --------
    LassoSIR : The estimator, for arrays (``LassoSIR(...).fit(X, y)``).
    sdrstats.online.LassoSIRResults : What it returns.
    online_sir : The same method over a stream of rows.

    References
    ----------
    :cite:t:`lin2019`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.lasso_sir("lbm ~ ht + wt + ssf + rcc + wcc + hg", ais, d=1, random_state=0)
    >>> "wt" in fit.selected()["Dir1"]
    True
    """
    return fit_formula(LassoSIR, locals(), "lasso_sir")


__all__ = [
    "LassoSIR",
    "LassoSIRResults",
    "lasso_sir",
    "slice_mean_eigen",
    "kmeans_dimension",
    "kmeans_test",
    "two_means_smaller_group",
    "cv_lasso",
    "fixed_lasso",
    "refit_support",
    "refit_union",
]
