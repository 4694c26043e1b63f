"""The formula plan: a formula parsed once, then applied alike to every piece of the data.

A formula function reads its data in memory with :func:`~sdrstats.design.formula.parse`. Data
that come in pieces (the chunks of a :class:`~sdrstats.scale.ChunkSource`, the partitions of a
Dask DataFrame, the batches of a stream) are read through a :class:`FormulaPlan`: the formula
is parsed on the first piece (its :class:`~sdrstats.design.spec.ModelSpec` is
:attr:`FormulaPlan.spec`), and every piece, the first included, is evaluated with that piece's
design: the same predictor names and columns, factor levels and stateful transforms (a later
piece with a level the first lacks is an error naming it), the same missing-value policy, the
same checks and messages as in memory.
:func:`columns_read` says which columns a formula reads before any piece is parsed, and
:func:`expand_formula` writes a formula out as the parser reads it (a stream stores that text
with the first batch's spec, and :meth:`FormulaPlan.from_spec` makes its plan from them).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ..base.warnings import MissingValueWarning
from . import builder
from .checks import _check_object_columns
from .formula import (
    _DOT,
    _expand_dot,
    _mentioned_columns,
    _quoted_literal,
    _split_top,
    _user_env,
    check_finite,
    parse,
)
from .names import quote_columns
from .rsyntax import to_patsy
from .safe_formula import check_expression, check_formula, safe_env
from .spec import ModelSpec
from .weights import ZERO_WEIGHT, chunk_weights


def _na_action() -> patsy.NAAction:
    return patsy.NAAction(NA_types=["None", "NaN"])


#: Rows of the first chunk a pickled :class:`FormulaPlan` keeps to rebuild its design.
PROTOTYPE_ROWS = 5


def _uses_dot(formula: str) -> bool:
    """Whether the right of ``~`` holds R's ``.`` (every other column), as the parser finds it:
    a dot inside a name (``MPG.city``) or a number (``0.5``) is not one."""
    return _DOT.search(formula.partition("~")[2]) is not None


def expand_formula(formula: str, columns: list[str]) -> str:
    """``formula`` as the parser reads it on data with ``columns``.

    R's column names quoted (``MPG.city`` becomes ``Q("MPG.city")`` where Python needs it),
    R's operators in patsy's syntax, and R's ``.`` written out as every column not in the
    response. The text names its columns and holds no ``.``, so it can be stored (a stream's
    state) and evaluated again on a later piece of the data.

    Parameters
    ----------
    formula : str
        ``"response ~ predictors"``.
    columns : list of str
        The data's columns.

    Returns
    -------
    str

    Examples
    --------
    >>> expand_formula("lbm ~ . - ht", ["ht", "wt", "lbm"])
    'lbm ~ (ht + wt) - ht'
    """
    quoted = to_patsy(quote_columns(formula, columns), columns)
    if quoted.count("~") != 1:
        return quoted
    lhs, rhs = (side.strip() for side in quoted.split("~"))
    y_columns = _mentioned_columns(lhs, columns)
    return f"{lhs} ~ {_expand_dot(rhs, columns, y_columns)}"


def columns_read(formula: str, columns: list[str]) -> list[str]:
    """The columns of the data that ``formula`` reads, in the data's order.

    The columns the formula names, and, when its right-hand side may hold R's ``.``, every
    column not on the left of ``~``. Nothing is evaluated: this is what a pass over pieces of
    the data may need before the formula is parsed (the levels of the factor columns).

    Parameters
    ----------
    formula : str
        ``"response ~ predictors"``.
    columns : list of str
        The data's columns.

    Returns
    -------
    list of str

    Examples
    --------
    >>> columns_read("lbm ~ log(wt) + sex", ["sex", "ht", "wt", "lbm"])
    ['sex', 'wt', 'lbm']
    >>> columns_read("lbm ~ . - ht", ["sex", "ht", "wt", "lbm"])
    ['sex', 'ht', 'wt', 'lbm']
    """
    lhs = formula.partition("~")[0]
    used = set(_mentioned_columns(formula, columns))
    if _uses_dot(formula):
        used |= set(columns) - set(_mentioned_columns(lhs, columns))
    return [c for c in columns if c in used]


class FormulaPlan:
    """A formula parsed once, on the first piece of the data, and applied to every piece alike.

    The pieces are the chunks of a chunk source, the partitions of a Dask DataFrame or the
    batches of a stream (whose plan :meth:`from_spec` makes from the first batch's spec, or
    from a saved one). The first piece fixes the model spec (:attr:`spec`: predictor names in R's order, patsy's
    design information, the factor levels and the state of stateful transforms); every piece
    is then evaluated with it by :meth:`arrays`, with the checks and messages of an in-memory
    fit. Picklable (for Dask workers): patsy's design information is rebuilt after unpickling
    from a few rows of the first piece, with only the allow-listed functions of saved formulas
    in scope (:mod:`sdrstats.design.safe_formula`).

    Parameters
    ----------
    formula : str
        ``"response ~ predictors"``, as a formula function takes it.
    first : pandas.DataFrame
        The first piece of the data.
    missing : {"drop", "raise"}, default "drop"
        Rows of a piece with a missing value are dropped (:meth:`arrays` counts them) or
        raise.
    weights : str, optional
        A column of case weights (R ``dr``'s rule), read on the complete rows by
        :meth:`weighted_arrays`.

    Attributes
    ----------
    spec : ModelSpec
        The first piece's model spec.
    x_names, y_names : list of str
        Predictor and response names.
    categorical : bool
        Whether the response is a class label.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> plan = FormulaPlan("lbm ~ log(wt) + sex", ais.iloc[::2])
    >>> plan.x_names
    ['log(wt)', 'sexm']
    >>> X, y, dropped = plan.arrays(ais.iloc[1::2], "the odd rows")
    >>> X.shape, y.shape, dropped
    ((101, 2), (101, 1), 0)
    """

    def __init__(
        self, formula: str, first: pd.DataFrame, missing: str = "drop", weights: str | None = None
    ) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingValueWarning)
            spec = parse(formula, first, missing=missing, empty_levels=True)
        frame = first.copy(deep=False)
        frame.columns = [str(c) for c in frame.columns]
        frame = frame.reset_index(drop=True)
        columns = list(frame.columns)
        lhs = to_patsy(quote_columns(formula.split("~")[0].strip(), columns), columns)
        self._adopt(spec, lhs, columns, missing, dot=_uses_dot(formula))
        self.y_source = frame[_mentioned_columns(lhs, columns)]
        self.level_order: list[Any] | None = None
        if self.categorical and isinstance(frame[self.label_column].dtype, pd.CategoricalDtype):
            self.level_order = list(frame[self.label_column].cat.categories)
        self._y_info = None if self.categorical else self._build_y_info(_user_env())
        if weights is not None and weights not in self.columns:
            raise ValueError(
                f"The 'weights' column {weights!r} is not in the data (the first chunk has "
                f"columns {self.columns[:8]}); name a column that every chunk has."
            )
        #: the column of case weights, or None
        self.weights = weights

    @classmethod
    def from_spec(
        cls,
        spec: ModelSpec,
        formula: str,
        columns: list[str],
        missing: str = "drop",
        *,
        what: str = "stored formula",
    ) -> FormulaPlan:
        """The plan of a formula already parsed on the first piece of the data.

        For data whose first piece is gone (a stream: its first batch fixed the spec, and a
        saved stream keeps the spec, not the rows). The predictors are built with the spec's
        design (rebuilt from its formula text, within the allow-list, when the spec was
        saved); the response is evaluated with only the allow-listed functions of
        :mod:`sdrstats.design.safe_formula` in scope, checked here, before any piece is read.

        Parameters
        ----------
        spec : ModelSpec
            The first piece's spec (:func:`~sdrstats.design.formula.parse` with
            ``empty_levels=True``); its rows are not needed.
        formula : str
            The formula as :func:`expand_formula` writes it on ``columns`` (no ``.``).
        columns : list of str
            The first piece's columns.
        missing : {"drop", "raise"}, default "drop"
            As for the constructor (:meth:`arrays` can override it per piece).
        what : str, default "stored formula"
            How a refused response names the formula.

        Returns
        -------
        FormulaPlan

        Raises
        ------
        UnsafeFormulaError
            When the response calls a function outside the allow-list.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> ais = sdr.datasets.load("ais")
        >>> spec = parse("log(lbm) ~ ht + sex", ais.iloc[::2], empty_levels=True)
        >>> plan = FormulaPlan.from_spec(
        ...     spec, expand_formula("log(lbm) ~ ht + sex", list(ais.columns)), list(ais.columns))
        >>> X, y, dropped = plan.arrays(ais.iloc[[1, 200]])
        >>> X.tolist(), y.round(3).tolist()
        ([[189.7, 0.0], [178.4, 1.0]], [[4.07], [4.143]])
        """
        if not isinstance(spec, ModelSpec) or spec.rhs is None:
            raise TypeError(
                "from_spec needs the model spec of a formula (from parse); got "
                + ("one of arrays." if isinstance(spec, ModelSpec) else type(spec).__name__)
            )
        if formula.count("~") != 1 or _uses_dot(formula):
            raise ValueError(
                f"from_spec needs the formula as expand_formula writes it (one '~', no '.'); "
                f"got {formula!r}."
            )
        columns = [str(c) for c in columns]
        lhs = formula.partition("~")[0].strip()
        plan = cls.__new__(cls)
        plan._adopt(spec, lhs, columns, missing, dot=False)
        plan.y_source = pd.DataFrame(
            {c: np.empty(0) for c in _mentioned_columns(lhs, columns)}, dtype=float
        )
        plan.level_order = list(spec.y_levels) if spec.categorical else None
        plan._y_info = None
        if not plan.categorical:
            # evaluated again on every piece: only the allow-list, checked before any is read
            for term in plan.lhs_terms:
                check_expression(term, columns, what=what)
            plan._y_info = plan._build_y_info(plan._env())
        plan.weights = None
        return plan

    def _adopt(
        self, spec: ModelSpec, lhs: str, columns: list[str], missing: str, *, dot: bool
    ) -> None:
        """Take the first piece's spec, the formula's (quoted) response and the columns."""
        if missing not in ("drop", "raise"):
            raise ValueError(f"The 'missing' option must be 'drop' or 'raise'; got {missing!r}.")
        self.spec = spec
        self.missing = missing
        self.x_names = list(spec.x_names)
        self.y_names = list(spec.y_names)
        self.categorical = spec.categorical
        self.rhs = spec.rhs
        self.design_columns = spec.design_columns
        self.formula = spec.formula
        self.x_source = spec.source
        self._x_info = spec._design()
        self._design_names = list(self._x_info.column_names)
        self.columns = list(columns)
        self.dot = dot
        numeric_codes = " ".join(
            f.name() for f, info in self._x_info.factor_infos.items() if info.type == "numerical"
        )
        self.numeric_columns = _mentioned_columns(numeric_codes, self.columns)
        if not spec.categorical:
            lhs_columns = _mentioned_columns(lhs, self.columns)
            self.numeric_columns += [c for c in lhs_columns if c not in self.numeric_columns]
        self.lhs_terms = _split_top(lhs)
        self.label_column = self.y_names[0] if self.categorical else None
        plain = [t if t in self.columns else _quoted_literal(t) for t in self.lhs_terms]
        #: response columns read as they are (no transform): no patsy pass per chunk
        self.plain_y = plain if not self.categorical and all(plain) else None

    # -- pickling (patsy's DesignInfo cannot be pickled) ---------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_x_info"] = None
        state["_y_info"] = None
        state["spec"] = None
        # A Dask task carries the plan: send a few rows of the first chunk, not all of it,
        # when they rebuild the same design (no data-dependent transform, same columns).
        state["x_source"] = self._small(self.x_source, self.rhs, self._design_names)
        state["y_source"] = self._small(self.y_source, None, None)
        return state

    #: patsy calls whose design depends on every row they see (means, sds, knots)
    _STATEFUL = ("center(", "standardize(", "scale(", "poly(", "bs(", "cr(", "cc(", "te(")

    @classmethod
    def _small(cls, source: pd.DataFrame, rhs: str | None, names: list[str] | None) -> pd.DataFrame:
        """The first few complete rows of ``source`` when they code the formula as all of it."""
        if source is None or source.shape[0] <= PROTOTYPE_ROWS:
            return source
        if rhs is not None and any(call in rhs.replace(" ", "") for call in cls._STATEFUL):
            return source
        if any(
            not isinstance(source[c].dtype, pd.CategoricalDtype)
            and not pd.api.types.is_numeric_dtype(source[c].dtype)
            for c in source.columns
        ):
            return source  # text or boolean columns: their levels are the values present
        small = source.dropna().head(PROTOTYPE_ROWS)
        if small.shape[0] == 0:
            return source
        if rhs is not None and names is not None:
            try:
                rebuilt = patsy.dmatrix(rhs, small, eval_env=safe_env()).design_info
            except Exception:  # anything the few rows cannot rebuild: keep them all
                return source
            if list(rebuilt.column_names) != names:
                return source
        return small

    def _env(self) -> patsy.EvalEnvironment:
        # rebuilt from stored text: only allow-listed functions are in scope (and checked)
        return safe_env()

    def _build_y_info(self, env: patsy.EvalEnvironment) -> Any:
        terms = " + ".join(f"I({t})" for t in self.lhs_terms)
        return patsy.dmatrix(
            "0 + " + terms, self.y_source, eval_env=env, NA_action=_na_action()
        ).design_info

    def _infos(self) -> tuple[Any, Any]:
        if self._x_info is None:
            check_formula(self.rhs, list(self.x_source.columns))
            for term in self.lhs_terms:
                check_expression(term, list(self.y_source.columns))
            try:
                self._x_info = patsy.dmatrix(
                    self.rhs, self.x_source, eval_env=self._env(), NA_action=_na_action()
                ).design_info
                if not self.categorical:
                    self._y_info = self._build_y_info(self._env())
            except Exception as exc:
                raise ValueError(
                    f"The formula could not be rebuilt on a worker ({exc}); Dask fits can use "
                    "column names, numpy functions (np.*) and log/sqrt/exp/abs, not functions "
                    "defined in your session."
                ) from None
        return self._x_info, self._y_info

    # -- per chunk ----------------------------------------------------------------------
    def arrays(
        self,
        chunk: pd.DataFrame,
        where: str = "a chunk",
        *,
        column: str | None = None,
        extra: tuple[str, ...] = (),
        kept: bool = False,
        missing: str | None = None,
    ) -> tuple[Any, ...]:
        """Predictor matrix, response (floats, or labels) and rows dropped for missing values.

        The predictors come from the same bulk builder as an in-memory fit
        (:mod:`sdrstats.design.builder`) with the first piece's design; patsy builds only
        designs the builder cannot.

        Parameters
        ----------
        chunk : pandas.DataFrame
            One piece of the data, with the columns the formula reads.
        where : str, default "a chunk"
            How messages name the piece (``"chunk 3"``, ``"partition 2"``).
        column : str, optional
            A column outside the formula (partial IRE's group): a fourth item holds its values
            on the rows kept (a missing value is an error).
        extra : tuple of str, default ()
            Columns outside the formula: a fourth item maps each to its values on the rows
            kept.
        kept : bool, default False
            Give the mask of the rows kept as the third item instead of the count dropped
            (the Poisson bootstrap keys each row by its position).
        missing : {"drop", "raise"}, optional
            The missing-value policy for this piece (a stream's batches may each choose);
            by default the plan's.

        Returns
        -------
        tuple
            ``(X, y, dropped)``: ``X`` of shape (m, p), ``y`` the response of the ``m`` rows
            kept (floats of shape (m, q), or the class labels), the number of rows dropped
            (or the mask, with ``kept``); then the values of ``column`` or ``extra``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> plan = FormulaPlan("lbm ~ log(wt) + ht", ais.iloc[:100])
        >>> X, y, dropped, by_name = plan.arrays(ais.iloc[100:103], extra=("sex",))
        >>> X.shape, dropped, by_name["sex"].tolist()
        ((3, 2), 0, ['m', 'm', 'm'])
        """
        missing = self.missing if missing is None else missing
        if missing not in ("drop", "raise"):
            raise ValueError(f"The 'missing' option must be 'drop' or 'raise'; got {missing!r}.")
        frame = chunk.copy(deep=False)
        frame.columns = pd.Index([str(c) for c in frame.columns], dtype=object)
        self._check_chunk(frame, chunk, where)
        frame = frame.reset_index(drop=True)
        x_info, y_info = self._infos()
        used = [c for c in self.x_source.columns if c in frame.columns]
        if self.plain_y:
            used += [c for c in self.plain_y if c in frame.columns and c not in used]
        _check_object_columns(frame, used)
        X_all = x_keep = None
        plan = builder.plan(x_info, frame)
        if plan is not None:
            try:
                X_all, x_missing, _ = plan.build(frame, self.design_columns, unseen=where)
            except builder.UnseenLevelError as exc:
                detail = f"column {exc.column!r} has level(s) {exc.levels}"
                raise ValueError(_chunk_error(exc, where, detail, unseen=True)) from None
            except builder.NotBulk:
                X_all = None
            except KeyError as exc:
                raise ValueError(
                    f"{where} lacks the column {exc}; every chunk needs the formula's columns."
                ) from None
            else:
                x_keep = ~x_missing
        try:
            if X_all is None:
                (xm,) = patsy.build_design_matrices(
                    [x_info], frame, NA_action=_na_action(), return_type="dataframe"
                )
                x_keep = np.zeros(frame.shape[0], dtype=bool)
                x_keep[xm.index.to_numpy()] = True
                X_all = np.full((frame.shape[0], len(self.design_columns)), np.nan)
                X_all[xm.index.to_numpy()] = xm.to_numpy(dtype=float)[:, self.design_columns]
            y_all = None
            if self.plain_y:
                missing_y = [c for c in self.plain_y if c not in frame.columns]
                if missing_y:
                    raise KeyError(missing_y[0])
                y_all = np.column_stack(
                    [frame[c].to_numpy(dtype=float, na_value=np.nan) for c in self.plain_y]
                )
                y_keep = ~np.isnan(y_all).any(axis=1)
            elif y_info is not None:
                (ym,) = patsy.build_design_matrices(
                    [y_info], frame, NA_action=_na_action(), return_type="dataframe"
                )
                y_keep = np.zeros(frame.shape[0], dtype=bool)
                y_keep[ym.index.to_numpy()] = True
                y_all = np.full((frame.shape[0], ym.shape[1]), np.nan)
                y_all[ym.index.to_numpy()] = ym.to_numpy(dtype=float)
        except patsy.PatsyError as exc:
            raise ValueError(_chunk_error(exc, where, self._new_levels(x_info, frame))) from None
        except KeyError as exc:
            raise ValueError(
                f"{where} lacks the column {exc}; every chunk needs the formula's columns."
            ) from None
        if self.categorical:
            labels = frame[self.label_column]
            y_keep = labels.notna().to_numpy()
        keep = x_keep & y_keep
        dropped = int(frame.shape[0] - keep.sum())
        if dropped and missing == "raise":
            raise ValueError(
                f"{dropped} row(s) of {where} have {self.why_dropped(frame, keep)}; drop or "
                "impute them, or pass missing='drop'."
            )
        X = X_all[keep] if dropped else X_all
        check_finite(X, self.x_names, f"Predictor ({where})")
        if self.categorical:
            y = frame[self.label_column].to_numpy()[keep]
        else:
            y = y_all[keep] if dropped else y_all
            check_finite(y, self.y_names, f"Response ({where})")
        if kept:
            return X, y, keep
        if column is not None:
            return X, y, dropped, _column_of_rows(frame, column, keep, where)
        if extra:
            lacking = [c for c in extra if c not in frame.columns]
            if lacking:
                raise ValueError(f"{where} lacks the column {lacking[0]!r}; every chunk needs it.")
            return X, y, dropped, {c: frame[c].to_numpy()[keep] for c in extra}
        return X, y, dropped

    def why_dropped(self, chunk: pd.DataFrame, keep: np.ndarray) -> str:
        """Why the rows of ``chunk`` outside ``keep`` are dropped, for a message.

        The formula's columns with a missing value on those rows, and undefined values of a
        term (the log of a value <= 0) on those without one.

        Parameters
        ----------
        chunk : pandas.DataFrame
            One piece of the data.
        keep : ndarray of bool
            The rows :meth:`arrays` keeps (its third item with ``kept=True``).

        Returns
        -------
        str

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> plan = FormulaPlan("lbm ~ log(wt) + ht", ais.iloc[:100])
        >>> part = ais.iloc[100:103].assign(wt=[np.nan, -1.0, 70.0])
        >>> X, y, keep = plan.arrays(part, kept=True)
        >>> plan.why_dropped(part, keep)
        "missing values in ['wt'] or undefined values of a term (such as the log of a value <= 0)"
        """
        frame = chunk.copy(deep=False)
        frame.columns = pd.Index([str(c) for c in frame.columns], dtype=object)
        read = set(self.x_source.columns) | set(self.y_source.columns) | {self.label_column}
        columns = [c for c in frame.columns if c in read]
        gone = ~np.asarray(keep, dtype=bool)
        na = frame[columns].isna().to_numpy()[gone]
        named = [c for j, c in enumerate(columns) if na[:, j].any()]
        parts = [f"missing values in {named}"] if named else []
        if not na.any(axis=1).all():  # rows without a missing value: a term undefined there
            parts.append("undefined values of a term (such as the log of a value <= 0)")
        return " or ".join(parts) or "missing values"

    def weighted_arrays(
        self, chunk: pd.DataFrame, where: str = "a chunk"
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """:meth:`arrays` and the case weights of the complete rows.

        The weights are checked as in memory: a missing, infinite or negative weight of a
        complete row is an error.

        Parameters
        ----------
        chunk : pandas.DataFrame
            One piece of the data, with the weights column.
        where : str, default "a chunk"
            How messages name the piece.

        Returns
        -------
        tuple
            ``(X, y, weights, dropped)``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais").assign(w=1.0)
        >>> plan = FormulaPlan("lbm ~ log(wt) + ht", ais.iloc[:100], weights="w")
        >>> X, y, w, dropped = plan.weighted_arrays(ais.iloc[100:103])
        >>> w.tolist(), dropped
        ([1.0, 1.0, 1.0], 0)
        """
        X, y, dropped, columns = self.arrays(chunk, where, extra=(self.weights,))
        return X, y, chunk_weights(columns[self.weights], self.weights, where), dropped

    def _check_chunk(self, frame: pd.DataFrame, chunk: pd.DataFrame, where: str) -> None:
        """A later chunk read as the first: the same columns under ``.``, numbers where the
        first chunk had numbers (object numbers become floats; text is named with its row)."""
        if self.dot and set(frame.columns) != set(self.columns):
            extra = [c for c in frame.columns if c not in self.columns]
            lacking = [c for c in self.columns if c not in frame.columns]
            raise ValueError(
                f"{where} has column(s) {extra or lacking} that the first chunk "
                f"{'lacks' if extra else 'has'}: '.' in the formula was expanded on the first "
                "chunk's columns, so they would be silently ignored or missing. Give every "
                "chunk the same columns, or name the predictors in the formula."
            )
        self._check_numbers(frame, chunk, where, self.numeric_columns)

    @staticmethod
    def _check_numbers(
        frame: pd.DataFrame, chunk: pd.DataFrame, where: str, columns: list[str]
    ) -> None:
        """The ``columns`` of ``frame`` read as numbers: object numbers become floats, text is
        named with its row (and its line of the file, when the chunk knows it)."""
        first_line = chunk.attrs.get("first_line")
        for col in columns:
            if col not in frame.columns:
                continue
            series = frame[col]
            if pd.api.types.is_numeric_dtype(series) or not (
                pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series)
            ):
                continue
            parsed = pd.to_numeric(series, errors="coerce")
            bad = (parsed.isna() & series.notna()).to_numpy()
            if bad.any():
                at = int(np.argmax(bad))
                row = chunk.index[at]
                line = f", line {row + first_line} of the file" if first_line is not None else ""
                raise ValueError(
                    f"Column {col!r} of {where} holds {series.iloc[at]!r} (row {row!r}{line}; "
                    f"{int(bad.sum())} such value(s) in this chunk), but the formula reads it as "
                    "numbers: correct the value, or read it as missing (na_values=...)."
                )
            frame[col] = parsed.astype(float)

    @staticmethod
    def _new_levels(x_info: Any, frame: pd.DataFrame) -> str:
        """The factor column(s) of ``frame`` with levels the design does not know."""
        found = []
        for factor, info in x_info.factor_infos.items():
            if info.type != "categorical":
                continue
            for col in _mentioned_columns(factor.name(), list(frame.columns)):
                new = set(frame[col].dropna().unique().tolist()) - set(info.categories)
                if new:
                    found.append(f"column {col!r} has level(s) {sorted(map(str, new))[:5]}")
        return "; ".join(found)

    def response(self, chunk: pd.DataFrame, where: str = "a chunk") -> np.ndarray:
        """The one-column numeric response of the complete rows of ``chunk``.

        With case weights, of the rows a weighted fit keeps (weight above ``1e-30``).

        Parameters
        ----------
        chunk : pandas.DataFrame
            One piece of the data.
        where : str, default "a chunk"
            How messages name the piece.

        Returns
        -------
        ndarray of shape (m,)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> FormulaPlan("lbm ~ ht", ais.iloc[:100]).response(ais.iloc[100:102]).tolist()
        [61.0, 69.0]
        """
        if self.weights is not None:
            _, y, w, _ = self.weighted_arrays(chunk, where)
            return y.reshape(-1)[w > ZERO_WEIGHT]
        _, y, _ = self.arrays(chunk, where)
        return y.reshape(-1)

    def response_and_column(
        self, chunk: pd.DataFrame, column: str, where: str = "a chunk"
    ) -> tuple[np.ndarray, np.ndarray]:
        """The response of the complete rows of ``chunk`` and their values of ``column``.

        Parameters
        ----------
        chunk : pandas.DataFrame
            One piece of the data.
        column : str
            A column outside the formula (a missing value on a complete row is an error).
        where : str, default "a chunk"
            How messages name the piece.

        Returns
        -------
        tuple of (ndarray of shape (m,), ndarray of shape (m,))

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> y, sex = FormulaPlan("lbm ~ ht", ais.iloc[:100]).response_and_column(
        ...     ais.iloc[100:102], "sex")
        >>> sex.tolist()
        ['m', 'm']
        """
        _, y, _, values = self.arrays(chunk, where, column=column)
        return y.reshape(-1), values

    def response_columns(self, column: str | None = None) -> list[str]:
        """The columns :meth:`response_alone` reads, in the data's order.

        The response's columns, the weights column and ``column``.

        Parameters
        ----------
        column : str, optional
            A column outside the formula, read with the response.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> FormulaPlan("log(lbm) ~ ht + wt", ais.iloc[:100]).response_columns("sex")
        ['lbm', 'sex']
        """
        wanted = set(self.y_source.columns) | {self.weights, column} - {None}
        return [c for c in self.columns if c in wanted]

    def response_alone(
        self, chunk: pd.DataFrame, where: str = "a chunk", column: str | None = None
    ) -> tuple[np.ndarray, np.ndarray | None, int]:
        """The response of ``chunk`` read from its own columns, without the predictors.

        A pass over the response alone (a CSV read with only these columns) cannot see the
        rows that the predictors drop (a missing value, or an undefined one such as the log
        of a value <= 0). It keeps every row whose response is present and finite (and whose
        weight is a finite number >= 0, and whose ``column`` is present): the rows a fit can
        keep. The rows the fit keeps are among them, so they are the same rows exactly when
        their counts agree in every chunk; the caller compares the third item with the
        count of the fit's pass (:class:`sdrstats.scale.fit.ChunkedData`).

        Parameters
        ----------
        chunk : pandas.DataFrame
            One piece of the data, with at least :meth:`response_columns`.
        where : str, default "a chunk"
            How messages name the piece.
        column : str, optional
            A column outside the formula: the second item holds its values.

        Returns
        -------
        tuple
            ``(y, values, rows)``: the response of the rows a fit can keep, as
            :meth:`response` gives it (with case weights, of those weighing more than
            ``1e-30``), the values of ``column`` on the same rows (else None), and how many
            rows a fit can keep.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> plan = FormulaPlan("lbm ~ log(wt) + ht", ais.iloc[:100])
        >>> part = ais.iloc[100:104].copy()
        >>> part.loc[101, "lbm"] = np.nan  # the response missing: not counted
        >>> part.loc[102, "wt"] = np.nan  # a predictor missing: counted, the fit drops it
        >>> y, _, rows = plan.response_alone(part[["lbm"]])
        >>> y.tolist(), rows
        ([61.0, 74.0, 80.0], 3)
        """
        frame = chunk.copy(deep=False)
        frame.columns = pd.Index([str(c) for c in frame.columns], dtype=object)
        y_columns = list(self.y_source.columns)
        self._check_numbers(
            frame, chunk, where, [c for c in self.numeric_columns if c in y_columns]
        )
        frame = frame.reset_index(drop=True)
        try:
            if self.plain_y:
                y = np.column_stack(
                    [frame[c].to_numpy(dtype=float, na_value=np.nan) for c in self.plain_y]
                )
            else:
                _, y_info = self._infos()
                y = np.asarray(
                    patsy.build_design_matrices(
                        [y_info], frame, NA_action=patsy.NAAction(NA_types=[])
                    )[0],
                    dtype=float,
                )
        except patsy.PatsyError as exc:
            raise ValueError(_chunk_error(exc, where)) from None
        except KeyError as exc:
            raise ValueError(
                f"{where} lacks the column {exc}; every chunk needs the formula's columns."
            ) from None
        rows = np.isfinite(y).all(axis=1)
        slicing = rows
        if self.weights is not None:
            if self.weights not in frame.columns:
                raise ValueError(
                    f"{where} lacks the column {self.weights!r}; every chunk needs it."
                )
            w = pd.to_numeric(frame[self.weights], errors="coerce").to_numpy(
                dtype=float, na_value=np.nan
            )
            with np.errstate(invalid="ignore"):
                rows = rows & np.isfinite(w) & (w >= 0)
                slicing = rows & (w > ZERO_WEIGHT)
        values = None
        if column is not None:
            if column not in frame.columns:
                raise ValueError(f"{where} lacks the column {column!r}; every chunk needs it.")
            present = frame[column].notna().to_numpy()
            rows, slicing = rows & present, slicing & present
            values = frame[column].to_numpy()[slicing]
        return y[slicing].reshape(-1), values, int(np.count_nonzero(rows))


def _column_of_rows(frame: pd.DataFrame, column: str, keep: np.ndarray, where: str) -> np.ndarray:
    """Values of ``column`` on the kept rows of ``frame``; a missing value is an error."""
    if column not in frame.columns:
        raise ValueError(f"{where} lacks the column {column!r}; every chunk needs it.")
    values = frame[column].to_numpy()[keep]
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(
            f"The column {column!r} has missing values in {int(missing.sum())} rows of {where} "
            "that the fit uses; drop or fill them."
        )
    return values


def _chunk_error(exc: Exception, where: str, detail: str = "", unseen: bool = False) -> str:
    text = str(exc)
    if unseen or "does not match any of the expected levels" in text:
        value = text.split("observation with value", 1)[-1].split("does not match")[0].strip()
        what = detail or f"a factor has the level {value}"
        return (
            f"In {where}, {what} that the first chunk does not have, so the "
            "chunks would be coded differently. Declare the column's levels with a pandas "
            "CategoricalDtype (e.g. read_csv_chunks(..., dtype={'col': "
            "pd.CategoricalDtype([...])}), or astype on a Dask DataFrame)."
        )
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return f"Could not evaluate the formula on {where}: {first}"


__all__ = ["FormulaPlan", "PROTOTYPE_ROWS", "columns_read", "expand_formula"]
