"""Data preparation for the MAVE family, as R ``MAVE`` (``MAVEfast``) does it.

* screening by distance correlation (Li, Zhong & Zhu 2012) when there are more predictors than
  ``screen`` (default ``⌈n / log n⌉``);
* standardisation and whitening of the kept predictors;
* the response transform the local fits work on: the response itself for the mean-subspace
  methods; for the central-subspace methods the indicators ``1(y < q_l)`` at response
  quantiles, reduced to the principal components that carry 99% of their variance.

Weights, where given, are frequency weights: with integer weights every sum, mean and
quantile equals the one of the sample with rows repeated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CENTRAL_SUBSPACE = ("csmave", "csopg")
MEAN_SUBSPACE = ("meanmave", "meanopg")
VARIANTS = ("csmave", "csopg", "meanmave", "meanopg", "ksir")

#: Share of the indicator variance kept by the principal components of the response transform.
VARIANCE_KEPT = 0.99


def default_screen(n: int) -> int:
    """R ``MAVE``'s default number of predictors kept by screening, ``⌈n / log n⌉``.

    Examples
    --------
    >>> default_screen(120)
    26
    """
    return max(1, int(np.ceil(n / np.log(n))))


def _unit_weights(n: int, w: np.ndarray | None) -> np.ndarray:
    return np.ones(n) if w is None else np.asarray(w, dtype=float)


def _distances(M: np.ndarray, rows: slice) -> np.ndarray:
    """Euclidean distances from the rows ``rows`` of ``M`` to all its rows."""
    sq = np.sum(M[rows] ** 2, 1)[:, None] + np.sum(M**2, 1)[None, :] - 2.0 * M[rows] @ M.T
    return np.sqrt(np.maximum(sq, 0.0))


def _row_blocks(n: int) -> list[slice]:
    size = max(1, int(2e6 // max(n, 1)))
    return [slice(s, min(s + size, n)) for s in range(0, n, size)]


def _distance_means(M: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    """Weighted row means and grand mean of the distance matrix of the rows of ``M``."""
    means = np.concatenate([_distances(M, rows) @ w for rows in _row_blocks(len(M))]) / w.sum()
    return means, float(w @ means) / w.sum()


def _centred(M: np.ndarray, rows: slice, means: np.ndarray, grand: float) -> np.ndarray:
    return _distances(M, rows) - means[rows, None] - means[None, :] + grand


def screening_utility(
    X: np.ndarray, Y: np.ndarray, categorical: bool, w: np.ndarray | None = None
) -> np.ndarray:
    """Distance correlation of each predictor with the response (R ``MAVE``'s screening).

    ``dcor(x_k, y) = sqrt(dCov²(x_k, y) / sqrt(dCov²(x_k, x_k) dCov²(y, y)))`` with the
    double-centred Euclidean distance matrices of Székely, Rizzo & Bakirov (2007); the
    predictors with the largest values are kept (Li, Zhong & Zhu 2012, DC-SIS). A multivariate
    response enters through distances between its rows; class labels through their indicator
    vectors. Distance correlation detects any kind of dependence, so predictors that act only
    through the variance are kept too. Memory is ``O(n)`` per row block; time ``O(p n²)``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 3))
    >>> y = X[:, 1] ** 2 + 0.1 * rng.standard_normal(60)
    >>> int(np.argmax(screening_utility(X, y, False)))
    1
    """
    n = X.shape[0]
    w = _unit_weights(n, w)
    if categorical:
        codes = Y.astype(np.int64).ravel()
        Ymat = (codes[:, None] == np.unique(codes)[None, :]).astype(float)
    else:
        Ymat = Y.reshape(n, -1).astype(float)
    blocks = _row_blocks(n)
    y_means, y_grand = _distance_means(Ymat, w)
    dyy = sum(float(w[r] @ _centred(Ymat, r, y_means, y_grand) ** 2 @ w) for r in blocks)
    utility = np.zeros(X.shape[1])
    for k in range(X.shape[1]):
        col = X[:, k : k + 1]
        x_means, x_grand = _distance_means(col, w)
        dxy = dxx = 0.0
        for r in blocks:
            A = _centred(col, r, x_means, x_grand)
            dxy += float(w[r] @ (A * _centred(Ymat, r, y_means, y_grand)) @ w)
            dxx += float(w[r] @ A**2 @ w)
        if dxx * dyy > 0:
            utility[k] = np.sqrt(max(dxy, 0.0) / np.sqrt(dxx * dyy))
    return utility


@dataclass
class Whitened:
    """``Z = ((X − x̄)/s) Σ_s^{-1/2}``; ``back`` maps a ``Z``-scale basis to the ``X`` scale."""

    Z: np.ndarray
    mean: np.ndarray
    back: np.ndarray


def whiten(X: np.ndarray, w: np.ndarray | None, method: str) -> Whitened:
    """Standardise (sd with divisor ``n − 1``, as R's ``scale``) and whiten the predictors.

    The covariance of the standardised predictors (divisor ``n``) gets ``I/n⁵`` added before
    its symmetric inverse square root, as in R ``MAVE``. A singular covariance is an error.
    """
    n = X.shape[0]
    w = _unit_weights(n, w)
    total = w.sum()
    mean = w @ X / total
    Xc = X - mean
    sd = np.sqrt(w @ Xc**2 / (total - 1.0))
    if np.any(sd == 0):
        raise ValueError(f"A predictor of {method} is constant; remove constant predictors.")
    Xs = Xc / sd
    Xs = Xs - w @ Xs / total
    cov = (Xs * w[:, None]).T @ Xs / total
    values, vectors = np.linalg.eigh(cov)
    if values[0] <= 1e-10 * max(values[-1], 1e-300):
        raise ValueError(
            f"The predictors of {method} are collinear (their covariance matrix is singular); "
            "remove predictors that are linear combinations of others or constant."
        )
    values, vectors = np.linalg.eigh(cov + np.eye(cov.shape[0]) / total**5)
    root = vectors @ np.diag(values**-0.5) @ vectors.T
    return Whitened(Xs @ root, mean, np.diag(1.0 / sd) @ root)


def weighted_quantiles(values: np.ndarray, w: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Piecewise-linear quantiles with plotting positions ``(k − ½)/n`` (R's type 5).

    This is MATLAB's ``quantile``, which R ``MAVE``'s compiled code uses: the quantile at
    ``p`` sits at position ``p n + ½`` of the sorted sample, clamped to its ends. Weights
    count as repeated rows: position ``t`` of the expanded sample is the value whose block of
    cumulative weight contains ``t``.

    Examples
    --------
    >>> weighted_quantiles(np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4), np.array([0.5, 0.1]))
    array([2.5, 1. ])
    >>> weighted_quantiles(np.array([1.0, 2.0]), np.array([3.0, 1.0]), np.array([0.5]))
    array([1.])
    """
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    cumulative = np.cumsum(w[order])
    total = cumulative[-1]

    def at(position: np.ndarray) -> np.ndarray:
        index = np.searchsorted(cumulative, position - 1e-9 * total, side="left")
        return sorted_values[np.minimum(index, len(values) - 1)]

    r = np.asarray(probs, dtype=float) * total
    lower = np.floor(r + 0.5)  # MATLAB's round (half away from zero) of a positive number
    frac = r - lower
    inside = (lower >= 1) & (lower < total)
    out = np.where(lower < 1, sorted_values[0], sorted_values[-1]).astype(float)
    low = at(np.maximum(lower, 1.0))
    high = at(np.minimum(lower + 1.0, total))
    mixed = (0.5 - frac) * low + (0.5 + frac) * high
    out[inside] = mixed[inside]
    return out


def default_y_points(n: int) -> int:
    """R ``MAVE``'s number of response quantiles: ``max(min(99, n), ⌊n^0.6⌋)``.

    Examples
    --------
    >>> default_y_points(500), default_y_points(5000)
    (99, 165)
    """
    return max(min(99, n), int(np.floor(n**0.6)))


@dataclass
class Targets:
    """What the local fits regress (``T``) and what the CV of ``d`` predicts (``cv_targets``).

    ``T`` (n, r) holds the response columns (mean subspace) or the principal-component scores
    of the centred indicators (central subspace, classes); ``cv_targets`` is the response as
    given or the indicator matrix projected on those components (R ``MAVE``'s ``ky``).
    """

    T: np.ndarray
    cv_targets: np.ndarray
    kind: str
    y_points: int | None = None
    components: int | None = None
    y_bandwidth: float | None = None
    y_std: np.ndarray | None = None


def _principal_scores(KY: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores on the components carrying 99% of ``KY``'s variance, and their projection."""
    C = (KY * w[:, None]).T @ KY
    C[np.abs(C) < 1e-16] = 1e-16  # as R MAVE: its compiled eigen-solver reads 0 as Inf
    values, vectors = np.linalg.eigh((C + C.T) / 2.0)
    order = np.argsort(-np.abs(values), kind="stable")
    values, vectors = np.abs(values[order]), vectors[:, order]
    share = np.cumsum(values) / values.sum()
    kept = int(np.argmax(share >= VARIANCE_KEPT)) + 1
    scores = KY @ vectors[:, :kept]
    return scores, scores @ vectors[:, :kept].T


def indicator_transform(y: np.ndarray, w: np.ndarray, y_points: int) -> np.ndarray:
    """Centred indicators ``1(y < q_l)`` at the distinct quantiles ``q_l = F̂⁻¹(l/(L+1))``.

    Next to them, the same columns with their row means removed (and centred again): R
    ``MAVE``'s two blocks, whose principal components the central-subspace fits regress.
    """
    total = w.sum()
    grid = np.unique(weighted_quantiles(y, w, np.arange(1, y_points + 1) / (y_points + 1)))
    ky = (y[:, None] < grid[None, :]).astype(float)
    ky -= w @ ky / total
    rows = ky - ky.mean(axis=1, keepdims=True)
    rows -= w @ rows / total
    return np.concatenate([ky, rows], axis=1)


Y_TRANSFORMS = ("indicator", "kernel")
#: Number of response quantiles of the kernel transform unless ``y_points`` is given.
KERNEL_Y_POINTS = 10


def kernel_transform(y: np.ndarray, w: np.ndarray, y_points: int, b: float) -> np.ndarray:
    """Gaussian kernels ``φ((y_i − t_l)/b)`` of the standardised response at its quantiles
    ``t_l = F̂⁻¹((l − ½)/L)`` (Xia 2007's ``H_b(Y − y)``, whose conditional mean given ``X`` is
    the smoothed conditional density)."""
    total = w.sum()
    mean = w @ y / total
    ys = (y - mean) / np.sqrt(w @ (y - mean) ** 2 / total)
    m = min(len(y), y_points)
    grid = weighted_quantiles(ys, w, (np.arange(m) + 0.5) / m)
    return np.exp(-0.5 * ((ys[:, None] - grid[None, :]) / b) ** 2)


def make_targets(
    Y: np.ndarray,
    variant: str,
    categorical: bool,
    *,
    y_points: int | None,
    y_bandwidth: float | None,
    w: np.ndarray | None,
    y_transform: str = "indicator",
) -> Targets:
    """Targets of the local fits, as R ``MAVE`` builds them.

    * mean-subspace methods: the response columns as given (R does not standardise them);
    * central-subspace methods: for each response column the centred indicators of
      :func:`indicator_transform` at ``L = y_points`` quantiles (default
      :func:`default_y_points`), side by side, then their principal components up to 99% of
      the variance — ``E[1(Y < q) | X]`` over many ``q`` is the conditional distribution
      function, which depends on ``X`` through the central subspace only (Xia 2007);
    * with ``y_transform="kernel"`` the central-subspace methods use the Gaussian kernels of
      :func:`kernel_transform` instead (``y_points`` default 10, bandwidth ``y_bandwidth``,
      default ``1.06 n^{-1/5}``), and their CV predicts those columns;
    * class labels (any variant): the centred class indicators, reduced the same way;
    * kernel SIR: the standardised response (its kernel runs on it directly); its CV uses the
      central-subspace transform, as R's ``mave.dim`` does.
    """
    n = Y.shape[0]
    wt = _unit_weights(n, w)
    total = wt.sum()
    if categorical:
        codes = Y.astype(np.int64).ravel()
        KY = (codes[:, None] == np.unique(codes)[None, :]).astype(float)
        KY -= wt @ KY / total
        scores, projected = _principal_scores(KY, wt)
        return Targets(scores, projected, "classes", components=scores.shape[1])
    Ycols = Y.reshape(n, -1).astype(float)
    if variant in MEAN_SUBSPACE:
        return Targets(Ycols, Ycols, "response")
    if variant in CENTRAL_SUBSPACE and y_transform == "kernel":
        b = y_bandwidth if y_bandwidth is not None else 1.06 * total ** (-1 / 5)
        L = KERNEL_Y_POINTS if y_points is None else int(y_points)
        T = np.concatenate([kernel_transform(col, wt, L, b) for col in Ycols.T], axis=1)
        return Targets(T, T, "y-kernel", min(n, L), None, b)
    L = default_y_points(int(round(total))) if y_points is None else int(y_points)
    KY = np.concatenate([indicator_transform(col, wt, L) for col in Ycols.T], axis=1)
    scores, projected = _principal_scores(KY, wt)
    if variant in CENTRAL_SUBSPACE:
        return Targets(scores, projected, "y-indicators", L, scores.shape[1])
    # kernel SIR
    mean = wt @ Ycols / total
    sd = np.sqrt(wt @ (Ycols - mean) ** 2 / total)
    Ys = (Ycols - mean) / np.where(sd > 0, sd, 1.0)
    b = y_bandwidth if y_bandwidth is not None else 1.06 * n ** (-1 / (Ys.shape[1] + 4))
    return Targets(Ys, projected, "response", L, scores.shape[1], b, Ys)


__all__ = [
    "CENTRAL_SUBSPACE",
    "MEAN_SUBSPACE",
    "VARIANTS",
    "VARIANCE_KEPT",
    "default_screen",
    "default_y_points",
    "screening_utility",
    "weighted_quantiles",
    "indicator_transform",
    "kernel_transform",
    "KERNEL_Y_POINTS",
    "Y_TRANSFORMS",
    "Whitened",
    "whiten",
    "Targets",
    "make_targets",
]
