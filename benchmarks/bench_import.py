"""Import time: ``import sdrstats`` against ``import numpy, pandas, scipy``.

Each command runs in a fresh interpreter, the two in turn (A B A B ...) after one warm-up of
each, so that a drift of the machine's speed falls on both; the figure to read is the median of
the pairs' ratios of CPU time (user + system, the children's ``getrusage``), less disturbed by
other jobs than wall time. Besides the bare import: the first use of one family
(``sdrstats.sir``, which imports the moment methods) and of every exported name. Goal: the bare
import within 1.5x the three libraries' import.

Run ``python benchmarks/bench_import.py [--runs 15] [--out benchmarks/bench_import.md]``; this
tree is put first on ``PYTHONPATH``, so it times this checkout, not an installed copy.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BASE = "import numpy, pandas, scipy"
COMMANDS = {
    "`import sdrstats`": "import sdrstats",
    "`import sdrstats; sdrstats.sir` (first use of the moment methods)": (
        "import sdrstats; sdrstats.sir"
    ),
    "every name of `sdrstats.__all__` resolved": (
        "import sdrstats\nfor n in sdrstats.__all__: getattr(sdrstats, n)"
    ),
}


def run(code: str, env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one fresh interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        check=True,
        cwd=env["PYTHONPATH"].split(os.pathsep)[0],
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out", default=None)
    parser.add_argument("--tree", default=str(ROOT), help="the checkout to time (default: this)")
    args = parser.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [args.tree, env.get("PYTHONPATH")]))
    load_start = os.getloadavg()[0]
    rows = []
    for label, code in COMMANDS.items():
        run(code, env)
        run(BASE, env)
        a, b = [], []
        for _ in range(args.runs):
            a.append(run(code, env))
            b.append(run(BASE, env))
        a_cpu, a_wall = np.array(a).T
        b_cpu, b_wall = np.array(b).T
        rows.append(
            f"| {label} | {np.median(a_cpu):.3f} | {np.median(b_cpu):.3f} "
            f"| **{np.median(a_cpu / b_cpu):.2f}** | {np.median(a_wall):.3f} "
            f"| {np.median(b_wall):.3f} | {np.median(a_wall / b_wall):.2f} |"
        )
    lines = [
        "# Import time (bench_import.py)",
        "",
        f"`python benchmarks/bench_import.py --runs {args.runs}"
        + ("" if Path(args.tree).resolve() == ROOT else f" --tree {args.tree}")
        + f"` on {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs, load average {load_start:.1f} at the "
        f"start and {os.getloadavg()[0]:.1f} at the end; Python {platform.python_version()}. "
        f"Fresh interpreters, {args.runs} pairs each, in turn with `{BASE}`; medians.",
        "",
        "| command | CPU s | base CPU s | CPU ratio | wall s | base wall s | wall ratio |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
