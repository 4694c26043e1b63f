"""Lasso-SIR's and online SIR's rules for ``d`` on the single- and three-index models.

The data sets are those of ``bench_dimension.py`` (n = 400, p = 6, ``x ~ N(0, I_6)``):
``single`` (d = 1, ``y = x1 + 0.5 e``) and ``three`` (d = 3, Li's rational model in x1, x2
plus a cubic in x3), 50 of each, seeds 0..49. Every rule is read off the same fit of each
data set (paired):

* Lasso-SIR (defaults: 10 equal-count slices, ``lambda.1se`` + refit): its default
  ``d_rule="auto"`` (Li's χ² below where ``n >= 2 p H``, as here), R LassoSIR's k-means
  rule on ``s_j = λ̂_j ‖β̂_j‖`` (the default before), the same two-means on ``log s_j``, and
  rules on
  the eigenvalues ``θ̂_j`` of the same kernel whitened by ``Σ̂`` (possible here, n > p):
  Li's (1991) sequential χ² test (``n Σ_{j>m} θ̂_j`` against χ² with ``(p - m)(H - m - 1)``
  degrees of freedom) at levels 0.01, 0.05, 0.10, and the information criterion
  ``n Σ_{j>k} θ̂_j + c·k(p + H - 1 - k)`` (the statistic plus ``c`` per parameter of a
  rank-``k`` ``p x (H - 1)`` matrix) with ``c = 2`` (AIC-type), 3 and ``log n`` (BIC-type);
* online SIR (``init_size = 200``, its 10 slices cut at the first batch's quantiles): its
  default ``d_rule="auto"`` (the test below once ``n >= 2 p H``), the eigenvalue-ratio rule
  (the default before) and Li's χ² from its slice moments (``d_rule="asymptotic"``),
  and that test on the slices batch SIR uses (``cut_points`` at R ``dr``'s slice boundaries of
  all the rows);
* batch SIR's Li χ² for reference, with R ``dr``'s slicing (the default: 9 slices asked,
  which ``dr.slices`` makes 9 of 44 rows and a tenth of 4, the largest ``y``) and with 9 and 10 equal-count
  slices (``slice_function="arc"``).

Run ``python benchmarks/bench_sparse_rules.py > benchmarks/bench_sparse_rules.md``
(about a minute with one BLAS thread).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import chi2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dimension import draw  # noqa: E402

import sdrstats as sdr  # noqa: E402
from sdrstats.online.lasso_sir import two_means_smaller_group  # noqa: E402
from sdrstats.stats.slicing import make_slices  # noqa: E402

DRAWS = 50
MODELS = {"single": 1, "three": 3}
PREDICTORS = [f"x{j}" for j in range(1, 7)]


def whitened_kernel(X: np.ndarray, y: np.ndarray, H: int) -> np.ndarray:
    """Eigenvalues of ``Σ̂^{-1/2} Γ̂ Σ̂^{-1/2}`` on Lasso-SIR's equal-count slices."""
    sl = make_slices(y, H, function="arc", categorical=False)
    n = X.shape[0]
    Z = X - X.mean(axis=0)
    W = np.linalg.solve(np.linalg.cholesky(Z.T @ Z / n), Z.T).T
    M = np.zeros((X.shape[1], X.shape[1]))
    for h in range(sl.nslices):
        rows = sl.labels == h
        M += rows.mean() * np.outer(W[rows].mean(axis=0), W[rows].mean(axis=0))
    return np.sort(np.linalg.eigvalsh(M))[::-1]


def li_test(theta: np.ndarray, n: int, p: int, H: int, level: float) -> int:
    for m in range(min(p, H - 1)):
        if chi2.sf(n * theta[m:].sum(), (p - m) * (H - m - 1)) > level:
            return m
    return min(p, H - 1)


def criterion(theta: np.ndarray, n: int, p: int, H: int, c: float) -> int:
    values = [n * theta[k:].sum() + c * k * (p + H - 1 - k) for k in range(min(p, H - 1) + 1)]
    return int(np.argmin(values))


