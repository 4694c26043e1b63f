"""Design matrices in bulk: patsy's formula language and design information, numpy's speed.

patsy stays the formula language: its parser splits the right-hand side into terms and
factors, and its :class:`patsy.DesignInfo` (factor types, levels, contrasts, column names) is
what ``transform(newdata)``, chunked and Dask fits reuse. What this module replaces is the
materialisation: patsy evaluates every factor on a pandas frame, checks each for missing
values and fills the matrix one subterm at a time through pandas. Here

* each factor that is a numeric column, or an element-wise function of numeric columns
  (``log``, ``sqrt``, ``exp``, ``abs``, ``np.<ufunc>``, ``I(x ** 2)``, arithmetic with
  numbers), is evaluated once on the column arrays;
* a factor that is a column of labels (strings, booleans, a pandas categorical), ``C(col,
  ...)`` or R's ``factor(col)`` (:mod:`sdrstats.design.rfunctions`) is read as integer codes against the levels patsy chose (pandas categorical codes
  when the categories are those levels), and coded with patsy's own contrast matrices;
* each design column is the product of its factors' columns in patsy's order (the same
  floating-point operations as :func:`patsy.build_design_matrices`), written straight into a
  column-major matrix that holds only the requested columns;
* missing values are found in one pass over the finished columns (a column whose sum of
  squares is finite has none) plus the label columns' missing flags.

The design information of a new fit is patsy's, computed on a few rows that carry every level
of every label column (levels are all patsy reads from the data for these factor kinds), so
it is the object :func:`patsy.dmatrix` would return. Anything else (stateful transforms such
as ``center``, ``standardize`` and the splines, the caller's own functions or variables,
comparisons, factors of several columns) makes :func:`plan` return None, and the caller uses
patsy for the whole formula. The test corpus checks that both routes give identical matrices,
names and rows.
"""

from __future__ import annotations

import ast
import functools
import itertools
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import patsy
import patsy.builtins
from patsy.categorical import C as _patsy_C

from .rfunctions import FACTOR_FUNCTIONS, R_FORMULA_FUNCTIONS
from .safe_formula import ALLOWED_NUMPY

#: numpy functions that return booleans: their factor is categorical for patsy (not bulk).
_BOOLEAN_NUMPY = frozenset({"isnan", "isfinite", "logical_and", "logical_or", "logical_not"})
#: The element-wise numpy functions a bulk factor may call.
_ELEMENTWISE = {getattr(np, name) for name in ALLOWED_NUMPY - _BOOLEAN_NUMPY}
#: ``//`` and ``%`` are left out: pandas and numpy differ on integer division by zero.
#: patsy's own functions (I, Q, C, contrasts...), outermost in every formula's namespace.
PATSY_BUILTINS = {name: getattr(patsy.builtins, name) for name in patsy.builtins.__all__}
_OPERATORS = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.true_divide,
    ast.Pow: np.power,
}


class NotBulk(Exception):
    """The factor needs patsy's own evaluation."""


class UnseenLevelError(ValueError):
    """Rows hold a label the design's levels lack (``column``, ``levels`` say which)."""

    def __init__(self, message: str, column: str, levels: list[str]) -> None:
        super().__init__(message)
        self.column, self.levels = column, levels


def _lookup(env: Any, name: str) -> Any:
    try:
        return env.namespace[name]
    except KeyError:
        raise NotBulk(name) from None


def _column_of(node: ast.AST, columns: Any, env: Any) -> str | None:
    """The column a bare name or ``Q("...")`` refers to (patsy: data first), else None."""
    if isinstance(node, ast.Name) and node.id in columns:
        return node.id
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id not in columns
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and _lookup(env, node.func.id) is patsy.builtins.Q
    ):
        name = node.args[0].value
        if name not in columns:
            raise NotBulk(name)  # patsy names the missing column
        return name
    return None


