"""The Grassmann natural-gradient optimiser (sdrstats.stats.grassmann)."""

import numpy as np
import scipy.linalg

from sdrstats.stats.grassmann import (
    geodesic,
    grassmann_minimize,
    orthogonal_complement,
    random_orthonormal_rows,
)


def test_geodesic_matches_the_matrix_exponential_formula():
    rng = np.random.default_rng(0)
    d, p = 2, 6
    W = random_orthonormal_rows(d, p, rng)
    W_perp = orthogonal_complement(W)
    B = rng.standard_normal((d, p - d))
    A = np.block([[np.zeros((d, d)), B], [-B.T, np.zeros((p - d, p - d))]])
    for t in (0.0, 0.3, 1.7):
        dense = (scipy.linalg.expm(-t * A) @ np.vstack([W, W_perp]))[:d]
        # Both are exact; the difference is rounding of p x p products (~1e-15).
        np.testing.assert_allclose(geodesic(W, W_perp, B, t), dense, atol=1e-12)
        np.testing.assert_allclose(
            geodesic(W, W_perp, B, t) @ geodesic(W, W_perp, B, t).T, np.eye(d), atol=1e-12
        )


def test_geodesic_starts_along_the_natural_gradient():
    rng = np.random.default_rng(1)
    W = random_orthonormal_rows(2, 5, rng)
    W_perp = orthogonal_complement(W)
    G = rng.standard_normal((2, 5))
    B = G @ W_perp.T
    h = 1e-6
    velocity = (geodesic(W, W_perp, B, h) - geodesic(W, W_perp, B, -h)) / (2 * h)
    natural = G - G @ W.T @ W
    # central difference error O(h^2) ~ 1e-12, divided by h -> ~1e-9 rounding
    np.testing.assert_allclose(velocity, -natural, atol=1e-7)


def test_minimize_finds_the_leading_eigenspace():
    rng = np.random.default_rng(2)
    Q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    A = Q @ np.diag([6.0, 5.0, 2.0, 1.0, 0.5, 0.1]) @ Q.T

    def fun(W):
        return -np.trace(W @ A @ W.T), -2.0 * W @ A

    res = grassmann_minimize(fun, random_orthonormal_rows(2, 6, rng), max_iter=500, tol=1e-12)
    assert res.converged
    top = Q[:, :2]
    # Eigen-gap 3: the projection error of a 1e-12-accurate objective is ~1e-6.
    np.testing.assert_allclose(res.W.T @ res.W, top @ top.T, atol=1e-5)
    assert res.value == np.min(res.trace)
    assert all(b <= a + 1e-12 for a, b in zip(res.trace, res.trace[1:]))


def test_minimize_reports_no_convergence_at_max_iter():
    A = np.diag([3.0, 2.9, 1.0, 0.5])

    def fun(W):
        return -np.trace(W @ A @ W.T), -2.0 * W @ A

    res = grassmann_minimize(fun, np.array([[0.1, 0.2, 0.7, 0.7]]), max_iter=2, tol=1e-14)
    assert not res.converged
    assert res.n_iter == 2


def test_callback_can_change_the_objective():
    A = np.diag([3.0, 1.0, 0.5])
    state = {"A": A}

    def fun(W):
        return -np.trace(W @ state["A"] @ W.T), -2.0 * W @ state["A"]

    def callback(it, W):
        if it == 3:
            state["A"] = np.diag([0.5, 1.0, 3.0])
            return True
        return False

    res = grassmann_minimize(
        fun, np.array([[0.6, 0.6, 0.52915026]]), max_iter=300, tol=1e-12, callback=callback
    )
    # After the switch the optimum is the third axis.
    assert abs(res.W[0, 2]) > 0.999


def test_lsce_objective_descends_monotonically_at_fixed_tuning():
    from sdrstats.stats.gaussian import BasisProblem

    rng = np.random.default_rng(4)
    X = rng.standard_normal((80, 4))
    Y = (X[:, 1] + 0.3 * rng.standard_normal(80)).reshape(-1, 1)
    problem = BasisProblem(X, Y, np.arange(0, 80, 2), "sce")
    res = grassmann_minimize(
        problem.objective(0.5, 0.01), random_orthonormal_rows(1, 4, rng), max_iter=200, tol=1e-10
    )
    # Armijo steps never increase the objective (1e-15: rounding of the value).
    assert all(b <= a + 1e-15 for a, b in zip(res.trace, res.trace[1:]))
    assert res.converged
    # The single relevant direction is x2: |cos| > 0.95 fails for any other axis.
    assert abs(res.W[0, 1]) > 0.95
