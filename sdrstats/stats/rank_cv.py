"""Leave-one-out rank-kernel cross-validation of reduced predictors (R ``MAVE``'s ``mave.dim``).

For each candidate ``k`` the reduced predictors ``u_i`` (n × k) are replaced by their ranks,
``r_i = (rank(u_i) − 1)/(n + 1)`` column by column (ties get the mean rank), and each row of
a transformed response ``K`` (n × c) is predicted by a leave-one-out local-constant fit

.. math:: \\hat K_i = \\frac{\\sum_{l \\ne i} k_{il} K_l}{\\sum_{l \\ne i} k_{il} + 10^{-6}},
          \\qquad k_{il} = \\Bigl(1 + \\frac{\\lVert r_i - r_l\\rVert_1}{h}\\Bigr)^{-4},
          \\qquad h = \\frac{\\overline{\\mathrm{sd}}(r)}{n^{1/(k+4)}},

with the L1 distance and ``sd`` the mean of the columns' standard deviations of the ranks;
the loss is the absolute error averaged over the columns of ``K``. ``CV(0)`` is the
leave-one-out mean's. MAVE's cross-validated dimension (:mod:`sdrstats.mave.cv`) and the
generic ``"cv"`` dimension rule (:mod:`sdrstats.inference.cv`) both use it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def one_se_choice(losses: np.ndarray) -> tuple[int, np.ndarray]:
    """The smallest candidate whose mean loss is within one paired standard error of the least.

    Parameters
    ----------
    losses : ndarray of shape (n, m)
        Per-row losses of ``m`` candidates ordered from the simplest (column 0) up.

    Returns
    -------
    index : int
        The column chosen: the first ``j`` with ``mean(L_j) - mean(L_best) <= se_j``, where
        ``best`` minimises the mean loss and ``se_j`` is the standard error of the mean of the
        row-wise differences ``L_ij - L_i,best`` (rows are shared by every candidate, so the
        comparison is paired; ``se_best = 0``).
    se : ndarray of shape (m,)
        Those standard errors.

    Notes
    -----
    The one-standard-error rule of Breiman, Friedman, Olshen & Stone (1984, section 3.4.3)
    and Hastie, Tibshirani & Friedman (2009, section 7.10): among candidates whose error
    cannot be told from the least, take the simplest.

    References
    ----------
    Breiman, L., Friedman, J. H., Olshen, R. A. & Stone, C. J. (1984). *Classification and
    Regression Trees*. Wadsworth. Hastie, T., Tibshirani, R. & Friedman, J. (2009). *The
    Elements of Statistical Learning*, 2nd ed. Springer.

    Examples
    --------
    >>> import numpy as np
    >>> losses = np.array([[1.0, 0.50, 0.40], [1.0, 0.60, 0.66], [1.0, 0.70, 0.68]])
    >>> int(np.argmin(losses.mean(axis=0))), one_se_choice(losses)[0]
    (2, 1)
    """
    losses = np.asarray(losses, dtype=float)
    n = losses.shape[0]
    mean = losses.mean(axis=0)
    best = int(np.argmin(mean))
    differences = losses - losses[:, [best]]
    se = differences.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(mean.size)
    within = np.flatnonzero(mean - mean[best] <= se)
    return int(within[0]), se


def _unit(n: int, w: np.ndarray | None) -> np.ndarray:
    return np.ones(n) if w is None else np.asarray(w, dtype=float)


def tied_ranks(values: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """Mean ranks from 0 of each column; values within ``1e-12`` of a run's first are tied.

    With weights a row counts as that many rows: the rank is the weight of the smaller values
    plus half of (the run's weight − 1).

    Examples
    --------
    >>> tied_ranks(np.array([[3.0], [1.0], [3.0], [2.0]])).ravel().tolist()
    [2.5, 0.0, 2.5, 1.0]
    """
    n, k = values.shape
    wt = _unit(n, w)
    out = np.empty((n, k))
    for c in range(k):
        col = values[:, c]
        order = np.argsort(col, kind="stable")
        sorted_col = col[order]
        # a new run starts where the value moves more than 1e-12 from the run's first value
        starts = [0]
        for j in range(1, n):
            if abs(sorted_col[j] - sorted_col[starts[-1]]) > 1e-12:
                starts.append(j)
        bounds = np.r_[starts, n]
        cum = np.r_[0.0, np.cumsum(wt[order])]
        ranks = np.empty(n)
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            ranks[lo:hi] = cum[lo] + (cum[hi] - cum[lo] - 1.0) / 2.0
        out[order, c] = ranks
    return out


def rank_cv_losses(
    reduced: np.ndarray, K: np.ndarray, w: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """Per-observation losses ``L_i(k)`` of R's criterion and its bandwidth ``h``.

    ``reduced`` (n, k) are the reduced predictors, ``K`` (n, c) the transformed response.
    Weights count as repeated rows (a row's copies stay in its leave-one-out fit).
    """
    n, k = reduced.shape
    wt = _unit(n, w)
    total = wt.sum()
    ranks = tied_ranks(reduced, w) / (total + 1.0)
    mean = wt @ ranks / total
    sd = np.sqrt(wt @ (ranks - mean) ** 2 / (total - 1.0))
    h = float(np.mean(sd)) / total ** (1.0 / (k + 4))
    losses = np.empty(n)
    size = max(1, int(4e6 // max(n * max(k, 1), 1)))
    for start in range(0, n, size):
        rows = slice(start, min(start + size, n))
        dist = np.zeros((rows.stop - start, n))
        for c in range(k):
            dist += np.abs(ranks[rows, c][:, None] - ranks[None, :, c])
        kern = (1.0 + dist / h) ** -4.0 * wt[None, :]
        own = np.arange(start, rows.stop)
        kern[own - start, own] = np.maximum(wt[own] - 1.0, 0.0)  # leave one copy out
        kern /= kern.sum(axis=1, keepdims=True) + 1e-6
        losses[rows] = np.mean(np.abs(kern @ K - K[rows]), axis=1)
    return losses, h


def null_losses(K: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """``L_i(0) = (1 + 1/n) mean_c |K_ic − K̄_c|`` (R's ``cv0``, on the centred ``K``)."""
    n = K.shape[0]
    wt = _unit(n, w)
    centred = K - wt @ K / wt.sum()
    return np.mean(np.abs(centred), axis=1) * (1.0 + 1.0 / wt.sum())


def cv_losses(
    reduced: dict[int, np.ndarray], K: np.ndarray, obs_weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-row losses ``L_i(d)`` for ``d = 0`` and every candidate, and each ``d``'s ``h``.

    Returns an ``(n, 1 + len(reduced))`` array whose columns follow ``d = 0`` and the sorted
    candidates, and their bandwidths (``nan`` for ``d = 0``). Rules that compare candidates
    row by row (a paired standard error) start from it; :func:`cv_values` averages it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> u = rng.standard_normal((30, 1))
    >>> losses, h = cv_losses({1: u}, (u > 0).astype(float), None)
    >>> losses.shape, bool(losses[:, 1].mean() < losses[:, 0].mean())
    ((30, 2), True)
    """
    columns = [null_losses(K, obs_weights)]
    bandwidths = [np.nan]
    for k in sorted(reduced):
        losses, h = rank_cv_losses(reduced[k], K, obs_weights)
        columns.append(losses)
        bandwidths.append(h)
    return np.column_stack(columns), np.asarray(bandwidths)


def cv_values(
    reduced: dict[int, np.ndarray], K: np.ndarray, obs_weights: np.ndarray | None
) -> pd.DataFrame:
    """CV table: rows ``d = 0..d_max``; columns ``cv`` and ``bandwidth`` (``h`` of each d)."""
    losses, bandwidths = cv_losses(reduced, K, obs_weights)
    wt = _unit(K.shape[0], obs_weights)
    total = wt.sum()
    cv = [float(wt @ losses[:, j]) / total for j in range(losses.shape[1])]
    index = pd.Index([0, *sorted(reduced)], name="d")
    return pd.DataFrame({"cv": cv, "bandwidth": bandwidths}, index=index)


__all__ = ["cv_losses", "cv_values", "null_losses", "one_se_choice", "rank_cv_losses", "tied_ranks"]
