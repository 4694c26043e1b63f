"""Speed and memory of the formula front, against the array fit, the floor and other software.

Run ``python benchmarks/bench_formula.py [--quick] [--no-r] [--out FILE]``; it writes a
markdown report (``benchmarks/bench_formula.md``). Everything is timed in this one process,
in interleaved rounds (each round times every contender once, back to back), and each ratio
compares the best round of each: the machine is shared, so ratios are steadier than times.

Goals (n = 1e5 and 1e6, p = 50, 10 slices):

* ``sdr.sir(formula, df)`` within 1.5x of ``sdr.SIR().fit(X, y)`` on the same predictors, for
  ``y ~ .`` (50 numeric columns), for 50 ``log()`` terms, and for 48 numeric columns plus two
  5-level factors (a pandas categorical and a column of strings; the array fit gets the 56
  coded columns);
* SIR within 2x, SAVE and pHd (``residuals=False``) within 3x of one ``X.T @ X`` on the
  array (n = 1e5);
* peak memory of the formula call (tracemalloc: allocations made during the call) at most
  2x the data frame's size;
* the same formula fits in R ``dr`` (``Rscript``, when installed; n = 1e5) and statsmodels'
  ``SlicedInverseReg`` on the arrays.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import threadpoolctl

import sdrstats as sdr

P = 50
H = 10


def make_frames(n: int, seed: int = 0) -> dict[str, tuple[str, pd.DataFrame, np.ndarray]]:
    """The three cases: name -> (formula, data frame, the array fit's predictor matrix)."""
    rng = np.random.default_rng(seed)
    X = np.abs(rng.standard_normal((n, P))) + 0.5
    y = X[:, 0] + X[:, 1] ** 3 / 4 + rng.standard_normal(n)
    names = [f"x{j + 1}" for j in range(P)]
    plain = pd.DataFrame(X, columns=names).assign(y=y)
    logs = "y ~ " + " + ".join(f"log({c})" for c in names)
    g1, g2 = rng.integers(0, 5, n), rng.integers(0, 5, n)
    factors = pd.DataFrame(X[:, : P - 2], columns=names[: P - 2]).assign(y=y)
    factors["g1"] = pd.Categorical.from_codes(g1, [f"a{k}" for k in range(5)])
    factors["g2"] = np.array([f"b{k}" for k in range(5)], dtype=object)[g2]
    coded = np.column_stack(
        [X[:, : P - 2]] + [(g1 == k) for k in range(1, 5)] + [(g2 == k) for k in range(1, 5)]
    ).astype(float)
    return {
        "y ~ .": ("y ~ .", plain, X),
        "50 log() terms": (logs, plain, np.log(X)),
        "two 5-level factors": ("y ~ .", factors, coded),
    }, y


def rounds(fns: dict[str, object], n_rounds: int) -> dict[str, float]:
    """Best wall time of each function over interleaved rounds."""
    best = dict.fromkeys(fns, np.inf)
    for _ in range(n_rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def peak_memory(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def formula_table(n: int, n_rounds: int) -> list[dict]:
    cases, y = make_frames(n)
    out = []
    for label, (formula, frame, X) in cases.items():
        timings = rounds(
            {
                "array": lambda X=X: sdr.SIR(nslices=H).fit(X, y),
                "formula": lambda f=formula, d=frame: sdr.sir(f, d, nslices=H),
            },
            n_rounds,
        )
        # the same fit both ways (the array columns are the formula's, in R's order)
        a = sdr.SIR(nslices=H).fit(X, y).eigenvalues
        b = sdr.sir(formula, frame, nslices=H).eigenvalues
        data_bytes = int(frame.memory_usage(deep=True).sum())
        peak = peak_memory(lambda f=formula, d=frame: sdr.sir(f, d, nslices=H))
        out.append(
            {
                "n": n,
                "case": label,
                "array_ms": 1e3 * timings["array"],
                "formula_ms": 1e3 * timings["formula"],
                "ratio": timings["formula"] / timings["array"],
                "same": float(np.max(np.abs(a - b))),
                "data_mb": data_bytes / 2**20,
                "peak_mb": peak / 2**20,
                "peak_ratio": peak / data_bytes,
            }
        )
    return out


def floor_table(n: int, n_rounds: int) -> dict[str, float]:
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, P)) + 1.0
    y = X[:, 0] + X[:, 1] ** 3 / 4 + rng.standard_normal(n)
    return rounds(
        {
            "X.T @ X": lambda: X.T @ X,
            "SIR": lambda: sdr.SIR(nslices=H).fit(X, y),
            "SAVE": lambda: sdr.SAVE(nslices=H).fit(X, y),
            "pHd": lambda: sdr.PHD(residuals=False).fit(X, y),
        },
        n_rounds,
    )


R_SCRIPT = r"""
suppressPackageStartupMessages(library(dr))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1]); f <- read.csv(args[2], stringsAsFactors = TRUE)
logs <- as.formula(paste("y ~", paste(sprintf("log(x%d)", 1:50), collapse = " + ")))
best <- function(expr, k = 3) min(replicate(k, system.time(eval(expr))[["elapsed"]]))
out <- c(
  dot = best(quote(dr(y ~ ., data = d, method = "sir", nslices = 10))),
  logs = best(quote(dr(logs, data = d, method = "sir", nslices = 10))),
  factors = best(quote(dr(y ~ ., data = f, method = "sir", nslices = 10)))
)
cat(sprintf('{"dot": %.4f, "logs": %.4f, "factors": %.4f}', out[1], out[2], out[3]))
"""


def r_times(n: int) -> dict[str, float] | None:
    if shutil.which("Rscript") is None:
        return None
    cases, _ = make_frames(n)
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.csv"
        factors = Path(tmp) / "factors.csv"
        script = Path(tmp) / "time_dr.R"
        cases["y ~ ."][1].to_csv(plain, index=False)
        cases["two 5-level factors"][1].to_csv(factors, index=False)
        script.write_text(R_SCRIPT)
        run = subprocess.run(
            ["Rscript", str(script), str(plain), str(factors)],
            capture_output=True,
            text=True,
            check=False,
        )
    if run.returncode != 0:
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])