class _Numeric:
    """Evaluates one numeric factor's expression on column arrays, as patsy would."""

    def __init__(self, tree: ast.AST, columns: Any, env: Any) -> None:
        self.tree, self.columns, self.env = tree, columns, env

    def value(self, frame: pd.DataFrame) -> np.ndarray:
        self.frame = frame
        try:
            with np.errstate(all="ignore"):
                out = self.eval(self.tree)
        except (ValueError, TypeError, ArithmeticError):
            raise NotBulk("numpy refused") from None  # patsy raises its own error
        finally:
            del self.frame
        if not isinstance(out, np.ndarray) or out.shape != (frame.shape[0],):
            raise NotBulk("not one column")
        if out.dtype.kind not in "fiu":
            raise NotBulk("not numbers")
        return out

    def array(self, name: str) -> np.ndarray:
        series = self.frame[name]
        if not (
            pd.api.types.is_numeric_dtype(series.dtype)
            and not pd.api.types.is_bool_dtype(series.dtype)
            and isinstance(series.dtype, np.dtype)
        ):
            raise NotBulk(name)
        return series.to_numpy()

    def eval(self, node: ast.AST) -> Any:
        column = _column_of(node, self.columns, self.env)
        if column is not None:
            return self.array(column)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise NotBulk("constant")
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.eval(node.operand)
            return -operand if isinstance(node.op, ast.USub) else +operand
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = self.eval(node.left), self.eval(node.right)
            if not isinstance(left, np.ndarray) and not isinstance(right, np.ndarray):
                raise NotBulk("number arithmetic")
            return _OPERATORS[type(node.op)](left, right)
        if isinstance(node, ast.Call) and not node.keywords:
            func = self.function(node.func)
            args = [self.eval(arg) for arg in node.args]
            if func is patsy.builtins.I:
                if len(args) != 1:
                    raise NotBulk("I")
                return args[0]
            if not any(isinstance(a, np.ndarray) for a in args):
                raise NotBulk("no column")
            return func(*args)
        raise NotBulk(type(node).__name__)

    def function(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Name):
            if node.id in self.columns:
                raise NotBulk(node.id)  # a column called as a function: patsy's error
            func = _lookup(self.env, node.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id not in self.columns
            and _lookup(self.env, node.value.id) is np
        ):
            func = getattr(np, node.attr, None)
        else:
            raise NotBulk("function")
        if func is patsy.builtins.I or (func is not None and func in _ELEMENTWISE):
            return func
        raise NotBulk("function")


@dataclass
class _Categorical:
    """A factor that is a column of labels (or ``C(column, ...)``); ``given_levels`` when
    its call names its levels (``factor(g, levels = c("a", "b"))``): then, as R's
    ``factor``, a fitted row with another value is missing (R's NA), not an error."""

    column: str
    given_levels: bool = False


