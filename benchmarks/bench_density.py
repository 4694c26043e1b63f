"""Conditional densities judged against the truth: calibration where the noise varies,
proper scores against statsmodels, conformal intervals, smoothing and speed.

The suite: x ~ N(0, I_5), n = 500 training rows, 10 data sets per model, each scored on
4,000 fresh draws (and its conformal intervals calibrated on 500 more fresh draws):

- ``homoscedastic``: y = x1 + 0.25 x1² + 0.5 ε;
- ``mean direction``: y = x1 + 0.5 exp(x1 / 2) ε (the noise grows along the mean's direction);
- ``other direction``: y = x1 + (0.2 + |x2|) ε (along a direction the mean does not use);
- ``one-sided``: y = x1 + (0.1 + max(x2, 0)) ε (growing with x2 on one side only);
- ``skewed``: y = x1 + 0.6 (E - 1), E ~ Exp(1);
- ``bimodal``: y = x1 ± 1 + 0.3 ε (two modes 2 apart at every x).

For each data set, LSCE, SIR, SAVE and MAVE are fitted with their defaults (LSCE seeded by
the data set's number) and ``fit.conditional_density()`` with its defaults; on the same
reduced predictors statsmodels' ``KDEMultivariateConditional`` with ``bw="cv_ml"``.
Measured on the fresh draws: coverage of the central 80 % interval overall and in thirds of
the *true* conditional sd (ties, as the one-sided model's sd of 0.1 for half the rows, split
in a fixed random order; for the homoscedastic, skewed and bimodal models the thirds are
random thirds), the Kolmogorov-Smirnov statistic of the PIT, the mean log predictive
density (and the true density's, as the ceiling), the coverage of the split-conformal 80 %
intervals (plain and locally weighted), the local maxima per row of the density (40 rows;
smooth laws have one, the bimodal two), and the CPU time of the reduction, the density and
the KDE.

The width rule: on every data set the LSCE and MAVE densities are fitted a second time with
the rule for the components' width that preceded the held-out one-standard-error rule (the
squared-loss choice of σ_y or a grid neighbour by held-out log score; one width), to see
what the rule costs in log score and gains in smoothness.

Speed: ``lscde`` with its default model at n = 400 on LSCE's toy (a) (p = 5 and p = 2) and on
the other-direction model, median CPU of repeated fits.

Real data: ais (``lbm ~ 9 predictors``) and boston (``medv ~ .``), 5-fold cross-validation,
LSCE with d = 2 on each training fold; the default density against the one-width LSCDE and
cv_ml. Last, LSCE with one width or separate widths on LSCE's toy (b) (Error_DR), kept from
the earlier version of this benchmark.

Usage: python benchmarks/bench_density.py [--quick] [--out FILE] [--models A,B] [--methods a,b]
Seeded throughout; the machine is shared, so CPU times are noisy (the load average at the
start and end is printed), ratios less so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy.special import logsumexp, ndtr
from scipy.stats import kstest
from statsmodels.nonparametric.kernel_density import KDEMultivariateConditional
from threadpoolctl import threadpool_limits

import sdrstats as sdr
import sdrstats.density.models as density_models
from sdrstats.simulate import lsce_artificial
from sdrstats.stats.distances import projection_distance
from sdrstats.stats.gaussian import heldout_log_density

P = 5
MODELS = ["homoscedastic", "mean direction", "other direction", "one-sided", "skewed", "bimodal"]
METHODS = ["lsce", "mave", "sir", "save"]  # the goals' methods first
LEVEL = 0.8
THIRDS = ["lowest", "middle", "highest"]


# -- the suite --------------------------------------------------------------------------------
def draw(model: str, n: int, seed: list[int]) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Rows of ``model``, the true conditional sd and the true log density of each row."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, P))
    x1, x2 = X[:, 0], X[:, 1]
    e = rng.standard_normal(n)
    if model == "skewed":
        m, sd = x1, np.full(n, 0.6)
        E = rng.exponential(size=n)
        y = m + 0.6 * (E - 1.0)
        logp = np.log(1 / 0.6) - E
    elif model == "bimodal":
        sign = rng.choice([-1.0, 1.0], n)
        y = x1 + sign + 0.3 * e
        sd = np.full(n, np.sqrt(1 + 0.3**2))
        logp = np.logaddexp(normal_logpdf(y, x1 - 1, 0.3), normal_logpdf(y, x1 + 1, 0.3))
        logp -= np.log(2)
    else:
        m, sd = {
            "homoscedastic": (x1 + 0.25 * x1**2, np.full(n, 0.5)),
            "mean direction": (x1, 0.5 * np.exp(0.5 * x1)),
            "other direction": (x1, 0.2 + np.abs(x2)),
            "one-sided": (x1, 0.1 + np.maximum(x2, 0.0)),
        }[model]
        y = m + sd * e
        logp = normal_logpdf(y, m, sd)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(P)]).assign(y=y)
    return frame, sd, logp


def normal_logpdf(y, m, s):
    return -0.5 * ((y - m) / s) ** 2 - np.log(np.sqrt(2 * np.pi) * s)


def fit_method(name: str, train: pd.DataFrame, seed: int):
    if name == "lsce":
        return sdr.lsce("y ~ .", train, random_state=seed, progress=False)
    return getattr(sdr, name)("y ~ .", train)


def thirds(sd: np.ndarray) -> np.ndarray:
    """0, 1, 2 by third of ``sd``, ties in a fixed random order."""
    order = np.lexsort((np.random.default_rng(0).random(len(sd)), sd))
    label = np.empty(len(sd), int)
    label[order] = np.arange(len(sd)) * 3 // len(sd)
    return label


def modes(dens, rows: pd.DataFrame) -> float:
    """Mean number of local maxima (above 5 % of the peak) of each row's density on 400
    points between its 0.1 % and 99.9 % quantiles."""
    ends = dens.quantile(rows, [0.001, 0.999]).to_numpy()
    counts = []
    for i in range(len(rows)):
        grid = np.linspace(ends[i, 0], ends[i, 1], 400)
        f = dens.pdf(rows.iloc[[i]], grid)[0]
        peak = (f[1:-1] > f[:-2]) & (f[1:-1] >= f[2:]) & (f[1:-1] > 0.05 * f.max())
        counts.append(peak.sum())
    return float(np.mean(counts))


def cpu(fn):
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return out, time.process_time() - start


# -- statsmodels' conditional KDE as a mixture -------------------------------------------------
def kde_scores(Z_train, y_train, Z_test, y_test) -> tuple[dict, float]:
    """Log density and PIT of statsmodels' cv_ml conditional KDE, and its fit time. With
    Gaussian kernels it is a mixture in y (weights ∝ Π_l φ((z_l - z_il)/h_l), means y_i, sd
    h_y), checked against statsmodels' own pdf on the first rows."""
    kde, seconds = cpu(
        lambda: KDEMultivariateConditional(
            endog=[y_train],
            exog=list(Z_train.T),
            dep_type="c",
            indep_type="c" * Z_train.shape[1],
            bw="cv_ml",
        )
    )
    h_y, h_z = kde.bw[0], kde.bw[1:]
    logk = np.empty((len(Z_test), len(Z_train)))
    for start in range(0, len(Z_test), 500):
        block = Z_test[start : start + 500]
        logk[start : start + 500] = -0.5 * (
            ((block[:, None, :] - Z_train[None, :, :]) / h_z) ** 2
        ).sum(-1)
    logw = logk - logsumexp(logk, axis=1, keepdims=True)
    z = (y_test[:, None] - y_train[None, :]) / h_y
    log_density = logsumexp(logw - 0.5 * z * z, axis=1) - np.log(np.sqrt(2 * np.pi) * h_y)
    pit = np.einsum("rk,rk->r", np.exp(logw), ndtr(z))
    own = kde.pdf(endog_predict=y_test[:50], exog_predict=Z_test[:50])
    ok = np.isfinite(own) & (own > 1e-300)  # where every kernel weight underflows: 0/0
    np.testing.assert_allclose(np.exp(log_density[:50])[ok], own[ok], rtol=1e-6)
    return {"log_density": log_density, "pit": pit}, seconds


