"""SAVE's centred bootstrap (``scheme="centered"``): what it computes, its default, its errors.

Its calibration (coverage of the true distance) is measured by
``benchmarks/bench_bootstrap_coverage.py``, too slow for the tests.
"""

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.base.parallel import spawn_seeds
from sdrstats.inference._replicates import multinomial_counts
from sdrstats.stats.distances import subspace_distance


def quadratic_frame(n=400, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = X[:, 0] ** 2 + X[:, 1] + 0.5 * rng.normal(size=n)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(p)]).assign(y=y)


def centred_save_by_hand(X, labels, counts, d):
    """The centred replicate written out in plain numpy, with a symmetric whitening.

    World: slice matrices A_s = W (Σ - Σ_s) W of the full sample, with the part off the
    top-d eigenvectors U of M = Σ f_s A_s² removed; the replicate subtracts that part, in
    covariance units, from its own Σ* - Σ*_s before whitening by its own W*.
    """

    def pieces(w):
        mean = w @ X / w.sum()
        centred = X - mean
        sigma = (centred * w[:, None]).T @ centred / w.sum()
        vals, vecs = np.linalg.eigh(sigma)
        whiten = vecs @ np.diag(vals**-0.5) @ vecs.T
        fractions, gaps = [], []
        for s in range(labels.max() + 1):
            ws, xs = w[labels == s], X[labels == s]
            ms = ws @ xs / ws.sum()
            within = ((xs - ms) * ws[:, None]).T @ (xs - ms) / ws.sum()
            fractions.append(ws.sum() / w.sum())
            gaps.append(sigma - within)
        return np.array(fractions), np.array(gaps), whiten

    def top(fractions, slopes):
        M = np.einsum("s,sij,sjk->ik", fractions, slopes, slopes)
        return np.linalg.eigh(M)[1][:, ::-1][:, :d]

    f, gaps, whiten = pieces(np.ones(len(X)))
    slopes = whiten @ gaps @ whiten
    U = top(f, slopes)
    proj = U @ U.T
    unwhiten = np.linalg.inv(whiten)
    outside = unwhiten @ (slopes - proj @ slopes @ proj) @ unwhiten
    fb, gb, wb = pieces(counts.astype(float))
    return wb @ top(fb, wb @ (gb - outside) @ wb)


def test_centred_replicate_equals_the_construction_by_hand():
    # Two whitenings (Cholesky of the correlation vs symmetric root) give the same subspace
    # up to rounding: the kernel is rotated, the back-transformed eigenvectors are not.
    frame = quadratic_frame(n=300, p=4, seed=3)
    fit = sdr.save("y ~ .", frame, nslices=6, d=2)
    kernel = fit.estimator.replicate_kernel(fit).centered(2)
    counts = np.stack([multinomial_counts(s, fit.n) for s in spawn_seeds(4, 3)])
    X = frame.drop(columns="y").to_numpy()
    for c, (basis, _) in zip(counts, kernel.replicates(counts)):
        expected = centred_save_by_hand(X, kernel.slices.labels, c, 2)
        assert subspace_distance(basis[:, :2], expected) < 1e-8


def test_centred_world_is_centred_on_the_fit():
    # With every row counted once the replicate is the centre of the resampled world,
    # which must be the fitted subspace itself (distance 0 up to rounding).
    fit = sdr.save("y ~ .", quadratic_frame(), d=2)
    kernel = fit.estimator.replicate_kernel(fit).centered(2)
    basis, _ = kernel.replicates(np.ones((1, fit.n)))[0]
    assert subspace_distance(basis[:, :2], fit.output.basis[:, :2]) < 1e-8
    # the plain kernel is unchanged by taking a centred copy
    plain, _ = fit.estimator.replicate_kernel(fit).replicates(np.ones((1, fit.n)))[0]
    np.testing.assert_allclose(plain, fit.output.basis, atol=1e-10)