def _factor_plan(factor: Any, columns: Any, env: Any, dtypes: pd.Series) -> Any:
    """How one patsy factor is evaluated in bulk; raises NotBulk if it cannot be."""
    code = getattr(factor, "code", None)
    if code is None:
        raise NotBulk("not an expression")
    try:
        tree = ast.parse(code.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        raise NotBulk("syntax") from None
    column = _column_of(tree, columns, env)
    if column is not None:
        dtype = dtypes[column]
        if (
            isinstance(dtype, pd.CategoricalDtype)
            or pd.api.types.is_object_dtype(dtype)
            or pd.api.types.is_bool_dtype(dtype)
            or pd.api.types.is_string_dtype(dtype)
        ):
            return _Categorical(column)
        if dtype.kind not in "fiu":
            raise NotBulk(column)
        return _Numeric(tree, columns, env)
    if (
        isinstance(tree, ast.Call)
        and isinstance(tree.func, ast.Name)
        and tree.func.id not in columns
        and tree.args
        and any(_lookup(env, tree.func.id) is f for f in _FACTOR_CALLS)
    ):
        inner = _column_of(tree.args[0], columns, env)
        if inner is None or not _constant_arguments(tree, columns):
            raise NotBulk("C of an expression")
        given = len(tree.args) > 1 or any(k.arg == "levels" for k in tree.keywords)
        return _Categorical(inner, given_levels=given and tree.func.id != "C")
    return _Numeric(tree, columns, env)


#: The functions that code their first argument as a factor (patsy's C, R's factor()...).
_FACTOR_CALLS = (_patsy_C, *(R_FORMULA_FUNCTIONS[n] for n in FACTOR_FUNCTIONS if n != "C"))


def _constant_arguments(call: ast.Call, columns: Any) -> bool:
    """C()'s other arguments read no column (contrasts, levels): patsy evaluates them."""
    rest = [*call.args[1:], *(k.value for k in call.keywords)]
    return not any(isinstance(n, ast.Name) and n.id in columns for r in rest for n in ast.walk(r))


def _factor_env(info: Any, fallback: Any) -> Any:
    state = getattr(info, "state", None) or {}
    if state.get("transforms"):
        raise NotBulk("stateful transform")
    return state.get("eval_env", fallback)


class DesignPlan:
    """Bulk evaluation of a patsy design (see the module docstring).

    Parameters
    ----------
    design_info : patsy.DesignInfo
        The design (from a fit, or :func:`design_info`).
    plans : dict
        How each factor is evaluated (built by :func:`plan`).
    """

    def __init__(self, design_info: Any, plans: dict[Any, Any]) -> None:
        self.design_info = design_info
        self.plans = plans
        self.columns: list[tuple[Any, tuple[int, ...]]] = []
        for term in design_info.terms:
            for subterm in design_info.term_codings[term]:
                counts = [
                    len(subterm.contrast_matrices[f].column_suffixes)
                    if design_info.factor_infos[f].type == "categorical"
                    else design_info.factor_infos[f].num_columns
                    for f in subterm.factors
                ]
                # patsy's order within a subterm: the left-most factor varies fastest
                for combo in itertools.product(*[range(k) for k in reversed(counts)]):
                    self.columns.append((subterm, combo[::-1]))

    def build(
        self, frame: pd.DataFrame, selected: np.ndarray, *, unseen: str = "data"
    ) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """The design columns ``selected`` (indices into patsy's columns) of every row.

        Returns the column-major matrix, the rows patsy would drop for a missing value, and
        the factors that are undefined (NaN) in some row. A label outside the design's levels
        raises ``ValueError`` naming the column (``unseen`` says what the rows are).
        """
        n_rows = frame.shape[0]
        values: dict[Any, np.ndarray] = {}
        missing = np.zeros(n_rows, dtype=bool)
        uses: dict[Any, int] = {}
        for j in selected:
            for factor in self.columns[j][0].factors:
                uses[factor] = uses.get(factor, 0) + 1
        undefined: list[str] = []
        for factor in self.plans:
            if factor not in uses:
                # a factor no kept column reads (a one-level factor codes to no column) still
                # drops its missing rows and refuses unseen levels, as patsy does
                _, na = self._evaluate(factor, frame, unseen)
                if na is not None:
                    missing |= na
        out = np.empty((n_rows, len(selected)), order="F")
        for k, j in enumerate(selected):
            subterm, combo = self.columns[j]
            target = out[:, k]
            first = True
            for factor, index in zip(subterm.factors, combo):
                if factor not in values:
                    values[factor], na = self._evaluate(factor, frame, unseen)
                    if na is not None:
                        missing |= na
                        plan_ = self.plans[factor]
                        outside = isinstance(plan_, _Categorical) and plan_.given_levels
                        if isinstance(plan_, _Numeric) or outside:
                            undefined.append(factor.name())
                plan_ = self.plans[factor]
                if isinstance(plan_, _Categorical):
                    contrast = subterm.contrast_matrices[factor].matrix[:, index]
                    column = contrast[values[factor]]
                else:
                    column = values[factor]
                if first:
                    target[...] = column
                    first = False
                else:
                    target *= column
                uses[factor] -= 1
                if uses[factor] == 0:
                    del values[factor]
            if first:  # a column without factors (the intercept)
                target[...] = 1.0
        return out, missing, undefined

    def _evaluate(
        self, factor: Any, frame: pd.DataFrame, unseen: str
    ) -> tuple[np.ndarray, np.ndarray | None]:
        plan_ = self.plans[factor]
        if isinstance(plan_, _Numeric):
            value = plan_.value(frame)
            if value.dtype.kind != "f" or np.isfinite(value.sum()):
                return value, None  # a finite sum: no NaN (nor inf) in the column
            na = np.isnan(value)
            return value, na if na.any() else None
        series = frame[plan_.column]
        levels = self.design_info.factor_infos[factor].categories
        dtype = series.dtype
        if isinstance(dtype, pd.CategoricalDtype) and list(dtype.categories) == list(levels):
            codes = series.cat.codes.to_numpy()
        else:
            codes = pd.Index(list(levels)).get_indexer(series)
        na = series.isna().to_numpy()
        new = (codes < 0) & ~na
        if new.any() and plan_.given_levels and unseen != "newdata":
            return np.where(codes < 0, 0, codes), na | new  # R's factor(): NA, dropped
        if new.any():
            shown = sorted(map(str, pd.unique(series[new])))[:5]
            raise UnseenLevelError(
                f"{unseen} has level(s) {shown} in column {plan_.column!r} that were not seen "
                f"when fitting; new rows can only use the fit's levels {list(levels)}.",
                plan_.column,
                shown,
            )
        return np.where(codes < 0, 0, codes), na


def plan(design_info: Any, frame: pd.DataFrame, env: Any = None) -> DesignPlan | None:
    """A :class:`DesignPlan` for ``design_info`` on frames like ``frame``, or None if some
    factor needs patsy (see the module docstring).

    Parameters
    ----------
    design_info : patsy.DesignInfo
    frame : pandas.DataFrame
        Rows with the formula's columns (their dtypes decide which factors are numeric).
    env : patsy.EvalEnvironment, optional
        Where names that are not columns are looked up, when the design does not carry its
        own (each factor's state holds the environment it was built in).

    Returns
    -------
    DesignPlan or None

    Examples
    --------
    >>> import pandas as pd, patsy
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 4.0], "g": ["a", "b", "a"]})
    >>> info = patsy.dmatrix("np.log(x) + g", df).design_info
    >>> X, dropped, _ = plan(info, df).build(df, np.arange(3))
    >>> X.tolist()
    [[1.0, 0.0, 0.0], [1.0, 1.0, 0.6931471805599453], [1.0, 0.0, 1.3862943611198906]]
    """
    columns = frozenset(frame.columns)
    dtypes = frame.dtypes
    plans: dict[Any, Any] = {}
    try:
        for factor, info in design_info.factor_infos.items():
            env_ = _factor_env(info, env)
            if env_ is None:
                return None
            plan_ = _factor_plan(factor, columns, env_, dtypes)
            wanted = "categorical" if isinstance(plan_, _Categorical) else "numerical"
            if info.type != wanted or (wanted == "numerical" and info.num_columns != 1):
                return None
            plans[factor] = plan_
    except NotBulk:
        return None
    return DesignPlan(design_info, plans)


_NA_ACTION = patsy.NAAction(NA_types=["None", "NaN"])


@functools.lru_cache(maxsize=64)
def model_desc(formula: str) -> Any:
    """patsy's parse of ``formula`` (cached: a 50-term formula takes milliseconds to parse,
    and one fit reads it several times). Raises :class:`patsy.PatsyError` as patsy does."""
    return patsy.ModelDesc.from_formula(formula)


def design_info(rhs: str, frame: pd.DataFrame, env: Any) -> Any | None:
    """patsy's design information of ``rhs`` on ``frame``, read from a few rows.

    Returns None unless every factor is bulk-evaluable (see the module docstring): for those,
    the only thing patsy learns from the data is the set of levels of each label column, so
    the rows holding each level once give the same :class:`patsy.DesignInfo` as all rows.

    Examples
    --------
    >>> import pandas as pd, patsy
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 4.0, 8.0], "g": ["b", "a", "b", "c"]})
    >>> design_info("x + g", df, patsy.EvalEnvironment.capture()).column_names
    ['Intercept', 'g[T.b]', 'g[T.c]', 'x']
    """
    try:
        desc = model_desc(rhs)
    except patsy.PatsyError:
        return None
    if desc.lhs_termlist:
        return None
    env = env.with_outer_namespace(PATSY_BUILTINS)
    columns = frozenset(frame.columns)
    dtypes = frame.dtypes
    factors = {f for term in desc.rhs_termlist for f in term.factors}
    label_columns, used = set(), set()
    try:
        for factor in factors:
            plan_ = _factor_plan(factor, columns, env, dtypes)
            code_names = {
                n.id if isinstance(n, ast.Name) else None
                for n in ast.walk(ast.parse(factor.code.strip(), mode="eval"))
            }
            used.update(c for c in code_names if c in columns)
            used.update(c for c in _quoted(factor.code) if c in columns)
            if isinstance(plan_, _Categorical):
                label_columns.add(plan_.column)
                used.add(plan_.column)
            else:
                # names must resolve as patsy would (data first, then the environment)
                for name in code_names - {None} - columns:
                    _lookup(env, name)
    except NotBulk:
        return None
    sample = _level_rows(frame, sorted(used), label_columns)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            (info,) = patsy.design_matrix_builders(
                [desc.rhs_termlist], lambda: iter([sample]), env, _NA_ACTION
            )
        except Exception:
            return None
    return info


def _is_label_dtype(dtype: Any) -> bool:
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def factor_columns(rhs: str, frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` that ``rhs`` codes as factors: a label column (text, boolean,
    categorical) standing as a variable of a term, or any column as the first argument of a
    factor function (``C(k)``, ``factor(k)``). Only parses; evaluates nothing.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2.0], "k": [1, 2], "g": ["a", "b"]})
    >>> factor_columns("x + g:x + C(k) + I(g == 'a')", df)
    ['g', 'k']
    """
    try:
        terms = model_desc(rhs).rhs_termlist
    except patsy.PatsyError:
        return []
    found: set[str] = set()
    for factor in {f for term in terms for f in term.factors}:
        column, called = _factor_column(factor.code, frame.columns)
        if column is not None and (called or _is_label_dtype(frame[column].dtype)):
            found.add(column)
    return sorted(found)


def factor_column(code: str, columns: Any) -> str | None:
    """The column behind a categorical factor's code: the column itself (bare or ``Q()``), or
    the first argument of a factor function; None for anything else (``I(x > 2)``).

    Examples
    --------
    >>> factor_column("factor(cyl, levels=[4, 6])", ["cyl"]), factor_column("I(x > 2)", ["x"])
    ('cyl', None)
    """
    return _factor_column(code, columns)[0]


def _factor_column(code: str, columns: Any) -> tuple[str | None, bool]:
    """(column, whether a factor function is called on it) for one factor's code."""
    columns = frozenset(columns)
    try:
        tree = ast.parse(code.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None, False
    column = _named_column(tree, columns)
    if column is not None:
        return column, False
    if (
        isinstance(tree, ast.Call)
        and isinstance(tree.func, ast.Name)
        and tree.func.id in FACTOR_FUNCTIONS
        and tree.func.id not in columns
        and tree.args
    ):
        column = _named_column(tree.args[0], columns)
        if column is not None:
            return column, True
    return None, False


def _named_column(node: ast.AST, columns: frozenset[str]) -> str | None:
    """The column a bare name or ``Q("...")`` names, without looking anything up."""
    if isinstance(node, ast.Name):
        return node.id if node.id in columns else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Q"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value in columns
    ):
        return node.args[0].value
    return None


def _quoted(code: str) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(code.strip(), mode="eval")):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Q"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.append(node.args[0].value)
    return names


def _level_rows(frame: pd.DataFrame, used: list[str], labels: set[str]) -> pd.DataFrame:
    """A few rows with the columns ``used``: every level of each label column appears."""
    levels: dict[str, Any] = {}
    for col in labels:
        series = frame[col]
        if isinstance(series.dtype, pd.CategoricalDtype):
            levels[col] = pd.Categorical(series.cat.categories, dtype=series.dtype)
        else:
            present = series[series.notna()]
            levels[col] = pd.unique(present.to_numpy()) if len(present) else series.iloc[:1]
    size = max([len(v) for v in levels.values()] + [2])
    dtypes = {frame[col].dtype for col in used} if not labels else set()
    if len(dtypes) == 1 and isinstance(dtype := dtypes.pop(), np.dtype) and dtype.kind in "fiu":
        # numbers only, of one dtype: the same ones as below, as one block
        ones = np.ones((size, len(used)), dtype=dtype)
        return pd.DataFrame(ones, columns=pd.Index(used, dtype=object))
    out = {}
    for col in used:
        if col in levels:
            values = levels[col]
            if len(values) == 0:
                values = frame[col].iloc[:1].to_numpy()
            take = np.resize(np.arange(len(values)), size)
            out[col] = (
                pd.Categorical.from_codes(np.asarray(values.codes)[take], dtype=values.dtype)
                if isinstance(values, pd.Categorical)
                else np.asarray(values, dtype=object if frame[col].dtype == object else None)[take]
            )
        else:
            dtype = frame[col].dtype
            out[col] = np.ones(size, dtype=dtype if dtype.kind in "fiu" else float)
    return pd.DataFrame(out, columns=used)


def r_order(design_info: Any, rhs: str) -> np.ndarray:
    """patsy's column indices, intercept left out, in R's order of the formula's terms.

    R's ``terms()`` keeps the terms in the order the formula names them, main effects before
    two-way interactions before higher ones (a stable sort by the number of variables); patsy
    instead puts the terms made only of factors (label columns) first. Within a term both
    vary the left-most factor's levels fastest. So ``y ~ x + g`` gives ``x`` then ``g``'s
    columns, and ``y ~ x * g`` gives ``x``, ``g``, ``x:g``.

    Examples
    --------
    >>> import pandas as pd, patsy
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 4.0], "g": ["a", "b", "a"]})
    >>> info = patsy.dmatrix("x + g", df).design_info
    >>> [info.column_names[j] for j in r_order(info, "x + g")]
    ['x', 'g[T.b]']
    """
    try:
        terms = model_desc(rhs).rhs_termlist
    except patsy.PatsyError:
        terms = list(design_info.terms)
    slices = design_info.term_slices
    if set(terms) != set(slices):
        terms = list(design_info.terms)
    ordered = sorted(terms, key=lambda t: len(t.factors))
    out = []
    for term in ordered:
        if not term.factors:
            continue  # the intercept: SDR centres the predictors
        part = slices[term]
        out.extend(range(part.start, part.stop))
    return np.asarray(out, dtype=int)


__all__ = [
    "NotBulk",
    "UnseenLevelError",
    "DesignPlan",
    "plan",
    "design_info",
    "r_order",
    "factor_columns",
    "factor_column",
]
