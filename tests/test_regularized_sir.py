"""Regularized SIR (Ferré & Yao 2003): statsmodels' objective and search, the chart gradient,
SIR as its penalty-free case, smooth directions on curves, and its errors."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from gradients import numeric_gradient

import sdrstats as sdr
from sdrstats.moment.regularized_sir import _criterion, penalty_matrix_for
from sdrstats.stats.distances import subspace_distance

sm_dimred = pytest.importorskip("statsmodels.regression.dimred")


def _curves(rng, n=200, p=6):
    """Random-walk curves; y depends on two smooth functionals (n a multiple of 10 and no
    ties, so R's slicing and statsmodels' equal-count slicing agree)."""
    X = np.cumsum(rng.standard_normal((n, p)), axis=1)
    t = np.linspace(0, 1, p)
    b1, b2 = np.sin(np.pi * t), np.cos(np.pi * t)
    y = X @ b1 + 0.5 * (X @ b2) ** 2 / p + 0.3 * rng.standard_normal(n)
    return X, y, np.column_stack([b1, b2])


def _statsmodels(X, y, d, penalty, start=None, maxiter=0, gtol=1e-7):
    model = sm_dimred.SlicedInverseReg(y, X.copy())
    P = np.sqrt(penalty) * penalty_matrix_for("second_difference", X.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = model.fit_regularized(
            ndim=d, pen_mat=P, slice_n=20, maxiter=maxiter, gtol=gtol, start_params=start
        )
    return model, found


@pytest.mark.parametrize("penalty", [0.0, 0.1, 1.0])
def test_one_direction_equals_statsmodels(penalty):
    X, y, _ = _curves(np.random.default_rng(2))
    fit = sdr.RegularizedSIR(d=1, penalty=penalty, nslices=10).fit(X, y)
    assert fit.slice_sizes.tolist() == [20] * 10
    A = fit.output.basis / np.linalg.norm(fit.output.basis)
    model, _ = _statsmodels(X, y, 1, penalty, start=A)
    assert model._regularized_objective(A.ravel()) == pytest.approx(fit.criterion, rel=1e-10)
    model, theirs = _statsmodels(X, y, 1, penalty, maxiter=3000)
    assert subspace_distance(fit.output.basis, theirs.params) < 1e-4
    assert model._regularized_objective(theirs.params.ravel()) >= fit.criterion - 1e-10


@pytest.mark.parametrize("penalty", [0.1, 1.0])
def test_two_directions_agree_with_statsmodels_objective_and_gradient(penalty):
    """For d = 2 statsmodels' own search leaves the manifold (it projects the gradient as
    one flattened vector), so only its objective and gradient are compared here."""
    X, y, _ = _curves(np.random.default_rng(2))
    fit = sdr.RegularizedSIR(d=2, penalty=penalty, nslices=10).fit(X, y)
    A = np.linalg.qr(fit.output.basis)[0]
    model, _ = _statsmodels(X, y, 2, penalty, start=A)
    assert model._regularized_objective(A.ravel()) == pytest.approx(fit.criterion, rel=1e-10)
    grad = model._regularized_grad(A.ravel()).reshape(A.shape)
    tangent = grad - A @ (A.T @ grad)
    assert np.abs(tangent).max() < 1e-6
    _, theirs = _statsmodels(X, y, 2, penalty, maxiter=300)
    ortho = np.linalg.qr(theirs.params)[0]
    assert model._regularized_objective(ortho.ravel()) >= fit.criterion - 1e-10


def test_chart_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)
    p, k = 6, 2
    C = rng.standard_normal((p, p))
    cov = C @ C.T + np.eye(p)
    means = rng.standard_normal((4, p))
    M = means.T @ means / 4
    K = (
        0.3
        * penalty_matrix_for("second_difference", p).T
        @ penalty_matrix_for("second_difference", p)
    )
    A0 = np.linalg.qr(rng.standard_normal((p, k)))[0]
    criterion = _criterion(cov, M, K)
    B = A0 + 0.3 * rng.standard_normal((p, k))  # any basis, not only orthonormal ones
    np.testing.assert_allclose(criterion(B)[1], numeric_gradient(criterion, B), atol=1e-7)
    # a function of the span only
    assert criterion(B @ np.array([[2.0, 1.0], [0.5, 3.0]]))[0] == pytest.approx(criterion(B)[0])


def test_without_a_penalty_it_is_the_closed_form_and_near_sir():
    """Penalty 0: the minimiser is Σ⁻¹ U (U the slice means' leading eigenvectors), an
    estimate of SIR's target that is close to SIR's span on the ais data."""
    ais = sdr.datasets.load("ais")
    formula = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"
    sir = sdr.sir(formula, ais, nslices=8, d=2)
    reg = sdr.regularized_sir(formula, ais, penalty=0.0, nslices=8, d=2)
    X = reg.spec.X
    Xc = X - X.mean(axis=0)
    cov = Xc.T @ Xc / (len(X) - 1)
    labels = np.repeat(np.arange(8), reg.slice_sizes)[
        np.argsort(np.argsort(reg.spec.Y.ravel(), kind="stable"))
    ]
    means = np.array([Xc[labels == s].mean(axis=0) for s in range(8)])
    M = (means * (reg.slice_sizes / len(X))[:, None]).T @ means
    U = np.linalg.eigh(M)[1][:, ::-1][:, :2]
    assert subspace_distance(reg.output.basis, np.linalg.solve(cov, U)) < 1e-6
    assert subspace_distance(sir.output.basis[:, :1], reg.output.basis[:, :1]) < 0.05


def test_the_penalty_recovers_a_smooth_direction_better_than_sir():
    """Curves with p = 40 at n = 120: SIR's direction is rough, the second-difference
    penalty's is close to the smooth truth (ten data sets, every one)."""
    rng = np.random.default_rng(7)
    t = np.linspace(0, 1, 40)
    beta = np.sin(np.pi * t)
    gains = []
    for _ in range(10):
        X = np.cumsum(rng.standard_normal((120, 40)), axis=1) / 4
        y = np.exp(0.5 * X @ beta / 4) + 0.3 * rng.standard_normal(120)
        sir = sdr.SIR(d=1).fit(X, y)
        reg = sdr.RegularizedSIR(d=1, penalty=0.5).fit(X, y)
        gains.append(
            subspace_distance(sir.output.basis[:, :1], beta[:, None])
            - subspace_distance(reg.output.basis, beta[:, None])
        )
    assert min(gains) > 0


def test_default_d_rule_weights_and_bootstrap():
    X, y, _ = _curves(np.random.default_rng(3))
    frame = pd.DataFrame(X, columns=[f"t{j}" for j in range(6)]).assign(y=y)
    fit = sdr.regularized_sir("y ~ .", frame, penalty=0.1, random_state=0)
    assert fit.d_rule == "cv" and 1 <= fit.d <= 4
    assert "(chosen by" in str(fit.summary())
    boot = fit.bootstrap(B=5)
    assert np.all(np.isfinite(np.asarray(boot.distances)))
    # frequency weights: zero weights drop rows, equal weights change nothing
    est = sdr.RegularizedSIR(d=1, penalty=0.1, nslices=10)
    keep = np.random.default_rng(4).random(len(y)) < 0.5
    dropped = est.fit_output(fit.spec, weights=keep.astype(float))
    subset = est.fit(X[keep], y[keep]).output
    assert subspace_distance(dropped.basis, subset.basis) < 1e-8
    doubled = est.fit_output(fit.spec, weights=np.full(len(y), 2.0))
    assert subspace_distance(doubled.basis, est.fit(X, y).output.basis) < 1e-8


def test_errors_name_the_option():
    X, y, _ = _curves(np.random.default_rng(6), n=60, p=5)
    with pytest.raises(ValueError, match="one column per predictor"):
        sdr.RegularizedSIR(d=1, penalty_matrix=np.eye(3)).fit(X, y)
    with pytest.raises(ValueError, match="must be below p = 5"):
        sdr.RegularizedSIR(d=5).fit(X, y)
    with pytest.raises(ValueError, match="'penalty_matrix' parameter"):
        sdr.RegularizedSIR(penalty_matrix="smooth")
    with pytest.raises(TypeError, match="did you mean 'penalty'"):
        sdr.RegularizedSIR(penalti=1.0)
