"""SAVE's general (Bentler–Xie) p-values of a fit in memory come from the rows' fourth moments
accumulated in blocks of rows, as a fit on chunks has them, not from an ``n x p²`` matrix of
products (which took 8 GB at n = 2e5, p = 50 and ended a benchmark at n = 1e6 out of memory)."""

from __future__ import annotations

import tracemalloc

import numpy as np

import sdrstats as sdr
import sdrstats.moment.methods as methods


def _data(n: int, p: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    return X, X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.standard_normal(n)


def test_the_blocked_fourth_moments_give_the_row_by_row_p_values(monkeypatch):
    X, y = _data(400, 8)
    blocked = sdr.SAVE(nslices=6, d=2).fit(X, y).test_dimension("asymptotic").table
    monkeypatch.setattr(methods, "pair_moments_fit", lambda n, p: False)
    direct = sdr.SAVE(nslices=6, d=2).fit(X, y).test_dimension("asymptotic").table
    np.testing.assert_allclose(blocked.to_numpy(), direct.to_numpy(), rtol=1e-10)


def test_the_default_fit_of_many_rows_holds_no_matrix_of_row_products():
    n, p = 20_000, 30
    X, y = _data(n, p)
    tracemalloc.start()
    try:
        fit = sdr.SAVE(nslices=10).fit(X, y)  # d = None: its asymptotic test runs
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fit.d_rule == "asymptotic"
    # the products of every row would be n * p² * 8 bytes = 144 MB, twice (centred copy)
    assert peak < 100e6, f"peak {peak / 1e6:.0f} MB"
