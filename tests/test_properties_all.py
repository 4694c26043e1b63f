"""Property-based reliability across methods (hypothesis, seeded, 200 examples each):
row-order invariance, reproducibility from random_state, independence of n_jobs."""

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import sdrstats as sdr

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None)
F = "y ~ x1 + x2 + x3"


def _frame(seed, n=40):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 3)), columns=["x1", "x2", "x3"])
    frame["y"] = np.sin(frame.x1) + frame.x2**2 / 2 + 0.3 * rng.normal(size=n)
    frame["g"] = np.where(frame.x1 + frame.x3 > 0, "a", "b")
    return frame


DETERMINISTIC = {
    "sir": lambda d: sdr.sir(F, d, nslices=4),
    "save": lambda d: sdr.save(F, d, nslices=4),
    "phd": lambda d: sdr.phd(F, d),
    # d given: their default rule (a permutation test) permutes rows, so its p-values
    # depend on the rows' order through the draws
    "directional_regression": lambda d: sdr.directional_regression(F, d, nslices=4, d=2),
    "cume": lambda d: sdr.cume(F, d, d=2),
    "ire": lambda d: sdr.ire(F, d, nslices=4),
    "spca": lambda d: sdr.spca(F, d, d=1),
    "sdspca": lambda d: sdr.sdspca("g ~ x1 + x2 + x3", d, d=2, max_iter=5),
    "meanopg": lambda d: sdr.mave(F, d, d=1, variant="meanopg", d_max=1),
}

RANDOM = {
    "lsce": lambda d, s: sdr.lsce(
        F, d, d=1, n_restarts=1, max_iter=2, n_basis=10, progress=False, random_state=s
    ),
    "kdr": lambda d, s: sdr.kdr(F, d, d=1, max_iter=2, n_anneal=1, random_state=s),
    "bpca": lambda d, s: sdr.bpca(F, d, d=1, n_folds=3, n_thresholds=4, random_state=s),
    "lasso_sir": lambda d, s: sdr.lasso_sir(F, d, d=1, nslices=4, n_folds=3, random_state=s),
}


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.SDRWarning)
        return fn(*args)


@PROPERTY
@given(st.sampled_from(sorted(DETERMINISTIC)), st.integers(0, 2**31 - 1))
def test_row_order_invariance(name, seed):
    frame = _frame(seed)
    order = np.random.default_rng(seed + 1).permutation(len(frame))
    a = _quiet(DETERMINISTIC[name], frame)
    b = _quiet(DETERMINISTIC[name], frame.iloc[order])
    # Reordering changes only the order of floating-point sums. Where the leading eigenvalues
    # are nearly tied the direction itself is ill-determined, so compare the reduced
    # predictors' span via the projection distance only when the gap is clear.
    ev = a.eigenvalues
    if ev is not None and len(ev) > a.d:
        gap = abs(ev.iloc[a.d - 1]) - abs(ev.iloc[a.d])
        if gap < 1e-3 * abs(ev.iloc[0]):
            return
    assert sdr.projection_distance(a.directions, b.directions) < 1e-6


@PROPERTY
@given(st.sampled_from(sorted(RANDOM)), st.integers(0, 2**31 - 1))
def test_same_random_state_same_result(name, seed):
    frame = _frame(seed % 1000)
    a = _quiet(RANDOM[name], frame, seed)
    b = _quiet(RANDOM[name], frame, seed)
    np.testing.assert_array_equal(a.transform(frame).to_numpy(), b.transform(frame).to_numpy())


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_resampling_does_not_depend_on_n_jobs(seed):
    frame = _frame(seed % 50)
    fit = sdr.sir(F, frame, nslices=4, d=1)
    one = fit.test_dimension(
        "permutation", n_permutations=4, random_state=seed, n_jobs=1, progress=False
    )
    two = fit.test_dimension(
        "permutation", n_permutations=4, random_state=seed, n_jobs=2, progress=False
    )
    pd.testing.assert_frame_equal(one.table, two.table)
