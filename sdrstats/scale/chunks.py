"""Chunk sources: CSV, Parquet, any iterable of DataFrames.

A :class:`ChunkSource` is what a formula function accepts as ``data`` when the rows do not fit
in memory: ``sdr.sir("y ~ .", sdr.read_csv_chunks("big.csv", chunksize=100_000))``. It yields
pandas DataFrames; the fit keeps only per-slice sums, so memory is bounded by one chunk (plus,
for a continuous response sliced without ``cut_points``, one float per row of the response).

Every chunk is read by the formula front's :class:`~sdrstats.design.plan.FormulaPlan`: the
formula is parsed once, on the first chunk, and every chunk is evaluated alike.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import pandas as pd


class ChunkSource:
    """Re-iterable source of pandas DataFrame chunks.

    Parameters
    ----------
    factory : callable
        Called with no argument, returns a fresh iterator of DataFrames (one pass over the
        data). Fits that need two passes (a continuous response without ``cut_points``, pHd)
        call it twice.
    description : str
        Shown in the fit's call.
    reiterable : bool
        False for a one-shot iterator (see :func:`chunks_from`).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> source = ChunkSource(lambda: iter([ais.iloc[:100], ais.iloc[100:]]), "two halves")
    >>> sdr.sir("lbm ~ log(wt) + log(ht)", source, nslices=8).n
    202
    """

    def __init__(
        self,
        factory: Callable[[], Iterable[pd.DataFrame]],
        description: str = "chunks",
        reiterable: bool = True,
    ) -> None:
        self.factory = factory
        self.description = description
        self.reiterable = reiterable
        self._passes = 0

    def __iter__(self) -> Iterator[pd.DataFrame]:
        if self._passes and not self.reiterable:
            raise ValueError(
                "This fit needs a second pass over the data, but the chunks come from a one-shot "
                "iterator. Pass a list, a function returning a fresh iterator "
                "(sdr.chunks_from(make_chunks)), or a file via sdr.read_csv_chunks; or give "
                "cut_points so that one pass suffices."
            )
        self._passes += 1
        for chunk in self.factory():
            if not isinstance(chunk, pd.DataFrame):
                raise TypeError(
                    f"Chunks must be pandas DataFrames; {self.description} gave "
                    f"{type(chunk).__name__}."
                )
            yield chunk

    def __repr__(self) -> str:
        return f"ChunkSource({self.description})"


def read_csv_chunks(path: Any, chunksize: int = 100_000, **read_csv_options: Any) -> ChunkSource:
    """A CSV file read ``chunksize`` rows at a time, for the formula functions.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    chunksize : int
        Rows per chunk; peak memory is a small multiple of one chunk.
    **read_csv_options
        Passed to :func:`pandas.read_csv` (``usecols``, ``dtype``...). Declare factor
        columns as ``dtype={"col": pandas.CategoricalDtype([...])}`` so that every chunk
        codes them with the same levels.

    Returns
    -------
    ChunkSource

    Examples
    --------
    >>> import sdrstats as sdr, tempfile, os
    >>> ais = sdr.datasets.load("ais")
    >>> path = os.path.join(tempfile.mkdtemp(), "ais.csv")
    >>> ais.to_csv(path, index=False)
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)",
    ...               sdr.read_csv_chunks(path, chunksize=50), nslices=8)
    >>> fit.eigenvalues.round(3).tolist()[:2]
    [0.939, 0.179]
    """
    if isinstance(chunksize, bool) or not isinstance(chunksize, (int, np.integer)) or chunksize < 1:
        raise ValueError(f"The 'chunksize' option must be a positive int; got {chunksize!r}.")
    path = str(path)

    # the data row of pandas' running chunk index is on this line of the file (1-based, one
    # header line); unknown when the reader skips or re-reads lines
    plain = not set(read_csv_options) & {"skiprows", "header", "comment", "skip_blank_lines"}
    first_line = 2 if plain else None

    def factory() -> Iterable[pd.DataFrame]:
        try:
            reader = pd.read_csv(path, chunksize=int(chunksize), **read_csv_options)
        except pd.errors.EmptyDataError:
            raise ValueError(
                f"The CSV file {path!r} is empty (no header line); a fit needs a header and rows."
            ) from None
        for chunk in reader:
            chunk.attrs["first_line"] = first_line
            yield chunk

    return ChunkSource(factory, f"read_csv_chunks({path!r}, chunksize={chunksize})")


def read_parquet_chunks(
    path: Any, batch_size: int = 100_000, columns: list[str] | None = None
) -> ChunkSource:
    """A Parquet file read ``batch_size`` rows at a time (needs ``pyarrow``).

    Categorical (dictionary) columns keep their declared categories in every batch.

    Parameters
    ----------
    path : str or path-like
        The Parquet file.
    batch_size : int, default 100_000
        Rows per batch; peak memory is a small multiple of one batch.
    columns : list of str, optional
        Read only these columns (default all); they must include every column the formula
        uses.

    Returns
    -------
    ChunkSource

    Examples
    --------
    >>> import sdrstats as sdr, tempfile, os
    >>> ais = sdr.datasets.load("ais")
    >>> path = os.path.join(tempfile.mkdtemp(), "ais.parquet")
    >>> ais.to_parquet(path, index=False)
    >>> source = sdr.read_parquet_chunks(path, batch_size=50, columns=["lbm", "wt", "ht"])
    >>> sdr.sir("lbm ~ log(wt) + log(ht)", source, nslices=8).n
    202
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "read_parquet_chunks needs pyarrow: pip install pyarrow (or use read_csv_chunks)."
        ) from None
    if (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, (int, np.integer))
        or batch_size < 1
    ):
        raise ValueError(f"The 'batch_size' option must be a positive int; got {batch_size!r}.")
    path = os.fspath(path) if hasattr(path, "__fspath__") else str(path)
    _open_parquet(pq, path)  # a missing file or another format is named now, not mid-fit

    def factory() -> Iterable[pd.DataFrame]:
        handle = _open_parquet(pq, path)
        for batch in handle.iter_batches(batch_size=int(batch_size), columns=columns):
            yield batch.to_pandas()

    return ChunkSource(factory, f"read_parquet_chunks({path!r}, batch_size={batch_size})")


