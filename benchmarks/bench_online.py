"""Throughput and memory of the online SIR (Cheng & Cui 2020) on a long stream.

Stream: seed 003's model 2 with p = 1000 (``sdrstats.simulate.ossir_model``), H = 10 slices,
d = 2, fed to ``OnlineSIR.partial_fit`` in chunks of 1000 rows. Chunks are generated outside
the timed region. Reports

* rows per second (wall and process CPU time) per tracker, with the default options (the
  recursion, the SIR moments and the sample of rows) and with the recursion alone
  (``sir_moments=False, reservoir_size=0``); the goal is >= 50 000 rows/s for CCIPCA's
  recursion. numpy's own floors for touching every row once, one ``chunk @ B`` product
  (p x d), and for the SIR moments, one ``chunk.T @ chunk`` (p x p), are shown for scale;
* the size of the saved state (``OnlineSIR.save``) after 10k, 30k and 50k rows (it must not
  grow);
* the block recursion (chunks of 1000 rows) against the seed's one-row recursion at p = 100:
  distance between the two estimates and to the truth.

Run ``python benchmarks/bench_online.py [--rows 50000]``; prints markdown (appended to
``benchmarks/RESULTS.md``). The machine is shared with other jobs, so wall times are noisy;
CPU time is the steadier number.

``--sparse`` runs instead the sparse-recovery benchmark of online sparse SIR and Lasso-SIR
(``benchmarks/bench_online.md``, last section): ``p = 200`` predictors ``x ~ N(0, Σ)``,
``Σ_ij = 0.5^|i-j|``, 5 active ones, ``ε ~ N(0, 0.5²)``; single-index
``y = (βᵀx)³/2 + ε`` with ``β = (1,1,1,1,1,0,…)/√5``, two-index
``y = sin(β₁ᵀx)·exp(β₂ᵀx) + ε`` with ``β₁ = (1,1,1,0,…)/√3``, ``β₂ = (0,0,0,1,1,0,…)/√2``.
Each cell: seeded replications at ``n`` rows, the true ``d`` given to the online fit, the
rule's ``d`` for Lasso-SIR. Reported: non-zero coefficients (rows of the basis not all 0;
goal ≤ 10 at ``n ≥ 1000``), true positive rate (goal ≥ 0.9), the largest sine of the
principal angles to the truth (Lasso-SIR: its first ``d_true`` directions, padded with 0 when
it chose fewer), and for Lasso-SIR the share of fits choosing the true ``d``. "before" is the
options the defaults were before issue 43 (online: ``gravity=0.05, truncate_every=10``;
Lasso-SIR: R LassoSIR's rule, ``penalty="cv_min", d_rule="kmeans", refit=False``), "after"
the defaults; for Lasso-SIR "ols refit" is the default before the ridge-stabilised refit
(``refit="ols"``: ``lambda.1se`` and least squares on each direction's support) and "ridge
refit" the default before the nested refit (``refit="ridge"``: ridge on each direction's own
support; the default refits direction j on the supports of directions 1..j), on the same data sets and folds,
with the paired differences in sine. ``--seed-offset K`` draws Lasso-SIR's data sets
from seeds ``[kind, n, K + r]`` (``random_state = K + r``) instead of ``[kind, n, r]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import sdrstats as sdr
from sdrstats.simulate import ar1_normal, ossir_model
from sdrstats.stats.distances import det_distance

P, H, D, CHUNK = 1000, 10, 2, 1000
TRACE = 16  # snapshots kept in the trace (bounded; thinned when full)


def chunks(rows: int, p: int, seed: int):
    for k in range(rows // CHUNK):
        data, basis = ossir_model(2, CHUNK, p, random_state=[seed, k])
        yield data.drop(columns="y").to_numpy(), data["y"].to_numpy(), basis


def _array_bytes(tree) -> int:
    if isinstance(tree, np.ndarray):
        return tree.nbytes
    if isinstance(tree, dict):
        return sum(_array_bytes(v) for v in tree.values())
    return 0


def throughput(eigen: str, rows: int, **options) -> tuple[float, float, list[int]]:
    model = sdr.OnlineSIR(nslices=H, d=D, eigen=eigen, init_size=CHUNK, trace_size=TRACE, **options)
    wall = cpu = 0.0
    sizes = []
    for k, (X, y, _) in enumerate(chunks(rows, P, 1)):
        if k == 0:  # the initial batch (cut points, batch eigen) is not streaming work
            model.partial_fit(X, y)
            continue
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        model.partial_fit(X, y)
        wall += time.perf_counter() - start_wall
        cpu += time.process_time() - start_cpu
        if model.n_seen in (10_000, 30_000, 50_000):
            state = model.state_dict()
            # the recursion's state, the SIR moments and the sample of rows
            arrays = sum(_array_bytes(state[k]) for k in ("state", "moments", "reservoir"))
            with tempfile.TemporaryDirectory() as folder:
                saved = model.save(Path(folder) / "stream").stat().st_size
            sizes.append((arrays, saved, len(state["trace"])))
    streamed = rows - CHUNK
    return streamed / wall, streamed / cpu, sizes


def numpy_floor(rows: int) -> float:
    B = np.ones((P, D))
    total = 0.0
    with threadpool_limits(1, user_api="blas"):
        for X, _, _ in chunks(min(rows, 10_000), P, 2):
            start = time.process_time()
            X @ B
            total += time.process_time() - start
    return min(rows, 10_000) / total


def cross_product_floor(rows: int) -> float:
    """numpy's own rate for the SIR moments' main cost: one ``Xᵀ X`` (p x p) per chunk."""
    total = 0.0
    for X, _, _ in chunks(min(rows, 10_000), P, 3):
        start = time.process_time()
        X.T @ X
        total += time.process_time() - start
    return min(rows, 10_000) / total


def block_versus_rows() -> str:
    data, basis = ossir_model(2, 5000, 100, random_state=5)
    X, y = data.drop(columns="y").to_numpy(), data["y"].to_numpy()
    out, seconds = {}, {}
    for size in (1, CHUNK):
        model = sdr.OnlineSIR(d=2, block_size=size)
        start = time.perf_counter()
        for s in range(0, 5000, CHUNK):
            model.partial_fit(X[s : s + CHUNK], y[s : s + CHUNK])
        seconds[size] = time.perf_counter() - start
        out[size] = model.directions.to_numpy()
    return (
        f"| block_size = 1 (seed's recursion) | {det_distance(basis, out[1]):.4f} | "
        f"{seconds[1]:.2f} |\n| block_size = 1000 | {det_distance(basis, out[CHUNK]):.4f} | "
        f"{seconds[CHUNK]:.2f} |\n\nDistance between the two estimates: "
        f"{det_distance(out[1], out[CHUNK]):.4f} (the test suite bounds it by 0.02)."
    )


SPARSE_P = 200
ONLINE_BEFORE = {"gravity": 0.05, "truncate_every": 10}
LASSO_BEFORE = {"penalty": "cv_min", "d_rule": "kmeans", "refit": False}
#: Lasso-SIR's rules in the table: R LassoSIR's, the defaults until the ridge refit
#: (``lambda.1se`` + least squares on each direction's support) and until the nested refit
#: (ridge on each direction's support), the default (ridge on the union of the supports of
#: each direction and those before it).
LASSO_RULES = (
    ("before", LASSO_BEFORE),
    ("ols refit", {"refit": "ols"}),
    ("ridge refit", {"refit": "ridge"}),
    ("after", {}),
)


def sparse_model(kind: int, n: int, seed: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sparse models of the docstring: X (n x 200), y, the true basis."""
    rng = np.random.default_rng(seed)
    X = ar1_normal(n, SPARSE_P, 0.5, rng)
    if kind == 1:
        b = np.zeros(SPARSE_P)
        b[:5] = 1 / np.sqrt(5)
        return X, (X @ b) ** 3 / 2 + 0.5 * rng.standard_normal(n), b[:, None]
    b1, b2 = np.zeros(SPARSE_P), np.zeros(SPARSE_P)
    b1[:3], b2[3:5] = 1 / np.sqrt(3), 1 / np.sqrt(2)
    y = np.sin(X @ b1) * np.exp(X @ b2) + 0.5 * rng.standard_normal(n)
    return X, y, np.column_stack([b1, b2])


