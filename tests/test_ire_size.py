"""What an IRE fit keeps and saves: its final ``Γ_ζ`` factor is kept only within the budget
(``sdrstats.base.budget.KEPT_BYTES``), never saved for a fit of rows in memory, and recomputed
from the fit's rows when a coordinate test first needs it: bit for bit below p slices (the
fit's own passes), to rounding at p slices or more (the fit used the full fourth moments).
Files of format 1, which hold the factor, still load (``data/make_ire_v1.py`` wrote them)."""

import gc
import importlib.util
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.base.budget import KEPT_BYTES
from sdrstats.base.persistence import SCHEMA_VERSION, read
from sdrstats.moment import ire_passes
from sdrstats.moment.ire_passes import final_factors

DATA = Path(__file__).resolve().parent / "data"
_spec = importlib.util.spec_from_file_location("make_ire_v1", DATA / "make_ire_v1.py")
V1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(V1)

SIM = "y ~ " + " + ".join(f"x{j}" for j in range(1, 21))
#: p = 20 with 55 slices: a 1,080-square factor (9.3 MB), past the 8 MiB budget.
WIDE = {"nslices": 55, "d_max": 2, "random_state": 3}


@pytest.fixture(scope="module")
def wide():
    rng = np.random.default_rng(5)
    n = 2500
    frame = pd.DataFrame(rng.standard_normal((n, 20)), columns=[f"x{j}" for j in range(1, 21)])
    frame["y"] = frame.x1 + 0.5 * frame.x2**2 + 0.5 * rng.standard_normal(n)
    return frame


@pytest.fixture(scope="module")
def ais():
    return sdr.datasets.load("ais")


def assert_same_factor(recomputed, factor, exact=False):
    """The recomputed factor is the fit's: bit for bit when ``exact``, else to rounding."""
    if exact:
        assert np.array_equal(recomputed, factor)
    else:
        assert np.abs(recomputed - factor).max() <= 1e-13 * np.abs(factor).max()


def keeping_every_factor(monkeypatch, fit):
    """``fit()`` as if the budget held any factor."""
    with monkeypatch.context() as m:
        m.setattr(ire_passes, "keeps_recomputable", lambda nbytes: True)
        return fit()


def keeping_no_factor(monkeypatch, fit):
    """``fit()`` as if the budget held none."""
    with monkeypatch.context() as m:
        m.setattr(ire_passes, "keeps_recomputable", lambda nbytes: False)
        return fit()


def printed(fit, tests=("x2", "x3"), drop1=True):
    """Every printed number of a fit: summary, dimension tests, coordinate tests (marginal
    and conditional) and drop1."""
    parts = [str(fit.summary()), str(fit.test_dimension())]
    for name in tests:
        parts.append(str(fit.coordinate_test([name])))
        parts.append(str(fit.coordinate_test([name], d=1)))
    if drop1:
        parts.append(fit.drop1(d=1).to_string())
    return "\n".join(parts)


def statistics(fit, tests=("x2", "x3")):
    return np.array(
        [fit.coordinate_test([t], d=d).statistic for t in tests for d in (None, 1)]
        + list(fit.test_dimension().table["stat"])
    )


def test_a_saved_wide_fit_leaves_its_factor_out_and_prints_the_same(wide, tmp_path, monkeypatch):
    kept = keeping_every_factor(monkeypatch, lambda: sdr.ire(SIM, wide, **WIDE))
    factor = kept.output.extras["gamma_factor"]
    assert factor.nbytes > KEPT_BYTES  # the case the budget is for
    fit = sdr.ire(SIM, wide, **WIDE)
    assert "gamma_factor" not in fit.output.extras  # past the budget: not held in the fit
    target = fit.save(tmp_path / "wide")
    size = os.path.getsize(target)
    rows = fit.spec.X.nbytes + fit.spec.Y.nbytes + fit.spec.source.memory_usage().sum()
    assert size < 1.2 * rows + 2**18  # the rows it keeps and little else
    assert size < factor.nbytes / 4
    loaded = sdr.load(target)
    assert_same_factor(final_factors(loaded), factor)
    assert printed(loaded, drop1=False) == printed(kept, drop1=False)
    np.testing.assert_allclose(statistics(loaded), statistics(kept), rtol=1e-10)


