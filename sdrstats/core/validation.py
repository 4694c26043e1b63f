"""Option checking shared by every estimator.

Messages follow one pattern: what was wrong (naming the option and the method), what was
given, and what to do.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np


def check_int(
    value: Any,
    name: str,
    method: str,
    *,
    low: int | None = None,
    high: int | None = None,
    allow_none: bool = False,
) -> int | None:
    """Return ``value`` as an int after checking it lies in ``[low, high]``."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"The {name!r} option of {method} must be an integer; got {value!r} "
            f"of type {type(value).__name__}."
        )
    value = int(value)
    if low is not None and value < low or high is not None and value > high:
        bounds = _bounds(low, high)
        raise ValueError(
            f"The {name!r} option of {method} must be an integer {bounds}; got {value}."
        )
    return value


def check_float(
    value: Any,
    name: str,
    method: str,
    *,
    low: float | None = None,
    high: float | None = None,
    strict_low: bool = False,
    allow_none: bool = False,
) -> float | None:
    """Return ``value`` as a finite float after checking its range."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"The {name!r} option of {method} must be a number; got {value!r} "
            f"of type {type(value).__name__}."
        )
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"The {name!r} option of {method} must be finite; got {value}.")
    if low is not None and (value <= low if strict_low else value < low):
        op = ">" if strict_low else ">="
        raise ValueError(f"The {name!r} option of {method} must be {op} {low}; got {value}.")
    if high is not None and value > high:
        raise ValueError(f"The {name!r} option of {method} must be <= {high}; got {value}.")
    return value


def check_choice(value: Any, name: str, method: str, choices: Iterable[Any]) -> Any:
    """Check that ``value`` is one of ``choices``."""
    choices = list(choices)
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"The {name!r} option of {method} must be one of {listed}; got {value!r}.")
    return value


def check_bool(value: Any, name: str, method: str) -> bool:
    """Check a boolean flag."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"The {name!r} option of {method} must be True or False; got {value!r}.")
    return bool(value)


def check_positive_grid(value: Any, name: str, method: str) -> np.ndarray:
    """A non-empty 1-D grid of positive finite numbers (kernel widths, penalties)."""
    grid = np.atleast_1d(np.asarray(value, dtype=float))
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(
            f"The {name!r} option of {method} must be a positive number or a non-empty list of "
            f"positive numbers; got {value!r}."
        )
    return grid


def _bounds(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"between {low} and {high}"
    if low is not None:
        return f">= {low}"
    return f"<= {high}"


def refuse_constant_response(spec: Any, method: str) -> None:
    """Every in-memory fit passes here: a numeric response without variation has no
    directions to find (pHd and MAVE would otherwise return arbitrary ones)."""
    if spec.categorical or spec.Y.size == 0:
        return
    Y = spec.Y.reshape(spec.Y.shape[0], -1)
    constant = [name for name, col in zip(spec.y_names, Y.T) if np.ptp(col) == 0]
    if constant:
        raise ValueError(
            f"The response is constant; {method} needs a response that varies ({constant} "
            "has a single value, zero variance). Remove constant responses from the formula."
        )


def own_copy(spec: Any, X: Any, y: Any) -> Any:
    """The array front keeps its own copy of rows that share the caller's memory.

    A fit keeps its rows (``transform()``, bootstrap and tests refit from them), so a caller
    writing to ``X`` afterwards must not change the fit. A copy costs one more X in memory,
    the same as the formula front (patsy builds a new matrix); a fingerprint of the rows
    would cost a hashing pass slower than the copy and could only detect, not prevent.
    """
    changes = {}
    for field_name, given in (("X", X), ("Y", y)):
        source = given.to_numpy() if hasattr(given, "to_numpy") else given
        held = getattr(spec, field_name)
        if isinstance(source, np.ndarray) and np.may_share_memory(held, source):
            changes[field_name] = held.copy()
    return dataclasses.replace(spec, **changes) if changes else spec


__all__ = ["check_int", "check_float", "check_choice", "check_bool", "check_positive_grid"]
