"""CORE (Cook & Forzani 2008): statsmodels' numbers, the likelihood-ratio test's null
distribution, the chart gradient, the choice of d, and its errors."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from gradients import numeric_gradient

import sdrstats as sdr
from sdrstats.moment.covariance_reduction import _criterion, class_covariances
from sdrstats.stats.distances import subspace_distance

sm_dimred = pytest.importorskip("statsmodels.regression.dimred")


def _classes(rng, h, p, d, n_per, spread=None):
    """``h`` classes whose covariances differ in the span of ``A[:, :d]`` (A mixes axes)."""
    g = np.repeat(np.arange(h), n_per)
    X = rng.standard_normal((n_per * h, p))
    scales = rng.uniform(0.4, 2.5, size=(h, d)) if spread is None else spread
    X[:, :d] *= np.asarray(scales)[g]
    A = rng.standard_normal((p, p))
    return X @ A, g, np.linalg.inv(A)[:, :d]


@pytest.mark.parametrize(
    ("h", "p", "d", "own_start"), [(3, 5, 2, True), (2, 4, 1, True), (4, 6, 2, False)]
)
def test_equals_statsmodels(h, p, d, own_start):
    rng = np.random.default_rng(h * 10 + p)
    X, g, _ = _classes(rng, h, p, d, 150)
    fit = sdr.CORE(d=d).fit(X, g.astype(str))
    ours = fit.output.basis
    model = sm_dimred.CovarianceReduction(g, X.copy(), d)
    # the same log-likelihood at our estimate, and our estimate is its stationary point
    assert model.loglike(ours.ravel()) == pytest.approx(fit.criterion, rel=1e-12, abs=1e-10)
    orthonormal = np.linalg.qr(ours)[0]
    score = model.score(orthonormal.ravel()).reshape(p, d)
    tangent = score - orthonormal @ (orthonormal.T @ score)
    assert np.abs(tangent).max() < 1e-5 * len(g)
    if own_start:
        # statsmodels' own steepest-descent search, from its own start, reaches the same
        # subspace (at h = 4, p = 6 it needs more than 20,000 steps: 35 s, so not there)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = model.fit(maxiter=20000, gtol=1e-4)
        assert subspace_distance(ours, theirs.params) < 2e-4
        assert fit.criterion >= theirs.llf - 1e-8


def test_chart_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    X, g, _ = _classes(rng, 3, 5, 2, 60)
    sizes, covs, _ = class_covariances(X, g, None)
    f = sizes / sizes.sum()
    pooled = np.einsum("g,gpq->pq", f, covs)
    values, vectors = np.linalg.eigh(pooled)
    root = (vectors / np.sqrt(values)) @ vectors.T
    T = np.einsum("pq,gqr,rs->gps", root, covs, root)
    beta0 = np.linalg.qr(rng.standard_normal((5, 2)))[0]
    criterion = _criterion(T, f)
    B = beta0 + 0.3 * rng.standard_normal((5, 2))  # any basis, not only orthonormal ones
    np.testing.assert_allclose(criterion(B)[1], numeric_gradient(criterion, B), atol=1e-7)
    # a function of the span only
    assert criterion(B @ np.array([[2.0, 1.0], [0.5, 3.0]]))[0] == pytest.approx(criterion(B)[0])


def test_class_covariances_with_weights_repeat_rows():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, 3))
    g = np.repeat([0, 1], 20)
    w = rng.integers(1, 4, size=40)
    sizes_w, covs_w, mean_w = class_covariances(X, g, w.astype(float))
    rows = np.repeat(np.arange(40), w)
    sizes_r, covs_r, mean_r = class_covariances(X[rows], g[rows], None)
    np.testing.assert_allclose(sizes_w, sizes_r)
    np.testing.assert_allclose(covs_w, covs_r, atol=1e-12)
    np.testing.assert_allclose(mean_w, mean_r, atol=1e-12)


def test_likelihood_ratio_statistic_is_chi2_with_the_stated_df():
    """Under d = 1 the statistic of '1D' has mean df = (h-1)(p(p+1) - 2)/2 - (p-1) = 15 and
    variance 2 df (h = 3, p = 4): a wrong count of parameters would shift the mean by 3+."""
    rng = np.random.default_rng(11)
    stats = []
    for r in range(120):
        g = np.repeat(np.arange(3), 300)
        X = rng.standard_normal((900, 4))
        X[:, 0] *= np.array([0.6, 1.0, 1.6])[g]
        fit = sdr.CORE(d=1, d_max=1, random_state=r).fit(X, g.astype(str))
        table = fit.test_dimension().table
        assert table["df"].tolist() == [20, 15]
        stats.append(table["stat"].iloc[1])
    stats = np.asarray(stats)
    # the mean's standard error is sqrt(30 / 120) = 0.5
    assert abs(stats.mean() - 15) < 1.6
    assert 0.02 <= np.mean(stats > 24.996) <= 0.10  # the chi2(15) 95% point


def test_default_rule_chooses_the_true_dimension():
    rng = np.random.default_rng(8)
    X, g, truth = _classes(rng, 3, 5, 2, 400, spread=[[0.5, 1.8], [1.0, 1.0], [2.0, 0.6]])
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 6)]).assign(
        g=np.array(["a", "b", "c"])[g]
    )
    fit = sdr.core("g ~ .", frame, random_state=1)
    assert fit.d == 2 and fit.d_rule == "asymptotic"
    assert subspace_distance(fit.output.basis, truth) < 0.1
    assert fit.transform(frame).shape == (1200, 2)
    text = str(fit.summary())
    assert "Class Sizes:\na: 400  b: 400  c: 400" in text
    assert "d = 2 (chosen by" in text
    assert fit.loglik.iloc[-1] >= fit.loglik.iloc[2] >= fit.loglik.iloc[1] >= 0


def test_a_given_d_keeps_the_test_and_the_result_is_frozen():
    rng = np.random.default_rng(9)
    X, g, _ = _classes(rng, 2, 4, 1, 200)
    est = sdr.CORE(d=1, d_max=3)
    fit = est.fit(X, g.astype(str))
    before = fit.test_dimension().table.copy()
    est.set_params(d_max=1)
    pd.testing.assert_frame_equal(fit.test_dimension().table, before)
    assert len(before) == 4 and fit.d == 1


def test_bootstrap_refits():
    rng = np.random.default_rng(10)
    X, g, _ = _classes(rng, 2, 3, 1, 150)
    fit = sdr.CORE(d=1, random_state=0).fit(X, g.astype(str))
    boot = fit.bootstrap(B=8)
    assert np.all(np.isfinite(np.asarray(boot.distances)))


def test_errors_name_the_problem():
    rng = np.random.default_rng(12)
    X = rng.standard_normal((30, 4))
    with pytest.raises(ValueError, match="more rows than predictors"):
        sdr.CORE(d=1).fit(X, np.array(["a"] * 27 + ["b"] * 3))
    with pytest.raises(ValueError, match="categorical response"):
        sdr.core("y ~ .", pd.DataFrame(X, columns=list("abcd")).assign(y=rng.standard_normal(30)))
    with pytest.raises(ValueError, match="at most p = 4"):
        sdr.CORE(d=5).fit(X, np.repeat(["a", "b"], 15))
    with pytest.raises(TypeError, match="did you mean 'd_max'"):
        sdr.core("y ~ .", pd.DataFrame(X, columns=list("abcd")).assign(y="a"), dmax=2)
