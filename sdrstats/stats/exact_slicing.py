"""R ``dr``'s slices of a response that does not fit in memory, found exactly in a few passes.

R's slicing rules (``dr.slices`` and ``dr.slices.arc``, :mod:`sdrstats.stats.slicing`) depend only on
the sorted response, and each cut lies at the end of a run of tied values. Both rules are a walk
over ranks that needs one query, "the first distinct value whose cumulative count reaches rank
``r``, and that cumulative count" (:class:`SortedCounts`), so the slices of data held in chunks
or Dask partitions are found without holding the rows:

1. a pass counts the rows, the smallest and largest value and, while there are at most
   ``max_distinct`` of them, every distinct value (:class:`ResponseSummary`); few distinct
   values answer every query, and the walk is done;
2. otherwise a pass counts the rows in each cell of a fine grid (:class:`CellHistogram`), which
   brackets every rank the walk can ask for; a pass then counts the distinct values inside just
   those cells (:class:`CellValues`), a small fraction of the rows;
3. a cell with more than ``max_distinct`` distinct values is split on a finer grid and counted
   again, until every cell the walk needs is known exactly.

The cuts are the response values at the end of each slice, so the statistics pass assigns every
row to the slice it gets in memory (:func:`sdrstats.stats.slicing.cut_labels`), ties included.

Every accumulator here has ``update(y)``, ``merge(other)`` and ``empty()``; ``run_pass(acc)``
given to :func:`exact_cut_points` must apply ``acc.empty().update(y_chunk)`` to every chunk of
the response (the rows that the fit keeps) and merge the results, in any order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Distinct values counted in one pass (and per grid cell) before the counts are given up.
MAX_DISTINCT = 4096
#: Fewest cells of the bracketing grid (and cells of each refinement of a crowded cell).
GRID_CELLS = 4096


def _merge_counts(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    values = np.concatenate([a[0], b[0]])
    counts = np.concatenate([a[1], b[1]])
    merged, inverse = np.unique(values, return_inverse=True)
    return merged, np.bincount(inverse.reshape(-1), weights=counts, minlength=merged.size).astype(
        np.int64
    )


def _as_response(y: Any) -> np.ndarray:
    values = np.asarray(y, dtype=float).reshape(-1)
    if values.size and not np.isfinite(values).all():
        raise ValueError("The response has non-finite values; exact slicing needs finite values.")
    return values


#: Distinct values kept as a sample for placing the grid (a bottom-k sketch by hash).
SAMPLE_SIZE = 2**16


def _hash(values: np.ndarray) -> np.ndarray:
    """A fixed mixing of the bits of each value: the sample does not depend on the chunks."""
    bits = (values + 0.0).view(np.uint64)  # + 0.0 folds -0.0 into 0.0
    with np.errstate(over="ignore"):
        mixed = (bits ^ (bits >> np.uint64(31))) * np.uint64(0x9E3779B97F4A7C15)
    return mixed ^ (mixed >> np.uint64(29))


class ResponseSummary:
    """Rows, range, a sample of distinct values and (while they are few) all distinct values.

    The sample is the ``SAMPLE_SIZE`` distinct values of smallest hash, so it merges exactly
    and is the same however the rows are chunked; it only places the bracketing grid (at its
    quantiles, so a skewed or heavy-tailed response needs no extra passes).
    """

    def __init__(self, max_distinct: int = MAX_DISTINCT, sample_size: int = SAMPLE_SIZE) -> None:
        self.max_distinct = max_distinct
        self.sample_size = sample_size
        self.n = 0
        self.low = np.inf
        self.high = -np.inf
        self.counts: tuple[np.ndarray, np.ndarray] | None = (np.empty(0), np.empty(0, np.int64))
        self.sample = np.empty(0)

    def empty(self) -> ResponseSummary:
        return ResponseSummary(self.max_distinct, self.sample_size)

    def _absorb(self, counts: tuple[np.ndarray, np.ndarray] | None, sample: np.ndarray) -> None:
        if self.counts is not None and counts is not None:
            merged = _merge_counts(self.counts, counts)
            self.counts = None if merged[0].size > self.max_distinct else merged
        else:
            self.counts = None
        if self.sample.size == self.sample_size and sample.size:
            # only values hashing below the sample's largest hash can enter it
            sample = sample[_hash(sample) < _hash(self.sample).max()]
        pool = np.unique(np.concatenate([self.sample, sample]))
        if pool.size > self.sample_size:
            pool = np.sort(pool[np.argsort(_hash(pool), kind="stable")[: self.sample_size]])
        self.sample = pool

    def update(self, y: Any) -> ResponseSummary:
        y = _as_response(y)
        if y.size:
            self.n += y.size
            self.low, self.high = min(self.low, y.min()), max(self.high, y.max())
            if self.counts is not None:
                counts = np.unique(y, return_counts=True)
                self._absorb(counts, counts[0])
            else:
                self._absorb(None, y)
        return self

    def merge(self, other: ResponseSummary) -> ResponseSummary:
        out = self.empty()
        out.n, out.counts, out.sample = self.n, self.counts, self.sample
        out.low, out.high = min(self.low, other.low), max(self.high, other.high)
        out.n += other.n
        out._absorb(other.counts, other.sample)
        return out

    def grid(self, cells: int) -> np.ndarray:
        """Lower edges of about ``cells`` cells at the sample's quantiles (first edge: the
        smallest value)."""
        step = max(1, self.sample.size // max(cells, 1))
        return np.unique(np.concatenate([[self.low], self.sample[step::step]]))


class HeldResponse:
    """The response's values while there are at most ``limit`` of them, else (from then on)
    their :class:`ResponseSummary`: the first pass of :func:`exact_cut_points` with
    ``hold``. Held values give the cuts by one sort, with no further pass; the summary of
    values given up is the one the rows would have given chunk by chunk (it merges exactly).
    """

    def __init__(self, limit: int, max_distinct: int = MAX_DISTINCT) -> None:
        self.limit, self.max_distinct = int(limit), max_distinct
        self.values: list[np.ndarray] | None = []
        self.summary: ResponseSummary | None = None
        self.n = 0

    def empty(self) -> HeldResponse:
        return HeldResponse(self.limit, self.max_distinct)

    def _as_summary(self) -> ResponseSummary:
        if self.values is None:
            return self.summary
        summary = ResponseSummary(self.max_distinct)
        for values in self.values:
            summary = summary.merge(ResponseSummary(self.max_distinct).update(values))
        return summary

    def update(self, y: Any) -> HeldResponse:
        y = _as_response(y)
        self.n += y.size
        if self.values is not None and self.n <= self.limit:
            self.values.append(y)
        else:
            summary = self._as_summary()
            self.values, self.summary = (
                None,
                summary.merge(ResponseSummary(self.max_distinct).update(y)),
            )
        return self

    def merge(self, other: HeldResponse) -> HeldResponse:
        out = self.empty()
        out.n = self.n + other.n
        if self.values is not None and other.values is not None and out.n <= self.limit:
            out.values = self.values + other.values
        else:
            out.values, out.summary = None, self._as_summary().merge(other._as_summary())
        return out


class CellHistogram:
    """Rows in each cell ``[edges[i], edges[i+1])`` of a grid (the last cell has no top)."""

    def __init__(self, edges: np.ndarray) -> None:
        self.edges = np.asarray(edges, dtype=float)
        self.counts = np.zeros(self.edges.size, dtype=np.int64)

    def empty(self) -> CellHistogram:
        return CellHistogram(self.edges)

    def update(self, y: Any) -> CellHistogram:
        y = _as_response(y)
        cells = np.searchsorted(self.edges, y, side="right") - 1
        self.counts += np.bincount(np.maximum(cells, 0), minlength=self.edges.size)
        return self

    def merge(self, other: CellHistogram) -> CellHistogram:
        out = self.empty()
        out.counts = self.counts + other.counts
        return out


class CellValues:
    """The distinct values and their counts inside chosen cells of a grid.

    A cell with more than ``max_distinct`` distinct values is given up (``crowded``): the
    caller splits it on a finer grid instead.
    """

    def __init__(
        self, edges: np.ndarray, wanted: np.ndarray, max_distinct: int = MAX_DISTINCT
    ) -> None:
        self.edges = np.asarray(edges, dtype=float)
        self.wanted = np.unique(np.asarray(wanted, dtype=np.int64))
        self.max_distinct = max_distinct
        self.values = np.empty(0)
        self.counts = np.empty(0, dtype=np.int64)
        self.crowded: set[int] = set()

    def empty(self) -> CellValues:
        return CellValues(self.edges, self.wanted, self.max_distinct)

    def _cells(self, values: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.edges, values, side="right") - 1

    def _keep(self, values: np.ndarray, counts: np.ndarray, crowded: set[int]) -> CellValues:
        out = self.empty()
        cells = self._cells(values)
        distinct = np.bincount(cells, minlength=self.edges.size)
        crowded = crowded | {int(c) for c in np.flatnonzero(distinct > self.max_distinct)}
        if crowded:
            keep = ~np.isin(cells, np.fromiter(crowded, dtype=np.int64))
            values, counts = values[keep], counts[keep]
        out.values, out.counts, out.crowded = values, counts, crowded
        return out

    def update(self, y: Any) -> CellValues:
        y = _as_response(y)
        # the wanted cells' value ranges, merged where adjacent: a short, cache-friendly search
        lows = self.edges[self.wanted]
        tops = np.append(self.edges, np.inf)[self.wanted + 1]
        starts = np.r_[True, lows[1:] != tops[:-1]]
        bounds = np.column_stack([lows[starts], tops[np.r_[starts[1:], True]]]).reshape(-1)
        inside = y[np.searchsorted(bounds, y, side="right") % 2 == 1]
        values, counts = _merge_counts(
            (self.values, self.counts), np.unique(inside, return_counts=True)
        )
        kept = self._keep(values, counts, self.crowded)
        self.values, self.counts, self.crowded = kept.values, kept.counts, kept.crowded
        return self

    def merge(self, other: CellValues) -> CellValues:
        values, counts = _merge_counts((self.values, self.counts), (other.values, other.counts))
        return self._keep(values, counts, self.crowded | other.crowded)

    def by_cell(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Each wanted, not crowded cell's distinct values and counts (sorted)."""
        cells = self._cells(self.values)  # sorted, as the values are
        starts = np.searchsorted(cells, self.wanted, side="left")
        ends = np.searchsorted(cells, self.wanted, side="right")
        out = {}
        for cell, start, end in zip(self.wanted.tolist(), starts.tolist(), ends.tolist()):
            if cell in self.crowded:
                continue
            out[cell] = (self.values[start:end], self.counts[start:end])
        return out


