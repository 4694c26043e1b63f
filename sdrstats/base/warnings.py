"""Warning classes of sdrstats, in one place so users can filter them by class."""


class SDRWarning(UserWarning):
    """Base class of every warning sdrstats emits.

    Filter it to silence (or turn into errors) all of the package's warnings at once.

    Examples
    --------
    >>> import warnings
    >>> import sdrstats as sdr
    >>> issubclass(sdr.ConvergenceWarning, sdr.SDRWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", sdr.SDRWarning)
    ...     warnings.warn("quiet", sdr.MissingValueWarning)
    """


class ConvergenceWarning(SDRWarning):
    """An iterative fit stopped at its iteration limit before meeting its tolerance.

    The message names the option to raise (usually ``max_iter``) or loosen (``tol``).

    Examples
    --------
    >>> import warnings
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fit = sdr.mave("lbm ~ ht + wt", ais, d=1, max_iter=1, tol=1e-9)
    >>> any(issubclass(w.category, sdr.ConvergenceWarning) for w in caught)
    True
    """


class SlowFitWarning(SDRWarning):
    """A fit is predicted to run for more than about a minute.

    The message gives the estimate and how to make the fit faster; see
    :func:`sdrstats.set_config` for the memory limit that refuses larger fits outright.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> issubclass(sdr.SlowFitWarning, sdr.SDRWarning)
    True
    """


class MissingValueWarning(SDRWarning):
    """Rows with missing values were dropped before fitting (the message says how many).

    Raised by formula functions with ``missing="drop"`` (the default).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> ais.loc[0, "ht"] = np.nan
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fit = sdr.sir("lbm ~ ht + wt", ais, nslices=4)
    >>> print(caught[0].category.__name__, caught[0].message)
    MissingValueWarning Dropped 1 of 202 rows with missing values in ['ht'].
    >>> fit.n
    201
    """


class CollinearityWarning(SDRWarning):
    """The predictors are nearly collinear; directions may be poorly determined.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import pandas as pd
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    >>> df["c"] = df["a"] + 1e-9 * rng.normal(size=50)
    >>> df["y"] = df["a"] + rng.normal(size=50)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fit = sdr.sir("y ~ a + b + c", df, nslices=4)
    >>> any(issubclass(w.category, sdr.CollinearityWarning) for w in caught)
    True
    """


class TuningWarning(SDRWarning):
    """A tuning parameter chosen by cross-validation lies at the end of its grid.

    The optimum may lie beyond the grid; the message names the option (e.g. ``sigma_grid``)
    to widen.

    Examples
    --------
    >>> import warnings
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     dens = sdr.lscde("lbm ~ ht + wt", ais, sigma_grid=[5.0, 10.0], random_state=0)
    >>> any(issubclass(w.category, sdr.TuningWarning) for w in caught)
    True
    """


class CalibrationWarning(SDRWarning):
    """A conditional density's intervals miss their nominal coverage beyond binomial error.

    Raised by ``calibration()`` on rows with known responses; the message names the
    groups (thirds of the rows' local spread) and levels that miss.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np, pandas as pd
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((1000, 2))
    >>> df = pd.DataFrame(X, columns=["x1", "x2"])
    >>> df["y"] = X[:, 0] + (0.1 + np.maximum(X[:, 1], 0)) * rng.standard_normal(1000)
    >>> fit = sdr.sir("y ~ x1 + x2", df.iloc[:400], d=1)
    >>> one_width = fit.conditional_density(model="separate", random_state=0)  # blind to x2
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     cal = one_width.calibration(df.iloc[400:])
    >>> any(issubclass(w.category, sdr.CalibrationWarning) for w in caught)
    True
    """


__all__ = [
    "SDRWarning",
    "CalibrationWarning",
    "ConvergenceWarning",
    "MissingValueWarning",
    "CollinearityWarning",
    "TuningWarning",
    "SlowFitWarning",
]
