"""Saving fitted results and stream state as data: an ``.npz`` of arrays and a JSON header.

Nothing in a saved file is code. :func:`write` walks an object's state (what pickle would
hold: ``__getstate__`` or ``__dict__``) into a JSON tree, putting every numeric array in the
``.npz`` beside it; :func:`read` rebuilds it with ``numpy.load(..., allow_pickle=False)`` and
:mod:`json` only. The tree may hold

* ``None``, booleans, integers, floats (``nan``/``inf`` tagged), strings, lists, tuples, sets
  and dicts with any of these as keys;
* numpy arrays (numeric, boolean, text, dates: never object arrays, whose items are stored
  in the tree instead), numpy scalars and dtypes, :class:`numpy.random.Generator` (its bit
  generator's state);
* pandas ``Index`` (``RangeIndex``, ``MultiIndex``), ``Categorical``, ``Series`` and
  ``DataFrame`` (values, index, columns and dtypes), ``pd.NA`` and ``pd.NaT``;
* scipy sparse matrices and arrays (CSR, CSC, COO);
* instances of sdrstats classes in :func:`registry`, rebuilt by ``cls.__new__`` and their
  stored state: a file names a class by its name, looked up in the registry, and never
  imports anything. Shared and cyclic references are kept.

The file's header records a schema version, the class of the saved object, and a SHA-256
checksum of every array (of its dtype, shape and bytes) and of the header itself. Anything
missing, altered, truncated or of a version this sdrstats does not read raises
:class:`StateError`, a ``ValueError`` whose message starts ``"state is incomplete or corrupt: "``
and names the field.

Versions (:data:`READ_VERSIONS`; :func:`write` writes :data:`SCHEMA_VERSION`):

* **2** — a saved object leaves out what it recomputes from the rows it saves (its
  ``__getstate__`` drops it): IRE's Cholesky factor of its final ``Γ_ζ`` (``p(h − 1)``
  square, 56 MB at p = 50 with R's default slicing) is not written for a fit of rows in
  memory, and its coordinate tests recompute it when first needed
  (:func:`sdrstats.moment.ire_passes.final_factors`). A fit on chunked data, which keeps no
  rows, still writes it. Version 1 readers refuse these files rather than load a fit that
  lacks the factor they expect.
* **1** — the same layout, with those factors written; such files still load, and the loaded
  fit uses the stored factor.

Before any array is read, :func:`read` takes each stored array's dtype and shape from its own
``.npy`` header inside the archive (a few hundred bytes), checks that the entry holds exactly
the bytes that header declares, that dtype and shape agree with the file's JSON array table,
and that all the arrays together fit the memory limit (:func:`sdrstats.set_config`,
``max_memory``): a forged header claiming a huge shape is refused before anything is
allocated.

The checksums give *integrity*, not *authenticity*: they catch a file damaged in storage or
transfer, or edited by hand without care, but whoever edits a file can recompute them, so a
file that loads is not thereby a file sdrstats wrote. What keeps a forged file harmless is
that nothing in it is code and that every field is checked before it is used; to know who
wrote a file, sign it (or keep it where only you can write).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .budget import check_memory, size_text

#: Version of the layout written by :func:`write` (see the module notes).
SCHEMA_VERSION = 2
#: Versions :func:`read` loads; it refuses any other.
READ_VERSIONS = (1, 2)
FORMAT = "sdrstats"
HEADER = "__header__"
HEADER_CHECKSUM = "__header_sha256__"

_PREFIX = "state is incomplete or corrupt: "
_MORE_MEMORY = "load it on a machine with more memory"
_REGISTRY: dict[str, type] = {}
#: Functions that import the modules defining registered classes, run before the first lookup.
_PENDING: list[Callable[[], None]] = []
_PENDING_LOCK = threading.RLock()
_AMBIGUOUS: set[str] = set()
_BIT_GENERATORS = {
    name: getattr(np.random, name) for name in ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
}
#: numpy dtype kinds an array in the file may have (no object or structured arrays).
_ARRAY_KINDS = set("biufcUSMm")
#: pandas extension dtypes a Series or Index may have (besides numpy's and categorical).
_EXTENSION_DTYPES = {
    "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
    "Float32", "Float64", "boolean", "string", "str",
}  # fmt: skip


class StateError(ValueError):
    """A saved file or state dict that is incomplete, altered, truncated or of another version."""

    def __init__(self, detail: str) -> None:
        super().__init__(_PREFIX + detail)


# -- registry --------------------------------------------------------------------------------
def register(cls: type) -> type:
    """Let instances of the sdrstats class ``cls`` be saved and loaded (a class decorator)."""
    name = cls.__qualname__
    held = _REGISTRY.get(name)
    if held is not None and held is not cls:
        # two classes of one name: both are known by module-qualified names only
        _AMBIGUOUS.add(name)
        _REGISTRY.pop(name, None)
        _REGISTRY[f"{held.__module__}.{name}"] = held
    if name in _AMBIGUOUS:
        _REGISTRY[f"{cls.__module__}.{name}"] = cls
    else:
        _REGISTRY[name] = cls
    return cls


class Registered:
    """Base whose sdrstats subclasses are registered for saving when they are defined."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.split(".")[0] == "sdrstats":
            register(cls)


