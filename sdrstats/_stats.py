"""Distribution helpers shared by the tests of several methods."""

from __future__ import annotations

import numpy as np
from scipy import stats


def chi2_sf(stat: float, df: float) -> float:
    """Upper tail of χ²(df) from the survival function (no ``1 - cdf`` underflow)."""
    if not np.isfinite(stat) or df <= 0:
        return float("nan")
    return float(stats.chi2.sf(stat, df))


def weighted_chi2_sf(stat: float, weights: np.ndarray, approximation: str = "bx") -> float:
    """P(Σ c_k χ²₁ > stat) for positive weights ``c``.

    ``"bx"`` (Bentler & Xie 2000): match the first two moments with a scaled χ²,
    ``df = (Σc)²/Σc²`` and ``stat·df/Σc ~ χ²(df)``. ``"wood"`` (Wood 1989): a three-moment
    F approximation; it falls back to ``"bx"`` when the third moment makes it undefined.
    """
    c = np.asarray(weights, dtype=float)
    c = c[c > 1e-12 * max(1.0, float(np.max(np.abs(c))) if c.size else 1.0)]
    if c.size == 0 or not np.isfinite(stat):
        return float("nan")
    k1, k2, k3 = c.sum(), 2.0 * (c**2).sum(), 8.0 * (c**3).sum()
    if approximation == "wood":
        t1, t2, t3 = 4.0 * k2**2 * k1 + k3 * (k2 - k1**2), k3 * k1 - 2.0 * k2**2, 8.0 * k1 * k2
        r1 = 4.0 * k2**2 * k1 + k3 * (k2 - k1**2)
        r2 = k3 * k1 - 2.0 * k2**2
        if r1 > 0 and r2 > 0 and t2 != 0:
            beta = r1 / r2
            alpha1 = 2.0 * k1 * (k3 * k1 + k1**2 * k2 - k2**2) / r1
            alpha2 = 3.0 + 2.0 * k2 * (k2 + k1**2) / r2
            x = stat * alpha2 / (alpha1 * beta)
            return float(stats.f.sf(x, 2.0 * alpha1, 2.0 * alpha2))
        del t1, t3
    df = k1**2 / (c**2).sum()
    return chi2_sf(stat * df / k1, df)


__all__ = ["chi2_sf", "weighted_chi2_sf"]
