"""The blocked moment kernels against their dense definitions (to rounding).

Each kernel reads its rows by blocks and rearranges the arithmetic (rows gathered by sign,
sums taken from an augmented cross-product, ...); these tests check each against the
one-line NumPy formula it computes, on data with a large mean, mixed signs, zero weights and
a partial last block.
"""

import numpy as np
import pytest

import sdrstats as sdr
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


# -- the predictors' check taken from the first pass's moments (fit(X, y) of SIR, SAVE, DR,
# pHd and CUME): the same fits, drops and errors as the array front's own scan


METHODS = [sdr.SIR, sdr.SAVE, sdr.DirectionalRegression, sdr.PHD, sdr.CUME]


@pytest.fixture
def small():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 4)) + 2.0
    y = X[:, 0] + X[:, 1] ** 2 / 4 + 0.3 * rng.standard_normal(400)
    return X, y


def _scanned(method, monkeypatch):
    """The method with the array front's scan (the check not deferred)."""
    monkeypatch.setattr(method, "checks_rows_in_pass", False)
    return method


@pytest.mark.parametrize("method", METHODS)
def test_deferred_check_gives_the_same_fit(method, small, monkeypatch):
    X, y = small
    assert method.checks_rows_in_pass
    fit = method(d=2).fit(X, y)
    assert fit.spec.x_checked
    reference = _scanned(method, monkeypatch)(d=2).fit(X, y)
    assert np.array_equal(fit.directions.to_numpy(), reference.directions.to_numpy())


@pytest.mark.parametrize("method", METHODS)
def test_deferred_check_drops_rows_with_missing_values(method, small):
    X, y = small
    X = X.copy()
    X[5, 2] = np.nan
    with pytest.warns(sdr.MissingValueWarning, match="Dropped 1 of 400"):
        fit = method(d=2).fit(X, y)
    assert fit.n == 399
    keep = np.ones(400, dtype=bool)
    keep[5] = False
    clean = method(d=2).fit(X[keep], y[keep])
    assert np.allclose(fit.directions.to_numpy(), clean.directions.to_numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_deferred_check_names_the_infinite_value(method, small):
    X, y = small
    X = X.copy()
    X[9, 1] = -np.inf
    with pytest.raises(ValueError, match=r"column 'x2' has 1 infinite .*row position 9"):
        method(d=2).fit(X, y)


def test_deferred_check_refuses_huge_values_and_keeps_the_row_count_error(small):
    X, y = small
    X = X.copy()
    X[:, 3] *= 1e120
    with pytest.raises(ValueError, match="'x4' has values of magnitude"):
        sdr.PHD(d=1).fit(X, y)
    # too few rows once a missing row is dropped: the count after the drop
    few = np.vstack([small[0][:4], np.full((1, 4), np.nan)])
    with pytest.warns(sdr.MissingValueWarning), pytest.raises(ValueError, match="n = 4"):
        sdr.SIR(d=1).fit(few, y[:5])


def test_rows_in_memory_scans_for_an_accumulator_without_moments():
    from sdrstats.scale.rows import RowsInMemory, RowsNotChecked

    class Count:
        n = 0

        def update(self, X, y):
            self.n += len(X)
            return self

    X = np.ones((3, 2))
    X[1, 0] = np.nan
    with pytest.raises(RowsNotChecked):
        RowsInMemory(X, np.zeros(3), x_names=["a", "b"], checked=False).reduce(Count())
    assert RowsInMemory(X, np.zeros(3), x_names=["a", "b"]).reduce(Count()).n == 3
