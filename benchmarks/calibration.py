"""Calibration of the dimension rules by simulation.

Under a true d = 1 single-index model with normal predictors (n = 200, p = 6):
the rejection rate at level 0.05 of "1D vs >= 2D" for SIR's asymptotic test, SAVE's general
(Shao-Cook-Weisberg) test and the Cook-Yin permutation test of SIR, and the rate at which the
ladle and the Ye-Weiss bootstrap rule (both on SIR) choose d = 1. The same on a d = 2 model
gives the power of "1D vs >= 2D" and how often the bootstrap rules find d = 2.

    python benchmarks/calibration.py [--reps 1000] [--out benchmarks/calibration.md]

Every replication r uses data seed child r of SeedSequence(20260702) and the rules' own seed
child r of SeedSequence(7), so any row can be reproduced alone. Output: a markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import sdrstats as sdr
from sdrstats.base.parallel import limit_blas_threads, spawn_seeds

N, P, LEVEL = 200, 6, 0.05
N_PERMUTATIONS = 99  # 0.05 * (99 + 1) = 5 is an integer: the permutation test has exact size 0.05
B_LADLE = 100
B_BOOT = 100


def simulate(model: str, seed: np.random.SeedSequence) -> tuple[np.ndarray, np.ndarray]:
    """d = 1: y = (x1 + x2)/sqrt(2) + 0.5 e.  d = 2: Li (1991) y = x1 / (0.5 + (x2 + 1.5)^2) + 0.5 e."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, P))
    e = rng.normal(size=N)
    if model == "d1":
        y = (X[:, 0] + X[:, 1]) / np.sqrt(2) + 0.5 * e
    else:
        y = X[:, 0] / (0.5 + (X[:, 1] + 1.5) ** 2) + 0.5 * e
    return X, y


def one_replication(model: str, data_seed, rule_seed) -> dict[str, float]:
    X, y = simulate(model, data_seed)
    seeds = spawn_seeds(rule_seed, 3)
    fit = sdr.SIR(numdir=2).fit(X, y)
    save = sdr.SAVE(numdir=2).fit(X, y)
    asym = fit.test_dimension("asymptotic").table["p_value"].iloc[1]
    gen = save.test_dimension("asymptotic").table["p_value_general"].iloc[1]
    save4 = sdr.SAVE(numdir=2, nslices=4).fit(X, y)
    gen4 = save4.test_dimension("asymptotic").table["p_value_general"].iloc[1]
    perm = (
        fit.test_dimension(
            "permutation", n_permutations=N_PERMUTATIONS, random_state=seeds[0], progress=False
        )
        .table["p_value"]
        .iloc[1]
    )
    lad = fit.test_dimension("ladle", B=B_LADLE, random_state=seeds[1], progress=False).d
    boot = fit.test_dimension("bootstrap", B=B_BOOT, random_state=seeds[2], progress=False).d
    return {
        "sir_asym": asym,
        "save_gen": gen,
        "save_gen4": gen4,
        "perm": perm,
        "ladle": lad,
        "boot": boot,
    }


