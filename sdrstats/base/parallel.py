"""Random streams and parallel loops shared by every method that resamples or restarts.

Two functions are all a method needs:

- :func:`spawn_seeds` turns one ``random_state`` into ``k`` independent
  :class:`numpy.random.SeedSequence` children (one per replicate, restart or chunk), and
  :func:`spawn_generators` into ``k`` ready :class:`numpy.random.Generator` objects. Replicate
  ``i`` always gets child ``i``, so results never depend on how work is split over workers.
- :func:`parallel_map` applies a function to items with joblib (``n_jobs`` workers), returns
  the results **in item order** and shows a tqdm progress bar when the loop is predicted to
  run longer than a few seconds (``progress=False`` silences it). One user call draws at most
  one bar: a loop running inside another's (a bootstrap refitting LSCE, whose restarts are a
  loop too; or any loop in a joblib worker) stays silent, and the bar is redrawn at most
  every ``PROGRESS_INTERVAL`` seconds. A stderr that is not a terminal (a log file, a pipe;
  notebooks excepted) gets no bar: tqdm's redraws would be ``\r`` characters in the file.
- With ``n_jobs`` other than 1 on joblib's default backend (a backend you chose, such as a
  Dask cluster, is always used), the first item runs in this process; if all items are then
  predicted to take under ``SERIAL_SECONDS``, the rest run here too (starting workers costs
  more than that), and the ``sdrstats`` logger says so at INFO level. Results are the same
  either way.
- :func:`blas_threads_for` runs a loop of dense problems on one BLAS thread when their
  matrices are small, where a second thread costs more than it shares.

Typical use (a bootstrap with ``B`` replicates)::

    seeds = spawn_seeds(random_state, B)
    results = parallel_map(lambda s: one_replicate(np.random.default_rng(s)), seeds,
                           n_jobs=n_jobs, progress=progress, desc="bootstrap")

With a Dask client registered, ``with joblib.parallel_config(backend="dask"):`` around the call
sends the work to the cluster; nothing here changes.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np

from .budget import check_time

T = TypeVar("T")
R = TypeVar("R")

#: A loop's bar appears once it has run ``PROGRESS_DELAY`` seconds, or earlier (after
#: ``PROGRESS_MIN_ELAPSED`` s) when the items done so far predict a total of at least that long.
PROGRESS_DELAY = 4.0
PROGRESS_MIN_ELAPSED = 1.0
#: Seconds between redraws of a bar.
PROGRESS_INTERVAL = 2.0
#: A loop predicted to finish within this many seconds in one process is not sent to workers.
SERIAL_SECONDS = 1.0
#: A loop predicted to take longer (a dimension rule, a bootstrap) says so before it goes on.
ANNOUNCE_SECONDS = 20.0

LOGGER = logging.getLogger("sdrstats")


def _default_backend() -> bool:
    """joblib's default process pool (not a backend the user chose, such as a Dask cluster)."""
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    return type(backend).__name__ == "LokyBackend"


def _bar_allowed() -> bool:
    """tqdm's bar redraws with ``\r``: only on a terminal or in a notebook (ipykernel)."""
    stream = sys.stderr
    if stream is None:
        return False
    if "ipykernel" in sys.modules:
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


#: True while a loop that may draw a bar runs: loops inside it draw none.
_IN_LOOP: ContextVar[bool] = ContextVar("sdrstats_in_progress_loop", default=False)


class _LazyBar:
    """A tqdm bar created only when the loop turns out to be long (see ``PROGRESS_DELAY``)."""

    def __init__(self, total: int, desc: str | None) -> None:
        self.total, self.desc, self.done = total, desc, 0
        self.start = time.perf_counter()
        self.bar: Any = None

    def update(self, k: int = 1) -> None:
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
            return
        elapsed = time.perf_counter() - self.start
        predicted = elapsed / max(self.done, 1) * self.total
        if self.done < self.total and (
            elapsed >= PROGRESS_DELAY
            or (elapsed >= PROGRESS_MIN_ELAPSED and predicted >= PROGRESS_DELAY)
        ):
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=self.total,
                initial=self.done,
                desc=self.desc,
                leave=False,
                mininterval=PROGRESS_INTERVAL,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _silent_call(fn: Callable[[T], R], item: T) -> R:
    """``fn(item)`` with nested loops' bars off (runs in joblib workers)."""
    token = _IN_LOOP.set(True)
    try:
        return fn(item)
    finally:
        _IN_LOOP.reset(token)


