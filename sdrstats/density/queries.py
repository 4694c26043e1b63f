"""What a conditional density answers beyond its pdf, cdf and moments: quantiles, samples,
the integrated squared density and loss, a default grid, predictions and plots.

:class:`DensityQueries` is a mixin of :class:`~sdrstats.density.ConditionalDensity`; it uses
only the mixture's pieces (``features``, ``_parts``, ``means``, ``component_sd``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ..base.parallel import as_seed_sequence, call_seed
from ..base.persistence import Registered


class DensityQueries(Registered):  # fitted densities can be saved as data
    """Quantiles, samples, losses, predictions and plots of a conditional Gaussian mixture."""

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
        0  59.4  61.0  62.8
        1  56.4  58.0  59.7
        """
        probs = np.atleast_1d(np.asarray(q, dtype=float))
        if np.any((probs <= 0) | (probs >= 1)):
            raise ValueError(f"Quantile probabilities must lie strictly in (0, 1); got {q!r}.")
        j = self._response_index(response)
        parts = self._parts(newdata)
        w = parts.w
        # In component units: a location-scale density's quantile is loc + scale x that.
        m, s = self.means[:, j], self._sds[:, j]
        lo = np.full((len(w), len(probs)), m.min() - 40 * s.max())
        hi = np.full_like(lo, m.max() + 40 * s.max())
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            below = np.einsum("ik,ipk->ip", w, ndtr((mid[:, :, None] - m) / s)) < probs
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
            if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(np.abs(mid), s.min())):
                break
        values = 0.5 * (lo + hi)
        if parts.loc is not None:
            values = parts.loc[:, j, None] + parts.scale[:, j, None] * values
        return pd.DataFrame(values, index=parts.index, columns=list(probs))

    def interval(
        self,
        newdata: Any = None,
        level: float = 0.8,
        *,
        conformal: Any = None,
        weighted: bool = False,
        response: int | str = 0,
    ) -> pd.DataFrame:
        """Prediction intervals: the density's central interval, or split-conformal.

        Without ``conformal`` the central ``level`` interval of ``p(y | x)`` (its
        ``(1 - level)/2`` and ``(1 + level)/2`` quantiles): right as far as the density is.
        With calibration rows, conformalized quantile regression (Romano, Patterson and
        Candès 2019): widened (or narrowed) by the calibration rows' scores so that it
        covers a new response with probability at least ``level`` whatever the density,
        for exchangeable rows (:class:`~sdrstats.density.conformal.ConformalIntervals`).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        level : float, default 0.8
            Nominal coverage.
        conformal : pandas.DataFrame or ConformalIntervals, optional
            Calibration rows with the response, not used in the fit (or intervals already
            calibrated by :meth:`conformal`, whose level and form are then used).
        weighted : bool, default False
            The locally weighted form: the correction is scaled by the density's own
            interval width at each row (Lei et al. 2018).
        response : int or str, default 0
            Which response, for a multivariate one.

        Returns
        -------
        pandas.DataFrame
            Columns ``lower`` and ``upper``, one row per row of ``newdata``.

        References
        ----------
        Romano, Y., Patterson, E. and Candès, E. J. Conformalized quantile regression.
        Advances in Neural Information Processing Systems 32, 2019.

        Lei, J., G'Sell, M., Rinaldo, A., Tibshirani, R. J. and Wasserman, L.
        Distribution-free predictive inference for regression. Journal of the American
        Statistical Association 113(523), 2018.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[:120], nslices=6, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.interval(ais.iloc[160:163], 0.8).shape
        (3, 2)
        >>> band = dens.interval(ais.iloc[160:], 0.8, conformal=ais.iloc[120:160])
        >>> band.columns.tolist()
        ['lower', 'upper']
        """
        from .conformal import ConformalIntervals, density_interval

        if conformal is None:
            return density_interval(self, newdata, level, response)
        if not isinstance(conformal, ConformalIntervals):
            conformal = ConformalIntervals(self, conformal, level, weighted, response)
        return conformal.interval(newdata)

    def conformal(
        self,
        calibration: Any,
        level: float = 0.8,
        weighted: bool = False,
        response: int | str = 0,
    ) -> Any:
        """Split-conformal intervals calibrated on held-out rows (reusable on new rows).

        Parameters
        ----------
        calibration : pandas.DataFrame
            Rows with the predictors and the response, not used to fit the density or the
            reduction it sits on.
        level : float, default 0.8
            Nominal coverage.
        weighted : bool, default False
            The locally weighted form (scores divided by the density's interval width).
        response : int or str, default 0
            Which response, for a multivariate one.

        Returns
        -------
        ConformalIntervals
            ``interval(newdata)``, ``adjustment``, ``scores``, ``m``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[:120], nslices=6, d=1)
        >>> conf = fit.conditional_density(random_state=0).conformal(ais.iloc[120:], 0.9)
        >>> conf.level, conf.m
        (0.9, 82)
        """
        from .conformal import ConformalIntervals

        return ConformalIntervals(self, calibration, level, weighted, response)

    def _response_index(self, response: int | str) -> int:
        if isinstance(response, str):
            if response not in self.y_names:
                raise ValueError(f"response {response!r} is not one of {self.y_names}.")
            return self.y_names.index(response)
        j = int(response)
        if not 0 <= j < self.q:
            raise ValueError(f"response must be in 0..{self.q - 1}; got {response!r}.")
        return j

    def sample(self, newdata: Any = None, size: int = 1, random_state: Any = None) -> np.ndarray:
        """Draws from ``p(y | x)``: array rows x size (x q for several responses).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        size : int, default 1
            Draws per row.
        random_state : int, Generator or None, default None
            Seed of these draws. By default they are the next numbers of the density's own
            ``"sample"`` stream, derived from its seed (itself derived from the fit's): a
            script run twice prints the same draws, and repeated calls give new ones.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.sample(ais.head(2), size=3, random_state=0).shape
        (2, 3)
        """
        rng = (
            self._sample_generator()
            if random_state is None
            else (np.random.default_rng(random_state))
        )
        parts = self._parts(newdata)
        w = parts.w
        cum = np.cumsum(w, axis=1)
        u = rng.random((len(w), size)) * cum[:, -1:]
        comp = np.minimum((u[:, :, None] > cum[:, None, :]).sum(-1), w.shape[1] - 1)
        draws = self.means[comp] + self._sds[comp] * rng.standard_normal((len(w), size, self.q))
        if parts.loc is not None:
            draws = parts.loc[:, None, :] + parts.scale[:, None, :] * draws
        return draws[..., 0] if self.q == 1 else draws

    def _sample_generator(self) -> np.random.Generator:
        """The generator of the density's ``"sample"`` stream, made at the first draw."""
        rng = getattr(self, "_sample_rng", None)
        if rng is None:
            seed = call_seed(self, None, "sample")
            rng = self._sample_rng = np.random.default_rng(as_seed_sequence(seed))
        return rng

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
        array([0.21, 0.22])
        """
        parts = self._parts(newdata)
        w = parts.w
        if self._common_sd:
            s = self.component_sd
            diff = (self.means[:, None, :] - self.means[None, :, :]) / (np.sqrt(2) * s)
            pair = np.exp(-0.5 * (diff**2).sum(-1)) / np.prod(2 * np.sqrt(np.pi) * s)
        else:
            var = self._sds[:, None, :] ** 2 + self._sds[None, :, :] ** 2
            diff2 = (self.means[:, None, :] - self.means[None, :, :]) ** 2 / var
            pair = np.exp(-0.5 * diff2.sum(-1)) / np.prod(np.sqrt(2 * np.pi * var), axis=-1)
        values = ((w @ pair) * w).sum(axis=1)
        # ∫ p(y)² dy of y = loc + scale·e is ∫ p_e(e)² de / Π scale.
        return values if parts.scale is None else values / np.prod(parts.scale, axis=1)

    def squared_loss(self, newdata: Any, y: Any = None) -> float:
        """The squared-loss error Error_CDE of Tangkaratt, Xie & Sugiyama (2015): ``(1/2n') Σ ∫ p̂(y|x̃_i)² dy - (1/n') Σ p̂(ỹ_i|x̃_i)``.

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
        return float(0.5 * self.integral_of_square(newdata).mean() - self.pdf_at(newdata, y).mean())

    def default_grid(self, num: int = 200, response: int = 0, newdata: Any = None) -> np.ndarray:
        """Evenly spaced response values covering every component (± 4 sd) at the rows.

        Parameters
        ----------
        num : int, default 200
            Number of values.
        response : int, default 0
            Which response, for a multivariate one.
        newdata : pandas.DataFrame or array-like, optional
            Rows whose components the grid covers (default the training rows; only a
            location-scale density's components move with the rows).

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
        array([ 23.8,  45.2,  66.6,  88. , 109.4])
        """
        j = self._response_index(response)
        main = len(self.means) - self.n_tail
        m, s = self.means[:main, j], self._sds[:main, j]
        lo, hi = (m - 4 * s).min(), (m + 4 * s).max()
        parts = self._parts(newdata) if self._affine_rows() else None
        if parts is not None and parts.loc is not None:
            ends = parts.loc[:, j, None] + parts.scale[:, j, None] * np.array([lo, hi])
            lo, hi = ends[:, 0].min(), ends[:, 1].max()
        return np.linspace(lo, hi, num)

    def _affine_rows(self) -> bool:
        """Whether the components move with the rows (a location-scale density)."""
        return False

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
        1    0  65.0    0.006
        """
        y_grid = self.default_grid(newdata=newdata) if y_grid is None else y_grid
        points = self._y_points(y_grid)
        parts = self._parts(newdata)
        index = parts.index
        dens = self._pdf_parts(parts, points)
        out = pd.DataFrame({"row": np.repeat(np.asarray(index), len(points))})
        for j, name in enumerate(self.y_names):
            out[name] = np.tile(points[:, j], len(index))
        out["density"] = dens.ravel()
        return out

    def summary(self) -> Any:
        """The model, how it was chosen, its held-out log score, tuning and CV scores.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais, nslices=6, d=1)
        >>> print(fit.conditional_density(random_state=0).summary())  # doctest: +ELLIPSIS
        <BLANKLINE>
        Density:
        sir/lscde of lbm given 1 reduced predictor(s).
        <BLANKLINE>
        Model:
        ...
        """
        from ..base.tables import Block, Summary
        from .describe import density_blocks

        d = self.features.d if self.features.results is not None else None
        given = (
            f"{d} reduced predictor(s)"
            if d is not None
            else ", ".join(getattr(self.features.spec, "x_names", []))
        )
        head = Block("Density", text=f"{self.method} of {', '.join(self.y_names)} given {given}.")
        return Summary([head, *density_blocks(self)])

    def calibration(self, newdata: Any, response: int | str = 0, by: Any = "local") -> Any:
        """Calibration of the density on rows whose responses are known.

        The probability integral transform ``u_i = F(y_i | x_i)`` and a Kolmogorov-Smirnov
        test of its uniformity, the coverage of the central 50, 80 and 95 % intervals
        (overall and by thirds of the rows' local spread), the continuous ranked
        probability score (closed form for a Gaussian mixture, Grimit et al. 2006) and the
        mean log predictive density; both scores are proper (Gneiting and Raftery 2007).

        The local spread is the data's, not the model's: the mean absolute residual
        ``|y_j - ŷ_j|`` of each row's nearest other rows in all the predictors (whitened by
        the training rows' covariance; the number of neighbours by leave-one-out
        cross-validation). Thirds of the density's own predicted sd would look calibrated
        for a density that cannot see where the noise grows. When a third misses a nominal
        level by more than binomial error allows (exact binomial tests, Bonferroni over the
        nine thirds and levels at 1 %) a :class:`~sdrstats.CalibrationWarning` says where.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the predictors and the response column(s); rows not used in the fit,
            for an honest check.
        response : int or str, default 0
            The response whose PIT, intervals and CRPS are computed (several responses: its
            marginal; the log score is the joint density's).
        by : {"local", "predicted"} or array-like, default "local"
            What the thirds are thirds of: the local spread, the density's predicted sd, or
            one value per row of ``newdata`` (in a simulation, the true conditional sd).

        Returns
        -------
        Calibration
            With ``pit``, ``uniformity``, ``coverage``, ``off_nominal``, ``crps``,
            ``log_score``, ``summary()`` and ``plot()``.

        References
        ----------
        Gneiting, T. and Raftery, A. E. Strictly proper scoring rules, prediction, and
        estimation. Journal of the American Statistical Association 102(477), 2007.

        Grimit, E. P., Gneiting, T., Berrocal, V. J. and Johnson, N. A. The continuous
        ranked probability score for circular variables and its application to mesoscale
        forecast ensemble verification. Quarterly Journal of the Royal Meteorological
        Society 132, 2006.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[::2], nslices=6, d=1)
        >>> cal = fit.conditional_density(random_state=0).calibration(ais.iloc[1::2])
        >>> cal.coverage.index.tolist()  # doctest: +NORMALIZE_WHITESPACE
        ['overall', 'lowest third of local spread', 'middle third of local spread',
         'highest third of local spread']
        """
        from .calibration import calibrate

        return calibrate(self, newdata, response, by)

    def plot(
        self, newdata: Any = None, y_grid: Any = None, *, ax: Any = None, figsize: Any = None
    ) -> Any:
        """Density curves of the rows of ``newdata`` (first response's marginal).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the training rows).
        y_grid : array-like, optional
            Response values; default 200 points covering every component.
        ax : matplotlib Axes, optional
            Where to draw; default a new figure.
        figsize : tuple of float, optional
            Size of a new figure in inches; default one column (3.4 x 2.8).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
        >>> dens = fit.conditional_density(random_state=0)
        >>> fig = dens.plot(ais.head(3))
        """
        from ..plotting.density import plot_conditional_density

        return plot_conditional_density(self, newdata, y_grid=y_grid, ax=ax, figsize=figsize)


__all__ = ["DensityQueries"]