def test_a_kept_factor_is_saved_only_without_rows(ais, tmp_path):
    """In memory a small factor stays in the fit but is not written; a fit on chunks (no rows
    to recompute it from) writes it."""
    fit = sdr.ire(V1.FORMULA, ais, **V1.OPTIONS)
    assert "gamma_factor" in fit.output.extras
    header, _ = read(fit.save(tmp_path / "memory"))
    assert header["schema_version"] == SCHEMA_VERSION == 2
    assert not [k for k in header["arrays"] if "gamma" in k]
    chunked = sdr.ire(V1.FORMULA, sdr.chunks_from([ais.iloc[:90], ais.iloc[90:]]), **V1.OPTIONS)
    target = chunked.save(tmp_path / "chunks")
    assert [k for k in read(target)[0]["arrays"] if "gamma" in k]
    loaded = sdr.load(target)
    test = loaded.coordinate_test("~ . - log(hg)", d=1)
    assert test.statistic == pytest.approx(
        fit.coordinate_test("~ . - log(hg)", d=1).statistic, rel=1e-9
    )


@pytest.mark.parametrize(
    "options",
    [
        {},  # R's slicing: the full fourth moments
        {"nslices": 3},  # fewer slices than predictors: sums along the fitted span
        {"group": "sex", "nslices": 5},  # partial IRE: one factor per group
        {"weights": "w"},  # R's case weights
    ],
)
def test_the_recomputed_factor_is_the_fits(ais, monkeypatch, options):
    frame = ais.assign(w=np.linspace(0.5, 2.0, len(ais)))
    options = {"d_max": 2, "random_state": 1, **options}
    kept = keeping_every_factor(monkeypatch, lambda: sdr.ire(V1.FORMULA, frame, **options))
    fit = keeping_no_factor(monkeypatch, lambda: sdr.ire(V1.FORMULA, frame, **options))
    key = "gamma_factors" if "group" in options else "gamma_factor"
    assert key not in fit.output.extras
    recomputed = final_factors(fit)
    factors = kept.output.extras[key]
    exact = options.get("nslices", 8) < 4  # below p slices the fit's own passes
    if key == "gamma_factor":
        assert_same_factor(recomputed, factors, exact)
    else:
        assert len(recomputed) == len(factors) == 2
        for a, b in zip(recomputed, factors):
            assert_same_factor(a, b, exact)
    hypothesis = "~ . - log(hg)"
    for d in (None, 1):
        mine = fit.coordinate_test(hypothesis, d=d).statistic
        theirs = kept.coordinate_test(hypothesis, d=d).statistic
        assert mine == theirs if exact else mine == pytest.approx(theirs, rel=1e-10)
    assert final_factors(fit) is recomputed  # once per fit


def test_a_recomputed_factor_lives_beside_its_fit_only(ais, monkeypatch):
    fit = keeping_no_factor(monkeypatch, lambda: sdr.ire(V1.FORMULA, ais, **V1.OPTIONS))
    fit.coordinate_test("~ . - log(hg)")
    assert len(ire_passes._FACTORS) >= 1
    held = len(ire_passes._FACTORS)
    del fit
    gc.collect()
    assert len(ire_passes._FACTORS) == held - 1


@pytest.mark.parametrize("name, options", [("ire_v1", V1.OPTIONS), ("pire_v1", V1.PARTIAL)])
def test_a_format_1_file_with_its_factor_loads(ais, tmp_path, name, options):
    header, _ = read(DATA / f"{name}.npz")
    assert header["schema_version"] == 1
    old = sdr.load(DATA / f"{name}.npz")
    key = "gamma_factors" if "group" in options else "gamma_factor"
    assert key in old.output.extras  # used as stored
    fresh = sdr.ire(V1.FORMULA, ais, **options)
    again = sdr.load(fresh.save(tmp_path / "again"))  # format 2, recomputed
    tests = ("log(hg)", "log(ht)")
    assert printed(old, tests) == printed(fresh, tests) == printed(again, tests)
    np.testing.assert_allclose(statistics(old, tests), statistics(fresh, tests), rtol=1e-10)
    boot = [f.bootstrap(B=3, d=1).distances for f in (old, fresh, again)]
    # the stored factor was computed on another machine, whose BLAS kernels may differ from
    # this one's in the last bits: the same draws, equal to rounding
    np.testing.assert_allclose(boot[0], boot[1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(boot[0], boot[2], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(boot[1], boot[2])  # recomputed here, both sides
