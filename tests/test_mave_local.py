"""The numerical core of the MAVE family against dense references.

* batched local-linear fits = one weighted least-squares solve per centre (numpy lstsq);
* OPG gradients of an exactly linear target are its coefficients;
* the MAVE ``B``-step is the minimiser of its weighted least-squares objective (zero
  finite-difference gradient, lower objective than the start);
* SIRS screening utility = its defining double sum;
* leave-one-out CV residuals = explicit refits without the point.
"""

import numpy as np
import pytest

from sdrstats.mave.algorithms import _mave_step, gradient_outer
from sdrstats.mave.local import (
    kernel_block,
    leave_one_out_residuals,
    local_moments,
    outer_product_of_gradients,
    solve_local,
)
from sdrstats.mave.prepare import screening_utility


def _dense_local_fit(W, D, T, j):
    """Weighted least squares of T on (1, D - D_j) with weights W[j] (reference)."""
    design = np.column_stack([np.ones(len(D)), D - D[j]])
    sw = np.sqrt(W[j])
    coef, *_ = np.linalg.lstsq(design * sw[:, None], T * sw[:, None], rcond=None)
    return coef[0], coef[1:]


def test_batched_local_fits_match_dense_weighted_least_squares():
    rng = np.random.default_rng(1)
    D = rng.standard_normal((40, 3))
    T = rng.standard_normal((40, 4))
    W = kernel_block(D, slice(0, 40), 0.9, rng.uniform(0.5, 1.5, 40))
    intercept, slopes = solve_local(local_moments(W, D, T, slice(0, 40)), ridge=0.0)
    for j in (0, 17, 39):
        a, b = _dense_local_fit(W, D, T, j)
        # both solve the same well-conditioned 4x4 system: agreement to rounding (1e-8)
        np.testing.assert_allclose(intercept[j], a, atol=1e-8)
        np.testing.assert_allclose(slopes[j], b, atol=1e-8)


def test_kernel_block_is_the_gaussian_kernel_and_leaves_out_the_centre():
    rng = np.random.default_rng(2)
    V = rng.standard_normal((12, 2))
    W = kernel_block(V, slice(3, 7), 0.7, None, leave_out=True)
    expected = np.exp(-np.sum((V[3:7, None, :] - V[None]) ** 2, axis=2) / (2 * 0.7**2))
    expected[np.arange(4), np.arange(3, 7)] = 0.0
    np.testing.assert_allclose(W, expected, rtol=1e-12, atol=1e-14)


def test_opg_of_a_linear_target_is_the_outer_product_of_its_coefficients():
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((60, 4))
    coef = np.array([[1.0, 0.5], [-2.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    T = Z @ coef + 3.0
    M = outer_product_of_gradients(Z, T, Z, 0.8)
    # local-linear fits reproduce a linear function exactly: gradients = coef in every fit;
    # the only error is the 1e-8 relative ridge of solve_local
    np.testing.assert_allclose(M, coef @ coef.T, rtol=1e-6, atol=1e-6)


def _mave_objective(B, Z, T, W, intercept, slopes):
    total = 0.0
    for j in range(len(Z)):
        fitted = intercept[j][None, :] + (Z - Z[j]) @ B @ slopes[j]
        total += float(np.sum(W[j][:, None] * (T - fitted) ** 2))
    return total


def test_mave_b_step_minimises_its_weighted_least_squares_objective():
    rng = np.random.default_rng(4)
    n, p, k = 35, 3, 2
    Z = rng.standard_normal((n, p))
    T = np.column_stack([np.sin(Z[:, 0]), Z[:, 1] ** 2]) + 0.1 * rng.standard_normal((n, 2))
    B0, _ = np.linalg.qr(rng.standard_normal((p, k)))
    h = 0.9
    V = Z @ B0
    W = kernel_block(V, slice(0, n), h, None)
    intercept, slopes = solve_local(local_moments(W, V, T, slice(0, n)))
    B1 = _mave_step(Z, T, B0, h, None)
    f1 = _mave_objective(B1, Z, T, W, intercept, slopes)
    assert f1 <= _mave_objective(B0, Z, T, W, intercept, slopes)
    # central differences of a quadratic are exact up to rounding: the gradient at the
    # minimiser is zero relative to the objective's scale (1e-10 ridge, step 1e-4)
    step = 1e-4
    grad = np.zeros_like(B1)
    for a in range(p):
        for c in range(k):
            E = np.zeros_like(B1)
            E[a, c] = step
            grad[a, c] = (
                _mave_objective(B1 + E, Z, T, W, intercept, slopes)
                - _mave_objective(B1 - E, Z, T, W, intercept, slopes)
            ) / (2 * step)
    assert np.max(np.abs(grad)) < 1e-5 * f1


def test_gradient_outer_of_linear_target_in_the_span():
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((50, 3))
    basis = np.eye(3)[:, :2]
    T = (Z @ np.array([2.0, -1.0, 0.0]))[:, None]
    # the target is linear in the first two coordinates: every local gradient is (2, -1)
    np.testing.assert_allclose(
        gradient_outer(Z, T, basis, 0.7, None), [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-6, atol=1e-6
    )


def test_sirs_utility_matches_its_double_sum():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((25, 3))
    y = rng.standard_normal(25)
    Xs = (X - X.mean(0)) / X.std(0)
    n = len(y)
    expected = np.array(
        [np.mean([(np.sum(Xs[:, k] * (y <= y[j])) / n) ** 2 for j in range(n)]) for k in range(3)]
    )
    np.testing.assert_allclose(screening_utility(X, y, False), expected, rtol=1e-12)


def test_sirs_utility_for_classes_is_the_between_class_sir_kernel():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((30, 2))
    codes = rng.integers(0, 3, 30)
    Xs = (X - X.mean(0)) / X.std(0)
    expected = sum(np.mean(codes == c) * Xs[codes == c].mean(0) ** 2 for c in range(3))
    np.testing.assert_allclose(screening_utility(X, codes, True), expected, rtol=1e-12)


@pytest.mark.parametrize("dim", [1, 2])
def test_leave_one_out_residuals_are_refits_without_the_point(dim):
    rng = np.random.default_rng(8)
    V = rng.standard_normal((30, dim))
    T = rng.standard_normal((30, 2))
    resid = leave_one_out_residuals(V, T, 0.8)
    W = kernel_block(V, slice(0, 30), 0.8, None)
    for j in (0, 11, 29):
        keep = np.arange(30) != j
        Wj = W.copy()
        Wj[:, ~keep] = 0.0
        a, _ = _dense_local_fit(Wj, V, T, j)
        np.testing.assert_allclose(resid[j], T[j] - a, atol=1e-6)  # ridge 1e-8 relative
