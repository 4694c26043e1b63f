"""Formula front: a patsy formula and a data frame become a :class:`ModelSpec`.

The spec holds the response and predictor arrays with their names, patsy's design information
(so :meth:`ModelSpec.transform_x` applies the same transforms and factor levels to new rows),
and the rows that were kept. It is built once per fit; estimators never see formulas.

Formula conventions (as in R):

* ``y ~ .`` expands ``.`` to every column not used in the response; ``y ~ . - x3`` then
  removes a term.
* ``y1 + y2 ~ x1 + x2`` is a two-column response.
* a string, boolean or categorical response column (or ``C(y)``) is a class label.
* the intercept column is dropped (SDR centres the predictors) while factors keep the
  full-rank treatment coding they get with an intercept.
* ``log``, ``sqrt``, ``exp`` and ``abs`` evaluate as numpy's, alongside ``np`` and the
  caller's own names.

Security: formula text is evaluated as Python (patsy evaluates each term, as R and statsmodels
evaluate theirs), so formula text must never come from an untrusted source. Data are not code:
``.`` expands to the other columns by reference (``Q(<escaped literal>)``), so a hostile column
name in a CSV header is looked up as a name and never runs.
"""

from __future__ import annotations

import ast
import inspect
import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ._checks import (
    _check_data,
    _check_finite,
    _check_magnitude,
    _check_object_columns,
    _explain_patsy_error,
    _is_label_column,
    _mentioned_columns,
    _quote,
)
from ._warnings import MissingValueWarning
from .spec import _R_NAMES, ModelSpec


def _user_env() -> patsy.EvalEnvironment:
    """The namespace of the first caller outside sdrstats, plus R-style function names."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__", "").startswith("sdrstats"):
        frame = frame.f_back
    namespaces = [] if frame is None else [frame.f_locals, frame.f_globals]
    del frame
    return patsy.EvalEnvironment(namespaces).with_outer_namespace(_R_NAMES)



def _quoted_literal(term: str) -> str | None:
    """The column name inside ``Q("...")`` (any quoting Python allows), else None."""
    m = re.fullmatch(r"Q\(\s*(.+?)\s*\)", term, flags=re.S)
    if not m:
        return None
    try:
        value = ast.literal_eval(m.group(1))  # literals only: never evaluates code
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def _split_top(text: str, sep: str = "+") -> list[str]:
    """Split ``text`` at ``sep`` outside parentheses and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]



def _rhs_columns(rhs: str, columns: list[str]) -> list[str]:
    """The columns the terms that survive patsy's ``+``/``-`` algebra of ``rhs`` name.

    Only parses (patsy's parser evaluates nothing), so ``. - when`` does not count ``when``.
    """
    try:
        desc = patsy.ModelDesc.from_formula(rhs)
    except patsy.PatsyError:
        return _mentioned_columns(rhs, columns)
    codes = " ".join(f.code for term in desc.rhs_termlist for f in term.factors)
    return _mentioned_columns(codes, columns)


def _label_term(term: str, data: pd.DataFrame) -> str | None:
    """The column behind a response term that should be read as a class label, else None."""
    inner = term
    m = re.fullmatch(r"C\((.+)\)", term)
    if m:
        inner = m.group(1).strip()
    quoted = _quoted_literal(inner)
    if quoted is not None:
        inner = quoted
    if inner in data.columns and (term != inner and term.startswith("C(") or _is_label_column(data[inner])):
        return inner
    return None


