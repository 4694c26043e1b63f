"""R-style formulas give R's own model matrix: the same predictor names, columns and rows.

Reference: tests/reference/r_model_matrix.json, written by
tests/reference/make_r_model_matrix.R (R 4.2 and its splines package:
``model.frame(..., na.action = na.omit, drop.unused.levels = TRUE)`` then ``model.matrix``,
intercept column removed) on the data it writes beside it: an mtcars-like frame (numbers, integer codes, a logical, text factors, an
ordered factor, a factor with an unused level, missing values) and an iris-like one with R's
dotted names.

Names are compared as they are: the package shows R's ``model.matrix`` names (``sexm``,
``factor(cyl)6``, ``size.L``, ``poly(hp, 2)1``, ``I(hp^2)``), so no mapping is needed. Two
differences are deliberate: ``- 1`` / ``+ 0`` (SDR centres the predictors, so a factor keeps
its reduced coding), which the reference itself accounts for (R's matrix of the formula with
its intercept); and a column removed with ``- x`` after ``.``, whose missing values R's model
frame still uses to drop rows (:data:`KEEPS_MORE_ROWS`).
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sdrstats.design.formula import parse

HERE = Path(__file__).parent / "reference"
REF = json.loads((HERE / "r_model_matrix.json").read_text())
CASES = REF["cases"]
# Both sides compute the same double-precision numbers; poly() differs in method (R's QR of
# the centred powers for the fitted rows, the three-term recurrence here), which agrees to
# about 1e-15 at these degrees. 1e-10 is the bar asked of the comparison.
TOL = 1e-10
#: Formulas whose removed columns R still reads for missing values (see the test).
KEEPS_MORE_ROWS = {"mpg ~ . - disp - qsec": ["disp", "qsec"]}


@pytest.fixture(scope="module")
def frames():
    cars = pd.read_csv(HERE / "r_model_matrix_cars.csv")
    # the types a CSV cannot carry, declared as the R script declares them
    cars["size"] = pd.Categorical(cars["size"], categories=REF["size_levels"], ordered=True)
    cars["grade"] = pd.Categorical(cars["grade"], categories=REF["grade_levels"])
    flowers = pd.read_csv(HERE / "r_model_matrix_flowers.csv")
    return {"cars": cars, "flowers": flowers}


def test_the_corpus_is_large_and_covers_r_s_formula_language():
    assert len(CASES) >= 40
    text = " ".join(case["formula"] for case in CASES)
    for piece in ("^2", "I(", "factor(", "as.factor(", "ordered(", "as.numeric(", "poly(",
                  "raw = TRUE", "bs(", "scale(", "log1p(", "exp(", "- 1", "0 +", "~ .", "%%", "*"):  # fmt: skip
        assert piece in text, piece


@pytest.mark.parametrize("case", CASES, ids=[c["formula"] for c in CASES])
def test_model_matrix_is_r_s(case, frames):
    data = frames[case["data"]]
    before = data.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows with missing values are dropped, as na.omit
        spec = parse(case["formula"], data)
    assert spec.x_names == case["names"]
    rows = spec.index.to_numpy()
    if case["formula"] in KEEPS_MORE_ROWS:
        # R's model frame keeps a column removed by "- x" among its variables, so a missing
        # value there drops the row; here a removed column plays no part in the fit
        removed = KEEPS_MORE_ROWS[case["formula"]]
        extra = np.setdiff1d(rows, case["rows"])
        assert extra.size and data.loc[extra, removed].isna().any(axis=1).all()
        kept = np.isin(rows, case["rows"])
        rows, X, Y = rows[kept], spec.X[kept], spec.Y[kept]
    else:
        X, Y = spec.X, spec.Y
    np.testing.assert_array_equal(rows, case["rows"])
    expected = np.column_stack(case["columns"])
    np.testing.assert_allclose(X, expected, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(Y[:, 0], case["response"], rtol=TOL, atol=TOL)
    pd.testing.assert_frame_equal(data, before)  # the caller's frame is never changed


def test_dropped_levels_are_noted(frames):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = parse("mpg ~ hp + wt + grade", frames["cars"])
    assert spec.notes == (
        "Unused factor levels dropped (no fitted rows), as R's model frame drops them: grade: D.",
    )
