"""Generic dimension rules every fit gets: the hook ``Results.test_dimension`` calls.

``asymptotic`` (where a method has one) and the own ``cv`` of MAVE, LSCE and LSMI come from the
estimator; this module adds, for every method:

========================  ==============================================================
``"permutation"``          Cook & Yin (2001); methods with eigenvalues
                           (:func:`~sdrstats.inference.permutation.permutation_test`)
``"ladle"``                Luo & Li (2016); methods with eigenvalues
                           (:func:`~sdrstats.inference.ladle.ladle`)
``"bootstrap"``            Ye & Weiss (2003); any method with linear directions
                           (:func:`~sdrstats.inference.ladle.bootstrap_dimension`)
``"ratio"``                Lam & Yao (2012), Ahn & Horenstein (2013); methods with
                           eigenvalues (:func:`~sdrstats.inference.ratio.eigenvalue_ratio`)
``"cv"``                   R ``mave.dim``'s leave-one-out criterion; any fit with its rows
                           (:func:`~sdrstats.inference.cv.cv_dimension`); MAVE, LSCE and
                           LSMI have their own
========================  ==============================================================

Methods without eigenvalues (LSCE, MAVE, online SIR...) optimise a criterion at a fixed
``d``: a permutation statistic or a ladle needs an ordered spectrum, so those two rules raise
``ValueError("The 'ladle' dimension test is not available for <method>: <why> ...")`` and point
to ``"bootstrap"`` (which refits at each candidate ``d``) or ``"cv"``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .cv import cv_dimension
from .dimension_test import DimensionTest
from .ladle import bootstrap_dimension, ladle
from .permutation import permutation_test
from .ratio import eigenvalue_ratio

RULES: dict[str, Callable[..., DimensionTest]] = {
    "permutation": permutation_test,
    "ladle": ladle,
    "bootstrap": bootstrap_dimension,
    "ratio": eigenvalue_ratio,
    "cv": cv_dimension,
}
"""Generic rules by name; each is called as ``rule(results, **options)``."""


def generic_rules(results: Any) -> dict[str, Callable[..., DimensionTest]]:
    """The generic rules bound to ``results``: name -> ``callable(**options)``.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg)", ais)
    >>> sorted(generic_rules(fit))
    ['bootstrap', 'cv', 'ladle', 'permutation', 'ratio']
    """

    def bind(rule: Callable[..., DimensionTest]) -> Callable[..., DimensionTest]:
        @functools.wraps(rule)  # its doc, and its signature for the check of options
        def run(**options: Any) -> DimensionTest:
            return rule(results, **options)

        return run

    return {name: bind(rule) for name, rule in RULES.items()}


__all__ = ["generic_rules", "RULES"]
