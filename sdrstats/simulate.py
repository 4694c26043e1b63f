"""Seeded data generators of the research papers' simulation studies.

Each generator takes ``n`` and ``random_state`` and returns a DataFrame (predictors ``x1..xp``
and the response) plus, where the paper defines it, the true basis.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm


def lsce_artificial(
    dataset: str, n: int, random_state: Any = None, noise_sd: float = 0.25
) -> tuple[pd.DataFrame, np.ndarray]:
    """The artificial data of Tangkaratt, Xie & Sugiyama (2015): ``x ~ N(0, I_5)``, ``ε ~ N(0, 0.25²)``.

    ``dataset="a"``: ``y = x1² + x2² + ε`` (true ``d = 2``);
    ``dataset="b"``: ``y = x2 + x2² + x2³ + ε`` (true ``d = 1``).

    Parameters
    ----------
    dataset : {"a", "b"}
        Which model.
    n : int
        Number of rows.
    random_state : int, Generator or None, default None
        Seed of the draws.
    noise_sd : float, default 0.25
        Standard deviation of ``ε``.

    Returns
    -------
    data : DataFrame with columns x1..x5, y
    basis : ndarray (5, d), the true directions

    Examples
    --------
    >>> df, B = lsce_artificial("b", 4, random_state=0)
    >>> df.shape, B.ravel().tolist()
    ((4, 6), [0.0, 1.0, 0.0, 0.0, 0.0])
    """
    if dataset not in ("a", "b"):
        raise ValueError(f"dataset must be 'a' or 'b'; got {dataset!r}.")
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n, 5))
    mean = lsce_artificial_mean(dataset, X)
    y = mean + noise_sd * rng.standard_normal(n)
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 6)])
    data["y"] = y
    basis = np.eye(5)[:, :2] if dataset == "a" else np.eye(5)[:, [1]]
    return data, basis


def lsce_artificial_mean(dataset: str, X: np.ndarray) -> np.ndarray:
    """``E(y | x)`` of :func:`lsce_artificial`.

    Parameters
    ----------
    dataset : {"a", "b"}
        Which model.
    X : ndarray of shape (m, 5)
        Predictor rows.

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> lsce_artificial_mean("b", np.array([[0.0, 1.0, 0.0, 0.0, 0.0]]))
    array([3.])
    """
    if dataset == "a":
        return X[:, 0] ** 2 + X[:, 1] ** 2
    x2 = X[:, 1]
    return x2 + x2**2 + x2**3


def lsce_artificial_pdf(
    dataset: str, X: np.ndarray, y: np.ndarray, noise_sd: float = 0.25
) -> np.ndarray:
    """True ``p(y | x)`` of :func:`lsce_artificial` at paired rows.

    Parameters
    ----------
    dataset : {"a", "b"}
        Which model.
    X : ndarray of shape (m, 5)
        Predictor rows.
    y : ndarray of shape (m,)
        One response value per row.
    noise_sd : float, default 0.25
        Standard deviation of ``ε``.

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> lsce_artificial_pdf("a", np.zeros((1, 5)), np.zeros(1)).round(3)
    array([1.596])
    """
    return norm.pdf(y, lsce_artificial_mean(dataset, X), noise_sd)


__all__ = ["lsce_artificial", "lsce_artificial_mean", "lsce_artificial_pdf"]


# -- online sparse SIR (Cheng & Cui 2020) and Lasso-SIR -----------------------------------


def ar1_normal(n: int, p: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    """Rows ``x ~ N(0, Σ)`` with ``Σ_ij = rho^|i-j|`` (an AR(1) recursion across columns).

    Parameters
    ----------
    n, p : int
        Rows and columns.
    rho : float
        Correlation of neighbouring columns, ``|rho| < 1``.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    ndarray of shape (n, p)

    Examples
    --------
    >>> import numpy as np
    >>> x = ar1_normal(20000, 3, 0.5, np.random.default_rng(0))
    >>> np.corrcoef(x.T).round(1)
    array([[1. , 0.5, 0.3],
           [0.5, 1. , 0.5],
           [0.3, 0.5, 1. ]])
    """
    from scipy.signal import lfilter

    z = rng.standard_normal((n, p))
    z[:, 1:] *= np.sqrt(1.0 - rho**2)
    return lfilter([1.0], [1.0, -rho], z, axis=1)


def ossir_model(
    model: int, n: int, p: int, random_state: Any = None, noise_sd: float = 0.5, rho: float = 0.5
) -> tuple[pd.DataFrame, np.ndarray]:
    """The simulation models of Cheng & Cui's online sparse SIR, as reconstructed here.

    ``x ~ N(0, Σ)``, ``Σ_ij = 0.5^|i-j|``; ``β₁ = (1,1,1,1,0,…)/2``, ``β₂`` has ``1/2`` at
    coordinates 7-10; ``ε ~ N(0, 0.5²)``. Model 1: ``y = (β₁ᵀx)³/2 + ε`` (d = 1); model 2:
    ``y = sin(β₁ᵀx)·exp(β₂ᵀx) + ε`` (d = 2); model 3: ``y = sgn(β₁ᵀx)·|1 + β₂ᵀx/2| + ε``
    (d = 2).

    Parameters
    ----------
    model : {1, 2, 3}
        Which model.
    n, p : int
        Rows and predictors (``p >= 10``).
    random_state : int, Generator or None, default None
        Seed of the draws.
    noise_sd : float, default 0.5
        Standard deviation of ``ε``.
    rho : float, default 0.5
        AR(1) correlation of the predictors.

    Returns
    -------
    data : DataFrame with columns x1..xp, y
    basis : ndarray (p, d), the true directions (unit columns)

    Examples
    --------
    >>> df, B = ossir_model(2, 5, 12, random_state=0)
    >>> df.shape, B.shape
    ((5, 13), (12, 2))
    """
    if model not in (1, 2, 3):
        raise ValueError(f"model must be 1, 2 or 3; got {model!r}.")
    if p < 10:
        raise ValueError(f"ossir_model needs p >= 10 (beta2 uses coordinates 7-10); got {p}.")
    rng = np.random.default_rng(random_state)
    X = ar1_normal(n, p, rho, rng)
    b1, b2 = np.zeros(p), np.zeros(p)
    b1[:4], b2[6:10] = 0.5, 0.5
    u, v = X @ b1, X @ b2
    if model == 1:
        mean = u**3 / 2
    elif model == 2:
        mean = np.sin(u) * np.exp(v)
    else:
        mean = np.sign(u) * np.abs(1 + v / 2)
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, p + 1)])
    data["y"] = mean + noise_sd * rng.standard_normal(n)
    basis = b1[:, None] if model == 1 else np.column_stack([b1, b2])
    return data, basis


def sparse_single_index(
    n: int, p: int, random_state: Any = None, noise_sd: float = 0.5, k: int = 5
) -> tuple[pd.DataFrame, np.ndarray]:
    """``x ~ N(0, I_p)``, ``β = (1,…,1,0,…,0)/√k`` (``k`` ones), ``y = xᵀβ + noise_sd·ε``.

    A sparse single-index check of Lasso-SIR (``k = 5``, ``p = 100``, ``n = 200``).

    Parameters
    ----------
    n, p : int
        Rows and predictors.
    random_state : int, Generator or None, default None
        Seed of the draws.
    noise_sd : float, default 0.5
        Standard deviation of the noise.
    k : int, default 5
        Number of active predictors.

    Returns
    -------
    data : DataFrame with columns x1..xp, y
    basis : ndarray (p, 1), the true direction

    Examples
    --------
    >>> df, b = sparse_single_index(3, 8, random_state=0)
    >>> df.shape, round(float(b[0, 0] ** 2 * 5), 6)
    ((3, 9), 1.0)
    """
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n, p))
    beta = np.zeros(p)
    beta[:k] = 1 / np.sqrt(k)
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, p + 1)])
    data["y"] = X @ beta + noise_sd * rng.standard_normal(n)
    return data, beta[:, None]


__all__ += ["ar1_normal", "ossir_model", "sparse_single_index"]


# -- MAVE ---------------------------------------------------------------------------------------


def mave_classic(n: int = 400, random_state: Any = None) -> tuple[pd.DataFrame, np.ndarray]:
    """The example of R ``MAVE``'s help pages: ``y = xᵀb₁ + (xᵀb₂) ε``, ``x ~ N(0, I₅)``.

    ``b₁ = (1, 1, 0, 0, 0)``, ``b₂ = (0, 0, 1, 1, 0)``, ``ε ~ N(0, 1)``: the central subspace
    is ``span(b₁, b₂)`` (``d = 2``) and the central mean subspace ``span(b₁)`` (``d = 1``).

    Parameters
    ----------
    n : int, default 400
        Number of rows.
    random_state : int, Generator or None, default None
        Seed of the draws.

    Returns
    -------
    data : DataFrame with columns x1..x5, y
    basis : ndarray (5, 2), columns ``b₁`` and ``b₂`` (the first spans the mean subspace)

    Examples
    --------
    >>> df, b = mave_classic(4, random_state=0)
    >>> df.shape, b[:, 0].tolist()
    ((4, 6), [1.0, 1.0, 0.0, 0.0, 0.0])
    """
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n, 5))
    basis = np.array([[1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0]]).T
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 6)])
    data["y"] = X @ basis[:, 0] + (X @ basis[:, 1]) * rng.standard_normal(n)
    return data, basis


__all__ += ["mave_classic"]
