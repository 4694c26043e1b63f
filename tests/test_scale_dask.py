"""Dask DataFrames as data, and resampling on a Dask cluster (2 worker processes)."""

import sys

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")

from sdrstats.scale import dask_backend  # noqa: E402
from sdrstats.scale.dask import require_dask  # noqa: E402

# The Dask fit sums the same numbers per partition and merges them, so it agrees with the
# in-memory fit to rounding (~1e-13); 1e-10 is the bar.
TOL = 1e-10
FORMULA = "y ~ a + b + c + d + g + log(abs(e))"


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    n = 3000
    df = pd.DataFrame(rng.standard_normal((n, 5)), columns=list("abcde"))
    df["g"] = pd.Categorical(rng.choice(["u", "v", "w"], n), categories=["u", "v", "w"])
    df["y"] = df.a + 0.5 * df.b**2 + 0.5 * rng.standard_normal(n)
    return df


@pytest.mark.parametrize("fn", [sdr.sir, sdr.save, sdr.directional_regression])
def test_dask_fit_equals_in_memory_fit_with_cut_points(client, frame, fn):
    ddf = dd.from_pandas(frame, npartitions=5)
    cuts = np.quantile(frame["y"], np.linspace(0, 1, 9)[1:-1])
    memory = fn(FORMULA, frame, cut_points=cuts)
    fit = fn(FORMULA, ddf, cut_points=cuts)
    np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=TOL)
    np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=TOL)
    np.testing.assert_array_equal(fit.slice_sizes, memory.slice_sizes)
    assert fit.n == memory.n == 3000
    assert "dask DataFrame (5 partitions)" in fit.call


def test_dask_phd_two_passes_equal_in_memory(client, frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    memory, fit = sdr.phd(FORMULA, frame), sdr.phd(FORMULA, ddf)
    np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=TOL)
    np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=TOL)


def test_dask_cume_sorts_on_the_cluster_and_equals_in_memory(client, frame):
    tied = frame.assign(y=frame["y"].round(1))  # ties across partitions
    ddf = dd.from_pandas(tied, npartitions=4)
    memory, fit = sdr.cume("y ~ a + b + c + d", tied), sdr.cume("y ~ a + b + c + d", ddf)
    np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=TOL)
    np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=TOL)


RESPONSES = {
    "continuous": lambda y: y,
    "many ties": lambda y: y.round(1),
    "discrete": lambda y: np.floor(y).clip(-2, 3),
}


@pytest.mark.parametrize("response", list(RESPONSES))
@pytest.mark.parametrize("slice_function", ["dr", "arc"])
@pytest.mark.parametrize("fn", [sdr.sir, sdr.save, sdr.directional_regression])
def test_dask_fit_equals_in_memory_fit_by_default(client, frame, fn, slice_function, response):
    # No cut points: the exact slicing passes find R's slices of the whole response, so the
    # Dask fit and its test table equal the pandas fit.
    data = frame.assign(y=RESPONSES[response](frame["y"]))
    data.loc[data.index[::97], "a"] = np.nan  # rows with missing values are dropped alike
    ddf = dd.from_pandas(data, npartitions=5)
    with pytest.warns(sdr.MissingValueWarning):
        memory = fn(FORMULA, data, nslices=8, slice_function=slice_function)
    with pytest.warns(sdr.MissingValueWarning):
        fit = fn(FORMULA, ddf, nslices=8, slice_function=slice_function)
    np.testing.assert_array_equal(fit.slice_sizes, memory.slice_sizes)
    np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=TOL)
    # directions past rank h - 1 (SIR) span a null space: any basis of it is as good
    k = min(fit.slice_sizes.size - 1, fit.p) if fn is sdr.sir else fit.p
    np.testing.assert_allclose(fit.output.basis[:, :k], memory.output.basis[:, :k], atol=TOL)
    if fn in (sdr.sir, sdr.save):  # SAVE's tests come from a second pass (fourth moments)
        np.testing.assert_allclose(
            fit.test_dimension().table.to_numpy(dtype=float),
            memory.test_dimension().table.to_numpy(dtype=float),
            atol=TOL,
        )


