"""Memory and time a fit will need, checked before it starts.

Methods whose cost grows with ``n²`` (an ``n × n`` kernel, distance or similarity matrix) or
with ``n`` times an option (a basis, landmarks, response quantiles), and every count option
(restarts, iterations, replicates, permutations), ask here before allocating: past the
memory limit the call is refused with the estimate and the remedy (:func:`check_memory`,
:class:`MemoryError`), past the time limit likewise (:func:`check_time`, ``ValueError``),
and a fit predicted to run for more than about a minute warns
(:class:`~sdrstats.SlowFitWarning`) with the estimate. :func:`check_count` does both for one
count option, naming it.

The memory limit is half the machine's physical memory, the time limit a day (86,400 s),
unless set with :func:`set_config` (``sdr.set_config(max_memory="32GiB", max_time="3h")``;
``None`` restores a default), or for a block of code with :func:`config_context`. A day is
far beyond any fit the package's defaults run, and far short of the years a mistyped count
(``n_restarts=10**9``) would take: raise it for a deliberate long run. Estimates are the
method's dominant allocations (its ``n × n`` or ``n × b`` matrices times the copies it holds
at once, measured with ``tracemalloc``) and time models fitted on a 2-core machine, with a
floor for the fixed cost of one step of a Python loop: they are orders of magnitude, not
promises.

What a fit *keeps* has a budget too: an array a result can recompute from the rows it
already holds (IRE's Cholesky factor of ``Γ_ζ``, ``p(h − 1)`` square: 56 MB at p = 50 with
R's default slicing) is kept only up to :data:`KEPT_BYTES` and is never written to a saved
file; past it, the result recomputes it when it is first needed and holds it beside itself
(not in it) while it lives.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from .warnings import SlowFitWarning

#: Predicted seconds past which a fit warns.
SLOW_SECONDS = 60.0
#: Predicted seconds past which a table or summary leaves out a column the fit does not need
#: (SAVE's general-theory p-values) and says in one line how to get it and what it costs.
OPTIONAL_SECONDS = 10.0
#: The default time limit: a day.
DEFAULT_MAX_TIME = 86_400.0
#: Memory of one random stream drawn for a replicate, restart or permutation
#: (a ``numpy.random.SeedSequence``: about 450 bytes, tracemalloc).
SEED_BYTES = 512.0
#: The largest array a fitted result keeps that it can recompute from its own rows: 8 MiB
#: (IRE's ``Γ_ζ`` factor up to ``p(h − 1) = 1,024``, e.g. p = 20 with 52 slices); a larger
#: one is recomputed when first needed (:func:`keeps_recomputable`).
KEPT_BYTES = 8 * 2**20
#: The least one step of a loop written in Python costs (a restart, an iteration, a
#: replicate: at least one call into numpy's linear algebra), the floor of the time models.
STEP_SECONDS = 1e-4

_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40})
_SECONDS = {"": 1, "s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600, "d": 86_400}
_CONFIG: dict[str, Any] = {"max_memory": None, "max_time": None}
#: "Leave this setting as it is" (``None`` means "restore the default").
_KEEP: Any = object()


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine, or None where the OS does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _parse_bytes(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(
            f"max_memory must be a number of bytes or a size such as '8GiB'; got {value!r}."
        )
    if isinstance(value, (int, float)):
        if value <= 0:
            raise ValueError(f"max_memory must be positive; got {value!r}.")
        return int(value)
    match = re.fullmatch(r"\s*([0-9.]+)\s*([KMGT]?i?B?)\s*", str(value), flags=re.IGNORECASE)
    if not match or match.group(2).upper() not in _UNITS:
        raise ValueError(
            f"max_memory must be a number of bytes or a size such as '8GiB' or '500MB'; got {value!r}."
        )
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def _parse_seconds(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(
            f"max_time must be a number of seconds or a duration such as '6h'; got {value!r}."
        )
    if isinstance(value, (int, float)):
        if not value > 0:
            raise ValueError(f"max_time must be positive; got {value!r}.")
        return float(value)
    match = re.fullmatch(r"\s*([0-9.]+)\s*([a-z]*)\s*", str(value), flags=re.IGNORECASE)
    if not match or match.group(2).lower() not in _SECONDS:
        raise ValueError(
            "max_time must be a number of seconds or a duration such as '90s', '30min', '6h' "
            f"or '2d'; got {value!r}."
        )
    return float(match.group(1)) * _SECONDS[match.group(2).lower()]


def max_memory() -> int:
    """The memory limit in bytes: the configured one, else half the physical memory (8 GiB
    where the machine's memory is unknown)."""
    if _CONFIG["max_memory"] is not None:
        return _CONFIG["max_memory"]
    total = physical_memory()
    return total // 2 if total else 8 * 2**30


def max_time() -> float:
    """The time limit in seconds: the configured one, else :data:`DEFAULT_MAX_TIME` (a day)."""
    configured = _CONFIG["max_time"]
    return DEFAULT_MAX_TIME if configured is None else configured


def set_config(*, max_memory: Any = _KEEP, max_time: Any = _KEEP) -> None:
    """Set the package's resource limits; a limit not named keeps its value.

    Parameters
    ----------
    max_memory : int, str or None
        The most memory one call may plan to allocate, in bytes or as a size such as
        ``"16GiB"``; ``None`` restores the default (half the physical memory).
    max_time : float, str or None
        The longest one call may be predicted to run, in seconds or as a duration such as
        ``"6h"`` (units ``s``, ``min``, ``h``, ``d``); ``None`` restores the default, a day.

    Notes
    -----
    Past either limit a call is refused before it starts, with its estimate, the option
    that drives it and this function as the way to raise the limit. Every count, size and
    iteration option (``n_restarts``, ``max_iter``, ``steps``, ``B``, ``n_permutations``,
    ``n_basis``, ``n_landmarks``, ``y_points``, ...) is bounded this way, as are the methods
    whose memory grows with ``n``; the estimates are orders of magnitude.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> sdr.set_config(max_memory="4GiB", max_time="2h")
    >>> sdr.base.budget.max_memory() == 4 * 2**30, sdr.base.budget.max_time()
    (True, 7200.0)
    >>> sdr.set_config(max_memory=None, max_time=None)
    """
    if max_memory is not _KEEP:
        _CONFIG["max_memory"] = _parse_bytes(max_memory)
    if max_time is not _KEEP:
        _CONFIG["max_time"] = _parse_seconds(max_time)


@contextlib.contextmanager
def config_context(*, max_memory: Any = _KEEP, max_time: Any = _KEEP) -> Iterator[None]:
    """:func:`set_config` for the duration of a ``with`` block.

    Parameters
    ----------
    max_memory, max_time : optional
        As :func:`set_config`; a limit not named keeps its value.

    Yields
    ------
    None
        The block runs with the limits set; the old ones come back when it ends.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> with sdr.config_context(max_memory="1GiB"):
    ...     sdr.base.budget.max_memory() == 2**30
    True
    """
    old = dict(_CONFIG)
    set_config(max_memory=max_memory, max_time=max_time)
    try:
        yield
    finally:
        _CONFIG.update(old)


def size_text(nbytes: float) -> str:
    """``3.0 GiB``-style text of a byte count."""
    for unit, scale in (
        ("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)
    ):  # fmt: skip
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{int(nbytes)} B"


def time_text(seconds: float) -> str:
    """``2.5 h``-style text of a duration.

    Examples
    --------
    >>> time_text(45), time_text(5400), time_text(86_400 * 400)
    ('45 s', '1.5 h', '1.1 years')
    """
    year, day = 365.25 * 86_400, 86_400
    for unit, scale, least in (("years", year, year), ("days", day, 2 * day), ("h", 3600, 3600),
                               ("min", 60, 60)):  # fmt: skip
        if seconds >= least:
            return f"{seconds / scale:.1f} {unit}"
    return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"


def check_memory(method: str, nbytes: float, what: str, remedy: str) -> None:
    """Refuse a fit whose planned allocations exceed :func:`max_memory`.

    Parameters
    ----------
    method : str
        The method's name.
    nbytes : float
        The estimated peak of the fit's allocations.
    what : str
        What takes the memory, e.g. ``"its n × n kernel matrix at n = 20,000"``.
    remedy : str
        What to do instead (an approximation, subsampling).

    Examples
    --------
    >>> check_memory("demo", 10.0, "a tiny matrix", "nothing")
    >>> with config_context(max_memory=1000):
    ...     check_memory("demo", 2e6, "a matrix", "use less")
    Traceback (most recent call last):
    ...
    MemoryError: demo needs about 1.9 MiB for a matrix, over the limit of 1000 B ...
    """
    limit = max_memory()
    if nbytes > limit:
        raise MemoryError(
            f"{method} needs about {size_text(nbytes)} for {what}, over the limit of "
            f"{size_text(limit)} (half the physical memory unless set by "
            f"sdr.set_config(max_memory=...)); {remedy}, or raise the limit."
        )


def check_time(method: str, seconds: float, what: str, remedy: str) -> None:
    """Refuse a call predicted to run longer than :func:`max_time`.

    Parameters
    ----------
    method : str
        The method's (or function's) name.
    seconds : float
        The predicted time.
    what : str
        What takes the time, e.g. ``"max_iter = 1,000,000 iterations at n = 500"``.
    remedy : str
        What to do instead (lower an option).

    Raises
    ------
    ValueError
        With the estimate, the limit and how to raise it.

    Examples
    --------
    >>> check_time("demo", 10.0, "a short loop", "nothing")
    >>> check_time("demo", 1e9, "1,000,000,000 steps", "use fewer steps")
    Traceback (most recent call last):
    ...
    ValueError: demo would take about 31.7 years for 1,000,000,000 steps (predicted), ...
    """
    limit = max_time()
    if seconds > limit:
        raise ValueError(
            f"{method} would take about {time_text(seconds)} for {what} (predicted), over the "
            f"limit of {time_text(limit)} (a day unless set by sdr.set_config(max_time=...)); "
            f"{remedy}, or raise the limit."
        )


def check_count(
    method: str,
    option: str,
    value: int,
    *,
    unit: str,
    seconds_each: float | None = STEP_SECONDS,
    bytes_each: float = 0.0,
    at: str = "",
    fixed_bytes: float = 0.0,
    remedy: str | None = None,
) -> None:
    """Refuse a count option whose predicted time or memory is past the limits.

    The estimates are ``value × seconds_each`` (at least :data:`STEP_SECONDS` a step; no
    time check when ``seconds_each`` is None, for a size rather than a loop) and
    ``fixed_bytes + value × bytes_each``; the messages name the option and its value.

    Parameters
    ----------
    method : str
        The method's (or function's) name.
    option : str
        The option's name (``"n_restarts"``).
    value : int
        Its value.
    unit : str
        What one count is, plural (``"restarts"``).
    seconds_each : float or None, default :data:`STEP_SECONDS`
        The predicted time of one count.
    bytes_each : float, default 0
        The memory one count adds.
    at : str
        Where, e.g. ``" at n = 500"``.
    fixed_bytes : float
        Memory the call needs whatever the count.
    remedy : str, optional
        Default ``"lower {option}"``.

    Examples
    --------
    >>> check_count("demo", "B", 100, unit="replicates")
    >>> check_count("demo", "B", 10**12, unit="replicates", at=" at n = 50")
    Traceback (most recent call last):
    ...
    ValueError: demo would take about 3.2 years for B = 1,000,000,000,000 replicates at n = 50 ...
    """
    what = f"{option} = {value:,} {unit}{at}"
    remedy = remedy or f"lower {option}"
    check_memory(method, fixed_bytes + value * bytes_each, what, remedy)
    if seconds_each is not None:
        check_time(method, value * max(seconds_each, STEP_SECONDS), what, remedy)


def check_loops(
    method: str, counts: dict[str, int], seconds_each: float, *, unit: str, at: str = ""
) -> None:
    """Refuse nested loops (restarts × iterations ...) predicted past :func:`max_time`,
    naming every count option: the estimate is the product of the counts times
    ``seconds_each`` (at least :data:`STEP_SECONDS`), the time of the innermost step.

    Parameters
    ----------
    method : str
        The method's name.
    counts : dict
        Option name → value, outermost first.
    seconds_each : float
        The time of one innermost step.
    unit : str
        What the innermost step is, plural (``"gradient steps"``).
    at : str
        Where, e.g. ``" at n = 500"``.

    Examples
    --------
    >>> check_loops("demo", {"n_restarts": 5, "max_iter": 100}, 1e-3, unit="steps")
    >>> check_loops("demo", {"n_restarts": 10**6, "max_iter": 10**4}, 1e-3, unit="steps")
    Traceback (most recent call last):
    ...
    ValueError: demo would take about 115.7 days for n_restarts = 1,000,000 × max_iter = 10,000 steps (predicted), ...
    """
    total = float(np.prod([float(v) for v in counts.values()]))
    what = " × ".join(f"{k} = {v:,}" for k, v in counts.items()) + f" {unit}{at}"
    names = list(counts)
    remedy = "lower " + (
        names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    )
    check_time(method, total * max(seconds_each, STEP_SECONDS), what, remedy)


def keeps_recomputable(nbytes: float) -> bool:
    """Whether a fitted result keeps an array of ``nbytes`` that it can recompute from its own
    rows: up to :data:`KEPT_BYTES`; a larger one is recomputed when first needed.

    Examples
    --------
    >>> keeps_recomputable(440**2 * 8), keeps_recomputable(2650**2 * 8)
    (True, False)
    """
    return nbytes <= KEPT_BYTES


def warn_if_slow(method: str, seconds: float, what: str, remedy: str, stacklevel: int = 3) -> None:
    """Warn (:class:`~sdrstats.SlowFitWarning`) when a fit is predicted to take over a minute.

    Parameters
    ----------
    method : str
        The method's name.
    seconds : float
        The predicted time.
    what : str
        What takes the time, e.g. ``"20 restarts at n = 50,000"``.
    remedy : str
        How to make it faster.
    stacklevel : int, default 3
        As :func:`warnings.warn`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_slow("demo", 120.0, "a long loop", "use fewer steps")
    >>> print(caught[0].message)
    demo will take about 2 min for a long loop (predicted); use fewer steps.
    """
    if seconds > SLOW_SECONDS:
        shown = f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
        warnings.warn(
            f"{method} will take about {shown} for {what} (predicted); {remedy}.",
            SlowFitWarning,
            stacklevel=stacklevel,
        )


__all__ = [
    "DEFAULT_MAX_TIME",
    "KEPT_BYTES",
    "OPTIONAL_SECONDS",
    "SEED_BYTES",
    "SLOW_SECONDS",
    "STEP_SECONDS",
    "check_count",
    "check_loops",
    "check_memory",
    "check_time",
    "config_context",
    "keeps_recomputable",
    "max_memory",
    "max_time",
    "physical_memory",
    "set_config",
    "size_text",
    "time_text",
    "warn_if_slow",
]
