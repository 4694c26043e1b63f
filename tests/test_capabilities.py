"""Each estimator class's declared capabilities match what its fits really do."""

import numpy as np
import pytest
from method_registry import FITS, regression_frame

import sdrstats as sdr
from sdrstats.fitting.estimator import Capabilities, from_statistics_methods

FRAME = regression_frame()
BATCH = {k: v for k, v in FITS.items() if k != "online_sir"}  # a stream keeps no rows


@pytest.fixture(scope="module", params=sorted(BATCH))
def fitted(request):
    return request.param, BATCH[request.param](FRAME)


def test_declared_capabilities_match_the_fit(fitted):
    name, fit = fitted
    caps = type(fit.estimator).capabilities
    assert isinstance(caps, Capabilities)
    assert caps.linear_directions == (fit.output.basis is not None), name
    assert caps.eigenvalues == (fit.output.eigenvalues is not None), name
    assert caps.asymptotic_test == hasattr(fit.estimator, "asymptotic_test"), name
    assert caps.cv_test == hasattr(fit.estimator, "cv_test"), name
    assert caps.weighted_replicates == (fit.estimator.replicate_kernel(fit) is not None), name
    weights = np.linspace(0.5, 2.0, fit.n)
    if caps.case_weights:
        weighted = fit.estimator.fit(fit.spec.X, fit.spec.Y, sample_weight=weights)
        assert weighted.spec.case_weights is not None, name
    else:
        with pytest.raises(TypeError, match="does not take case weights"):
            fit.estimator.fit(fit.spec.X, fit.spec.Y, sample_weight=weights)


def test_from_statistics_is_what_chunked_data_accepts(fitted):
    name, fit = fitted
    cls = type(fit.estimator)
    parts = sdr.chunks_from([FRAME.iloc[:40], FRAME.iloc[40:]])
    formula = fit.spec.formula
    options = {k: v for k, v in fit.options.items() if v != cls.params.get(k)}
    if cls.capabilities.from_statistics:
        chunked = cls.from_formula(formula, parts, **options)
        # one pass of merged sums vs the in-memory fit: rounding only (1e-8 on directions)
        np.testing.assert_allclose(
            np.abs(chunked.output.basis), np.abs(fit.output.basis), atol=1e-8
        )
    else:
        with pytest.raises(ValueError, match="chunked|sorted"):
            cls.from_formula(formula, parts, **options)


def test_the_error_lists_the_methods_that_fit_from_statistics():
    assert from_statistics_methods() == [
        "cume",
        "directional_regression",
        "ire",
        "phd",
        "save",
        "sir",
        "spca",
    ]
    with pytest.raises(ValueError, match="sir, spca"):
        sdr.mave("y ~ x1 + x2", sdr.chunks_from([FRAME.iloc[:40], FRAME.iloc[40:]]))


def test_weighted_replicate_kernel_equals_weighted_refit():
    # The kernel the inference layer asks for is exact algebra on weighted slice sums: equal to
    # the weighted refit to rounding (1e-9, p x p solves on a well-conditioned problem).
    fit = sdr.save("y ~ x1 + x2 + x3 + x4", FRAME, nslices=5)
    counts = np.random.default_rng(0).multinomial(len(FRAME), np.full(len(FRAME), 1 / 80), 3)
    for row, (basis, values) in zip(counts, fit.estimator.replicate_kernel(fit).replicates(counts)):
        refit = fit.refit(fit.spec.X, fit.spec.Y, weights=row.astype(float))
        np.testing.assert_allclose(basis, refit.basis, atol=1e-9)
        np.testing.assert_allclose(values, refit.eigenvalues, atol=1e-9)
