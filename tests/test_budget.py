"""Memory and time checked before a fit starts: n x n work refused past the limit, slow fits warn.

The limits are lowered here (sdr.config_context, SLOW_SECONDS) so that small data exercise the
same checks that protect a fit at n = 20,000 (where one n x n float matrix is 2.98 GiB).
"""

from __future__ import annotations

import re
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.base import budget

rng = np.random.default_rng(3)
N = 200
DATA = pd.DataFrame(rng.standard_normal((N, 4)), columns=["x1", "x2", "x3", "x4"])
DATA["y"] = DATA.x1 + 0.3 * rng.standard_normal(N)
DATA["g"] = np.where(DATA.x1 > 0.4, "a", np.where(DATA.x1 > -0.4, "b", "c"))

N_BY_N = [
    ("sdspcaan", lambda: sdr.sdspcaan("g ~ x1 + x2 + x3 + x4", DATA, d=2), "n x n distance"),
    ("pcan", lambda: sdr.pcan("g ~ x1 + x2 + x3 + x4", DATA, d=2), "n x n distance"),
    (
        "kspca",
        lambda: sdr.kspca("g ~ x1 + x2 + x3 + x4", DATA, d=2, approximation="exact"),
        "approximation='nystroem'",
    ),
    (
        "kdr",
        lambda: sdr.kdr("y ~ x1 + x2 + x3 + x4", DATA, d=1, approximation="exact"),
        "approximation='fourier'",
    ),
    ("eps_kde", lambda: sdr.eps_kde("y ~ x1 + x2 + x3 + x4", DATA), "use lscde"),
]


@pytest.mark.parametrize(("method", "call", "remedy"), N_BY_N, ids=[c[0] for c in N_BY_N])
def test_n_by_n_work_is_refused_past_the_limit_with_estimate_and_remedy(method, call, remedy):
    # 200 x 200 floats are 0.3 MiB; a 64 KiB limit refuses each before it allocates
    with sdr.config_context(max_memory="64KiB"):
        with pytest.raises(
            MemoryError, match=rf"{method} needs about [0-9.]+ MiB for .* at n = 200"
        ) as info:
            call()
    assert remedy in str(info.value) and "sdr.set_config(max_memory=...)" in str(info.value)
    call()  # under the default limit the same fit runs


def test_estimates_match_one_float_matrix_at_n_20000():
    # the case: one 20,000 x 20,000 float64 matrix is 2.98 GiB
    assert budget.size_text(8.0 * 20_000**2) == "3.0 GiB"


@pytest.mark.parametrize(
    ("value", "expected"), [("4GiB", 4 * 2**30), ("500MB", 500 * 10**6), (2048, 2048), (None, None)]
)
def test_max_memory_takes_sizes(value, expected):
    with sdr.config_context(max_memory=value):
        limit = budget.max_memory()
    assert limit == (expected if expected is not None else budget.max_memory())


