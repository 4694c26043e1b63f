"""R's order of the predictors and R's dotted names, against R dr 3.0.11.

Reference: tests/reference/r_formula.json, written by tests/reference/make_r_formula.R (R's
fits with factor predictors in the C collation locale, and with dotted column names).
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import sdrstats as sdr

REF = json.loads((Path(__file__).parent / "reference" / "r_formula.json").read_text())
# As the other R dr parity tests: both are double precision on a few hundred rows and agree to
# about 1e-12; 1e-6 leaves room for BLAS differences.
RTOL = 1e-6


def r_name(name: str) -> str:
    """The package's name in R's formula: C(g) was written here where R has factor(g)."""
    return re.sub(r"C\(([^()]+)\)", r"factor(\1)", name)


def dotted_ais(ais):
    return ais.rename(
        columns={
            "lbm": "Lean.Body.Mass",
            "wt": "Wt.kg",
            "ht": "Ht.cm",
            "ssf": "Sum.Skin.Folds",
            "sex": "Sex.Code",
        }
    )


CASES = {
    "factor_between": (sdr.sir, "lbm ~ log(wt) + sex + log(ht) + log(ssf)", "ais"),
    "interaction": (sdr.save, "lbm ~ log(ssf) * sex + log(wt)", "ais"),
    "sport": (sdr.sir, "lbm ~ log(wt) + sport + log(ht)", "ais"),
    "origin": (sdr.sir, "mpg ~ displacement + C(origin) + weight", "auto"),
    "dotted": (
        sdr.sir,
        "Lean.Body.Mass ~ log(Wt.kg) + Sex.Code + log(Ht.cm) + Sum.Skin.Folds",
        "dotted",
    ),
}


@pytest.fixture(scope="module")
def frames(ais):
    return {"ais": ais, "auto": sdr.datasets.load("auto"), "dotted": dotted_ais(ais)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_predictors_in_r_order_with_r_numbers(case, frames):
    method, formula, data = CASES[case]
    ref = REF[case]
    fit = method(formula, frames[data], nslices=8)
    # the same predictors in the same order as R's rownames(evectors)
    assert [r_name(x) for x in fit.x_names] == ref["predictors"]
    assert list(fit.directions.index) == fit.x_names
    ev = np.asarray(ref["evalues"])
    np.testing.assert_allclose(fit.eigenvalues[: ev.size], ev, rtol=RTOL, atol=1e-12)
    theirs = np.asarray(ref["evectors_by_row"])
    ours = fit.output.basis
    for j in range(fit.d):
        sign = np.sign(ours[:, j] @ theirs[:, j])
        np.testing.assert_allclose(sign * ours[:, j], theirs[:, j], rtol=RTOL, atol=1e-9)


def test_text_levels_follow_r_in_the_c_locale(ais):
    # R's factor() sorts text levels by its collation; in the C locale that is character-code
    # order, which is sdrstats's order; the reference level is the first (contr.treatment)
    fit = sdr.sir("lbm ~ log(wt) + sport", ais, nslices=8)
    levels = [x.removeprefix("sport") for x in fit.x_names if x.startswith("sport")]
    assert levels == REF["sport_levels_C"][1:]


def test_transform_follows_the_r_order(frames):
    ais = frames["ais"]
    fit = sdr.sir("lbm ~ log(wt) + sex + log(ht) + log(ssf)", ais, nslices=8)
    X = np.column_stack(
        [np.log(ais.wt), (ais.sex == "m").astype(float), np.log(ais.ht), np.log(ais.ssf)]
    )
    # the same rows through the formula: the same design, so the same numbers
    np.testing.assert_array_equal(fit.spec.transform_x(ais), X)
    np.testing.assert_allclose(
        fit.transform(ais.head(5)).to_numpy(),
        (X[:5] - X.mean(axis=0)) @ fit.output.basis[:, : fit.d],
        atol=1e-12,
    )


def test_summary_lists_predictors_in_formula_order(ais):
    fit = sdr.sir("lbm ~ log(wt) + sex + log(ht)", ais, nslices=8)
    text = str(fit.summary())
    text = text[text.index("Basis Vectors") :]
    assert text.index("log(wt)") < text.index("sexm") < text.index("log(ht)")


def test_predictor_terms_in_formula_order(ais):
    from sdrstats.moment.predictor_tests import predictor_terms

    fit = sdr.sir("lbm ~ log(wt) + sex + log(ht)", ais, nslices=8)
    assert predictor_terms(fit) == {"log(wt)": [0], "sex": [1], "log(ht)": [2]}
