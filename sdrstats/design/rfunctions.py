"""R's functions in formulas: ``factor``, ``as.factor``, ``ordered``, ``as.numeric``, ``poly``
and ``scale``, computing what R computes.

Formula text is rewritten before patsy sees it (:mod:`sdrstats.design.rsyntax`): R's dotted
names become Python names (``as.factor`` is :func:`as_factor`, ``as.numeric`` is
:func:`as_numeric`), and a bare ordered categorical column ``size`` becomes
``ordered_column(size)``, so it gets R's polynomial contrasts while it is shown as ``size``.

* :func:`factor`, :func:`as_factor` code their argument as a factor (R's ``contr.treatment``:
  the first level is the reference), or with R's polynomial contrasts (``contr.poly``, patsy's
  ``Poly``, the same numbers) when it is an ordered categorical, as R keeps a factor ordered.
  :func:`ordered` always uses polynomial contrasts. Levels are R's: the distinct values sorted
  (or a categorical's categories in their order), or those given by ``levels=``.
* :func:`as_numeric` is R's ``as.numeric``: numbers stay numbers, ``TRUE``/``FALSE`` become
  1/0 and a factor (a categorical, or a text column, which is a factor here) becomes its
  level codes 1, 2, ... (R's, not the level values), the levels fixed by the fit.
* :func:`poly` is R's ``poly(x, degree)``: orthogonal polynomials of the fitted rows, unit
  columns orthogonal to the constant and each other, each with a positive leading coefficient
  (R's sign convention); new rows (``transform(newdata)``) go through R's three-term
  recurrence with the fit's coefficients, as R's ``predict`` does. ``raw = TRUE`` gives the
  powers ``x, x^2, ...``.
* :func:`scale` is R's ``scale(x)``: centred by the mean and divided by the standard deviation
  (denominator ``n - 1``), both of the fitted rows and reused for new rows; ``center =`` and
  ``scale =`` take ``TRUE``/``FALSE`` or numbers as in R. (patsy's own ``scale`` divides by
  the ``n``-denominator deviation; ``standardize`` keeps that meaning.)

Missing values are left out when these learn from a column (R's ``scale`` does the same; R's
``poly`` refuses them) and stay missing, so their rows are dropped with the usual warning.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from patsy.categorical import C
from patsy.contrasts import Poly, Treatment
from patsy.state import stateful_transform


class RPoly(Poly):
    """R's ``contr.poly``: patsy's polynomial contrasts, and R's full dummy coding where a
    term needs the factor coded in full (``x:o`` without ``o``'s main effect), where patsy's
    ``Poly`` would add a constant column to its polynomials."""

    def code_with_intercept(self, levels: Any) -> Any:
        return Treatment().code_with_intercept(levels)


def _is_ordered(x: Any) -> bool:
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, pd.CategoricalDtype) and bool(dtype.ordered)


def _levels(levels: Any) -> Any:
    if levels is None:
        return None
    if isinstance(levels, (str, bytes)) or not np.iterable(levels):
        levels = [levels]
    return list(levels)


def factor(x: Any, levels: Any = None, ordered: bool | None = None) -> Any:
    """R's ``factor(x)``: ``x`` coded as a factor (treatment contrasts; polynomial contrasts
    when ``x`` is an ordered categorical or ``ordered = TRUE``).

    Examples
    --------
    >>> import pandas as pd, patsy
    >>> patsy.dmatrix("factor(cyl)", pd.DataFrame({"cyl": [4, 6, 8, 6]})).design_info.column_names
    ['Intercept', 'factor(cyl)[T.6]', 'factor(cyl)[T.8]']
    """
    if ordered is None:
        ordered = _is_ordered(x)
    return C(x, RPoly if ordered else None, levels=_levels(levels))


def as_factor(x: Any) -> Any:
    """R's ``as.factor(x)`` (written so in formulas): as :func:`factor`."""
    return factor(x)


def ordered(x: Any, levels: Any = None) -> Any:
    """R's ``ordered(x)``: ``x`` as an ordered factor, coded by R's polynomial contrasts
    (``.L``, ``.Q``, ``.C``, ``^4``...)."""
    return factor(x, levels=levels, ordered=True)


def ordered_column(x: Any) -> Any:
    """An ordered categorical column standing as a predictor: polynomial contrasts, as R codes
    an ordered factor; the formula front writes it for the bare column and shows its name."""
    return C(x, RPoly)