@pytest.mark.parametrize("bad", ["lots", -1, True])
def test_a_bad_max_memory_is_named(bad):
    with pytest.raises((TypeError, ValueError), match="max_memory"):
        sdr.set_config(max_memory=bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda: sdr.kdr("y ~ x1 + x2", DATA, d=1, approximation="fourier", n_anneal=1, max_iter=2),
        lambda: sdr.lsce("y ~ x1 + x2", DATA, d=1, n_restarts=1, max_iter=2, random_state=0),
    ],
    ids=["kdr", "lsce"],
)
def test_a_fit_predicted_to_be_slow_warns_with_the_estimate(call, monkeypatch):
    monkeypatch.setattr(budget, "SLOW_SECONDS", 1e-6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    slow = [w for w in caught if w.category is sdr.SlowFitWarning]
    assert slow and "(predicted)" in str(slow[0].message) and "at n = 200" in str(slow[0].message)


# -- every count, size and iteration option is bounded by the limits --------------------------
SMALL = DATA[["x1", "x2", "x3", "x4", "y", "g"]].iloc[:60]
F = "y ~ x1 + x2 + x3 + x4"
BIG = 10**9


def _sir():
    return sdr.sir(F, SMALL, nslices=5)


def _stream(**options):
    X, y = SMALL[["x1", "x2", "x3", "x4"]].to_numpy(), SMALL.y.to_numpy()
    return sdr.OnlineSIR(**{"init_size": 40, "nslices": 5, **options}).partial_fit(X, y)


# (id, call, exception, regex naming the option and its value)
COUNTS = [
    ("lsce-n_restarts", lambda: sdr.lsce(F, SMALL, d=1, n_restarts=BIG), MemoryError,
     r"lsce needs about .* for n_restarts = 1,000,000,000 restarts"),
    ("lsmi-n_restarts", lambda: sdr.lsmi(F, SMALL, d=1, n_restarts=BIG), MemoryError,
     r"lsmi needs about .* for n_restarts = 1,000,000,000 restarts"),
    ("kdr-n_restarts", lambda: sdr.kdr(F, SMALL, d=1, n_restarts=BIG), MemoryError,
     r"kdr needs about .* for n_restarts = 1,000,000,000 restarts"),
    ("lsce-max_iter", lambda: sdr.lsce(F, SMALL, d=1, max_iter=BIG), ValueError,
     r"lsce would take about .* for n_restarts = 5 × max_iter = 1,000,000,000 gradient steps"),
    ("mave-max_iter", lambda: sdr.mave(F, SMALL, d=1, max_iter=BIG), ValueError,
     r"mave would take about .* for max_iter = 1,000,000,000 iterations at each of the 4 "),
    ("mave-y_points", lambda: sdr.mave(F, SMALL, d=1, y_points=BIG), MemoryError,
     r"mave needs about .* for y_points = 1,000,000,000 response quantiles at n = 60"),
    ("ire-steps", lambda: sdr.ire(F, SMALL, steps=BIG), ValueError,
     r"ire would take about .* for steps = 1,000,000,000 re-estimation steps"),
    ("ire-max_iter", lambda: sdr.ire(F, SMALL, max_iter=BIG), ValueError,
     r"ire would take about .* for max_iter = 1,000,000,000 sweeps"),
    ("ire-steps-chunked", lambda: sdr.ire(F, sdr.chunks_from([SMALL[:30], SMALL[30:]]),
                                          steps=BIG), ValueError,
     r"ire would take about .* for steps = 1,000,000,000 re-estimation steps"),
    ("kdr-n_anneal", lambda: sdr.kdr(F, SMALL, d=1, n_anneal=BIG), MemoryError,
     r"kdr needs about .* for n_anneal = 1,000,000,000 annealing widths"),
    ("kdr-max_iter", lambda: sdr.kdr(F, SMALL, d=1, max_iter=BIG), ValueError,
     r"kdr would take about .* for n_restarts = 1 × n_anneal = 5 × max_iter = 1,000,000,000"),
    ("kdr-n_landmarks", lambda: sdr.kdr(F, SMALL, d=1, approximation="fourier",
                                        n_landmarks=BIG), MemoryError,
     r"kdr needs about .* for n_landmarks = 1,000,000,000 Fourier features at n = 60"),
    ("sdspcaan-max_iter", lambda: sdr.sdspcaan("g ~ x1 + x2 + x3 + x4", SMALL, d=1,
                                               max_iter=BIG), ValueError,
     r"sdspcaan would take about .* for max_iter = 1,000,000,000 iterations"),
    ("lasso_sir-max_iter", lambda: sdr.lasso_sir(F, SMALL, nslices=5, max_iter=BIG), ValueError,
     r"lasso_sir would take about .* for max_iter = 1,000,000,000 sweeps"),
    ("bootstrap-B", lambda: _sir().bootstrap(B=BIG), MemoryError,
     r"bootstrap sir needs about .* for B = 1,000,000,000 replicates"),
    ("embedding-bootstrap-B", lambda: sdr.kspca(F, SMALL, d=1).bootstrap(B=BIG), MemoryError,
     r"bootstrap kspca needs about .* for B = 1,000,000,000 replicates"),
    ("permutation-n_permutations",
     lambda: _sir().test_dimension("permutation", n_permutations=BIG), MemoryError,
     r"permutation test sir needs about .* for n_permutations = 1,000,000,000"),
    ("ladle-B", lambda: _sir().test_dimension("ladle", B=BIG), MemoryError,
     r"ladle sir needs about .* for B = 1,000,000,000 replicates"),
    ("bootstrap-rule-B", lambda: _sir().test_dimension("bootstrap", B=BIG), MemoryError,
     r"needs about .* for B = 1,000,000,000 replicates"),
    ("chunked-poisson-bootstrap-B",
     lambda: sdr.sir(F, sdr.chunks_from([SMALL[:30], SMALL[30:]]), nslices=5).bootstrap(B=BIG),
     MemoryError, r"needs about .* for B = 1,000,000,000 replicates"),
    ("dr_weights-n_samples", lambda: sdr.dr_weights("~ x1 + x2", SMALL, n_samples=BIG),
     MemoryError, r"dr_weights needs about .* for n_samples = 1,000,000,000 draws"),
    ("classification-n_repeats",
     lambda: sdr.evaluate.classification("pca", SMALL, formula="g ~ x1 + x2 + x3 + x4",
                                         d_grid=[1], n_repeats=BIG, verbose=False),
     MemoryError, r"classification needs about .* for n_repeats = 1,000,000,000 random splits"),
    ("stream-init_size", lambda: _stream(init_size=BIG), MemoryError,
     r"online_sir needs about .* for init_size = 1,000,000,000 rows buffered at p = 4"),
    ("stream-trace_size", lambda: _stream(trace_size=BIG), MemoryError,
     r"online_sir needs about .* for trace_size = 1,000,000,000 snapshots"),
    ("stream-truncate_every", lambda: _stream(truncate_every=BIG), ValueError,
     r"'truncate_every' option of online_sir must be at most max\(init_size, block_size\)"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "exc", "problem"), [c[1:] for c in COUNTS],
                         ids=[c[0] for c in COUNTS])  # fmt: skip
def test_an_absurd_count_is_refused_at_once_naming_the_option(call, exc, problem):
    start = time.perf_counter()
    with pytest.raises(exc, match=problem) as info:
        call()
    assert time.perf_counter() - start < 1.0  # refused before any work
    message = str(info.value)
    assert "sdr.set_config(max_" in message or "gravity=0" in message
    assert re.search(r"lower \w+|use gravity", message), message


# Methods whose memory grows with n: the estimate at n = 200,000 against a fixed limit, so the
# test neither depends on this machine's memory nor allocates anything.
GROWS_WITH_N = [
    ("mave", lambda: sdr.MAVE()._check_budget(200_000, 4, False), "8GiB",
     r"mave needs about 1\d\.\d GiB for y_points = 1,515 response quantiles at n = 200,000"),
    ("kdr", lambda: sdr.KDR(d=1)._check_budget(200_000, 4), "4GiB",
     r"kdr needs about 4\.\d GiB for n_landmarks = 300 Fourier features at n = 200,000"),
    ("lsce", lambda: sdr.LSCE(d=1, n_basis=200_000)._check_budget(200_000, 4), "32GiB",
     r"lsce needs about .* TiB for n_basis = 200,000 basis functions at n = 200,000"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "limit", "problem"), [c[1:] for c in GROWS_WITH_N],
                         ids=[c[0] for c in GROWS_WITH_N])  # fmt: skip
def test_memory_that_grows_with_n_is_estimated_and_refused_before_allocating(call, limit, problem):
    with sdr.config_context(max_memory=limit):
        with pytest.raises(MemoryError, match=problem):
            call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: sdr.lsce(F, SMALL, d=1, n_basis=60, n_restarts=1, max_iter=2),
        lambda: sdr.kspca(F, SMALL, d=1, approximation="nystroem", n_landmarks=60),
        lambda: sdr.lscde(F, SMALL, n_basis=60),
    ],
    ids=["lsce-n_basis", "kspca-n_landmarks", "lscde-n_basis"],
)
def test_basis_and_landmark_sizes_are_refused_past_the_limit(call):
    with sdr.config_context(max_memory="64KiB"):
        with pytest.raises(MemoryError, match=r"for n_(basis|landmarks) = 60 .* at n = 60"):
            call()
    call()  # under the default limit the same fit runs


