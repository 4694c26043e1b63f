"""Formula functions of the moment methods: ``sdr.sir(formula, data, ...)`` and friends.

Each is made from its estimator class by
:func:`sdrstats.core.formula_functions.formula_function`: the options, their defaults and
their text live once, on the classes in :mod:`sdrstats.moment.methods`.
"""

from __future__ import annotations

from ..core.formula_functions import formula_function
from .methods import CUME, DR, PHD, SAVE, SIR

sir = formula_function(
    SIR,
    "sir",
    summary="Sliced inverse regression from a formula; see :class:`SIR`.",
    description="""
    Several responses are written ``"y1 + y2 ~ ..."``; a categorical response is sliced by
    its levels.
    """,
    examples="""
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()[:2]
    [0.939, 0.179]
    """,
)

save = formula_function(
    SAVE,
    "save",
    summary="Sliced average variance estimation from a formula; see :class:`SAVE`.",
    examples="""
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()
    [0.903, 0.224, 0.201, 0.104]
    """,
)

phd = formula_function(
    PHD,
    "phd",
    summary="Principal Hessian directions from a formula (``residuals=True`` is R's phdres).",
    examples="""
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.phd("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    >>> fit.eigenvalues.round(3).tolist()
    [2.842, -1.369, 0.746, 0.192]
    """,
)

dr = formula_function(
    DR,
    "dr",
    summary="Directional regression from a formula; see :class:`DR`.",
    examples="""
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.dr("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> fit.eigenvalues.round(3).tolist()
    [7.005, 1.302, 0.633, 0.352]
    """,
)

cume = formula_function(
    CUME,
    "cume",
    summary="Cumulative slicing estimation from a formula; see :class:`CUME`.",
    examples="""
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.cume("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=1)
    >>> fit.directions.round(3)
               Dir1
    log(ssf) -0.173
    log(wt)   0.963
    log(hg)   0.208
    log(ht)  -0.001
    """,
)

__all__ = ["sir", "save", "phd", "dr", "cume"]