# -- the width rule before the one-standard-error rule ----------------------------------------
def previous_width_rule(
    problem, folds, fit, sigmas, values, log_jacobian, factors=(1.0,), tail=0.0, *,
    known=None, coarse=False,
):  # fmt: skip
    """σ_y as before: the squared loss's choice, and for the location-scale model its grid
    neighbours, kept by the best held-out log score (one width, no one-se rule). With
    ``coarse`` (the auto model's ranking) its score alone; ``known`` is not used."""
    identity = np.eye(problem.X.shape[1])
    targets = problem.Y if values is None else values
    step = float(sigmas[1] / sigmas[0])
    candidates = [fit["sigma_y"]] if tail == 0 else [fit["sigma_y"] * step**j for j in (-1, 0, 1)]
    best = (-np.inf, fit["sigma_y"], 1.0)
    for sy in candidates:
        logp = heldout_log_density(
            problem, identity, (fit["sigma_z"], sy), fit["lambda"], folds,
            [targets / c for c in factors],
        )  # fmt: skip
        for lp, c in zip(logp, factors):
            if tail > 0:
                v = targets / c
                log_tail = -0.5 * ((v / 10.0) ** 2).sum(axis=1) - v.shape[1] * np.log(
                    np.sqrt(2 * np.pi) * 10.0
                )
                lp = np.logaddexp(np.log1p(-tail) + lp, np.log(tail) + log_tail)
            score = float(np.mean(lp + log_jacobian)) - targets.shape[1] * np.log(c)
            if score > best[0]:
                best = (score, sy, c)
    if coarse:
        return best[0]
    return best[0], float(best[1]), float(best[2]), None, None


