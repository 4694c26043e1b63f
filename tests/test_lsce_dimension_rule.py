"""LSCE's and LSMI's default dimension rule (``d_rule="cv"``): the nested sequential search
with separate widths and its one-standard-error stop (sdrstats/lsce/core.py)."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.lsce.core import selection_grid, selection_starts
from sdrstats.stats.gaussian import BasisProblem, WidthScores, choose_centres, make_folds

QUICK = {"n_restarts": 1, "progress": False}


def easy(kind: str, n: int = 150, seed: int = 0) -> pd.DataFrame:
    """``one``: a linear trend in x1 (d = 1); ``two``: x1 + x2² (d = 2); p = 4."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.standard_normal((n, 4)), columns=["x1", "x2", "x3", "x4"])
    noise = rng.standard_normal(n)
    df["y"] = df.x1 + 0.3 * noise if kind == "one" else df.x1 + df.x2**2 + 0.2 * noise
    return df


@pytest.fixture(scope="module")
def lsce_one():
    return sdr.lsce("y ~ .", easy("one"), random_state=0, **QUICK)


@pytest.mark.parametrize("method", ["lsce", "lsmi"])
def test_a_linear_trend_gets_one_direction_and_the_search_stops_at_two(method, lsce_one):
    # 3 of 3 seeds chose d = 1 for both methods at n = 150 when this test was written
    fit = lsce_one if method == "lsce" else sdr.lsmi("y ~ .", easy("one"), random_state=0, **QUICK)
    assert fit.d == 1 and fit.d_rule == "cv"
    table = fit.cv_table
    assert table.index.tolist() == [1, 2]  # d = 2 did not gain more than its standard error
    assert not table.loc[2, "gain"] > table.loc[2, "gain_se"]
    assert abs(fit.directions.loc["x1", "Dir1"]) > 0.95


def test_a_trend_plus_a_square_gets_two_directions():
    fit = sdr.lsce("y ~ .", easy("two"), random_state=0, **QUICK)
    assert fit.d == 2
    table = fit.cv_table
    assert table.index.tolist() == [1, 2, 3]
    assert table.loc[2, "gain"] > table.loc[2, "gain_se"] > 0
    # the chosen plane is span(x1, x2): x3 and x4 carry almost nothing
    assert np.linalg.norm(fit.directions.loc[["x3", "x4"]].to_numpy()) < 0.2


def test_the_choice_repeats_from_random_state(lsce_one):
    again = sdr.lsce("y ~ .", easy("one"), random_state=0, **QUICK)
    pd.testing.assert_frame_equal(again.cv_table, lsce_one.cv_table)
    pd.testing.assert_frame_equal(again.directions, lsce_one.directions)


def test_the_fit_at_the_chosen_d_is_the_fit_given_that_d(lsce_one):
    # the rule only chooses d; the directions come from the published algorithm at that d
    given = sdr.lsce("y ~ .", easy("one"), d=1, random_state=0, **QUICK)
    pd.testing.assert_frame_equal(given.directions, lsce_one.directions)
    # and test_dimension("cv") on the given fit runs the same rule without refitting it
    test = given.test_dimension("cv")
    assert test.d == lsce_one.d
    assert test.table["cv_score"].tolist() == lsce_one.cv_table["cv_score"].tolist()


def test_selection_grid_inserts_geometric_midpoints():
    grid = selection_grid(np.array([0.1, 1.0, 10.0]))
    np.testing.assert_allclose(grid, [0.1, np.sqrt(0.1), 1.0, np.sqrt(10.0), 10.0])


def test_nested_starts_keep_the_previous_directions_and_add_an_orthogonal_one():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 4))
    y = X[:, 0] + X[:, 1] ** 2 + 0.1 * rng.standard_normal(200)
    previous = np.array([[1.0, 0.0, 0.0, 0.0]])
    starts = selection_starts(X, y, 2, previous)
    assert {"sir", "save", "phd", "nested+sir", "nested+save", "nested+phd"} <= set(starts)
    nested = starts["nested+save"]
    np.testing.assert_allclose(nested[0], previous[0])
    np.testing.assert_allclose(nested @ nested.T, np.eye(2), atol=1e-10)
    assert abs(nested[1, 1]) > 0.9  # SAVE sees x2's square


@pytest.mark.parametrize("criterion", ["sce", "smi"])
def test_fold_scores_average_to_the_held_out_score(criterion):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((90, 3))
    Y = (X[:, 0] + 0.3 * rng.standard_normal(90)).reshape(-1, 1)
    gen = np.random.default_rng(0)
    problem = BasisProblem(X, Y, choose_centres(90, 30, gen), criterion)
    W = np.array([[1.0, 0.0, 0.0]])
    scorer_folds = make_folds(90, 5, gen)
    scorer = WidthScores(problem, W, scorer_folds)
    lams = np.array([0.01, 0.1])
    per_fold = scorer.fold_scores(0.5, 0.3, lams)
    assert per_fold.shape == (5, 2)
    np.testing.assert_allclose(per_fold.mean(axis=0), scorer.scores(0.5, 0.3, lams))
    # one width for both sides is the common-width score of cv_scores
    common = problem.cv_scores(W, [0.5], lams, scorer_folds)
    np.testing.assert_allclose(scorer.scores(0.5, 0.5, lams), common[0])


def test_test_dimension_cv_with_d_max_one_scores_one_candidate():
    fit = sdr.lsce("y ~ .", easy("one", n=80), d=1, n_basis=30, random_state=0, **QUICK)
    test = fit.test_dimension("cv", d_max=1)
    assert test.d == 1 and test.table.index.tolist() == ["d = 1"]


def test_a_long_choice_announces_its_predicted_time_and_reports_each_d(monkeypatch, capsys):
    core = importlib.import_module("sdrstats.lsce.core")  # sdr.lsce is the formula function
    monkeypatch.setattr(core, "ANNOUNCE_SECONDS", 0.0)
    sdr.lsce("y ~ .", easy("one", n=80), n_basis=30, random_state=0, n_restarts=1)
    err = capsys.readouterr().err
    assert "lsce choice of d: about" in err and "predicted" in err
    assert "lsce: d = 1 scored" in err and "lsce: d = 2 scored" in err
