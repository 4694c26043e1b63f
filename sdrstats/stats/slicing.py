"""Slicing of the response, as R ``dr``'s ``dr.slices`` does it.

A continuous response is cut into slices of about ``n / h`` observations without ever splitting
tied values; a response with at most ``h`` distinct values gets one slice per value; a
categorical response gets one slice per level; a ``q``-column response is sliced column by
column within the slices of the previous columns (nested slicing, ``ceil(h ** (1/q))`` slices a
column).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.persistence import register
from .exact_slicing import SortedCounts, walk_cuts


@register  # a chunked fit keeps its slices: saved with it
@dataclass(frozen=True)
class Slices:
    """Slice membership of each observation.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Slice index 0..h-1 of each observation.
    sizes : ndarray of int, shape (h,)
        Observations in each slice.
    """

    labels: np.ndarray
    sizes: np.ndarray

    @property
    def nslices(self) -> int:
        return int(self.sizes.size)

    def indicator(self) -> np.ndarray:
        """The n x h one-hot matrix of slice membership."""
        out = np.zeros((self.labels.size, self.nslices))
        out[np.arange(self.labels.size), self.labels] = 1.0
        return out


def default_nslices(p: int) -> int:
    """R ``dr``'s default number of slices, ``max(8, p + 3)``."""
    return max(8, p + 3)


def _slice_dr(y: np.ndarray, h: int) -> np.ndarray:
    """``dr.slice2``: walk the cumulative counts of the sorted unique values.

    Works from one sort of ``y`` (no inverse index): a slice ends at a value of ``y``, so
    each observation's slice is the number of slice-ending values below it. The walk is
    :func:`sdrstats.stats.exact_slicing.walk_cuts`, the same one chunked and Dask fits run on counts.
    """
    cuts = walk_cuts(SortedCounts.from_sorted(np.sort(y)), h, "dr")
    return cut_labels(y, cuts)


def _slice_arc(y: np.ndarray, h: int) -> np.ndarray:
    """``dr.slices.arc``: equal counts by rank, the first ``n - h*m`` slices one case larger,
    each cut moved to the end of the run of ties at it (ties are never split), and no final
    slice of one case (the walk is :func:`sdrstats.stats.exact_slicing.walk_cuts`)."""
    cuts = walk_cuts(SortedCounts.from_sorted(np.sort(y)), h, "arc")
    return cut_labels(y, cuts)


def _slice_1d(y: np.ndarray, h: int, function: str) -> np.ndarray:
    return _slice_dr(y, h) if function == "dr" else _slice_arc(y, h)


