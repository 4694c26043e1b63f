"""Poisson(1) bootstrap counts from a counter-based generator, keyed by replicate and row.

The Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012) gives every row an
independent Poisson(1) count per replicate instead of multinomial counts that sum to ``n``.
Drawn here from numpy's :class:`~numpy.random.Philox` (Salmon et al. 2011), a counter-based
generator, the count of row ``i`` in replicate ``b`` is a function of ``(random_state, b, i)``
alone: any split of the rows into chunks, partitions or workers gives the same counts, and a
chunk can compute its rows' counts from its first row's position without reading the others.

How a count is drawn
--------------------
Replicate ``b`` uses the Philox 4×64 generator whose 128-bit key is the first two 64-bit
words of the state of child ``b`` of ``random_state``'s :class:`~numpy.random.SeedSequence`
(the child :func:`sdrstats.base.parallel.spawn_seeds` gives replicate ``b``). Row ``i`` (its
0-based position) takes the ``i``-th 64-bit output of that generator: each counter value gives
four outputs, so :meth:`~numpy.random.Philox.advance` by ``i // 4`` and skipping ``i % 4``
outputs reaches it. The output ``r``, read as the uniform ``u = r / 2⁶⁴``, becomes a count by
inversion of the Poisson(1) distribution function ``F``: the count is the number of ``k`` with
``F(k) <= u``, found by comparing ``r`` with the exact integer thresholds ``ceil(F(k) 2⁶⁴)``.

References
----------
Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using Poisson
frequencies. *Computer Methods and Programs in Biomedicine* 83, 57–62.

Chamandy, N., Muralidharan, O., Najmi, A. & Naidu, S. (2012). Estimating uncertainty for
massive data streams. Google technical report.

Salmon, J. K., Moraes, M. A., Dror, R. O. & Shaw, D. E. (2011). Parallel random numbers: as
easy as 1, 2, 3. *Proceedings of the International Conference for High Performance
Computing, Networking, Storage and Analysis* (SC11).
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from typing import Any

import numpy as np

from ..base.parallel import as_seed_sequence


def _thresholds() -> np.ndarray:
    """``ceil(F(k) 2⁶⁴)`` for the Poisson(1) distribution function ``F``, while below 2⁶⁴.

    Computed in 60-digit decimal arithmetic, so every threshold is the exact integer (``F(k)
    2⁶⁴`` is irrational and never an integer).
    """
    with localcontext() as ctx:
        ctx.prec = 60
        scale = Decimal(2) ** 64
        term = Decimal(-1).exp()  # P(0) = e^{-1}
        total = Decimal(0)
        out = []
        k = 0
        while True:
            total += term
            value = int((total * scale).to_integral_value(rounding="ROUND_CEILING"))
            if value >= 2**64:
                break
            out.append(value)
            k += 1
            term /= k
    return np.array(out, dtype=np.uint64)


#: ``ceil(F(k) 2⁶⁴)``, k = 0, ..., 19: a count is the number of thresholds at or below its
#: 64-bit output, so counts run from 0 to 20 (``1 − F(20) < 2⁻⁶⁴``: no output reaches 21).
THRESHOLDS = _thresholds()
#: Largest count that can be drawn (20).
MAX_COUNT = THRESHOLDS.size
#: Thresholds compared with every output; the rarer larger counts (P(count >= 3) = 0.080)
#: are found by a search among the outputs above the last of these.
_DIRECT = 3


def replicate_keys(random_state: Any, b_range: Any) -> np.ndarray:
    """Philox keys (two 64-bit words) of replicates ``b_range`` of ``random_state``.

    Parameters
    ----------
    random_state : int, sequence of int or SeedSequence
        The bootstrap's seed (a Generator would be consumed differently by every call; the
        bootstrap turns one into a SeedSequence once).
    b_range : iterable of int
        Replicate numbers (0-based).

    Returns
    -------
    ndarray of shape (len(b_range), 2), dtype uint64

    Examples
    --------
    >>> keys = replicate_keys(0, range(3))
    >>> keys.shape, bool(np.array_equal(keys[1:], replicate_keys(0, [1, 2])))
    ((3, 2), True)
    """
    if isinstance(random_state, np.random.Generator | np.random.RandomState):
        raise TypeError(
            "Poisson bootstrap counts need a seed that gives the same streams every time "
            "(an int or a SeedSequence); a Generator is consumed by each use. Draw a seed from "
            "it once: np.random.SeedSequence(rng.integers(2**63))."
        )
    base = as_seed_sequence(random_state)
    rows = [
        np.random.SeedSequence(
            base.entropy, spawn_key=(*base.spawn_key, int(b)), pool_size=base.pool_size
        ).generate_state(2, np.uint64)
        for b in b_range
    ]
    return np.array(rows, dtype=np.uint64).reshape(-1, 2)


def counts_from_keys(keys: np.ndarray, start: int, stop: int, out: np.ndarray | None = None):
    """Poisson(1) counts of rows ``start..stop-1`` for replicates with Philox ``keys``.

    Parameters
    ----------
    keys : ndarray of shape (b, 2), dtype uint64
        From :func:`replicate_keys`.
    start, stop : int
        Positions of the first row and one past the last (0-based).
    out : ndarray of shape (b, stop - start), dtype uint8, optional
        Where to write the counts.

    Returns
    -------
    ndarray of shape (b, stop - start), dtype uint8

    Examples
    --------
    >>> keys = replicate_keys(7, range(2))
    >>> whole = counts_from_keys(keys, 0, 10)
    >>> bool(np.array_equal(whole[:, 3:10], counts_from_keys(keys, 3, 10)))
    True
    """
    start, stop = int(start), int(stop)
    if start < 0 or stop < start:
        raise ValueError(f"Row positions must satisfy 0 <= start <= stop; got {start}, {stop}.")
    m = stop - start
    if out is None:
        out = np.empty((keys.shape[0], m), dtype=np.uint8)
    if m == 0:
        return out
    skip = start % 4  # one Philox counter step gives four 64-bit outputs
    hit = np.empty(m, dtype=bool)
    low = THRESHOLDS[:_DIRECT]
    for b in range(keys.shape[0]):
        generator = np.random.Philox(key=keys[b])
        generator.advance(start // 4)
        raw = generator.random_raw(skip + m)[skip:]
        row = out[b]
        np.greater_equal(raw, low[0], out=row.view(bool))
        for threshold in low[1:]:
            np.greater_equal(raw, threshold, out=hit)
            row += hit
        tail = np.flatnonzero(raw >= THRESHOLDS[_DIRECT])
        if tail.size:
            row[tail] = np.searchsorted(THRESHOLDS, raw[tail], side="right")
    return out


def poisson_counts(random_state: Any, b_range: Any, start: int, stop: int) -> np.ndarray:
    """Poisson(1) bootstrap counts of rows ``start..stop-1`` in replicates ``b_range``.

    The count of row ``i`` in replicate ``b`` depends on ``(random_state, b, i)`` only, so
    any split of the rows gives the same counts (see the module's description of the draw).

    Parameters
    ----------
    random_state : int, sequence of int or SeedSequence
        The bootstrap's seed.
    b_range : iterable of int
        Replicate numbers (0-based).
    start, stop : int
        Position of the first row and one past the last (0-based positions in the data as
        given, counting rows later dropped for missing values).

    Returns
    -------
    ndarray of shape (len(b_range), stop - start), dtype uint8

    Examples
    --------
    >>> counts = poisson_counts(0, range(4), 0, 100_000)
    >>> counts.shape, round(float(counts.mean()), 2)
    ((4, 100000), 1.0)
    >>> halves = np.hstack([poisson_counts(0, range(4), 0, 37), poisson_counts(0, range(4), 37, 100)])
    >>> bool(np.array_equal(halves, counts[:, :100]))
    True
    """
    return counts_from_keys(replicate_keys(random_state, b_range), start, stop)


__all__ = [
    "MAX_COUNT",
    "THRESHOLDS",
    "counts_from_keys",
    "poisson_counts",
    "replicate_keys",
]