def with_previous_width_rule(fn):
    kept = density_models.choose_component_width
    density_models.choose_component_width = previous_width_rule
    try:
        return fn()
    finally:
        density_models.choose_component_width = kept


# -- one data set --------------------------------------------------------------------------------
def evaluate(
    model: str, rep: int, n: int, n_test: int, n_cal: int, rows_csv: str | None = None
) -> list[dict]:
    """Every method's scores on one data set of ``model``; with ``rows_csv`` each method's
    row is appended to it as soon as it is scored."""
    train, _, _ = draw(model, n, [rep, 1])
    test, sd, true_logp = draw(model, n_test, [rep, 2])
    calibration, _, _ = draw(model, n_cal, [rep, 3])
    label = thirds(sd)
    y = test["y"].to_numpy()
    rows = []
    for name in METHODS:
        fit, t_fit = cpu(lambda name=name: fit_method(name, train, rep))
        dens, t_dens = cpu(lambda fit=fit: fit.conditional_density(random_state=rep))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cal = dens.calibration(test)
        pit = cal.pit.to_numpy()
        covered = (pit > (1 - LEVEL) / 2) & (pit < (1 + LEVEL) / 2)
        row = {
            "model": model,
            "rep": rep,
            "method": name,
            "d": fit.d,
            "density model": dens.model,
            "log-scale": dens.tuning.get("log_scale", ""),
            "spread directions": 0 if dens.spread_directions is None else dens.spread.k,
            "coverage": covered.mean(),
            **{t: covered[label == k].mean() for k, t in enumerate(THIRDS)},
            "KS D": cal.uniformity.statistic,
            "KS p": cal.uniformity.p_value,
            "log score": cal.log_score,
            "truth log score": true_logp.mean(),
            "modes": modes(dens, test.iloc[:40]),
            "fit CPU s": t_fit,
            "density CPU s": t_dens,
        }
        for weighted in (False, True):
            band = dens.interval(test, LEVEL, conformal=calibration, weighted=weighted)
            inside = (y >= band["lower"].to_numpy()) & (y <= band["upper"].to_numpy())
            row["conformal weighted" if weighted else "conformal"] = inside.mean()
        Z_train, Z_test = fit.transform().to_numpy(), fit.transform(test).to_numpy()
        kde, t_kde = kde_scores(Z_train, train["y"].to_numpy(), Z_test, y)
        kde_covered = (kde["pit"] > (1 - LEVEL) / 2) & (kde["pit"] < (1 + LEVEL) / 2)
        row.update(
            {
                "cv_ml log score": kde["log_density"].mean(),
                "cv_ml coverage": kde_covered.mean(),
                **{f"cv_ml {t}": kde_covered[label == k].mean() for k, t in enumerate(THIRDS)},
                "cv_ml KS D": kstest(kde["pit"], "uniform").statistic,
                "cv_ml CPU s": t_kde,
            }
        )
        if name in ("lsce", "mave"):
            old, _ = cpu(
                lambda fit=fit: with_previous_width_rule(
                    lambda: fit.conditional_density(random_state=rep)
                )
            )
            row["previous rule log score"] = old.calibration(test, by=sd).log_score
            row["previous rule modes"] = modes(old, test.iloc[:40])
        rows.append(row)
        if rows_csv:
            pd.DataFrame([row]).to_csv(
                rows_csv, mode="a", header=not os.path.exists(rows_csv), index=False
            )
    return rows


