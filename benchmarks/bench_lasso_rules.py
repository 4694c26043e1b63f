"""Which part of Lasso-SIR's default rule costs accuracy: penalty, refit or d (paired).

Each data set of ``bench_online.py --sparse`` (same models and seeds ``[kind, n, r]``,
``random_state=r``) is fitted once per kernel direction with the package's cross-validated
Lasso path (glmnet's 100 penalties, 10 folds, one BLAS thread); every rule is then read off
the same path, so the comparisons are paired on data and folds: R LassoSIR's rule
(``lambda.min``, no refit: "old"), the defaults (``lambda.1se`` + least-squares refit:
"new"), each part alone, the refit only when ``n >= c |S| log p``, a ridge-stabilised refit
(penalty ``lam * n`` on unit-variance columns), a per-direction switch between the two
rules on that condition, and the switch at ``n = 100 log p``. For each: the k-means ``d``,
non-zero rows, TPR, the sine of the first ``d_true`` directions, and the sine of each of
the first ``d_true`` directions to the true subspace.

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
from sklearn.linear_model import Lasso, LassoCV
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
        folds = KFold(n_folds, shuffle=True, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = LassoCV(
                cv=folds,
                eps=glmnet_eps(n, p),
                alphas=100,
                fit_intercept=True,
                max_iter=max_iter,
                precompute="auto" if n * p > PRECOMPUTE_SIZE else False,
            ).fit(Z, t)
            err = m.mse_path_.mean(1)
            kmin = max(int(np.flatnonzero(err == err.min())[-1]), 1)
            spread = m.mse_path_[kmin].std(ddof=1) / np.sqrt(m.mse_path_.shape[1])
            k1se = max(int(np.flatnonzero(err <= err[kmin] + spread)[0]), 1)
            coefs = {}
            for name, k in (("min", kmin), ("1se", k1se)):
                a = float(m.alphas_[k])
                if a == float(m.alpha_):
                    coefs[name] = np.asarray(m.coef_, float)
                else:
                    coefs[name] = np.asarray(
                        Lasso(alpha=a, fit_intercept=True, max_iter=max_iter).fit(Z, t).coef_, float
                    )
        out.append(dict(t=t, coefs=coefs))
    return Z, scale, values, rank, out


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
        c = out[j]["coefs"][pen]
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
            c1 = out[j]["coefs"]["1se"]
            S = np.flatnonzero(c1)
            if n >= c * S.size * np.log(p):
                cols.append(lsq(Z, out[j]["t"], S) if S.size else c1)
            else:
                cols.append(out[j]["coefs"]["min"])
        res[f"switch{c}"] = from_cols(Z, scale, values, rank, cols, truth)
    res["nswitch100"] = res["old"] if n < 100 * np.log(p) else res["new"]
    res["_sec"] = time.process_time() - t0
    res["_supp1se"] = [int(np.count_nonzero(o["coefs"]["1se"])) for o in out[:3]]
    res["_suppmin"] = [int(np.count_nonzero(o["coefs"]["min"])) for o in out[:3]]
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
        cells[(r["kind"], r["n"], r["r"] >= 100)].append(r)
    names = [k for k in rows[0] if not k.startswith("_") and k not in ("kind", "n", "r")]
    for (kind, n, other), rs in sorted(cells.items()):
        print(
            f"\n## {kind}-index n={n} {'other seeds' if other else 'orig seeds'} reps={len(rs)} sec/fit={np.mean([r['_sec'] for r in rs]):.1f}"
        )
        old = np.array([r["old"]["sin"] for r in rs])
        print(
            "| variant | nz mean (med,max) | TPR | sin mean (med) | diff vs old (se) | better/worse | true d | sin at true d | dir1 sin | dir2 sin |"
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
                f"| {v} | {nz.mean():.1f} ({np.median(nz):.0f}, {nz.max()}) | {tp:.2f} | {s.mean():.3f} ({np.median(s):.3f}) | {diff.mean():+.3f} ({diff.std(ddof=1) / np.sqrt(len(diff)):.3f}) | {np.sum(diff < -1e-12)}/{np.sum(diff > 1e-12)} | {dd:.2f} | {st.mean():.3f} ({np.median(st):.3f}) | {c[:, 0].mean():.3f} | {c[:, -1].mean():.3f} |"
            )


def main():
    plan = sys.argv[1]
    if plan == "summary":
        summary(sys.argv[2])
        return
    fh = open("bench_lasso_rules.jsonl", "a")
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
        else:
            kind, n, r = (int(a) for a in plan.split("_"))
            one(kind, n, r, fh)


if __name__ == "__main__":
    main()
