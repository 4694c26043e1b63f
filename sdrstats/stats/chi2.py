"""Distribution helpers shared by the tests of several methods."""

from __future__ import annotations

import numpy as np
from scipy import special


def chi2_sf(stat: float, df: float) -> float:
    """Upper tail of χ²(df) from the survival function (no ``1 - cdf`` underflow)."""
    if not np.isfinite(stat) or df <= 0:
        return float("nan")
    return float(special.chdtrc(df, stat))  # what scipy.stats.chi2.sf computes


def weighted_chi2_sf(stat: float, weights: np.ndarray, approximation: str = "bx") -> float:
    """P(Σ c_k χ²₁ > stat) for positive weights ``c`` (non-positive weights are ignored).

    ``"bx"`` (Bentler & Xie 2000): match the first two moments with a scaled χ²,
    ``df = (Σc)²/Σc²`` and ``stat·df/Σc ~ χ²(df)``.

    ``"wood"`` (Wood 1989, as R ``dr``'s ``wood.pvalue``): match the first three cumulants
    ``κ₁ = Σc``, ``κ₂ = 2Σc²``, ``κ₃ = 8Σc³`` with a scaled beta-prime (three-parameter F,
    Pearson type VI) variable ``Q = b·U/(1 − U)``, ``U ~ Beta(α₁, α₂)``, where with
    ``t₁ = 4κ₁κ₂² + κ₃(κ₂ − κ₁²)`` and ``t₂ = κ₁κ₃ − 2κ₂²``:
    ``α₁ = 2κ₁(κ₁κ₃ + κ₂κ₁² − κ₂²)/t₁``, ``α₂ = 3 + 2κ₂(κ₂ + κ₁²)/t₂``, ``b = t₁/t₂``, and
    ``P(Q > stat) = 1 − I_{stat/(stat+b)}(α₁, α₂)``. A single weight is exact
    (``stat/c ~ χ²₁``). ``t₂ = 0`` exactly when all weights are equal, where the sum is an
    exact scaled χ² and R's function returns nothing; this returns the exact value (which
    ``"bx"`` gives) instead. For positive weights ``t₁ > 0``.
    """
    if approximation not in ("bx", "wood"):
        raise ValueError(
            f"The chi2approx option must be 'bx' (Bentler-Xie) or 'wood'; got {approximation!r}."
        )
    c = np.asarray(weights, dtype=float).ravel()
    c = c[c > 1e-12 * max(1.0, float(np.max(np.abs(c))) if c.size else 1.0)]
    if c.size == 0 or not np.isfinite(stat):
        return float("nan")
    if approximation == "wood":
        if c.size == 1:
            return chi2_sf(stat / c[0], 1)
        k1, k2, k3 = c.sum(), 2.0 * (c**2).sum(), 8.0 * (c**3).sum()
        t1 = 4.0 * k1 * k2**2 + k3 * (k2 - k1**2)
        t2 = k1 * k3 - 2.0 * k2**2
        # t2 >= 0 by Cauchy-Schwarz; relative to its terms it is rounding noise for equal weights
        if t1 > 0 and t2 > 1e-10 * k1 * k3:
            a1 = 2.0 * k1 * (k1 * k3 + k2 * k1**2 - k2**2) / t1
            a2 = 3.0 + 2.0 * k2 * (k2 + k1**2) / t2
            scale = t1 / t2
            if stat <= 0:
                return 1.0
            from scipy import stats  # here: scipy.stats takes 0.3 s to import

            return float(stats.beta.sf(stat / (stat + scale), a1, a2))
    df = c.sum() ** 2 / (c**2).sum()
    return chi2_sf(stat * df / c.sum(), df)


__all__ = ["chi2_sf", "weighted_chi2_sf"]
