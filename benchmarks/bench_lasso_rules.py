"""Which part of Lasso-SIR's default rule costs accuracy: penalty, refit or d (paired).

Each data set of ``bench_online.py --sparse`` (same models and seeds ``[kind, n, r]``,
``random_state=r``) is fitted once per kernel direction with a cross-validated Lasso path
(glmnet's 100 penalties, 10 folds, one BLAS thread; the folds' paths computed here as
LassoCV computes them, so the errors of every penalty, Lasso and refitted, are at hand);
every rule is then read off the same path, so the comparisons are paired on data and folds:
R LassoSIR's rule (``lambda.min``, no refit: "old"), the defaults when it was written
(``lambda.1se`` + least-squares refit, today's ``refit="ols"``: "new"), each part alone, the
refit only when ``n >= c |S| log p``, a ridge-stabilised refit (penalty ``lam * n`` on
unit-variance columns; ``lam = 0.1`` is today's default, ``refit="ridge"``), a
per-direction switch between the two rules on that condition, and the switch at
``n = 100 log p``. For each: the k-means ``d``, non-zero rows, TPR, the sine of the first
``d_true`` directions, and the sine of each of
the first ``d_true`` directions to the true subspace.

Candidates for the second direction: the relaxed Lasso (the penalty chosen by the CV error
of least squares refitted on each fold's Lasso support, Meinshausen 2007; its minimum or
1-SE rule), ``lambda.1se`` for the first direction with ``lambda.min`` or the log-scale
halfway penalty for later ones (each refitted). ``orig`` runs the table's two-index n = 300
cell, ``fresh_KIND_N`` 30 fresh seeds ``[kind, n, 200 + r]``.

Run ``python benchmarks/bench_lasso_rules.py all`` (writes ``bench_lasso_rules.jsonl``
in the working directory) and ``python benchmarks/bench_lasso_rules.py summary FILE``.
Results in ``benchmarks/bench_online.md`` (Lasso-SIR at n = 300).
"""

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from bench_online import recovery, sparse_model
from sklearn.linear_model import Lasso, lasso_path
from sklearn.model_selection import KFold

from sdrstats.base.parallel import as_seed_sequence
from sdrstats.online.lasso_sir import (
    PRECOMPUTE_SIZE,
    glmnet_eps,
    kmeans_dimension,
    slice_mean_eigen,
)
from sdrstats.stats.slicing import make_slices


def paths(X, y, rs, H=10, n_folds=10, max_iter=5000):
    """Each kernel direction's 10-fold CV Lasso path, computed once (glmnet's 100 penalties).

    The folds' Lasso paths give the Lasso's CV error (LassoCV's ``mse_path_``) and, at each
    penalty, the CV error of least squares refitted on the fold's Lasso support (the
    relaxed Lasso's end point, Meinshausen 2007); ``inf`` where that support has
    ``n_train - 1`` or more predictors.
    """
    sl = make_slices(y, H, function="arc", categorical=False)
    n, p = X.shape
    center, scale = X.mean(0), X.std(0)
    Z = (X - center) / scale
    values, eta, means, _ = slice_mean_eigen(Z, sl.labels, H)
    rank = int(np.sum(values > 0))
    seed = int(np.random.default_rng(as_seed_sequence(rs)).integers(2**31 - 1))
    out = []
    for j in range(rank):
        t = means[sl.labels] @ eta[:, j] / values[j]
        folds = list(KFold(n_folds, shuffle=True, random_state=seed).split(Z))
        tc = t - t.mean()
        amax = np.max(np.abs(Z.T @ tc)) / n
        alphas = np.geomspace(amax, amax * glmnet_eps(n, p), 100)
        mse = np.zeros((100, n_folds))
        rmse = np.zeros((100, n_folds))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for f, (tr, te) in enumerate(folds):
                Xm, ym = Z[tr].mean(0), t[tr].mean()
                Xtr, ytr = Z[tr] - Xm, t[tr] - ym
                Xte, yte = Z[te] - Xm, t[te] - ym
                pre = n * p > PRECOMPUTE_SIZE
                _, C, _ = lasso_path(
                    Xtr,
                    ytr,
                    alphas=alphas,
                    max_iter=max_iter,
                    precompute=Xtr.T @ Xtr if pre else False,
                )
                mse[:, f] = ((Xte @ C - yte[:, None]) ** 2).mean(0)
                G, Xy = Xtr.T @ Xtr, Xtr.T @ ytr
                cache = {}
                for k in range(100):
                    S = np.flatnonzero(C[:, k])
                    key = S.tobytes()
                    if key not in cache:
                        if S.size == 0:
                            cache[key] = float(np.mean(yte**2))
                        elif S.size >= len(tr) - 1:
                            cache[key] = np.inf
                        else:
                            try:  # least squares by the normal equations (fast)
                                b = np.linalg.solve(G[np.ix_(S, S)], Xy[S])
                                cache[key] = float(np.mean((Xte[:, S] @ b - yte) ** 2))
                            except np.linalg.LinAlgError:
                                cache[key] = np.inf
                    rmse[k, f] = cache[key]
        out.append(dict(t=t, alphas=alphas, mse=mse, rmse=rmse, fits={}, max_iter=max_iter))
    return Z, scale, values, rank, out


