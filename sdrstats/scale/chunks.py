"""Chunk sources: CSV, Parquet, any iterable of DataFrames.

A :class:`ChunkSource` is what a formula function accepts as ``data`` when the rows do not fit
in memory: ``sdr.sir("y ~ .", sdr.read_csv_chunks("big.csv", chunksize=100_000))``. It yields
pandas DataFrames; the fit keeps only per-slice sums, so memory is bounded by one chunk (plus,
for a continuous response sliced without ``cut_points``, one float per row of the response).

Every chunk is read by the formula front's :class:`~sdrstats.design.plan.FormulaPlan`: the
formula is parsed once, on the first chunk, and every chunk is evaluated alike.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd


class ChunkSource:
    """Re-iterable source of pandas DataFrame chunks.

    Parameters
    ----------
    factory : callable
        Called with no argument, returns a fresh iterator of DataFrames (one pass over the
        data). Fits that need two passes (pHd's tests, SAVE's, a continuous response whose
        exact slices one pass could not sum) call it twice.
    description : str
        Shown in the fit's call.
    reiterable : bool
        False for a one-shot iterator (see :func:`chunks_from`).
    columns_factory : callable, optional
        Called with a list of column names, returns a fresh iterator of DataFrames with only
        those columns (of the ones the data have), chunked as ``factory``'s: a reader that
        parses only some columns (a CSV file's). Without it :meth:`columns` selects them
        from ``factory``'s chunks.
    threads : int, default 1
        Threads the reader parses with (a fit then keeps BLAS to one thread while it reads).

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
        threads: int = 1,
    ) -> None:
        self.factory = factory
        self.description = description
        self.reiterable = reiterable
        self.columns_factory = columns_factory
        self.threads = threads
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


