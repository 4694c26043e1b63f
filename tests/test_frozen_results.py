"""A fitted result is a value: nothing done later to the estimator that made it changes it.

For every method family (the moment methods with and without R case weights, the partial
methods, MAVE, LSCE, the SPCA family, SDSPCAAN and Lasso-SIR): after ``set_params`` on the
estimator, a second fit by it on other rows (other weights, other groups), and refits of the
result with changed options, the result's options, summary text, directions, permutation test
and bootstrap are exactly what they were (the same ``random_state``, so the same numbers).
"""

import numpy as np
import pytest
from method_registry import FITS, F, regression_frame

import sdrstats as sdr

# the registry's fits stop their solvers early on purpose (small, fast settings)
pytestmark = [
    pytest.mark.filterwarnings("ignore::sdrstats.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore::sdrstats.TuningWarning"),
]

FRAME = regression_frame()
OTHER = regression_frame(seed=1)
WEIGHTS = np.random.default_rng(2).uniform(0.5, 2.0, len(FRAME))
OTHER_WEIGHTS = np.random.default_rng(3).uniform(0.5, 2.0, len(OTHER))

# online_sir: its result holds no rows for these refits; its own frozen-ness is tested below
CASES = {name: fit for name, fit in FITS.items() if name != "online_sir"}
CASES.update(
    {
        "sir_weighted": lambda d, w=WEIGHTS: sdr.sir(F, d, nslices=5, weights=w),
        "phd_weighted": lambda d, w=WEIGHTS: sdr.phd(F, d, weights=w),
        "ire_weighted": lambda d, w=WEIGHTS: sdr.ire(F, d, nslices=5, d_max=2, weights=w),
        "partial_ire": lambda d: sdr.ire(F, d, nslices=5, d_max=2, group="g"),
        "partial_sir": lambda d: sdr.sir(F, d, nslices=3, group="g"),
        "partial_save": lambda d: sdr.save(F, d, nslices=3, group="g", pool=True),
    }
)


def _other_fit(name):
    """The same method on other rows (other case weights, other groups)."""
    if name.endswith("_weighted"):
        return CASES[name](OTHER, OTHER_WEIGHTS)
    if name.startswith("partial_"):  # other rows and other groups
        return CASES[name](OTHER.assign(g=np.where(OTHER.x2 > 0, "a", "b")))
    return CASES[name](OTHER)


def _change(fit):
    """An option change every family accepts: another ``d``, and fewer slices."""
    params = fit.estimator.params
    change = {"nslices": 3} if "nslices" in params else {}
    if "d" in params:
        try:  # a d the method can fit on these data
            fit.refit(fit.spec.X, fit.spec.Y, d=1 if fit.d != 1 else 2)
            change["d"] = 1 if fit.d != 1 else 2
        except ValueError:
            pass
    return change


def _snapshot(fit):
    """What a statistician reads off a result, with every resampling seeded."""
    shot = {"options": repr(fit.options), "summary": str(fit.summary()), "call": fit.call}
    if fit.output.basis is not None:
        shot["directions"] = fit.directions.to_numpy().copy()
        boot = fit.bootstrap(B=3, d=1, random_state=0, progress=False)
        shot["bootstrap"] = np.asarray(boot.distances, dtype=float).copy()
    else:
        shot["transform"] = fit.transform().to_numpy().copy()
    if fit.output.basis is not None and fit.output.eigenvalues is not None:
        test = fit.test_dimension("permutation", n_permutations=3, d_max=1, random_state=0)
        shot["permutation"] = test.table.to_numpy(dtype=float).copy()
    return shot


def _assert_same(before, after):
    assert before.keys() == after.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value, err_msg=key)
        else:
            assert after[key] == value, key


@pytest.fixture(scope="module", params=sorted(CASES))
def held(request):
    """A result made by an estimator the caller keeps, and that estimator."""
    name = request.param
    made = CASES[name](FRAME)
    estimator = type(made.estimator)(**made.options)
    return name, estimator, estimator.fit_spec(made.spec, call=made.call)


def test_a_result_does_not_follow_its_estimator(held):
    name, estimator, fit = held
    before = _snapshot(fit)
    change = _change(fit)
    estimator.set_params(**change)
    _assert_same(before, _snapshot(fit))
    estimator.fit_spec(_other_fit(name).spec)  # other rows, other weights or groups
    _assert_same(before, _snapshot(fit))
    fit.refit(fit.spec.X, fit.spec.Y, random_state=0, **change)
    rows = np.random.default_rng(0).integers(0, fit.n, fit.n)
    fit.refit(fit.spec.X[rows], fit.spec.Y[rows], random_state=0, rows=rows)
    _assert_same(before, _snapshot(fit))


