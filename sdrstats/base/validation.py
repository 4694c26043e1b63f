"""Option checking shared by every estimator.

Each estimator class declares its parameter constraints once, in scikit-learn's style::

    _parameter_constraints = {
        "nslices": [Interval(int, 2, None), None],
        "slice_function": [Options({"dr", "arc"})],
    }

and :func:`validate_parameters` checks them all in one place with one wording: "The
'nslices' parameter of SIR must be an int >= 2 or None. Got 1 instead." A value passes when
it satisfies any constraint of its list. Constraints are :class:`Interval`, :class:`Options`,
``None`` (the value None), ``"boolean"``, ``"random_state"``, ``"n_jobs"``, ``"array-like"``,
``"increasing"`` (cut points), ``"positive grid"`` (a number or a list of positive numbers)
a type (``str``: any instance) or a :class:`Constraint` of one's own. Checks that need the data stay in the estimator's
``_check_data``.

The ``check_*`` helpers check the arguments of functions that are not estimator options
(dimension rules, bootstrap); messages follow one pattern: what was wrong (naming the option
and the method), what was given, and what to do.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])


class InvalidParameterError(ValueError, TypeError):
    """An estimator option has a value its constraints do not allow.

    A subclass of both ``ValueError`` and ``TypeError`` (as scikit-learn's), since a wrong
    type and a value out of range are reported the same way.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> try:
    ...     sdr.SIR(nslices=1)
    ... except InvalidParameterError as err:
    ...     print(err)
    The 'nslices' parameter of SIR must be an int >= 2 or None. Got 1 instead.
    """


class Constraint:
    """One allowed kind of value: ``is_satisfied_by(value)`` and a description ``str()``."""

    def is_satisfied_by(self, value: Any) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def __str__(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


class Interval(Constraint):
    """Numbers of a kind (``int`` or ``float``) between two bounds.

    Parameters
    ----------
    kind : {int, float}
        ``int`` accepts integers only (not booleans, not ``2.0``); ``float`` accepts any
        finite real number, integers included.
    low, high : number or None
        Bounds; ``None`` is unbounded on that side.
    closed : {"both", "left", "right", "neither"}, default "both"
        Which bounds belong to the interval.

    Examples
    --------
    >>> str(Interval(int, 2, None)), str(Interval(float, 0, None, closed="neither"))
    ('an int >= 2', 'a float > 0')
    >>> Interval(float, 0, 1).is_satisfied_by(0.5), Interval(int, 1, None).is_satisfied_by(True)
    (True, False)
    """

    def __init__(
        self, kind: type, low: float | None, high: float | None, *, closed: str = "both"
    ) -> None:
        if kind not in (int, float):
            raise TypeError(f"Interval kind must be int or float; got {kind!r}.")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(
                f"Interval closed must be both, left, right or neither; got {closed!r}."
            )
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def is_satisfied_by(self, value: Any) -> bool:
        if not (_is_int(value) if self.kind is int else _is_real(value)):
            return False
        if not np.isfinite(float(value)):
            return False
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if self.low is not None and (value < self.low or (value == self.low and not low_in)):
            return False
        if self.high is not None and (value > self.high or (value == self.high and not high_in)):
            return False
        return True

    def __str__(self) -> str:
        noun = "an int" if self.kind is int else "a float"
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            left, right = "[" if low_in else "(", "]" if high_in else ")"
            return f"{noun} in {left}{self.low}, {self.high}{right}"
        if self.low is not None:
            return f"{noun} {'>=' if low_in else '>'} {self.low}"
        if self.high is not None:
            return f"{noun} {'<=' if high_in else '<'} {self.high}"
        return noun


class Options(Constraint):
    """One of a set of values (compared with ``==`` and by type, so ``1`` is not ``True``).

    Parameters
    ----------
    values : iterable
        The allowed values; a set is listed sorted, a sequence in its order.
    ignore_case : bool, default False
        Strings match whatever their case (``"meanOPG"`` is ``"meanopg"``).

    Examples
    --------
    >>> str(Options({"dr", "arc"}))
    "one of 'arc', 'dr'"
    """

    def __init__(self, values: Iterable[Any], *, ignore_case: bool = False) -> None:
        values = sorted(values, key=repr) if isinstance(values, (set, frozenset)) else values
        self.values = tuple(values)
        self.ignore_case = ignore_case

    def is_satisfied_by(self, value: Any) -> bool:
        if self.ignore_case and isinstance(value, str):
            value = value.lower()
        for option in self.values:
            if isinstance(value, type(option)) and _equal(value, option):
                return True
        return False

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # an array compared with a string
        return False


class _Boolean(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def __str__(self) -> str:
        return "a bool"


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


class _RandomState(Constraint):
    """What :func:`sdrstats.base.parallel.as_seed_sequence` accepts (so what ``bootstrap``'s
    ``random_state`` accepts): the same values are refused when an estimator is made."""

    def is_satisfied_by(self, value: Any) -> bool:
        if value is None:
            return True
        if isinstance(value, (np.random.SeedSequence, np.random.Generator, np.random.RandomState)):
            return True
        if _is_int(value):
            return value >= 0
        return (
            isinstance(value, Sequence)
            and not isinstance(value, str)
            and all(_is_int(v) and v >= 0 for v in value)
        )

    def __str__(self) -> str:
        return "None, an int >= 0, a list of them, a SeedSequence, a Generator or a RandomState"


class _NJobs(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return _is_int(value) and value != 0

    def __str__(self) -> str:
        return "a non-zero int (-1 for all cores)"


class _ArrayLike(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, np.ndarray) or (
            hasattr(value, "__len__") and not isinstance(value, (str, bytes, Mapping))
        )

    def __str__(self) -> str:
        return "an array-like"


class _InstanceOf(Constraint):
    def __init__(self, kind: type) -> None:
        self.kind = kind

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, self.kind) and not (
            self.kind is not bool and isinstance(value, bool)
        )

    def __str__(self) -> str:
        name = self.kind.__name__
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _float_array(value: Any) -> np.ndarray | None:
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        return None
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


class _Increasing(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        a = _float_array(value)
        return (
            a is not None
            and a.ndim == 1
            and a.size > 0
            and bool(np.all(np.isfinite(a)))
            and bool(np.all(np.diff(a) > 0))
        )

    def __str__(self) -> str:
        return "a non-empty, strictly increasing list of finite numbers"


class _PositiveGrid(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        a = _float_array(value)
        if a is None or isinstance(value, (bool, np.bool_)):
            return False
        a = np.atleast_1d(a)
        return a.ndim == 1 and a.size > 0 and bool(np.all(np.isfinite(a) & (a > 0)))

    def __str__(self) -> str:
        return "a positive number or a non-empty list of positive numbers"


class _Callable(Constraint):
    def is_satisfied_by(self, value: Any) -> bool:
        return callable(value)

    def __str__(self) -> str:
        return "a callable"


_NAMED: dict[str, Constraint] = {
    "boolean": _Boolean(),
    "random_state": _RandomState(),
    "n_jobs": _NJobs(),
    "array-like": _ArrayLike(),
    "callable": _Callable(),
    "increasing": _Increasing(),
    "positive grid": _PositiveGrid(),
}


def make_constraint(spec: Any) -> Constraint:
    """The :class:`Constraint` a declaration names (``None``, ``"boolean"``, an instance...).

    Examples
    --------
    >>> str(make_constraint("boolean")), str(make_constraint(None))
    ('a bool', 'None')
    """
    if isinstance(spec, Constraint):
        return spec
    if spec is None:
        return _NoneConstraint()
    if isinstance(spec, type):
        return _InstanceOf(spec)
    if isinstance(spec, str) and spec in _NAMED:
        return _NAMED[spec]
    raise TypeError(f"Unknown parameter constraint {spec!r}.")


def describe_constraints(constraints: Sequence[Any]) -> str:
    """``"an int >= 2 or None"``: the allowed kinds joined as a sentence (None last).

    Examples
    --------
    >>> describe_constraints([Interval(int, 2, None), None])
    'an int >= 2 or None'
    """
    parts = [str(make_constraint(c)) for c in constraints if c is not None]
    if any(c is None for c in constraints):
        parts.append("None")
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def validate_parameters(
    constraints: Mapping[str, Sequence[Any]], values: Mapping[str, Any], owner: str
) -> None:
    """Check every value that has constraints; the first bad one raises.

    Parameters
    ----------
    constraints : mapping of str to list
        ``name -> [constraint, ...]``; a value passes when it satisfies any of them. A name
        missing from ``constraints`` is not checked here (an estimator checks it itself).
    values : mapping of str to object
        The values, e.g. ``estimator.get_params()``.
    owner : str
        Name in the message, e.g. ``"SIR"``.

    Raises
    ------
    InvalidParameterError
        "The 'nslices' parameter of SIR must be an int >= 2 or None. Got 1 instead."

    Examples
    --------
    >>> validate_parameters({"d": [Interval(int, 1, None)]}, {"d": 0}, "SIR")
    Traceback (most recent call last):
    ...
    sdrstats.base.validation.InvalidParameterError: The 'd' parameter of SIR must be an int >= 1. Got 0 instead.
    """
    for name, value in values.items():
        allowed = constraints.get(name)
        if allowed is None:
            continue
        if any(make_constraint(c).is_satisfied_by(value) for c in allowed):
            continue
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be {describe_constraints(allowed)}. "
            f"Got {value!r} instead."
        )


def translate_options(
    options: dict[str, Any], owner: str, *, aliases: Mapping[str, str] = {}
) -> dict[str, Any]:
    """``options`` with aliases (R's names, e.g. ``numdir`` for ``d_max``) under their names.

    Parameters
    ----------
    options : dict
        Keyword arguments as given.
    owner : str
        Class or function name for the messages.
    aliases : mapping of other name to name
        Names that mean the same (R's ``numdir`` for ``d_max``).

    Returns
    -------
    dict
        A new dict; ``options`` is not changed.

    Raises
    ------
    TypeError
        When a name and its alias are both given.

    Examples
    --------
    >>> translate_options({"numdir": 2}, "SIR", aliases={"numdir": "d_max"})
    {'d_max': 2}
    """
    if not any(name in options for name in aliases):
        return options
    out = dict(options)
    for other, name in aliases.items():
        if other not in out:
            continue
        if name in out:
            raise TypeError(
                f"{owner} got both {name!r} and {other!r} (an alias of {name!r}); give only "
                f"{name}=..."
            )
        out[name] = out.pop(other)
    return out


def closest_option(name: str, valid: Iterable[str]) -> str | None:
    """The valid option ``name`` is most likely a misspelling of, or None.

    Case and R's dots (``slice.function``) are ignored; the match is :mod:`difflib`'s
    (similarity at least 0.6) or else the one option that begins with ``name``.

    Examples
    --------
    >>> closest_option("nslice", ["nslices", "d_max", "d"])
    'nslices'
    >>> closest_option("slice.function", ["nslices", "slice_function"])
    'slice_function'
    >>> closest_option("eps", ["eps_grid", "bandwidth_grid"])
    'eps_grid'
    >>> closest_option("colour", ["nslices", "d"]) is None
    True
    """
    plain = {str(v).lower().replace(".", "_"): str(v) for v in valid}
    key = name.lower().replace(".", "_")
    found = difflib.get_close_matches(key, list(plain), n=1)
    if not found and len(key) >= 2:
        found = [v for v in plain if v.startswith(key)]
    return plain[found[0]] if len(found) == 1 else None


def unknown_options_error(
    owner: str, unknown: Iterable[str], valid: Sequence[str], *, also: Iterable[str] = ()
) -> TypeError:
    """The ``TypeError`` for keyword arguments ``owner`` does not take.

    It names the function or class, each unknown name with the closest option
    (:func:`closest_option`), and every option, so a misspelt option is one glance away
    from its fix.

    Parameters
    ----------
    owner : str
        What was called, as the user wrote it: ``"sir()"``, ``"SIR()"``,
        ``"SIR.set_params()"``.
    unknown : iterable of str
        The names it does not take, in the order given.
    valid : sequence of str
        Its options, in its signature's order (listed in the message).
    also : iterable of str, optional
        Other names it takes (R's aliases, ``formula``...): suggested but not listed.

    Returns
    -------
    TypeError

    Examples
    --------
    >>> print(unknown_options_error("sir()", ["nslice"], ["nslices", "d_max", "d"]))
    sir() got an unknown option 'nslice'; did you mean 'nslices'? Its options are: nslices, d_max, d.
    >>> print(unknown_options_error("SIR()", ["colour", "dmax"], ["nslices", "d_max"]))
    SIR() got unknown options 'colour', 'dmax'; did you mean 'd_max' (for 'dmax')? Its options are: nslices, d_max.
    """  # noqa: E501
    unknown = list(unknown)
    candidates = [*valid, *also]
    matches = {name: closest_option(name, candidates) for name in unknown}
    if len(unknown) == 1:
        head = f"{owner} got an unknown option {unknown[0]!r}"
        match = matches[unknown[0]]
        hint = f"; did you mean {match!r}?" if match else "."
    else:
        head = f"{owner} got unknown options {', '.join(map(repr, unknown))}"
        found = [f"{m!r} (for {name!r})" for name, m in matches.items() if m]
        hint = f"; did you mean {', '.join(found)}?" if found else "."
    return TypeError(f"{head}{hint} Its options are: {', '.join(valid)}.")


def keywords_checked(func: Any) -> Any:
    """``func`` refusing a keyword it does not take with :func:`unknown_options_error`'s
    message (naming ``func`` and the closest keyword) instead of Python's bare one.

    For functions without ``**kwargs``; the signature, name and docstring are kept.

    Parameters
    ----------
    func : callable
        A function or method.

    Returns
    -------
    callable

    Examples
    --------
    >>> @keywords_checked
    ... def bootstrap(B=200, level=0.95):
    ...     return B
    >>> bootstrap(levl=0.9)
    Traceback (most recent call last):
    ...
    TypeError: bootstrap() got an unknown option 'levl'; did you mean 'level'? Its options are: B, level.
    """  # noqa: E501
    signature = inspect.signature(func)
    names = [
        p.name
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in ("self", "cls")
    ]
    owner = f"{func.__qualname__}()"

    @functools.wraps(func)
    def checked(*args: Any, **kwargs: Any) -> Any:
        unknown = [k for k in kwargs if k not in names]
        if unknown:
            raise unknown_options_error(owner, unknown, names)
        return func(*args, **kwargs)

    return checked


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


def accepts_aliases(aliases: Mapping[str, str]) -> Callable[[F], F]:
    """Decorate a function so that aliases of its keywords (R's ``numdir``) work too.

    The function keeps its signature (``inspect.signature`` shows its own names only).

    Examples
    --------
    >>> @accepts_aliases({"numdir": "d_max"})
    ... def rule(*, d_max=None):
    ...     return d_max
    >>> rule(numdir=3)
    3
    """

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **translate_options(kwargs, fn.__name__, aliases=aliases))

        return wrapper  # type: ignore[return-value]

    return decorate


def constant_response_error(method: str, names: list[str]) -> ValueError:
    """The error of a constant numeric response, the same for rows in memory, chunks, Dask
    partitions and streams.

    Examples
    --------
    >>> print(constant_response_error("sir", ["y"]))
    The response is constant; sir needs a response that varies (['y'] has a single value, zero variance). Remove constant responses from the formula.
    """
    return ValueError(
        f"The response is constant; {method} needs a response that varies ({names} has a "
        "single value, zero variance). Remove constant responses from the formula."
    )


class TooFewRowsError(ValueError):
    """A fit refused for too few rows; the formula functions add why rows were dropped."""


def too_few_rows_error(method: str, n: float, p: int) -> TooFewRowsError:
    """The error of a moment fit with no more rows than predictors (in memory or not).

    Examples
    --------
    >>> print(too_few_rows_error("sir", 4, 4))
    sir needs more observations than predictors; got n = 4 and p = 4. Remove predictors, or use a method for p >= n (lasso_sir, spca).
    """
    return TooFewRowsError(
        f"{method} needs more observations than predictors; got n = {int(n)} and p = {p}. "
        "Remove predictors, or use a method for p >= n (lasso_sir, spca)."
    )


def is_constant(variance: float, mean: float) -> bool:
    """Whether accumulated moments describe a constant column: zero variance, or a spread
    within rounding of the mean (standard deviation below ``1e-12 |mean|``)."""
    return not variance > (1e-12 * abs(mean)) ** 2


def refuse_constant_response(spec: Any, method: str) -> None:
    """Every in-memory fit passes here: a numeric response without variation has no
    directions to find (pHd and MAVE would otherwise return arbitrary ones)."""
    if spec.categorical or spec.Y.size == 0:
        return
    Y = spec.Y.reshape(spec.Y.shape[0], -1)
    constant = [name for name, col in zip(spec.y_names, Y.T) if np.ptp(col) == 0]
    if constant:
        raise constant_response_error(method, constant)


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


__all__ = [
    "accepts_aliases",
    "Constraint",
    "Interval",
    "InvalidParameterError",
    "Options",
    "TooFewRowsError",
    "check_bool",
    "check_choice",
    "check_float",
    "check_int",
    "check_positive_grid",
    "closest_option",
    "constant_response_error",
    "describe_constraints",
    "is_constant",
    "make_constraint",
    "refuse_constant_response",
    "too_few_rows_error",
    "translate_options",
    "unknown_options_error",
    "validate_parameters",
]
