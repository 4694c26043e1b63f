"""Memory and time a fit will need, checked before it starts.

Methods whose cost grows with ``n²`` (an ``n × n`` kernel, distance or similarity matrix) or
that run long iterative searches ask here before allocating: past the memory limit the fit is
refused with the estimate and the remedy, and a default fit predicted to run for more than
about a minute warns (:class:`~sdrstats.SlowFitWarning`) with the estimate.

The limit is half the machine's physical memory unless set with :func:`set_config`
(``sdr.set_config(max_memory="32GiB")``, or ``None`` to restore the default), or for a block
of code with :func:`config_context`. Estimates are the method's dominant allocations (its
``n × n`` matrices times the copies it holds at once, measured with ``tracemalloc``) and
time models fitted on a 2-core machine: they are orders of magnitude, not promises.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections.abc import Iterator
from typing import Any

from .warnings import SlowFitWarning

#: Predicted seconds past which a fit warns.
SLOW_SECONDS = 60.0

_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40})
_CONFIG: dict[str, Any] = {"max_memory": None}


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


def max_memory() -> int:
    """The memory limit in bytes: the configured one, else half the physical memory (8 GiB
    where the machine's memory is unknown)."""
    if _CONFIG["max_memory"] is not None:
        return _CONFIG["max_memory"]
    total = physical_memory()
    return total // 2 if total else 8 * 2**30


def set_config(*, max_memory: Any = None) -> None:
    """Set the package's resource limits.

    Parameters
    ----------
    max_memory : int, str or None
        The most memory one fit may plan to allocate, in bytes or as a size such as
        ``"16GiB"``; ``None`` restores the default (half the physical memory).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> sdr.set_config(max_memory="4GiB")
    >>> sdr.core.budget.max_memory() == 4 * 2**30
    True
    >>> sdr.set_config(max_memory=None)
    """
    _CONFIG["max_memory"] = _parse_bytes(max_memory)


@contextlib.contextmanager
def config_context(*, max_memory: Any = None) -> Iterator[None]:
    """:func:`set_config` for the duration of a ``with`` block.

    Parameters
    ----------
    max_memory : int, str or None
        As :func:`set_config`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> with sdr.config_context(max_memory="1GiB"):
    ...     sdr.core.budget.max_memory() == 2**30
    True
    """
    old = dict(_CONFIG)
    set_config(max_memory=max_memory)
    try:
        yield
    finally:
        _CONFIG.update(old)


def size_text(nbytes: float) -> str:
    """``3.0 GiB``-style text of a byte count."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{int(nbytes)} B"


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
    "SLOW_SECONDS",
    "check_memory",
    "config_context",
    "max_memory",
    "physical_memory",
    "set_config",
    "size_text",
    "warn_if_slow",
]
