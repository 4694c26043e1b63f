"""Dimension rules: permutation (Cook & Yin), ladle (Luo & Li), bootstrap (Ye & Weiss)."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import sdrstats as sdr
from sdrstats.base.parallel import limit_blas_threads, spawn_seeds
from sdrstats.fitting.estimator import Estimator, EstimatorOutput
from sdrstats.inference import default_d_max, generic_rules


def index_model(n, p, d, seed, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if d == 0:
        y = rng.normal(size=n)
    elif d == 1:
        y = X[:, 0] + noise * rng.normal(size=n)
    else:
        y = X[:, 0] / (0.5 + (X[:, 1] + 1.5) ** 2) + noise * rng.normal(size=n)
    return X, y


class FixedD(Estimator):
    """A toy method fitted at a fixed d with no eigenvalues (as LSCE/MAVE are)."""

    method = "fixedd"

    def __init__(self, *, d: int = 1) -> None:
        self._set_options(locals())

    def _fit(self, X, Y, *, weights=None, random_state=None):
        y = Y.reshape(len(X), -1)[:, 0]
        Xc = X - X.mean(axis=0)
        # directions of E[x y] and E[x y^2]: a small, deterministic criterion-free method
        feats = np.column_stack([y - y.mean(), (y - y.mean()) ** 2, np.abs(y - y.mean())])
        basis = np.linalg.solve(Xc.T @ Xc, Xc.T @ feats)[:, : self.options["d"]]
        basis /= np.linalg.norm(basis, axis=0)
        return EstimatorOutput(basis=basis, d=self.options["d"], criterion=0.0)


def _randomised(p_values, n_permutations, rng):
    # (1 + #{T* >= T}) / (N + 1) is uniform on {1, ..., N+1}/(N+1) under exchangeability;
    # subtracting U/(N+1) makes it exactly continuous-uniform, so a KS test applies.
    return p_values - rng.uniform(size=len(p_values)) / (n_permutations + 1)


def test_permutation_pvalue_uniform_under_the_null():
    # 0D vs >= 1D with y independent of X (exact null) and 1D vs >= 2D under a single-index
    # model (the Cook-Yin null with an estimated direction): 120 seeded runs each, 19
    # permutations (quick settings). A KS p-value below 0.001 would signal a real departure
    # (false alarm rate 0.1% per check for a calibrated test).
    n_perm, runs = 19, 240
    p0, p1 = [], []
    with limit_blas_threads(1):
        for r, seed in enumerate(spawn_seeds(2026, runs)):
            d = r % 2
            X, y = index_model(60, 3, d, seed)
            fit = sdr.SIR(nslices=4).fit(X, y)
            test = fit.test_dimension(
                "permutation",
                n_permutations=n_perm,
                numdir=d + 1,
                random_state=r,
                progress=False,
            )
            (p0 if d == 0 else p1).append(test.table["p_value"].iloc[d])
    rng = np.random.default_rng(0)
    for values in (p0, p1):
        u = _randomised(np.array(values), n_perm, rng)
        assert scipy.stats.kstest(u, "uniform").pvalue > 0.001
        # and the test's size at 0.05 (exact for N = 19): within 3 binomial sds of 0.05
        assert abs(np.mean(np.array(values) <= 0.05) - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 120)


def test_permutation_rejects_a_real_direction():
    X, y = index_model(150, 4, 2, 1, noise=0.1)
    test = (
        sdr.SIR(numdir=3)
        .fit(X, y)
        .test_dimension("permutation", n_permutations=99, random_state=0, progress=False)
    )
    # 0D and 1D are rejected at the smallest attainable p-value (1/100), 2D is not.
    assert test.table["p_value"].iloc[0] == pytest.approx(0.01)
    assert test.d == 2
    assert test.rule == "permutation" and test.n_replicates == 99 and test.random_state == 0


def test_permutation_independent_of_n_jobs():
    X, y = index_model(100, 4, 1, 2)
    fit = sdr.SAVE(numdir=2).fit(X, y)
    a = fit.test_dimension("permutation", n_permutations=20, random_state=3, progress=False)
    b = fit.test_dimension(
        "permutation", n_permutations=20, random_state=3, n_jobs=2, progress=False
    )
    np.testing.assert_array_equal(a.extras["permuted_statistics"], b.extras["permuted_statistics"])


@pytest.mark.parametrize("d", [1, 2])
def test_ladle_and_bootstrap_rule_find_the_dimension(d):
    # Strong signal, n = 400: both rules must find the true d on each of two seeds.
    for seed in (10, 11):
        X, y = index_model(400, 6, d, seed, noise=0.1)
        fit = sdr.SIR().fit(X, y)
        ladle = fit.test_dimension("ladle", B=60, random_state=seed, progress=False)
        assert ladle.d == d
        assert list(ladle.table.index) == list(range(default_d_max(6) + 1))
        assert ladle.table["f"].iloc[0] == 0.0
        np.testing.assert_allclose(ladle.table["g"], ladle.table["f"] + ladle.table["phi"])
    boot = fit.test_dimension("bootstrap", B=60, random_state=0, progress=False)
    if d == 1:  # Ye-Weiss picks the least variable k; with d = 2 Dir1 alone is stable too
        assert boot.d == 1
    assert boot.table["mean_distance"].iloc[d] > boot.table["mean_distance"].iloc[d - 1]


def test_default_d_max_follows_luo_and_li():
    assert [default_d_max(p) for p in (3, 10, 11, 20, 100)] == [1, 8, 4, 6, 21]


def test_method_without_eigenvalues():
    X, y = index_model(150, 4, 1, 3)
    fit = FixedD(d=1).fit(X, y)
    for rule in ("permutation", "ladle"):
        with pytest.raises(
            ValueError, match=f"'{rule}' dimension test is not available for fixedd"
        ):
            fit.test_dimension(rule)
    boot = fit.test_dimension("bootstrap", B=20, d_max=2, random_state=0, progress=False)
    assert list(boot.table.index) == [1, 2]
    assert boot.d == 1  # the E[xy] direction is stable; the 2D span adds a noisy one
    assert fit.bootstrap(B=10, random_state=0, progress=False).engine == "refit on resampled rows"
    two = fit.bootstrap(B=10, d=2, random_state=0, progress=False)  # refitted at d = 2
    assert two.d == 2


def test_results_print_plot_and_html():
    import matplotlib

    matplotlib.use("Agg")
    ais = sdr.datasets.load("ais")
    fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    for rule, opts in [
        ("permutation", {"n_permutations": 19, "numdir": 2}),
        ("ladle", {"B": 20}),
        ("bootstrap", {"B": 20}),
        ("asymptotic", {}),
    ]:
        kwargs = {**opts, "progress": False, "random_state": 5} if opts else {}
        test = fit.test_dimension(rule, **kwargs)
        assert f"Chosen d = {test.d}" in str(test)
        assert "<table" in test._repr_html_()
        assert test.plot() is not None
        if opts:
            assert "random_state = 5" in str(test) and test.n_replicates in (19, 20)


def test_rule_options_are_checked():
    X, y = index_model(100, 4, 1, 4)
    fit = sdr.SIR().fit(X, y)
    with pytest.raises(TypeError, match="unknown option 'n_perm'; did you mean 'n_permutations'"):
        fit.test_dimension("permutation", n_perm=10)
    with pytest.raises(ValueError, match="'n_permutations' option of the permutation test"):
        fit.test_dimension("permutation", n_permutations=0)
    with pytest.raises(ValueError, match="'d_max' option of the permutation test must be"):
        fit.test_dimension("permutation", numdir=9)
    with pytest.raises(ValueError, match="'d_max' option of the ladle rule must be"):
        fit.test_dimension("ladle", d_max=7)
    with pytest.raises(ValueError, match="'distance' option of the bootstrap rule"):
        fit.test_dimension("bootstrap", distance="angles")
    with pytest.raises(ValueError, match="'level' option of the permutation test must be"):
        fit.test_dimension("permutation", level=0)


def test_generic_rules_hook():
    X, y = index_model(60, 3, 1, 5)
    rules = generic_rules(sdr.SIR().fit(X, y))
    assert sorted(rules) == ["bootstrap", "cv", "ladle", "permutation", "ratio"]
    assert "Ladle" in rules["ladle"].__doc__


def test_cook_yin_permutation_keeps_the_first_m_reduced_predictors():
    # The permuted predictors must leave (y, first m reduced predictors) untouched, and keep
    # the mean and the covariance of each part (only their cross-covariance is scrambled,
    # which is what the hypothesis says carries no information).
    from sdrstats.inference.permutation import _Whitening

    X, y = index_model(120, 4, 2, 6)
    fit = sdr.SIR().fit(X, y)
    white = _Whitening(X)
    basis = fit.output.basis[:, :2]
    q1, q2 = white.split(basis)
    perm = np.random.default_rng(0).permutation(len(X))
    Z = white.Z
    Xp = white.to_x(Z @ q1 @ q1.T + (Z @ q2)[perm] @ q2.T)
    np.testing.assert_allclose((Xp - X.mean(0)) @ basis, (X - X.mean(0)) @ basis, atol=1e-10)
    np.testing.assert_allclose(Xp.mean(axis=0), X.mean(axis=0), atol=1e-10)
    Zp = np.linalg.solve(white.chol, (Xp - white.mean).T).T
    np.testing.assert_allclose((Zp @ q2).T @ (Zp @ q2), (Z @ q2).T @ (Z @ q2), atol=1e-8)
    assert not np.allclose(Xp, X)
    # and the observed statistic is the sum of the remaining eigenvalues
    test = fit.test_dimension("permutation", n_permutations=2, random_state=0, progress=False)
    ev = fit.output.eigenvalues
    np.testing.assert_allclose(test.table["stat"], [ev[m:].sum() for m in range(4)], rtol=1e-12)


def test_mave_permutation_test_reaches_above_the_fit_s_d():
    # MAVE keeps one solution per dimension: the test reads the solution one dimension above
    # the fit's d (refitted at that dimension), so it can choose more than the d it was given
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4))
    y = X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.standard_normal(200)
    fit = sdr.MAVE(d=1, max_iter=2, random_state=0).fit(X, y)
    quick = {"n_permutations": 19, "progress": False}
    test = fit.test_dimension("permutation", **quick)
    assert test.table.index.tolist() == ["0D vs >= 1D", "1D vs >= 2D"]
    assert test.d == 2 > fit.d  # the second direction is found though d = 1 was given
    wider = fit.test_dimension("permutation", d_max=3, **quick)
    assert len(wider.table) == 3
    values = np.sort(np.abs(fit.output.extras["eigenvalues_by_dim"][3]))[::-1]
    np.testing.assert_allclose(wider.table["stat"], [values[m:].sum() for m in range(3)])


def test_one_se_choice_takes_the_simplest_candidate_within_one_paired_se():
    from sdrstats.inference.cv import one_se_choice

    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.4, size=200)
    # candidate 2 beats candidate 1 by 0.002 on average, with row-wise noise of sd 0.05 (paired
    # se about 0.0035): indistinguishable, so the simpler one is taken; candidate 0 is far worse
    shift = rng.normal(0.0, 0.05, size=200)
    shift -= shift.mean()
    losses = np.column_stack([base + 0.1, base, base - 0.002 + shift])
    assert int(np.argmin(losses.mean(axis=0))) == 2
    chosen, se = one_se_choice(losses)
    assert chosen == 1
    assert se[2] == 0.0 and se[1] == pytest.approx(shift.std(ddof=1) / np.sqrt(200))
    # a clear gain (0.05, thirty times its se) is kept
    losses[:, 2] = base - 0.05 + shift / 10
    assert one_se_choice(losses)[0] == 2


def test_cv_dimension_choice_option():
    from sdrstats.inference.cv import cv_dimension

    X, y = index_model(150, 4, 1, seed=4)
    frame = pd.DataFrame({f"x{j + 1}": X[:, j] for j in range(4)} | {"y": y})
    fit = sdr.sir("y ~ x1 + x2 + x3 + x4", frame, d=2)
    plain = cv_dimension(fit)
    assert "se" not in plain.table.columns
    assert plain.d == int(plain.table["cv"].idxmin())  # the default stays the minimiser
    assert plain.describe() == "cross-validation"
    one_se = cv_dimension(fit, choice="1se")
    assert np.allclose(one_se.table["cv"], plain.table["cv"])
    assert one_se.d <= plain.d and one_se.table.loc[plain.d, "se"] == 0.0
    assert one_se.describe() == "cross-validation with the one-standard-error rule"
    with pytest.raises(ValueError, match="'choice' option of the cv rule"):
        cv_dimension(fit, choice="smallest")
