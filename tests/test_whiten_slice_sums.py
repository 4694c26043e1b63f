"""``whiten_slice_sums``: the whitened slice means of SIR from weighted slice sums equal the ones
computed on the (weighted) rows, for one set of sums and for a stack of them."""

from __future__ import annotations

import numpy as np
import pytest

from sdrstats.stats.moment_kernels import sir_kernel, whiten_slice_sums


def _rows(seed: int, n: int = 300, p: int = 4, h: int = 6):
    """Correlated predictors, Poisson case weights and slice labels with slice 2 empty."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) + rng.uniform(-3, 3, p)
    weights = rng.poisson(1.0, n).astype(float)
    labels = rng.integers(0, h, n)
    labels[labels == 2] = 3
    return X, weights, labels, h


def _sums(X, weights, labels, h, shift):
    """Weighted slice counts, slice sums and cross-product of ``x − shift``."""
    centred = X - shift
    indicator = np.eye(h)[labels] * weights[:, None]
    return indicator.sum(axis=0), indicator.T @ centred, (centred * weights[:, None]).T @ centred


def _from_rows(X, weights, labels, h):
    """R dr's standardisation of the rows themselves, then weighted slice means of ``z``."""
    mean = np.average(X, axis=0, weights=weights)
    cov = np.cov(X, rowvar=False, fweights=weights.astype(int), bias=True)
    scale = np.sqrt(np.diag(cov))
    chol = np.linalg.cholesky(cov / np.outer(scale, scale))
    Z = np.linalg.solve(chol, ((X - mean) / scale).T).T
    means = np.zeros((h, X.shape[1]))
    fractions = np.zeros(h)
    for s in range(h):
        w = weights[labels == s]
        if w.sum() > 0:
            means[s] = np.average(Z[labels == s], axis=0, weights=w)
            fractions[s] = w.sum() / weights.sum()
    return mean, cov, scale, chol, fractions, means


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whitened_slice_means_equal_those_of_the_whitened_rows(seed):
    X, weights, labels, h = _rows(seed)
    shift = X[:10].mean(axis=0)  # sums about a shift, as a stream keeps them
    got = whiten_slice_sums(*_sums(X, weights, labels, h, shift))
    mean, cov, scale, chol, fractions, means = _from_rows(X, weights, labels, h)
    np.testing.assert_allclose(got.total, weights.sum(), rtol=1e-14)
    np.testing.assert_allclose(got.mean + shift, mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.cov, cov, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.scale, scale, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.chol, chol, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.fractions, fractions, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.means, means, rtol=0, atol=1e-12)
    assert np.all(got.means[2] == 0.0)  # the empty slice
    np.testing.assert_allclose(
        sir_kernel(got.fractions, got.means), sir_kernel(fractions, means), rtol=0, atol=1e-12
    )


def test_a_stack_of_sums_is_whitened_one_set_at_a_time():
    parts = [_rows(seed) for seed in (3, 4, 5)]
    sets = [_sums(X, w, labels, h, np.zeros(X.shape[1])) for X, w, labels, h in parts]
    stacked = whiten_slice_sums(*(np.stack(column) for column in zip(*sets)))
    for k, one in enumerate(sets):
        alone = whiten_slice_sums(*one)
        for field, value in alone._asdict().items():
            np.testing.assert_allclose(
                getattr(stacked, field)[k], value, rtol=0, atol=1e-12, err_msg=field
            )


def test_degenerate_sums_raise():
    X, weights, labels, h = _rows(6)
    counts, sums, cross = _sums(X, weights, labels, h, np.zeros(X.shape[1]))
    with pytest.raises(ValueError, match="No rows carry weight"):
        whiten_slice_sums(counts * 0, sums * 0, cross * 0)
    X[:, 1] = 2.5
    with pytest.raises(ValueError, match="constant among the weighted rows"):
        whiten_slice_sums(*_sums(X, weights, labels, h, np.zeros(X.shape[1])))
