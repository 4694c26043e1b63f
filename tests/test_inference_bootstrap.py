"""Bootstrap of a fitted subspace: fast weighted-moment path, refit path, result object."""

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.base.parallel import limit_blas_threads, spawn_seeds
from sdrstats.inference import BootstrapResult
from sdrstats.inference._replicates import (
    bootstrap_replicates,
    fast_path_supported,
    multinomial_counts,
    procrustes_cosines,
)
from sdrstats.inference.bootstrap import batched_measures
from sdrstats.stats.distances import projection_distance, subspace_distance


def single_index(n=300, p=5, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    beta = np.zeros(p)
    beta[:2] = 1 / np.sqrt(2)
    y = X @ beta + noise * rng.normal(size=n)
    return X, y, beta


@pytest.mark.parametrize("estimator", [sdr.SIR, sdr.SAVE, sdr.DirectionalRegression])
def test_fast_path_equals_weighted_refit(estimator):
    # Replicate b of the fast path must be the estimator's own weighted fit with the
    # multinomial counts as case weights; both are exact algebra, so agreement is to
    # rounding (1e-9 leaves room for the p x p solves on a well-conditioned problem).
    X, y, _ = single_index(n=240, p=4, seed=1)
    y = y + 0.5 * X[:, 2] ** 2  # gives SAVE and DR a second-moment signal
    fit = estimator(nslices=6).fit(X, y)
    assert fast_path_supported(fit)
    kernel = fit.estimator.replicate_kernel(fit)  # the moment family's weighted kernel
    seeds = spawn_seeds(3, 4)
    counts_block = np.stack([multinomial_counts(s, len(y)) for s in seeds])
    for seed, (basis, values) in zip(seeds, kernel.replicates(counts_block)):
        counts = multinomial_counts(seed, len(y)).astype(float)
        refit = fit.refit(fit.spec.X, fit.spec.Y, weights=counts)
        np.testing.assert_allclose(basis, refit.basis, atol=1e-9)
        np.testing.assert_allclose(values, refit.eigenvalues, atol=1e-9)


def test_fast_path_handles_categorical_response():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3))
    labels = np.where(X[:, 0] > 0.3, "a", np.where(X[:, 0] < -0.3, "b", "c"))
    fit = sdr.SIR().fit(X, labels)
    boot = fit.bootstrap(B=40, d=1, random_state=0, progress=False)
    assert boot.engine == "weighted slice moments"
    assert boot.n_failed == 0
    assert boot.stability["Dir1"] > 0.95  # the class boundary is along x1: a stable direction


def test_refit_path_for_methods_without_slices():
    X, y, _ = single_index(seed=3)
    fit = sdr.PHD(d=2).fit(X, y + X[:, 0] ** 2)
    assert not fast_path_supported(fit)
    boot = fit.bootstrap(B=20, random_state=0, progress=False)
    assert boot.engine == "refit on resampled rows"
    assert boot.distances.shape == (20,) and np.all(np.isfinite(boot.distances))


@pytest.mark.parametrize(
    "make", [lambda X, y: sdr.SIR(d=2).fit(X, y), lambda X, y: sdr.CUME(d=1).fit(X, y)]
)
def test_results_do_not_depend_on_n_jobs(make):
    X, y, _ = single_index(n=200, seed=4)
    fit = make(X, y)
    one = fit.bootstrap(B=60, random_state=11, n_jobs=1, progress=False)
    two = fit.bootstrap(B=60, random_state=11, n_jobs=2, progress=False)
    np.testing.assert_array_equal(one.distances, two.distances)
    np.testing.assert_array_equal(one.cosines, two.cosines)


def test_seed_reproducible_and_replicates_nested():
    X, y, _ = single_index(seed=5)
    fit = sdr.SIR(d=1).fit(X, y)
    a = fit.bootstrap(B=50, random_state=7, progress=False)
    b = fit.bootstrap(B=120, random_state=7, progress=False)
    c = fit.bootstrap(B=50, random_state=8, progress=False)
    # replicate b uses child b of the seed, whatever B is
    np.testing.assert_array_equal(a.distances, b.distances[:50])
    assert not np.allclose(a.distances, c.distances)


def test_bootstrap_distance_matches_sampling_error():
    # Known truth: the bootstrap distance of the replicates to the full-sample estimate
    # estimates the distance of the estimate to the true direction. Over 150 independent
    # samples the Monte Carlo mean distance to the truth has a relative standard error of
    # about 5%; the bootstrap average over 10 data sets (B = 100 each) about 8%. A ratio
    # within [0.7, 1.4] allows ~3 combined standard errors plus the bootstrap's known
    # small-sample bias.
    n, p = 200, 5
    truth = []
    with limit_blas_threads(1):  # many tiny fits: one BLAS thread is fastest
        for seed in range(150):
            X, y, beta = single_index(n=n, p=p, seed=100 + seed, noise=1.0)
            basis = sdr.SIR(d=1)._fit(X, y.reshape(-1, 1)).basis
            truth.append(projection_distance(basis[:, :1], beta))
    boot = []
    for seed in range(10):
        X, y, _ = single_index(n=n, p=p, seed=500 + seed, noise=1.0)
        fit = sdr.SIR(d=1).fit(X, y)
        boot.append(fit.bootstrap(B=100, random_state=seed, progress=False).mean)
    ratio = np.mean(boot) / np.mean(truth)
    assert 0.7 < ratio < 1.4, ratio


