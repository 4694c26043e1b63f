"""Fits from chunks or Dask partitions: a generic driver that knows no method family.

A *backend* knows how to read the first partition, run a function on every partition and merge
the results (:class:`LocalChunks` for a :class:`~sdrstats.scale.chunks.ChunkSource`,
:class:`~sdrstats.scale.dask.DaskFrame` for Dask). The cut points of a continuous response come
from passes over the response alone and give exactly R ``dr``'s slices
(:mod:`sdrstats.stats.exact_slicing`), or on local chunks from the pass that sums the slices
(:mod:`sdrstats.scale.one_pass`). :class:`ChunkedData` puts a backend and the formula (fixed on the first chunk) together
and puts it in a model spec that holds it instead of rows; the estimator's ``fit_spec`` fits
that spec as it fits one of rows: the family decides what to accumulate (its accumulators'
``update``/``merge``) and how many passes, and the result is the estimator's own results
class (a fit without rows says so through its spec). The driver only reduces accumulators
over the chunks and counts chunks, passes and dropped rows. Which methods can do this is
their ``capabilities.from_statistics``.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import warnings
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ..base.warnings import MissingValueWarning
from ..design.calls import format_call
from ..design.formula import ModelSpec
from ..design.plan import FormulaPlan
from ..stats.exact_slicing import (
    GRID_CELLS,
    SAMPLE_SIZE,
    CellHistogram,
    ResponseSummary,
    SortedCounts,
    exact_cut_points,
    walk_cuts,
)
from .chunks import ChunkSource
from .levels import LevelSet, factor_columns, levels_part, recode
from .one_pass import GiveUp, OnePass


class Tally:
    """An accumulator with the chunk and dropped-row counts of the chunks it has seen."""

    def __init__(self, accumulator: Any, n_chunks: int = 0, n_dropped: int = 0) -> None:
        self.accumulator = accumulator
        self.n_chunks = n_chunks
        self.n_dropped = n_dropped
        #: rows (dropped ones included) of each partition seen, by index, when the backend
        #: records them (Dask: the row positions a Poisson bootstrap needs)
        self.lengths: dict[int, int] = {}

    def merge(self, other: Tally) -> Tally:
        self.accumulator = self.accumulator.merge(other.accumulator)
        self.n_chunks += other.n_chunks
        self.n_dropped += other.n_dropped
        self.lengths.update(getattr(other, "lengths", {}))
        return self


def accumulate_part(plan: FormulaPlan, chunk: pd.DataFrame, where: str, template: Any) -> Tally:
    """``template``'s accumulator of one chunk's rows (the template itself is not changed).

    With a column of case weights the accumulator's ``update`` gets them too:
    ``update(X, y, w)`` over the complete rows, zero weights included (the family applies
    R ``dr``'s rule)."""
    part = copy.deepcopy(template)
    if getattr(plan, "weights", None) is not None:
        X, y, w, dropped = plan.weighted_arrays(chunk, where)
        if X.shape[0]:
            part = part.update(X, y, w)
        return Tally(part, int(X.shape[0] > 0), dropped)
    X, y, dropped = plan.arrays(chunk, where)
    if X.shape[0]:
        part = part.update(X, y)
    return Tally(part, int(X.shape[0] > 0), dropped)


def accumulate_grouped_part(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, template: Any, column: str
) -> Tally:
    """As :func:`accumulate_part`, the accumulator also given each row's value of ``column``
    (``update_groups(X, y, values)``)."""
    X, y, dropped, values = plan.arrays(chunk, where, column=column)
    part = copy.deepcopy(template)
    if X.shape[0]:
        part = part.update_groups(X, y, values)
    return Tally(part, int(X.shape[0] > 0), dropped)


def accumulate_positioned(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, offset: int, template: Any
) -> Tally:
    """``template``'s accumulator of one chunk's rows, told their positions in the data.

    ``offset`` is the position of the chunk's first row; a kept row's position counts every
    row before it, those dropped for missing values included (``update_positioned(X, y,
    positions)`` of the accumulator).
    """
    X, y, keep = plan.arrays(chunk, where, kept=True)
    part = copy.deepcopy(template)
    if X.shape[0]:
        part = part.update_positioned(X, y, int(offset) + np.flatnonzero(keep))
    return Tally(part, int(X.shape[0] > 0), int(keep.size - np.count_nonzero(keep)))


class LocalChunks:
    """Backend for a :class:`ChunkSource`: chunks are read and reduced in this process."""

    def __init__(self, source: ChunkSource) -> None:
        self.source = source
        self.description = source.description
        self.dtypes: dict[str, pd.CategoricalDtype] = {}  # factor columns read as these
        self._pending = iter(source)
        try:
            self._first = next(self._pending)
        except StopIteration:
            raise ValueError(f"{source.description} gave no chunks; a fit needs rows.") from None

    def first(self) -> pd.DataFrame:
        return recode(self._first, self.dtypes)

    @property
    def rereadable(self) -> bool:
        return self.source.reiterable

    def _chunks(self):
        if self._pending is not None:
            chunks, self._pending = itertools.chain([self._first], self._pending), None
        else:
            chunks = iter(self.source)
        return (recode(chunk, self.dtypes) for chunk in chunks)

    def set_dtypes(self, dtypes: dict[str, pd.CategoricalDtype]) -> None:
        """Read these columns as these categoricals from now on."""
        self.dtypes = dict(dtypes)

    def _blas(self) -> Any:
        """One BLAS thread while the source parses in threads: they keep the cores busy, and
        BLAS threads waiting for work would spin on them (the CPU time of a 1e6-row CSV fit:
        4.6 s against 4.9-5.6 s)."""
        if getattr(self.source, "threads", 1) > 1:
            return threadpool_limits(1, user_api="blas")
        return contextlib.nullcontext()

    def map_reduce(self, fn: Any, plan: FormulaPlan, *args: Any) -> Any:
        """``fn(plan, chunk, where, *args)`` of every chunk, merged."""
        total = None
        with self._blas():
            for k, chunk in enumerate(self._chunks()):
                part = fn(plan, chunk, f"chunk {k + 1}", *args)
                total = part if total is None else total.merge(part)
        return total

    def scan(self, fn: Any, plan: FormulaPlan) -> None:
        """``fn(plan, chunk, where)`` of every chunk in order (a pass that keeps its own
        state); the reader is closed if ``fn`` raises."""
        chunks = self._chunks()
        with self._blas():
            try:
                for k, chunk in enumerate(chunks):
                    fn(plan, chunk, f"chunk {k + 1}")
            finally:
                chunks.close()

    def map_reduce_columns(self, columns: list[str], fn: Any, plan: FormulaPlan, *args: Any) -> Any:
        """As :meth:`map_reduce`, over chunks read with only ``columns`` (a CSV file's reader
        parses no other column)."""
        total = None
        chunks = (recode(chunk, self.dtypes) for chunk in self.source.columns(columns))
        with self._blas():
            for k, chunk in enumerate(chunks):
                part = fn(plan, chunk, f"chunk {k + 1}", *args)
                total = part if total is None else total.merge(part)
        return total

    def map_reduce_positioned(self, fn: Any, plan: FormulaPlan, *args: Any) -> Any:
        """``fn(plan, chunk, where, offset, *args)`` of every chunk, merged; ``offset`` is the
        position of the chunk's first row (the rows of the chunks before it)."""
        total, offset = None, 0
        with self._blas():
            for k, chunk in enumerate(self._chunks()):
                part = fn(plan, chunk, f"chunk {k + 1}", offset, *args)
                offset += chunk.shape[0]
                total = part if total is None else total.merge(part)
        return total

    def release_first(self) -> None:
        """Drop the first chunk, kept for the formula (a fit holding its source keeps no rows)."""
        if self._pending is None:
            self._first = None


def dr_cut_points(y: np.ndarray, nslices: int) -> np.ndarray:
    """Cut points that slice ``y`` exactly as ``make_slices(y, nslices)`` does.

    R ``dr``'s slices never split tied values, so each slice is a range of values and its
    largest value is a cut point.
    """
    return walk_cuts(SortedCounts.from_sorted(np.sort(np.asarray(y, dtype=float))), nslices)


def response_part(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, template: Any, column: str | None = None
) -> Any:
    """``template``'s empty copy updated with the response of one chunk's complete rows (and,
    with ``column``, their values of that column: a :class:`ByLevel` template)."""
    return template.empty().update(*_response_args(plan, chunk, where, column))


def _response_args(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, column: str | None
) -> tuple[np.ndarray, ...]:
    if column is None:
        return (plan.response(chunk, where),)
    return plan.response_and_column(chunk, column, where)


class ByLevel:
    """A response accumulator of the rows of each level of a column (``update(y, values)``).

    ``only=(level,)`` keeps one level's rows (:meth:`ChunkedData.level_cuts`); else every
    level gets its own copy of ``template``, the levels in order of first appearance.
    Picklable (Dask workers).
    """

    def __init__(self, template: Any, only: tuple[Any] | None = None) -> None:
        self.template, self.only = template, only
        self.parts: dict[Any, Any] = {}

    def empty(self) -> ByLevel:
        return ByLevel(self.template, self.only)

    def update(self, y: np.ndarray, values: np.ndarray) -> ByLevel:
        levels = self.only if self.only is not None else dict.fromkeys(values.tolist())
        for level in levels:
            rows = values == level
            if rows.any():
                part = self.template.empty().update(y[rows])
                self.parts[level] = self.parts[level].merge(part) if level in self.parts else part
        return self

    def merge(self, other: ByLevel) -> ByLevel:
        for level, part in other.parts.items():
            self.parts[level] = self.parts[level].merge(part) if level in self.parts else part
        return self


#: Response values a chunked fit keeps in memory between its slicing passes (128 MB).
RESPONSE_CACHE = 2**24


class _Responses:
    """An accumulator of one pass, with the pass's response values while they are few (and,
    for a pass over the response alone, the rows a fit can keep in each chunk)."""

    def __init__(
        self, accumulator: Any, values: list[np.ndarray] | None, rows: list[int] | None = None
    ) -> None:
        self.accumulator = accumulator
        self.values = values
        self.rows = rows

    def merge(self, other: _Responses) -> _Responses:
        values = None
        if self.values is not None and other.values is not None:
            values = self.values + other.values
            if sum(v[0].size for v in values) > RESPONSE_CACHE:
                values = None
        rows = None if self.rows is None or other.rows is None else self.rows + other.rows
        return _Responses(self.accumulator.merge(other.accumulator), values, rows)


def _response_with_values(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, template: Any, column: str | None = None
) -> _Responses:
    args = _response_args(plan, chunk, where, column)
    keep = [args] if args[0].size <= RESPONSE_CACHE else None
    return _Responses(template.empty().update(*args), keep)


def _alone_args(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, column: str | None
) -> tuple[tuple[np.ndarray, ...], int]:
    y, values, rows = plan.response_alone(chunk, where, column)
    return ((y,) if column is None else (y, values)), rows


def _response_alone_part(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, template: Any, column: str | None = None
) -> Any:
    """As :func:`response_part`, from a chunk of the response's columns alone."""
    return template.empty().update(*_alone_args(plan, chunk, where, column)[0])


def _response_alone_with_values(
    plan: FormulaPlan, chunk: pd.DataFrame, where: str, template: Any, column: str | None = None
) -> _Responses:
    args, rows = _alone_args(plan, chunk, where, column)
    keep = [args] if args[0].size <= RESPONSE_CACHE else None
    return _Responses(template.empty().update(*args), keep, [rows])


class _CachedResponse:
    """``run_pass`` over the chunks' response: the first pass reads the chunks and keeps the
    response values (up to :data:`RESPONSE_CACHE` of them), so later passes read no chunk.

    With ``alone``, the passes read only the response's columns (and the weights and
    ``column``): ``rows`` then holds, per chunk, the rows a fit can keep, which the fit's
    first pass over the rows checks (:meth:`ChunkedData.reduce`)."""

    def __init__(
        self, backend: Any, plan: FormulaPlan, column: str | None = None, alone: bool = False
    ) -> None:
        self.backend, self.plan, self.column = backend, plan, column
        self.values: list[tuple[np.ndarray, ...]] | None = None
        self.first_pass = True
        self.alone = alone
        self.rows: list[int] | None = None

    def __call__(self, template: Any) -> Any:
        if self.values is not None:
            out = template.empty()
            for args in self.values:
                out.update(*args)
            return out
        if self.alone:
            columns = self.plan.response_columns(self.column)
            if not self.first_pass:  # too many values to keep: read the response again
                return self.backend.map_reduce_columns(
                    columns, _response_alone_part, self.plan, template, self.column
                )
            self.first_pass = False
            total = self.backend.map_reduce_columns(
                columns, _response_alone_with_values, self.plan, template, self.column
            )
            self.values, self.rows = total.values, total.rows
            return total.accumulator
        if not self.first_pass:  # too many values to keep: read the chunks again
            return self.backend.map_reduce(response_part, self.plan, template, self.column)
        self.first_pass = False
        total = self.backend.map_reduce(_response_with_values, self.plan, template, self.column)
        self.values = total.values
        return total.accumulator


class SlicingMissedRows(Exception):
    """The fit dropped rows (for their predictors) that a pass over the response alone
    counted: its slices must be found again over the rows the fit keeps."""


class _RowCheck:
    """``fn`` of each chunk, checking that the fit keeps as many rows of the chunk as the
    passes over the response alone counted (then they are the same rows: the fit keeps only
    rows those passes count)."""

    def __init__(self, fn: Any, expected: list[list[int]]) -> None:
        self.fn, self.expected, self.seen = fn, expected, 0

    def __call__(self, plan: FormulaPlan, chunk: pd.DataFrame, where: str, *args: Any) -> Any:
        tally = self.fn(plan, chunk, where, *args)
        kept, k = chunk.shape[0] - tally.n_dropped, self.seen
        self.seen += 1
        if any(k >= len(rows) or rows[k] != kept for rows in self.expected):
            raise SlicingMissedRows()
        return tally

    def finish(self) -> None:
        if any(len(rows) != self.seen for rows in self.expected):
            raise SlicingMissedRows()


class ChunkedData:
    """What a family's passes see of chunked data (a spec's ``data``): names, passes over chunks.

    Parameters
    ----------
    backend : LocalChunks or DaskFrame
        Reads and reduces the chunks.
    plan : FormulaPlan
        The formula, fixed on the first chunk.
    response_alone : bool, default True
        Slicing passes read only the response's columns when the backend can (a re-readable
        chunk source: a CSV file parses no predictor). They cannot see rows the predictors
        drop, so the first pass over the rows checks that it keeps as many rows of every
        chunk as they counted, and raises :class:`SlicingMissedRows` if not (the fit then
        starts again with ``response_alone=False``: slicing passes over the rows it keeps).

    Attributes
    ----------
    p, x_names, y_names, categorical, level_order
        The formula's predictors and response (``level_order``: declared class levels).
    weights : str or None
        The column of case weights; accumulators then take ``update(X, y, w)``.
    case_weighted : bool
        Whether there is such a column.
    keeps_rows : bool
        False: the rows are read chunk by chunk, never held (a one-chunk source in memory,
        :class:`sdrstats.scale.rows.RowsInMemory`, says True).
    n_chunks, n_dropped
        Chunks with rows and rows dropped for missing values, counted on the first pass.
    slicing_passes : int
        Passes over the response that finding the exact slices took (0 when not sliced).
    row_passes : int
        Passes over the rows (calls of :meth:`reduce`).
    can_sort : bool
        Whether :meth:`sorted_scan` is available (Dask: rows sorted across the cluster).
    """

    def __init__(self, backend: Any, plan: FormulaPlan, response_alone: bool = True) -> None:
        self.backend = backend
        self.plan = plan
        self.response_alone = (
            response_alone
            and hasattr(backend, "map_reduce_columns")
            and backend.rereadable
            and not plan.categorical
        )
        self._unchecked: list[_CachedResponse] = []  # response-alone passes to check
        self.x_names = list(plan.x_names)
        self.y_names = list(plan.y_names)
        self.p = len(self.x_names)
        self.categorical = plan.categorical
        self.level_order = plan.level_order
        self.weights = getattr(plan, "weights", None)
        self.case_weighted = self.weights is not None
        self.keeps_rows = False
        self.can_sort = hasattr(backend, "sorted_scan")
        self.n_chunks: int | None = None
        self.n_dropped = 0
        self.slicing_passes = 0
        self.response_summary: Any = None  # set by response_cuts
        self.one_pass: OnePass | None = None  # the pass of reduce_sliced, when it ran
        self.row_passes = 0
        self._grouped_passes: dict[str, Any] = {}

    def reduce(self, template: Any, column: str | None = None) -> Any:
        """An accumulator like ``template`` (``update(X, y)``, ``merge``) over every chunk.

        With ``column``, the accumulator's ``update_groups(X, y, values)`` also gets each
        row's value of that column. Every call is one pass over the rows (``row_passes``).
        """
        fn = accumulate_part if column is None else accumulate_grouped_part
        counted = [p.rows for p in self._unchecked if p.rows is not None]
        check = _RowCheck(fn, counted) if counted else None
        args = (template,) if column is None else (template, column)
        tally = self.backend.map_reduce(check or fn, self.plan, *args)
        if check is not None:
            check.finish()
            self._unchecked = []
        self.row_passes += 1
        if self.n_chunks is None:
            self.n_chunks, self.n_dropped = tally.n_chunks, tally.n_dropped
        return tally.accumulator

    def reduce_positioned(self, template: Any) -> Any:
        """An accumulator like ``template`` (``update_positioned(X, y, positions)``, ``merge``)
        over every chunk, one more pass over the data.

        ``positions`` are the kept rows' 0-based positions in the data as given: on chunks a
        running count of the rows read (rows dropped for missing values included), on Dask the
        partitions' offsets from their lengths (computed first, a cheap pass) plus the row's
        place in its partition. The Poisson bootstrap keys each row's counts by it.
        """
        if not self.backend.rereadable:
            raise ValueError(
                "This step needs one more pass over the data, but the chunks came from a "
                "one-shot iterator. Fit on a list, a function returning a fresh iterator "
                "(sdr.chunks_from(make_chunks)) or a file (sdr.read_csv_chunks)."
            )
        tally = self.backend.map_reduce_positioned(accumulate_positioned, self.plan, template)
        return tally.accumulator

    def response_cuts(self, nslices: int, function: str = "dr") -> np.ndarray:
        """Cut points that slice the one-column response exactly as R ``dr`` slices it in
        memory (``function`` "dr" or "arc", ties never split), from passes over the response
        only (:func:`sdrstats.stats.exact_slicing.exact_cut_points`: one pass when it has few
        distinct values, three otherwise). The passes are counted in ``slicing_passes``.

        On chunks read in this process, the first pass keeps the response's values (up to
        :data:`RESPONSE_CACHE` of them, the arrays the later passes reuse): held, they give
        the cuts by one sort, and that pass is the only one."""
        hold = 0 if hasattr(self.backend, "response_passes") else RESPONSE_CACHE
        found = exact_cut_points(self._response_pass(), nslices, function, hold=hold)
        self.slicing_passes = found.passes
        self.response_summary = found  # rows and distinct values, for the in-memory checks
        return found.cuts

    def reduce_sliced(
        self,
        template_for: Any,
        rule_for: Any,
        nslices_for: Any,
        function: str = "dr",
    ) -> Any:
        """An accumulator over every chunk sliced exactly as R ``dr`` slices the one-column
        response in memory, from one pass over the rows that finds the cuts as it sums
        (:mod:`sdrstats.scale.one_pass`), or None when this pass cannot be made (Dask, or
        more rows than the response cache or the held rows' budget allow: the caller then
        slices from passes over the response first).

        ``template_for(rule)`` makes an empty accumulator slicing by ``rule``,
        ``rule_for(cuts)`` the rule of cut points, ``nslices_for(n)`` the slices of ``n``
        rows. When a cut falls inside a piece of the response whose sums were pooled (rows
        far from representative at first), a second pass over the rows accumulates the sums
        of the exact slices. Sets ``response_summary``; ``slicing_passes`` is 0.
        """
        if hasattr(self.backend, "response_passes") or not hasattr(self.backend, "scan"):
            return None
        scanner = OnePass(template_for, nslices_for, function, RESPONSE_CACHE, self.case_weighted)

        def chunk_rows(plan: FormulaPlan, chunk: pd.DataFrame, where: str) -> None:
            if plan.weights is not None:
                X, y, w, dropped = plan.weighted_arrays(chunk, where)
            else:
                X, y, dropped = plan.arrays(chunk, where)
                w = None
            scanner.add(X, y, w, dropped, chunk.attrs.get("fraction_read"))

        try:
            self.backend.scan(chunk_rows, self.plan)
        except GiveUp:
            return None
        acc, found = scanner.finish(rule_for)
        self.one_pass = scanner
        self.response_summary = found
        self.slicing_passes = 0
        self.n_chunks, self.n_dropped = scanner.n_chunks, scanner.n_dropped
        self.row_passes += 1
        if acc is None:  # a cut inside pooled sums: the rows again, sliced by the cuts
            acc = self.reduce(template_for(rule_for(found.cuts)))
        return acc

    def response_levels(self, column: str, template: Any) -> dict[Any, Any]:
        """``template`` (a response accumulator) of each level of ``column``, in order of first
        appearance: one pass over the response and the column (counted in ``slicing_passes``)."""
        self.slicing_passes += 1
        return self._grouped_pass(column)(ByLevel(template)).parts

    def level_cuts(
        self, column: str, level: Any, nslices: int, function: str = "dr", first: Any = None
    ) -> np.ndarray:
        """As :meth:`response_cuts`, for the rows whose ``column`` is ``level``; ``first`` is
        that level's part of a :meth:`response_levels` pass of ``ResponseSummary()`` (reused,
        not run again). The passes add to ``slicing_passes``."""
        run_pass = self._grouped_pass(column)
        reused = [first] if first is not None else []

        def level_pass(template: Any) -> Any:
            if reused:
                return reused.pop()
            return run_pass(ByLevel(template, (level,))).parts.get(level, template.empty())

        found = exact_cut_points(level_pass, nslices, function)
        self.slicing_passes += found.passes - (first is not None)
        return found.cuts

    def _grouped_pass(self, column: str) -> Any:
        if column not in self._grouped_passes:
            self._grouped_passes[column] = self._response_pass(column)
        return self._grouped_passes[column]

    def _response_pass(self, column: str | None = None) -> Any:
        if hasattr(self.backend, "response_passes"):  # Dask: the response stays on the workers
            return self.backend.response_passes(self.plan, column)
        run_pass = _CachedResponse(self.backend, self.plan, column, self.response_alone)
        if self.response_alone:
            self._unchecked.append(run_pass)
        return run_pass

    def response_ranges(self, max_rows: int) -> list[tuple[float, float]]:
        """Consecutive ranges ``[low, high)`` of the response, in increasing order, covering
        it, each holding at most ``max_rows`` rows unless one value alone holds more (cells of
        the exact-slicing grid, grouped; one range when the response has few distinct values).
        """
        run_pass = self._response_pass()
        summary = run_pass(ResponseSummary())
        if summary.counts is not None:
            return [(-np.inf, np.inf)]
        edges = summary.grid(int(np.clip(summary.n // 256, GRID_CELLS, SAMPLE_SIZE)))
        rows = run_pass(CellHistogram(edges)).counts
        ranges, start, held = [], 0, 0
        for cell, count in enumerate(rows):
            if held and held + count > max_rows:
                ranges.append((edges[start], edges[cell]))
                start, held = cell, 0
            held += count
        ranges.append((edges[start], np.inf))
        ranges[0] = (-np.inf, ranges[0][1])
        return ranges

    def sorted_scan(self, total_fn: Any, piece_fn: Any, *args: Any) -> np.ndarray:
        """Sum of ``piece_fn(part, offset, *args)`` over the rows sorted by the response, with
        ``offset`` the sum of ``total_fn(part, *args)`` over the earlier parts."""
        return self.backend.sorted_scan(self.plan, total_fn, piece_fn, *args)


def _check_weights_option(estimator: Any, weights: Any) -> None:
    """Case weights on chunks: a column name, for a method whose family takes them there."""
    if weights is None:
        return
    if not estimator.capabilities.case_weights:
        raise TypeError(
            f"{estimator.method} does not take case weights; weights= is for the moment "
            "methods (sir, save, phd, ire, cume, directional_regression)."
        )
    if not isinstance(weights, str):
        raise ValueError(
            "On chunked or Dask data the 'weights' option must name a column of the chunks "
            "(weights='w'): an array cannot be matched to rows read chunk by chunk. Add the "
            "weights to the data as a column."
        )


def fit_chunked(
    estimator: Any,
    formula: str,
    data: Any,
    *,
    missing: str = "drop",
    weights: str | None = None,
) -> Any:
    """Fit ``estimator`` (a new estimator with its options) on a :class:`ChunkSource` or a
    Dask DataFrame (``weights``: a column of case weights)."""
    cls = type(estimator)
    if not estimator.capabilities.from_statistics:
        raise estimator.statistics_unavailable()
    _check_weights_option(estimator, weights)
    if isinstance(data, ChunkSource):
        backend: Any = LocalChunks(data)
    else:
        from .dask import DaskFrame

        backend = DaskFrame(data)
    factors = factor_columns(backend.first(), formula)
    if factors and backend.rereadable:
        # levels first seen in a later chunk must code as in memory: find them all first
        levels = backend.map_reduce(levels_part, None, LevelSet(factors))
        backend.set_dtypes(levels.dtypes())
    plan = FormulaPlan(formula, backend.first(), missing, weights=weights)
    estimator._check_response(plan.spec)
    if not plan.categorical and len(plan.y_names) > 1:
        raise ValueError(
            f"Chunked and Dask fits take one response column; got {plan.y_names}. Fit each "
            "response separately or load the data in memory for nested slicing."
        )
    source = ChunkedData(backend, plan)

    def spec_of(source: ChunkedData) -> ModelSpec:
        return ModelSpec(
            X=np.empty((0, source.p)),
            Y=np.empty((0,)),
            x_names=source.x_names,
            y_names=plan.y_names,
            index=pd.RangeIndex(0),
            formula=plan.formula,
            design_info=plan.spec.design_info,
            design_columns=plan.design_columns,
            rhs=plan.rhs,
            source=plan.x_source,
            n_rows=0,
            data=source,
        )

    call = format_call(
        cls.method,
        repr(formula),
        backend.description,
        options=estimator.options,
        defaults=cls.params,
        weights=weights,
    )
    try:  # the estimator's passes over the chunks
        result = estimator.fit_spec(spec_of(source), call=call)
    except SlicingMissedRows:  # predictors drop rows: slice the rows the fit keeps
        source = ChunkedData(backend, plan, response_alone=False)
        result = estimator.fit_spec(spec_of(source), call=call)
    if source.n_dropped:
        warnings.warn(
            f"Dropped {source.n_dropped} rows with missing values over {source.n_chunks} chunks.",
            MissingValueWarning,
            stacklevel=4,
        )
    result.slicing_passes = source.slicing_passes  # passes over the response to slice it
    result.row_passes = source.row_passes  # passes over the rows (the method's accumulators)
    if hasattr(backend, "release_first"):
        backend.release_first()
    return result


__all__ = ["fit_chunked", "dr_cut_points", "ByLevel", "ChunkedData", "Tally", "LocalChunks"]
