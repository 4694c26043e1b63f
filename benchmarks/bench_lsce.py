"""Speed of LSCE and LSCDE (seed 000 data (a), n = 400).

Prints a markdown report: wall and CPU time of one default LSCE fit (d = 2; 5 restarts from
SIR, SAVE, pHd and 2 random starts), of the seed's setting (20 random restarts, kept by the
smallest SCE^), of a fit choosing d by its default rule (``d_rule="cv"``), and of LSCDE with its 9 x 9 (σ, λ) CV; then the
functions that dominate the default fit (cProfile, by own time).
Usage: python benchmarks/bench_lsce.py [--no-parallel] [--repeats K]
The machine is shared with other jobs: wall time is noisy, CPU time is the steadier number;
the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time
import warnings

import numpy as np

import sdrstats as sdr
from sdrstats.simulate import lsce_artificial

SEED_SETTING = {"n_restarts": 20, "warm_starts": False, "select_by": "criterion"}


def timed(fn, repeats: int = 1):
    """Median wall and CPU seconds of ``fn()`` over ``repeats`` runs, and its last result."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sdr.SDRWarning)
            out = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return out, float(np.median(walls)), float(np.median(cpus))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-parallel", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    data, _ = lsce_artificial("a", 400, random_state=0)
    load_before = os.getloadavg()[0]

    def lsce(**options):
        return lambda: sdr.lsce("y ~ .", data, progress=False, random_state=0, **options)

    fit, wall, cpu = timed(lsce(d=2), args.repeats)
    seed_fit, seed_wall, seed_cpu = timed(lsce(d=2, **SEED_SETTING))
    dfit, d_wall, d_cpu = timed(lsce())
    # LSCDE as published (one width, the 9 x 9 grid); the density layer's default model,
    # chosen among two, is timed in benchmarks/bench_density.py.
    dens, l_wall, l_cpu = timed(
        lambda: sdr.lscde("y ~ .", data, model="single", random_state=0), 10 * args.repeats
    )
    dens2, l2_wall, l2_cpu = timed(
        lambda: sdr.lscde("y ~ x1 + x2", data, model="single", random_state=0), 10 * args.repeats
    )
    lines = [
        "# LSCE and LSCDE speed: data (a), n = 400",
        "",
        "| fit | wall (s) | CPU of this process (s) | total iterations |",
        "|---|---|---|---|",
        f"| LSCE default, d = 2 (5 restarts: SIR, SAVE, pHd + 2 random; kept by CV) | "
        f"{wall:.2f} | {cpu:.2f} | {fit.restarts['n_iter'].sum()} |",
        f"| LSCE seed setting, d = 2 (20 random restarts, kept by SCE^) | {seed_wall:.2f} | "
        f"{seed_cpu:.2f} | {seed_fit.restarts['n_iter'].sum()} |",
        f"| LSCE default, d chosen by the nested CV search over 1..4 (chose d = {dfit.d}, "
        f"scored d = {', '.join(map(str, dfit.cv_table.index))}; iterations: the fit at "
        f"the chosen d) | {d_wall:.2f} | {d_cpu:.2f} | {dfit.restarts['n_iter'].sum()} |",
        f"| LSCDE `y ~ .` (p = 5), one width, 9 x 9 (σ, λ) 5-fold CV | {l_wall:.3f} | "
        f"{l_cpu:.3f} | - |",
        f"| LSCDE `y ~ x1 + x2`, one width, 9 x 9 (σ, λ) 5-fold CV | {l2_wall:.3f} | "
        f"{l2_cpu:.3f} | - |",
    ]
    if not args.no_parallel:
        _, wall2, cpu2 = timed(lsce(d=2, n_jobs=2))
        lines.append(
            f"| LSCE default, d = 2, n_jobs = 2 | {wall2:.2f} | {cpu2:.2f} (workers not "
            "counted) | - |"
        )
    profiler = cProfile.Profile()
    profiler.enable()
    lsce(d=2)()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:8]
    total = sum(v[2] for v in stats.stats.values())
    lines += [
        "",
        "Profile of the default LSCE fit (n_jobs = 1), own time:",
        "",
        "| function | calls | own s | share |",
        "|---|---|---|---|",
    ]
    for (file, line, name), (_calls, nc, tt, _cum, _) in rows:
        short = file.split("site-packages/")[-1].split("/sdrstats/")[-1]
        lines.append(f"| `{short}:{line}({name})` | {nc} | {tt:.3f} | {tt / total:.0%} |")
    lines += [
        "",
        f"Times are medians of {args.repeats} runs (LSCDE: {10 * args.repeats}). Default fit: "
        f"SCE^ = {fit.criterion:.4f}, sigma = {fit.sigma:.3g}, lambda = {fit.lambda_:.3g}; "
        f"seed setting: SCE^ = {seed_fit.criterion:.4f}. LSCDE: sigma = "
        f"{dens.tuning['sigma']:.3g}, lambda = {dens.tuning['lambda']:.3g}. Load average "
        f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after on {os.cpu_count()} "
        "cores (the machine is shared with other engineers' jobs).",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
