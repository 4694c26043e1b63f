"""R's formula language means what it means in R: operators, functions and factor coding.

Reference: R's own semantics (R Core Team, "An Introduction to R", section 11.1, and
``?formula``): ``^`` is a power inside arithmetic and crossing to the given order between
terms; a bare ``x^2`` term is ``x``.
"""

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.design.formula import parse

N = 120


@pytest.fixture(scope="module")
def cars():
    rng = np.random.default_rng(38)
    df = pd.DataFrame(
        {
            "hp": rng.integers(50, 300, N),
            "wt": rng.uniform(1.5, 5.5, N),
            "qsec": rng.uniform(14, 23, N),
        }
    )
    df["mpg"] = 40 - 0.04 * df.hp - 3 * df.wt + 0.2 * df.qsec + rng.normal(size=N)
    return df


def test_caret_inside_i_is_a_power_on_integers_and_floats(cars):
    spec = parse("mpg ~ hp + I(hp^2) + I(wt^2)", cars)
    assert spec.x_names == ["hp", "I(hp^2)", "I(wt^2)"]
    np.testing.assert_array_equal(spec.X[:, 1], cars.hp.to_numpy() ** 2)
    np.testing.assert_array_equal(spec.X[:, 2], cars.wt.to_numpy() ** 2)


def test_caret_keeps_r_precedence_and_associativity(cars):
    # R: -2^2 is -4, 2^3^2 is 2^9 (right-associative), x^-1 is 1/x
    spec = parse("mpg ~ I(-2^2 * wt) + I(2^3^2 + wt) + I(wt^-1) + log(wt^2)", cars)
    wt = cars.wt.to_numpy()
    np.testing.assert_allclose(spec.X[:, 0], -4 * wt)
    np.testing.assert_allclose(spec.X[:, 1], 512 + wt)
    np.testing.assert_allclose(spec.X[:, 2], 1 / wt)
    np.testing.assert_allclose(spec.X[:, 3], np.log(wt**2))


def test_a_bare_power_term_is_the_term_itself(cars):
    # R's terms(): y ~ hp + wt + hp^2 has the terms hp and wt
    a, b = parse("mpg ~ hp + wt + hp^2", cars), parse("mpg ~ hp + wt", cars)
    assert a.x_names == b.x_names == ["hp", "wt"]
    np.testing.assert_array_equal(a.X, b.X)


def test_a_sum_of_terms_to_a_power_is_their_crossing(cars):
    spec = parse("mpg ~ (hp + wt + qsec)^2", cars)
    assert spec.x_names == ["hp", "wt", "qsec", "hp:wt", "hp:qsec", "wt:qsec"]
    dot = parse("mpg ~ .^2", cars)
    assert dot.x_names == spec.x_names


def test_caret_in_strings_and_quoted_names_is_left_alone(cars):
    data = cars.assign(**{"a^b": cars.wt * 2})
    spec = parse('mpg ~ Q("a^b") + I(hp^2)', data)
    np.testing.assert_array_equal(spec.X[:, 0], data["a^b"].to_numpy())
    assert spec.x_names == ["`a^b`", "I(hp^2)"]


def test_caret_in_the_response(cars):
    spec = parse("I(mpg^2) ~ hp + wt", cars)
    np.testing.assert_allclose(spec.Y[:, 0], cars.mpg.to_numpy() ** 2)
    assert spec.y_names == ["I(mpg^2)"]


def test_caret_fits_transform_new_rows_and_survive_pickling(cars):
    fit = sdr.sir("mpg ~ hp + I(hp^2) + wt", cars, nslices=5)
    again = pickle.loads(pickle.dumps(fit))
    np.testing.assert_allclose(again.transform(cars.head(4)), fit.transform(cars.head(4)))
    test = fit.coordinate_test("~ . - I(hp^2)", d=1)
    assert test.dropped == ["I(hp^2)"]


