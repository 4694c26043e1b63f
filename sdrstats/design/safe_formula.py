"""Formulas read back from saved state: checked against an allow-list, then evaluated.

A formula typed by the caller is the caller's own code (patsy evaluates each term as Python,
as R and statsmodels evaluate theirs). A formula read back from a saved fit or stream state is
data: it may have been edited by anyone who could write the file. Before such a formula is
evaluated again (to rebuild patsy's design information after unpickling or loading, or to
read the response of a later chunk), every term is parsed with Python's :mod:`ast` and
accepted only if it is made of

* column names of the stored data (bare, or quoted as ``Q("name")``);
* numbers and strings (strings not in arithmetic, so ``"a" * 10**9`` is refused);
* arithmetic ``+ - * / // % **`` (a power needs a column on one side and, when the
  exponent is a number, ``|exponent| <= 1000``), unary ``+``/``-`` and comparisons;
* lists and tuples of numbers or strings as call arguments (``knots=[...]``, ``levels=[...]``),
  and patsy's contrasts by name (``C(g, Sum)``);
* calls of the functions in :data:`ALLOWED_FUNCTIONS` (R-style ``log``, ``sqrt``..., R's
  ``factor``, ``as.factor``, ``ordered``, ``as.numeric``, ``poly`` and ``scale``
  (:mod:`sdrstats.design.rfunctions`), and patsy's ``I``, ``Q``, ``C``, contrasts,
  ``center``, ``standardize`` and the splines) and
  of ``np.<name>`` / ``numpy.<name>`` for ``name`` in :data:`ALLOWED_NUMPY`.

Anything else (attribute access other than those numpy functions, subscripts, lambdas,
comprehensions, names that are neither columns nor allowed functions such as ``__import__``)
is refused with :class:`UnsafeFormulaError`, before anything runs. The accepted formula is then
evaluated in a namespace holding only the allowed functions, never the caller's.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import patsy

from .rfunctions import R_FORMULA_FUNCTIONS

#: numpy functions a stored formula may call as ``np.<name>`` (element-wise, no I/O).
ALLOWED_NUMPY = frozenset(
    {
        "log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "sqrt", "cbrt", "square",
        "abs", "absolute", "fabs", "sign", "power", "reciprocal", "negative",
        "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
        "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "rint", "round",
        "clip", "maximum", "minimum", "fmax", "fmin", "where", "isnan", "isfinite",
        "logical_and", "logical_or", "logical_not",
    }
)  # fmt: skip

#: R-style names evaluated as numpy's, and R's formula functions (as the formula front does).
R_FUNCTIONS: dict[str, Any] = {
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "abs": np.abs,
    **R_FORMULA_FUNCTIONS,
}

#: patsy's own functions a stored formula may call (identity, quoting, factors, contrasts,
#: stateful transforms and splines).
PATSY_FUNCTIONS = frozenset(
    {
        "I", "Q", "C", "Treatment", "Sum", "Helmert", "Poly", "Diff",
        "center", "standardize", "scale", "bs", "cr", "cc", "te",
    }
)  # fmt: skip

#: patsy's contrasts, which may also be passed by name (``C(g, Sum)``).
CONTRASTS = frozenset({"Treatment", "Sum", "Helmert", "Poly", "Diff"})

#: Every function a stored formula may call by a bare name.
ALLOWED_FUNCTIONS = frozenset(R_FUNCTIONS) | PATSY_FUNCTIONS

#: Binary operators a stored formula may use: arithmetic, and ``&``/``|`` (R's element-wise
#: logical and/or of comparisons).
_ARITHMETIC = (
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr,
)  # fmt: skip
_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_MAX_EXPONENT = 1000
_MAX_LENGTH = 20_000


class UnsafeFormulaError(ValueError):
    """A stored formula uses something outside the allow-list (see the module docstring)."""


def _allowed_list() -> str:
    return (
        ", ".join(sorted(ALLOWED_FUNCTIONS))
        + " and element-wise numpy functions (np.log, np.exp, np.sqrt, np.sin, ...)"
    )


def _unsigned(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return node


class _Checker:
    """Walks one expression; ``columns`` are the names it may read."""

    def __init__(self, code: str, columns: frozenset[str], what: str) -> None:
        self.code, self.columns, self.what = code, columns, what

    def refuse(self, reason: str) -> UnsafeFormulaError:
        return UnsafeFormulaError(
            f"{self.what}: the term {self.code!r} is refused: {reason}. A formula read back from "
            "saved state may use only column names, numbers, strings, arithmetic, comparisons "
            f"and the functions {_allowed_list()}; refit from the data to use anything else."
        )

    # -- nodes -----------------------------------------------------------------------------
    def value(self, node: ast.AST) -> None:
        """Any expression allowed as a term or a function argument."""
        if isinstance(node, ast.Name) and node.id in CONTRASTS and node.id not in self.columns:
            return  # a contrast passed by name: C(g, Sum)
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, str, bool, type(None))) or isinstance(
                node.value, complex
            ):
                raise self.refuse(f"the constant {node.value!r} is not a number or a string")
            return
        if isinstance(node, (ast.List, ast.Tuple)):
            for item in node.elts:
                if isinstance(item, ast.UnaryOp) and isinstance(item.op, (ast.USub, ast.UAdd)):
                    item = item.operand
                if not (
                    isinstance(item, ast.Constant)
                    and isinstance(item.value, (int, float, str, bool))
                ):
                    raise self.refuse("a list may hold only numbers and strings")
            return
        self.numeric(node)

    def numeric(self, node: ast.AST) -> None:
        """An expression that may be an operand of arithmetic."""
        if isinstance(node, ast.Name):
            if node.id not in self.columns:
                raise self.refuse(f"{node.id!r} is not a column of the stored data")
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise self.refuse(f"the constant {node.value!r} cannot be used in arithmetic")
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise self.refuse(f"the operator {type(node.op).__name__} is not allowed")
            self.numeric(node.operand)
        elif isinstance(node, ast.BinOp):
            if not isinstance(node.op, _ARITHMETIC):
                raise self.refuse(
                    f"the operator {type(node.op).__name__} is not arithmetic or logical"
                )
            self.numeric(node.left)
            self.numeric(node.right)
            if isinstance(node.op, ast.Pow):
                self.power(node)
        elif isinstance(node, ast.Compare):
            if not all(isinstance(op, _COMPARISONS) for op in node.ops):
                raise self.refuse("only the comparisons == != < <= > >= are allowed")
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and isinstance(side.value, str):
                    continue
                self.numeric(side)
        elif isinstance(node, ast.Call):
            self.call(node)
        else:
            raise self.refuse(f"{type(node).__name__} expressions are not allowed")

    def power(self, node: ast.BinOp) -> None:
        base, exponent = _unsigned(node.left), _unsigned(node.right)
        if isinstance(base, ast.Constant) and isinstance(exponent, ast.Constant):
            # a number to a number (``2 ** 0.5``): small enough to compute at once
            if abs(base.value) > 1e6 or abs(exponent.value) > 64:
                raise self.refuse("a power of two numbers needs |base| <= 1e6, |exponent| <= 64")
            return
        if not (self.reads_column(node.left) or self.reads_column(node.right)):
            raise self.refuse("a power needs a column on one side, or two numbers")
        if isinstance(exponent, ast.Constant) and abs(exponent.value) > _MAX_EXPONENT:
            raise self.refuse(f"the exponent {exponent.value!r} is above {_MAX_EXPONENT}")

    def reads_column(self, node: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Name)
            and n.id in self.columns
            or isinstance(n, ast.Call)
            and self.function_name(n) == "Q"
            for n in ast.walk(node)
        )

    def function_name(self, node: ast.Call) -> str | None:
        func = node.func
        if isinstance(func, ast.Name):
            return func.id if func.id in ALLOWED_FUNCTIONS else None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("np", "numpy")
            and func.attr in ALLOWED_NUMPY
        ):
            return f"np.{func.attr}"
        return None

    def call(self, node: ast.Call) -> None:
        name = self.function_name(node)
        if name is None:
            shown = ast.unparse(node.func)
            raise self.refuse(f"{shown!r} is not one of the allowed functions")
        if name == "Q":
            if (
                len(node.args) != 1
                or node.keywords
                or not isinstance(node.args[0], ast.Constant)
                or node.args[0].value not in self.columns
            ):
                raise self.refuse("Q() must quote one column name of the stored data")
            return
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.refuse("starred arguments are not allowed")
            self.value(arg)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.refuse("**keyword arguments are not allowed")
            self.value(keyword.value)


def check_expression(code: str, columns: Sequence[str], *, what: str = "stored formula") -> None:
    """Refuse one Python expression (a formula term) outside the allow-list.

    Parameters
    ----------
    code : str
        The expression, e.g. ``"log(wt)"`` or ``"I(x ** 2)"``.
    columns : sequence of str
        Column names the expression may read.
    what : str
        What the expression is, for the error message (e.g. ``"reader.formula"``).

    Raises
    ------
    UnsafeFormulaError
        Naming the term and what in it is not allowed.

    Examples
    --------
    >>> check_expression("log(wt) + I(ht ** 2)", ["wt", "ht"])
    >>> check_expression("__import__('os').system('true')", ["wt"])
    Traceback (most recent call last):
    ...
    sdrstats.design.safe_formula.UnsafeFormulaError: stored formula: the term ...
    """
    checker = _Checker(code, frozenset(map(str, columns)), what)
    if not isinstance(code, str):
        raise UnsafeFormulaError(f"{what}: a formula term must be text; got {type(code).__name__}.")
    if len(code) > _MAX_LENGTH:
        raise checker.refuse(f"it is longer than {_MAX_LENGTH} characters")
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise checker.refuse("it is not a Python expression") from None
    try:
        checker.value(tree.body)
    except RecursionError:
        raise checker.refuse("it is nested too deeply") from None


def check_formula(formula: str, columns: Sequence[str], *, what: str = "stored formula") -> None:
    """Refuse a (one- or two-sided) patsy formula with a term outside the allow-list.

    patsy's parser splits the formula into terms without evaluating anything; each term's
    code is then checked by :func:`check_expression`.

    Parameters
    ----------
    formula : str
        ``"y ~ x1 + log(x2)"``, or a right-hand side alone.
    columns : sequence of str
        Column names the formula may read.
    what : str
        What the formula is, for the error message.

    Raises
    ------
    UnsafeFormulaError

    Examples
    --------
    >>> check_formula("y ~ log(x1) + C(g, Treatment('b')) + bs(x2, df=4)", ["y", "x1", "x2", "g"])
    >>> check_formula("y ~ x1 + I(x1.__class__)", ["y", "x1"])
    Traceback (most recent call last):
    ...
    sdrstats.design.safe_formula.UnsafeFormulaError: stored formula: the term ...
    """
    if not isinstance(formula, str):
        raise UnsafeFormulaError(f"{what}: a formula must be text; got {type(formula).__name__}.")
    if len(formula) > _MAX_LENGTH:
        raise UnsafeFormulaError(f"{what}: the formula is longer than {_MAX_LENGTH} characters.")
    try:
        desc = patsy.ModelDesc.from_formula(formula)
    except (patsy.PatsyError, SyntaxError, ValueError, TypeError, RecursionError) as exc:
        raise UnsafeFormulaError(f"{what}: {formula!r} is not a formula ({exc}).") from None
    for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
        for factor in term.factors:
            code = getattr(factor, "code", None)
            if code is None:
                raise UnsafeFormulaError(f"{what}: {formula!r} has a term that is not text.")
            check_expression(code, columns, what=what)


def safe_env() -> patsy.EvalEnvironment:
    """An evaluation namespace holding only the allowed functions (and ``np`` for
    ``np.<name>``, which the checker has limited to :data:`ALLOWED_NUMPY`)."""
    return patsy.EvalEnvironment([{**R_FUNCTIONS, "np": np, "numpy": np}])


def rebuild_design_info(
    rhs: str, source: pd.DataFrame, *, what: str = "stored formula"
) -> patsy.DesignInfo:
    """patsy's design information of ``rhs`` on ``source``, after :func:`check_formula`.

    Parameters
    ----------
    rhs : str
        Right-hand side of the stored formula.
    source : pandas.DataFrame
        The stored rows the stateful transforms (``center``, ``bs``...) memorise, as at fit
        time.
    what : str
        What the formula is, for the error message.

    Returns
    -------
    patsy.DesignInfo

    Examples
    --------
    >>> import pandas as pd
    >>> info = rebuild_design_info("log(a) + b", pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 1.5]}))
    >>> info.column_names
    ['Intercept', 'log(a)', 'b']
    """
    check_formula(rhs, [str(c) for c in source.columns], what=what)
    na_action = patsy.NAAction(NA_types=["None", "NaN"])
    return patsy.dmatrix(rhs, source, eval_env=safe_env(), NA_action=na_action).design_info


__all__ = [
    "ALLOWED_FUNCTIONS",
    "ALLOWED_NUMPY",
    "UnsafeFormulaError",
    "check_expression",
    "check_formula",
    "safe_env",
    "rebuild_design_info",
]
