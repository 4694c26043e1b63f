"""Turning stream chunks into arrays, the same way for every chunk.

The first chunk fixes everything. With a formula it is parsed by
:func:`sdrstats.design.formula.parse`, and a :class:`~sdrstats.design.plan.FormulaPlan` made
from its spec (:meth:`~sdrstats.design.plan.FormulaPlan.from_spec`) reads every chunk, the
first included: the predictors with the first chunk's design, the response with the same
expression, evaluated with only the allow-listed functions of
:mod:`sdrstats.design.safe_formula` in scope (the formula may come back from a saved state).
A saved stream keeps the spec and the formula's text, and makes its plan again from them.
Without a formula, :func:`sdrstats.design.formula.from_arrays` names the columns. Class
labels of later chunks are coded with the first chunk's levels.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..base.persistence import register
from ..base.warnings import MissingValueWarning
from ..design.checks import check_finite
from ..design.formula import from_arrays, parse
from ..design.plan import FormulaPlan, expand_formula

_EMPTY = (np.empty((0, 0)), np.empty(0))


@register
class ChunkReader:
    """Reads chunks for one stream (see the module docstring)."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.spec: Any = None
        self.formula: str | None = None
        self.columns: list[str] | None = None
        self.categorical = False
        self.p: int | None = None
        self._plan: FormulaPlan | None = None

    def state(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "formula": self.formula,
            "columns": self.columns,
            "categorical": self.categorical,
            "p": self.p,
        }

    def load(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._plan = None  # made again from the loaded spec and formula when first needed

    # A saved result holds a copy of its stream's reader: the same fields as a saved stream,
    # without the plan (made again from them).
    def __getstate__(self) -> dict[str, Any]:
        return {"method": self.method, **self.state()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._plan = None

    def plan(self) -> FormulaPlan:
        """The formula plan that reads this stream's chunks (a formula stream only)."""
        if self._plan is None:
            self._plan = FormulaPlan.from_spec(
                self.spec, self.formula, self.columns, what="the stream's response"
            )
        return self._plan

    # -- entry ---------------------------------------------------------------------------
    def read(
        self, X: Any, y: Any, *, formula: str | None, missing: str
    ) -> tuple[np.ndarray, np.ndarray]:
        if missing not in ("drop", "raise"):
            raise ValueError(f"The 'missing' option must be 'drop' or 'raise'; got {missing!r}.")
        if formula is not None and self.formula is not None and not self._same(formula):
            raise ValueError(
                f"This stream was started with formula {self.formula!r}; a chunk "
                f"cannot change it to {formula!r}."
            )
        if formula is not None and self.spec is not None and self.formula is None:
            raise ValueError("This stream was started with arrays; it cannot switch to a formula.")
        formula = formula or self.formula
        if formula is not None:
            if not isinstance(X, pd.DataFrame) or y is not None:
                raise TypeError(
                    f"With a formula, each chunk of {self.method} must be one pandas "
                    f"DataFrame holding all columns (and y=None); got {type(X).__name__}."
                )
            if len(X) == 0:
                return _EMPTY
            if self.spec is None:
                return self._first_formula(formula, X, missing)
            return self._later_formula(X, missing)
        if y is None:
            raise TypeError(
                f"partial_fit of {self.method} needs y, or a formula with a DataFrame chunk."
            )
        if len(X) == 0:
            return _EMPTY
        if self.spec is None:
            spec = from_arrays(X, y, missing=missing)
            return self._adopt(spec)
        return self._later_arrays(X, y, missing)

    def _check_response(self, spec: Any) -> None:
        if not spec.categorical and spec.Y.shape[1] != 1:
            raise ValueError(
                f"{self.method} slices one response column; got {spec.Y.shape[1]} ({spec.y_names})."
            )

    @staticmethod
    def _without_rows(spec: Any) -> Any:
        # The spec keeps names and the design, not the rows: memory stays bounded.
        return dataclasses.replace(spec, X=spec.X[:0], Y=spec.Y[:0], index=spec.index[:0])

    def _adopt(self, spec: Any) -> tuple[np.ndarray, np.ndarray]:
        self._check_response(spec)
        X, Y = spec.X, spec.Y
        self.spec = self._without_rows(spec)
        self.categorical, self.p = spec.categorical, spec.p
        return X, (Y if spec.categorical else Y[:, 0])

    def _first_formula(self, formula: str, data: pd.DataFrame, missing: str):
        with warnings.catch_warnings():  # the plan reads the chunk again and warns once
            warnings.simplefilter("ignore", MissingValueWarning)
            spec = parse(formula, data, missing=missing, empty_levels=True)
        self._check_response(spec)
        columns = [str(c) for c in data.columns]
        # R's names (MPG.city, "x y") quoted and R's operators translated as parse read
        # them: the plan evaluates the text. R's '.' is stored expanded to the first chunk's
        # columns, so that the stream's formula names its columns (a saved state may hold no
        # '.', which is not Python). Made before the stream takes anything: a response
        # outside the allow-list is refused on the first chunk.
        expanded = expand_formula(formula, columns)
        plan = FormulaPlan.from_spec(
            self._without_rows(spec), expanded, columns, what="the stream's response"
        )
        X, y = self._through(plan, data, missing)
        self.spec, self.columns, self.formula, self._plan = plan.spec, columns, expanded, plan
        self.categorical, self.p = spec.categorical, spec.p
        return X, y

    def _expanded(self, formula: str) -> str:
        """``formula`` with R's names quoted and ``.`` expanded to the first chunk's columns
        (other than the response's), as :func:`~sdrstats.design.formula.parse` reads it."""
        return expand_formula(formula, self.columns or [])

    def _same(self, formula: str) -> bool:
        """Whether a later chunk's ``formula`` is the stream's (as given, or as stored)."""
        try:
            return self._expanded(formula) == self.formula
        except ValueError:
            return False

    # -- later chunks --------------------------------------------------------------------
    def _check_columns(self, data: pd.DataFrame) -> None:
        columns = [str(c) for c in data.columns]
        if set(columns) != set(self.columns):
            missing = [c for c in self.columns if c not in columns]
            extra = [c for c in columns if c not in self.columns]
            raise ValueError(
                f"This chunk's columns differ from the first chunk's: missing {missing}, extra "
                f"{extra}. Every chunk of a stream needs the same columns {self.columns}."
            )

    def _later_formula(self, data: pd.DataFrame, missing: str):
        self._check_columns(data)
        return self._through(self.plan(), data, missing)

    def _through(self, plan: FormulaPlan, data: pd.DataFrame, missing: str):
        """The chunk read by the stream's formula plan: rows with a missing (or undefined)
        value dropped with a warning, or refused (``missing``)."""
        X, y, keep = plan.arrays(data, "this chunk", kept=True, missing=missing)
        dropped = int(keep.size - np.count_nonzero(keep))
        if dropped:
            warnings.warn(
                f"Dropped {dropped} of {keep.size} rows of a chunk with "
                f"{plan.why_dropped(data, keep)}.",
                MissingValueWarning,
                stacklevel=4,
            )
            if X.shape[0] == 0:
                return _EMPTY
        if plan.categorical:
            return X, self._codes(y, plan.spec.y_levels)
        return X, y[:, 0]

    def _later_arrays(self, X: Any, y: Any, missing: str):
        if isinstance(X, pd.DataFrame) and self.spec.x_columns is not None:
            columns = [str(c) for c in X.columns]
            if columns != self.spec.x_columns:
                raise ValueError(
                    f"This chunk's columns {columns} differ from the first chunk's "
                    f"{self.spec.x_columns}; every chunk needs the same predictors in order."
                )
        Xa = np.asarray(X, dtype=float)
        if Xa.ndim != 2 or Xa.shape[1] != self.p:
            raise ValueError(
                f"This chunk has shape {Xa.shape}; the stream has p = {self.p} predictor columns."
            )
        ys = pd.Series(np.asarray(y).reshape(-1) if not isinstance(y, pd.Series) else y.to_numpy())
        if len(ys) != Xa.shape[0]:
            raise ValueError(f"This chunk has {Xa.shape[0]} rows of X but {len(ys)} of y.")
        finite = np.isfinite(Xa).all(axis=1)
        bad = ys.isna().to_numpy()
        if not finite.all():  # NaN rows follow the missing policy; inf raises below
            bad = bad | np.isnan(Xa).any(axis=1)
        if bad.any():
            if missing == "raise":
                raise ValueError(
                    f"{int(bad.sum())} row(s) of this chunk have missing values; "
                    "drop them first or pass missing='drop'."
                )
            warnings.warn(
                f"Dropped {int(bad.sum())} of {len(bad)} rows of a chunk with missing values.",
                MissingValueWarning,
                stacklevel=4,
            )
            Xa, ys = Xa[~bad], ys[~bad]
        if not finite.all():
            check_finite(Xa, self.spec.x_names, "Predictor")
        if self.categorical:
            return Xa, self._codes(ys, self.spec.y_levels)
        yv = ys.to_numpy(dtype=float)
        check_finite(yv[:, None], self.spec.y_names, "Response")
        return Xa, yv

    @staticmethod
    def _codes(labels: Any, levels: list[Any]) -> np.ndarray:
        codes = np.asarray(pd.Index(levels).get_indexer(np.asarray(labels)), dtype=np.int64)
        if np.any(codes < 0):
            unseen = sorted({str(v) for v, c in zip(np.asarray(labels), codes) if c < 0})
            raise ValueError(
                f"The response has class label(s) {unseen[:5]} not seen in the first "
                f"chunk (levels {levels}); the slices are fixed by the first chunk."
            )
        return codes


__all__ = ["ChunkReader"]
