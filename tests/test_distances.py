"""Subspace distances: closed forms and invariances."""

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.stats.distances import principal_angles, subspace_distance


def test_lines_at_an_angle_have_closed_forms():
    theta = 0.3
    a = np.array([1.0, 0.0, 0.0])
    b = np.array([np.cos(theta), np.sin(theta), 0.0])
    # P_a - P_b has singular values sin(theta) twice -> Frobenius sqrt(2) sin(theta)
    assert sdr.projection_distance(a, b) == pytest.approx(np.sqrt(2) * np.sin(theta), rel=1e-12)
    assert sdr.det_distance(a, b) == pytest.approx(1 - np.cos(theta), rel=1e-12)
    assert sdr.trace_correlation(a, b) == pytest.approx(np.cos(theta) ** 2, rel=1e-12)
    assert principal_angles(a, b)[0] == pytest.approx(theta, rel=1e-12)


def test_distances_ignore_the_choice_of_basis():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(6, 2))
    b = rng.normal(size=(6, 2))
    mix = rng.normal(size=(2, 2)) + 3 * np.eye(2)  # any invertible change of basis
    for name in ["projection", "det", "trace_correlation"]:
        assert subspace_distance(a @ mix, b, name) == pytest.approx(
            subspace_distance(a, b, name), rel=1e-10
        )
        assert subspace_distance(a, a @ mix, name) == pytest.approx(0.0, abs=1e-12)


def test_orthogonal_subspaces_are_maximal():
    e = np.eye(4)
    assert sdr.projection_distance(e[:, :2], e[:, 2:]) == pytest.approx(2.0)
    assert sdr.det_distance(e[:, :2], e[:, 2:]) == pytest.approx(1.0)
    assert sdr.trace_correlation(e[:, :2], e[:, 2:]) == pytest.approx(0.0)


def test_errors_are_clear():
    with pytest.raises(ValueError, match="equal dimension"):
        sdr.det_distance(np.eye(3)[:, :1], np.eye(3)[:, :2])
    with pytest.raises(ValueError, match="different spaces"):
        sdr.projection_distance(np.eye(3)[:, :1], np.eye(4)[:, :1])
    with pytest.raises(ValueError, match="distance must be one of"):
        subspace_distance(np.eye(3)[:, :1], np.eye(3)[:, :1], "angle")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.zeros((4, 1)), r"Basis b has rank 0 but 1 column"),
        (np.full((4, 1), np.nan), r"Basis b has NaN or infinite entries"),
        (np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0], [0.0, 0.0]]), r"rank 1 but 2 column"),
    ],
)
@pytest.mark.parametrize("name", ["projection", "det", "trace_correlation"])
def test_distance_of_a_degenerate_basis_is_an_error(bad, message, name):
    # a zero basis used to give distance 0 and a NaN basis NaN: both are no subspace
    good = np.eye(4)[:, : bad.shape[1]]
    with pytest.raises(ValueError, match=message):
        sdr.subspace_distance(good, bad, name)
    with pytest.raises(ValueError, match=message.replace("Basis b", "Basis a")):
        sdr.subspace_distance(bad, good, name)
