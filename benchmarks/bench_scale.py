"""SIR beyond memory: chunks, a 2 GB CSV and a Dask cluster, against the in-memory fit.

Run ``python benchmarks/bench_scale.py [--quick]``; it prints a markdown section for
``benchmarks/RESULTS.md``. Every scenario runs in a fresh subprocess, so its peak resident
memory (``ru_maxrss``) is its own. Data are generated on the fly, chunk by chunk, from seeded
streams (chunk ``k`` from ``default_rng([seed, k])``): 50 independent normal predictors
``x1..x50`` and ``y = x1 + x2**2 / 2 + N(0, 1)``, formula ``y ~ .``, 10 slices with cut points
set from the first chunk (a pilot sample), so each path needs one pass.

Scenarios:

* ``memory``: the 1e6-row DataFrame built in memory, then ``sdr.sir(formula, frame)``;
* ``chunks``: 1e7 rows as a :class:`~sdrstats.ChunkSource` of 100 000-row chunks, generated
  as they are read, never held at once;
* ``dask``: the same 1e7 rows as a Dask DataFrame of 100 partitions built on a
  ``LocalCluster`` of 2 worker processes (each partition generated on its worker);
* ``csv``: a ~2 GB CSV written to /tmp (timed apart), then fitted with
  ``sdr.read_csv_chunks(path, chunksize=50_000)``; the file is deleted afterwards;
* ``chunks_exact`` and ``dask_exact``: the chunk and Dask paths without cut points, so the
  default exact slicing (R ``dr``'s slices of the whole response, found in passes over the
  response: :mod:`sdrstats.stats.exact_slicing`) runs first; their table counts those passes and
  compares the time with the one-pass fit given cut points;
* ``ire_chunks`` and ``ire_dask``: IRE (``nslices=5``, ``d_max=2``) on the same rows: its
  statistics pass, then the passes that accumulate the covariance Γ of its inverse-regression
  moments (Cook & Ni 2005), each compared with one pass of SIR;
* ``weighted_chunks`` and ``weighted_dask``: SIR with R ``dr``'s case weights (a column ``w``,
  uniform on [0.5, 1.5]), against the unweighted one-pass fit;
* ``csv_exact``: ``sdr.sir("y ~ .", sdr.read_csv_chunks(path))`` with the default exact
  slicing on a CSV of 1e6 rows (about 1 GB), against one ``pandas.read_csv`` of the same file,
  and ``pandas.read_csv(path, engine="pyarrow")``, alternated five times in one process (the
  machine's load weighs on all alike); the faster read is the reference. Peak memory is taken
  after the first fit, before any whole-file read. Run it alone with ``--csv-read``;
* ``--csv-versus TREE``: the same fit with this tree's ``sdrstats`` against that of another
  tree (a git worktree of another branch) on CSV files of ``--csv-rows`` rows (1e6, 4e6 and
  6e6 by default: beyond about 4.5e6 rows the one-pass slicing gives up at its first chunk),
  each fit a fresh process, alternated three times; run alone;
* ``boot_chunks`` and ``boot_dask``: ``fit.bootstrap(B=200, scheme="poisson")`` of the chunked
  SIR fit, one more read of the data; ``floor`` times ``200 × X.T @ (X * w)`` with Poisson(1)
  weights on 1e6 of the same rows, scaled to the row count (the work of an exact weighted
  bootstrap that holds no slice structure), and the bootstrap's compute is compared with it.

Rows per second include generating (or parsing) the rows, for every path alike. The machine
(2 cores) is shared with other jobs, so times are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

P = 50
SEED = 20261202
CHUNK = 100_000
COLUMNS = [f"x{j + 1}" for j in range(P)]
FORMULA = "y ~ ."
FORMULA_X = "y ~ " + " + ".join(COLUMNS)  # for the weighted rows, whose `w` is not a predictor
B_BOOT = 200
IRE_OPTIONS = {"nslices": 5, "d_max": 2}


def make_chunk(k: int, rows: int = CHUNK, weighted: bool = False) -> pd.DataFrame:
    """Chunk ``k`` of the simulated data (the same whatever reads it); ``weighted`` adds a
    case-weight column ``w`` drawn after the rows, so the predictors and response are the same."""
    rng = np.random.default_rng([SEED, k])
    X = rng.standard_normal((rows, P))
    frame = pd.DataFrame(X, columns=COLUMNS)
    frame["y"] = X[:, 0] + X[:, 1] ** 2 / 2 + rng.standard_normal(rows)
    if weighted:
        frame["w"] = rng.uniform(0.5, 1.5, rows)
    return frame


def make_weighted_chunk(k: int, rows: int = CHUNK) -> pd.DataFrame:
    return make_chunk(k, rows, weighted=True)


def fit_scenario(sdr, name: str, data, cuts: np.ndarray, extra: dict):
    """The fit (and, for the bootstrap scenarios, the bootstrap) of scenario ``name``."""
    kind = "exact" if name.endswith("_exact") else name.split("_")[0]
    if kind == "ire":
        fit = sdr.ire(FORMULA, data, **IRE_OPTIONS)
        extra["data_passes"] = fit.row_passes
        extra["slicing_passes"] = fit.slicing_passes
        return fit
    if kind == "weighted":
        return sdr.sir(FORMULA_X, data, weights="w", cut_points=cuts)
    given = {"cut_points": cuts} if kind in ("chunks", "dask", "boot") else {"nslices": 10}
    fit = sdr.sir(FORMULA, data, **given)
    extra["slicing_passes"] = fit.slicing_passes
    if kind == "boot":
        start = time.perf_counter()
        boot = fit.bootstrap(B=B_BOOT, scheme="poisson", random_state=1, progress=False)
        extra["boot_s"] = time.perf_counter() - start
        extra["boot_median_distance"] = float(np.nanmedian(boot.distances))
    return fit


def floor_seconds(rows: int) -> float:
    """``B_BOOT`` products ``X.T @ (X * w)`` (Poisson(1) ``w``) over 1e6 rows, scaled to ``rows``."""
    sample = min(rows, 1_000_000)
    rng = np.random.default_rng(SEED)
    elapsed = 0.0
    for k in range(sample // CHUNK):
        X = make_chunk(k)[COLUMNS].to_numpy()
        w = rng.poisson(1.0, (B_BOOT, X.shape[0])).astype(float)
        start = time.perf_counter()
        for b in range(B_BOOT):
            X.T @ (X * w[b][:, None])
        elapsed += time.perf_counter() - start
    return elapsed * rows / sample


def pilot_cut_points() -> np.ndarray:
    return np.quantile(make_chunk(0)["y"], np.arange(1, 10) / 10)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def scenario(name: str, rows: int, path: str | None) -> dict:
    import sdrstats as sdr

    cuts = pilot_cut_points()
    n_chunks = rows // CHUNK
    start = time.perf_counter()
    extra: dict = {}
    if name == "memory":
        frame = pd.concat([make_chunk(k) for k in range(n_chunks)], ignore_index=True)
        built = time.perf_counter()
        fit = sdr.sir(FORMULA, frame, cut_points=cuts)
        extra["fit_only_s"] = time.perf_counter() - built
    elif name == "floor":
        return {"scenario": name, "rows": rows, "seconds": floor_seconds(rows)}
    elif name.endswith("chunks") or name == "chunks_exact":
        maker = make_weighted_chunk if name.startswith("weighted") else make_chunk
        source = sdr.chunks_from(lambda: (maker(k) for k in range(n_chunks)))
        fit = fit_scenario(sdr, name, source, cuts, extra)
    elif name == "csv":
        fit = sdr.sir(FORMULA, sdr.read_csv_chunks(path, chunksize=50_000), cut_points=cuts)
    elif name.endswith("dask") or name == "dask_exact":
        import dask.dataframe as dd
        from dask.distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            ready = time.perf_counter()
            maker = make_weighted_chunk if name.startswith("weighted") else make_chunk
            ddf = dd.from_map(maker, list(range(n_chunks)), meta=maker(0, 0))
            fit = fit_scenario(sdr, name, ddf, cuts, extra)
            extra["cluster_start_s"] = ready - start
            start = ready
            extra["worker_peak_mb"] = max(
                client.run(
                    lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                ).values()
            )
    else:
        raise ValueError(name)
    seconds = time.perf_counter() - start
    return {
        "scenario": name,
        "rows": fit.n,
        "seconds": seconds,
        "peak_mb": peak_mb(),
        "direction": fit.output.basis[:, 0].tolist(),
        **extra,
    }


def write_csv(path: str, target_bytes: float) -> tuple[int, float, int]:
    """Write chunks with pyarrow's CSV writer (pandas' to_csv is ~10x slower) until the file
    reaches ``target_bytes``."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    start = time.perf_counter()
    rows = 0
    k = 0
    with open(path, "wb") as handle:
        while handle.tell() < target_bytes:
            table = pa.Table.from_pandas(make_chunk(1000 + k), preserve_index=False)
            pacsv.write_csv(table, handle, pacsv.WriteOptions(include_header=(k == 0)))
            rows += CHUNK
            k += 1
    return rows, time.perf_counter() - start, os.path.getsize(path)


