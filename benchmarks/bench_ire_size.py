"""Size of IRE's dimension test: R's χ² against the small-sample corrections.

IRE's test of "dD vs > dD" weighs the ``p(h − 1)`` slice-mean moments by the inverse of their
covariance estimated from the same rows (48 moments at p = 6 with R's default h = 9 slices).
This script draws data sets from models with a known dimension, fits ``sdr.ire`` with R's
defaults and records how often each version of the test rejects the true dimension at level
0.05 (its size; also the 0.01 and 0.10 levels):

* ``chi2`` — R ``dr``'s test, the default: the discrepancy ``T`` against ``χ²(m)``;
* ``F`` — Yuan & Bentler's (1999) F test, ``T (n − m)/((n − 1) m)`` against ``F(m, n − m)``;
* ``yuan_bentler`` — Yuan & Bentler's (1997) ``T / (1 + T/n)`` against ``χ²(m)``;

(``m`` the test's df). Models, ``x ~ N(0, I_6)``, ``e ~ N(0, 1)``:

* ``single`` — ``y = x1 + 0.5 e`` (d = 1; the rejection rate of "1D vs > 1D");
* ``two`` — Li's (1991) ``y = x1 / (0.5 + (x2 + 1.5)²) + 0.2 e`` (d = 2; "2D vs > 2D");

at n = 300, 500 and 2000. It also reports how often each version chooses the true ``d``.

Run ``python benchmarks/bench_ire_size.py [--draws 200]``; prints markdown
(``benchmarks/bench_ire_size.md``). The Monte Carlo standard error of a rate near 0.05 is
``sqrt(0.05 · 0.95 / draws)``: 0.015 at 200 draws.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import sdrstats as sdr

LEVELS = (0.01, 0.05, 0.10)
CORRECTIONS = (None, "F", "yuan_bentler")


def draw(model: str, n: int, seed: int) -> tuple[pd.DataFrame, int]:
    rng = np.random.default_rng([2005, n, seed])
    X = rng.standard_normal((n, 6))
    e = rng.standard_normal(n)
    if model == "single":
        y, d = X[:, 0] + 0.5 * e, 1
    else:
        y, d = X[:, 0] / (0.5 + (X[:, 1] + 1.5) ** 2) + 0.2 * e, 2
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(6)])
    frame["y"] = y
    return frame, d


def one(model: str, n: int, seed: int) -> dict[str, tuple[float, int]]:
    """p-value of the true dimension's test and the chosen d, per version of the test."""
    frame, d = draw(model, n, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sdr.ire("y ~ .", frame, random_state=0)
    out = {}
    for correction in CORRECTIONS:
        test = fit.test_dimension("asymptotic", correction=correction)
        out[str(correction)] = (float(test.table["p_value"].iloc[d]), test.d)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=200)
    args = parser.parse_args()
    rows = []
    for model in ("single", "two"):
        for n in (300, 500, 2000):
            start = time.perf_counter()
            results = [one(model, n, seed) for seed in range(args.draws)]
            seconds = (time.perf_counter() - start) / args.draws
            truth = 1 if model == "single" else 2
            for correction in CORRECTIONS:
                key = str(correction)
                p_values = np.array([r[key][0] for r in results])
                chosen = np.array([r[key][1] for r in results])
                rows.append(
                    {
                        "model": model,
                        "n": n,
                        "test": "chi2 (R)" if correction is None else correction,
                        **{f"size {a:g}": float(np.mean(p_values <= a)) for a in LEVELS},
                        "chooses d": float(np.mean(chosen == truth)),
                        "s per fit": seconds,
                    }
                )
            print(f"{model} n={n} done ({seconds:.2f} s a fit)", flush=True)
    table = pd.DataFrame(rows)
    print()
    print(f"{args.draws} data sets per model and n; h = 9 slices (R's default at p = 6), so")
    print("the test of the true d inverts a 48 x 48 covariance.")
    print()
    print(table.to_markdown(index=False, floatfmt=".3f"))


if __name__ == "__main__":
    main()
