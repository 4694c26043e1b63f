"""Data beyond memory and beyond one machine.

The moment methods SIR, SAVE, DR, pHd, CUME and IRE (partial SIR, SAVE and IRE included) and
SPCA with a linear or class response kernel accept as ``data``, besides a pandas DataFrame:

* a :class:`ChunkSource` — :func:`read_csv_chunks`, :func:`read_parquet_chunks` or
  :func:`chunks_from` (a list of DataFrames, a function returning an iterator of them, or a
  one-shot iterator) — read chunk by chunk in this process, memory bounded by one chunk;
* a Dask DataFrame — per-partition statistics computed on the cluster and merged
  (:mod:`sdrstats.scale.dask`; install with ``pip install sdrstats[dask]``).

Both keep only the method's mergeable statistics (per-slice sums,
:class:`sdrstats.stats.grouped.SliceStats`, through the family's accumulator), so the fit equals the
in-memory fit with the same slices. This package is a generic driver (:mod:`.fit`): which
methods can fit this way is their ``capabilities.from_statistics``. A continuous response is sliced by ``cut_points`` when given; else
exactly by R ``dr``'s rule (or Arc's, with ``slice_function="arc"``), so the fit equals the
in-memory fit. On chunks read in this process, SIR, SAVE, DR and IRE find the slices in the
pass that sums them (:mod:`.one_pass`: the response is held, the rows near the running cuts
too, within a budget; a second pass over the rows only when a cut falls among rows already
pooled); otherwise, and on Dask, passes over the response alone come first
(:mod:`sdrstats.stats.exact_slicing`: one when it has few distinct values, or on chunks read in
this process while its values fit the response cache; three otherwise).

R ``dr``'s case weights work on both for SIR, SAVE, DR, pHd, CUME and IRE: name a column of the chunks,
``weights="w"`` (an array cannot be matched to rows read chunk by chunk); R's rule (rescale by
the complete rows, drop weights ``<= 1e-30``, whiten ``√w x``) is applied to sums accumulated in
the same passes as without weights, so the fit equals the in-memory weighted fit. pHd's three
tests (normal theory, general, independence; Cook 1998) come from one more pass after the
fit (for ``p <= 70``). ``subset=`` needs the data in memory: filter the chunks instead.

Such a fit keeps no rows, so where a method's default dimension rule resamples them (the
permutation test of DR and CUME) ``d`` is chosen by the eigenvalue-ratio rule instead, and the
summary's dimension line says so and why; the asymptotic tests of SIR, SAVE, pHd and IRE need
no rows and choose as in memory.

``fit.bootstrap()`` of a SIR, SAVE or DR fit on such data is a Poisson bootstrap in one more
pass over it (:class:`sdrstats.moment._replicates.PoissonSliceSums`, the same pass the
in-memory ``bootstrap(scheme="poisson")`` takes over its rows): each row's Poisson(1) counts
come from a counter-based generator keyed by its position, so the replicates equal the
in-memory ones, whatever the chunks or partitions (not yet for case-weighted fits).
"""

from __future__ import annotations

from typing import Any

from .chunks import ChunkSource, chunks_from, read_csv_chunks, read_parquet_chunks


def is_dask_frame(data: Any) -> bool:
    """Whether ``data`` is a Dask DataFrame (checked without importing dask).

    Parameters
    ----------
    data : object
        Anything passed as a formula function's ``data``.

    Returns
    -------
    bool

    Examples
    --------
    >>> import pandas as pd
    >>> is_dask_frame(pd.DataFrame({"a": [1]}))
    False
    """
    module = type(data).__module__ or ""
    return module.split(".")[0] in ("dask", "dask_expr") and hasattr(data, "map_partitions")


def is_chunked(data: Any) -> bool:
    """Whether ``data`` is a chunk source or a Dask DataFrame (the formula front routes it).

    Parameters
    ----------
    data : object
        Anything passed as a formula function's ``data``.

    Returns
    -------
    bool

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [1.0, 2.0]})
    >>> is_chunked(frame), is_chunked(chunks_from([frame, frame]))
    (False, True)
    """
    return isinstance(data, ChunkSource) or is_dask_frame(data)


def fit_chunked(
    cls: type,
    formula: str,
    data: Any,
    *,
    missing: str = "drop",
    weights: str | None = None,
    **options: Any,
) -> Any:
    """Fit estimator class ``cls`` on chunked or Dask ``data``; see :mod:`sdrstats.scale.fit`.

    Parameters
    ----------
    cls : type
        A moment-method estimator class (``SIR``, ``SAVE``, ``PHD``, ``SPCA``...).
    formula : str
        A patsy formula, fixed on the first chunk.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : ChunkSource or dask.dataframe.DataFrame
        The chunks.
    missing : {"drop", "raise"}, default "drop"
        What to do with rows with missing values.
    weights : str, optional
        A column of case weights, with R ``dr``'s rule (SIR, SAVE, DR, pHd, CUME).
    **options
        Options of ``cls``.

    Returns
    -------
    Results

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> parts = chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> fit = fit_chunked(sdr.SIR, "lbm ~ log(wt) + log(ht)", parts, nslices=8)
    >>> fit.n
    202
    """
    from .fit import fit_chunked as _fit

    estimator = cls._from_options(cls._translate(options, "fit_chunked()"))
    return _fit(estimator, formula, data, missing=missing, weights=weights)


def dask_backend(client: Any = None) -> Any:
    """Context manager sending resampling loops to a Dask cluster; see
    :func:`sdrstats.scale.dask.dask_backend` (imported lazily: dask is optional)."""
    from .dask import dask_backend as _backend

    return _backend(client)


__all__ = [
    "dask_backend",
    "ChunkSource",
    "read_csv_chunks",
    "read_parquet_chunks",
    "chunks_from",
    "is_chunked",
    "is_dask_frame",
    "fit_chunked",
]
