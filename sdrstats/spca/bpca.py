"""Bair's supervised principal components (Bair, Hastie, Paul & Tibshirani 2006).

Screen the predictors by their univariate association with the response, keep those whose
score exceeds a threshold ``θ``, and take the principal components of the kept columns. ``θ``
is chosen by K-fold cross-validation of a least-squares fit of the response on the first
``d`` components when it is not given.
"""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.parallel import parallel_map
from ..base.tables import Block
from ..base.validation import Interval, Options, TooFewRowsError
from ..fitting.estimator import Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..stats.linalg import canonical_basis
from ._results import ProjectionResults, weighted_center
from .kernels import response_factor
from .spca import top_eigen


def univariate_scores(
    X: np.ndarray, R: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """``sqrt(F)`` of each predictor regressed on the response design ``R`` (n×k).

    For one numeric response this is ``|t|`` of the simple regression slope (Bair et al.'s
    standardised score); for classes (one-hot ``R``) the one-way ANOVA ``sqrt(F)``.
    """
    w = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=float)
    sw = np.sqrt(w)[:, None]
    _, Xc = weighted_center(X, w)
    _, Rc = weighted_center(R, w)
    q, rdiag = np.linalg.qr(Rc * sw)
    q = q[:, np.abs(np.diag(rdiag)) > 1e-10 * np.abs(rdiag).max()]
    k = q.shape[1]
    n_eff = w.sum()
    total = np.sum(w[:, None] * Xc**2, axis=0)
    explained = np.sum((q.T @ (Xc * sw)) ** 2, axis=0)
    resid = np.maximum(total - explained, 1e-300 * np.maximum(total, 1.0))
    return np.sqrt((explained / k) / (resid / max(n_eff - k - 1, 1.0)))


def _components(X: np.ndarray, keep: np.ndarray, d: int, weights: np.ndarray | None):
    """Leading principal axes (full length p, zeros off ``keep``), variances and centre."""
    center, Xc = weighted_center(X, weights)
    w = np.ones(len(X)) if weights is None else weights
    sub = (Xc[:, keep] * np.sqrt(w)[:, None]).T
    values, vectors, _ = top_eigen(sub, "auto")
    basis = np.zeros((X.shape[1], vectors.shape[1]))
    basis[keep] = vectors
    return basis[:, :d] if d else basis, values / (w.sum() - 1), center


def _kept(scores: np.ndarray, threshold: float, d: int) -> np.ndarray:
    keep = scores > threshold
    if keep.sum() < d:  # always keep enough predictors for d components
        keep = np.zeros_like(keep)
        keep[np.argsort(-scores, kind="stable")[:d]] = True
    return keep


def _fold_errors(
    X: np.ndarray,
    Rs: np.ndarray,
    folds: np.ndarray,
    thresholds: np.ndarray,
    d: int,
    k: int,
) -> np.ndarray:
    """Held-out squared error of fold ``k`` at every candidate threshold."""
    train, test = folds != k, folds == k
    scores = univariate_scores(X[train], Rs[train])
    errors = np.zeros(len(thresholds))
    for t, theta in enumerate(thresholds):
        keep = _kept(scores, theta, d)
        basis, _, center = _components(X[train], keep, d, None)
        Z = np.column_stack([np.ones(train.sum()), (X[train] - center) @ basis])
        coef, *_ = np.linalg.lstsq(Z, Rs[train], rcond=None)
        Zt = np.column_stack([np.ones(test.sum()), (X[test] - center) @ basis])
        errors[t] = np.sum((Rs[test] - Zt @ coef) ** 2)
    return errors


