"""Near-collinear predictors: a warning and the answer of a well-conditioned reparametrisation,
or a clear error when the predictors are collinear to working precision."""

import warnings

import numpy as np
import pytest

import sdrstats as sdr

CLASSES = [sdr.SIR, sdr.SAVE, sdr.PHD, sdr.DirectionalRegression, sdr.CUME, sdr.IRE]


def _design(eps, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(400, 4))
    y = Z[:, 0] + 0.5 * Z[:, 1] ** 2 + 0.2 * rng.normal(size=400)
    A = np.eye(4)
    A[1, 0], A[1, 1] = 1.0, eps  # x2 = z1 + eps * z2: cond(X) ~ 2 / eps
    return Z, Z @ A.T, y


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.method)
def test_condition_number_1e10_warns_and_matches_reparametrisation(cls):
    Z, X, y = _design(1e-10)
    assert 1e10 < np.linalg.cond(X) < 1e11
    with pytest.warns(sdr.CollinearityWarning, match="nearly collinear"):
        ill = cls(d=2).fit(X, y)
    well = cls(d=2).fit(Z, y)
    # Moment methods are affine equivariant, so X B spans the same reduced predictors as
    # Z B_Z. Rounding in the data is amplified by cond(X) ~ 2e10, so agreement to about
    # cond * eps ~ 1e-5 is what the data allow; garbage would be O(1).
    reduced_ill, reduced_well = ill.transform().to_numpy(), well.transform().to_numpy()
    assert sdr.projection_distance(reduced_ill, reduced_well) < 1e-4
    if well.eigenvalues is not None:
        np.testing.assert_allclose(ill.eigenvalues, well.eigenvalues, rtol=1e-4, atol=1e-6)


def test_collinear_to_working_precision_is_a_clear_error():
    _, X, y = _design(1e-14)
    with pytest.raises(ValueError, match=r"collinear: \['x2'\]|collinear: \['x1'\]"):
        sdr.SIR().fit(X, y)


def test_well_conditioned_data_do_not_warn():
    Z, _, y = _design(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sdr.CollinearityWarning)
        sdr.SAVE().fit(Z, y)


def test_eigenvectors_have_deterministic_sign_and_order():
    Z, _, y = _design(1.0)
    a, b = sdr.SIR().fit(Z, y), sdr.SIR().fit(Z.copy(), y.copy())
    np.testing.assert_array_equal(a.all_directions, b.all_directions)
    B = a.all_directions.to_numpy()
    assert np.all(B[np.argmax(np.abs(B), axis=0), np.arange(B.shape[1])] > 0)
    assert np.all(np.diff(a.eigenvalues.to_numpy()) <= 0)
