"""SDSPCAAN family: solver steps against dense/brute-force references, family relations,
the fitted-result contract, recovery on simulated classes, and bad input messages."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from threadpoolctl import threadpool_limits

import sdrstats as sdr
from sdrstats.sdspcaan.family import zscore
from sdrstats.sdspcaan.solver import (
    QStepMatrix,
    SolverConfig,
    adaptive_neighbours,
    neighbour_weights,
    one_hot,
    smallest_eigen,
    solve,
    squared_distances,
)


@pytest.fixture(autouse=True)
def one_blas_thread():
    # the machine is shared: one BLAS thread keeps these small problems fast and polite
    with threadpool_limits(1):
        yield


def simulate(n_per_class=30, p=20, c=3, noise_scale=3.0, seed=0):
    """Classes separated along the first two coordinates; the others are high-variance noise
    (so PCA's leading directions are noise and a supervised method has something to find)."""
    rng = np.random.default_rng(seed)
    means = np.zeros((c, p))
    angles = 2 * np.pi * np.arange(c) / c
    means[:, 0], means[:, 1] = 2.5 * np.cos(angles), 2.5 * np.sin(angles)
    y = np.repeat(np.arange(c), n_per_class)
    X = means[y] + rng.standard_normal((y.size, p)) * np.r_[1.0, 1.0, [noise_scale] * (p - 2)]
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    frame["label"] = pd.Categorical([f"class{v}" for v in y])
    return frame, X, y


def projection_onto(basis, vectors):
    """Squared norms of the projections of unit ``vectors`` onto span(basis)."""
    q, _ = np.linalg.qr(basis)
    return np.sum((q.T @ vectors) ** 2, axis=0)


# -- the S-step -------------------------------------------------------------------------
def simplex_projection(v):
    """Euclidean projection onto the probability simplex (sort-based, Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    rho = np.nonzero(u * np.arange(1, v.size + 1) > css - 1)[0][-1]
    theta = (css[rho] - 1) / (rho + 1.0)
    return np.maximum(v - theta, 0)


def test_neighbour_weights_solve_each_row_problem():
    rng = np.random.default_rng(1)
    P = rng.standard_normal((40, 3))
    dist = squared_distances(P)
    m = 5
    nearest, weights, gamma = neighbour_weights(dist, m)
    for i in range(40):
        d = np.delete(dist[i], i)
        cols = np.delete(np.arange(40), i)
        # min Σ d_j s_j + γ s_j² on the simplex = projection of -d / (2γ) onto the simplex
        reference = simplex_projection(-d / (2 * gamma[i]))
        dense = np.zeros(40)
        dense[nearest[i]] = weights[i]
        # 1e-10: both are closed forms in double precision on O(1) distances
        np.testing.assert_allclose(dense[cols], reference, atol=1e-10)
        assert np.count_nonzero(reference > 1e-12) <= m  # exactly the m nearest can be > 0


def test_adaptive_graph_is_symmetric_stochastic_average():
    rng = np.random.default_rng(2)
    dist = squared_distances(rng.standard_normal((30, 4)))
    S, _ = adaptive_neighbours(dist, 4)
    assert sp.issparse(S)
    assert abs(S - S.T).max() == 0
    assert S.diagonal().max() == 0
    assert S.min() >= 0
    # each unsymmetrised row sums to 1, so the symmetrised total is n (exact up to rounding)
    np.testing.assert_allclose(S.sum(), 30, rtol=1e-12)


def test_squared_distances_match_scipy():
    from scipy.spatial.distance import cdist

    P = np.random.default_rng(3).standard_normal((25, 6))
    np.testing.assert_allclose(squared_distances(P), cdist(P, P, "sqeuclidean"), atol=1e-10)


# -- the Q-step -------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["eigh", "arpack", "lobpcg"])
def test_partial_eigensolver_matches_dense(method):
    rng = np.random.default_rng(4)
    G = rng.standard_normal((300, 25))
    C = rng.standard_normal((25, 25))
    Z = QStepMatrix(G, (C + C.T) / 2, diagonal=rng.random(300) * 5)
    dense = Z.dense()
    np.testing.assert_allclose(Z.matmat(np.eye(300)), dense, atol=1e-10)
    values, vectors = np.linalg.eigh(dense)
    start = vectors[:, :6] + 1e-2 * rng.standard_normal((300, 6))
    got_values, got_vectors = smallest_eigen(Z, 6, start, method)
    # eigenvalues of an O(100) matrix: 1e-6 covers LOBPCG's residual tolerance
    np.testing.assert_allclose(got_values, values[:6], atol=1e-6)
    overlap = projection_onto(got_vectors, vectors[:, :6])
    np.testing.assert_allclose(overlap, 1.0, atol=1e-6)


@pytest.mark.parametrize("method", ["arpack", "lobpcg"])
def test_partial_eigensolver_on_the_family_q_step_matrix(method):
    # the operator SDSPCAAN actually hands to the partial solvers: G = [X, Y], the graph block
    # δ' XᵀLX of the adaptive graph at Q0 and the β'D diagonal; its spectrum is far from the
    # random one above (rank p + c plus a diagonal, strongly negative leading eigenvalues)
    from sdrstats.sdspcaan.solver import _Problem, _row_norms

    _, X, y = simulate(n_per_class=40, p=8, seed=21)
    Xs, _, _ = zscore(X)
    problem = _Problem(
        Xs, one_hot(y), SolverConfig(k=2), {"setup": 0.0, "q_step": 0.0, "s_step": 0.0}
    )
    problem.rescale(problem.start)
    Z = problem.Z
    Z.diagonal = problem.scales["beta"] / (2.0 * _row_norms(problem.start))
    values, vectors = np.linalg.eigh(Z.dense())
    got_values, got_vectors = smallest_eigen(Z, 2, problem.start, method)
    scale = np.abs(values).max()
    np.testing.assert_allclose(got_values, values[:2], atol=1e-8 * scale)
    overlap = projection_onto(got_vectors, vectors[:, :2])
    np.testing.assert_allclose(overlap, 1.0, atol=1e-6)


def test_sdspca_without_sparsity_is_the_dense_eigen_solution():
    _, X, y = simulate(seed=5)
    Xs, _, _ = zscore(X)
    Y = one_hot(y)
    k, alpha = 4, 2.0
    result = solve(Xs, Y, SolverConfig(k=k, alpha=alpha, beta=0.0, graph="none"))
    K = Xs @ Xs.T
    alpha_scaled = alpha * np.trace(K) / np.sum(Y * Y)
    Z = -K - alpha_scaled * (Y @ Y.T)
    _, vectors = np.linalg.eigh(Z)
    # Q spans the k smallest eigenvectors; 1e-8 allows for eigenvector rounding
    np.testing.assert_allclose(projection_onto(result.Q, vectors[:, :k]), 1.0, atol=1e-8)
    np.testing.assert_allclose(result.W, Xs.T @ result.Q, atol=1e-10)


# -- the whole solver ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"delta": 1.0, "iteration": "fixed_weights"},
        {"delta": 0.1, "alpha": 10.0, "iteration": "fixed_weights"},
        {"delta": 10.0, "beta": 0.1, "iteration": "fixed_weights"},
        {"graph": "fixed", "iteration": "fixed_weights"},
        {"global_terms": False},
        {"global_terms": False, "supervised_graph": False},
    ],
)
def test_objective_trace_is_non_increasing(options):
    # fixed weights (and the graph-only members, which have no trace scales) minimise one
    # objective; the authors' iteration rescales the weights and has no such guarantee
    _, X, y = simulate(seed=6)
    Xs, _, _ = zscore(X)
    config = SolverConfig(k=5, tol=1e-3, max_iter=30, **options)
    result = solve(Xs, one_hot(y), config)
    trace = result.objective_trace
    rises = np.diff(trace)
    # the solver's stopping rule: no accepted step rises by more than tol x |objective|
    assert np.all(rises <= config.tol * np.abs(trace[:-1]))
    assert result.n_iter >= 1 and result.converged


def test_delta_zero_sdspcaan_equals_sdspca():
    frame, _, _ = simulate(seed=7)
    formula = "label ~ " + " + ".join(f"x{j + 1}" for j in range(20))
    a = sdr.sdspcaan(formula, frame, d=4, delta=0.0, iteration="fixed_weights")
    b = sdr.sdspca(formula, frame, d=4, iteration="fixed_weights")
    # same Z at every step (the graph term has weight 0) and one stopping rule: same
    # directions to rounding
    np.testing.assert_allclose(a.directions.to_numpy(), b.directions.to_numpy(), atol=1e-8)
    # the authors' loops stop differently (SDSPCAAN.m on the objective, SDSPCA.m on the
    # change of Q), but their first Q-steps are the same eigenproblem
    one = {"max_iter": 1, "tol": 1e-12}
    with pytest.warns(sdr.ConvergenceWarning):
        a1 = sdr.sdspcaan(formula, frame, d=4, delta=0.0, **one)
        b1 = sdr.sdspca(formula, frame, d=4, **one)
    np.testing.assert_allclose(a1.directions.to_numpy(), b1.directions.to_numpy(), atol=1e-8)


def test_pca_members_match_svd_and_sklearn():
    from sklearn.decomposition import PCA as SkPCA

    frame, X, y = simulate(seed=8)
    Xs, center, scale = zscore(X)
    fit = sdr.PCA(d=3).fit(X, y.astype(str))
    components = SkPCA(n_components=3).fit(Xs).components_.T
    # same unit vectors up to sign; back in the z-scored scale (directions are unscaled)
    z_dirs = fit.extras["projection"][:, :3]  # every component is computed; d = 3 reported
    np.testing.assert_allclose(np.abs(np.sum(z_dirs * components, axis=0)), 1.0, atol=1e-10)
    vfit = sdr.VPCA(d=3).fit(X, y.astype(str))
    U, sv, _ = np.linalg.svd(Xs, full_matrices=False)
    # vPCA: W = X^T Q with Q the top-k left singular vectors, = R Σ
    W = Xs.T @ U[:, :3]
    np.testing.assert_allclose(np.abs(vfit.extras["projection"][:, :3]), np.abs(W), atol=1e-8)
    np.testing.assert_allclose(vfit.directions.to_numpy(), fit.directions.to_numpy(), atol=1e-10)


def test_sdspcaan_finds_the_class_subspace_that_pca_misses():
    frame, X, y = simulate(n_per_class=40, p=30, seed=9)
    truth = np.eye(30)[:, :2]
    fit = sdr.SDSPCAAN(d=2, alpha=1.0, delta=1.0).fit(X, y.astype(str))
    pca = sdr.PCA(d=2).fit(X, y.astype(str))
    captured = projection_onto(fit.directions.to_numpy(), truth).mean()
    captured_pca = projection_onto(pca.directions.to_numpy(), truth).mean()
    # seeded simulation: the supervised fit captures most of the 2-D class-mean plane (0.98
    # here), PCA of noise with 9x the variance captures little (0.1)
    assert captured > 0.8
    assert captured_pca < 0.4


def test_learned_graph_has_one_component_per_class():
    _, X, y = simulate(n_per_class=30, seed=10)
    fit = sdr.SDSPCAAN(d=3).fit(X, y.astype(str))
    S = fit.similarity
    assert sp.issparse(S) and S.shape == (90, 90)
    n_components, labels = connected_components(S, directed=False)
    # classes of 30 > m + 1 = 16 points: λ grows until the graph splits into the c classes
    assert n_components == 3
    assert pd.crosstab(labels, y).gt(0).sum(axis=1).eq(1).all()


def test_transform_uses_training_centring_and_scaling():
    frame, X, y = simulate(seed=11)
    formula = "label ~ " + " + ".join(f"x{j + 1}" for j in range(20))
    fit = sdr.sdspcaan(formula, frame, d=3)
    new = frame.iloc[:7].copy()
    Xs_new = (X[:7] - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    expected = Xs_new @ fit.projection.to_numpy()
    np.testing.assert_allclose(fit.transform(new).to_numpy(), expected, atol=1e-10)
    # the array path gives identical numbers
    array_fit = sdr.SDSPCAAN(d=3).fit(frame.drop(columns="label"), frame["label"])
    np.testing.assert_allclose(
        array_fit.transform().to_numpy(), fit.transform().to_numpy(), atol=1e-10
    )
    assert fit.d == fit.k == 3 and fit.directions.shape == (20, 3)
    np.testing.assert_allclose(np.linalg.norm(fit.directions, axis=0), 1.0, atol=1e-12)


def test_summary_pickle_and_plot():
    frame, X, y = simulate(seed=12)
    fit = sdr.SDSPCAAN(d=2).fit(X, y.astype(str))
    text = str(fit.summary())
    assert "Alternating solver" in text and "converged: True" in text
    clone = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(clone.transform().to_numpy(), fit.transform().to_numpy())
    import matplotlib

    matplotlib.use("Agg")
    ax = fit.plot("projection").axes[0]
    assert len(ax.collections) == 3
    assert fit.plot("objective").axes[0].lines


@pytest.mark.parametrize("eigensolver", ["arpack", "lobpcg"])
def test_iterative_eigensolvers_give_the_same_fit(eigensolver):
    _, X, y = simulate(n_per_class=40, seed=13)
    a = sdr.SDSPCAAN(d=3, eigensolver="eigh").fit(X, y.astype(str))
    b = sdr.SDSPCAAN(d=3, eigensolver=eigensolver).fit(X, y.astype(str))
    # each Q-step is solved to a small residual (ARPACK 1e-10, LOBPCG ~1e-7 relative); the
    # fits agree to 1e-4 in direction
    overlap = projection_onto(b.directions.to_numpy(), a.directions.to_numpy())
    np.testing.assert_allclose(overlap, 1.0, atol=1e-4)


def test_spcan_q_step_is_p_by_p_and_uses_the_iterative_solver_where_it_fits(monkeypatch):
    # SPCAN keeps Q in the column space of X: its Q-step matrix is rank(X) x rank(X), so
    # eigensolver applies to a p x p problem (p = 20 here: ARPACK runs, 3 k < 20) and not to
    # an n x n one; where 3 k >= p (p = 4) an explicit iterative solver cannot run and says so
    from sdrstats.sdspcaan import solver

    sizes = []
    original = solver.eigsh

    def spy(operator, *args, **kwargs):
        sizes.append(operator.shape)
        return original(operator, *args, **kwargs)

    monkeypatch.setattr(solver, "eigsh", spy)
    _, X, y = simulate(n_per_class=30, p=20, seed=21)
    labels = y.astype(str)
    dense = sdr.SPCAN(d=2, max_iter=3, eigensolver="eigh").fit(X, labels)
    assert sizes == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", sdr.SDRWarning)
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        lanczos = sdr.SPCAN(d=2, max_iter=3, eigensolver="arpack").fit(X, labels)
    assert sizes and set(sizes) == {(20, 20)}
    overlap = projection_onto(lanczos.directions.to_numpy(), dense.directions.to_numpy())
    np.testing.assert_allclose(overlap, 1.0, atol=1e-6)
    sizes.clear()
    small = X[:, :4]
    for method in ("arpack", "lobpcg"):
        with pytest.warns(
            sdr.SDRWarning, match=f"eigensolver='{method}' is not used: the Q-step matrix is 4 x 4"
        ):
            fit = sdr.SPCAN(d=2, max_iter=3, eigensolver=method).fit(small, labels)
        expected = sdr.SPCAN(d=2, max_iter=3, eigensolver="eigh").fit(small, labels)
        np.testing.assert_array_equal(fit.directions.to_numpy(), expected.directions.to_numpy())
    assert sizes == []
    with warnings.catch_warnings():  # the default chooses for itself: no warning
        warnings.simplefilter("error", sdr.SDRWarning)
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        sdr.SPCAN(d=2, max_iter=3).fit(small, labels)


def test_max_iter_reached_warns():
    _, X, y = simulate(seed=14)
    with pytest.warns(sdr.ConvergenceWarning, match="did not converge in max_iter = 1"):
        fit = sdr.SDSPCAAN(d=3, tol=1e-12, max_iter=1).fit(X, y.astype(str))
    assert not fit.converged


# -- bad input --------------------------------------------------------------------------
def test_continuous_response_suggests_spca():
    ais = sdr.datasets.load("ais")
    with pytest.raises(ValueError, match="needs class labels.*use spca"):
        sdr.sdspcaan("lbm ~ ht + wt", ais, d=1)


def test_single_sample_class_is_refused():
    frame, _, _ = simulate(seed=15)
    frame["label"] = frame["label"].cat.add_categories("lonely")
    frame.loc[0, "label"] = "lonely"
    with pytest.raises(ValueError, match=r"\['lonely'\].*single sample"):
        sdr.sdspcaan("label ~ x1 + x2 + x3", frame, d=2)
    X = frame[["x1", "x2", "x3"]].to_numpy()
    y = np.where(np.arange(len(X)) == 0, 9, frame["label"].cat.codes.to_numpy() % 3)
    with pytest.raises(ValueError, match="single sample"):
        sdr.SDSPCA(d=2).fit(X, y.astype(str))


def test_d_larger_than_n_or_p_is_refused():
    frame, _, _ = simulate(seed=16)
    with pytest.raises(ValueError, match=r"'d' option of sdspcaan must be at most min\(n, p\) = 3"):
        sdr.sdspcaan("label ~ x1 + x2 + x3", frame, d=4)
    assert sdr.SDSPCAAN().d is None  # d=None: chosen by d_rule, as in every method
    with pytest.raises(ValueError, match="'alpha' parameter of SDSPCAAN must be a float >= 0"):
        sdr.SDSPCAAN(d=2, alpha=-1)
    with pytest.raises(TypeError, match="unknown option"):
        sdr.SDSPCA(d=2, delta=1.0)


def test_non_finite_values_are_refused():
    frame, X, y = simulate(seed=17)
    frame.loc[3, "x2"] = np.inf
    with pytest.raises(ValueError, match="'x2' has 1 infinite or undefined"):
        sdr.sdspcaan("label ~ x1 + x2 + x3", frame, d=2)
    X = X.copy()
    X[5, 0] = np.inf
    with pytest.raises(ValueError, match="infinite or undefined"):
        sdr.SDSPCAAN(d=2).fit(X, y.astype(str))
    with pytest.raises(ValueError, match="predictor column 0 has infinite or missing"):
        sdr.SDSPCAAN(d=2)._check_data(X, y, True)


def test_lambda_is_capped_when_c_components_cannot_form():
    from sdrstats.sdspcaan.graph import LAMBDA_RANGE, Graph

    rng = np.random.default_rng(18)
    y = np.repeat([0, 1, 2], [3, 30, 30])
    P = rng.standard_normal((63, 2)) + 3.0 * y[:, None]
    # the 3-point class needs 5 neighbours, so its rows link to other classes and the
    # Laplacian's 3 smallest eigenvalues never sum below a tolerance of 1e-300: the authors'
    # rule would double λ without bound (they saw 1e21); here it stops at λ0 2^30
    graph = Graph(SolverConfig(k=2, n_neighbors=5, tol=1e-300), one_hot(y))
    graph.update(P)
    assert graph.lam == 10.0 * LAMBDA_RANGE
    assert graph.n_adjust == 30
    # with the default tolerance the same graph is accepted as (nearly) 3 components
    relaxed = Graph(SolverConfig(k=2, n_neighbors=5), one_hot(y))
    relaxed.update(P)
    assert relaxed.lam < 10.0 * LAMBDA_RANGE


def test_large_n_default_path_matches_dense_solver():
    # n = 900 > DENSE_LIMIT: "auto" runs ARPACK on Z's diagonal-plus-low-rank operator
    rng = np.random.default_rng(19)
    y = rng.integers(0, 3, 900)
    X = rng.standard_normal((900, 8))
    X[:, 0] += 2.0 * y
    Xs, _, _ = zscore(X)
    config = dict(k=3, max_iter=4, tol=1e-3)
    auto = solve(Xs, one_hot(y), SolverConfig(eigensolver="auto", **config))
    dense = solve(Xs, one_hot(y), SolverConfig(eigensolver="eigh", **config))
    # ARPACK solves each Q-step to 1e-10 relative: the same iterates, traces agree to 1e-8
    np.testing.assert_allclose(auto.objective_trace, dense.objective_trace, rtol=1e-8)
    unit = dense.W / np.linalg.norm(dense.W, axis=0)
    np.testing.assert_allclose(projection_onto(auto.W, unit), 1.0, atol=1e-8)


# -- choosing the weights by held-out accuracy ----------------------------------------------
def test_tune_chooses_the_weights_with_the_best_held_out_accuracy():
    from sdrstats.sdspcaan.tuning import one_nn_bca, stratified_folds

    frame, X, y = simulate(n_per_class=15, p=8, seed=20)
    grid = (0.1, 10.0)
    fit = sdr.SDSPCAAN(d=2, tune="cv", weight_grid=grid, n_folds=3, random_state=5).fit(
        X, y.astype(str)
    )
    # the same folds and fits written out: every combination on every fold, mean 1-NN BCA
    folds = stratified_folds(y, 3, np.random.default_rng(5))
    expected = []
    for alpha in grid:
        for beta in grid:
            for delta in grid:
                est = sdr.SDSPCAAN(d=2, alpha=alpha, beta=beta, delta=delta)
                scores = []
                for f in range(3):
                    train, held = folds != f, folds == f
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
                        out = est._fit(X[train], y[train])
                    scores.append(
                        one_nn_bca(
                            est.transform_arrays(out, X[train], 2),
                            y[train],
                            [est.transform_arrays(out, X[held], 2)],
                            [y[held]],
                        )[0]
                    )
                expected.append(((alpha, beta, delta), np.mean(scores)))
    table = fit.tuning
    assert list(table.columns) == ["alpha", "beta", "delta", "bca", "bca_sd"]
    np.testing.assert_allclose(table["bca"], [bca for _, bca in expected], atol=1e-12)
    best = max(range(8), key=lambda i: (expected[i][1], -i))  # the first best
    assert tuple(fit.extras["tuning"]["chosen"].values()) == expected[best][0]
    # the final fit is the fit on all rows with the chosen weights
    alpha, beta, delta = expected[best][0]
    direct = sdr.SDSPCAAN(d=2, alpha=alpha, beta=beta, delta=delta).fit(X, y.astype(str))
    np.testing.assert_allclose(fit.projection.to_numpy(), direct.projection.to_numpy(), atol=1e-12)
    assert "Weights chosen by 1-NN balanced accuracy on a 3-fold" in str(fit.summary())


def test_tune_is_reproducible_from_random_state_and_holdout_uses_one_fold():
    _, X, y = simulate(n_per_class=15, p=6, seed=21)
    options = dict(d=2, tune="holdout", weight_grid=(0.1, 10.0), random_state=3, progress=False)
    a = sdr.SDSPCA(**options).fit(X, y.astype(str))
    b = sdr.SDSPCA(**options).fit(X, y.astype(str))
    pd.testing.assert_frame_equal(a.tuning, b.tuning)
    assert a.extras["tuning"]["n_fits"] == 4  # 2 x 2 (alpha, beta) on one held-out fold
    assert list(a.tuning.columns) == ["alpha", "beta", "bca", "bca_sd"]
    assert sdr.SDSPCA(d=2).fit(X, y.astype(str)).tuning is None


def test_tune_refuses_classes_too_small_for_its_folds():
    frame, _, _ = simulate(n_per_class=3, p=5, seed=22)
    formula = "label ~ x1 + x2 + x3 + x4 + x5"
    with pytest.raises(ValueError, match="needs at least n_folds rows in every class"):
        sdr.sdspcaan(formula, frame, d=2, tune="cv", n_folds=5)
    with pytest.raises(ValueError, match="training part would keep 1 row"):
        sdr.sdspcaan(formula, frame, d=2, tune="cv", n_folds=2)
    with pytest.raises(ValueError, match="'tune' parameter of SDSPCAAN must be"):
        sdr.SDSPCAAN(d=2, tune="grid")


@pytest.mark.parametrize("seed", [0, 2])
def test_cv_rule_chooses_one_direction_on_a_single_index_model(seed):
    # classes are terciles of x1 + noise: one direction; the candidates d = 2, 3 are fitted on
    # the rows they predict, and the one-standard-error rule keeps them from being preferred
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((150, 4))
    y = X[:, 0] + 0.3 * rng.standard_normal(150)
    frame = pd.DataFrame(X, columns=["x1", "x2", "x3", "x4"])
    frame["g"] = pd.qcut(y, 3, labels=["a", "b", "c"]).astype(str)
    for name in ("sdspca", "sdspca_lpp", "sdspcaan"):
        fit = getattr(sdr, name)("g ~ x1 + x2 + x3 + x4", frame, random_state=0)
        assert fit.d == fit.d_choice.d == 1, name
        assert fit.dimension_line == (
            "d = 1 (chosen by cross-validation with the one-standard-error rule)"
        )
        assert projection_onto(fit.directions.to_numpy(), np.eye(4)[:, :1])[0] > 0.8
        table = fit.d_choice.table
        assert table["cv"].iloc[1] <= table["cv"].min() + table["se"].iloc[1]