def as_seed_sequence(random_state: Any = None) -> np.random.SeedSequence:
    """One :class:`numpy.random.SeedSequence` from any accepted ``random_state``.

    Parameters
    ----------
    random_state : None, int, sequence of int, SeedSequence, Generator or RandomState
        ``None`` draws fresh OS entropy (not reproducible). An int (or ints) is a seed. A
        ``SeedSequence`` is used as is. A ``Generator``/``RandomState`` is consumed: 128 bits
        are drawn from it, so the same generator state always gives the same streams.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> as_seed_sequence(7).entropy
    7
    """
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2**32, size=4, dtype=np.uint32))
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(random_state.randint(0, 2**32, size=4, dtype=np.uint32))
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(
            "random_state must be None, an int, a SeedSequence or a Generator; "
            f"got {random_state!r}."
        )
    if isinstance(random_state, (int, np.integer)):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int; got {random_state}.")
        return np.random.SeedSequence(int(random_state))
    if isinstance(random_state, Sequence) and all(
        isinstance(v, (int, np.integer)) and v >= 0 for v in random_state
    ):
        return np.random.SeedSequence([int(v) for v in random_state])
    raise TypeError(
        "random_state must be None, an int, a SeedSequence or a Generator; "
        f"got {type(random_state).__name__}."
    )


def resolve_random_state(random_state: Any) -> Any:
    """``random_state``, or for ``None`` a fresh 128-bit int seed drawn from OS entropy.

    Resampling results record the returned value, so a run with ``random_state=None`` can be
    repeated exactly by passing the recorded seed.

    Examples
    --------
    >>> resolve_random_state(3)
    3
    >>> isinstance(resolve_random_state(None), int)
    True
    """
    if random_state is None:
        return int(np.random.SeedSequence().entropy)
    return random_state


#: Largest seed a fit draws for itself (``fit_seed(None)``): short enough to print and retype.
DRAWN_SEED_LIMIT = 2**32


