"""Formula functions of the moment methods: ``sdr.sir(formula, data, ...)`` and friends."""

from __future__ import annotations

from typing import Any

from .methods import CUME, DR, PHD, SAVE, SIR
from .results import MomentResults


def sir(
    formula: str,
    data: Any,
    *,
    nslices: int | None = None,
    slice_function: str = "dr",
    numdir: int = 4,
    d: int | None = None,
    cut_points: Any = None,
    missing: str = "drop",
    subset: Any = None,
    weights: Any = None,
) -> MomentResults:
    """Sliced inverse regression from a formula; see :class:`SIR` for the options.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + log(x2) + C(group)"``; several responses as
        ``"y1 + y2 ~ ..."``. A categorical response is sliced by its levels.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as in R ``dr``.
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule (R ``dr.slices`` or Arc's equal-count variant).
    numdir : int, default 4
        Directions shown and tested.
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default ``numdir`` (capped at p).
    cut_points : sequence of float, optional
        Given slice boundaries for a one-column response; overrides ``nslices``.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`
        saying how many, or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.
    weights : str or array-like, optional
        Case weights, a column of ``data`` or one number per row, with R ``dr``'s rule:
        negative, NaN or infinite weights are errors; rows with ``w <= 1e-30`` are
        dropped and the rest rescaled to sum to the rows kept. The summary says "using
        weights". These are R's case weights, not frequency weights.

    Returns
    -------
    MomentResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()[:2]
    [0.939, 0.179]
    """
    return SIR.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        weights=weights,
        nslices=nslices,
        slice_function=slice_function,
        numdir=numdir,
        d=d,
        cut_points=cut_points,
    )


def save(
    formula: str,
    data: Any,
    *,
    nslices: int | None = None,
    slice_function: str = "dr",
    numdir: int = 4,
    d: int | None = None,
    cut_points: Any = None,
    missing: str = "drop",
    subset: Any = None,
    weights: Any = None,
) -> MomentResults:
    """Sliced average variance estimation from a formula; see :class:`SAVE`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + log(x2)"``.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    nslices, slice_function, numdir, d, cut_points
        As :func:`sir`.
    missing : {"drop", "raise"}, default "drop"
        What to do with rows with missing values.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.
    weights : str or array-like, optional
        Case weights, a column of ``data`` or one number per row, with R ``dr``'s rule:
        negative, NaN or infinite weights are errors; rows with ``w <= 1e-30`` are
        dropped and the rest rescaled to sum to the rows kept. The summary says "using
        weights". These are R's case weights, not frequency weights.

    Returns
    -------
    MomentResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()
    [0.903, 0.224, 0.201, 0.104]
    """
    return SAVE.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        weights=weights,
        nslices=nslices,
        slice_function=slice_function,
        numdir=numdir,
        d=d,
        cut_points=cut_points,
    )


def phd(
    formula: str,
    data: Any,
    *,
    residuals: bool | str = True,
    numdir: int = 4,
    d: int | None = None,
    missing: str = "drop",
    subset: Any = None,
    weights: Any = None,
) -> MomentResults:
    """Principal Hessian directions from a formula (``residuals=True`` is R's phdres).

    Parameters
    ----------
    formula : str
        A patsy formula with one continuous response.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    residuals : bool or {"linear", "quadratic"}, default True
        Use OLS residuals (R's ``phdres``; also ``"linear"``); False uses ``y - ȳ``
        (``phdy``); ``"quadratic"`` is R's ``phdq`` (the Hessian of the full quadratic fit).
    numdir, d
        As :func:`sir`.
    missing : {"drop", "raise"}, default "drop"
        What to do with rows with missing values.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.
    weights : str or array-like, optional
        Case weights, a column of ``data`` or one number per row, with R ``dr``'s rule:
        negative, NaN or infinite weights are errors; rows with ``w <= 1e-30`` are
        dropped and the rest rescaled to sum to the rows kept. The summary says "using
        weights". These are R's case weights, not frequency weights.

    Returns
    -------
    MomentResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.phd("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    >>> fit.eigenvalues.round(3).tolist()
    [2.842, -1.369, 0.746, 0.192]
    """
    return PHD.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        weights=weights,
        residuals=residuals,
        numdir=numdir,
        d=d,
    )


def dr(
    formula: str,
    data: Any,
    *,
    nslices: int | None = None,
    slice_function: str = "dr",
    numdir: int = 4,
    d: int | None = None,
    cut_points: Any = None,
    missing: str = "drop",
    subset: Any = None,
    weights: Any = None,
) -> MomentResults:
    """Directional regression from a formula; see :class:`DR`.

    Parameters
    ----------
    formula : str
        A patsy formula ``"y ~ x1 + log(x2)"``.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    nslices, slice_function, numdir, d, cut_points
        As :func:`sir`.
    missing : {"drop", "raise"}, default "drop"
        What to do with rows with missing values.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.
    weights : str or array-like, optional
        Case weights, a column of ``data`` or one number per row, with R ``dr``'s rule:
        negative, NaN or infinite weights are errors; rows with ``w <= 1e-30`` are
        dropped and the rest rescaled to sum to the rows kept. The summary says "using
        weights". These are R's case weights, not frequency weights.

    Returns
    -------
    MomentResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.dr("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()
    [7.005, 1.302, 0.633, 0.352]
    """
    return DR.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        weights=weights,
        nslices=nslices,
        slice_function=slice_function,
        numdir=numdir,
        d=d,
        cut_points=cut_points,
    )


def cume(
    formula: str,
    data: Any,
    *,
    numdir: int = 4,
    d: int | None = None,
    missing: str = "drop",
    subset: Any = None,
    weights: Any = None,
) -> MomentResults:
    """Cumulative slicing estimation from a formula; see :class:`CUME`.

    Parameters
    ----------
    formula : str
        A patsy formula with one continuous response.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    numdir, d
        As :func:`sir`.
    missing : {"drop", "raise"}, default "drop"
        What to do with rows with missing values.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.
    weights : str or array-like, optional
        Case weights, a column of ``data`` or one number per row, with R ``dr``'s rule:
        negative, NaN or infinite weights are errors; rows with ``w <= 1e-30`` are
        dropped and the rest rescaled to sum to the rows kept. The summary says "using
        weights". These are R's case weights, not frequency weights.

    Returns
    -------
    MomentResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.cume("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=1)
    >>> fit.directions.round(3)
               Dir1
    log(ssf) -0.173
    log(wt)   0.963
    log(hg)   0.208
    log(ht)  -0.001
    """
    return CUME.from_formula(
        formula, data, missing=missing, subset=subset, weights=weights, numdir=numdir, d=d
    )


__all__ = ["sir", "save", "phd", "dr", "cume"]
