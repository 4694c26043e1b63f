"""The blocked moment kernels against their dense definitions (to rounding).

Each kernel reads its rows by blocks and rearranges the arithmetic (rows gathered by sign,
sums taken from an augmented cross-product, ...); these tests check each against the
one-line NumPy formula it computes, on data with a large mean, mixed signs, zero weights and
a partial last block.
"""

import numpy as np
import pytest

from sdrstats.stats import grouped


@pytest.fixture
def rows():
    rng = np.random.default_rng(11)
    n, p = 5_000, 7  # more than two blocks of SIGNED_BLOCK_ROWS, the last one partial
    X = rng.standard_normal((n, p)) * np.arange(1, p + 1) + 40.0
    y = X[:, 0] - X[:, 1] ** 2 / 50 + rng.standard_normal(n)
    return X, y


def test_signed_crossprod_matches_the_dense_product(rows):
    X, y = rows
    r = y - y.mean()
    r[::7] = 0.0  # rows of zero weight add nothing
    center = X.mean(axis=0)
    u = X - center
    expected = u.T @ (u * r[:, None])
    got = grouped.signed_crossprod(X, center, r)
    assert np.allclose(got, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    assert np.array_equal(got, got.T)


def test_signed_crossprod_subtracts_the_fitted_values_in_passing(rows):
    X, y = rows
    center = X.mean(axis=0)
    slope = np.linalg.lstsq(X - center, y - y.mean(), rcond=None)[0]
    r = y - y.mean()
    got = grouped.signed_crossprod(X, center, r, slope=slope)
    residuals = y - y.mean() - (X - center) @ slope
    assert np.allclose(r, residuals, rtol=0, atol=1e-10)  # r holds the residuals on return
    u = X - center
    expected = u.T @ (u * residuals[:, None])
    assert np.allclose(got, expected, rtol=1e-11, atol=1e-11 * np.abs(expected).max())


def test_signed_crossprod_with_one_sign_only():
    X = np.arange(12.0).reshape(6, 2)
    r = np.array([1.0, 2.0, 0.0, 3.0, 0.5, 1.5])
    for sign in (1.0, -1.0):
        got = grouped.signed_crossprod(X, np.zeros(2), sign * r)
        assert np.allclose(got, sign * (X.T @ (X * r[:, None])), rtol=1e-14)
