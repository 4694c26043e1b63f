"""R ``dr``'s exact slices and the slice sums of chunked rows, found in one pass together.

The exact slices of a continuous response are known only once the whole response has been
seen, but the slice sums need each row's slice. One pass does both:

* it holds the response (one float a row, as the passes of
  :mod:`sdrstats.stats.exact_slicing` hold it) and partitions the response's values into
  *pieces* (open intervals between breakpoints, and the breakpoints themselves);
* a piece is *summed* (its rows' sums are accumulated under the piece's key) or *kept* (its
  rows are accumulated under a holding key, and their predictors are held). Every piece starts
  kept; when the held predictors outgrow :data:`KEPT_BYTES`, the pieces are narrowed to bands
  around the cuts of the response seen so far (``BAND_SIGMAS`` binomial standard deviations
  of a quantile on either side, in rows, plus ``BAND_SLACK + h`` rows) and above the largest
  values (R's walk may end with a slice of fewer than ``h`` rows), and the held rows outside
  the bands move to summed pieces. A value held by many of the held rows becomes a piece of its
  own (R's slices never split ties);
* at the end the exact cuts come from the held response (R's walk over the sorted values,
  :func:`sdrstats.stats.exact_slicing.walk_cuts`); every summed piece whose rows all fall in
  one slice gives its sums to that slice, and the held rows move to their slices.

When a cut splits a summed piece (the first rows were not representative of the response: a
file sorted by the response, say), the slices are still exact: the cuts are known, and a second
pass over the rows accumulates the slice sums. When the response outgrows the response cache,
or the narrowest bands (the last of ``BAND_SIGMAS · 0.7^k`` not below ``MIN_BAND_SIGMAS``:
3.5 standard deviations) still hold more rows than the budget, the pass gives up (:class:`GiveUp`) and the caller
slices from passes over the response first; the rows read until then are read again. A source
that says how much of the data it has read (a CSV file read in byte ranges) lets the pass
decide at its first chunk, before it has read anything in vain: it gives up there when the
response will outgrow the cache, or when the held rows' predicted peak
(:func:`predicted_peak`, for the ``n`` rows that the share read implies) exceeds the budget.

Rows in a random order put a cut outside its band with probability about ``2 Φ(−5)`` per cut
and narrowing (6e-7); the result never depends on it, only the number of passes does. The
rows below a cut among the ``m`` seen are hypergeometric, with variance at most
``m q (1 − q) (1 − m/n)``; a source that knows the share of the data it has read (a CSV file
read in byte ranges) gives ``m/n``, which narrows the late bands (held rows peak at about
``BAND_SIGMAS · Σ_j √(q_j (1 − q_j)) · √n`` instead of twice that).

At 50 predictors (161 319 held rows in 64 MiB) and R's default 53 slices, the predicted peak
fits the budget up to about 4.5e6 rows read in byte ranges (in a simulation of rows in a
random order, the pass held 4.6e6 rows and gave up at 5e6; from a source that does not say
how much it has read, it held 1e6 and gave up at 2e6); beyond, a file gives up at its first
chunk, other sources when their held rows outgrow the budget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..design.weights import ZERO_WEIGHT
from ..stats.exact_slicing import MAX_DISTINCT, ExactCuts, SortedCounts, walk_cuts
from ..stats.slicing import cut_labels

#: The slice key of rows held until their slice is known.
KEPT = -1
#: Most bytes of predictors (and response and weight) a one-pass fit holds for the rows near
#: the cuts (64 MiB: 160 000 rows of 50 predictors).
KEPT_BYTES = 64 * 2**20
#: Half-width of a band around a cut, in binomial standard deviations of its rank.
BAND_SIGMAS = 5.0
#: Narrowest bands before the pass gives up.
MIN_BAND_SIGMAS = 3.0
#: Rows added to each side of a band (ranks of a few rows move with ties).
BAND_SLACK = 16
#: Rows of one value (among the held rows) that make it a piece of its own.
TIE_ROWS = 32
#: Most pieces of one value.
MAX_POINTS = 256
#: Each narrowing of one chunk makes the bands this much narrower than the last.
NARROWING = 0.7


def band_steps() -> list[float]:
    """The half-widths of the bands (in standard deviations) of the narrowings a chunk may
    make, widest first: ``BAND_SIGMAS · NARROWING^k`` down to ``MIN_BAND_SIGMAS``."""
    steps, sigmas = [], BAND_SIGMAS
    while sigmas >= MIN_BAND_SIGMAS:
        steps.append(sigmas)
        sigmas *= NARROWING
    return steps


def predicted_peak(n: float, m: float, h: int, sigmas: float, share: float = 1.0) -> int:
    """The most rows the pass will hold after a narrowing, from its ``m``-th row on, of ``n``
    rows in a random order sliced in ``h`` slices, with bands of ``sigmas`` standard deviations.

    A narrowing after ``m'`` rows holds about ``2 σ √(m' q_j (1 − q_j) (1 − m'/n))`` rows
    around the cut at the share ``q_j = j/h`` of the rows (the band of a hypergeometric rank,
    rows of a continuous response), greatest at ``m' = n/2``: ``σ √n Σ_j √(q_j (1 − q_j))``
    in all, plus ``2 (BAND_SLACK + h) + 1`` rows a cut and ``2 (h + BAND_SLACK)`` at the top.
    ``share`` scales the bands: the share of the rows not held by a value of many rows (those
    become pieces of their own and are summed).

    Parameters
    ----------
    n : float
        Rows of the data (an estimate).
    m : float
        Rows read so far.
    h : int
        Slices.
    sigmas : float
        Half-width of the bands, in binomial standard deviations of a cut's rank.
    share : float, optional
        Share of the rows whose values are not held by many rows (1 for a continuous
        response).

    Returns
    -------
    int

    Examples
    --------
    >>> predicted_peak(4e6, 1e5, 53, 3.5) < 67108864 // (8 * 50 + 16) < predicted_peak(5e6, 1e5, 53, 3.5)
    True
    """
    q = np.arange(1, h) / h
    seen = min(max(float(m), n / 2), float(n))
    width = 2 * sigmas * np.sqrt(seen * (1 - seen / n)) * np.sqrt(q * (1 - q)).sum()
    slack = (h - 1) * (2 * (BAND_SLACK + h) + 1) + 2 * (h + BAND_SLACK)
    return int(np.ceil(share * width)) + slack


class GiveUp(Exception):
    """The one pass cannot hold what it needs; slice from passes over the response instead."""


class Pieces:
    """A partition of the real line by breakpoints ``t``: piece ``2i`` is the open interval
    ``(t[i-1], t[i])`` (``t[-1] = -inf``, ``t[k] = inf``), piece ``2i + 1`` the value ``t[i]``.
    ``ids[piece]`` is the piece's key when it is summed, :data:`KEPT` when it is kept.

    Examples
    --------
    >>> pieces = Pieces()
    >>> pieces.refine(np.array([0.0, 1.0]))
    >>> pieces.index(np.array([-3.0, 0.0, 0.5, 1.0, 2.0])).tolist()
    [0, 1, 2, 3, 4]
    """

    def __init__(self) -> None:
        self.t = np.empty(0)
        self.ids = np.array([KEPT], dtype=np.int64)

    def index(self, y: np.ndarray) -> np.ndarray:
        """The piece of each value."""
        i = np.searchsorted(self.t, y, side="left")
        at = np.append(self.t, np.inf)[i] == y
        return 2 * i + at

    def id_of(self, y: np.ndarray) -> np.ndarray:
        return self.ids[self.index(y)]

    def refine(self, points: np.ndarray) -> None:
        """Add the breakpoints ``points`` that fall inside kept pieces (a summed piece is
        never split); the new pieces keep the state of the piece they came from."""
        points = np.unique(np.asarray(points, dtype=float))
        if points.size == 0:
            return
        inside = self.ids[self.index(points)] == KEPT
        points = points[inside & ~np.isin(points, self.t)]
        if points.size == 0:
            return
        old_t, old_ids = self.t, self.ids
        t = np.union1d(old_t, points)
        ids = np.empty(2 * t.size + 1, dtype=np.int64)
        ids[1::2] = old_ids[self.index(t)]
        lefts = np.concatenate([[-np.inf], t])
        ids[0::2] = old_ids[2 * np.searchsorted(old_t, lefts, side="right")]
        self.t, self.ids = t, ids

    def spans(self, ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each piece's values start and end in the sorted array ``ordered``."""
        n = ordered.size
        left = np.searchsorted(ordered, self.t, side="left")
        right = np.searchsorted(ordered, self.t, side="right")
        starts = np.empty(self.ids.size, dtype=np.int64)
        ends = np.empty(self.ids.size, dtype=np.int64)
        starts[0::2] = np.concatenate([[0], right])
        ends[0::2] = np.concatenate([left, [n]])
        starts[1::2], ends[1::2] = left, right
        return starts, ends


class PieceRule:
    """The slice rule of the pass: a row's key is its piece's (:data:`KEPT` while held).

    Has the attributes of :class:`sdrstats.moment.statistics.SliceRule` that the
    accumulators read."""

    cuts = None
    classes = False
    single = False
    slices = None

    def __init__(self, pieces: Pieces) -> None:
        self.pieces = pieces
        self.primed: tuple[np.ndarray, np.ndarray] | None = None

    def keys(self, y: np.ndarray) -> np.ndarray:
        if self.primed is not None and y is self.primed[0]:
            return self.primed[1]
        return self.pieces.id_of(np.asarray(y, dtype=float).reshape(-1))


def _bands(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closed intervals ``[low, high]``, merged where they overlap, sorted."""
    order = np.argsort(low, kind="stable")
    lows, highs = [], []
    for a, b in zip(low[order].tolist(), high[order].tolist()):
        if highs and a <= highs[-1]:
            highs[-1] = max(highs[-1], b)
        else:
            lows.append(a)
            highs.append(b)
    return np.asarray(lows, dtype=float), np.asarray(highs, dtype=float)


class OnePass:
    """The state of one pass: the held response, the pieces, the accumulator and the held rows.

    Parameters
    ----------
    template_for : callable
        ``template_for(rule)``: an empty accumulator slicing by ``rule`` (``update``,
        ``move_rows``, ``regroup``, ``drop``).
    nslices_for : callable
        ``nslices_for(n)``: the slices of ``n`` rows.
    function : {"dr", "arc"}
        R's slicing rule.
    response_limit : int
        Most response values held (beyond, :class:`GiveUp`).
    weighted : bool
        Rows come with case weights (``update(X, y, w)``); rows of weight at most ``1e-30``
        are not sliced, as R drops them.
    kept_bytes : int, optional
        The budget of held rows (default :data:`KEPT_BYTES`).
    """

    def __init__(
        self,
        template_for: Callable[[Any], Any],
        nslices_for: Callable[[int], int],
        function: str,
        response_limit: int,
        weighted: bool,
        kept_bytes: int | None = None,
    ) -> None:
        self.pieces = Pieces()
        self.rule = PieceRule(self.pieces)
        self.acc = template_for(self.rule)
        self.nslices_for, self.function = nslices_for, function
        self.response_limit, self.weighted = int(response_limit), weighted
        self.kept_bytes = KEPT_BYTES if kept_bytes is None else int(kept_bytes)
        self.held: list[np.ndarray] = []  # the response of the rows sliced
        self.m = 0
        self.blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []  # held rows
        self.kept = 0
        self.budget: int | None = None  # held rows at most
        self.next_id = 0
        self.points: set[int] = set()  # keys of one-value pieces
        self.n_chunks = 0
        self.n_dropped = 0
        self.narrowings = 0
        self.peak_kept = 0
        self.fraction_read: float | None = None
        self.predicted = False  # the early decision was made

    # -- the pass ------------------------------------------------------------------------------
    def add(
        self,
        X: np.ndarray,
        y: np.ndarray,
        w: np.ndarray | None,
        dropped: int,
        fraction_read: float | None = None,
    ) -> None:
        """One chunk's rows (``w`` their case weights, or None), the rows it dropped and, when
        the source knows it, the share of the data read with this chunk (bands then narrow by
        the finite-population factor ``√(1 − share)``)."""
        self.n_dropped += int(dropped)
        if fraction_read is not None:
            self.fraction_read = min(max(float(fraction_read), 0.0), 1.0)
        if X.shape[0] == 0:
            return
        self.n_chunks += 1
        y = np.asarray(y, dtype=float).reshape(-1)
        if not np.isfinite(y).all():
            raise ValueError(
                "The response has non-finite values; exact slicing needs finite values."
            )
        positive = None if w is None else w > ZERO_WEIGHT
        sliced = y if positive is None else y[positive]
        self.m += sliced.size
        if self.m > self.response_limit:
            raise GiveUp()
        if self.fraction_read and self.m > self.response_limit * self.fraction_read:
            raise GiveUp()  # the rows to come will not fit the response cache: give up now
        self.held.append(sliced)
        if self.budget is None:
            self.budget = max(1, self.kept_bytes // (X.itemsize * X.shape[1] + 16))
        if self.fraction_read and not self.predicted and self.m > 0:
            self.predicted = True  # once, at the first chunk that says how much is read
            self._give_up_early()
        keep, ids = self._kept_rows(y, positive)
        steps = iter(band_steps())
        while self.kept + int(keep.sum()) > self.budget:
            sigmas = next(steps, None)
            if sigmas is None:
                raise GiveUp()
            self._narrow(sigmas)
            keep, ids = self._kept_rows(y, positive)
        self.rule.primed = (y, ids)
        try:
            if w is None:
                self.acc.update(X, y)
            else:
                self.acc.update(X, y, w)
        finally:
            self.rule.primed = None
        rows = np.flatnonzero(keep)
        if rows.size:  # held sorted by the response: a piece's rows are a run of them
            rows = rows[np.argsort(y[rows], kind="stable")]
            self.blocks.append((X[rows], y[rows], None if w is None else w[rows]))
            self.kept += rows.size
            self.peak_kept = max(self.peak_kept, self.kept)

    def _give_up_early(self) -> None:
        """Give up now when the rows held at the narrowest bands will outgrow the budget
        (:func:`predicted_peak` for the ``n`` rows that the share read implies). The rows of
        a value frequent enough to be held by :data:`TIE_ROWS` rows when the held rows fill
        the budget (of the :data:`MAX_POINTS` most frequent values) will be summed in a piece
        of their own: they do not count."""
        assert self.fraction_read is not None and self.budget is not None
        n = self.m / self.fraction_read
        if self.m >= n:  # every row read: one narrowing holds what the bands need
            return
        held = np.concatenate(self.held)
        _, counts = np.unique(held, return_counts=True)
        counts = np.sort(counts)[::-1][:MAX_POINTS]
        # a value of share TIE_ROWS / budget or more has TIE_ROWS rows among the held rows
        # from the first narrowing on; twice that, for a margin
        tied = counts[counts >= max(2.0, 2 * TIE_ROWS * held.size / self.budget)].sum()
        share = 1.0 - tied / held.size
        h = self.nslices_for(int(n))
        if predicted_peak(n, self.m, h, band_steps()[-1], share) > self.budget:
            raise GiveUp()

    def _kept_rows(
        self, y: np.ndarray, positive: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        ids = self.pieces.id_of(y)
        keep = ids == KEPT
        return (keep if positive is None else keep & positive), ids

    def _narrow(self, sigmas: float) -> None:
        """Narrow the kept pieces to bands around the cuts of the response held so far, and
        move the held rows outside them to summed pieces."""
        self.narrowings += 1
        ordered = np.sort(np.concatenate(self.held))
        self.held = [ordered]
        m = ordered.size
        h = self.nslices_for(m)
        cuts = walk_cuts(SortedCounts.from_sorted(ordered), h, self.function)
        first = np.searchsorted(ordered, cuts, side="left")
        last = np.searchsorted(ordered, cuts, side="right") - 1
        q = (last + 1) / m
        # the rows below the final cut among the m seen: hypergeometric, variance at most
        # m q (1 − q) (1 − m/n)
        rest = 1.0 if self.fraction_read is None else 1.0 - self.fraction_read
        sd = np.sqrt(m * q * (1 - q) * rest)
        spread = np.ceil(sigmas * sd).astype(np.int64) + BAND_SLACK + h
        low = ordered[np.clip(first - spread, 0, m - 1)]
        high = ordered[np.clip(last + spread, 0, m - 1)]
        # the top: R's walk may end with a slice of fewer than h rows (when n mod h >= 3),
        # so a cut among the largest values comes and goes with n; they stay kept
        top = ordered[max(m - 1 - 2 * (h + BAND_SLACK), 0)]
        lows, highs = _bands(np.append(low, top), np.append(high, np.inf))

        def in_bands(values: np.ndarray, open_left: bool = False) -> np.ndarray:
            j = np.searchsorted(lows, values, side="right") - 1
            top = highs[np.maximum(j, 0)]
            return (j >= 0) & ((values < top) if open_left else (values <= top))

        # values held by many rows: pieces of their own (a cut never splits them)
        heavy = np.empty(0)
        room = MAX_POINTS - len(self.points)
        if self.blocks and room > 0:
            held_y = np.concatenate([block[1] for block in self.blocks])
            values, counts = np.unique(held_y, return_counts=True)
            crowded = counts >= TIE_ROWS
            values, counts = values[crowded], counts[crowded]
            if values.size > room:
                values = values[np.argsort(-counts, kind="stable")[:room]]
            heavy = np.sort(values)
        self.pieces.refine(np.concatenate([lows, highs[np.isfinite(highs)], heavy]))
        t, ids = self.pieces.t, self.pieces.ids
        # which held pieces stay held: a value in a band and not heavy; an open piece whose
        # left end is in a band (a band's ends are breakpoints, so it lies in the band whole)
        stays = np.zeros(ids.size, dtype=bool)
        stays[1::2] = in_bands(t) & ~np.isin(t, heavy)
        stays[2::2] = in_bands(t, open_left=True)
        is_heavy = np.zeros(ids.size, dtype=bool)
        is_heavy[1::2] = np.isin(t, heavy)
        for i in np.flatnonzero((ids == KEPT) & ~stays).tolist():
            if is_heavy[i]:
                ids[i] = self._new_key(point=True)
            else:
                ids[i] = self._neighbour_key(ids, i)
        self._move_out()

    def _new_key(self, point: bool = False) -> int:
        key = self.next_id
        self.next_id += 1
        if point:
            self.points.add(key)
        return key

    def _neighbour_key(self, ids: np.ndarray, i: int) -> int:
        """The key of a summed neighbour piece (not a one-value piece), else a new key: the
        pieces of one key stay contiguous."""
        for j in (i - 1, i + 1):
            if 0 <= j < ids.size and ids[j] != KEPT and int(ids[j]) not in self.points:
                return int(ids[j])
        return self._new_key()

    def _move_out(self) -> None:
        """Move the held rows of pieces no longer kept to their pieces' sums (each block is
        sorted by the response, so a piece's rows are one run of it)."""
        ids = self.pieces.ids
        blocks, kept = [], 0
        for X, y, w in self.blocks:
            starts, ends = self.pieces.spans(y)
            lengths = ends - starts
            out = (ids != KEPT) & (lengths > 0)
            if out.any():
                take = np.concatenate(
                    [np.arange(a, b) for a, b in zip(starts[out].tolist(), ends[out].tolist())]
                )
                targets = np.repeat(ids[out], lengths[out])
                weights = None if w is None else w[take]
                self.acc.move_rows(X[take], y[take], weights, KEPT, targets)
                stay = (ids == KEPT) & (lengths > 0)
                if not stay.any():
                    continue
                pairs = zip(starts[stay].tolist(), ends[stay].tolist())
                X = np.concatenate([X[a:b] for a, b in pairs])
                y = np.concatenate([y[a:b] for a, b in zip(starts[stay], ends[stay])])
                if w is not None:
                    w = np.concatenate([w[a:b] for a, b in zip(starts[stay], ends[stay])])
            blocks.append((X, y, w))
            kept += y.size
        self.blocks, self.kept = blocks, kept

    # -- the end -------------------------------------------------------------------------------
    def finish(self, rule_for: Callable[[np.ndarray], Any]) -> tuple[Any, ExactCuts]:
        """The exact cuts, and the accumulator sliced by them (None when a cut splits a
        summed piece: a second pass must accumulate the sums)."""
        ordered = np.sort(np.concatenate(self.held)) if self.held else np.empty(0)
        self.held = [ordered]
        n = ordered.size
        if n == 0:
            raise ValueError("The response has no rows to slice.")
        h = self.nslices_for(n)
        counts = SortedCounts.from_sorted(ordered)
        cuts = walk_cuts(counts, h, self.function)
        distinct = counts.known[0][0].size
        few = distinct <= max(MAX_DISTINCT, h + 1)
        found = ExactCuts(cuts, n, 0, few, distinct if few else None)
        mapping = self._slices_of_pieces(ordered, cuts)
        if mapping is None:
            return None, found
        acc = self.acc.regroup(mapping)
        for X, y, w in self.blocks:
            acc.move_rows(X, y, w, KEPT, cut_labels(y, cuts))
        self.blocks, self.kept = [], 0
        acc.drop(KEPT)
        acc.rule = rule_for(cuts)
        return acc, found

    def _slices_of_pieces(self, ordered: np.ndarray, cuts: np.ndarray) -> dict[int, int] | None:
        """The slice of each summed key, or None when a slice boundary falls inside one."""
        starts, ends = self.pieces.spans(ordered)
        ids = self.pieces.ids
        pieces = np.flatnonzero((ids != KEPT) & (starts < ends))
        first = cut_labels(ordered[starts[pieces]], cuts)
        last = cut_labels(ordered[ends[pieces] - 1], cuts)
        if np.any(first != last):
            return None
        mapping: dict[int, int] = {}
        for key, label in zip(ids[pieces].tolist(), first.tolist()):
            if mapping.setdefault(key, label) != label:
                return None
        return mapping


__all__ = ["OnePass", "GiveUp", "Pieces", "KEPT_BYTES", "predicted_peak"]