def run(model: str, reps: int) -> dict[str, np.ndarray]:
    data = spawn_seeds(np.random.SeedSequence(20260702), reps)
    rules = spawn_seeds(np.random.SeedSequence(7), reps)
    rows = []
    start = time.perf_counter()
    with limit_blas_threads(1):
        for r in range(reps):
            rows.append(one_replication(model, data[r], rules[r]))
            if (r + 1) % 100 == 0:
                print(
                    f"{model}: {r + 1}/{reps} in {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    result = {k: np.array([row[k] for row in rows]) for k in rows[0]}
    np.savez(f"/tmp/calibration_{model}.npz", **result)  # keep raw results for inspection
    return result


def save_sample_size_check(reps: int = 300) -> str:
    """SAVE's tests of 1D vs >= 2D on the d = 1 model at n = 200 and n = 1000: size vs n."""
    lines = [
        "",
        f"SAVE's size against n (d = 1 model, {reps} replications each, seeds "
        "SeedSequence(5)), showing the small-sample conservativeness fades as n grows:",
        "",
        "| n | slices | general test | normal-theory test |",
        "|---|---|---|---|",
    ]
    with limit_blas_threads(1):
        for n, h in ((200, 9), (1000, 9), (1000, 4)):
            general, normal = [], []
            for seed in spawn_seeds(5, reps):
                rng = np.random.default_rng(seed)
                X = rng.normal(size=(n, P))
                y = (X[:, 0] + X[:, 1]) / np.sqrt(2) + 0.5 * rng.normal(size=n)
                table = sdr.SAVE(numdir=2, nslices=h).fit(X, y).test_dimension("asymptotic").table
                general.append(table["p_value_general"].iloc[1] < LEVEL)
                normal.append(table["p_value"].iloc[1] < LEVEL)
            lines.append(f"| {n} | {h} | {rate(np.array(general))} | {rate(np.array(normal))} |")
    return "\n".join(lines) + "\n"


def rate(x: np.ndarray) -> str:
    p = float(np.mean(x))
    se = np.sqrt(p * (1 - p) / x.size)
    return f"{p:.3f} ± {se:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--out", default=None)
    parser.add_argument("--save-check-only", action="store_true")
    args = parser.parse_args()
    if args.save_check_only:
        text = save_sample_size_check()
        print(text)
        if args.out:
            with open(args.out, "a") as fh:
                fh.write(text)
        return
    start = time.perf_counter()
    null = run("d1", args.reps)
    alt = run("d2", args.reps)
    elapsed = time.perf_counter() - start
    lines = [
        "# Calibration of the dimension rules",
        "",
        f"`python benchmarks/calibration.py --reps {args.reps}` ({elapsed / 60:.1f} min on one "
        "core of a shared machine). Normal predictors, n = 200, p = 6; SIR and SAVE with the "
        f"default 9 slices; permutation test with {N_PERMUTATIONS} permutations; ladle with "
        f"B = {B_LADLE}; Ye-Weiss bootstrap rule with B = {B_BOOT} (trace-correlation "
        f"distance). {args.reps} replications per model; ± is one binomial standard error. "
        "Acceptance band for the size at level 0.05: [0.035, 0.065].",
        "",
        "- d = 1 model: y = (x1 + x2)/√2 + 0.5 ε",
        "- d = 2 model (Li 1991): y = x1 / (0.5 + (x2 + 1.5)²) + 0.5 ε",
        "",
        "| rule | d = 1 model (size / rate of d̂ = 1) | in band | d = 2 model (power / rate of d̂ = 2) |",
        "|---|---|---|---|",
    ]
    for key, label in [
        ("sir_asym", "SIR asymptotic χ², reject 1D vs ≥ 2D"),
        ("save_gen", "SAVE general test (9 slices), reject 1D vs ≥ 2D"),
        ("save_gen4", "SAVE general test (4 slices), reject 1D vs ≥ 2D"),
        ("perm", "SIR permutation (Cook & Yin), reject 1D vs ≥ 2D"),
    ]:
        reject_null = null[key] <= LEVEL if key == "perm" else null[key] < LEVEL
        reject_alt = alt[key] <= LEVEL if key == "perm" else alt[key] < LEVEL
        inside = 0.035 <= reject_null.mean() <= 0.065
        lines.append(
            f"| {label} | {rate(reject_null)} | {'yes' if inside else 'NO'} | {rate(reject_alt)} |"
        )
    for key, label in [
        ("ladle", "SIR ladle (Luo & Li), chooses d"),
        ("boot", "SIR bootstrap rule (Ye & Weiss), chooses d"),
    ]:
        lines.append(f"| {label} | {rate(null[key] == 1)} | – | {rate(alt[key] == 2)} |")
    lines += ["", "Distribution of the chosen d (d = 1 model / d = 2 model):", ""]
    for key in ("ladle", "boot"):
        for model, res in (("d = 1", null), ("d = 2", alt)):
            values, counts = np.unique(res[key], return_counts=True)
            shown = ", ".join(f"d̂={v}: {c}" for v, c in zip(values, counts))
            lines.append(f"- {key}, {model} model: {shown}")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
