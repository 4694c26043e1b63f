"""``save(path)`` and ``load(path)`` of fitted results, and :func:`load` for any saved file.

The file format is :mod:`sdrstats.base.persistence`'s (arrays in an ``.npz`` and a JSON header
with checksums; nothing is unpickled). Loading checks what the results contract needs before
handing the object back: the estimator's options (re-validated), the model spec's arrays and
names (shapes agree), the output's basis and centre, and the stored formula against the
allow-list of :mod:`sdrstats.design.safe_formula` (so a hand-edited formula is refused at load, never
run at ``transform``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..base.contract import EstimatorOutput
from ..base.persistence import Registered, StateError, read, registry, write
from ..design.safe_formula import check_formula
from ..design.spec import ModelSpec

_KIND = "results"
_PREFIX = "state is incomplete or corrupt: "


def _field(obj: Any, name: str, where: str) -> Any:
    state = getattr(obj, "__dict__", {})
    if name not in state:
        raise StateError(f"missing field {where}.{name}.")
    return state[name]


def _array(value: Any, where: str, ndim: int, rows: int | None = None, cols: int | None = None):
    if not isinstance(value, np.ndarray) or value.ndim != ndim:
        shape = getattr(value, "shape", type(value).__name__)
        raise StateError(f"wrong shape of {where}: {shape}, expected a {ndim}-d array.")
    expected = (rows, cols)[:ndim]
    if any(e is not None and s != e for s, e in zip(value.shape, expected)):
        shown = ", ".join("?" if e is None else str(e) for e in expected)
        shown = f"({shown},)" if ndim == 1 else f"({shown})"
        raise StateError(f"wrong shape of {where}: {value.shape}, expected {shown}.")
    return value


def _finite(value: Any, where: str) -> None:
    """Refuse NaN or infinite values where a fit can hold none (its data, basis, centre)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc" and not np.isfinite(value).all():
        raise StateError(f"{where} holds non-finite values; a fitted result never does.")


