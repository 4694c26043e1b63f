"""R dr's rules for discrete and categorical responses.

Reference numbers: tests/reference/make_r_dr_discrete.R (R dr 3.0.11) wrote
tests/reference/r_dr_discrete.json, data included. Eigenvalues and statistics of the moment
methods are deterministic linear algebra, so they agree with R to rounding (1e-8 relative
leaves room for a different LAPACK); bases agree up to the sign of each column.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr

REF = json.loads((Path(__file__).parent / "reference" / "r_dr_discrete.json").read_text())


def _frame(response: list[float]) -> pd.DataFrame:
    x = np.array(REF["two"]["x_by_row"], dtype=float)
    df = pd.DataFrame(x, columns=[f"x{j + 1}" for j in range(x.shape[1])])
    df["g"] = np.asarray(response, dtype=float)
    return df


def _as_list(v):
    return v if isinstance(v, list) else [v]


def test_two_class_sir_has_one_test_row_as_r_summary():
    fit = sdr.sir("g ~ .", _frame(REF["two"]["g"]))
    ref = REF["two"]["sir"]
    np.testing.assert_allclose(fit.eigenvalues.iloc[0], ref["evalues"][0], rtol=1e-8)
    table = fit.test_dimension().table
    assert list(table.index) == _as_list(ref["tests"]["rows"])
    np.testing.assert_allclose(table["stat"], _as_list(ref["tests"]["Stat"]), rtol=1e-8)
    assert list(table["df"]) == _as_list(ref["tests"]["df"])
    assert (table["df"] > 0).all()


def test_two_class_sir_reports_at_most_one_direction():
    # h - 1 = 1 direction is all two slices can estimate: fit.d and the default bootstrap use 1
    fit = sdr.sir("g ~ .", _frame(REF["two"]["g"]))
    assert fit.d == 1
    assert fit.bootstrap(B=5, random_state=0, progress=False).d == 1
    assert "every test is rejected" in str(fit.test_dimension())


def test_two_class_save_keeps_r_rows():
    # SAVE's df (h - 1)(p - m)(p - m + 1)/2 stays positive: R prints numdir rows, and so do we
    fit = sdr.save("g ~ .", _frame(REF["two"]["g"]))
    table = fit.test_dimension().table
    assert list(table.index) == REF["two"]["save"]["tests"]["rows"]
    np.testing.assert_allclose(fit.eigenvalues, REF["two"]["save"]["evalues"], rtol=1e-8)


def test_three_class_sir_tests_only_m_below_h_minus_one():
    fit = sdr.sir("g ~ .", _frame(REF["three"]["g"]))
    ref = REF["three"]["sir"]["tests"]
    table = fit.test_dimension().table
    assert list(table.index) == ref["rows"]
    np.testing.assert_allclose(table["stat"], ref["Stat"], rtol=1e-8)
    # R's p-value is 1 - pchisq(...), exact only to about 1e-16 absolute (0 for tiny tails)
    np.testing.assert_allclose(table["p_value"], ref["p.value"], rtol=1e-8, atol=1e-15)


def test_discrete_response_with_more_slices_than_half_n_is_sliced_by_value():
    small = REF["small"]
    df = pd.DataFrame({"x1": small["x1"], "x2": small["x2"], "y": small["y"]})
    fit = sdr.sir("y ~ x1 + x2", df, nslices=10)
    assert fit.slice_sizes.tolist() == small["slice_sizes"]
    np.testing.assert_allclose(fit.eigenvalues.iloc[0], small["evalues"][0], rtol=1e-8)


def test_continuous_response_with_too_many_slices_names_the_rule():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.standard_normal((10, 2)), columns=["x1", "x2"])
    df["y"] = rng.standard_normal(10)
    with pytest.raises(ValueError, match=r"at most n/2 = 5 for a response with more than 8"):
        sdr.sir("y ~ x1 + x2", df, nslices=8)


@pytest.mark.parametrize("k", [2, 4])
def test_ire_directions_for_k_is_the_k_dimensional_solution(k):
    ais = sdr.datasets.load("ais")
    fit = sdr.ire("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(rcc)", ais, d=4)
    ref = np.array(REF["ire_basis"][f"k{k}_by_row"])
    ours = fit.directions_for(k).to_numpy()
    signs = np.sign(np.sum(ours * ref, axis=0))
    # ALS stops at relative change 1e-6 in both programs: bases agree to about 1e-5
    np.testing.assert_allclose(ours * signs, ref, atol=2e-5)
    scores = fit.transform(d=k).to_numpy()
    X = fit.spec.X - fit.spec.X.mean(axis=0)
    np.testing.assert_allclose(scores, X @ fit.directions_for(k).to_numpy(), atol=1e-10)


def test_two_class_ire_tests_only_d_below_h_minus_one():
    fit = sdr.ire("g ~ .", _frame(REF["two"]["g"]))
    table = fit.test_dimension().table
    assert list(table.index) == ["0D vs > 0D"]
    assert (table["df"] > 0).all()
