"""The array front: a predictor matrix and a response become a :class:`ModelSpec`.

What :func:`sdrstats.design.formula.parse` does for a formula and a data frame, for code that already
holds arrays (``Estimator.fit(X, y)``); re-exported by :mod:`sdrstats.design.formula`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..base.warnings import MissingValueWarning
from .checks import _check_magnitude, _is_label_column, check_finite, clearly_fine
from .spec import ModelSpec


def _no_rows_left(Xa: np.ndarray, x_names: list[str], y_ok: np.ndarray, y_names: Any) -> None:
    """Refuse data that lose every row to missing values, naming the empty columns."""
    empty = list(y_names) if y_ok.size and not y_ok.any() else []
    if Xa.shape[0] and Xa.dtype.kind == "f":
        empty += [x_names[j] for j in np.flatnonzero(np.isnan(Xa).all(axis=0))]
    raise ValueError(
        "No rows are left after dropping rows with missing values"
        + (
            f": column(s) {empty} have no values at all; remove them (or fill them)."
            if empty
            else ": every row misses a value; remove the emptiest columns, or impute."
        )
    )


def from_arrays(X: Any, y: Any, *, missing: str = "drop", check_x: bool = True) -> ModelSpec:
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
    check_x : bool, default True
        Scan the predictors for missing, infinite and out-of-range values. False leaves that
        to a fit whose first pass over the rows finds the same column sums of squares (the
        spec's ``x_checked`` is then False; see :class:`sdrstats.scale.rows.RowsInMemory`):
        such a fit reads the rows once less. The response is checked either way.

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
    Xa, x_columns, index = _predictor_matrix(X)
    x_names = x_columns or [f"x{j + 1}" for j in range(Xa.shape[1])]
    n_rows = Xa.shape[0]
    y_numeric, y_values, y_names = _response_input(y)
    n_y = (y_numeric if y_numeric is not None else y_values).shape[0]
    if n_y != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {n_y}; they must match.")
    label = False
    if y_numeric is None:
        y_values = y_values.reset_index(drop=True)
        y_values.columns = y_names
        label = y_values.shape[1] == 1 and _is_label_column(y_values.iloc[:, 0])
        y_ok = y_values.notna().all(axis=1).to_numpy()
    else:
        y_ok = ~np.isnan(y_numeric).any(axis=1)
    # rows dropped for the response: the warning counts the predictors' missing rows too
    check_x = check_x or not y_ok.all()
    # one pass of column sums of squares, unless the fit's first pass takes them
    fine = Xa.dtype.kind == "f" and (not check_x or clearly_fine(Xa))
    if not fine:
        low, high = Xa.min(axis=0), Xa.max(axis=0)  # NaN and inf propagate
    x_finite = fine or bool(np.isfinite(low).all() and np.isfinite(high).all())
    x_ok = np.ones(n_rows, dtype=bool) if x_finite else ~np.isnan(Xa).any(axis=1)
    mask = x_ok & y_ok
    n_dropped = int((~mask).sum())
    if n_dropped:
        if missing == "raise":
            raise ValueError(f"{n_dropped} row(s) of X or y have missing values; drop them first.")
        warnings.warn(
            f"Dropped {n_dropped} of {n_rows} rows with missing values.",
            MissingValueWarning,
            stacklevel=3,
        )
        if not mask.any():
            _no_rows_left(Xa, x_names, y_ok, y_names)
        Xa = Xa[mask]
    elif np.may_share_memory(Xa, X):
        # No copy of the caller's array (it can be large): a read-only view, so nothing in
        # sdrstats can write to it. Changing the array afterwards changes what the fit sees.
        Xa = Xa.view()
        Xa.flags.writeable = False
    if Xa.shape[0] == 0:
        _no_rows_left(Xa, x_names, y_ok, y_names)
    if not fine:  # (clearly fine columns need no second look)
        if x_finite:
            _check_magnitude(np.maximum(np.abs(low), np.abs(high)), x_names, "Predictor")
        else:
            check_finite(Xa, x_names, "Predictor")
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
        check_finite(Y, y_names, "Response")
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
        positions=np.flatnonzero(mask) if n_dropped else None,
        x_checked=check_x or Xa.dtype.kind != "f",
    )


def _predictor_matrix(X: Any) -> tuple[np.ndarray, list[str] | None, pd.Index]:
    """``X`` as a float matrix, its column names (a DataFrame's) and its row index."""
    if isinstance(X, pd.DataFrame):
        non_numeric = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        if non_numeric:
            raise ValueError(
                f"X has non-numeric column(s) {non_numeric}; code them as numbers or use the "
                "formula interface, which codes factors."
            )
        Xa = X.to_numpy(dtype=float)
        x_columns: list[str] | None = [str(c) for c in X.columns]
        index = X.index
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
    return Xa, x_columns, index


def _response_input(y: Any) -> tuple[np.ndarray | None, pd.DataFrame | None, list[str]]:
    """``y`` as a float matrix (numeric arrays: no pandas round trip) or else as a frame."""
    if isinstance(y, np.ndarray) and y.dtype.kind in "fiu" and y.ndim in (1, 2):
        numeric = (y.reshape(-1, 1) if y.ndim == 1 else y).astype(float, copy=False)
        q = numeric.shape[1]
        return numeric, None, ["y"] if q == 1 else [f"y{j + 1}" for j in range(q)]
    if isinstance(y, pd.DataFrame):
        return None, y, [str(c) for c in y.columns]
    if isinstance(y, pd.Series):
        return None, y.to_frame(), [str(y.name) if y.name is not None else "y"]
    arr = np.asarray(y)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    names = ["y"] if arr.shape[1] == 1 else [f"y{j + 1}" for j in range(arr.shape[1])]
    return None, pd.DataFrame(arr, columns=names), names


__all__ = ["from_arrays"]
