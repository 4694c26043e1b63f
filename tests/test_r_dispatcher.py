"""``sdr.dr`` is R's ``dr()``: R's method names and argument names over the package's methods.

It only translates, so every fit equals the method's own formula function's, number for
number; what it adds is R's vocabulary, R's ``Call:`` line and errors that say where a method
R ``dr`` does not have lives.
"""

import inspect
import json
import re
import typing
from pathlib import Path

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.fitting.formula_functions import documented_parameters

F = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"
R_PARTIAL = json.loads((Path(__file__).parent / "reference" / "r_dr_partial.json").read_text())

SAME_AS = [
    ({"method": "sir", "nslices": 8}, lambda d: sdr.sir(F, d, nslices=8)),
    ({}, lambda d: sdr.sir(F, d)),  # R's default method is sir
    ({"method": "save", "nslices": 6, "numdir": 3}, lambda d: sdr.save(F, d, nslices=6, d_max=3)),
    ({"method": "phdy"}, lambda d: sdr.phd(F, d, residuals=False)),
    ({"method": "phdres"}, lambda d: sdr.phd(F, d, residuals=True)),
    ({"method": "phd"}, lambda d: sdr.phd(F, d)),
    ({"method": "phdq"}, lambda d: sdr.phd(F, d, residuals="quadratic")),
    ({"method": "ire", "nslices": 8, "numdir": 2}, lambda d: sdr.ire(F, d, nslices=8, d_max=2)),
    (
        {"method": "sir", "slice_function": "dr.slices.arc", "nslices": 6},
        lambda d: sdr.sir(F, d, slice_function="arc", nslices=6),
    ),
    (
        {"method": "save", "group": "~ sex", "nslices": 4, "pool": True},
        lambda d: sdr.save(F, d, group="sex", nslices=4, pool=True),
    ),
    ({"method": "psir", "group": "sex"}, lambda d: sdr.sir(F, d, group="sex")),
    (
        {"method": "pire", "group": "sex", "numdir": 2},
        lambda d: sdr.ire(F, d, group="sex", d_max=2),
    ),
    (
        {"method": "sir", "weights": "wt", "subset": "ht > 170", "nslices": 5},
        lambda d: sdr.sir(F, d, weights="wt", subset="ht > 170", nslices=5),
    ),
]


@pytest.mark.parametrize(("options", "direct"), SAME_AS, ids=[str(o) for o, _ in SAME_AS])
def test_dr_is_the_method_s_own_fit(ais, options, direct):
    fit, own = sdr.dr(F, ais, **options), direct(ais)
    assert type(fit) is type(own) and fit.options == own.options
    np.testing.assert_array_equal(fit.all_directions, own.all_directions)
    assert fit.test_dimension().table.equals(own.test_dimension().table)

    # the same summary below the Call: line, up to the seed each fit drew
    def body(f):
        return str(f.summary()).split("Method:")[1].split("Random state:")[0]

    assert body(fit) == body(own)


def test_call_line_reads_as_r_s(ais):
    w = np.linspace(0.5, 2.0, len(ais))
    fit = sdr.dr(F, ais, method="save", nslices=8)
    assert fit.call == (
        "dr(formula = lbm ~ log(ssf) + log(wt) + log(hg) + log(ht), data = ais, "
        'method = "save", nslices = 8)'
    )
    assert str(fit.summary()).lstrip().startswith(f"Call:\n{fit.call}\n")
    fit = sdr.dr(
        F, ais, subset="ht > 160", weights=w, na_action="na.fail", slice_function="arc",
        nslices=6,
    )  # fmt: skip
    assert fit.call == (
        "dr(formula = lbm ~ log(ssf) + log(wt) + log(hg) + log(ht), data = ais, "
        "subset = ht > 160, na.action = na.fail, weights = w, nslices = 6, "
        "slice.function = dr.slices.arc)"
    )
    fit = sdr.dr(F, ais.copy(), method="ire", numdir=2, cut_points=[50, 60.5], d=1)
    assert fit.call.endswith(
        'data = data, method = "ire", d = 1, cut_points = c(50, 60.5), numdir = 2)'
    )


