"""Formula functions of the SDSPCAAN family: ``sdr.sdspcaan(formula, data, d=..., ...)`` etc.

Each is made from its estimator class by :func:`sdrstats.core.formula_functions.formula_function`: the options,
their defaults and their text live once, on the classes in :mod:`sdrstats.sdspcaan.family`.
"""

from __future__ import annotations

from ..core.formula_functions import formula_function
from .family import PCA, PCAN, SDSPCA, SDSPCAAN, SDSPCALPP, SPCAN, VPCA

sdspcaan = formula_function(
    SDSPCAAN,
    "sdspcaan",
    summary="SDSPCAAN from a formula with a categorical response; see :class:`SDSPCAAN`.",
    description="""
    Returns the projection as ``directions`` (p x d), the learned graph ``similarity``
    (sparse), ``objective_trace``, ``n_iter`` and ``converged``.
    """,
    examples="""
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sdspcaan("sex ~ ht + wt + lbm + rcc + hg + ssf", ais, d=2)
    >>> fit.transform(ais.head(3)).shape
    (3, 2)
    >>> bool(all(fit.objective_trace[1:] <= fit.objective_trace[:-1] * (1 - 1e-12)
    ...          + 1e-3 * abs(fit.objective_trace[:-1])))
    True
    """,
)

sdspca = formula_function(
    SDSPCA,
    "sdspca",
    summary="SDSPCA (SDSPCAAN with δ = 0) from a formula; see :class:`SDSPCA`.",
    examples="""
    >>> import sdrstats as sdr
    >>> fit = sdr.sdspca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=2)
    >>> fit.d
    2
    """,
)

sdspca_lpp = formula_function(
    SDSPCALPP,
    "sdspca_lpp",
    summary="SDSPCA-LPP (the graph fixed at its first value) from a formula; see :class:`SDSPCALPP`.",
    examples="""
    >>> import sdrstats as sdr
    >>> fit = sdr.sdspca_lpp("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=2)
    >>> fit.similarity.nnz > 0
    True
    """,
)

spcan = formula_function(
    SPCAN,
    "spcan",
    summary="Supervised PCAN (only the adaptive-neighbour terms, F = Y); see :class:`SPCAN`.",
    examples="""
    >>> import sdrstats as sdr
    >>> fit = sdr.spcan("sex ~ ht + wt + lbm", sdr.datasets.load("ais").iloc[::3], d=2)
    >>> fit.directions.shape
    (3, 2)
    """,
)

pcan = formula_function(
    PCAN,
    "pcan",
    summary="Unsupervised PCAN (the response only sets the number of clusters); see :class:`PCAN`.",
    examples="""
    >>> import sdrstats as sdr
    >>> fit = sdr.pcan("sex ~ ht + wt + lbm", sdr.datasets.load("ais").iloc[::3], d=2)
    >>> fit.directions.shape
    (3, 2)
    """,
)

pca = formula_function(
    PCA,
    "pca",
    summary="PCA of the z-scored predictors of a formula (the response is ignored); see :class:`PCA`.",
    examples="""
    >>> import sdrstats as sdr
    >>> fit = sdr.pca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=1)
    >>> fit.directions.shape
    (3, 1)
    """,
)

vpca = formula_function(
    VPCA,
    "vpca",
    summary="vPCA (``W = R_{1:k} Σ_{1:k}``) of a formula's predictors; see :class:`VPCA`.",
    examples="""
    >>> import sdrstats as sdr
    >>> fit = sdr.vpca("sex ~ ht + wt + lbm", sdr.datasets.load("ais"), d=1)
    >>> fit.directions.shape
    (3, 1)
    """,
)

__all__ = ["sdspcaan", "sdspca", "sdspca_lpp", "spcan", "pcan", "pca", "vpca"]