def _names(value: Any, where: str, length: int | None = None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise StateError(f"{where} must be a list of names; got {type(value).__name__}.")
    if length is not None and len(value) != length:
        raise StateError(f"wrong shape of {where}: {len(value)} names for {length} columns.")
    return value


def check_spec(spec: Any, where: str = "spec") -> None:
    """Refuse a model spec whose fields are missing, of the wrong type or of the wrong shape,
    or whose stored formula is outside the allow-list."""
    if not isinstance(spec, ModelSpec):
        raise StateError(f"{where} is a {type(spec).__name__}, not a ModelSpec.")
    for name in ("X", "Y", "x_names", "y_names", "index", "y_levels", "rhs", "source"):
        _field(spec, name, where)
    X = _array(spec.X, f"{where}.X", 2)
    n, p = X.shape
    Y = spec.Y
    if not isinstance(Y, np.ndarray) or Y.ndim not in (1, 2) or Y.shape[0] != n:
        raise StateError(
            f"wrong shape of {where}.Y: {getattr(Y, 'shape', None)}, expected {n} rows."
        )
    _finite(X, f"{where}.X")
    _finite(Y, f"{where}.Y")
    _names(spec.x_names, f"{where}.x_names", p)
    _names(spec.y_names, f"{where}.y_names")
    if not isinstance(spec.index, pd.Index) or len(spec.index) != n:
        raise StateError(f"wrong shape of {where}.index: it must be an Index of {n} labels.")
    if spec.y_levels is not None and not isinstance(spec.y_levels, list):
        raise StateError(f"{where}.y_levels must be a list or None.")
    if spec.y_levels is not None and Y.size and (Y.min() < 0 or Y.max() >= len(spec.y_levels)):
        raise StateError(f"{where}.Y holds class codes beyond its {len(spec.y_levels)} levels.")
    weights = getattr(spec, "case_weights", None)
    if weights is not None:
        _array(weights, f"{where}.case_weights", 1, n)
        _finite(weights, f"{where}.case_weights")
        if weights.dtype.kind not in "fiu" or (weights < 0).any():
            raise StateError(f"{where}.case_weights must be non-negative numbers.")
    groups = getattr(spec, "groups", None)
    if groups is not None:
        _array(groups, f"{where}.groups", 1, n)
    columns = getattr(spec, "design_columns", None)
    if columns is not None:
        _array(columns, f"{where}.design_columns", 1, p)
    if spec.rhs is not None or spec.source is not None:
        if not isinstance(spec.rhs, str) or not isinstance(spec.source, pd.DataFrame):
            raise StateError(f"{where}.rhs must be text and {where}.source a DataFrame.")
        if columns is None:
            raise StateError(f"missing field {where}.design_columns.")
        check_formula(spec.rhs, [str(c) for c in spec.source.columns], what=f"{_PREFIX}{where}.rhs")


def check_options(estimator: Any, where: str = "estimator") -> None:
    """The stored options name exactly the estimator's options and pass its own checks.

    ``Estimator.__setstate__`` keeps a stored ``options`` that does not name them (or is
    not a dict, or is missing) aside for this check; the options themselves are attributes.
    """
    state = getattr(estimator, "__dict__", {})
    params = getattr(type(estimator), "params", {})
    if "_stored_options" in state:
        options = state["_stored_options"]
        if options is None:
            raise StateError(f"missing field {where}.options.")
        if not isinstance(options, dict):
            raise StateError(f"{where}.options must be a dict; got {type(options).__name__}.")
        unknown = sorted(str(k) for k in set(options) - set(params))
        absent = sorted(set(params) - set(options))
        raise StateError(
            f"{where}.options of {type(estimator).__name__} do not match its options: "
            f"unknown {unknown}, missing {absent}."
        )
    try:
        estimator._validate_options()
    except (TypeError, ValueError) as exc:
        raise StateError(f"{where}.options: {exc}") from None


def check_results(results: Any, prefix: str = "") -> None:
    """Refuse loaded results that miss what the results contract needs (see module doc);
    ``prefix`` is where they sit inside another loaded object."""
    for name in ("estimator", "spec", "output", "call"):
        _field(results, name, prefix + "results" if not prefix else prefix.rstrip("."))
    check_options(results.estimator, prefix + "estimator")
    check_spec(results.spec, prefix + "spec")
    output = results.output
    if not isinstance(output, EstimatorOutput):
        raise StateError(f"{prefix}output is a {type(output).__name__}, not an EstimatorOutput.")
    for name in ("basis", "d", "eigenvalues", "center", "extras"):
        _field(output, name, prefix + "output")
    p = results.spec.X.shape[1]
    if output.basis is not None:
        _finite(_array(output.basis, f"{prefix}output.basis", 2, p), f"{prefix}output.basis")
    if output.center is not None:
        _finite(_array(output.center, f"{prefix}output.center", 1, p), f"{prefix}output.center")
    if isinstance(output.eigenvalues, np.ndarray):
        _finite(output.eigenvalues, f"{prefix}output.eigenvalues")
    if not isinstance(output.d, (int, np.integer)) or output.d < 0:
        raise StateError(f"{prefix}output.d must be a non-negative integer; got {output.d!r}.")
    if not isinstance(output.extras, dict):
        raise StateError(f"{prefix}output.extras must be a dict.")
    if not isinstance(results.call, str):
        raise StateError(f"{prefix}call must be text.")


def _registered_parts(root: Any) -> list[tuple[str, Any]]:
    """Every registered sdrstats object reachable from ``root`` with its attribute path
    (``""`` for the root), through attributes, lists, tuples, sets and dicts."""
    classes = set(registry().values())
    found, seen, stack = [], set(), [("", root)]
    while stack:
        path, obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, dict):
            stack.extend((f"{path}[{k!r}].", v) for k, v in obj.items())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend((f"{path}[{i}].", v) for i, v in enumerate(obj))
        elif type(obj) in classes:
            found.append((path, obj))
            stack.extend((f"{path}{k}.", v) for k, v in vars(obj).items())
    return found


def check_loaded(root: Any) -> None:
    """Check a loaded object: results (the root, or inside it) by :func:`check_results`, and
    every other model spec it holds by :func:`check_spec` (so that no stored formula is
    evaluated unchecked later)."""
    checked: set[int] = set()
    for path, part in _registered_parts(root):
        if isinstance(part, ResultsSaveLoad):
            check_results(part, path)
            checked.add(id(part.spec))
    for path, part in _registered_parts(root):
        if isinstance(part, ModelSpec) and id(part) not in checked:
            check_spec(part, path.rstrip(".") or "spec")


def check_savable(root: Any) -> None:
    """Refuse, at save time, an object holding a formula that could not be rebuilt when
    loaded (one using the caller's own functions)."""
    for _, part in _registered_parts(root):
        if isinstance(part, ModelSpec):
            check_savable_formula(part)


def check_savable_formula(spec: Any) -> None:
    """Refuse, at save time, a fit whose formula could not be rebuilt when loaded."""
    if getattr(spec, "rhs", None) is not None and getattr(spec, "source", None) is not None:
        try:
            check_formula(
                spec.rhs, [str(c) for c in spec.source.columns], what="this fit's formula"
            )
        except ValueError as exc:
            raise ValueError(
                f"{exc} Saved files never run code, so a fit can be saved only if its formula "
                "uses the allowed functions."
            ) from None


