"""Property tests (hypothesis) of SPCA: row-order invariance and rotation equivariance."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import special_ortho_group

import sdrstats as sdr
from sdrstats.stats.distances import projection_distance


def _data(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, 5)) * rng.uniform(0.5, 3.0, 5)
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.2 * rng.standard_normal(60)
    return X, y


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), kernel=st.sampled_from(["linear", "rbf", "identity"]))
def test_row_order_does_not_matter(seed, kernel):
    X, y = _data(seed)
    perm = np.random.default_rng(seed + 1).permutation(len(X))
    d = 1 if kernel == "linear" else 2
    a = sdr.SPCA(kernel_y=kernel, d=d).fit(X, y)
    b = sdr.SPCA(kernel_y=kernel, d=d).fit(X[perm], y[perm])
    # Same matrix up to summation order, except that the rbf kernel's incomplete Cholesky
    # factor (pivots depend on the row order) is exact only to 1e-9 per diagonal entry of L:
    # eigenvalues agree to 1e-7 relative, the subspace to 1e-6 (eigen-gaps here are >= 1e-3
    # of the largest eigenvalue).
    np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, rtol=1e-7)
    assert projection_distance(a.directions.to_numpy(), b.directions.to_numpy()) < 1e-6


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), kernel=st.sampled_from(["linear", "rbf", "identity"]))
def test_rotating_the_predictors_rotates_the_directions(seed, kernel):
    # X -> XQ gives Qᵀ XᵀHLHX Q: the same eigenvalues, directions Qᵀ U.
    X, y = _data(seed)
    Q = special_ortho_group.rvs(5, random_state=seed)
    d = 1 if kernel == "linear" else 2
    a = sdr.SPCA(kernel_y=kernel, d=d).fit(X, y)
    b = sdr.SPCA(kernel_y=kernel, d=d).fit(X @ Q, y)
    np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, rtol=1e-9)
    rotated = Q.T @ a.directions.to_numpy()
    assert projection_distance(rotated, b.directions.to_numpy()) < 1e-7
