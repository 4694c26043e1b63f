"""Speed of one LSCE fit: seed 000 data (a), n = 400, d = 2, 20 restarts, CV every 5 updates.

Prints a markdown report: wall and CPU time for n_jobs = 1 (and 2), and the functions that
dominate (cProfile, by own time). Usage: python benchmarks/bench_lsce.py [--no-parallel]
The machine is shared with other jobs: wall time is noisy, CPU time is the steadier number.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
import warnings

import sdrstats as sdr
from sdrstats.simulate import lsce_artificial


def timed(data, **options):
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        fit = sdr.lsce("y ~ .", data, d=2, n_restarts=20, progress=False, random_state=0, **options)
    return fit, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-parallel", action="store_true")
    args = parser.parse_args()
    data, _ = lsce_artificial("a", 400, random_state=0)
    lines = ["# LSCE speed: data (a), n = 400, d = 2, 20 restarts, CV every 5 updates", ""]
    fit, wall, cpu = timed(data)
    iters = fit.restarts["n_iter"].sum()
    lines += [
        "| n_jobs | wall (s) | CPU of this process (s) | total iterations |",
        "|---|---|---|---|",
        f"| 1 | {wall:.1f} | {cpu:.1f} | {iters} |",
    ]
    if not args.no_parallel:
        _, wall2, cpu2 = timed(data, n_jobs=2)
        lines.append(f"| 2 | {wall2:.1f} | {cpu2:.1f} (workers not counted) | {iters} |")
    profiler = cProfile.Profile()
    profiler.enable()
    timed(data)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:8]
    total = sum(v[2] for v in stats.stats.values())
    lines += [
        "",
        "Profile (n_jobs = 1), own time:",
        "",
        "| function | calls | own s | share |",
        "|---|---|---|---|",
    ]
    for (file, line, name), (_calls, nc, tt, _cum, _) in rows:
        short = file.split("site-packages/")[-1].split("/work/main/")[-1]
        lines.append(f"| `{short}:{line}({name})` | {nc} | {tt:.2f} | {tt / total:.0%} |")
    lines += [
        "",
        f"Final SCE^ = {fit.criterion:.4f}, sigma = {fit.sigma:.3g}, "
        f"lambda = {fit.lambda_:.3g}; machine shared with other engineers' jobs, so wall "
        "times are noisy.",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
