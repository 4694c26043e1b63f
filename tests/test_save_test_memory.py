"""SAVE's general (Bentler–Xie) p-values: what they cost and when they are paid.

In memory they come from the rows' fourth moments accumulated in blocks of rows, as a fit on
chunks has them, not from an ``n x p²`` matrix of products (which took 8 GB at n = 2e5, p = 50
and ended a benchmark at n = 1e6 out of memory). The fit never computes them (its ``d`` is
read from the normal-theory p-values): the first table, summary or ``d_choice`` that shows
them does, once, and keeps them on the fit; past a time budget the summary prints the
normal-theory column and one line saying how to get the other and what it costs.
"""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest
import r_dr_ais as R

import sdrstats as sdr
import sdrstats.moment.methods as methods

AIS = "lbm ~ log(ssf)+log(wt)+log(hg)+log(ht)+log(wcc)+log(rcc)+log(hc)+log(ferr)"


def _data(n: int, p: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    return X, X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.standard_normal(n)


def test_the_blocked_fourth_moments_give_the_row_by_row_p_values(monkeypatch):
    X, y = _data(400, 8)
    blocked = sdr.SAVE(nslices=6, d=2).fit(X, y).test_dimension("asymptotic").table
    monkeypatch.setattr(methods, "pair_moments_fit", lambda n, p: False)
    direct = sdr.SAVE(nslices=6, d=2).fit(X, y).test_dimension("asymptotic").table
    np.testing.assert_allclose(blocked.to_numpy(), direct.to_numpy(), rtol=1e-10)


def test_the_default_fit_of_many_rows_holds_no_matrix_of_row_products():
    n, p = 20_000, 30
    X, y = _data(n, p)
    tracemalloc.start()
    try:
        fit = sdr.SAVE(nslices=10).fit(X, y)
        assert "p_value_general" in fit.test_dimension("asymptotic").table
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fit.d_rule == "asymptotic"
    # the products of every row would be n * p² * 8 bytes = 144 MB, twice (centred copy)
    assert peak < 100e6, f"peak {peak / 1e6:.0f} MB"


@pytest.fixture
def general_calls(monkeypatch):
    """Count the calls of the general test's one costly step."""
    calls: list[list[int]] = []
    compute = methods.general_test_traces

    def counted(results, ms):
        calls.append(list(ms))
        return compute(results, ms)

    monkeypatch.setattr(methods, "general_test_traces", counted)
    return calls


def test_the_default_fit_does_not_compute_the_general_p_values(general_calls):
    X, y = _data(300, 6)
    fit = sdr.SAVE(nslices=6).fit(X, y)  # d = None: the asymptotic rule chooses d
    assert fit.d_rule == "asymptotic" and general_calls == []
    assert fit.general_test_cache() == {}


def test_the_general_p_values_are_computed_once_when_first_shown(general_calls):
    X, y = _data(300, 6)
    fit = sdr.SAVE(nslices=6).fit(X, y)
    choice = fit.d_choice  # the attribute shows R's two columns
    assert "p_value_general" in choice.table and choice.d == fit.d
    assert len(general_calls) == 1
    text = str(fit.summary())
    table = fit.test_dimension("asymptotic").table
    assert "p.value(Gen)" in text and "left out" not in text
    assert len(general_calls) == 1  # the summary and the table read what the fit kept
    np.testing.assert_array_equal(table["p_value_general"], choice.table["p_value_general"])


def test_the_summary_prints_r_s_general_p_values(ais):
    fit = sdr.save(AIS, ais, nslices=8)
    shown = fit.summary().tables()["Large-sample Marginal Dimension Tests"]
    np.testing.assert_allclose(
        shown["p.value(Gen)"], [t["p.value(Gen)"] for t in R.SAVE["tests"]], rtol=1e-6
    )
    np.testing.assert_allclose(
        shown["p.value(Nor)"], [t["p.value(Nor)"] for t in R.SAVE["tests"]], rtol=1e-6
    )


def test_past_the_budget_the_summary_says_how_to_get_the_general_column(general_calls, monkeypatch):
    X, y = _data(300, 6)
    fit = sdr.SAVE(nslices=6).fit(X, y)
    monkeypatch.setattr(methods, "GENERAL_SECONDS_EACH", 1e-3)  # as if n and p were large
    text = str(fit.summary())
    assert "p.value(Nor)" in text and "p.value(Gen)  " not in text
    line = next(s for s in text.splitlines() if s.startswith("p.value(Gen) is left out"))
    assert 'test_dimension("asymptotic", general=True)' in line
    predicted = methods.general_test_seconds(fit, list(range(len(fit.d_choice.table))))
    assert sdr.base.budget.time_text(predicted) in line
    assert "p_value_general" not in fit.d_choice.table
    assert general_calls == []
    with pytest.warns(sdr.SlowFitWarning, match="general-theory test"):
        asked = fit.test_dimension("asymptotic", general=True).table
    assert len(general_calls) == 1
    # once kept, it is shown whatever it cost
    assert "p.value(Gen)" in str(fit.summary()) and "left out" not in str(fit.summary())
    np.testing.assert_array_equal(fit.d_choice.table["p_value_general"], asked["p_value_general"])
    assert len(general_calls) == 1


def test_asking_past_the_time_limit_is_refused(monkeypatch):
    X, y = _data(300, 6)
    fit = sdr.SAVE(nslices=6).fit(X, y)
    monkeypatch.setattr(methods, "GENERAL_SECONDS_EACH", 1.0)
    with pytest.raises(ValueError, match="general=False"):
        fit.test_dimension("asymptotic", general=True)
    with pytest.raises(TypeError, match="'general' option"):
        fit.test_dimension("asymptotic", general="yes")
    assert "p_value_general" not in fit.test_dimension("asymptotic", general=False).table


@pytest.mark.parametrize("filled", [False, True])
def test_pickled_and_saved_fits_keep_or_recompute_the_same_p_values(filled, tmp_path):
    X, y = _data(300, 6)
    fit = sdr.SAVE(nslices=6).fit(X, y)
    if filled:
        fit.test_dimension("asymptotic")
    kept = dict(fit.general_test_cache())
    assert bool(kept) == filled
    copies = [pickle.loads(pickle.dumps(fit)), sdr.load(fit.save(tmp_path / "fit"))]
    expected = fit.test_dimension("asymptotic").table
    for again in copies:
        assert again.general_test_cache() == kept
        assert "p_value_general" in again.d_choice.table
        np.testing.assert_allclose(
            again.test_dimension("asymptotic").table.to_numpy(), expected.to_numpy(), rtol=1e-12
        )


def test_a_loaded_cache_that_is_not_numbers_is_refused():
    X, y = _data(300, 6)
    fit = sdr.SAVE(nslices=6).fit(X, y)
    state = fit.__getstate__()
    state["_general_traces"] = {0: (1.0, float("nan"))}
    with pytest.raises(ValueError, match="_general_traces"):
        type(fit).__new__(type(fit)).__setstate__(state)
