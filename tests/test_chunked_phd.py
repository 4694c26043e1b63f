"""pHd on chunks and Dask with R dr's three tests (normal, general, independence).

The chunked fit's tests come from the sums of its passes (the third accumulates the residual
products of Cook's tests); they equal the in-memory tests, which are checked against R in
tests/test_phd.py. Tolerance: the same products summed in another order (per chunk, merged
pairwise) differ by rounding, ~1e-12 relative here; the p-values go through the same
weighted-χ² routine, so statistics and p-values agree to a relative 1e-9 (absolute floor
1e-10 for p-values near 0), eigenvalues and directions to 1e-9.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.base.warnings import MissingValueWarning, SDRWarning

FORMULA = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)"
TOL = 1e-9


def splits(frame):
    return {
        "37": [frame.iloc[i : i + 37] for i in range(0, len(frame), 37)],
        "one-row-first": [frame.iloc[:1], frame.iloc[1:120], frame.iloc[120:]],
        "uneven": [frame.iloc[:50], frame.iloc[50:51], frame.iloc[51:140], frame.iloc[140:]],
    }


def assert_same_phd(memory, chunked):
    assert chunked.n == memory.n
    np.testing.assert_allclose(
        chunked.output.eigenvalues, memory.output.eigenvalues, atol=TOL, rtol=0
    )
    np.testing.assert_allclose(chunked.output.basis, memory.output.basis, atol=TOL, rtol=0)
    a, b = memory.test_dimension(), chunked.test_dimension()
    pd.testing.assert_frame_equal(b.table, a.table, rtol=1e-9, atol=1e-10)
    assert b.d == a.d
    # the summary prints the same test table as the in-memory summary
    pd.testing.assert_frame_equal(
        chunked.summary().tables()["Large-sample Marginal Dimension Tests"],
        memory.summary().tables()["Large-sample Marginal Dimension Tests"],
        rtol=1e-9,
        atol=1e-10,
    )


@pytest.mark.parametrize("split", ["37", "one-row-first", "uneven"])
@pytest.mark.parametrize("residuals", [True, False])
def test_chunked_phd_tests_equal_in_memory(ais, residuals, split):
    memory = sdr.phd(FORMULA, ais, residuals=residuals)
    chunked = sdr.phd(FORMULA, sdr.chunks_from(splits(ais)[split]), residuals=residuals)
    assert_same_phd(memory, chunked)
    columns = ["stat", "df", "p_value"] + (["p_value_indep", "p_value_general"] * residuals)
    assert chunked.test_dimension().table.columns.tolist() == columns


def test_general_test_where_it_differs_from_the_normal_one():
    # skewed predictors and a curved mean: the general and independence p-values differ from
    # the normal-theory ones, so the third pass's covariances are what is checked
    rng = np.random.default_rng(11)
    X = rng.exponential(size=(600, 4))
    y = X[:, 0] ** 2 - X[:, 1] + 0.5 * rng.standard_normal(600)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "e"]).assign(y=y)
    memory = sdr.phd("y ~ a + b + c + e", frame)
    table = memory.test_dimension().table
    assert np.max(np.abs(table["p_value_general"] - table["p_value"])) > 1e-3
    chunks = [frame.iloc[i : i + 97] for i in range(0, 600, 97)]
    assert_same_phd(memory, sdr.phd("y ~ a + b + c + e", sdr.chunks_from(chunks)))


def test_missing_values_are_dropped_as_in_memory(ais):
    frame = ais.copy()
    frame.loc[[3, 100, 150], "ferr"] = np.nan
    with pytest.warns(MissingValueWarning):
        memory = sdr.phd(FORMULA, frame)
    with pytest.warns(MissingValueWarning, match="Dropped 3 rows"):
        chunked = sdr.phd(FORMULA, sdr.chunks_from(splits(frame)["uneven"]))
    assert chunked.n == 199
    assert_same_phd(memory, chunked)


@pytest.mark.parametrize("residuals", [True, False])
def test_dask_phd_tests_equal_in_memory(ais, residuals):
    dd = pytest.importorskip("dask.dataframe")
    memory = sdr.phd(FORMULA, ais, residuals=residuals)
    chunked = sdr.phd(FORMULA, dd.from_pandas(ais, npartitions=3), residuals=residuals)
    assert_same_phd(memory, chunked)


def test_above_the_cap_only_the_normal_test_with_a_warning(ais, monkeypatch):
    monkeypatch.setattr("sdrstats.moment.statistics.MAX_PAIR_P", 4)
    with pytest.warns(SDRWarning, match="p <= 4; with p = 8 the test tables show the normal"):
        chunked = sdr.phd(FORMULA, sdr.chunks_from(splits(ais)["37"]))
    memory = sdr.phd(FORMULA, ais).test_dimension().table
    table = chunked.test_dimension().table
    assert table.columns.tolist() == ["stat", "df", "p_value"]
    pd.testing.assert_frame_equal(table, memory[table.columns], rtol=1e-9, atol=1e-10)


def test_phdq_on_chunks_is_refused(ais):
    with pytest.raises(ValueError, match="phdq.*needs the rows in memory"):
        sdr.phd(FORMULA, sdr.chunks_from(splits(ais)["37"]), residuals="quadratic")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the two-pass fits of phdy warn about nothing
        sdr.phd(FORMULA, sdr.chunks_from(splits(ais)["37"]), residuals=False)
