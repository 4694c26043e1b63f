"""Kernel dimension reduction: gradient, recovery with known truth, annealing, errors."""

import warnings

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.spca.kdr import KDRObjective
from sdrstats.stats.distances import projection_distance


@pytest.mark.parametrize("sigma", [0.7, 2.0])
def test_gradient_matches_finite_differences(sigma):
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((40, 5))
    R = rng.standard_normal((40, 3))
    objective = KDRObjective(Z, R, sigma, 1e-3)
    W = np.linalg.qr(rng.standard_normal((5, 2)))[0].T
    _, grad = objective(W)
    for _ in range(3):
        E = rng.standard_normal(W.shape)
        h = 1e-6
        numeric = (objective(W + h * E)[0] - objective(W - h * E)[0]) / (2 * h)
        # central differences: O(h^2) truncation plus O(eps/h) rounding ~ 1e-9 relative
        assert np.sum(grad * E) == pytest.approx(numeric, rel=1e-6)


def test_objective_is_the_trace_formula_written_out():
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((30, 3))
    R = rng.standard_normal((30, 2))
    W = np.eye(3)[:2]
    n, sigma, eps = 30, 1.3, 1e-2
    S = Z @ W.T
    G = np.exp(-((S[:, None] - S[None]) ** 2).sum(-1) / (2 * sigma**2))
    H = np.eye(n) - 1.0 / n
    GY = H @ R @ R.T @ H
    reference = np.trace(GY @ np.linalg.inv(H @ G @ H + n * eps * np.eye(n)))
    value, _ = KDRObjective(Z, R, sigma, eps)(W)
    assert value == pytest.approx(reference, rel=1e-10)


def test_recovers_the_central_subspace_of_a_nonlinear_model():
    # Slide 20's model (a): y = x1/(0.5 + (x2 + 1.5)^2) + (1 + x2)^2 + 0.5 eps, central subspace
    # span(e1, e2). SPCA with a linear kernel only sees one direction; KDR finds both. Over
    # seeds 0..4 the projection distance was 0.09-0.28 at n = 150 (0.15 for this seed); a
    # random 2-D subspace of R^4 sits near 1.4, so < 0.35 is a clear recovery.
    rng = np.random.default_rng(7)
    X = rng.standard_normal((150, 4))
    y = X[:, 0] / (0.5 + (X[:, 1] + 1.5) ** 2) + (1 + X[:, 1]) ** 2 + 0.5 * rng.standard_normal(150)
    fit = sdr.KDR(d=2).fit(X, y)
    assert projection_distance(fit.directions.to_numpy(), np.eye(4)[:, :2]) < 0.35
    trace = fit.extras["stage_values"]
    assert fit.criterion == pytest.approx(trace[-1])


def test_cv_rule_finds_three_directions_when_three_are_needed():
    # three responses, each following its own predictor: the default rule must stop at d = 3
    # (measured over seeds 0..5 at n = 150: d = 3 every time)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 5))
    Y = X[:, :3] + 0.2 * rng.standard_normal((150, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        fit = sdr.KDR(random_state=0).fit(X, Y)
    cv = fit.d_choice.table["cv"]
    assert fit.d_rule == "cv" and fit.d_choice.d == 3 and fit.d == 3
    assert cv[3] < cv[2] < cv[1] and cv[3] < cv[4]
    assert projection_distance(fit.directions.to_numpy(), np.eye(5)[:, :3]) < 0.3


def test_single_index_classification_and_formula(ais):
    fit = sdr.kdr("sex ~ ht + wt + lbm + ssf", ais, d=1, n_anneal=3, max_iter=10)
    assert fit.directions.shape == (4, 1)
    assert "Kernel-width annealing" in str(fit.summary())
    np.testing.assert_allclose(np.linalg.norm(fit.directions, axis=0), 1.0)


def test_restarts_are_seeded_and_never_worse_than_one_start():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 4))
    y = np.sin(2 * X[:, 2]) + 0.2 * rng.standard_normal(80)
    one = sdr.KDR(d=1, n_anneal=2, max_iter=10).fit(X, y)
    many = sdr.KDR(d=1, n_anneal=2, max_iter=10, n_restarts=3, random_state=0).fit(X, y)
    again = sdr.KDR(d=1, n_anneal=2, max_iter=10, n_restarts=3, random_state=0).fit(X, y)
    assert many.criterion <= one.criterion + 1e-12
    np.testing.assert_array_equal(many.directions, again.directions)