# -- speed ----------------------------------------------------------------------------------------
def reference_seconds() -> float:
    """CPU of a fixed numpy workload (a 400 x 400 exp and a 100 x 100 solve, 200 times), to
    put the machine's state beside the times."""
    rng = np.random.default_rng(0)
    A, M = rng.standard_normal((400, 400)), rng.standard_normal((100, 100)) + 10 * np.eye(100)

    def work():
        with threadpool_limits(1, user_api="blas"):
            for _ in range(200):
                np.exp(-A * A)
                np.linalg.solve(M, A[:100])

    return cpu(work)[1]


def speed(repeats: int) -> pd.DataFrame:
    data, _ = lsce_artificial("a", 400, random_state=0)
    other, _, _ = draw("other direction", 400, [0, 9])
    cases = [
        ("LSCE toy (a), y ~ . (p = 5)", data, "y ~ .", "auto"),
        ("LSCE toy (a), y ~ x1 + x2 (p = 2)", data, "y ~ x1 + x2", "auto"),
        ("other direction, y ~ . (p = 5)", other, "y ~ .", "auto"),
        ("LSCE toy (a), y ~ . (p = 5), one width as published", data, "y ~ .", "single"),
    ]
    rows = []
    for label, frame, formula, model in cases:
        times = []
        for r in range(repeats):
            fit, t = cpu(
                lambda frame=frame, formula=formula, model=model, r=r: sdr.lscde(
                    formula, frame, model=model, random_state=r
                )
            )
            times.append(t)
        dens = fit.conditional_density()
        rows.append(
            {
                "case": label,
                "model": model,
                "median CPU s": float(np.median(times)),
                "min CPU s": float(np.min(times)),
                "chosen": dens.model,
                "log-scale": dens.tuning.get("log_scale", ""),
            }
        )
    return pd.DataFrame(rows)


# -- real data and LSCE's widths (kept from the earlier benchmark) --------------------------------
def real(name: str, formula: str, response: str, folds: int = 5) -> pd.DataFrame:
    data = sdr.datasets.load(name)
    order = np.random.default_rng(7).permutation(len(data)) % folds
    rows = []
    for k in range(folds):
        train, test = data[order != k], data[order == k]
        fit, _ = cpu(
            lambda train=train, k=k: sdr.lsce(formula, train, d=2, random_state=k, progress=False)
        )
        y = test[response].to_numpy(float)
        for label, kw in (("default", {}), ("LSCDE one width", {"model": "single"})):
            dens, t = cpu(lambda kw=kw, fit=fit, k=k: fit.conditional_density(random_state=k, **kw))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cal = dens.calibration(test)
            rows.append(
                {"data": name, "fold": k, "density": label, "log score": cal.log_score,
                 "CRPS": cal.crps, "coverage": cal.coverage.loc["overall", LEVEL],
                 "CPU s": t}
            )  # fmt: skip
        kde, t = kde_scores(fit.transform().to_numpy(), train[response].to_numpy(float),
                            fit.transform(test).to_numpy(), y)  # fmt: skip
        pit = kde["pit"]
        rows.append(
            {"data": name, "fold": k, "density": "statsmodels cv_ml",
             "log score": kde["log_density"].mean(), "CRPS": np.nan,
             "coverage": np.mean((pit > 0.1) & (pit < 0.9)), "CPU s": t}
        )  # fmt: skip
    return pd.DataFrame(rows)