def _open_parquet(pq: Any, path: str) -> Any:
    """``pyarrow.parquet.ParquetFile(path)`` with errors that name the path and the remedy."""
    if not os.path.exists(path):
        where = "" if os.path.isabs(path) else f" (relative to {os.getcwd()!r})"
        raise FileNotFoundError(f"The Parquet file {path!r}{where} does not exist; check the path.")
    if os.path.isdir(path):
        raise ValueError(
            f"{path!r} is a folder; read_parquet_chunks reads one Parquet file (for a folder "
            "of them, dask.dataframe.read_parquet(path) gives a Dask DataFrame to fit on)."
        )
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow's ArrowInvalid / OSError: not a Parquet file
        first = ""
        try:
            with open(path, "rb") as handle:
                first = handle.read(4).decode("latin-1")
        except OSError:
            pass
        hint = (
            "; it looks like text: for a CSV file use sdr.read_csv_chunks(path)"
            if first and first.isprintable()
            else ""
        )
        raise ValueError(f"{path!r} is not a Parquet file (pyarrow: {exc}){hint}.") from None


def chunks_from(chunks: Any) -> ChunkSource:
    """A :class:`ChunkSource` from in-memory chunks, for the formula functions.

    Parameters
    ----------
    chunks : list of DataFrame, callable, iterator or DataFrame
        A list of DataFrames, a function returning an iterator of them (re-iterable), or an
        iterator/generator (one pass only). A ``ChunkSource`` is returned unchanged.

    Returns
    -------
    ChunkSource

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> parts = chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> sdr.sir("lbm ~ log(wt) + log(ht) + log(ssf)", parts, nslices=8).n
    202
    """
    if isinstance(chunks, ChunkSource):
        return chunks
    if isinstance(chunks, pd.DataFrame):
        return ChunkSource(lambda: [chunks], "one DataFrame")
    if callable(chunks):
        return ChunkSource(chunks, getattr(chunks, "__name__", "chunks"))
    if isinstance(chunks, (list, tuple)):
        return ChunkSource(lambda: chunks, f"{len(chunks)} chunks")
    if isinstance(chunks, Iterator):
        return ChunkSource(lambda: chunks, "an iterator of chunks", reiterable=False)
    raise TypeError(
        "chunks must be a list of DataFrames, a function returning an iterator of them, or an "
        f"iterator; got {type(chunks).__name__}."
    )


__all__ = [
    "ChunkSource",
    "read_csv_chunks",
    "read_parquet_chunks",
    "chunks_from",
]