def test_save_defaults_to_the_centred_scheme_and_says_why():
    fit = sdr.save("y ~ .", quadratic_frame(), d=2)
    boot = fit.bootstrap(B=30, random_state=0, progress=False)
    assert boot.scheme == "centered"
    assert "default for save" in boot.scheme_reason
    text = str(boot.summary())
    assert "Scheme: centered (the default for save" in text
    assert "30 centred bootstrap replicates" in text
    given = fit.bootstrap(B=30, random_state=0, progress=False, scheme="multinomial")
    assert given.scheme == "multinomial" and "Scheme: multinomial (given)" in str(given)
    sir = sdr.sir("y ~ .", quadratic_frame(), d=2).bootstrap(B=10, random_state=0, progress=False)
    assert (sir.scheme, sir.scheme_reason) == ("multinomial", "the default")


def test_save_default_falls_back_where_its_test_does_not_support_d():
    # The centred world trusts the fitted directions; where SAVE's own asymptotic test does
    # not support the d compared (here it chooses d = 1 on ais), the default is the plain
    # scheme, and the summary says so.
    ais = sdr.datasets.load("ais")
    fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    assert fit.test_dimension("asymptotic").d == 1
    one = fit.bootstrap(B=10, random_state=0, progress=False)
    two = fit.bootstrap(B=10, d=2, random_state=0, progress=False)
    assert one.scheme == "centered"
    assert two.scheme == "multinomial"
    assert "(it chose d = 1 < 2)" in two.scheme_reason
    assert "Scheme: multinomial (the default for save when its asymptotic test does not" in str(
        two.summary()
    )
    forced = fit.bootstrap(B=10, d=2, random_state=0, progress=False, scheme="centered")
    assert forced.scheme == "centered" and forced.scheme_reason == "given"


def test_centred_bootstrap_is_reproducible_and_independent_of_n_jobs():
    fit = sdr.save("y ~ .", quadratic_frame(), d=2)
    one = fit.bootstrap(B=60, random_state=7, progress=False)
    again = fit.bootstrap(B=60, random_state=7, progress=False)
    two = fit.bootstrap(B=60, random_state=7, progress=False, n_jobs=2)
    np.testing.assert_array_equal(one.distances, again.distances)
    np.testing.assert_array_equal(one.distances, two.distances)
    other = fit.bootstrap(B=60, random_state=8, progress=False)
    assert not np.array_equal(one.distances, other.distances)


def test_centred_bootstrap_uses_the_plain_scheme_counts():
    # Same counts as the multinomial scheme (same seeds), only the world differs: on the
    # quadratic model the plain world is the more dispersed (the over-coverage it fixes;
    # benchmarks/bench_bootstrap_coverage.md), so its mean distance is the larger.
    fit = sdr.save("y ~ .", quadratic_frame(), d=2)
    centred = fit.bootstrap(B=100, random_state=1, progress=False)
    plain = fit.bootstrap(B=100, random_state=1, progress=False, scheme="multinomial")
    assert centred.mean < 0.8 * plain.mean
    assert centred.d == plain.d == 2


def test_centred_scheme_follows_the_compared_dimension():
    fit = sdr.save("y ~ .", quadratic_frame(), d=2)
    one = fit.bootstrap(B=20, d=1, random_state=0, progress=False)
    assert one.d == 1 and one.scheme == "centered"
    whole = fit.bootstrap(B=5, d=fit.p, random_state=0, progress=False)
    np.testing.assert_allclose(whole.distances, 0, atol=1e-8)


def test_centred_scheme_where_it_is_not_available_is_a_clear_error():
    frame = quadratic_frame()
    with pytest.raises(ValueError, match="'scheme' option 'centered' is not available for"):
        sdr.sir("y ~ .", frame, d=2).bootstrap(B=5, scheme="centered", progress=False)
    chunked = sdr.save("y ~ .", sdr.chunks_from([frame[:200], frame[200:]]), d=2)
    assert chunked.bootstrap(B=5, random_state=0, progress=False).scheme == "poisson"
    with pytest.raises(ValueError, match="must be 'poisson' for a fit on chunked"):
        chunked.bootstrap(B=5, scheme="centered", progress=False)
    grouped = frame.assign(g=np.arange(len(frame)) % 2)
    partial = sdr.save("y ~ x0 + x1 + x2 + x3 + x4", grouped, group="g", d=2)
    boot = partial.bootstrap(B=5, random_state=0, progress=False)
    assert boot.scheme == "multinomial"  # partial SAVE refits rows: no centred kernel
