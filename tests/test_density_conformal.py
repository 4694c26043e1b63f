"""Split-conformal intervals from the fitted density: finite-sample marginal coverage on
fresh data for every method that offers a density, plain and locally weighted."""

import warnings

import numpy as np
import pandas as pd
import pytest
from method_registry import FITS

import sdrstats as sdr
from sdrstats.density.conformal import ConformalIntervals

F = "y ~ x1 + x2 + x3 + x4"
#: Every fit with a continuous response offers a density (the SDSPCAAN family's linear
#: members pca and vpca take one too), and so do lscde and eps_kde on the predictors
#: themselves. A stream (online_sir) keeps no rows to fit one on, and says so.
METHODS = [
    "sir", "save", "phd", "ire", "directional_regression", "cume", "mave", "lsce", "lsmi",
    "spca", "kspca", "bpca", "kdr", "mkdr", "lasso_sir", "pca", "vpca", "lscde", "eps_kde",
]  # fmt: skip
LEVEL = 0.8
M, N_TEST = 400, 3000


def frame(n, seed):
    # A curved mean and a spread that grows with x3: no density here is exactly right.
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + (0.2 + 0.4 * np.abs(X[:, 2])) * rng.standard_normal(n)
    data = pd.DataFrame(X, columns=["x1", "x2", "x3", "x4"]).assign(y=y)
    return data.assign(g=np.where(data.x1 > 0, "a", "b"))


def fit_density(name, train):
    if name == "lscde":
        return sdr.lscde(F, train, random_state=0).conditional_density()
    if name == "eps_kde":
        return sdr.eps_kde(F, train).conditional_density()
    if name in ("pca", "vpca"):
        return getattr(sdr, name)(F, train, d=2).conditional_density(random_state=0)
    return FITS[name](train).conditional_density(random_state=0)


@pytest.fixture(scope="module")
def rows():
    return frame(150, 1), frame(M, 2), frame(N_TEST, 3)


@pytest.mark.parametrize("name", METHODS)
def test_conformal_intervals_cover_fresh_draws(rows, name):
    train, calibration, test = rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.SDRWarning)
        dens = fit_density(name, train)
    y = test["y"].to_numpy()
    for weighted in (False, True):
        band = dens.interval(test, LEVEL, conformal=calibration, weighted=weighted)
        covered = np.mean((y >= band["lower"].to_numpy()) & (y <= band["upper"].to_numpy()))
        # Given the calibration rows the coverage of new draws is Beta(l, M + 1 - l),
        # l = ceil(0.8 (M + 1)), mean in [0.8, 0.8 + 1/(M + 1)] (Lei et al. 2018, theorem
        # 2.2), and the test rows add binomial error: sd sqrt(0.16/(M + 2) + 0.16/N_TEST)
        # = 0.021. 3.5 sd either side (a false alarm about once in 2,000 checks).
        sd = np.sqrt(LEVEL * (1 - LEVEL) * (1 / (M + 2) + 1 / N_TEST))
        assert LEVEL - 3.5 * sd <= covered <= LEVEL + 1 / (M + 1) + 3.5 * sd, (name, weighted)


def test_the_adjustment_is_the_conformal_quantile_of_the_scores(rows):
    train, calibration, test = rows
    dens = sdr.sir(F, train, d=1).conditional_density(random_state=0)
    conf = dens.conformal(calibration, 0.9)
    q = dens.quantile(calibration, [0.05, 0.95]).to_numpy()
    y = calibration["y"].to_numpy()
    scores = np.maximum(q[:, 0] - y, y - q[:, 1])
    np.testing.assert_allclose(conf.scores, scores)
    # The ceil(0.9 * 401) = 361st smallest of the 400 scores.
    assert conf.adjustment == np.sort(scores)[360]
    band, plain = conf.interval(test.iloc[:5]), dens.interval(test.iloc[:5], 0.9)
    np.testing.assert_allclose(band["lower"], plain["lower"] - conf.adjustment)
    np.testing.assert_allclose(band["upper"], plain["upper"] + conf.adjustment)
    # An object calibrated once gives the same intervals through interval(conformal=...).
    np.testing.assert_array_equal(dens.interval(test.iloc[:5], conformal=conf), band)
    weighted = dens.conformal(calibration, 0.9, weighted=True)
    width = (plain["upper"] - plain["lower"]).to_numpy()
    np.testing.assert_allclose(
        weighted.interval(test.iloc[:5])["upper"], plain["upper"] + weighted.adjustment * width
    )


def test_too_few_calibration_rows_give_an_infinite_interval_and_bad_input_is_refused(rows):
    train, calibration, _ = rows
    dens = sdr.sir(F, train, d=1).conditional_density(random_state=0)
    # 0.9 needs ceil(0.9 (m + 1)) <= m, i.e. m >= 9 rows.
    conf = dens.conformal(calibration.iloc[:8], 0.9)
    assert conf.adjustment == np.inf and np.isinf(conf.interval(train.iloc[:2])["upper"]).all()
    assert np.isfinite(dens.conformal(calibration.iloc[:9], 0.9).adjustment)
    assert isinstance(conf, ConformalIntervals) and "level 0.9, m = 8" in repr(conf)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        dens.interval(train.iloc[:2], 1.0)
    with pytest.raises(ValueError, match="response column 'y'"):
        dens.conformal(calibration.drop(columns="y"))
