"""Manifold KDR: the Laplacian eigenmap, its out-of-sample extension, the gradient of the search,
recovery of a response that follows a Swiss roll, the fitted-result contract and bad input."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from sklearn.neighbors import KNeighborsRegressor
from threadpoolctl import threadpool_limits

import sdrstats as sdr
from sdrstats.spca.kdr_objectives import KDRObjective
from sdrstats.spca.kernels import response_factor
from sdrstats.spca.mkdr import Eigenmap
from sdrstats.stats.linalg import whiten


@pytest.fixture(autouse=True)
def one_blas_thread():
    # the machine is shared: one BLAS thread keeps these small problems fast and polite
    with threadpool_limits(1):
        yield


def swiss_roll(n, seed, noise=0.1):
    """A Swiss roll in R^3 whose response is its (standardised) roll coordinate t."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(1.5 * np.pi, 4.5 * np.pi, n)
    height = rng.uniform(0, 15, n)
    X = np.column_stack([t * np.cos(t), height, t * np.sin(t)])
    X += noise * rng.standard_normal(X.shape)
    signal = (t - 3 * np.pi) / np.pi
    y = signal + 0.1 * rng.standard_normal(n)
    return X, y, signal


def held_out_r2(train_z, y, new_z, new_signal):
    """R² of a 10-nearest-neighbour regression of y on a reduction, on new rows' signal."""
    model = KNeighborsRegressor(10).fit(train_z, y)
    return 1 - np.mean((model.predict(new_z) - new_signal) ** 2) / np.var(new_signal)


# -- the eigenmap -------------------------------------------------------------------------
def test_eigenmap_solves_the_generalised_laplacian_problem():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3))
    emap = Eigenmap(X, n_neighbors=6, n_components=4)
    from scipy.spatial.distance import cdist

    W = emap._weights(cdist(X, X, "sqeuclidean"), emap.radii2)
    np.testing.assert_array_equal(W, W.T)  # the joining rule is symmetric
    D = W.sum(axis=1)
    F, mu = emap.coordinates, emap.eigenvalues
    # W f = μ D f, f orthogonal to the constant in the D inner product, Σ D f² = n;
    # 1e-10 is rounding of a dense eigensolver on a 50 x 50 problem
    np.testing.assert_allclose(W @ F, D[:, None] * F * mu, atol=1e-10)
    np.testing.assert_allclose(D @ F, 0.0, atol=1e-9)
    np.testing.assert_allclose((D[:, None] * F * F).sum(axis=0), 50.0, rtol=1e-10)
    assert np.all(np.diff(mu) <= 0) and mu[0] < 1.0


def test_extension_reproduces_training_rows_and_follows_the_nystrom_formula():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 2))
    emap = Eigenmap(X, n_neighbors=5, n_components=3)
    # on a training row the formula gives back its coordinates (the eigen-equation)
    np.testing.assert_allclose(emap.extend(X), emap.coordinates, atol=1e-10)
    # a new row: written out from the formula, f_k(x) = Σ w f_k(x_i) / (μ_k Σ w)
    x = np.array([[0.3, -0.2]])
    d2 = ((X - x) ** 2).sum(axis=1)
    own = np.sort(d2)[5]  # distance to its 6th nearest training row
    joined = d2 <= np.maximum(own, emap.radii2)
    w = np.where(joined, np.exp(-d2 / emap.heat_width), 0.0)
    expected = (w @ emap.coordinates) / w.sum() / emap.eigenvalues
    np.testing.assert_allclose(emap.extend(x)[0], expected, rtol=1e-10)


def test_eigenmap_of_a_curve_follows_its_arc_length():
    t = np.linspace(0, 1, 80)
    X = np.column_stack([np.cos(4 * t), np.sin(4 * t), t])  # a helix: one intrinsic coordinate
    emap = Eigenmap(X, n_neighbors=5, n_components=2)
    # the first non-trivial eigenfunction of a path graph is cos(π t): monotone in t
    rho = scipy.stats.spearmanr(emap.coordinates[:, 0], t)[0]
    assert abs(rho) > 0.999


def test_a_far_away_row_gets_its_nearest_rows_average_without_underflow():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((40, 2))
    emap = Eigenmap(X, n_neighbors=4, n_components=2)
    far = emap.extend(np.array([[1e3, 1e3]]))
    assert np.all(np.isfinite(far))


# -- the search ---------------------------------------------------------------------------
@pytest.mark.parametrize("sigma", [0.8, 2.0])
def test_gradient_of_the_search_on_eigenmap_coordinates_matches_finite_differences(sigma):
    X, y, _ = swiss_roll(60, seed=3)
    emap = Eigenmap((X - X.mean(0)) / X.std(0), n_neighbors=8, n_components=6)
    Z, _, _ = whiten(emap.coordinates, "mkdr", ddof=1)
    R = response_factor((y - y.mean())[:, None] / y.std(), "rbf", "mkdr", gamma=0.5)
    objective = KDRObjective(Z, R, sigma, 1e-3)
    rng = np.random.default_rng(4)
    W = np.linalg.qr(rng.standard_normal((6, 2)))[0].T
    _, grad = objective(W)
    for _ in range(3):
        E = rng.standard_normal(W.shape)
        h = 1e-6
        numeric = (objective(W + h * E)[0] - objective(W - h * E)[0]) / (2 * h)
        # central differences: O(h²) truncation plus O(eps/h) rounding, ~1e-9 relative
        assert np.sum(grad * E) == pytest.approx(numeric, rel=1e-6)


