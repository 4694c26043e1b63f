"""Lasso-SIR (Lin, Zhao & Liu 2019): recovery, p > n, the algebra, options and errors."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Lasso

import sdrstats as sdr
from sdrstats.inference.ratio import ratio_choice
from sdrstats.online.lasso_sir import (
    kmeans_dimension,
    refit_union,
    slice_mean_eigen,
    two_means_smaller_group,
)
from sdrstats.simulate import sparse_single_index


def _arrays(n, p, seed):
    df, beta = sparse_single_index(n, p, random_state=seed)
    return df.drop(columns="y").to_numpy(), df["y"].to_numpy(), beta[:, 0]


def test_sparse_single_index_distance_averaged_over_20_seeds():
    # The sparse single index x ~ N(0, I_100), beta = (1,1,1,1,1,0,...)/sqrt(5),
    # y = x'beta + 0.5 eps, n = 200. Target: mean 1 - |beta' beta_hat| <= 0.05 over 20 seeds
    # (R LassoSIR gets about 0.015 on one draw; this implementation averages 0.019 with the
    # default refit, here the ridge on the direction's own support, 0.017 with refit="ols"
    # and 0.009 with refit=False).
    distances = []
    for seed in range(20):
        X, y, beta = _arrays(200, 100, seed)
        fit = sdr.LassoSIR(d=1, random_state=seed).fit(X, y)
        distances.append(1 - abs(fit.directions.to_numpy()[:, 0] @ beta))
    assert np.mean(distances) <= 0.05


def test_p_larger_than_n_selects_the_support():
    X, y, beta = _arrays(200, 1000, 1)
    fit = sdr.LassoSIR(d_rule="ratio", random_state=0).fit(X, y)
    assert fit.d == 1  # chosen by the eigenvalue-ratio rule
    assert {"x1", "x2", "x3", "x4", "x5"} <= set(fit.selected()["Dir1"])
    # with p = 5n the CV Lasso keeps some noise predictors; 0.1 leaves room for them
    # (this draw gives 0.049)
    assert 1 - abs(fit.directions.to_numpy()[:, 0] @ beta) < 0.1
    assert len(fit.selected()["Dir1"]) < 200  # sparse: far fewer than p


def test_gram_eigen_matches_dense_eigen_of_the_slice_kernel():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((120, 15))
    X -= X.mean(axis=0)
    labels = rng.integers(0, 6, 120)
    values, eta, means, fractions = slice_mean_eigen(X, labels, 6)
    gamma = (means.T * fractions) @ means
    dense = np.sort(np.linalg.eigvalsh(gamma))[::-1][:6]
    np.testing.assert_allclose(values, dense, atol=1e-12)  # same matrix, two routes
    for j in range(5):
        np.testing.assert_allclose(gamma @ eta[:, j], values[j] * eta[:, j], atol=1e-12)


def test_pseudo_response_reproduces_the_eigenvector():
    # Z'Y~_j / n = eta_j exactly (Lin et al.'s identity behind the Lasso step), Z the
    # standardised predictors
    X, y, _ = _arrays(150, 40, 2)
    fit = sdr.LassoSIR(d=2, random_state=0).fit(X, y)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    eta = fit.extras["kernel_vectors"]
    np.testing.assert_allclose(Z.T @ fit.extras["pseudo_response"] / 150, eta, atol=1e-10)


def test_fixed_penalty_is_the_theoretical_mu_and_one_sklearn_lasso():
    X, y, _ = _arrays(150, 40, 4)
    fit = sdr.LassoSIR(d=1, penalty=0.5, refit=False).fit(X, y)
    lam = fit.eigenvalues.iloc[0]
    mu = 0.5 * np.sqrt(np.log(40) / (150 * lam))
    assert fit.extras["penalties"][0] == pytest.approx(mu, rel=1e-12)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    coef = (
        Lasso(alpha=mu, fit_intercept=False, max_iter=5000)
        .fit(Z, fit.extras["pseudo_response"][:, 0])
        .coef_
    ) / X.std(axis=0)  # back to the original scale
    expected = coef / np.linalg.norm(coef)
    expected *= np.sign(expected[np.argmax(np.abs(expected))])
    np.testing.assert_allclose(fit.directions.to_numpy()[:, 0], expected, atol=1e-10)
    # refit="ols": least squares of the pseudo-response on the Lasso's support
    refitted = sdr.LassoSIR(d=1, penalty=0.5, refit="ols").fit(X, y)
    support = np.flatnonzero(coef)
    np.testing.assert_array_equal(np.flatnonzero(refitted.directions.to_numpy()[:, 0]), support)
    ls = np.linalg.lstsq(Z[:, support], fit.extras["pseudo_response"][:, 0], rcond=None)[0]
    ls = ls / X.std(axis=0)[support]
    ls /= np.linalg.norm(ls)
    ls *= np.sign(ls[np.argmax(np.abs(ls))])
    np.testing.assert_allclose(refitted.directions.to_numpy()[support, 0], ls, atol=1e-10)
    assert not np.allclose(ls, expected[support], atol=1e-3)  # the refit removes shrinkage


def _lasso_support_and_target(X, seed=0):
    """The d = 1 Lasso support at penalty 0.5 (no refit) and the pseudo-response."""
    bare = sdr.LassoSIR(d=1, penalty=0.5, refit=False, random_state=seed).fit(X[0], X[1])
    support = np.flatnonzero(bare.extras["coef_standardized"][:, 0])
    return support, bare.extras["pseudo_response"][:, 0]


def test_ridge_refit_is_ridge_on_the_lasso_support():
    # refit="ridge" (the default before "union"): ridge regression of the pseudo-response on
    # the Lasso's support, penalty 0.1 n on the unit-variance columns; scikit-learn's Ridge
    # (its own intercept) on the same columns is the independent computation
    from sklearn.linear_model import Ridge

    X, y, _ = _arrays(150, 40, 4)
    support, target = _lasso_support_and_target((X, y))
    assert 1 < support.size < 20  # a refit that can differ from a rescaling
    fit = sdr.LassoSIR(d=1, penalty=0.5, refit="ridge").fit(X, y)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    expected = np.zeros(40)
    expected[support] = Ridge(alpha=0.1 * 150).fit(Z[:, support], target).coef_
    np.testing.assert_allclose(fit.extras["coef_standardized"][:, 0], expected, atol=1e-10)
    # one direction: its support is the union, so the default refit is the same numbers
    default = sdr.LassoSIR(d=1, penalty=0.5).fit(X, y)
    assert default.options["refit"] == "nested"
    np.testing.assert_array_equal(
        default.extras["coef_standardized"], fit.extras["coef_standardized"]
    )
    # the same support as the least-squares refit; other values (the predictors are
    # correlated, so the ridge is not a rescaling of least squares)
    ols = sdr.LassoSIR(d=1, penalty=0.5, refit="ols").fit(X, y).extras["coef_standardized"]
    np.testing.assert_array_equal(np.flatnonzero(ols[:, 0]), support)
    unit = expected / np.linalg.norm(expected)
    assert not np.allclose(unit, ols[:, 0] / np.linalg.norm(ols[:, 0]), atol=1e-6)


def _two_index(n=200, p=30, seed=8):
    """A two-index model whose directions use different predictors (x1-x3 and x4-x5)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = np.sin(X[:, :3].sum(axis=1) / 1.7) * np.exp(X[:, 3:5].sum(axis=1) / 1.4)
    return X, y + 0.3 * rng.standard_normal(n)