def check_cut_points(cut_points: object) -> np.ndarray:
    """Validate ``cut_points``: a non-empty, finite, strictly increasing 1-D sequence."""
    try:
        cuts = np.asarray(cut_points, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("The 'cut_points' option must be a sequence of numbers.") from None
    if cuts.ndim != 1 or cuts.size == 0:
        raise ValueError(
            "The 'cut_points' option must be a non-empty 1-D sequence of response values; got "
            f"shape {cuts.shape}."
        )
    if not np.all(np.isfinite(cuts)) or np.any(np.diff(cuts) <= 0):
        raise ValueError(
            "The 'cut_points' option must be finite and strictly increasing; got "
            f"{cuts.tolist()[:6]}{'...' if cuts.size > 6 else ''}."
        )
    return cuts


def cut_labels(y: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Slice index of each value: slice ``s`` holds ``cuts[s-1] < y <= cuts[s]``.

    The index is the number of cuts below the value. For fewer than 256 cuts it is counted
    by one vectorised comparison per cut into small integers (a few times faster than a
    binary search per value); otherwise, or when a value is NaN (which a search puts after
    every cut), by ``np.searchsorted``.

    Examples
    --------
    >>> cut_labels(np.array([0.5, 1.0, 1.5, 3.0]), np.array([1.0, 2.0])).tolist()
    [0, 0, 1, 2]
    """
    cuts = np.asarray(cuts, dtype=float)
    if cuts.size >= 256 or np.isnan(y).any():
        return np.searchsorted(cuts, y, side="left").astype(np.int64)
    below = np.zeros(y.shape, dtype=np.uint8)
    for cut in cuts:
        np.add(below, y > cut, out=below, casting="unsafe")
    return below.astype(np.int64)


def make_slices(
    y: np.ndarray,
    nslices: int,
    *,
    function: str = "dr",
    categorical: bool = False,
    cut_points: object = None,
) -> Slices:
    """Slice a response.

    Parameters
    ----------
    y : ndarray
        ``(n,)`` or ``(n, q)`` response; integer class codes when ``categorical``.
    nslices : int
        Target number of slices ``h`` (fewer can result when values tie).
    function : {"dr", "arc"}
        R's rules: ``"dr"`` is ``dr.slices`` (the default), ``"arc"`` is ``dr.slices.arc``;
        neither splits tied values.
    categorical : bool
        One slice per class.
    cut_points : sequence of float, optional
        Given slice boundaries ``c_1 < ... < c_{k}`` for a one-column response: slice ``s``
        holds ``c_s < y <= c_{s+1}`` (the first ``y <= c_1``, the last ``y > c_k``); empty
        slices are dropped. Overrides ``nslices`` and ``function``. Chunked and Dask fits use
        the same rule, so a fit in memory with the same cut points gives the same numbers.

    Returns
    -------
    Slices

    Examples
    --------
    >>> make_slices(np.arange(1, 11), 3).sizes
    array([3, 3, 4])
    >>> make_slices(np.arange(1, 11), 4).sizes
    array([2, 2, 2, 4])
    >>> make_slices(np.arange(1, 11), 4, cut_points=[2.5, 7]).sizes
    array([2, 5, 3])
    """
    y = np.asarray(y)
    if cut_points is not None:
        cuts = check_cut_points(cut_points)
        if categorical:
            raise ValueError(
                "The 'cut_points' option slices a continuous response; a categorical response "
                "is sliced by class, so leave cut_points=None."
            )
        if y.ndim == 2 and y.shape[1] != 1:
            raise ValueError(
                f"The 'cut_points' option needs a single response column; got {y.shape[1]}."
            )
        _, labels = np.unique(cut_labels(y.reshape(-1).astype(float), cuts), return_inverse=True)
        labels = labels.astype(np.int64)
        return Slices(labels, np.bincount(labels).astype(np.int64))
    if categorical:
        codes = np.asarray(y).reshape(-1)
        _, labels = np.unique(codes, return_inverse=True)
        return Slices(labels.astype(np.int64), np.bincount(labels).astype(np.int64))
    y = y.astype(float)
    if y.ndim == 1 or y.shape[1] == 1:
        labels = _slice_1d(y.reshape(-1), nslices, function)
        return Slices(labels, np.bincount(labels).astype(np.int64))
    q = y.shape[1]
    per_column = int(np.ceil(nslices ** (1.0 / q) - 1e-12))
    keys = np.zeros(y.shape[0], dtype=np.int64)
    labels = _slice_1d(y[:, 0], per_column, function)
    keys = labels.copy()
    for col in range(1, q):
        new_keys = keys.copy()
        for key in np.unique(keys):
            sel = keys == key
            sub = _slice_1d(y[sel, col], per_column, function)
            new_keys[sel] = key * (per_column + 1) + sub
        keys = new_keys
    # Slices are numbered in order of first appearance, as R's unique() does.
    _, first = np.unique(keys, return_index=True)
    order = np.argsort(first)
    remap = np.empty(order.size, dtype=np.int64)
    remap[order] = np.arange(order.size)
    _, inverse = np.unique(keys, return_inverse=True)
    labels = remap[inverse]
    return Slices(labels, np.bincount(labels).astype(np.int64))


__all__ = ["Slices", "make_slices", "default_nslices", "check_cut_points", "cut_labels"]
