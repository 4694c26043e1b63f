"""R's formula language means what it means in R: operators, functions and factor coding.

Reference: R's own semantics (R Core Team, "An Introduction to R", section 11.1, and
``?formula``): ``^`` is a power inside arithmetic and crossing to the given order between
terms; a bare ``x^2`` term is ``x``.
"""

import pickle
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
    assert spec.x_names == ['Q("a^b")', "I(hp^2)"]


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