def rule_index(mse, rule):
    """glmnet's lambda.min / lambda.1se index on an error path (never the empty first)."""
    err = mse.mean(1)
    kmin = max(int(np.flatnonzero(err == err.min())[-1]), 1)
    if rule == "min":
        return kmin
    spread = mse[kmin].std(ddof=1) / np.sqrt(mse.shape[1])
    return max(int(np.flatnonzero(err <= err[kmin] + spread)[0]), 1)


def coef_at(Z, o, k):
    """The full-data Lasso at the path's k-th penalty (cached)."""
    if k not in o["fits"]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o["fits"][k] = np.asarray(
                Lasso(alpha=float(o["alphas"][k]), fit_intercept=True, max_iter=o["max_iter"])
                .fit(Z, o["t"])
                .coef_,
                float,
            )
    return o["fits"][k]


def index_for(o, j, pen):
    """The path index a rule picks for direction j."""
    kmin, k1se = rule_index(o["mse"], "min"), rule_index(o["mse"], "1se")
    if pen == "min":
        return kmin
    if pen == "1se":
        return k1se
    if pen == "relax_min":
        return rule_index(o["rmse"], "min")
    if pen == "relax_1se":
        return rule_index(o["rmse"], "1se")
    if pen == "d2_min":  # lambda.1se for the first direction, lambda.min after
        return k1se if j == 0 else kmin
    if pen == "d2_half":  # ... halfway on the log scale after
        return k1se if j == 0 else int(round((k1se + kmin) / 2))
    raise ValueError(pen)


def lsq(Z, t, S, ridge=0.0):
    c = np.zeros(Z.shape[1])
    if 0 < S.size < Z.shape[0] - 1:
        A = Z[:, S] - Z[:, S].mean(0)
        b = t - t.mean()
        if ridge > 0:
            c[S] = np.linalg.solve(A.T @ A + ridge * Z.shape[0] * np.eye(S.size), A.T @ b)
        else:
            c[S] = np.linalg.lstsq(A, b, rcond=None)[0]
    else:
        return None
    return c


def variant(Z, scale, values, rank, out, pen, refit, truth):
    n, p = Z.shape
    cols = []
    for j in range(rank):
        c = out[j]["coefs"]["x"] if pen == "x" else coef_at(Z, out[j], index_for(out[j], j, pen))
        S = np.flatnonzero(c)
        do = refit(n, p, S.size) if callable(refit) else refit
        if do:
            r = lsq(Z, out[j]["t"], S, ridge=do if isinstance(do, float) else 0.0)
            if r is not None:
                c = r
        cols.append(c)
    B = np.column_stack(cols)
    stat = np.zeros(min(p, 10))
    stat[:rank] = values[:rank] * np.linalg.norm(B, axis=0)
    d = min(kmeans_dimension(stat, False), 10)
    Bx = B / scale[:, None]
    nz, tpr, sine = recovery(Bx[:, :d], truth)
    k = truth.shape[1]
    _, _, sine_true = recovery(Bx[:, :k], truth)
    Q = np.linalg.qr(truth)[0]
    col = []
    for j in range(k):
        b = Bx[:, j] if j < Bx.shape[1] else np.zeros(p)
        nb = np.linalg.norm(b)
        col.append(1.0 if nb == 0 else float(np.linalg.norm(b - Q @ (Q.T @ b)) / nb))
    return dict(d=d, nz=nz, tpr=tpr, sin=sine, sin_trued=sine_true, col=col)


def variants(n, p):
    V = {
        "old": ("min", False),
        "new": ("1se", True),
        "1se_norefit": ("1se", False),
        "min_refit": ("min", True),
    }
    for c in (5, 10, 20):
        V[f"1se_refit_if{c}"] = ("1se", lambda n, p, s, c=c: n >= c * s * np.log(p))
    for lam in (0.01, 0.05, 0.1):
        V[f"1se_ridge{lam}"] = ("1se", lam)
    V["relax_min"] = ("relax_min", True)
    V["relax_1se"] = ("relax_1se", True)
    V["d2_min_refit"] = ("d2_min", True)
    V["d2_half_refit"] = ("d2_half", True)
    V["relax_min_ridge0.1"] = ("relax_min", 0.1)
    V["d2_half_ridge0.1"] = ("d2_half", 0.1)
    return V


