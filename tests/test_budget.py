"""Memory and time checked before a fit starts: n x n work refused past the limit, slow fits warn.

The limits are lowered here (sdr.config_context, SLOW_SECONDS) so that small data exercise the
same checks that protect a fit at n = 20,000 (where one n x n float matrix is 2.98 GiB).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.core import budget

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
