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

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.special import log_ndtr, logsumexp, ndtr

from ..base.persistence import register
from ..stats.gaussian import squared_distances
from .deferred import TableAttribute, built
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

    def predictors(self, newdata: Any = None) -> np.ndarray:
        """The whole predictor matrix of ``newdata`` (default the training rows), as the
        formula built it: every predictor, not only the reduced ones."""
        spec = self.spec if self.results is None else self.results.spec
        return spec.X if newdata is None else spec.transform_x(newdata)


#: Elements of one block of a (rows x values x components) array.
BLOCK_ELEMENTS = 2_000_000


class Parts(NamedTuple):
    """The mixture at some rows: weights ``w`` (r x K) and, for a location-scale density,
    the per-row map ``y = loc + scale * e`` (``loc``, ``scale`` r x q; ``None`` when the
    components are the same at every row)."""

    w: np.ndarray
    loc: np.ndarray | None
    scale: np.ndarray | None
    index: pd.Index


class ConditionalDensity(DensityQueries):
    """A conditional Gaussian mixture ``p(y | x)``; subclasses define the weights ``w_k(z)``.

    .. math:: \\hat p(y \\mid z) = \\sum_k w_k(z)\\,
              N\\big(y;\\; a(z) + b(z)\\, m_k,\\; \\mathrm{diag}(b(z)^2 s^2)\\big)

    with ``a(z) = 0, b(z) = 1`` unless the density is a location-scale one (``a`` and ``b``
    then follow the predictors). Everything below is exact for the mixture.

    Parameters
    ----------
    features : Features
        Maps new rows to ``z``.
    means : ndarray (K, q)
        Component means ``m_k`` (original response scale unless the density maps them).
    sd : ndarray (q,) or (K, q)
        The components' standard deviations ``s`` (same scale as ``means``): common to
        all, or one row per component.
    y_names : list of str
        Names of the response columns.
    method : str
        Label shown in printouts and plots (e.g. ``"LSCE"``, ``"LSCDE"``, ``"eps-KDE"``).
    tuning : dict
        Chosen tuning parameters (σ, λ or ε, bandwidth) and CV scores.

    Attributes
    ----------
    means : ndarray (K, q)
    component_sd : ndarray (q,) or (K, q)
        The components' common sd, or one row per component when they differ.
    model : str
        ``"single"`` (one LSCDE width), ``"separate"`` (separate widths for ``z`` and
        ``y``), ``"location_scale"``, ``"lsce"`` (LSCE's own) or ``"eps_kde"``.
    model_choice : pandas.DataFrame or None
        Held-out mean log density of every candidate model, when the model was chosen.
    heldout_log_score : float or None
        The held-out (cross-validated) mean log density of this model.
    spread_directions : pandas.DataFrame or None
        For a location-scale density of a reduced fit whose spread changes along
        directions the fit's ``d`` directions miss: those directions (predictors x
        Spread1..k, unit columns). The density then uses ``d + k`` directions of the
        predictors: the fit's for the location and the mixture weights, these for the
        spread ``s(x)`` as well. ``None`` otherwise.

    See Also
    --------
    Results.conditional_density : The call that returns it.
    lscde : The density fitted on given predictors.

    References
    ----------
    :cite:t:`sugiyama2010`; :cite:t:`tangkaratt2015`.

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
        sd = np.asarray(sd, dtype=float)
        self.component_sd = sd.reshape(len(self.means), -1) if sd.ndim == 2 else sd.reshape(-1)
        self.y_names = list(y_names)
        self.method = method
        self.tuning = dict(tuning)
        #: Held-out criterion over the tuning grid (set by the estimators that search one).
        self.cv_grid: pd.DataFrame | None = None
        self.model = "single"
        #: Trailing components that only guard the tails (left out of default grids).
        self.n_tail = 0
        self.model_choice: pd.DataFrame | None = None
        self.heldout_log_score: float | None = None
        #: Folds of the cross-validation that tuned the model (None: not cross-validated).
        self.n_folds: int | None = None
        #: The density's seed: ``sample`` draws from a stream derived from it.
        self.random_state: Any = None
        self._sample_rng: np.random.Generator | None = None

    # Tables of the fit's choices, built when first read (:mod:`.deferred`).
    cv_grid = TableAttribute()
    model_choice = TableAttribute()
    width_choice = TableAttribute()
    scale_choice = TableAttribute()

    def __getstate__(self) -> dict[str, Any]:
        return {key: built(value) for key, value in self.__dict__.items()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Files written before the component sd was renamed hold it as "sd".
        if "sd" in state and "component_sd" not in state:
            state["component_sd"] = state.pop("sd")
        state.setdefault("model", "single")
        state.setdefault("model_choice", None)
        state.setdefault("heldout_log_score", None)
        state.setdefault("n_folds", None)
        state.setdefault("n_tail", 0)
        state.setdefault("random_state", None)
        state.setdefault("_sample_rng", None)
        self.__dict__.update(state)

    @property
    def spread_directions(self) -> pd.DataFrame | None:
        return None

    # -- the mixture ------------------------------------------------------------------------
    def _weights(self, Z: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _affine(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(loc, scale)`` (rows x q) of a location-scale density; ``None`` otherwise."""
        return None

    def _parts(self, newdata: Any = None) -> Parts:
        Z, index = self.features(newdata)
        affine = self._affine(Z)
        loc, scale = (None, None) if affine is None else affine
        return Parts(self._weights(Z), loc, scale, index)

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

    def components(self, newdata: Any = None) -> dict[str, np.ndarray]:
        """The mixture at each row on the response scale: weights, means and sds.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Returns
        -------
        dict
            ``"weights"`` (rows x K), ``"means"`` and ``"sd"`` (rows x K x q):
            ``p(y | x_i) = Σ_k weights[i, k] N(y; means[i, k], diag(sd[i, k]²))``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> parts = fit.conditional_density(random_state=0).components(ais.head(2))
        >>> parts["means"].shape == parts["sd"].shape
        True
        """
        w, loc, scale, _ = self._parts(newdata)
        rows = len(w)
        if loc is None:
            means = np.broadcast_to(self.means, (rows, *self.means.shape)).copy()
            sd = np.broadcast_to(self._sds, (rows, *self.means.shape)).copy()
        else:
            means = loc[:, None, :] + scale[:, None, :] * self.means[None, :, :]
            sd = scale[:, None, :] * self._sds[None, :, :]
        return {"weights": w, "means": means, "sd": sd}

    @property
    def _sds(self) -> np.ndarray:
        """The components' sds as a (K, q) array."""
        return np.broadcast_to(self.component_sd, self.means.shape)

    @property
    def _common_sd(self) -> bool:
        return self.component_sd.ndim == 1

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
        """``N(y_j; m_k, diag(s_k²))`` as an array (len(y), K)."""
        if self._common_sd:
            s = self.component_sd
            d2 = squared_distances(y / s, self.means / s)
            return np.exp(-0.5 * d2 - np.log(np.sqrt(2 * np.pi) * s).sum())
        S = self.component_sd
        std = (y[:, None, :] - self.means[None, :, :]) / S[None, :, :]
        return np.exp(-0.5 * (std**2).sum(-1) - np.log(np.sqrt(2 * np.pi) * S).sum(-1))

    def _row_blocks(self, rows: int, per_row: int):
        size = max(1, BLOCK_ELEMENTS // max(per_row * len(self.means), 1))
        for start in range(0, rows, size):
            yield slice(start, min(rows, start + size))

    def _pdf_parts(self, parts: Parts, y: np.ndarray) -> np.ndarray:
        w, loc, scale, _ = parts
        if loc is None:
            return w @ self._component_pdf(y).T
        out = np.empty((len(w), len(y)))
        if self._common_sd:
            s = self.component_sd
            mu = self.means / s
            for b in self._row_blocks(len(w), len(y)):
                e = (y[None, :, :] - loc[b, None, :]) / (scale[b, None, :] * s)  # (r, m, q)
                d2 = (
                    (e * e).sum(-1)[:, :, None]
                    + (mu * mu).sum(-1)[None, None, :]
                    - 2.0 * np.einsum("rmq,kq->rmk", e, mu)
                )
                dens = np.einsum("rk,rmk->rm", w[b], np.exp(-0.5 * np.maximum(d2, 0.0)))
                norm = np.prod(np.sqrt(2 * np.pi) * s * scale[b], axis=1)
                out[b] = dens / norm[:, None]
            return out
        S = self.component_sd
        log_norm = np.log(np.sqrt(2 * np.pi) * S).sum(-1)  # (K,)
        for b in self._row_blocks(len(w), len(y) * self.q):
            e = (y[None, :, :] - loc[b, None, :]) / scale[b, None, :]  # (r, m, q)
            std = (e[:, :, None, :] - self.means[None, None, :, :]) / S[None, None, :, :]
            comp = np.exp(-0.5 * (std**2).sum(-1) - log_norm)  # (r, m, K)
            out[b] = np.einsum("rk,rmk->rm", w[b], comp) / np.prod(scale[b], axis=1)[:, None]
        return out

    def _standardised(self, parts: Parts, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's own value in component units ``(y - loc) / scale`` (rows x q) and the
        log of the map's Jacobian (rows,)."""
        if parts.loc is None:
            return y, np.zeros(len(y))
        return (y - parts.loc) / parts.scale, -np.log(parts.scale).sum(axis=1)

    def _log_pdf_at_parts(self, parts: Parts, y: np.ndarray) -> np.ndarray:
        e, log_jac = self._standardised(parts, y)
        S = self._sds
        std = (e[:, None, :] - self.means[None, :, :]) / S[None, :, :]
        logc = -0.5 * (std**2).sum(-1) - np.log(np.sqrt(2 * np.pi) * S).sum(-1)
        with np.errstate(divide="ignore"):
            logw = np.log(parts.w)
        return logsumexp(logw + logc, axis=1) + log_jac

    def _query(
        self, name: str, newdata: Any, y: Any, own: bool = False
    ) -> tuple[Parts, np.ndarray, bool]:
        """The mixture at the rows of ``newdata`` and the response values asked for.

        Returns ``(parts, y, own)``: ``own`` is true when ``y`` is one value per row (given
        so, or taken from the response column(s) of ``newdata``) rather than values at which
        every row's density is wanted. Refuses the order ``(y, newdata)`` with the call to
        write instead.
        """
        if isinstance(y, pd.DataFrame) or (
            newdata is not None and not isinstance(newdata, pd.DataFrame) and np.ndim(newdata) == 1
        ):
            raise TypeError(
                f"{name} takes newdata first, then the response values: "
                f"dens.{name}(newdata, y) (the order of quantile(newdata, q) and "
                f"sample(newdata, size)); dens.{name}(y=values) evaluates at the training rows. "
                f"Got {type(newdata).__name__} first and {type(y).__name__} second."
            )
        if y is None:
            missing = [c for c in self.y_names if c not in getattr(newdata, "columns", [])]
            if missing:
                where = "the training rows" if newdata is None else "newdata"
                raise ValueError(
                    f"{name} needs response values: pass y= (dens.{name}(newdata, y)) or give "
                    f"{where} the response column(s) {missing}."
                )
            y, own = newdata[self.y_names].to_numpy(dtype=float), True
        parts = self._parts(newdata)
        y = self._y_points(y)
        if own and len(y) != len(parts.w):
            raise ValueError(
                f"y has {len(y)} values but newdata has {len(parts.w)} rows; {name} of each "
                f"row's own value needs one value per row."
            )
        return parts, y, own

    def pdf(self, newdata: Any = None, y: Any = None) -> np.ndarray:
        """Density of each row of ``newdata`` at the response values ``y``.

        ``y`` is a 1-D array for one response, an array (m, q) for ``q`` responses; the
        result is rows x m. Without ``y``, each row's density at its own response value,
        read from the response column(s) of ``newdata``: an array of length rows (as
        :meth:`pdf_at`).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        y : array-like of shape (m,) or (m, q), optional
            Response values at which to evaluate the density.

        Returns
        -------
        ndarray of shape (rows, m), or (rows,) without ``y``

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.pdf(ais.head(2), [55, 65]).shape
        (2, 2)
        >>> dens.pdf(ais.head(2).assign(lbm=60.0)).shape  # the response column's values
        (2,)
        """
        parts, y, own = self._query("pdf", newdata, y)
        if own:
            return np.exp(self._log_pdf_at_parts(parts, y))
        return self._pdf_parts(parts, y)

    def pdf_at(self, newdata: Any = None, y: Any = None) -> np.ndarray:
        """Density of row ``i`` at its own value ``y[i]``: an array of length rows.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        y : array-like of shape (rows,) or (rows, q), optional
            One response value per row; default the response column(s) of ``newdata``.

        Returns
        -------
        ndarray of shape (rows,)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> bool((dens.pdf_at(ais.head(2)) == dens.pdf_at(ais.head(2), ais["lbm"].head(2))).all())
        True
        """
        parts, y, _ = self._query("pdf_at", newdata, y, own=True)
        return np.exp(self._log_pdf_at_parts(parts, y))

    def log_pdf_at(self, newdata: Any = None, y: Any = None) -> np.ndarray:
        """Log density of row ``i`` at its own value ``y[i]``: the logarithmic score.

        Computed in logs throughout, so values far in a tail stay finite.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        y : array-like of shape (rows,) or (rows, q), optional
            One response value per row; default the response column(s) of ``newdata``.

        Returns
        -------
        ndarray of shape (rows,)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.log_pdf_at(ais.head(2)).shape
        (2,)
        """
        parts, y, _ = self._query("log_pdf_at", newdata, y, own=True)
        return self._log_pdf_at_parts(parts, y)

    def cdf(self, newdata: Any = None, y: Any = None) -> np.ndarray:
        """``P(Y <= y | x)`` of each row of ``newdata`` at the values ``y``: rows x len(y).

        Componentwise for several responses. Without ``y``, each row's cdf at its own
        response value from the response column(s) of ``newdata`` (the probability integral
        transform), an array of length rows.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        y : array-like of shape (m,) or (m, q), optional
            Response values.

        Returns
        -------
        ndarray of shape (rows, m), or (rows,) without ``y``

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.cdf(ais.head(2), [40, 100]).round(2)
        array([[0., 1.],
               [0., 1.]])
        """
        parts, y, own = self._query("cdf", newdata, y)
        w, loc, scale, _ = parts
        if own:
            e, _ = self._standardised(parts, y)
            s = self._sds[None, :, :]
            logc = log_ndtr((e[:, None, :] - self.means[None, :, :]) / s).sum(-1)
            return np.einsum("rk,rk->r", w, np.exp(logc))
        s = self.component_sd if self._common_sd else self.component_sd[None, :, :]
        if loc is None:
            logc = log_ndtr((y[:, None, :] - self.means[None, :, :]) / s).sum(-1)
            return w @ np.exp(logc).T
        out = np.empty((len(w), len(y)))
        for b in self._row_blocks(len(w), len(y) * self.q):
            e = (y[None, :, :] - loc[b, None, :]) / scale[b, None, :]  # (r, m, q)
            logc = log_ndtr((e[:, :, None, :] - self.means[None, None, :, :]) / s).sum(-1)
            out[b] = np.einsum("rk,rmk->rm", w[b], np.exp(logc))
        return out

    def _marginal_cdf_at(self, parts: Parts, y: np.ndarray, j: int) -> np.ndarray:
        """``P(Y_j <= y_i | x_i)`` of each row's own value (the PIT)."""
        e, _ = self._standardised(parts, y)
        z = (e[:, j, None] - self.means[None, :, j]) / self._sds[None, :, j]
        return np.einsum("rk,rk->r", parts.w, ndtr(z))

    def _frame(self, values: np.ndarray, index: pd.Index) -> pd.Series | pd.DataFrame:
        if self.q == 1:
            return pd.Series(values[:, 0], index=index, name=self.y_names[0])
        return pd.DataFrame(values, index=index, columns=self.y_names)

    def _moments(self, parts: Parts) -> tuple[np.ndarray, np.ndarray]:
        """Conditional mean and variance (rows x q) from the mixture's moments."""
        w, loc, scale, _ = parts
        mean = w @ self.means
        var = w @ (self.means**2 + self._sds**2) - mean**2
        if loc is None:
            return mean, var
        return loc + scale * mean, scale**2 * var

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
        [61.0, 58.0]
        """
        parts = self._parts(newdata)
        return self._frame(self._moments(parts)[0], parts.index)

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
        parts = self._parts(newdata)
        return self._frame(self._moments(parts)[1], parts.index)

    def std(self, newdata: Any = None) -> pd.Series | pd.DataFrame:
        """Conditional standard deviation of each response, ``sqrt(var(newdata))``.

        ``dens.sd(newdata)`` is the same.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).

        Examples
        --------
        >>> import numpy as np
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> bool(np.allclose(dens.sd(ais.head(3)), np.sqrt(dens.var(ais.head(3)))))
        True
        """
        parts = self._parts(newdata)
        return self._frame(np.sqrt(self._moments(parts)[1]), parts.index)

    def sd(self, newdata: Any = None) -> pd.Series | pd.DataFrame:
        """Conditional standard deviation of each response: :meth:`std` under R's name.

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
        >>> bool(dens.sd(ais.head(3)).equals(dens.std(ais.head(3))))
        True
        """
        return self.std(newdata)

    def __repr__(self) -> str:
        tune = ", ".join(
            f"{k} = {v:.4g}" for k, v in self.tuning.items() if isinstance(v, (int, float))
        )
        return (
            f"<ConditionalDensity: {self.method} of {', '.join(self.y_names)}, "
            f"{len(self.means)} components; {tune}>"
        )


__all__ = ["ConditionalDensity", "Features", "Parts"]