def statsmodels_time(n: int, n_rounds: int) -> dict[str, float] | None:
    try:
        from statsmodels.regression.dimred import SlicedInverseReg
    except ImportError:  # pragma: no cover - optional
        return None
    cases, y = make_frames(n)
    formula, frame, X = cases["y ~ ."]
    return rounds(
        {
            "statsmodels": lambda: SlicedInverseReg(y, X).fit(slice_n=n // H),
            "formula": lambda: sdr.sir(formula, frame, nslices=H),
        },
        n_rounds,
    )


def blas_line() -> str:
    info = threadpoolctl.threadpool_info()
    kernels = ", ".join(
        f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')}, "
        f"{i.get('num_threads')} threads, {Path(i.get('filepath', '')).parent.name})"
        for i in info
        if i.get("user_api") == "blas"
    )
    core = os.environ.get("OPENBLAS_CORETYPE", "unset")
    return f"BLAS: {kernels}; OPENBLAS_CORETYPE={core}"


def report(args: argparse.Namespace) -> str:
    sizes = [100_000] if args.quick else [100_000, 1_000_000]
    n_rounds = 3 if args.quick else 9
    lines = [
        "# Formula front: speed and memory",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}. "
        f"{blas_line()}. Load average at start: "
        f"{', '.join(f'{v:.1f}' for v in os.getloadavg())}.",
        "",
        f"Best of {n_rounds} interleaved rounds; p = {P}, {H} slices.",
        "",
        "## The whole formula call against the array fit (goal: at most 1.5x)",
        "",
        "| n | case | SIR().fit(X, y) ms | sdr.sir(formula, df) ms | ratio | goal | "
        "max eigenvalue difference | data MB | formula peak MB | peak / data (goal <= 2) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n in sizes:
        for row in formula_table(n, n_rounds if n <= 100_000 else max(3, n_rounds // 3)):
            verdict = "met" if row["ratio"] <= 1.5 else "**not met**"
            mem = "met" if row["peak_ratio"] <= 2 else "**not met**"
            lines.append(
                f"| {n:.0e} | {row['case']} | {row['array_ms']:.1f} | {row['formula_ms']:.1f} | "
                f"{row['ratio']:.2f} | {verdict} | {row['same']:.1e} | {row['data_mb']:.0f} | "
                f"{row['peak_mb']:.0f} | {row['peak_ratio']:.2f} ({mem}) |"
            )
    floor = floor_table(100_000, n_rounds)
    base = floor["X.T @ X"]
    lines += [
        "",
        "## The array fits against one X.T @ X (n = 1e5)",
        "",
        "| call | ms | / X.T @ X | goal |",
        "|---|---|---|---|",
        f"| X.T @ X | {1e3 * base:.1f} | 1.00 | |",
    ]
    for name, goal in (("SIR", 2.0), ("SAVE", 3.0), ("pHd", 3.0)):
        ratio = floor[name] / base
        verdict = "met" if ratio <= goal else "**not met**"
        lines.append(f"| {name} | {1e3 * floor[name]:.1f} | {ratio:.2f} | <= {goal:g}: {verdict} |")
    lines += ["", "## Against other software (n = 1e5, SIR, 10 slices)", ""]
    sm = statsmodels_time(100_000, n_rounds)
    if sm is not None:
        lines.append(
            f"- statsmodels `SlicedInverseReg(y, X).fit(slice_n=n // 10)` on the arrays: "
            f"{1e3 * sm['statsmodels']:.0f} ms; `sdr.sir('y ~ .', df)`: {1e3 * sm['formula']:.0f} "
            f"ms ({sm['statsmodels'] / sm['formula']:.1f}x faster)."
        )
    rt = None if args.no_r else r_times(100_000)
    if rt is not None:
        cases, _ = make_frames(100_000)
        ours = {}
        for key, label in (
            ("dot", "y ~ ."),
            ("logs", "50 log() terms"),
            ("factors", "two 5-level factors"),
        ):
            formula, frame, _ = cases[label]
            ours[key] = rounds({"f": lambda f=formula, d=frame: sdr.sir(f, d, nslices=H)}, 3)["f"]
        lines += [
            "- R `dr` 3.0.11 (`Rscript`, `dr(formula, data, method = 'sir', nslices = 10)`, best "
            "of 3 `system.time` in R, data read from CSV first):",
            "",
            "| case | R dr s | sdr.sir s | R / sdrstats |",
            "|---|---|---|---|",
        ]
        for key, label in (
            ("dot", "y ~ ."),
            ("logs", "50 log() terms"),
            ("factors", "two 5-level factors"),
        ):
            lines.append(
                f"| {label} | {rt[key]:.2f} | {ours[key]:.3f} | {rt[key] / ours[key]:.0f}x |"
            )
    elif not args.no_r:
        lines.append("- R `dr`: Rscript or the dr package is not available here.")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e5 only, 3 rounds")
    parser.add_argument("--no-r", action="store_true", help="skip R dr")
    parser.add_argument("--out", default=str(Path(__file__).with_suffix(".md")))
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = report(args)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
