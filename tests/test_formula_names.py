"""R's column names in formulas: dotted names, spaces and leading digits work unquoted; clashes
and misspellings get errors that say what to write."""

import method_registry
import numpy as np
import pandas as pd
import pytest
from method_registry import FITS, regression_frame

import sdrstats as sdr
from sdrstats.__main__ import main
from sdrstats.design.formula import parse
from sdrstats.design.names import display, quote_columns

RENAME = {"y": "Resp.y", "x1": "X.one", "x2": "Rev.per.mile", "x3": "3rd.dose", "x4": "width cm"}
DOTTED = "Resp.y ~ X.one + Rev.per.mile + 3rd.dose + width cm"
SHOWN = ["X.one", "Rev.per.mile", "`3rd.dose`", "`width cm`"]


@pytest.fixture(scope="module")
def frames():
    plain = regression_frame()
    return plain, plain.rename(columns=RENAME)


@pytest.mark.parametrize("name", sorted(FITS))
def test_every_formula_function_reads_r_names_unquoted(name, frames, monkeypatch):
    plain, dotted = frames
    ref = FITS[name](plain)
    monkeypatch.setattr(method_registry, "F", DOTTED)
    monkeypatch.setattr(method_registry, "G", DOTTED.replace("Resp.y", "g"))
    fit = FITS[name](dotted)
    names = fit.x_names if hasattr(fit, "x_names") else list(fit.directions.index)
    assert list(names) == SHOWN
    # the same columns in the same order: the same fit, and transform reads the new names
    np.testing.assert_allclose(fit.transform(dotted.head(7)), ref.transform(plain.head(7)))


def test_cli_reads_r_names_unquoted(frames, tmp_path, capsys):
    path = tmp_path / "dotted.csv"
    frames[1].to_csv(path, index=False)
    assert main(["fit", "sir", DOTTED, str(path), "--nslices", "5"]) == 0
    out = capsys.readouterr().out
    assert "Rev.per.mile" in out and "X.one" in out


def test_names_inside_functions_and_the_response(frames):
    _, dotted = frames
    spec = parse("log(Resp.y + 10) ~ log(X.one + 5) + I(Rev.per.mile**2) + width cm:X.one", dotted)
    assert spec.x_names == ["log(X.one + 5)", "I(Rev.per.mile^2)", "`width cm`:X.one"]
    np.testing.assert_array_equal(spec.X[:, 0], np.log(dotted["X.one"] + 5))
    np.testing.assert_array_equal(spec.Y[:, 0], np.log(dotted["Resp.y"] + 10))


def test_dot_minus_a_dotted_name(frames):
    spec = parse("Resp.y ~ . - Rev.per.mile - g", frames[1])
    assert spec.x_names == ["X.one", "`3rd.dose`", "`width cm`"]


def test_longest_column_wins_and_numbers_stay_numbers():
    cols = ["y", "x", "x.1", "1"]
    assert quote_columns("y ~ x.1 + x + 1", cols) == 'y ~ Q("x.1") + x + 1'
    # a name used as a function call stays the function
    assert quote_columns("y ~ np.log(x)", ["y", "x", "np.log"]) == "y ~ np.log(x)"
    # inside a string literal nothing changes
    assert quote_columns("y ~ C(g, Treatment('a b'))", ["y", "g", "a b"]) == (
        "y ~ C(g, Treatment('a b'))"
    )


def test_display_keeps_quotes_where_r_would_backquote():
    assert display('Q("MPG.city")') == "MPG.city"
    assert display('C(Q("Dept.Name"))[T.x]') == "C(Dept.Name)[T.x]"
    assert display('Q("y ")') == "`y `" and display('Q("2nd")') == "`2nd`"


def test_predictor_test_formula_takes_dotted_names(frames):
    fit = sdr.sir(DOTTED, frames[1], nslices=5)
    ref = sdr.sir("y ~ x1 + x2 + x3 + x4", frames[0], nslices=5)
    ours = fit.coordinate_test("~ . - Rev.per.mile")
    theirs = ref.coordinate_test("~ . - x2")
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)


