"""The Poisson bootstrap: counts keyed by row position, and chunked/Dask replicates equal memory."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import sdrstats as sdr
from sdrstats.inference.poisson import (
    MAX_COUNT,
    THRESHOLDS,
    counts_from_keys,
    poisson_counts,
    replicate_keys,
)

AIS = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc)"
# Tolerance of chunked/Dask replicates against memory. Both sum the same products
# count × feature, in another order and about a centre and scale that agree to ~1e-15
# (the accumulated mean and sd against the rows' own), so the slice sums agree to ~1e-15
# relative; the p×p steps (whitening, an eigen-decomposition whose gaps here are > 1e-3)
# amplify that by at most ~1e3 to 1e4. Observed differences are ~1e-14; 1e-9 leaves ample
# margin and still fails for counts keyed to the wrong rows (positions that skip the dropped
# rows move the directions by ~1).
TOL = 1e-9


def pieces(frame, sizes):
    """``frame`` cut into consecutive chunks of the given sizes (the last takes the rest)."""
    out, start = [], 0
    for size in sizes:
        out.append(frame.iloc[start : start + size])
        start += size
    out.append(frame.iloc[start:])
    return [part for part in out if len(part)]


def assert_same_replicates(a, b):
    assert a.B == b.B and a.d == b.d
    np.testing.assert_allclose(b.distances, a.distances, atol=TOL, rtol=0)
    np.testing.assert_allclose(b.directions, a.directions, atol=TOL, rtol=0)
    np.testing.assert_allclose(b.cosines, a.cosines, atol=TOL, rtol=0)
    assert a.n_failed == b.n_failed == 0


@pytest.fixture(scope="module")
def ais():
    return sdr.datasets.load("ais")


@pytest.fixture(scope="module")
def ais_missing(ais):
    """ais with missing values in 9 rows (predictor or response), so positions skip them."""
    frame = ais.copy()
    frame.loc[[0, 3, 4, 57, 101, 102, 150, 199, 201], "wcc"] = np.nan
    frame.loc[[10, 77], "lbm"] = np.nan
    return frame


@pytest.fixture(scope="module")
def simulated():
    """A continuous response with ties (exact R slicing on chunks) and a three-class label."""
    rng = np.random.default_rng(5)
    n = 900
    frame = pd.DataFrame(rng.standard_normal((n, 4)), columns=["a", "b", "c", "e"])
    frame["y"] = np.round(frame.a + 0.5 * frame.b**2 + 0.4 * rng.standard_normal(n), 1)
    frame["g"] = np.where(frame.a + 0.3 * rng.standard_normal(n) > 0.5, "hi", "mid")
    frame.loc[frame.b < -0.8, "g"] = "low"
    frame.loc[[7, 400, 401, 899], "c"] = np.nan
    return frame


# -- the counts ------------------------------------------------------------------------------
def test_any_split_of_the_rows_gives_the_same_counts():
    rng = np.random.default_rng(0)
    n, b_range = 10_007, range(5)
    whole = poisson_counts(11, b_range, 0, n)
    for _ in range(20):  # random cut points: offsets of every residue mod 4, empty pieces
        cuts = np.sort(rng.integers(0, n + 1, size=rng.integers(1, 12)))
        bounds = np.concatenate([[0], cuts, [n]])
        joined = np.hstack(
            [poisson_counts(11, b_range, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
        )
        np.testing.assert_array_equal(joined, whole)
    for start in range(9):  # every offset within and across Philox counter steps
        np.testing.assert_array_equal(
            poisson_counts(11, b_range, start, start + 1), whole[:, start : start + 1]
        )


def test_a_replicate_counts_do_not_depend_on_the_other_replicates():
    whole = poisson_counts(3, range(8), 100, 300)
    np.testing.assert_array_equal(poisson_counts(3, [6, 2], 100, 300), whole[[6, 2]])
    keys = replicate_keys(np.random.SeedSequence(3), range(8))
    np.testing.assert_array_equal(counts_from_keys(keys, 100, 300), whole)


def test_counts_are_the_inverse_cdf_of_the_rows_philox_output():
    # An independent construction: the i-th 64-bit output of Philox keyed by child b of the
    # seed's SeedSequence, as a uniform u = r / 2^64, through scipy's Poisson quantile
    # function. The two agree except when u falls within double rounding (2^-53) of a
    # distribution-function value, which 20 000 draws never do (chance ~1e-12).
    child = np.random.SeedSequence(8).spawn(2)[1]
    raw = np.random.Philox(key=child.generate_state(2, np.uint64)).random_raw(20_000)
    u = raw.astype(float) / 2.0**64
    expected = scipy.stats.poisson.ppf(u, 1.0)
    np.testing.assert_array_equal(poisson_counts(8, [1], 0, 20_000)[0], expected)


def test_thresholds_are_the_poisson_distribution_function():
    # scipy's cdf in doubles against the 60-digit thresholds: equal to double rounding
    cdf = scipy.stats.poisson.cdf(np.arange(MAX_COUNT), 1.0)
    np.testing.assert_allclose(THRESHOLDS.astype(float) / 2.0**64, cdf, rtol=0, atol=4e-16)
    assert MAX_COUNT == 20 and scipy.stats.poisson.sf(MAX_COUNT, 1.0) < 2.0**-64


def test_counts_have_the_poisson_one_distribution():
    N = 2_000_000
    counts = poisson_counts(2026, range(2), 0, N // 2).reshape(-1).astype(float)
    # Poisson(1): mean 1, variance 1, P(0) = e^-1. Standard errors over N draws: the mean's
    # 1/sqrt(N) = 7e-4; the sample variance's sqrt((mu4 - 1)/N) with mu4 = 4 (all cumulants
    # are 1), 1.2e-3; P(0)'s sqrt(p(1-p)/N) = 3.4e-4. Five standard errors each: a false
    # failure has chance < 1e-6, while a wrong distribution (e.g. counts off by one in 1% of
    # rows) moves the mean by 1e-2.
    assert abs(counts.mean() - 1) < 5 / np.sqrt(N)
    assert abs(counts.var() - 1) < 5 * np.sqrt(3 / N)
    p0 = np.exp(-1)
    assert abs(np.mean(counts == 0) - p0) < 5 * np.sqrt(p0 * (1 - p0) / N)
    # the whole distribution: a chi-square goodness of fit over 0..5 and >= 6 (df 6; the
    # 1e-4 quantile of the statistic is 27.9, so a false failure has chance 1e-4)
    observed = np.bincount(np.minimum(counts.astype(int), 6), minlength=7)
    probs = np.append(scipy.stats.poisson.pmf(np.arange(6), 1.0), scipy.stats.poisson.sf(5, 1.0))
    stat = np.sum((observed - N * probs) ** 2 / (N * probs))
    assert stat < scipy.stats.chi2.isf(1e-4, 6)


def test_counts_of_rows_and_replicates_are_uncorrelated():
    counts = poisson_counts(4, range(2), 0, 500_000).astype(float)
    # correlation of two replicates and of neighbouring rows (same Philox block): each has
    # standard error 1/sqrt(n) = 1.4e-3; five of them
    bound = 5 / np.sqrt(counts.shape[1])
    assert abs(np.corrcoef(counts[0], counts[1])[0, 1]) < bound
    assert abs(np.corrcoef(counts[0, :-1], counts[0, 1:])[0, 1]) < bound


def test_a_generator_seed_is_refused_by_the_counts_but_consumed_once_by_bootstrap(ais):
    with pytest.raises(TypeError, match="a Generator is consumed by each use"):
        poisson_counts(np.random.default_rng(0), range(2), 0, 10)
    fit = sdr.sir(AIS, ais, nslices=8, d=2)
    boot = fit.bootstrap(
        B=5, random_state=np.random.default_rng(1), progress=False, scheme="poisson"
    )
    again = fit.bootstrap(
        B=5, random_state=np.random.default_rng(1), progress=False, scheme="poisson"
    )
    np.testing.assert_array_equal(boot.distances, again.distances)


# -- in memory -------------------------------------------------------------------------------
def test_in_memory_poisson_replicates_are_the_weighted_fits(ais_missing):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.MissingValueWarning)
        fit = sdr.save(AIS, ais_missing, nslices=6, d=2)
    kept = np.flatnonzero(ais_missing[["lbm", "wcc"]].notna().all(axis=1).to_numpy())
    np.testing.assert_array_equal(fit.spec.positions, kept)
    boot = fit.bootstrap(B=4, random_state=9, progress=False, scheme="poisson")
    counts = poisson_counts(9, range(4), 0, len(ais_missing))[:, kept]
    # replicate b is the weighted fit with the counts of the rows' positions, on the full-sample
    # slices (the in-memory weighted fit with those slices' cut points); same sums, so ~1e-13
    slices = fit.estimator._slices(fit.spec.Y, fit.p)
    cuts = [fit.spec.Y[slices.labels == s].max() for s in range(slices.nslices - 1)]
    for b in range(4):
        est = sdr.SAVE(cut_points=cuts, d=2)
        out = est._fit(fit.spec.X, fit.spec.Y, weights=counts[b].astype(float))
        np.testing.assert_allclose(boot.directions[b], out.basis[:, :2], atol=TOL)


def test_a_method_without_weighted_replicates_refits_rows_repeated_by_their_counts(ais):
    fit = sdr.phd("lbm ~ log(ssf) + log(wt) + log(ht)", ais, d=1)
    boot = fit.bootstrap(B=3, random_state=2, progress=False, scheme="poisson")
    assert boot.engine == "refit on rows repeated by their Poisson counts"
    counts = poisson_counts(2, range(3), 0, len(ais))
    for b in range(3):
        rows = np.repeat(np.arange(len(ais)), counts[b])
        refit = sdr.phd("lbm ~ log(ssf) + log(wt) + log(ht)", ais.iloc[rows], d=1)
        # the same rows through the same fit: equal to rounding
        np.testing.assert_allclose(boot.directions[b], refit.output.basis[:, :1], atol=TOL)


def test_poisson_results_do_not_depend_on_n_jobs(ais):
    fit = sdr.sir(AIS, ais, nslices=8, d=2)
    one = fit.bootstrap(B=60, random_state=4, progress=False, scheme="poisson")
    two = fit.bootstrap(B=60, random_state=4, progress=False, scheme="poisson", n_jobs=2)
    np.testing.assert_array_equal(one.distances, two.distances)


# -- chunks and Dask equal memory ------------------------------------------------------------
CASES = [
    (sdr.sir, {"nslices": 8}),
    (sdr.save, {"nslices": 6}),
    (sdr.directional_regression, {"nslices": 6}),
]


@pytest.mark.parametrize("fn, options", CASES)
@pytest.mark.parametrize("sizes", [[101], [2, 51, 3, 70], [5] * 40])
def test_chunked_poisson_bootstrap_equals_memory_on_ais(ais_missing, fn, options, sizes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.MissingValueWarning)
        memory = fn(AIS, ais_missing, d=2, **options)
        chunked = fn(AIS, sdr.chunks_from(pieces(ais_missing, sizes)), d=2, **options)
    expected = memory.bootstrap(B=30, random_state=7, progress=False, scheme="poisson")
    got = chunked.bootstrap(B=30, random_state=7, progress=False)
    assert got.engine == "weighted slice moments, one pass over the data"
    assert got.scheme == expected.scheme == "poisson"
    assert "30 Poisson bootstrap replicates" in str(got.summary())
    assert_same_replicates(expected, got)


@pytest.mark.parametrize("fn, options", CASES)
@pytest.mark.parametrize("formula", ["y ~ a + b + c + e", "g ~ a + b + c + e"])
def test_chunked_poisson_bootstrap_equals_memory_on_simulated_data(simulated, fn, options, formula):
    # continuous response with ties, sliced exactly as R on chunks; and a class label
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.MissingValueWarning)
        memory = fn(formula, simulated, d=2, **options)
        chunked = fn(formula, sdr.chunks_from(pieces(simulated, [250, 13, 300])), d=2, **options)
    expected = memory.bootstrap(B=25, random_state=1, progress=False, scheme="poisson")
    assert_same_replicates(expected, chunked.bootstrap(B=25, random_state=1, progress=False))


@pytest.mark.parametrize("fn, options", CASES)
def test_dask_poisson_bootstrap_equals_memory(ais_missing, simulated, fn, options):
    dd = pytest.importorskip("dask.dataframe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.MissingValueWarning)
        for formula, frame in [(AIS, ais_missing), ("g ~ a + b + c + e", simulated)]:
            memory = fn(formula, frame, d=2, **options)
            fit = fn(formula, dd.from_pandas(frame, npartitions=3), d=2, **options)
            expected = memory.bootstrap(B=20, random_state=3, progress=False, scheme="poisson")
            assert_same_replicates(expected, fit.bootstrap(B=20, random_state=3, progress=False))


def test_dask_bootstrap_reads_the_data_once_after_the_fit(ais_missing, monkeypatch):
    """The fit's statistics pass records the partitions' lengths (dropped rows included), so
    the bootstrap's row positions need no pass that only counts rows."""
    dd = pytest.importorskip("dask.dataframe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.MissingValueWarning)
        frame = dd.from_pandas(ais_missing, npartitions=3)
        fit = sdr.sir(AIS, frame, nslices=8, d=2)
        memory = sdr.sir(AIS, ais_missing, nslices=8, d=2)
    backend = fit.spec.data.backend
    lengths = [int(v) for v in frame.map_partitions(len).compute()]
    assert backend._lengths == lengths and sum(lengths) == ais_missing.shape[0]

    def counted(*args, **kwargs):
        raise AssertionError("a pass that only counts rows")

    monkeypatch.setattr(type(backend.ddf), "map_partitions", counted)
    expected = memory.bootstrap(B=10, random_state=2, progress=False, scheme="poisson")
    assert_same_replicates(expected, fit.bootstrap(B=10, random_state=2, progress=False))


def test_chunked_poisson_bootstrap_does_not_depend_on_n_jobs(ais):
    fit = sdr.sir(AIS, sdr.chunks_from(pieces(ais, [60, 60])), nslices=8, d=2)
    one = fit.bootstrap(B=120, random_state=5, progress=False)
    two = fit.bootstrap(B=120, random_state=5, progress=False, n_jobs=2)
    np.testing.assert_array_equal(one.distances, two.distances)
    np.testing.assert_array_equal(one.directions, two.directions)


# -- what is refused -------------------------------------------------------------------------
def test_bad_scheme_values_are_clear_errors(ais):
    fit = sdr.sir(AIS, ais, nslices=8)
    with pytest.raises(
        ValueError,
        match=(
            "The 'scheme' option of bootstrap must be one of 'multinomial', 'poisson', "
            "'centered'; got 'Poisson'"
        ),
    ):
        fit.bootstrap(B=5, scheme="Poisson", progress=False)
    chunked = sdr.sir(AIS, sdr.chunks_from(pieces(ais, [100])), nslices=8)
    with pytest.raises(
        ValueError, match="'multinomial' is not available for a fit on chunked or Dask data"
    ):
        chunked.bootstrap(B=5, scheme="multinomial", progress=False)
    with pytest.raises(
        ValueError, match="must be 'poisson' for a fit on chunked or Dask data; got 'bayes'"
    ):
        chunked.bootstrap(B=5, scheme="bayes", progress=False)
    embedding = sdr.kspca("lbm ~ log(wt) + log(ht)", ais, d=1)
    with pytest.raises(ValueError, match="'poisson' is not available for kspca"):
        embedding.bootstrap(B=5, scheme="poisson", progress=False)


def test_chunked_methods_without_weighted_replicates_are_refused(ais):
    fit = sdr.phd("lbm ~ log(ssf) + log(wt) + log(ht)", sdr.chunks_from(pieces(ais, [100])))
    with pytest.raises(ValueError, match="The bootstrap of phd needs the rows"):
        fit.bootstrap(B=5, progress=False)


def test_a_case_weighted_chunked_fit_is_refused(ais):
    weighted = ais.assign(w=np.linspace(0.5, 2, len(ais)))
    fit = sdr.sir(AIS, sdr.chunks_from(pieces(weighted, [100])), weights="w", nslices=8)
    with pytest.raises(ValueError, match="case-weighted sir fit on chunked or Dask data"):
        fit.bootstrap(B=5, progress=False)


def test_a_one_shot_iterator_cannot_be_read_again(ais):
    fit = sdr.sir(AIS, sdr.chunks_from(iter(pieces(ais, [100]))), nslices=8, cut_points=[50, 60])
    with pytest.raises(
        ValueError, match="one more pass over the data, but the chunks came from a one-shot"
    ):
        fit.bootstrap(B=5, progress=False)


def test_data_changed_since_the_fit_is_detected(ais):
    chunks = pieces(ais, [100])
    fit = sdr.sir(AIS, sdr.chunks_from(chunks), nslices=8)
    chunks.pop()  # the source now gives fewer rows
    with pytest.raises(ValueError, match="the data changed since the fit"):
        fit.bootstrap(B=5, progress=False)