def test_default_nested_refit_is_ridge_on_the_supports_up_to_each_direction():
    # refit="nested" (the default): direction j refitted by ridge (0.1 n) on the union of the
    # Lasso supports of directions 1..j, so the first is the own-support ridge refit
    from sklearn.linear_model import Ridge

    X, y = _two_index()
    bare = sdr.LassoSIR(d=2, penalty=0.5, refit=False).fit(X, y)
    lasso = bare.extras["coef_standardized"]
    assert set(np.flatnonzero(lasso[:, 0])) != set(np.flatnonzero(lasso[:, 1]))
    union = np.flatnonzero(lasso.any(axis=1))
    fit = sdr.LassoSIR(d=2, penalty=0.5).fit(X, y)
    assert fit.options["refit"] == "nested"
    coef = fit.extras["coef_standardized"]
    own = sdr.LassoSIR(d=2, penalty=0.5, refit="ridge").fit(X, y).extras["coef_standardized"]
    np.testing.assert_array_equal(coef[:, 0], own[:, 0])
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    expected = np.zeros(X.shape[1])
    target = bare.extras["pseudo_response"][:, 1]
    expected[union] = Ridge(alpha=0.1 * X.shape[0]).fit(Z[:, union], target).coef_
    np.testing.assert_allclose(coef[:, 1], expected, atol=1e-10)
    assert not np.allclose(coef[:, 1], own[:, 1])
    text = str(sdr.lasso_sir("y ~ .", pd.DataFrame(X).add_prefix("x").assign(y=y), d=2,
                             penalty=0.5).summary())  # fmt: skip
    assert "refit: ridge on the union of the supports of each direction and those before" in text


