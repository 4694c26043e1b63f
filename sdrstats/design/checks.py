"""Input checks of the formula and array fronts: one place for their messages."""

from __future__ import annotations

import difflib
import json
import keyword
import re
from typing import Any

import numpy as np
import pandas as pd


def _check_data(data: Any) -> pd.DataFrame:
    if isinstance(data, dict):
        data = pd.DataFrame(data)
    pieces = isinstance(data, (list, tuple)) and bool(data)
    if (pieces and all(isinstance(piece, pd.DataFrame) for piece in data)) or hasattr(
        data, "__next__"
    ):
        raise TypeError(
            f"data must be a pandas DataFrame (or a dict of columns); got a "
            f"{type(data).__name__}. For data in pieces, pass sdr.chunks_from(pieces) (a list "
            "of DataFrames, or a function returning an iterator of them) or "
            "sdr.read_csv_chunks(path); for one frame, pandas.concat(pieces) first."
        )
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            "data must be a pandas DataFrame (or a dict of columns); got "
            f"{type(data).__name__}. Build one with pandas.DataFrame(...) first."
        )
    if data.shape[0] == 0:
        raise ValueError("data has no rows; an SDR fit needs observations.")
    if data.columns.is_unique and all(isinstance(c, str) for c in data.columns):
        return data  # unique text labels (the usual case): neither check below can fail
    dup = data.columns[data.columns.duplicated()].unique().tolist()
    if dup:
        raise ValueError(
            f"data has duplicated column names {dup}; rename them so each column is unique."
        )
    as_text = pd.Index([str(c) for c in data.columns])
    clash = as_text[as_text.duplicated()].unique().tolist()
    if clash:
        same = [c for c in data.columns if str(c) in clash]
        raise ValueError(
            f"data has column names {same!r} that are the same as text ({clash}); formulas "
            "name columns by text, so rename them, e.g. data.columns = data.columns.map(str) "
            "after making them unique."
        )
    return data


def _explain_patsy_error(exc: Exception, data: pd.DataFrame, what: str, text: str = "") -> str:
    message = str(exc)
    columns = list(map(str, data.columns))
    match = re.search(r"name '([^']+)' is not defined", message)
    if match:
        hint = unknown_name(dotted_token(text, match.group(1)), columns, what)
        # a column whose name is an expression (``log(w)``) appears verbatim: patsy read it
        # as that expression; quoting it means the column
        shown = [c for c in columns if not _IDENTIFIER.match(c) and c in text]
        if shown:
            hint += (
                f" {what} has a column named {shown[0]!r}, which the formula's text reads as an "
                f"expression: write {_quote(shown[0])} to use that column."
            )
        return hint
    match = re.search(r"no data named '(.+)' found", message)
    if match:
        return unknown_name(match.group(1), columns, what, quoted=True)
    if "object is not callable" in message:
        called = [c for c in columns if re.search(rf"(?<![\w.]){re.escape(c)}\s*\(", text)]
        if called:
            return (
                f"{what} has a column named {called[0]!r}, which the formula calls as a function; "
                "rename the column, or write np.<function>(...) for a numpy function."
            )
    text = message
    match = re.search(
        r"observation with value (.+?) does not match any of the expected levels", text
    )
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


def check_finite(values: np.ndarray, names: list[str], what: str) -> None:
    """Refuse infinite/undefined values and magnitudes sums of squares cannot hold.

    Two reductions (column minima and maxima) find both problems without an n x p temporary;
    the rows are scanned only to name the first bad one.

    Parameters
    ----------
    values : ndarray of shape (n, k)
        Predictor or response columns (other dtypes than floats pass).
    names : list of str
        The columns' names, for the message.
    what : str
        What the columns are (``"Predictor"``, ``"Response (chunk 3)"``).

    Raises
    ------
    ValueError
        Naming the column and the first row position of a bad value.

    Examples
    --------
    >>> check_finite(np.array([[1.0], [np.inf]]), ["x"], "Predictor")
    Traceback (most recent call last):
    ...
    ValueError: Predictor column 'x' has 1 infinite or undefined value(s) (first at row position 1); ...
    """
    if values.size == 0 or values.dtype.kind not in "fc":
        return
    if values.ndim == 2 and values.dtype.kind == "f" and clearly_fine(values):
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


def clearly_fine(values: np.ndarray) -> bool:
    """True when every value of the float matrix is finite and within the magnitudes
    :func:`_check_magnitude` allows, decided from one pass of column sums of squares.

    A sum of squares is NaN or infinite when the column holds NaN or inf (or squares that
    overflow), and ``sqrt(Σx²/n) ≤ max|x| ≤ sqrt(Σx²)``; a column these bounds leave undecided
    (or a zero sum, which tiny values can underflow to) returns False, and the caller
    checks it exactly with the column extremes.
    """
    with np.errstate(all="ignore"):
        squares = np.einsum("ij,ij->j", values, values)
    return squares_clearly_fine(squares, values.shape[0])


