"""CPU-time budget of the moment methods: each fit and each of its passes over the rows,
as ratios to one ``X.T @ X``.

Run ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_moment_passes.py``
(``--rounds R``, default 5). At n = 1e5, p = 50 (the data of ``bench_moment.py``) it times in
``time.process_time`` (CPU time of this process: other jobs' share of the cores does not
stretch it, so the ratios hold on a loaded machine when BLAS runs one thread), as the
minimum over interleaved rounds:

* the floor, one ``X.T @ X``;
* SIR, SAVE, DR (10 slices), pHd (residuals, R's default) and CUME through ``Estimator.fit``;
* the passes they are made of, each alone on the same array: the fit's own copy of ``X``,
  the finiteness check (column sums of squares), the one-group moments (cross-product,
  column sums and the response's product, by blocks), the slice sums by a sparse indicator,
  the per-slice cross-products (SAVE, DR), pHd's signed cross-product with the residuals and
  CUME's cumulative cross-product of the rows sorted by the response.

A method's ratio is close to the sum of its passes' ratios; the difference is the p x p
algebra, slicing and the results object. The printout is a markdown section.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from collections.abc import Callable

import numpy as np
import scipy.sparse

import sdrstats as sdr
from sdrstats.design.checks import clearly_fine
from sdrstats.moment.cumulative import cumulative_cross
from sdrstats.stats.grouped import (
    _blockwise_group_crossprods,
    _indicator_product,
    _single_group_sums,
    signed_crossprod,
)

NSLICES = 10


def make_data(n: int, p: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The data of ``bench_moment.py``: normal columns with mean 1, ``y = x1 + x2³/4 + ε``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) + 1.0
    y = X[:, 0] + X[:, 1] ** 3 / 4 + rng.standard_normal(n)
    return X, y


def cpu_time(fn: Callable[[], object]) -> float:
    """CPU time of one call (all threads of this process)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def passes(X: np.ndarray, y: np.ndarray) -> dict[str, Callable[[], object]]:
    """Each pass of the moment methods over the rows, alone."""
    n, p = X.shape
    codes = np.minimum(np.argsort(np.argsort(y)) * NSLICES // n, NSLICES - 1)
    indicator = scipy.sparse.csc_matrix((np.ones(n), codes, np.arange(n + 1)), shape=(NSLICES, n))
    mean = X.mean(axis=0)
    e = y - y.mean()
    slope = np.linalg.lstsq(X - mean, e, rcond=None)[0]
    return {
        "copy of X (the fit's own)": X.copy,
        "finiteness check (column sums of squares)": lambda: clearly_fine(X),
        "one-group moments (X'X, sums, X'y by blocks)": lambda: _single_group_sums(X, None, e),
        "slice sums (sparse indicator)": lambda: _indicator_product(indicator, X),
        "per-slice cross-products (SAVE, DR)": lambda: _blockwise_group_crossprods(
            X, codes, NSLICES, None, None
        ),
        "pHd signed cross-product with residuals": lambda: signed_crossprod(
            X, mean, e.copy(), slope=slope
        ),
        "CUME cumulative cross-product (sort included)": lambda: cumulative_cross(X, y, mean),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n, p = 100_000, 50
    X, y = make_data(n, p)
    fits = {
        "SIR": lambda: sdr.SIR(nslices=NSLICES, d=2).fit(X, y),
        "SAVE": lambda: sdr.SAVE(nslices=NSLICES, d=2).fit(X, y),
        "DR": lambda: sdr.DirectionalRegression(nslices=NSLICES, d=2).fit(X, y),
        "pHd": lambda: sdr.PHD(d=2).fit(X, y),
        "CUME": lambda: sdr.CUME(d=2).fit(X, y),
    }
    stages = passes(X, y)
    calls = {"floor": lambda: X.T @ X, **fits, **stages}
    best = dict.fromkeys(calls, np.inf)
    load_before = os.getloadavg()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in calls.values():  # warm-up: imports, caches
            fn()
        for _ in range(args.rounds):
            for key, fn in calls.items():
                best[key] = min(best[key], cpu_time(fn))
    load_after = os.getloadavg()
    floor = best["floor"]
    threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
    print("## Moment methods: CPU time by pass (benchmarks/bench_moment_passes.py)\n")
    print(
        f"n = 1e5, p = 50, float64; Python {platform.python_version()}, numpy {np.__version__}, "
        f"BLAS threads {threads or 'default'}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        f"CPU time (`time.process_time`), minimum of {args.rounds} interleaved rounds; load "
        f"average {load_before[0]:.1f} before, {load_after[0]:.1f} after. Floor "
        f"{floor * 1e3:.1f} ms.\n"
    )
    print("| fit or pass | CPU ms | ratio to X.T@X |")
    print("|---|---|---|")
    for key in calls:
        print(f"| {key} | {best[key] * 1e3:.1f} | {best[key] / floor:.2f} |")
    print()


if __name__ == "__main__":
    main()