@pytest.fixture
def clash():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.uniform(1, 2, size=(40, 3)), columns=["y", "x", "z"])
    return frame


@pytest.mark.parametrize("name", ["log", "I", "C", "bs", "center", "Q"])
def test_a_column_called_like_a_function_works_under_dot(name, clash):
    frame = clash.assign(**{name: clash.z * 2 + np.linspace(0, 1, 40)})
    spec = parse("y ~ .", frame)
    assert name in spec.x_names


@pytest.mark.parametrize(
    "name, formula",
    [
        ("log", "y ~ log(x) + z"),
        ("I", "y ~ I(x**2) + z"),
        ("C", "y ~ C(z) + x"),
        ("center", "y ~ center(x) + z"),
    ],
)
def test_a_called_column_is_named_with_the_fix(name, formula, clash):
    frame = clash.assign(**{name: clash.z})
    with pytest.raises(ValueError, match=rf"column named '{name}'.*would call that column"):
        parse(formula, frame)


def test_column_q_with_names_that_need_quoting_is_named(clash):
    frame = clash.assign(Q=clash.z, **{"x y": clash.x * 2})
    with pytest.raises(ValueError, match=r"column named 'Q'"):
        parse("y ~ .", frame.drop(columns=["z"]))


def test_misspelled_names_list_the_columns(frames):
    dotted = frames[1]
    with pytest.raises(
        ValueError,
        match=r"quotes 'Rev.per.mle' with Q\(\).*available columns.*Did you mean 'Rev.per.mile'",
    ):
        parse('Resp.y ~ Q("Rev.per.mle") + X.one', dotted)
    with pytest.raises(
        ValueError, match=r"names 'Rev.per.mle'.*available columns.*Did you mean 'Rev.per.mile'"
    ):
        parse("Resp.y ~ Rev.per.mle + X.one", dotted)


def test_expression_named_column_says_how_to_quote(clash):
    # a column called "log(w)" without a column w: the formula text is an expression, so
    # patsy looks for w; the error says to quote the column
    frame = clash.rename(columns={"z": "log(w)"})
    with pytest.raises(ValueError, match=r"column named 'log\(w\)'.*Q\(\"log\(w\)\"\)"):
        parse("y ~ log(w) + x", frame)
    spec = parse('y ~ Q("log(w)") + x', frame)
    assert spec.x_names == ["`log(w)`", "x"]


def test_r_s_backquotes_name_columns_and_names_show_as_r_shows_them():
    rng = np.random.default_rng(3)
    data = pd.DataFrame(rng.standard_normal((40, 3)), columns=["width cm", "2nd", "x"])
    data["y"] = data["x"] + rng.standard_normal(40)
    spec = parse("y ~ `width cm` + log(abs(`2nd`)) + x", data)
    assert spec.x_names == ["`width cm`", "log(abs(`2nd`))", "x"]
    np.testing.assert_array_equal(spec.X[:, 0], data["width cm"].to_numpy())
    same = parse('y ~ Q("width cm") + log(abs(Q("2nd"))) + x', data)
    assert same.x_names == spec.x_names
    np.testing.assert_array_equal(same.X, spec.X)
    assert parse("y ~ .", data).x_names == ["`width cm`", "`2nd`", "x"]


def test_a_predictor_test_finds_a_column_by_any_of_its_spellings():
    rng = np.random.default_rng(4)
    data = pd.DataFrame(rng.standard_normal((80, 3)), columns=["my var", "x.2", "wt"])
    data["y"] = data["wt"] + rng.standard_normal(80)
    fit = sdr.sir("y ~ .", data)
    tables = [
        str(fit.coordinate_test(h))
        for h in ("~ . - `my var`", ["`my var`"], ["my var"], '~ . - Q("my var")')
    ]
    assert all(t == tables[0] for t in tables) and "drop `my var`" in tables[0]
