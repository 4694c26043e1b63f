"""Reading a stream: a DataFrame, an iterator of DataFrames or a CSV file in chunks.

:func:`online_sir` is the formula front of :class:`~sdrstats.online.OnlineSIR`: it feeds the
chunks of ``source`` to ``partial_fit`` in order, so memory holds one chunk at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

import pandas as pd

from ..base.validation import check_int
from ..design.calls import format_call
from ..design.formula import select_rows
from ..fitting.formula_functions import formula_doc, formula_options
from .online_sir import OnlineSIR, OnlineSIRResults


def iter_chunks(
    source: Any, chunksize: int = 1000, **read_csv_options: Any
) -> Iterator[pd.DataFrame]:
    """Chunks of ``source`` as DataFrames.

    Parameters
    ----------
    source : DataFrame, Dask DataFrame, iterable of DataFrames, or path to a CSV file
        A DataFrame is cut into consecutive chunks of ``chunksize`` rows, and so is each
        partition of a Dask DataFrame, computed one at a time in order; an iterable is
        passed through (each item must be a DataFrame); a path (str or ``os.PathLike``) is
        read with ``pandas.read_csv(path, chunksize=chunksize)``.
    chunksize : int
        Rows per chunk (DataFrame and CSV sources).
    **read_csv_options
        Passed to ``pandas.read_csv`` for a CSV source (``sep``, ``usecols``...).

    Examples
    --------
    >>> import pandas as pd
    >>> [len(c) for c in iter_chunks(pd.DataFrame({"a": range(5)}), chunksize=2)]
    [2, 2, 1]
    """
    check_int(chunksize, "chunksize", "online_sir", low=1)
    if isinstance(source, pd.DataFrame):
        for start in range(0, len(source), chunksize):
            yield source.iloc[start : start + chunksize]
        return
    if hasattr(source, "npartitions") and hasattr(source, "partitions"):  # a Dask DataFrame
        for k in range(source.npartitions):
            part = source.partitions[k].compute()
            for start in range(0, len(part), chunksize):
                yield part.iloc[start : start + chunksize]
        return
    if isinstance(source, (str, os.PathLike)):
        if not os.path.exists(source):
            raise FileNotFoundError(f"The CSV source {os.fspath(source)!r} does not exist.")
        with pd.read_csv(source, chunksize=chunksize, **read_csv_options) as reader:
            yield from reader
        return
    if not isinstance(source, Iterable):
        raise TypeError(f"{_SOURCES}; got {type(source).__name__}.")
    for k, chunk in enumerate(source):
        if not isinstance(chunk, pd.DataFrame):
            raise TypeError(
                f"Chunk {k} of the source (a {type(source).__name__}) is a "
                f"{type(chunk).__name__}, not a pandas DataFrame. {_SOURCES}."
            )
        yield chunk


_SOURCES = (
    "A stream's source must be a pandas DataFrame, a Dask DataFrame, an iterable of "
    "DataFrames (e.g. sdr.read_csv_chunks(path) or a generator) or the path of a CSV file"
)


def _stream(
    formula: str,
    source: Any,
    *,
    chunksize: int = 1000,
    missing: str = "drop",
    subset: Any = None,
    **options: Any,
) -> OnlineSIR:
    """Feed the chunks of ``source`` to a new :class:`OnlineSIR` (the body of :func:`online_sir`)."""
    model = OnlineSIR(**options)
    model.call = format_call(
        "online_sir",
        repr(formula),
        "source",
        f"chunksize={chunksize}",
        options=model.options,
        defaults=OnlineSIR.params,
        subset=subset,
    )
    if subset is not None:
        if isinstance(source, pd.DataFrame):
            source = select_rows(source, subset)
        elif not isinstance(subset, str):
            raise ValueError(
                "online_sir's 'subset' must be a query string for a stream of chunks (a boolean "
                "mask needs a DataFrame source); e.g. subset=\"sex == 'f'\"."
            )
    for chunk in iter_chunks(source, chunksize):
        if isinstance(subset, str) and not isinstance(source, pd.DataFrame):
            chunk = select_rows(chunk, subset, allow_empty=True)
            if chunk.shape[0] == 0:
                continue
        model.partial_fit(chunk, formula=formula, missing=missing)
    if not model.initialized:
        raise ValueError(
            f"The source had {model.n_seen} usable row(s), fewer than init_size = {model.init_size}; "
            "lower init_size or supply more rows."
        )
    return model


@formula_doc(OnlineSIR)
def online_sir(
    formula: str,
    source: Any,
    *,
    nslices: int | None = None,
    d: int | None = None,
    d_rule: str = "auto",
    d_max: int | None = None,
    eigen: str = "ccipca",
    sparse: bool = True,
    learning_rate: str | float = "auto",
    decay_after: str | float | None = "auto",
    gravity: str | float = "auto",
    threshold: float | None = None,
    truncate_every: str | int = "auto",
    cut_points: Any = None,
    init_size: int = 500,
    block_size: int = 1000,
    trace_size: int = 100,
    sir_moments: bool = True,
    bootstrap_replicates: int = 0,
    reservoir_size: int = 2000,
    random_state: Any = None,
    chunksize: int = 1000,
    missing: str = "drop",
    subset: Any = None,
) -> OnlineSIRResults:
    """Online (sparse) SIR over a stream of rows; see :class:`OnlineSIR` for the options.

    Returns a result like every formula function; the stream it came from is its
    ``.stream``. The result is a frozen value: to take in more rows, continue the stream
    and ask it for a new result (``fit.stream.partial_fit(chunk)``, then
    ``fit.stream.results()``); ``fit`` itself never changes.

    Parameters
    ----------
    {formula}
    source : DataFrame, Dask DataFrame, iterable of DataFrames, or CSV path
        See :func:`iter_chunks`. The formula is evaluated on the first chunk and applied with
        the same transforms and factor levels to every chunk (a
        :class:`~sdrstats.design.plan.FormulaPlan`, as for chunked data); the response may
        call only the allowed functions of saved formulas (``log``, ``sqrt``, ``np.*``, ...).
    {options}
    chunksize : int, default 1000
        Rows per chunk read from a DataFrame or CSV source.
    {missing}
    subset : str or array-like of bool, optional
        Rows to use, as R's ``subset``: a pandas query string (applied to every chunk as it
        arrives), or a boolean mask (a DataFrame source only: a stream has no row positions).

    Returns
    -------
    OnlineSIRResults
        The estimate after the last chunk, with the stream as its ``.stream``.

    See Also
    --------
    OnlineSIR : The stream itself, and the estimator for arrays (``OnlineSIR(...).fit(X, y)``).
    sdrstats.online.OnlineSIRResults : What it returns.
    lasso_sir : The batch method it follows.

    References
    ----------
    :cite:t:`cheng2020`; :cite:t:`cai2020`; :cite:t:`langford2009`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.online_sir("lbm ~ ht + wt + ssf + rcc", ais.iloc[:150], chunksize=50,
    ...                      init_size=100, d=1, nslices=5)
    >>> fit.n_seen
    150
    >>> print(fit.test_dimension("asymptotic"))  # doctest: +ELLIPSIS
    Large-sample Marginal Dimension Tests:
    ...
    >>> _ = fit.stream.partial_fit(ais.iloc[150:])      # the stream takes more rows
    >>> fit.n_seen, fit.stream.results().n_seen          # fit is a value; ask for a new one
    (150, 202)
    """
    options = formula_options(OnlineSIR, locals(), "online_sir")
    stream = _stream(
        formula, source, chunksize=chunksize, missing=missing, subset=subset, **options
    )
    return stream.results()


__all__ = ["iter_chunks", "online_sir"]