def test_union_refit_is_ridge_on_the_union_of_the_supports():
    # refit="union": every direction refitted by ridge (0.1 n) on the union of the
    # directions' Lasso supports; scikit-learn's Ridge on those columns is the check
    from sklearn.linear_model import Ridge

    X, y = _two_index()
    bare = sdr.LassoSIR(d=2, penalty=0.5, refit=False).fit(X, y)
    lasso = bare.extras["coef_standardized"]
    supports = [set(np.flatnonzero(lasso[:, j])) for j in range(2)]
    assert supports[0] != supports[1] and all(supports)  # the union differs from each
    union = np.flatnonzero(lasso.any(axis=1))
    fit = sdr.LassoSIR(d=2, penalty=0.5, refit="union").fit(X, y)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    coef = fit.extras["coef_standardized"]
    for j in range(2):
        target = bare.extras["pseudo_response"][:, j]
        expected = np.zeros(X.shape[1])
        expected[union] = Ridge(alpha=0.1 * X.shape[0]).fit(Z[:, union], target).coef_
        np.testing.assert_allclose(coef[:, j], expected, atol=1e-10)
    # each direction's non-zero coefficients are the union: no row of the basis is added
    np.testing.assert_array_equal(np.flatnonzero(coef.any(axis=1)), union)
    assert np.all(np.count_nonzero(coef, axis=0) == union.size)
    assert "refit: ridge on the union of the directions' supports" in str(fit.summary())


def test_union_refit_chooses_d_as_the_own_support_refit():
    # d is chosen before the union refit, from each direction refitted on its own support:
    # the same k-means statistic and d as refit="ridge"; only the chosen directions differ
    X, y = _two_index(seed=9)
    fits = {
        refit: sdr.LassoSIR(penalty=0.5, d_rule="kmeans", refit=refit).fit(X, y)
        for refit in ("nested", "union", "ridge")
    }
    for refit in ("nested", "union"):
        np.testing.assert_array_equal(
            fits[refit].extras["d_statistic"], fits["ridge"].extras["d_statistic"]
        )
    assert fits["nested"].d == fits["union"].d == fits["ridge"].d == 2
    assert not np.allclose(
        fits["union"].extras["coef_standardized"], fits["ridge"].extras["coef_standardized"]
    )


def test_refit_union_keeps_an_empty_direction_and_a_too_large_union():
    rng = np.random.default_rng(10)
    Z = rng.standard_normal((40, 12))
    Z = (Z - Z.mean(axis=0)) / Z.std(axis=0)
    targets = rng.standard_normal((40, 3))
    coefs = np.zeros((12, 3))
    coefs[[0, 1], 0], coefs[[2, 3], 1] = 1.0, 1.0  # the third direction selected nothing
    out = refit_union(Z, targets, coefs)
    assert not out[:, 2].any()
    union = [0, 1, 2, 3]
    for j in range(2):
        A = Z[:, union] - Z[:, union].mean(axis=0)
        t = targets[:, j] - targets[:, j].mean()
        expected = np.linalg.solve(A.T @ A + 0.1 * 40 * np.eye(4), A.T @ t)
        np.testing.assert_allclose(out[union, j], expected, atol=1e-12)
    # nested: the first column is kept, the second refitted on the first two supports
    nested = refit_union(Z, targets, coefs, nested=True)
    np.testing.assert_array_equal(nested[:, 0], coefs[:, 0])
    np.testing.assert_allclose(nested[:, 1], out[:, 1], atol=1e-12)
    assert not nested[:, 2].any()
    # a union of n - 1 or more predictors is not refitted (as a direction's own support)
    wide = np.zeros((50, 2))
    wide[:39, 0], wide[39:, 1] = 1.0, 1.0
    Zw = rng.standard_normal((40, 50))
    np.testing.assert_array_equal(refit_union(Zw, targets[:, :2], wide), wide)


