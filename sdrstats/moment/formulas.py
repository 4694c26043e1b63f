"""Formula functions of the moment methods: ``sdr.sir(formula, data, ...)`` and friends.

Each takes its estimator class's options (the signature is checked against the class when
the module is imported) and documents them with the class's text
(:func:`sdrstats.fitting.formula_functions.formula_doc`): the options, their defaults and their
text live once, on the classes in :mod:`sdrstats.moment.methods`.
"""

from __future__ import annotations

from typing import Any

from ..fitting.formula_functions import fit_formula, formula_doc
from .methods import CUME, PHD, SAVE, SIR, DirectionalRegression
from .results import MomentResults


@formula_doc(SIR)
def sir(
    formula: str,
    data: Any,
    *,
    nslices: int | None = None,
    slice_function: str = "dr",
    d_max: int = 4,
    d: int | None = None,
    d_rule: str = "asymptotic",
    cut_points: Any = None,
    group: str | None = None,
    pool: bool = False,
    random_state: Any = None,
    numdir: int | None = None,
    weights: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> MomentResults:
    """Sliced inverse regression from a formula; see :class:`SIR`.

    Several responses are written ``"y1 + y2 ~ ..."``; a categorical response is sliced by
    its levels. ``group="G"`` fits partial SIR, one subspace shared by the levels of ``G``
    (R ``dr``'s ``group = ~G``; see :mod:`sdrstats.moment.partial`).

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {aliases}
    {weights}
    {missing}
    {subset}

    Returns
    -------
    MomentResults

    See Also
    --------
    SIR : The estimator, for arrays (``SIR(...).fit(X, y)``).
    sdrstats.moment.results.MomentResults : What it returns.
    save, directional_regression : See directions in which the response is symmetric.

    References
    ----------
    :cite:t:`li1991`; :cite:t:`weisberg2002`; :cite:t:`cook2004`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()[:2]
    [0.939, 0.179]
    >>> formula = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"
    >>> by_sex = sdr.sir(formula, ais, group="sex", nslices=4)  # partial SIR
    >>> by_sex.test_dimension().d
    2
    """
    return fit_formula(SIR, locals(), "sir")


@formula_doc(SAVE)
def save(
    formula: str,
    data: Any,
    *,
    nslices: int | None = None,
    slice_function: str = "dr",
    d_max: int = 4,
    d: int | None = None,
    d_rule: str = "asymptotic",
    cut_points: Any = None,
    group: str | None = None,
    pool: bool = False,
    random_state: Any = None,
    numdir: int | None = None,
    weights: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> MomentResults:
    """Sliced average variance estimation from a formula; see :class:`SAVE`.

    ``group="G"`` fits partial SAVE, one subspace shared by the levels of ``G`` (R ``dr``'s
    ``group = ~G``; see :mod:`sdrstats.moment.partial`).

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {aliases}
    {weights}
    {missing}
    {subset}

    Returns
    -------
    MomentResults

    See Also
    --------
    SAVE : The estimator, for arrays (``SAVE(...).fit(X, y)``).
    sdrstats.moment.results.MomentResults : What it returns.
    sir, directional_regression : The other slicing methods.

    References
    ----------
    :cite:t:`cook1991`; :cite:t:`shao2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()
    [0.903, 0.224, 0.201, 0.104]
    """
    return fit_formula(SAVE, locals(), "save")


@formula_doc(PHD)
def phd(
    formula: str,
    data: Any,
    *,
    residuals: bool | str = True,
    d_max: int = 4,
    d: int | None = None,
    d_rule: str = "asymptotic",
    random_state: Any = None,
    numdir: int | None = None,
    weights: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> MomentResults:
    """Principal Hessian directions from a formula (``residuals=True`` is R's phdres).

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {aliases}
    {weights}
    {missing}
    {subset}

    Returns
    -------
    MomentResults

    See Also
    --------
    PHD : The estimator, for arrays (``PHD(...).fit(X, y)``).
    sdrstats.moment.results.MomentResults : What it returns.
    sir, save : Slicing methods; pHd sees only curvature in the mean.

    References
    ----------
    :cite:t:`li1992`; :cite:t:`cook1998`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.phd("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    >>> fit.eigenvalues.round(3).tolist()
    [2.842, -1.369, 0.746, 0.192]
    """
    return fit_formula(PHD, locals(), "phd")


@formula_doc(DirectionalRegression)
def directional_regression(
    formula: str,
    data: Any,
    *,
    nslices: int | None = None,
    slice_function: str = "dr",
    d_max: int = 4,
    d: int | None = None,
    d_rule: str = "permutation",
    cut_points: Any = None,
    random_state: Any = None,
    numdir: int | None = None,
    weights: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> MomentResults:
    """Directional regression (Li & Wang 2007) from a formula; see :class:`DirectionalRegression`.

    Not R's ``dr()``, which is :func:`sdrstats.dr` (SIR, SAVE, pHd and IRE by ``method=``).

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {aliases}
    {weights}
    {missing}
    {subset}

    Returns
    -------
    MomentResults

    See Also
    --------
    DirectionalRegression : The estimator, for arrays (``DirectionalRegression(...).fit(X, y)``).
    sdrstats.moment.results.MomentResults : What it returns.
    sir, save : The methods it combines.

    References
    ----------
    :cite:t:`li2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> formula = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"
    >>> fit = sdr.directional_regression(formula, ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()
    [7.005, 1.302, 0.633, 0.352]
    """
    return fit_formula(DirectionalRegression, locals(), "directional_regression")


@formula_doc(CUME)
def cume(
    formula: str,
    data: Any,
    *,
    d_max: int = 4,
    d: int | None = None,
    d_rule: str = "permutation",
    random_state: Any = None,
    numdir: int | None = None,
    weights: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> MomentResults:
    """Cumulative slicing estimation from a formula; see :class:`CUME`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {aliases}
    {weights}
    {missing}
    {subset}

    Returns
    -------
    MomentResults

    See Also
    --------
    CUME : The estimator, for arrays (``CUME(...).fit(X, y)``).
    sdrstats.moment.results.MomentResults : What it returns.
    sir : Slicing into a fixed number of slices instead of every cut point.

    References
    ----------
    :cite:t:`zhu2010`.

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
    return fit_formula(CUME, locals(), "cume")


__all__ = ["sir", "save", "phd", "directional_regression", "cume"]
