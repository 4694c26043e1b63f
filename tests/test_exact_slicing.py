"""Exact R `dr` slicing from chunks: the cut points equal the in-memory slices, ties included."""

import numpy as np
import pytest

from sdrstats.stats.exact_slicing import (
    CellHistogram,
    CellValues,
    ResponseSummary,
    SortedCounts,
    exact_cut_points,
    walk_cuts,
)
from sdrstats.stats.slicing import cut_labels, make_slices


def _runner(chunks):
    def run_pass(acc):
        out = None
        for chunk in chunks:
            part = acc.empty().update(chunk)
            out = part if out is None else out.merge(part)
        return out

    return run_pass


def _responses(rng, n):
    yield "continuous", rng.standard_normal(n)
    yield "few values", rng.integers(0, 5, n).astype(float)
    yield "many ties", rng.integers(0, 60, n).astype(float)
    yield "rounded", np.round(rng.standard_normal(n), 1)
    yield "heavy tail", rng.standard_cauchy(n)
    yield "skewed with ties", np.exp(3 * rng.standard_normal(n)).round(2)


@pytest.mark.parametrize("function", ["dr", "arc"])
def test_cut_points_from_chunks_give_the_in_memory_slices(function):
    rng = np.random.default_rng(0)
    for n in (7, 50, 333, 2000):
        for name, y in _responses(rng, n):
            for h in (2, 5, 8, 13):
                truth = make_slices(y, h, function=function).sizes if function == "dr" else None
                expected = cut_labels(
                    y, walk_cuts(SortedCounts.from_sorted(np.sort(y)), h, function)
                )
                chunks = np.array_split(rng.permutation(y), int(rng.integers(1, 7)))
                # small caps and grids force the bracketing and splitting passes on small data
                found = exact_cut_points(
                    _runner(chunks), h, function, max_distinct=20, grid_cells=8, max_passes=40
                )
                labels = cut_labels(y, found.cuts)
                assert np.array_equal(labels, expected), (name, n, h)
                if truth is not None:
                    assert np.array_equal(np.bincount(labels), truth), (name, n, h)


def test_few_distinct_values_take_one_pass_and_many_take_three():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 30, 5000).astype(float)
    found = exact_cut_points(_runner(np.array_split(y, 4)), 8)
    assert found.passes == 1 and found.distinct
    y = rng.standard_cauchy(200_000)  # heavy tails: the sample-quantile grid still brackets
    found = exact_cut_points(_runner(np.array_split(y, 9)), 10)
    assert found.passes == 3 and not found.distinct
    assert np.array_equal(np.bincount(cut_labels(y, found.cuts)), make_slices(y, 10).sizes)


def test_arc_walk_reproduces_the_documented_examples():
    # R dr 3.0.11's dr.slices.arc on these data
    y = np.array([1, 2, 2, 2, 3, 4, 5, 6, 7, 8], dtype=float)
    cuts = walk_cuts(SortedCounts.from_sorted(np.sort(y)), 3, "arc")
    assert np.bincount(cut_labels(y, cuts)).tolist() == [4, 3, 3]
    y = np.array([1, 1, 2, 3, 3, 3, 4, 5, 6, 7, 8], dtype=float)
    cuts = walk_cuts(SortedCounts.from_sorted(np.sort(y)), 4, "arc")
    assert np.bincount(cut_labels(y, cuts)).tolist() == [3, 3, 3, 2]
    cuts = walk_cuts(SortedCounts.from_sorted(np.sort(y)), 4, "dr")
    assert np.bincount(cut_labels(y, cuts)).tolist() == [2, 4, 2, 3]


def test_accumulators_merge_in_any_order():
    rng = np.random.default_rng(2)
    y = np.round(rng.standard_normal(3000), 2)
    parts = np.array_split(y, 5)
    summary = ResponseSummary(max_distinct=10)
    a = summary.empty().update(parts[0]).merge(summary.empty().update(parts[1]))
    b = summary.empty().update(parts[1]).merge(summary.empty().update(parts[0]))
    assert np.array_equal(a.sample, b.sample) and a.n == b.n
    edges = np.linspace(y.min(), y.max(), 9)[:-1]
    h1 = CellHistogram(edges).update(parts[0]).merge(CellHistogram(edges).update(parts[2]))
    assert h1.counts.sum() == parts[0].size + parts[2].size
    cells = CellValues(edges, np.array([3, 4]), max_distinct=1000)
    one = cells.empty().update(np.concatenate(parts))
    many = cells.empty()
    for part in parts[::-1]:
        many = many.merge(cells.empty().update(part))
    for cell, (values, counts) in one.by_cell().items():
        other_values, other_counts = many.by_cell()[cell]
        assert np.array_equal(values, other_values) and np.array_equal(counts, other_counts)


def test_non_finite_response_is_refused():
    with pytest.raises(ValueError, match="non-finite"):
        ResponseSummary().update(np.array([1.0, np.nan]))


def test_in_memory_arc_slicing_never_splits_ties():
    # R dr 3.0.11's dr.slices.arc on the examples of its documentation
    y = np.array([1, 2, 2, 2, 3, 4, 5, 6, 7, 8], dtype=float)
    assert make_slices(y, 3, function="arc").sizes.tolist() == [4, 3, 3]
    y = np.array([1, 1, 2, 3, 3, 3, 4, 5, 6, 7, 8], dtype=float)
    assert make_slices(y, 4, function="arc").sizes.tolist() == [3, 3, 3, 2]
    rng = np.random.default_rng(5)
    y = rng.integers(0, 40, 500).astype(float)
    labels = make_slices(y, 8, function="arc").labels
    for value in np.unique(y):  # every tied value sits in one slice
        assert np.unique(labels[y == value]).size == 1


@pytest.mark.parametrize("function", ["dr", "arc"])
def test_held_values_give_the_cuts_of_the_passes_in_one(function):
    # hold: the first pass keeps the values while they are few; past the limit (in a chunk's
    # update or in a merge) it keeps their summary and the passes go on as without it.
    rng = np.random.default_rng(3)
    for name, y in _responses(rng, 3000):
        chunks = np.array_split(rng.permutation(y), 5)
        streamed = exact_cut_points(_runner(chunks), 7, function, max_distinct=20, grid_cells=8)
        held = exact_cut_points(_runner(chunks), 7, function, max_distinct=20, hold=3000)
        assert np.array_equal(held.cuts, streamed.cuts), name
        assert held.passes == 1 and held.n == streamed.n == 3000
        assert (held.distinct, held.n_distinct) == (streamed.distinct, streamed.n_distinct)
        for hold in (400, 700, 2999):  # given up within the first chunk, the second, the last
            over = exact_cut_points(
                _runner(chunks), 7, function, max_distinct=20, grid_cells=8, hold=hold
            )
            assert np.array_equal(over.cuts, streamed.cuts), (name, hold)
            assert over.passes == streamed.passes