class _RankUnknown(Exception):
    """The walk asked for a rank inside a cell whose values are not counted yet."""

    def __init__(self, cell: int) -> None:
        self.cell = cell


class SortedCounts:
    """What the slicing walks ask of the sorted response: ``first_reaching(rank)``.

    Built from the full counts of the distinct values (:meth:`from_counts`), or from a grid of
    cells with their row counts and the distinct values of some cells; a query that falls in a
    cell without values raises ``_RankUnknown`` naming the cell.
    """

    def __init__(
        self, n: int, cell_ends: np.ndarray, known: dict[int, tuple[np.ndarray, np.ndarray]]
    ) -> None:
        self.n = int(n)
        self.cell_ends = cell_ends  # cumulative rows up to the end of each cell
        self.known = known  # cell -> (distinct values, cumulative counts within the response)

    @classmethod
    def from_counts(cls, values: np.ndarray, counts: np.ndarray) -> SortedCounts:
        cumulative = np.cumsum(counts)
        return cls(int(cumulative[-1]), cumulative[-1:], {0: (np.asarray(values), cumulative)})

    @classmethod
    def from_sorted(cls, ordered: np.ndarray) -> SortedCounts:
        """From a sorted array (the in-memory case), without an inverse index."""
        n = ordered.size
        new_value = np.empty(n, dtype=bool)
        new_value[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new_value[1:])
        cumulative = np.append(np.flatnonzero(new_value)[1:], n)
        return cls(n, np.array([n]), {0: (ordered[new_value], cumulative)})

    def cell_of(self, rank: int) -> int:
        return int(np.searchsorted(self.cell_ends, rank, side="left"))

    def first_reaching(self, rank: int) -> tuple[float, int]:
        """The first distinct value whose cumulative count is >= ``rank`` (clipped to the
        largest value), and that cumulative count."""
        rank = min(max(int(rank), 1), self.n)
        cell = self.cell_of(rank)
        if cell not in self.known:
            raise _RankUnknown(cell)
        values, cumulative = self.known[cell]
        k = min(int(np.searchsorted(cumulative, rank, side="left")), cumulative.size - 1)
        return float(values[k]), int(cumulative[k])

    def distinct_values(self) -> np.ndarray | None:
        """All distinct values when they are known (few distinct values), else None."""
        if len(self.cell_ends) == 1 and 0 in self.known:
            return self.known[0][0]
        return None