def test_ols_refit_is_least_squares_and_true_is_its_older_name():
    # refit="ols" was the default before the ridge refit (refit=True then): least squares on
    # the Lasso's support, in the fit's scale, both spellings the same numbers; on two
    # directions chosen by the k-means rule, each refitted on its own support
    X, y, _ = _arrays(150, 40, 5)
    fits = [
        sdr.LassoSIR(d=2, penalty=0.5, refit=refit, random_state=0).fit(X, y)
        for refit in ("ols", True, False)
    ]
    ols, old_name, bare = (f.extras["coef_standardized"] for f in fits)
    np.testing.assert_array_equal(ols, old_name)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    for j in range(2):
        support = np.flatnonzero(bare[:, j])
        target = fits[2].extras["pseudo_response"][:, j]
        A = Z[:, support] - Z[:, support].mean(axis=0)
        expected = np.linalg.lstsq(A, target - target.mean(), rcond=None)[0]
        np.testing.assert_allclose(ols[support, j], expected, atol=1e-10)
        assert not ols[np.setdiff1d(np.arange(40), support), j].any()


def test_refit_option_is_validated_and_named_in_the_summary():
    for bad in ("lasso", "OLS", 1, None, 0.1):
        with pytest.raises(
            ValueError,
            match="'refit' parameter of LassoSIR must be one of 'nested', 'union', 'ridge', 'ols' or a bool",
        ):
            sdr.LassoSIR(refit=bad)
    df, _ = sparse_single_index(100, 12, random_state=2)
    texts = {
        refit: str(sdr.lasso_sir("y ~ .", df, d=1, penalty=0.5, refit=refit).summary())
        for refit in ("ridge", "ols", False)
    }
    assert "refit: ridge on the support (penalty 0.1 n, unit-variance columns)" in texts["ridge"]
    assert "refit: least squares on the support" in texts["ols"]
    assert "refit: none (the Lasso coefficients)" in texts[False]


def test_formula_and_arrays_give_identical_numbers():
    df, _ = sparse_single_index(120, 20, random_state=5)
    by_formula = sdr.lasso_sir("y ~ .", df, d=1, random_state=1, n_folds=5)
    by_arrays = sdr.LassoSIR(d=1, random_state=1, n_folds=5).fit(df.drop(columns="y"), df["y"])
    np.testing.assert_allclose(by_formula.directions.to_numpy(), by_arrays.directions.to_numpy())


def test_summary_states_the_d_rule_and_lists_selected_predictors():
    df, _ = sparse_single_index(200, 60, random_state=6)
    text = str(sdr.lasso_sir("y ~ .", df, random_state=0).summary())
    # p > n / (2 H): too few rows for Li's test, so the default is R's rule, and says why
    assert "d = 1 (chosen by R LassoSIR's k-means rule: too few rows for the test" in text
    assert "Selected predictors" in text and "Dir1 (" in text
    assert "10-fold CV, lambda.1se" in text
    r_rule = sdr.lasso_sir("y ~ .", df, random_state=0, penalty="cv_min", refit=False)
    assert "10-fold CV, lambda.min" in str(r_rule.summary())
    assert "selected predictors; the other" in text  # zero rows are not printed


def test_ratio_rule_on_known_spectra():
    assert ratio_choice(np.array([5.0, 0.1, 0.09, 0.08, 0.07]), 3) == 1
    assert ratio_choice(np.array([5.0, 3.0, 0.1, 0.09, 0.08]), 3) == 2


def test_categorical_response_slices_by_level():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((300, 30))
    labels = np.where(X[:, 0] + X[:, 1] > 0, "a", "b")
    fit = sdr.LassoSIR(d=1, penalty=0.5).fit(X, pd.Series(labels))
    assert fit.extras["nslices"] == 2
    assert set(fit.selected()["Dir1"][:2]) == {"x1", "x2"}


