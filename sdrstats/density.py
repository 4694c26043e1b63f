"""Conditional densities of the response given (reduced) predictors.

Every estimator here (LSCE's own, LSCDE at a fixed projection, ε-KDE) yields a Gaussian
mixture in ``y`` whose weights depend on the predictors:

.. math:: \\hat p(y \\mid z) = \\sum_k w_k(z)\\, N(y;\\, m_k,\\, \\mathrm{diag}(s^2)),

so :class:`ConditionalDensity` computes pdf, cdf, mean, variance, quantiles and samples
exactly, on the original ``y`` scale (the estimators work on standardised ``y``; a density in
standardised units is divided by the response scales). ``conditional_density_for`` is the hook
``Results.conditional_density`` calls; :func:`lscde` and :func:`eps_kde` are the formula front.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import log_ndtr, ndtr

ESTIMATORS = ("lscde", "eps_kde")


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


class ConditionalDensity:
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
        from .lsce.basis import squared_distances

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

    def quantile(
        self, newdata: Any = None, q: Any = (0.1, 0.5, 0.9), response: int | str = 0
    ) -> pd.DataFrame:
        """Conditional quantiles (of one response's marginal): DataFrame rows x probabilities.

        Solved by bisection on the exact mixture cdf to machine precision.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        q : sequence of float, default (0.1, 0.5, 0.9)
            Probabilities strictly between 0 and 1.
        response : int or str, default 0
            Which response (position or name) for a multivariate response.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.quantile(ais.head(2), q=[0.1, 0.5, 0.9]).round(1)
            0.1   0.5   0.9
        0  59.2  61.2  63.6
        1  55.9  57.5  59.9
        """
        probs = np.atleast_1d(np.asarray(q, dtype=float))
        if np.any((probs <= 0) | (probs >= 1)):
            raise ValueError(f"Quantile probabilities must lie strictly in (0, 1); got {q!r}.")
        j = self.y_names.index(response) if isinstance(response, str) else int(response)
        Z, index = self.features(newdata)
        w = self._weights(Z)
        m, s = self.means[:, j], self.sd[j]
        lo = np.full((len(w), len(probs)), m.min() - 40 * s)
        hi = np.full_like(lo, m.max() + 40 * s)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            below = np.einsum("ik,ipk->ip", w, ndtr((mid[:, :, None] - m) / s)) < probs
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
            if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(np.abs(mid), s)):
                break
        return pd.DataFrame(0.5 * (lo + hi), index=index, columns=list(probs))

    def sample(self, newdata: Any = None, size: int = 1, random_state: Any = None) -> np.ndarray:
        """Draws from ``p(y | x)``: array rows x size (x q for several responses).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        size : int, default 1
            Draws per row.
        random_state : int, Generator or None, default None
            Seed of the draws.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.sample(ais.head(2), size=3, random_state=0).shape
        (2, 3)
        """
        rng = np.random.default_rng(random_state)
        w = self._weights(self.features(newdata)[0])
        cum = np.cumsum(w, axis=1)
        u = rng.random((len(w), size)) * cum[:, -1:]
        comp = np.minimum((u[:, :, None] > cum[:, None, :]).sum(-1), w.shape[1] - 1)
        draws = self.means[comp] + self.sd * rng.standard_normal((len(w), size, self.q))
        return draws[..., 0] if self.q == 1 else draws

    def integral_of_square(self, newdata: Any = None) -> np.ndarray:
        """``∫ p(y | x)² dy`` of each row (exact for the mixture).

        Parameters
        ----------
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
        >>> dens.integral_of_square(ais.head(2)).round(2)
        array([0.16, 0.2 ])
        """
        w = self._weights(self.features(newdata)[0])
        diff = (self.means[:, None, :] - self.means[None, :, :]) / (np.sqrt(2) * self.sd)
        pair = np.exp(-0.5 * (diff**2).sum(-1)) / np.prod(2 * np.sqrt(np.pi) * self.sd)
        return ((w @ pair) * w).sum(axis=1)

    def squared_loss(self, newdata: Any, y: Any = None) -> float:
        """The seed's Error_CDE: ``(1/2n') Σ ∫ p̂(y|x̃_i)² dy - (1/n') Σ p̂(ỹ_i|x̃_i)``.

        ``y`` defaults to the response column(s) of ``newdata``.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like
            Test rows of predictors (and the response, unless ``y`` is given).
        y : array-like, optional
            Response values of the test rows.

        Returns
        -------
        float
            Smaller is better; negative for a useful density.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> round(dens.squared_loss(ais.tail(50)), 2)
        -0.1
        """
        if y is None:
            missing = [c for c in self.y_names if c not in getattr(newdata, "columns", [])]
            if missing:
                raise ValueError(f"newdata lacks the response column(s) {missing}; pass y=.")
            y = newdata[self.y_names].to_numpy(dtype=float)
        return float(0.5 * self.integral_of_square(newdata).mean() - self.pdf_at(y, newdata).mean())

    def default_grid(self, num: int = 200, response: int = 0) -> np.ndarray:
        """Evenly spaced response values covering every component (± 4 sd).

        Parameters
        ----------
        num : int, default 200
            Number of values.
        response : int, default 0
            Which response, for a multivariate one.

        Returns
        -------
        ndarray of shape (num,)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.default_grid(num=5).round(1)
        array([ 34.4,  52.3,  70.2,  88. , 105.9])
        """
        m, s = self.means[:, response], self.sd[response]
        return np.linspace(m.min() - 4 * s, m.max() + 4 * s, num)

    def predict(self, newdata: Any = None, y_grid: Any = None) -> pd.DataFrame:
        """Tidy DataFrame (row, response value(s), density) over ``y_grid``.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        y_grid : array-like, optional
            Response values; default 200 points covering every component (± 4 sd).

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.predict(ais.head(1), y_grid=[55, 65]).round(3)
           row   lbm  density
        0    0  55.0    0.000
        1    0  65.0    0.019
        """
        y_grid = self.default_grid() if y_grid is None else y_grid
        points = self._y_points(y_grid)
        _, index = self.features(newdata)
        dens = self.pdf(points, newdata)
        out = pd.DataFrame({"row": np.repeat(np.asarray(index), len(points))})
        for j, name in enumerate(self.y_names):
            out[name] = np.tile(points[:, j], len(index))
        out["density"] = dens.ravel()
        return out

    def plot(self, newdata: Any = None, y_grid: Any = None, ax: Any = None) -> Any:
        """Density curves of the rows of ``newdata`` (first response's marginal).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        y_grid : array-like, optional
            Response values; default 200 points covering every component.
        ax : matplotlib Axes, optional
            Where to draw; default a new figure.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> ax = dens.plot(ais.head(3))
        """
        from .plotting_density import plot_conditional_density

        return plot_conditional_density(self, newdata, y_grid=y_grid, ax=ax)

    def __repr__(self) -> str:
        tune = ", ".join(
            f"{k} = {v:.4g}" for k, v in self.tuning.items() if isinstance(v, (int, float))
        )
        return (
            f"<ConditionalDensity: {self.method} of {', '.join(self.y_names)}, "
            f"{len(self.means)} components; {tune}>"
        )


class MixtureWeightsLSCDE(ConditionalDensity):
    """LSCDE / LSCE weights ``w_k(z) ∝ α̃_k exp(-||z - u_k||²/2σ²)`` (seed eq. 10)."""

    def __init__(
        self, features: Features, centres_z: np.ndarray, alpha: np.ndarray, sigma: float, **kw: Any
    ) -> None:
        super().__init__(features, **kw)
        keep = np.asarray(alpha) > 0
        if not keep.any():
            raise ValueError(
                "Every basis weight is <= 0, so the density is undefined; "
                "try a larger 'lambda_grid' or more data."
            )
        self.centres_z, self.log_alpha = centres_z[keep], np.log(np.asarray(alpha)[keep])
        self.means, self.sigma = self.means[keep], float(sigma)

    def _weights(self, Z: np.ndarray) -> np.ndarray:
        from .lsce.basis import squared_distances

        # In logs, so rows far from every centre still get the nearest components.
        logw = self.log_alpha - squared_distances(Z, self.centres_z) / (2 * self.sigma**2)
        logw -= logw.max(axis=1, keepdims=True)
        w = np.exp(logw)
        return w / w.sum(axis=1, keepdims=True)


class NeighbourWeights(ConditionalDensity):
    """ε-KDE weights: equal on training rows with ``||z - z_j|| <= ε`` (all rows if none)."""

    def __init__(self, features: Features, train_z: np.ndarray, eps: float, **kw: Any) -> None:
        super().__init__(features, **kw)
        self.train_z, self.eps = train_z, float(eps)

    def _weights(self, Z: np.ndarray) -> np.ndarray:
        from .lsce.basis import squared_distances

        w = (squared_distances(Z, self.train_z) <= self.eps**2).astype(float)
        w[w.sum(axis=1) == 0] = 1.0
        return w / w.sum(axis=1, keepdims=True)


def conditional_density_for(
    results: Any, estimator: str = "lscde", **options: Any
) -> ConditionalDensity:
    """Conditional density of a fit's response given its reduced predictors.

    Parameters
    ----------
    results : Results
        Any SDR fit with a continuous response.
    estimator : {"lscde", "eps_kde"}
    **options
        ``d`` (default the fit's), ``random_state`` and the estimator's options
        (:func:`sdrstats.lsce.cde.fit_lscde`, :func:`sdrstats.lsce.cde.fit_eps_kde`).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais, nslices=6, d=1)
    >>> dens = fit.conditional_density("lscde", random_state=0)
    >>> round(float(dens.mean(ais.iloc[:1]).iloc[0]), 1) > 0
    True
    """
    from .lsce.cde import fit_density

    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}; got {estimator!r}.")
    if results.spec.categorical:
        raise ValueError(
            f"A conditional density needs a continuous response; {results.spec.y_names} is "
            "categorical (class probabilities are not densities)."
        )
    d = int(options.pop("d", results.d))
    reduced = results.transform(d=d).to_numpy()
    shift, scale = reduced.mean(axis=0), reduced.std(axis=0, ddof=1)
    if np.any(scale <= 0):
        raise ValueError("A reduced predictor of this fit is constant; no density can use it.")
    features = Features(results.spec, shift, scale, results=results, d=d)
    return fit_density(
        estimator,
        features,
        results.spec.Y,
        results.spec.y_names,
        label=f"{results.method}/{estimator}",
        **options,
    )


__all__ = ["ConditionalDensity", "Features", "conditional_density_for"]
