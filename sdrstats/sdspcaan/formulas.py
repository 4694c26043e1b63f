"""Formula functions of the SDSPCAAN family: ``sdr.sdspcaan(formula, data, k, ...)`` etc.

Each is a one-line call of its estimator's ``from_formula``; the options are documented on
the estimator classes in :mod:`sdrstats.sdspcaan.family`.
"""

from __future__ import annotations

from typing import Any

from ._results import SDSPCAANResults
from .family import PCA, PCAN, SDSPCA, SDSPCAAN, SDSPCALPP, SPCAN, VPCA


def sdspcaan(
    formula: str,
    data: Any,
    k: int,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta: float = 1.0,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 1e-3,
    max_iter: int = 100,
    eigensolver: str = "auto",
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """SDSPCAAN from a formula with a categorical response; see :class:`SDSPCAAN`.

    Returns the projection as ``directions`` (p x k), the learned graph ``similarity``
    (sparse), ``objective_trace``, ``n_iter`` and ``converged``.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    k : int
        Reduced dimension (required); at most ``min(n, p)``.
    alpha, beta, delta, n_neighbors, lam, tol, max_iter, eigensolver
        Options of :class:`SDSPCAAN`, with the defaults shown in the signature.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    SDSPCAANResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sdspcaan("sex ~ ht + wt + lbm + rcc + hg + ssf", ais, k=2)
    >>> fit.transform(ais.head(3)).shape
    (3, 2)
    >>> bool(all(fit.objective_trace[1:] <= fit.objective_trace[:-1] * (1 - 1e-12)
    ...          + 1e-3 * abs(fit.objective_trace[:-1])))
    True
    """
    return SDSPCAAN.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        k=k,
        alpha=alpha,
        beta=beta,
        delta=delta,
        n_neighbors=n_neighbors,
        lam=lam,
        tol=tol,
        max_iter=max_iter,
        eigensolver=eigensolver,
    )


def sdspca(
    formula: str,
    data: Any,
    k: int,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    tol: float = 1e-3,
    max_iter: int = 100,
    eigensolver: str = "auto",
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """SDSPCA (SDSPCAAN with δ = 0) from a formula; see :class:`SDSPCA`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    k : int
        Reduced dimension (required); at most ``min(n, p)``.
    alpha, beta, tol, max_iter, eigensolver
        Options of :class:`SDSPCA`, with the defaults shown in the signature.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    SDSPCAANResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.sdspca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), k=2)
    >>> fit.d
    2
    """
    return SDSPCA.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        k=k,
        alpha=alpha,
        beta=beta,
        tol=tol,
        max_iter=max_iter,
        eigensolver=eigensolver,
    )


def sdspca_lpp(
    formula: str,
    data: Any,
    k: int,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta: float = 1.0,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 1e-3,
    max_iter: int = 100,
    eigensolver: str = "auto",
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """SDSPCA-LPP (the graph fixed at its first value) from a formula; see :class:`SDSPCALPP`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    k : int
        Reduced dimension (required); at most ``min(n, p)``.
    alpha, beta, delta, n_neighbors, lam, tol, max_iter, eigensolver
        Options of :class:`SDSPCALPP`, with the defaults shown in the signature.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    SDSPCAANResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.sdspca_lpp("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), k=2)
    >>> fit.similarity.nnz > 0
    True
    """
    return SDSPCALPP.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        k=k,
        alpha=alpha,
        beta=beta,
        delta=delta,
        n_neighbors=n_neighbors,
        lam=lam,
        tol=tol,
        max_iter=max_iter,
        eigensolver=eigensolver,
    )


def spcan(
    formula: str,
    data: Any,
    k: int,
    *,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 1e-3,
    max_iter: int = 100,
    eigensolver: str = "auto",
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """Supervised PCAN (only the adaptive-neighbour terms, F = Y); see :class:`SPCAN`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    k : int
        Reduced dimension (required); at most ``min(n, p)``.
    n_neighbors, lam, tol, max_iter, eigensolver
        Options of :class:`SPCAN`, with the defaults shown in the signature.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    SDSPCAANResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.spcan("sex ~ ht + wt + lbm", sdr.datasets.load("ais").iloc[::3], k=2)
    >>> fit.directions.shape
    (3, 2)
    """
    return SPCAN.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        k=k,
        n_neighbors=n_neighbors,
        lam=lam,
        tol=tol,
        max_iter=max_iter,
        eigensolver=eigensolver,
    )


def pcan(
    formula: str,
    data: Any,
    k: int,
    *,
    n_neighbors: int = 15,
    lam: float = 10.0,
    tol: float = 1e-3,
    max_iter: int = 100,
    eigensolver: str = "auto",
    missing: str = "drop",
    subset: Any = None,
) -> SDSPCAANResults:
    """Unsupervised PCAN (the response only sets the number of clusters); see :class:`PCAN`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    k : int
        Reduced dimension (required); at most ``min(n, p)``.
    n_neighbors, lam, tol, max_iter, eigensolver
        Options of :class:`PCAN`, with the defaults shown in the signature.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    SDSPCAANResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.pcan("sex ~ ht + wt + lbm", sdr.datasets.load("ais").iloc[::3], k=2)
    >>> fit.directions.shape
    (3, 2)
    """
    return PCAN.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        k=k,
        n_neighbors=n_neighbors,
        lam=lam,
        tol=tol,
        max_iter=max_iter,
        eigensolver=eigensolver,
    )


def pca(formula: str, data: Any, k: int, *, missing: str = "drop", subset: Any = None) -> SDSPCAANResults:
    """PCA of the z-scored predictors of a formula (the response is ignored); see :class:`PCA`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    k : int
        Reduced dimension (required); at most ``min(n, p)``.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    SDSPCAANResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.pca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), k=1)
    >>> fit.directions.shape
    (3, 1)
    """
    return PCA.from_formula(formula, data, missing=missing, subset=subset, k=k)


def vpca(formula: str, data: Any, k: int, *, missing: str = "drop", subset: Any = None) -> SDSPCAANResults:
    """vPCA (``W = R_{1:k} Σ_{1:k}``) of a formula's predictors; see :class:`VPCA`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    k : int
        Reduced dimension (required); at most ``min(n, p)``.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    SDSPCAANResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = sdr.vpca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), k=1)
    >>> fit.directions.shape
    (3, 1)
    """
    return VPCA.from_formula(formula, data, missing=missing, subset=subset, k=k)


__all__ = ["sdspcaan", "sdspca", "sdspca_lpp", "spcan", "pcan", "pca", "vpca"]
