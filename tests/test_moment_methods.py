"""Moment methods: both interfaces, recovery of known subspaces, summaries, errors."""

import pickle

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr

METHODS = ["sir", "save", "phd", "directional_regression", "cume"]
CLASSES = {
    "sir": sdr.SIR,
    "save": sdr.SAVE,
    "phd": sdr.PHD,
    "directional_regression": sdr.DirectionalRegression,
    "cume": sdr.CUME,
}


def _simulate(model, n=600, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if model == "linear":
        y = X[:, 0] + X[:, 1] + 0.2 * rng.normal(size=n)
        truth = np.array([1, 1, 0, 0, 0.0])
    else:  # symmetric: SIR cannot see it, SAVE, pHd and directional regression can
        y = (X[:, 0] + X[:, 1]) ** 2 + 0.2 * rng.normal(size=n)
        truth = np.array([1, 1, 0, 0, 0.0])
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    frame["y"] = y
    return frame, truth


@pytest.mark.parametrize("method", METHODS)
def test_formula_and_array_paths_agree(method):
    frame, _ = _simulate("quadratic", n=200)
    by_formula = getattr(sdr, method)("y ~ .", frame)
    by_array = CLASSES[method]().fit(frame.drop(columns="y"), frame["y"])
    # the formula front builds a column-major matrix, so BLAS adds the same products in
    # another order: equal to rounding (observed 1e-17 absolute), not bit for bit
    np.testing.assert_allclose(by_formula.eigenvalues, by_array.eigenvalues, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(by_formula.directions, by_array.directions, rtol=1e-10, atol=1e-12)
    assert by_array.x_names == by_formula.x_names


@pytest.mark.parametrize(
    ("method", "model"),
    [
        ("sir", "linear"),
        ("cume", "linear"),
        ("save", "quadratic"),
        ("phd", "quadratic"),
        ("directional_regression", "quadratic"),
        ("directional_regression", "linear"),
    ],
)
def test_recovers_single_index(method, model):
    frame, truth = _simulate(model)
    fit = getattr(sdr, method)("y ~ .", frame, d=1)
    # n = 600 with low noise: estimation error of the direction is O(n^-1/2) ~ 0.05-0.15;
    # 0.3 in projection distance separates recovery from a wrong direction (~1.4).
    assert sdr.projection_distance(fit.directions, truth) < 0.3


def test_sir_misses_symmetric_dependence():
    frame, truth = _simulate("quadratic", n=2000)
    fit = sdr.sir("y ~ .", frame, d=1)
    # symmetric link: SIR's first direction is noise, far from the truth (distance near sqrt(2))
    assert sdr.projection_distance(fit.directions, truth) > 0.8


def test_directions_are_unit_with_canonical_sign(ais):
    fit = sdr.save("lbm ~ log(wt) + log(ht) + log(ssf) + log(hc)", ais)
    B = fit.all_directions.to_numpy()
    np.testing.assert_allclose(np.linalg.norm(B, axis=0), 1.0, rtol=1e-12)
    idx = np.argmax(np.abs(B), axis=0)
    assert np.all(B[idx, np.arange(B.shape[1])] > 0)


def test_contract_members(ais):
    fit = sdr.sir("lbm ~ log(wt) + log(ht) + log(ssf)", ais, d=2)
    assert fit.d == 2 and fit.n == 202 and fit.p == 3 and fit.method == "sir"
    assert list(fit.directions.columns) == ["Dir1", "Dir2"]
    assert list(fit.directions.index) == ["log(wt)", "log(ht)", "log(ssf)"]
    assert fit.eigenvalues.index[0] == "Dir1"
    reduced = fit.transform()
    assert reduced.shape == (202, 2)
    np.testing.assert_allclose(reduced.mean(), 0, atol=1e-10)
    assert fit.options["nslices"] is None and fit.slice_sizes.sum() == 202


def test_pickle_round_trip(ais):
    fit = sdr.save("lbm ~ log(wt) + log(ht) + log(ssf) + sex", ais, nslices=6)
    clone = pickle.loads(pickle.dumps(fit))
    assert str(clone) == str(fit)
    pd.testing.assert_frame_equal(clone.transform(ais.iloc[:5]), fit.transform(ais.iloc[:5]))
    pd.testing.assert_frame_equal(clone.test_dimension().table, fit.test_dimension().table)


def test_summary_renders_html_and_latex(ais):
    fit = sdr.sir("lbm ~ log(wt) + log(ht) + log(ssf)", ais)
    summary = fit.summary()
    assert "<table" in summary._repr_html_()
    assert "\\begin{tabular}" in summary.as_latex()
    assert "Large-sample Marginal Dimension Tests" in str(summary)


def test_multivariate_response_nested_slices(ais):
    fit = sdr.sir("lbm + bmi ~ log(wt) + log(ht) + log(ssf) + log(hc)", ais, nslices=9)
    assert fit.slice_sizes.sum() == 202 and len(fit.slice_sizes) <= 9
    assert "R^2(OLS for bmi|dr)" in str(fit)


def test_phd_y_and_residual_versions_differ(ais):
    f = "lbm ~ log(wt) + log(ht) + log(ssf)"
    res, y = sdr.phd(f, ais), sdr.phd(f, ais, residuals=False)
    assert "phdres" in str(res) and "phdy" in str(y)
    assert not np.allclose(res.eigenvalues, y.eigenvalues)
    # eigenvalues keep their sign, ordered by decreasing magnitude
    ev = res.eigenvalues.to_numpy()
    assert np.all(np.diff(np.abs(ev)) <= 1e-15)


def test_weights_equal_duplicated_rows():
    frame, _ = _simulate("quadratic", n=80, seed=3)
    X, y = frame.drop(columns="y").to_numpy(), frame[["y"]].to_numpy()
    counts = np.random.default_rng(4).integers(0, 3, size=80)
    counts[0] = 1
    for cls in CLASSES.values():
        est = cls()
        if cls in (sdr.SIR, sdr.SAVE, sdr.DirectionalRegression):
            continue  # slicing a duplicated sample changes the slices; compared below
        weighted = est._fit(X, y, weights=counts.astype(float))
        dup = est._fit(np.repeat(X, counts, axis=0), np.repeat(y, counts, axis=0))
        np.testing.assert_allclose(weighted.eigenvalues, dup.eigenvalues, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: sdr.sir("y ~ .", d.iloc[:5]), "more observations than predictors"),
        (
            lambda d: sdr.sir("y ~ .", d, nslices=1),
            "'nslices' parameter of SIR must be an int >= 2",
        ),
        (lambda d: sdr.sir("y ~ .", d.iloc[:20], nslices=15), "at most n/2 = 10"),
        (lambda d: sdr.sir("y ~ .", d.assign(x3=1.0)), "Predictor 'x3' is constant"),
        (lambda d: sdr.sir("y ~ .", d.assign(x3=d.x1 + d.x2)), "collinear"),
        (lambda d: sdr.sir("y ~ .", d.assign(y=1.0)), "single value"),
        (
            lambda d: sdr.phd("g ~ x1 + x2", d.assign(g=np.where(d.x1 > 0, "a", "b"))),
            "needs a numeric response",
        ),
        (lambda d: sdr.sir("y ~ .", d, d=9), "at most p = 5"),
        (lambda d: sdr.SIR(bogus=3), "unknown option"),
        (
            lambda d: sdr.sir("y ~ .", d, slice_function="equal"),
            "'slice_function' parameter of SIR",
        ),
    ],
)
def test_bad_input_is_clear(call, message):
    frame, _ = _simulate("linear", n=100)
    with pytest.raises((ValueError, TypeError), match=message):
        call(frame)


