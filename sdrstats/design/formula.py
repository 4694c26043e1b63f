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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ..core.warnings import MissingValueWarning
from .arrays import from_arrays
from .checks import (
    _check_data,
    _check_finite,
    _check_object_columns,
    _explain_patsy_error,
    _is_label_column,
    _mentioned_columns,
    _quote,
)
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
    if inner in data.columns and (
        term != inner and term.startswith("C(") or _is_label_column(data[inner])
    ):
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
                'pandas query on its columns, e.g. "sex == \'f\'" or "ht > 175".'
            ) from None
        if not isinstance(mask, pd.Series) or mask.dtype != bool:
            raise ValueError(
                f"The 'subset' query {subset!r} must give True/False per row (a comparison such "
                'as "ht > 175"); it gave '
                f"{getattr(mask, 'dtype', type(mask).__name__)}."
            )
        mask = mask.to_numpy()
    elif isinstance(subset, pd.Series):
        if subset.dtype != bool:
            raise TypeError(f"A 'subset' Series must be boolean; got dtype {subset.dtype}.")
        if not subset.index.equals(data.index):
            if not data.index.isin(subset.index).all():
                raise ValueError(
                    "The 'subset' Series does not have an entry for every row of data."
                )
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


def parse(
    formula: str,
    data: Any,
    *,
    missing: str = "drop",
    subset: Any = None,
    empty_levels: bool = False,
) -> ModelSpec:
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
    empty_levels : bool, default False
        Allow factor levels without rows (a first chunk of a stream or of chunked data need
        not hold every level); otherwise they are an error naming the level.

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
    lhs, rhs = _split_formula(formula, missing)
    data = select_rows(data, subset)
    columns = [str(c) for c in data.columns]
    frame = data.copy(deep=False)
    frame.columns = columns
    original_index = frame.index
    frame = frame.reset_index(drop=True)

    y_terms = _split_top(lhs)
    if any(t == "" for t in y_terms):
        raise ValueError(f"formula {formula!r} has an empty response term.")
    y_columns = _mentioned_columns(lhs, columns)
    rhs = _expand_dot(rhs, columns, y_columns)
    rhs_columns = _rhs_columns(rhs, columns)
    both = [c for c in y_columns if c in rhs_columns]
    if both:
        raise ValueError(
            f"The response column(s) {both} also appear among the predictors of {formula!r}; "
            "a variable cannot predict itself: remove it from the right of '~'."
        )
    _check_object_columns(frame, y_columns + rhs_columns, labels=tuple(y_columns))
    env = _user_env()
    rhs_design = _predictor_design(rhs, frame, env)
    response = _response(y_terms, frame, env)
    keep = pd.Index(rhs_design.index).intersection(response.rows, sort=False).sort_values()
    n_dropped = _report_missing(frame, keep, lhs + " " + rhs, columns, missing)

    design_info = rhs_design.design_info
    names = list(rhs_design.columns)
    design_columns = np.array([i for i, nm in enumerate(names) if nm != "Intercept"], dtype=int)
    if design_columns.size == 0:
        raise ValueError(f"formula {formula!r} has no predictors besides the intercept.")
    X = rhs_design.loc[keep].to_numpy(dtype=float)[:, design_columns]
    x_names = [names[i] for i in design_columns]
    _check_finite(X, x_names, "Predictor")
    if not empty_levels:
        _check_empty_levels(X, x_names, design_info)
    Y, y_levels = response.values(frame, keep)
    return ModelSpec(
        X=np.ascontiguousarray(X),
        Y=np.ascontiguousarray(Y),
        x_names=x_names,
        y_names=response.names,
        index=original_index[keep.to_numpy()],
        y_levels=y_levels,
        formula=f"{lhs} ~ {rhs}" if "." not in formula else formula,
        design_info=design_info,
        design_columns=design_columns,
        n_dropped=n_dropped,
        rhs=rhs,
        source=frame[_mentioned_columns(rhs, columns)],
    )


_DOT = re.compile(r"(?<![\w.])\.(?![\w.])")
_NA_ACTION = patsy.NAAction(NA_types=["None", "NaN"])


def _check_empty_levels(X: np.ndarray, x_names: list[str], design_info: Any) -> None:
    """A factor level with no row among those fitted gives an all-zero coding column."""
    names = design_info.column_names
    factor_columns: set[str] = set()
    for term in design_info.terms:
        if any(design_info.factor_infos[f].type == "categorical" for f in term.factors):
            part = design_info.term_name_slices[term.name()]
            factor_columns.update(names[part])
    empty = [j for j, name in enumerate(x_names) if name in factor_columns and not X[:, j].any()]
    if empty:
        shown = [x_names[j] for j in empty]
        factor = shown[0].split("[")[0]
        factor = factor if re.fullmatch(r"\w+", factor) else "g"
        raise ValueError(
            f"Factor coding column(s) {shown} are zero in every fitted row: a factor level "
            "has no observations (an unused category, or one whose rows were dropped as "
            "missing or by subset). Drop unused levels first, e.g. "
            f"data[{factor!r}] = data[{factor!r}].cat.remove_unused_categories()."
        )