class SeparateWidthsLSCE(sdr.LSCE):
    """LSCE whose re-selection chooses σ_z, σ_y and λ (coordinate descent on the grid)."""

    widths = "separate"


def lsce_widths(reps: int, n: int = 300) -> pd.DataFrame:
    rows = []
    for rep in range(reps):
        key = [ord("b"), n, 1000 + rep]  # the draws of lsce_artificial.py --reliability
        train, truth = lsce_artificial("b", n, random_state=key)
        X, y = train.drop(columns="y").to_numpy(), train["y"].to_numpy()
        opts = {"d": 1, "progress": False, "random_state": key}
        fits = {}
        for label, cls in (("one", sdr.LSCE), ("two", SeparateWidthsLSCE), ("lsmi", sdr.LSMI)):
            fits[label] = cpu(lambda cls=cls, opts=opts, X=X, y=y: cls(**opts).fit(X, y))
        (one, t_one), (two, t_two), (lsmi, _) = fits["one"], fits["two"], fits["lsmi"]
        rows.append(
            {
                "LSCE one width": projection_distance(one.directions.to_numpy(), truth),
                "LSCE separate widths": projection_distance(two.directions.to_numpy(), truth),
                "LSMI": projection_distance(lsmi.directions.to_numpy(), truth),
                "one width CPU s": t_one,
                "separate CPU s": t_two,
            }
        )
        print(f"  lsce widths {rep}", file=sys.stderr)
    return pd.DataFrame(rows)


# -- report ----------------------------------------------------------------------------------------
def mean_se(v: pd.Series, digits: int = 3) -> str:
    v = v.dropna()
    if len(v) < 2:
        return f"{v.mean():.{digits}f}"
    return f"{v.mean():.{digits}f} ± {v.std(ddof=1) / np.sqrt(len(v)):.{digits}f}"


