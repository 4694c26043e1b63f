"""A stream reads its batches through the formula plan, as chunks and Dask partitions do."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.design.plan import FormulaPlan, expand_formula
from sdrstats.design.safe_formula import UnsafeFormulaError, check_expression

DATA = Path(__file__).resolve().parent / "data"
FORMULA = "log(y) ~ x1 + x2 + C(g)"
#: The options of the saved stream in ``data/`` (see ``data/make_stream_v3.py``); a fixed
#: gravity, so that the files keep testing how batches are read when the automatic
#: truncation rule changes.
OPTIONS = {
    "chunksize": 40,
    "init_size": 40,
    "nslices": 5,
    "d": 1,
    "reservoir_size": 20,
    "gravity": 0.05,
    "truncate_every": 10,
}
SAVED_ROWS = 80
BATCH = 40


def stream_frame() -> pd.DataFrame:
    """200 rows: a positive response of x1 + x2, and a factor g of three levels."""
    rng = np.random.default_rng(36)
    frame = pd.DataFrame(rng.standard_normal((200, 3)), columns=["x1", "x2", "x3"])
    frame["g"] = np.array(["a", "b", "c"])[rng.integers(0, 3, 200)]
    frame["y"] = np.exp(frame["x1"] + frame["x2"] + 0.3 * rng.standard_normal(200))
    return frame


def twice(values):
    """A function of the caller's session: a formula in memory may call it, a stream not."""
    return 2 * values


def _batches(frame: pd.DataFrame, start: int = 0) -> list[pd.DataFrame]:
    return [frame.iloc[s : s + BATCH] for s in range(start, len(frame), BATCH)]


@pytest.mark.filterwarnings("ignore:invalid value encountered in log:RuntimeWarning")
def test_each_batch_of_a_stream_is_what_the_formula_plan_reads():
    frame = stream_frame()
    frame.loc[5, "x2"] = np.nan  # a missing value in the first batch
    frame.loc[95, "y"] = -1.0  # log(y) undefined in a later batch: dropped like a missing value
    frame.loc[130, "g"] = None
    model = sdr.OnlineSIR(d=1, init_size=40, nslices=5)
    read, seen = model._reader.read, []

    def spy(*args, **kwargs):
        seen.append(read(*args, **kwargs))
        return seen[-1]

    model._reader.read = spy
    batches = _batches(frame)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for batch in batches:
            model.partial_fit(batch, formula=FORMULA)
    dropped = [str(w.message) for w in caught if issubclass(w.category, sdr.MissingValueWarning)]
    assert dropped == [
        "Dropped 1 of 40 rows of a chunk with missing values in ['x2'].",
        "Dropped 1 of 40 rows of a chunk with undefined values of a term (such as the log of "
        "a value <= 0).",
        "Dropped 1 of 40 rows of a chunk with missing values in ['g'].",
    ]
    plan = FormulaPlan(FORMULA, batches[0])
    assert len(seen) == len(batches)
    for batch, (X, y) in zip(batches, seen, strict=True):
        X_plan, y_plan, _ = plan.arrays(batch)
        np.testing.assert_array_equal(X, X_plan)
        np.testing.assert_array_equal(y, y_plan[:, 0])
    assert model.n_seen == 200 - 3
    assert isinstance(model._reader.plan(), FormulaPlan)
    # the missing='raise' of one batch (the plan's own policy is 'drop')
    with pytest.raises(
        ValueError, match=r"1 row\(s\) of this chunk have missing values in \['g'\]"
    ):
        model.partial_fit(frame.iloc[120:160], missing="raise")


