"""Data preparation for the MAVE family: screening, whitening and the response targets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .local import C0

CENTRAL_SUBSPACE = ("csmave", "csopg")
MEAN_SUBSPACE = ("meanmave", "meanopg")
VARIANTS = ("csmave", "csopg", "meanmave", "meanopg", "ksir")


def default_screen(n: int) -> int:
    """R ``MAVE``'s default number of predictors kept by screening, ``⌊n / log n⌋``."""
    return max(1, int(n / np.log(n)))


def _weighted_standardise(A: np.ndarray, w: np.ndarray) -> np.ndarray:
    mean = w @ A / w.sum()
    sd = np.sqrt(w @ (A - mean) ** 2 / w.sum())
    sd[sd == 0] = 1.0
    return (A - mean) / sd


def screening_utility(
    X: np.ndarray, Y: np.ndarray, categorical: bool, w: np.ndarray | None = None
) -> np.ndarray:
    """Model-free marginal utility of each predictor: SIRS (Zhu, Li, Li & Zhu 2011).

    For standardised ``x_k``, ``ω_k = (1/n) Σ_j {(1/n) Σ_i x_ik 1(y_i ≤ y_j)}²`` — the
    cumulative-slicing (CUME) kernel of one predictor — summed over response columns; for
    class labels ``ω_k = Σ_c f_c x̄_{k,c}²`` (the between-class SIR kernel). Large values mark
    predictors whose distribution changes with ``y``; no model is assumed, so predictors that
    act only through the variance are kept too.
    """
    n = X.shape[0]
    w = np.ones(n) if w is None else w
    Xs = _weighted_standardise(X, w) * w[:, None]
    if categorical:
        codes = Y.astype(np.int64)
        sums = np.zeros((codes.max() + 1, X.shape[1]))
        np.add.at(sums, codes, Xs)
        counts = np.bincount(codes, weights=w)
        keep = counts > 0
        return np.sum(sums[keep] ** 2 / counts[keep, None], axis=0) / w.sum()
    Ycols = Y.reshape(n, -1)
    utility = np.zeros(X.shape[1])
    for col in Ycols.T:
        order = np.argsort(col, kind="stable")
        cumulative = np.cumsum(Xs[order], axis=0) / w.sum()
        # ties: every y_i equal to y_j counts, so use the last cumulative row of each tie run
        sorted_y = col[order]
        last = np.searchsorted(sorted_y, sorted_y, side="right") - 1
        utility += (w[order] @ cumulative[last] ** 2) / w.sum()
    return utility


@dataclass
class Whitened:
    """``Z = (X − x̄) Σ^{-1/2}``; ``back`` maps a ``Z``-scale basis to the ``X`` scale."""

    Z: np.ndarray
    mean: np.ndarray
    back: np.ndarray


def whiten(X: np.ndarray, w: np.ndarray | None, method: str) -> Whitened:
    """Whiten the predictors; raise a clear error when their covariance is singular."""
    n = X.shape[0]
    w = np.ones(n) if w is None else w
    mean = w @ X / w.sum()
    Xc = X - mean
    cov = (Xc * w[:, None]).T @ Xc / w.sum()
    values, vectors = np.linalg.eigh(cov)
    if values[0] <= 1e-10 * max(values[-1], 1e-300):
        raise ValueError(
            f"The predictors of {method} are collinear (their covariance matrix is singular); "
            "remove predictors that are linear combinations of others or constant."
        )
    back = vectors @ np.diag(values**-0.5) @ vectors.T
    return Whitened(Xc @ back, mean, back)


def weighted_quantiles(values: np.ndarray, w: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Quantiles of the distribution putting mass ``w_i`` on ``values_i`` (inverse CDF).

    With integer weights they are the quantiles of the sample with rows repeated ``w_i``
    times (numpy's ``inverted_cdf`` rule), so weights act as frequency weights.

    Examples
    --------
    >>> weighted_quantiles(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 1.0]), np.array([0.5]))
    array([2.])
    """
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(w[order]) / w.sum()
    index = np.searchsorted(cumulative, probs - 1e-12, side="left")
    return values[order][np.minimum(index, len(values) - 1)]


@dataclass
class Targets:
    """Transformed responses ``T`` (n, m) and how they were built."""

    T: np.ndarray
    kind: str
    y_bandwidth: float | None = None
    y_std: np.ndarray | None = None


def make_targets(
    Y: np.ndarray,
    variant: str,
    categorical: bool,
    *,
    y_points: int,
    y_bandwidth: float | None,
    w: np.ndarray | None,
) -> Targets:
    """Targets of the local-linear fits.

    * class labels: one indicator column per class (``E[1{Y=c}|X]`` spans the central subspace);
    * mean-subspace methods: the standardised response columns;
    * central-subspace methods: ``φ((y_i − t_k)/b)`` at the ``m = min(n, y_points)`` quantiles
      ``t_k = F̂^{-1}((k − ½)/m)`` of the standardised response, ``b`` the normal-reference
      bandwidth ``1.06 n^{-1/5}`` (Silverman 1986) unless ``y_bandwidth`` is given — Xia's
      (2007) kernel ``H_b(Y − y)`` whose conditional mean is the conditional density.
    * kernel SIR: the standardised response (the kernel runs on it directly).
    """
    n = Y.shape[0]
    w = np.ones(n) if w is None else w
    if categorical:
        codes = Y.astype(np.int64)
        present = np.unique(codes)
        return Targets((codes[:, None] == present[None, :]).astype(float), "classes")
    Ys = _weighted_standardise(Y.reshape(n, -1).astype(float), w)
    if variant in CENTRAL_SUBSPACE:
        if Ys.shape[1] > 1:
            raise ValueError(
                f"{variant} needs a single response column; got {Ys.shape[1]}. Use "
                "method='meanopg' or 'meanmave' for a multivariate response, or fit each "
                "response separately."
            )
        ys = Ys[:, 0]
        m = min(n, y_points)
        grid = weighted_quantiles(ys, w, (np.arange(m) + 0.5) / m)
        b = y_bandwidth if y_bandwidth is not None else C0 * n ** (-1 / 5)
        T = np.exp(-0.5 * ((ys[:, None] - grid[None, :]) / b) ** 2)
        return Targets(T, "y-kernel", b, Ys)
    if variant == "ksir":
        b = y_bandwidth if y_bandwidth is not None else C0 * n ** (-1 / (Ys.shape[1] + 4))
        return Targets(Ys, "response", b, Ys)
    return Targets(Ys, "response", None, Ys)


__all__ = [
    "CENTRAL_SUBSPACE",
    "MEAN_SUBSPACE",
    "VARIANTS",
    "default_screen",
    "screening_utility",
    "weighted_quantiles",
    "Whitened",
    "whiten",
    "Targets",
    "make_targets",
]
