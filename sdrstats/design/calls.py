"""The ``Call:`` line of a summary: how a fit was asked for, written one way for every method.

A formula function, ``Estimator.fit``, a chunked or Dask fit, a stream and a density fit all
record their call with :func:`format_call`: the arguments as given, then the options that
differ from their defaults, then ``subset=`` and ``weights=`` as R prints them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .formula import describe_subset


def same_value(value: Any, default: Any) -> bool:
    """Whether an option still has its default (arrays compared element-wise).

    Parameters
    ----------
    value, default : object
        The option's value and its default.

    Returns
    -------
    bool

    Examples
    --------
    >>> same_value([1, 2], [1, 2]), same_value(np.array([1.0]), None), same_value(8, 8)
    (True, False, True)
    """
    if value is default:
        return True
    try:
        return bool(
            np.all(np.asarray(value, dtype=object) == np.asarray(default, dtype=object))
        ) and (np.shape(value) == np.shape(default))
    except (TypeError, ValueError):
        return False


def _shown(value: Any) -> str:
    # an array's text would fill the line: the call says one was given, as for weights
    return "<array>" if isinstance(value, np.ndarray) else repr(value)


def format_call(
    function: str,
    *arguments: str,
    options: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    subset: Any = None,
    weights: Any = None,
    extra: Sequence[str] = (),
) -> str:
    """``function(arguments, options, subset=..., weights=..., extra)``, as a summary shows it.

    Parameters
    ----------
    function : str
        The function or class called (``"sir"``, ``"SIR"``).
    *arguments : str
        The arguments as they are written, in order (``repr(formula)``, ``"data"``).
    options : mapping, optional
        Options by name, in the order shown; those equal to their value in ``defaults`` (or
        ``None`` when it has none) are left out, and an array is shown as ``<array>``.
    defaults : mapping, optional
        The options' defaults.
    subset : str or array-like of bool, optional
        R's ``subset``: the query text, or the size of a mask.
    weights : str or array-like, optional
        Case weights: a column's name, or ``<array>``.
    extra : sequence of str, default ()
        Written last, as they are.

    Returns
    -------
    str

    Examples
    --------
    >>> format_call("sir", repr("lbm ~ ."), "data", options={"nslices": 8, "d": None},
    ...             defaults={"nslices": None, "d": None}, subset="sex == 'f'", weights="w")
    'sir(\\'lbm ~ .\\', data, nslices=8, subset="sex == \\'f\\'", weights=w)'
    """
    defaults = defaults or {}
    shown = [
        f"{name}={_shown(value)}"
        for name, value in (options or {}).items()
        if not same_value(value, defaults.get(name))
    ]
    if subset is not None:
        shown.append(f"subset={describe_subset(subset)}")
    if weights is not None:
        shown.append(f"weights={weights if isinstance(weights, str) else '<array>'}")
    return f"{function}({', '.join([*arguments, *shown, *extra])})"


__all__ = ["format_call", "same_value"]
