"""The bulk design builder gives exactly patsy's matrix, column names and rows.

Each formula of the corpus is fitted through ``parse`` (the bulk builder where it applies) and
compared with :func:`patsy.dmatrix` on the same columns: the matrix bit for bit, the names,
the rows kept, and ``transform(newdata)`` against :func:`patsy.build_design_matrices`. The
builder repeats patsy's floating-point operations (each column the product of its factors in
patsy's order), so the comparison is exact equality, not a tolerance.
"""

import warnings

import numpy as np
import pandas as pd
import patsy
import pytest

from sdrstats.design import builder
from sdrstats.design.checks import _check_object_columns
from sdrstats.design.formula import parse
from sdrstats.design.names import r_column_names
from sdrstats.design.spec import _R_NAMES

N = 240


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(28)
    df = pd.DataFrame(
        {
            "y1": rng.standard_normal(N) + 5,
            "y2": rng.standard_normal(N),
            "x1": rng.uniform(0.5, 4.0, N),
            "x2": rng.uniform(1.0, 2.0, N),
            "x3": rng.standard_normal(N),
            "x4": rng.standard_normal(N) * 10,
            "k": rng.integers(1, 5, N),
            "g": rng.choice(["a", "b", "c"], N).astype(object),
            "h": pd.Categorical(rng.choice(["z", "a", "m"], N), categories=["z", "a", "m"]),
            "b": rng.random(N) < 0.4,
            "o": pd.Categorical(rng.choice(["lo", "mid", "hi"], N), ["lo", "mid", "hi"], True),
            "nx": pd.array(rng.standard_normal(N), dtype="Float64"),
            "ni": pd.array(rng.integers(0, 9, N), dtype="Int64"),
            "name with space": rng.standard_normal(N),
            "MPG.city": rng.uniform(10, 40, N),
            "2nd": rng.standard_normal(N),
        }
    )
    df.loc[[3, 50, 77], "x1"] = np.nan
    df.loc[[5, 51], "g"] = None
    df.loc[[8, 120], "nx"] = pd.NA
    df.loc[[9], "ni"] = pd.NA
    df.loc[[11], "y2"] = np.nan
    return df


# (right-hand side, whether the bulk builder takes it)
CORPUS = [
    ("x1", True),
    ("x1 + x2 + x3", True),
    (".", True),
    (". - x3 - g", True),
    ("log(x1) + sqrt(x2)", True),
    ("exp(x3) + abs(x4)", True),
    ("np.log(x1) + np.log1p(x2) + np.tanh(x3)", True),
    ("I(x1**2) + x1", True),
    ("I(x1 * x2 - 3)", True),
    ("I(-x1) + I(2 / x2)", True),
    ("x1:x2", True),
    ("x1*x2", True),
    ("x1*x2*x3", True),
    ("x1:x2:x3", True),
    ("g", True),
    ("x1 + g", True),
    ("x1*g", True),
    ("x1:g", True),
    ("g:h", True),
    ("g*h", True),
    ("C(g, Treatment('c'))", True),
    ("C(g, Treatment(reference='b')) + x1", True),
    ("C(g, Sum) + x2", True),
    ("C(g, Helmert):x1", True),
    ("C(k)", True),
    ("C(k):x1 + x2", True),
    ("h", True),
    ("b + x1", True),
    ("x1 - 1", True),
    ("x1 + g - 1", True),
    ("0 + g + x2", True),
    ("0 + g:h", True),
    ('Q("name with space") + x1', True),
    ("name with space + x1", True),
    ("MPG.city + log(x2)", True),
    ("2nd + x1", True),
    ("nx + x1", True),
    ("ni + g", True),
    ("k + x1", True),
    ("log(k) + I(k**2)", True),
    ("np.sqrt(x1):g", True),
    ("(x1 + x2 + g)**2", True),
    ("x1 + x2 + x1:x2 + g:x1", True),
    ("np.exp(-x1) + np.power(x2, 2)", True),
    ("log(x1 - 1) + x2", True),
    ("C(g, levels=['c', 'b', 'a']) + x1", True),
    ("g + h + x1:h", True),
    # R's formula language: ^, factor(), as.factor(), ordered() read in bulk too
    ("I(x1^2) + x2 + (x3 + x4)^2", True),
    ("factor(k) + x1", True),
    ("as.factor(g):x1 + x2", True),
    ("ordered(k) + x2", True),
    ("factor(g, levels = c('c', 'a', 'b')) + x1", True),
    ("x1 + x1:factor(b)", True),
    ("o + x1:o + x2", True),
    ("poly(x2, 2) + x1", False),
    ("poly(x2, 3, raw = TRUE)", False),
    ("as.numeric(b) + as.numeric(g) + x3", False),
    ("center(x2) + x1", False),
    ("standardize(x2) + g", False),
    ("bs(x2, df=4) + x3", False),
    ("I(x1 > 2) + x2", False),
    ("x1 + scale(x3)", False),
]


