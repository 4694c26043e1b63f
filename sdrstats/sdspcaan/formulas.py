"""Formula functions of the SDSPCAAN family: ``sdr.sdspcaan(formula, data, d=..., ...)`` etc.

Each takes its estimator class's options (checked against the class when the module is
imported) and documents them with the class's text
(:func:`sdrstats.fitting.formula_functions.formula_doc`): the options, their defaults and their
text live once, on the classes in :mod:`sdrstats.sdspcaan.family`.
"""

from __future__ import annotations

from typing import Any

from ..fitting.formula_functions import fit_formula, formula_doc
from ._results import SDSPCAANResults
from .family import PCA, PCAN, SDSPCA, SDSPCAAN, SDSPCALPP, SPCAN, VPCA
from .tuning import WEIGHT_GRID


@formula_doc(SDSPCAAN)
def sdspcaan(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta: float = 1.0,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 0.001,
    max_iter: int = 100,
    eigensolver: str = "auto",
    iteration: str = "authors",
    tune: str | None = None,
    weight_grid: Any = WEIGHT_GRID,
    n_folds: int = 5,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """SDSPCAAN from a formula with a categorical response; see :class:`SDSPCAAN`.

    Returns the projection as ``directions`` (p x d), the learned graph ``similarity``
    (sparse), ``objective_trace``, ``n_iter`` and ``converged``.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SDSPCAANResults

    See Also
    --------
    SDSPCAAN : The estimator, for arrays (``SDSPCAAN(...).fit(X, y)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What it returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sdspcaan("sex ~ ht + wt + lbm + rcc + hg + ssf", ais, d=2)
    >>> fit.transform(ais.head(3)).shape
    (3, 2)
    >>> fit.n_iter, fit.converged  # the authors' loop: it stopped when the objective rose
    (2, True)
    >>> fixed = sdr.sdspcaan("sex ~ ht + wt + lbm + rcc + hg + ssf", ais, d=2,
    ...                      iteration="fixed_weights")
    >>> bool(all(fixed.objective_trace[1:] <= fixed.objective_trace[:-1]))
    True
    """
    return fit_formula(SDSPCAAN, locals(), "sdspcaan")


@formula_doc(SDSPCA)
def sdspca(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    alpha: float = 1.0,
    beta: float = 1.0,
    tol: float = 0.001,
    max_iter: int = 100,
    eigensolver: str = "auto",
    iteration: str = "authors",
    tune: str | None = None,
    weight_grid: Any = WEIGHT_GRID,
    n_folds: int = 5,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """SDSPCA (SDSPCAAN with δ = 0) from a formula; see :class:`SDSPCA`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SDSPCAANResults

    See Also
    --------
    SDSPCA : The estimator, for arrays (``SDSPCA(...).fit(X, y)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What it returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.sdspca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=2)
    >>> fit.d
    2
    """
    return fit_formula(SDSPCA, locals(), "sdspca")


@formula_doc(SDSPCALPP)
def sdspca_lpp(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta: float = 1.0,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 0.001,
    max_iter: int = 100,
    eigensolver: str = "auto",
    iteration: str = "authors",
    tune: str | None = None,
    weight_grid: Any = WEIGHT_GRID,
    n_folds: int = 5,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """SDSPCA-LPP (the graph fixed at its first value) from a formula; see :class:`SDSPCALPP`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SDSPCAANResults

    See Also
    --------
    SDSPCALPP : The estimator, for arrays (``SDSPCALPP(...).fit(X, y)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What it returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.sdspca_lpp("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=2)
    >>> fit.similarity.nnz > 0
    True
    """
    return fit_formula(SDSPCALPP, locals(), "sdspca_lpp")


@formula_doc(SPCAN)
def spcan(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 0.001,
    max_iter: int = 100,
    eigensolver: str = "auto",
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """Supervised PCAN (only the adaptive-neighbour terms, F = Y); see :class:`SPCAN`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SDSPCAANResults

    See Also
    --------
    SPCAN : The estimator, for arrays (``SPCAN(...).fit(X, y)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What it returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.spcan("sex ~ ht + wt + lbm", sdr.datasets.load("ais").iloc[::3], d=2)
    >>> fit.directions.shape
    (3, 2)
    """
    return fit_formula(SPCAN, locals(), "spcan")


@formula_doc(PCAN)
def pcan(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 0.001,
    max_iter: int = 100,
    eigensolver: str = "auto",
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """Unsupervised PCAN (the response only sets the number of clusters); see :class:`PCAN`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SDSPCAANResults

    See Also
    --------
    PCAN : The estimator, for arrays (``PCAN(...).fit(X, y)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What it returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.pcan("sex ~ ht + wt + lbm", sdr.datasets.load("ais").iloc[::3], d=2)
    >>> fit.directions.shape
    (3, 2)
    """
    return fit_formula(PCAN, locals(), "pcan")


@formula_doc(PCA)
def pca(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "ratio",
    d_max: int | None = None,
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """PCA of the z-scored predictors of a formula (the response is ignored); see :class:`PCA`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SDSPCAANResults

    See Also
    --------
    PCA : The estimator, for arrays (``PCA(...).fit(X, y)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What it returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.pca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=1)
    >>> fit.directions.shape
    (3, 1)
    """
    return fit_formula(PCA, locals(), "pca")


@formula_doc(VPCA)
def vpca(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "ratio",
    d_max: int | None = None,
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """Variant PCA, vPCA (``W = R_{1:k} Σ_{1:k}``), of a formula's predictors; see :class:`VPCA`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    SDSPCAANResults

    See Also
    --------
    VPCA : The estimator, for arrays (``VPCA(...).fit(X, y)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What it returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.vpca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=1)
    >>> fit.directions.shape
    (3, 1)
    """
    return fit_formula(VPCA, locals(), "vpca")


__all__ = ["sdspcaan", "sdspca", "sdspca_lpp", "spcan", "pcan", "pca", "vpca"]