def fit_seed(random_state: Any) -> Any:
    """The seed a fit records: what it was given, or one drawn when none was.

    A fit's ``random_state`` seeds the fit itself (randomised methods) and every stream
    derived from it later (:func:`derived_stream`). Recording it as a value makes the run
    repeatable: passing the recorded seed back gives the same numbers.

    Parameters
    ----------
    random_state : None, int, sequence of int, SeedSequence, Generator or RandomState
        ``None`` draws a seed below ``DRAWN_SEED_LIMIT`` from OS entropy. A
        ``Generator``/``RandomState`` is consumed once: an int seed is drawn from it. An int,
        a sequence of ints or a ``SeedSequence`` is kept as it is.

    Returns
    -------
    int, list of int or SeedSequence

    Examples
    --------
    >>> fit_seed(7)
    7
    >>> fit_seed(np.random.default_rng(0)) == fit_seed(np.random.default_rng(0))
    True
    >>> 0 <= fit_seed(None) < DRAWN_SEED_LIMIT
    True
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, DRAWN_SEED_LIMIT))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, DRAWN_SEED_LIMIT, dtype=np.int64))
    as_seed_sequence(random_state)  # refuses what no stream can come from, with its wording
    if isinstance(random_state, (int, np.integer)):
        return int(random_state)
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    return [int(v) for v in random_state]


def stream_key(kind: str) -> int:
    """The 32-bit number of a call kind (CRC-32 of its name: the same in every run).

    Examples
    --------
    >>> stream_key("bootstrap") == stream_key("bootstrap") != stream_key("sample")
    True
    """
    return zlib.crc32(kind.encode("utf-8"))


def derived_stream(seed: Any, kind: str) -> Any:
    """The seed of the random stream a fit's call of kind ``kind`` draws from.

    Every call kind (``"bootstrap"``, ``"test_dimension/permutation"``, ``"sample"``...)
    draws from its own stream, a function of the fit's seed and the kind only, so a script
    run twice prints the same numbers, a call repeated gives the same answer, and two kinds
    never share draws. For an int (or ints) seed ``s`` the stream is the seed
    ``[*s, stream_key(kind)]``, a list of ints that can be printed and passed back as
    ``random_state``; a ``SeedSequence`` seed gives its child with that spawn key.

    Parameters
    ----------
    seed : int, list of int or SeedSequence
        A fit's recorded seed (:func:`fit_seed`).
    kind : str
        The call kind.

    Returns
    -------
    list of int or SeedSequence

    Examples
    --------
    >>> derived_stream(12345, "bootstrap") == [12345, stream_key("bootstrap")]
    True
    >>> derived_stream(12345, "bootstrap") != derived_stream(12345, "sample")
    True
    """
    key = stream_key(kind)
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(
            seed.entropy, spawn_key=(*seed.spawn_key, key), pool_size=seed.pool_size
        )
    if isinstance(seed, (int, np.integer)):
        return [int(seed), key]
    return [*(int(v) for v in seed), key]


def call_seed(owner: Any, random_state: Any, kind: str) -> Any:
    """The seed one call draws from: its own ``random_state``, else its owner's stream.

    Parameters
    ----------
    owner : object
        What the call is made on (a fitted result, a density); its ``random_state``
        attribute is its seed.
    random_state : optional
        The call's own seed, which wins when given.
    kind : str
        The call kind (:func:`derived_stream`).

    Returns
    -------
    object
        ``random_state`` if it is not None; else ``derived_stream(owner.random_state,
        kind)``; else (an owner without a seed) a fresh seed from OS entropy, recorded by the
        caller so the run can be repeated.

    Examples
    --------
    >>> class Fit:
    ...     random_state = 5
    >>> call_seed(Fit(), None, "bootstrap") == [5, stream_key("bootstrap")]
    True
    >>> call_seed(Fit(), 0, "bootstrap")
    0
    """
    if random_state is not None:
        return random_state
    seed = getattr(owner, "random_state", None)
    if seed is not None:
        return derived_stream(seed, kind)
    return resolve_random_state(None)


def spawn_seeds(random_state: Any, k: int) -> list[np.random.SeedSequence]:
    """``k`` independent child seed sequences of ``random_state``.

    Child ``i`` depends only on ``random_state`` and ``i``: pass child ``i`` to replicate
    ``i`` and the results do not depend on the number of workers or the order they run in.

    Parameters
    ----------
    random_state : None, int, SeedSequence, Generator or RandomState
        See :func:`as_seed_sequence`.
    k : int
        Number of children (``>= 0``).

    Returns
    -------
    list of numpy.random.SeedSequence

    Examples
    --------
    >>> a = spawn_seeds(0, 3)
    >>> b = spawn_seeds(0, 5)
    >>> [np.random.default_rng(s).integers(100) for s in a] == [
    ...     np.random.default_rng(s).integers(100) for s in b[:3]]
    True
    """
    k = int(k)
    if k < 0:
        raise ValueError(f"The number of seeds must be >= 0; got {k}.")
    base = as_seed_sequence(random_state)
    # Children from a fresh SeedSequence with the same entropy and spawn key, so calling this
    # twice on one SeedSequence object gives the same children (SeedSequence.spawn is stateful).
    root = np.random.SeedSequence(base.entropy, spawn_key=base.spawn_key, pool_size=base.pool_size)
    return root.spawn(k)


def spawn_generators(random_state: Any, k: int) -> list[np.random.Generator]:
    """``k`` independent generators, ``default_rng`` of each of :func:`spawn_seeds`.

    Examples
    --------
    >>> rngs = spawn_generators(1, 2)
    >>> rngs[0].normal() != rngs[1].normal()
    True
    """
    return [np.random.default_rng(s) for s in spawn_seeds(random_state, k)]


def effective_n_jobs(n_jobs: int | None) -> int:
    """Number of workers joblib will use for ``n_jobs`` (``None`` means 1; ``-1`` all cores)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero int (-1 for all cores); got {n_jobs!r}.")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


