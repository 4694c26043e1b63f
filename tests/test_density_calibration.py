"""ConditionalDensity.calibration: PIT, interval coverage, CRPS and log score.

The scores are checked against their definitions (numerical integrals of the exact mixture)
and, on a model with a known truth, against what a calibrated density must show.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import sdrstats as sdr
from sdrstats.density.calibration import mixture_crps

NODES, WEIGHTS = np.polynomial.legendre.leggauss(20)


def integrate(values_on, lo, hi, panels=2000):
    """Composite 20-point Gauss-Legendre of ``values_on(points)`` over [lo, hi]."""
    edges = np.linspace(lo, hi, panels + 1)
    half = np.diff(edges)[:, None] / 2
    points = ((edges[:-1, None] + half) + half * NODES[None, :]).ravel()
    return float(np.sum(values_on(points).reshape(half.shape[0], -1) * half * WEIGHTS))


def draw(n, seed):
    # y = x1 + 0.5 ε: homoscedastic, so every fitted model can be calibrated.
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.standard_normal((n, 3)), columns=["x1", "x2", "x3"])
    return frame.assign(y=frame.x1 + 0.5 * rng.standard_normal(n))


@pytest.fixture(scope="module")
def fitted():
    train, test = draw(500, 1), draw(1500, 2)
    fit = sdr.sir("y ~ .", train, nslices=8, d=1)
    return test, {
        model: fit.conditional_density(model=model, random_state=0) for model in ("auto", "single")
    }


def test_crps_of_one_normal_is_the_closed_form():
    # Gneiting and Raftery (2007), eq. 21: CRPS(N(μ, σ²), y) = σ [z(2Φ(z) - 1) + 2φ(z) - 1/√π].
    y, mu, sd = np.array([-1.3, 0.0, 0.4, 2.5]), 0.3, 1.7
    z = (y - mu) / sd
    expected = sd * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / np.sqrt(np.pi))
    got = mixture_crps(y, np.ones((4, 1)), np.array([mu]), sd)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("model", ["auto", "single"])
def test_crps_is_the_integral_of_the_squared_cdf_difference(fitted, model):
    test, dens = fitted
    d = dens[model]
    rows = test.iloc[:3]
    cal = d.calibration(rows)
    for i in range(3):
        row, y = rows.iloc[[i]], rows["y"].iloc[i]

        # CRPS = ∫ (F(t) - 1{t >= y})² dt; the mixture's tails beyond ±15 of y carry
        # nothing (every component sd here is below 2), and the quadrature error of 2000
        # panels of 20 nodes is far below 1e-8.
        def square(t, row=row, y=y):
            return (d.cdf(row, t)[0] - (t >= y)) ** 2

        numeric = integrate(square, y - 15, y) + integrate(square, y, y + 15)
        assert abs(cal.scores["crps"].iloc[i] - numeric) < 1e-8


@pytest.mark.parametrize("model", ["auto", "single"])
def test_pit_and_log_score_are_the_cdf_and_log_pdf_at_each_rows_value(fitted, model):
    test, dens = fitted
    d = dens[model]
    rows = test.iloc[:25]
    cal = d.calibration(rows)
    y = rows["y"].to_numpy()
    cdf = np.array([d.cdf(rows.iloc[[i]], [y[i]])[0, 0] for i in range(len(rows))])
    np.testing.assert_allclose(cal.pit.to_numpy(), cdf, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cal.log_score, np.mean(np.log(d.pdf_at(rows, y))), rtol=1e-12)
    # The central 80 % interval from the quantiles holds exactly the rows the PIT puts in it.
    q = d.quantile(rows, [0.1, 0.9]).to_numpy()
    np.testing.assert_array_equal(cal.covered(0.8), (y > q[:, 0]) & (y < q[:, 1]))


def test_a_well_specified_density_is_calibrated(fitted):
    test, dens = fitted
    cal = dens["auto"].calibration(test)
    table = cal.coverage
    for level in (0.5, 0.8, 0.95):
        for group, n in table["n"].items():
            # Three binomial standard errors at this group's size, plus 0.03 for the fitted
            # density's own error (n = 500 training rows; observed within 0.025).
            tol = 3 * np.sqrt(level * (1 - level) / n) + 0.03
            assert abs(table.loc[group, level] - level) < tol, (group, level)
    # The thirds of the predicted spread split the rows evenly.
    assert table["n"].iloc[1:].sum() == len(test) and np.ptp(table["n"].iloc[1:]) <= 1
    # PIT: on 1500 draws the Kolmogorov-Smirnov test detects a few per cent of
    # miscalibration (its 5 % critical D is 0.035). The fitted law itself is off by more:
    # the residual density is a mixture on n_basis = 100 centres, and the cdf of 100 draws
    # is off by up to sqrt(0.25 / 100) = 0.05 at one sd. D observed at 0.047; a density
    # with one width for every row of a misspecified spread is off by far more.
    assert cal.uniformity.statistic < 0.06
    # The true density's expected CRPS is σ/√π = 0.282 and its expected log score
    # -log(0.5 √(2π)) - 1/2 = -0.726. An estimate is worse in expectation; on these 1500
    # draws the means have standard errors of about 0.005 and 0.02, so 4 se below the truth
    # bound them from below, and a loss of 0.02 / 0.07 (observed 0.278 and -0.727) above.
    assert 0.262 < cal.crps < 0.30
    assert -0.80 < cal.log_score < -0.65


def test_calibration_summary_plot_and_errors(fitted):
    import matplotlib

    matplotlib.use("Agg")
    test, dens = fitted
    cal = dens["auto"].calibration(test.iloc[:300])
    text = str(cal.summary())
    for piece in ("Kolmogorov-Smirnov", "CRPS", "mean log predictive density", "lowest third"):
        assert piece.lower() in text.lower()
    assert cal._repr_html_() and cal.summary().as_latex()
    fig = cal.plot()
    assert [ax.get_xlabel() for ax in fig.axes] == ["PIT", "nominal coverage"]
    # overall + three thirds on the coverage axes, plus the diagonal
    assert len(fig.axes[1].get_lines()) == 5
    with pytest.raises(ValueError, match="response column"):
        dens["auto"].calibration(test.drop(columns="y"))
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        cal.covered(1.0)


def test_sd_is_the_conditional_standard_deviation(fitted):
    test, dens = fitted
    d = dens["single"]
    rows = test.iloc[:4]
    np.testing.assert_allclose(d.sd(rows), np.sqrt(d.var(rows)), rtol=1e-12)
    np.testing.assert_allclose(d.std(rows), np.sqrt(d.var(rows)), rtol=1e-12)
    with pytest.raises(TypeError, match="not subscriptable"):
        d.sd[0]  # the components' common sd is component_sd


def one_sided(n, seed):
    # y = x1 + (0.1 + max(x2, 0)) ε: the noise grows with x2, which the mean does not use.
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    sd = 0.1 + np.maximum(X[:, 1], 0.0)
    frame = pd.DataFrame(X, columns=["x1", "x2"])
    return frame.assign(y=X[:, 0] + sd * rng.standard_normal(n)), sd


@pytest.fixture(scope="module")
def blind():
    # One width on SIR's d = 1 direction (x1): a density that cannot see the spread grow.
    train, _ = one_sided(400, 0)
    fit = sdr.sir("y ~ x1 + x2", train, d=1)
    return fit, fit.conditional_density(model="separate", random_state=0)


def test_thirds_of_the_local_spread_see_a_failure_the_predicted_sd_hides(blind):
    _, dens = blind
    test, sd = one_sided(900, 1)
    with pytest.warns(sdr.CalibrationWarning, match="lowest third of local spread"):
        cal = dens.calibration(test)
    table = cal.coverage[0.8]
    # Truth: 80 % in every third. The blind density over-covers where the data's spread is
    # small and under-covers where it is large (observed 1.00 and 0.55 on these draws);
    # 0.1 is over three binomial standard errors at 300 rows (se 0.023).
    assert table["lowest third of local spread"] > 0.9
    assert table["highest third of local spread"] < 0.7
    assert not cal.off_nominal.empty and cal.neighbours in (5, 10, 20, 40, 80)
    # Its own predicted sd is nearly flat, so its thirds are close to nominal: the check the
    # calibration used to make (observed 0.81-0.86).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.CalibrationWarning)
        own = dens.calibration(test, by="predicted").coverage[0.8]
    assert own.iloc[1:].max() - own.iloc[1:].min() < table.iloc[1:].max() - table.iloc[1:].min()
    # Thirds of given values, e.g. the true conditional sd of a simulation.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.CalibrationWarning)
        truth = dens.calibration(test, by=sd)
    assert truth.coverage.index[1] == "lowest third of given values"
    assert truth.coverage.loc["highest third of given values", 0.8] < 0.7


def test_the_default_density_halves_the_gap_and_a_calibrated_one_is_not_flagged(blind, fitted):
    fit, dens = blind
    test, _ = one_sided(900, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.CalibrationWarning)
        gaps = [
            np.abs(d.calibration(test).coverage[0.8].iloc[1:] - 0.8).max()
            for d in (dens, fit.conditional_density(random_state=0))
        ]
    # Observed 0.25 for the blind density and 0.08 for the default, whose spread follows x2.
    assert gaps[1] < gaps[0] / 2
    homoscedastic, densities = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("error", sdr.CalibrationWarning)
        cal = densities["auto"].calibration(homoscedastic)
    assert cal.off_nominal.empty
    assert "Every third covers within binomial error" in str(cal.summary())


def test_local_spread_follows_the_true_spread():
    from scipy.stats import spearmanr

    from sdrstats.density.calibration import local_spread

    test, sd = one_sided(1200, 2)
    X = test[["x1", "x2"]].to_numpy()
    spread, k = local_spread(X, np.abs(test["y"].to_numpy() - test["x1"].to_numpy()), X)
    # A k-NN mean of |residual| on all predictors: rank correlation with the true sd
    # observed at 0.93; a grouping blind to x2 would be near 0.
    assert spearmanr(spread, sd).statistic > 0.7
    assert k in (5, 10, 20, 40, 80, 160)


def test_calibration_by_refuses_bad_values(fitted):
    test, dens = fitted
    with pytest.raises(ValueError, match="by must be one of"):
        dens["auto"].calibration(test.iloc[:30], by="truth")
    with pytest.raises(ValueError, match="one value per row"):
        dens["auto"].calibration(test.iloc[:30], by=np.ones(5))
