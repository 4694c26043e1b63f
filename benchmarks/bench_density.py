"""Conditional densities: calibration, proper scores and speed of the density layer.

Data:
- ``hetero``: y = x1 + (0.2 + |x2|) ε, x ~ N(0, I_4), n = 400, scored on 4,000 fresh draws;
  reduced by LSCE with d = 2;
- ``toy a`` / ``toy b``: LSCE's artificial data (Tangkaratt, Xie and Sugiyama 2015) at
  n = 400, scored on 1,000 fresh draws, reduced by LSCE with the true d (2 / 1), 3 draws each;
- ``ais lbm`` (``lbm ~ ht + wt + rcc + wcc + hc + hg + ferr + bmi + ssf``, n = 202) and
  ``boston medv`` (``medv ~ .``, n = 506): 5-fold cross-validation, each fold reduced by LSCE
  with d = 2 on the other four.

Compared, on the same reduced predictors: the single-width LSCDE (``model="single"``, the
density every fit returned before), the new default (``model="auto"``: separate widths or the
location-scale form, chosen by held-out log-likelihood), statsmodels'
``KDEMultivariateConditional`` with its ``cv_ml`` and ``normal_reference`` bandwidths, and a
Gaussian heteroscedastic regression (mean and log-sd quadratic in the reduced predictors,
fitted by maximum likelihood).

Measured on the test rows: mean log predictive density, mean CRPS (closed form for every model,
each being a Gaussian mixture per row), coverage of the central 80 % interval overall and in the
lowest and highest third of the true noise sd (hetero) or of each model's predicted sd, the
squared loss Error_CDE of the LSCE paper (toys), and the CPU time of the density fit alone (the
reduction excluded).

The last section re-runs LSCE on 20 fresh draws of toy (b) (n = 300, as
``benchmarks/papers/lsce_artificial.py --reliability``) with one width and with separate widths
for z and y, next to LSMI.

Usage: python benchmarks/bench_density.py [--quick] [--out FILE]
Seeded throughout; the machine is shared, so CPU times are noisy, ratios less so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import logsumexp, ndtr
from statsmodels.nonparametric.kernel_density import KDEMultivariateConditional

import sdrstats as sdr
from sdrstats.density.calibration import mixture_crps
from sdrstats.simulate import lsce_artificial, lsce_artificial_pdf
from sdrstats.stats.distances import projection_distance

MODELS = [
    "LSCDE one width (old)",
    "default (auto)",
    "statsmodels cv_ml",
    "statsmodels normal_reference",
    "Gaussian heteroscedastic",
]


# -- predictive distributions as Gaussian mixtures per row -----------------------------------
class Mixture:
    """``p(y | x_i) = Σ_k w_ik N(y; loc_i + scale_i μ_k, (scale_i σ)²)``."""

    def __init__(self, w, mu, sd, loc=None, scale=None):
        self.w, self.mu = w, np.asarray(mu, float)
        self.sd = np.broadcast_to(np.asarray(sd, float), self.mu.shape)
        rows = len(w)
        self.loc = np.zeros(rows) if loc is None else loc
        self.scale = np.ones(rows) if scale is None else scale

    def scores(self, y: np.ndarray) -> dict:
        e = (y - self.loc) / self.scale
        z = (e[:, None] - self.mu[None, :]) / self.sd
        with np.errstate(divide="ignore"):
            logw = np.log(self.w)
        logc = -0.5 * z * z - np.log(np.sqrt(2 * np.pi) * self.sd)
        log_density = logsumexp(logw + logc, axis=1) - np.log(self.scale)
        pit = np.einsum("rk,rk->r", self.w, ndtr(z))
        crps = mixture_crps(y, self.w, self.mu, self.sd, self.loc, self.scale)
        var = self.sd[:, None] ** 2 + self.sd[None, :] ** 2
        diff2 = (self.mu[:, None] - self.mu[None, :]) ** 2 / var
        pair = np.exp(-0.5 * diff2) / np.sqrt(2 * np.pi * var)
        square = np.einsum("rk,rk->r", self.w @ pair, self.w) / self.scale
        spread = self.scale * np.sqrt(self.w @ (self.mu**2 + self.sd**2) - (self.w @ self.mu) ** 2)
        return {
            "log_density": log_density,
            "pit": pit,
            "crps": crps,
            "integral_of_square": square,
            "spread": spread,
        }


def from_density(dens, newdata) -> Mixture:
    parts = dens._parts(newdata)
    loc = None if parts.loc is None else parts.loc[:, 0]
    scale = None if parts.scale is None else parts.scale[:, 0]
    return Mixture(parts.w, dens.means[:, 0], dens._sds[:, 0], loc, scale)


def kde_mixture(kde, Z_train, y_train, Z_test) -> Mixture:
    """statsmodels' conditional KDE with Gaussian kernels is a mixture in y: weights
    ∝ Π_l φ((z_l - z_il)/h_l), means y_i, sd h_y."""
    h_y, h_z = kde.bw[0], kde.bw[1:]
    logk = -0.5 * (((Z_test[:, None, :] - Z_train[None, :, :]) / h_z) ** 2).sum(-1)
    w = np.exp(logk - logk.max(axis=1, keepdims=True))
    return Mixture(w / w.sum(axis=1, keepdims=True), y_train, h_y)


def features(Z: np.ndarray) -> np.ndarray:
    """Intercept, linear and quadratic terms of the reduced predictors."""
    cols = [np.ones(len(Z))] + [Z[:, j] for j in range(Z.shape[1])]
    cols += [Z[:, j] * Z[:, k] for j in range(Z.shape[1]) for k in range(j, Z.shape[1])]
    return np.column_stack(cols)


def gaussian_regression(Z_train, y_train):
    """y | z ~ N(F(z)β, exp(2 F(z)γ)) by maximum likelihood (Harvey 1976's multiplicative
    heteroscedasticity with quadratic F)."""
    shift, scale = Z_train.mean(axis=0), Z_train.std(axis=0)
    F = features((Z_train - shift) / scale)
    k = F.shape[1]
    beta0 = np.linalg.lstsq(F, y_train, rcond=None)[0]
    gamma0 = np.zeros(k)
    gamma0[0] = np.log(np.std(y_train - F @ beta0))

    def nll(theta):
        beta, gamma = theta[:k], theta[k:]
        g = F @ gamma
        r = (y_train - F @ beta) * np.exp(-g)
        grad_beta = -(F * (r * np.exp(-g))[:, None]).sum(axis=0)
        grad_gamma = (F * (1 - r * r)[:, None]).sum(axis=0)
        return float(np.sum(g + 0.5 * r * r)), np.concatenate([grad_beta, grad_gamma])

    theta = minimize(nll, np.concatenate([beta0, gamma0]), jac=True, method="L-BFGS-B").x

    def predict(Z_test):
        G = features((Z_test - shift) / scale)
        return Mixture(np.ones((len(Z_test), 1)), [0.0], 1.0, G @ theta[:k], np.exp(G @ theta[k:]))

    return predict


# -- one evaluation ---------------------------------------------------------------------------
def cpu(fn):
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return out, time.process_time() - start


def evaluate(fit, train, test, response, random_state, true_sd=None, true_pdf=None) -> list:
    """Every model on the reduced predictors of ``fit``; one row of scores per model."""
    Z_train, Z_test = fit.transform().to_numpy(), fit.transform(test).to_numpy()
    y_train, y_test = train[response].to_numpy(float), test[response].to_numpy(float)
    fitted = {}
    old, t_old = cpu(lambda: fit.conditional_density(model="single", random_state=random_state))
    new, t_new = cpu(lambda: fit.conditional_density(random_state=random_state))
    fitted["LSCDE one width (old)"] = (from_density(old, test), t_old, old)
    fitted["default (auto)"] = (from_density(new, test), t_new, new)
    for name in ("LSCDE one width (old)", "default (auto)"):
        # The benchmark's mixture arithmetic is the density's own (checked on a few rows).
        mix, _, dens = fitted[name]
        cal = dens.calibration(test.iloc[:50])
        mine = mix.scores(y_test)
        for key in ("log_density", "crps", "pit"):
            np.testing.assert_allclose(mine[key][:50], cal.scores[key], rtol=1e-9, atol=1e-12)
    for bw in ("cv_ml", "normal_reference"):
        kde, t_kde = cpu(
            lambda bw=bw: KDEMultivariateConditional(
                endog=[y_train],
                exog=list(Z_train.T),
                dep_type="c",
                indep_type="c" * Z_train.shape[1],
                bw=bw,
            )
        )
        mix = kde_mixture(kde, Z_train, y_train, Z_test)
        # The mixture is statsmodels' own density (checked on the first rows; where every
        # kernel weight underflows, statsmodels returns 0/0 and the mixture its limit, the
        # nearest training rows' kernels).
        own = kde.pdf(endog_predict=y_test[:50], exog_predict=Z_test[:50])
        ok = np.isfinite(own)
        mine = np.exp(mix.scores(y_test)["log_density"][:50])
        np.testing.assert_allclose(mine[ok], own[ok], rtol=1e-8)
        fitted[f"statsmodels {bw}"] = (mix, t_kde, None)
    predict, t_gauss = cpu(lambda: gaussian_regression(Z_train, y_train))
    fitted["Gaussian heteroscedastic"] = (predict(Z_test), t_gauss, None)
    rows = []
    for name, (mix, seconds, dens) in fitted.items():
        s = mix.scores(y_test)
        covered = (s["pit"] > 0.1) & (s["pit"] < 0.9)
        by = s["spread"] if true_sd is None else true_sd
        low, high = by <= np.quantile(by, 1 / 3), by > np.quantile(by, 2 / 3)
        row = {
            "model": name,
            "log score": s["log_density"].mean(),
            "CRPS": s["crps"].mean(),
            "80% coverage": covered.mean(),
            "lowest third": covered[low].mean(),
            "highest third": covered[high].mean(),
            "Error_CDE": 0.5 * s["integral_of_square"].mean() - np.exp(s["log_density"]).mean(),
            "fit CPU s": seconds,
            "chosen": "" if dens is None else dens.model,
            # median predicted / true noise sd in the lowest and highest third (hetero only)
            "sd ratio low": np.nan if true_sd is None else np.median(s["spread"][low] / by[low]),
            "sd ratio high": np.nan if true_sd is None else np.median(s["spread"][high] / by[high]),
        }
        if true_pdf is not None:
            row["Error_CDE truth"] = true_pdf
        rows.append(row)
    return rows


def hetero(n_test: int) -> pd.DataFrame:
    def draw(n, seed):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, 4))
        y = X[:, 0] + (0.2 + np.abs(X[:, 1])) * rng.standard_normal(n)
        return pd.DataFrame(X, columns=["x1", "x2", "x3", "x4"]).assign(y=y)

    train, test = draw(400, 0), draw(n_test, 50)
    fit = sdr.lsce("y ~ .", train, d=2, random_state=0, progress=False)
    rows = evaluate(fit, train, test, "y", 0, true_sd=0.2 + np.abs(test["x2"].to_numpy()))
    return pd.DataFrame(rows).assign(data="hetero", rep=0)


def toy(dataset: str, reps: int, n: int = 400) -> pd.DataFrame:
    rows = []
    for rep in range(reps):
        key = [ord(dataset), n, 2000 + rep]
        train, _ = lsce_artificial(dataset, n, random_state=key)
        test, _ = lsce_artificial(dataset, 1000, random_state=key + [1])
        fit = sdr.lsce(
            "y ~ .", train, d=2 if dataset == "a" else 1, random_state=key, progress=False
        )
        X = test.drop(columns="y").to_numpy()
        truth = (
            0.5 / (2 * np.sqrt(np.pi) * 0.25)
            - lsce_artificial_pdf(dataset, X, test["y"].to_numpy()).mean()
        )
        for row in evaluate(fit, train, test, "y", key, true_pdf=truth):
            rows.append({**row, "data": f"toy {dataset}", "rep": rep})
    return pd.DataFrame(rows)


def real(name: str, formula: str, response: str, folds: int = 5) -> pd.DataFrame:
    data = sdr.datasets.load(name)
    order = np.random.default_rng(7).permutation(len(data)) % folds
    rows = []
    for k in range(folds):
        train, test = data[order != k], data[order == k]
        fit = sdr.lsce(formula, train, d=2, random_state=k, progress=False)
        for row in evaluate(fit, train, test, response, k):
            rows.append({**row, "data": f"{name} {response}", "rep": k})
    return pd.DataFrame(rows)


# -- LSCE with one width and with separate widths on toy (b) ----------------------------------
#: The default σ grid from its third value (0.178) up, and the draws it is tried on.
WIDE_GRID = [float(v) for v in np.logspace(-1.5, 1.5, 9)[2:]]
WIDE_REPS = 10


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
        for name, cls in (("one", sdr.LSCE), ("two", SeparateWidthsLSCE), ("lsmi", sdr.LSMI)):
            fits[name] = cpu(lambda cls=cls, opts=opts, X=X, y=y: cls(**opts).fit(X, y))
        (one, t_one), (two, t_two), (lsmi, _) = fits["one"], fits["two"], fits["lsmi"]
        # Are the widths CV chooses too small for the direction? One width, kept >= 0.18.
        wide = sdr.LSCE(**opts, sigma_grid=WIDE_GRID).fit(X, y) if rep < WIDE_REPS else None
        rows.append(
            {
                "rep": rep,
                "LSCE one width": projection_distance(one.directions.to_numpy(), truth),
                "LSCE separate widths": projection_distance(two.directions.to_numpy(), truth),
                "LSMI": projection_distance(lsmi.directions.to_numpy(), truth),
                "LSCE one width >= 0.18": np.nan
                if wide is None
                else projection_distance(wide.directions.to_numpy(), truth),
                "one width CPU s": t_one,
                "separate CPU s": t_two,
                "sigma": one.sigma,
                "sigma_z": two.sigma,
                "sigma_y": two.extras["sigma_y"],
            }
        )
        print(f"  lsce widths {rep}", file=sys.stderr)
    return pd.DataFrame(rows)


# -- report -----------------------------------------------------------------------------------
def fmt(v: float, digits: int = 3) -> str:
    return f"{v:.{digits}f}"


def table(frame: pd.DataFrame, columns: list[str], reps: bool) -> list[str]:
    head = "| model | " + " | ".join(columns) + " | chosen |"
    out = [head, "|" + "---|" * (len(columns) + 2)]
    for name in MODELS:
        g = frame[frame["model"] == name]
        cells = []
        for c in columns:
            v = g[c]
            if reps and len(v) > 1:
                cells.append(f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(len(v)):.3f}")
            else:
                cells.append(fmt(v.mean(), 4 if c == "fit CPU s" else 3))
        chosen = ", ".join(f"{k} {int(c)}" for k, c in g["chosen"].value_counts().items() if k)
        out.append(f"| {name} | " + " | ".join(cells) + f" | {chosen} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer draws, for a smoke run")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    reps, n_test, widths_reps = (1, 1000, 2) if args.quick else (3, 4000, 20)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    load = os.getloadavg()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = {
            "hetero": hetero(n_test),
            "toy a": toy("a", reps),
            "toy b": toy("b", reps),
            "ais lbm": real("ais", "lbm ~ ht + wt + rcc + wcc + hc + hg + ferr + bmi + ssf", "lbm"),
            "boston medv": real("boston", "medv ~ .", "medv"),
        }
        widths = lsce_widths(widths_reps)
    cols = ["log score", "CRPS", "80% coverage", "lowest third", "highest third", "fit CPU s"]
    lines = [
        "# Conditional densities: calibration, scores and speed",
        "",
        f"Command: `python benchmarks/bench_density.py{' --quick' if args.quick else ''}` "
        f"(the module docstring describes data, models and measures). Wall time "
        f"{time.perf_counter() - start_wall:.0f} s, CPU {time.process_time() - start_cpu:.0f} s; "
        f"load average {load:.1f} at the start on {os.cpu_count()} cores (shared machine: CPU "
        "times are inflated and noisy, the ratios between models less so).",
        "",
        "Log score: mean log predictive density (larger is better). CRPS: mean continuous "
        "ranked probability score, response units (smaller is better). Coverage: share of "
        "test rows inside the central 80 % interval. 'chosen': the model the default kept.",
    ]
    titles = {
        "hetero": "y = x1 + (0.2 + |x2|) ε, n = 400, 4,000 test draws, LSCE d = 2; thirds of "
        "the true noise sd",
        "toy a": f"LSCE toy (a), n = 400, 1,000 test draws, LSCE d = 2; {reps} draws (mean ± "
        "se); thirds of each model's predicted sd",
        "toy b": f"LSCE toy (b), n = 400, 1,000 test draws, LSCE d = 1; {reps} draws (mean ± "
        "se); thirds of each model's predicted sd",
        "ais lbm": "ais, lbm ~ 9 predictors, n = 202, 5-fold CV, LSCE d = 2 per fold (mean ± se "
        "over folds); thirds of each model's predicted sd",
        "boston medv": "boston, medv ~ 13 predictors, n = 506, 5-fold CV, LSCE d = 2 per fold "
        "(mean ± se over folds); thirds of each model's predicted sd",
    }
    for key, frame in frames.items():
        lines += ["", f"## {titles[key]}", ""]
        extra = ["Error_CDE"] if key.startswith("toy") else []
        lines += table(frame, cols[:5] + extra + cols[5:], reps=key != "hetero")
        if key.startswith("toy"):
            truth = frame["Error_CDE truth"].dropna()
            lines += ["", f"Error_CDE of the true density: {truth.mean():.3f}."]
    lines += verdict(frames, widths)
    lines += ["", "## LSCE on toy (b): one width or separate widths (Error_DR)", ""]
    lines += widths_table(widths)
    lines += notes(frames, widths)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    print(text)


def verdict(frames: dict, widths: pd.DataFrame) -> list[str]:
    h = frames["hetero"].set_index("model")
    new, old = h.loc["default (auto)"], h.loc["LSCDE one width (old)"]
    cv = h.loc["statsmodels cv_ml"]
    lines = ["", "## Goals", ""]
    ok = 0.75 <= new["lowest third"] <= 0.85 and 0.75 <= new["highest third"] <= 0.85
    lines.append(
        f"- 80 % coverage in [0.75, 0.85] in the lowest and highest third of the true noise sd "
        f"(hetero): default {new['lowest third']:.3f} and {new['highest third']:.3f} (one width: "
        f"{old['lowest third']:.3f} and {old['highest third']:.3f}) — "
        f"**{'met' if ok else 'not met'}**."
    )
    better = []
    for key, frame in frames.items():
        g = frame.groupby("model")["log score"].mean()
        better.append(
            f"{key} {g['default (auto)']:.3f} vs {g['statsmodels cv_ml']:.3f} (cv_ml) / "
            f"{g['statsmodels normal_reference']:.3f}"
        )
    all_better = all(
        f.groupby("model")["log score"].mean()["default (auto)"]
        > f.groupby("model")["log score"]
        .mean()[["statsmodels cv_ml", "statsmodels normal_reference"]]
        .max()
        for f in frames.values()
    )
    lines.append(
        "- Mean log score above statsmodels' conditional KDE: "
        + "; ".join(better)
        + f" — **{'met on every data set' if all_better else 'not met on every data set'}**."
    )
    ratio = cv["fit CPU s"] / new["fit CPU s"]
    lines.append(
        f"- At least 50x faster than statsmodels' cv_ml at n = 400 (hetero): "
        f"{cv['fit CPU s']:.2f} s against {new['fit CPU s']:.3f} s, {ratio:.0f}x (one width: "
        f"{cv['fit CPU s'] / old['fit CPU s']:.0f}x) — **{'met' if ratio >= 50 else 'not met'}**."
    )
    for key in ("toy a", "toy b"):
        f = frames[key]
        diff = (
            f[f.model == "default (auto)"]["Error_CDE"].to_numpy()
            - f[f.model == "LSCDE one width (old)"]["Error_CDE"].to_numpy()
        )
        lines.append(
            f"- Error_CDE on {key} no worse than the one-width LSCDE: default minus one width "
            f"{diff.mean():+.3f} (per draw: {', '.join(f'{v:+.3f}' for v in diff)}) — "
            f"**{'met' if diff.max() <= 0 else 'not met'}**."
        )
    d = widths["LSCE separate widths"] - widths["LSMI"]
    lines.append(
        f"- LSCE with separate widths at or below LSMI's mean Error_DR on toy (b) "
        f"({len(widths)} draws): "
        f"{widths['LSCE separate widths'].mean():.4f} against {widths['LSMI'].mean():.4f} "
        f"(paired difference {d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(len(d)):.4f}) — "
        f"**{'met' if widths['LSCE separate widths'].mean() <= widths['LSMI'].mean() else 'not met'}**."
    )
    return lines


def widths_table(widths: pd.DataFrame) -> list[str]:
    cols = ["LSCE one width", "LSCE separate widths", "LSMI", "LSCE one width >= 0.18"]
    out = ["| | mean Error_DR | se | median | max |", "|---|---|---|---|---|"]
    for c in cols:
        v = widths[c].dropna()
        out.append(
            f"| {c} | {v.mean():.4f} | {v.std(ddof=1) / np.sqrt(len(v)):.4f} | "
            f"{v.median():.4f} | {v.max():.4f} |"
        )
    out += [
        "",
        f"CPU per fit: one width {widths['one width CPU s'].median():.2f} s, separate widths "
        f"{widths['separate CPU s'].median():.2f} s (medians). Chosen widths: one width "
        f"sigma = {widths['sigma'].median():.3g} (median); separate sigma_z = "
        f"{widths['sigma_z'].median():.3g}, sigma_y = {widths['sigma_y'].median():.3g}. "
        f"The last row keeps the one width at or above 0.178 (the default grid from its third "
        f"value), on the first {WIDE_REPS} draws.",
    ]
    return out


def notes(frames: dict, widths: pd.DataFrame) -> list[str]:
    """Why the goals missed are missed, with this run's numbers."""
    h = frames["hetero"].set_index("model")
    new, old, cv = (
        h.loc["default (auto)"],
        h.loc["LSCDE one width (old)"],
        h.loc["statsmodels cv_ml"],
    )
    b = frames["boston medv"]
    diff = (
        b[b.model == "default (auto)"]["log score"].to_numpy()
        - b[b.model == "statsmodels cv_ml"]["log score"].to_numpy()
    )
    wide = widths["LSCE one width >= 0.18"].dropna()
    mean_crps = {k: f.groupby("model")["CRPS"].mean() for k, f in frames.items()}
    crps_wins = sum(
        m["default (auto)"] < m["statsmodels cv_ml"]
        for k, m in mean_crps.items()
        if k != "boston medv"
    )
    boston = mean_crps["boston medv"]
    crps_boston = boston["default (auto)"] / boston["statsmodels cv_ml"] - 1
    return [
        "",
        "## Why the goals missed are missed",
        "",
        f"- *Coverage where the noise is smallest (hetero).* The default's predicted sd in the "
        f"lowest third of the true noise sd is {new['sd ratio low']:.2f} times the true one "
        f"(median; {new['sd ratio high']:.2f} in the highest third; one width "
        f"{old['sd ratio low']:.2f} and {old['sd ratio high']:.2f}), so its intervals there "
        "are too wide. The true sd 0.2 + |x2| has a kink at x2 = 0, and the log-scale is a "
        "local-linear fit of noisy log absolute residuals (their sd is about 1.1 whatever the "
        "scale) that rounds the kink off at n = 400; LSCE's basis is a rotation of (x1, x2), so "
        "the window must resolve the kink across a rotated axis. On the true predictors, over "
        "8 training draws (`tests/test_density_heteroscedastic.py`), the default's coverage "
        "where |x2| < 0.5 averaged 0.82 (0.80-0.85) and where |x2| > 1.5 0.79 (0.66-0.87): "
        "the goal is met on average there, not on every draw.",
        f"- *Speed.* The default fits two models on the same centres and folds: LSCDE with "
        "separate widths and the location-scale form, whose location and log-scale are "
        "local-linear fits with per-axis bandwidths chosen by leave-one-out CV (the log-scale "
        "on two sets of axes), about 60-100 leave-one-out passes over the n x n kernel, then "
        "held-out log-likelihoods for the component width, spread factor and model. That is "
        f"{new['fit CPU s']:.2f} s here against {cv['fit CPU s']:.2f} s for statsmodels' "
        f"cv_ml ({cv['fit CPU s'] / new['fit CPU s']:.0f}x); LSCDE with one width is "
        f"{cv['fit CPU s'] / old['fit CPU s']:.0f}x faster than cv_ml. A 50x margin would need "
        "about a quarter of the default's work.",
        f"- *Log score on boston.* The default and cv_ml tie: per-fold difference "
        f"{diff.mean():+.3f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.3f} (se). medv is "
        "censored at 50 (16 of 506 tracts), a point mass that neither continuous density "
        f"scores well. The default's CRPS is below cv_ml's on {crps_wins} of the other "
        f"{len(frames) - 1} data sets and {crps_boston:+.0%} against it here.",
        f"- *LSCE with separate widths on toy (b).* Cross-validation chooses sigma_z = "
        f"{widths['sigma_z'].median():.3g} and sigma_y = {widths['sigma_y'].median():.3g} "
        f"(medians) against one width {widths['sigma'].median():.3g}, and the directions are "
        f"no better ({widths['LSCE separate widths'].mean():.4f} against "
        f"{widths['LSCE one width'].mean():.4f}). Nor are the CV widths too small for the "
        f"direction: one width kept at or above 0.178 gives {wide.mean():.4f} on the first "
        f"{len(wide)} draws. So the single width is not what keeps LSCE's Error_DR above "
        f"LSMI's ({widths['LSMI'].mean():.4f}) on (b); LSMI's criterion, built from all n² "
        "pairs of rows, may simply be the less noisy one for this direction.",
    ]


if __name__ == "__main__":
    main()
