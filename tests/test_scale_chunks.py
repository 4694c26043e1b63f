"""Chunked data (sdrstats.scale): fits from per-slice statistics equal the in-memory fits."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.scale import one_pass
from sdrstats.scale.fit import dr_cut_points
from sdrstats.stats.grouped import SliceStats
from sdrstats.stats.slicing import make_slices

AIS = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)"
# Tolerance: the chunked fit sums the same numbers in another order (per chunk, about a shift),
# so results agree to rounding, ~1e-13 here; 1e-10 is the bar with ample margin.
TOL = 1e-10


def parts(frame, size=37):
    return [frame.iloc[i : i + size] for i in range(0, len(frame), size)]


def assert_same_fit(a, b, tol=TOL):
    np.testing.assert_allclose(b.output.eigenvalues, a.output.eigenvalues, atol=tol, rtol=0)
    np.testing.assert_allclose(b.output.basis, a.output.basis, atol=tol, rtol=0)
    if a.slice_sizes is not None:
        np.testing.assert_array_equal(a.slice_sizes, b.slice_sizes)
    assert a.n == b.n


@pytest.mark.parametrize(
    "fn, options",
    [
        (sdr.sir, {"nslices": 8}),
        (sdr.save, {"nslices": 8}),
        (sdr.directional_regression, {"nslices": 8}),
        (sdr.phd, {}),
        (sdr.phd, {"residuals": False}),
    ],
)
def test_chunked_fit_equals_in_memory_fit_with_dr_slicing(ais, fn, options):
    # Without cut_points a chunk source slices the whole response as R dr does.
    assert_same_fit(fn(AIS, ais, **options), fn(AIS, sdr.chunks_from(parts(ais)), **options))


def test_chunk_order_does_not_matter(ais):
    a = sdr.save(AIS, sdr.chunks_from(parts(ais, 20)), nslices=6)
    b = sdr.save(AIS, sdr.chunks_from(parts(ais, 20)[::-1]), nslices=6)
    assert_same_fit(a, b)


def test_csv_and_parquet_chunks_equal_in_memory(ais, tmp_path):
    csv = tmp_path / "ais.csv"
    ais.to_csv(csv, index=False)
    memory = sdr.sir(AIS, pd.read_csv(csv), nslices=8)
    fit = sdr.sir(AIS, sdr.read_csv_chunks(csv, chunksize=30), nslices=8)
    assert_same_fit(memory, fit)
    assert fit.output.extras["n_chunks"] == 7
    pytest.importorskip("pyarrow")
    pq = tmp_path / "ais.parquet"
    ais.to_parquet(pq)
    assert_same_fit(memory, sdr.sir(AIS, sdr.read_parquet_chunks(pq, batch_size=64), nslices=8))


def test_cut_points_give_the_same_fit_in_memory_and_in_chunks(ais):
    cuts = [45, 55, 60, 65, 70, 80]
    memory = sdr.directional_regression(AIS, ais, cut_points=cuts)
    assert_same_fit(
        memory, sdr.directional_regression(AIS, sdr.chunks_from(parts(ais)), cut_points=cuts)
    )
    labels = np.searchsorted(cuts, ais["lbm"], side="left")
    np.testing.assert_array_equal(memory.slice_sizes, np.bincount(labels))


def test_make_slices_with_cut_points_drops_empty_slices_and_checks_input():
    y = np.array([1.0, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(make_slices(y, 2, cut_points=[2, 2.5, 4]).sizes, [2, 2, 2])
    np.testing.assert_array_equal(make_slices(y, 2, cut_points=[0, 3]).sizes, [3, 3])
    with pytest.raises(ValueError, match="strictly increasing"):
        make_slices(y, 2, cut_points=[3, 1])
    with pytest.raises(ValueError, match="non-empty 1-D"):
        make_slices(y, 2, cut_points=[])
    with pytest.raises(ValueError, match="categorical response is sliced by class"):
        make_slices(np.array([0, 1, 1]), 2, categorical=True, cut_points=[0.5])
    with pytest.raises(TypeError, match="sequence of numbers"):
        make_slices(y, 2, cut_points=["a", "b"])


def test_dr_cut_points_reproduce_dr_slicing_with_ties():
    rng = np.random.default_rng(3)
    for _ in range(20):
        y = rng.integers(0, 40, size=int(rng.integers(30, 300))).astype(float)
        h = int(rng.integers(2, 12))
        direct = make_slices(y, h)
        via_cuts = make_slices(y, h, cut_points=dr_cut_points(y, h))
        np.testing.assert_array_equal(direct.labels, via_cuts.labels)


def test_categorical_response_and_declared_factor_levels(ais):
    frame = ais.copy()
    frame["sex"] = frame["sex"].astype(pd.CategoricalDtype(["f", "m"]))
    formula = "sport ~ log(ssf) + log(wt) + log(hg) + sex"
    memory = sdr.sir(formula, frame)
    fit = sdr.sir(formula, sdr.chunks_from(parts(frame)[::-1]))  # first chunk lacks 'f'
    assert_same_fit(memory, fit)
    assert fit.spec.y_levels == memory.spec.y_levels
    pd.testing.assert_frame_equal(
        fit.transform(frame.head()), memory.transform(frame.head()), atol=TOL, rtol=0
    )


def test_a_level_first_seen_in_a_later_chunk_codes_as_in_memory(ais):
    # a levels pass finds every level before the formula is fixed
    memory = sdr.sir("lbm ~ log(ssf) + sex + sport", ais)  # h = p + 3: every direction fixed
    fit = sdr.sir("lbm ~ log(ssf) + sex + sport", sdr.chunks_from(parts(ais)[::-1]))
    assert fit.spec.x_names == memory.spec.x_names
    assert_same_fit(memory, fit)
    pd.testing.assert_frame_equal(
        fit.transform(ais.head()), memory.transform(ais.head()), atol=TOL, rtol=0
    )


def test_unseen_level_in_a_one_shot_iterator_names_the_column(ais):
    # one pass only: the levels cannot be found first, so a new level is a clear error
    with pytest.raises(
        ValueError, match=r"chunk 4, column 'sex' has level\(s\) \['f'\].*CategoricalDtype"
    ):
        sdr.sir(
            "lbm ~ log(ssf) + sex", sdr.chunks_from(iter(parts(ais)[::-1])), cut_points=[50, 60, 70]
        )


def test_missing_values_are_dropped_per_chunk_with_one_warning(ais):
    frame = ais.copy()
    frame.loc[[3, 70, 150], "ssf"] = np.nan
    with pytest.warns(sdr.MissingValueWarning, match="Dropped 3 of"):
        memory = sdr.sir(AIS, frame, nslices=8)
    with pytest.warns(sdr.MissingValueWarning, match="Dropped 3 rows with missing values over 6"):
        fit = sdr.sir(AIS, sdr.chunks_from(parts(frame)), nslices=8)
    assert_same_fit(memory, fit)
    with pytest.raises(ValueError, match="missing values.*missing='drop'"):
        sdr.sir(AIS, sdr.chunks_from(parts(frame)), nslices=8, missing="raise")


def test_large_predictor_means_keep_their_accuracy():
    # A mean 1e6 times the spread: the sums about the first chunk's mean stay accurate.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 4)) + 1e6
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["y"] = X[:, 0] - X[:, 1] + rng.standard_normal(2000) * 0.5
    memory = sdr.sir("y ~ a + b + c + d", frame, nslices=5)
    fit = sdr.sir("y ~ a + b + c + d", sdr.chunks_from(parts(frame, 300)), nslices=5)
    # Whitening rows of size 1e6 loses ~6 digits in either path; 1e-7 allows for that.
    np.testing.assert_allclose(fit.output.basis[:, :1], memory.output.basis[:, :1], atol=1e-7)


def test_summary_test_transform_and_pickle_of_a_chunked_fit(ais):
    memory = sdr.sir(AIS, ais, nslices=8)
    fit = sdr.sir(AIS, sdr.chunks_from(parts(ais)), nslices=8)
    text = str(fit.summary())
    assert "from 6 chunks" in text and "R^2(OLS|dr)" in text
    # R^2(OLS|dr) and the asymptotic test from the statistics equal the in-memory ones.
    np.testing.assert_allclose(
        fit._eigen_table(4).to_numpy(), memory._eigen_table(4).to_numpy(), atol=1e-9
    )
    pd.testing.assert_frame_equal(
        fit.test_dimension().table, memory.test_dimension().table, atol=1e-8, rtol=1e-9
    )
    with pytest.raises(ValueError, match="transform\\(\\) of the training rows needs the rows"):
        fit.transform()
    again = pickle.loads(pickle.dumps(fit))
    # the chunks stay with the caller: a pickled fit cannot take the bootstrap's extra pass
    with pytest.raises(ValueError, match="no longer holds its chunks or Dask DataFrame"):
        again.bootstrap(B=5, progress=False)
    pd.testing.assert_frame_equal(
        again.transform(ais.head()), memory.transform(ais.head()), atol=TOL, rtol=0
    )


@pytest.mark.parametrize("response", ["lbm", "round(lbm / 5)", "log(ssf)"])
def test_chunked_save_has_both_of_rs_tests(ais, response):
    # SAVE's normal-theory and general tests from accumulated fourth moments (a second pass)
    # equal the in-memory tests; the sums come in another order: rounding only.
    formula = f"{response} ~ log(wt) + log(ht) + log(hg) + log(ferr)"
    memory = sdr.save(formula, ais, nslices=6)
    save = sdr.save(formula, sdr.chunks_from(parts(ais)), nslices=6)
    assert "Dimension Tests" in str(save.summary())
    pd.testing.assert_frame_equal(
        save.test_dimension("asymptotic").table,
        memory.test_dimension("asymptotic").table,
        atol=1e-10,
        rtol=1e-9,
    )


def test_what_chunked_fits_cannot_do_is_explained(ais, monkeypatch):
    with pytest.raises(ValueError, match="mave is not available for chunked or Dask data"):
        sdr.mave(AIS, sdr.chunks_from(parts(ais)))
    # one pass slices a one-shot iterator exactly while it sums (every row held: 202 rows);
    # given no room for rows it needs passes over the response first, which it cannot have
    one_shot = sdr.sir(AIS, sdr.chunks_from(iter(parts(ais))), nslices=8)
    assert_same_fit(sdr.sir(AIS, ais, nslices=8), one_shot)
    with monkeypatch.context() as patch:
        patch.setattr(one_pass, "KEPT_BYTES", 0)
        with pytest.raises(ValueError, match="one-shot iterator.*cut_points"):
            sdr.sir(AIS, sdr.chunks_from(iter(parts(ais))))
    fit = sdr.sir(AIS, sdr.chunks_from(iter(parts(ais))), cut_points=[50, 60, 70])
    assert fit.n == 202
    arc = sdr.sir(AIS, sdr.chunks_from(parts(ais)), slice_function="arc")  # exact, as in memory
    np.testing.assert_array_equal(
        arc.slice_sizes, sdr.sir(AIS, ais, slice_function="arc").slice_sizes
    )
    with pytest.raises(ValueError, match="one response column"):
        sdr.sir("lbm + wt ~ log(ssf) + log(hg)", sdr.chunks_from(parts(ais)))
    with pytest.raises(ValueError, match="gave no chunks"):
        sdr.sir(AIS, sdr.chunks_from([]))
    with pytest.raises(TypeError, match="Chunks must be pandas DataFrames"):
        sdr.sir(AIS, sdr.chunks_from([ais.to_numpy()]))
    with pytest.raises(ValueError, match="'chunksize' option must be a positive int"):
        sdr.read_csv_chunks("x.csv", chunksize=0)
    with pytest.raises(TypeError, match="chunks must be a list"):
        sdr.chunks_from(3)


def test_slice_stats_merge_equals_one_pass():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((500, 3)) + 10
    keys = rng.integers(0, 4, 500)
    y = X[:, 0] + rng.standard_normal(500)
    whole = SliceStats(3, second=True, response=True).update(X, keys, y)
    pieces = SliceStats(3, second=True, response=True)
    for lo in range(0, 500, 120):
        part = SliceStats(3, second=True, response=True)
        pieces.merge(part.update(X[lo : lo + 120], keys[lo : lo + 120], y[lo : lo + 120]))
    a, b = whole.ordered(), pieces.ordered()
    np.testing.assert_allclose(a.counts, b.counts)
    # Summation order differs only: agreement to rounding of sums of ~500 terms of size ~1.
    np.testing.assert_allclose(a.sums, b.sums, atol=1e-10)
    np.testing.assert_allclose(a.cross, b.cross, atol=1e-10)
    n, mean, cov = b.moments()
    np.testing.assert_allclose(mean, X.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(cov, np.cov(X, rowvar=False, ddof=0), atol=1e-12)
    y_mean, y_var, cov_xy = b.response_moments()
    np.testing.assert_allclose([y_mean, y_var], [y.mean(), y.var()], atol=1e-12)
    np.testing.assert_allclose(
        cov_xy, ((X - X.mean(0)) * (y - y.mean())[:, None]).mean(0), atol=1e-12
    )
    with pytest.raises(ValueError, match="same layout"):
        a.merge(SliceStats(3, second=False, response=True))


def test_weighted_slice_stats_equal_repeated_rows():
    # Case weights are frequency weights: integer weights equal repeating the rows, exactly
    # in exact arithmetic (1e-10: rounding of sums of ~300 terms).
    rng = np.random.default_rng(6)
    X = rng.standard_normal((60, 2))
    keys = rng.integers(0, 3, 60)
    w = rng.integers(0, 4, 60)
    weighted = SliceStats(2, second=True).update(X, keys, weights=w.astype(float)).ordered()
    rows = np.repeat(np.arange(60), w)
    repeated = SliceStats(2, second=True).update(X[rows], keys[rows]).ordered()
    np.testing.assert_allclose(weighted.counts, repeated.counts)
    np.testing.assert_allclose(weighted.sums, repeated.sums, atol=1e-10)
    np.testing.assert_allclose(weighted.cross, repeated.cross, atol=1e-10)
    np.testing.assert_allclose(weighted.cov, repeated.cov, atol=1e-12)


def test_in_memory_fit_does_not_warn_about_chunks(ais):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sdr.sir(AIS, ais, nslices=8)


def test_chunks_use_the_bulk_builder_with_the_same_numbers():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.standard_normal((600, 3)), columns=["a", "b", "c"])
    frame["y"] = frame.a - frame.c + rng.standard_normal(600) * 0.3
    frame.loc[[5, 300], "b"] = np.nan
    frame.loc[[400], "y"] = np.nan
    plan_parts = sdr.chunks_from(parts(frame, 150))
    with pytest.warns(sdr.MissingValueWarning, match="Dropped 3 rows"):
        fit = sdr.sir("y ~ a + b + c", plan_parts, nslices=6)
    with pytest.warns(sdr.MissingValueWarning):
        memory = sdr.sir("y ~ a + b + c", frame, nslices=6)
    assert_same_fit(memory, fit)
    from sdrstats.design import builder
    from sdrstats.design.plan import FormulaPlan

    for formula in ("y ~ a + b + c", "y ~ a + log(abs(b))"):
        plan = FormulaPlan(formula, frame)
        assert builder.plan(plan._infos()[0], frame) is not None  # not patsy's per-chunk build
        assert plan.plain_y == ["y"]


@pytest.mark.parametrize(
    "formula, options",
    [
        ("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(rcc)", {}),
        ("sport ~ log(ssf) + log(wt) + log(hg) + log(ht)", {"d": 3}),
        ("sex ~ log(ssf) + log(wt) + log(hg)", {"d": 1, "kernel_y": "linear"}),
    ],
)
def test_spca_with_linear_or_class_kernel_equals_in_memory(ais, formula, options):
    memory = sdr.spca(formula, ais, **options)
    fit = sdr.spca(formula, sdr.chunks_from(parts(ais)), **options)
    np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=TOL)
    np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=TOL)
    assert fit.d == memory.d and "from 6 chunks" in str(fit.summary())


def test_spca_rbf_kernel_needs_the_rows(ais):
    with pytest.raises(ValueError, match="rbf kernel needs the rows in memory"):
        sdr.spca("lbm ~ log(ssf) + log(wt)", sdr.chunks_from(parts(ais)), kernel_y="rbf")


def test_exact_slicing_rereads_chunks_when_the_response_is_too_large_to_keep(monkeypatch):
    import sdrstats.scale.fit as scale_fit

    rng = np.random.default_rng(8)
    frame = pd.DataFrame(rng.standard_normal((6000, 3)), columns=["a", "b", "c"])
    frame["y"] = frame.a + frame.b**2 + 0.5 * rng.standard_normal(6000)  # 6000 distinct values
    pieces = [frame.iloc[k : k + 1000] for k in range(0, 6000, 1000)]
    memory = sdr.sir("y ~ a + b + c", frame, nslices=10)
    single = sdr.sir("y ~ a + b + c", sdr.chunks_from(pieces), nslices=10)  # slices as it sums
    monkeypatch.setattr(one_pass, "KEPT_BYTES", 0)  # the one pass gives up: response passes
    kept = sdr.sir("y ~ a + b + c", sdr.chunks_from(pieces), nslices=10)
    monkeypatch.setattr(scale_fit, "RESPONSE_CACHE", 10)  # no chunk's response is kept
    reread = sdr.sir("y ~ a + b + c", sdr.chunks_from(pieces), nslices=10)
    for fit in (single, kept, reread):
        np.testing.assert_array_equal(fit.slice_sizes, memory.slice_sizes)
        # the same sums in another order: rounding only (~1e-15)
        np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=1e-10)
        assert fit.row_passes == 1
    assert single.slicing_passes == 0  # the held response, sorted at the end, gives the cuts
    assert kept.slicing_passes == 1  # the kept values, sorted, give the cuts
    assert reread.slicing_passes == 3  # summary, bracketing grid, values in the brackets


@pytest.mark.parametrize("ties", [False, True])
def test_chunked_cume_equals_in_memory(monkeypatch, ties):
    import sdrstats.moment.cumulative as moment_cume

    rng = np.random.default_rng(9)
    frame = pd.DataFrame(rng.standard_normal((6000, 4)) + 3, columns=list("abcd"))
    frame["y"] = frame.a - frame.b + 0.3 * rng.standard_normal(6000)
    if ties:
        frame["y"] = frame["y"].round(1)
    pieces = [frame.iloc[k : k + 700] for k in range(0, 6000, 700)]
    memory = sdr.cume("y ~ a + b + c + d", frame)
    # small batches: many passes, each over one range of the response, in order
    monkeypatch.setattr(moment_cume, "CUME_BATCH_ROWS", 500)
    fit = sdr.cume("y ~ a + b + c + d", sdr.chunks_from(pieces))
    # the same sums grouped differently: rounding only (~1e-15 relative)
    np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=1e-12)
    np.testing.assert_allclose(fit.output.basis[:, :3], memory.output.basis[:, :3], atol=TOL)


def test_a_pickled_plan_is_small_and_codes_rows_as_the_original():
    """Dask tasks carry the plan: it keeps a few rows of the first chunk when they rebuild the
    same design, all of them when the design depends on every row (center, splines)."""
    import pickle

    from sdrstats.design.plan import PROTOTYPE_ROWS, FormulaPlan

    rng = np.random.default_rng(3)
    n = 20_000
    frame = pd.DataFrame(rng.standard_normal((n, 3)), columns=["a", "b", "y"])
    frame["g"] = pd.Categorical(rng.choice(["u", "v", "w"], n), categories=["u", "v", "w", "z"])
    later = frame.iloc[:500].copy()
    later.loc[later.index[:3], "g"] = "z"  # a level absent from the first rows
    for formula, small in [("y ~ a + b + g", True), ("y ~ center(a) + g", False)]:
        plan = FormulaPlan(formula, frame)
        copy = pickle.loads(pickle.dumps(plan))
        assert (copy.x_source.shape[0] <= PROTOTYPE_ROWS) is small
        X1, y1, _ = plan.arrays(later)
        X2, y2, _ = copy.arrays(later)
        # the same design and values exactly: the copy rebuilds patsy's coding, no arithmetic
        np.testing.assert_array_equal(X1, X2)
        np.testing.assert_array_equal(y1, y2)
