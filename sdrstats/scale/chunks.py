"""Chunk sources (CSV, Parquet, any iterable of DataFrames) and the formula applied per chunk.

A :class:`ChunkSource` is what a formula function accepts as ``data`` when the rows do not fit
in memory: ``sdr.sir("y ~ .", sdr.read_csv_chunks("big.csv", chunksize=100_000))``. It yields
pandas DataFrames; the fit keeps only per-slice sums, so memory is bounded by one chunk (plus,
for a continuous response sliced without ``cut_points``, one float per row of the response).

:class:`ChunkPlan` evaluates the formula on every chunk the same way: patsy's design
information is built once from the first chunk (or the declared categorical dtypes), so factor
levels and stateful transforms are those of the first chunk; a later chunk with a level the
first one lacks raises an error naming it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ..base.warnings import MissingValueWarning
from ..design import builder
from ..design.checks import _check_object_columns
from ..design.formula import (
    _check_finite,
    _mentioned_columns,
    _quoted_literal,
    _split_top,
    _user_env,
    parse,
)
from ..design.names import quote_columns
from ..design.rsyntax import to_patsy
from ..design.safe_formula import check_expression, check_formula, safe_env
from ..design.weights import ZERO_WEIGHT


class ChunkSource:
    """Re-iterable source of pandas DataFrame chunks.

    Parameters
    ----------
    factory : callable
        Called with no argument, returns a fresh iterator of DataFrames (one pass over the
        data). Fits that need two passes (a continuous response without ``cut_points``, pHd)
        call it twice.
    description : str
        Shown in the fit's call.
    reiterable : bool
        False for a one-shot iterator (see :func:`chunks_from`).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> source = ChunkSource(lambda: iter([ais.iloc[:100], ais.iloc[100:]]), "two halves")
    >>> sdr.sir("lbm ~ log(wt) + log(ht)", source, nslices=8).n
    202
    """

    def __init__(
        self,
        factory: Callable[[], Iterable[pd.DataFrame]],
        description: str = "chunks",
        reiterable: bool = True,
    ) -> None:
        self.factory = factory
        self.description = description
        self.reiterable = reiterable
        self._passes = 0

    def __iter__(self) -> Iterator[pd.DataFrame]:
        if self._passes and not self.reiterable:
            raise ValueError(
                "This fit needs a second pass over the data, but the chunks come from a one-shot "
                "iterator. Pass a list, a function returning a fresh iterator "
                "(sdr.chunks_from(make_chunks)), or a file via sdr.read_csv_chunks; or give "
                "cut_points so that one pass suffices."
            )
        self._passes += 1
        for chunk in self.factory():
            if not isinstance(chunk, pd.DataFrame):
                raise TypeError(
                    f"Chunks must be pandas DataFrames; {self.description} gave "
                    f"{type(chunk).__name__}."
                )
            yield chunk

    def __repr__(self) -> str:
        return f"ChunkSource({self.description})"


def read_csv_chunks(path: Any, chunksize: int = 100_000, **read_csv_options: Any) -> ChunkSource:
    """A CSV file read ``chunksize`` rows at a time, for the formula functions.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    chunksize : int
        Rows per chunk; peak memory is a small multiple of one chunk.
    **read_csv_options
        Passed to :func:`pandas.read_csv` (``usecols``, ``dtype``...). Declare factor
        columns as ``dtype={"col": pandas.CategoricalDtype([...])}`` so that every chunk
        codes them with the same levels.

    Returns
    -------
    ChunkSource

    Examples
    --------
    >>> import sdrstats as sdr, tempfile, os
    >>> ais = sdr.datasets.load("ais")
    >>> path = os.path.join(tempfile.mkdtemp(), "ais.csv")
    >>> ais.to_csv(path, index=False)
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)",
    ...               sdr.read_csv_chunks(path, chunksize=50), nslices=8)
    >>> fit.eigenvalues.round(3).tolist()[:2]
    [0.939, 0.179]
    """
    if isinstance(chunksize, bool) or not isinstance(chunksize, (int, np.integer)) or chunksize < 1:
        raise ValueError(f"The 'chunksize' option must be a positive int; got {chunksize!r}.")
    path = str(path)

    # the data row of pandas' running chunk index is on this line of the file (1-based, one
    # header line); unknown when the reader skips or re-reads lines
    plain = not set(read_csv_options) & {"skiprows", "header", "comment", "skip_blank_lines"}
    first_line = 2 if plain else None

    def factory() -> Iterable[pd.DataFrame]:
        try:
            reader = pd.read_csv(path, chunksize=int(chunksize), **read_csv_options)
        except pd.errors.EmptyDataError:
            raise ValueError(
                f"The CSV file {path!r} is empty (no header line); a fit needs a header and rows."
            ) from None
        for chunk in reader:
            chunk.attrs["first_line"] = first_line
            yield chunk

    return ChunkSource(factory, f"read_csv_chunks({path!r}, chunksize={chunksize})")


def read_parquet_chunks(
    path: Any, batch_size: int = 100_000, columns: list[str] | None = None
) -> ChunkSource:
    """A Parquet file read ``batch_size`` rows at a time (needs ``pyarrow``).

    Categorical (dictionary) columns keep their declared categories in every batch.

    Parameters
    ----------
    path : str or path-like
        The Parquet file.
    batch_size : int, default 100_000
        Rows per batch; peak memory is a small multiple of one batch.
    columns : list of str, optional
        Read only these columns (default all); they must include every column the formula
        uses.

    Returns
    -------
    ChunkSource

    Examples
    --------
    >>> import sdrstats as sdr, tempfile, os
    >>> ais = sdr.datasets.load("ais")
    >>> path = os.path.join(tempfile.mkdtemp(), "ais.parquet")
    >>> ais.to_parquet(path, index=False)
    >>> source = sdr.read_parquet_chunks(path, batch_size=50, columns=["lbm", "wt", "ht"])
    >>> sdr.sir("lbm ~ log(wt) + log(ht)", source, nslices=8).n
    202
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "read_parquet_chunks needs pyarrow: pip install pyarrow (or use read_csv_chunks)."
        ) from None
    if (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, (int, np.integer))
        or batch_size < 1
    ):
        raise ValueError(f"The 'batch_size' option must be a positive int; got {batch_size!r}.")
    path = os.fspath(path) if hasattr(path, "__fspath__") else str(path)
    _open_parquet(pq, path)  # a missing file or another format is named now, not mid-fit

    def factory() -> Iterable[pd.DataFrame]:
        handle = _open_parquet(pq, path)
        for batch in handle.iter_batches(batch_size=int(batch_size), columns=columns):
            yield batch.to_pandas()

    return ChunkSource(factory, f"read_parquet_chunks({path!r}, batch_size={batch_size})")