def log_two_means(statistic: np.ndarray) -> int:
    s = statistic[statistic > 0]
    return 1 if s.size < 2 else two_means_smaller_group(np.log(s / s[0]))


def rules_of(frame, seed: int) -> dict[str, int]:
    X, y = frame[PREDICTORS].to_numpy(), frame["y"].to_numpy()
    n, p, H = X.shape[0], X.shape[1], 10
    lasso = sdr.LassoSIR(random_state=seed, progress=False, d_rule="kmeans").fit(X, y)
    statistic = np.asarray(lasso.extras["d_statistic"], dtype=float)
    theta = whitened_kernel(X, y, H)
    auto = sdr.LassoSIR(random_state=seed, progress=False).fit(X, y)
    out = {
        f"lasso_sir: default (auto, chose by {auto.d_rule})": auto.d_choice.d,
        "lasso_sir: k-means on s_j (R's rule; the default before)": lasso.d_choice.d,
        "lasso_sir: two-means on log s_j": log_two_means(statistic),
    }
    for level in (0.01, 0.05, 0.10):
        out[f"lasso_sir kernel: Li's χ², level {level:.2f}"] = li_test(theta, n, p, H, level)
    for name, c in (("2 (AIC-type)", 2.0), ("3", 3.0), ("log n (BIC-type)", np.log(n))):
        out[f"lasso_sir kernel: criterion, c = {name}"] = criterion(theta, n, p, H, c)
    for rule in ("auto", "ratio", "asymptotic"):
        online = sdr.OnlineSIR(random_state=seed, init_size=200, d_rule=rule).fit(X, y)
        label = {
            "auto": f"online_sir: default (auto, chose by {online.d_rule})",
            "ratio": "online_sir: ratio (the default before)",
            "asymptotic": "online_sir: Li's χ²",
        }[rule]
        out[label] = online.d_choice.d
    # the same test on R dr's slices of all the rows (given as cut points): batch SIR's
    sl = make_slices(y, 9, function="dr")
    cuts = [y[sl.labels == h].max() for h in range(sl.nslices - 1)]
    online = sdr.OnlineSIR(random_state=seed, init_size=200, d_rule="asymptotic", cut_points=cuts)
    out["online_sir: Li's χ², dr's slices as cut points"] = online.fit(X, y).d_choice.d
    formula = "y ~ " + " + ".join(PREDICTORS)
    for label, options in (
        ("sir: Li's χ², dr slices (default: 9 x 44 + 4)", {}),
        ("sir: Li's χ², 9 equal slices", {"nslices": 9, "slice_function": "arc"}),
        ("sir: Li's χ², 10 equal slices", {"nslices": 10}),
    ):
        out[label] = sdr.sir(formula, frame, **options).d_choice.d
    return out


def main() -> None:
    warnings.simplefilter("ignore")
    table: dict[str, dict[str, list[int]]] = {}
    for model in MODELS:
        for seed in range(DRAWS):
            for rule, d in rules_of(draw(model, seed), seed).items():
                table.setdefault(rule, {}).setdefault(model, []).append(d)
    print("# Lasso-SIR's and online SIR's rules for d: single- and three-index models\n")
    print(
        "Output of `python benchmarks/bench_sparse_rules.py`; see its docstring. n = 400, "
        f"p = 6, {DRAWS} data sets a model (those of `bench_dimension.py`), every rule on the "
        "same data sets.\n"
    )
    print("| rule | single: true d | d = 0..4 | three: true d | d = 0..4 |")
    print("|---|---|---|---|---|")
    for rule, by_model in table.items():
        cells = []
        for model, truth in MODELS.items():
            chosen = np.asarray(by_model[model])
            counts = np.bincount(np.clip(chosen, 0, 4), minlength=5)
            cells += [f"{np.mean(chosen == truth):.0%}", " ".join(map(str, counts))]
        print(f"| {rule} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
