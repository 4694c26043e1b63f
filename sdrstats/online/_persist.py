"""Combining and saving streams: ``merge``, ``state_dict`` and ``from_state``."""

from __future__ import annotations

import copy
from typing import Any, TypeVar

import numpy as np

from . import _updates

#: The stream class the mixin is part of (OnlineSIR); named by a type variable so that this
#: module needs nothing from ``online_sir``.
Stream = TypeVar("Stream", bound="StreamStateMixin")


class StreamStateMixin:
    """Methods of :class:`~sdrstats.online.OnlineSIR` that combine or save its state."""

    def merge(self: Stream, other: Stream) -> Stream:
        """A new fit combining this stream with a disjoint one (see ``_updates.merge_states``).

        Both need the same options and cut points (give ``cut_points`` explicitly, e.g.
        ``other.cut_points_``) and the same predictors.

        Parameters
        ----------
        other : OnlineSIR
            A stream fitted on other rows, past its initial batch.

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
        """
        if not isinstance(other, type(self)):
            raise TypeError(f"merge needs another OnlineSIR; got {type(other).__name__}.")
        if self._state is None or other._state is None:
            raise ValueError("merge needs both streams past their initial batch.")
        mine = {k: v for k, v in self.options.items() if k not in ("trace_size", "cut_points")}
        theirs = {k: v for k, v in other.options.items() if k not in ("trace_size", "cut_points")}
        if repr(mine) != repr(theirs):
            raise ValueError(f"merge needs equal options; got {mine} and {theirs}.")
        same_cuts = (self.cut_points_ is None and other.cut_points_ is None) or (
            self.cut_points_ is not None
            and other.cut_points_ is not None
            and np.array_equal(self.cut_points_, other.cut_points_)
        )
        if not same_cuts:
            raise ValueError(
                "merge needs the same cut points in both streams; give "
                "cut_points=... to both OnlineSIR objects."
            )
        if self._reader.spec.x_names != other._reader.spec.x_names:
            raise ValueError("merge needs the same predictors in both streams.")
        merged = copy.deepcopy(self)
        merged._state = _updates.merge_states(
            self._state,
            other._state,
            self._H,
            self.options["d"],
            eigen=self.options["eigen"],
            sparse=self.options["sparse"],
        )
        merged._trace = []
        merged._record()
        return merged

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume the stream (plain arrays; picklable).

        Returns
        -------
        dict
            Options, running state, buffered rows and formula information; a deep copy.

        Examples
        --------
        >>> import pickle
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y)
        >>> saved = pickle.dumps(model.state_dict())
        >>> sdr.OnlineSIR.from_state(pickle.loads(saved)).n_seen
        1000
        """
        return copy.deepcopy(
            {
                "version": 1,
                "options": self.options,
                "state": self._state,
                "buffer": self._buffer,
                "trace": self._trace,
                "cut_points": self.cut_points_,
                "H": getattr(self, "_H", None),
                "reader": self._reader.state(),
                "call": self.call,
            }
        )

    @classmethod
    def from_state(cls: type[Stream], state: dict[str, Any]) -> Stream:
        """Rebuild a stream saved by :meth:`state_dict`; ``partial_fit`` continues it.

        Parameters
        ----------
        state : dict
            What :meth:`state_dict` returned (possibly after pickling).

        Returns
        -------
        OnlineSIR
            A model that continues exactly where the saved one stopped.

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
        """
        if not isinstance(state, dict) or state.get("version") != 1:
            raise ValueError("from_state needs a dict made by OnlineSIR.state_dict().")
        state = copy.deepcopy(state)
        model = cls(**state["options"])
        model._state, model._buffer, model._trace = state["state"], state["buffer"], state["trace"]
        model.cut_points_, model.call = state["cut_points"], state["call"]
        if state["H"] is not None:
            model._H = state["H"]
        model._reader.load(state["reader"])
        return model


__all__ = ["StreamStateMixin"]