class AsNumeric:
    """R's ``as.numeric(x)`` as a stateful transform: numbers as floats, ``TRUE``/``FALSE`` as
    1/0, a factor as its level codes 1, 2, ... (R's ``as.numeric`` of a factor, not its
    labels). A text column is a factor here, as it is among the predictors: its levels are
    the fitted rows' distinct values sorted (a categorical's categories in their order), and
    new rows are coded with the fit's levels. Missing values stay missing.

    Examples
    --------
    >>> import pandas as pd, patsy
    >>> df = pd.DataFrame({"g": ["b", "a", None, "c"], "y": [1.0, 2.0, 3.0, 4.0]})
    >>> patsy.dmatrix("0 + as_numeric(g)", df, eval_env=patsy.EvalEnvironment(
    ...     [{"as_numeric": as_numeric}])).ravel().tolist()
    [2.0, 1.0, 3.0]
    """

    def __init__(self) -> None:
        self.levels: list[Any] | None = None
        self._seen: list[Any] = []

    def memorize_chunk(self, x: Any) -> None:
        series = x if isinstance(x, pd.Series) else pd.Series(np.asarray(x))
        if isinstance(series.dtype, pd.CategoricalDtype):
            self.levels = list(series.cat.categories)
        elif _is_text(series):
            self._seen.extend(series.dropna().unique().tolist())

    def memorize_finish(self) -> None:
        if self.levels is None and self._seen:
            self.levels = sorted(set(self._seen))
        self._seen = []

    def transform(self, x: Any) -> np.ndarray:
        series = x if isinstance(x, pd.Series) else pd.Series(np.asarray(x))
        if isinstance(series.dtype, pd.CategoricalDtype) or _is_text(series):
            levels = self.levels if self.levels is not None else sorted(series.dropna().unique())
            codes = pd.Index(levels).get_indexer(series.astype(object))
            unseen = (codes < 0) & series.notna().to_numpy()
            if unseen.any():
                shown = sorted(map(str, pd.unique(series[unseen])))[:5]
                raise ValueError(
                    f"as.numeric(): level(s) {shown} were not seen when fitting; the fit's "
                    f"levels are {list(levels)}."
                )
            return np.where(codes < 0, np.nan, codes + 1.0)
        if pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_numeric_dtype(series.dtype):
            return series.to_numpy(dtype=float, na_value=np.nan)
        values = series.dropna()
        if values.map(lambda v: isinstance(v, (bool, np.bool_))).all():
            return series.map(lambda v: np.nan if v is None else float(v)).to_numpy(dtype=float)
        raise ValueError(
            "as.numeric() needs numbers, TRUE/FALSE or a factor; it got values of types "
            f"{sorted({type(v).__name__ for v in values})}."
        )

    def __getstate__(self) -> dict[str, Any]:
        raise NotImplementedError("as.numeric()'s state is rebuilt from the data, never pickled")


def _is_text(series: pd.Series) -> bool:
    if pd.api.types.is_string_dtype(series.dtype) and not pd.api.types.is_object_dtype(
        series.dtype
    ):
        return True
    if not pd.api.types.is_object_dtype(series.dtype):
        return False
    values = series.dropna()
    return bool(len(values)) and values.map(lambda v: isinstance(v, str)).all()


def _column(x: Any, name: str) -> np.ndarray:
    values = np.asarray(x, dtype=float)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(f"{name}() takes one column; got an array of shape {values.shape}.")
    return values


class Poly_:
    """R's ``poly(x, degree = 1, raw = FALSE)`` as a stateful transform (see the module)."""

    def __init__(self) -> None:
        self._chunks: list[np.ndarray] = []
        self.alpha: np.ndarray | None = None
        self.norm2: np.ndarray | None = None

    def memorize_chunk(self, x: Any, degree: int = 1, raw: bool = False) -> None:
        self._chunks.append(_column(x, "poly"))

    def memorize_finish(self) -> None:
        x = np.concatenate(self._chunks) if self._chunks else np.empty(0)
        self._chunks = []
        self.x = x[~np.isnan(x)]

    def _coefficients(self, degree: int) -> None:
        # R's poly(): xbar, then alpha and norm2 of the monic orthogonal polynomials (the
        # QR of the centred powers; here the same numbers by Stieltjes' recurrence)
        x = self.x
        if degree >= np.unique(x).size:
            raise ValueError(
                f"poly(): 'degree' ({degree}) must be less than the number of distinct values "
                f"of x ({np.unique(x).size}), as in R."
            )
        xbar = x.mean()
        xc = x - xbar
        alpha = np.empty(degree)
        norm2 = np.empty(degree + 2)
        norm2[0] = 1.0
        previous, current = np.zeros_like(xc), np.ones_like(xc)
        norm2[1] = xc.size
        for k in range(degree):
            alpha[k] = np.dot(xc, current**2) / norm2[k + 1]
            following = (xc - alpha[k]) * current - (norm2[k + 1] / norm2[k]) * previous
            previous, current = current, following
            norm2[k + 2] = np.dot(current, current)
        self.alpha, self.norm2, self.xbar = alpha + xbar, norm2, xbar

    def transform(self, x: Any, degree: int = 1, raw: bool = False) -> np.ndarray:
        values = _column(x, "poly")
        degree = _degree(degree)
        if raw:
            return np.column_stack([values**k for k in range(1, degree + 1)])
        if self.alpha is None or self.alpha.size != degree:
            self._coefficients(degree)
        alpha, norm2 = self.alpha, self.norm2
        # R's predict.poly: the three-term recurrence with the fitted alpha and norm2
        Z = np.empty((values.size, degree + 1))
        Z[:, 0] = 1.0
        Z[:, 1] = values - alpha[0]
        for i in range(1, degree):
            Z[:, i + 1] = (values - alpha[i]) * Z[:, i] - (norm2[i + 1] / norm2[i]) * Z[:, i - 1]
        return Z[:, 1:] / np.sqrt(norm2[2:])

    def __getstate__(self) -> dict[str, Any]:
        raise NotImplementedError("poly()'s state is rebuilt from the data, never pickled")


