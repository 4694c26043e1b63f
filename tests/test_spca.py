"""Linear supervised PCA (HSIC): dense checks, primal = dual, PCA special case, errors."""

import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist
from sklearn.decomposition import PCA

import sdrstats as sdr
from sdrstats.spca.kernels import median_gamma
from sdrstats.stats.distances import projection_distance


def _dense_L(Y, kernel):
    """The n×n response kernel written out (reference for the factored computation)."""
    if kernel == "linear":
        return Y @ Y.T
    if kernel == "delta":
        return (Y[:, None] == Y[None, :]).astype(float)
    g = median_gamma(Y)
    return np.exp(-g * cdist(Y, Y, "sqeuclidean"))


def _dense_directions(X, L, d):
    n = len(X)
    H = np.eye(n) - np.ones((n, n)) / n
    values, vectors = np.linalg.eigh(X.T @ H @ L @ H @ X)
    return values[::-1][:d] / (n - 1) ** 2, vectors[:, ::-1][:, :d]


@pytest.fixture
def sim():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((80, 6))
    Y = np.column_stack([X[:, 0] + X[:, 1] ** 2, X[:, 2] - X[:, 0], rng.standard_normal(80)])
    return X, Y + 0.3 * rng.standard_normal(Y.shape)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_factored_hsic_matrix_matches_dense_eigen_solution(sim, kernel):
    X, Y = sim
    fit = sdr.SPCA(kernel_y=kernel, d=3).fit(X, Y)
    values, vectors = _dense_directions(X, _dense_L(Y, kernel), 3)
    # Same matrix, two eigen routes: agreement to rounding (1e-10 relative / 1e-8 subspace).
    np.testing.assert_allclose(fit.eigenvalues.to_numpy()[:3], values, rtol=1e-10)
    assert projection_distance(fit.directions.to_numpy(), vectors) < 1e-8


def test_delta_kernel_matches_dense_and_is_default_for_classes():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((90, 5))
    labels = np.array(["a", "b", "c"])[rng.integers(0, 3, 90)]
    X[labels == "b", 0] += 2.0
    X[labels == "c", 1] += 2.0
    fit = sdr.SPCA().fit(X, labels)
    assert fit.extras["kernel_y"] == "delta"
    assert fit.extras["rank"] == 2  # c - 1 after centring
    values, vectors = _dense_directions(X, _dense_L(labels, "delta"), 2)
    np.testing.assert_allclose(fit.eigenvalues.to_numpy(), values, rtol=1e-10)
    assert projection_distance(fit.directions.to_numpy(), vectors) < 1e-8


@pytest.mark.parametrize("kernel", ["linear", "rbf", "identity"])
def test_primal_and_dual_give_the_same_subspace(sim, kernel):
    X, Y = sim
    primal = sdr.SPCA(kernel_y=kernel, d=3, solver="primal").fit(X, Y)
    dual = sdr.SPCA(kernel_y=kernel, d=3, solver="dual").fit(X, Y)
    assert primal.extras["solver"] == "primal" and dual.extras["solver"] == "dual"
    assert projection_distance(primal.directions.to_numpy(), dual.directions.to_numpy()) < 1e-8
    np.testing.assert_allclose(primal.eigenvalues, dual.eigenvalues, rtol=1e-9)


def test_auto_solver_takes_the_dual_when_p_exceeds_n():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, 200))
    y = X[:, 0] - X[:, 1] + 0.1 * rng.standard_normal(30)
    fit = sdr.SPCA(kernel_y="rbf", d=2).fit(X, y)
    assert fit.extras["solver"] == "dual"
    primal = sdr.SPCA(kernel_y="rbf", d=2, solver="primal").fit(X, y)
    assert projection_distance(fit.directions.to_numpy(), primal.directions.to_numpy()) < 1e-8


def test_identity_kernel_is_ordinary_pca(sim):
    X, Y = sim
    fit = sdr.SPCA(kernel_y="identity", d=4).fit(X, Y)
    pca = PCA(n_components=4).fit(X)
    assert projection_distance(fit.directions.to_numpy(), pca.components_.T) < 1e-8
    for j in range(4):  # each direction, not only the span (eigenvalues are distinct here)
        assert abs(fit.directions.iloc[:, j] @ pca.components_[j]) == pytest.approx(1, abs=1e-9)
    # λ_j = u'X'HXu/(n-1)^2 = explained variance / (n-1)
    np.testing.assert_allclose(
        fit.eigenvalues[:4], pca.explained_variance_ / (len(X) - 1), rtol=1e-10
    )


def test_eigenvalues_are_hsic_of_each_projection(sim):
    X, Y = sim
    fit = sdr.SPCA(kernel_y="rbf", d=2).fit(X, Y)
    n = len(X)
    H = np.eye(n) - np.ones((n, n)) / n
    L = _dense_L(Y, "rbf")
    for j in range(2):
        z = fit.transform().iloc[:, j].to_numpy()[:, None]
        hsic = np.trace(z @ z.T @ H @ L @ H) / (n - 1) ** 2
        assert fit.eigenvalues.iloc[j] == pytest.approx(hsic, rel=1e-10)
    text = str(fit.summary())
    assert "Eigenvalues (HSIC)" in text and "HSIC contributions" in text


