"""Slicing as R dr.slices."""

import numpy as np
import pytest

from sdrstats.stats.slicing import default_nslices, make_slices


@pytest.mark.parametrize(("h", "sizes"), [(3, [3, 3, 4]), (4, [2, 2, 2, 4]), (2, [5, 5])])
def test_documented_examples(h, sizes):
    assert make_slices(np.arange(1, 11), h).sizes.tolist() == sizes


def test_ties_are_never_split():
    y = np.array([1, 1, 1, 1, 2, 3, 4, 5, 5, 5, 5, 6, 7, 8, 9, 10.0])
    s = make_slices(y, 4)
    for value in np.unique(y):
        assert np.unique(s.labels[y == value]).size == 1
    assert s.sizes.sum() == y.size


def test_few_distinct_values_get_one_slice_each():
    y = np.repeat([3.0, 1.0, 2.0], [4, 5, 6])
    s = make_slices(y, 8)
    assert s.sizes.tolist() == [5, 6, 4]  # ordered by value
    assert s.labels[0] == 2


def test_integer_response_with_ties_walks_cumulative_counts():
    # y with heavy ties: walk end += m over cumulative counts of unique values
    y = np.repeat(np.arange(10.0), [1, 9, 1, 1, 8, 1, 1, 1, 1, 6])
    # n = 30, h = 5, m = 6: cumsum 1,10,11,12,20,21,22,23,24,30
    # end 6 -> 10; 16 -> 20; 26 -> 30 (stop) -> sizes 10, 10, 10
    assert make_slices(y, 5).sizes.tolist() == [10, 10, 10]


def test_arc_variant_gives_extra_cases_to_first_slices():
    s = make_slices(np.arange(10.0), 3, function="arc")
    assert s.sizes.tolist() == [4, 3, 3]


def test_categorical_slices_by_level():
    s = make_slices(np.array([2, 0, 1, 2, 2]), 8, categorical=True)
    assert s.sizes.tolist() == [1, 1, 3]


def test_nested_slicing_of_two_columns():
    rng = np.random.default_rng(1)
    y = rng.normal(size=(100, 2))
    s = make_slices(y, 9)  # ceil(9 ** 0.5) = 3 slices per column
    assert s.nslices == 9
    first = make_slices(y[:, 0], 3)
    # every nested slice lies inside one slice of the first column
    for k in range(s.nslices):
        assert np.unique(first.labels[s.labels == k]).size == 1
    assert s.sizes.sum() == 100


def test_default_nslices():
    assert default_nslices(3) == 8 and default_nslices(8) == 11
