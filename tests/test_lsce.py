"""LSCE and LSMI: gradient, recovery of known subspaces, options, summary, errors."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.simulate import lsce_artificial
from sdrstats.stats.distances import projection_distance
from sdrstats.stats.gaussian import BasisProblem, choose_centres
from sdrstats.stats.grassmann import random_orthonormal_rows

FAST = {"n_restarts": 2, "progress": False, "random_state": 0}


def _numeric_gradient(problem, W, sigma, lam, h=1e-6):
    grad = np.zeros_like(W)
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            E = np.zeros_like(W)
            E[i, j] = h
            up = problem.solve(W + E, sigma, lam, gradient=False).value
            down = problem.solve(W - E, sigma, lam, gradient=False).value
            grad[i, j] = (up - down) / (2 * h)
    return grad


@pytest.mark.parametrize("criterion", ["sce", "smi"])
@pytest.mark.parametrize("response", ["continuous2", "categorical"])
def test_analytic_gradient_matches_finite_differences(criterion, response):
    rng = np.random.default_rng(11)
    n, p, d = 70, 5, 2
    X = rng.standard_normal((n, p))
    Y = rng.standard_normal((n, 2)) if response == "continuous2" else rng.integers(0, 3, n)
    problem = BasisProblem(X, Y, choose_centres(n, 30, rng), criterion)
    W = random_orthonormal_rows(d, p, rng)
    analytic = problem.solve(W, 0.8, 0.05).gradient
    numeric = _numeric_gradient(problem, W, 0.8, 0.05)
    # Central differences with h = 1e-6 have truncation error ~h² and rounding ~1e-16/h,
    # both far below the 1e-6 relative tolerance the issue asks for (observed ~1e-9).
    assert np.max(np.abs(analytic - numeric)) <= 1e-6 * np.max(np.abs(numeric))


def test_gradient_moves_centres_too():
    # With fixed centres (u_k not moving) the gradient would differ; ours must match the
    # finite difference where both z_i and u_k move, checked above, and differ from the
    # fixed-centre gradient here (so the test above is not passing by accident).
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 4))
    Y = rng.standard_normal((50, 1))
    problem = BasisProblem(X, Y, np.arange(0, 50, 2), "sce")
    W = random_orthonormal_rows(1, 4, rng)
    fit = problem.solve(W, 0.7, 0.1)
    U_fixed = problem.Xc @ W.T
    moving = problem.solve(W, 0.7, 0.1).gradient

    def value_fixed(Wn):
        saved = problem.Xc
        Z = X @ Wn.T
        from sdrstats.stats.gaussian import gaussian_kernel

        Kz = gaussian_kernel(Z, U_fixed, 0.7)
        G = (Kz.T @ Kz) * problem.pair_matrix(0.7)
        h = (Kz * problem.y_kernel(0.7)).mean(axis=0)
        a = np.linalg.solve(G + 0.1 * np.eye(len(h)), h)
        problem.Xc = saved
        return 0.5 * a @ G @ a - h @ a

    E = np.zeros_like(W)
    E[0, 0] = 1e-6
    fixed_d = (value_fixed(W + E) - value_fixed(W - E)) / 2e-6
    assert abs(value_fixed(W) - fit.value) < 1e-12
    assert abs(fixed_d - moving[0, 0]) > 1e-4 * abs(moving).max()


def test_lsce_recovers_the_single_index_of_dataset_b():
    data, truth = lsce_artificial("b", 200, random_state=1)
    fit = sdr.lsce("y ~ .", data, d=1, **FAST)
    # Seed Figure 3 (b): Error_DR of LSCE at n = 200 is about 0.1; 0.3 leaves room for a
    # different random draw while failing for a wrong direction (distance >= 1 for orthogonal).
    assert projection_distance(fit.directions.to_numpy(), truth) < 0.3
    assert fit.criterion < 0
    assert fit.d == 1 and fit.n == 200 and fit.p == 5


def test_lsce_recovers_the_two_dimensional_subspace_of_dataset_a():
    data, truth = lsce_artificial("a", 200, random_state=2)
    fit = sdr.lsce("y ~ .", data, d=2, **FAST)
    # Seed Figure 3 (a): Error_DR about 0.1-0.2 at n = 200.
    assert projection_distance(fit.directions.to_numpy(), truth) < 0.35


def test_lsmi_recovers_a_categorical_response_with_the_delta_kernel():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.standard_normal((150, 4)), columns=["a", "b", "c", "e"])
    df["cls"] = np.where(df.c + 0.3 * rng.standard_normal(150) > 0, "up", "down")
    fit = sdr.lsmi("cls ~ .", df, d=1, **FAST)
    # A threshold on c: the direction is c; |cos| > 0.9 fails for any other axis.
    assert abs(fit.directions.loc["c", "Dir1"]) > 0.9
    assert fit.criterion > 0  # SMI^ estimates a positive dependence measure


def test_lsmi_continuous_and_criterion_sign():
    data, truth = lsce_artificial("a", 150, random_state=4)
    fit = sdr.lsmi("y ~ .", data, d=2, **FAST)
    assert projection_distance(fit.directions.to_numpy(), truth) < 0.5
    assert fit.criterion > 0
    assert "SMI^" in str(fit.summary())


def test_multivariate_response():
    rng = np.random.default_rng(6)
    df = pd.DataFrame(rng.standard_normal((120, 4)), columns=["x1", "x2", "x3", "x4"])
    df["y1"] = df.x1 + 0.2 * rng.standard_normal(120)
    df["y2"] = df.x1**2 + 0.2 * rng.standard_normal(120)
    fit = sdr.lsce("y1 + y2 ~ x1 + x2 + x3 + x4", df, d=1, **FAST)
    assert abs(fit.directions.loc["x1", "Dir1"]) > 0.95
    dens = fit.conditional_density()
    assert dens.q == 2
    assert dens.mean(df.iloc[:2]).shape == (2, 2)


def test_d_by_cross_validation_and_cv_dimension_test():
    data, _ = lsce_artificial("b", 120, random_state=7)
    fit = sdr.lsce("y ~ .", data, d_max=2, **FAST)
    table = fit.cv_table
    assert list(table.index) == [1, 2]
    assert fit.d == int(table["cv_score"].idxmin())
    test = fit.test_dimension("cv")
    assert test.d == fit.d and test.rule == "cv"
    assert list(test.table.index) == ["d = 1", "d = 2"]
    text = str(fit.summary())
    assert "Cross-validation over d" in text and "chosen by cross-validation" in text


def test_cv_dimension_test_refits_when_d_was_given():
    data, _ = lsce_artificial("b", 80, random_state=8)
    fit = sdr.lsce("y ~ .", data, d=1, n_restarts=1, progress=False, random_state=0)
    test = fit.test_dimension("cv", d_max=2)
    assert test.table.shape[0] == 2


def test_summary_lists_tuning_restarts_and_directions():
    data, _ = lsce_artificial("b", 80, random_state=9)
    fit = sdr.lsce("y ~ .", data, d=1, **FAST)
    text = str(fit.summary())
    for piece in (
        "lsce, n = 80, p = 5.",
        "Dimension:\nd = 1 (given)",
        "sigma =",
        "lambda =",
        "SCE^ =",
        "2 restarts",
        "iterations",
        "Dir1",
        "x2",
    ):
        assert piece in text
    assert fit.summary().as_latex()
    assert len(fit.restarts) == 2


def test_results_do_not_depend_on_n_jobs():
    import joblib

    data, _ = lsce_artificial("b", 60, random_state=10)
    one = sdr.lsce("y ~ .", data, d=1, n_restarts=3, progress=False, random_state=3)
    # Threads instead of processes keep the test fast; the seeding path is the same.
    with joblib.parallel_config(backend="threading"):
        two = sdr.lsce("y ~ .", data, d=1, n_restarts=3, progress=False, random_state=3, n_jobs=2)
    np.testing.assert_array_equal(one.directions.to_numpy(), two.directions.to_numpy())


def test_same_random_state_same_fit_and_pickle_round_trip():
    data, _ = lsce_artificial("b", 60, random_state=15)
    a = sdr.lsce("y ~ .", data, d=1, **FAST)
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.directions.to_numpy(), b.directions.to_numpy())
    grid = np.linspace(-2, 4, 7)
    np.testing.assert_array_equal(
        a.conditional_density().pdf(data.iloc[:3], grid),
        b.conditional_density().pdf(data.iloc[:3], grid),
    )


def test_formula_and_array_paths_agree():
    data, _ = lsce_artificial("b", 60, random_state=12)
    f = sdr.lsce("y ~ .", data, d=1, **FAST)
    a = sdr.LSCE(d=1, **FAST).fit(data.drop(columns="y"), data["y"])
    np.testing.assert_allclose(f.directions.to_numpy(), a.directions.to_numpy(), atol=1e-12)


def test_restart_at_max_iter_warns():
    data, _ = lsce_artificial("b", 60, random_state=13)
    with pytest.warns(sdr.ConvergenceWarning, match="max_iter = 1"):
        fit = sdr.lsce("y ~ .", data, d=1, max_iter=1, tol=1e-12, **FAST)
    assert "stopped at max_iter" in str(fit.summary())


def test_converged_fit_does_not_warn():
    data, _ = lsce_artificial("b", 60, random_state=13)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sdr.ConvergenceWarning)
        sdr.lsce("y ~ .", data, d=1, max_iter=300, **FAST)


def test_plot_summary_one_and_two_directions():
    import matplotlib

    matplotlib.use("Agg")
    data, _ = lsce_artificial("b", 60, random_state=14)
    ax = sdr.lsce("y ~ .", data, d=1, **FAST).plot().axes[0]
    assert ax.get_xlabel() == "Dir1" and len(ax.collections) >= 2  # points and the band
    two = sdr.lsce("y ~ .", data, d=2, **FAST)
    assert len(two.plot().axes) == 9  # R's plot.dr: Dir1, Dir2 and y, a 3 x 3 matrix
    assert two.plot("density").axes[0].name == "3d"  # the fitted mean as a surface


# -- bad input --------------------------------------------------------------------------------
def _frame(n=40, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.standard_normal((n, 3)), columns=["a", "b", "c"])
    df["y"] = df.a + rng.standard_normal(n)
    return df


def test_zero_variance_response_is_rejected():
    df = _frame()
    df["y"] = 2.0
    with pytest.raises(ValueError, match="zero variance"):
        sdr.lsce("y ~ .", df, d=1, **FAST)


def test_d_at_least_p_is_rejected():
    with pytest.raises(ValueError, match="'d' option of lsce must be less than .* p = 3"):
        sdr.lsce("y ~ .", _frame(), d=3, **FAST)
    with pytest.raises(ValueError, match="'d_max' option of lsmi must be less than p = 3"):
        sdr.lsmi("y ~ .", _frame(), d_max=5, **FAST)


def test_too_few_samples_for_the_folds():
    with pytest.raises(ValueError, match="at least 2 \\* n_folds = 10 observations"):
        sdr.lsce("y ~ .", _frame(n=8), d=1, **FAST)


def test_non_finite_values_are_rejected():
    df = _frame()
    X = df[["a", "b", "c"]].to_numpy().copy()
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="(?i)non-finite|infinite"):
        sdr.LSCE(d=1, **FAST).fit(X, df["y"].to_numpy())


def test_bad_options_name_the_option():
    with pytest.raises(TypeError, match="unknown option"):
        sdr.LSCE(bandwidth=1.0)
    with pytest.raises(ValueError, match="'n_restarts' parameter of LSCE"):
        sdr.LSCE(n_restarts=0)
    with pytest.raises(ValueError, match="'select_by' parameter of LSCE must be one of"):
        sdr.LSCE(select_by="best")
    with pytest.raises(ValueError, match="'sigma_grid' parameter of LSCE"):
        sdr.LSCE(sigma_grid=[1.0, -1.0])
    with pytest.raises(ValueError, match="numeric response"):
        sdr.lsce("C(cls) ~ a + b", _frame().assign(cls=lambda f: f.a > 0), d=1, **FAST)


def test_collinear_predictors_are_rejected():
    df = _frame()
    df["c"] = df.a + df.b
    with pytest.raises(ValueError, match="collinear"):
        sdr.lsce("y ~ .", df, d=1, **FAST)


def test_own_density_uses_the_fitted_projection_of_whitened_predictors():
    data, _ = lsce_artificial("a", 80, random_state=16)
    fit = sdr.lsce("y ~ .", data, d=2, **FAST)
    ex = fit.extras
    X = data.drop(columns="y").to_numpy()
    z = (X - X.mean(axis=0)) @ ex["whitener"] @ ex["W"].T
    dens = fit.conditional_density("lsce")
    # Features map transform() back to z = W x̃ exactly (rounding only).
    np.testing.assert_allclose(dens.features(data)[0], z, atol=1e-10)
    # The centres are training rows, so z at those rows is the stored centre.
    assert np.min(np.abs(z[:, None, :] - ex["centres_z"][None]).sum(-1), axis=0).max() < 1e-10
    # z has unit variance per coordinate (the seed's normalisation), up to rounding.
    np.testing.assert_allclose(z.var(axis=0, ddof=1), 1.0, atol=1e-10)


# Under independence LSMI's held-out criterion prefers σ → ∞ (a flat density ratio), so its σ
# ends at the top of the extended grid with a TuningWarning; that is expected here.
@pytest.mark.filterwarnings("ignore::sdrstats.TuningWarning")
def test_criteria_estimate_known_values_under_dependence_and_independence():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.standard_normal((100, 3)), columns=["a", "b", "c"])
    dependent = df.assign(y=df.a + 0.2 * rng.standard_normal(100))
    independent = df.assign(y=rng.standard_normal(100))
    fits = {
        (name, method): method_fn("y ~ .", frame, d=1, **FAST)
        for name, frame in (("dep", dependent), ("ind", independent))
        for method, method_fn in (("lsce", sdr.lsce), ("lsmi", sdr.lsmi))
    }
    # True SCE~ = -½ ∫∫ p(y|z)² p(z) = -1 / (4 √π s) for a Gaussian p(y|z) with sd s (y
    # standardised): s = 1 under independence (-0.141); s = 0.2/√1.04 = 0.196 for y = a + 0.2ε
    # (-0.719). Tolerances: 0.06 and 0.15 cover the smoothing bias and the optimism of an
    # in-sample fit maximised over W at n = 100 (observed 0.01-0.11 over three seeds).
    assert abs(fits["ind", "lsce"].criterion - (-1 / (4 * np.sqrt(np.pi)))) < 0.06
    assert (
        abs(fits["dep", "lsce"].criterion - (-1 / (4 * np.sqrt(np.pi) * 0.2 / np.sqrt(1.04))))
        < 0.15
    )
    # SMI is 0 under independence and large here; observed < 0.07 vs > 1.3 over three seeds.
    assert fits["ind", "lsmi"].criterion < 0.2
    assert fits["dep", "lsmi"].criterion > 1.0
