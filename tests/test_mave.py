"""The MAVE family through its public front: recovery, CV, contract, errors.

Recovery tolerances come from seeded simulations with known truth; each says where its bound
comes from. Small ``n`` and ``d_max`` keep the file fast.
"""

import pickle

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.mave import MaveResults
from sdrstats.simulate import mave_classic


@pytest.fixture(scope="module")
def classic():
    return mave_classic(400, random_state=101)


@pytest.fixture(scope="module")
def single_index():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((200, 4))
    beta = np.array([1.0, -1.0, 0.0, 0.5])
    y = np.sin(X @ beta) + 0.5 * (X @ beta) + 0.1 * rng.standard_normal(200)
    df = pd.DataFrame(X, columns=["a", "b", "c", "e"])
    df["y"] = y
    return df, beta[:, None]


@pytest.mark.parametrize("method", ["csmave", "csopg", "meanmave", "meanopg", "ksir"])
def test_every_method_recovers_a_single_index(single_index, method):
    df, beta = single_index
    fit = sdr.mave("y ~ a + b + c + e", df, variant=method, d=1, d_max=1)
    # monotone-ish single index, noise sd 0.1, n = 200: seeds 0..9 give distances below 0.1
    # for every method (KSIR the largest); 0.2 leaves a factor two for platform noise
    assert sdr.projection_distance(fit.directions, beta) < 0.2


@pytest.mark.parametrize("method,true_d", [("csmave", 2), ("csopg", 2), ("meanopg", 1)])
def test_classic_example_subspace_and_cv_choice(classic, method, true_d):
    df, basis = classic
    fit = sdr.mave("y ~ .", df, variant=method, d_max=2)
    error = sdr.projection_distance(fit.directions_for(true_d), basis[:, :true_d])
    # benchmarks/papers/mave_accuracy.md (n = 400, 20 seeds): mean distances 0.12-0.15,
    # largest 0.30 for these methods; this seed gives 0.19-0.28
    assert error < 0.35
    # CV picks the true d in most seeds (rates in mave_accuracy.md); this seed is one of them
    assert fit.d == true_d
    test = fit.test_dimension("cv")
    assert test.d == true_d and test.rule == "cv"
    assert list(test.table.index) == [0, 1, 2]
    assert list(test.table.columns) == ["cv", "bandwidth"]
    assert test.table["cv"].idxmin() == true_d  # R mave.dim's dim.min


def test_solutions_for_each_dimension_are_kept_and_not_nested(classic):
    df, _ = classic
    fit = sdr.mave("y ~ .", df, variant="csopg", d_max=3, d=2)
    assert isinstance(fit, MaveResults)
    one, two = fit.directions_for(1), fit.directions_for(2)
    assert one.shape == (5, 1) and two.shape == (5, 2) and fit.all_directions.shape == (5, 3)
    bases = fit.extras["bases"]
    np.testing.assert_array_equal(two.to_numpy(), bases[2])
    # refined separately: the 1-D solution is not the first column of the 2-D one
    assert not np.allclose(one.to_numpy()[:, 0], two.to_numpy()[:, 0])
    np.testing.assert_allclose(np.linalg.norm(two.to_numpy(), axis=0), 1.0)
    X = df.drop(columns="y").to_numpy()
    np.testing.assert_allclose(
        fit.transform(d=1).to_numpy(), (X - X.mean(0)) @ bases[1], rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        fit.transform(df.iloc[:7], d=3).to_numpy(),
        fit.transform(d=3).to_numpy()[:7],
        rtol=1e-12,
        atol=1e-12,
    )
    with pytest.raises(ValueError, match="between 1 and d_max = 3"):
        fit.directions_for(4)
    with pytest.raises(ValueError, match="d_max"):
        fit.transform(d=4)


def test_formula_and_array_fronts_give_identical_numbers(single_index):
    df, _ = single_index
    by_formula = sdr.mave("y ~ a + b + c + e", df, variant="meanmave", d_max=2)
    by_arrays = sdr.MAVE(variant="meanmave", d_max=2).fit(df[["a", "b", "c", "e"]], df["y"])
    for k in (1, 2):
        np.testing.assert_array_equal(by_formula.directions_for(k), by_arrays.directions_for(k))
    pd.testing.assert_frame_equal(by_formula.cv_table, by_arrays.cv_table)


