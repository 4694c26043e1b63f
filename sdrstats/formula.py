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
"""

from __future__ import annotations

import inspect
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ._warnings import MissingValueWarning

_R_NAMES: dict[str, Any] = {
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "abs": np.abs,
    "np": np,
}

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class ModelSpec:
    """Response and predictors of one fit, with what is needed to treat new rows alike.

    Built by :func:`parse` and :func:`from_arrays`; each field is an attribute.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Predictor matrix (float), intercept removed.
    Y : ndarray
        ``(n, q)`` float array for a continuous response, or ``(n,)`` integer codes into
        ``y_levels`` for a categorical one.
    x_names, y_names : list of str
        Column labels of ``X`` and of the response.
    y_levels : list or None
        Class labels of a categorical response.
    index : pandas.Index
        Labels of the rows of ``data`` that were used.
    n_dropped : int
        Rows dropped for missing values.
    formula, design_info, design_columns, x_columns, rhs, source
        What :meth:`transform_x` needs to put new rows through the same formula transforms
        and factor levels (``None`` for array input).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> spec = parse("lbm ~ log(wt) + C(sex)", sdr.datasets.load("ais"))
    >>> spec.X.shape, spec.x_names
    ((202, 2), ['C(sex)[T.m]', 'log(wt)'])
    """

    X: np.ndarray
    Y: np.ndarray
    x_names: list[str]
    y_names: list[str]
    index: pd.Index
    y_levels: list[Any] | None = None
    formula: str | None = None
    design_info: Any = None
    design_columns: np.ndarray | None = None
    n_dropped: int = 0
    x_columns: list[str] | None = field(default=None)
    rhs: str | None = None
    source: pd.DataFrame | None = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        # patsy's DesignInfo cannot be pickled; it is rebuilt from the right-hand side and
        # the formula's source columns when first needed after unpickling.
        state = dict(self.__dict__)
        state["design_info"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _design(self) -> Any:
        if self.design_info is None and self.rhs is not None and self.source is not None:
            env = patsy.EvalEnvironment([]).with_outer_namespace(_R_NAMES)
            na_action = patsy.NAAction(NA_types=["None", "NaN"])
            try:
                self.design_info = patsy.dmatrix(self.rhs, self.source, eval_env=env,
                                                 NA_action=na_action).design_info
            except Exception as exc:  # a formula using the caller's own functions
                raise ValueError(
                    "This unpickled fit cannot rebuild its formula's transforms "
                    f"({exc}); pass a numeric predictor matrix to transform instead."
                ) from None
        return self.design_info

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def p(self) -> int:
        return self.X.shape[1]

    @property
    def categorical(self) -> bool:
        """True when the response is a class label."""
        return self.y_levels is not None

    def transform_x(self, newdata: Any) -> np.ndarray:
        """Predictor matrix of ``newdata`` built with the training transforms and levels.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like
            New rows with the columns the formula uses (an array for array fits).

        Returns
        -------
        ndarray of shape (m, p)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> spec = parse("lbm ~ log(wt) + C(sex)", ais)
        >>> spec.transform_x(ais.head(2)).round(3)
        array([[0.   , 4.368],
               [0.   , 4.309]])
        """
        design_info = self._design()
        if design_info is None:
            if isinstance(newdata, pd.DataFrame) and self.x_columns is not None:
                missing = [c for c in self.x_columns if c not in newdata.columns]
                if missing:
                    raise ValueError(
                        f"newdata lacks the predictor column(s) {missing}; it needs the columns "
                        f"used in the fit: {self.x_columns}."
                    )
                values = newdata[self.x_columns].to_numpy(dtype=float)
            else:
                values = np.asarray(newdata, dtype=float)
            if values.ndim == 1:
                values = values.reshape(1, -1)
            if values.ndim != 2 or values.shape[1] != self.p:
                raise ValueError(
                    f"newdata must have {self.p} predictor columns; got shape {values.shape}."
                )
            _check_finite(values, self.x_names, "newdata")
            return values
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(
                "newdata must be a pandas DataFrame with the columns named in the formula; got "
                f"{type(newdata).__name__}."
            )
        try:
            (matrix,) = patsy.build_design_matrices(
                [design_info], newdata, NA_action="raise", return_type="matrix"
            )
        except patsy.PatsyError as exc:
            raise ValueError(_explain_patsy_error(exc, newdata, "newdata")) from None
        values = np.asarray(matrix, dtype=float)[:, self.design_columns]
        _check_finite(values, self.x_names, "newdata")
        return values


def _user_env() -> patsy.EvalEnvironment:
    """The namespace of the first caller outside sdrstats, plus R-style function names."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__", "").startswith("sdrstats"):
        frame = frame.f_back
    namespaces = [] if frame is None else [frame.f_locals, frame.f_globals]
    del frame
    return patsy.EvalEnvironment(namespaces).with_outer_namespace(_R_NAMES)


def _quote(name: str) -> str:
    return name if _IDENTIFIER.match(name) else f'Q("{name}")'


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


def _mentioned_columns(text: str, columns: list[str]) -> list[str]:
    found = []
    for col in columns:
        if _IDENTIFIER.match(col):
            if re.search(rf"(?<![\w.]){re.escape(col)}(?![\w])", text):
                found.append(col)
        elif f'"{col}"' in text or f"'{col}'" in text:
            found.append(col)
    return found


