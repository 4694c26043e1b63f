"""Online SIR inputs: DataFrame / iterator / CSV sources, formulas over chunks, bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.online import iter_chunks
from sdrstats.simulate import ossir_model


@pytest.fixture(scope="module")
def frame():
    df, _ = ossir_model(1, 2400, 10, random_state=0)
    df["x1"] = df["x1"] + 5.0  # positive, so log(x1) is defined
    df["group"] = np.where(df["x10"] > 0, "hi", "lo")
    return df


FORMULA = "y ~ log(x1) + x2 + x3 + x4 + x5 + group"


def test_dataframe_iterator_and_csv_sources_give_the_same_fit(frame, tmp_path):
    by_frame = sdr.online_sir(FORMULA, frame, chunksize=400)
    chunks = (frame.iloc[s : s + 400] for s in range(0, len(frame), 400))
    by_iterator = sdr.online_sir(FORMULA, chunks)
    path = tmp_path / "stream.csv"
    frame.to_csv(path, index=False)
    by_csv = sdr.online_sir(FORMULA, str(path), chunksize=400)
    for other in (by_iterator, by_csv):
        # the CSV round trip prints floats to 17 significant digits: equal to ~1e-12
        np.testing.assert_allclose(
            other.directions.to_numpy(), by_frame.directions.to_numpy(), atol=1e-9
        )
    assert by_frame.n_seen == by_csv.n_seen == 2400
    # R's order: the formula's terms as written
    assert list(by_frame.directions.index) == ["log(x1)", "x2", "x3", "x4", "x5", "grouplo"]


def test_later_chunks_reuse_the_first_chunks_design(frame):
    model = sdr.OnlineSIR(d=1, init_size=500)
    for s in range(0, 2400, 600):
        model.partial_fit(frame.iloc[s : s + 600], formula=FORMULA)
    new = frame.iloc[:3]
    X_new = np.column_stack(
        [np.log(new["x1"]), new[["x2", "x3", "x4", "x5"]], (new["group"] == "lo").astype(float)]
    )
    expected = (X_new - model._state["mean"]) @ model.directions.to_numpy()
    np.testing.assert_allclose(model.results().transform(new).to_numpy(), expected, atol=1e-12)


def test_iter_chunks_rejects_bad_sources():
    with pytest.raises(TypeError, match="source must be a pandas DataFrame, a Dask DataFrame"):
        list(iter_chunks(42))
    with pytest.raises(TypeError, match=r"Chunk 1 of the source \(a list\) is a list"):
        list(iter_chunks([pd.DataFrame({"a": [1]}), [1, 2]]))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        list(iter_chunks("/no/such/file.csv"))
    with pytest.raises(ValueError, match="'chunksize' option of online_sir"):
        list(iter_chunks(pd.DataFrame({"a": [1]}), chunksize=0))


def test_chunk_with_different_columns_raises(frame):
    model = sdr.OnlineSIR(d=1, init_size=500).partial_fit(frame.iloc[:600], formula=FORMULA)
    with pytest.raises(
        ValueError, match=r"columns differ from the first chunk's: missing \['x5'\]"
    ):
        model.partial_fit(frame.iloc[600:900].drop(columns="x5"))
    arrays = sdr.OnlineSIR(d=1, init_size=500)
    arrays.partial_fit(frame[["x2", "x3"]].iloc[:600], frame["y"].iloc[:600])
    with pytest.raises(ValueError, match="differ from the first chunk's"):
        arrays.partial_fit(frame[["x3", "x2"]].iloc[600:], frame["y"].iloc[600:])
    with pytest.raises(ValueError, match="the stream has p = 2"):
        arrays.partial_fit(np.ones((3, 4)), np.ones(3))


def test_response_beyond_the_cut_points_goes_to_the_end_slices():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((900, 5))
    y = X[:, 0] + 0.1 * rng.standard_normal(900)
    model = sdr.OnlineSIR(d=1, cut_points=[-1.0, 0.0, 1.0], init_size=600)
    model.partial_fit(X[:600], y[:600])
    before = model._state["slice_counts"].copy()
    model.partial_fit(X[600:603], np.array([-50.0, 50.0, 1e6]))
    np.testing.assert_array_equal(model._state["slice_counts"] - before, [1, 0, 0, 2])


def test_empty_chunk_is_ignored():
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((700, 4)), rng.standard_normal(700)
    model = sdr.OnlineSIR(d=1, init_size=600).partial_fit(X, y)
    state = model.state_dict()
    model.partial_fit(np.empty((0, 4)), np.empty(0))
    model.partial_fit(pd.DataFrame(columns=["a"]), formula=None, y=np.empty(0))
    assert model.n_seen == 700
    np.testing.assert_array_equal(model._state["beta"], state["state"]["beta"])


def test_non_finite_values_raise_and_missing_rows_are_dropped():
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((700, 4)), rng.standard_normal(700)
    model = sdr.OnlineSIR(d=1, init_size=600).partial_fit(X[:650], y[:650])
    bad = X[650:660].copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="column 'x2' has 1 infinite or undefined"):
        model.partial_fit(bad, y[650:660])
    with pytest.raises(ValueError, match="column 'y' has 1 infinite"):
        model.partial_fit(X[650:652], np.array([0.0, -np.inf]))
    holes = X[650:660].copy()
    holes[0, 0] = np.nan
    with pytest.warns(sdr.MissingValueWarning, match="Dropped 1 of 10 rows"):
        model.partial_fit(holes, y[650:660])
    assert model.n_seen == 659
    with pytest.raises(ValueError, match="missing values"):
        model.partial_fit(holes, y[650:660], missing="raise")


def test_categorical_stream_uses_the_first_chunks_levels():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((1500, 6))
    labels = np.array(["a", "b", "c"])[(X[:, 0] > -0.5).astype(int) + (X[:, 0] > 0.5)]
    model = sdr.OnlineSIR(d=1, init_size=500)
    for s in range(0, 1500, 500):
        model.partial_fit(X[s : s + 500], pd.Series(labels[s : s + 500]))
    assert model._H == 3
    assert abs(model.directions.to_numpy()[0, 0]) > 0.95
    with pytest.raises(ValueError, match=r"class label\(s\) \['z'\] not seen"):
        model.partial_fit(X[:2], pd.Series(["a", "z"]))


def test_bad_options_and_states_raise_clear_errors(frame):
    with pytest.raises(ValueError, match="'eigen' option of online_sir with sparse=False"):
        sdr.OnlineSIR(eigen="ccipca", sparse=False)
    with pytest.raises(ValueError, match="'eigen' parameter of OnlineSIR must be one of"):
        sdr.OnlineSIR(eigen="svd")
    with pytest.raises(ValueError, match="'d' option of online_sir must be at most nslices - 1"):
        sdr.OnlineSIR(nslices=3, d=3)
    with pytest.raises(ValueError, match="strictly increasing"):
        sdr.OnlineSIR(cut_points=[1.0, 0.0])
    with pytest.raises(ValueError, match="must be len\\(cut_points\\) \\+ 1 = 3"):
        sdr.OnlineSIR(cut_points=[0.0, 1.0], nslices=5)
    with pytest.raises(ValueError, match="init_size > p"):
        sdr.OnlineSIR(sparse=False, eigen="sgd", init_size=5).partial_fit(
            np.random.default_rng(0).standard_normal((5, 8)), np.arange(5.0)
        )
    early = sdr.OnlineSIR(init_size=500).partial_fit(frame.iloc[:100], formula=FORMULA)
    with pytest.raises(ValueError, match="has seen 100 row"):
        _ = early.directions
    with pytest.raises(ValueError, match="cannot change it"):
        early.partial_fit(frame.iloc[100:200], formula="y ~ x2")
    with pytest.raises(TypeError, match="needs y, or a formula"):
        sdr.OnlineSIR().partial_fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="state is incomplete or corrupt: wrong schema version 0"):
        sdr.OnlineSIR.from_state({"version": 0})
    with pytest.raises(ValueError, match="fewer than init_size = 500"):
        sdr.online_sir(FORMULA, frame.iloc[:100])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sdr.online_sir(FORMULA, frame, chunksize=1200)  # clean data: no warning


def test_formula_stream_resumes_from_a_saved_file(frame, tmp_path):
    whole = sdr.online_sir(FORMULA, frame, chunksize=600)
    half = sdr.online_sir(FORMULA, frame.iloc[:1200], chunksize=600)
    resumed = sdr.OnlineSIR.load(half.stream.save(tmp_path / "half.npz"))
    for start in range(1200, 2400, 600):
        resumed.partial_fit(frame.iloc[start : start + 600])  # the formula was given once
    np.testing.assert_array_equal(resumed.directions.to_numpy(), whole.directions.to_numpy())
    # the loaded design rebuilds log(x1) and the factor coding for new rows
    np.testing.assert_allclose(
        resumed.results().transform(frame.iloc[:4]), whole.transform(frame.iloc[:4])
    )


def test_categorical_response_through_a_formula(frame):
    data = frame.assign(cls=np.where(frame["y"] > 0, "up", "down"))
    fit = sdr.online_sir("cls ~ x1 + x2 + x3 + x4 + x5", data, chunksize=600)
    model = fit.stream
    assert model._H == 2 and model.cut_points_ is None
    assert list(fit.extras["slice_sizes"]) == [
        int((data["cls"] == "down").sum()),
        int((data["cls"] == "up").sum()),
    ]