def test_a_result_keeps_its_own_options(held):
    _, estimator, fit = held
    assert fit.estimator is not estimator
    options = fit.options
    options["d"] = 99  # a copy: changing it changes nothing
    assert fit.options.get("d") != 99


def test_set_params_after_fit_changes_neither_options_nor_refits():
    X, y = FRAME[["x1", "x2", "x3", "x4"]], FRAME["y"]
    est = sdr.SIR(nslices=5)
    fit = est.fit(X, y)
    permutation = fit.test_dimension("permutation", n_permutations=9, random_state=0).table
    est.set_params(nslices=3)
    assert fit.options["nslices"] == 5
    assert fit.refit(fit.spec.X, fit.spec.Y).extras["slice_sizes"].size == 5
    again = fit.test_dimension("permutation", n_permutations=9, random_state=0).table
    np.testing.assert_array_equal(again.to_numpy(dtype=float), permutation.to_numpy(dtype=float))


def test_a_second_unweighted_fit_leaves_the_weighted_one_weighted():
    X, y = FRAME[["x1", "x2", "x3", "x4"]], FRAME["y"]
    est = sdr.SIR(nslices=5)
    weighted = est.fit(X, y, sample_weight=WEIGHTS)
    permutation = weighted.test_dimension("permutation", n_permutations=9, random_state=0).table
    plain = est.fit(X, y)
    assert ", using weights." in str(weighted.summary())
    assert "using weights" not in str(plain.summary())
    again = weighted.test_dimension("permutation", n_permutations=9, random_state=0).table
    np.testing.assert_array_equal(again.to_numpy(dtype=float), permutation.to_numpy(dtype=float))
    unweighted = plain.test_dimension("permutation", n_permutations=9, random_state=0).table
    assert not np.array_equal(unweighted.to_numpy(dtype=float), permutation.to_numpy(dtype=float))


def test_a_fit_writes_nothing_on_its_estimator():
    X, y = FRAME[["x1", "x2", "x3", "x4"]], FRAME["y"]
    est = sdr.SIR(nslices=5)
    state = dict(vars(est))
    est.fit(X, y, sample_weight=WEIGHTS)
    assert vars(est) == state
    pire = sdr.IRE(nslices=5, d_max=2, group="g")
    state = dict(vars(pire))
    made = sdr.ire(F, FRAME, nslices=5, d_max=2, group="g")
    pire.fit_spec(made.spec)
    assert vars(pire) == state


def test_partial_ire_bootstrap_keeps_each_row_with_its_group():
    fit = sdr.ire(F, FRAME, nslices=5, d_max=2, group="g")
    rows = np.random.default_rng(0).integers(0, fit.n, fit.n)
    out = fit.refit(fit.spec.X[rows], fit.spec.Y[rows], rows=rows)
    # a resample is refitted at the fit's d (the rule is not run again)
    direct = sdr.ire(
        F, FRAME.iloc[rows].reset_index(drop=True), nslices=5, d_max=2, group="g", d=fit.d
    )
    np.testing.assert_allclose(out.basis, direct.output.basis, atol=1e-10)


def test_weights_and_groups_are_part_of_the_saved_fit(tmp_path):
    weighted = sdr.sir(F, FRAME, nslices=5, weights=WEIGHTS)
    loaded = sdr.load(weighted.save(tmp_path / "weighted"))
    assert str(loaded.summary()) == str(weighted.summary())
    np.testing.assert_array_equal(loaded.spec.case_weights, weighted.spec.case_weights)
    grouped = sdr.ire(F, FRAME, nslices=5, d_max=2, group="g")
    loaded = sdr.load(grouped.save(tmp_path / "grouped"))
    assert loaded.spec.groups.tolist() == grouped.spec.groups.tolist()
    boot = loaded.bootstrap(B=3, d=1, random_state=0, progress=False)
    np.testing.assert_array_equal(
        boot.distances, grouped.bootstrap(B=3, d=1, random_state=0, progress=False).distances
    )


def test_a_stream_snapshot_does_not_follow_the_stream():
    fit = sdr.online_sir(F, FRAME.iloc[:60], chunksize=20, nslices=5, d=1, init_size=20)
    stream = fit.stream
    snapshot = stream.results()
    text, directions = str(snapshot.summary()), snapshot.directions.to_numpy().copy()
    stream.partial_fit(FRAME.iloc[60:], formula=F)
    stream.set_params(eigen="ipca")
    assert stream.n_seen == 80 and snapshot.n == 60
    assert str(snapshot.summary()) == text
    np.testing.assert_array_equal(snapshot.directions.to_numpy(), directions)
    # the formula function's result is such a snapshot too
    assert fit.n == 60 and str(fit.summary()) == text
