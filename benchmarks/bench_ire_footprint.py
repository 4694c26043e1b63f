"""What an IRE fit holds and saves at n = 1e5, p = 50 with R's default slicing.

Prints the fit's CPU time, the memory the result keeps (tracemalloc, after the fit, less the
caller's data; a smaller fit first loads the modules and the process-wide index caches of
``Γ_ζ``'s sums, so that they are not counted), the size of its saved file, and the CPU time of a first and a second marginal
coordinate test (the first may recompute the final ``Γ_ζ`` factor from the fit's rows).

Run with one BLAS thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_ire_footprint.py
"""

import gc
import os
import sys
import tempfile
import time
import tracemalloc

import numpy as np

import sdrstats as sdr

N, P = int(float(sys.argv[1])) if len(sys.argv) > 1 else 100_000, 50


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, P))
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.5 * rng.standard_normal(N)
    warm = sdr.IRE(d_max=2, random_state=0).fit(X[:6000], y[:6000])  # R's slicing: h >= p
    warm.coordinate_test([warm.x_names[1]])
    del warm
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    start = time.process_time()
    fit = sdr.IRE(d_max=2, random_state=0).fit(X, y)
    fit_cpu = time.process_time() - start
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    h = len(fit.output.extras["slice_sizes"])
    print(f"n = {N}, p = {P}, h = {h}, p(h - 1) = {P * (h - 1)}")
    print(f"fit CPU {fit_cpu:.1f} s; result keeps {kept / 2**20:.1f} MiB "
          f"(its X: {fit.spec.X.nbytes / 2**20:.1f} MiB)")  # fmt: skip
    target = fit.save(os.path.join(tempfile.mkdtemp(), "fit"))
    print(f"saved file {os.path.getsize(target) / 2**20:.1f} MiB")
    for k in (1, 2):
        start = time.process_time()
        test = fit.coordinate_test([fit.x_names[1]])
        print(f"coordinate test {k}: {time.process_time() - start:.2f} s CPU, "
              f"statistic {test.statistic:.10g}")  # fmt: skip
    loaded = sdr.load(target)
    start = time.process_time()
    test = loaded.coordinate_test([fit.x_names[1]])
    print(f"loaded fit's first test: {time.process_time() - start:.2f} s CPU, "
          f"statistic {test.statistic:.10g}")  # fmt: skip


if __name__ == "__main__":
    main()