def squares_clearly_fine(squares: np.ndarray, n_rows: float) -> bool:
    """:func:`clearly_fine` from the column sums of squares ``squares`` of ``n_rows`` rows
    (however they were found: a moment fit takes them from its first pass's moments).

    Examples
    --------
    >>> squares_clearly_fine(np.array([4.0, 9.0]), 2), squares_clearly_fine(np.array([np.nan]), 2)
    (True, False)
    """
    squares = np.asarray(squares, dtype=float)
    if not np.all(np.isfinite(squares)) or np.any(squares <= 0):
        return False
    with np.errstate(all="ignore"):
        low_peak, high_peak = np.sqrt(squares / n_rows), np.sqrt(squares)
    return bool(np.all(high_peak <= MAX_MAGNITUDE) and np.all(low_peak >= 1 / MAX_MAGNITUDE))


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


_NUMBER_TYPES = (int, float, np.integer, np.floating)


def _check_object_columns(
    frame: pd.DataFrame,
    columns: list[str],
    labels: tuple[str, ...] = (),
    index: pd.Index | None = None,
) -> None:
    """Put the columns a formula uses into the dtypes patsy reads as R's model.frame would.

    ``frame`` is the caller-independent shallow copy of the data; converted columns replace
    its entries (the caller's frame is never touched). Nullable and pyarrow dtypes become
    numpy floats (``pd.NA`` -> NaN, a missing value) or object columns with ``None``; an object
    column holding only numbers (with ``None`` or NaN) becomes float, not a factor with a level
    per value. Refused, naming the column: datetime/timedelta/period columns, numbers stored as
    text, object columns mixing numbers with strings, and columns of numbers with a few
    values that are not numbers (a missing-value code such as ``"?"``: named with their rows,
    ``index`` giving the row labels of ``frame``'s rows). Columns in ``labels`` (the response)
    may hold text, digits included: a text response is a class label; but numbers with a few
    odd values are refused there too, as they would make a class per number.
    """
    times = []
    rows = frame.index if index is None else index
    for col in columns:
        series = frame[col]
        dtype = series.dtype
        if (
            pd.api.types.is_datetime64_any_dtype(dtype)
            or pd.api.types.is_timedelta64_dtype(dtype)
            or isinstance(dtype, pd.PeriodDtype)
        ):
            times.append(col)
        elif isinstance(dtype, pd.CategoricalDtype):
            continue
        elif pd.api.types.is_extension_array_dtype(dtype):
            if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
                frame[col] = series.astype(object).where(series.notna(), None)
                _check_object_column(frame, col, col in labels, rows)
            else:
                frame[col] = series.to_numpy(dtype=float, na_value=np.nan)
        elif pd.api.types.is_object_dtype(dtype):
            _check_object_column(frame, col, col in labels, rows)
    if times:
        raise ValueError(
            f"Column(s) {times} hold dates or durations, which are not predictors; exclude them "
            f"(data.drop(columns={times}), or 'y ~ . - {times[0]}') or include a numeric "
            f"version, e.g. data[{times[0]!r}].astype('int64') or the days since a start."
        )


def _check_object_column(
    frame: pd.DataFrame, col: str, label: bool = False, rows: pd.Index | None = None
) -> None:
    series = frame[col]
    values = series[series.notna()]
    kind = pd.api.types.infer_dtype(values, skipna=True)  # one C pass over the values
    if kind == "string" and len(values):
        # Python strings only (a factor): the numbers-as-text checks need only the distinct
        # values and how often each occurs, not a parse of every row
        counts = values.value_counts(sort=False)
        if len(counts) > 2:
            _check_text_numbers(col, counts, series, rows, label=label)
        return
    numbers = values.map(lambda v: isinstance(v, _NUMBER_TYPES) and not isinstance(v, bool))
    if len(values) and numbers.all():
        frame[col] = pd.to_numeric(series.where(series.notna(), np.nan), errors="raise").astype(
            float
        )
        return
    kinds = {type(v).__name__ for v in values}
    if numbers.any() and len(kinds) > 1:
        odd = values[~numbers.to_numpy()]
        if numbers.mean() >= _MOSTLY_NUMBERS and all(isinstance(v, str) for v in odd):
            _refuse_odd_values(col, odd.value_counts(sort=False), series, rows, label)
        raise ValueError(
            f"Column {col!r} mixes value types {sorted(kinds)}; convert it to one type, e.g. "
            f"data[{col!r}].astype(str) for a factor or pd.to_numeric(data[{col!r}]) for "
            "numbers."
        )
    if kinds == {"str"} and values.nunique() > 2:
        _check_text_numbers(col, values.value_counts(sort=False), series, rows, label=label)


#: A text column whose values are numbers in at least this share of its rows is numbers with
#: a few odd values (a missing-value code such as "?"), not a factor.
_MOSTLY_NUMBERS = 0.9