def test_iteration_limit_warns():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 3))
    y = X[:, 0] ** 2 + 0.1 * rng.standard_normal(60)
    with pytest.warns(sdr.ConvergenceWarning, match="kdr stopped after max_iter = 1"):
        sdr.KDR(d=1, n_anneal=1, max_iter=1).fit(X, y)


def test_weights_are_repeated_rows():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 3))
    y = X[:, 0] + 0.1 * rng.standard_normal(40)
    w = rng.integers(0, 3, 40).astype(float)
    est = sdr.KDR(d=1, n_anneal=2, max_iter=5)
    keep = np.repeat(np.arange(40), w.astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        a = est._fit(X, y[:, None], weights=w)
        b = est._fit(X[keep], y[keep, None])
    np.testing.assert_allclose(a.basis, b.basis, atol=1e-12)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"d": 5}, r"'d' option of kdr must be at most p = 4"),
        ({"eps": 0.0}, r"'eps' parameter of KDR must be a float > 0"),
        ({"sigma": -1.0}, r"'sigma' parameter of KDR must be a float > 0"),
        ({"gamma_y": 0.0}, r"'gamma_y' parameter of KDR must be a float > 0"),
        ({"n_anneal": 0}, r"'n_anneal' parameter of KDR must be an int >= 1"),
    ],
)
def test_bad_options_raise_clear_errors(ais, options, message):
    with pytest.raises(ValueError, match=message):
        sdr.kdr("lbm ~ ht + wt + ssf + bmi", ais, **options)


def test_bad_data_raise_clear_errors(ais):
    X = ais[["ht", "wt", "bmi"]]
    with pytest.raises(ValueError, match="response is constant; kdr needs a response"):
        sdr.KDR(d=1).fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="predictors are collinear"):
        sdr.KDR(d=1).fit(np.column_stack([X, X["ht"] * 2]), ais["lbm"])
    with pytest.raises(ValueError, match="kdr whitens the predictors and needs n > p"):
        sdr.KDR(d=1).fit(X.iloc[:3], ais["lbm"].iloc[:3])


def test_fourier_objective_gradient_and_agreement_with_the_exact_one():
    from sdrstats.spca.kdr_objectives import FourierKDRObjective

    rng = np.random.default_rng(8)
    Z = rng.standard_normal((200, 4))
    R = rng.standard_normal((200, 2))
    W = np.linalg.qr(rng.standard_normal((4, 2)))[0].T
    omega, phase = rng.standard_normal((800, 2)), rng.uniform(0, 2 * np.pi, 800)
    fourier = FourierKDRObjective(Z, R, 1.2, 1e-2, omega, phase)
    value, grad = fourier(W)
    E = rng.standard_normal(W.shape)
    h = 1e-6
    numeric = (fourier(W + h * E)[0] - fourier(W - h * E)[0]) / (2 * h)
    assert np.sum(grad * E) == pytest.approx(numeric, rel=1e-6)  # central differences
    # 800 features: the Gram matrix errs by O(1/sqrt(m)) ~ 0.04 per entry, and the criterion
    # (a smooth trace of it) far less: 0.04-0.06 % over three draws, so 1 % is a wide margin.
    exact, _ = KDRObjective(Z, R, 1.2, 1e-2)(W)
    assert value == pytest.approx(exact, rel=0.01)


def test_fourier_route_recovers_the_subspace():
    # Same model as the exact recovery test; 300 random features. Observed distance 0.10 at
    # n = 300 with 5 stages; 2 short stages at n = 200 keep the test fast, 0.4 leaves room.
    rng = np.random.default_rng(9)
    X = rng.standard_normal((200, 4))
    y = X[:, 0] / (0.5 + (X[:, 1] + 1.5) ** 2) + (1 + X[:, 1]) ** 2 + 0.5 * rng.standard_normal(200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        fit = sdr.KDR(d=2, approximation="fourier", n_anneal=3, max_iter=15, random_state=0).fit(
            X, y
        )
    assert "random Fourier features" in fit.extras["method_details"]
    assert projection_distance(fit.directions.to_numpy(), np.eye(4)[:, :2]) < 0.4


def test_fractional_weights_are_rejected():
    X = np.random.default_rng(0).standard_normal((20, 2))
    with pytest.raises(ValueError, match="kdr accepts only non-negative integer case weights"):
        sdr.KDR(d=1)._fit(X, X[:, :1], weights=np.full(20, 0.5))