def select_rows(data: Any, subset: Any, *, allow_empty: bool = False) -> pd.DataFrame:
    """The rows of ``data`` that ``subset`` selects (R's ``subset=``), before anything else.

    Parameters
    ----------
    data : pandas.DataFrame
        The data; it is never modified.
    subset : str or array-like of bool or None
        A pandas query string (``"sex == 'f'"``, ``"ht > 175"``) or a boolean mask with one
        entry per row (a boolean Series is aligned on the index); ``None`` keeps every row.
    allow_empty : bool, default False
        Return no rows instead of raising when nothing is selected (one chunk of a stream).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import sdrstats as sdr
    >>> select_rows(sdr.datasets.load("ais"), "sex == 'f'").shape
    (100, 13)
    """
    data = _check_data(data)
    if subset is None:
        return data
    if isinstance(subset, str):
        try:
            mask = data.eval(subset, engine="python")
        except Exception as exc:
            raise ValueError(
                f"The 'subset' query {subset!r} could not be evaluated on data: {exc}. Write a "
                "pandas query on its columns, e.g. \"sex == 'f'\" or \"ht > 175\"."
            ) from None
        if not isinstance(mask, pd.Series) or mask.dtype != bool:
            raise ValueError(
                f"The 'subset' query {subset!r} must give True/False per row (a comparison such "
                "as \"ht > 175\"); it gave "
                f"{getattr(mask, 'dtype', type(mask).__name__)}."
            )
        mask = mask.to_numpy()
    elif isinstance(subset, pd.Series):
        if subset.dtype != bool:
            raise TypeError(f"A 'subset' Series must be boolean; got dtype {subset.dtype}.")
        if not subset.index.equals(data.index):
            if not data.index.isin(subset.index).all():
                raise ValueError("The 'subset' Series does not have an entry for every row of data.")
            subset = subset.reindex(data.index)
        mask = subset.to_numpy()
    else:
        mask = np.asarray(subset)
        if mask.dtype != bool:
            raise TypeError(
                "The 'subset' option must be a query string or a boolean mask; got an array of "
                f"dtype {mask.dtype} (use e.g. data['ht'] > 175)."
            )
        if mask.shape != (data.shape[0],):
            raise ValueError(
                f"The 'subset' mask has shape {mask.shape}; it needs one entry per row of data "
                f"({data.shape[0]})."
            )
    if not mask.any() and not allow_empty:
        raise ValueError(f"The 'subset' option {describe_subset(subset)} selects no rows.")
    return data.loc[mask]


def describe_subset(subset: Any) -> str:
    """How ``subset`` is shown in a fit's call: the query text, or the size of a mask."""
    if isinstance(subset, str):
        return repr(subset)
    mask = np.asarray(subset, dtype=bool)
    return f"<mask: {int(mask.sum())} of {mask.size} rows>"


