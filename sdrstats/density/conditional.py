"""Conditional densities of the response given (reduced) predictors.

Every estimator here (LSCE's own, LSCDE at a fixed projection, ε-KDE) yields a Gaussian
mixture in ``y`` whose weights depend on the predictors:

.. math:: \\hat p(y \\mid z) = \\sum_k w_k(z)\\, N(y;\\, m_k,\\, \\mathrm{diag}(s^2)),

so :class:`ConditionalDensity` computes pdf, cdf, mean, variance, quantiles and samples
exactly, on the original ``y`` scale (the estimators work on standardised ``y``; a density in
standardised units is divided by the response scales). The queries that go beyond the
mixture's moments (quantiles, samples, predictions, plots) are in :mod:`.queries`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import log_ndtr

from ..core.persistence import register
from ..stats.gaussian import squared_distances
from .queries import DensityQueries


@register
class Features:
    """Maps ``newdata`` to the standardised predictors ``z`` a density was fitted on.

    ``z = (t - shift) / scale`` where ``t`` is ``results.transform(newdata, d)`` (reduced
    predictors of a fit) or, without a fit, the predictor matrix of ``spec`` (no reduction).
    """

    def __init__(
        self,
        spec: Any,
        shift: np.ndarray,
        scale: np.ndarray,
        results: Any = None,
        d: int | None = None,
    ) -> None:
        self.spec, self.results, self.d = spec, results, d
        self.shift, self.scale = np.asarray(shift, float), np.asarray(scale, float)

    def raw(self, newdata: Any = None) -> tuple[np.ndarray, pd.Index]:
        if self.results is not None:
            frame = self.results.transform(newdata, d=self.d)
            return frame.to_numpy(), frame.index
        if newdata is None:
            return self.spec.X, self.spec.index
        X = self.spec.transform_x(newdata)
        index = newdata.index if isinstance(newdata, pd.DataFrame) else pd.RangeIndex(len(X))
        return X, index

    def __call__(self, newdata: Any = None) -> tuple[np.ndarray, pd.Index]:
        values, index = self.raw(newdata)
        return (values - self.shift) / self.scale, index


class ConditionalDensity(DensityQueries):
    """A conditional Gaussian mixture ``p(y | x)``; subclasses define the weights ``w_k(z)``.

    Parameters
    ----------
    features : Features
        Maps new rows to ``z``.
    means : ndarray (K, q)
        Component means on the original response scale.
    sd : ndarray (q,)
        Component standard deviations on the original response scale.
    y_names : list of str
    method : str
        Label shown in printouts and plots (e.g. ``"LSCE"``, ``"LSCDE"``, ``"eps-KDE"``).
    tuning : dict
        Chosen tuning parameters (σ, λ or ε, bandwidth) and CV scores.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
    >>> dens = fit.conditional_density(random_state=0)
    >>> isinstance(dens, sdr.ConditionalDensity), dens.y_names
    (True, ['lbm'])
    """

    def __init__(
        self,
        features: Features,
        means: np.ndarray,
        sd: np.ndarray,
        y_names: list[str],
        method: str,
        tuning: dict[str, Any],
    ) -> None:
        self.features = features
        self.means = np.asarray(means, dtype=float).reshape(len(means), -1)
        self.sd = np.asarray(sd, dtype=float).reshape(-1)
        self.y_names = list(y_names)
        self.method = method
        self.tuning = dict(tuning)
        #: Held-out criterion over the tuning grid (set by the estimators that search one).
        self.cv_grid: pd.DataFrame | None = None

    # -- the mixture ------------------------------------------------------------------------
    def _weights(self, Z: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def weights(self, newdata: Any = None) -> pd.DataFrame:
        """Mixture weights ``w_k(z)`` of each row (rows sum to one).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Returns
        -------
        pandas.DataFrame
            Rows x components.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.weights(ais.head(2)).sum(axis=1).round(6).tolist()
        [1.0, 1.0]
        """
        Z, index = self.features(newdata)
        return pd.DataFrame(self._weights(Z), index=index)

    @property
    def q(self) -> int:
        return self.means.shape[1]

    def _y_points(self, y: Any) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        if self.q == 1:
            return y.reshape(-1, 1)
        y = np.atleast_2d(y)
        if y.shape[1] != self.q:
            raise ValueError(
                f"y must have {self.q} columns ({self.y_names}) for this multivariate "
                f"response; got shape {y.shape}."
            )
        return y

    def _component_pdf(self, y: np.ndarray) -> np.ndarray:
        """``N(y_j; m_k, diag(s²))`` as an array (len(y), K)."""
        d2 = squared_distances(y / self.sd, self.means / self.sd)
        return np.exp(-0.5 * d2 - np.log(np.sqrt(2 * np.pi) * self.sd).sum())

    def pdf(self, y: Any, newdata: Any = None) -> np.ndarray:
        """Density of each value of ``y`` for each row of ``newdata``: array rows x len(y).

        ``y`` is a 1-D array for one response, an array (m, q) for ``q`` responses.

        Parameters
        ----------
        y : array-like of shape (m,) or (m, q)
            Response values at which to evaluate the density.
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Returns
        -------
        ndarray of shape (rows, m)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.pdf([55, 65], ais.head(2)).round(3)
        array([[0.   , 0.019],
               [0.037, 0.   ]])
        """
        w = self._weights(self.features(newdata)[0])
        return w @ self._component_pdf(self._y_points(y)).T

    def pdf_at(self, y: Any, newdata: Any = None) -> np.ndarray:
        """Density of row ``i``'s own value ``y[i]``: an array of length rows.

        Parameters
        ----------
        y : array-like of shape (rows,) or (rows, q)
            One response value per row of ``newdata``.
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Returns
        -------
        ndarray of shape (rows,)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.pdf_at(ais["lbm"].head(2), ais.head(2)).round(2)
        array([0.14, 0.16])
        """
        w = self._weights(self.features(newdata)[0])
        y = self._y_points(y)
        if len(y) != len(w):
            raise ValueError(f"y has {len(y)} values but there are {len(w)} rows.")
        std = (y[:, None, :] - self.means[None, :, :]) / self.sd
        comp = np.exp(-0.5 * (std**2).sum(-1)) / np.prod(np.sqrt(2 * np.pi) * self.sd)
        return (w * comp).sum(axis=1)

    def cdf(self, y: Any, newdata: Any = None) -> np.ndarray:
        """``P(Y <= y | x)`` (componentwise for several responses): array rows x len(y).

        Parameters
        ----------
        y : array-like of shape (m,) or (m, q)
            Response values.
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Returns
        -------
        ndarray of shape (rows, m)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.cdf([55, 65], ais.head(2)).round(2)
        array([[0.  , 0.99],
               [0.02, 1.  ]])
        """
        w = self._weights(self.features(newdata)[0])
        y = self._y_points(y)
        logc = log_ndtr((y[:, None, :] - self.means[None, :, :]) / self.sd).sum(-1)
        return w @ np.exp(logc).T

    def _frame(self, values: np.ndarray, index: pd.Index) -> pd.Series | pd.DataFrame:
        if self.q == 1:
            return pd.Series(values[:, 0], index=index, name=self.y_names[0])
        return pd.DataFrame(values, index=index, columns=self.y_names)

    def mean(self, newdata: Any = None) -> pd.Series | pd.DataFrame:
        """Conditional mean ``E(y | x)`` (a Series; a DataFrame for several responses).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.mean(ais.head(2)).round(1).tolist()
        [61.3, 57.7]
        """
        Z, index = self.features(newdata)
        return self._frame(self._weights(Z) @ self.means, index)

    def var(self, newdata: Any = None) -> pd.Series | pd.DataFrame:
        """Conditional variance of each response (a Series; a DataFrame for several).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> bool((dens.var(ais.head(2)) > 0).all())
        True
        """
        Z, index = self.features(newdata)
        w = self._weights(Z)
        mean = w @ self.means
        return self._frame(w @ (self.means**2) + self.sd**2 - mean**2, index)

    def __repr__(self) -> str:
        tune = ", ".join(
            f"{k} = {v:.4g}" for k, v in self.tuning.items() if isinstance(v, (int, float))
        )
        return (
            f"<ConditionalDensity: {self.method} of {', '.join(self.y_names)}, "
            f"{len(self.means)} components; {tune}>"
        )


__all__ = ["ConditionalDensity", "Features"]
