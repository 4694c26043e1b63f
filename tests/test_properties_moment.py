"""Property-based invariances of the moment methods (hypothesis, seeded, 200 examples each)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import sdrstats as sdr

SLICED = [sdr.SIR, sdr.SAVE, sdr.DirectionalRegression]
ALL = [sdr.SIR, sdr.SAVE, sdr.DirectionalRegression, sdr.PHD, sdr.CUME]
PROPERTY = settings(max_examples=200, derandomize=True, deadline=None)


@st.composite
def datasets(draw):
    n = draw(st.integers(40, 90))
    p = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 3, size=p) + rng.normal(size=p)
    beta = rng.normal(size=p)
    y = np.sin(X @ beta) + (X @ beta) ** 2 / 4 + 0.3 * rng.normal(size=n)
    return X, y, rng


def _well_conditioned(rng, p):
    q, _ = np.linalg.qr(rng.normal(size=(p, p)))
    return q @ np.diag(rng.uniform(0.3, 3, size=p))  # condition number at most 10


def _separated(values, k):
    """First k eigenvalues separated from the rest (so their span is well determined)."""
    values = np.abs(np.asarray(values))
    return values[k - 1] - values[k] > 0.05 * values[0]


@PROPERTY
@given(datasets(), st.sampled_from(ALL))
def test_affine_equivariance(data, cls):
    X, y, rng = data
    p = X.shape[1]
    A = _well_conditioned(rng, p)
    shift = rng.normal(size=p) * 5
    base = cls().fit(X, y)
    moved = cls().fit(X @ A + shift, y)
    # eigenvalues are affine invariant; 1e-8 allows for the different rounding of XA's moments
    np.testing.assert_allclose(moved.eigenvalues, base.eigenvalues, rtol=1e-7, atol=1e-9)
    B, B_moved = base.all_directions.to_numpy(), moved.all_directions.to_numpy()
    for k in range(1, p):
        if _separated(base.eigenvalues, k):
            # directions of XA + b map back through A: span(A B'_k) = span(B_k)
            assert sdr.projection_distance(A @ B_moved[:, :k], B[:, :k]) < 1e-6


@PROPERTY
@given(datasets(), st.sampled_from(ALL))
def test_row_order_invariance(data, cls):
    X, y, rng = data
    order = rng.permutation(len(y))
    a, b = cls().fit(X, y), cls().fit(X[order], y[order])
    # the same sums in another order: equal to rounding error
    np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, rtol=1e-9, atol=1e-12)
    for k in range(1, X.shape[1]):
        if _separated(a.eigenvalues, k):
            assert sdr.projection_distance(a.directions_for(k), b.directions_for(k)) < 1e-7


@PROPERTY
@given(datasets(), st.sampled_from(SLICED + [sdr.CUME]))
def test_monotone_transform_of_response(data, cls):
    X, y, _ = data
    a, b = cls().fit(X, y), cls().fit(X, np.exp(y / 2) + 3 * y)  # strictly increasing
    # the slices (and CUME's indicators) are unchanged, so the fit is identical
    np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.all_directions, b.all_directions, rtol=1e-10, atol=1e-12)


@PROPERTY
@given(datasets(), st.sampled_from(ALL))
def test_rescaling_columns_only_rescales_directions(data, cls):
    X, y, rng = data
    scale = rng.uniform(0.01, 100, size=X.shape[1])
    a, b = cls().fit(X, y), cls().fit(X * scale, y)
    np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, rtol=1e-7, atol=1e-9)
    Ba, Bb = a.all_directions.to_numpy(), b.all_directions.to_numpy()
    for j in range(X.shape[1] - 1):
        if _separated(a.eigenvalues, j + 1) and (j == 0 or _separated(a.eigenvalues, j)):
            back = Bb[:, j] * scale  # direction for X*scale, mapped to the original scale
            back /= np.linalg.norm(back)
            assert abs(back @ Ba[:, j]) > 1 - 1e-8