def parse(formula: str, data: Any, *, missing: str = "drop", subset: Any = None) -> ModelSpec:
    """Evaluate ``formula`` on ``data`` and return the model spec.

    Parameters
    ----------
    formula : str
        ``"response ~ predictors"`` in patsy syntax, with R's ``.`` for all other columns.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The data; it is never modified.
    missing : {"drop", "raise"}
        Rows with a missing value in any variable of the formula are dropped with a
        :class:`~sdrstats.MissingValueWarning` saying how many (``"drop"``), or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected first (see :func:`select_rows`).

    Returns
    -------
    ModelSpec

    Examples
    --------
    >>> import sdrstats as sdr
    >>> spec = parse("lbm ~ log(wt) + ht + sex", sdr.datasets.load("ais"))
    >>> spec.x_names
    ['sex[T.m]', 'log(wt)', 'ht']
    """
    if not isinstance(formula, str):
        raise TypeError(
            f"formula must be a string such as 'y ~ x1 + x2'; got {type(formula).__name__}."
        )
    if missing not in ("drop", "raise"):
        raise ValueError(f"The 'missing' option must be 'drop' or 'raise'; got {missing!r}.")
    data = select_rows(data, subset)
    if formula.count("~") != 1:
        raise ValueError(
            f"formula {formula!r} must have exactly one '~' with the response on its left, "
            "e.g. 'y ~ x1 + x2' or 'y ~ .'."
        )
    lhs, rhs = (s.strip() for s in formula.split("~"))
    if not lhs:
        raise ValueError(f"formula {formula!r} has no response; write it as 'y ~ ...'.")
    if not rhs:
        raise ValueError(f"formula {formula!r} has no predictors; write 'y ~ .' to use all columns.")
    columns = [str(c) for c in data.columns]
    frame = data.copy(deep=False)
    frame.columns = columns
    original_index = frame.index
    frame = frame.reset_index(drop=True)

    y_terms = _split_top(lhs)
    if any(t == "" for t in y_terms):
        raise ValueError(f"formula {formula!r} has an empty response term.")
    y_columns = _mentioned_columns(lhs, columns)
    if re.search(r"(?<![\w.])\.(?![\w.])", rhs):
        others = [c for c in columns if c not in y_columns]
        if not others:
            raise ValueError("'.' in the formula found no predictor columns besides the response.")
        expansion = "(" + " + ".join(map(_quote, others)) + ")"
        # A function replacement: re.sub would read backslashes in a string replacement.
        rhs = re.sub(r"(?<![\w.])\.(?![\w.])", lambda _: expansion, rhs)

    rhs_columns = _rhs_columns(rhs, columns)
    both = [c for c in y_columns if c in rhs_columns]
    if both:
        raise ValueError(
            f"The response column(s) {both} also appear among the predictors of {formula!r}; "
            "a variable cannot predict itself: remove it from the right of '~'."
        )
    _check_object_columns(frame, y_columns + rhs_columns)
    env = _user_env()
    na_action = patsy.NAAction(NA_types=["None", "NaN"])
    try:
        rhs_design = patsy.dmatrix(rhs, frame, eval_env=env, NA_action=na_action,
                                   return_type="dataframe")
    except patsy.PatsyError as exc:
        raise ValueError(_explain_patsy_error(exc, frame, "data")) from None
    except (NameError, SyntaxError, TypeError, KeyError) as exc:
        raise ValueError(f"Could not evaluate the predictors {rhs!r}: {exc}") from None
    keep = pd.Index(rhs_design.index)

    label_cols = [_label_term(t, frame) for t in y_terms]
    if any(label_cols):
        if len(y_terms) > 1:
            raise ValueError(
                "A categorical response must be the only response term; got "
                f"{y_terms}. Use one class column, or numeric columns for a multivariate response."
            )
        y_series = frame[label_cols[0]]
        keep = keep.intersection(y_series.index[y_series.notna()], sort=False)
        y_frame = None
        y_names = [label_cols[0]]
    else:
        try:
            y_frame = patsy.dmatrix("0 + " + " + ".join(f"I({t})" for t in y_terms), frame,
                                    eval_env=env, NA_action=na_action, return_type="dataframe")
        except patsy.PatsyError as exc:
            raise ValueError(_explain_patsy_error(exc, frame, "data")) from None
        if y_frame.shape[1] != len(y_terms):
            raise ValueError(f"Each response term must give one numeric column; got {y_terms}.")
        y_names = y_terms
        keep = keep.intersection(y_frame.index, sort=False)
    keep = keep.sort_values()

    n_dropped = frame.shape[0] - len(keep)
    if n_dropped:
        used = _mentioned_columns(lhs + " " + rhs, columns)
        with_na = [c for c in used if frame[c].isna().any()]
        if missing == "raise":
            raise ValueError(
                f"{n_dropped} row(s) have missing values in {with_na}; drop or impute them, or "
                "pass missing='drop' to drop them."
            )
        warnings.warn(
            f"Dropped {n_dropped} of {frame.shape[0]} rows with missing values in {with_na}.",
            MissingValueWarning,
            stacklevel=3,
        )
    if len(keep) == 0:
        raise ValueError("No rows are left after dropping rows with missing values.")

    design_info = rhs_design.design_info
    names = list(rhs_design.columns)
    design_columns = np.array([i for i, nm in enumerate(names) if nm != "Intercept"], dtype=int)
    if design_columns.size == 0:
        raise ValueError(f"formula {formula!r} has no predictors besides the intercept.")
    X = rhs_design.loc[keep].to_numpy(dtype=float)[:, design_columns]
    x_names = [names[i] for i in design_columns]
    _check_finite(X, x_names, "Predictor")

    if y_frame is None:
        labels = pd.Categorical(frame[y_names[0]].loc[keep])
        y_levels = list(labels.categories)
        Y = np.asarray(labels.codes, dtype=np.int64)
    else:
        Y = y_frame.loc[keep].to_numpy(dtype=float)
        _check_finite(Y, y_names, "Response")
        y_levels = None
    return ModelSpec(
        X=np.ascontiguousarray(X),
        Y=np.ascontiguousarray(Y),
        x_names=x_names,
        y_names=y_names,
        index=original_index[keep.to_numpy()],
        y_levels=y_levels,
        formula=f"{lhs} ~ {rhs}" if "." not in formula else formula,
        design_info=design_info,
        design_columns=design_columns,
        n_dropped=n_dropped,
        rhs=rhs,
        source=frame[_mentioned_columns(rhs, columns)],
    )