@pytest.mark.parametrize("ties", [False, True])
def test_cume_kernel_is_its_definition(ties):
    # M = (1/n) Σ_i m(y_i) m(y_i)ᵀ, m(t) = (1/n) Σ_j z_j 1{y_j <= t}, written out with the
    # n x n indicator; n = 2100 spans more than one block of the sorted pass and leaves rows
    # over after the last full run of the running sums. Rounding y to one decimal makes many
    # ties, which the indicator counts as R's definition does (every tied row at once).
    rng = np.random.default_rng(4)
    n, p = 2100, 4
    X = rng.standard_normal((n, p)) + 2.0
    y = X[:, 0] - X[:, 1] + 0.5 * rng.standard_normal(n)
    if ties:
        y = np.round(y, 1)
    fit = sdr.CUME(d=2).fit(X, y)  # d given: no permutation test
    Xc = X - X.mean(axis=0)
    evals, evecs = np.linalg.eigh(Xc.T @ Xc / n)
    Z = Xc @ evecs @ np.diag(evals**-0.5) @ evecs.T
    m = (y[None, :] <= y[:, None]).astype(float) @ Z / n
    direct = np.sort(np.linalg.eigvalsh(m.T @ m / n))[::-1]
    np.testing.assert_allclose(fit.eigenvalues, direct, rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize(("nslices", "offset"), [(10, 0.0), (10, 1e4), (30, 0.0)])
def test_save_kernel_over_many_blocks_is_its_definition(nslices, offset):
    # M = Σ_s f_s (I − V_s)², V_s the within-slice covariance of z (divisor n_s), written
    # out per slice; n = 9000 spans several blocks of the per-slice pass. 10 slices take the
    # blockwise gathers, 30 the per-slice sweeps; an offset of 1e4 sd in one column sends
    # the sums through the centred-first path.
    from sdrstats.stats.slicing import make_slices

    rng = np.random.default_rng(8)
    n, p = 9000, 4
    X = rng.standard_normal((n, p))
    y = X[:, 0] ** 2 + X[:, 1] + 0.3 * rng.standard_normal(n)
    X[:, 3] += offset
    fit = sdr.SAVE(nslices=nslices, d=2).fit(X, y)
    Xc = X - X.mean(axis=0)
    evals, evecs = np.linalg.eigh(Xc.T @ Xc / n)
    Z = Xc @ evecs @ np.diag(evals**-0.5) @ evecs.T
    labels = make_slices(y, nslices).labels
    M = np.zeros((p, p))
    for s in np.unique(labels):
        block = Z[labels == s]
        V = np.cov(block, rowvar=False, ddof=0)
        M += len(block) / n * (np.eye(p) - V) @ (np.eye(p) - V)
    direct = np.sort(np.linalg.eigvalsh(M))[::-1]
    np.testing.assert_allclose(fit.eigenvalues, direct, rtol=1e-9, atol=1e-13)
