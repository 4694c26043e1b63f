"""A bounded uniform sample of a stream's rows (reservoir sampling), for its conditional density.

Vitter's (1985) Algorithm R: the first ``k`` rows fill the reservoir; row ``i`` (0-based,
``i ≥ k``) then replaces slot ``j = ⌊u_i (i + 1)⌋`` when ``j < k``, so that after ``t`` rows
the reservoir is a uniform sample of ``k`` of them without replacement. The uniform ``u_i`` of
row ``i`` is the ``i``-th output of a Philox generator (Salmon et al. 2011) keyed by the fit's
``"reservoir"`` stream, reached by ``advance``: it depends on the seed and the row's position
only, so the sample does not depend on how the rows were split into chunks.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..base.parallel import as_seed_sequence, derived_stream

#: The fit's stream (:func:`sdrstats.base.parallel.derived_stream`) of the reservoir's draws.
RESERVOIR_STREAM = "reservoir"


def reservoir_key(seed: Any) -> np.ndarray:
    """The Philox key (two 64-bit words) of the reservoir of a stream whose fit seed is
    ``seed``."""
    return as_seed_sequence(derived_stream(seed, RESERVOIR_STREAM)).generate_state(2, np.uint64)


def uniforms(key: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Uniforms on [0, 1) of positions ``start..stop-1``: the 64-bit outputs there, over 2⁶⁴."""
    generator = np.random.Philox(key=np.asarray(key, dtype=np.uint64))
    generator.advance(start // 4)  # one counter step gives four 64-bit outputs
    skip = start % 4
    raw = generator.random_raw(skip + stop - start)[skip:]
    return (raw >> np.uint64(11)).astype(float) * 2.0**-53


class Reservoir:
    """At most ``size`` rows of a stream, a uniform sample of those it has seen.

    Parameters
    ----------
    size : int
        ``k``, the rows kept.
    key : ndarray of shape (2,), dtype uint64
        From :func:`reservoir_key`.
    p : int
        Predictors per row.

    Attributes
    ----------
    X : ndarray of shape (min(seen, size), p)
    y : ndarray of shape (min(seen, size),)
        The rows kept and their responses (class codes for a class response).
    seen : int
        Rows offered so far.
    """

    def __init__(self, size: int, key: np.ndarray, p: int) -> None:
        self.size = int(size)
        self.key = np.asarray(key, dtype=np.uint64).reshape(2)
        self.X = np.empty((0, p))
        self.y = np.empty(0)
        self.seen = 0

    def update(self, X: np.ndarray, y: np.ndarray) -> None:
        """Offer rows ``X`` with responses ``y`` (Algorithm R, in order; in place)."""
        m = X.shape[0]
        if m == 0 or self.size == 0:
            self.seen += m
            return
        free = max(0, min(self.size - self.X.shape[0], m))
        if free:
            self.X = np.vstack([self.X, X[:free]])
            self.y = np.concatenate([self.y.astype(y.dtype, copy=False), y[:free]])
        start = self.seen + free
        if free < m:
            u = uniforms(self.key, start, self.seen + m)
            slots = np.floor(u * (np.arange(start, self.seen + m) + 1.0)).astype(np.int64)
            hit = np.flatnonzero(slots < self.size)
            if hit.size:
                # later rows overwrite earlier ones in the same slot, as the loop would
                last = hit.size - 1 - np.unique(slots[hit][::-1], return_index=True)[1]
                rows = hit[last] + free
                self.X[slots[hit[last]]] = X[rows]
                self.y[slots[hit[last]]] = y[rows]
        self.seen += m

    def merged(self, other: Reservoir, rng: np.random.Generator) -> Reservoir:
        """A uniform sample of the union of two disjoint streams' rows.

        Of ``k`` slots, a hypergeometric number come from this stream's rows (``seen`` of
        ``seen + other.seen``), each part a uniform subsample of its reservoir.
        """
        out = copy.deepcopy(self)
        out.seen = self.seen + other.seen
        if self.X.shape[0] + other.X.shape[0] <= self.size:
            out.X = np.vstack([self.X, other.X])
            out.y = np.concatenate([self.y, other.y.astype(self.y.dtype, copy=False)])
            return out
        mine = int(rng.hypergeometric(self.seen, other.seen, self.size))
        mine = min(mine, self.X.shape[0])
        theirs = min(self.size - mine, other.X.shape[0])
        a = np.sort(rng.choice(self.X.shape[0], mine, replace=False))
        b = np.sort(rng.choice(other.X.shape[0], theirs, replace=False))
        out.X = np.vstack([self.X[a], other.X[b]])
        out.y = np.concatenate([self.y[a], other.y[b].astype(self.y.dtype, copy=False)])
        return out

    def state(self) -> dict[str, Any]:
        """Plain arrays (a deep copy), for ``state_dict`` and results."""
        return copy.deepcopy(
            {"size": self.size, "key": self.key, "X": self.X, "y": self.y, "seen": self.seen}
        )

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Reservoir:
        """Rebuild from :meth:`state` (the caller has checked the fields)."""
        out = cls.__new__(cls)
        out.size, out.seen = int(state["size"]), int(state["seen"])
        out.key = np.asarray(state["key"], dtype=np.uint64).reshape(2)
        out.X, out.y = np.asarray(state["X"], dtype=float), np.asarray(state["y"])
        return out


__all__ = ["RESERVOIR_STREAM", "Reservoir", "reservoir_key", "uniforms"]
