"""Factor levels of chunked and Dask data, found in a pass before the formula is fixed.

In memory, patsy codes a factor column with every level the column has (sorted, or a pandas
categorical's declared order). A chunked fit fixes the formula on the first chunk, so a level
first seen in a later chunk would be coded differently. When the formula uses factor columns
(strings, objects, categoricals) and the data can be read more than once, a pass
collects each such column's levels over all chunks; every chunk is then read with those
columns as a pandas categorical of exactly the levels the in-memory fit would use.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..design.plan import columns_read


def factor_columns(first: pd.DataFrame, formula: str) -> list[str]:
    """The non-numeric columns of ``first`` that ``formula`` can use (``.`` uses all)."""
    columns = [str(c) for c in first.columns]
    used = set(columns_read(formula, columns))
    frame = first.set_axis(columns, axis=1)
    # booleans are left to the formula front (two levels known in advance); an object column
    # holding only numbers is numbers, as in memory (R's model.frame)
    return [
        c
        for c in columns
        if c in used and not pd.api.types.is_numeric_dtype(frame[c]) and not _numbers(frame[c])
    ]


def _numbers(series: pd.Series) -> bool:
    """An object column whose values (missing ones aside) are all numbers, not text."""
    if not pd.api.types.is_object_dtype(series):
        return False
    values = series[series.notna()]
    return bool(len(values)) and bool(
        values.map(
            lambda v: isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
        ).all()
    )


class LevelSet:
    """The levels of some columns over the chunks seen: a categorical's declared categories
    while every chunk declares the same ones, else the sorted union of the values."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = list(columns)
        self.values: dict[str, set] = {c: set() for c in self.columns}
        self.declared: dict[str, list | None] = {}
        #: whether every chunk declares the column an ordered categorical (R's ordered factor)
        self.ordered: dict[str, bool] = {}

    def update(self, chunk: pd.DataFrame) -> LevelSet:
        frame = chunk.set_axis([str(c) for c in chunk.columns], axis=1)
        for col in self.columns:
            if col not in frame.columns:
                continue
            series = frame[col]
            if isinstance(series.dtype, pd.CategoricalDtype):
                cats = list(series.cat.categories)
                self._declare(col, cats, series.dtype.ordered)
                self.values[col].update(cats)
            else:
                self._declare(col, None)
                self.values[col].update(series.dropna().unique().tolist())
        return self

    def _declare(self, col: str, cats: list | None, ordered: bool = False) -> None:
        self.ordered[col] = self.ordered.get(col, True) and bool(ordered)
        if col not in self.declared:
            self.declared[col] = cats
        elif self.declared[col] != cats:
            self.declared[col] = None

    def merge(self, other: LevelSet) -> LevelSet:
        for col in self.columns:
            self.values[col] |= other.values[col]
            if col in other.declared:
                self._declare(col, other.declared[col], other.ordered.get(col, False))
        return self

    def dtypes(self) -> dict[str, pd.CategoricalDtype]:
        """A categorical dtype per column with the levels the in-memory fit would use."""
        out = {}
        for col in self.columns:
            declared = self.declared.get(col)
            ordered = False
            if declared is not None:
                levels, ordered = declared, self.ordered.get(col, False)
            else:
                try:
                    levels = sorted(self.values[col])
                except TypeError:  # values of mixed types: the formula front refuses them
                    continue
            out[col] = pd.CategoricalDtype(levels, ordered=ordered)
        return out


def levels_part(plan: Any, chunk: pd.DataFrame, where: str, template: LevelSet) -> LevelSet:
    """``template``'s levels of one chunk (``plan`` is unused: the formula is not fixed yet)."""
    return LevelSet(template.columns).update(chunk)


def recode(chunk: pd.DataFrame, dtypes: dict[str, pd.CategoricalDtype]) -> pd.DataFrame:
    """``chunk`` with its factor columns read as the given categoricals (a new frame)."""
    names = {str(c): c for c in chunk.columns}
    present = {names[c]: dtype for c, dtype in dtypes.items() if c in names}
    if not present:
        return chunk
    out = chunk.copy(deep=False)
    for col, dtype in present.items():
        out[col] = pd.Categorical(np.asarray(out[col], dtype=object), dtype=dtype)
    return out


__all__ = ["LevelSet", "factor_columns", "levels_part", "recode"]