def test_stability_separates_signal_from_noise_direction():
    X, y, _ = single_index(n=400, seed=6, noise=0.3)
    boot = sdr.SIR(d=2).fit(X, y).bootstrap(B=80, random_state=0, progress=False)
    # Dir1 carries the single index; Dir2 is noise and rotates freely in the complement.
    assert boot.stability["Dir1"] > 0.98
    assert boot.stability["Dir2"] < 0.9


def test_procrustes_cosines():
    rng = np.random.default_rng(0)
    ref = np.linalg.qr(rng.normal(size=(6, 2)))[0]
    rotation = np.array([[np.cos(0.7), -np.sin(0.7)], [np.sin(0.7), np.cos(0.7)]])
    # same subspace, rotated basis: every direction is matched exactly
    np.testing.assert_allclose(procrustes_cosines(ref, ref @ rotation), 1.0, atol=1e-12)
    # d = 1: the plain |cos| of the two vectors
    a, b = rng.normal(size=(6, 1)), rng.normal(size=(6, 1))
    expected = abs(a[:, 0] @ b[:, 0]) / np.linalg.norm(a) / np.linalg.norm(b)
    np.testing.assert_allclose(procrustes_cosines(a, b), [expected], rtol=1e-12)


@pytest.mark.parametrize("distance", ["projection", "det", "trace_correlation"])
def test_batched_measures_agree_with_the_pairwise_functions(distance):
    # Same formulas on a stack; agreement to rounding (1e-12 on O(1) quantities).
    rng = np.random.default_rng(1)
    reference = rng.normal(size=(5, 2))
    bases = rng.normal(size=(7, 5, 2))
    bases[0] = reference @ np.array([[2.0, 1.0], [0.0, 1.0]])  # the same subspace
    dist, cos = batched_measures(reference, bases, distance)
    for b in range(7):
        assert dist[b] == pytest.approx(subspace_distance(reference, bases[b], distance), abs=1e-12)
        np.testing.assert_allclose(cos[b], procrustes_cosines(reference, bases[b]), atol=1e-12)
    assert dist[0] == pytest.approx(0.0, abs=1e-7)


def test_result_members_summary_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    ais = sdr.datasets.load("ais")
    fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=2)
    boot = fit.bootstrap(B=40, distance="trace_correlation", random_state=1, progress=False)
    assert isinstance(boot, BootstrapResult)
    assert boot.B == 40 and boot.d == 2 and boot.directions.shape == (40, 4, 2)
    assert list(boot.reference.index) == fit.x_names
    q = boot.quantiles([0.1, 0.9])
    assert q.iloc[0] <= q.iloc[1]
    text = str(boot)
    assert "Direction stability" in text and "random_state = 1" in text
    assert "<table" in boot._repr_html_()
    assert "tabular" in boot.summary().as_latex()
    assert len(boot.plot().axes) == 2
    import matplotlib.pyplot as plt

    fig, one = plt.subplots()
    assert boot.plot(ax=one) is fig and fig.axes == [one]  # a single Axes: the histogram only
    assert fit.plot(kind="bootstrap", B=10, random_state=0, progress=False) is not None
    plt.close("all")
    assert "BootstrapResult" in repr(boot)


def test_progress_false_prints_nothing(capsys):
    X, y, _ = single_index(seed=7)
    sdr.SIR(d=1).fit(X, y).bootstrap(B=10, random_state=0, progress=False)
    assert capsys.readouterr().err == ""


def test_bad_options_have_clear_messages():
    X, y, _ = single_index(seed=8)
    fit = sdr.SIR(d=1).fit(X, y)
    with pytest.raises(ValueError, match="'distance' option of bootstrap must be one of"):
        fit.bootstrap(B=10, distance="angle")
    with pytest.raises(ValueError, match="'B' option of bootstrap must be an integer >= 2"):
        fit.bootstrap(B=1)
    with pytest.raises(ValueError, match="'d' option of bootstrap must be an integer between"):
        fit.bootstrap(B=10, d=9)
    with pytest.raises(ValueError, match="option changes \\['d'\\] need engine='refit'"):
        bootstrap_replicates(fit, 5, changes={"d": 2}, engine="moments")
    with pytest.raises(ValueError, match="weighted-moment bootstrap is not available for phd"):
        bootstrap_replicates(sdr.PHD().fit(X, y), 5, engine="moments")


