"""Formula front: expansion of '.', factors, responses, missing values, new data."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.design.formula import from_arrays, parse


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame(
        {
            "y": rng.normal(size=n),
            "y2": rng.normal(size=n),
            "x1": rng.normal(size=n),
            "x2": rng.uniform(1, 2, size=n),
            "x3": rng.normal(size=n),
            "g": rng.choice(["a", "b", "c"], size=n),
        }
    )
    return df


def test_dot_expands_to_all_other_columns(frame):
    spec = parse("y ~ .", frame.drop(columns=["y2"]))
    # R's order: the columns as data lists them (patsy would put the factor g first)
    assert spec.x_names == ["x1", "x2", "x3", "gb", "gc"]
    assert spec.y_names == ["y"]


def test_dot_minus_term_removes_it(frame):
    spec = parse("y ~ . - x3 - y2", frame)
    assert "x3" not in spec.x_names and "y2" not in spec.x_names
    assert "x1" in spec.x_names


def test_transforms_evaluate_with_r_names(frame):
    spec = parse("y ~ log(x2) + sqrt(x2) + exp(x1) + abs(x3)", frame)
    np.testing.assert_allclose(spec.X[:, 0], np.log(frame["x2"]))
    np.testing.assert_allclose(spec.X[:, 3], np.abs(frame["x3"]))


def test_caller_names_are_visible(frame):
    def double(v):
        return 2 * v

    spec = parse("y ~ double(x1) + x2", frame)
    np.testing.assert_allclose(spec.X[:, 0], 2 * frame["x1"])


def test_factor_coded_full_rank_without_intercept(frame):
    spec = parse("y ~ C(g) + x1", frame)
    assert "Intercept" not in spec.x_names
    assert spec.p == 3  # two treatment contrasts for three levels, plus x1
    assert np.linalg.matrix_rank(spec.X - spec.X.mean(0)) == 3


def test_two_column_response(frame):
    spec = parse("y + y2 ~ x1 + x2", frame)
    assert spec.Y.shape == (60, 2)
    assert spec.y_names == ["y", "y2"]


def test_string_response_is_categorical(frame):
    spec = parse("g ~ x1 + x2", frame)
    assert spec.categorical and spec.y_levels == ["a", "b", "c"]
    assert spec.Y.dtype == np.int64
    fit = sdr.sir("g ~ x1 + x2 + x3", frame)
    assert fit.slice_sizes.sum() == 60 and len(fit.slice_sizes) == 3


def test_missing_rows_dropped_with_warning(frame):
    data = frame.copy()
    data.loc[[3, 7], "x1"] = np.nan
    data.loc[9, "y"] = np.nan
    with pytest.warns(sdr.MissingValueWarning, match="Dropped 3 of 60 rows"):
        spec = parse("y ~ x1 + x2", data)
    assert spec.n == 57
    assert list(spec.index[:4]) == [0, 1, 2, 4]


def test_missing_raise(frame):
    data = frame.copy()
    data.loc[3, "x1"] = np.nan
    with pytest.raises(ValueError, match=r"missing values in \['x1'\]"):
        parse("y ~ x1 + x2", data, missing="raise")


def test_caller_frame_not_modified(frame):
    data = frame.copy()
    data.loc[3, "x1"] = np.nan
    before = pd.util.hash_pandas_object(data, index=True).to_numpy().copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.MissingValueWarning)
        sdr.sir("y ~ x1 + x2 + x3", data)
    np.testing.assert_array_equal(pd.util.hash_pandas_object(data, index=True), before)


def test_transform_newdata_reuses_levels_and_transforms(frame):
    fit = sdr.sir("y ~ log(x2) + C(g) + x1", frame, nslices=4)
    new = frame.iloc[[5, 1, 2]].copy()
    np.testing.assert_allclose(fit.transform(new).to_numpy(), fit.transform().iloc[[5, 1, 2]])
    assert list(fit.transform(new).index) == [5, 1, 2]
    # a frame holding only one level still codes it with the training levels
    one = frame[frame.g == "b"].iloc[:2]
    np.testing.assert_allclose(
        fit.transform(one).to_numpy(), fit.transform().loc[one.index].to_numpy()
    )


def test_transform_unseen_level_is_clear(frame):
    fit = sdr.sir("y ~ C(g) + x1 + x2", frame, nslices=4)
    new = frame.iloc[:2].copy()
    new["g"] = ["zz", "a"]
    with pytest.raises(ValueError, match="not seen when fitting"):
        fit.transform(new)


def test_pickled_fit_transforms_new_rows(frame):
    fit = sdr.sir("y ~ log(x2) + C(g) + x1", frame, nslices=4)
    clone = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(
        clone.transform(frame).to_numpy(), fit.transform(frame).to_numpy()
    )
    assert str(clone.summary()) == str(fit.summary())


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("y ~ nothere + x1", "names 'nothere', which is not a column"),
        ("y x1", "exactly one '~'"),
        ("~ x1", "no response"),
        ("y ~ ", "no predictors"),
        ("y ~ x1 +", "Could not evaluate|formula"),
    ],
)
def test_bad_formulas_are_clear(frame, formula, message):
    with pytest.raises(ValueError, match=message):
        parse(formula, frame)


def test_non_string_formula_and_bad_data(frame):
    with pytest.raises(TypeError, match="formula must be a string"):
        parse(3, frame)
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        parse("y ~ x1", [1, 2, 3])
    with pytest.raises(ValueError, match="no rows"):
        parse("y ~ x1", frame.iloc[:0])


def test_duplicated_columns_rejected(frame):
    data = frame[["y", "x1", "x2"]].copy()
    data.columns = ["y", "x1", "x1"]
    with pytest.raises(ValueError, match=r"duplicated column names \['x1'\]"):
        parse("y ~ x1", data)


def test_infinite_values_name_the_column(frame):
    data = frame.copy()
    data.loc[4, "x2"] = 0.0
    with pytest.raises(ValueError, match=r"'log\(x2\)' has 1 infinite"):
        parse("y ~ log(x2) + x1", data)


def test_array_path_names_and_labels():
    X = np.arange(12.0).reshape(6, 2)
    spec = from_arrays(X, np.array(["u", "v", "u", "v", "u", "v"]))
    assert spec.x_names == ["x1", "x2"] and spec.categorical
    with pytest.raises(ValueError, match="X has 6 rows but y has 5"):
        from_arrays(X, np.arange(5.0))