def walk_cuts(counts: SortedCounts, nslices: int, function: str = "dr") -> np.ndarray:
    """The largest response value of every slice but the last, by R's rule ``function``.

    ``"dr"`` is ``dr.slice2`` (walk the cumulative counts: ``end += n // h``, move the end to the
    end of its run of ties, while ``end < n - 2``); ``"arc"`` is ``dr.slices.arc`` (the first
    ``n - h·(n // h)`` slices one case larger, a cut moved past the ties at it, no final
    singleton). For ``"dr"``, at most ``h`` distinct values make a slice each (``dr.slices``;
    ``dr.slices.arc`` has no such rule).
    """
    n, h = counts.n, int(nslices)
    distinct = counts.distinct_values()
    if function == "dr" and distinct is not None and distinct.size <= h:
        return np.asarray(distinct[:-1], dtype=float)  # dr.slices: a slice per value
    m = n // h
    cuts: list[tuple[float, int]] = []
    if function == "dr":
        end = 0
        while end < n - 2:
            value, end = counts.first_reaching(end + m)
            cuts.append((value, end))
        cuts.pop()  # R sets the last slice's end to n: the final slice takes the rest
    elif function == "arc":
        start, extra = 0, n - m * h
        while start + m < n:
            if extra > 0:
                start, extra = start + 1, extra - 1
            value, start = counts.first_reaching(start + m)
            cuts.append((value, start))
        if cuts and cuts[-1][1] == n - 1:
            cuts.pop()
    else:
        raise ValueError(f"The slicing rule must be 'dr' or 'arc'; got {function!r}.")
    return np.asarray([value for value, end in cuts if end < n], dtype=float)


