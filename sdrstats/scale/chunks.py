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
    columns_factory : callable, optional
        Called with a list of column names, returns a fresh iterator of DataFrames with only
        those columns (of the ones the data have), chunked as ``factory``'s: a reader that
        parses only some columns (a CSV file's). Without it :meth:`columns` selects them
        from ``factory``'s chunks.

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
        columns_factory: Callable[[list[str]], Iterable[pd.DataFrame]] | None = None,
    ) -> None:
        self.factory = factory
        self.description = description
        self.reiterable = reiterable
        self.columns_factory = columns_factory
        self._passes = 0

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return self._pass(self.factory)

    def columns(self, names: list[str]) -> Iterator[pd.DataFrame]:
        """One pass over the chunks with only the columns ``names`` (those the chunks have).

        A CSV file's reader parses only these columns: a pass over the response alone costs
        a fraction of a pass over the rows (:meth:`sdrstats.scale.fit.ChunkedData.response_cuts`).

        Parameters
        ----------
        names : list of str
            The columns wanted.

        Returns
        -------
        iterator of DataFrame

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> source = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> [chunk.shape for chunk in source.columns(["lbm", "ht"])]
        [(100, 2), (102, 2)]
        """
        if self.columns_factory is not None:
            make = self.columns_factory
            return self._pass(lambda: make(list(names)))
        return (_select(chunk, names) for chunk in self._pass(self.factory))

    def _pass(self, make: Callable[[], Iterable[pd.DataFrame]]) -> Iterator[pd.DataFrame]:
        """One pass: ``make()``'s chunks, checked (a one-shot source is read once)."""
        if self._passes and not self.reiterable:
            raise ValueError(
                "This fit needs a second pass over the data, but the chunks come from a one-shot "
                "iterator. Pass a list, a function returning a fresh iterator "
                "(sdr.chunks_from(make_chunks)), or a file via sdr.read_csv_chunks; or give "
                "cut_points so that one pass suffices."
            )
        self._passes += 1
        for chunk in make():
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

    Notes
    -----
    The passes that find the exact slices of a continuous response read only the response's
    columns (and the weights column): pandas' C parser converts no other column
    (``usecols``), so they cost about a third of a pass over every column. SIR with the
    default slicing on a 1e6 x 50 file then takes 1.4 to 1.7 times the CPU time of one
    ``pandas.read_csv`` of the whole file (2.0 times when those passes read every column), in
    memory bounded by a few chunks (``benchmarks/bench_scale.py --csv-read``). Options that rename or
    index the columns (``names``, ``header``, ``index_col``...) make those passes read every
    column. pyarrow's CSV reader (``engine="pyarrow"``) was slower than the C parser on
    numeric files on the 2-core benchmark machine, and pandas does not read in chunks with
    it, so the C parser reads both passes.

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

    def read(options: dict[str, Any]) -> Iterable[pd.DataFrame]:
        try:
            reader = pd.read_csv(path, chunksize=int(chunksize), **options)
        except pd.errors.EmptyDataError:
            raise ValueError(
                f"The CSV file {path!r} is empty (no header line); a fit needs a header and rows."
            ) from None
        for chunk in reader:
            chunk.attrs["first_line"] = first_line
            yield chunk

    def factory() -> Iterable[pd.DataFrame]:
        return read(read_csv_options)

    def columns_factory(names: list[str]) -> Iterable[pd.DataFrame]:
        given = read_csv_options.get("usecols")
        if set(read_csv_options) - _NARROW_OPTIONS or not (
            given is None or all(isinstance(c, str) for c in given)
        ):
            # options that rename, index or pick columns by position: read all, then select
            return (_select(chunk, names) for chunk in factory())
        header = _header(path, read_csv_options)
        wanted = [c for c in names if c in header and (given is None or c in given)]
        return read({**read_csv_options, "usecols": wanted})

    return ChunkSource(
        factory,
        f"read_csv_chunks({path!r}, chunksize={chunksize})",
        columns_factory=columns_factory,
    )


#: Options of ``pandas.read_csv`` under which reading some columns (``usecols``) parses them
#: as reading all of them does.
_NARROW_OPTIONS = {
    "sep",
    "delimiter",
    "usecols",
    "dtype",
    "na_values",
    "keep_default_na",
    "na_filter",
    "true_values",
    "false_values",
    "decimal",
    "thousands",
    "quotechar",
    "quoting",
    "doublequote",
    "escapechar",
    "skipinitialspace",
    "encoding",
    "encoding_errors",
    "float_precision",
    "low_memory",
    "memory_map",
}


def _header(path: str, options: dict[str, Any]) -> list[str]:
    """The column names of a CSV file, as ``pandas.read_csv`` with ``options`` reads them."""
    try:
        return [str(c) for c in pd.read_csv(path, nrows=0, **options).columns]
    except pd.errors.EmptyDataError:
        return []


def _select(chunk: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The columns ``names`` of ``chunk`` that it has (matched as text), with its attrs."""
    wanted = set(names)
    out = chunk.loc[:, [str(c) in wanted for c in chunk.columns]]
    out.attrs = dict(chunk.attrs)
    return out


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

    def factory(wanted: list[str] | None = columns) -> Iterator[pd.DataFrame]:
        handle = _open_parquet(pq, path)
        for batch in handle.iter_batches(batch_size=int(batch_size), columns=wanted):
            yield batch.to_pandas()

    def columns_factory(names: list[str]) -> Iterator[pd.DataFrame]:
        present = _open_parquet(pq, path).schema_arrow.names
        return factory([c for c in names if c in present and (columns is None or c in columns)])

    return ChunkSource(
        factory,
        f"read_parquet_chunks({path!r}, batch_size={batch_size})",
        columns_factory=columns_factory,
    )


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
