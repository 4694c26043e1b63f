"""dr_weights (Cook & Nachtsheim 1994 reweighting) against R dr's dr.weights.

The weights are random (normal draws, and a robust covariance found by random subsets), so
the check is on statistics, not draws: tests/reference/make_r_dr_weights.R averaged R's
weights over 40 seeds per row (cov.rob's "mcd"). Two independent 20-seed halves of R's runs
correlate at 0.985; eight of our runs correlate with R's 40-run mean at 0.95-0.96 (three seed
sets), so 0.93 is the bar; the fraction of zero weights (R 4.3 %) is within 1.5 points.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import sdrstats as sdr

REF = json.loads((Path(__file__).parent / "reference" / "r_dr_weights.json").read_text())


@pytest.fixture(scope="module")
def ours():
    ais = sdr.datasets.load("ais")
    return np.array(
        [sdr.dr_weights(REF["formula"], ais, random_state=100 + s).to_numpy() for s in range(8)]
    )


def test_row_means_follow_r(ours):
    assert np.corrcoef(ours.mean(axis=0), REF["mcd"]["mean"])[0, 1] > 0.93


def test_zero_fraction_and_spread_follow_r(ours):
    assert abs((ours == 0).mean() - REF["mcd"]["zero_fraction"]) < 0.015
    # per-run sd of the weights: R 0.656, ours 0.63 over 40 runs
    assert ours.std(axis=1, ddof=1).mean() == pytest.approx(REF["mcd"]["sd"], rel=0.1)


def test_weights_sum_to_n_and_are_reproducible():
    ais = sdr.datasets.load("ais")
    w = sdr.dr_weights("lbm ~ ht + wt + rcc", ais, random_state=1)
    assert w.sum() == pytest.approx(len(ais)) and (w >= 0).all()
    assert w.equals(sdr.dr_weights("lbm ~ ht + wt + rcc", ais, random_state=1))


def test_subset_rows_outside_get_nan_and_a_fit_with_the_same_subset_takes_them():
    ais = sdr.datasets.load("ais")
    w = sdr.dr_weights("~ ht + wt + rcc", ais, random_state=0, subset="sex == 'f'")
    assert w.isna().sum() == (ais["sex"] != "f").sum()
    assert w.sum() == pytest.approx((ais["sex"] == "f").sum())
    fit = sdr.sir("lbm ~ ht + wt + rcc", ais, weights=w, subset="sex == 'f'")
    assert fit.n == int((w > 0).sum()) and "using weights" in str(fit.summary())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sigma": 0}, "sigma"),
        ({"n_samples": 0}, "n_samples"),
        ({"random_state": -1}, "random_state"),
    ],
)
def test_bad_options_are_named(options, message):
    with pytest.raises((TypeError, ValueError), match=message):
        sdr.dr_weights("~ ht + wt", sdr.datasets.load("ais"), **options)