@dataclass(frozen=True)
class ExactCuts:
    """Cut points found by :func:`exact_cut_points` and how many passes they took."""

    cuts: np.ndarray
    n: int
    passes: int
    distinct: bool  # True when the distinct values were few enough to count in one pass
    #: How many distinct values the response has when they were counted (else more than
    #: ``nslices``).
    n_distinct: int | None = None

    def more_values_than(self, h: int) -> bool:
        """Whether the response has more than ``h`` distinct values."""
        return self.n_distinct is None or self.n_distinct > h


def _refined(edges: np.ndarray, crowded: list[int], rows: np.ndarray, high: float) -> np.ndarray:
    """Split each crowded cell into about one cell per 256 of its rows (at least 4096)."""
    pieces = [edges]
    for cell in crowded:
        top = edges[cell + 1] if cell + 1 < edges.size else np.nextafter(high, np.inf)
        cells = int(np.clip(rows[cell] // 256, GRID_CELLS, 2**20))
        pieces.append(np.linspace(edges[cell], top, cells + 1)[1:-1])
    return np.unique(np.concatenate(pieces))


def exact_cut_points(
    run_pass: Callable[[Any], Any],
    nslices: int,
    function: str = "dr",
    *,
    max_distinct: int = MAX_DISTINCT,
    grid_cells: int | None = None,
    max_passes: int = 12,
    hold: int = 0,
) -> ExactCuts:
    """R ``dr``'s cut points of a response seen only in chunks, exactly (ties included).

    Parameters
    ----------
    run_pass : callable
        ``run_pass(acc)`` applies ``acc.empty().update(y)`` to each chunk ``y`` of the response
        and returns the merged accumulator.
    nslices : int
        Target number of slices ``h``.
    function : {"dr", "arc"}
        R's slicing rule.
    max_distinct, grid_cells, max_passes
        Distinct values counted per pass or cell; cells of each grid; passes at most.
    hold : int, default 0
        The first pass keeps the response's values while there are at most ``hold`` of them
        (:class:`HeldResponse`): held, they give the cuts by one sort after that pass.

    Returns
    -------
    ExactCuts

    Examples
    --------
    >>> import numpy as np
    >>> y = np.random.default_rng(0).standard_normal(10_000).round(2)
    >>> chunks = np.array_split(y, 7)
    >>> def run_pass(acc):
    ...     parts = [acc.empty().update(c) for c in chunks]
    ...     out = parts[0]
    ...     for part in parts[1:]:
    ...         out = out.merge(part)
    ...     return out
    >>> found = exact_cut_points(run_pass, 8, max_distinct=50, grid_cells=16)
    >>> from sdrstats.stats.slicing import make_slices, cut_labels
    >>> bool((np.bincount(cut_labels(y, found.cuts)) == make_slices(y, 8).sizes).all())
    True
    """
    # With at most h distinct values every value is a slice: count at least h + 1 of them.
    max_distinct = max(int(max_distinct), int(nslices) + 1)
    if hold:
        held = run_pass(HeldResponse(hold, max_distinct))
        if held.n == 0:
            raise ValueError("The response has no rows to slice.")
        if held.values is not None:  # every value at hand: the in-memory walk, no more passes
            counts = SortedCounts.from_sorted(np.sort(np.concatenate(held.values)))
            values = counts.known[0][0]
            cuts = walk_cuts(counts, nslices, function)
            if values.size <= max_distinct:  # as a pass counting the distinct values tells
                return ExactCuts(cuts, held.n, 1, True, int(values.size))
            return ExactCuts(cuts, held.n, 1, False)
        summary = held.summary
    else:
        summary = run_pass(ResponseSummary(max_distinct))
    if summary.n == 0:
        raise ValueError("The response has no rows to slice.")
    if summary.counts is not None:
        counts = SortedCounts.from_counts(*summary.counts)
        cuts = walk_cuts(counts, nslices, function)
        return ExactCuts(cuts, summary.n, 1, True, int(summary.counts[0].size))
    if grid_cells is None:  # about 256 rows a cell, so few cells need splitting
        grid_cells = int(np.clip(summary.n // 256, GRID_CELLS, SAMPLE_SIZE))
    edges = summary.grid(grid_cells)
    passes = 1
    known: dict[float, tuple[np.ndarray, np.ndarray]] = {}  # cell's lower edge -> counts
    histogram = None
    while passes < max_passes:
        if histogram is None or histogram.edges.size != edges.size:
            histogram = run_pass(CellHistogram(edges))
            passes += 1
        cell_ends = np.cumsum(histogram.counts)
        wanted = _cells_needed(cell_ends, summary.n, nslices, function)
        missing = [c for c in wanted if edges[c] not in known and histogram.counts[c] > 0]
        if not missing:
            cell_known = {}
            for cell in wanted:
                if histogram.counts[cell] == 0:
                    continue
                values, within = known[edges[cell]]
                before = cell_ends[cell] - histogram.counts[cell]
                cell_known[cell] = (values, before + np.cumsum(within))
            try:
                cuts = walk_cuts(SortedCounts(summary.n, cell_ends, cell_known), nslices, function)
            except _RankUnknown:  # pragma: no cover - _cells_needed brackets every query
                raise RuntimeError("exact slicing missed a cell; please report this") from None
            return ExactCuts(cuts, summary.n, passes, False)
        collected = run_pass(CellValues(edges, np.asarray(missing), max_distinct))
        passes += 1
        for cell, counts in collected.by_cell().items():
            known[edges[cell]] = counts
        if collected.crowded:
            edges = _refined(edges, sorted(collected.crowded), histogram.counts, summary.high)
    raise RuntimeError(
        f"exact slicing did not settle in {max_passes} passes; pass cut_points= or "
        "slicing='approximate'."
    )


def _cells_needed(cell_ends: np.ndarray, n: int, nslices: int, function: str) -> list[int]:
    """Every cell a walk can query, from the row counts of the cells alone.

    A query for rank ``r`` answers with a cumulative count between ``r`` and the end of
    ``r``'s cell; the walk's next query is that count plus a known step, so bounding each
    query by an interval of ranks and taking every cell it touches brackets the whole walk.
    """
    h = int(nslices)
    m = n // h
    cells: set[int] = set()

    def touch(low: int, high: int) -> int:
        low, high = min(max(low, 1), n), min(max(high, 1), n)
        first = int(np.searchsorted(cell_ends, low, side="left"))
        last = int(np.searchsorted(cell_ends, high, side="left"))
        cells.update(range(first, last + 1))
        return int(cell_ends[last])  # the largest answer a query in [low, high] can give

    if function == "dr":
        low = high = 0
        while low < n - 2:
            top = touch(low + m, high + m)
            low, high = low + m, top
    else:
        low = high = 0
        extra = n - m * h
        while low + m < n:
            if extra > 0:
                low, high, extra = low + 1, high + 1, extra - 1
            top = touch(low + m, high + m)
            low, high = low + m, top
    return sorted(cells)


__all__ = [
    "ExactCuts",
    "ResponseSummary",
    "CellHistogram",
    "CellValues",
    "SortedCounts",
    "exact_cut_points",
    "walk_cuts",
]