def test_failed_replicates_are_counted_not_fatal():
    # A binary predictor that is 1 in only two rows is constant in ~13% of resamples.
    rng = np.random.default_rng(9)
    X = rng.normal(size=(60, 3))
    X[:, 2] = 0.0
    X[:2, 2] = 1.0
    y = X[:, 0] + 0.3 * rng.normal(size=60)
    boot = sdr.SIR(d=1, nslices=4).fit(X, y).bootstrap(B=60, random_state=0, progress=False)
    assert 0 < boot.n_failed < 30
    assert np.isnan(boot.distances).sum() == boot.n_failed
    assert "failed" in str(boot)


def test_random_state_forms_and_larger_d_without_refit():
    X, y, _ = single_index(seed=10)
    fit = sdr.SIR(d=1).fit(X, y)
    a = fit.bootstrap(B=20, d=3, random_state=np.random.default_rng(4), progress=False)
    b = fit.bootstrap(B=20, d=3, random_state=np.random.default_rng(4), progress=False)
    np.testing.assert_array_equal(a.distances, b.distances)  # a Generator is a seed too
    assert a.d == 3 and a.engine == "weighted slice moments"  # SIR keeps all p directions
    c = fit.bootstrap(
        B=20, d=1, distance="det", random_state=np.random.SeedSequence(4), progress=False
    )
    assert np.all((c.distances >= 0) & (c.distances <= 1))


def test_random_state_none_is_recorded_and_repeatable():
    X, y, _ = single_index(seed=11)
    fit = sdr.SIR(d=1).fit(X, y)
    assert isinstance(fit.random_state, int)  # drawn by the fit, printed by its summary
    first = fit.bootstrap(B=10, progress=False)
    assert first.random_state == fit.stream("bootstrap")  # the fit's bootstrap stream
    again = fit.bootstrap(B=10, random_state=first.random_state, progress=False)
    np.testing.assert_array_equal(first.distances, again.distances)
    repeated = sdr.SIR(d=1, random_state=fit.random_state).fit(X, y).bootstrap(B=10, progress=False)
    np.testing.assert_array_equal(first.distances, repeated.distances)


AIS_EIGHT = (
    "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)"
)


def test_default_d_is_the_fit_s_d_chosen_by_its_test_and_is_printed():
    # Without d, SIR's d is the one its dimension test chooses at level 0.05 (p-values 4e-4
    # and 0.25 here), not the 4 directions it keeps (numdir); the bootstrap compares it.
    ais = sdr.datasets.load("ais")
    fit = sdr.sir(AIS_EIGHT, ais, nslices=8)
    assert fit.d == 2 == fit.test_dimension().d and fit.all_directions.shape[1] == 8
    boot = fit.bootstrap(B=20, random_state=0, progress=False)
    assert boot.d == 2 and boot.cosines.shape == (20, 2)
    assert boot.d_rule == "the fit's d (chosen by the asymptotic test at level 0.05)"
    text = str(boot)
    assert text.lstrip().startswith("Dimension compared:\nd = 2, the fit's d (chosen by the")
    # the same replicates as asking for d = 2 explicitly; only the printed rule differs
    given = fit.bootstrap(B=20, d=2, random_state=0, progress=False)
    np.testing.assert_array_equal(boot.distances, given.distances)
    assert given.d_rule == "given" and "d = 2, given." in str(given)


def test_default_d_keeps_a_d_given_or_chosen_when_fitting():
    ais = sdr.datasets.load("ais")
    fixed = sdr.sir(AIS_EIGHT, ais, nslices=8, d=3).bootstrap(B=10, random_state=0, progress=False)
    assert fixed.d == 3 and fixed.d_rule == "the fit's d (given)"
    X, y, _ = single_index(n=150, p=3, seed=12)
    mave = sdr.MAVE(variant="meanopg", d_max=2).fit(X, y)
    boot = mave.bootstrap(B=4, random_state=0, progress=False)
    assert boot.d == mave.d
    assert boot.d_rule == "the fit's d (chosen by cross-validation)"


def test_default_d_without_an_asymptotic_test_is_its_permutation_test_s_choice():
    X, y, _ = single_index(n=200, p=4, seed=13)
    fit = sdr.DirectionalRegression(random_state=0).fit(X, y)  # no large-sample test
    boot = fit.bootstrap(B=10, random_state=0, progress=False)
    assert boot.d == fit.d == fit.d_choice.d == 1
    assert boot.d_rule.startswith("the fit's d (chosen by the permutation test at level 0.05")
    whole = sdr.DirectionalRegression(d=4).fit(X, y).bootstrap(B=10, random_state=0, progress=False)
    assert "whole predictor space, so every distance is 0" in str(whole)


def test_default_d_when_the_test_keeps_no_dependence():
    rng = np.random.default_rng(14)
    X = rng.normal(size=(200, 3))
    fit = sdr.SIR(nslices=5).fit(X, rng.normal(size=200))  # y independent of X
    assert fit.test_dimension().d == 0 == fit.d_choice.d and fit.d == 1
    boot = fit.bootstrap(B=10, random_state=0, progress=False)
    assert boot.d == 1 and "chose d = 0: no evidence" in boot.d_rule