def on_first_lookup(load: Callable[[], None]) -> None:
    """Run ``load`` (which imports the modules that define registered classes) before the
    registry is first read.

    A package that imports its modules lazily hands this down, so that a file can be loaded,
    and a class's name in it is unambiguous, before the class's own module was ever used.
    """
    _PENDING.append(load)


def _complete() -> None:
    if not _PENDING:
        return
    with _PENDING_LOCK:  # another thread reads the registry only once the classes are in
        while _PENDING:
            _PENDING.pop(0)()


def registry() -> dict[str, type]:
    """The classes a saved file may name (name → class); a copy."""
    _complete()
    return dict(_REGISTRY)


def _class_name(cls: type) -> str | None:
    _complete()
    for name in (cls.__qualname__, f"{cls.__module__}.{cls.__qualname__}"):
        if _REGISTRY.get(name) is cls:
            return name
    return None


# -- encoding --------------------------------------------------------------------------------
def _safe_key(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\[\]'-]", "_", path)[:120] or "array"


class _Encoder:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.memo: dict[int, int] = {}
        self.keep: list[Any] = []  # objects whose id() is memoised stay alive

    def array(self, value: np.ndarray, path: str) -> dict[str, Any]:
        key, k = _safe_key(path), 1
        while key in self.arrays or key in (HEADER, HEADER_CHECKSUM):
            k += 1
            key = f"{_safe_key(path)}#{k}"
        # kept in its memory order (np.save records Fortran order), so that products with a
        # loaded array round exactly as with the original
        self.arrays[key] = value
        return {"$": "array", "key": key}

    def encode(self, obj: Any, path: str) -> Any:
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int) and not isinstance(obj, bool):
            return int(obj)
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"$": "float", "v": repr(obj)}
        if isinstance(obj, complex):
            return {
                "$": "complex",
                "re": self.encode(obj.real, path),
                "im": self.encode(obj.imag, path),
            }
        if isinstance(obj, list):
            return [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, tuple):
            return {
                "$": "tuple",
                "items": [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)],
            }
        if isinstance(obj, (set, frozenset)):
            tag = "set" if isinstance(obj, set) else "frozenset"
            return {"$": tag, "items": [self.encode(v, f"{path}{{}}") for v in obj]}
        if isinstance(obj, dict) and type(obj) is dict:
            return {
                "$": "dict",
                "items": [
                    [self.encode(k, f"{path}.key"), self.encode(v, f"{path}[{k!r}]")]
                    for k, v in obj.items()
                ],
            }
        if isinstance(obj, np.ndarray):
            return self.ndarray(obj, path)
        if isinstance(obj, np.generic):
            return {"$": "scalar", "value": self.ndarray(np.asarray(obj), path)}
        if isinstance(obj, np.dtype):
            if obj.kind not in _ARRAY_KINDS | {"O"}:
                raise self.refuse(obj, path)
            return {"$": "dtype", "v": obj.str}
        if isinstance(obj, np.random.Generator):
            bits = type(obj.bit_generator).__name__
            if bits not in _BIT_GENERATORS:
                raise self.refuse(obj, path)
            return {
                "$": "generator",
                "bits": bits,
                "state": self.encode(obj.bit_generator.state, path),
            }
        if obj is pd.NA:
            return {"$": "na"}
        if obj is pd.NaT:
            return {"$": "nat"}
        if isinstance(obj, pd.Index):
            return self.index(obj, path)
        if isinstance(obj, pd.Categorical):
            return {
                "$": "categorical",
                "codes": self.ndarray(np.asarray(obj.codes), f"{path}.codes"),
                "categories": self.index(obj.categories, f"{path}.categories"),
                "ordered": bool(obj.ordered),
            }
        if isinstance(obj, pd.Series):
            return {
                "$": "series",
                "values": self.values(obj, path),
                "index": self.index(obj.index, f"{path}.index"),
                "name": self.encode(obj.name, f"{path}.name"),
            }
        if isinstance(obj, pd.DataFrame):
            return {
                "$": "frame",
                "columns": self.index(obj.columns, f"{path}.columns"),
                "index": self.index(obj.index, f"{path}.index"),
                "data": [
                    self.values(obj.iloc[:, j], f"{path}[{obj.columns[j]!r}]")
                    for j in range(obj.shape[1])
                ],
            }
        import scipy.sparse  # here, not at the top: saving is rare, importing sdrstats is not

        if scipy.sparse.issparse(obj):
            return self.sparse(obj, path)
        return self.instance(obj, path)

    def refuse(self, obj: Any, path: str) -> TypeError:
        return TypeError(
            f"Cannot save {path}: it holds a {type(obj).__module__}.{type(obj).__qualname__}, "
            "which is not data (saved files hold arrays, numbers, text, pandas objects and "
            "sdrstats results only)."
        )

    def ndarray(self, arr: np.ndarray, path: str) -> dict[str, Any]:
        if arr.dtype.kind == "O":
            return {
                "$": "objarray",
                "shape": list(arr.shape),
                "items": [
                    self.encode(v, f"{path}[{i}]") for i, v in enumerate(arr.ravel().tolist())
                ],
            }
        if arr.dtype.kind not in _ARRAY_KINDS or arr.dtype.fields is not None:
            raise self.refuse(arr, path)
        return self.array(arr, path)

    def values(self, series: pd.Series, path: str) -> dict[str, Any]:
        """The values of a Series or a column, keeping its dtype."""
        dtype = series.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            return self.encode(pd.Categorical(series), path)
        if isinstance(dtype, np.dtype):
            return self.ndarray(series.to_numpy(), path)
        name = str(dtype)
        if name not in _EXTENSION_DTYPES and not (
            name.startswith("string") or name.startswith("datetime64[")
        ):
            raise self.refuse(series.array, path)
        items = [
            self.encode(v, f"{path}[{i}]") for i, v in enumerate(series.astype(object).tolist())
        ]
        return {"$": "extension", "dtype": name, "items": items}

    def index(self, index: pd.Index, path: str) -> dict[str, Any]:
        name = self.encode(index.name, f"{path}.name")
        if isinstance(index, pd.RangeIndex):
            return {
                "$": "range",
                "start": index.start,
                "stop": index.stop,
                "step": index.step,
                "name": name,
            }
        if isinstance(index, pd.MultiIndex):
            return {
                "$": "multiindex",
                "tuples": self.encode(list(index), path),
                "names": self.encode(list(index.names), f"{path}.names"),
            }
        return {
            "$": "index",
            "values": self.values(pd.Series(index, copy=False), path),
            "name": name,
        }

    def sparse(self, obj: Any, path: str) -> dict[str, Any]:
        import scipy.sparse

        fmt = obj.format
        if fmt not in ("csr", "csc", "coo"):
            obj, fmt = obj.tocsr(), "csr"
        node: dict[str, Any] = {
            "$": "sparse",
            "format": fmt,
            "array": isinstance(obj, scipy.sparse.sparray),
            "shape": list(obj.shape),
            "data": self.ndarray(obj.data, f"{path}.data"),
        }
        if fmt == "coo":
            node["row"] = self.ndarray(np.asarray(obj.row), f"{path}.row")
            node["col"] = self.ndarray(np.asarray(obj.col), f"{path}.col")
        else:
            node["indices"] = self.ndarray(obj.indices, f"{path}.indices")
            node["indptr"] = self.ndarray(obj.indptr, f"{path}.indptr")
        return node

    def instance(self, obj: Any, path: str) -> dict[str, Any]:
        name = _class_name(type(obj))
        if name is None:
            raise self.refuse(obj, path)
        ref = self.memo.get(id(obj))
        if ref is not None:
            return {"$": "ref", "ref": ref}
        ref = self.memo[id(obj)] = len(self.memo)
        self.keep.append(obj)
        state = obj.__getstate__()
        if state is None:
            state = {}
        if not isinstance(state, dict):
            raise self.refuse(obj, path)
        return {
            "$": "object",
            "class": name,
            "ref": ref,
            "state": [[k, self.encode(v, f"{path}.{k}")] for k, v in state.items()],
        }


