"""Seed 002's experiments (Barshan et al. 2011, slides 14-21) at reduced size.

(i) Regression (slide 20): three models, n = 100, 30 % test, ``--runs`` repetitions (50 as
in the seed). Each method reduces the predictors to 2 dimensions on the training part; a
kernel ridge regression (rbf kernel, alpha and gamma by 3-fold CV on the training part) on
the standardised 2-D projection predicts the test part. Reported: mean test RMSE (and its
standard error). "none" regresses on all predictors.

(ii) Classification: XOR and concentric circles (2 -> 2 dims) and iris (4 -> 2): 1-NN test
accuracy of the 2-D projection (standardised), averaged over ``--splits`` random 50/50
splits, and one figure per data set (``fit.plot()``: the projection coloured by class) in
``benchmarks/papers/figures/``.

Settings: SPCA with the rbf response kernel for regression (the linear kernel on one
response has rank 1) and the delta kernel plus I for classes (as the authors' code, so that
two directions exist); KSPCA with rbf kernels (median-heuristic widths) and the same
response kernels; BPCA with its CV threshold; KDR with its defaults (5 annealing stages).

Run: ``python benchmarks/papers/spca.py > benchmarks/papers/spca.md``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.datasets import load_iris, make_circles  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import sdrstats as sdr  # noqa: E402

FIGURES = Path(__file__).resolve().parent / "figures"
METHODS = ["SPCA", "KSPCA", "BPCA", "KDR", "none"]
#: Regression also reports KSPCA with its rbf width tuned on the training part.
REG_METHODS = ["SPCA", "KSPCA", "KSPCA (tuned)", "BPCA", "KDR", "none"]
KSPCA_GAMMAS = [0.02, 0.05, 0.1, 0.2, 0.5, 1.0]


# -- data (slide 20 and the toys) ---------------------------------------------------------
def model_a(n, rng):
    X = rng.standard_normal((n, 4))
    y = X[:, 0] / (0.5 + (X[:, 1] + 1.5) ** 2) + (1 + X[:, 1]) ** 2 + 0.5 * rng.standard_normal(n)
    return X, y


def model_b(n, rng):
    rows = []
    while sum(len(r) for r in rows) < n:  # uniform on [0,1]^4 without the cube [0,0.7]^4
        cand = rng.uniform(size=(2 * n, 4))
        rows.append(cand[~np.all(cand <= 0.7, axis=1)])
    X = np.vstack(rows)[:n]
    y = np.sin(np.pi * X[:, 1] + 1) ** 2 + 0.5 * rng.standard_normal(n)
    return X, y


def model_c(n, rng):
    X = rng.standard_normal((n, 10))
    return X, 0.5 * X[:, 0] ** 2 * rng.standard_normal(n)


def xor(n, rng):
    X = rng.uniform(-1, 1, size=(n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, "class 1", "class 2")


def circles(n, rng):
    X, y = make_circles(n, noise=0.08, factor=0.5, random_state=int(rng.integers(2**31 - 1)))
    return X, np.where(y == 1, "inner", "outer")


# -- methods ------------------------------------------------------------------------------
def fit_method(name, formula, train, classes, seed):
    if name == "SPCA":
        if classes:
            return sdr.spca(formula, train, d=2, add_identity=1.0)
        return sdr.spca(formula, train, d=2, kernel_y="rbf")
    if name == "KSPCA":
        if classes:
            return sdr.kspca(formula, train, d=2, add_identity=1.0)
        return sdr.kspca(formula, train, d=2, kernel_y="rbf")
    if name == "BPCA":
        return sdr.bpca(formula, train, d=2, random_state=seed)
    if name == "KDR":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sdr.ConvergenceWarning)
            return sdr.kdr(formula, train, d=2, random_state=seed)
    raise ValueError(name)


def features(name, fit, frame, x_cols):
    if name == "none":
        return frame[x_cols].to_numpy()
    return fit.transform(frame).to_numpy()


def _ridge_search(Ztr, ytr):
    scaler = StandardScaler().fit(Ztr)
    grid = GridSearchCV(
        KernelRidge(kernel="rbf"),
        {"alpha": [1e-2, 1e-1, 1.0], "gamma": [0.1, 0.5, 2.0]},
        cv=3,
        scoring="neg_mean_squared_error",
    )
    grid.fit(scaler.transform(Ztr), ytr)
    return scaler, grid


def regression_rmse(Ztr, ytr, Zte, yte):
    scaler, grid = _ridge_search(Ztr, ytr)
    pred = grid.predict(scaler.transform(Zte))
    return float(np.sqrt(np.mean((pred - yte) ** 2)))


def tuned_kspca(formula, train):
    """KSPCA whose rbf width gives the best 3-fold CV score of the ridge on the training part."""
    best = None
    for gamma in KSPCA_GAMMAS:
        fit = sdr.kspca(formula, train, d=2, kernel_y="rbf", gamma=gamma)
        _, grid = _ridge_search(fit.transform().to_numpy(), train["y"].to_numpy())
        if best is None or grid.best_score_ > best[0]:
            best = (grid.best_score_, fit)
    return best[1]


def regression(runs, rng):
    print("## (i) Regression (slide 20): mean test RMSE over", runs, "runs\n")
    print(
        "n = 100 per run, 70 train / 30 test, projections to 2 dimensions, kernel ridge "
        "regression (rbf; alpha, gamma by 3-fold CV) on the standardised projection.\n"
    )
    table = {}
    timing = {m: 0.0 for m in REG_METHODS}
    for label, gen in [
        ("(a) x ~ N(0, I4)", model_a),
        ("(b) uniform, cube removed", model_b),
        ("(c) y = x1^2 eps / 2, p = 10", model_c),
    ]:
        errors = {m: [] for m in REG_METHODS}
        for run in range(runs):
            X, y = gen(100, rng)
            cols = [f"x{j + 1}" for j in range(X.shape[1])]
            frame = pd.DataFrame(X, columns=cols).assign(y=y)
            perm = rng.permutation(100)
            train, test = frame.iloc[perm[:70]], frame.iloc[perm[70:]]
            formula = "y ~ " + " + ".join(cols)
            for m in REG_METHODS:
                start = time.perf_counter()
                if m == "KSPCA (tuned)":
                    fit = tuned_kspca(formula, train)
                else:
                    fit = None if m == "none" else fit_method(m, formula, train, False, run)
                Ztr, Zte = features(m, fit, train, cols), features(m, fit, test, cols)
                timing[m] += time.perf_counter() - start
                errors[m].append(
                    regression_rmse(Ztr, train["y"].to_numpy(), Zte, test["y"].to_numpy())
                )
        table[label] = {
            m: f"{np.mean(e):.3f} ± {np.std(e, ddof=1) / np.sqrt(len(e)):.3f}"
            for m, e in errors.items()
        }
    frame = pd.DataFrame(table).T[REG_METHODS]
    print(markdown(frame))
    print(
        "\nKSPCA (tuned): rbf width gamma in "
        f"{KSPCA_GAMMAS} chosen by the 3-fold CV score of the ridge on the training part "
        "(other columns use the median heuristic)."
    )
    print(
        "\n(± one standard error over runs.) Total fitting time per method (s): "
        + ", ".join(f"{m} {t:.1f}" for m, t in timing.items() if m != "none")
        + " (shared machine).\n"
    )
    return frame


def classification(splits, rng):
    print("## (ii) Classification: 1-NN test accuracy of the 2-D projection\n")
    print(
        f"Mean over {splits} random 50/50 splits (standardised projections). Figures: "
        "`fit.plot()` of the first split's training projection.\n"
    )
    iris = load_iris(as_frame=True).frame
    iris["species"] = np.asarray(load_iris().target_names)[iris.pop("target")]
    iris.columns = ["sepal_length", "sepal_width", "petal_length", "petal_width", "species"]
    sets = {
        "XOR (n = 400, 2 -> 2)": ("xor", lambda: _frame(*xor(400, rng))),
        "concentric circles (n = 400, 2 -> 2)": ("circles", lambda: _frame(*circles(400, rng))),
        "iris (n = 150, 4 -> 2)": ("iris", lambda: iris.rename(columns={"species": "y"})),
    }
    results = {}
    for label, (short, make) in sets.items():
        acc = {m: [] for m in METHODS}
        for split in range(splits):
            frame = make()
            x_cols = [c for c in frame.columns if c != "y"]
            perm = rng.permutation(len(frame))
            half = len(frame) // 2
            train, test = frame.iloc[perm[:half]], frame.iloc[perm[half:]]
            formula = "y ~ " + " + ".join(x_cols)
            fits = {}
            for m in METHODS:
                fit = None if m == "none" else fit_method(m, formula, train, True, split)
                fits[m] = fit
                Ztr, Zte = features(m, fit, train, x_cols), features(m, fit, test, x_cols)
                scaler = StandardScaler().fit(Ztr)
                knn = KNeighborsClassifier(1).fit(scaler.transform(Ztr), train["y"])
                acc[m].append(knn.score(scaler.transform(Zte), test["y"]))
            if split == 0:
                fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
                for ax, m in zip(axes, METHODS[:4]):
                    fits[m].plot(ax=ax, title=f"{m} ({label.split(' (')[0]})", s=10)
                fig.tight_layout()
                fig.savefig(FIGURES / f"spca_{short}.png", dpi=80)
                plt.close(fig)
        results[label] = {m: f"{np.mean(a):.3f}" for m, a in acc.items()}
    frame = pd.DataFrame(results).T[METHODS]
    print(markdown(frame))
    print("\nFigures: " + ", ".join(f"`figures/spca_{s}.png`" for s, _ in sets.values()) + "\n")
    return frame


def markdown(frame: pd.DataFrame) -> str:
    head = "| | " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|---|" + "---:|" * frame.shape[1]
    rows = ["| " + str(i) + " | " + " | ".join(map(str, r)) + " |" for i, r in frame.iterrows()]
    return "\n".join([head, rule, *rows])


def _frame(X, y):
    return pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(X.shape[1])]).assign(y=y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2011)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    FIGURES.mkdir(exist_ok=True)
    print("# Supervised PCA (seed 002) experiments at reduced size\n")
    print(
        f"`python benchmarks/papers/spca.py --runs {args.runs} --splits {args.splits} "
        f"--seed {args.seed}`\n"
    )
    reg = regression(args.runs, rng)
    classification(args.splits, rng)
    best = {row: reg.loc[row].map(lambda s: float(s.split(" ")[0])).idxmin() for row in reg.index}
    print("## The seed's claim\n")
    verdict = "holds" if all(v == "KSPCA" for v in best.values()) else "is not reproduced"
    print(
        "The seed reports that KSPCA gives the smallest RMSE on the regression sets. Best "
        "method per set here: "
        + "; ".join(f"{k}: **{v}**" for k, v in best.items())
        + f". The claim {verdict} here, neither with median-heuristic kernel widths nor "
        "with the width tuned by cross-validation on the training part (the paper's tuning "
        "protocol is not stated in the seed)."
    )
    print(
        "\nNotes: in model (c) E(y | x) = 0, so no reduction can improve the mean "
        "prediction and every RMSE sits near sd(y). In the 2 -> 2 toys a linear method "
        "keeps all of x, so SPCA, BPCA and KDR (and 'none') give the same 1-NN accuracy up "
        "to the standardisation; only KSPCA changes the geometry (see the XOR figure, where "
        "its projection unfolds the four quadrants into two arms)."
    )


if __name__ == "__main__":
    main()