def test_call_line_of_a_partial_fit_is_r_s_own(ais):
    # R's call as R deparses it (tests/reference/make_r_dr_partial.R), formula written out
    formula = F + " + log(wcc) + log(rcc) + log(hc) + log(ferr)"
    theirs = R_PARTIAL["psave_sex"]["call"].replace("f8", formula)
    fit = sdr.dr(formula, ais, group="~sex", method="save", nslices=4)
    assert fit.call == " ".join(theirs.split())


def test_r_s_na_action_is_missing(ais):
    data = ais.copy()
    data.loc[3, "wt"] = np.nan
    with pytest.warns(sdr.MissingValueWarning):
        omitted = sdr.dr(F, data, na_action="na.omit")
    assert omitted.n == 201 and "na.action = na.omit" in omitted.call
    with pytest.raises(ValueError, match=r"missing values in \['wt'\]"):
        sdr.dr(F, data, na_action="na.fail")
    with pytest.raises(ValueError, match=r"missing values in \['wt'\]"):
        sdr.dr(F, data, missing="raise")
    with pytest.raises(TypeError, match="both na_action='na.omit' and missing='raise'"):
        sdr.dr(F, data, na_action="na.omit", missing="raise")


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        (
            {"method": "dr"},
            ValueError,
            r"not R dr's: directional regression .* is sdr.directional_regression\(formula, "
            r"data, \.\.\.\); R's dr\(\) has no method 'dr'",
        ),
        ({"method": "directional"}, ValueError, r"sdr\.directional_regression\("),
        ({"method": "cume"}, ValueError, r"'cume' is not one of them: call sdr\.cume\("),
        ({"method": "sav"}, ValueError, r"R dr's methods are 'sir', 'save', .*mean 'save'\?"),
        ({"method": "ols"}, ValueError, "not a method here"),
        ({"method": "phdy", "nslices": 8}, TypeError, r"dr\(method='phdy'\) does not take 'nsli"),
        ({"method": "ire", "pool": True}, TypeError, r"dr\(method='ire'\) does not take 'pool'"),
        ({"method": "phdres", "group": "sex"}, ValueError, "partial methods .* sir, save and ire"),
        ({"method": "pire"}, ValueError, "R's name for ire with group=; give the group"),
        ({"na_action": "omit"}, ValueError, r"na.action values here are \['na.omit', 'na.fail'"),
        ({"numdir": 2, "d_max": 3}, TypeError, "both 'd_max' and 'numdir'"),
        ({"nslice": 3}, TypeError, r"^dr\(\) got an unknown option 'nslice'; did you mean 'nsl"),
        ({"chi2approx": "wood"}, TypeError, r"^dr\(\) got an unknown option 'chi2approx'"),
    ],
)
def test_errors_say_what_to_write(ais, options, error, message):
    with pytest.raises(error, match=message):
        sdr.dr(F, ais, **options)


def test_dr_is_an_ordinary_typed_and_documented_function():
    params = inspect.signature(sdr.dr).parameters
    assert list(params)[:3] == ["formula", "data", "method"] and params["method"].default == "sir"
    assert all(p.kind is p.KEYWORD_ONLY for p in list(params.values())[2:])
    hints = typing.get_type_hints(sdr.dr)
    assert set(hints) == {*params, "return"}
    assert set(params) <= documented_parameters(sdr.dr)
    assert not re.search(r"^\s*\{\w+\}\s*$", sdr.dr.__doc__, flags=re.M)  # entries filled
    assert "dr" in sdr.__all__ and sdr.dr.__module__ == "sdrstats.moment.dispatcher"


def test_directional_regression_is_not_dr(ais):
    fit = sdr.directional_regression(F, ais, nslices=8)
    assert fit.method == "directional_regression" and fit.call.startswith("directional_regression(")
    assert not hasattr(sdr, "DR")