def test_a_level_first_seen_in_a_later_partition_codes_as_in_memory(client, frame):
    plain = frame.assign(g=frame["g"].astype(str)).sort_values("g")  # first partition: 'u' only
    ddf = dd.from_pandas(plain, npartitions=3, sort=False)
    memory = sdr.sir("y ~ a + b + g", plain, nslices=8)
    fit = sdr.sir("y ~ a + b + g", ddf, nslices=8)
    assert fit.spec.x_names == memory.spec.x_names
    np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=TOL)
    np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=TOL)


@pytest.mark.parametrize("formula", ["g ~ a + b + c + d", "y ~ a + b + c"])
def test_dask_categorical_response_and_spca_equal_in_memory(client, frame, formula):
    ddf = dd.from_pandas(frame, npartitions=4)
    k = 2 if formula.startswith("g") else None  # 3 classes: rank 2, the rest a null space
    for fn in (sdr.sir, sdr.spca):
        memory, fit = fn(formula, frame), fn(formula, ddf)
        np.testing.assert_allclose(fit.output.basis[:, :k], memory.output.basis[:, :k], atol=TOL)
        np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=TOL)


def test_bootstrap_on_the_cluster_equals_the_local_bootstrap(client, frame):
    # 150 replicates: three tasks of 50 (the fast path groups them), so joblib dispatches.
    fit = sdr.sir("y ~ a + b + c + d", frame, nslices=6, d=1)
    local = fit.bootstrap(B=150, random_state=1, n_jobs=1, progress=False)
    with distributed.get_task_stream(client) as stream, dask_backend(client):
        remote = fit.bootstrap(B=150, random_state=1, n_jobs=2, progress=False)
    assert len(stream.data) > 0  # the replicates ran on the workers
    np.testing.assert_array_equal(np.asarray(local.distances), np.asarray(remote.distances))


def test_permutation_test_on_the_cluster_equals_the_local_one(client, frame):
    fit = sdr.sir("y ~ a + b + c + d", frame.iloc[:600], nslices=6)
    options = dict(n_permutations=19, numdir=2, random_state=3, progress=False)
    local = fit.test_dimension("permutation", n_jobs=1, **options)
    with distributed.get_task_stream(client) as stream, dask_backend(client):
        remote = fit.test_dimension("permutation", n_jobs=2, **options)
    assert len(stream.data) > 0
    pd.testing.assert_frame_equal(local.table, remote.table)


def test_lsce_restarts_on_the_cluster_equal_the_local_ones(client, frame):
    data = frame.iloc[:120]
    options = dict(d=1, n_restarts=3, max_iter=3, n_basis=20, progress=False, random_state=4)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        local = sdr.lsce("y ~ a + b + c", data, n_jobs=1, **options)
        with distributed.get_task_stream(client) as stream, dask_backend(client):
            remote = sdr.lsce("y ~ a + b + c", data, n_jobs=2, **options)
    assert len(stream.data) > 0
    np.testing.assert_array_equal(local.directions.to_numpy(), remote.directions.to_numpy())


def test_missing_dask_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"pip install \"sdrstats\[dask\]\""):
        require_dask()


def test_dask_backend_without_a_client_explains(monkeypatch):
    def no_client():
        raise ValueError("No clients found")

    import distributed as distributed_package  # dask_backend imports get_client from here

    monkeypatch.setattr(distributed_package, "get_client", no_client)
    with pytest.raises(ValueError, match="no active dask.distributed.Client"):
        with dask_backend():
            pass


def test_dask_fit_reads_r_formula_functions_as_in_memory(client, frame):
    # R's ^, factor(), as.numeric() and an ordered factor's polynomial contrasts are rebuilt
    # on the workers from the stored formula (their allow-list) and give the in-memory fit
    data = frame.assign(
        k=np.arange(len(frame)) % 3 + 4,
        o=pd.Categorical(frame["g"].astype(str), categories=["w", "u", "v"], ordered=True),
    )
    formula = "y ~ a + I(b^2) + factor(k) + o + as.numeric(c > 0) + d"
    cuts = np.quantile(data["y"], np.linspace(0, 1, 9)[1:-1])
    memory = sdr.sir(formula, data, cut_points=cuts)
    fit = sdr.sir(formula, dd.from_pandas(data, npartitions=4), cut_points=cuts)
    assert fit.x_names == memory.x_names
    assert "o.L" in fit.x_names and "factor(k)6" in fit.x_names
    np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=TOL)
