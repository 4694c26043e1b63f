"""The shortcuts of the density's bandwidth and width searches give the numbers of the direct
computations: the search's kernels those of the plain kernel, the rotated search the answer
of a full search on the axes it keeps, the cached distances the Gaussian kernels."""

from __future__ import annotations

import numpy as np
import pytest

from sdrstats.stats import local_linear as ll
from sdrstats.stats.gaussian import (
    BasisProblem,
    WidthScores,
    choose_centres,
    gaussian_kernel,
    make_folds,
    squared_distances,
)


def _rows(n: int = 300, d: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    t = np.log(np.abs((0.3 + np.abs(Z[:, 1])) * rng.standard_normal(n)))
    return Z, t


@pytest.mark.parametrize(
    "h",
    [np.full(4, 0.2), np.full(4, 0.7), np.full(4, 3.0), np.array([0.3, 0.5, np.inf, 2.0])],
)
@pytest.mark.parametrize("need", [0, 20, 50])
def test_the_search_kernels_are_the_plain_kernels(h, need):
    Z, _ = _rows()
    rows = np.arange(0, len(Z), 3)
    d = Z.shape[1]
    sq = np.empty((d + 1, len(rows), len(Z)), np.float32)
    np.square(Z[rows].T[:, :, None] - Z.T[:, None, :], out=sq[:d])
    sq[:d].sum(axis=0, out=sq[d])
    kernels = ll._LooKernels(sq, need, d)
    for _ in range(2):  # the second call reads what the first kept
        fast = kernels(h).copy()
        plain = ll._kernel(Z[rows], Z, h, need)
        np.testing.assert_allclose(fast, plain, rtol=2e-5, atol=1e-30)


def test_the_rotated_search_ends_where_a_full_search_on_its_axes_ends():
    Z, t = _rows(seed=1)
    resid = np.exp(t)[:, None]
    smooth = ll.LocalLinear(Z, t, noisy=True, rotate=True, scale_of=resid)
    R = smooth.rotation[0]
    n = len(Z)
    rows = np.unique(np.linspace(0, n - 1, min(n, ll.NOISY_CV_ROWS)).round().astype(int))
    full, _ = ll.choose_bandwidths(
        Z @ R, t, ll.LL_BANDWIDTHS, rows, smooth.min_points, 2, scale_of=resid[:, 0]
    )
    np.testing.assert_array_equal(smooth.bandwidth[0], full)


def test_cached_distances_give_the_gaussian_kernels_exactly():
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((120, 3)), rng.standard_normal((120, 1))
    problem = BasisProblem(X, Y, choose_centres(120, 40, rng), "sce")
    for sigma in (0.3, 1.7):
        np.testing.assert_array_equal(
            problem.y_kernel(sigma), gaussian_kernel(Y, problem.Yc, sigma)
        )
        pair = (np.sqrt(np.pi) * sigma) ** problem.q * np.exp(
            -squared_distances(problem.Yc, problem.Yc) / (4.0 * sigma * sigma)
        )
        np.testing.assert_array_equal(problem.pair_matrix(sigma), pair / 120)
    scorer = WidthScores(problem, np.eye(3), make_folds(120, 5, rng))
    for sz in (0.5, 2.0):
        np.testing.assert_array_equal(scorer._z_side(sz)[0], gaussian_kernel(X, problem.Xc, sz))