def _split_formula(formula: Any, missing: str) -> tuple[str, str]:
    """Check the formula's shape and the ``missing`` option; the two sides of ``~``."""
    if not isinstance(formula, str):
        raise TypeError(
            f"formula must be a string such as 'y ~ x1 + x2'; got {type(formula).__name__}."
        )
    if missing not in ("drop", "raise"):
        raise ValueError(f"The 'missing' option must be 'drop' or 'raise'; got {missing!r}.")
    if formula.count("~") != 1:
        raise ValueError(
            f"formula {formula!r} must have exactly one '~' with the response on its left, "
            "e.g. 'y ~ x1 + x2' or 'y ~ .'."
        )
    lhs, rhs = (side.strip() for side in formula.split("~"))
    if not lhs:
        raise ValueError(f"formula {formula!r} has no response; write it as 'y ~ ...'.")
    if not rhs:
        raise ValueError(
            f"formula {formula!r} has no predictors; write 'y ~ .' to use all columns."
        )
    return lhs, rhs


def _expand_dot(rhs: str, columns: list[str], y_columns: list[str]) -> str:
    """R's ``.``: every column that is not a response, each quoted as patsy needs."""
    if not _DOT.search(rhs):
        return rhs
    others = [c for c in columns if c not in y_columns]
    if not others:
        raise ValueError("'.' in the formula found no predictor columns besides the response.")
    expansion = "(" + " + ".join(map(_quote, others)) + ")"
    # A function replacement: re.sub would read backslashes in a string replacement.
    return _DOT.sub(lambda _: expansion, rhs)


def _predictor_design(rhs: str, frame: pd.DataFrame, env: Any) -> pd.DataFrame:
    """patsy's design matrix of the right-hand side (rows with a missing value left out)."""
    try:
        return patsy.dmatrix(
            rhs, frame, eval_env=env, NA_action=_NA_ACTION, return_type="dataframe"
        )
    except patsy.PatsyError as exc:
        raise ValueError(_explain_patsy_error(exc, frame, "data")) from None
    except (NameError, SyntaxError, TypeError, KeyError) as exc:
        raise ValueError(f"Could not evaluate the predictors {rhs!r}: {exc}") from None


@dataclass
class _Response:
    """The left-hand side: a class-label column, or numeric columns from patsy."""

    names: list[str]
    rows: pd.Index
    numeric: pd.DataFrame | None

    def values(self, frame: pd.DataFrame, keep: pd.Index) -> tuple[np.ndarray, list | None]:
        """``Y`` on the kept rows, and the class levels of a label response (else None)."""
        if self.numeric is None:
            labels = pd.Categorical(frame[self.names[0]].loc[keep])
            return np.asarray(labels.codes, dtype=np.int64), list(labels.categories)
        Y = self.numeric.loc[keep].to_numpy(dtype=float)
        _check_finite(Y, self.names, "Response")
        return Y, None


def _response(y_terms: list[str], frame: pd.DataFrame, env: Any) -> _Response:
    label_cols = [_label_term(t, frame) for t in y_terms]
    if any(label_cols):
        if len(y_terms) > 1:
            raise ValueError(
                "A categorical response must be the only response term; got "
                f"{y_terms}. Use one class column, or numeric columns for a multivariate response."
            )
        labels = frame[label_cols[0]]
        return _Response([label_cols[0]], pd.Index(labels.index[labels.notna()]), None)
    plain = [t if t in frame.columns else _quoted_literal(t) for t in y_terms]
    if all(
        c in frame.columns and pd.api.types.is_numeric_dtype(frame[c]) for c in plain
    ) and not any(pd.api.types.is_bool_dtype(frame[c]) for c in plain):
        # columns named as they are: read directly, so a column called I, Q or log cannot
        # shadow the function patsy would wrap the response in
        numeric = frame[plain].astype(float)
        numeric.columns = list(y_terms)
        numeric = numeric[numeric.notna().all(axis=1)]
        return _Response(list(y_terms), pd.Index(numeric.index), numeric)
    try:
        numeric = patsy.dmatrix(
            "0 + " + " + ".join(f"I({t})" for t in y_terms),
            frame,
            eval_env=env,
            NA_action=_NA_ACTION,
            return_type="dataframe",
        )
    except patsy.PatsyError as exc:
        raise ValueError(_explain_patsy_error(exc, frame, "data")) from None
    if numeric.shape[1] != len(y_terms):
        raise ValueError(f"Each response term must give one numeric column; got {y_terms}.")
    return _Response(list(y_terms), pd.Index(numeric.index), numeric)


def _report_missing(
    frame: pd.DataFrame, keep: pd.Index, text: str, columns: list[str], missing: str
) -> int:
    """Warn of (or refuse) the rows a missing value drops; how many there are."""
    n_dropped = frame.shape[0] - len(keep)
    if n_dropped:
        with_na = [c for c in _mentioned_columns(text, columns) if frame[c].isna().any()]
        if missing == "raise":
            raise ValueError(
                f"{n_dropped} row(s) have missing values in {with_na}; drop or impute them, or "
                "pass missing='drop' to drop them."
            )
        warnings.warn(
            f"Dropped {n_dropped} of {frame.shape[0]} rows with missing values in {with_na}.",
            MissingValueWarning,
            stacklevel=4,
        )
    if len(keep) == 0:
        raise ValueError("No rows are left after dropping rows with missing values.")
    return n_dropped


__all__ = ["ModelSpec", "parse", "from_arrays", "select_rows", "describe_subset"]
