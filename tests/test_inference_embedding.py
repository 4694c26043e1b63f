"""Bootstrap of fits without linear directions through their embedding of the training rows."""

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.inference.embedding import embedding_measures


@pytest.fixture(scope="module")
def ais():
    return sdr.datasets.load("ais")


def test_embedding_distance_matches_dense_projectors_and_ignores_rotations():
    rng = np.random.default_rng(0)
    E, F = rng.normal(size=(40, 2)), rng.normal(size=(40, 2))
    dist, rho = embedding_measures(E, F, "projection")

    def proj(A):
        A = A - A.mean(axis=0)
        return A @ np.linalg.pinv(A)

    # exact identity ||P_E - P_F||_F^2 = 2 (d - sum rho^2): agreement to rounding error
    assert dist == pytest.approx(np.linalg.norm(proj(E) - proj(F)), abs=1e-10)
    # canonical correlations from a dense solver: singular values of the whitened cross-covariance
    c = np.cov(np.hstack([E, F]), rowvar=False)
    w = lambda S: np.linalg.inv(np.linalg.cholesky(S))  # noqa: E731
    np.testing.assert_allclose(
        rho, np.linalg.svd(w(c[:2, :2]) @ c[:2, 2:] @ w(c[2:, 2:]).T, compute_uv=False), atol=1e-10
    )
    R = np.array([[0.6, -0.8], [0.8, 0.6]]) * 3.0  # rotation and rescaling, plus a shift
    dist0, rho0 = embedding_measures(E, E @ R + 5.0, "projection")
    assert dist0 == pytest.approx(0.0, abs=1e-7)
    np.testing.assert_allclose(rho0, 1.0, atol=1e-10)


def test_kspca_bootstrap_is_reproducible_and_independent_of_n_jobs(ais):
    fit = sdr.kspca("lbm ~ ht + wt + ssf + bmi", ais, d=2, kernel_y="rbf")
    boot = fit.bootstrap(B=12, random_state=3, progress=False)
    again = fit.bootstrap(B=12, random_state=3, progress=False, n_jobs=2)
    np.testing.assert_array_equal(boot.distances, again.distances)
    assert boot.kind == "embedding" and boot.directions.shape == (12, fit.n, 2)
    assert boot.reference.index.equals(fit.transform().index)
    # canonical correlations lie in [0, 1] and are sorted per replicate
    assert np.all((boot.cosines >= 0) & (boot.cosines <= 1))
    assert np.all(np.diff(boot.cosines, axis=1) <= 1e-12)
    text = str(boot.summary())
    assert "embedding of the training rows" in text and "canonical r" in text


def test_embedding_bootstrap_separates_signal_from_noise():
    # Seeded simulation: with a strong one-index signal the leading kernel component is
    # stable (canonical r near 1); with a response independent of x it is not. The gap
    # (0.99 vs about 0.5 here) is far wider than the replicate noise at B = 15.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 4))
    y_signal = np.tanh(2 * X[:, 0]) + 0.05 * rng.normal(size=120)
    y_noise = rng.normal(size=120)
    stab = []
    for y in (y_signal, y_noise):
        fit = sdr.KSPCA(d=1).fit(X, y)
        stab.append(fit.bootstrap(B=15, random_state=0, progress=False).stability.iloc[0])
    assert stab[0] > 0.95
    assert stab[1] < stab[0] - 0.2


def test_embedding_bootstrap_beyond_the_fit_refits_or_names_the_rank(ais):
    fit = sdr.kspca("lbm ~ ht + wt + ssf + bmi", ais, d=1, kernel_y="rbf", random_state=0)
    boot = fit.bootstrap(B=5, d=3, progress=False)  # more components: the reference is refitted
    assert boot.d == 3 and boot.reference.shape == (202, 3)
    linear = sdr.kspca("lbm ~ ht + wt + ssf + bmi", ais, d=1)  # rank 1: one component exists
    with pytest.raises(ValueError, match="must be at most the rank of the HSIC matrix, 1 here"):
        linear.bootstrap(B=5, d=3, progress=False)


def test_unavailable_rules_say_what_is_available(ais):
    fit = sdr.kspca("lbm ~ ht + wt + ssf + bmi", ais, d=1)
    for rule in ("permutation", "bootstrap"):
        with pytest.raises(
            ValueError,
            match=r"not available for kspca.*Available for this fit: "
            r"test_dimension\('ladle'\) .* and bootstrap\(\)",
        ):
            fit.test_dimension(rule)
    # a kernel of rank 1 has one component: the ladle compares d = 0 with d = 1, whatever d
    # the fit was given (the eigenvalue after the last is 0)
    ladle = fit.test_dimension("ladle", B=10, progress=False)
    assert ladle.table.index.tolist() == [0, 1] and ladle.table["phi"].iloc[1] == 0
