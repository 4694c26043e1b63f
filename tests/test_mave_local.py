"""The numerical core of the MAVE family against dense, one-at-a-time references.

* batched local fits at the centres = one ridge-regularised weighted least-squares solve per
  centre (numpy lstsq on the augmented system);
* the kernel weights = their definition, with the nearest-neighbour floor of the scale;
* the centres = groups of nearest rows, each represented by the member nearest its mean;
* OPG of an exactly linear target = the outer product of its coefficients;
* the MAVE B-step = the minimiser of its ridge-regularised weighted least-squares objective;
* distance-correlation screening, tied ranks, type-5 quantiles and R's CV criterion = their
  textbook definitions, computed by explicit loops.
"""

import numpy as np
import pytest
from scipy.stats import rankdata

from sdrstats.mave.algorithms import (
    PathState,
    _local_system,
    _ridge_solve,
    kernel_weights,
    representative_points,
)
from sdrstats.mave.cv import null_losses, rank_cv_losses, tied_ranks
from sdrstats.mave.local import local_moments
from sdrstats.mave.prepare import screening_utility, weighted_quantiles


def _dense_ridge_fit(w, design, T, ridge):
    """argmin Σ_i w_i ‖T_i − design_i β‖² + ridge ‖β‖² by lstsq on the augmented system."""
    sw = np.sqrt(w)[:, None]
    A = np.vstack([design * sw, np.sqrt(ridge) * np.eye(design.shape[1])])
    b = np.vstack([T * sw, np.zeros((design.shape[1], T.shape[1]))])
    return np.linalg.lstsq(A, b, rcond=None)[0]


@pytest.mark.parametrize("with_directions", [False, True])
def test_batched_local_fits_match_dense_ridge_least_squares(with_directions):
    rng = np.random.default_rng(1)
    n, p = 40, 3
    Z = rng.standard_normal((n, p))
    T = rng.standard_normal((n, 4))
    omega = rng.uniform(0.5, 1.5, n)
    centres = np.array([0, 17, 39])
    W = kernel_weights(Z, centres, 0.9, 6, omega)
    B = np.linalg.qr(rng.standard_normal((p, 2)))[0] if with_directions else None
    A, rhs = _local_system(local_moments(W, Z, T, centres), B)
    sol = _ridge_solve(A, rhs, 1.0 / n)
    for row, j in enumerate(centres):
        local = Z - Z[j] if B is None else (Z - Z[j]) @ B
        design = np.column_stack([local, np.ones(n)])  # slopes first, intercept last (R)
        # both solve the same well-conditioned system: agreement to rounding (1e-10)
        np.testing.assert_allclose(
            sol[row], _dense_ridge_fit(W[row], design, T, 1.0 / n), atol=1e-10
        )


def test_kernel_weights_are_gaussian_with_a_nearest_neighbour_floor():
    rng = np.random.default_rng(2)
    V = rng.standard_normal((30, 2))
    centres = np.array([3, 12])
    for h in (0.05, 2.0):  # tiny h: the floor decides; large h: 2h² decides
        W = kernel_weights(V, centres, h, 4, None)
        for row, j in enumerate(centres):
            sq = np.sum((V - V[j]) ** 2, axis=1)
            scale = max(2 * h * h, np.sort(sq)[3])
            np.testing.assert_allclose(W[row], np.exp(-sq / scale), rtol=1e-12, atol=1e-14)
            assert W[row, j] == 1.0


def test_representative_points_partition_the_rows_into_nearest_groups():
    rng = np.random.default_rng(3)
    V = rng.standard_normal((53, 2))
    centres, groups = representative_points(V, 10)
    size = 53 // 10  # 5 rows per group; the 3 rows left over form a last, smaller group
    members = [g[g >= 0] for g in groups]
    flat = np.concatenate(members)
    assert len(flat) == len(set(flat)) == 53
    assert [len(m) for m in members] == [size] * 10 + [3]
    used = set()
    for centre, group in zip(centres, members, strict=True):
        remaining = np.array(sorted(set(range(53)) - used))
        first = remaining[0]  # each group starts at the first row not used yet
        dist = np.sum((V[remaining] - V[first]) ** 2, axis=1)
        np.testing.assert_array_equal(np.sort(group), np.sort(remaining[np.argsort(dist)[:size]]))
        mean = V[group].mean(axis=0)
        assert centre == group[np.argmin(np.sum((V[group] - mean) ** 2, axis=1))]
        used |= set(group.tolist())
    every, _ = representative_points(V[:9], 10)
    np.testing.assert_array_equal(every, np.arange(9))