def test_swiss_roll_response_is_recovered_better_than_by_kdr_or_pca():
    # y follows the roll coordinate t, which no linear projection of R^3 unrolls. Held-out R²
    # of a 10-NN regression on the 1-D reduction over seeds 0..4 (n = 300): mKDR 0.96-0.98,
    # KDR 0.48-0.61, PCA 0.10-0.51 (seed 0: 0.97, 0.58, 0.34). At n = 200 the graph's
    # neighbourhoods start to reach across the roll's turns and mKDR falls to 0.77-0.90.
    X, y, _ = swiss_roll(300, seed=0)
    X_new, _, signal_new = swiss_roll(200, seed=100)
    scores = {}
    for name, estimator in {
        "mkdr": sdr.MKDR(d=1, n_anneal=3, random_state=0),
        "kdr": sdr.KDR(d=1, n_anneal=3, random_state=0),
        "pca": sdr.PCA(d=1),
    }.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sdr.ConvergenceWarning)
            fit = estimator.fit(X, y)
        scores[name] = held_out_r2(
            fit.transform().to_numpy(), y, fit.transform(X_new).to_numpy(), signal_new
        )
    assert scores["mkdr"] > 0.9
    assert scores["kdr"] < 0.75 and scores["pca"] < 0.6
    assert scores["mkdr"] > scores["kdr"] + 0.2


# -- the dimension rule ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_cv_rule_finds_three_functions_when_three_are_needed(seed):
    # three responses, each following its own predictor: no two functions of x carry them all,
    # so the default rule must stop at d = 3, not before (a fit keeping two directions) nor
    # after (d = 4 adds a noise direction and a wider leave-one-out kernel). Measured over
    # seeds 0..5 at n = 150: d = 3 every time, CV at d = 2, 3, 4 about 0.21, 0.18, 0.19.
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((150, 5))
    Y = X[:, :3] + 0.2 * rng.standard_normal((150, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        fit = sdr.MKDR(random_state=seed).fit(X, Y)
    cv = fit.d_choice.table["cv"]
    assert fit.d_rule == "cv" and fit.d_choice.d == 3 and fit.d == 3
    assert list(cv.index) == [0, 1, 2, 3, 4]
    assert cv[3] < cv[2] < cv[1] < cv[0] and cv[3] < cv[4]
    assert fit.transform().shape == (150, 3)


# -- the fitted result ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def roll_fit():
    X, y, _ = swiss_roll(120, seed=5)
    frame = pd.DataFrame(X, columns=["a", "b", "c"], index=np.arange(120) + 1000)
    frame["y"] = y
    with threadpool_limits(1):
        fit = sdr.mkdr("y ~ a + b + c", frame, d=2, n_anneal=2, max_iter=10, random_state=0)
    return fit, frame


def test_transform_of_the_training_rows_equals_the_stored_embedding(roll_fit):
    fit, frame = roll_fit
    stored = fit.transform()
    again = fit.transform(frame)
    np.testing.assert_allclose(again.to_numpy(), stored.to_numpy(), atol=1e-10)
    assert list(stored.index) == list(frame.index) and list(stored.columns) == ["Dir1", "Dir2"]
    assert fit.transform(frame.iloc[:3], d=1).shape == (3, 1)


def test_formula_and_array_interfaces_give_identical_numbers(roll_fit):
    fit, frame = roll_fit
    array_fit = sdr.MKDR(d=2, n_anneal=2, max_iter=10, random_state=0).fit(
        frame[["a", "b", "c"]].to_numpy(), frame["y"].to_numpy()
    )
    # the formula's design matrix is column-major, the array row-major: BLAS rounds the same
    # sums differently (1e-13 seen)
    np.testing.assert_allclose(
        array_fit.transform().to_numpy(), fit.transform().to_numpy(), atol=1e-10
    )


def test_summary_directions_and_pickle(roll_fit):
    fit, frame = roll_fit
    text = str(fit.summary())
    assert "Laplacian eigenmap" in text and "Kernel-width annealing" in text
    assert fit.embedding_directions.shape == (10, 2)
    with pytest.raises(ValueError, match="mkdr has no linear directions in the predictors"):
        _ = fit.directions
    clone = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(
        clone.transform(frame).to_numpy(), fit.transform(frame).to_numpy()
    )


def test_bootstrap_compares_embeddings(roll_fit):
    fit, _ = roll_fit
    boot = fit.bootstrap(B=2, random_state=0, progress=False)
    assert boot.kind == "embedding" and boot.distances.shape == (2,)


# -- bad input -----------------------------------------------------------------------------
def test_bad_options_and_data_are_refused_with_the_remedy():
    X, y, _ = swiss_roll(30, seed=6)
    with pytest.raises(ValueError, match="'d' option of mkdr must be at most n_eigenvectors = 3"):
        sdr.MKDR(d=4, n_eigenvectors=3).fit(X, y)
    with pytest.raises(ValueError, match="mkdr needs more rows than n_neighbors"):
        sdr.MKDR(d=1, n_neighbors=29).fit(X, y)
    with pytest.raises(ValueError, match="'n_neighbors' parameter of MKDR must be an int"):
        sdr.MKDR(n_neighbors=0)


def test_a_graph_in_pieces_warns():
    rng = np.random.default_rng(7)
    X = np.vstack([rng.standard_normal((30, 2)), rng.standard_normal((30, 2)) + 50.0])
    y = X[:, 0] + rng.standard_normal(60)
    with pytest.warns(sdr.SDRWarning, match="2 connected components"):
        sdr.MKDR(d=1, n_neighbors=5, n_eigenvectors=3, n_anneal=1, max_iter=5).fit(X, y)
