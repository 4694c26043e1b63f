"""The common path of the moment methods: options, slices, and the passes of the fit.

:class:`MomentEstimator` holds what SIR, SAVE, pHd, DR, CUME and IRE share: the slicing
options, the data checks, and every fit as passes of the family's accumulators
(:mod:`.statistics`) over a source of rows (:meth:`MomentEstimator.fit_source`): the rows in
memory as one chunk, or chunks and Dask partitions, with the same code; and the weighted
bootstrap (``replicate_kernel``). A method adds its kernel ``M`` (or its own passes) and,
where R ``dr`` has one, its asymptotic test.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..base.validation import Interval, Options, check_int, too_few_rows_error
from ..fitting.estimator import Estimator, EstimatorOutput
from ..results.fitted import Results
from ..scale.rows import RowsInMemory
from ..stats.slicing import default_nslices, make_slices
from ._core import SliceMoments, Standardized, default_names
from ._replicates import WeightedReplicates
from .results import MomentResults
from .sliced import fit_sliced, prepare_source
from .statistics import MomentStatistics, SliceRule


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
    results_class = MomentResults

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

    def nslices_for(self, p: int, n: float | None = None) -> int:
        """The number of slices of a fit on ``p`` predictors (and ``n`` rows, when known):
        the ``nslices`` option, or R ``dr``'s default ``max(8, p + 3)``."""
        return self.options["nslices"] or default_nslices(p)

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        if n <= p:
            raise too_few_rows_error(self.method, n, p)
        d = self.options["d"]
        if d is not None and d > p:
            raise ValueError(f"The 'd' option of {self.method} must be at most p = {p}; got {d}.")
        if self.uses_slices and not categorical and self.options["cut_points"] is None:
            h = self.nslices_for(p, n)
            self.check_nslices(n, p, Y.reshape(n, -1).shape[1] > 1 or _more_values(Y, h))

    def check_nslices(self, n: float, p: int, more_values: bool) -> None:
        """R's rule: a response with at most ``h`` distinct values is sliced by value, so only
        a response with more distinct values than slices (``more_values``) needs two cases a
        slice (in memory, and on chunks from the response pass)."""
        h = self.nslices_for(p, n)
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
            self.nslices_for(p, Y.shape[0]),
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
        """An empty accumulator of this method's slice statistics for rows of ``p`` predictors.

        Rows fall into slices by ``cut_points`` (default the ``cut_points`` option), or by
        their class label (``classes=True``); methods without slices keep one group. Its
        ``update(X, y)`` adds rows, ``merge`` adds an accumulator of other rows and
        ``finish()`` is the fit (SIR, SAVE, DR).

        Parameters
        ----------
        p : int
            Number of predictors.
        cut_points : sequence of float, optional
            Slice boundaries of a continuous response.
        classes : bool, default False
            Slice by class label.
        response : bool, default False
            Also keep the response's moments (R²(OLS|dr) of a fit without rows).

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

    def source_of(self, spec: Any, weights: np.ndarray | None = None) -> Any:
        """What the fit's passes read: the spec's rows as one chunk, or its chunks.

        Parameters
        ----------
        spec : ModelSpec
            Rows (with their case weights and groups), or chunked or Dask data.
        weights : ndarray of shape (n,), optional
            Frequency weights of a refit (bootstrap multiplicities).

        Returns
        -------
        RowsInMemory or sdrstats.scale.fit.ChunkedData

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"), nslices=8)
        >>> source = fit.estimator.source_of(fit.spec)
        >>> source.keeps_rows, source.p
        (True, 2)
        """
        if not spec.keeps_rows:
            if weights is not None:
                raise ValueError(
                    f"{self.method} on chunked or Dask data refits from its passes, not from "
                    "weighted rows: frequency weights need the rows in memory."
                )
            return spec.data
        if spec.case_weights is not None and weights is not None:
            raise ValueError(
                f"{self.method} with case weights refits resampled rows (rows=), not weighted "
                "ones: frequency weights on top of R's case weights are not available."
            )
        return RowsInMemory.of_spec(spec, frequency=weights)

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
        return prepare_source(self, self.source_of(spec))

    def kernel(self, std: Standardized, moments: SliceMoments) -> np.ndarray:
        raise NotImplementedError

    def fit_output(
        self,
        spec: Any,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        """The fit of ``spec``'s rows (or chunks) with its case weights.

        The method's passes (:meth:`fit_source`) run over the spec's rows as one chunk, or
        over its chunks or Dask partitions: the same code either way.

        Parameters
        ----------
        spec : ModelSpec
            Rows, names and case weights; or chunked or Dask data.
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
        return self.fit_source(self.source_of(spec, weights))

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        names = default_names(X.shape[1])
        source = RowsInMemory(X, Y, x_names=names, categorical=categorical, frequency=weights)
        return self.fit_source(source)

    def fit_source(self, source: Any) -> EstimatorOutput:
        """The method's passes over ``source``: rows in memory, or chunks.

        SIR, SAVE and DR take one pass of slice sums (:func:`.sliced.fit_sliced`); pHd, CUME
        and IRE state their own passes.

        Parameters
        ----------
        source : RowsInMemory or sdrstats.scale.fit.ChunkedData
            The rows.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> sdr.save("lbm ~ log(wt) + log(ht)", parts, nslices=8).n  # its passes read chunks
        202
        """
        return fit_sliced(self, source)

    def replicate_kernel(self, results: Results) -> WeightedReplicates | None:
        """Weighted-moment bootstrap replicates (SIR, SAVE, DR), or None for a row refit.

        A fit on chunks or Dask partitions gets a kernel without rows
        (:meth:`WeightedReplicates.of_source`), whose Poisson replicates take one more pass
        over its data, as the rows in memory do.

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
        if not results.spec.keeps_rows:
            return WeightedReplicates.of_source(results)
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


def _more_values(y: np.ndarray, h: int) -> bool:
    """Whether ``y`` has more than ``h`` distinct values (a few of its values usually tell)."""
    head = np.unique(y[: 4 * (h + 1)])
    return head.size > h or np.unique(y).size > h


def response_vector(Y: np.ndarray, method: str) -> np.ndarray:
    if Y.ndim == 2 and Y.shape[1] > 1:
        raise ValueError(f"{method} needs a single response column; got {Y.shape[1]}.")
    return Y.reshape(-1).astype(float)


__all__ = ["MomentEstimator", "response_vector"]
