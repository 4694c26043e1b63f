"""Tables of a density fit built when first read.

A fit scores its candidates (tuning grids, component widths, log-scales, models) and keeps
the scores as tables for ``summary`` and the user. Building a :class:`pandas.DataFrame`
costs more than many of the scores themselves on a small fit (a few milliseconds a fit in
all), and most fits are never asked for their tables: a :class:`DeferredTable` keeps the
numbers and builds the frame on demand, and :class:`TableAttribute` makes a density's
attribute hand out the frame, built once, so the attribute's type and value are what they
were when the frame was built at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd


class DeferredTable:
    """``build(*args, **kwargs)``, a :class:`pandas.DataFrame`, when called.

    Parameters
    ----------
    build : callable
        Returns the table from ``args`` and ``kwargs``.
    *args, **kwargs
        The numbers (held as they are: pass copies of anything the caller changes later).

    Examples
    --------
    >>> import pandas as pd
    >>> table = DeferredTable(pd.DataFrame, {"a": [1.0, 2.0]})
    >>> table().shape
    (2, 1)
    """

    __slots__ = ("args", "build", "kwargs")

    def __init__(self, build: Callable[..., pd.DataFrame], *args: Any, **kwargs: Any) -> None:
        self.build, self.args, self.kwargs = build, args, kwargs

    def __call__(self) -> pd.DataFrame:
        return self.build(*self.args, **self.kwargs)


def built(value: Any) -> Any:
    """``value``, a :class:`DeferredTable` built (anything else as it is)."""
    return value() if isinstance(value, DeferredTable) else value


class TableAttribute:
    """An instance attribute holding a table or a :class:`DeferredTable`: reading it gives
    the table, built on the first read and kept. Unset, it is missing (``AttributeError``),
    as a plain attribute is. The value lives in the instance's ``__dict__`` under the
    attribute's own name, so pickled and saved states are those of a plain attribute once
    the owner's ``__getstate__`` builds what is still deferred (:func:`built`)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        try:
            value = obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(
                f"{type(obj).__name__!r} object has no attribute {self.name!r}"
            ) from None
        if isinstance(value, DeferredTable):
            value = obj.__dict__[self.name] = value()
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value


__all__ = ["DeferredTable", "TableAttribute", "built"]