# -- decoding --------------------------------------------------------------------------------
class _Decoder:
    def __init__(self, arrays: Callable[[str, str], np.ndarray]) -> None:
        self.arrays = arrays
        self.memo: dict[int, Any] = {}

    def decode(self, node: Any, path: str) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v, f"{path}[{i}]") for i, v in enumerate(node)]
        if not isinstance(node, dict) or not isinstance(node.get("$"), str):
            raise StateError(f"{path} is not a value this format knows ({type(node).__name__}).")
        tag = node["$"]
        handler = getattr(self, f"_{tag}", None)
        if handler is None:
            raise StateError(f"{path} has the unknown type tag {tag!r}.")
        try:
            return handler(node, path)
        except StateError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
            detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise StateError(f"{path} (a {tag}) cannot be rebuilt: {detail}.") from None

    def items(self, node: dict[str, Any], path: str, key: str = "items") -> list[Any]:
        values = node[key]
        if not isinstance(values, list):
            raise StateError(f"{path}.{key} must be a list.")
        return [self.decode(v, f"{path}[{i}]") for i, v in enumerate(values)]

    def _float(self, node, path):
        if node["v"] not in ("nan", "inf", "-inf"):
            raise StateError(
                f"{path} is the float {node['v']!r}; only nan, inf and -inf are tagged."
            )
        return float(node["v"])

    def _complex(self, node, path):
        return complex(float(self.decode(node["re"], path)), float(self.decode(node["im"], path)))

    def _tuple(self, node, path):
        return tuple(self.items(node, path))

    def _set(self, node, path):
        return set(self.items(node, path))

    def _frozenset(self, node, path):
        return frozenset(self.items(node, path))

    def _dict(self, node, path):
        out = {}
        for i, pair in enumerate(node["items"]):
            if not isinstance(pair, list) or len(pair) != 2:
                raise StateError(f"{path} entry {i} is not a [key, value] pair.")
            key = self.decode(pair[0], f"{path}.key")
            out[key] = self.decode(pair[1], f"{path}[{key!r}]")
        return out

    def _array(self, node, path):
        return self.arrays(node["key"], path)

    def _scalar(self, node, path):
        value = self.decode(node["value"], path)
        if not isinstance(value, np.ndarray) or value.ndim != 0:
            raise StateError(f"{path} must be a 0-d array.")
        return value[()]

    def _objarray(self, node, path):
        shape = tuple(int(s) for s in node["shape"])
        items = self.items(node, path)
        out = np.empty(len(items), dtype=object)
        out[:] = items if items else out[:0]
        return out.reshape(shape)

    def _dtype(self, node, path):
        dtype = np.dtype(str(node["v"]))
        if dtype.kind not in _ARRAY_KINDS | {"O"}:
            raise StateError(f"{path} has the dtype {dtype}, which is not stored.")
        return dtype

    def _generator(self, node, path):
        bits = _BIT_GENERATORS.get(node["bits"])
        if bits is None:
            raise StateError(f"{path} names the unknown bit generator {node['bits']!r}.")
        generator = bits()
        generator.state = self.decode(node["state"], f"{path}.state")
        return np.random.Generator(generator)

    def _na(self, node, path):
        return pd.NA

    def _nat(self, node, path):
        return pd.NaT

    def _range(self, node, path):
        return pd.RangeIndex(
            int(node["start"]), int(node["stop"]), int(node["step"]),
            name=self.decode(node["name"], path),
        )  # fmt: skip

    def _multiindex(self, node, path):
        tuples = self.decode(node["tuples"], path)
        return pd.MultiIndex.from_tuples(tuples, names=self.decode(node["names"], path))

    def _index(self, node, path):
        values = self.decode(node["values"], path)
        name = self.decode(node["name"], path)
        return pd.Index(values, name=name, tupleize_cols=False, dtype=_object_or_none(values))

    def _categorical(self, node, path):
        codes = self.decode(node["codes"], f"{path}.codes")
        categories = self.decode(node["categories"], f"{path}.categories")
        if codes.size and (codes.max() >= len(categories) or codes.min() < -1):
            raise StateError(
                f"{path}.codes refer to {codes.max() + 1} categories; it has {len(categories)}."
            )
        return pd.Categorical.from_codes(codes, categories, ordered=bool(node["ordered"]))

    def _extension(self, node, path):
        dtype = str(node["dtype"])
        if dtype not in _EXTENSION_DTYPES and not (
            dtype.startswith("string") or dtype.startswith("datetime64[")
        ):
            raise StateError(f"{path} has the dtype {dtype!r}, which is not stored.")
        return pd.array(self.items(node, path), dtype=dtype)

    def _series(self, node, path):
        values = self.decode(node["values"], path)
        index = self.decode(node["index"], f"{path}.index")
        self.same_length(values, index, path)
        name = self.decode(node["name"], path)
        return pd.Series(values, index=index, name=name, dtype=_object_or_none(values), copy=False)

    def _frame(self, node, path):
        columns = self.decode(node["columns"], f"{path}.columns")
        index = self.decode(node["index"], f"{path}.index")
        data = node["data"]
        if not isinstance(data, list) or len(data) != len(columns):
            raise StateError(f"{path} has {len(columns)} column names but data for {len(data)}.")
        values = [self.decode(v, f"{path}[{c!r}]") for v, c in zip(data, columns)]
        for v, c in zip(values, columns):
            self.same_length(v, index, f"{path}[{c!r}]")
        frame = pd.DataFrame(
            {j: pd.Series(v, index=index, dtype=_object_or_none(v)) for j, v in enumerate(values)},
            index=index,
        )
        frame.columns = columns
        return frame

    @staticmethod
    def same_length(values: Any, index: pd.Index, path: str) -> None:
        if len(values) != len(index):
            raise StateError(f"{path} has {len(values)} values but an index of {len(index)}.")

    def _sparse(self, node, path):
        import scipy.sparse

        shape = tuple(int(s) for s in node["shape"])
        data = self.decode(node["data"], f"{path}.data")
        if node["format"] == "coo":
            parts = (data, (self.decode(node["row"], path), self.decode(node["col"], path)))
            made = scipy.sparse.coo_array(parts, shape=shape)
        elif node["format"] in ("csr", "csc"):
            parts = (data, self.decode(node["indices"], path), self.decode(node["indptr"], path))
            kind = scipy.sparse.csr_array if node["format"] == "csr" else scipy.sparse.csc_array
            made = kind(parts, shape=shape)
            made.check_format(full_check=True)
        else:
            raise StateError(f"{path} has the unknown sparse format {node['format']!r}.")
        if node["array"]:
            return made
        return {"coo": scipy.sparse.coo_matrix, "csr": scipy.sparse.csr_matrix,
                "csc": scipy.sparse.csc_matrix}[node["format"]](made)  # fmt: skip

    def _ref(self, node, path):
        ref = node["ref"]
        if ref not in self.memo:
            raise StateError(f"{path} refers to object {ref!r}, which the file does not define.")
        return self.memo[ref]

    def _object(self, node, path):
        name = node["class"]
        _complete()
        cls = _REGISTRY.get(name) if isinstance(name, str) else None
        if cls is None:
            raise StateError(f"{path} names the class {name!r}, which is not an sdrstats class.")
        ref = node["ref"]
        if not isinstance(ref, int) or ref in self.memo:
            raise StateError(f"{path} has a missing or repeated object number {ref!r}.")
        obj = cls.__new__(cls)
        self.memo[ref] = obj
        state = {}
        for i, pair in enumerate(node["state"]):
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise StateError(f"{path} attribute {i} is not a [name, value] pair.")
            state[pair[0]] = self.decode(pair[1], f"{path}.{pair[0]}")
        setstate = getattr(cls, "__setstate__", None)
        if setstate is not None:
            setstate(obj, state)
        else:
            obj.__dict__.update(state)
        return obj


