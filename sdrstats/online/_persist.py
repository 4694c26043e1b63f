"""Combining and saving streams: ``merge``, ``state_dict``/``from_state`` and ``save``/``load``.

A saved state is data, never code: :meth:`~StreamStateMixin.save` writes an ``.npz`` of arrays
with a JSON header (:mod:`sdrstats.base.persistence`), and :meth:`~StreamStateMixin.from_state`
(which :meth:`~StreamStateMixin.load` ends in) checks every field before using it: keys,
types and shapes against the options, the schema version, and the stored formula against the
allow-list of :mod:`sdrstats.design.safe_formula` (it is evaluated again on later chunks). A field
that fails raises ``ValueError("state is incomplete or corrupt: ...")`` naming it.
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..base.parallel import as_seed_sequence, derived_stream
from ..base.persistence import StateError, read, write
from ..design.safe_formula import check_formula
from ..results.io import check_savable_formula, check_spec
from . import _stream_checks, _updates
from ._moments import SliceMomentSums
from ._reservoir import Reservoir

#: The stream class the mixin is part of (OnlineSIR); named by a type variable so that this
#: module needs nothing from ``online_sir``.
Stream = TypeVar("Stream", bound="StreamStateMixin")

#: Version of the :meth:`state_dict` layout. Version 3 adds the slice moments of the SIR test
#: and the online bootstrap, the reservoir sample and the seed; versions 1 (no lineage, no
#: scale) and 2 are still read, as streams without them (options ``sir_moments=False``,
#: ``bootstrap_replicates=0`` and ``reservoir_size=0``: their rows are gone, so none of them
#: can be started afterwards).
STATE_VERSION = 3
_KIND = "online_sir"
_PREFIX = "state is incomplete or corrupt: "
_TOP_KEYS = ("version", "options", "state", "buffer", "trace", "cut_points", "H", "reader", "call")
_V3_KEYS = ("lineage", "moments", "reservoir", "seed")
#: Options a stream saved before version 3 lacks, and the values it loads with.
_NEW_OPTIONS = {"sir_moments": False, "bootstrap_replicates": 0, "reservoir_size": 0}
_READER_KEYS = ("spec", "formula", "columns", "categorical", "p")


class StreamStateMixin:
    """Methods of :class:`~sdrstats.online.OnlineSIR` that combine or save its state."""

    def merge(self: Stream, other: Stream) -> Stream:
        """A new fit combining this stream with a disjoint one (see ``_updates.merge_states``).

        Both need the same options (``cut_points``, ``trace_size`` and ``random_state``
        aside) and the same predictors; the merge keeps this stream's seed. The slice
        moments of the SIR test and the online bootstrap's replicates add up (replicate
        ``b`` of the merge weights each row by its count in its own stream, so two streams
        with bootstrap replicates need different seeds: with the same ``random_state`` their
        rows would share counts); the samples of rows are merged into a uniform sample of
        the union. With the same cut points (a class response, or ``cut_points=`` given to
        both) the statistics combine exactly. With the default options each stream cuts its
        response at the quantiles of its own first rows: the merge then keeps this stream's
        cut points and moves each slice of ``other`` whole into the slice holding its middle
        (:func:`~sdrstats.online._updates.onto_cut_points`), which estimates the same
        subspace; give both the same ``cut_points`` for the exact pooled statistics.

        Parameters
        ----------
        other : OnlineSIR
            A stream fitted on other rows, past its initial batch. A stream cannot merge with
            itself, nor with a copy or saved state of itself, nor with a stream it was merged
            from: their rows would be counted twice (each stream keeps the ids of the streams
            whose rows it holds).

        Returns
        -------
        OnlineSIR
            A new model; neither input changes.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((2000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(2000)
        >>> cuts = [-1.0, 0.0, 1.0]
        >>> left = sdr.OnlineSIR(d=1, init_size=200, cut_points=cuts).partial_fit(X[:1000], y[:1000])
        >>> right = sdr.OnlineSIR(d=1, init_size=200, cut_points=cuts).partial_fit(X[1000:], y[1000:])
        >>> both = left.merge(right)
        >>> both.n_seen
        2000
        >>> both.directions.abs().round(1).iloc[:, 0].tolist()
        [0.7, 0.7, 0.0, 0.0, 0.0]
        >>> default = sdr.OnlineSIR(d=1, init_size=200)
        >>> merged = default.clone().partial_fit(X[:1000], y[:1000]).merge(
        ...     default.clone().partial_fit(X[1000:], y[1000:]))
        >>> merged.directions.abs().round(1).iloc[:, 0].tolist()
        [0.7, 0.7, 0.0, 0.0, 0.0]
        """
        if not isinstance(other, type(self)):
            raise TypeError(f"merge needs another OnlineSIR; got {type(other).__name__}.")
        if self._state is None or other._state is None:
            raise ValueError("merge needs both streams past their initial batch.")
        free = ("trace_size", "cut_points", "random_state")
        mine = {k: v for k, v in self.options.items() if k not in free}
        theirs = {k: v for k, v in other.options.items() if k not in free}
        if repr(mine) != repr(theirs):
            raise ValueError(f"merge needs equal options; got {mine} and {theirs}.")
        if self._reader.spec.x_names != other._reader.spec.x_names:
            raise ValueError(
                f"merge needs the same predictors in both streams; got "
                f"{self._reader.spec.x_names} and {other._reader.spec.x_names}."
            )
        if (self.cut_points_ is None) != (other.cut_points_ is None) or (
            self.cut_points_ is None and self._reader.spec.y_levels != other._reader.spec.y_levels
        ):
            raise ValueError(
                "merge needs the same kind of response in both streams (the same class labels "
                f"in the same order); got {self._reader.spec.y_levels} and "
                f"{other._reader.spec.y_levels}."
            )
        theirs_state = other._state
        if self.cut_points_ is not None and not np.array_equal(self.cut_points_, other.cut_points_):
            # each stream sliced its response at the quantiles of its own first rows
            theirs_state = _updates.onto_cut_points(
                other._state, other.cut_points_, self.cut_points_, self._H
            )
        shared = sorted(set(self._lineage or ()) & set(other._lineage or ()))
        if other is self or shared:
            what = "itself" if other is self else "a stream that shares its history"
            raise ValueError(
                f"merge of a stream with {what}: both hold the rows of stream(s) "
                f"{[s[:8] for s in shared]}, which would be counted twice. Merge streams fed "
                "with different rows (a copy or a saved state of a stream carries its rows)."
            )
        self._seed_stream()
        other._seed_stream()
        if self.options["bootstrap_replicates"] and repr(self._seed) == repr(other._seed):
            raise ValueError(
                f"merge of two streams with bootstrap replicates drawn from the same seed "
                f"(random_state {self._seed!r}): their rows would share Poisson counts, and the "
                "merged replicates would not be a bootstrap. Give each stream its own "
                "random_state (or none)."
            )
        merged = copy.deepcopy(self)
        merged._moments = _merged_moments(self, other)
        merged._reservoir = (
            self._reservoir.merged(
                other._reservoir,
                np.random.default_rng(as_seed_sequence(derived_stream(self._seed, "reservoir"))),
            )
            if self._reservoir is not None and other._reservoir is not None
            else None
        )
        merged._state = _updates.merge_states(
            self._state,
            theirs_state,
            self._H,
            int(self._state["lam"].size),
            eigen=self.options["eigen"],
            sparse=self.options["sparse"],
        )
        _stream_checks.check_running_state(merged._state, self.method)
        merged._lineage = sorted(set(self._lineage or ()) | set(other._lineage or ()))
        merged._trace = []
        merged._record()
        return merged

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume the stream, as plain data (a deep copy).

        Use :meth:`save` to keep it in a file; :meth:`from_state` rebuilds the stream from
        this dict after checking every field.

        Returns
        -------
        dict
            Schema version, options, running state, buffered rows, trace, formula
            information and the ids of the streams whose rows it holds.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y)
        >>> state = model.state_dict()
        >>> state["version"], sdr.OnlineSIR.from_state(state).n_seen
        (3, 1000)
        """
        return copy.deepcopy(
            {
                "version": STATE_VERSION,
                "options": self.options,
                "state": self._state,
                "buffer": self._buffer,
                "trace": self._trace,
                "cut_points": self.cut_points_,
                "H": getattr(self, "_H", None),
                "reader": self._reader.state(),
                "call": self.call,
                "lineage": self._lineage,
                "moments": None if self._moments is None else self._moments.state(),
                "reservoir": None if self._reservoir is None else self._reservoir.state(),
                "seed": self._seed,
            }
        )

    @classmethod
    def from_state(cls: type[Stream], state: dict[str, Any]) -> Stream:
        """Rebuild a stream from :meth:`state_dict`; ``partial_fit`` continues it.

        Every field is checked first (keys, types, shapes, schema version; the stored formula
        against the allow-list of functions, since later chunks evaluate it again).

        Parameters
        ----------
        state : dict
            What :meth:`state_dict` returned.

        Returns
        -------
        OnlineSIR
            A model that continues exactly where the saved one stopped.

        Raises
        ------
        ValueError
            ``"state is incomplete or corrupt: ..."`` naming the field.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((2000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(2000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X[:1000], y[:1000])
        >>> resumed = sdr.OnlineSIR.from_state(model.state_dict()).partial_fit(X[1000:], y[1000:])
        >>> _ = model.partial_fit(X[1000:], y[1000:])
        >>> bool(np.allclose(resumed.directions, model.directions))
        True
        >>> broken = model.state_dict()
        >>> del broken["reader"]
        >>> try:
        ...     sdr.OnlineSIR.from_state(broken)
        ... except ValueError as exc:
        ...     print(exc)
        state is incomplete or corrupt: missing key 'reader'.
        """
        state = copy.deepcopy(_checked_top(state))
        model = _new_model(cls, state["options"])
        reader = _checked_reader(state["reader"])
        _checked_running(model, state, reader)
        model._state, model._buffer, model._trace = state["state"], state["buffer"], state["trace"]
        model.cut_points_, model.call = state["cut_points"], state["call"]
        if state["H"] is not None:
            model._H = int(state["H"])
        model._reader.load(reader)
        model._lineage = state["lineage"]
        model._seed = state["seed"]
        _checked_extras(model, state, reader)
        return model

    def save(self, path: Any) -> Path:
        """Save the stream to ``path`` as data: an ``.npz`` of arrays with a JSON header.

        Nothing in the file is code: :meth:`load` reads it with ``allow_pickle=False`` and
        checks the schema version and a SHA-256 checksum of every array and of the header.
        The checksums give integrity, not authenticity: they catch damage, but whoever edits
        the file can recompute them (see :func:`sdrstats.load`).

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
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((2000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(2000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X[:1000], y[:1000])
        >>> target = model.save(os.path.join(tempfile.mkdtemp(), "stream"))
        >>> resumed = sdr.OnlineSIR.load(target).partial_fit(X[1000:], y[1000:])
        >>> resumed.n_seen
        2000
        """
        check_savable_formula(self._reader.spec)
        if self._reader.formula is not None:
            try:
                check_formula(
                    self._reader.formula, self._reader.columns, what="this stream's formula"
                )
            except ValueError as exc:
                raise ValueError(
                    f"{exc} Saved files never run code, so a stream can be saved only if its "
                    "formula uses the allowed functions."
                ) from None
        return write(path, self.state_dict(), kind=_KIND, cls=type(self))

    @classmethod
    def load(cls: type[Stream], path: Any) -> Stream:
        """Load a stream written by :meth:`save`; ``partial_fit`` continues it.

        Parameters
        ----------
        path : str or os.PathLike
            The file, or the name given to :meth:`save` (``.npz`` is added when that name
            is not a file).

        Returns
        -------
        OnlineSIR

        Raises
        ------
        ValueError
            ``"state is incomplete or corrupt: ..."`` naming the field, for a file that is
            truncated, altered (checksum mismatch), of another schema version, holds pickled
            objects or non-finite values, or whose formula is outside the allow-list.
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
        >>> ais = sdr.datasets.load("ais")
        >>> stream = sdr.online_sir("lbm ~ ht + wt + log(ssf)", ais, init_size=100, nslices=5).stream
        >>> again = sdr.OnlineSIR.load(stream.save(os.path.join(tempfile.mkdtemp(), "s.npz")))
        >>> again.directions.equals(stream.directions)
        True
        """
        info, obj = read(path, kind=_KIND)
        return cls._loaded(obj, info)

    @classmethod
    def _loaded(cls: type[Stream], obj: Any, info: dict[str, Any]) -> Stream:
        return cls.from_state(obj)


# -- checking a state dict --------------------------------------------------------------------
def _checked_top(state: Any) -> dict[str, Any]:
    if not isinstance(state, dict):
        raise StateError(
            f"the state must be a dict made by state_dict(); got {type(state).__name__}."
        )
    if "version" not in state:
        raise StateError("missing key 'version'.")
    version = state["version"]
    if version not in (1, 2, STATE_VERSION) or isinstance(version, bool):
        raise StateError(
            f"wrong schema version {version!r}; this sdrstats reads versions 1 to {STATE_VERSION}."
        )
    expected = {1: _TOP_KEYS, 2: (*_TOP_KEYS, "lineage")}.get(version, (*_TOP_KEYS, *_V3_KEYS))
    for key in expected:
        if key not in state:
            raise StateError(f"missing key {key!r}.")
    extra = sorted(str(k) for k in set(state) - set(expected))
    if extra:
        raise StateError(f"unexpected key(s) {extra}.")
    if version == 1:  # no lineage then: an id from the content, the same for every copy
        state = {**state, "lineage": _content_lineage(state)}
    if version < 3:  # no slice moments, sample or seed: a stream without them
        options = state["options"]
        if isinstance(options, dict):
            options = {**_NEW_OPTIONS, **options}
        state = {**state, "options": options, "moments": None, "reservoir": None, "seed": None}
    seed = state["seed"]
    if seed is not None and not (
        (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0)
        or (isinstance(seed, list) and seed and all(isinstance(v, int) for v in seed))
    ):
        raise StateError(
            f"seed must be a non-negative integer, a list of them or None; got {seed!r}."
        )
    lineage = state["lineage"]
    if lineage is not None and (
        not isinstance(lineage, list) or not all(isinstance(v, str) for v in lineage)
    ):
        raise StateError("lineage must be a list of stream ids or None.")
    if not isinstance(state["call"], str):
        raise StateError(f"call must be text; got {type(state['call']).__name__}.")
    return state


def _content_lineage(state: dict[str, Any]) -> list[str] | None:
    digest = hashlib.sha256()
    running = state.get("state")
    parts = (
        [running.get(k) for k in ("t", "mean", "slice_sums")] if isinstance(running, dict) else []
    )
    parts += [b[0] for b in state.get("buffer") or [] if isinstance(b, tuple) and b]
    for part in parts:
        digest.update(np.asarray(part).tobytes() if part is not None else b"-")
    return [digest.hexdigest()[:32]] if parts else None


def _new_model(cls: type, options: Any) -> Any:
    if not isinstance(options, dict):
        raise StateError(f"options must be a dict; got {type(options).__name__}.")
    unknown = sorted(str(k) for k in set(options) - set(cls.params))
    absent = sorted(set(cls.params) - set(options))
    if unknown or absent:
        raise StateError(
            f"options do not match {cls.__name__}'s: unknown {unknown}, missing {absent}."
        )
    try:
        return cls(**options)
    except (TypeError, ValueError) as exc:
        raise StateError(f"options: {exc}") from None


def _checked_reader(reader: Any) -> dict[str, Any]:
    if not isinstance(reader, dict):
        raise StateError(f"reader must be a dict; got {type(reader).__name__}.")
    for key in _READER_KEYS:
        if key not in reader:
            raise StateError(f"missing key 'reader.{key}'.")
    extra = sorted(str(k) for k in set(reader) - set(_READER_KEYS))
    if extra:
        raise StateError(f"unexpected key(s) {['reader.' + k for k in extra]}.")
    spec, formula, columns = reader["spec"], reader["formula"], reader["columns"]
    if not isinstance(reader["categorical"], bool):
        raise StateError("reader.categorical must be True or False.")
    if columns is not None and (
        not isinstance(columns, list) or not all(isinstance(c, str) for c in columns)
    ):
        raise StateError("reader.columns must be a list of column names or None.")
    if formula is not None:
        if columns is None:
            raise StateError("reader.formula is set but reader.columns is missing.")
        check_formula(formula, columns, what=f"{_PREFIX}reader.formula")
        if formula.count("~") != 1:
            raise StateError(f"reader.formula {formula!r} must have one '~'.")
    if spec is None:
        if formula is not None or reader["p"] is not None:
            raise StateError("reader.spec is missing while reader.formula or reader.p is set.")
        return reader
    check_spec(spec, "reader.spec")
    spec.design_info = None  # rebuilt from the checked formula text, never taken as given
    if reader["p"] != spec.X.shape[1] or isinstance(reader["p"], bool):
        raise StateError(
            f"reader.p is {reader['p']!r} but reader.spec has {spec.X.shape[1]} predictors."
        )
    if reader["categorical"] != spec.categorical:
        raise StateError("reader.categorical disagrees with reader.spec.y_levels.")
    if (formula is None) != (spec.rhs is None):
        raise StateError("reader.formula and reader.spec.rhs must both be set or both be None.")
    return reader


def _float_array(value: Any, where: str, shape: tuple[int, ...], finite: bool = True) -> None:
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
        raise StateError(f"{where} must be a numeric array; got {type(value).__name__}.")
    if value.shape != shape:
        raise StateError(f"wrong shape of {where}: {value.shape}, expected {shape}.")
    if finite and not np.all(np.isfinite(value)):
        raise StateError(f"{where} holds non-finite values.")


def _integer(value: Any, where: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise StateError(f"{where} must be an integer >= {low}; got {value!r}.")
    return int(value)


def _checked_running(model: Any, state: dict[str, Any], reader: dict[str, Any]) -> None:
    """Check the running state, buffer, trace and slices against the options and ``p``."""
    o = model.options
    running, buffer, trace = state["state"], state["buffer"], state["trace"]
    spec = reader["spec"]
    p, d = reader["p"], model.tracked_directions(state["H"], reader["p"])
    if spec is None and (running is not None or buffer or trace):
        raise StateError("reader.spec is missing although the stream has seen rows.")
    if not isinstance(buffer, list):
        raise StateError("buffer must be a list of (X, y) pairs.")
    for i, pair in enumerate(buffer):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise StateError(f"buffer[{i}] must be an (X, y) pair.")
        rows = pair[0].shape[0] if isinstance(pair[0], np.ndarray) and pair[0].ndim == 2 else -1
        _float_array(pair[0], f"buffer[{i}][0]", (max(rows, 0), p))
        _float_array(pair[1], f"buffer[{i}][1]", (rows,))
    if not isinstance(trace, list):
        raise StateError("trace must be a list of (n_seen, eigenvalues, basis) triples.")
    for i, item in enumerate(trace):
        if not isinstance(item, tuple) or len(item) != 3:
            raise StateError(f"trace[{i}] must be an (n_seen, eigenvalues, basis) triple.")
        _integer(item[0], f"trace[{i}][0]", 0)
        _float_array(item[1], f"trace[{i}][1]", (d,))
        _float_array(item[2], f"trace[{i}][2]", (p, d))
    H, cuts = state["H"], state["cut_points"]
    if running is None:
        if H is not None or cuts is not None:
            raise StateError("H and cut_points are set although the initial batch is not done.")
        return
    H = _integer(H, "H", 2)
    if reader["categorical"]:
        if cuts is not None:
            raise StateError("cut_points are set for a class response.")
        if H != len(spec.y_levels):
            raise StateError(f"H is {H} but the response has {len(spec.y_levels)} classes.")
    else:
        _float_array(cuts, "cut_points", (H - 1,))
        if np.any(np.diff(cuts) <= 0):
            raise StateError("cut_points must be strictly increasing.")
    if not isinstance(running, dict):
        raise StateError(f"state must be a dict; got {type(running).__name__}.")
    t = _integer(running.get("t"), "state.t", 1)
    _integer(running.get("steps"), "state.steps", 0)
    shapes: dict[str, tuple[int, ...]] = {
        "mean": (p,), "slice_sums": (p, H), "slice_counts": (H,), "lam": (d,), "beta": (d, p),
    }  # fmt: skip
    if o["sparse"]:
        shapes["eta"] = (p, d)
        if o["eigen"] == "perturbation":
            shapes["dbar"] = (p, p)
    else:
        shapes["sigma"] = shapes["sigma_inv"] = (p, p)
        if o["eigen"] == "perturbation":
            shapes["abar"] = (p, p)
    if state["version"] == STATE_VERSION:
        shapes["scale"] = (p,)
    for key, shape in shapes.items():
        if key not in running:
            raise StateError(f"missing key 'state.{key}'.")
        _float_array(running[key], f"state.{key}", shape)
    for key in ("learning_rate", "decay_after"):
        value = running.get(key)
        if (
            isinstance(value, bool)
            or not isinstance(value, (float, int, np.floating))
            or not value > 0
        ):
            raise StateError(f"state.{key} must be a positive number; got {value!r}.")
    if not np.isfinite(running["learning_rate"]):
        raise StateError("state.learning_rate must be finite.")
    if "scale" in running and not np.all(running["scale"] > 0):
        raise StateError("state.scale must be positive.")
    schedule = {"last_truncation", "resid_ss", "resid_count"}  # absent from older states
    if "resid_ss" in running:
        _float_array(running["resid_ss"], "state.resid_ss", (d,))
        if np.any(running["resid_ss"] < 0):
            raise StateError("state.resid_ss must not be negative.")
    for key in ("last_truncation", "resid_count"):
        if key in running:
            _integer(running[key], f"state.{key}", 0)
    known = {"t", "steps", "learning_rate", "decay_after", *shapes, *schedule}
    extra = sorted(str(k) for k in set(running) - known - {"scale"})
    if extra:
        raise StateError(f"unexpected key(s) {['state.' + k for k in extra]}.")
    counts = running["slice_counts"]
    if np.any(counts < 0) or abs(float(counts.sum()) - t) > 0.5:
        raise StateError(f"state.slice_counts sum to {float(counts.sum()):g}, not state.t = {t}.")


def _checked_extras(model: Any, state: dict[str, Any], reader: dict[str, Any]) -> None:
    """Check and set the slice moments and the sample of rows (version 3) against the options,
    ``p`` and ``H``; the counts that size them are budgeted as a new stream's are."""
    o, moments, reservoir = model.options, state["moments"], state["reservoir"]
    p = reader["p"]
    if p is not None:  # what the stream will allocate: checked as on a new stream's first rows
        model._check_sizes(p)
    if state["state"] is None:
        if moments is not None:
            raise StateError("moments are set although the initial batch is not done.")
    elif moments is not None:  # None: a stream first saved before version 3
        model._moments = _checked_moments(moments, o["bootstrap_replicates"], p, int(state["H"]))
        total = float(model._moments.counts[0].sum())
        if abs(total - int(state["state"]["t"])) > 0.5:
            raise StateError(f"moments.counts[0] sum to {total:g}, not state.t.")
    if reservoir is None:
        if state["version"] == STATE_VERSION and o["reservoir_size"] and p is not None:
            raise StateError("missing 'reservoir' although reservoir_size is set.")
        return
    model._reservoir = _checked_reservoir(reservoir, o["reservoir_size"], p, reader["categorical"])


def _checked_moments(moments: Any, B: int, p: int, H: int) -> SliceMomentSums:
    if not isinstance(moments, dict):
        raise StateError(f"moments must be a dict; got {type(moments).__name__}.")
    keys = ("shift", "keys", "counts", "sums", "cross", "rows")
    missing = [k for k in keys if k not in moments]
    extra = sorted(str(k) for k in set(moments) - set(keys))
    if missing or extra:
        raise StateError(f"moments: missing key(s) {missing}, unexpected {extra}.")
    _float_array(moments["shift"], "moments.shift", (p,))
    if not isinstance(moments["keys"], np.ndarray) or moments["keys"].dtype != np.uint64:
        raise StateError("moments.keys must be an array of uint64.")
    if moments["keys"].shape != (B, 2):
        raise StateError(
            f"wrong shape of moments.keys: {moments['keys'].shape}, expected {(B, 2)} "
            "(bootstrap_replicates rows)."
        )
    _float_array(moments["counts"], "moments.counts", (1 + B, H))
    _float_array(moments["sums"], "moments.sums", (1 + B, H, p))
    _float_array(moments["cross"], "moments.cross", (1 + B, p, p))
    if np.any(moments["counts"] < 0):
        raise StateError("moments.counts must not be negative.")
    _integer(moments["rows"], "moments.rows", 0)
    return SliceMomentSums.from_state(moments)


def _checked_reservoir(reservoir: Any, size: int, p: int, categorical: bool) -> Reservoir:
    if not isinstance(reservoir, dict):
        raise StateError(f"reservoir must be a dict; got {type(reservoir).__name__}.")
    keys = ("size", "key", "X", "y", "seen")
    missing = [k for k in keys if k not in reservoir]
    extra = sorted(str(k) for k in set(reservoir) - set(keys))
    if missing or extra:
        raise StateError(f"reservoir: missing key(s) {missing}, unexpected {extra}.")
    if _integer(reservoir["size"], "reservoir.size", 0) != size:
        raise StateError(f"reservoir.size is {reservoir['size']}, not reservoir_size = {size}.")
    seen = _integer(reservoir["seen"], "reservoir.seen", 0)
    key = reservoir["key"]
    if not isinstance(key, np.ndarray) or key.dtype != np.uint64 or key.shape != (2,):
        raise StateError("reservoir.key must be two uint64 words.")
    rows = min(seen, size)
    _float_array(reservoir["X"], "reservoir.X", (rows, p))
    _float_array(reservoir["y"], "reservoir.y", (rows,))
    if categorical and reservoir["y"].dtype.kind not in "iu":
        raise StateError("reservoir.y must hold class codes (integers) for a class response.")
    return Reservoir.from_state(reservoir)


def _merged_moments(a: Any, b: Any) -> SliceMomentSums | None:
    """The slice moments of two merged streams (None when either has none)."""
    if a._moments is None or b._moments is None:
        return None
    moved = None
    if a.cut_points_ is not None and not np.array_equal(a.cut_points_, b.cut_points_):

        def moved(sums: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            shown = {"slice_sums": sums, "slice_counts": counts}
            out = _updates.onto_cut_points(shown, b.cut_points_, a.cut_points_, a._H)
            return out["slice_sums"], out["slice_counts"]

    merged = a._moments.merged(b._moments, moved)
    # later rows take positions after both streams' rows (the keys are this stream's)
    merged.rows = a._moments.rows + b._moments.rows
    return merged


__all__ = ["StreamStateMixin"]
