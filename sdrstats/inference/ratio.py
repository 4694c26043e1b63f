"""The eigenvalue-ratio rule for the dimension (Lam & Yao 2012; Ahn & Horenstein 2013).

``d`` maximises ``λ_k / λ_{k+1}`` over ``k = 1..d_max``: the largest relative drop of the
spectrum. It needs the eigenvalues only (no rows, no resampling), so it works for every fit
with eigenvalues, fits from chunked data included, and costs nothing. It never answers
``d = 0``; it is the default rule of the PCA-type methods (PCA, vPCA, BPCA), whose
eigenvalues beyond the dimension are the noise level rather than zero, and of the online SIR,
whose stream keeps no rows to resample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.validation import accepts_aliases, check_int
from .dimension_test import DimensionTest
from .ladle import default_d_max


def ratio_choice(values: np.ndarray, d_max: int) -> int:
    """The ``k <= d_max`` maximising ``λ_k / λ_{k+1}`` among the positive ``values``.

    ``values`` are taken by size (``|λ|``, decreasing); exact zeros (a kernel's null space)
    take no part, so ``k`` is at most their number less one; with one positive value the
    answer is 1. The first maximiser wins a tie.

    Examples
    --------
    >>> ratio_choice(np.array([5.0, 4.0, 0.1, 0.05]), 3)
    2
    >>> ratio_choice(np.array([1.0, 0.0]), 3)
    1
    """
    values = np.sort(np.abs(np.asarray(values, dtype=float)))[::-1]
    positive = values[values > 0]
    kmax = min(int(d_max), positive.size - 1)
    if kmax < 1:
        return 1
    ratios = positive[:kmax] / positive[1 : kmax + 1]
    return int(np.argmax(ratios)) + 1


def spectrum(results: Any) -> np.ndarray | None:
    """The eigenvalues the rule reads: ``extras["spectrum"]`` (every eigenvalue of a method
    that reports fewer with its directions, e.g. the online SIR's kernel), else the fit's."""
    values = results.output.extras.get("spectrum")
    if values is None:
        values = results.output.eigenvalues
    return None if values is None else np.asarray(values, dtype=float)


@accepts_aliases({"numdir": "d_max"})
def eigenvalue_ratio(results: Any, *, d_max: int | None = None) -> DimensionTest:
    """Eigenvalue-ratio choice of the dimension: ``d`` maximises ``λ_k / λ_{k+1}``.

    Parameters
    ----------
    results : Results
        A fit with eigenvalues.
    d_max : int, optional
        Largest candidate ``k`` (R's ``numdir`` is an alias); default the fit's ``d_max``
        option when it has one, else the ladle's (``p - 2`` for ``p <= 10``,
        ``floor(p / log p)`` beyond); never more than the number of positive eigenvalues
        less one.

    Returns
    -------
    DimensionTest
        ``table`` indexed by ``k`` with the eigenvalue ``λ_k`` and the ratio
        ``λ_k / λ_{k+1}``; ``d`` is the first maximiser.

    Notes
    -----
    For a spectrum with ``d`` large eigenvalues and the rest small (SIR-type kernels) or
    equal to a noise level (principal components of a factor model), the ratio at ``k = d``
    grows with ``n`` while the others stay bounded, so the rule is consistent (Lam & Yao
    2012; Ahn & Horenstein 2013). Ratios of two small noise eigenvalues can be large in small
    samples, which ``d_max`` limits; a direction carrying much less signal than the first can
    be missed (the ratio at ``k = 1`` wins).

    References
    ----------
    Lam, C. & Yao, Q. (2012). Factor modeling for high-dimensional time series: inference for
    the number of factors. *The Annals of Statistics* 40, 694–726.

    Ahn, S. C. & Horenstein, A. R. (2013). Eigenvalue ratio test for the number of factors.
    *Econometrica* 81, 1203–1227.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
    >>> test = fit.test_dimension("ratio")
    >>> test.table.columns.tolist(), test.d
    (['eigenvalue', 'ratio'], 3)
    """
    name = results.method
    values = spectrum(results)
    if values is None:
        raise ValueError(
            f"The 'ratio' dimension test is not available for {name}: it compares consecutive "
            f"eigenvalues, and {name} has none."
        )
    ordered = np.sort(np.abs(values))[::-1]
    positive = ordered[ordered > 0]
    if positive.size == 0:
        raise ValueError(
            f"The 'ratio' dimension test needs a positive eigenvalue; {name} has none."
        )
    if d_max is None:
        own = results.options.get("d_max")
        d_max = int(own) if own is not None else max(1, default_d_max(results.p))
    d_max = check_int(d_max, "d_max", "the ratio rule", low=1)
    kmax = max(1, min(d_max, positive.size - 1))
    following = np.r_[positive[1 : kmax + 1], np.zeros(max(0, kmax + 1 - positive.size))]
    with np.errstate(divide="ignore"):
        ratios = positive[:kmax] / following[:kmax]
    table = pd.DataFrame(
        {"eigenvalue": positive[:kmax], "ratio": ratios},
        index=pd.Index(range(1, kmax + 1), name="k"),
    )
    note = "d maximises eigenvalue(k) / eigenvalue(k + 1)."
    if positive.size == 1:
        note = "One positive eigenvalue: d = 1."
    return DimensionTest(
        table,
        ratio_choice(positive, kmax),
        "ratio",
        name,
        level=None,
        title=f"Eigenvalue-ratio dimension rule for {name}",
        note=note,
    )


__all__ = ["eigenvalue_ratio", "ratio_choice", "spectrum"]