def test_bad_options_raise_clear_errors():
    X, y, _ = _arrays(100, 10, 0)
    with pytest.raises(
        ValueError, match="'penalty' parameter of LassoSIR must be one of 'cv_1se', 'cv_min', 'cv'"
    ):
        sdr.LassoSIR(penalty="aic")
    with pytest.raises(
        ValueError,
        match="'penalty' parameter of LassoSIR must be one of 'cv_1se', 'cv_min', 'cv' or a float > 0",
    ):
        sdr.LassoSIR(penalty=-1.0)
    with pytest.raises(ValueError, match="'nslices' parameter of LassoSIR must be an int >= 2"):
        sdr.LassoSIR(nslices=1)
    with pytest.raises(TypeError, match="unknown option"):
        sdr.LassoSIR(lambda_=1)
    with pytest.raises(ValueError, match="'d' option of lasso_sir must be at most 4"):
        sdr.LassoSIR(nslices=5, d=6).fit(X, y)
    with pytest.raises(ValueError, match="at most n/2 = 5"):
        sdr.LassoSIR(nslices=8).fit(X[:10], y[:10])
    with pytest.raises(ValueError, match="single response column"):
        sdr.LassoSIR().fit(X, np.column_stack([y, y]))


def test_bootstrap_refits_lasso_sir():
    df, _ = sparse_single_index(150, 20, random_state=8)
    fit = sdr.lasso_sir("y ~ .", df, d=1, penalty=0.5)
    boot = fit.bootstrap(B=2, random_state=0, progress=False)
    # resampling 150 rows of a strong single-index model moves the direction little
    assert len(boot.distances) == 2 and np.all(np.asarray(boot.distances) < 0.5)


def test_ratio_rule_ignores_the_null_eigenvalues():
    # rank 3 of 9 slots (p = 3 < H - 1): the zeros past the rank never enter a ratio, so the
    # answer is at most rank - 1 = 2
    values = np.array([5.0, 0.1, 0.09, 0, 0, 0, 0, 0, 0])
    assert ratio_choice(values, 10) == 1
    assert ratio_choice(np.array([5.0, 3.0, 0.1, 0, 0]), 10) == 2
    assert ratio_choice(np.array([5.0, 0, 0]), 10) == 1  # one positive eigenvalue


def test_kernel_null_eigenvalues_are_exact_zeros():
    # p = 4 predictors, H = 10 slices: rank 4; the Gram route leaves the other six at ~1e-17
    # (rounding), which must count as zero
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4))
    X -= X.mean(axis=0)
    values, eta, _, _ = slice_mean_eigen(X, np.repeat(np.arange(10), 20), 10)
    assert np.all(values[:4] > 1e-3) and np.all(values[4:] == 0)
    assert not eta[:, 4:].any()


def test_two_means_split_on_known_values():
    # one clear outlier group of two: {0.9, 1} against six values near 0
    assert two_means_smaller_group([1.0, 0.9, 0.05, 0.04, 0.03, 0.02, 0.01, 0.0]) == 2
    assert two_means_smaller_group([1.0, 0.1, 0.05, 0.0]) == 1
    assert two_means_smaller_group([1.0]) == 1 and two_means_smaller_group([0.5, 0.5]) == 1
    # the statistic is normalised by its first entry; zeros past the rank are kept (as R)
    assert kmeans_dimension(np.array([2.0, 1.8, 0.1, 0.0, 0.0]), categorical=False) == 2
    assert kmeans_dimension(np.array([2.0, 1.8, 0.1, 0.0]), categorical=True) == 3


@pytest.mark.parametrize("rule", ["kmeans", "ratio"])
def test_automatic_d_when_p_is_below_h_minus_one(rule):
    # p = 6 < H - 1 = 9, a single index (truth d = 1), 8 draws. Before the fix the ratio rule
    # divided by the null eigenvalues (~1e-17) and returned d = p = 6 on every draw.
    chosen = []
    for seed in range(8):
        X, y, _ = _arrays(200, 6, seed)
        fit = sdr.LassoSIR(nslices=10, d_rule=rule, random_state=seed, n_folds=5).fit(X, y)
        chosen.append(fit.d)
    assert max(chosen) < 6
    if rule == "kmeans":
        assert chosen == [1] * 8
    else:
        # the ratio of the two smallest positive eigenvalues is noisy: on draw 1 it beats
        # the first ratio (4.95 against 4.48); the eigenvalues are deterministic
        assert chosen == [1, 4, 1, 1, 1, 1, 1, 1]


def test_kmeans_rule_finds_two_indices():
    # Li (1991)'s rational model, d = 2, n = 400, p = 12: both eigenvalue gaps are wide, so
    # the two Lasso statistics stand apart from the noise directions' on any fold draw
    rng = np.random.default_rng(11)
    X = rng.standard_normal((400, 12))
    y = X[:, 0] / (0.5 + (1.5 + X[:, 1]) ** 2) + 0.1 * rng.standard_normal(400)
    fit = sdr.LassoSIR(random_state=0, n_folds=5, d_rule="kmeans").fit(X, y)
    assert fit.d == 2
    stat = fit.extras["d_statistic"]
    assert stat.size == 10 and stat[-1] == 0  # min(p, H) slots; the H-th is past the rank
    assert set(fit.selected()["Dir1"]) | set(fit.selected()["Dir2"]) >= {"x1", "x2"}


