"""Speed of the bootstrap: ``bootstrap(B=1000)`` of SIR at n = 1e4, p = 20.

Target: at most 10x the time of one fit. Prints a markdown table:

    python benchmarks/bench_bootstrap.py [--out benchmarks/bench_bootstrap.md]

Times are medians of repeated runs in one process; the machine is shared with other jobs,
so absolute numbers are noisy (the ratios less so).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
import pandas as pd

import sdrstats as sdr
from sdrstats.base.parallel import limit_blas_threads, spawn_seeds
from sdrstats.inference._replicates import _MomentPlan, multinomial_counts

N, P, B = 10_000, 20, 1000


CPU: dict[str, float] = {}


def median_time(fn, repeats: int) -> float:
    """Median wall time; the median CPU time of the process is kept in CPU[fn's label]."""
    times, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    median_time.last_cpu = float(np.median(cpu))
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, P))
    y = X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=N)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(P)]).assign(y=y)
    fit = sdr.SIR(d=2).fit(X, y)

    rows = []
    t_fit = median_time(lambda: sdr.SIR(d=2).fit(X, y), 9)
    c_fit = median_time.last_cpu
    rows.append(("one fit, arrays: `SIR(d=2).fit(X, y)`", t_fit, c_fit))
    with limit_blas_threads(1):
        t_fit1 = median_time(lambda: sdr.SIR(d=2).fit(X, y), 9)
    c_fit1 = median_time.last_cpu
    rows.append(("one fit, arrays, one BLAS thread", t_fit1, c_fit1))
    t_formula = median_time(lambda: sdr.sir("y ~ .", frame, d=2), 5)
    rows.append(
        ("one fit, formula: `sdr.sir('y ~ .', frame, d=2)`", t_formula, median_time.last_cpu)
    )
    t_boot = median_time(lambda: fit.bootstrap(B=B, random_state=0, progress=False), 3)
    c_boot = median_time.last_cpu
    rows.append((f"`fit.bootstrap(B={B})` (weighted slice moments)", t_boot, c_boot))

    # Where the bootstrap's time goes (one BLAS thread, as inside bootstrap()).
    seeds = spawn_seeds(0, B)
    with limit_blas_threads(1):
        t_plan = median_time(lambda: _MomentPlan(fit), 3)
        c_plan = median_time.last_cpu
        plan = _MomentPlan(fit)
        t_counts = median_time(lambda: [multinomial_counts(s, N) for s in seeds], 3)
        c_counts = median_time.last_cpu
        counts = np.stack([multinomial_counts(s, N) for s in seeds[:50]])[:, plan.order]

        def products():
            for _ in range(B // 50):
                for s in range(plan.slices.nslices):
                    lo, hi = plan.bounds[s], plan.bounds[s + 1]
                    counts[:, lo:hi] @ plan.features[lo:hi]

        t_gemm = median_time(products, 3)
        c_gemm = median_time.last_cpu
        refit_weights = [multinomial_counts(s, N).astype(float) for s in seeds[:20]]
        t_refit = median_time(
            lambda: [fit.refit(X, fit.spec.Y, weights=w) for w in refit_weights], 1
        ) * (B / 20)
        c_refit = median_time.last_cpu * (B / 20)
    rows.append(("  of which: one pass, features [1, x, vech(xxᵀ)] by slice", t_plan, c_plan))
    rows.append((f"  of which: {B} multinomial count vectors", t_counts, c_counts))
    rows.append((f"  of which: count × feature products ({B} × {N} × 231)", t_gemm, c_gemm))
    rows.append(
        (
            "  of which: p×p work (whitening, kernel, eigen), by difference",
            max(0.0, t_boot - t_plan - t_counts - t_gemm),
            max(0.0, c_boot - c_plan - c_counts - c_gemm),
        )
    )
    rows.append((f"naive: {B} weighted refits (extrapolated from 20)", t_refit, c_refit))

    ratio = t_boot / t_fit
    ratio1 = t_boot / t_fit1
    lines = [
        "# Bootstrap speed: SIR, n = 10 000, p = 20, B = 1000",
        "",
        f"`python benchmarks/bench_bootstrap.py` on {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other engineers' jobs (load average "
        f"{os.getloadavg()[0]:.1f}): timings are noisy; medians of repeated runs.",
        "",
        "| step | wall seconds | CPU seconds |",
        "|---|---|---|",
    ]
    lines += [f"| {label} | {wall:.4f} | {cpu:.4f} |" for label, wall, cpu in rows]
    verdict = "reached" if ratio <= 10 else "NOT reached"
    lines += [
        "",
        f"**bootstrap / one fit = {ratio:.1f}x** in wall time (array fit, default BLAS "
        f"threads), **{c_boot / c_fit:.1f}x in CPU time** (less sensitive to the load); "
        f"{ratio1:.1f}x against a one-thread fit; {t_boot / t_formula:.1f}x against a "
        f"formula fit. Target ≤ 10x: **{verdict}**. Naive refits would take "
        f"{t_refit / t_boot:.1f}x longer than the weighted-moment path.",
        "",
        "Why: the exact multinomial bootstrap must form, for every replicate, the weighted "
        "cross-product Σ c_i x_i x_iᵀ (the whitening changes with the weights), so its "
        f"floor is B·n·(p+1)(p+2)/2 ≈ {B * N * (P + 1) * (P + 2) / 2:.1e} multiply-adds plus "
        f"B·n = {B * N:.0e} random draws, against n·p² ≈ {N * P * P:.0e} multiply-adds and a "
        "sort for one fit. Measured here, the count × feature products alone take "
        f"{c_gemm / c_fit:.1f}x the CPU time of one (default-threaded) fit and the count "
        f"draws {c_counts / c_fit:.1f}x, so ≤ 10x cannot be met by an exact bootstrap at "
        "this n and p on this machine; what remains per replicate (p×p whitening, the "
        "method's kernel, one stacked eigen-decomposition, distances) is small. Keeping the "
        "full-sample whitening fixed would drop the p² features (about 10x fewer flops) but "
        "would ignore the variability of Σ̂, so the package does not do it.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