def _check_text_numbers(
    col: str,
    counts: pd.Series,
    series: pd.Series | None = None,
    rows: pd.Index | None = None,
    *,
    label: bool = False,
) -> None:
    """Refuse a text column that holds numbers (``counts``: each distinct text, how often).

    A response (``label``) of numbers stored as text is a class label ("0", "1", "2"); with
    a few values that are not numbers it is refused as a predictor is.
    """
    texts = pd.Series(counts.index, dtype=object)
    parsed = pd.to_numeric(texts, errors="coerce")
    weight = counts.to_numpy()
    odd = parsed.isna().to_numpy()
    n_odd, n_all = int(weight[odd].sum()), int(weight.sum())
    # almost all numbers: a missing-value code such as "?" or "NA " in a numeric column,
    # which would otherwise turn it into a factor with a level per number
    if n_odd and (n_all - n_odd) / n_all >= _MOSTLY_NUMBERS:
        _refuse_odd_values(col, counts[odd], series, rows, label)
    if not odd.any() and not label:
        raise ValueError(
            f"Column {col!r} holds numbers stored as text (e.g. {texts.iloc[0]!r}), which "
            f"would become a factor with {len(texts)} levels; convert it with "
            f"data[{col!r}] = pd.to_numeric(data[{col!r}]), or make it a categorical "
            f"(data[{col!r}].astype('category')) if it is a factor."
        )


def _refuse_odd_values(
    col: str, odd: pd.Series, series: pd.Series | None, rows: pd.Index | None, label: bool
) -> None:
    """The error for a column of numbers with a few values that are not (``odd``: each such
    value, how often), naming the values and the first rows that hold them."""
    shown = sorted(map(str, odd.index))[:5]
    n_odd = int(odd.sum())
    where = ""
    if series is not None:
        at = np.flatnonzero(series.isin(list(odd.index)).to_numpy())
        labels = (series.index if rows is None else rows)[at[:5]].tolist()
        where = f" at row(s) {labels}{' ...' if at.size > 5 else ''}"
    n_levels = int(series.nunique()) if series is not None else len(odd)
    becomes = (
        f"the response would be read as a class label with {n_levels} classes"
        if label
        else f"it would become a factor with {n_levels} levels"
    )
    raise ValueError(
        f"Column {col!r} holds numbers except for {n_odd} value(s) {shown}{where} that are "
        f"not numbers (a missing-value code?); {becomes}. Read them as missing "
        f"(pd.read_csv(..., na_values={shown!r}), or data[{col!r}] = "
        f"pd.to_numeric(data[{col!r}], errors='coerce')), or correct them."
    )


def _is_label_column(series: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series))


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _quote(name: str) -> str:
    """The formula text that refers to column ``name`` by reference, never as code.

    A plain identifier stands for itself; anything else becomes ``Q(<string literal>)``, with the
    literal escaped by ``json.dumps`` (a valid Python string literal), so a column name is only
    ever looked up as a name: a hostile header such as ``x") + I(__import__("os")...)`` stays
    one string and cannot close the quote and run code. Keywords (``class``, ``None``) are
    quoted too. For names without quotes, backslashes or control characters the text is
    ``Q("name")``, exactly as before.
    """
    if _IDENTIFIER.match(name) and not keyword.iskeyword(name):
        return name
    return f"Q({json.dumps(name, ensure_ascii=False)})"


_STRING_LITERAL = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


def _mentioned_columns(text: str, columns: list[str]) -> list[str]:
    found = []
    # a bare name is never inside a string literal: Q("y ") names the column "y ", not y
    code = _STRING_LITERAL.sub(" ", text)
    for col in columns:
        if _IDENTIFIER.match(col):
            if re.search(rf"(?<![\w.]){re.escape(col)}(?![\w])", code):
                found.append(col)
        elif f'"{col}"' in text or f"'{col}'" in text or _quote(col) in text:
            found.append(col)
    return found


def _masked(text: str) -> str:
    """``text`` with every string literal's inside blanked (same length)."""
    return _STRING_LITERAL.sub(
        lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], text
    )


def unknown_name(name: str, columns: list[str], what: str = "data", quoted: bool = False) -> str:
    """The message for a name that is neither a column nor a known function."""
    how = "quotes {!r} with Q()" if quoted else "names {!r}"
    close = difflib.get_close_matches(name, columns, n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return (
        f"The formula {how.format(name)}, which is not a column of {what}"
        f"{'' if quoted else ' nor a known function'}; available columns: {list(columns)}.{hint}"
    )


def dotted_token(text: str, name: str) -> str:
    """The whole dotted token of ``text`` that starts with the undefined ``name``
    (``MPG.cty`` for patsy's ``MPG``), else ``name``."""
    m = re.search(rf"(?<![\w.]){re.escape(name)}((?:\.\w+)+)", _masked(text))
    return name + m.group(1) if m else name