CSV_READ_REPEATS = 5


def csv_exact_scenario(path: str) -> dict:
    """The chunked SIR fit of a CSV file (exact slicing) and whole-file reads (pandas' default
    C parser, then its pyarrow engine), alternated."""
    import sdrstats as sdr

    fits, reads, arrow_reads, peak, fit = [], [], [], None, None
    for _ in range(CSV_READ_REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        fit = sdr.sir(FORMULA, sdr.read_csv_chunks(path))
        fits.append((time.perf_counter() - wall, time.process_time() - cpu))
        if peak is None:
            peak = peak_mb()  # before any whole-file read
        for engine, out in ((None, reads), ("pyarrow", arrow_reads)):
            wall, cpu = time.perf_counter(), time.process_time()
            frame = pd.read_csv(path) if engine is None else pd.read_csv(path, engine=engine)
            out.append((time.perf_counter() - wall, time.process_time() - cpu))
            del frame
    return {
        "scenario": "csv_exact",
        "rows": fit.n,
        "fits": fits,
        "reads": reads,
        "arrow_reads": arrow_reads,
        "peak_mb": peak,
        "slicing_passes": fit.slicing_passes,
        "row_passes": fit.row_passes,
        "load": os.getloadavg(),
        "threads": len(os.sched_getaffinity(0)),
    }


def csv_fit_scenario(path: str) -> dict:
    """One chunked SIR fit of a CSV file (exact slicing), timed in wall and CPU time."""
    import sdrstats as sdr

    wall, cpu = time.perf_counter(), time.process_time()
    fit = sdr.sir(FORMULA, sdr.read_csv_chunks(path))
    return {
        "scenario": "csv_fit",
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "rows": fit.n,
        "slicing_passes": fit.slicing_passes,
        "row_passes": fit.row_passes,
        "peak_mb": peak_mb(),
        "direction": fit.output.basis[:, 0].tolist(),
        "load": os.getloadavg()[0],
        "sdrstats": os.path.dirname(os.path.dirname(sdr.__file__)),
    }


#: Alternations of the fits of two trees in ``--csv-versus``.
VERSUS_REPEATS = 3


def csv_versus_section(other: str, sizes: list[int]) -> None:
    """Print the section of ``--csv-versus``: the CSV fit of this tree's ``sdrstats`` against
    that of the tree ``other``, on CSV files of ``sizes`` rows (each in /tmp, deleted after),
    every fit a fresh process, the trees alternated (which runs first alternates too)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"this": here, "other": os.path.abspath(other)}
    rows_out = []
    for rows in sizes:
        with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
            path = os.path.join(tmp, "versus.csv")
            size = write_rows(path, rows)
            for k in range(VERSUS_REPEATS):
                order = ("other", "this") if k % 2 == 0 else ("this", "other")
                got = {}
                for key in order:
                    env = {**os.environ, "PYTHONPATH": trees[key]}
                    got[key] = run("csv_fit", rows, path, env=env)
                    assert got[key]["sdrstats"] == trees[key], got[key]["sdrstats"]
                cos = abs(np.dot(got["this"]["direction"], got["other"]["direction"]))
                rows_out.append((rows, size, k + 1, got, cos))
    print("### A CSV fit: this tree against another\n")
    print(
        f'`sdr.sir("y ~ .", sdr.read_csv_chunks(path))` (the default exact slicing, 100 000-row '
        f"chunks, byte ranges parsed in threads) on CSV files of {P} predictors, with the "
        f"`sdrstats` of this tree and of `{other}`, each fit a fresh process, alternated "
        f"{VERSUS_REPEATS} times (the first run alternates). Load: the 1-minute average as "
        "each fit ended. Passes: over the response, then over the rows.\n"
    )
    print(
        "| rows (GB) | run | other seconds (CPU) | other passes | this seconds (CPU) | "
        "this passes | this / other (wall) | this / other (CPU) | peak MB other / this | "
        "load | abs(cos) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for rows, size, k, got, cos in rows_out:
        o, t = got["other"], got["this"]
        print(
            f"| {rows:.0e} ({size / 1e9:.1f}) | {k} | {o['wall']:.1f} ({o['cpu']:.1f}) | "
            f"{o['slicing_passes']}, {o['row_passes']} | {t['wall']:.1f} ({t['cpu']:.1f}) | "
            f"{t['slicing_passes']}, {t['row_passes']} | {t['wall'] / o['wall']:.2f} | "
            f"{t['cpu'] / o['cpu']:.2f} | {o['peak_mb']:.0f} / {t['peak_mb']:.0f} | "
            f"{o['load']:.1f}, {t['load']:.1f} | {cos:.12f} |"
        )
    print()
    for rows in sizes:
        mine = [r for r in rows_out if r[0] == rows]
        wall = np.median([r[3]["this"]["wall"] / r[3]["other"]["wall"] for r in mine])
        cpu = np.median([r[3]["this"]["cpu"] / r[3]["other"]["cpu"] for r in mine])
        print(f"Median this / other at {rows:.0e} rows: {wall:.2f} (wall), {cpu:.2f} (CPU).\n")


def write_rows(path: str, rows: int) -> int:
    """Write ``rows`` rows of the simulated data (chunks 1000, 1001, ...) with pyarrow's CSV
    writer; returns the file's size."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    with open(path, "wb") as handle:
        for k in range(rows // CHUNK):
            table = pa.Table.from_pandas(make_chunk(1000 + k), preserve_index=False)
            pacsv.write_csv(table, handle, pacsv.WriteOptions(include_header=(k == 0)))
    return os.path.getsize(path)


def csv_read_section(rows: int) -> None:
    """Print the section of the ``csv_exact`` scenario (a CSV of ``rows`` rows in /tmp)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        path = os.path.join(tmp, "read.csv")
        size = write_rows(path, rows)
        r = run("csv_exact", rows, path)
    median = {key: np.median(np.array(r[key]), axis=0) for key in ("fits", "reads", "arrow_reads")}
    # the reference: the faster whole-file read (wall time), pandas' C parser or pyarrow's
    ref_key = "reads" if median["reads"][0] <= median["arrow_reads"][0] else "arrow_reads"
    ref_name = {"reads": "pandas' C parser", "arrow_reads": 'engine="pyarrow"'}[ref_key]
    print("### A CSV read in one pass against one pandas.read_csv\n")
    print(
        f'`sdr.sir("y ~ .", sdr.read_csv_chunks(path))` (100 000-row chunks, the default '
        f"exact slicing) on a {size / 1e9:.2f} GB CSV of {r['rows']:.2e} rows x {P} predictors, "
        f"and `pandas.read_csv(path)` of the same file (pandas {pd.__version__}: its C parser, "
        "which parses byte ranges of a large file in threads) and `pandas.read_csv(path, "
        f'engine="pyarrow")`, alternated {CSV_READ_REPEATS} times in one process; load '
        f"average at the end {', '.join(f'{v:.1f}' for v in r['load'])} ({r['threads']} "
        "cores). The fit's reader parses byte ranges of the file in "
        f"{min(4, r['threads'])} threads with pandas' C parser (pyarrow's parser spends 2.6-3.2x "
        "its CPU time per row here: `bench_csv_parsers.md`). One pass reads every column, "
        "finds R dr's exact cuts from the held response at the end and sums the slices as it "
        "goes (the rows near the running cuts are held, at most 64 MiB, and moved to their "
        "slices at the end: `sdrstats.scale.one_pass`). The reference is "
        f"the faster whole-file read, {ref_name}. CPU time counts every thread. Goal: the fit "
        "within 1.5x one read, in wall and in CPU time, memory bounded.\n"
    )
    print(
        "| run | fit seconds (CPU) | read_csv C seconds (CPU) | read_csv pyarrow seconds "
        "(CPU) | fit / reference read (wall) | fit / reference read (CPU) |"
    )
    print("|---|---|---|---|---|---|")
    for k, ((fw, fc), (rw, rc), (aw, ac)) in enumerate(
        zip(r["fits"], r["reads"], r["arrow_reads"])
    ):
        sw, sc = r[ref_key][k]
        print(
            f"| {k + 1} | {fw:.2f} ({fc:.2f}) | {rw:.2f} ({rc:.2f}) | {aw:.2f} ({ac:.2f}) | "
            f"{fw / sw:.2f} | {fc / sc:.2f} |"
        )
    fit_m, ref_m = median["fits"], median[ref_key]
    print(
        f"\nMedian fit / read ({ref_name}): {fit_m[0] / ref_m[0]:.2f} (wall), "
        f"{fit_m[1] / ref_m[1]:.2f} (CPU). Passes: {r['slicing_passes']} over the response, "
        f"{r['row_passes']} over the rows. Peak memory of the fit: {r['peak_mb']:.0f} MB.\n"
    )


def run(name: str, rows: int, path: str | None = None, env: dict | None = None) -> dict:
    cmd = [sys.executable, __file__, "--scenario", name, "--rows", str(rows)]
    if path:
        cmd += ["--path", path]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1e6 rows and a 200 MB CSV")
    parser.add_argument("--scenario")
    parser.add_argument("--rows", type=int)
    parser.add_argument("--path")
    parser.add_argument(
        "--skip-more", action="store_true", help="only SIR (no IRE, weights or bootstrap)"
    )
    parser.add_argument(
        "--csv-read",
        action="store_true",
        help="only the CSV fit with exact slicing against one pandas.read_csv",
    )
    parser.add_argument(
        "--csv-versus",
        metavar="TREE",
        help="only the CSV fit of this tree against that of another tree (a git worktree)",
    )
    parser.add_argument(
        "--csv-rows",
        default="1000000,4000000,6000000",
        help="rows of the CSV files of --csv-versus, comma-separated",
    )
    args = parser.parse_args()
    if args.scenario == "csv_exact":
        print(json.dumps(csv_exact_scenario(args.path)))
        return
    if args.scenario == "csv_fit":
        print(json.dumps(csv_fit_scenario(args.path)))
        return
    if args.csv_versus:
        csv_versus_section(args.csv_versus, [int(float(r)) for r in args.csv_rows.split(",")])
        return
    if args.scenario:
        print(json.dumps(scenario(args.scenario, args.rows, args.path)))
        return
    if args.csv_read:
        csv_read_section(200_000 if args.quick else 1_000_000)
        return
    big = 1_000_000 if args.quick else 10_000_000
    small = 200_000 if args.quick else 1_000_000
    csv_bytes = 2e8 if args.quick else 2e9
    results = [run("memory", small), run("chunks", big), run("dask", big)]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        path = os.path.join(tmp, "big.csv")
        csv_rows, write_s, size = write_csv(path, csv_bytes)
        csv = run("csv", csv_rows, path)
        os.remove(path)
    results.append(csv)
    exact = {"chunks": run("chunks_exact", big), "dask": run("dask_exact", big)}
    memory = results[0]
    base_rate = memory["rows"] / memory["seconds"]
    reference = np.array(memory["direction"])

    print("## Scale: SIR on chunks, a CSV and Dask (benchmarks/bench_scale.py)\n")
    print(
        f"p = {P} predictors, 10 slices (cut points from a pilot chunk), formula `y ~ .`; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Rows/s include generating or "
        "parsing the rows. Peak memory is the resident set of the fitting process (for Dask, "
        "also the largest worker). The 2-core machine was shared with other jobs: times are "
        "noisy. `abs(cos)` compares the first direction with the in-memory fit's (same model).\n"
    )
    print("| path | rows | seconds | rows/s | vs in-memory rows/s | peak MB | abs(cos) |")
    print("|---|---|---|---|---|---|---|")
    labels = {
        "memory": "in memory (DataFrame)",
        "chunks": "chunks (ChunkSource, 1e5 rows each)",
        "dask": "Dask DataFrame, LocalCluster 2 processes",
        "csv": f"CSV {size / 1e9:.2f} GB, read_csv_chunks(chunksize=50 000)",
    }
    for r in results:
        rate = r["rows"] / r["seconds"]
        peak = f"{r['peak_mb']:.0f}"
        if "worker_peak_mb" in r:
            peak += f" (worker {r['worker_peak_mb']:.0f})"
        cos = abs(float(np.dot(reference, r["direction"])))
        print(
            f"| {labels[r['scenario']]} | {r['rows']:.2e} | {r['seconds']:.1f} | {rate:,.0f} | "
            f"{rate / base_rate:.2f} | {peak} | {cos:.4f} |"
        )
    print(
        f"\nIn-memory fit alone (without building the frame): {memory['fit_only_s']:.1f} s. "
        f"Dask cluster start-up (not counted above): {results[2]['cluster_start_s']:.1f} s. "
        f"Writing the CSV ({csv_rows:.2e} rows) took {write_s:.0f} s (not counted). Goal: peak "
        f"memory for the 2 GB CSV under 500 MB -> {csv['peak_mb']:.0f} MB.\n"
    )
    print("### Exact slicing (the default: no cut points)\n")
    print(
        "The same rows without `cut_points`: the response's slices are found exactly (R `dr`'s "
        "rule on the whole response) before the statistics pass. The first slicing pass reads "
        "the rows; the response is then kept (chunks: in the client, up to 2^24 values; Dask: "
        "persisted on the workers), so later slicing passes read no rows. Goal: the extra "
        "passes cost at most 1.5x the one-pass time, client peak memory at most 500 MB.\n"
    )
    print(
        "| path | rows | slicing passes | data passes | seconds | one-pass seconds | "
        "extra cost / one pass | rows/s | peak MB | abs(cos) vs one pass |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    one_pass = {"chunks": results[1], "dask": results[2]}
    for key, r in exact.items():
        base = one_pass[key]
        extra_cost = (r["seconds"] - base["seconds"]) / base["seconds"]
        peak = f"{r['peak_mb']:.0f}"
        if "worker_peak_mb" in r:
            peak += f" (worker {r['worker_peak_mb']:.0f})"
        cos = abs(float(np.dot(base["direction"], r["direction"])))
        print(
            f"| {labels[key]} | {r['rows']:.2e} | {r['slicing_passes']} | 2 | "
            f"{r['seconds']:.1f} | {base['seconds']:.1f} | {extra_cost:.2f} | "
            f"{r['rows'] / r['seconds']:,.0f} | {peak} | {cos:.4f} |"
        )
    print()
    csv_read_section(small)
    if not args.skip_more:
        more_tables(big, one_pass, exact, labels)


def peak_text(r: dict) -> str:
    peak = f"{r['peak_mb']:.0f}"
    if "worker_peak_mb" in r:
        peak += f" (worker {r['worker_peak_mb']:.0f})"
    return peak


def more_tables(big: int, one_pass: dict, exact: dict, labels: dict) -> None:
    """IRE, weighted SIR and the Poisson bootstrap on chunks and Dask."""
    ire = {key: run(f"ire_{key}", big) for key in one_pass}
    print("### IRE: passes over the rows\n")
    print(
        f"`sdr.ire(formula, data, nslices={IRE_OPTIONS['nslices']}, d_max="
        f"{IRE_OPTIONS['d_max']})`, default exact slicing. After the slicing passes over the "
        "response and the moments pass, each further pass accumulates the covariance Γ of the "
        "inverse-regression moments (all the Γ's one re-estimation round needs, in one pass). "
        "The slicing passes and the moments pass are SIR's (the SIR fit with exact slicing "
        "above); each extra pass costs (IRE seconds - that fit's seconds) / (data passes - 1). "
        "Goal: each extra pass costs at most 1x one pass of SIR (the SIR fit given cut "
        "points).\n"
    )
    print(
        "| path | rows | slicing passes | data passes | seconds | SIR exact-slicing seconds | "
        "SIR one-pass seconds | extra pass cost / SIR pass | peak MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for key, r in ire.items():
        base = one_pass[key]["seconds"]
        first = exact[key]["seconds"]
        passes = r["data_passes"]
        per_pass = (r["seconds"] - first) / (passes - 1)
        print(
            f"| {labels[key]} | {r['rows']:.2e} | {r['slicing_passes']} | {passes} | "
            f"{r['seconds']:.1f} | {first:.1f} | {base:.1f} | {per_pass / base:.2f} | "
            f"{peak_text(r)} |"
        )
    print()
    weighted = {key: run(f"weighted_{key}", big) for key in one_pass}
    print("### Case-weighted SIR (R dr's rule)\n")
    print(
        'The same rows with a weight column `w` ~ U(0.5, 1.5), `weights="w"`, cut points '
        "given. R's rule rescales the weights by their total, but every sum it needs can be "
        "rescaled afterwards, so the weighted fit reads the rows once, as the unweighted one; "
        "its pass accumulates the moments of `x` and `sqrt(w) x` together. Goal: the extra "
        "cost at most 1x one pass.\n"
    )
    print(
        "| path | rows | data passes | seconds | unweighted seconds | extra cost / one pass | "
        "peak MB | abs(cos) vs unweighted |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for key, r in weighted.items():
        base = one_pass[key]
        cos = abs(float(np.dot(base["direction"], r["direction"])))
        extra_cost = (r["seconds"] - base["seconds"]) / base["seconds"]
        print(
            f"| {labels[key]} | {r['rows']:.2e} | 1 | {r['seconds']:.1f} | "
            f"{base['seconds']:.1f} | {extra_cost:.2f} | {peak_text(r)} | {cos:.4f} |"
        )
    print()
    boot = {key: run(f"boot_{key}", big) for key in one_pass}
    floor = run("floor", big)
    print(f"### Poisson bootstrap, B = {B_BOOT}\n")
    print(
        f'`fit.bootstrap(B={B_BOOT}, scheme="poisson")` of the SIR fit given cut points: one '
        "more read of the rows, each row's Poisson(1) counts from a counter-based generator, "
        "B weighted slice statistics per partition, merged, then B fits of p x p size. The "
        f"floor is {B_BOOT} weighted `X.T @ (X * w)` on the same rows (measured on 1e6 rows, "
        f"scaled by rows): {floor['seconds']:.0f} s. Goals: one read of the data, compute "
        "within 10x of the floor, client memory bounded.\n"
    )
    print(
        "| path | rows | bootstrap seconds | one-pass fit seconds | bootstrap / floor | "
        "peak MB | median distance |"
    )
    print("|---|---|---|---|---|---|---|")
    for key, r in boot.items():
        print(
            f"| {labels[key]} | {r['rows']:.2e} | {r['boot_s']:.1f} | "
            f"{one_pass[key]['seconds']:.1f} | {r['boot_s'] / floor['seconds']:.2f} | "
            f"{peak_text(r)} | {r['boot_median_distance']:.4f} |"
        )
    print()


if __name__ == "__main__":
    main()