def _object_or_none(values: Any) -> Any:
    """``object`` for an object array (pandas would otherwise infer a string dtype)."""
    return object if isinstance(values, np.ndarray) and values.dtype.kind == "O" else None


# -- files -----------------------------------------------------------------------------------
def _array_digest(arr: np.ndarray) -> str:
    digest = hashlib.sha256()
    digest.update(arr.dtype.str.encode())
    digest.update(repr(tuple(arr.shape)).encode())
    digest.update(arr.tobytes(order="C"))
    return digest.hexdigest()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("sdrstats")
    except Exception:  # not installed (a source checkout)
        return "unknown"


def write(path: Any, obj: Any, *, kind: str, cls: type | None = None) -> Path:
    """Save ``obj`` (an sdrstats object or a tree of data) to ``path`` (``.npz`` is added).

    Parameters
    ----------
    path : str or os.PathLike
        Where to write; ``.npz`` is appended unless the name ends with it.
    obj : object
        What to save.
    kind : str
        What the file holds (``"results"``, ``"online_sir"``), checked by :func:`read`.
    cls : type, optional
        The registered class the file is loaded by (default the class of ``obj``), recorded
        in the header for :func:`sdrstats.load`.

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> target = os.path.join(tempfile.mkdtemp(), "tree")
    >>> _ = write(target, {"a": np.arange(3), "b": (1.5, "x")}, kind="example")
    >>> read(target + ".npz", kind="example")[1]
    {'a': array([0, 1, 2]), 'b': (1.5, 'x')}
    """
    target = Path(path)
    if target.suffix != ".npz":
        target = target.with_name(target.name + ".npz")
    encoder = _Encoder()
    try:
        root = encoder.encode(obj, "root")
    except RecursionError:
        raise TypeError("Cannot save this object: it is nested too deeply.") from None
    class_name = _class_name(cls or type(obj)) or (cls or type(obj)).__name__
    header = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "class": class_name,
        "sdrstats_version": _version(),
        "arrays": {
            key: {"dtype": arr.dtype.str, "shape": list(arr.shape), "sha256": _array_digest(arr)}
            for key, arr in encoder.arrays.items()
        },
        "root": root,
    }
    text = json.dumps(header, allow_nan=False, separators=(",", ":")).encode()
    members = dict(encoder.arrays)
    members[HEADER] = np.frombuffer(text, dtype=np.uint8)
    members[HEADER_CHECKSUM] = np.frombuffer(hashlib.sha256(text).hexdigest().encode(), np.uint8)
    with open(target, "wb") as handle:
        np.savez(handle, **members)
    return target


