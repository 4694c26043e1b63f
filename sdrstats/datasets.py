"""Data sets shipped with sdrstats (see ``data/SOURCES.md`` in the repository).

Examples
--------
>>> import sdrstats as sdr
>>> sdr.datasets.load("ais").shape
(202, 13)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

_DESCRIPTIONS = {
    "ais": "Australian Institute of Sport athletes (DAAG::ais), 202 x 13; response lbm.",
    "boston": "Boston housing (MASS::Boston), 506 x 14; response medv.",
    "auto": "Auto MPG (ISLR::Auto), 392 x 9; response mpg.",
}


def _path(name: str) -> Path:
    packaged = resources.files("sdrstats").joinpath("data", f"{name}.csv")
    if packaged.is_file():
        return Path(str(packaged))
    # running from a source checkout without installation
    return Path(__file__).resolve().parent.parent / "data" / f"{name}.csv"


def names() -> list[str]:
    """Names of the bundled data sets.

    Returns
    -------
    list of str
        The names :func:`load` takes.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> sdr.datasets.names()
    ['ais', 'auto', 'boston']
    """
    return sorted(_DESCRIPTIONS)


def describe(name: str) -> str:
    """One-line description of a bundled data set.

    Parameters
    ----------
    name : {"ais", "boston", "auto"}
        The data set.

    Returns
    -------
    str
        One line: where the data come from, their size and response.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> sdr.datasets.describe("ais")
    'Australian Institute of Sport athletes (DAAG::ais), 202 x 13; response lbm.'
    """
    _check(name)
    return _DESCRIPTIONS[name]


def _check(name: str) -> None:
    if name not in _DESCRIPTIONS:
        raise ValueError(f"Unknown data set {name!r}; available: {names()}.")


def load(name: str) -> pd.DataFrame:
    """Load a bundled data set as a new DataFrame.

    Parameters
    ----------
    name : {"ais", "boston", "auto"}
        The data set; :func:`names` lists them.

    Returns
    -------
    pandas.DataFrame
        String columns are read as text; a fresh copy each call.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> ais.shape
    (202, 13)
    >>> ais.columns[:4].tolist()
    ['rcc', 'wcc', 'hc', 'hg']
    """
    _check(name)
    return pd.read_csv(_path(name))


__all__ = ["load", "names", "describe"]
