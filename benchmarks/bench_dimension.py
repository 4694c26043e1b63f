"""Every method's default dimension rule: how long it takes, and how often it finds the true d.

Two parts, both with every method's defaults (only ``random_state`` is given):

``time`` — at n = 500, p = 10 (the ``spread`` model below with four noise predictors more),
each method is fitted with ``d=None``, so its ``d_rule`` runs inside the fit, and
``test_dimension()`` is called with its defaults on a fit given ``d = 1``. Each method runs in
its own process with a time limit; the goal is 20 s for each.

``accuracy`` — n = 400, p = 6, ``x ~ N(0, I_6)``, ``e ~ N(0, 1)`` independent, models with a
known dimension:

* ``single`` (d = 1): ``y = x1 + 0.5 e``, a linear trend;
* ``spread`` (d = 2): ``y = 0.5 x1 + (0.1 + |x2|) e``: ``x2`` changes only the spread of
  ``y``, and symmetrically, so ``E(x | y)`` and ``E(y | x)`` both lie in ``span(x1)``;
* ``three`` (d = 3): ``y = x1 / (0.5 + (x2 + 1.5)²) + x3³/3 + 0.2 e``, Li's (1991) rational
  model plus a cubic trend in a third direction.

For each data set the rate counts the rule's own choice (``fit.d_choice.d``; 0 when it finds no
dependence, although the fit then keeps one direction). The classification methods (the
SDSPCAAN family) get ``y`` cut at its quintiles into five labels, their intended use (their
default rule is the CV one with the one-standard-error choice of ``d``). Online
SIR starts from its first half of the rows (its default first batch, 500 rows, is more than
n = 400).

Where a method cannot see a model, from theory, the table says so rather than dropping the
model (``BLIND`` below): pHd's ``E[(y − Ey) z zᵀ]`` is zero along a linear trend of a normal
``z`` (Li 1992), and along ``x3`` of the cubic (Stein's lemma: ``E f''(x3) = E 2 x3 = 0``);
the inverse-mean methods (SIR, IRE, CUME, Lasso-SIR, online SIR) and the mean-subspace fits
(SPCA and kernel SPCA with their default linear response kernel, whose target matrix has rank
one, so they see one direction at most) cannot see the symmetric spread direction; PCA and
vPCA ignore the response, and with ``x ~ N(0, I)`` their eigenvalue ratios carry nothing;
PCAN is unsupervised (the response only sets its number of clusters); the supervised SDSPCAAN
members (SDSPCA, SDSPCA-LPP, SDSPCAAN, SPCAN) see ``y`` through the class means of ``x``,
``E(x2 | label) = 0`` in ``spread`` as for SIR, and through a neighbour graph within classes,
whose pooled within-class variance of ``x2`` is ``1 − var E(x2 | label) = 1``, a noise
predictor's (their remaining terms ignore ``y``): at n = 1600 the share of ``x2`` in their
two-dimensional fit is no more than a noise predictor's; Bair's supervised PCA
keeps the predictors whose linear score ``|t|`` passes a threshold, and ``cov(x2, y) = 0`` in
``spread`` and ``three``, so ``x2`` is kept only by chance, and the eigenvalue-ratio rule then
reads the kept predictors' component variances, all 1 for ``x ~ N(0, I)``. mKDR's ``d``
counts functions of ``x`` on its Laplacian eigenmap (Nilsson, Sha & Jordan 2007), not linear
directions: in ``three`` the noise is additive, so the one function ``E(y | x)`` is a
sufficient reduction and "d = 3" is not what it estimates (``bench_mkdr_three.py`` measures
this: its two functions predict as well as ``x1, x3``, its three never better).

Where a rule misses a model its method can see, the table gives the reason measured by
``bench_moment_rules.py`` on the same data sets (``WHY`` below): the power of the test at
n = 400 and at n = 1000, its size, and the alternatives tried; for the moment methods also the
power that the noncentral χ² of the decisive step predicts at n = 400 and the n where it
reaches 60% (``bench_dimension_power.py``).

Each data set's result is appended to ``benchmarks/bench_dimension_runs.csv`` as soon as it is
computed, so a long run can be stopped and resumed (rows already there are skipped), and a
reduced run (``--draws 10``) is the first 10 data sets of the full one.

Run::

    python benchmarks/bench_dimension.py time [--limit 600]        # the timing table
    python benchmarks/bench_dimension.py accuracy [--draws 50] [--methods sir,save]
    python benchmarks/bench_dimension.py report                   # markdown from the CSVs

``report`` prints ``benchmarks/bench_dimension.md``. Seconds are wall time on a 2-core
machine shared with other jobs.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import sdrstats as sdr

HERE = Path(__file__).resolve().parent
RUNS = HERE / "bench_dimension_runs.csv"
TIMES = HERE / "bench_dimension_times.csv"
MODELS = {"single": 1, "spread": 2, "three": 3}
CLASSIFIERS = ("sdspcaan", "sdspca", "sdspca_lpp", "spcan", "pcan")
#: Methods that cannot see a model, and why (from theory, not from the runs).
BLIND = {
    ("phd", "single"): "pHd: no curvature along a linear trend (Li 1992)",
    ("phd", "spread"): "pHd: mean-subspace method; the trend is linear, the spread symmetric",
    ("phd", "three"): "pHd sees 2 of 3: no curvature along the cubic's x3 (Stein's lemma)",
    **{
        (m, "spread"): "inverse means: E(x given y) lies in span(x1); the spread is symmetric"
        for m in ("sir", "ire", "cume", "lasso_sir", "online_sir")
    },
    **{
        (m, model): "linear response kernel: rank-one target, one direction at most"
        for m in ("spca", "kspca")
        for model in ("spread", "three")
    },
    **{(m, model): "ignores the response" for m in ("pca", "vpca") for model in MODELS},
    ("bpca", "spread"): "BPCA screens by the linear score |t| and cov(x2, y) = 0, so x2 passes "
    "only as noise does; the ratio rule reads the kept predictors' component variances, "
    "all 1 for x ~ N(0, I)",
    ("bpca", "three"): "BPCA screens by the linear score |t| and cov(x2, y) = 0 (x2 only "
    "scales x1's effect): x2 is never kept; x1, x3 have equal component variances",
    **{("pcan", model): "unsupervised: y only sets the number of clusters" for model in MODELS},
    **{
        (m, "spread"): "class means: E(x2 given label) = 0; within-class graph: pooled "
        "within-class var of x2 = 1, a noise predictor's; x2's share of the 2D fit at n = 1600 "
        "is no more than a noise predictor's"
        for m in ("sdspca", "sdspca_lpp", "sdspcaan", "spcan")
    },
    ("mkdr", "three"): "mKDR's d counts functions of x on its eigenmap, not linear directions: "
    "with additive noise one function, E(y | x), is sufficient, so 'd = 3' is not its target "
    "(bench_mkdr_three.py: its 2 predict as well as x1, x3, its 3 never better; E(y | x) alone "
    "beats x1..x3)",
}

#: Why a rule misses where its method can see: measured by ``bench_moment_rules.py`` on the
#: same data sets (its output, ``bench_moment_rules.md``, has the tables). "Power" is the rate
#: of rejecting the first false hypothesis at level 0.05; "size" that of the true one. For the
#: SDSPCAAN family (one-standard-error CV on five classes): the same leave-one-out criterion
#: on the true directions (the best subset of x1, x2, x3 at each d), the rule's plain
#: minimum, and SIR's asymptotic test with the five classes as slices, on the same data sets
#: unless said; ``bench_dimension_power.py``: the squared length of x1, x2, x3 in the fitted
#: 3D span and the rule's choice at n = 400, 1000 and 2000 (20 seeds).
WHY = {
    ("sir", "three"): "power: Li's χ² rejects '2D vs ≥ 3D' in 41% of 200 data sets at "
    "n = 400 (23-45% with 6-12 slices), 80% at n = 1000; size 0.01-0.07; the permutation "
    "test: 38%; dr's slicing leaves a last slice of the 4 largest y, and on 9 equal slices the "
    "test picks 3 in 16% (bench_sparse_rules.md); the noncentral χ² predicts 50% (60% from "
    "n = 660; 59% with an exact null); the permutation test on the largest remaining "
    "eigenvalue picks 3 in 44% (48% with 6 slices; size 0.025): no level-0.05 rule in "
    "sdrstats reaches 60% at n = 400: bench_dimension_power.md",
    ("save", "spread"): "power: '1D vs ≥ 2D' rejected in 6% at n = 400, normal- and "
    "general-theory tests alike (20% with 4 slices), 76% at n = 1000; size ≤ 0.04; the "
    "permutation test: 10% (30% with 4 slices); the noncentral χ² predicts 33% (60% from "
    "n = 670), but at n = 400 the normal-theory null is conservative (size 0.000 on a null "
    "model); the permutation test on the largest remaining eigenvalue, 4 slices: 48% "
    "(size 0.055), the best level-0.05 rule in sdrstats, below 60%: "
    "bench_dimension_power.md",
    ("save", "three"): "power: '2D vs ≥ 3D' rejected in 3% at n = 400, both tests (7% with 4 "
    "slices), 20% at n = 1000; the permutation test: 32% (52% with 4 slices); the noncentral "
    "χ² predicts 10% (60% from n = 3150); the permutation test on the largest remaining "
    "eigenvalue (statistic='largest'), 4-5 slices, picks 3 in 66% (size <= 0.035; single "
    "94-96%): a level-0.05 rule in sdrstats that meets 60% at n = 400, offered as an "
    "option (the default stays R's): bench_dimension_power.md",
    ("ire", "three"): "power: '2D vs ≥ 3D' rejected in 27% at n = 400 (26% with 6 slices), "
    "84% at n = 1000; the noncentral χ² predicts 35% (60% from n = 680; 33% with an exact "
    "null); IRE has no eigenvalues, hence no permutation test: no level-0.05 rule in "
    "sdrstats reaches 60% at n = 400: bench_dimension_power.md",
    ("cume", "three"): "power: the permutation test rejects '2D vs ≥ 3D' in 61% of 100 data "
    "sets at n = 400 (100% at n = 1000): the goal is at the edge of its power",
    ("online_sir", "three"): "power: the default is Li's χ² from the stream's moments "
    "(n = 400 >= 2 p H = 120): never d = 1 (the ratio rule, the default before: 36 of 50), "
    "d = 2 in 42; '2D vs ≥ 3D' is at the power of equal-slice SIR at n = 400 (batch SIR on the "
    "same 10 equal slices: 12%; its 36% comes from dr's slicing, 9 x 44 rows + the 4 largest "
    "y; the stream's test on dr's cut points: 36%): bench_sparse_rules.md; on 10 equal slices "
    "the noncentral χ² predicts 35% (60% from n = 670; 28% with an exact null); SIR's "
    "permutation test on these slices picks 3 in 23% (size 0.05; on the largest eigenvalue "
    "29% at size 0.08): no level-0.05 rule reaches 60% at n = 400: bench_dimension_power.md",
    ("lasso_sir", "three"): "power: the default is Li's χ² of its kernel (n = 400 >= 2 p H = "
    "120), SIR's test on its 10 equal slices: never d = 1 (R's k-means, the default before: "
    "50 of 50, s_1 a group alone), d = 2 in 44; '2D vs ≥ 3D' is at the power of equal-slice "
    "SIR at n = 400 (batch SIR, 10 equal slices: 12%); no rule tried keeps single and gains "
    "(log-scale two-means 30% at single 88%, an AIC-type criterion 40% at 82%): "
    "bench_sparse_rules.md; on 10 equal slices the noncentral χ² predicts 35% (60% from "
    "n = 670; 28% with an exact null); SIR's permutation test on these slices picks 3 in 23% "
    "(size 0.05; on the largest eigenvalue 29% at size 0.08): no level-0.05 rule reaches 60% "
    "at n = 400: bench_dimension_power.md",
    **{
        (m, "three"): f"the fit's third direction, not the rule: given x1, x2, x3 themselves the "
        f"criterion picks 3 in 92% of these data sets (98% by its minimum); by the minimum CV: "
        f"{by_min}; SIR's χ² on the same 5 classes: 6%; {with_n} (bench_dimension_power.md, "
        f"the 3D fit's squared length on x1, x2, x3, 20 data sets at each n); no level-0.05 "
        f"rule measured at n = 400"
        for m, by_min, with_n in (
            (
                "sdspca",
                "34%",
                "an estimation limit: the span closes with n (0.79, 0.89, 0.83 "
                "at n = 400; 0.87, 0.95, 0.88 at 1000; 0.92, 0.97, 0.93 at 2000) and the rule "
                "picks 3 in 20%, 55%, 85% of the same seeds",
            ),
            (
                "sdspca_lpp",
                "20%",
                "not an estimation limit up to n = 2000: the span stays at "
                "0.70, 0.70, 0.79 (n = 400), 0.69, 0.68, 0.74 (1000), 0.71, 0.65, 0.72 (2000) and "
                "the rule picks 3 in 20% at each n",
            ),
            (
                "sdspcaan",
                "28%",
                "an estimation limit, slow: the span closes a little with n "
                "(0.73, 0.82, 0.82 at n = 400; 0.75, 0.86, 0.80 at 1000; 0.81, 0.87, 0.85 at "
                "2000) and the rule picks 3 in 10%, 35%, 50% of the same seeds",
            ),
            (
                "spcan",
                "44%",
                "an estimation limit: the span closes with n (0.83, 0.83, 0.90 "
                "at n = 400; 0.91, 0.80, 0.95 at 1000) and the rule picks 3 in 40% and 80% of "
                "the same seeds",
            ),
        )  # fmt: skip
    },
}


def draw(model: str, seed: int, n: int = 400, p: int = 6) -> pd.DataFrame:
    """One data set of ``model`` (columns x1..xp, y and the quintile label g)."""
    rng = np.random.default_rng([37, list(MODELS).index(model), seed, n, p])
    X = rng.standard_normal((n, p))
    e = rng.standard_normal(n)
    x1, x2, x3 = X[:, 0], X[:, 1], X[:, 2]
    if model == "single":
        y = x1 + 0.5 * e
    elif model == "spread":
        y = 0.5 * x1 + (0.1 + np.abs(x2)) * e
    else:
        y = x1 / (0.5 + (x2 + 1.5) ** 2) + x3**3 / 3 + 0.2 * e
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    frame["y"] = y
    frame["g"] = pd.qcut(y, 5, labels=list("abcde")).astype(str)
    return frame


def formula_fit(name: str) -> Callable[..., Any]:
    """``fit(frame, seed, **options)`` with the method's defaults."""

    def fit(frame: pd.DataFrame, seed: int, **options: Any) -> Any:
        predictors = [c for c in frame.columns if c.startswith("x")]
        if name == "online_sir":  # its default first batch is 500 rows: half the rows here
            options.setdefault("init_size", min(500, len(frame) // 2))
            return sdr.OnlineSIR(random_state=seed, **options).fit(frame[predictors], frame["y"])
        response = "g" if name in CLASSIFIERS else "y"
        formula = f"{response} ~ " + " + ".join(predictors)
        return getattr(sdr, name)(formula, frame, random_state=seed, **options)

    return fit


#: Every method, roughly from the cheapest default rule to the dearest.
METHODS = [
    "sir", "save", "phd", "pca", "vpca", "online_sir", "bpca", "spca", "ire", "lasso_sir",
    "directional_regression", "cume", "mave", "kspca", "sdspca", "sdspca_lpp", "sdspcaan",
    "spcan", "pcan", "kdr", "mkdr", "lsce", "lsmi",
]  # fmt: skip


def quiet(call: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# -- time --------------------------------------------------------------------------------------
def time_one(name: str) -> None:
    """Print one CSV row: the seconds of the rule in the fit, and of test_dimension()."""
    frame = draw("spread", 0, n=500, p=10)
    fit = formula_fit(name)
    start = time.perf_counter()
    chosen = quiet(lambda: fit(frame, 0))
    in_fit = time.perf_counter() - start
    given = quiet(lambda: fit(frame, 0, d=1))
    start = time.perf_counter()
    test = quiet(given.test_dimension)
    call = time.perf_counter() - start
    print(f"{name},{chosen.d_rule},{in_fit:.2f},{test.rule},{call:.2f},{chosen.d},{test.d}")


def time_all(limit: float, methods: list[str]) -> None:
    TIMES.write_text("method,rule,fit_s,test_rule,test_s,fit_d,test_d,load\n")
    for name in methods:
        command = [sys.executable, __file__, "time-one", name]
        start = time.perf_counter()
        try:
            out = (
                subprocess.run(command, capture_output=True, text=True, timeout=limit, check=True)
                .stdout.strip()
                .splitlines()[-1]
            )
        except subprocess.TimeoutExpired:
            out = f"{name},,>{limit:.0f},,,,"  # seven fields
        except subprocess.CalledProcessError as error:
            out = f"{name},error: {error.stderr.strip().splitlines()[-1][:80]},,,,,"
        load = os.getloadavg()[0]  # the machine is shared: the 1-minute load at the end
        with TIMES.open("a") as handle:
            handle.write(f"{out},{load:.1f}\n")
        print(out, f"({time.perf_counter() - start:.0f} s, load {load:.1f})", flush=True)


# -- accuracy ----------------------------------------------------------------------------------
def done_runs() -> set[tuple[str, str, int]]:
    if not RUNS.exists():
        return set()
    with RUNS.open() as handle:
        return {(r["method"], r["model"], int(r["seed"])) for r in csv.DictReader(handle)}


def accuracy(draws: int, methods: list[str], models: list[str]) -> None:
    done = done_runs()
    new = not RUNS.exists()
    with RUNS.open("a", newline="") as handle:
        writer = csv.writer(handle)
        if new:
            writer.writerow(["method", "model", "seed", "true_d", "rule", "chosen_d", "seconds"])
        for name in methods:
            fit = formula_fit(name)
            for model in models:
                for seed in range(draws):
                    if (name, model, seed) in done:
                        continue
                    frame = draw(model, seed)
                    start = time.perf_counter()
                    try:
                        result = quiet(lambda: fit(frame, seed))  # noqa: B023
                        rule = result.d_rule
                        chosen = result.d_choice.d if result.d_choice is not None else result.d
                    except Exception as error:  # a failing default is a result too
                        rule, chosen = f"error: {type(error).__name__}", -1
                    seconds = time.perf_counter() - start
                    writer.writerow(
                        [name, model, seed, MODELS[model], rule, chosen, f"{seconds:.2f}"]
                    )
                    handle.flush()
                print(f"{name} {model} done", flush=True)


# -- report ------------------------------------------------------------------------------------
def report() -> None:
    print("# Every method's default dimension rule: time and accuracy\n")
    print("Output of `python benchmarks/bench_dimension.py report`; see the script's docstring.\n")
    if TIMES.exists():
        times = pd.read_csv(TIMES)
        print("## Time of every default rule at n = 500, p = 10 (goal: 20 s each)\n")
        print(
            "`fit_s`: the fit with `d=None` (its rule runs inside); `test_s`: "
            "`test_dimension()` with its defaults on a fit given `d = 1`.\n"
        )
        print(times.to_markdown(index=False))
        print()
    if not RUNS.exists():
        return
    # two runs started side by side may both have computed a data set: count it once
    runs = pd.read_csv(RUNS).drop_duplicates(["method", "model", "seed"])
    print("## Rate of choosing the true d, n = 400, p = 6 (goal: 60% where a method can see)\n")
    rows = []
    runs["order"] = runs["method"].map({m: i for i, m in enumerate(METHODS)})
    runs = runs.sort_values(["order", "model", "seed"], kind="stable")
    for (name, model), group in runs.groupby(["method", "model"], sort=False):
        truth = MODELS[model]
        counts = np.bincount(group["chosen_d"].clip(lower=0), minlength=5)
        rate = np.mean(group["chosen_d"] == truth)
        goal = "blind" if (name, model) in BLIND else ("met" if rate >= 0.6 else "not met")
        rows.append(
            {
                "method": name,
                "model": f"{model} (d = {truth})",
                "rule": group["rule"].mode().iloc[0],
                "data sets": len(group),
                "true d chosen": f"{rate:.0%}",
                "d = 0, 1, 2, 3, 4+": " ".join(map(str, [*counts[:4], counts[4:].sum()])),
                "s per fit": f"{group['seconds'].mean():.1f}",
                "goal": goal,
                "blind (theory) / why not met (measured)": BLIND.get((name, model), "")
                or (WHY.get((name, model), "") if goal == "not met" else ""),
            }
        )
    print(pd.DataFrame(rows).to_markdown(index=False))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("part", choices=("time", "time-one", "accuracy", "report"))
    parser.add_argument("name", nargs="?")
    parser.add_argument("--limit", type=float, default=600.0)
    parser.add_argument("--draws", type=int, default=50)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    if args.part == "time-one":
        time_one(args.name)
    elif args.part == "time":
        time_all(args.limit, args.methods.split(","))
    elif args.part == "accuracy":
        accuracy(args.draws, args.methods.split(","), args.models.split(","))
    else:
        report()


if __name__ == "__main__":
    main()
