"""How often Lasso-SIR's automatic rules for ``d`` find the true dimension, and their cost.

Two rules of :class:`sdrstats.LassoSIR` (``d=None``): ``d_rule="kmeans"``, R ``LassoSIR``'s
two-group k-means of ``λ̂_j ‖β̂_j‖`` (Lin, Zhao & Liu 2019), and ``d_rule="ratio"``, the
eigenvalue-ratio rule over the positive eigenvalues. Models with known ``d``, 10 draws each,
10-fold CV penalties:

* ``help`` — R LassoSIR's help example: n = 200, p = 10, H = 20 (p < H - 1),
  y = (xᵀβ)³/2 + e, AR(0.3) predictors, β on x1..x3 (d = 1);
* ``single`` — n = 200, p = 40, H = 10, y = xᵀβ + 0.5e, β = (1,1,1,1,1,0,…)/√5 (d = 1);
* ``rational`` — n = 400, p = 20, H = 10, Li (1991)'s y = β₁ᵀx / (0.5 + (1.5 + β₂ᵀx)²) + 0.2e,
  AR(0.5) predictors, β₁ on x1..x4, β₂ on x7..x10 (d = 2);
* ``p>n`` — n = 100, p = 200, H = 5, y = (x1 + x2 + x3)/√3 + 0.2e (d = 1);
* ``p>>n`` — n = 200, p = 1000, H = 10, the single-index model above (d = 1).

Run ``python benchmarks/bench_lasso_sir_d.py [--draws 10]``; prints markdown
(``benchmarks/bench_lasso_sir_d.md``). Seconds are wall time per fit on this shared machine.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import sdrstats as sdr


def ar_normal(rng: np.random.Generator, n: int, p: int, rho: float) -> np.ndarray:
    cov = rho ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    return rng.standard_normal((n, p)) @ np.linalg.cholesky(cov).T


def model(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(X, y, H, true d) of one draw."""
    rng = np.random.default_rng([7, seed])
    if name == "help":
        X = ar_normal(rng, 200, 10, 0.3)
        beta = np.r_[rng.standard_normal(3), np.zeros(7)]
        return X, (X @ beta) ** 3 / 2 + rng.standard_normal(200), 20, 1
    if name in ("single", "p>>n"):
        n, p = (200, 40) if name == "single" else (200, 1000)
        X = rng.standard_normal((n, p))
        return X, X[:, :5].sum(axis=1) / np.sqrt(5) + 0.5 * rng.standard_normal(n), 10, 1
    if name == "rational":
        X = ar_normal(rng, 400, 20, 0.5)
        u, v = X[:, :4].sum(axis=1) / 2, X[:, 6:10].sum(axis=1) / 2
        return X, u / (0.5 + (1.5 + v) ** 2) + 0.2 * rng.standard_normal(400), 10, 2
    X = rng.standard_normal((100, 200))
    return X, X[:, :3].sum(axis=1) / np.sqrt(3) + 0.2 * rng.standard_normal(100), 5, 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=10)
    args = parser.parse_args()
    print("| model | true d | rule | correct | chosen d (counts) | s per fit |")
    print("|---|---|---|---|---|---|")
    for name in ("help", "single", "rational", "p>n", "p>>n"):
        for rule in ("kmeans", "ratio"):
            chosen, seconds = [], 0.0
            for seed in range(args.draws):
                X, y, H, d = model(name, seed)
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fit = sdr.LassoSIR(nslices=H, d_rule=rule, random_state=seed).fit(X, y)
                seconds += time.perf_counter() - start
                chosen.append(fit.d)
            values, counts = np.unique(chosen, return_counts=True)
            listed = ", ".join(f"{v}: {c}" for v, c in zip(values, counts, strict=True))
            print(
                f"| {name} | {d} | {rule} | {sum(c == d for c in chosen)}/{args.draws} | "
                f"{listed} | {seconds / args.draws:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