@contextmanager
def limit_blas_threads(threads: int | None = 1) -> Iterator[None]:
    """Run the block with at most ``threads`` BLAS threads (``None``: leave unchanged).

    Loops of many small fits are several times faster on one BLAS thread than on a
    multi-threaded BLAS whose threads compete with each other and with other processes;
    parallelism then comes from ``n_jobs``.
    """
    if threads is None:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        yield
        return
    with threadpool_limits(limits=int(threads), user_api="blas"):
        yield


#: Largest matrix order whose dense problems run on one BLAS thread (see :func:`blas_threads_for`).
SMALL_ORDER = 2000


@contextmanager
def blas_threads_for(order: int, small: int = SMALL_ORDER) -> Iterator[None]:
    """Run a block of dense problems of matrix order ``order`` on the BLAS threads that suit it.

    Problems of order up to ``small`` run on one thread; larger ones on whatever the BLAS has
    (threadpoolctl's limits restore it on leaving the block, and an outer limit stays in force).

    Parameters
    ----------
    order : int
        The largest order of the matrices factorised or multiplied in the block (``n`` for an
        ``n x n`` eigen-decomposition or Gram matrix, ``p`` for ``p x p`` solves).
    small : int, default :data:`SMALL_ORDER`
        The largest order run on one thread.

    Notes
    -----
    A second OpenBLAS thread shares the work of one factorisation or product and waits for
    its partner at every step; on a matrix of a few hundred rows the waiting outweighs the
    shared work, and on cores shared with other processes a waiting thread is often
    descheduled. Measured on two shared cores: ``eigh`` of order 200-1600 4-18 times slower
    on two threads than on one, products of order 200-400 30-250 times, a Cholesky of order
    2000 13 times; on a quiet machine the SDSPCAAN solver at ``n = 2000`` was still 10 %
    slower on two. Enter the block once around a loop, not once per problem: entering costs
    about half a millisecond.

    Examples
    --------
    >>> import numpy as np
    >>> with blas_threads_for(50):
    ...     values = [float(np.linalg.eigvalsh(np.eye(50) * k)[0]) for k in range(1, 4)]
    >>> values
    [1.0, 2.0, 3.0]
    """
    with limit_blas_threads(blas_threads_of(order, small)):
        yield


def blas_threads_of(order: int, small: int = SMALL_ORDER) -> int | None:
    """The BLAS thread limit :func:`blas_threads_for` sets for problems of order ``order``:
    1 up to ``small``, else ``None`` (no limit); for :func:`parallel_map`'s ``blas_threads``.

    Examples
    --------
    >>> blas_threads_of(20), blas_threads_of(5000)
    (1, None)
    """
    return 1 if order <= small else None


def announce(what: str, seconds: float, detail: str) -> None:
    """Print on stderr, before a long loop goes on, how long it is predicted to take.

    Examples
    --------
    >>> import contextlib, io, sys
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     announce("permutation test mave", 150.0, "398 tasks of about 0.38 s each")
    >>> print(err.getvalue(), end="")
    permutation test mave: about 2.5 min predicted (398 tasks of about 0.38 s each); progress follows.
    """
    shown = f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"
    sys.stderr.write(f"{what}: about {shown} predicted ({detail}); progress follows.\n")
    sys.stderr.flush()