def test_recovers_a_linear_index_in_simulation():
    # y = x1 - x2 + noise with the linear kernel: the direction is X'H y ∝ Cov(x, y), population
    # (1, -1, 0, 0, 0). With n = 2000 each entry of the sample covariance errs by about
    # sd(y)/sqrt(n) = 1.5/45 = 0.034 against a signal of norm sqrt2, so the angle is about
    # 0.034 * sqrt(4) / 1.41 = 0.05 and the projection distance (sqrt2 sin angle) about 0.07;
    # 0.2 is three times that (a chi-square(4) exceedance of probability < 1e-5).
    rng = np.random.default_rng(2024)
    X = rng.standard_normal((2000, 5))
    y = X[:, 0] - X[:, 1] + 0.5 * rng.standard_normal(2000)
    fit = sdr.SPCA().fit(X, y)
    assert fit.d == 1
    truth = np.array([[1.0, -1.0, 0, 0, 0]]).T
    assert projection_distance(fit.directions.to_numpy(), truth) < 0.2


def test_formula_and_arrays_agree(ais):
    fit = sdr.spca("lbm ~ ht + wt + bmi + ssf", ais, kernel_y="rbf", d=2)
    arrays = sdr.SPCA(kernel_y="rbf", d=2).fit(ais[["ht", "wt", "bmi", "ssf"]], ais["lbm"])
    np.testing.assert_array_equal(fit.directions.to_numpy(), arrays.directions.to_numpy())
    np.testing.assert_allclose(fit.transform(ais.iloc[:5]), fit.transform().iloc[:5], rtol=1e-12)
    assert "spca(" in fit.call and fit.directions.index.tolist() == ["ht", "wt", "bmi", "ssf"]


@pytest.mark.parametrize("response", ["continuous", "classes"])
def test_integer_weights_equal_repeated_rows(sim, response):
    X, Y = sim
    if response == "classes":  # integer codes take the sparse class-indicator path
        Y = (Y[:, 0] > 0).astype(np.int64) + (Y[:, 1] > 1)
    w = np.random.default_rng(0).integers(0, 3, len(X)).astype(float)
    est = sdr.SPCA(d=2, add_identity=0.5)
    weighted = est._fit(X, Y, weights=w)
    keep = np.repeat(np.arange(len(X)), w.astype(int))
    repeated = est._fit(X[keep], Y[keep])
    assert projection_distance(weighted.basis[:, :2], repeated.basis[:, :2]) < 1e-8
    np.testing.assert_allclose(weighted.eigenvalues, repeated.eigenvalues, rtol=1e-9)


def test_large_n_never_forms_the_n_by_n_kernel():
    # n = 60000: an n×n float matrix would need 29 GB, so this only runs if L stays factored.
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60000, 8))
    y = X[:, 0] + rng.standard_normal(60000)
    fit = sdr.SPCA(d=1).fit(X, y)
    assert abs(fit.directions.iloc[0, 0]) > 0.99
    labels = (X[:, 1] > 0).astype(int).astype(str)
    fit = sdr.SPCA(d=1).fit(X, labels)
    assert abs(fit.directions.iloc[1, 0]) > 0.99


def test_pickle_round_trip(ais):
    fit = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, add_identity=1.0)
    again = pickle.loads(pickle.dumps(fit))
    pd.testing.assert_frame_equal(again.transform(ais), fit.transform(ais))
    assert str(again.summary()) == str(fit.summary())


def test_add_identity_lifts_the_rank_limit(ais):
    with pytest.raises(ValueError, match="at most the rank of the HSIC matrix, 1 here"):
        sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=2)
    fit = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=2, add_identity=1.0)
    assert fit.directions.shape == (4, 2)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"d": 3}, ValueError, r"'d' option of spca must be at most the rank .* 1 here"),
        ({"d": 9}, ValueError, r"'d' option of spca must be at most p = 4"),
        ({"d": 0}, ValueError, r"'d' parameter of SPCA must be an int >= 1"),
        ({"kernel_y": "gauss"}, ValueError, r"'kernel_y' parameter of SPCA must be one of"),
        ({"gamma_y": 0.0}, ValueError, r"'gamma_y' parameter of SPCA must be a float > 0"),
        ({"gamma_y": -1.0}, ValueError, r"'gamma_y' parameter of SPCA must be a float > 0"),
        ({"solver": "qr"}, ValueError, r"'solver' parameter of SPCA must be one of"),
        ({"nslices": 3}, TypeError, r"unknown option"),
    ],
)
def test_bad_options_raise_clear_errors(ais, options, error, message):
    with pytest.raises(error, match=message):
        sdr.SPCA(**options).fit(ais[["ht", "wt", "bmi", "ssf"]], ais["lbm"])


def test_constant_response_and_single_class_are_rejected(ais):
    X = ais[["ht", "wt", "bmi"]]
    with pytest.raises(ValueError, match="response is constant; spca needs a response that"):
        sdr.SPCA().fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="single class; spca needs a response that varies"):
        sdr.SPCA().fit(X, np.array(["a"] * len(X)))
    with pytest.raises(ValueError, match="'kernel_y' option of spca is 'delta' but the "):
        sdr.SPCA(kernel_y="delta").fit(X, ais["lbm"])
