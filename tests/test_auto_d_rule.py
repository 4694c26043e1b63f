"""``d_rule="auto"``, the default of Lasso-SIR and online SIR: Li's χ² test at level 0.05
where it is valid (``n >= 2 p H``), else the method's rule without it (R LassoSIR's k-means
rule; the stream's eigenvalue ratio), and ``fit.d_rule`` and the summary say which and why."""

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.inference.dimension_test import SIR_TEST_ROWS_PER_CELL, sir_test_unavailable

TEST_LINE = "d = 2 (chosen by the asymptotic test at level 0.05)"


def two_index(n=800, p=5, seed=2):
    """y = x1 + 0.5 x2³ + 0.3 e: the cubic's direction is weaker than x1's but clear (the
    test rejects "1D" at p < 1e-6 here), and the k-means and ratio rules both miss it."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = X[:, 0] + 0.5 * X[:, 1] ** 3 + 0.3 * rng.standard_normal(n)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    frame["y"] = y
    return frame


@pytest.fixture(scope="module")
def data():
    return two_index()


def test_the_guard_is_two_rows_per_slice_mean_coordinate():
    p, h = 6, 10
    needed = SIR_TEST_ROWS_PER_CELL * p * h
    assert sir_test_unavailable(needed, p, h) is None
    assert sir_test_unavailable(needed - 1, p, h).startswith("too few rows for the test")


def test_lasso_sir_default_chooses_the_second_direction_by_the_test(data):
    fit = sdr.lasso_sir("y ~ .", data, random_state=0, n_folds=5)
    assert fit.options["d_rule"] == "auto"
    assert fit.d == 2 and fit.d_rule == "asymptotic" and fit.d_choice.rule == "asymptotic"
    assert f"Dimension:\n{TEST_LINE}\n" in str(fit.summary())
    # R LassoSIR's rule, still a named option, puts the first statistic in a group alone
    kmeans = sdr.lasso_sir("y ~ .", data, random_state=0, n_folds=5, d_rule="kmeans")
    assert kmeans.d == 1 and kmeans.d_rule == "kmeans"


def test_lasso_sir_test_is_sirs_on_the_same_slices(data):
    fit = sdr.lasso_sir("y ~ .", data, d=1, random_state=0, n_folds=5)
    mine = fit.test_dimension("asymptotic").table
    sir = sdr.sir("y ~ .", data, nslices=10, slice_function="arc").test_dimension().table
    pd.testing.assert_frame_equal(mine.iloc[: len(sir)], sir, rtol=1e-8)
    assert fit.test_dimension().rule == "asymptotic"  # d given: the default rule is the test


def test_lasso_sir_with_p_above_n_keeps_the_kmeans_rule_and_says_why():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 80))
    y = X[:, :3].sum(axis=1) + 0.3 * rng.standard_normal(60)
    options = {"nslices": 5, "n_folds": 3, "random_state": 0, "progress": False}
    fit = sdr.LassoSIR(**options).fit(X, y)
    assert fit.d_rule == "kmeans" and fit.d_choice.rule == "kmeans"
    assert fit.dimension_line == (
        f"d = {fit.d} (chosen by R LassoSIR's k-means rule: too few rows for the test, "
        "n = 60 < 2 x p x slices = 800)"
    )
    assert fit.d == sdr.LassoSIR(d_rule="kmeans", **options).fit(X, y).d
    assert "stands in for the default test" in str(fit.test_dimension())
    with pytest.raises(ValueError, match="needs more rows than predictors.*d_rule='kmeans'"):
        sdr.LassoSIR(d_rule="asymptotic", **options).fit(X, y)


def test_stream_default_chooses_the_second_direction_by_the_test(data):
    fit = sdr.online_sir("y ~ .", data, init_size=200, random_state=0)
    assert fit.options["d_rule"] == "auto"
    assert fit.d == 2 and fit.d_rule == "asymptotic"
    assert f"Dimension:\n{TEST_LINE}\n" in str(fit.summary())
    ratio = sdr.online_sir("y ~ .", data, init_size=200, random_state=0, d_rule="ratio")
    assert ratio.d == 1 and ratio.d_rule == "ratio"


def test_a_short_stream_falls_back_to_the_ratio_rule_until_it_has_rows_for_the_test(data):
    X, y = data.drop(columns="y").to_numpy(), data["y"].to_numpy()
    stream = sdr.OnlineSIR(init_size=80, random_state=0).partial_fit(X[:90], y[:90])
    short = stream.results()  # 90 rows < 2 x 5 predictors x 10 slices
    assert short.d_rule == "ratio" and short.d_choice.rule == "ratio"
    assert short.dimension_line == (
        f"d = {short.d} (chosen by the eigenvalue-ratio rule: too few rows for the test, "
        "n = 90 < 2 x p x slices = 100)"
    )
    assert "too few rows for the test" in str(short.summary())
    longer = stream.partial_fit(X[90:], y[90:]).results()
    assert longer.d_rule == "asymptotic" and longer.d == 2
    assert short.d_rule == "ratio"  # a result is a value: the earlier one does not change


def test_a_stream_without_slice_moments_says_the_ratio_rule_chose(data):
    fit = sdr.online_sir("y ~ .", data, init_size=200, sir_moments=False, random_state=0)
    assert fit.d_rule == "ratio"
    assert fit.dimension_line.endswith(
        "(chosen by the eigenvalue-ratio rule: the stream kept no slice moments for the test "
        "(sir_moments=False))"
    )