def recovery(estimate: np.ndarray, truth: np.ndarray) -> tuple[int, float, float]:
    """Non-zero rows, true positive rate, largest sine of the principal angles."""
    from scipy.linalg import subspace_angles

    k = truth.shape[1]
    first = estimate[:, :k]
    if first.shape[1] < k:
        first = np.column_stack([first, np.zeros((truth.shape[0], k - first.shape[1]))])
    rows = np.flatnonzero(np.abs(estimate).sum(axis=1) > 0)
    support = np.flatnonzero(np.abs(truth).sum(axis=1) > 0)
    hit = np.isin(support, rows).mean()
    empty = not np.all(np.abs(first).sum(axis=0) > 0)
    sine = 1.0 if empty else float(np.sin(np.max(subspace_angles(first, truth))))
    return rows.size, float(hit), sine


def online_cell(kind: int, n: int, reps: int, options: dict) -> tuple[np.ndarray, float]:
    out, seconds = [], 0.0
    for r in range(reps):
        X, y, truth = sparse_model(kind, n, [kind, n, r])
        model = sdr.OnlineSIR(d=truth.shape[1], init_size=min(500, n // 2), **options)
        start = time.perf_counter()
        for s in range(0, n, CHUNK):
            model.partial_fit(X[s : s + CHUNK], y[s : s + CHUNK])
        seconds += time.perf_counter() - start
        out.append(recovery(model.directions.to_numpy(), truth))
    return np.array(out), seconds / reps


class _SharedLasso:
    """Within a replication the rules share their cross-validated Lasso paths: the folds, the
    penalty grid and the path do not depend on the rule (only the penalty read off it and the
    refit do), so scikit-learn's ``LassoCV`` fit and ``LassoSIR._lasso_fit`` are cached on
    their inputs. Every rule's numbers are those of its own fit; only the time is shared."""

    def __init__(self) -> None:
        import sklearn.linear_model as linear_model

        self.module = linear_model
        self.original_cv = linear_model.LassoCV
        self.original_fit = sdr.LassoSIR._lasso_fit
        paths: dict = {}
        fits: dict = {}
        original_fit = self.original_fit

        class CachedLassoCV(linear_model.LassoCV):
            def fit(self, X, y, **kw):
                params = tuple(sorted((k, repr(v)) for k, v in self.get_params().items()))
                key = (params, X.shape, hash(X.tobytes()), hash(y.tobytes()))
                if key not in paths:
                    super().fit(X, y, **kw)
                    paths[key] = dict(self.__dict__)
                self.__dict__.update(paths[key])
                return self

        def cached_fit(est, Z, target, value, seed):
            o = est.options
            key = (
                o["penalty"], o["n_folds"], o["max_iter"], seed, float(value),
                Z.shape, hash(Z.tobytes()), hash(target.tobytes()),
            )  # fmt: skip
            if key not in fits:
                coef, alpha = original_fit(est, Z, target, value, seed)
                fits[key] = (coef.copy(), alpha)
            coef, alpha = fits[key]
            return coef.copy(), alpha

        self.cached_cv, self.cached_fit = CachedLassoCV, cached_fit

    def __enter__(self) -> _SharedLasso:
        self.module.LassoCV = self.cached_cv
        sdr.LassoSIR._lasso_fit = self.cached_fit
        return self

    def __exit__(self, *exc: object) -> None:
        self.module.LassoCV = self.original_cv
        sdr.LassoSIR._lasso_fit = self.original_fit


def lasso_cell(
    kind: int, n: int, reps: int, rules: tuple, offset: int = 0
) -> tuple[dict[str, np.ndarray], dict[str, float], float]:
    """Each rule of ``rules`` on the same ``reps`` data sets (seeds ``[kind, n, offset + r]``,
    ``random_state = offset + r``): per rule the (non-zero, TPR, sine) rows and the share of
    fits choosing the true d; CPU seconds per data set for all the rules (they share the
    cross-validated Lasso paths, :class:`_SharedLasso`)."""
    out = {label: [] for label, _ in rules}
    right = dict.fromkeys(out, 0)
    start = time.process_time()
    for r in range(reps):
        X, y, truth = sparse_model(kind, n, [kind, n, offset + r])
        with _SharedLasso():
            for label, options in rules:
                fit = sdr.LassoSIR(random_state=offset + r, progress=False, **options).fit(X, y)
                basis = fit.directions.to_numpy()
                right[label] += basis.shape[1] == truth.shape[1]
                out[label].append(recovery(basis, truth))
    return (
        {k: np.array(v) for k, v in out.items()},
        {k: v / reps for k, v in right.items()},
        (time.process_time() - start) / reps,
    )


def _paired(a: np.ndarray, b: np.ndarray) -> str:
    """Mean of the paired sine differences a - b (s.e.), better/worse counts."""
    diff = a[:, 2] - b[:, 2]
    se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
    return f"{diff.mean():+.3f} ({se:.3f}), {np.sum(diff < 0)}/{np.sum(diff > 0)}"


def _row(label: str, results: np.ndarray) -> str:
    nonzero, hit, sine = results.T
    return (
        f"{label} | {nonzero.mean():.1f} ({np.median(nonzero):.0f}, {nonzero.max():.0f}) | "
        f"{hit.mean():.2f} | {sine.mean():.3f} ({np.median(sine):.3f})"
    )


def sparse_recovery(
    reps: int,
    lasso_reps: int,
    sizes: list[int],
    lasso_sizes: list[int],
    methods: str,
    offset: int = 0,
    kinds: tuple = (1, 2),
) -> None:
    print("## Sparse recovery: online sparse SIR and Lasso-SIR, p = 200, 5 active predictors\n")
    print(
        "Models in the script's docstring. Non-zero: mean (median, max) over replications; "
        "TPR: share of the 5 active predictors selected; sin: largest sine of the principal "
        "angles to the truth, mean (median).\n"
    )
    if methods in ("both", "online"):
        online_recovery(reps, sizes)
    if methods in ("both", "lasso"):
        lasso_recovery(lasso_reps, lasso_sizes, offset, kinds)


def online_recovery(reps: int, sizes: list[int]) -> None:
    print(f"### OnlineSIR ({reps} replications a cell, init_size = min(500, n/2), true d)\n")
    print(
        "| model | n | options | non-zero | TPR | sin | s per fit |\n|---|---|---|---|---|---|---|"
    )
    for kind in (1, 2):
        for n in sizes:
            for label, options in (("before", ONLINE_BEFORE), ("after", {})):
                results, seconds = online_cell(kind, n, reps, options)
                print(
                    f"| {kind}-index | {n} | {_row(label, results)} | {seconds:.2f} |", flush=True
                )


def lasso_recovery(
    lasso_reps: int, lasso_sizes: list[int], offset: int = 0, kinds: tuple = (1, 2)
) -> None:
    seeds = f"seeds [kind, n, {offset} + r]" if offset else "seeds [kind, n, r]"
    print(f"\n### Lasso-SIR ({lasso_reps} replications a cell, {seeds}, automatic d)\n")
    print(
        "| model | n | options | non-zero | TPR | sin | true d chosen |\n"
        "|---|---|---|---|---|---|---|"
    )
    pairs, times = [], []
    for kind in kinds:
        for n in lasso_sizes:
            results, right, seconds = lasso_cell(kind, n, lasso_reps, LASSO_RULES, offset)
            for label, _ in LASSO_RULES:
                print(
                    f"| {kind}-index | {n} | {_row(label, results[label])} | {right[label]:.2f} |",
                    flush=True,
                )
            pairs.append(
                f"| {kind}-index | {n} | {_paired(results['after'], results['before'])} | "
                f"{_paired(results['after'], results['ridge refit'])} |"
            )
            times.append(f"{kind}-index n = {n}: {seconds:.1f}")
    print(
        "\nPaired on the same data sets, sine after minus the other rule: mean (s.e.), "
        "fits better/worse.\n\n| model | n | after - before | after - ridge refit |\n"
        "|---|---|---|---|\n" + "\n".join(pairs)
    )
    print(
        "\nCPU seconds per data set, the four rules together (they share the "
        "cross-validated Lasso paths; one BLAS thread): " + "; ".join(times) + "."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--sparse", action="store_true", help="the sparse-recovery benchmark")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--lasso-reps", type=int, default=30)
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 3000, 10000])
    parser.add_argument("--lasso-sizes", type=int, nargs="+", default=[120, 300, 1000])
    parser.add_argument("--methods", choices=("both", "online", "lasso"), default="both")
    parser.add_argument(
        "--seed-offset",
        type=int,
        default=0,
        help="Lasso-SIR data sets [kind, n, offset + r] (fresh seeds: an unused offset)",
    )
    parser.add_argument(
        "--kinds", type=int, nargs="+", default=[1, 2], help="Lasso-SIR models: 1, 2 or both"
    )
    args = parser.parse_args()
    if args.sparse:
        with threadpool_limits(1, user_api="blas"):
            sparse_recovery(
                args.reps,
                args.lasso_reps,
                args.sizes,
                args.lasso_sizes,
                args.methods,
                args.seed_offset,
                tuple(args.kinds),
            )
        return
    print(f"## Online SIR throughput: p = {P}, H = {H}, d = {D}, chunks of {CHUNK}\n")
    print(
        f"{args.rows} rows; the first chunk is the initial batch and is not timed. Wall "
        "times depend on the machine's load; CPU time counts both BLAS threads, so wall rows/s "
        "can exceed CPU rows/s.\n"
    )
    print(
        f"State after 10k / 30k / 50k rows: bytes of the state arrays (the recursion's, the "
        "SIR moments' and the sample of rows'), bytes of the saved file (OnlineSIR.save, with "
        f"the trace, capped at trace_size = {TRACE} snapshots of p x d), number of trace "
        "snapshots.\n"
    )
    print(
        "By default a stream also keeps the slice moments of SIR (`sir_moments=True`: the "
        "p x p cross-product of the predictors, for its result's χ² test and bootstrap) and a "
        "sample of 2000 rows (`reservoir_size`, for its conditional density); the rows with "
        "`sir_moments=False, reservoir_size=0` show the recursion alone.\n"
    )
    print(
        "| tracker | options | rows/s (wall) | rows/s (CPU) | state arrays, saved file, trace length |"
    )
    print("|---|---|---|---|---|")
    bare = {"sir_moments": False, "reservoir_size": 0}
    runs = [
        ("ccipca", {}),
        ("ccipca", bare),
        ("ipca", {}),
        ("ipca", bare),
        ("sgd", {}),
        ("sgd", bare),
    ]
    for eigen, options in runs:
        wall, cpu, sizes = throughput(eigen, args.rows, **options)
        sizes_text = (
            " / ".join(f"{a / 1024:.0f} KiB, {b / 1024:.0f} KiB, {k}" for a, b, k in sizes) or "—"
        )
        named = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
        print(f"| {eigen} | {named} | {wall:,.0f} | {cpu:,.0f} | {sizes_text} |")
    print(
        f"\nnumpy floor, one `chunk @ B` (p x d) per chunk: {numpy_floor(args.rows):,.0f} "
        "rows/s (CPU); one `chunk.T @ chunk` (p x p, the SIR moments' cost) per chunk: "
        f"{cross_product_floor(args.rows):,.0f} rows/s (CPU, all BLAS threads).\n"
    )
    print("### Block recursion vs the one-row recursion (model 2, p = 100, n = 5000)\n")
    print("| recursion | distance to truth | seconds |\n|---|---|---|")
    print(block_versus_rows())


if __name__ == "__main__":
    main()