def parallel_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    n_jobs: int | None = 1,
    progress: bool = True,
    desc: str | None = None,
    total: int | None = None,
    blas_threads: int | None = 1,
    count_option: tuple[str, int] | None = None,
) -> list[R]:
    """``[fn(item) for item in items]``, over ``n_jobs`` joblib workers, in item order.

    The first item runs here and is timed: a loop predicted from it to run past the time
    limit (``sdr.set_config(max_time=...)``) is refused before the rest, naming
    ``count_option``.

    Parameters
    ----------
    fn : callable
        Function of one item. With ``n_jobs > 1`` it must be picklable (a module-level
        function or a ``functools.partial`` of one; joblib's loky backend also handles
        closures through cloudpickle).
    items : iterable
        Work items, e.g. the seeds from :func:`spawn_seeds`.
    n_jobs : int or None, default 1
        Workers; ``-1`` uses every core. ``1`` runs in this process without joblib.
    progress : bool, default True
        Show a tqdm bar (on stderr) if the loop is predicted to take longer than
        ``PROGRESS_DELAY`` seconds, unless this loop runs inside another one (which owns the
        bar); ``False`` never shows one.
    desc : str, optional
        Label of the progress bar.
    total : int, optional
        Number of items when ``items`` has no ``len``.
    blas_threads : int or None, default 1
        BLAS threads while ``fn`` runs in this process (``n_jobs=1``); ``None`` leaves the
        BLAS setting alone (use it when each item is one large matrix computation). joblib
        workers get their own limit from joblib.
    count_option : (str, int), optional
        The option that sets the number of items and its value (``("B", 200)``), named when
        the loop is refused.

    Returns
    -------
    list
        ``fn`` of each item, in the order of ``items`` whatever ``n_jobs`` is.

    Examples
    --------
    >>> parallel_map(abs, [-1, 2, -3], progress=False)
    [1, 2, 3]
    """
    workers = effective_n_jobs(n_jobs)
    items = list(items)
    total = len(items) if total is None else total
    outermost = progress and not _IN_LOOP.get()
    show = outermost and _bar_allowed()
    bar = _LazyBar(total, desc) if show else None
    token = _IN_LOOP.set(True)
    try:
        out: list[R] = []
        serial = workers == 1 or len(items) <= 1
        if len(items) > 1 and (serial or _default_backend()):
            # time one item here: a loop past the time limit is refused, and a short loop is
            # faster without starting workers
            start = time.perf_counter()
            with limit_blas_threads(blas_threads):
                out.append(fn(items[0]))
            elapsed = time.perf_counter() - start
            predicted = elapsed * len(items)
            if bar is not None:
                bar.update(1)
            tasks = f"{len(items):,} tasks of about {elapsed:.2g} s each, the first timed"
            remaining = elapsed * (len(items) - 1) / (1 if serial else workers)
            if outermost and remaining > ANNOUNCE_SECONDS:  # a log file gets it too
                announce(desc or "this loop", elapsed + remaining, tasks)
            check_time(
                desc or "this loop",
                elapsed * (len(items) - 1) / (1 if serial else workers),
                f"{count_option[0]} = {count_option[1]:,} ({tasks})" if count_option else tasks,
                f"lower {count_option[0]}" if count_option else "use fewer replicates",
            )
            if not serial and predicted < SERIAL_SECONDS:
                serial = True
                LOGGER.info(
                    "%s: %d items predicted to take %.2f s in one process; ran them serially "
                    "instead of on %d workers.",
                    desc or "loop",
                    len(items),
                    predicted,
                    workers,
                )
        if serial:
            with limit_blas_threads(blas_threads):
                for item in items[len(out) :]:
                    out.append(fn(item))
                    if bar is not None:
                        bar.update(1)
            return out
        from joblib import Parallel, delayed

        runner = Parallel(n_jobs=workers, return_as="generator")
        for result in runner(delayed(_silent_call)(fn, item) for item in items[len(out) :]):
            out.append(result)
            if bar is not None:
                bar.update(1)
        return out
    finally:
        _IN_LOOP.reset(token)
        if bar is not None:
            bar.close()


def check_random_state(value: Any) -> None:
    """Refuse a ``random_state`` that :func:`sdrstats.inference.bootstrap.bootstrap` would refuse.

    The check is :func:`as_seed_sequence`'s, with its messages; a
    generator is accepted as is (not consumed until the fit).

    Examples
    --------
    >>> check_random_state(0)
    >>> check_random_state(1.5)
    Traceback (most recent call last):
    ...
    TypeError: ...
    """
    if isinstance(value, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)):
        return
    as_seed_sequence(value)  # raises bootstrap's TypeError or ValueError, same wording


__all__ = [
    "PROGRESS_DELAY",
    "PROGRESS_INTERVAL",
    "SERIAL_SECONDS",
    "as_seed_sequence",
    "call_seed",
    "check_random_state",
    "derived_stream",
    "effective_n_jobs",
    "SMALL_ORDER",
    "blas_threads_for",
    "blas_threads_of",
    "fit_seed",
    "limit_blas_threads",
    "parallel_map",
    "resolve_random_state",
    "spawn_generators",
    "spawn_seeds",
    "stream_key",
]
