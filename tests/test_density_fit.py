"""sdr.lscde / sdr.eps_kde return a fitted result: summary, CV table, the density, old access."""

import pickle

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.simulate import lsce_artificial


@pytest.fixture(scope="module")
def data():
    return lsce_artificial("b", 150, random_state=31)[0]


def test_lscde_result_summary_names_tuning_table_n_and_predictors(data):
    fit = sdr.lscde("y ~ x2 + x3", data, model="single", random_state=0)
    assert isinstance(fit, sdr.DensityFit)
    text = str(fit.summary())
    for piece in (
        "lscde('y ~ x2 + x3', data, model='single', random_state=0)",
        "LSCDE of y given x2, x3 (no reduction), n = 150.",
        f"sigma = {fit.tuning['sigma']:.4g}",
        f"lambda = {fit.tuning['lambda']:.4g}",
        "5-fold cross-validation over a 9 x 9 grid",
        "Cross-validation score (sigma x lambda",
    ):
        assert piece in text
    assert fit.summary().as_latex() and fit._repr_html_()
    table = fit.cv_table
    assert table.shape == (9, 9)
    # The chosen (σ, λ) is the table's minimum and its score the reported CV score.
    i, j = np.unravel_index(np.argmin(table.to_numpy()), table.shape)
    assert table.index[i] == pytest.approx(fit.tuning["sigma"])
    assert table.columns[j] == pytest.approx(fit.tuning["lambda"])
    assert table.to_numpy()[i, j] == pytest.approx(fit.tuning["cv_score"])


def test_repr_names_the_method_not_none(data):
    fit = sdr.lscde("y ~ x2 + x3", data, random_state=0)
    assert repr(fit).startswith("<DensityFit: LSCDE of y given x2, x3 (no reduction), n = 150")
    dens = fit.conditional_density()
    assert dens.method == "LSCDE" and "None" not in repr(dens)
    kde = sdr.eps_kde("y ~ x2 + x3", data)
    assert repr(kde).startswith("<DensityFit: eps-KDE of y given x2, x3")
    assert kde.conditional_density().method == "eps-KDE"
    assert "leave-one-out cross-validation over a 9 x 5 grid" in str(kde.summary())


def test_conditional_density_is_the_density_and_old_access_still_works(data):
    fit = sdr.lscde("y ~ x2 + x3", data, random_state=0)
    dens = fit.conditional_density()
    assert isinstance(dens, sdr.ConditionalDensity)
    rows, grid = data.iloc[:3], np.linspace(-2, 6, 9)
    # Until now lscde() returned the density: its attributes keep working on the result.
    np.testing.assert_array_equal(fit.pdf(rows, grid), dens.pdf(rows, grid))
    assert fit.squared_loss(data) == dens.squared_loss(data)
    assert fit.tuning is dens.tuning and fit.means is dens.means
    back = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(back.pdf(rows, grid), dens.pdf(rows, grid))
    with pytest.raises(AttributeError):
        fit.no_such_attribute  # noqa: B018


def test_density_of_a_fit_names_the_reduction(data):
    sir = sdr.sir("y ~ .", data, d=1)
    fit = sdr.lscde(sir, random_state=0)
    assert "LSCDE of y given Dir1 of sir, n = 150" in str(fit.summary())
    assert fit.call == "lscde(<sir fit>, random_state=0)"
    np.testing.assert_array_equal(
        fit.conditional_density().pdf(data.iloc[:3], [0.5]),
        sir.conditional_density("lscde", random_state=0).pdf(data.iloc[:3], [0.5]),
    )
