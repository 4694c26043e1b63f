"""SDSPCA and SDSPCAAN against the authors' own MATLAB code, run under GNU Octave.

The numbers come from ``tests/reference/make_octave_sdspcaan.py``, which runs Shi et al.'s
published ``SDSPCA.m`` and ``SDSPCAAN.m`` (github.com/ZhenhuaShi/SDSPCAAN, commit e71876d)
under Octave 7.3 on three small synthetic class problems and writes
``octave_sdspcaan.json``: the data (rounded to 4 decimals before anything was fitted), the
projection ``W`` the authors' functions return with their defaults, and the iterates they
return when stopped after ``T = 1, 2, ...`` Q-steps.

The package's default iteration ("authors") follows that loop, so the subspaces agree to
rounding: when this file was written the largest projection distance over every case and
iterate was 2.4e-10 (a four-ring problem whose ``W`` has condition number 3.5e5, which
amplifies the rounding of the eigenvectors); most were below 2e-12. The tolerance 1e-6 leaves
a wide margin for other BLAS/LAPACK builds while still proving the same computation: the
fixed-weight iteration differs from the authors' by 0.008-1.4 on the same problems.
"""

import json
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import sdrstats as sdr

REF = json.loads((Path(__file__).parent / "reference" / "octave_sdspcaan.json").read_text())
FITS = REF["fits"]
# see the module docstring: rounding of the same computation
DISTANCE_TOL = 1e-6
ITERATES = [(label, it["T"]) for label, fit in FITS.items() for it in fit["iterates"]]


def _data(fit_ref):
    case = REF["cases"][fit_ref["data"]]
    return np.asarray(case["x"]), np.asarray(case["y"]).astype(str)


def _estimator(fit_ref, **options):
    weights = dict(zip(("alpha", "beta", "delta"), fit_ref["weights"]))
    cls = sdr.SDSPCA if fit_ref["method"] == "sdspca" else sdr.SDSPCAAN
    return cls(d=fit_ref["k"], **weights, **options)


@cache
def _fit(label, **options):
    X, y = _data(FITS[label])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)  # fits stopped at max_iter
        return _estimator(FITS[label], **options).fit(X, y)


def test_the_reference_is_the_authors_code_under_octave():
    assert REF["commit"].startswith("e71876d")
    assert REF["octave"] == "7.3.0"
    assert len(FITS) == 9 and len(REF["cases"]) == 3


@pytest.mark.parametrize("label,T", ITERATES)
def test_every_iterate_equals_the_authors(label, T):
    fit_ref = FITS[label]
    # SDSPCA.m's stop compares raw eigenvectors; a tiny tol lets the package reach the
    # iterates the authors' loop went on to (tol has no other role without a graph). With a
    # graph tol also drives λ, so SDSPCAAN keeps its default
    options = {"max_iter": T}
    if fit_ref["method"] == "sdspca":
        options["tol"] = 1e-12
    fit = _fit(label, **options)
    authors = np.asarray(next(it["W"] for it in fit_ref["iterates"] if it["T"] == T))
    assert fit.n_iter == T
    distance = sdr.projection_distance(fit.projection.to_numpy(), authors)
    assert distance < DISTANCE_TOL, distance


@pytest.mark.parametrize("label", list(FITS))
def test_default_fit_equals_the_authors_default(label):
    fit_ref = FITS[label]
    fit = _fit(label)
    # the authors' SDSPCA stops when norm(Q - Q_previous) < 1e-3 on raw eigenvectors, so an
    # eigenvector's sign flip (the eigensolver's choice) delays its stop; the package matches
    # the signs first and stops where the change is truly below 1e-3
    expected_steps = fit_ref["n_q_steps"]
    if fit_ref["stop_delayed_by_a_sign_flip"]:
        changes = fit_ref["change_of_Q_signs_matched"]
        expected_steps = next(i + 2 for i, change in enumerate(changes) if change < 1e-3)
    assert fit.n_iter == expected_steps and fit.converged
    authors = np.asarray(fit_ref["iterates"][expected_steps - 1]["W"])
    distance = sdr.projection_distance(fit.projection.to_numpy(), authors)
    assert distance < DISTANCE_TOL, distance
    if not fit_ref["stop_delayed_by_a_sign_flip"]:
        final = sdr.projection_distance(fit.projection.to_numpy(), np.asarray(fit_ref["W"]))
        assert final < DISTANCE_TOL, final


def test_one_case_shows_the_sign_flip_artefact():
    # the two-class problem: the authors' loop saw changes of about 2 (flipped columns) where
    # the matched change was 3e-5, and ran 6 Q-steps instead of 3
    fit_ref = FITS["two_classes_wide_sdspca"]
    assert fit_ref["stop_delayed_by_a_sign_flip"] and fit_ref["n_q_steps"] == 6
    assert max(fit_ref["change_of_Q"][2:]) > 1.9
    assert sum(f["stop_delayed_by_a_sign_flip"] for f in FITS.values()) == 1


@pytest.mark.parametrize("label", ["three_gaussians_sdspcaan", "four_rings_sdspcaan"])
def test_fixed_weights_is_another_computation(label):
    # the once-only trace scales give another subspace: the reference tells them apart
    fit = _fit(label, iteration="fixed_weights")
    distance = sdr.projection_distance(fit.projection.to_numpy(), np.asarray(FITS[label]["W"]))
    assert distance > 0.5