def test_categorical_response_gets_d_equal_to_the_rank():
    # R LassoSIR: a categorical response takes d = H - 1 (here 3 classes -> 2)
    rng = np.random.default_rng(12)
    X = rng.standard_normal((300, 8))
    labels = np.select([X[:, 0] > 0.5, X[:, 1] > 0], ["a", "b"], "c")
    fit = sdr.LassoSIR(penalty=0.5, d_rule="kmeans").fit(X, pd.Series(labels))
    assert fit.extras["nslices"] == 3 and fit.d == 2


def test_predictor_scales_do_not_change_the_fit():
    # Columns at scales 1e24 and 1e-12: without standardising, the eigen step saw only the
    # 1e24 column and selected it although it is noise. Standardised, the fit is the unscaled
    # one with each coefficient divided by its column's scale (to rounding: 1e-10).
    X, y, truth = _arrays(200, 20, 13)
    scales = np.ones(20)
    scales[[2, 11]] = [1e-12, 1e24]  # x3 is active, x12 is noise
    plain = sdr.LassoSIR(d=1, random_state=4).fit(X, y)
    scaled = sdr.LassoSIR(d=1, random_state=4).fit(X * scales, y)
    assert scaled.selected() == plain.selected()
    back = scaled.directions.to_numpy()[:, 0] * scales
    np.testing.assert_allclose(
        back / np.linalg.norm(back), plain.directions.to_numpy()[:, 0], atol=1e-10
    )
    assert scaled.extras["scale"][11] == pytest.approx(1e24 * X[:, 11].std(), rel=1e-12)
    # and the direction is the truth's, not the 1e24 noise column's: 1 - |b'b^| is 0.008
    # on this draw, 0.05 leaves room for CV
    assert 1 - abs(back @ truth) / np.linalg.norm(back) < 0.05


def test_transform_uses_the_original_scale():
    X, y, _ = _arrays(150, 10, 14)
    X = X * 10.0 + 3.0
    fit = sdr.LassoSIR(d=1, random_state=0, n_folds=5).fit(X, y)
    expected = (X - X.mean(axis=0)) @ fit.directions.to_numpy()
    np.testing.assert_allclose(fit.transform().to_numpy(), expected, atol=1e-10)


def test_constant_predictor_is_named():
    X, y, _ = _arrays(100, 10, 0)
    X = X.copy()
    X[:, 3] = 2.0
    with pytest.raises(ValueError, match="Predictor 'x4' is constant; remove it"):
        sdr.LassoSIR(d=1).fit(X, y)


def test_random_state_is_checked_as_bootstrap_checks_it():
    X, y, _ = _arrays(100, 10, 0)
    fit = sdr.LassoSIR(d=1, penalty=0.5).fit(X, y)
    for bad, error in [("abc", TypeError), (-1, ValueError), (1.5, TypeError), (True, TypeError)]:
        with pytest.raises(error) as ours:
            sdr.LassoSIR(random_state=bad)
        with pytest.raises(error) as theirs:
            fit.bootstrap(B=2, random_state=bad, progress=False)
        assert str(ours.value) == str(theirs.value)
        assert "random_state must be" in str(ours.value)
    df = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(10)]).assign(y=y)
    with pytest.raises(TypeError, match="random_state must be None, an int"):
        sdr.lasso_sir("y ~ .", df, random_state="abc")
    # a Generator is accepted, and only drawn from by the fit
    rng = np.random.default_rng(5)
    estimator = sdr.LassoSIR(d=1, random_state=rng, n_folds=5)
    assert rng.bit_generator.state == np.random.default_rng(5).bit_generator.state
    estimator.fit(X, y)


def test_d_beyond_the_kernel_rank_is_refused():
    X, y, _ = _arrays(200, 3, 0)  # p = 3 < H - 1: rank 3
    with pytest.raises(ValueError, match="'d' option of lasso_sir must be at most 3, the rank"):
        sdr.LassoSIR(d=4).fit(X, y)
