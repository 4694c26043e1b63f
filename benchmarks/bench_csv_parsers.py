"""CSV parsers on a numeric file: which reads a chunked fit's passes fastest.

Run ``python benchmarks/bench_csv_parsers.py [--rows N]`` (default 200 000 rows); it prints a
markdown section. The file is ``bench_scale.py``'s: 50 normal predictors and a response, written
by pyarrow's CSV writer to /tmp (deleted afterwards), about 1 000 bytes a row. Each reader runs
``--repeats`` times, interleaved with the others in one process (the machine's load weighs on
all alike); the table gives the medians of wall and CPU time (``time.process_time``: every
thread of the process) and the CPU time per million rows.

Readers:

* pandas' C parser in chunks of 100 000 rows (``pandas.read_csv(chunksize=...)``): one thread;
* ``pandas.read_csv(path)``, the whole file with pandas' defaults (the C parser; pandas
  parses byte ranges of a large file in threads when it can);
* ``pandas.read_csv(path, engine="pyarrow")``, the whole file (pyarrow's threads);
* ``pyarrow.csv.open_csv`` streaming record batches of 16 MiB, each made a DataFrame: the
  only way pyarrow reads a CSV file in bounded memory;
* ``sdrstats.read_csv_chunks`` with 1 and 2 threads, every column;
* the response's column alone: pandas' chunked reader with ``usecols=["y"]`` and
  ``read_csv_chunks(...).columns(["y"])`` (a fit's slicing pass) with 1 and 2 threads.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scale import write_rows  # noqa: E402


def readers(path: str) -> dict:
    import pyarrow.csv as pacsv

    import sdrstats as sdr

    def stream() -> None:
        options = pacsv.ReadOptions(block_size=16 * 2**20)
        for batch in pacsv.open_csv(path, read_options=options):
            batch.to_pandas()

    return {
        "pandas C parser, chunks of 100 000 rows (1 thread)": lambda: [
            c for c in pd.read_csv(path, chunksize=100_000)
        ],
        "pandas.read_csv, whole file (C parser, pandas' threads)": lambda: pd.read_csv(path),
        'pandas.read_csv(engine="pyarrow"), whole file': lambda: pd.read_csv(
            path, engine="pyarrow"
        ),
        "pyarrow.csv.open_csv, 16 MiB batches to DataFrames": stream,
        "sdrstats.read_csv_chunks(threads=1)": lambda: list(sdr.read_csv_chunks(path, threads=1)),
        "sdrstats.read_csv_chunks(threads=2)": lambda: list(sdr.read_csv_chunks(path, threads=2)),
        'pandas C parser, chunks, usecols=["y"] (1 thread)': lambda: [
            c for c in pd.read_csv(path, chunksize=100_000, usecols=["y"])
        ],
        'sdrstats.read_csv_chunks(threads=1).columns(["y"])': lambda: list(
            sdr.read_csv_chunks(path, threads=1).columns(["y"])
        ),
        'sdrstats.read_csv_chunks(threads=2).columns(["y"])': lambda: list(
            sdr.read_csv_chunks(path, threads=2).columns(["y"])
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import pyarrow

    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        path = os.path.join(tmp, "parsers.csv")
        size = write_rows(path, args.rows)
        cases = readers(path)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.repeats):
            for name, read in cases.items():
                wall, cpu = time.perf_counter(), time.process_time()
                read()
                times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
        load = os.getloadavg()
    print("## CSV parsers on a numeric file (benchmarks/bench_csv_parsers.py)\n")
    print(
        f"{args.rows:,} rows x 51 numeric columns, {size / 1e6:.0f} MB; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; pandas {pd.__version__}, "
        f"pyarrow {pyarrow.__version__}; {os.cpu_count()} cores, load average at the end "
        f"{', '.join(f'{v:.1f}' for v in load)}. Medians of {args.repeats} interleaved runs; "
        "CPU time counts every thread.\n"
    )
    print("| reader | wall s | CPU s | CPU s per 1e6 rows | CPU / pandas C chunks |")
    print("|---|---|---|---|---|")
    base = None
    for name, runs in times.items():
        wall, cpu = np.median(np.array(runs), axis=0)
        base = cpu if base is None else base
        print(
            f"| {name} | {wall:.2f} | {cpu:.2f} | {cpu * 1e6 / args.rows:.2f} | {cpu / base:.2f} |"
        )
    print()


if __name__ == "__main__":
    main()
