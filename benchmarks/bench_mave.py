"""Speed of the MAVE family (issue #11, item 4).

Run ``python benchmarks/bench_mave.py [--quick]``; it prints a markdown section (appended to
``benchmarks/RESULTS.md`` and committed as ``benchmarks/bench_mave.md``).

* The R comparison: csMAVE with every default (``d=None``, so all dimensions 1..max_dim and
  the CV table) on the classic example, ``n = 400``, ``p = 5`` (R ``MAVE`` 1.3.11 takes about
  2.5 s here, issue #11; goal <= 1 s).
* Scaling: csMAVE, csOPG, meanMAVE and meanOPG at ``d = 2`` (``max_dim = 2``: the solutions of
  dimension 1 and 2, CV included) for ``n`` in {400, 2000, 10000}. The local fits are batched
  (a block of centres per matrix product and one batched solve), so the cost is
  ``O(n² p m)`` flops per refinement iteration in ``O(n)`` memory per block.

Times are the best of a few repeats with one BLAS thread. The machine is shared with other
jobs (2 cores, ~8 users), so absolute times are noisy upper bounds.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

import sdrstats as sdr
from sdrstats.simulate import mave_classic


def best_time(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def run(quick: bool) -> str:
    lines = ["## MAVE family (bench_mave.py)", ""]
    data, basis = mave_classic(400, random_state=0)
    X, y = data.drop(columns="y").to_numpy(), data["y"].to_numpy()
    seconds, fit = best_time(lambda: sdr.MAVE(method="csmave").fit(X, y), 1 if quick else 3)
    error = sdr.projection_distance(fit.directions_for(2), basis)
    its = fit.extras["iterations"]
    lines += [
        f"Python {platform.python_version()}, numpy {np.__version__}, one BLAS thread; shared "
        "machine, so times are noisy upper bounds.",
        "",
        "**R comparison** (classic example, n = 400, p = 5, csMAVE, all defaults: dimensions "
        f"1..{fit.max_dim}, CV table): **{seconds:.2f} s** (R MAVE 1.3.11: about 2.5 s; goal "
        f"<= 1 s). Chosen d = {fit.d}; distance of the 2-D solution to span(b1, b2) = "
        f"{error:.3f}; refinement iterations per dimension {its}.",
        "",
        "**Scaling** (d = 2, max_dim = 2: both solutions and the CV table):",
        "",
        "| n | csMAVE s | csOPG s | meanMAVE s | meanOPG s | csMAVE distance |",
        "|---|---|---|---|---|---|",
    ]
    sizes = [400, 2000] if quick else [400, 2000, 10000]
    for n in sizes:
        data, basis = mave_classic(n, random_state=1)
        X, y = data.drop(columns="y").to_numpy(), data["y"].to_numpy()
        row, distance = [], np.nan
        for method in ("csmave", "csopg", "meanmave", "meanopg"):
            est = sdr.MAVE(method=method, d=2, max_dim=2)
            repeats = 1 if (quick or n > 2000) else 2
            seconds, fit = best_time(lambda est=est, X=X, y=y: est.fit(X, y), repeats)
            row.append(f"{seconds:.2f}")
            if method == "csmave":
                distance = sdr.projection_distance(fit.directions, basis)
        lines.append(f"| {n} | " + " | ".join(row) + f" | {distance:.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        print(run(args.quick))


if __name__ == "__main__":
    main()