def test_method_names_are_case_insensitive_like_r(single_index):
    df, _ = single_index
    fit = sdr.mave("y ~ a + b + c + e", df, variant="meanOPG", d=1, d_max=1)
    assert fit.variant == "meanopg"


def test_summary_shows_method_bandwidths_iterations_cv_and_directions(classic):
    df, _ = classic
    fit = sdr.mave("y ~ .", df.iloc[:150], variant="csmave", d_max=2)
    text = str(fit.summary())
    for piece in (
        "csMAVE",
        "bandwidth",
        "Iterations by dimension",
        "last change",
        "Cross-validation dimension choice",
        "Estimated basis vectors",
        "x1",
    ):
        assert piece in text
    assert "<table" in fit.summary()._repr_html_()
    assert "tabular" in fit.summary().as_latex()


def test_pickle_round_trip(single_index):
    df, _ = single_index
    fit = sdr.mave("y ~ a + b + c + e", df, variant="meanopg", d_max=2)
    again = pickle.loads(pickle.dumps(fit))
    pd.testing.assert_frame_equal(again.transform(df), fit.transform(df))
    assert str(again.summary()) == str(fit.summary())


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "meanopg"},
        {"variant": "meanmave"},
        {"variant": "csopg"},
        {"variant": "csmave", "y_transform": "kernel", "y_bandwidth": 0.4},
    ],
)
def test_weights_equal_to_duplicated_rows(single_index, options):
    df, _ = single_index
    X = df[["a", "b", "c", "e"]].to_numpy()[:90]
    y = df["y"].to_numpy()[:90]
    est = sdr.MAVE(d=1, d_max=2, **options)
    weights = np.ones(len(y))
    weights[:5] = 3.0
    weighted = est._fit(X, y[:, None], weights=weights)
    rows = np.r_[np.arange(len(y)), np.arange(5), np.arange(5)]
    duplicated = est._fit(X[rows], y[rows, None])
    # at most 100 rows, so every row is a centre in both fits; standardisation, response
    # quantiles, neighbour floors, bandwidths, ridges and every kernel-weighted sum count a
    # row of weight 3 as three rows: equal up to rounding
    np.testing.assert_allclose(weighted.basis, duplicated.basis, atol=1e-8)
    for k in (1, 2):
        np.testing.assert_allclose(
            weighted.extras["bases"][k], duplicated.extras["bases"][k], atol=1e-8
        )


def test_categorical_response_uses_class_indicators():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((240, 3))
    label = np.where(X[:, 0] - X[:, 2] > 0.3, "high", "low")
    df = pd.DataFrame(X, columns=["u", "v", "w"]).assign(label=label)
    fit = sdr.mave("label ~ u + v + w", df, variant="csopg", d=1, d_max=1)
    truth = np.array([[1.0], [0.0], [-1.0]])
    # a sharp class boundary on x1 - x3 (n = 240): this seed gives about 0.1; bound 0.3
    assert sdr.projection_distance(fit.directions, truth) < 0.3
    assert fit.extras["target_kind"] == "classes"


def test_screening_keeps_the_active_predictors_and_zeroes_the_rest():
    rng = np.random.default_rng(9)
    n, p = 120, 40
    X = rng.standard_normal((n, p))
    y = X[:, 0] + X[:, 1] + 0.2 * rng.standard_normal(n)
    fit = sdr.MAVE(variant="meanopg", d=1, d_max=1).fit(X, y)
    kept = fit.extras["kept"]
    assert len(kept) == int(np.ceil(n / np.log(n)))  # R's default ceiling(n / log(n)) = 26
    assert {0, 1} <= set(kept.tolist())
    assert len(fit.screened_out) == p - len(kept)
    direction = fit.directions.to_numpy()[:, 0]
    dropped = np.setdiff1d(np.arange(p), kept)
    assert np.all(direction[dropped] == 0.0)
    assert "Screening (distance correlation) kept 26 of 40" in str(fit.summary())
    # the direction on the kept predictors is (1, 1)/sqrt(2) up to noise (sd 0.2, n = 120,
    # 26 predictors kept): well inside 0.3
    assert sdr.projection_distance(direction[:, None], np.eye(p)[:, :2].sum(1)[:, None]) < 0.3