def read_csv_chunks(
    path: Any, chunksize: int = 100_000, threads: int | None = None, **read_csv_options: Any
) -> ChunkSource:
    """A CSV file read ``chunksize`` rows at a time, for the formula functions.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    chunksize : int
        Rows per chunk (about as many with several threads); peak memory is a few chunks
        (``threads`` + 2: the chunks being parsed and the one being fitted).
    threads : int, optional
        Threads that parse the file, each a byte range of about ``chunksize`` rows with
        pandas' C parser; the chunks come in the file's order. Default: the CPUs this
        process may use (at most 4) for a file of 16 MiB or more, else 1. ``threads=1``
        reads with pandas' chunked reader (``chunksize`` rows exactly per chunk).
    **read_csv_options
        Passed to :func:`pandas.read_csv` (``usecols``, ``dtype``...). Declare factor
        columns as ``dtype={"col": pandas.CategoricalDtype([...])}`` so that every chunk
        codes them with the same levels.

    Returns
    -------
    ChunkSource

    Notes
    -----
    SIR, SAVE, DR and IRE find the exact slices of a continuous response in the pass that
    sums them (:mod:`sdrstats.scale.one_pass`): the file is parsed once. When that pass gives
    up (a response beyond the response cache, or too many rows near the cuts for its budget),
    passes over the response first read only the response's columns (and the weights column):
    pandas' C parser converts no other column (``usecols``), so they cost about a third of a
    pass over every column. Options that rename or index the columns (``names``, ``header``,
    ``index_col``...) make those passes read every column. Chunks parsed in threads carry
    ``attrs["fraction_read"]``, the share of the file's data read so far.

    With more than one thread, byte ranges of the file are parsed at once (the C parser
    releases the GIL while it tokenizes and converts), as pandas 3.1's ``read_csv`` parses a
    whole large file: the ranges give the rows, values and types of the chunked reader
    (types are inferred per chunk in both), the same running row labels, and errors that
    name the same lines of the file. A compressed file, an encoding other than UTF-8, or
    options that skip, rename or index lines (``skiprows``, ``names``, ``comment``,
    ``escapechar``...) are read by one thread; so is the rest of a file from the first range
    in which a quoted field spans lines. pyarrow's CSV reader is not used: on the 2-core
    benchmark machine it spent 2.6 to 3.2 times the CPU time of pandas' C parser per row of a
    numeric file, streaming (``pyarrow.csv.open_csv``) or not
    (``benchmarks/bench_csv_parsers.py``).

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

    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1
    ):
        raise ValueError(
            f"The 'threads' option must be a positive int or None (as many as the machine "
            f"lets this process use); got {threads!r}."
        )
    workers = _parse_threads(path, threads)

    def read(options: dict[str, Any]) -> Iterable[pd.DataFrame]:
        if workers > 1:
            layout = _block_layout(path, options)
            if layout is not None:
                return _read_blocks(path, layout, int(chunksize), workers, options)
        return read_serially(options)

    def read_serially(options: dict[str, Any]) -> Iterable[pd.DataFrame]:
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
        threads=workers,
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


#: A CSV file smaller than this is read by one thread unless ``threads`` asks for more: the
#: threads' start and the per-block parser set-up would cost more than they save.
PARALLEL_MIN_BYTES = 16 * 2**20

#: Options of ``pandas.read_csv`` under which a byte range of the file's data lines, parsed
#: with the header's names, gives the rows that reading the whole file gives.
_BLOCK_OPTIONS = _NARROW_OPTIONS - {"escapechar", "encoding", "memory_map"} | {"engine"}

_COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst", ".tar", ".tgz", ".tbz", ".txz")


def _parse_threads(path: str, threads: int | None) -> int:
    """How many threads parse the file: ``threads``, or (None) the CPUs this process may use
    (at most 4) for a file of :data:`PARALLEL_MIN_BYTES` or more, else 1 (always 1 where the
    system has no positioned reads, ``os.pread``)."""
    if not hasattr(os, "pread"):  # pragma: no cover - Windows: no positioned reads
        return 1
    if threads is not None:
        return int(threads)
    try:
        size = os.path.getsize(path)
    except OSError:
        return 1  # the serial reader names a missing file
    if size < PARALLEL_MIN_BYTES:
        return 1
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        available = os.cpu_count() or 1
    return max(1, min(4, available))


class _Layout:
    """Where a CSV file's data lines start, their column names, and the quote character (None
    when quotes are not special)."""

    def __init__(self, start: int, size: int, line: int, names: list[str], quote: str | None):
        self.start, self.size, self.line, self.names, self.quote = start, size, line, names, quote


def _block_layout(path: str, options: dict[str, Any]) -> _Layout | None:
    """The layout of ``path`` for :func:`_read_blocks`, or None when byte ranges of it could
    parse otherwise than the whole file does (compressed, not UTF-8, options that skip,
    rename or index lines, an escape character, a header whose fields span lines, an implicit
    index column)."""
    if set(options) - _BLOCK_OPTIONS or options.get("engine", "c") != "c":
        return None
    if path.lower().endswith(_COMPRESSED) or "://" in path:
        return None
    encoding = options.get("encoding")
    if encoding is not None:
        try:
            if codecs.lookup(encoding).name not in ("utf-8", "utf-8-sig"):
                return None
        except LookupError:
            return None
    sep = options.get("sep", options.get("delimiter", ","))
    if not isinstance(sep, str) or len(sep) != 1 or ord(sep) > 127:
        return None
    quotechar = options.get("quotechar", '"')
    if not isinstance(quotechar, str) or len(quotechar) != 1 or ord(quotechar) > 127:
        return None
    quote = None if options.get("quoting", csv.QUOTE_MINIMAL) == csv.QUOTE_NONE else quotechar
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            header = handle.readline()
            start = handle.tell()
            first = handle.readline()
    except OSError:
        return None
    if not first or b"\r" in header.replace(b"\r\n", b"") or b"\n" not in first:
        return None
    if quote is not None and header.count(quote.encode()) % 2:
        return None  # a quoted header field spans lines
    sample_options = {k: v for k, v in options.items() if k != "usecols"}
    try:
        sample = pd.read_csv(io.BytesIO(header + first), **sample_options)
    except Exception:
        return None  # the serial reader raises what it raises
    if len(sample) != 1 or not isinstance(sample.index, pd.RangeIndex):
        return None  # a header line spanning lines, or an implicit index column
    return _Layout(start, size, 2, [str(c) for c in sample.columns], quote)


def _block_ends(
    fd: int, start: int, size: int, target: int, first: int | None = None
) -> Iterator[int]:
    """Ends of successive byte ranges from ``start``: each about ``target`` bytes (the first
    about ``first``, when given), cut just after a newline."""
    step = target if first is None else first
    while start < size:
        at = start + max(step, 1) - 1
        step = target
        end = size
        while at < size:
            window = os.pread(fd, 1 << 16, at)
            found = window.find(b"\n")
            if found >= 0:
                end = at + found + 1
                break
            at += len(window)
        yield end
        start = end


_LINE = re.compile(r"\bline (\d+)")


class _Block:
    """One byte range of the data lines, parsed (``frame``) or failed (``error``);
    ``quoted``: it holds the quote byte."""

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end
        self.frame: pd.DataFrame | None = None
        self.error: Exception | None = None
        self.quoted = False


class _RangeReader(io.RawIOBase):
    """Bytes ``start`` to ``end`` of an open file, read at their offsets (threads share the
    descriptor); notes whether the quote byte was among them."""

    def __init__(self, fd: int, start: int, end: int, quote: bytes | None) -> None:
        super().__init__()
        self.fd, self.pos, self.end, self.quote = fd, start, end, quote
        self.quoted = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = min(len(buffer), self.end - self.pos)
        if size <= 0:
            return 0
        data = os.pread(self.fd, size, self.pos)
        size = len(data)
        buffer[:size] = data
        self.pos += size
        if self.quote is not None and not self.quoted:
            self.quoted = self.quote in data
        return size


def _count_lines(fd: int, start: int, end: int) -> int:
    """The lines of bytes ``start`` to ``end`` of the file (a last one without newline too)."""
    lines, last, step = 0, b"\n", 1 << 22
    while start < end:
        data = os.pread(fd, min(step, end - start), start)
        if not data:
            break
        lines += data.count(b"\n")
        last = data[-1:]
        start += len(data)
    return lines + (last != b"\n")


def _parse_block(fd: int, block: _Block, layout: _Layout, options: dict[str, Any]) -> _Block:
    """Parse ``block`` of the file (in a worker thread: pandas' C parser lets go of the GIL
    while it tokenizes and converts)."""
    quote = None if layout.quote is None else layout.quote.encode()
    raw = _RangeReader(fd, block.start, block.end, quote)
    try:
        block.frame = pd.read_csv(
            io.BufferedReader(raw, 1 << 18), header=None, names=layout.names, **options
        )
    except pd.errors.EmptyDataError:
        block.frame = None  # blank lines only
    except Exception as exc:
        block.error = exc
    block.quoted = raw.quoted
    if block.quoted and block.error is None:
        # a field spanning lines (or one cut by the range's end) gives fewer rows than lines
        rows = 0 if block.frame is None else len(block.frame)
        if rows != _count_lines(fd, block.start, block.end):
            block.error = ValueError("a quoted field spans lines")
    return block


def _read_blocks(
    path: str, layout: _Layout, chunksize: int, workers: int, options: dict[str, Any]
) -> Iterator[pd.DataFrame]:
    """The data lines of ``path`` in byte ranges of about ``chunksize`` rows, parsed by
    ``workers`` threads and yielded in the file's order, as pandas' chunked reader yields them
    (a running row label; ``attrs["first_line"]``: a row's label plus it is its line, when no
    line is blank).

    A range holding the quote character may end inside a quoted field that spans lines: it
    is trusted only when it parses to as many rows as it has lines; otherwise the rest of the
    file, from that range's start, is read by pandas' chunked reader. At most ``workers`` + 1
    ranges are held at once. The first range, an eighth of the others, is parsed alone: a
    one-pass fit that gives up at its first chunk has parsed little in vain."""
    options = {k: v for k, v in options.items() if k != "engine"}
    fd = os.open(path, os.O_RDONLY)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sdrstats-csv")
    pending: deque = deque()
    rows = 0
    try:
        with open(path, "rb") as handle:
            handle.seek(layout.start)
            sample = handle.read(1 << 20)
        per_row = len(sample) / max(sample.count(b"\n"), 1)
        # the first range is an eighth of the others, and parsed before the rest are
        # begun: a one-pass fit decides from it whether to read on (sdrstats.scale.one_pass),
        # and when it does not, little was parsed in vain
        target = round(chunksize * per_row)
        ends = _block_ends(fd, layout.start, layout.size, target, first=max(target // 8, 1))

        def parsed() -> Iterator[_Block]:
            begin = layout.start
            for end in ends:
                pending.append(pool.submit(_parse_block, fd, _Block(begin, end), layout, options))
                first = begin == layout.start
                begin = end
                if first or len(pending) > workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

        for block in parsed():
            if block.error is not None:
                line = layout.line + _count_lines(fd, layout.start, block.start)
                if block.quoted:
                    for future in pending:
                        future.cancel()
                    pending.clear()
                    yield from _read_rest(path, block.start, layout, chunksize, rows, line, options)
                    return
                raise _placed(block.error, line)
            frame = block.frame
            if frame is not None and len(frame):
                frame.index = pd.RangeIndex(rows, rows + len(frame))
                frame.attrs["first_line"] = layout.line
                # the share of the data lines read so far (a one-pass fit's bands narrow
                # with it: sdrstats.scale.one_pass)
                data_bytes = max(layout.size - layout.start, 1)
                frame.attrs["fraction_read"] = (block.end - layout.start) / data_bytes
                rows += len(frame)
                yield frame
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        os.close(fd)


def _read_rest(
    path: str,
    offset: int,
    layout: _Layout,
    chunksize: int,
    rows: int,
    line: int,
    options: dict[str, Any],
) -> Iterator[pd.DataFrame]:
    """The data lines of ``path`` from byte ``offset`` (the start of line ``line``, after
    ``rows`` rows), read by pandas' chunked reader (a row's line number is then exact up to
    the first field spanning lines, as with pandas' own chunks)."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        try:
            reader = pd.read_csv(
                handle, header=None, names=layout.names, chunksize=chunksize, **options
            )
        except pd.errors.EmptyDataError:
            return
        shift = line - rows  # label + shift: the line, up to a field spanning lines
        while True:
            try:
                chunk = next(reader)
            except StopIteration:
                return
            except pd.errors.ParserError as exc:
                raise _placed(exc, line) from None
            chunk.index = pd.RangeIndex(rows, rows + len(chunk))
            chunk.attrs["first_line"] = shift
            rows += len(chunk)
            yield chunk


def _placed(error: Exception, line: int) -> Exception:
    """``error`` of a byte range starting on line ``line`` of the file, its line numbers made
    the file's."""
    text = _LINE.sub(lambda m: f"line {int(m.group(1)) + line - 1}", str(error))
    try:
        placed = type(error)(text)
    except Exception:  # pragma: no cover - an error type that takes other arguments
        return error
    placed.__cause__ = error.__cause__
    return placed


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