class SaveLoadMixin(Registered):
    """``save``/``load`` of :class:`sdrstats.Results` and of the other fitted objects
    (``DensityFit``), see the module docstring."""

    def save(self, path: Any) -> Path:
        """Save the fit to ``path`` as data: an ``.npz`` of arrays with a JSON header.

        Nothing in the file is code: :meth:`load` reads it with ``allow_pickle=False`` and
        checks a SHA-256 checksum of every array and of the header. The checksums give
        integrity, not authenticity: they catch damage, but whoever edits the file can
        recompute them (see :func:`sdrstats.load`).

        Parameters
        ----------
        path : str or os.PathLike
            File name; ``.npz`` is appended unless it ends with it.

        Returns
        -------
        pathlib.Path
            The file written.

        Examples
        --------
        >>> import os, tempfile
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(wt) + ht + sex", ais, nslices=8, d=1)
        >>> target = fit.save(os.path.join(tempfile.mkdtemp(), "fit"))
        >>> again = sdr.Results.load(target)
        >>> again.directions.equals(fit.directions)
        True
        """
        check_savable(self)
        return write(path, self, kind=_KIND)

    @classmethod
    def load(cls, path: Any) -> Any:
        """Load a fit written by :meth:`save` (of this class or a subclass).

        Parameters
        ----------
        path : str or os.PathLike
            The file, or the name given to :meth:`save` (``.npz`` is added when that name
            is not a file).

        Returns
        -------
        Results

        Raises
        ------
        ValueError
            ``"state is incomplete or corrupt: ..."`` naming the field, for a file that is
            truncated, altered (checksum mismatch), of another schema version, holds pickled
            objects or non-finite values where a fit has none, or whose formula is outside
            the allow-list.
        MemoryError
            When the arrays the file declares exceed ``sdr.set_config(max_memory=...)``
            (checked from their headers, before anything is read).

        Notes
        -----
        See :func:`sdrstats.load` for what loading checks and what the checksums promise.

        Examples
        --------
        >>> import os, tempfile
        >>> import sdrstats as sdr
        >>> fit = sdr.save("lbm ~ ht + wt", sdr.datasets.load("ais"), nslices=6)
        >>> target = fit.save(os.path.join(tempfile.mkdtemp(), "fit.npz"))
        >>> str(sdr.Results.load(target).summary()) == str(fit.summary())
        True
        """
        info, obj = read(path, kind=_KIND)
        return cls._loaded(obj, info)

    @classmethod
    def _loaded(cls, obj: Any, info: dict[str, Any]) -> Any:
        if not isinstance(obj, SaveLoadMixin):
            raise StateError(f"the file's object is a {type(obj).__name__}, not a {cls.__name__}.")
        if not isinstance(obj, cls):
            raise ValueError(
                f"The file holds a {type(obj).__name__}, not a {cls.__name__}; load it with "
                "sdrstats.load(path)."
            )
        check_loaded(obj)
        return obj


class ResultsSaveLoad(SaveLoadMixin):
    """``save``/``load`` of :class:`sdrstats.Results`: loading also checks the results
    contract (:func:`check_results`)."""


def load(path: Any) -> Any:
    """Load anything sdrstats saved: fitted results or a stream (``OnlineSIR``).

    Parameters
    ----------
    path : str or os.PathLike
        A file written by ``Results.save`` or ``OnlineSIR.save``, or the name given to it
        (``.npz`` is added when that name is not a file).

    Returns
    -------
    Results or OnlineSIR

    Raises
    ------
    ValueError
        ``"state is incomplete or corrupt: ..."`` naming the field; see ``Results.load``.
    MemoryError
        When the arrays the file declares exceed ``sdr.set_config(max_memory=...)``.

    Notes
    -----
    Loading reads no code and allocates nothing unchecked: each array's dtype and shape are
    read from its own ``.npy`` header and compared with the bytes its entry holds, with the
    file's JSON array table and with the memory limit before any array is read; then every
    field is checked before it is used (options re-validated, shapes agree, data, basis and
    centre finite, the stored formula within the allow-list of functions).

    The SHA-256 checksums give **integrity, not authenticity**. They detect a file damaged in
    storage or transfer, or edited carelessly; they do not prove that sdrstats (or you) wrote
    it, since whoever edits a file can recompute them. A forged file cannot run code or
    exhaust memory when loaded, but its numbers are whatever the forger chose: load files
    from sources you trust, or sign them.

    Examples
    --------
    >>> import os, tempfile
    >>> import sdrstats as sdr
    >>> fit = sdr.sir("lbm ~ ht + wt + log(ssf)", sdr.datasets.load("ais"), nslices=6)
    >>> target = fit.save(os.path.join(tempfile.mkdtemp(), "fit"))
    >>> sdr.load(target)
    <MomentResults: sir, n = 202, p = 3, d = 3>
    """
    info, obj = read(path)
    name = info["class"]
    target = registry().get(name) if isinstance(name, str) else None
    if target is None or not hasattr(target, "_loaded"):
        raise StateError(f"the file's class {name!r} is not one sdrstats saves.")
    return target._loaded(obj, info)


__all__ = [
    "SaveLoadMixin",
    "ResultsSaveLoad",
    "load",
    "check_loaded",
    "check_results",
    "check_spec",
    "check_options",
]