def from_arrays(X: Any, y: Any, *, missing: str = "drop") -> ModelSpec:
    """Build a spec from arrays (or a DataFrame ``X`` and a Series/array ``y``).

    A response of strings, booleans or a pandas categorical is a class label; any numeric
    response is continuous. Column names come from a DataFrame, else ``x1..xp``.

    Parameters
    ----------
    X : array-like of shape (n, p) or pandas.DataFrame
        Numeric predictors.
    y : array-like of shape (n,) or (n, q)
        The response.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.

    Returns
    -------
    ModelSpec

    Examples
    --------
    >>> import numpy as np
    >>> spec = from_arrays(np.arange(8.0).reshape(4, 2), ["a", "b", "a", "b"])
    >>> spec.x_names, spec.Y.tolist(), spec.y_levels
    (['x1', 'x2'], [0, 1, 0, 1], ['a', 'b'])
    """
    if missing not in ("drop", "raise"):
        raise ValueError(f"The 'missing' option must be 'drop' or 'raise'; got {missing!r}.")
    if isinstance(X, pd.DataFrame):
        x_columns = [str(c) for c in X.columns]
        index = X.index
        non_numeric = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        if non_numeric:
            raise ValueError(
                f"X has non-numeric column(s) {non_numeric}; code them as numbers or use the "
                "formula interface, which codes factors."
            )
        Xa = X.to_numpy(dtype=float)
    else:
        try:
            Xa = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("X must be a numeric 2-D array or DataFrame.") from None
        x_columns = None
        index = pd.RangeIndex(Xa.shape[0] if Xa.ndim else 0)
    if Xa.ndim == 1:
        Xa = Xa.reshape(-1, 1)
    if Xa.ndim != 2:
        raise ValueError(f"X must be 2-D (n observations x p predictors); got shape {Xa.shape}.")
    if Xa.shape[0] == 0:
        raise ValueError("X has no rows; an SDR fit needs observations.")
    x_names = x_columns or [f"x{j + 1}" for j in range(Xa.shape[1])]

    n_rows = Xa.shape[0]
    y_numeric = None
    if isinstance(y, np.ndarray) and y.dtype.kind in "fiu" and y.ndim in (1, 2):
        # fast path for numeric arrays: no pandas round trip
        y_numeric = (y.reshape(-1, 1) if y.ndim == 1 else y).astype(float, copy=False)
        q = y_numeric.shape[1]
        y_names = ["y"] if q == 1 else [f"y{j + 1}" for j in range(q)]
        n_y = y_numeric.shape[0]
        label = False
    else:
        if isinstance(y, pd.DataFrame):
            y_names = [str(c) for c in y.columns]
            y_values = y
        elif isinstance(y, pd.Series):
            y_names = [str(y.name) if y.name is not None else "y"]
            y_values = y.to_frame()
        else:
            arr = np.asarray(y)
            if arr.ndim == 1:
                arr = arr.reshape(-1, 1)
            y_names = ["y"] if arr.shape[1] == 1 else [f"y{j + 1}" for j in range(arr.shape[1])]
            y_values = pd.DataFrame(arr, columns=y_names)
        n_y = y_values.shape[0]
    if n_y != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {n_y}; they must match.")
    if y_numeric is None:
        y_values = y_values.reset_index(drop=True)
        y_values.columns = y_names
        label = y_values.shape[1] == 1 and _is_label_column(y_values.iloc[:, 0])
        y_ok = y_values.notna().all(axis=1).to_numpy()
    else:
        y_ok = ~np.isnan(y_numeric).any(axis=1)
    low, high = Xa.min(axis=0), Xa.max(axis=0)  # NaN and inf propagate: one cheap check
    x_finite = bool(np.isfinite(low).all() and np.isfinite(high).all())
    x_ok = np.ones(n_rows, dtype=bool) if x_finite else ~np.isnan(Xa).any(axis=1)
    mask = x_ok & y_ok
    n_dropped = int((~mask).sum())
    if n_dropped:
        if missing == "raise":
            raise ValueError(f"{n_dropped} row(s) of X or y have missing values; drop them first.")
        warnings.warn(f"Dropped {n_dropped} of {n_rows} rows with missing values.",
                      MissingValueWarning, stacklevel=3)
        Xa = Xa[mask]
    elif np.may_share_memory(Xa, X):
        # No copy of the caller's array (it can be large): a read-only view, so nothing in
        # sdrstats can write to it. Changing the array afterwards changes what the fit sees.
        Xa = Xa.view()
        Xa.flags.writeable = False
    if Xa.shape[0] == 0:
        raise ValueError("No rows are left after dropping rows with missing values.")
    if x_finite:
        _check_magnitude(np.maximum(np.abs(low), np.abs(high)), x_names, "Predictor")
    else:
        _check_finite(Xa, x_names, "Predictor")
    if label:
        labels = pd.Categorical(y_values.iloc[mask, 0])
        Y = np.asarray(labels.codes, dtype=np.int64)
        y_levels = list(labels.categories)
    else:
        if y_numeric is not None:
            Y = y_numeric[mask] if n_dropped else y_numeric.view()
            Y.flags.writeable = False  # may share the caller's memory: never written
        else:
            try:
                Y = y_values.loc[mask].to_numpy(dtype=float)
            except (TypeError, ValueError):
                raise TypeError("y must be numeric, or a single column of class labels.") from None
        _check_finite(Y, y_names, "Response")
        y_levels = None
    return ModelSpec(
        X=np.ascontiguousarray(Xa),
        Y=np.ascontiguousarray(Y),
        x_names=x_names,
        y_names=y_names,
        index=index[mask] if n_dropped else index,
        y_levels=y_levels,
        n_dropped=n_dropped,
        x_columns=x_columns,
    )


__all__ = ["ModelSpec", "parse", "from_arrays", "select_rows", "describe_subset"]