def saved_path(path: Any) -> Any:
    """The file :func:`write` made for ``path``: ``path`` itself when it is a file, else
    ``path`` with ``.npz`` added (as :func:`write` adds it), so ``save("state")`` and
    ``load("state")`` meet whatever name the user gives; an open file object is kept.

    Raises
    ------
    FileNotFoundError
        Naming both names tried.

    Examples
    --------
    >>> import tempfile, os
    >>> target = write(os.path.join(tempfile.mkdtemp(), "state.v2"), [1], kind="example")
    >>> saved_path(str(target)[: -len(".npz")]) == target
    True
    """
    if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
        return path  # a file object: np.load reads it as given
    given = Path(os.fsdecode(path))
    if given.is_file():
        return given
    with_suffix = given.with_name(given.name + ".npz") if given.suffix != ".npz" else None
    if with_suffix is not None and with_suffix.is_file():
        return with_suffix
    tried = f"{str(given)!r}" + (f" or {str(with_suffix)!r}" if with_suffix is not None else "")
    raise FileNotFoundError(
        f"No saved sdrstats file at {tried}; give the path that save() returned (it adds "
        "'.npz' to a name without it)."
    )


def _open(path: Any) -> Any:
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except ValueError as exc:
        if "pickle" in str(exc):
            raise StateError(
                f"{path} holds pickled objects, which are never loaded (they could run code); "
                "an sdrstats file holds arrays and a JSON header only."
            ) from None
        raise StateError(f"{path} is not an sdrstats file ({exc}).") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise StateError(f"{path} is truncated or not an sdrstats file ({exc}).") from None


