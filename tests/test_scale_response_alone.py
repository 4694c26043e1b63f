"""Chunked slicing passes read the response's columns alone and still slice the fit's rows.

When the one pass that slices as it sums gives up (:mod:`sdrstats.scale.one_pass`: here it is
given no room for rows, so it always does), the passes that find the exact slices of a
continuous response read only the response (and weights) columns; a CSV file's reader then
parses no predictor. The rows the predictors drop
(a missing value, the log of a value <= 0) are invisible to those passes, so the fit's first
pass over the rows checks that it keeps as many rows of every chunk as they counted, and slices
again over the rows it keeps when not. Either way the fit equals the in-memory fit.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.scale import chunks as scale_chunks
from sdrstats.scale import fit as scale_fit
from sdrstats.scale import one_pass
from sdrstats.scale.fit import LocalChunks

FORMULA = "y ~ x1 + log(x2) + x3"
TOL = 1e-10


def frame(n=600, seed=3):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(rng.standard_normal((n, 3)), columns=["x1", "x2", "x3"])
    data["x2"] = np.exp(data["x2"])
    data["y"] = data.x1 + np.log(data.x2) ** 2 + 0.3 * rng.standard_normal(n)
    data["w"] = rng.uniform(0.5, 1.5, n)
    return data


def assert_same_fit(a, b, tol=TOL):
    np.testing.assert_allclose(b.output.eigenvalues, a.output.eigenvalues, atol=tol, rtol=0)
    np.testing.assert_allclose(b.output.basis, a.output.basis, atol=tol, rtol=0)
    np.testing.assert_array_equal(a.slice_sizes, b.slice_sizes)
    assert a.n == b.n


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.MissingValueWarning)
        return fn(*args, **kwargs)


@pytest.fixture(autouse=True)
def passes_over_the_response(monkeypatch):
    """No room for held rows: the one pass gives up at the first chunk."""
    monkeypatch.setattr(one_pass, "KEPT_BYTES", 0)


@pytest.fixture
def read_columns(monkeypatch):
    """The ``usecols`` of every ``pandas.read_csv`` call a chunked fit makes."""
    seen = []
    original = pd.read_csv

    def spy(*args, **kwargs):
        seen.append(kwargs.get("usecols"))
        return original(*args, **kwargs)

    monkeypatch.setattr(scale_chunks.pd, "read_csv", spy)
    return seen


def test_the_slicing_pass_of_a_csv_parses_the_response_alone(tmp_path, read_columns):
    data = frame()
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    fit = sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=100), nslices=7)
    assert_same_fit(sdr.sir(FORMULA, data, nslices=7), fit)
    assert ["y"] in read_columns  # the slicing pass: the response's column alone
    assert fit.slicing_passes == 1 and fit.row_passes == 1  # 600 distinct values: counted
    read_columns.clear()
    weighted = sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=100), weights="w")
    assert ["y", "w"] in read_columns  # the weights too (R dr slices the weighted rows)
    assert_same_fit(sdr.sir(FORMULA, data, weights="w"), weighted)


@pytest.mark.parametrize("where", ["x1", "x2", "y", "w"])
def test_rows_the_predictors_drop_are_not_sliced(tmp_path, where):
    # A missing predictor, the log of a negative value, a missing response or weight: the
    # chunked fit keeps and slices the rows the in-memory fit keeps.
    data = frame()
    rows = [5, 150, 151, 420]
    data.loc[rows, where] = -1.0 if where == "x2" else np.nan
    if where == "w":
        data.loc[rows, "x3"] = np.nan  # a missing weight is an error on a row the fit keeps
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    for options in ({"nslices": 7}, {"weights": "w"}):
        memory = quiet(sdr.sir, FORMULA, data, **options)
        fit = quiet(sdr.sir, FORMULA, sdr.read_csv_chunks(path, chunksize=100), **options)
        assert_same_fit(memory, fit)
        assert fit.n == 600 - len(rows)


def test_the_fit_slices_again_only_when_the_predictors_drop_rows(monkeypatch):
    data = frame()
    pieces = [data.iloc[k : k + 90] for k in range(0, 600, 90)]
    calls = []
    original = LocalChunks.map_reduce_columns

    def counted(self, columns, *args):
        calls.append(list(columns))
        return original(self, columns, *args)

    monkeypatch.setattr(LocalChunks, "map_reduce_columns", counted)
    made = []

    class Recorded(scale_fit.ChunkedData):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self.response_alone)

    monkeypatch.setattr(scale_fit, "ChunkedData", Recorded)
    clean = sdr.save(FORMULA, sdr.chunks_from(pieces), nslices=6)
    assert calls == [["y"]]  # summary; later passes reuse the kept response values
    assert made == [True]
    calls.clear()
    made.clear()
    data.loc[[10, 300], "x3"] = np.nan
    pieces = [data.iloc[k : k + 90] for k in range(0, 600, 90)]
    memory = quiet(sdr.save, FORMULA, data, nslices=6)
    fit = quiet(sdr.save, FORMULA, sdr.chunks_from(pieces), nslices=6)
    assert calls == [["y"]]  # then the fit's rows disagree: slicing again over its rows
    assert made == [True, False]
    assert_same_fit(memory, fit)
    # the passes of the fit that held (not the pass over the response alone, nor the chunks of
    # the rows read until the counts disagreed)
    assert (fit.slicing_passes, fit.row_passes) == (clean.slicing_passes, clean.row_passes)


@pytest.mark.parametrize(
    "fn, options",
    [
        (sdr.phd, {}),
        (sdr.cume, {}),
        (sdr.directional_regression, {"nslices": 5}),
        (sdr.ire, {"nslices": 5, "d_max": 2}),
        (sdr.ire, {"group": "g", "nslices": 4, "d_max": 1}),
    ],
)
def test_other_families_slice_the_rows_the_fit_keeps(fn, options):
    data = frame().assign(g=lambda d: np.where(d.x3 > 0, "a", "b"))
    data.loc[[7, 333, 334], "x1"] = np.nan
    pieces = [data.iloc[k : k + 120] for k in range(0, 600, 120)]
    memory = quiet(fn, FORMULA, data, **options)
    fit = quiet(fn, FORMULA, sdr.chunks_from(pieces), **options)
    np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=1e-8)
    assert fit.n == memory.n == 597


def test_missing_raise_and_bad_values_give_the_messages_of_a_full_pass(tmp_path):
    data = frame(n=120)
    data.loc[80, "x3"] = np.nan
    chunks = sdr.chunks_from([data.iloc[:60], data.iloc[60:]])
    with pytest.raises(ValueError, match=r"1 row\(s\) of chunk 2 have missing values"):
        sdr.sir(FORMULA, chunks, missing="raise")
    path = tmp_path / "bad.csv"
    text = frame(n=120).to_csv(index=False).splitlines()
    text[46] = text[46].rsplit(",", 2)[0] + ",oops," + text[46].rsplit(",", 1)[1]  # y of row 45
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(ValueError, match=r"Column 'y' of chunk 3 holds 'oops' \(row 45, line 47"):
        sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=20))
    text = frame(n=120).to_csv(index=False).splitlines()
    text[30] += ",1"  # a field too many: pandas' message, from the pass over all columns
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(pd.errors.ParserError, match="Expected 5 fields in line 31, saw 6"):
        sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=20))


def test_options_that_rename_columns_read_them_all_then_select(tmp_path, read_columns):
    data = frame(n=200)
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False, header=False)
    names = list(data.columns)
    fit = sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=50, names=names), nslices=5)
    assert_same_fit(sdr.sir(FORMULA, data, nslices=5), fit)
    assert set(read_columns) == {None}