def suite_tables(suite: pd.DataFrame) -> list[str]:
    out = []
    for model in MODELS:
        g = suite[suite.model == model]
        reps = g.rep.nunique()
        out += [
            "",
            f"### {model} ({reps} data sets; mean ± se over data sets)",
            "",
            "| method | d | 80 % coverage: lowest third of true sd | middle | highest | overall | "
            "cv_ml: lowest / middle / highest | PIT KS D (cv_ml) | log score | cv_ml log score "
            "| truth | conformal (weighted) | modes per row | CPU s: fit / density / cv_ml |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name in METHODS:
            h = g[g.method == name]
            if h.empty:
                continue
            out.append(
                f"| {name} | {h['d'].mean():.1f} | {mean_se(h['lowest'])} | "
                f"{mean_se(h['middle'])} | {mean_se(h['highest'])} | {h['coverage'].mean():.3f} | "
                f"{h['cv_ml lowest'].mean():.2f} / {h['cv_ml middle'].mean():.2f} / "
                f"{h['cv_ml highest'].mean():.2f} | {h['KS D'].mean():.3f} "
                f"({h['cv_ml KS D'].mean():.3f}) | {mean_se(h['log score'])} | "
                f"{mean_se(h['cv_ml log score'])} | {h['truth log score'].mean():.3f} | "
                f"{h['conformal'].mean():.3f} ({h['conformal weighted'].mean():.3f}) | "
                f"{h['modes'].mean():.2f} | {h['fit CPU s'].median():.2f} / "
                f"{h['density CPU s'].median():.2f} / {h['cv_ml CPU s'].median():.1f} |"
            )
        chosen = g.groupby("method")["log-scale"].agg(lambda v: ", ".join(
            f"{k} {c}" for k, c in v.value_counts().items()))  # fmt: skip
        out += [
            "",
            "Log-scale kept: "
            + "; ".join(f"{m}: {chosen[m]}" for m in METHODS if m in chosen.index)
            + ".",
        ]
    return out


def goals(suite: pd.DataFrame) -> list[str]:
    lines = ["", "## Goals", ""]
    by = suite.groupby(["model", "method"])
    cells = by[THIRDS].mean()
    for name in [m for m in ("lsce", "mave") if m in METHODS]:
        sub = cells.xs(name, level="method")
        misses = [
            f"{model} {t} {sub.loc[model, t]:.3f}"
            for model in MODELS
            for t in THIRDS
            if not 0.75 <= sub.loc[model, t] <= 0.85
        ]
        lines.append(
            f"- Every third of every model within [0.75, 0.85] for {name}'s default density "
            f"(means over data sets): range {sub.to_numpy().min():.3f}-{sub.to_numpy().max():.3f}"
            + (f"; outside: {', '.join(misses)}" if misses else "")
            + f" — **{'met' if not misses else 'not met'}**."
        )
    others = cells[~cells.index.get_level_values("method").isin(["lsce", "mave"])]
    if len(others):
        lines.append(
            f"- (SIR and SAVE, not a goal: thirds within {others.to_numpy().min():.3f}-"
            f"{others.to_numpy().max():.3f}.)"
        )
    # paired: over the data sets whose KDE was scored
    paired = suite.dropna(subset=["cv_ml log score"])
    diff = (
        (paired["log score"] - paired["cv_ml log score"])
        .groupby([paired.model, paired.method])
        .mean()
    )
    counts = paired.groupby(["model", "method"]).size()
    worse = [f"{m}/{k} {v:+.3f}" for (m, k), v in diff.items() if v <= 0]
    lines.append(
        "- A better mean log score than statsmodels' cv_ml KDE on the same reduced predictors, "
        f"on every model and method (paired, over the {counts.min()}-{counts.max()} data sets "
        f"of each model and method whose KDE was fitted): default minus cv_ml from "
        f"{diff.min():+.3f} to {diff.max():+.3f}"
        + (f"; not better: {', '.join(worse)}" if worse else "")
        + f" — **{'met' if not worse else 'not met'}**."
    )
    conf = by[["conformal", "conformal weighted"]].mean()
    gap = (conf - LEVEL).abs()
    worst = gap.stack().idxmax()
    lines.append(
        "- Conformal intervals' marginal coverage within 0.02 of 0.80 everywhere (mean over "
        f"data sets, plain and weighted): from {conf.to_numpy().min():.3f} to "
        f"{conf.to_numpy().max():.3f}, largest gap {gap.to_numpy().max():.3f} "
        f"({worst[0]}, {worst[1]}, {worst[2]}) — **{'met' if gap.to_numpy().max() <= 0.02 else 'not met'}**. "
        f"Single data sets (500 calibration rows, sd of coverage about 0.019): "
        f"{suite[['conformal', 'conformal weighted']].to_numpy().min():.3f}-"
        f"{suite[['conformal', 'conformal weighted']].to_numpy().max():.3f}."
    )
    return lines


def width_rule(suite: pd.DataFrame) -> list[str]:
    sub = suite[suite.method.isin(["lsce", "mave"])]
    g = sub.groupby(["model", "method"])
    d = sub["log score"] - sub["previous rule log score"]
    lines = [
        "",
        "## The components' width: held-out one-standard-error rule against the rule before",
        "",
        "| model | method | log score, one-se rule | log score, rule before | difference | "
        "modes per row, one-se rule | rule before |",
        "|---|---|---|---|---|---|---|",
    ]
    for (model, name), h in g:
        diff = h["log score"] - h["previous rule log score"]
        lines.append(
            f"| {model} | {name} | {h['log score'].mean():.3f} | "
            f"{h['previous rule log score'].mean():.3f} | {mean_se(diff)} | "
            f"{h['modes'].mean():.2f} | {h['previous rule modes'].mean():.2f} |"
        )
    lines += [
        "",
        f"Over all {len(sub)} fits the one-se rule changes the mean log score by "
        f"{d.mean():+.4f} (se {d.std(ddof=1) / np.sqrt(len(d)):.4f}); rows whose density has "
        f"more than one local maximum on a unimodal law: "
        f"{(sub[sub.model != 'bimodal']['modes'] > 1.0).mean():.0%} of fits with the rule, "
        f"{(sub[sub.model != 'bimodal']['previous rule modes'] > 1.0).mean():.0%} before.",
    ]
    return lines


def speed_lines(speeds: pd.DataFrame, repeats: int) -> list[str]:
    lines = [
        "",
        "## Speed: `lscde` with its default model at n = 400",
        "",
        "| case | model | median CPU s | min CPU s | chosen | log-scale |",
        "|---|---|---|---|---|---|",
    ]
    for r in speeds.itertuples():
        lines.append(f"| {r.case} | {r.model} | {r._3:.3f} | {r._4:.3f} | {r.chosen} | {r._6} |")
    fast, two = speeds.iloc[0]["median CPU s"], speeds.iloc[1]["median CPU s"]
    lines += [
        "",
        f"Goal: the default at most 0.1 s CPU at n = 400: {fast:.3f} s on toy (a) with p = 5 "
        f"— **{'met' if fast <= 0.1 else 'not met'}**; {two:.3f} s with p = 2 — "
        f"**{'met' if two <= 0.1 else 'not met'}** ({repeats} fits, median).",
    ]
    return lines


def real_lines(realdata: pd.DataFrame) -> list[str]:
    lines = [
        "",
        "## Real data: 5-fold cross-validation, LSCE d = 2 on each training fold (mean ± se over folds)",
        "",
        "| data | density | log score | CRPS | 80 % coverage | CPU s |",
        "|---|---|---|---|---|---|",
    ]
    for (data, label), h in realdata.groupby(["data", "density"], sort=False):
        lines.append(
            f"| {data} | {label} | {mean_se(h['log score'])} | {mean_se(h['CRPS'])} | "
            f"{h['coverage'].mean():.3f} | {h['CPU s'].median():.2f} |"
        )
    return lines


def widths_lines(widths: pd.DataFrame) -> list[str]:
    lines = [
        "",
        f"## LSCE on toy (b): one width or separate widths (Error_DR, {len(widths)} draws, n = 300)",
        "",
        "| | mean Error_DR | se | median | max |",
        "|---|---|---|---|---|",
    ]
    for c in ("LSCE one width", "LSCE separate widths", "LSMI"):
        v = widths[c]
        lines.append(
            f"| {c} | {v.mean():.4f} | {v.std(ddof=1) / np.sqrt(len(v)):.4f} | "
            f"{v.median():.4f} | {v.max():.4f} |"
        )
    lines += [
        "",
        f"CPU per fit: one width {widths['one width CPU s'].median():.2f} s, separate widths "
        f"{widths['separate CPU s'].median():.2f} s (medians).",
    ]
    return lines


def run_suite(
    models: list[str], reps: int, n_test: int, rows_csv: str | None, first: int = 0
) -> pd.DataFrame:
    """Every data set of ``models``, the first data set of every model before the second;
    with ``rows_csv`` each method's scores are appended to it as soon as they are
    computed, so a run cut short keeps what it finished, in as many data sets of each
    model."""
    rows = []
    for rep in range(first, reps):
        for model in models:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rows += evaluate(model, rep, 500, n_test, 500, rows_csv)
            print(f"  {model} {rep}", file=sys.stderr)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer draws, for a smoke run")
    parser.add_argument("--out", default=None)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated subset")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset")
    parser.add_argument("--reps", type=int, default=None, help="data sets per model")
    parser.add_argument(
        "--first-rep", type=int, default=0, help="start at this data set (parallel workers)"
    )
    parser.add_argument(
        "--rows-csv", default=None, help="append each data set's scores to this CSV as it ends"
    )
    parser.add_argument(
        "--suite-from",
        default=None,
        help="comma-separated CSVs of --rows-csv runs (e.g. one per model, run in parallel): "
        "report them instead of running the suite",
    )
    parser.add_argument(
        "--suite-only", action="store_true", help="only the suite (no speed, real data, widths)"
    )
    parser.add_argument(
        "--parts",
        default="speed,real,widths",
        help="which parts besides the suite to run and report (comma-separated)",
    )
    args = parser.parse_args()
    MODELS[:] = args.models.split(",")
    METHODS[:] = args.methods.split(",")
    reps, n_test, widths_reps, repeats = (1, 1000, 2, 3) if args.quick else (10, 4000, 20, 15)
    reps = args.reps or reps
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    load_start = os.getloadavg()
    reference = reference_seconds()
    if args.suite_from:
        suite = pd.concat([pd.read_csv(f) for f in args.suite_from.split(",")], ignore_index=True)
        # Workers whose ranges of data sets overlap score the same rows identically.
        suite = suite.drop_duplicates(["model", "rep", "method"]).sort_values(["model", "rep"])
        suite["log-scale"] = suite["log-scale"].fillna("")
        MODELS[:] = [m for m in MODELS if m in set(suite.model)]
        METHODS[:] = [m for m in METHODS if m in set(suite.method)]
    else:
        suite = run_suite(MODELS, reps, n_test, args.rows_csv, args.first_rep)
    if args.suite_only:
        print(suite.groupby(["model", "method"])[THIRDS + ["coverage"]].mean().round(3))
        return
    parts = set(args.parts.split(","))
    speeds = speed(repeats) if "speed" in parts else None
    realdata = widths = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "real" in parts:
            realdata = pd.concat(
                [
                    real("ais", "lbm ~ ht + wt + rcc + wcc + hc + hg + ferr + bmi + ssf", "lbm"),
                    real("boston", "medv ~ .", "medv"),
                ]
            )
        if "widths" in parts:
            widths = lsce_widths(widths_reps)
    load_end = os.getloadavg()
    reference_end = reference_seconds()
    lines = [
        "# Conditional densities judged against the truth",
        "",
        f"Command: `python benchmarks/bench_density.py{' --quick' if args.quick else ''}` (the "
        f"module docstring describes the models and measures)"
        + (
            "; the suite's data sets were scored by parallel `--rows-csv` runs (each a range of "
            "data sets) and reported with `--suite-from`"
            if args.suite_from
            else ""
        )
        + ". Wall time "
        f"{time.perf_counter() - start_wall:.0f} s, CPU {time.process_time() - start_cpu:.0f} s "
        f"on {os.cpu_count()} cores. Machine load (`uptime` load averages, 1/5/15 min): "
        f"{load_start[0]:.2f}/{load_start[1]:.2f}/{load_start[2]:.2f} at the start, "
        f"{load_end[0]:.2f}/{load_end[1]:.2f}/{load_end[2]:.2f} at the end; a fixed numpy "
        f"workload took {reference:.2f} s CPU at the start and {reference_end:.2f} s at the end "
        "(shared machine: CPU times are inflated by the other jobs).",
        "",
        "Coverage: share of fresh draws inside the central 80 % interval. PIT KS D: the "
        "Kolmogorov-Smirnov statistic of the probability integral transform against U(0, 1) "
        f"(its 5 % critical value at {n_test:,} draws is {1.36 / np.sqrt(n_test):.3f}). Log score: "
        "mean log predictive density (larger is better); truth: the true conditional "
        "density's. Conformal: coverage of the split-conformal 80 % intervals calibrated on "
        "500 fresh draws. Modes per row: local maxima of the density at 40 rows (one for "
        "every model but the bimodal's two).",
        "",
        "## The suite: x ~ N(0, I_5), n = 500, scored on fresh draws",
    ]
    lines += suite_tables(suite)
    lines += goals(suite)
    lines += width_rule(suite)
    if speeds is not None:
        lines += speed_lines(speeds, repeats)
    if realdata is not None:
        lines += real_lines(realdata)
    if widths is not None:
        lines += widths_lines(widths)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
        suite.to_csv(os.path.splitext(args.out)[0] + "_suite.csv", index=False)
    print(text)


if __name__ == "__main__":
    main()