def _entry_header(archive: Any, key: str) -> tuple[np.dtype, tuple[int, ...]] | None:
    """The dtype and shape an ``.npz`` entry's own ``.npy`` header declares, read without
    reading its data, after checking that the entry holds exactly the bytes they imply;
    None when there is no such entry."""
    name = f"{key}.npy"
    try:
        info = archive.zip.getinfo(name)
    except KeyError:
        return None
    try:
        with archive.zip.open(info) as handle:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
            else:
                raise StateError(
                    f"entry {key!r} has .npy format version {version}, which is not written."
                )
            offset = handle.tell()
    except StateError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise StateError(f"the .npy header of entry {key!r} cannot be read ({exc}).") from None
    if dtype.hasobject:
        raise StateError(
            f"entry {key!r} holds pickled objects, which are never loaded (they could run code)."
        )
    nbytes = math.prod(shape) * dtype.itemsize
    if info.file_size != offset + nbytes:
        raise StateError(
            f"entry {key!r} declares {dtype.str} {tuple(shape)} ({size_text(nbytes)}) in its "
            f"header but holds {size_text(max(info.file_size - offset, 0))} of data (the file "
            "was altered or damaged)."
        )
    return dtype, tuple(shape)


def _check_entries(archive: Any, table: dict[str, Any], path: Any) -> None:
    """Compare every array the table lists with its entry's own header, and their total
    size with the memory limit, before any of them is read."""
    total = 0
    for key, info in table.items():
        if not isinstance(info, dict) or not {"dtype", "shape", "sha256"} <= set(info):
            raise StateError(f"the header's entry for array {key!r} lacks dtype, shape or sha256.")
        found = _entry_header(archive, key)
        if found is None:
            raise StateError(f"the file lacks array {key!r} (listed in its header).")
        dtype, shape = found
        if dtype.str != info["dtype"] or list(shape) != info["shape"]:
            claimed = info["shape"]
            claimed = tuple(claimed) if isinstance(claimed, list) else claimed
            raise StateError(
                f"wrong shape or dtype of array {key!r}: its entry holds {dtype.str} {shape}, "
                f"the header says {info['dtype']} {claimed}."
            )
        total += math.prod(shape) * dtype.itemsize
    check_memory("loading this file", total, f"its arrays ({path})", _MORE_MEMORY)