def _open_parquet(pq: Any, path: str) -> Any:
    """``pyarrow.parquet.ParquetFile(path)`` with errors that name the path and the remedy."""
    if not os.path.exists(path):
        where = "" if os.path.isabs(path) else f" (relative to {os.getcwd()!r})"
        raise FileNotFoundError(f"The Parquet file {path!r}{where} does not exist; check the path.")
    if os.path.isdir(path):
        raise ValueError(
            f"{path!r} is a folder; read_parquet_chunks reads one Parquet file (for a folder "
            "of them, dask.dataframe.read_parquet(path) gives a Dask DataFrame to fit on)."
        )
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow's ArrowInvalid / OSError: not a Parquet file
        first = ""
        try:
            with open(path, "rb") as handle:
                first = handle.read(4).decode("latin-1")
        except OSError:
            pass
        hint = (
            "; it looks like text: for a CSV file use sdr.read_csv_chunks(path)"
            if first and first.isprintable()
            else ""
        )
        raise ValueError(f"{path!r} is not a Parquet file (pyarrow: {exc}){hint}.") from None


def chunks_from(chunks: Any) -> ChunkSource:
    """A :class:`ChunkSource` from in-memory chunks, for the formula functions.

    Parameters
    ----------
    chunks : list of DataFrame, callable, iterator or DataFrame
        A list of DataFrames, a function returning an iterator of them (re-iterable), or an
        iterator/generator (one pass only). A ``ChunkSource`` is returned unchanged.

    Returns
    -------
    ChunkSource

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> parts = chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> sdr.sir("lbm ~ log(wt) + log(ht) + log(ssf)", parts, nslices=8).n
    202
    """
    if isinstance(chunks, ChunkSource):
        return chunks
    if isinstance(chunks, pd.DataFrame):
        return ChunkSource(lambda: [chunks], "one DataFrame")
    if callable(chunks):
        return ChunkSource(chunks, getattr(chunks, "__name__", "chunks"))
    if isinstance(chunks, (list, tuple)):
        return ChunkSource(lambda: chunks, f"{len(chunks)} chunks")
    if isinstance(chunks, Iterator):
        return ChunkSource(lambda: chunks, "an iterator of chunks", reiterable=False)
    raise TypeError(
        "chunks must be a list of DataFrames, a function returning an iterator of them, or an "
        f"iterator; got {type(chunks).__name__}."
    )


