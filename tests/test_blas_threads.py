"""Loops of small dense problems run on one BLAS thread, chosen by the order of their matrices."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import sdrstats as sdr
from sdrstats.base.parallel import SMALL_ORDER, blas_threads_for, blas_threads_of
from sdrstats.sdspcaan import solver


def _blas_threads() -> set[int]:
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


needs_blas = pytest.mark.skipif(not _blas_threads(), reason="no BLAS threadpoolctl can see")


def test_the_rule():
    assert blas_threads_of(1) == 1
    assert blas_threads_of(SMALL_ORDER) == 1
    assert blas_threads_of(SMALL_ORDER + 1) is None
    assert blas_threads_of(500, small=100) is None


@needs_blas
def test_small_problems_get_one_thread_and_the_limit_is_lifted_after():
    with threadpool_limits(2, user_api="blas"):
        before = _blas_threads()
        with blas_threads_for(200):
            assert _blas_threads() == {1}
        assert _blas_threads() == before
        with blas_threads_for(SMALL_ORDER + 1):
            assert _blas_threads() == before


@needs_blas
def test_an_outer_limit_stays_in_force_for_large_problems():
    with threadpool_limits(1, user_api="blas"), blas_threads_for(10 * SMALL_ORDER):
        assert _blas_threads() == {1}


@needs_blas
def test_the_sdspcaan_solver_runs_on_one_thread(monkeypatch):
    seen = []
    body = solver._solve

    def spy(X, Y, config):
        seen.append(_blas_threads())
        return body(X, Y, config)

    monkeypatch.setattr(solver, "_solve", spy)
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c"], 20)
    X = rng.normal(size=(60, 6)) + (y == "a")[:, None]
    with threadpool_limits(2, user_api="blas"):
        sdr.SDSPCAAN(d=2).fit(X, y)
    assert seen == [{1}]


@needs_blas
def test_mave_fits_on_one_thread(monkeypatch):
    from sdrstats.mave.mave import MAVE

    seen = []
    body = MAVE._fit_arrays

    def spy(self, X, Y, weights):
        seen.append(_blas_threads())
        return body(self, X, Y, weights)

    monkeypatch.setattr(MAVE, "_fit_arrays", spy)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    with threadpool_limits(2, user_api="blas"):
        sdr.MAVE(variant="meanopg", d=1).fit(X, X[:, 0] + 0.1 * rng.normal(size=120))
    assert seen == [{1}]


@needs_blas
def test_bootstrap_replicates_run_on_one_thread(monkeypatch):
    from sdrstats.inference import _replicates

    seen = []
    body = _replicates._WeightedChunk.__call__

    def spy(self, seeds):
        seen.append(_blas_threads())
        return body(self, seeds)

    monkeypatch.setattr(_replicates._WeightedChunk, "__call__", spy)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 4))
    fit = sdr.SIR(d=1).fit(X, X[:, 0] + 0.1 * rng.normal(size=200))
    with threadpool_limits(2, user_api="blas"):
        fit.bootstrap(B=20, random_state=0, progress=False)
    assert seen and all(threads == {1} for threads in seen)
