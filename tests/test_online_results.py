"""The stream's result is a result: online_sir returns a frozen Results with the whole contract a
stream allows (SIR test from slice moments, online Poisson bootstrap, trace plot, conditional
density on a reservoir sample), and the stream itself is its ``.stream``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.online._reservoir import Reservoir, uniforms

P = 5
CUTS = [-1.3, -0.55, 0.05, 0.6, 1.35]  # not data values
FORMULA = "y ~ x1 + x2 + x3 + x4 + x5"


def _frame(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, P))
    y = X[:, 0] + 0.4 * X[:, 1] ** 3 + 0.3 * rng.standard_normal(n)  # two directions, monotone
    return pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(P)]).assign(y=y)


def _chunks(frame: pd.DataFrame, sizes: list[int]):
    start = 0
    for size in sizes:
        yield frame.iloc[start : start + size]
        start += size
    if start < len(frame):
        yield frame.iloc[start:]


def _stream(frame: pd.DataFrame, sizes: list[int], **options) -> sdr.OnlineSIR:
    stream = sdr.OnlineSIR(**{"init_size": 300, "cut_points": CUTS, **options})
    for chunk in _chunks(frame, sizes):
        stream.partial_fit(chunk, formula=FORMULA)
    return stream


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _frame()


def test_online_sir_returns_a_results_holding_its_stream(frame):
    fit = sdr.online_sir(FORMULA, _chunks(frame, [700] * 5), init_size=300, cut_points=CUTS)
    assert isinstance(fit, sdr.Results) and isinstance(fit, sdr.online.OnlineSIRResults)
    assert isinstance(fit.stream, sdr.OnlineSIR) and fit.stream.n_seen == fit.n == 3000
    # the formula function is partial_fit over the chunks (the recursion's blocks follow
    # the chunks, so the same chunks give the same numbers)
    by_partial_fit = _stream(frame, [700] * 5).results()
    np.testing.assert_allclose(fit.directions, by_partial_fit.directions, atol=1e-12)
    assert "Cut points" in str(fit.summary()) and "Large-sample" in str(fit.summary())
    reduced = fit.transform(frame.iloc[:4])
    assert list(reduced.columns) == [f"Dir{j + 1}" for j in range(fit.d)]
    assert list(reduced.index) == [0, 1, 2, 3]


def test_sir_test_of_a_stream_equals_the_batch_sir_test(frame):
    batch = sdr.sir(FORMULA, frame, cut_points=CUTS).test_dimension()
    split_a = _stream(frame, [300, 1200, 700]).results().test_dimension("asymptotic")
    through_source = sdr.online_sir(
        FORMULA, _chunks(frame, [999, 1001]), init_size=300, cut_points=CUTS
    ).test_dimension("asymptotic")
    for online in (split_a, through_source):
        rows = len(online.table)
        assert rows == len(batch.table) == 4
        # the same statistics (divisor-n covariance, f-weighted slice means): rounding only
        np.testing.assert_allclose(online.table["stat"], batch.table["stat"], rtol=1e-8)
        np.testing.assert_array_equal(online.table["df"], batch.table["df"])
        np.testing.assert_allclose(online.table["p_value"], batch.table["p_value"], rtol=1e-6)
        assert online.d == batch.d == 2


def test_a_response_on_a_cut_point_falls_in_the_slice_below_as_in_sdr_sir(frame):
    # a rounded response: most values sit on the cut points, where the two conventions part
    counted = frame.assign(y=np.round(2 * frame["y"]))
    cuts = [-2.0, 0.0, 2.0]
    batch = sdr.sir(FORMULA, counted, cut_points=cuts).test_dimension()
    online = sdr.online_sir(
        FORMULA, _chunks(counted, [800, 1200]), init_size=300, cut_points=cuts
    ).test_dimension("asymptotic")
    np.testing.assert_allclose(online.table["stat"], batch.table["stat"], rtol=1e-8)


def test_sir_test_of_a_class_response_equals_the_batch_test(frame):
    data = frame.assign(cls=np.where(frame["y"] > 0.5, "hi", "lo"))
    formula = "cls ~ x1 + x2 + x3 + x4 + x5"
    data = data.assign(cls=np.where(frame["y"] > 1.2, "top", data["cls"]))
    online = sdr.online_sir(formula, data, chunksize=800, init_size=300)
    batch = sdr.sir(formula, data).test_dimension()
    table = online.test_dimension("asymptotic").table
    np.testing.assert_allclose(table["stat"], batch.table["stat"].iloc[: len(table)], rtol=1e-8)


def test_online_bootstrap_does_not_depend_on_the_chunks(frame):
    one = _stream(frame, [3000], bootstrap_replicates=12, random_state=5).results()
    many = _stream(frame, [301, 17, 990, 1, 700], bootstrap_replicates=12, random_state=5)
    many = many.results()
    a, b = one.bootstrap(d=2), many.bootstrap(d=2)
    assert a.B == b.B == 12 and a.scheme == "poisson" and "online" in a.engine
    np.testing.assert_allclose(a.distances, b.distances, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(a.directions, b.directions, atol=1e-10)
    # and they are the moment family's one-pass Poisson bootstrap of the same rows
    batch = sdr.sir(FORMULA, frame, cut_points=CUTS, random_state=5).bootstrap(
        B=12, d=2, scheme="poisson", progress=False
    )
    np.testing.assert_allclose(a.distances, batch.distances, rtol=1e-9, atol=1e-13)
    assert 0 < np.nanmean(a.distances) < 0.5  # the SIR subspace varies, but little, at n=3000


def test_bootstrap_explains_what_a_stream_cannot_do(frame):
    bare = _stream(frame, [1500]).results()
    with pytest.raises(
        ValueError, match="This stream kept no bootstrap replicates.*bootstrap_replicates=B"
    ):
        bare.bootstrap()
    kept = _stream(frame, [1500], bootstrap_replicates=4).results()
    with pytest.raises(ValueError, match="'B' option of bootstrap must be 4 for this stream"):
        kept.bootstrap(B=10)
    with pytest.raises(ValueError, match="'random_state' option of bootstrap is not available"):
        kept.bootstrap(random_state=1)
    with pytest.raises(ValueError, match="'scheme' option of bootstrap must be 'poisson'"):
        kept.bootstrap(scheme="multinomial")
    with pytest.raises(ValueError, match="bootstrap_replicates' parameter of OnlineSIR"):
        sdr.OnlineSIR(bootstrap_replicates=-1)
    with pytest.raises(ValueError, match="reservoir_size' parameter of OnlineSIR"):
        sdr.OnlineSIR(reservoir_size=1.5)


def test_a_result_does_not_change_when_its_stream_moves_on(frame):
    stream = _stream(frame.iloc[:2000], [1000], bootstrap_replicates=3, random_state=1)
    fit = stream.results()
    before = {
        "directions": fit.directions.copy(),
        "eigenvalues": fit.eigenvalues.copy(),
        "summary": str(fit.summary()),
        "test": fit.test_dimension("asymptotic").table.copy(),
        "boot": fit.bootstrap().distances.copy(),
        "sample": fit.extras["reservoir"]["X"].copy(),
    }
    stream.partial_fit(frame.iloc[2000:], formula=FORMULA)
    assert stream.results().n == 3000 and fit.n == 2000
    pd.testing.assert_frame_equal(fit.directions, before["directions"])
    pd.testing.assert_series_equal(fit.eigenvalues, before["eigenvalues"])
    assert str(fit.summary()) == before["summary"]
    pd.testing.assert_frame_equal(fit.test_dimension("asymptotic").table, before["test"])
    np.testing.assert_array_equal(fit.bootstrap().distances, before["boot"])
    np.testing.assert_array_equal(fit.extras["reservoir"]["X"], before["sample"])


def test_plot_gives_the_trace_of_the_stream(frame):
    fit = sdr.online_sir(FORMULA, frame, chunksize=400, init_size=300, block_size=200)
    fig = fit.plot()
    assert len(fig.axes) == 2 and fig.axes[0].get_xlabel() != ""
    with pytest.raises(ValueError, match="draws the rows, which a stream does not keep"):
        fit.plot("summary")


def test_conditional_density_on_the_sample_or_on_given_rows(frame):
    fit = sdr.online_sir(FORMULA, frame, chunksize=500, init_size=300, reservoir_size=800)
    assert fit.extras["reservoir"]["X"].shape == (800, P)
    dens = fit.conditional_density(random_state=0)
    means = dens.mean(frame.iloc[:200])
    # E[y | x] = x1 + 0.4 x2³: the density's mean follows it (loose: 800 rows, d chosen)
    truth = frame["x1"].iloc[:200] + 0.4 * frame["x2"].iloc[:200] ** 3
    assert np.corrcoef(means, truth)[0, 1] > 0.8
    given = fit.conditional_density(rows=frame.iloc[:600], random_state=0)
    assert np.all(np.isfinite(given.mean(frame.iloc[:5])))
    none = sdr.online_sir(FORMULA, frame, chunksize=500, init_size=300, reservoir_size=0)
    with pytest.raises(ValueError, match="this stream kept no sample of its rows.*rows="):
        none.conditional_density()
    with pytest.raises(ValueError, match="columns differ from the first chunk"):
        fit.conditional_density(rows=frame[["x1", "x2"]])


def test_the_reservoir_is_uniform_and_does_not_depend_on_the_chunks():
    rng = np.random.default_rng(3)
    n, size = 20_000, 2000
    X = rng.standard_normal((n, 2))
    position = np.arange(n, dtype=float)
    one = Reservoir(size, np.array([7, 9], dtype=np.uint64), 2)
    one.update(X, position)
    many = Reservoir(size, np.array([7, 9], dtype=np.uint64), 2)
    for start, stop in [(0, 5), (5, 1999), (1999, 2500), (2500, 13_000), (13_000, n)]:
        many.update(X[start:stop], position[start:stop])
    np.testing.assert_array_equal(one.y, many.y)
    kept = np.sort(one.y)
    assert kept.size == size and np.unique(kept).size == size
    # positions of a uniform sample: mean n/2 (sd n / sqrt(12 size) = 129), both halves
    assert abs(kept.mean() - n / 2) < 5 * n / np.sqrt(12 * size)
    assert abs(np.mean(kept < n / 2) - 0.5) < 0.05
    assert np.all(uniforms(np.array([7, 9], dtype=np.uint64), 0, 1000) < 1.0)


def test_merged_streams_test_and_bootstrap_as_one(frame):
    options = {"bootstrap_replicates": 5}
    left = _stream(frame.iloc[:1500], [700], random_state=1, **options)
    right = _stream(frame.iloc[1500:], [800], random_state=2, **options)
    merged = left.merge(right).results()
    batch = sdr.sir(FORMULA, frame, cut_points=CUTS).test_dimension()
    table = merged.test_dimension("asymptotic").table
    np.testing.assert_allclose(table["stat"], batch.table["stat"], rtol=1e-8)
    assert merged.bootstrap().B == 5
    assert merged.extras["reservoir"]["X"].shape[0] == 2000
    twin = _stream(frame.iloc[1500:], [800], random_state=1, **options)
    with pytest.raises(ValueError, match="bootstrap replicates drawn from the same seed"):
        left.merge(twin)


def test_saved_streams_keep_their_inference_and_old_files_still_load(frame, tmp_path):
    stream = _stream(frame, [1000], bootstrap_replicates=3, random_state=4, reservoir_size=50)
    again = sdr.OnlineSIR.load(stream.save(tmp_path / "s"))
    np.testing.assert_array_equal(
        again.results().bootstrap().distances, stream.results().bootstrap().distances
    )
    np.testing.assert_array_equal(
        again.results().extras["reservoir"]["X"], stream.results().extras["reservoir"]["X"]
    )
    # a version 2 state (before streams kept moments): loads, keeps going, says what it lacks
    old = stream.state_dict()
    old["version"] = 2
    for key in ("moments", "reservoir", "seed"):
        del old[key]
    for key in ("bootstrap_replicates", "reservoir_size"):
        del old["options"][key]
    loaded = sdr.OnlineSIR.from_state(old)
    loaded.partial_fit(frame.iloc[:200], formula=FORMULA)
    fit = loaded.results()
    assert fit.n == 3200 and fit.options["bootstrap_replicates"] == 0
    with pytest.raises(ValueError, match="'asymptotic' dimension test is not available"):
        fit.test_dimension("asymptotic")
    with pytest.raises(ValueError, match="this stream kept no sample"):
        fit.conditional_density()


def test_forged_moments_are_refused(frame):
    stream = _stream(frame, [1000], bootstrap_replicates=2, reservoir_size=10)
    state = stream.state_dict()
    state["moments"]["cross"] = np.zeros((3, P + 1, P))
    with pytest.raises(ValueError, match=r"wrong shape of moments.cross"):
        sdr.OnlineSIR.from_state(state)
    state = stream.state_dict()
    state["moments"]["keys"] = state["moments"]["keys"].astype(float)
    with pytest.raises(ValueError, match="moments.keys must be an array of uint64"):
        sdr.OnlineSIR.from_state(state)
    state = stream.state_dict()
    state["options"]["bootstrap_replicates"] = 10**12  # sizes every later allocation
    with pytest.raises((MemoryError, ValueError), match="bootstrap_replicates"):
        sdr.OnlineSIR.from_state(state)
    state = stream.state_dict()
    state["reservoir"]["X"] = np.zeros((11, P))
    with pytest.raises(ValueError, match="wrong shape of reservoir.X"):
        sdr.OnlineSIR.from_state(state)


def test_the_estimator_api_still_fits_arrays(frame):
    X, y = frame[[f"x{j + 1}" for j in range(P)]], frame["y"]
    fit = sdr.OnlineSIR(init_size=300, cut_points=CUTS).fit(X, y)
    assert fit.stream is None and fit.transform().shape[0] == 3000
    batch = sdr.sir(FORMULA, frame, cut_points=CUTS).test_dimension()
    table = fit.test_dimension("asymptotic").table
    np.testing.assert_allclose(table["stat"], batch.table["stat"], rtol=1e-8)


def test_the_ratio_rule_ignores_eigenvalues_the_stream_cannot_have(frame):
    # with H = 5 slices D̂ has rank <= 4: a fifth eigenvalue is rounding noise (~1e-16),
    # which the ratio rule once read as a huge drop (choosing d = p)
    fit = sdr.online_sir(FORMULA, frame, chunksize=1000, init_size=300, nslices=5)
    assert np.all(fit.extras["spectrum"][4:] == 0) and np.all(fit.extras["spectrum"][:4] > 0)
    assert fit.test_dimension().d < 4


def test_d_rule_asymptotic_chooses_d_as_sdr_sir_does(frame):
    fit = sdr.online_sir(FORMULA, frame, init_size=300, cut_points=CUTS, d_rule="asymptotic")
    assert fit.d_rule == "asymptotic" and fit.d == sdr.sir(FORMULA, frame, cut_points=CUTS).d == 2
    with pytest.raises(ValueError, match="'d_rule' option 'asymptotic' of online_sir needs"):
        sdr.OnlineSIR(d_rule="asymptotic", sir_moments=False)
    with pytest.raises(ValueError, match="'bootstrap_replicates' option of online_sir needs"):
        sdr.OnlineSIR(bootstrap_replicates=5, sir_moments=False)
    bare = sdr.online_sir(FORMULA, frame, init_size=300, sir_moments=False)
    assert "slice_moments" not in bare.extras and "no SIR slice moments" in str(bare.summary())
    with pytest.raises(ValueError, match="it kept no slice moments .*sir_moments=True"):
        bare.test_dimension("asymptotic")


def test_a_stream_fed_by_hand_records_its_call():
    """A stream fed through partial_fit records the options it was made with, as the
    array front's ``fit`` does (``Call:`` is written by one function for every front)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((600, 4))
    y = X[:, 0] + 0.2 * rng.standard_normal(600)
    snapshot = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y).results()
    assert snapshot.call == "OnlineSIR(d=1, init_size=200).partial_fit(X, y)"
    assert "OnlineSIR(d=1, init_size=200).partial_fit(X, y)" in str(snapshot.summary())
