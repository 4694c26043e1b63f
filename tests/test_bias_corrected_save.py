"""Bias-corrected SAVE (Li & Zhu 2007): statsmodels' numbers, the bias it removes, weights,
the default rule and its errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.moment.bias_corrected_save import bias_corrected_save_kernel
from sdrstats.stats.distances import subspace_distance

sm_dimred = pytest.importorskip("statsmodels.regression.dimred")


@pytest.mark.parametrize(("n", "p", "h"), [(400, 5, 10), (300, 3, 6), (600, 8, 20)])
def test_equals_statsmodels(n, p, h):
    rng = np.random.default_rng(n + p)
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p))
    y = X[:, 0] ** 2 + np.sin(X[:, 1]) + 0.3 * rng.standard_normal(n)
    fit = sdr.BiasCorrectedSAVE(nslices=h, d=2).fit(X, y)
    assert fit.slice_sizes.tolist() == [n // h] * h
    theirs = sm_dimred.SAVE(y, X.copy(), bc=True).fit(slice_n=n // h)
    np.testing.assert_allclose(fit.output.eigenvalues, theirs.eigs, atol=1e-12)
    for k in range(1, p):
        assert subspace_distance(fit.output.basis[:, :k], theirs.params[:, :k]) < 1e-9


def test_the_correction_shrinks_the_bias_of_many_small_slices():
    """Independent y: the population kernel is zero. With 40 slices of 10 rows SAVE's
    kernel has an average diagonal of about p / 9 ≈ 0.56; the corrected one under half."""
    rng = np.random.default_rng(0)
    plain, corrected = [], []
    labels = np.repeat(np.arange(40), 10)
    for _ in range(20):
        Z = rng.standard_normal((400, 5))
        covs = np.array([np.cov(Z[labels == s].T, bias=True) for s in range(40)])
        save = np.mean([(np.eye(5) - c) @ (np.eye(5) - c) for c in covs], axis=0)
        plain.append(np.trace(save) / 5)
        corrected.append(np.trace(bias_corrected_save_kernel(Z, labels)) / 5)
    assert np.mean(plain) > 0.45
    assert abs(np.mean(corrected)) < 0.5 * np.mean(plain)


def test_unequal_slices_are_weighted_by_their_rows():
    """R's slicing of 300 rows into 8 leaves a slice of 4 rows: it must not dominate."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 4))
    y = X[:, 0] ** 2 + 0.3 * rng.standard_normal(300)
    fit = sdr.BiasCorrectedSAVE(nslices=8, d=1).fit(X, y)
    assert fit.slice_sizes.tolist() == [37] * 8 + [4]
    assert fit.output.eigenvalues[0] < 2.5
    assert subspace_distance(fit.output.basis[:, :1], np.eye(4)[:, :1]) < 0.25


def test_frequency_weights_and_the_default_rule():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 4))
    y = X[:, 0] ** 2 + 0.3 * rng.standard_normal(300)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(y=y)
    fit = sdr.bias_corrected_save("y ~ .", frame, nslices=6, random_state=1)
    assert fit.d_rule == "permutation" and fit.d == 1
    assert subspace_distance(fit.output.basis[:, :1], np.eye(4)[:, :1]) < 0.1
    est = sdr.BiasCorrectedSAVE(nslices=6, d=1)
    keep = rng.random(300) < 0.6
    dropped = est.fit_output(fit.spec, weights=keep.astype(float))
    subset = est.fit(X[keep], y[keep]).output
    np.testing.assert_allclose(dropped.eigenvalues, subset.eigenvalues, atol=1e-12)
    assert np.all(np.isfinite(np.asarray(fit.bootstrap(B=5).distances)))


def test_errors_name_the_problem():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((20, 3))
    y = rng.standard_normal(20)
    with pytest.raises(ValueError, match="at least two rows in every slice"):
        sdr.BiasCorrectedSAVE(nslices=20).fit(X, y)
    with pytest.raises(ValueError, match="at most p = 3"):
        sdr.BiasCorrectedSAVE(d=4).fit(X, y)
    with pytest.raises(TypeError, match="did you mean 'nslices'"):
        sdr.BiasCorrectedSAVE(nslice=4)
