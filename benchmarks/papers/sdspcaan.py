"""Seed 001's Table IV experiment at reduced size: test BCA of the SDSPCAAN family.

Protocol (:func:`sdrstats.evaluate.classification`): 20/40/40 stratified random splits,
10 repeats, 1-NN on standardised projected features, balanced classification accuracy,
k in {10, ..., 100} capped by n_train - 1, p and >= c, weights tuned on validation.

Reductions, to stay within ~15 minutes of CPU on a shared 2-core machine (stated in the
output): the weights are tuned by coordinate search (k first with weights 1, then alpha,
beta, delta in turn over {0.01, 0.1, 1, 10, 100} x their trace scales) instead of the full
5^3 grid; ``max_iter`` is 100 (the seed: 500).

Usage::

    python benchmarks/papers/sdspcaan.py --musk1 /path/to/musk1.csv > benchmarks/papers/sdspcaan.md
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from sdrstats.evaluate import classification

METHODS = ["baseline", "pca", "sdspca", "spcan", "sdspca_lpp", "sdspcaan"]
SEED_NAMES = ("Musk1", "digits 8x8 (USPST stand-in)")
SEED_SETS = ["Musk1", "MSRA25", "Palm", "USPST", "Isolet", "Yale", "ORL", "COIL20", "YaleB"]
MISSING = {
    "MSRA25": "face images; not shipped by any installed package, no internet",
    "Palm": "palm-print images; not shipped by any installed package, no internet",
    "USPST": "16x16 USPS digits not available offline; scikit-learn's bundled 8x8 digits "
    "(1797 x 64, 10 classes) stand in",
    "Isolet": "UCI spoken letters; needs a download",
    "Yale": "face images; not available offline",
    "ORL": "scikit-learn's fetch_olivetti_faces needs a download",
    "COIL20": "object images; not available offline",
    "YaleB": "face images; not available offline",
}


def datasets(musk1: str | None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    out = {}
    if musk1:
        frame = pd.read_csv(musk1)
        label = "label" if "label" in frame.columns else frame.columns[-1]
        out["Musk1"] = (frame.drop(columns=label).to_numpy(float), frame[label].to_numpy())
    digits = load_digits()
    out["digits 8x8 (USPST stand-in)"] = (digits.data, digits.target)
    cancer = load_breast_cancer()
    out["breast cancer"] = (cancer.data, cancer.target)
    wine = load_wine()
    out["wine"] = (wine.data, wine.target)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--musk1", help="path to musk1.csv (read in place, never copied)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--search", default="coordinate", choices=["grid", "coordinate"])
    parser.add_argument("--splits", default="0.2,0.4,0.4")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--datasets", help="comma-separated subset of the data set names")
    parser.add_argument(
        "--grid-check", default="wine", help="data set re-run with the full grid ('' for none)"
    )
    parser.add_argument(
        "--no-fixed-weights",
        action="store_true",
        help="skip the re-run of SDSPCA, SDSPCA-LPP and SDSPCAAN with iteration='fixed_weights'",
    )
    args = parser.parse_args()
    splits = tuple(float(v) for v in args.splits.split(","))

    load_start = os.getloadavg()[0]
    tables, chosen, seconds = {}, {}, {}
    chosen_sets = datasets(args.musk1)
    if args.datasets:
        keep = [v.strip() for v in args.datasets.split(",")]
        chosen_sets = {k: v for k, v in chosen_sets.items() if k.split(" ")[0] in keep}
    for name, (X, y) in chosen_sets.items():
        start = time.process_time()
        wall = time.perf_counter()
        with threadpool_limits(1):
            res = classification(
                METHODS,
                (X, y.astype(str)),
                splits=splits,
                n_repeats=args.repeats,
                search=args.search,
                random_state=2021,
                n_jobs=args.n_jobs,
                progress=False,
                verbose=False,
                options={"max_iter": 100},
            )
        seconds[name] = (time.process_time() - start, time.perf_counter() - wall)
        grouped = res.groupby("method", sort=False)["test_bca"]
        tables[name] = (grouped.mean(), grouped.std(ddof=1), X.shape, len(np.unique(y)))
        chosen[name] = res.groupby("method", sort=False)[["d", "alpha", "beta", "delta"]].median()

    print("# Seed 001, Table IV at reduced size: test BCA (mean ± sd over repeats)\n")
    print(
        f"Protocol: {args.repeats} random stratified splits {args.splits} (train/validation/"
        f"test), 1-NN on standardised projected features, balanced classification accuracy; "
        f"k in 10..100 capped by the rank of the centred training predictors (<= n_train - 1, "
        f"p) and >= c; weights tuned on validation by "
        f"**{args.search}** search over {{0.01, 0.1, 1, 10, 100}} x trace scales; "
        "max_iter = 100 (seed: 500). random_state = 2021. SDSPCA, SDSPCA-LPP and SDSPCAAN "
        "run the authors' iteration (the package default: trace scales recomputed every "
        "iteration, the authors' stopping rules).\n"
    )
    search_note = (
        "coordinate instead of full-grid search of alpha, beta, delta (CPU budget)"
        if args.search == "coordinate"
        else "none in the search (full grid)"
    )
    print(
        f"Reductions against the seed: {search_note}; JPCDA and SLNP are not run (see below); "
        f"{sum(n in SEED_NAMES for n in tables)} of the seed's 9 data sets (the digits stand "
        "in for USPST) plus small non-seed sets.\n"
    )
    header = "| data set | n x p, c | " + " | ".join(METHODS) + " |"
    print(header)
    print("|" + "---|" * (len(METHODS) + 2))
    means = []
    for name, (mean, sd, shape, c) in tables.items():
        best = mean.max()
        cells = []
        for m in METHODS:
            cell = f"{mean[m]:.3f} ± {sd[m]:.3f}"
            cells.append(f"**{cell}**" if mean[m] == best else cell)
        print(f"| {name} | {shape[0]} x {shape[1]}, {c} | " + " | ".join(cells) + " |")
        means.append(mean[METHODS])
    average = pd.concat(means, axis=1).mean(axis=1)
    ranks = pd.concat([-m for m in means], axis=1).rank(axis=0).mean(axis=1)
    print("| **average** | | " + " | ".join(f"{average[m]:.3f}" for m in METHODS) + " |")
    print("| mean rank (1 = best) | | " + " | ".join(f"{ranks[m]:.2f}" for m in METHODS) + " |")
    order = average.sort_values(ascending=False)
    wins = [n for n, (mean, *_rest) in tables.items() if mean.idxmax() == "sdspcaan"]
    # averages within 0.005 of the best are reported as a tie: the sds over repeats are
    # 0.01-0.07, so smaller gaps say nothing
    tied = [m for m in order.index if order.iloc[0] - average[m] < 0.005]
    gap = order.iloc[0] - average["sdspcaan"]
    if "sdspcaan" in tied and len(tied) == 1:
        verdict = "it is the best on average here too"
    elif "sdspcaan" in tied:
        verdict = (
            "it ties for the best average here with "
            + ", ".join(m for m in tied if m != "sdspcaan")
            + " (within 0.005), so the claim is not confirmed"
        )
    else:
        verdict = f"it is not the best on average here ({gap:.3f} below the best)"
    print(
        f"\n**Finding.** Best average test BCA: {order.index[0]} ({order.iloc[0]:.3f}); "
        f"within 0.005 of it: {', '.join(tied)}. SDSPCAAN averages "
        f"{average['sdspcaan']:.3f} and is best on {len(wins)} of {len(tables)} data sets"
        f"{' (' + ', '.join(wins) + ')' if wins else ''}. The seed claims SDSPCAAN is best on "
        f"average over its nine image/high-dimensional sets; on these offline sets {verdict}. "
        "Compare the gaps with the standard deviations over repeats before reading much into "
        "them. These sets have few, mostly informative predictors, which favours the baseline "
        "(the first k standardised predictors) far more than the seed's image data did.\n"
    )

    print("\nMedian chosen k and weights (over repeats):\n")
    for name, table in chosen.items():
        print(f"*{name}*\n")
        print("| method | " + " | ".join(table.columns) + " |")
        print("|---|" + "---|" * len(table.columns))
        for method, row in table.iterrows():
            print(f"| {method} | " + " | ".join(f"{v:.3g}" for v in row) + " |")
        print()
    print(
        "CPU / wall seconds per data set: "
        + "; ".join(f"{n}: {c:.0f} / {w:.0f}" for n, (c, w) in seconds.items())
        + f" (shared machine, {os.cpu_count()} cores, load average "
        f"{load_start:.1f} at the start and {os.getloadavg()[0]:.1f} at the end; wall time is "
        "noisy while others work).\n"
    )
    if not args.no_fixed_weights:
        fixed_weights_check(args, chosen_sets, tables, splits)
    if args.grid_check and args.search == "coordinate" and args.grid_check in chosen_sets:
        X, y = chosen_sets[args.grid_check]
        start = time.process_time()
        with threadpool_limits(1):
            full = classification(
                ["sdspca", "sdspca_lpp", "sdspcaan"],
                (X, y.astype(str)),
                splits=splits,
                n_repeats=args.repeats,
                search="grid",
                random_state=2021,
                n_jobs=args.n_jobs,
                progress=False,
                verbose=False,
                options={"max_iter": 100},
            )
        grouped = full.groupby("method", sort=False)["test_bca"]
        print(f"## Full-grid check on {args.grid_check}\n")
        print(
            "Same splits, all 5^3 (alpha, beta, delta) combinations (5^2 for SDSPCA) against "
            "the coordinate search above:\n"
        )
        print("| method | full grid | coordinate search |")
        print("|---|---|---|")
        mean, sd = tables[args.grid_check][:2]
        for m, g_mean in grouped.mean().items():
            print(
                f"| {m} | {g_mean:.3f} ± {grouped.std(ddof=1)[m]:.3f} | "
                f"{mean[m]:.3f} ± {sd[m]:.3f} |"
            )
        print(f"\n({time.process_time() - start:.0f} s of CPU.)\n")
    print("## Data sets of the seed not run\n")
    print("- " + "\n- ".join(f"{k}: {v}" for k, v in MISSING.items()))
    if "Musk1" not in tables:
        print("- Musk1: no --musk1 path given")
    print(
        "\nbreast cancer and wine (scikit-learn) are not in the seed; they are small "
        "classification sets that can be had offline.\n"
    )
    print("## Methods of Table III not run\n")
    print(
        "- JPCDA (Zhao et al. 2020) and SLNP (seed ref. [27]): only their abstracts can be "
        "read offline; the optimisation problems and update rules needed for a faithful "
        "implementation are not available, so they are left out rather than guessed.\n"
    )


def fixed_weights_check(args, chosen_sets, tables, splits) -> None:
    """The same splits and search with the weights' trace scales fixed at the start."""
    methods = ["sdspca", "sdspca_lpp", "sdspcaan"]
    start = time.process_time()
    rows = []
    for name, (X, y) in chosen_sets.items():
        with threadpool_limits(1):
            res = classification(
                methods,
                (X, y.astype(str)),
                splits=splits,
                n_repeats=args.repeats,
                search=args.search,
                random_state=2021,
                n_jobs=args.n_jobs,
                progress=False,
                verbose=False,
                options={"max_iter": 100, "iteration": "fixed_weights"},
            )
        grouped = res.groupby("method", sort=False)["test_bca"]
        mean, sd = tables[name][:2]
        for m in methods:
            rows.append(
                f"| {name} | {m} | {mean[m]:.3f} ± {sd[m]:.3f} | "
                f"{grouped.mean()[m]:.3f} ± {grouped.std(ddof=1)[m]:.3f} |"
            )
    print("## The authors' iteration against fixed weights\n")
    print(
        "Same splits and search, SDSPCA, SDSPCA-LPP and SDSPCAAN re-run with "
        '`iteration="fixed_weights"` (trace scales computed once, at the start; the '
        "package's default before it followed the authors):\n"
    )
    print("| data set | method | authors' iteration | fixed weights |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    print(f"\n({time.process_time() - start:.0f} s of CPU.)\n")


if __name__ == "__main__":
    main()
