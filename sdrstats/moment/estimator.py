"""The common path of the moment methods: options, slices, and the accumulator.

:class:`MomentEstimator` holds what SIR, SAVE, pHd, DR and CUME share: the slicing options, the
data checks, and every fit through the family's accumulator (:mod:`.statistics`): in memory
(``statistics_of``, the one-chunk case), from chunks and Dask (``fit_statistics``) and the
weighted bootstrap (``replicate_kernel``). A method adds its kernel ``M`` and, where R ``dr``
has one, its asymptotic test.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..base.validation import Interval, Options, check_int, too_few_rows_error
from ..fitting.estimator import Estimator, EstimatorOutput
from ..results.fitted import Results
from ..stats.slicing import default_nslices, make_slices
from ._core import SliceMoments, Standardized
from ._replicates import WeightedReplicates
from .case_weights import case_weighted_prepare
from .chunked import ChunkedResults, fit_sliced
from .chunked_bootstrap import ChunkedReplicates
from .chunked_weights import fit_sliced_weighted
from .results import MomentResults
from .statistics import MomentStatistics, SliceRule, output_from_kernel


class MomentEstimator(Estimator):
    """Common path of the moment methods (not used directly).

    Parameters
    ----------
    d_rule : {"asymptotic", "permutation", "ladle", "bootstrap", "ratio"}
        The rule that chooses ``d`` when it is not given: ``fit.d_rule`` names it,
        ``fit.d_choice`` keeps its table and ``fit.test_dimension()`` prints it again. Default
        ``"asymptotic"`` for SIR, SAVE, pHd and IRE: the method's large-sample test at level
        0.05, as R ``dr``'s summary (SAVE and pHd read their normal-theory p-values);
        ``"permutation"`` for directional regression and CUME, which have no large-sample
        test (Cook & Yin's
        test at level 0.05 with 199 permutations). Rules are described in
        ``docs/vocabulary.md``.
    random_state : int, SeedSequence or Generator, optional
        The fit's seed. The moment fits draw nothing themselves; the rules that resample,
        ``bootstrap()`` and ``conditional_density()`` draw from streams derived from it (a
        call's own ``random_state`` wins). None draws one, which the summary prints.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "nslices": [Interval(int, 2, None), None],
        "slice_function": [Options(("dr", "arc"))],
        "d_max": [Interval(int, 1, None)],
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("asymptotic", "permutation", "ladle", "bootstrap", "ratio"))],
        "cut_points": ["increasing", None],
        "random_state": ["random_state"],
    }
    #: R ``dr``'s name for ``d_max``, accepted as an alias.
    _option_aliases: ClassVar[dict[str, str]] = {"numdir": "d_max"}
    uses_slices: ClassVar[bool] = True
    second_moments: ClassVar[bool] = False
    by_abs: ClassVar[bool] = False
    #: The asymptotic test needs only the eigenvalues and slice sizes (works on chunked fits).
    asymptotic_test_from_statistics: ClassVar[bool] = False
    #: Chunked and Dask fits take R's case weights (a column named by ``weights=``).
    chunked_case_weights: ClassVar[bool] = False
    results_class = MomentResults
    chunked_results_class = ChunkedResults

    def __init__(
        self,
        *,
        nslices: int | None = None,
        slice_function: str = "dr",
        d_max: int = 4,
        d: int | None = None,
        d_rule: str = "asymptotic",
        cut_points: Any = None,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_options(self) -> None:
        rule = self.options["d_rule"]
        if rule == "asymptotic" and not self.capabilities.asymptotic_test:
            raise ValueError(
                f"The 'd_rule' option of {self.method} cannot be 'asymptotic': {self.method} "
                "has no large-sample dimension test. Use 'permutation' (its default), 'ladle', "
                "'bootstrap' or 'ratio'."
            )

    def nslices_for(self, p: int) -> int:
        return self.options["nslices"] or default_nslices(p)

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        if n <= p:
            raise too_few_rows_error(self.method, n, p)
        d = self.options["d"]
        if d is not None and d > p:
            raise ValueError(f"The 'd' option of {self.method} must be at most p = {p}; got {d}.")
        if self.uses_slices and not categorical and self.options["cut_points"] is None:
            h = self.nslices_for(p)
            self.check_nslices(n, p, Y.reshape(n, -1).shape[1] > 1 or np.unique(Y).size > h)

    def check_nslices(self, n: float, p: int, more_values: bool) -> None:
        """R's rule: a response with at most ``h`` distinct values is sliced by value, so only
        a response with more distinct values than slices (``more_values``) needs two cases a
        slice (in memory, and on chunks from the response pass)."""
        h = self.nslices_for(p)
        if h > n / 2 and more_values:
            raise ValueError(
                f"The 'nslices' option of {self.method} must be at most n/2 = {int(n) // 2} for "
                f"a response with more than {h} distinct values, so that slices hold at least "
                f"two cases; got {h}. Lower nslices."
            )

    def _slices(self, Y: np.ndarray, p: int):
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        slices = make_slices(
            Y,
            self.nslices_for(p),
            function=self.options["slice_function"],
            categorical=categorical,
            cut_points=self.options["cut_points"],
        )
        if slices.nslices < 2:
            raise ValueError(
                f"The response has a single value, so {self.method} finds only one slice; it "
                "needs a response that varies."
            )
        return slices

    # -- the accumulator: in memory, chunks, Dask and the weighted bootstrap ---------------
    def statistics(
        self,
        p: int,
        *,
        cut_points: Any = None,
        classes: bool = False,
        response: bool = False,
    ) -> MomentStatistics:
        """An empty accumulator of this method's statistics for rows of ``p`` predictors.

        Rows fall into slices by ``cut_points`` (default the ``cut_points`` option), or by
        their class label (``classes=True``); methods without slices keep one group.

        Parameters
        ----------
        p : int
            Number of predictors.
        cut_points : sequence of float, optional
            Slice boundaries of a continuous response.
        classes : bool, default False
            Slice by class label.
        response : bool, default False
            Also keep the response's moments (R²(OLS|dr), chunked pHd).

        Returns
        -------
        MomentStatistics

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> X, y = np.log(ais[["wt", "ht"]].to_numpy()), ais["lbm"].to_numpy()
        >>> acc = sdr.SIR(cut_points=[50, 60, 70]).statistics(2).update(X, y)
        >>> acc.finish().extras["slice_sizes"].tolist()
        [22, 61, 53, 66]
        """
        if not self.uses_slices:
            rule = SliceRule(single=True)
        else:
            cuts = self.options["cut_points"] if cut_points is None else cut_points
            rule = SliceRule(
                cuts=None if cuts is None else np.asarray(cuts, dtype=float), classes=classes
            )
        return MomentStatistics(self, p, rule, response=response)

    def statistics_of(
        self, X: np.ndarray, Y: np.ndarray, weights: np.ndarray | None = None
    ) -> MomentStatistics:
        """The accumulator of the rows ``X`` in memory: the one-chunk case, rows kept.

        The slices are those of the whole response (R ``dr``'s slicing).

        Parameters
        ----------
        X : ndarray of shape (n, p)
            Predictors.
        Y : ndarray
            Response as ``_fit`` takes it.
        weights : ndarray of shape (n,), optional
            Case weights.

        Returns
        -------
        MomentStatistics

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> X, y = np.log(ais[["wt", "ht"]].to_numpy()), ais["lbm"].to_numpy()
        >>> round(sdr.SIR(nslices=4).statistics_of(X, y).n)
        202
        """
        p = X.shape[1]
        rule = SliceRule(slices=self._slices(Y, p)) if self.uses_slices else SliceRule(single=True)
        return MomentStatistics(self, p, rule, keep_rows=True).update(X, Y, weights)

    def _prepare(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        weights: np.ndarray | None = None,
        *,
        case_weights: np.ndarray | None = None,
        names: list[str] | None = None,
    ) -> tuple[Standardized, SliceMoments | None]:
        if case_weights is not None:
            return case_weighted_prepare(self, X, Y, case_weights, names)
        return self.statistics_of(X, Y, weights).prepared(names)

    def prepare_spec(self, spec: Any) -> tuple[Standardized, SliceMoments | None]:
        """The whitening and slice moments of a fit's rows, with its case weights.

        Parameters
        ----------
        spec : ModelSpec
            The fit's rows, names and case weights.

        Returns
        -------
        tuple of (Standardized, SliceMoments or None)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"), nslices=8)
        >>> std, moments = fit.estimator.prepare_spec(fit.spec)
        >>> moments.slices.nslices
        8
        """
        return self._prepare(
            spec.X, spec.Y, case_weights=spec.case_weights, names=list(spec.x_names)
        )

    def _case_weights_of(self, spec: Any, weights: np.ndarray | None) -> np.ndarray | None:
        """The spec's R case weights, refused together with frequency weights."""
        if spec.case_weights is not None and weights is not None:
            raise ValueError(
                f"{self.method} with case weights refits resampled rows (rows=), not weighted "
                "ones: frequency weights on top of R's case weights are not available."
            )
        return spec.case_weights

    def kernel(self, std: Standardized, moments: SliceMoments | None, Y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def fit_output(
        self,
        spec: Any,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        """The fit of ``spec``'s rows with its case weights; errors name its predictors.

        Parameters
        ----------
        spec : ModelSpec
            Rows, names and case weights.
        weights : ndarray of shape (n,), optional
            Frequency weights (bootstrap multiplicities).
        random_state : optional
            Unused (the moment methods are deterministic).

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"))
        >>> sdr.SAVE(nslices=8).fit_output(spec).d
        2
        """
        return self._fit_rows(
            spec.X,
            spec.Y,
            weights=weights,
            case_weights=self._case_weights_of(spec, weights),
            names=list(spec.x_names),
        )

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        return self._fit_rows(X, Y, weights=weights)

    def _fit_rows(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        case_weights: np.ndarray | None = None,
        names: list[str] | None = None,
    ) -> EstimatorOutput:
        """The fit of rows ``X``, ``Y`` (``names`` label the predictors in errors)."""
        if case_weights is not None:
            std, moments = case_weighted_prepare(self, X, Y, case_weights, names)
            output = output_from_kernel(self, std, moments, self.kernel(std, moments, Y))
            output.center = X.mean(axis=0)  # R's dr.direction centres x by its plain mean
            return output
        return self.statistics_of(X, Y, weights).finish(names)

    def fit_statistics(self, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
        """Fit from chunked data (see :mod:`sdrstats.moment.chunked`).

        Parameters
        ----------
        source : sdrstats.scale.fit.ChunkedData
            The chunks.

        Returns
        -------
        tuple of (EstimatorOutput, dict)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> sdr.save("lbm ~ log(wt) + log(ht)", parts, nslices=8).n  # calls fit_statistics
        202
        """
        if getattr(source, "weights", None) is not None:
            return fit_sliced_weighted(self, source)
        return fit_sliced(self, source)

    def replicate_kernel(self, results: Results) -> WeightedReplicates | ChunkedReplicates | None:
        """Weighted-moment bootstrap replicates (SIR, SAVE, DR), or None for a row refit.

        A fit on chunks or Dask partitions gets a :class:`ChunkedReplicates`, whose Poisson
        replicates take one more pass over its data.

        Parameters
        ----------
        results : Results
            The fit to resample.

        Returns
        -------
        WeightedReplicates or None

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", ais, nslices=8)
        >>> type(fit.estimator.replicate_kernel(fit)).__name__
        'WeightedReplicates'
        """
        if not (self.capabilities.weighted_replicates and self.uses_slices):
            return None
        if results.spec.case_weights is not None:
            return None  # R case weights: replicates refit the resampled rows with them
        if isinstance(results, ChunkedResults):
            return ChunkedReplicates(results)
        if not WeightedReplicates.fits(results.n, results.p):
            return None
        return WeightedReplicates(results)

    def _test_rows(self, results: Results, d_max: int | None) -> int:
        """Rows of the marginal dimension tests, as R ``summary.dr`` counts them.

        By default ``min(d_max, #{|λ| > 1e-15})``: a hypothesis about a direction whose
        eigenvalue is zero to rounding is no test. Never more than ``p``.
        """
        if d_max is None:
            d_max = results.options["d_max"]
            ev = results.output.eigenvalues
            if ev is not None:
                d_max = max(1, min(d_max, int(np.sum(np.abs(np.asarray(ev)) > 1e-15))))
        return min(results.p, check_int(d_max, "d_max", self.method, low=1))


def response_vector(Y: np.ndarray, method: str) -> np.ndarray:
    if Y.ndim == 2 and Y.shape[1] > 1:
        raise ValueError(f"{method} needs a single response column; got {Y.shape[1]}.")
    return Y.reshape(-1).astype(float)


__all__ = ["MomentEstimator", "response_vector"]