class BPCAResults(ProjectionResults):
    """Results of :class:`BPCA`: the summary lists the kept predictors.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    bpca : The method that returns it.

    References
    ----------
    :cite:t:`bair2006`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.bpca("lbm ~ ht + wt + rcc + wcc + hc + ferr", ais, d=1, threshold=5.0)
    >>> type(fit).__name__
    'BPCAResults'
    """

    eigen_label = "Eigenvalues (PC variances)"

    @property
    def kept_predictors(self) -> list[str]:
        """Names of the predictors that passed the threshold."""
        return [name for name, kept in zip(self.x_names, self.output.extras["kept"]) if kept]

    def _extra_blocks(self) -> list[Block]:
        ex = self.output.extras
        table = pd.DataFrame(
            {"score": ex["scores"], "kept": np.where(ex["kept"], "yes", "no")},
            index=self.x_names,
        )
        how = "given" if ex["cv_errors"] is None else f"chosen by {ex['n_folds']}-fold CV"
        blocks = [
            Block(
                f"Kept predictors (score > threshold = {ex['threshold']:.4g}, {how})",
                table=table,
            )
        ]
        if ex["cv_errors"] is not None:
            blocks.append(Block("Cross-validation of the threshold", table=ex["cv_errors"]))
        return blocks


class BPCA(Estimator):
    """Bair's supervised principal components.

    Parameters
    ----------
    d : int, optional
        Number of components; default ``min(2, number kept)``.
    d_rule : {"ratio", "permutation", "ladle", "bootstrap", "cv"}
        The rule that chooses ``d`` when it is not given; default ``"ratio"``, the
        eigenvalue-ratio rule on the variances of the principal components of the kept
        predictors (Ahn & Horenstein 2013; no refit, whereas a resampling rule would redo
        the threshold's cross-validation for every replicate).
    d_max : int, optional
        Largest ``d`` the rule tries; default the rule's own.
    threshold : float, optional
        Keep predictors whose score ``sqrt(F)`` (``|t|`` for one numeric response) exceeds
        it. Default: chosen by ``n_folds``-fold cross-validation among ``n_thresholds``
        candidate values (midpoints between sorted full-data scores).
    n_folds : int, default 5
        Folds of the cross-validation that chooses ``threshold``.
    n_thresholds : int, default 20
        Candidate thresholds tried by that cross-validation.
    standardize : bool, default False
        Scale the kept predictors to unit variance before the PCA (Bair et al. centre only).
    random_state : int or Generator, optional
        Fold assignment.
    n_jobs : int, default 1
        Folds of the cross-validation run on this many workers (results do not depend on
        it).
    progress : bool, default True
        A progress bar over the folds (shown for long fits only).

    See Also
    --------
    bpca : The formula function (``sdr.bpca(formula, data)``).
    sdrstats.spca.bpca.BPCAResults : What ``fit`` returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    Notes
    -----
    CV error: mean squared error of the held-out response (one-hot indicators for classes,
    numeric columns scaled to unit variance) predicted by least squares on the first ``d``
    components, with scores and components recomputed on each training part.

    References
    ----------
    :cite:t:`bair2006`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.bpca("lbm ~ ht + wt + rcc + wcc + hc + ferr", ais, d=1, random_state=0)
    >>> fit.kept_predictors
    ['ht', 'wt', 'rcc', 'hc']
    """

    method = "bpca"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("ratio", "permutation", "ladle", "bootstrap", "cv"))],
        "d_max": [Interval(int, 1, None), None],
        "threshold": [Interval(float, 0, None), None],
        "n_folds": [Interval(int, 2, None)],
        "n_thresholds": [Interval(int, 1, None)],
        "standardize": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs", None],
        "progress": ["boolean"],
    }
    results_class = BPCAResults

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "ratio",
        d_max: int | None = None,
        threshold: float | None = None,
        n_folds: int = 5,
        n_thresholds: int = 20,
        standardize: bool = False,
        random_state: Any = None,
        n_jobs: int | None = 1,
        progress: bool = True,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        o = self.options
        if o["d"] is not None and o["d"] > X.shape[1]:
            raise ValueError(
                f"The 'd' option of bpca must be at most p = {X.shape[1]}; got {o['d']}."
            )
        if o["threshold"] is None and X.shape[0] < 2 * o["n_folds"]:
            raise TooFewRowsError(
                f"bpca needs at least 2 * n_folds = {2 * o['n_folds']} observations to choose "
                f"the threshold by cross-validation; got {X.shape[0]}. Give threshold=..."
            )

    def _cv(self, X: np.ndarray, R: np.ndarray, thresholds: np.ndarray, d: int, rng) -> np.ndarray:
        n = len(X)
        o = self.options
        folds = rng.permutation(n) % o["n_folds"]
        Rs = R / np.where(R.std(axis=0) > 0, R.std(axis=0), 1.0)
        per_fold = parallel_map(
            partial(_fold_errors, X, Rs, folds, thresholds, d),
            range(o["n_folds"]),
            n_jobs=o["n_jobs"],
            progress=o["progress"],
            desc="bpca cross-validation",
        )
        errors = np.zeros(len(thresholds))
        for fold in per_fold:  # summed in fold order, whatever n_jobs is
            errors += fold
        return errors / n

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        o = self.options
        R = response_factor(Y, "linear", self.method)
        sd = X.std(axis=0) if o["standardize"] else np.ones(X.shape[1])
        sd[sd == 0] = 1.0
        X = X / sd
        p = X.shape[1]
        scores = univariate_scores(X, R, weights)
        d_cv = min(o["d"] or 2, p)
        cv_table = None
        threshold = o["threshold"]
        if threshold is None:
            ordered = np.sort(scores)[::-1]
            mids = np.append((ordered[:-1] + ordered[1:]) / 2, 0.0)  # keep m = 1..p
            counts = np.arange(1, p + 1)
            usable = counts >= d_cv
            idx = np.unique(
                np.round(np.linspace(0, usable.sum() - 1, min(o["n_thresholds"], usable.sum())))
            ).astype(int)
            candidates = mids[usable][idx]
            errors = self._cv(X, R, candidates, d_cv, np.random.default_rng(random_state))
            best = int(np.argmin(errors))
            threshold = float(candidates[best])
            cv_table = pd.DataFrame(
                {"threshold": candidates, "kept": counts[usable][idx], "cv_error": errors}
            )
        keep = scores > threshold
        if o["d"] is not None and keep.sum() < o["d"]:
            raise ValueError(
                f"The 'threshold' option of bpca keeps {keep.sum()} predictor(s), fewer than "
                f"d = {o['d']}; lower the threshold or d."
            )
        if keep.sum() == 0:
            raise ValueError(
                f"The 'threshold' option of bpca ({threshold:g}) keeps no predictor; the "
                f"largest score is {scores.max():.4g}. Lower the threshold."
            )
        basis, variances, center = _components(X, keep, 0, weights)
        d = min(o["d"] or 2, basis.shape[1])
        if o["standardize"]:  # back to the original predictor scale: u'z = (u / sd)'x
            basis, center = basis / sd[:, None], center * sd
        extras = {
            "scores": scores,
            "kept": keep,
            "threshold": threshold,
            "cv_errors": cv_table,
            "n_folds": o["n_folds"],
            "method_details": f"{int(keep.sum())} of {p} predictors kept",
        }
        return EstimatorOutput(
            basis=canonical_basis(basis) + 0.0,
            d=d,
            eigenvalues=variances,
            center=center,
            extras=extras,
        )


@formula_doc(BPCA)
def bpca(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "ratio",
    d_max: int | None = None,
    threshold: float | None = None,
    n_folds: int = 5,
    n_thresholds: int = 20,
    standardize: bool = False,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    missing: str = "drop",
    subset: Any = None,
) -> BPCAResults:
    """Bair's supervised PCA from a formula; see :class:`BPCA` for the options.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    BPCAResults

    See Also
    --------
    BPCA : The estimator, for arrays (``BPCA(...).fit(X, y)``).
    sdrstats.spca.bpca.BPCAResults : What it returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    References
    ----------
    :cite:t:`bair2006`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.bpca("lbm ~ ht + wt + rcc + wcc + hc + ferr", ais, d=1, threshold=5.0)
    >>> fit.directions.index[fit.directions["Dir1"] != 0].tolist()
    ['ht', 'wt', 'rcc', 'hc']
    """
    return fit_formula(BPCA, locals(), "bpca")


__all__ = ["BPCA", "BPCAResults", "bpca", "univariate_scores"]