def test_a_response_outside_the_allow_list_is_refused_on_the_first_batch():
    frame = stream_frame()
    with pytest.raises(UnsafeFormulaError) as expected:
        check_expression("twice(y)", list(frame.columns), what="the stream's response")
    assert sdr.sir("twice(y) ~ x1 + x2", frame, nslices=5).n == 200  # in memory: fine
    model = sdr.OnlineSIR(d=1, init_size=40, nslices=5)
    with pytest.raises(UnsafeFormulaError) as refused:
        model.partial_fit(frame.iloc[:40], formula="twice(y) ~ x1 + x2")
    assert str(refused.value) == str(expected.value)
    assert "'twice' is not one of the allowed functions" in str(refused.value)
    assert model._reader.spec is None  # nothing was taken: the stream can start again
    model.partial_fit(frame.iloc[:40], formula=FORMULA)
    assert model.n_seen == 40
    # from_spec checks the response it is given, whatever the first piece held
    spec = FormulaPlan(FORMULA, frame).spec
    hostile = "__import__('os').getcwd() ~ x1 + x2 + C(g)"
    with pytest.raises(UnsafeFormulaError, match="stored formula"):
        FormulaPlan.from_spec(spec, hostile, list(frame.columns))


def test_from_spec_reads_pieces_as_the_plan_of_the_first_piece():
    frame = stream_frame()
    first = FormulaPlan(FORMULA, frame.iloc[:50])
    again = FormulaPlan.from_spec(
        first.spec, expand_formula(FORMULA, list(frame.columns)), list(frame.columns)
    )
    for piece in (frame.iloc[50:120], frame.iloc[120:]):
        for a, b in zip(first.arrays(piece), again.arrays(piece), strict=True):
            np.testing.assert_array_equal(a, b)
    part = frame.iloc[60:70].copy()
    part.loc[62, "x1"] = np.nan
    with pytest.raises(ValueError, match=r"1 row\(s\) of part have missing values in \['x1'\]"):
        again.arrays(part, "part", missing="raise")
    assert again.arrays(part, "part")[2] == 1
    with pytest.raises(ValueError, match="'missing' option must be 'drop' or 'raise'"):
        again.arrays(part, missing="skip")
    with pytest.raises(ValueError, match="as expand_formula writes it"):
        FormulaPlan.from_spec(first.spec, "log(y) ~ .", list(frame.columns))
    arrays = sdr.OnlineSIR(d=1, init_size=40, nslices=5).partial_fit(
        frame[["x1", "x2"]], frame["y"]
    )
    with pytest.raises(TypeError, match="the model spec of a formula"):
        FormulaPlan.from_spec(arrays._reader.spec, "y ~ x1 + x2", ["x1", "x2", "y"])


def test_a_stream_file_of_format_3_written_before_the_plan_loads_and_continues():
    frame = stream_frame()
    whole = sdr.online_sir(FORMULA, frame, **OPTIONS)
    resumed = sdr.OnlineSIR.load(DATA / "stream_v3.npz")
    assert resumed.state_dict()["version"] == 3
    for batch in _batches(frame, SAVED_ROWS):
        resumed.partial_fit(batch)  # the saved formula, read through a plan made on load
    assert resumed.n_seen == whole.n_seen == 200
    np.testing.assert_array_equal(resumed.directions.to_numpy(), whole.directions.to_numpy())
    np.testing.assert_array_equal(
        resumed.results().transform(frame.iloc[:5]), whole.transform(frame.iloc[:5])
    )
    # a saved result holds a copy of the stream's reader: it reads rows= through a plan too
    saved = sdr.load(DATA / "stream_v3_result.npz")
    fresh = sdr.online_sir(FORMULA, frame.iloc[:SAVED_ROWS], **OPTIONS)
    rows, at = frame.iloc[100:160], frame.iloc[:3]
    # the file was written on another machine, whose BLAS kernels may differ from this
    # one's in the last bits: equal to rounding
    np.testing.assert_allclose(
        np.asarray(saved.conditional_density(rows=rows, random_state=0).mean(at)),
        np.asarray(fresh.conditional_density(rows=rows, random_state=0).mean(at)),
        rtol=1e-12,
        atol=1e-14,
    )