def test_cv_preferring_no_dependence_warns_and_keeps_d_one():
    # R's criterion picks d = 0 on about half of the seeds of this design; this is one
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 3))
    y = rng.standard_normal(150)
    with pytest.warns(sdr.SDRWarning, match="cross-validation chose d = 0"):
        fit = sdr.MAVE(variant="meanopg", d_max=2).fit(X, y)
    assert fit.d == 1 and fit.test_dimension("cv").d == 0 == fit.d_choice.d
    assert "cross-validation chose d = 0: no evidence" in fit.dimension_line


def test_convergence_warning_when_the_reported_dimension_stalls(single_index):
    df, _ = single_index
    with pytest.warns(sdr.ConvergenceWarning, match="did not reach 'tol' within max_iter = 1"):
        fit = sdr.mave(
            "y ~ a + b + c + e", df, variant="meanmave", d=1, d_max=1, max_iter=1, tol=1e-12
        )
    assert fit.extras["converged"] == {1: False}
    assert fit.extras["iterations"] == {1: 1}


def test_r_runs_a_fixed_number_of_iterations_without_tol(single_index):
    df, _ = single_index
    fit = sdr.mave("y ~ a + b + c + e", df, variant="meanopg", d=1, d_max=4)
    # R MAVE: 5 iterations at every dimension up to 10, no convergence check
    assert fit.extras["iterations"] == {4: 5, 3: 5, 2: 5, 1: 5}
    assert set(fit.extras["converged"].values()) == {None}
    table = fit.summary().blocks[2].table
    assert list(table.columns) == ["bandwidth", "iterations", "last change"]
    assert table["last change"][1] < 1e-3  # the true single index settles within 5 steps


@pytest.mark.parametrize(
    "options,error,message",
    [
        ({"variant": "sir"}, ValueError, "'variant' parameter of MAVE must be one of 'csmave'"),
        ({"d": 0}, ValueError, "'d' parameter of MAVE must be an int >= 1"),
        ({"d_max": 1.5}, TypeError, "'d_max' parameter of MAVE must be an int"),
        ({"bandwidth": -1.0}, ValueError, "'bandwidth' parameter of MAVE must be a float > 0"),
        ({"y_points": 1}, ValueError, "'y_points' parameter of MAVE must be an int >= 2"),
        ({"tol": 0.0}, ValueError, "'tol' parameter of MAVE must be a float > 0"),
        ({"d_rule": "1se"}, ValueError, "'d_rule' parameter of MAVE must be one of 'cv'"),
        ({"y_transform": "cdf"}, ValueError, "'y_transform' parameter of MAVE must be one of"),
        ({"nslices": 5}, TypeError, "unknown option"),
    ],
)
def test_bad_options_raise_clear_errors(options, error, message):
    with pytest.raises(error, match=message):
        sdr.MAVE(**options)


def test_bad_data_raise_clear_errors(single_index):
    df, _ = single_index
    with pytest.raises(ValueError, match="'d' option of mave must be at most p = 4"):
        sdr.mave("y ~ a + b + c + e", df, d=5)
    collinear = df.assign(f=df["a"] + df["b"])
    with pytest.raises(ValueError, match="collinear"):
        sdr.mave("y ~ a + b + f", collinear, variant="meanopg", d=1, d_max=1)
    with pytest.raises(ValueError, match="'y_bandwidth' option of mave is for"):
        sdr.mave("y ~ a + b + c", df, variant="csopg", y_bandwidth=0.3)
    with pytest.raises(ValueError, match="'y_transform' option of mave is for the central"):
        sdr.mave("y ~ a + b + c", df, variant="meanopg", y_transform="kernel")
    with pytest.raises(ValueError, match="at least 10 observations"):
        sdr.mave("y ~ a + b", df.iloc[:8], variant="meanopg")
    with pytest.raises(ValueError, match="screening"):
        sdr.MAVE(variant="meanopg", d=3, screen=2).fit(df[["a", "b", "c"]], df["y"])