def test_a_loop_timed_past_the_limit_is_refused_after_its_first_task():
    # 200 replicates pass the floor of 0.1 ms each; the first task of refits, timed, does not
    fit = sdr.mave(F, SMALL, d=1, max_iter=2)
    with sdr.config_context(max_time=0.05):
        with pytest.raises(ValueError, match=r"bootstrap mave would take about .* for B = 200 "
                                             r"\(.* tasks of about .* s each, the first timed\)"):  # fmt: skip
            fit.bootstrap(B=200, progress=False)


@pytest.mark.parametrize(
    ("value", "expected"), [("6h", 21_600.0), ("30min", 1_800.0), (90, 90.0), ("2d", 172_800.0)]
)
def test_max_time_takes_durations(value, expected):
    with sdr.config_context(max_time=value):
        assert budget.max_time() == expected
    assert budget.max_time() == budget.DEFAULT_MAX_TIME


def test_set_config_keeps_the_limit_it_is_not_given():
    with sdr.config_context(max_memory="1GiB"):
        with sdr.config_context(max_time="1h"):
            assert budget.max_memory() == 2**30 and budget.max_time() == 3600.0


@pytest.mark.parametrize("bad", ["soon", -1, True, "3 weeks"])
def test_a_bad_max_time_is_named(bad):
    with pytest.raises((TypeError, ValueError), match="max_time"):
        sdr.set_config(max_time=bad)