def _degree(degree: Any) -> int:
    if isinstance(degree, (bool, np.bool_)) or not float(degree).is_integer() or degree < 1:
        raise ValueError(f"poly(): 'degree' must be a whole number >= 1; got {degree!r}.")
    return int(degree)


class Scale:
    """R's ``scale(x, center = TRUE, scale = TRUE)`` as a stateful transform."""

    def __init__(self) -> None:
        self._chunks: list[np.ndarray] = []
        self.center: float | None = None
        self.scale: float | None = None

    def memorize_chunk(self, x: Any, center: Any = True, scale: Any = True) -> None:
        self._chunks.append(_column(x, "scale"))

    def memorize_finish(self) -> None:
        x = np.concatenate(self._chunks) if self._chunks else np.empty(0)
        self._chunks = []
        self.x = x[~np.isnan(x)]

    def _fit(self, center: Any, scale: Any) -> None:
        x = self.x
        # R's scale.default: the centre is the mean (or the number given); the scale is the
        # root mean square of the centred values with denominator n - 1 (the sd when centred)
        if isinstance(center, (bool, np.bool_)):
            self.center = float(x.mean()) if center else 0.0
        else:
            self.center = float(center)
        if isinstance(scale, (bool, np.bool_)):
            if scale:
                centred = x - self.center
                self.scale = float(np.sqrt(np.dot(centred, centred) / max(1, x.size - 1)))
            else:
                self.scale = 1.0
        else:
            self.scale = float(scale)

    def transform(self, x: Any, center: Any = True, scale: Any = True) -> np.ndarray:
        if self.center is None:
            self._fit(center, scale)
        return (_column(x, "scale") - self.center) / self.scale

    def __getstate__(self) -> dict[str, Any]:
        raise NotImplementedError("scale()'s state is rebuilt from the data, never pickled")


def r_not(x: Any) -> np.ndarray:
    """R's ``!x`` (written so in formulas): the element-wise logical negation.

    Examples
    --------
    >>> r_not([True, False]).tolist()
    [False, True]
    """
    return np.logical_not(np.asarray(x))


def r_mod(x: Any, y: Any) -> Any:
    """R's ``x %% y`` (written so in formulas): the remainder with the sign of ``y``.

    Examples
    --------
    >>> r_mod(np.array([7, -7]), 3).tolist()
    [1, 2]
    """
    return np.mod(x, y)


def r_intdiv(x: Any, y: Any) -> Any:
    """R's ``x %/% y`` (written so in formulas): division rounded down.

    Examples
    --------
    >>> r_intdiv(np.array([7, -7]), 2).tolist()
    [3, -4]
    """
    return np.floor_divide(x, y)


def r_group(x: Any) -> Any:
    """Parentheses R's precedence implies and Python's would not (``x > 3 & z < 2`` is
    ``(x > 3) & (z < 2)`` in R): the value itself, shown without them.

    Examples
    --------
    >>> r_group(3)
    3
    """
    return x


poly = stateful_transform(Poly_)
scale = stateful_transform(Scale)
as_numeric = stateful_transform(AsNumeric)

#: The functions a formula (and a formula read back from saved state) may call by R's name;
#: ``as_factor`` and ``as_numeric`` are R's ``as.factor`` and ``as.numeric``.
R_FORMULA_FUNCTIONS: dict[str, Any] = {
    "factor": factor,
    "as_factor": as_factor,
    "ordered": ordered,
    "ordered_column": ordered_column,
    "as_numeric": as_numeric,
    "poly": poly,
    "scale": scale,
    "r_not": r_not,
    "r_mod": r_mod,
    "r_intdiv": r_intdiv,
    "r_group": r_group,
}

#: Functions whose first argument is coded as a factor.
FACTOR_FUNCTIONS = frozenset({"C", "factor", "as_factor", "ordered", "ordered_column"})

__all__ = [
    "factor",
    "as_factor",
    "ordered",
    "ordered_column",
    "as_numeric",
    "poly",
    "scale",
    "r_not",
    "r_mod",
    "r_intdiv",
    "r_group",
    "R_FORMULA_FUNCTIONS",
    "FACTOR_FUNCTIONS",
]
