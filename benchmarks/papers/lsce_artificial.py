"""Seed 000 (Tangkaratt et al.), Figure 3: artificial data (a) and (b).

x ~ N(0, I_5), eps ~ N(0, 0.25^2); (a) y = x1^2 + x2^2 + eps (d = 2); (b) y = x2 + x2^2 + x2^3 +
eps (d = 1). For n in {100, 200, 400} and R repetitions: Error_DR = ||W^T W - W*^T W*||_F of LSCE
and LSMI, and Error_CDE (the seed's squared loss on 1000 test points) of None/LSCDE,
LSCE/LSCDE, LSMI/LSCDE, True/LSCDE and eps-KDE (on the LSCE and on the true subspace).

Usage: python benchmarks/papers/lsce_artificial.py [--quick] [--out FILE]
Seeded: repetition r of data set s at size n uses random_state (s, n, r).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

import sdrstats as sdr
from sdrstats.distances import projection_distance
from sdrstats.simulate import lsce_artificial, lsce_artificial_pdf

TRUE_FORMULA = {"a": "y ~ x1 + x2", "b": "y ~ x2"}
TRUE_D = {"a": 2, "b": 1}


def one_repetition(dataset: str, n: int, rep: int, n_restarts: int, select_by: str) -> dict:
    key = [ord(dataset), n, rep]
    train, truth = lsce_artificial(dataset, n, random_state=key)
    test, _ = lsce_artificial(dataset, 1000, random_state=key + [1])
    opts = {
        "d": TRUE_D[dataset],
        "n_restarts": n_restarts,
        "progress": False,
        "random_state": key,
        "select_by": select_by,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        lsce_fit = sdr.lsce("y ~ .", train, **opts)
        lsmi_fit = sdr.lsmi("y ~ .", train, **opts)
    row = {
        "dataset": dataset,
        "n": n,
        "rep": rep,
        "DR LSCE": projection_distance(lsce_fit.directions.to_numpy(), truth),
        "DR LSMI": projection_distance(lsmi_fit.directions.to_numpy(), truth),
    }
    densities = {
        "None/LSCDE": sdr.lscde("y ~ .", train, random_state=key),
        "LSCE/LSCDE": lsce_fit.conditional_density(),
        "LSMI/LSCDE": lsmi_fit.conditional_density("lscde", random_state=key),
        "True/LSCDE": sdr.lscde(TRUE_FORMULA[dataset], train, random_state=key),
        "LSCE/eps-KDE": lsce_fit.conditional_density("eps_kde"),
        "True/eps-KDE": sdr.eps_kde(TRUE_FORMULA[dataset], train),
    }
    for name, dens in densities.items():
        row[f"CDE {name}"] = dens.squared_loss(test)
    X = test.drop(columns="y").to_numpy()
    p_true = lsce_artificial_pdf(dataset, X, test["y"].to_numpy())
    # Error_CDE of the true density: ∫p² = 1/(2√π·0.25) for Gaussian noise.
    row["CDE truth"] = 0.5 / (2 * np.sqrt(np.pi) * 0.25) - p_true.mean()
    return row


def to_markdown(frame: pd.DataFrame) -> str:
    """A pipe table (no tabulate dependency)."""
    index = [" ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in frame.index]
    head = "| | " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|---" * (len(frame.columns) + 1) + "|"
    body = [
        "| " + i + " | " + " | ".join(map(str, row)) + " |"
        for i, row in zip(index, frame.to_numpy())
    ]
    return "\n".join([head, rule, *body])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n in {100, 200}, 3 repetitions")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--restarts", type=int, default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--datasets", nargs="+", default=["a", "b"], choices=["a", "b"])
    parser.add_argument("--select-by", default="criterion", choices=["criterion", "cv"])
    parser.add_argument("--out", default=None, help="also write the markdown here")
    args = parser.parse_args(argv)
    sizes = args.sizes or ([100, 200] if args.quick else [100, 200, 400])
    reps = args.reps or (3 if args.quick else 10)
    restarts = args.restarts or (3 if args.quick else 5)
    start = time.perf_counter()
    cpu_start = time.process_time()
    rows = []
    for dataset in args.datasets:
        for n in sizes:
            for rep in range(reps):
                rows.append(one_repetition(dataset, n, rep, restarts, args.select_by))
                print(
                    f"  {dataset} n={n} rep={rep} done ({time.perf_counter() - start:.0f} s)",
                    file=sys.stderr,
                )
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    frame = pd.DataFrame(rows)
    metrics = [c for c in frame.columns if c.startswith(("DR ", "CDE "))]
    mean = frame.groupby(["dataset", "n"])[metrics].mean()
    se = frame.groupby(["dataset", "n"])[metrics].std(ddof=1) / np.sqrt(reps)
    table = mean.map(lambda v: f"{v:.3f}") + " ± " + se.map(lambda v: f"{v:.3f}")
    lines = [
        "# Seed 000, Figure 3: LSCE vs LSMI on the artificial data",
        "",
        f"Command: `python benchmarks/papers/lsce_artificial.py {' '.join(sys.argv[1:])}` — "
        f"n in {sizes}, {reps} repetitions, "
        f"{restarts} restarts per fit (the seed uses 20; fewer keep the full run under 10 "
        f"minutes on a shared 2-core machine), restart kept by {args.select_by}, CV every 5 "
        f"updates, 1000 test points. Mean ± standard error. Wall time {elapsed:.0f} s, "
        f"CPU time {cpu:.0f} s (the machine is shared with other jobs, so wall time is noisy).",
        "",
        "Error_DR (smaller is better):",
        "",
        to_markdown(table[[c for c in metrics if c.startswith("DR")]]),
        "",
        "Error_CDE (smaller is better; 'CDE truth' is the true density's value):",
        "",
        to_markdown(table[[c for c in metrics if c.startswith("CDE")]].T),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