def _na_action() -> patsy.NAAction:
    return patsy.NAAction(NA_types=["None", "NaN"])


#: Rows of the first chunk a pickled :class:`ChunkPlan` keeps to rebuild its design.
PROTOTYPE_ROWS = 5


class ChunkPlan:
    """The formula, fixed on the first chunk and applied to every chunk alike.

    Picklable (for Dask workers): patsy's design information is rebuilt from the first
    chunk's formula columns after unpickling, with R-style names (``log``...) in scope.
    ``weights`` names a column of case weights (R ``dr``'s rule), read on the complete rows by
    :meth:`weighted_arrays`.
    """

    def __init__(
        self, formula: str, first: pd.DataFrame, missing: str = "drop", weights: str | None = None
    ) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingValueWarning)
            spec = parse(formula, first, missing=missing, empty_levels=True)
        self.spec = spec
        self.missing = missing
        self.x_names = list(spec.x_names)
        self.y_names = list(spec.y_names)
        self.categorical = spec.categorical
        self.rhs = spec.rhs
        self.design_columns = spec.design_columns
        self.formula = spec.formula
        frame = first.copy(deep=False)
        frame.columns = [str(c) for c in frame.columns]
        frame = frame.reset_index(drop=True)
        self.x_source = spec.source
        self._x_info = spec.design_info
        self._design_names = list(spec.design_info.column_names)
        self.columns = list(frame.columns)
        self.dot = "." in formula.partition("~")[2].replace("...", "")
        numeric_codes = " ".join(
            f.name()
            for f, info in spec.design_info.factor_infos.items()
            if info.type == "numerical"
        )
        self.numeric_columns = _mentioned_columns(numeric_codes, self.columns)
        lhs = to_patsy(quote_columns(formula.split("~")[0].strip(), self.columns), self.columns)
        if not spec.categorical:
            lhs_columns = _mentioned_columns(lhs, self.columns)
            self.numeric_columns += [c for c in lhs_columns if c not in self.numeric_columns]
        self.lhs_terms = _split_top(lhs)
        self.y_source = frame[_mentioned_columns(lhs, list(frame.columns))]
        self.label_column = self.y_names[0] if self.categorical else None
        self.level_order: list[Any] | None = None
        if self.categorical and isinstance(frame[self.label_column].dtype, pd.CategoricalDtype):
            self.level_order = list(frame[self.label_column].cat.categories)
        self._y_info = None if self.categorical else self._build_y_info(_user_env())
        plain = [t if t in frame.columns else _quoted_literal(t) for t in self.lhs_terms]
        #: response columns read as they are (no transform): no patsy pass per chunk
        self.plain_y = plain if not self.categorical and all(plain) else None
        if weights is not None and weights not in self.columns:
            raise ValueError(
                f"The 'weights' column {weights!r} is not in the data (the first chunk has "
                f"columns {self.columns[:8]}); name a column that every chunk has."
            )
        #: the column of case weights, or None
        self.weights = weights

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
    ) -> tuple[Any, ...]:
        """Predictor matrix, response (floats, or labels) and rows dropped for missing values.

        With ``kept``, the third item is the mask of the chunk's rows kept instead of the
        count dropped (the Poisson bootstrap keys each row by its position).

        With ``column`` (a column of the chunk outside the formula, e.g. partial IRE's group),
        a fourth item: that column's values on the rows kept (a missing value is an error).

        The predictors come from the same bulk builder as an in-memory fit
        (:mod:`sdrstats.design.builder`) with the first chunk's design; patsy builds only
        designs the builder cannot. With ``extra`` column names, a fourth item: those
        columns' values on the same (complete) rows, by name.
        """
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
        if dropped and self.missing == "raise":
            raise ValueError(
                f"{dropped} row(s) of {where} have missing values; drop or impute them, or pass "
                "missing='drop'."
            )
        X = X_all[keep] if dropped else X_all
        _check_finite(X, self.x_names, f"Predictor ({where})")
        if self.categorical:
            y = frame[self.label_column].to_numpy()[keep]
        else:
            y = y_all[keep] if dropped else y_all
            _check_finite(y, self.y_names, f"Response ({where})")
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

    def weighted_arrays(
        self, chunk: pd.DataFrame, where: str = "a chunk"
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """:meth:`arrays` and the case weights of the complete rows (checked as in memory:
        a missing, infinite or negative weight of a complete row is an error)."""
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
        first_line = chunk.attrs.get("first_line")
        for col in self.numeric_columns:
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
        """The one-column numeric response of the complete rows of ``chunk`` (with case
        weights, of the rows a weighted fit keeps: weight above ``1e-30``)."""
        if self.weights is not None:
            _, y, w, _ = self.weighted_arrays(chunk, where)
            return y.reshape(-1)[w > ZERO_WEIGHT]
        _, y, _ = self.arrays(chunk, where)
        return y.reshape(-1)

    def response_and_column(
        self, chunk: pd.DataFrame, column: str, where: str = "a chunk"
    ) -> tuple[np.ndarray, np.ndarray]:
        """The response of the complete rows of ``chunk`` and their values of ``column``."""
        _, y, _, values = self.arrays(chunk, where, column=column)
        return y.reshape(-1), values


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


def chunk_weights(values: np.ndarray, column: str, where: str) -> np.ndarray:
    """The case weights of one chunk's complete rows as floats, checked as in memory.

    Examples
    --------
    >>> chunk_weights(np.array([1, 0.5]), "w", "chunk 1").tolist()
    [1.0, 0.5]
    """
    w = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    text = np.isnan(w) & ~pd.isna(pd.Series(values)).to_numpy()
    if text.any():
        raise ValueError(
            f"The 'weights' column {column!r} of {where} holds {values[np.argmax(text)]!r}; "
            "weights must be numbers."
        )
    problems = [
        (np.isnan(w), "NaN value(s); give every row a weight (0 drops it)"),
        (np.isinf(w), "infinite value(s); weights must be finite"),
        (w < 0, "negative value(s); weights must be >= 0 (R dr: 'Negative weights')"),
    ]
    for bad, what in problems:
        if bad.any():
            raise ValueError(
                f"The 'weights' column {column!r} has {int(bad.sum())} {what}, in {where}."
            )
    return w


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


__all__ = [
    "ChunkSource",
    "ChunkPlan",
    "chunk_weights",
    "read_csv_chunks",
    "read_parquet_chunks",
    "chunks_from",
]