def _check_data(data: Any) -> pd.DataFrame:
    if isinstance(data, dict):
        data = pd.DataFrame(data)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            "data must be a pandas DataFrame (or a dict of columns); got "
            f"{type(data).__name__}. Build one with pandas.DataFrame(...) first."
        )
    if data.shape[0] == 0:
        raise ValueError("data has no rows; an SDR fit needs observations.")
    dup = data.columns[data.columns.duplicated()].unique().tolist()
    if dup:
        raise ValueError(
            f"data has duplicated column names {dup}; rename them so each column is unique."
        )
    return data


def _explain_patsy_error(exc: Exception, data: pd.DataFrame, what: str) -> str:
    text = str(exc)
    match = re.search(r"name '([^']+)' is not defined", text)
    if match:
        name = match.group(1)
        return (
            f"The formula names {name!r}, which is not a column of {what} nor a known function; "
            f"available columns: {list(map(str, data.columns))}."
        )
    match = re.search(r"observation with value (.+?) does not match any of the expected levels", text)
    if match:
        return (
            f"{what} has a factor level {match.group(1)} that was not seen when fitting; new rows "
            "can only use the levels of the training data."
        )
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return (
        f"Could not evaluate the formula on {what}: {first}. Check the formula's syntax, e.g. "
        "'y ~ x1 + x2', 'y ~ log(x1) + C(g)' or 'y ~ . - x3'."
    )


def _check_finite(values: np.ndarray, names: list[str], what: str) -> None:
    """Refuse infinite/undefined values and magnitudes sums of squares cannot hold.

    Two reductions (column minima and maxima) find both problems without an n x p temporary;
    the rows are scanned only to name the first bad one.
    """
    if values.size == 0 or values.dtype.kind not in "fc":
        return
    low, high = values.min(axis=0), values.max(axis=0)
    if not (np.isfinite(low).all() and np.isfinite(high).all()):
        bad = ~np.isfinite(values)
        col = int(np.argmax(bad.any(axis=0)))
        rows = np.flatnonzero(bad[:, col])
        raise ValueError(
            f"{what} column {names[col]!r} has {rows.size} infinite or undefined value(s) "
            f"(first at row position {rows[0]}); remove those rows or transform the column "
            "(e.g. log of a non-positive value gives -inf)."
        )
    _check_magnitude(np.maximum(np.abs(low), np.abs(high)), names, what)


#: Values beyond this magnitude (or non-zero columns entirely below its reciprocal) are refused:
#: sums of squares over many rows would overflow (or underflow to zero) in double precision.
MAX_MAGNITUDE = 1e100


def _check_magnitude(peak: np.ndarray, names: list[str], what: str) -> None:
    """``peak`` holds each column's largest absolute value."""
    bad = np.flatnonzero((peak > MAX_MAGNITUDE) | ((peak > 0) & (peak < 1 / MAX_MAGNITUDE)))
    if bad.size:
        col = int(bad[0])
        raise ValueError(
            f"{what} column {names[col]!r} has values of magnitude {peak[col]:.1e}, beyond what "
            f"sums of squares can hold in double precision (1e-100 to 1e100); rescale it, e.g. "
            f"divide by {peak[col]:.0e} or take logs (SDR directions only change scale)."
        )


def _check_object_columns(frame: pd.DataFrame, columns: list[str]) -> None:
    """Refuse object columns that mix value types (numbers and strings, say)."""
    for col in columns:
        series = frame[col]
        if series.dtype != object:
            continue
        kinds = {type(v).__name__ for v in series.dropna()}
        if len(kinds) > 1 and not kinds <= {"int", "float", "bool"}:
            raise ValueError(
                f"Column {col!r} mixes value types {sorted(kinds)}; convert it to one type, e.g. "
                f"data[{col!r}].astype(str) for a factor or pd.to_numeric(data[{col!r}]) for "
                "numbers."
            )


def _is_label_column(series: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series))


def _label_term(term: str, data: pd.DataFrame) -> str | None:
    """The column behind a response term that should be read as a class label, else None."""
    inner = term
    m = re.fullmatch(r"C\((.+)\)", term)
    if m:
        inner = m.group(1).strip()
    m = re.fullmatch(r"Q\(\s*[\"'](.+)[\"']\s*\)", inner)
    if m:
        inner = m.group(1)
    if inner in data.columns and (term != inner and term.startswith("C(") or _is_label_column(data[inner])):
        return inner
    return None


def parse(formula: str, data: Any, *, missing: str = "drop") -> ModelSpec:
    """Evaluate ``formula`` on ``data`` and return the model spec.

    Parameters
    ----------
    formula : str
        ``"response ~ predictors"`` in patsy syntax, with R's ``.`` for all other columns.
    data : pandas.DataFrame
        The data; it is never modified.
    missing : {"drop", "raise"}
        Rows with a missing value in any variable of the formula are dropped with a
        :class:`~sdrstats.MissingValueWarning` saying how many (``"drop"``), or raise.

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
    data = _check_data(data)
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
        rhs = re.sub(r"(?<![\w.])\.(?![\w.])", "(" + " + ".join(map(_quote, others)) + ")", rhs)

    _check_object_columns(frame, _mentioned_columns(lhs + " " + rhs, columns))
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


__all__ = ["ModelSpec", "parse", "from_arrays"]