def test_multivariate_response_for_mean_methods(single_index):
    df, beta = single_index
    two = df.assign(z=np.cos(df["a"] - df["b"]))
    fit = sdr.mave("y + z ~ a + b + c + e", two, variant="meanopg", d=2, d_max=2)
    # both responses depend on a - b; y also on 0.5 e: the 2-D mean subspace contains beta
    recovered = sdr.projection_distance(
        fit.directions_for(2), np.column_stack([beta[:, 0], [0.0, 0.0, 0.0, 1.0]])
    )
    assert recovered < 0.4  # seeded: about 0.15 here


def test_cv_rule_is_the_minimiser_of_the_table(classic):
    df, _ = classic
    fit = sdr.mave("y ~ .", df, variant="meanopg", d_max=3)
    table = fit.cv_table
    assert fit.test_dimension("cv").d == table["cv"].idxmin() == fit.d
    assert fit.test_dimension().rule == "cv" == fit.d_rule  # the default rule of a MAVE fit
    with pytest.raises(TypeError, match="unexpected keyword argument 'cv_rule'"):
        fit.test_dimension("cv", cv_rule="min")


def test_another_rule_chooses_among_the_bases_of_the_path(classic):
    df, _ = classic
    fit = sdr.mave("y ~ .", df, variant="meanopg", d_max=3, d_rule="bootstrap", random_state=0)
    assert fit.d_rule == "bootstrap" and fit.d == fit.d_choice.d
    # the reported solution is the path's own d-dimensional one, not a refit
    np.testing.assert_array_equal(fit.directions.to_numpy(), fit.extras["bases"][fit.d])


def test_cv_table_with_d_given_is_computed_when_asked_for(classic):
    df, _ = classic
    given = sdr.mave("y ~ .", df.iloc[:150], variant="meanopg", d_max=2, d=1)
    assert given.output.extras["cv"] is None  # no CV work during the fit
    chosen = sdr.mave("y ~ .", df.iloc[:150], variant="meanopg", d_max=2)
    pd.testing.assert_frame_equal(given.cv_table, chosen.cv_table)
    assert given.test_dimension("cv").d == chosen.test_dimension("cv").d


def test_bandwidth_of_each_dimension_is_r_s_rule(classic):
    df, _ = classic
    fit = sdr.mave("y ~ .", df, variant="csopg", d_max=5)
    n = 400
    for k in range(1, 6):
        # R MAVE: h = 1.2 mean sd(ZB) n^{-1/(k+4)}; the whitened ZB has unit variance with
        # divisor n, so sd (divisor n - 1) is sqrt(n / (n - 1)) up to the I/n^5 of whitening
        expected = 1.2 * np.sqrt(n / (n - 1)) * n ** (-1 / (k + 4))
        assert fit.extras["bandwidths"][k] == pytest.approx(expected, rel=1e-10)
    fixed = sdr.mave("y ~ .", df, variant="csopg", d_max=2, bandwidth=0.5)
    assert set(fixed.extras["bandwidths"].values()) == {0.5}