def prepared(df):
    frame = df.copy(deep=False).reset_index(drop=True)
    _check_object_columns(frame, list(frame.columns), labels=("y1", "y2"))
    return frame


def reference(rhs, frame):
    env = patsy.EvalEnvironment([{}]).with_outer_namespace(_R_NAMES)
    na = patsy.NAAction(NA_types=["None", "NaN"])
    return patsy.dmatrix(rhs, frame, eval_env=env, NA_action=na, return_type="dataframe"), env


def fit(formula, df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return parse(formula, df)


def test_corpus_is_large_and_mostly_bulk():
    assert len(CORPUS) >= 40
    assert sum(bulk for _, bulk in CORPUS) >= 40


@pytest.mark.parametrize("rhs, bulk", CORPUS, ids=[c[0] for c in CORPUS])
def test_bulk_design_is_patsys(rhs, bulk, data):
    spec = fit(f"y1 ~ {rhs}", data)
    frame = prepared(data)
    ref, env = reference(spec.rhs, frame)
    info = builder.design_info(spec.rhs, frame, env)
    taken = info is not None and builder.plan(info, frame, env) is not None
    assert taken == bulk
    if bulk:  # the few-rows design information is patsy's own
        assert info.column_names == ref.design_info.column_names
    order = builder.r_order(ref.design_info, spec.rhs)
    assert list(spec.design_columns) == list(order)
    assert spec.x_names == [r_column_names(ref.design_info)[j] for j in order]
    rows = ref.index.to_numpy()
    rows = rows[~np.isnan(frame["y1"].to_numpy()[rows])]
    np.testing.assert_array_equal(spec.index.to_numpy(), rows)
    np.testing.assert_array_equal(spec.X, ref.to_numpy()[:, order][np.isin(ref.index, rows)])
    # new rows through the fit's design: the same numbers as patsy's
    complete = np.intersect1d(np.flatnonzero(frame.notna().all(axis=1).to_numpy()), rows)[:9]
    (new,) = patsy.build_design_matrices([ref.design_info], frame.loc[complete])
    np.testing.assert_array_equal(spec.transform_x(data.loc[complete]), np.asarray(new)[:, order])


def test_multi_response_rows_and_values(data):
    spec = fit("y1 + y2 ~ x1 + g", data)
    frame = prepared(data)
    ref, _ = reference("x1 + g", frame)
    rows = ref.index.to_numpy()
    rows = rows[frame[["y1", "y2"]].notna().all(axis=1).to_numpy()[rows]]
    np.testing.assert_array_equal(spec.index.to_numpy(), rows)
    np.testing.assert_array_equal(spec.Y, frame.loc[rows, ["y1", "y2"]].to_numpy())
    assert spec.x_names == ["x1", "gb", "gc"]


def test_transformed_response(data):
    spec = fit("log(y1) ~ x1", data)
    rows = spec.index.to_numpy()
    np.testing.assert_array_equal(spec.Y[:, 0], np.log(data["y1"].to_numpy()[rows]))


def test_undefined_transform_rows_are_named(data):
    # log of a negative number is NaN: R's model.frame drops such rows, and so does patsy
    with pytest.warns(Warning, match=r"undefined values \(NaN\) of \['log\(x3\)'\]"):
        spec = parse("y1 ~ log(x3) + x2", data)
    assert spec.n == int((data["x3"] > 0).sum())


def test_bulk_matrix_is_column_major_and_owned(data):
    frame = data[["y1", "x1", "x2", "x3"]].dropna()
    spec = parse("y1 ~ .", frame)
    assert spec.X.flags.f_contiguous and spec.X.flags.owndata
    before = spec.X.copy()
    frame.iloc[0, 1] = -1.0  # the caller's later writes do not reach the fit
    np.testing.assert_array_equal(spec.X, before)


def test_unseen_level_in_newdata_names_the_column(data):
    spec = fit("y1 ~ x1 + g", data)
    new = data.dropna(subset=["x1", "g"]).head(3).copy()
    new["g"] = ["a", "zz", "b"]
    with pytest.raises(
        ValueError, match=r"level\(s\) \['zz'\] in column 'g'.*not seen when fitting"
    ):
        spec.transform_x(new)


def test_stateful_transform_of_a_column_with_missing_values_says_what_to_do(data):
    # patsy's center() learns a NaN mean from a column with NaN, so every row is undefined
    with pytest.raises(ValueError, match=r"center, standardize.*\['x1'\].*dropna"):
        fit("y1 ~ center(x1) + x2", data)
