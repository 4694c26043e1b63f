"""Summaries say what chose d and use words that fit what each method estimates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr

FORMULA = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"


@pytest.fixture(scope="module")
def ais():
    return sdr.datasets.load("ais")


def test_phd_summary_names_the_column_that_chose_d(ais):
    text = str(sdr.phd(FORMULA, ais).summary())
    dimension = text.split("Dimension:")[1]
    assert 'read from the "Normal theory" column' in dimension
    assert '"General theory" column d = 2' in dimension
    # the independence test has only the 0D hypothesis: it says no more than d >= 1
    assert '"Indep. test" column would choose d >= 1' in dimension


def test_save_summary_names_the_column_that_chose_d(ais):
    dimension = str(sdr.save(FORMULA, ais).summary()).split("Dimension:")[1]
    assert 'read from the "p.value(Nor)" column' in dimension
    assert '"p.value(Gen)" column' in dimension


def test_one_column_of_p_values_needs_no_column_note(ais):
    fit = sdr.sir(FORMULA, ais)
    assert fit.d_choice.columns_note() is None
    assert "column" not in str(fit.summary()).split("Dimension:")[1].split("Random")[0]


def test_ire_corrected_test_names_its_p_values(ais):
    test = sdr.ire(FORMULA, ais).test_dimension(correction="F")
    assert test.describe().endswith("on its F-version p-values (Yuan & Bentler 1999)")


def test_pca_summary_prints_components_and_their_variances(ais):
    text = str(sdr.pca(FORMULA, ais).summary())
    assert "Principal Component Directions" in text
    assert "Component variances" in text and "R^2(OLS|components)" in text
    assert "Central Subspace" not in text and "Eigenvalues" not in text


def test_sdspca_summary_says_what_its_negative_values_are(ais):
    text = str(sdr.sdspca("sex ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais).summary())
    assert "Estimated Projection Directions" in text
    assert "Q-step criterion values" in text and "They are not variances" in text
    assert "Central Subspace" not in text and "Eigenvalues" not in text


def test_moment_methods_keep_r_s_headings(ais):
    text = str(sdr.sir(FORMULA, ais).summary())
    assert "Estimated Basis Vectors for Central Subspace" in text
    assert "Eigenvalues" in text and "R^2(OLS|dr)" in text


def _odd_names_frame(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    columns = ["od280/od315_of_diluted_wines", "alcohol pct", "x.dot", "2nd"]
    frame = pd.DataFrame(rng.standard_normal((n, len(columns))) + 3, columns=columns)
    frame["y"] = frame.iloc[:, 0] + frame["x.dot"] + 0.3 * rng.standard_normal(n)
    return frame


@pytest.mark.parametrize(
    "formula",
    [
        "y ~ .",
        'y ~ Q("od280/od315_of_diluted_wines") + Q("alcohol pct") + x.dot + Q("2nd")',
        "y ~ `od280/od315_of_diluted_wines` + `alcohol pct` + x.dot + `2nd`",
    ],
)
def test_predictor_names_print_as_r_names_the_columns(formula):
    # never Q("..."): names R writes bare stay bare, the others are backquoted as in R
    fit = sdr.sir(formula, _odd_names_frame())
    expected = ["`od280/od315_of_diluted_wines`", "`alcohol pct`", "x.dot", "`2nd`"]
    assert fit.x_names == expected
    text = str(fit.summary()).split("Method:")[1]  # the Call line repeats the formula
    assert "Q(" not in text and all(name in text for name in expected)


def test_transformed_terms_print_as_written():
    fit = sdr.sir("y ~ log(`alcohol pct`) + I(x.dot^2) + Q('2nd')", _odd_names_frame())
    assert fit.x_names == ["log(`alcohol pct`)", "I(x.dot^2)", "`2nd`"]


def test_array_fit_keeps_the_frame_s_column_names():
    frame = _odd_names_frame()
    fit = sdr.SIR().fit(frame.drop(columns="y"), frame["y"])
    assert fit.x_names == list(frame.columns[:-1])


def test_command_line_prints_the_column_names(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "odd.csv"
    _odd_names_frame().to_csv(path, index=False)
    out = subprocess.run(
        [sys.executable, "-m", "sdrstats", "fit", "sir", "y ~ .", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "`od280/od315_of_diluted_wines`" in out and "`alcohol pct`" in out
    assert "Q(" not in out
