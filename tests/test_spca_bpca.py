"""Bair's supervised PCA: scores, PCA of the kept predictors, CV threshold, errors."""

import numpy as np
import pytest
import statsmodels.api as sm
from sklearn.decomposition import PCA

import sdrstats as sdr
from sdrstats.spca.bpca import univariate_scores
from sdrstats.stats.distances import projection_distance


def _latent(n, seed, p_noise=12):
    # Bair et al.'s setting: a latent factor drives y and the first 4 predictors; the others
    # are noise. Loadings 1, noise sd 0.5 -> each signal predictor has |corr(x, y)| ~ 0.6.
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(n)
    signal = u[:, None] + 0.5 * rng.standard_normal((n, 4))
    X = np.column_stack([signal, rng.standard_normal((n, p_noise))])
    y = 2 * u + rng.standard_normal(n)
    return X, y


def test_scores_are_t_statistics_for_one_response():
    X, y = _latent(60, 0)
    scores = univariate_scores(X, y[:, None])
    for j in range(X.shape[1]):
        t = sm.OLS(X[:, j], sm.add_constant(y)).fit().tvalues[1]
        assert scores[j] == pytest.approx(abs(t), rel=1e-10)


def test_scores_for_classes_are_anova_f():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, 90)
    X = rng.standard_normal((90, 3)) + np.eye(3)[codes]
    from scipy.stats import f_oneway

    scores = univariate_scores(X, np.eye(3)[codes])
    for j in range(3):
        F = f_oneway(*[X[codes == k, j] for k in range(3)]).statistic
        assert scores[j] ** 2 == pytest.approx(F, rel=1e-10)


def test_directions_are_pca_of_the_kept_predictors():
    X, y = _latent(100, 2)
    fit = sdr.BPCA(d=2, threshold=3.0).fit(X, y)
    kept = fit.extras["kept"]
    pca = PCA(2).fit(X[:, kept])
    basis = fit.directions.to_numpy()
    assert np.all(basis[~kept] == 0)
    assert projection_distance(basis[kept], pca.components_.T) < 1e-8
    np.testing.assert_allclose(fit.eigenvalues.iloc[:2], pca.explained_variance_, rtol=1e-10)


def test_cv_keeps_the_signal_predictors_and_recovers_the_factor():
    # n = 200: signal scores are around |t| ~ 10, noise |t| ~ 1. CV keeps the four signal
    # predictors; the CV error is flat in the noise scores, so one or two noise predictors with
    # the largest |t| may ride along (this seeded draw keeps x6 too). A noise predictor has
    # variance 1 but no shared factor, so the first PC stays (1,1,1,1,0...)/2 up to O(n^-1/2)
    # errors: distance < 0.15.
    X, y = _latent(200, 3)
    fit = sdr.BPCA(d=1, random_state=0).fit(X, y)
    kept = fit.kept_predictors
    assert kept[:4] == ["x1", "x2", "x3", "x4"] and len(kept) <= 6
    truth = np.r_[np.ones(4), np.zeros(12)][:, None]
    assert projection_distance(fit.directions.to_numpy(), truth) < 0.15
    cv = fit.extras["cv_errors"]
    assert cv["cv_error"].idxmin() == cv.index[cv["threshold"] == fit.extras["threshold"]][0]


def test_summary_lists_the_kept_predictors(ais):
    fit = sdr.bpca("lbm ~ ht + wt + rcc + wcc + hc + ferr", ais, d=1, random_state=0)
    text = str(fit.summary())
    assert "Kept predictors (score > threshold" in text and "chosen by 5-fold CV" in text
    assert "Cross-validation of the threshold" in text
    given = str(sdr.bpca("lbm ~ ht + wt + rcc + wcc + hc + ferr", ais, threshold=5.0).summary())
    assert "given" in given and "Cross-validation" not in given


def test_cv_is_seeded_and_classes_work(ais):
    a = sdr.bpca("sport ~ ht + wt + rcc + wcc + hc + ferr + ssf", ais, random_state=4)
    b = sdr.bpca("sport ~ ht + wt + rcc + wcc + hc + ferr + ssf", ais, random_state=4)
    assert a.extras["threshold"] == b.extras["threshold"]
    np.testing.assert_array_equal(a.directions, b.directions)


def test_standardize_maps_directions_back_to_the_original_scale(ais):
    fit = sdr.bpca("lbm ~ ht + wt + rcc + hc", ais, d=1, threshold=0.0, standardize=True)
    X = ais[["ht", "wt", "rcc", "hc"]].to_numpy()
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    pc1 = PCA(1).fit(Z).transform(Z)[:, 0]
    r = np.corrcoef(fit.transform().iloc[:, 0], pc1)[0, 1]
    assert abs(r) == pytest.approx(1.0, abs=1e-10)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"threshold": 100.0}, r"'threshold' option of bpca \(100\) keeps no predictor"),
        ({"threshold": 20.0, "d": 2}, r"keeps 1 predictor\(s\), fewer than d = 2"),
        ({"threshold": -1.0}, r"'threshold' parameter of BPCA must be a float >= 0"),
        ({"d": 8}, r"'d' option of bpca must be at most p = 6"),
        ({"n_folds": 1}, r"'n_folds' parameter of BPCA must be an int >= 2"),
    ],
)
def test_bad_options_raise_clear_errors(ais, options, message):
    with pytest.raises(ValueError, match=message):
        sdr.bpca("lbm ~ ht + wt + rcc + wcc + hc + ferr", ais, **options)


def test_constant_response_is_rejected(ais):
    with pytest.raises(ValueError, match="response is constant; bpca needs a response"):
        sdr.BPCA().fit(ais[["ht", "wt"]], np.zeros(len(ais)))
