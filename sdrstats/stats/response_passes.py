"""Mergeable passes over a response held in chunks, for :mod:`sdrstats.stats.exact_slicing`.

Each accumulator has ``update(y)``, ``merge(other)`` and ``empty()``, and gives the same result
however the rows are split into chunks and in whatever order the parts are merged.
"""

from __future__ import annotations

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
        cells = self._cells(self.values)
        out = {}
        for cell in self.wanted:
            if int(cell) in self.crowded:
                continue
            sel = cells == cell
            out[int(cell)] = (self.values[sel], self.counts[sel])
        return out


__all__ = [
    "MAX_DISTINCT",
    "GRID_CELLS",
    "SAMPLE_SIZE",
    "ResponseSummary",
    "CellHistogram",
    "CellValues",
]
