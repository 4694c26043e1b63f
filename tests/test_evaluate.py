"""The seed-001 classification protocol: BCA, splits, the search, n_jobs invariance, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score
from threadpoolctl import threadpool_limits

import sdrstats as sdr
from sdrstats.evaluate import _split, balanced_accuracy, classification, one_nn_bca, summarise


@pytest.fixture(autouse=True)
def one_blas_thread():
    with threadpool_limits(1):
        yield


def classes_frame(n_per_class=30, p=12, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n_per_class)
    X = rng.standard_normal((y.size, p))
    X[:, 0] += 4.0 * y  # the classes differ along x1 only, by 4 noise deviations
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    frame["label"] = [f"c{v}" for v in y]
    return frame


FORMULA = "label ~ " + " + ".join(f"x{j + 1}" for j in range(12))


def test_balanced_accuracy_matches_sklearn():
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 4, 200)
    pred = np.where(rng.random(200) < 0.7, truth, rng.integers(0, 4, 200))
    # the same mean of per-class recalls; exact up to float summation order
    assert balanced_accuracy(truth, pred) == pytest.approx(
        balanced_accuracy_score(truth, pred), abs=1e-12
    )


def test_one_nn_ignores_numerically_constant_features():
    rng = np.random.default_rng(4)
    signal = np.repeat([0.0, 5.0], 10)[:, None] + rng.standard_normal((20, 1)) * 0.1
    # a second column of rounding noise (1e-17) would be unit noise after standardising
    train = np.hstack([signal, rng.standard_normal((20, 1)) * 1e-17])
    labels = np.repeat([0, 1], 10)
    assert one_nn_bca(train, labels, [train], [labels]) == [1.0]
    test = np.array([[0.2, -3e-17], [4.9, 3e-17]])
    assert one_nn_bca(train, labels, [test], [np.array([0, 1])]) == [1.0]


def test_one_nn_standardises_with_training_features():
    train = np.array([[0.0, 0.0], [1.0, 100.0]])
    # unscaled, [0.9, 40] is nearer the first row (the second feature dominates); after
    # scaling both features to unit spread it is nearer the second
    assert one_nn_bca(train, np.array([0, 1]), [np.array([[0.9, 40.0]])], [np.array([1])]) == [1.0]


def test_split_is_stratified_and_disjoint():
    y = np.repeat(np.arange(3), [20, 30, 50])
    parts = _split(y, (0.2, 0.4, 0.4), np.random.SeedSequence(0))
    together = np.concatenate(parts)
    assert np.array_equal(np.sort(together), np.arange(100))
    np.testing.assert_array_equal(np.bincount(y[parts[0]]), [4, 6, 10])
    np.testing.assert_array_equal(np.bincount(y[parts[1]]), [8, 12, 20])


def test_protocol_returns_tidy_frame_and_picks_best_validation():
    frame = classes_frame()
    res, grid = classification(
        ["baseline", "pca", "sdspcaan"],
        frame,
        formula=FORMULA,
        d_grid=[3, 5],
        weight_grid=[0.1, 1.0],
        n_repeats=2,
        random_state=0,
        search="grid",
        progress=False,
        verbose=False,
        return_grid=True,
    )
    assert list(res["method"]) == ["baseline", "pca", "sdspcaan"] * 2
    assert set(res.columns) >= {
        "repeat",
        "d",
        "alpha",
        "beta",
        "delta",
        "validation_bca",
        "test_bca",
        "n_train",
        "n_validation",
        "n_test",
    }
    # 2 ks x 2^3 weights for sdspcaan, 2 ks for the others
    assert res.set_index(["repeat", "method"])["n_candidates"].loc[0].tolist() == [2, 2, 16]
    for _, row in res.iterrows():
        cands = grid[(grid["repeat"] == row["repeat"]) & (grid["method"] == row["method"])]
        assert row["validation_bca"] == cands["validation_bca"].max()
    assert res["test_bca"].between(0, 1).all()
    # the classes differ by 4 deviations along x1, which the baseline's first d columns hold
    assert res.groupby("method")["test_bca"].mean()["baseline"] > 0.7


def test_results_do_not_depend_on_n_jobs():
    frame = classes_frame(seed=2)
    kwargs = dict(
        formula=FORMULA,
        d_grid=[3],
        weight_grid=[1.0, 10.0],
        n_repeats=1,
        random_state=5,
        search="coordinate",
        progress=False,
        verbose=False,
    )
    one = classification("sdspca", frame, n_jobs=1, **kwargs)
    two = classification("sdspca", frame, n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(one, two)


def test_coordinate_search_is_smaller_than_grid_and_fit_input_works(capsys):
    frame = classes_frame(seed=3)
    fit = sdr.sdspcaan(FORMULA, frame, d=3, max_iter=20)
    res = classification(
        fit,
        d_grid=[3, 4],
        weight_grid=[0.1, 1.0, 10.0],
        n_repeats=1,
        random_state=1,
        search="coordinate",
        progress=False,
    )
    # d stage (2) + 3 weight stages of 3, against 2 x 27 for the grid
    assert res["n_candidates"].iloc[0] == 2 + 3 * 3
    printed = capsys.readouterr().out
    assert "sdspcaan" in printed and "±" in printed
    assert summarise(res)["repeats"].iloc[0] == 1


def test_d_grid_is_capped_by_n_p_and_classes():
    frame = classes_frame(p=12)
    res = classification(
        "pca",
        frame,
        formula=FORMULA,
        d_grid=[1, 2, 3, 10, 20],
        n_repeats=1,
        random_state=0,
        progress=False,
        verbose=False,
    )
    # c = 3 <= d <= min(n_train - 1, p) = 11 keeps 3 and 10 (n_train = 18)
    assert res["n_candidates"].iloc[0] == 2


def test_protocol_errors():
    frame = classes_frame()
    ais = sdr.datasets.load("ais")
    with pytest.raises(ValueError, match="needs class labels"):
        classification("pca", ais, formula="lbm ~ ht + wt", verbose=False)
    with pytest.raises(ValueError, match="Unknown method"):
        classification("jpcda", frame, formula=FORMULA, verbose=False)
    with pytest.raises(ValueError, match="three positive fractions"):
        classification("pca", frame, formula=FORMULA, splits=(0.5, 0.5), verbose=False)
    with pytest.raises(ValueError, match="'search' option"):
        classification("pca", frame, formula=FORMULA, search="random", verbose=False)
    small = frame.iloc[np.r_[0:6, 30:60, 60:90]]
    with pytest.raises(ValueError, match="fewer than 2 training rows.*splits=\\(0.6, 0.2, 0.2\\)"):
        classification("pca", small, formula=FORMULA, verbose=False)


def test_authors_split_sixty_twenty_twenty():
    y = np.repeat(np.arange(2), [50, 50])
    parts = _split(y, (0.6, 0.2, 0.2), np.random.SeedSequence(3))
    assert [part.size for part in parts] == [60, 20, 20]
    # a different seed gives a different split; the same seed the same one
    again = _split(y, (0.6, 0.2, 0.2), np.random.SeedSequence(3))
    other = _split(y, (0.6, 0.2, 0.2), np.random.SeedSequence(4))
    assert np.array_equal(parts[0], again[0]) and not np.array_equal(parts[0], other[0])
