"""One BLAS thread against two on the loops of small dense problems.

The workloads of ``bench_sdspcaan.py`` (the SDSPCAAN solver at n = 2000, p = 256, k = 50, and
a fit at n = 400 as in the tuning loops), ``bench_mave.py`` (csMAVE on R's help-page model,
d given at n = 5000 and with the CV at n = 1000) and ``bench_bootstrap.py`` (SIR's
``bootstrap(B=1000)`` at n = 1e4, p = 20), each run under ``threadpool_limits(1)`` and
``threadpool_limits(2)`` in turn, in one process, for several rounds. The figure to read is the
ratio of two threads' time to one's (the median of the rounds' ratios): the package limits its
loops of small problems (:func:`sdrstats.base.parallel.blas_threads_for`), so it should be
near 1 and never well above. For SDSPCAAN the solver is also run once without that limit, as
before it had one.

Run ``PYTHONPATH=. python benchmarks/bench_threads.py [--rounds 3] [--out benchmarks/bench_threads.md]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sdspcaan import simulate  # noqa: E402

import sdrstats as sdr  # noqa: E402
from sdrstats.sdspcaan.family import zscore  # noqa: E402
from sdrstats.sdspcaan.solver import SolverConfig, _solve, one_hot, solve  # noqa: E402
from sdrstats.simulate import mave_classic  # noqa: E402


def seconds(fn: Callable[[], object], threads: int) -> float:
    """Wall seconds of one call of ``fn`` with at most ``threads`` BLAS threads."""
    with threadpool_limits(threads, user_api="blas"):
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start


def workloads() -> list[tuple[str, Callable[[], object]]]:
    """The benchmarks' workloads, each a call to time (data made once, outside the timing)."""
    X, y = simulate()
    Xs, _, _ = zscore(X)
    Y = one_hot(y)
    config = SolverConfig(k=50)
    X4, codes = simulate(n=400, p=256, seed=1)
    y4 = codes.astype(str)
    mave5, _ = mave_classic(5000, random_state=1)
    mave1, _ = mave_classic(1000, random_state=1)
    rng = np.random.default_rng(0)
    Xb = rng.normal(size=(10_000, 20))
    yb = Xb[:, 0] + Xb[:, 1] + 0.5 * rng.normal(size=10_000)
    fit = sdr.SIR(d=2).fit(Xb, yb)
    return [
        ("SDSPCAAN solver, n = 2000, p = 256, k = 50", lambda: solve(Xs, Y, config)),
        ("SDSPCAAN fit, n = 400, p = 256, d = 20", lambda: sdr.SDSPCAAN(d=20).fit(X4, y4)),
        (
            "csMAVE, d = 1 given, n = 5000, p = 5",
            lambda: sdr.MAVE(variant="csmave", d=1).fit(mave5.drop(columns="y"), mave5["y"]),
        ),
        (
            "csMAVE with the CV of d, n = 1000, p = 5",
            lambda: sdr.MAVE(variant="csmave").fit(mave1.drop(columns="y"), mave1["y"]),
        ),
        (
            "SIR bootstrap, B = 1000, n = 1e4, p = 20",
            lambda: fit.bootstrap(B=1000, random_state=0, progress=False),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore", sdr.SDRWarning)
    load_start = os.getloadavg()[0]
    rows = []
    for label, fn in workloads():
        fn()  # warm-up: imports, caches
        one, two = [], []
        for _ in range(args.rounds):
            one.append(seconds(fn, 1))
            two.append(seconds(fn, 2))
        ratio = float(np.median(np.array(two) / np.array(one)))
        rows.append(
            f"| {label} | {np.median(one):.3f} | {np.median(two):.3f} | {ratio:.2f} "
            f"| {min(two) / max(one):.2f}-{max(two) / min(one):.2f} |"
        )
    # the solver as it ran before it limited its threads
    X, y = simulate()
    Xs, _, _ = zscore(X)
    Y = one_hot(y)
    config = SolverConfig(k=50)
    bare_one = seconds(lambda: _solve(Xs, Y, config), 1)
    bare_two = seconds(lambda: _solve(Xs, Y, config), 2)
    lines = [
        "# One BLAS thread against two (bench_threads.py)",
        "",
        f"`python benchmarks/bench_threads.py --rounds {args.rounds}` on {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs, load average {load_start:.1f} at the "
        f"start and {os.getloadavg()[0]:.1f} at the end; numpy {np.__version__}. Wall seconds, "
        f"medians of {args.rounds} rounds, one thread and two in turn in one process.",
        "",
        "| workload | 1 thread s | 2 threads s | 2 / 1 (median of rounds) | 2 / 1 range |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "Without the package's limit (the solver's body, `_solve`, one run each): SDSPCAAN at "
        f"n = 2000 took {bare_one:.2f} s on one thread and {bare_two:.2f} s on two "
        f"({bare_two / bare_one:.1f}x).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
