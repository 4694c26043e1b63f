"""The model spec: response and predictors of one fit, and how to treat new rows alike."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ..base.persistence import register
from . import builder
from .checks import _check_object_columns, _explain_patsy_error, _mentioned_columns, check_finite
from .rfunctions import R_FORMULA_FUNCTIONS
from .safe_formula import UnsafeFormulaError, rebuild_design_info

_R_NAMES: dict[str, Any] = {
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "abs": np.abs,
    "np": np,
    **R_FORMULA_FUNCTIONS,
}


@register
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
    dropped : str or None
        Why they were dropped, for messages ("9 of 12 rows were dropped for undefined values
        (NaN) of ['log(x1)']"); None when no row was.
    formula, design_info, design_columns, x_columns, rhs, source : optional
        What :meth:`transform_x` needs to put new rows through the same formula transforms
        and factor levels (``None`` for array input).
    notes : tuple of str
        What the formula front did that the summary should say (factor levels dropped).
    positions : ndarray of int or None
        0-based positions of the fitted rows among the rows given (after ``subset``), when
        rows were dropped for missing values; ``None`` when the fitted rows are rows
        ``0..n-1``. The Poisson bootstrap keys each row's counts by its position.
    case_weights : ndarray of shape (n,) or None
        R ``dr``'s case weights of the fitted rows, already rescaled by R's rule (they sum
        to ``n``); ``None`` for an unweighted fit.
    groups : ndarray of shape (n,) or None
        The group of each fitted row (partial IRE's ``group=``), else ``None``.
    n_rows : int or None
        The rows a fit read when the spec holds none of them (chunked or Dask data: ``X``
        then has no rows); ``None`` when ``X`` holds the fitted rows.
    data : object or None
        The chunks or Dask partitions a fit without rows passes over (the generic chunk
        driver of :mod:`sdrstats.scale.fit`); never saved or pickled.
    x_checked : bool
        False while the predictors' scan for missing, infinite and out-of-range values is
        left to the fit's first pass (``from_arrays(check_x=False)``); that pass sets it.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> from sdrstats.design.formula import parse
    >>> spec = parse("lbm ~ log(wt) + factor(sex)", sdr.datasets.load("ais"))
    >>> spec.X.shape, spec.x_names
    ((202, 2), ['log(wt)', 'factor(sex)m'])
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
    positions: np.ndarray | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    case_weights: np.ndarray | None = field(default=None, repr=False)
    groups: np.ndarray | None = field(default=None, repr=False)
    dropped: str | None = field(default=None, repr=False)
    n_rows: int | None = field(default=None, repr=False)
    data: Any = field(default=None, repr=False, compare=False)
    x_checked: bool = field(default=True, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        # patsy's DesignInfo cannot be pickled; it is rebuilt from the right-hand side and
        # the formula's source columns when first needed after unpickling. The chunks a fit
        # without rows read stay with the caller.
        state = dict(self.__dict__)
        state["design_info"] = None
        state["data"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _design(self) -> Any:
        if self.design_info is None and self.rhs is not None and self.source is not None:
            # The formula is stored data now: checked against the allow-list before it runs.
            try:
                self.design_info = rebuild_design_info(self.rhs, self.source)
            except UnsafeFormulaError:
                raise
            except Exception as exc:  # a formula using the caller's own functions
                raise ValueError(
                    "This unpickled fit cannot rebuild its formula's transforms "
                    f"({exc}); pass a numeric predictor matrix to transform instead."
                ) from None
        return self.design_info

    @property
    def n(self) -> int:
        """Rows fitted (those ``X`` holds, or those a fit on chunked data read)."""
        return self.X.shape[0] if self.n_rows is None else self.n_rows

    @property
    def keeps_rows(self) -> bool:
        """Whether ``X`` and ``Y`` hold the fitted rows (False for chunked or Dask data)."""
        return self.n_rows is None

    def resampled(self, X: np.ndarray, Y: np.ndarray, rows: np.ndarray | None = None) -> ModelSpec:
        """The spec of a refit on ``X``, ``Y``, rows of this spec (all of them, or ``rows``).

        ``rows`` says which rows of this spec ``X`` and ``Y`` hold (a bootstrap draw, repeats
        allowed); without it they are this spec's own rows (permuted predictors, say). Case
        weights and groups follow their rows; drawn case weights are rescaled to sum to the
        rows drawn, R's rule for the new data.

        Parameters
        ----------
        X : ndarray of shape (m, p)
            Predictors of the refit.
        Y : ndarray
            Its response, as ``Y``.
        rows : ndarray of int, optional
            Which rows of this spec ``X`` and ``Y`` hold.

        Returns
        -------
        ModelSpec

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"))
        >>> rows = np.array([0, 0, 5])
        >>> spec.resampled(spec.X[rows], spec.Y[rows], rows).index.tolist()
        [0, 0, 5]
        """
        if rows is None:
            if X.shape[0] != self.n and (self.case_weights is not None or self.groups is not None):
                raise ValueError(
                    f"A refit on {X.shape[0]} rows of a fit on {self.n} needs rows= (which "
                    "rows it holds), so that case weights and groups follow their rows."
                )
            return dataclasses.replace(self, X=X, Y=Y)
        rows = np.asarray(rows)
        weights = None
        if self.case_weights is not None:
            drawn = self.case_weights[rows]
            weights = drawn.size * drawn / drawn.sum()
        return dataclasses.replace(
            self,
            X=X,
            Y=Y,
            index=self.index[rows],
            positions=rows if self.positions is None else self.positions[rows],
            case_weights=weights,
            groups=None if self.groups is None else self.groups[rows],
        )

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
        >>> from sdrstats.design.formula import parse
        >>> ais = sdr.datasets.load("ais")
        >>> spec = parse("lbm ~ log(wt) + C(sex)", ais)
        >>> spec.transform_x(ais.head(2)).round(3)
        array([[4.368, 0.   ],
               [4.309, 0.   ]])
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
            check_finite(values, self.x_names, "newdata")
            return values
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(
                "newdata must be a pandas DataFrame with the columns named in the formula; got "
                f"{type(newdata).__name__}."
            )
        newdata = _prepare_newdata(newdata, design_info)
        plan = builder.plan(design_info, newdata)
        if plan is not None:
            try:
                values, _, _ = plan.build(newdata, self.design_columns, unseen="newdata")
            except builder.NotBulk:
                pass
            else:
                check_finite(values, self.x_names, "newdata")
                return values
        try:
            (matrix,) = patsy.build_design_matrices(
                [design_info], newdata, NA_action="raise", return_type="matrix"
            )
        except patsy.PatsyError as exc:
            raise ValueError(_explain_patsy_error(exc, newdata, "newdata")) from None
        values = np.asarray(matrix, dtype=float)[:, self.design_columns]
        check_finite(values, self.x_names, "newdata")
        return values


def _prepare_newdata(newdata: pd.DataFrame, design_info: Any) -> pd.DataFrame:
    """New rows in the dtypes the fit read, refusing a missing value by its row and column."""
    frame = newdata.copy(deep=False)
    frame.columns = pd.Index([str(c) for c in frame.columns], dtype=object)
    codes = " ".join(factor.name() for factor in design_info.factor_infos)
    used = _mentioned_columns(codes, list(frame.columns))
    numeric_codes = " ".join(
        factor.name()
        for factor, info in design_info.factor_infos.items()
        # as.numeric() reads a factor (text) column as its level codes
        if info.type == "numerical" and not factor.name().startswith("as_numeric(")
    )
    for col in _mentioned_columns(numeric_codes, list(frame.columns)):
        series = frame[col]
        if pd.api.types.is_numeric_dtype(series) or not (
            pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series)
        ):
            continue  # numbers, and the dtypes _check_object_columns converts or refuses
        parsed = pd.to_numeric(series, errors="coerce")
        bad = (parsed.isna() & series.notna()).to_numpy()
        if bad.any():
            at = int(np.argmax(bad))
            raise ValueError(
                f"newdata column {col!r} was numeric in the fit but holds "
                f"{series.iloc[at]!r} (first at row {newdata.index[at]!r}; {int(bad.sum())} "
                "such value(s)); give numbers in that column."
            )
        frame[col] = parsed.astype(float)  # numbers stored as text, as the fit read them
    _check_object_columns(frame, used)
    for col in used:
        missing = frame[col].isna().to_numpy()
        if missing.any():
            row = newdata.index[int(np.argmax(missing))]
            raise ValueError(
                f"newdata has {int(missing.sum())} missing value(s) in column {col!r} (first at "
                f"row {row!r}); predictions need every predictor: drop or impute those rows."
            )
    return frame
