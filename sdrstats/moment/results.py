"""Results of the moment methods: R ``dr``'s predictor tests on top of the common contract."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.persistence import StateError
from ..results.fitted import DimensionTest, Results
from ._core import SliceMoments, Standardized


class MomentResults(Results):
    """Results of a moment method; adds R ``dr``'s predictor tests where the method has them.

    Built by :func:`sir`, :func:`save`, :func:`phd`, :func:`dr` and :func:`cume`, from rows
    in memory or from chunked or Dask data (then its spec keeps no rows: what needs only the
    accumulated statistics works as in memory; what needs the rows says to load them); the
    constructor's parameters are those of :class:`sdrstats.Results`.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`.

    See Also
    --------
    sir, save, phd, directional_regression, cume : The methods that return it.
    sdrstats.moment.predictor_tests.CoordinateTest : What ``coordinate_test`` returns.

    References
    ----------
    :cite:t:`weisberg2002`; :cite:t:`li1991`; :cite:t:`cook2004`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> type(fit).__name__, fit.d
    ('MomentResults', 1)
    """

    def _shown_directions(self) -> int:
        return int(self.options["d_max"] or self.d)  # R dr prints numdir directions

    def _method_line(self) -> str:
        """R's Method line; a partial fit (``group=``) names the group, its levels, their
        slices and sizes."""
        ex = self.output.extras
        if "group_levels" not in ex:
            return super()._method_line()
        slices = " ".join(str(len(s)) for s in ex["group_slice_sizes"])
        sizes = " ".join(str(k) for k in ex["group_n"])
        pooled = ", pooled covariance" if self.options.get("pool") else ""
        return (
            f"partial {self.estimator.label} (group {self.options['group']}: "
            f"{', '.join(map(str, ex['group_levels']))}{pooled}) with {slices} slices, "
            f"n = {sizes}{self._chunks_note()}."
        )

    def _prepared(self) -> tuple[Standardized, SliceMoments | None]:
        """Standardised data and slice moments of the fit: recomputed from the rows (not
        stored), or those a fit on chunked data accumulated (it keeps no rows)."""
        if not self.spec.keeps_rows:
            return self.output.extras["prepared"]
        if not hasattr(self, "_prepared_cache"):
            self._prepared_cache = self.estimator.prepare_spec(self.spec)
        return self._prepared_cache

    def general_test_cache(self) -> dict[int, tuple[float, float]]:
        """What SAVE's general-theory p-values need, by hypothesis ``m``, once computed.

        The fit does not compute them (its ``d`` is read from the normal-theory p-values);
        the first table, summary or ``d_choice`` that shows them fills this from the fit's own
        rows (or the pair moments a fit on chunks accumulated), and later ones read it. Saved
        and pickled with the fit: it depends on nothing but the fit.

        Returns
        -------
        dict
            ``m -> (tr Σ_m, tr Σ_m²)``; empty until first asked.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.save("lbm ~ log(wt) + log(ht) + log(hg)", sdr.datasets.load("ais"))
        >>> len(fit.general_test_cache())
        0
        >>> table = fit.test_dimension().table
        >>> sorted(fit.general_test_cache()) == list(range(len(table)))
        True
        """
        cache = self.__dict__.get("_general_traces")
        if cache is None:
            cache = self.__dict__["_general_traces"] = {}
        return cache

    @property
    def d_choice(self) -> DimensionTest | None:
        """The result of the rule that chose ``d`` (None when ``d`` was given).

        SAVE's asymptotic rule reads the normal-theory p-values only; the general-theory
        column joins its table here as :meth:`test_dimension` adds it (when computed before,
        or predicted to be cheap), so ``fit.d_choice`` prints R's two columns.
        """
        choice = self.__dict__.get("d_choice")
        shown = getattr(self.estimator, "dimension_choice", None)
        if choice is None or shown is None:
            return choice
        return shown(self, choice)

    @d_choice.setter
    def d_choice(self, value: DimensionTest | None) -> None:
        self.__dict__["d_choice"] = value

    def _rule_options(self, rule: str) -> dict[str, Any]:
        """The d rule needs only SAVE's normal-theory p-values (not its general ones)."""
        if rule == "asymptotic" and hasattr(self.estimator, "dimension_choice"):
            return {"general": False}
        return {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_prepared_cache", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        cache = state.get("_general_traces")
        if cache is not None and not (
            isinstance(cache, dict)
            and all(
                isinstance(m, int)
                and isinstance(v, tuple)
                and len(v) == 2
                and all(isinstance(x, float) and np.isfinite(x) for x in v)
                for m, v in cache.items()
            )
        ):
            raise StateError("results._general_traces must map hypotheses to two finite numbers.")
        self.__dict__.update(state)

    # Predictor tests (R dr's dr.coordinate.test, drop1.dr, dr.step): thin delegations to
    # sdrstats.moment.predictor_tests, which documents the methods and hypotheses.
    def coordinate_test(
        self,
        hypothesis: Any,
        d: int | None = None,
        *,
        weights: str = "general",
        chi2approx: str = "bx",
    ) -> Any:
        """Test that the predictors ``hypothesis`` drops have no effect.

        See :func:`sdrstats.moment.predictor_tests.coordinate_test`. SIR's p-values are
        labelled by the weights that produced them (R dr 3.0.x swaps these two labels).

        Parameters
        ----------
        hypothesis : str, list of str or array-like
            ``"~ . - log(hg)"`` (R's update syntax), predictor names to drop, or a matrix
            ``γ`` (p x (p - r)) whose columns span what is kept (R's convention).
        d : int, optional
            Test conditional on dimension ``d``; default None, the marginal test.
        weights : str, default "general"
            Which p-value is ``p_value``: ``"general"``, ``"restricted"`` (SIR) or
            ``"normal"`` (SAVE).
        chi2approx : {"bx", "wood"}, default "bx"
            Approximation of a weighted sum of χ²₁ (Bentler–Xie or Wood 1989).

        Returns
        -------
        CoordinateTest
            Statistic, degrees of freedom and p-values.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> test = fit.coordinate_test("~ . - log(hg)")
        >>> round(test.statistic, 2), test.weights
        (18.23, 'general')
        """
        from .predictor_tests import coordinate_test

        return coordinate_test(self, hypothesis, d=d, weights=weights, chi2approx=chi2approx)

    def drop1(
        self,
        scope: Any = None,
        d: int | None = None,
        *,
        weights: str = "general",
        chi2approx: str = "bx",
    ) -> pd.DataFrame:
        """Coordinate test for dropping each predictor; see :func:`~.predictor_tests.drop1`.

        Parameters
        ----------
        scope : str or list of str, optional
            Predictors that are never candidates for dropping (a one-sided formula or
            names); default none.
        d : int, optional
            Conditional test of that dimension; default the marginal test.
        weights, chi2approx : optional
            As :meth:`coordinate_test`; for SIR, ``weights="restricted"`` reproduces R's
            ``drop1.dr`` table and ranking.

        Returns
        -------
        pandas.DataFrame
            One row per candidate predictor (``statistic``, ``df`` where defined, ``p_value``
            and the other p-values), sorted by decreasing ``p_value`` as R sorts it.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.drop1()["statistic"].round(2)
        predictor
        log(ht)      9.49
        log(hg)     18.23
        log(ssf)    26.86
        log(wt)     47.42
        Name: statistic, dtype: float64
        """
        from .predictor_tests import drop1

        return drop1(self, scope=scope, d=d, weights=weights, chi2approx=chi2approx)

    def step(
        self,
        scope: Any = None,
        d: int | None = None,
        *,
        minsize: int = 2,
        stop: float = 0.0,
        weights: str = "general",
        chi2approx: str = "bx",
    ) -> Any:
        """Backward elimination by coordinate tests; see :func:`~.predictor_tests.step`.

        Parameters
        ----------
        scope : str or list of str, optional
            Predictors that are never removed; default none.
        d : int, optional
            Conditional tests of that dimension; default marginal tests.
        minsize : int, default 2
            Stop when this many predictors remain (as R).
        stop : float, default 0.0
            Stop when every candidate's p-value is below ``stop`` (0: never, as R).
        weights, chi2approx : optional
            As :meth:`coordinate_test`.

        Returns
        -------
        StepResult
            The removals in order and the predictors kept.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> print(fit.step(minsize=3))
        Backward elimination (sir):
          removed statistic  p_value
        0 log(ht)     9.495 0.02917
        Kept: ['log(ssf)', 'log(wt)', 'log(hg)']
        """
        from .predictor_tests import step

        return step(
            self,
            scope=scope,
            d=d,
            minsize=minsize,
            stop=stop,
            weights=weights,
            chi2approx=chi2approx,
        )