def test_opg_of_a_linear_target_is_the_outer_product_of_its_coefficients():
    rng = np.random.default_rng(4)
    Z = rng.standard_normal((60, 4))
    coef = np.array([[1.0, 0.5], [-2.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    T = Z @ coef
    state = PathState(Z, T, None)
    U, count = state.opg_matrix(np.eye(4), 5.0, 8)
    # a local-linear fit reproduces a linear function: every slope is coef, up to the I/n
    # ridge, which shrinks it by (S2 + I/n)^{-1} S2; with h = 5 nearly every row weighs
    # ~0.8, S2 ~ 25 or more, and the shrinkage of U comes out at 1.3e-3 at most
    np.testing.assert_allclose(U / count, coef @ coef.T, rtol=3e-3, atol=3e-3)


def _mave_objective(B, Z, T, W, sol, centres, ridge):
    k = B.shape[1]
    total = ridge * np.sum(B**2)
    for row, j in enumerate(centres):
        C, a = sol[row, :k, :], sol[row, k, :]
        fitted = a[None, :] + (Z - Z[j]) @ B @ C
        total += float(np.sum(W[row][:, None] * (T - fitted) ** 2))
    return total


def test_mave_b_step_minimises_its_weighted_least_squares_objective():
    rng = np.random.default_rng(5)
    n, p, k = 35, 3, 2
    Z = rng.standard_normal((n, p))
    T = np.column_stack([np.sin(Z[:, 0]), Z[:, 1] ** 2]) + 0.1 * rng.standard_normal((n, 2))
    B0 = np.linalg.qr(rng.standard_normal((p, k)))[0]
    state = PathState(Z, T, None)
    h, neighbours = 0.9, 2 * k
    B1, _, _ = state.mave_update(B0, h, neighbours)
    centres = np.arange(n)  # n <= 100: every row is a centre
    W = kernel_weights(Z @ B0, centres, h, neighbours, None)
    A, rhs = _local_system(local_moments(W, Z, T, centres), B0)
    sol = _ridge_solve(A, rhs, 1.0 / n)
    f1 = _mave_objective(B1, Z, T, W, sol, centres, 1.0 / n)
    assert f1 <= _mave_objective(B0, Z, T, W, sol, centres, 1.0 / n)
    # central differences of a quadratic are exact up to rounding: the gradient at the
    # minimiser is zero relative to the objective's scale (step 1e-4)
    step = 1e-4
    grad = np.zeros_like(B1)
    for a in range(p):
        for c in range(k):
            E = np.zeros_like(B1)
            E[a, c] = step
            grad[a, c] = (
                _mave_objective(B1 + E, Z, T, W, sol, centres, 1.0 / n)
                - _mave_objective(B1 - E, Z, T, W, sol, centres, 1.0 / n)
            ) / (2 * step)
    assert np.max(np.abs(grad)) < 1e-6 * f1


def _dcov2(a, b):
    A = np.abs(a[:, None] - a[None, :]) if a.ndim == 1 else np.linalg.norm(a[:, None] - a, axis=2)
    B = np.abs(b[:, None] - b[None, :]) if b.ndim == 1 else np.linalg.norm(b[:, None] - b, axis=2)
    A = A - A.mean(0) - A.mean(1)[:, None] + A.mean()
    B = B - B.mean(0) - B.mean(1)[:, None] + B.mean()
    return np.mean(A * B)


def test_screening_utility_is_the_distance_correlation():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((25, 3))
    y = rng.standard_normal(25)
    expected = [
        np.sqrt(_dcov2(X[:, k], y) / np.sqrt(_dcov2(X[:, k], X[:, k]) * _dcov2(y, y)))
        for k in range(3)
    ]
    # Székely, Rizzo & Bakirov (2007) by dense double-centred matrices: rounding only
    np.testing.assert_allclose(screening_utility(X, y, False), expected, rtol=1e-10)
    codes = rng.integers(0, 3, 25)
    onehot = (codes[:, None] == np.arange(3)).astype(float)
    expected = [
        np.sqrt(
            _dcov2(X[:, k], onehot) / np.sqrt(_dcov2(X[:, k], X[:, k]) * _dcov2(onehot, onehot))
        )
        for k in range(3)
    ]
    np.testing.assert_allclose(screening_utility(X, codes, True), expected, rtol=1e-10)


def test_weighted_quantiles_are_type_five_and_weights_are_repeated_rows():
    rng = np.random.default_rng(7)
    y = rng.standard_normal(23)
    probs = np.arange(1, 40) / 40
    # numpy's "hazen" method is Hyndman & Fan's type 5 (MATLAB's quantile)
    np.testing.assert_allclose(
        weighted_quantiles(y, np.ones(23), probs),
        np.quantile(y, probs, method="hazen"),
        rtol=1e-12,
    )
    counts = rng.integers(1, 4, 23)
    np.testing.assert_allclose(
        weighted_quantiles(y, counts.astype(float), probs),
        np.quantile(np.repeat(y, counts), probs, method="hazen"),
        rtol=1e-12,
    )


def test_tied_ranks_are_mean_ranks_from_zero():
    rng = np.random.default_rng(8)
    values = np.round(rng.standard_normal((40, 2)), 1)  # many ties
    expected = np.column_stack([rankdata(values[:, c]) - 1 for c in range(2)])
    np.testing.assert_array_equal(tied_ranks(values), expected)
    counts = rng.integers(1, 3, 40)
    expanded = tied_ranks(np.repeat(values, counts, axis=0))
    first = np.r_[0, np.cumsum(counts)[:-1]]
    np.testing.assert_array_equal(tied_ranks(values, counts.astype(float)), expanded[first])


def test_rank_cv_losses_follow_their_definition_row_by_row():
    rng = np.random.default_rng(9)
    n = 30
    reduced = rng.standard_normal((n, 2))
    K = rng.standard_normal((n, 3))
    losses, h = rank_cv_losses(reduced, K)
    ranks = np.column_stack([rankdata(reduced[:, c]) - 1 for c in range(2)]) / (n + 1)
    assert h == pytest.approx(np.mean(ranks.std(axis=0, ddof=1)) / n ** (1 / 6), rel=1e-14)
    for i in (0, 13, 29):
        k = (1 + np.sum(np.abs(ranks - ranks[i]), axis=1) / h) ** -4.0
        k[i] = 0.0
        fitted = k @ K / (k.sum() + 1e-6)
        # the same sums in another order: rounding only
        assert losses[i] == pytest.approx(np.mean(np.abs(fitted - K[i])), rel=1e-12)
    centred = K - K.mean(0)
    np.testing.assert_allclose(null_losses(K), np.abs(centred).mean(1) * (1 + 1 / n), rtol=1e-14)


def test_rank_cv_with_integer_weights_equals_repeated_rows():
    rng = np.random.default_rng(10)
    n = 25
    reduced = rng.standard_normal((n, 1))
    K = rng.standard_normal((n, 2))
    counts = rng.integers(1, 3, n)
    weighted, h_w = rank_cv_losses(reduced, K, counts.astype(float))
    repeated, h_r = rank_cv_losses(np.repeat(reduced, counts, 0), np.repeat(K, counts, 0))
    first = np.r_[0, np.cumsum(counts)[:-1]]
    assert h_w == pytest.approx(h_r, rel=1e-12)
    np.testing.assert_allclose(weighted, repeated[first], rtol=1e-10)