def _member(archive: Any, key: str, where: str) -> np.ndarray:
    if key not in archive.files:
        raise StateError(f"the file lacks {where} (entry {key!r}).")
    try:
        return archive[key]
    except ValueError as exc:
        if "pickle" in str(exc):
            raise StateError(
                f"entry {key!r} holds pickled objects, which are never loaded (they could run code)."
            ) from None
        raise StateError(f"entry {key!r} cannot be read ({exc}).") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise StateError(f"entry {key!r} is truncated ({exc}).") from None


def read(path: Any, *, kind: str | None = None) -> tuple[dict[str, Any], Any]:
    """Load a file written by :func:`write`: its header and the rebuilt object.

    Parameters
    ----------
    path : str or os.PathLike
        The file, or the name given to ``save`` (``.npz`` is added when that name is not
        a file).
    kind : str, optional
        The kind the caller expects; another raises ``ValueError``.

    Returns
    -------
    header : dict
        Format, schema version, kind, class, sdrstats version, array table (no tree).
    obj : object

    Raises
    ------
    StateError
        For a file that is incomplete, altered, truncated, of another version, or holds
        pickled objects.

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> target = write(os.path.join(tempfile.mkdtemp(), "x.npz"), [np.eye(2)], kind="example")
    >>> read(target)[0]["schema_version"]
    2
    """
    path = saved_path(path)
    with _open(path) as archive:
        if not hasattr(archive, "files"):
            raise StateError(f"{path} is a single array, not an sdrstats file (no header).")
        for key, where in ((HEADER, "its header"), (HEADER_CHECKSUM, "its header's checksum")):
            found = _entry_header(archive, key)
            if found is None:
                raise StateError(f"the file lacks {where} (entry {key!r}).")
            if found[0] != np.uint8 or len(found[1]) != 1:
                raise StateError(f"{where} is not a byte string.")
            check_memory("loading this file", found[1][0], f"{where} ({path})", _MORE_MEMORY)
        raw = _member(archive, HEADER, "its header")
        stored = _member(archive, HEADER_CHECKSUM, "the checksum of its header")
        text = raw.tobytes()
        if stored.tobytes().decode("ascii", "replace") != hashlib.sha256(text).hexdigest():
            raise StateError("checksum mismatch of the header (the file was altered or damaged).")
        try:
            header = json.loads(text.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            raise StateError(f"the header is not valid JSON ({exc}).") from None
        if not isinstance(header, dict):
            raise StateError("the header is not a JSON object.")
        for key in ("format", "schema_version", "kind", "class", "arrays", "root"):
            if key not in header:
                raise StateError(f"missing key {key!r} in the header.")
        if header["format"] != FORMAT:
            raise StateError(f"the header's format is {header['format']!r}, not {FORMAT!r}.")
        version = header["schema_version"]
        if isinstance(version, bool) or version not in READ_VERSIONS:
            raise StateError(
                f"wrong schema version {version!r}; this sdrstats reads versions "
                f"{READ_VERSIONS[0]} to {READ_VERSIONS[-1]} (save the object again with the "
                "sdrstats that reads it)."
            )
        if kind is not None and header["kind"] != kind:
            raise ValueError(
                f"{path} holds {header['kind']!r} ({header['class']}), not {kind!r}; load it "
                "with sdrstats.load(path)."
            )
        table = header["arrays"]
        if not isinstance(table, dict):
            raise StateError("the header's array table is not a JSON object.")
        _check_entries(archive, table, path)

        def array(key: str, where: str) -> np.ndarray:
            info = table.get(key)
            if not isinstance(info, dict) or not {"dtype", "shape", "sha256"} <= set(info):
                raise StateError(f"{where} refers to array {key!r}, missing from the header.")
            arr = _member(archive, key, f"array {key!r} of {where}")
            if arr.dtype.str != info["dtype"] or list(arr.shape) != list(info["shape"]):
                raise StateError(
                    f"wrong shape or dtype of array {key!r} ({where}): {arr.dtype.str} "
                    f"{tuple(arr.shape)}, the header says {info['dtype']} {tuple(info['shape'])}."
                )
            if _array_digest(arr) != info["sha256"]:
                raise StateError(f"checksum mismatch of array {key!r} ({where}).")
            return arr

        try:
            obj = _Decoder(array).decode(header["root"], "root")
        except RecursionError:
            raise StateError("the header's tree is nested too deeply.") from None
    info = {k: v for k, v in header.items() if k != "root"}
    return info, obj


__all__ = [
    "READ_VERSIONS",
    "SCHEMA_VERSION",
    "StateError",
    "Registered",
    "register",
    "registry",
    "saved_path",
    "write",
    "read",
]