def one(kind, n, r, fh):
    X, y, truth = sparse_model(kind, n, [kind, n, r])
    t0 = time.process_time()
    Z, scale, values, rank, out = paths(X, y, r)
    p = X.shape[1]
    res = {}
    for name, (pen, rf) in variants(n, p).items():
        res[name] = variant(Z, scale, values, rank, out, pen, rf, truth)
    # per-direction switch: 1se+refit when its support is small relative to n, else old
    for c in (10, 20):
        cols = []
        for j in range(rank):
            c1 = coef_at(Z, out[j], index_for(out[j], j, "1se"))
            S = np.flatnonzero(c1)
            if n >= c * S.size * np.log(p):
                cols.append(lsq(Z, out[j]["t"], S) if S.size else c1)
            else:
                cols.append(coef_at(Z, out[j], index_for(out[j], j, "min")))
        res[f"switch{c}"] = from_cols(Z, scale, values, rank, cols, truth)
    res["nswitch100"] = res["old"] if n < 100 * np.log(p) else res["new"]
    res["_sec"] = time.process_time() - t0
    for pen in ("1se", "min", "relax_min", "relax_1se"):
        res[f"_supp{pen}"] = [
            int(np.count_nonzero(coef_at(Z, o, index_for(o, j, pen))))
            for j, o in enumerate(out[:3])
        ]
    fh.write(json.dumps({"kind": kind, "n": n, "r": r, **res}) + "\n")
    fh.flush()


def from_cols(Z, scale, values, rank, cols, truth):
    out = [dict(t=None, coefs={"x": c}) for c in cols]
    return variant(Z, scale, values, rank, out, "x", False, truth)


def summary(path):
    from collections import defaultdict

    rows = [json.loads(l) for l in open(path)]
    cells = defaultdict(list)
    for r in rows:
        cells[(r["kind"], r["n"], r["r"] // 100)].append(r)
    seeds = {0: "orig seeds", 1: "other seeds", 2: "fresh seeds"}
    names = [k for k in rows[0] if not k.startswith("_") and k not in ("kind", "n", "r")]
    for (kind, n, other), rs in sorted(cells.items()):
        print(
            f"\n## {kind}-index n={n} {seeds[other]} reps={len(rs)} sec/fit={np.mean([r['_sec'] for r in rs]):.1f}"
        )
        supp = {
            k[5:]: np.mean([r[k][:2] for r in rs if len(r[k]) >= 2], axis=0).round(1).tolist()
            for k in rs[0]
            if k.startswith("_supp")
        }
        print(f"Lasso support of directions 1, 2 by penalty: {supp}")
        old = np.array([r["old"]["sin"] for r in rs])
        new = np.array([r["new"]["sin"] for r in rs])
        print(
            "| variant | nz mean (med,max) | TPR | sin mean (med) | diff vs old (se) | better/worse | vs new (se) | true d | sin at true d | dir1 sin | dir2 sin |"
        )
        for v in names:
            s = np.array([r[v]["sin"] for r in rs])
            nz = np.array([r[v]["nz"] for r in rs])
            tp = np.mean([r[v]["tpr"] for r in rs])
            dd = np.mean([r[v]["d"] == kind for r in rs])
            st = np.array([r[v]["sin_trued"] for r in rs])
            c = np.array([r[v]["col"] for r in rs])
            diff = s - old
            print(
                f"| {v} | {nz.mean():.1f} ({np.median(nz):.0f}, {nz.max()}) | {tp:.2f} | {s.mean():.3f} ({np.median(s):.3f}) | {diff.mean():+.3f} ({diff.std(ddof=1) / np.sqrt(len(diff)):.3f}) | {np.sum(diff < -1e-12)}/{np.sum(diff > 1e-12)} | {(s - new).mean():+.3f} ({(s - new).std(ddof=1) / np.sqrt(len(s)):.3f}) | {dd:.2f} | {st.mean():.3f} ({np.median(st):.3f}) | {c[:, 0].mean():.3f} | {c[:, -1].mean():.3f} |"
            )


def main():
    plan = sys.argv[1]
    if plan == "summary":
        summary(sys.argv[2])
        return
    fh = open(sys.argv[2] if len(sys.argv) > 2 else "bench_lasso_rules.jsonl", "a")
    with threadpool_limits(1, user_api="blas"):
        if plan == "all":
            for r in range(30):
                one(2, 300, r, fh)
            for r in range(100, 130):
                one(1, 1000, r, fh)
                one(2, 1000, r, fh)
            for r in range(100, 130):
                one(2, 300, r, fh)
                one(1, 300, r, fh)
        elif plan == "orig":  # the table's two-index n = 300 cell
            for r in range(30):
                one(2, 300, r, fh)
        elif plan.startswith("fresh"):  # fresh seeds [kind, n, 200 + r]: fresh_KIND_N
            _, kind, n = plan.split("_")
            for r in range(200, 230):
                one(int(kind), int(n), r, fh)
        else:
            kind, n, r = (int(a) for a in plan.split("_"))
            one(kind, n, r, fh)


if __name__ == "__main__":
    main()