def test_kernel_sir_matches_its_nadaraya_watson_definition():
    from sdrstats.mave.algorithms import kernel_sir

    rng = np.random.default_rng(12)
    Z = rng.standard_normal((30, 3))
    y = rng.standard_normal((30, 1))
    values, vectors = kernel_sir(Z, y, y, 0.5, None)
    K = np.exp(-((y - y.T) ** 2) / (2 * 0.5**2))
    curve = K @ Z / K.sum(axis=1, keepdims=True)
    M = curve.T @ curve / 30
    dense_values, dense_vectors = np.linalg.eigh(M)
    # same symmetric 3x3 matrix, two LAPACK calls: agreement to rounding
    np.testing.assert_allclose(values, dense_values[::-1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.abs(vectors.T @ dense_vectors[:, ::-1]), np.eye(3), atol=1e-8)


def test_bootstrap_refits_at_the_fitted_dimension(classic):
    df, basis = classic
    fit = sdr.mave("y ~ .", df, variant="csopg", d_max=2, d=2)
    boot = fit.bootstrap(B=4, random_state=0, progress=False)
    assert boot.distances.shape == (4,) and np.all(np.isfinite(boot.distances))
    # the fit is 0.28 from the truth; replicates of this seed (B = 8 probe) lie at 0.16-0.37
    # from it but one (0.98), median 0.22; 0.6 is far below sqrt(2), the distance of a
    # replicate that lost one direction, so the check detects a broken refit
    assert np.median(boot.distances) < 0.6
    again = fit.bootstrap(B=4, random_state=0, progress=False)
    np.testing.assert_array_equal(boot.distances, again.distances)
    small = df.iloc[:200]
    # a CV-chosen d is kept by the refits (MaveResults.refit fixes it)
    auto = sdr.mave("y ~ .", small, variant="csopg", d_max=2)
    out = auto.refit(auto.spec.X, auto.spec.Y)
    assert out.d == auto.d and out.basis.shape[1] == auto.d


def test_conditional_density_on_the_mave_predictors(classic):
    df, _ = classic
    small = df.iloc[:200]
    fit = sdr.mave("y ~ .", small, variant="csopg", d=2, d_max=2)
    dens = fit.conditional_density(random_state=0)
    grid = np.linspace(-8, 8, 401)
    pdf = dens.pdf(small.iloc[:3], grid)
    assert pdf.shape == (3, 401) and np.all(pdf >= 0)
    # each row is a density in y: the trapezoid integral over a wide grid is close to one
    # (LSCDE normalises its Gaussian mixture; grid step 0.04 makes the rule exact to 1e-3)
    np.testing.assert_allclose(np.trapezoid(pdf, grid, axis=1), 1.0, atol=0.02)


@pytest.mark.parametrize("method", ["csmave", "meanopg"])
@pytest.mark.parametrize("n", [100, 250])
def test_affine_equivariance_and_row_order_invariance(method, n):
    rng = np.random.default_rng(21)
    X = rng.standard_normal((n, 3))
    y = np.sin(X[:, 0] + X[:, 1]) + 0.5 * X[:, 2] ** 2 + 0.1 * rng.standard_normal(n)
    A = np.array([[2.0, 0.5, 0.0], [0.0, 1.0, -1.0], [0.3, 0.0, 1.5]])
    est = sdr.MAVE(variant=method, d=2, d_max=2)
    base = est.fit(X, y).directions.to_numpy()
    # whitening turns x -> A'x + c into an orthogonal rotation of the whitened predictors, to
    # which the kernels, the choice of centres and every least-squares step are invariant:
    # the fitted subspace maps back exactly (rounding, amplified by at most cond(A) ~ 10)
    moved = est.fit(X @ A + 5.0, y).directions.to_numpy()
    assert sdr.projection_distance(A @ moved, base) < 1e-6
    order = rng.permutation(n)
    shuffled = est.fit(X[order], y[order]).directions.to_numpy()
    if n <= 100:  # every row is a centre: the row order only reorders sums
        assert sdr.projection_distance(shuffled, base) < 1e-6
    else:  # as in R, the centres (one per group of nearest rows) depend on the row order;
        # seeded: the two fits differ by 0.01-0.05, far below their distance to the truth
        assert sdr.projection_distance(shuffled, base) < 0.15


def test_convergence_warning_names_every_stalled_dimension():
    # with tol given, every dimension that did not reach it is named, not only the reported
    ais = sdr.datasets.load("ais")
    formula = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc)"
    with pytest.warns(sdr.ConvergenceWarning) as caught:
        fit = sdr.mave(formula, ais, d_max=5, tol=1e-3)
    stalled = sorted(k for k, ok in fit.extras["converged"].items() if not ok)
    assert stalled == [3, 4] and fit.d == 1
    message = str(caught[0].message)
    assert "did not reach 'tol' within max_iter = 50 iterations for d = 3, 4" in message
    assert "(the reported d = 1 did)" in message
    assert "raise 'max_iter' (e.g. max_iter=100)" in message
    assert "no" in fit.summary().blocks[2].table["converged"].tolist()


def test_the_variant_is_variant_and_method_is_unknown(single_index):
    # R's MAVE calls the variant `method`; here `method` names the estimator only
    df, _ = single_index
    with pytest.raises(TypeError, match=r"mave\(\) got an unknown option 'method'"):
        sdr.mave("y ~ a + b + c + e", df, method="meanopg", d=1, d_max=1)
    with pytest.raises(TypeError, match=r"MAVE\(\) got an unknown option 'method'"):
        sdr.MAVE(method="csopg")
    assert sdr.MAVE(variant="csopg").variant == "csopg"
