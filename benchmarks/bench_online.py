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
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import sdrstats as sdr
from sdrstats.simulate import ossir_model
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    args = parser.parse_args()
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
