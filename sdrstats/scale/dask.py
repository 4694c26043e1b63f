"""Dask DataFrames as ``data``, and resampling on a Dask cluster (optional: ``sdrstats[dask]``).

A formula function of a method that fits from statistics, given a Dask DataFrame, fits without
collecting the rows:
the formula is fixed on the first partition (declare factor levels with a categorical dtype so
that every partition codes them alike), each partition's per-slice statistics are computed
where it lives (``to_delayed`` + a pairwise tree of merges) and only those small arrays travel.

Slicing a continuous response is exact by default: the cut points are found from passes over
the response alone (value counts when it has few distinct values, else a bracketing grid and
the values inside the brackets; :mod:`sdrstats.stats.exact_slicing`), so the slices are R ``dr``'s
(or Arc's) slices of the whole response and the fit equals the in-memory fit to rounding.
Given ``cut_points`` are used as they are.

A method that needs the rows in response order (CUME) gets them sorted on the cluster
(:meth:`DaskFrame.sorted_scan`, ``set_index``), then sums over the sorted partitions; its
result equals the in-memory fit.

:func:`dask_backend` sends the resampling loops (bootstrap, permutation tests, restarts) to the
cluster through joblib's Dask backend; every replicate draws from its own spawned seed, so the
results are identical to a local run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ..design.plan import FormulaPlan

INSTALL = 'pip install "sdrstats[dask]"  (or: pip install "dask[dataframe]" distributed)'


def require_dask() -> Any:
    """Import dask, or raise an ImportError saying what to install."""
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError:
        raise ImportError(f"Dask support needs dask and distributed: {INSTALL}.") from None
    return dask


class _Failure:
    """An input error raised on a worker, carried back as data (patsy objects in a traceback
    do not pickle, which would turn the error into a bare ``Exception``)."""

    def __init__(self, error: Exception) -> None:
        self.kind = type(error)
        self.message = str(error)

    def merge(self, other: Any) -> _Failure:
        return self


def _guarded(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (ValueError, TypeError) as error:
        return _Failure(error)


def _measured(k: int, fn: Any, plan: Any, part: pd.DataFrame, where: str, *args: Any) -> Any:
    """``fn(plan, part, where, *args)``, with partition ``k``'s row count on a result that
    keeps ``lengths``."""
    out = fn(plan, part, where, *args)
    if hasattr(out, "lengths"):
        out.lengths = {k: int(part.shape[0])}
    return out


def _merge(a: Any, b: Any) -> Any:
    if isinstance(b, _Failure) and not isinstance(a, _Failure):
        return b
    return a.merge(b)


class DaskFrame:
    """Backend of :func:`sdrstats.scale.fit.fit_chunked` for a Dask DataFrame."""

    def __init__(self, ddf: Any) -> None:
        self.dask = require_dask()
        self.ddf = ddf
        self.description = f"dask DataFrame ({ddf.npartitions} partitions)"

    def first(self) -> pd.DataFrame:
        first = self.ddf.get_partition(0).compute()
        if first.shape[0] == 0:
            first = self.ddf.head(1000, npartitions=-1)
        if first.shape[0] == 0:
            raise ValueError("The Dask DataFrame has no rows; a fit needs observations.")
        return _numbers_from_text(first)

    rereadable = True

    def set_dtypes(self, dtypes: dict[str, pd.CategoricalDtype]) -> None:
        """Read these columns as these categoricals from now on."""
        if dtypes:
            self.ddf = self.ddf.astype(dtypes)

    def map_reduce(self, fn: Any, plan: FormulaPlan, *args: Any) -> Any:
        """``fn(plan, partition, where, *args)`` on every partition, merged pairwise.

        A result with ``lengths`` (the driver's tally) also records each partition's rows, so
        the partitions' row positions are known without a pass that only counts them."""
        delayed = self.dask.delayed
        shared = [delayed(a, pure=True) if isinstance(a, FormulaPlan) else a for a in (plan, *args)]
        tasks = [
            delayed(_guarded, pure=True)(
                _measured, k, fn, shared[0], part, f"partition {k + 1}", *shared[1:]
            )
            for k, part in enumerate(self.ddf.to_delayed())
        ]
        total = self._reduce(tasks)
        lengths = getattr(total, "lengths", None)
        if getattr(self, "_lengths", None) is None and lengths is not None:
            if sorted(lengths) == list(range(self.ddf.npartitions)):
                self._lengths = [lengths[k] for k in range(self.ddf.npartitions)]
        return total

    def map_reduce_positioned(self, fn: Any, plan: FormulaPlan, *args: Any) -> Any:
        """``fn(plan, partition, where, offset, *args)`` on every partition, merged pairwise.

        ``offset`` is the position of the partition's first row in the partitions' order,
        from their lengths: recorded by the fit's statistics pass (:meth:`map_reduce`), or,
        when no such pass ran, counted first (``map_partitions(len)`` on the workers).
        """
        if getattr(self, "_lengths", None) is None:
            self._lengths = [int(v) for v in self.ddf.map_partitions(len).compute()]
        lengths = self._lengths
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        delayed = self.dask.delayed
        shared = [delayed(a, pure=True) for a in (plan, *args)]
        tasks = [
            delayed(_guarded, pure=True)(
                fn, shared[0], part, f"partition {k + 1}", int(offsets[k]), *shared[1:]
            )
            for k, part in enumerate(self.ddf.to_delayed())
        ]
        return self._reduce(tasks)

    def _tree(self, parts: list[Any], fn: Any, *args: Any) -> Any:
        delayed = self.dask.delayed
        shared = [delayed(a, pure=True) if isinstance(a, FormulaPlan) else a for a in args]
        tasks = [
            delayed(_guarded, pure=True)(fn, shared[0], part, f"partition {k + 1}", *shared[1:])
            for k, part in enumerate(parts)
        ]
        return self._reduce(tasks)

    def _reduce(self, tasks: list[Any]) -> Any:
        """The pairwise tree of merges of ``tasks``, computed on the workers."""
        delayed = self.dask.delayed
        while len(tasks) > 1:
            paired = [delayed(_merge, pure=True)(a, b) for a, b in zip(tasks[::2], tasks[1::2])]
            tasks = paired + ([tasks[-1]] if len(tasks) % 2 else [])
        (total,) = self.dask.compute(tasks[0])
        if isinstance(total, _Failure):
            raise total.kind(total.message)
        return total

    def response_passes(self, plan: FormulaPlan, column: str | None = None) -> Any:
        """A ``run_pass`` for exact slicing over the response of the complete rows, computed
        once and kept on the workers (``persist``), so later passes read no partition again.
        With ``column``, each row's value of that column is kept with it (the template then
        takes ``update(y, values)``)."""
        parts = self.ddf.to_delayed()
        delayed = self.dask.delayed
        shared = delayed(plan, pure=True)
        responses = [
            delayed(_guarded, pure=True)(
                _partition_response, shared, part, f"partition {k + 1}", column
            )
            for k, part in enumerate(parts)
        ]
        responses = self.dask.persist(*responses)

        def run_pass(template: Any) -> Any:
            return self._tree(list(responses), _update_with, template)

        return run_pass

    def sorted_scan(
        self, plan: FormulaPlan, total_fn: Any, piece_fn: Any, *args: Any
    ) -> np.ndarray:
        """Sum of ``piece_fn(part, offset, *args)`` over the design rows sorted by the response.

        The design rows (with a ``__w__`` column of their case weights when the plan has one)
        are shuffled into response order (``set_index``, which keeps tied values in one
        partition) and persisted; one pass gives each partition's ``total_fn``, the
        prefix sums of those each partition's starting ``offset``, a second pass the pieces.
        """
        p = len(plan.x_names)
        meta = pd.DataFrame({f"x{j}": pd.Series([], dtype=float) for j in range(p)})
        if getattr(plan, "weights", None) is not None:
            meta["__w__"] = pd.Series([], dtype=float)  # the rows' case weights
        meta["__y__"] = pd.Series([], dtype=float)
        design = self.ddf.map_partitions(_design_frame, plan, meta=meta)
        ordered = design.set_index("__y__").persist()
        delayed = self.dask.delayed
        parts = ordered.to_delayed()
        totals = self.dask.compute(*[delayed(total_fn)(part, *args) for part in parts])
        offsets = np.cumsum(np.vstack([np.zeros_like(totals[0]), *totals]), axis=0)[:-1]
        pieces = [delayed(piece_fn)(part, off, *args) for part, off in zip(parts, offsets)]
        return np.sum(self.dask.compute(*pieces), axis=0)


def _numbers_from_text(first: pd.DataFrame) -> pd.DataFrame:
    """The first partition with Dask's text columns of numbers read as numbers.

    Dask turns object columns into pyarrow strings (``dataframe.convert-string``), so an
    object column of numbers, which the in-memory front reads as numbers, arrives as text.
    A string column every value of which is a number is read as numbers; later partitions
    follow (the chunk plan converts them and names any value that is not a number).
    """
    out = first.copy(deep=False)
    for col in out.columns:
        series = out[col]
        if pd.api.types.is_string_dtype(series) and not isinstance(
            series.dtype, pd.CategoricalDtype
        ):
            values = series[series.notna()]
            parsed = pd.to_numeric(values, errors="coerce")
            if len(values) and parsed.notna().all():
                out[col] = pd.to_numeric(series, errors="coerce").astype(float)
    return out


def _partition_response(
    plan: FormulaPlan, part: pd.DataFrame, where: str, column: str | None = None
) -> Any:
    if column is None:
        return plan.response(part, where)
    return plan.response_and_column(part, column, where)


def _update_with(template: Any, y: Any, where: str) -> Any:
    if isinstance(y, _Failure):
        return y
    return template.empty().update(*(y if isinstance(y, tuple) else (y,)))


def _design_frame(frame: pd.DataFrame, plan: FormulaPlan) -> pd.DataFrame:
    if getattr(plan, "weights", None) is not None:
        X, y, w, _ = plan.weighted_arrays(frame, "a partition")
    else:
        (X, y, _), w = plan.arrays(frame, "a partition"), None
    out = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    if w is not None:
        out["__w__"] = w
    out["__y__"] = y.reshape(-1)
    return out


@contextmanager
def dask_backend(client: Any = None) -> Iterator[Any]:
    """Run sdrstats' parallel loops on a Dask cluster (joblib's ``"dask"`` backend).

    Inside the block, resampling with ``n_jobs`` other than 1 (``fit.bootstrap(...,
    n_jobs=-1)``, permutation tests, restarts) is scheduled on the cluster of ``client`` (or the
    active ``dask.distributed.Client``). Results are identical to a local run: replicate ``i``
    always uses child ``i`` of ``random_state``.

    Examples
    --------
    With a cluster (not run here: it starts worker processes)::

        from dask.distributed import Client, LocalCluster
        with Client(LocalCluster(n_workers=2)) as client, dask_backend(client):
            boot = fit.bootstrap(B=200, random_state=0, n_jobs=-1)
    """
    require_dask()
    try:
        from distributed import get_client
    except ImportError:
        raise ImportError(f"dask_backend needs dask.distributed: {INSTALL}.") from None
    import joblib

    if client is None:
        try:
            client = get_client()
        except ValueError:
            raise ValueError(
                "dask_backend found no active dask.distributed.Client; create one first, e.g. "
                "client = Client(LocalCluster(n_workers=2)) or Client('scheduler-address')."
            ) from None
    with joblib.parallel_config(backend="dask", wait_for_workers_timeout=30):
        yield client


__all__ = ["DaskFrame", "dask_backend", "require_dask"]
