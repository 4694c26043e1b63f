"""Partial SIR and partial SAVE (``group=``) against R dr 3.0.11.

The numbers come from tests/reference/r_dr_partial.json, written by
tests/reference/make_r_dr_partial.R (R 4.2.2, dr 3.0.11) on data/ais.csv and data/auto.csv.
Both sides compute in double precision on at most 392 rows: agreement is ~1e-12, checked at
1e-8 (eigenvalues, statistics, p-values) and 1e-7 (directions, up to sign).

Partial SAVE is R's in every number. Partial SIR weighs each group by ``n_g/n`` where R's
``psir`` does not (a local ``n`` shadows the total; see :mod:`sdrstats.moment.partial`), so
its directions, eigenvalues and dimension statistics are compared three ways: its pieces
(each group's slice means in its own whitened scale, the pooled covariance) equal R's
exactly; R's own eigenvalues, directions and test table follow from those pieces with R's
weighting; and with two groups of 100 rows, where the two weightings differ by the factor 2,
the directions are R's and the eigenvalues and statistics R's halves. Its coordinate tests
weigh each group by its own ``n_g`` in both programs and equal R's.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2

import sdrstats as sdr
from sdrstats.moment.partial import symmetric_power

REF = json.loads((Path(__file__).parent / "reference" / "r_dr_partial.json").read_text())
F4 = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"
F8 = F4 + " + log(wcc) + log(rcc) + log(hc) + log(ferr)"
AUTO = "mpg ~ displacement + horsepower + weight + acceleration"

# key -> (method, formula, data set, rows, options); the options are those of each R call
CASES = {
    "psir_sex": ("sir", F8, "ais", None, {"nslices": 4}),
    "psir_equal": ("sir", F8, "ais", 200, {"nslices": 4}),
    "psir_pool": ("sir", F4, "ais", None, {"nslices": 5, "pool": True}),
    "psir_default": ("sir", F4, "ais", None, {"d_max": 2}),
    "psir_auto": ("sir", AUTO, "auto", None, {"nslices": 3}),
    "psave_sex": ("save", F8, "ais", None, {"nslices": 4}),
    "psave_pool": ("save", F4, "ais", None, {"nslices": 5, "numdir": 3, "pool": True}),
    "psave_default": ("save", F4, "ais", None, {"numdir": 3}),
    "psave_auto": ("save", AUTO, "auto", None, {"nslices": 3, "numdir": 3}),
}
GROUP = {"ais": "sex", "auto": "~ origin"}


def fit_of(key):
    method, formula, name, rows, options = CASES[key]
    data = sdr.datasets.load(name)
    data = data if rows is None else data.iloc[:rows]
    return getattr(sdr, method)(formula, data, group=GROUP[name], **options)


def by_row(values):
    return np.asarray(values, dtype=float)


def assert_same_directions(ours, theirs, k):
    """The first ``k`` columns are equal up to sign."""
    for j in range(k):
        sign = np.sign(ours[:, j] @ theirs[:, j]) or 1.0
        np.testing.assert_allclose(sign * ours[:, j], theirs[:, j], atol=1e-7)


@pytest.mark.parametrize("key", sorted(CASES))
def test_groups_and_their_slices_are_r_s(key):
    fit, ref = fit_of(key), REF[key]
    assert [str(g) for g in fit.extras["group_levels"]] == ref["group_levels"]  # R's unique()
    assert [s.tolist() for s in fit.extras["group_slice_sizes"]] == ref["group_slice_sizes"]
    assert fit.x_names == ref["predictors"] and fit.n == ref["n"]
    root = fit.extras["pool_root"]
    np.testing.assert_allclose(root @ root, by_row(ref["sigma_pool_by_row"]), rtol=1e-10)


@pytest.mark.parametrize("key", [k for k in CASES if k.startswith("psave")])
def test_partial_save_is_r_s(key):
    fit, ref = fit_of(key), REF[key]
    np.testing.assert_allclose(fit.extras["M"], by_row(ref["M_by_row"]), atol=1e-10)
    np.testing.assert_allclose(fit.eigenvalues, ref["evalues"], atol=1e-10)
    k = len(ref["tests"]["rows"])
    assert_same_directions(fit.all_directions.to_numpy(), by_row(ref["evectors_by_row"]), k)
    table = fit.test_dimension().table
    assert table.index.tolist() == ref["tests"]["rows"]
    np.testing.assert_allclose(table["stat"], ref["tests"]["Stat"], rtol=1e-9)
    np.testing.assert_array_equal(table["df"], ref["tests"]["df"])
    np.testing.assert_allclose(table["p_value"], ref["tests"]["p-values"], rtol=1e-7, atol=1e-14)
    np.testing.assert_allclose(fit._eigen_table(k).loc["R^2(OLS|dr)"], ref["r2"], atol=1e-8)
    for predictor, theirs in ref["coordinate"].items():
        test = fit.coordinate_test([predictor])
        assert test.weights == "normal" and test.df == theirs["df"]
        assert test.statistic == pytest.approx(theirs["Test"], rel=1e-9)
        assert test.p_value == pytest.approx(theirs["P.value"], rel=1e-7, abs=1e-14)


@pytest.mark.parametrize("key", [k for k in CASES if k.startswith("psir")])
def test_partial_sir_pieces_are_r_s_and_give_r_s_numbers_with_r_s_weighting(key):
    fit, ref = fit_of(key), REF[key]
    zmeans = by_row(ref["zmeans_by_row"])  # R's groups' sqrt(n_gs/n_g) z-means, side by side
    np.testing.assert_allclose(np.hstack(fit.extras["group_kernels"]), zmeans, atol=1e-10)
    # R's numbers from these pieces: its groups summed unweighted ...
    u, s, _ = np.linalg.svd(zmeans)
    np.testing.assert_allclose(s**2, ref["evalues"], atol=1e-10)
    back = symmetric_power(by_row(ref["sigma_pool_by_row"]), -0.5) @ u
    back /= np.linalg.norm(back, axis=0)
    k = len(ref["tests"]["rows"])
    assert_same_directions(back, by_row(ref["evectors_by_row"]), k)
    n, p = fit.n, fit.p
    slices, groups = sum(len(g) for g in ref["group_slice_sizes"]), len(ref["group_levels"])
    top = min(p, slices - groups)
    r_stat = [n * np.sum(s[m:top] ** 2) for m in range(k)]
    np.testing.assert_allclose(r_stat, ref["tests"]["Stat"], rtol=1e-9)
    # ... and ours from the same pieces, each group weighed by n_g / n
    weights = np.repeat(
        np.sqrt(np.asarray(fit.extras["group_n"]) / n),
        [len(g) for g in ref["group_slice_sizes"]],
    )
    ours = np.linalg.svd(zmeans * weights)[1] ** 2
    np.testing.assert_allclose(fit.eigenvalues[: ours.size], ours, atol=1e-10)
    table = fit.test_dimension().table
    assert table.index.tolist() == ref["tests"]["rows"]
    np.testing.assert_array_equal(table["df"], ref["tests"]["df"])  # R's degrees of freedom
    np.testing.assert_allclose(table["stat"], [n * ours[m:top].sum() for m in range(k)], rtol=1e-9)
    np.testing.assert_allclose(table["p_value"], chi2.sf(table["stat"], table["df"]), rtol=1e-9)


def test_partial_sir_with_equal_groups_is_r_s_up_to_the_number_of_groups():
    fit, ref = fit_of("psir_equal"), REF["psir_equal"]
    assert fit.extras["group_n"] == [100, 100]
    np.testing.assert_allclose(2 * fit.eigenvalues.to_numpy(), ref["evalues"][:8], atol=1e-10)
    assert_same_directions(fit.all_directions.to_numpy(), by_row(ref["evectors_by_row"]), 4)
    table = fit.test_dimension().table
    np.testing.assert_allclose(2 * table["stat"], ref["tests"]["Stat"], rtol=1e-9)
    np.testing.assert_allclose(fit._eigen_table(4).loc["R^2(OLS|dr)"], ref["r2"], atol=1e-8)


@pytest.mark.parametrize("key", [k for k in CASES if k.startswith("psir")])
def test_partial_sir_coordinate_tests_are_r_s(key):
    fit, ref = fit_of(key), REF[key]
    for predictor, theirs in ref["coordinate"].items():
        test = fit.coordinate_test([predictor])
        assert test.weights == "restricted" and test.df is None
        assert test.statistic == pytest.approx(theirs["Test"], rel=1e-9)
        assert test.p_value == pytest.approx(theirs["P.value"], rel=1e-7, abs=1e-14)


def test_drop1_of_partial_save_is_r_s_table():
    fit, ref = fit_of("psave_sex"), REF["psave_sex"]["coordinate"]
    table = fit.drop1()
    expected = sorted(ref, key=lambda name: -ref[name]["P.value"])
    assert table.index.tolist() == expected  # R's drop1.dr order: decreasing p-value
    np.testing.assert_allclose(table["statistic"], [ref[k]["Test"] for k in expected])