def test_caret_in_chunked_and_streamed_fits_equals_in_memory(cars):
    formula = "I(mpg^2) ~ hp + I(hp^2) + I(wt^2)"
    memory = sdr.sir(formula, cars, nslices=5)
    parts = [cars.iloc[i : i + 40] for i in range(0, N, 40)]
    chunked = sdr.sir(formula, sdr.chunks_from(parts), nslices=5)
    assert chunked.x_names == memory.x_names
    np.testing.assert_allclose(chunked.output.eigenvalues, memory.output.eigenvalues, atol=1e-10)
    stream = sdr.OnlineSIR(d=1, init_size=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for part in parts:
            stream.partial_fit(part, formula=formula)
    assert list(stream.directions.index) == memory.x_names


def test_a_missing_code_in_a_numeric_response_is_named_with_its_rows(cars):
    # a CSV with "?" for a missing response: read as text, it made one class per number
    data = cars.assign(mpg=cars.mpg.round(1).astype(str))
    data.index = [f"car{i}" for i in range(N)]
    data.loc[["car3", "car8"], "mpg"] = "?"
    with pytest.raises(
        ValueError,
        match=r"'mpg' holds numbers except for 2 value\(s\) \['\?'\] "
        r"at row\(s\) \['car3', 'car8'\]",
    ):
        sdr.sir("mpg ~ hp + wt", data)
    # digits that are class labels stay class labels
    labels = cars.assign(mpg=np.where(cars.mpg > cars.mpg.median(), "1", "0"))
    assert parse("mpg ~ hp + wt", labels).y_levels == ["0", "1"]


def test_a_factor_with_more_levels_than_half_its_rows_is_named(cars):
    from sdrstats.design.formula import MAX_LEVELS_PER_ROW

    assert MAX_LEVELS_PER_ROW == 0.5
    many = cars.assign(code=[f"c{i % 70}" for i in range(N)])  # 70 levels on 120 rows
    with pytest.raises(
        ValueError,
        match=r"'code' has 70 distinct values among 120 rows "
        r"\(more than 50% as many as rows\).*remove it from the formula",
    ):
        parse("mpg ~ hp + code", many)
    # a numeric id made a factor by C() too; 60 levels on 120 rows are allowed
    with pytest.raises(ValueError, match=r"'hp' has \d+ distinct values"):
        parse("mpg ~ wt + C(hp)", cars)
    half = cars.assign(code=[f"c{i % 60}" for i in range(N)])
    assert parse("mpg ~ hp + code", half).p == 60
    # a text column used only in a comparison is not a factor
    named = cars.assign(name=[f"car {i}" for i in range(N)])
    assert parse("mpg ~ hp + I(name == 'car 3')", named).p == 2


@pytest.fixture(scope="module")
def mixed():
    """mtcars-like columns: numbers, an integer code, a logical, an ordered factor."""
    rng = np.random.default_rng(61)
    df = pd.DataFrame(
        {
            "hp": rng.integers(50, 300, N).astype(float),
            "wt": rng.uniform(1.5, 5.5, N),
            "cyl": rng.choice([4, 6, 8], N),
            "am": rng.random(N) < 0.4,
            "size": pd.Categorical(
                rng.choice(["S", "M", "L"], N), categories=["S", "M", "L"], ordered=True
            ),
            "origin": pd.Categorical(rng.choice(["EU", "JP", "US"], N)),
        }
    )
    df["mpg"] = 40 - 0.04 * df.hp - 3 * df.wt + 2 * df.am + rng.normal(size=N)
    return df


def test_factor_and_as_factor_are_treatment_coded_with_r_names(mixed):
    spec = parse("mpg ~ factor(cyl) + as.factor(am) + wt", mixed)
    assert spec.x_names == ["factor(cyl)6", "factor(cyl)8", "as.factor(am)TRUE", "wt"]
    cyl = mixed.cyl.to_numpy()
    np.testing.assert_array_equal(spec.X[:, 0], cyl == 6)
    np.testing.assert_array_equal(spec.X[:, 1], cyl == 8)
    np.testing.assert_array_equal(spec.X[:, 2], mixed.am.to_numpy())
    # the same numbers as patsy's C()
    np.testing.assert_array_equal(parse("mpg ~ C(cyl) + wt", mixed).X[:, :2], spec.X[:, :2])
    # R's levels = c(...): the first is the reference
    spec = parse("mpg ~ factor(cyl, levels = c(8, 4, 6))", mixed)
    assert spec.x_names == [
        "factor(cyl, levels = c(8, 4, 6))4",
        "factor(cyl, levels = c(8, 4, 6))6",
    ]


# R: contr.poly(3), the polynomial contrasts of an ordered factor with three levels
R_POLY_3 = np.array([[-1, 0, 1], [1, -2, 1]]).T / np.sqrt([2.0, 6.0])


def test_ordered_factors_get_r_polynomial_contrasts(mixed):
    spec = parse("mpg ~ size + ordered(cyl) + factor(size)", mixed)
    assert spec.x_names == [
        "size.L", "size.Q", "ordered(cyl).L", "ordered(cyl).Q", "factor(size).L", "factor(size).Q"
    ]  # fmt: skip
    codes = mixed["size"].cat.codes.to_numpy()
    np.testing.assert_allclose(spec.X[:, :2], R_POLY_3[codes], atol=1e-15)
    cyl = pd.Categorical(mixed.cyl).codes
    np.testing.assert_allclose(spec.X[:, 2:4], R_POLY_3[cyl], atol=1e-15)
    # R codes an ordered factor in full (indicators) where a term needs it in full
    spec = parse("mpg ~ size + wt:size", mixed)
    # (R orders an interaction's variables as they first appear in the formula: size:wt)
    assert spec.x_names == ["size.L", "size.Q", "sizeS:wt", "sizeM:wt", "sizeL:wt"]
    np.testing.assert_array_equal(spec.X[:, 2], mixed.wt * (codes == 0))
    # and by its contrasts where the term's other variable is in the model (R's rule)
    assert parse("mpg ~ wt + wt:size", mixed).x_names == ["wt", "wt:size.L", "wt:size.Q"]
    # patsy's own C() keeps patsy's meaning: treatment coding
    assert parse("mpg ~ C(size)", mixed).x_names == ["C(size)M", "C(size)L"]


def test_as_numeric_is_rs(mixed):
    spec = parse("mpg ~ as.numeric(am) + as.numeric(origin) + as.numeric(cyl)", mixed)
    assert spec.x_names == ["as.numeric(am)", "as.numeric(origin)", "as.numeric(cyl)"]
    np.testing.assert_array_equal(spec.X[:, 0], mixed.am.astype(float))
    # a factor's level codes 1, 2, 3 (R's as.numeric of a factor), not its labels
    np.testing.assert_array_equal(spec.X[:, 1], mixed.origin.cat.codes + 1.0)
    np.testing.assert_array_equal(spec.X[:, 2], mixed.cyl.astype(float))
    # a text column is a factor: the codes of its sorted levels, fixed by the fit
    text = mixed.assign(label=np.where(mixed.am, "yes", "no"))
    spec = parse("mpg ~ as.numeric(label)", text)
    np.testing.assert_array_equal(spec.X[:, 0], np.where(mixed.am, 2.0, 1.0))
    np.testing.assert_array_equal(spec.transform_x(text[text.am].head(2)), [[2.0], [2.0]])


# R 4.x: poly(c(1, 3, 4, 7, 8, 10), 2), printed to 7 digits
R_POLY_X = np.array([1.0, 3, 4, 7, 8, 10])
R_POLY_VALUES = np.array(
    [
        [-0.5934424, 0.5642765],
        [-0.3296902, -0.1763364],
        [-0.1978141, -0.3879401],
        [0.1978141, -0.3879401],
        [0.3296902, -0.1763364],
        [0.5934424, 0.5642765],
    ]
)


def test_poly_is_rs_orthogonal_polynomials():
    data = pd.DataFrame({"x": R_POLY_X, "y": [2.0, 1.0, 4.0, 3.0, 6.0, 5.0]})
    spec = parse("y ~ poly(x, 2)", data)
    assert spec.x_names == ["poly(x, 2)1", "poly(x, 2)2"]
    np.testing.assert_allclose(spec.X, R_POLY_VALUES, atol=5e-8)
    # unit columns orthogonal to the constant and to each other
    np.testing.assert_allclose(spec.X.T @ spec.X, np.eye(2), atol=1e-14)
    np.testing.assert_allclose(spec.X.sum(axis=0), 0, atol=1e-14)
    # new rows through R's recurrence with the fit's coefficients (R's predict.poly)
    np.testing.assert_allclose(spec.transform_x(data.iloc[[4, 0]]), spec.X[[4, 0]], atol=1e-14)
    raw = parse("y ~ poly(x, degree = 3, raw = TRUE)", data)
    assert raw.x_names == [f"poly(x, degree = 3, raw = TRUE){k}" for k in (1, 2, 3)]
    np.testing.assert_array_equal(raw.X, R_POLY_X[:, None] ** [1, 2, 3])
    with pytest.raises(ValueError, match=r"'degree' \(6\) must be less than the number of"):
        parse("y ~ poly(x, 6)", data)


def test_scale_is_rs_and_new_rows_reuse_the_fits_centre_and_scale(mixed):
    spec = parse("mpg ~ scale(wt) + scale(hp, center = FALSE) + hp", mixed)
    assert spec.x_names == ["scale(wt)", "scale(hp, center = FALSE)", "hp"]
    wt, hp = mixed.wt.to_numpy(), mixed.hp.to_numpy()
    np.testing.assert_allclose(spec.X[:, 0], (wt - wt.mean()) / wt.std(ddof=1), rtol=1e-14)
    # R: without centring, the root mean square with denominator n - 1
    np.testing.assert_allclose(spec.X[:, 1], hp / np.sqrt(hp @ hp / (N - 1)), rtol=1e-14)
    np.testing.assert_allclose(spec.transform_x(mixed.tail(3)), spec.X[-3:], rtol=1e-14)


def test_log1p_exp_and_dropping_the_intercept_change_nothing_else(mixed):
    spec = parse("mpg ~ log1p(hp) + exp(wt / 10) + factor(cyl)", mixed)
    np.testing.assert_array_equal(spec.X[:, 0], np.log1p(mixed.hp))
    np.testing.assert_array_equal(spec.X[:, 1], np.exp(mixed.wt / 10))
    # SDR centres the predictors: -1 and + 0 are accepted and a factor keeps its coding
    for formula in ("mpg ~ log1p(hp) + exp(wt / 10) + factor(cyl) - 1",
                    "mpg ~ 0 + log1p(hp) + exp(wt / 10) + factor(cyl)"):  # fmt: skip
        other = parse(formula, mixed)
        assert other.x_names == spec.x_names
        np.testing.assert_array_equal(other.X, spec.X)


def test_unused_levels_are_dropped_as_r_does_with_a_note(mixed):
    data = mixed.assign(
        origin=pd.Categorical(mixed.origin.astype(str), categories=["EU", "JP", "US", "XX"])
    )
    fit = sdr.sir("mpg ~ wt + origin", data, nslices=5)
    assert fit.x_names == ["wt", "originJP", "originUS"]
    assert "Unused factor levels dropped" in str(fit.summary()) and "origin: XX" in str(
        fit.summary()
    )
    # levels whose rows a subset leaves out, the reference level included
    fit = sdr.sir("mpg ~ wt + origin + factor(cyl)", data, subset="cyl != 4", nslices=5)
    assert fit.x_names == ["wt", "originJP", "originUS", "factor(cyl)8"]
    assert fit.spec.notes == (
        "Unused factor levels dropped (no fitted rows), as R's model frame drops them: origin: XX.",
    )
    subset = sdr.sir("mpg ~ wt + origin", data, subset="origin != 'EU'", nslices=5)
    assert subset.x_names == ["wt", "originUS"]
    assert "origin: EU, XX" in subset.spec.notes[0]
    with pytest.raises(ValueError, match=r"level\(s\) \['EU'\] in column 'origin'"):
        subset.transform(data[data.origin == "EU"].head(2))
    assert sdr.sir("mpg ~ wt + origin", mixed, nslices=5).spec.notes == ()
    for method in (sdr.save, sdr.phd, sdr.ire, sdr.mave, sdr.lsce, sdr.kspca):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert method("mpg ~ wt + origin + hp", data, d=1).p == 4


def test_a_factor_left_with_one_level_is_named(mixed):
    with pytest.raises(ValueError, match=r"factor column 'origin' has a single level \(JP\)"):
        parse("mpg ~ wt + origin", mixed, subset="origin == 'JP'")


@pytest.mark.parametrize(
    "formula, term, advice",
    [
        ("mpg ~ wt + hp %in% origin", "hp %in% origin", r"write the interaction hp:origin"),
        ("mpg ~ wt + offset(log(hp))", "offset(log(hp))", r"subtract it from the response"),
        ("mpg ~ ns(wt, df = 3) + hp", "ns(wt, df = 3)", r"bs\(x, df=k\)"),
        ("mpg ~ bs(wt, df = 4, intercept = TRUE)", "bs(wt, df = 4, intercept = TRUE)",
         "include_intercept"),
        ("mpg ~ log(hp, 2) + wt", "log(hp, 2)", r"log2\(x\)"),
        ("mpg ~ is.na(hp) + wt", "is.na(hp)", r"transform the column in pandas first"),
    ],
)  # fmt: skip
def test_what_r_accepts_and_is_not_supported_names_the_term(mixed, formula, term, advice):
    with pytest.raises(ValueError, match=re.escape(f"The formula term {term!r} is R's")) as info:
        parse(formula, mixed)
    assert re.search(advice, str(info.value))


R_STYLE = "mpg ~ factor(cyl) + size + poly(hp, 2) + scale(wt) + as.numeric(am) + I(wt^2)"


def test_r_functions_survive_pickling_and_saving(mixed, tmp_path):
    fit = sdr.sir(R_STYLE, mixed, nslices=5)
    new = mixed.sample(7, random_state=1)
    for again in (pickle.loads(pickle.dumps(fit)), sdr.load(fit.save(tmp_path / "fit"))):
        assert again.x_names == fit.x_names
        np.testing.assert_allclose(again.transform(new), fit.transform(new), rtol=1e-13)


def test_r_functions_in_chunked_dask_and_streamed_fits(mixed):
    parts = [mixed.iloc[i : i + 40] for i in range(0, N, 40)]
    # transforms without state give the in-memory numbers
    formula = "mpg ~ factor(cyl) + size + as.numeric(am) + I(wt^2) + poly(hp, 2, raw = TRUE)"
    memory = sdr.sir(formula, mixed, nslices=5)
    chunked = sdr.sir(formula, sdr.chunks_from(parts), nslices=5)
    assert chunked.x_names == memory.x_names
    np.testing.assert_allclose(chunked.output.eigenvalues, memory.output.eigenvalues, atol=1e-10)
    # poly() and scale() learn from the first chunk, as the other stateful transforms
    chunked = sdr.sir(R_STYLE, sdr.chunks_from(parts), nslices=5)
    assert chunked.x_names == sdr.sir(R_STYLE, mixed, nslices=5).x_names
    stream = sdr.OnlineSIR(d=1, init_size=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for part in parts:
            stream.partial_fit(part, formula=formula)
    assert list(stream.directions.index) == memory.x_names


def test_a_pickled_chunk_plan_keeps_what_poly_and_scale_learned(mixed):
    # a Dask worker rebuilds the plan from the rows it carries: all the first chunk's rows
    # when a transform learns from them (a few rows would give other coefficients)
    from sdrstats.design.plan import FormulaPlan

    plan = FormulaPlan("mpg ~ poly(hp, 2) + wt", mixed.iloc[:60])
    worker = pickle.loads(pickle.dumps(plan))
    X, _, _ = plan.arrays(mixed.iloc[60:])
    np.testing.assert_array_equal(worker.arrays(mixed.iloc[60:])[0], X)


def test_and_or_bind_below_comparisons_as_in_r(cars):
    # R: x > 3 & z < 200 is (x > 3) & (z < 200); Python's & would bind first
    spec = parse("mpg ~ hp + I(wt > 3 & hp < 200) + I(wt < 2 | qsec > 20)", cars)
    np.testing.assert_array_equal(spec.X[:, 1], (cars.wt > 3) & (cars.hp < 200))
    np.testing.assert_array_equal(spec.X[:, 2], (cars.wt < 2) | (cars.qsec > 20))


def test_terms_are_spelt_as_r_deparses_them(cars):
    spec = parse("mpg ~ I(1/wt) + I(hp %% 7) + I(2.50 * qsec) + I(hp * 1e-3)", cars)
    assert spec.x_names == ["I(1/wt)", "I(hp%%7)", "I(2.5 * qsec)", "I(hp * 0.001)"]
    np.testing.assert_array_equal(spec.X[:, 1], cars.hp % 7)


def test_a_factor_response_is_a_class_label(mixed):
    coded = mixed.assign(good=(mixed.mpg > mixed.mpg.median()).astype(int))
    for formula in ("factor(good) ~ hp + wt", "as.factor(good) ~ hp + wt", "C(good) ~ hp + wt"):
        spec = parse(formula, coded)
        assert spec.categorical and spec.y_levels == [0, 1] and spec.y_names == ["good"]


def test_remainder_and_integer_division_bind_as_in_r(cars):
    """R's %% and %/% bind tighter than * and /: 2 * hp %% 7 is 2 * (hp %% 7), and
    100 / hp %/% 7 is 100 / (hp %/% 7) (Python's % and // would group from the left)."""
    spec = parse("mpg ~ wt + I(2 * hp %% 7) + I(100 / hp %/% 7) + I(-hp %% 7)", cars)
    hp = cars.hp.to_numpy()
    assert spec.x_names == ["wt", "I(2 * hp%%7)", "I(100/hp%/%7)", "I(-hp%%7)"]
    np.testing.assert_array_equal(spec.X[:, 1], 2 * (hp % 7))
    np.testing.assert_allclose(spec.X[:, 2], 100 / (hp // 7))
    np.testing.assert_array_equal(spec.X[:, 3], (-hp) % 7)


def test_negation_is_r_s_not_below_comparisons(cars):
    spec = parse("mpg ~ hp + I(!(wt > 3)) + I(!wt > 3 & hp < 200)", cars)
    assert spec.x_names == ["hp", "I(!(wt > 3))TRUE", "I(!wt > 3 & hp < 200)TRUE"]
    wt, hp = cars.wt.to_numpy(), cars.hp.to_numpy()
    np.testing.assert_array_equal(spec.X[:, 1], ~(wt > 3))
    np.testing.assert_array_equal(spec.X[:, 2], ~(wt > 3) & (hp < 200))


def test_a_fit_with_r_s_operators_is_saved_and_read_back(cars, tmp_path):
    fit = sdr.sir("mpg ~ wt + I(2 * hp %% 7) + I(!(wt > 3) | hp < 100)", cars, d=1)
    path = tmp_path / "fit.npz"
    fit.save(path)
    back = sdr.load(path)
    np.testing.assert_allclose(back.transform(cars), fit.transform(cars))
    assert back.directions.index.tolist() == fit.directions.index.tolist()


def test_values_outside_given_factor_levels_are_missing_as_in_r(cars):
    """R's factor(g, levels = c("a", "b")) makes "c" NA, and the model frame drops the row."""
    data = cars.assign(g=np.array(["a", "b", "c"])[np.arange(N) % 3])
    with pytest.warns(sdr.MissingValueWarning, match=r"values outside the levels given to"):
        spec = parse("mpg ~ wt + factor(g, levels = c('a', 'b'))", data)
    assert spec.n == 2 * N // 3
    assert spec.x_names == ["wt", 'factor(g, levels = c("a", "b"))b']
    with pytest.raises(ValueError, match=r"1 of \d+ row|outside the levels|row\(s\) have"):
        parse("mpg ~ wt + factor(g, levels = c('a', 'b'))", data, missing="raise")


def test_a_class_response_with_a_class_per_row_is_named(cars):
    data = cars.assign(name=[f"car {i}" for i in range(N)])
    with pytest.raises(ValueError, match=r"The response 'name' is a class label with 120 classes"):
        sdr.sir("name ~ hp + wt", data)
