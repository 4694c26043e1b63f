"""Fitted results: the contract every method keeps.

:class:`Results` holds its own clone of the estimator (the options of the fit, taken when it
was made), the model spec (rows, names, case weights, groups) and the estimator's output, and
attaches labels once: nothing done later to the estimator that fitted it changes a result.
Families subclass it only for what really differs (summary blocks, predictor tests,
densities). :class:`DimensionTest` is the one result type of every
dimension rule.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..base.contract import EstimatorLike, EstimatorOutput
from ..base.parallel import derived_stream, fit_seed
from ..base.tables import dir_labels
from ..base.validation import keywords_checked, translate_options, unknown_options_error
from ..base.warnings import SDRWarning
from ..density import conditional_density_for
from ..inference.bootstrap import bootstrap as bootstrap_subspace
from ..inference.dimension import generic_rules
from ..inference.dimension_test import (
    DimensionTest,
    choose_by_pvalues,
    dimension_line,
    hypothesis_labels,
)
from ..plotting.results import plot_results
from .io import ResultsSaveLoad
from .summary import SummaryMixin, ols_r2

if TYPE_CHECKING:  # pragma: no cover
    from ..design.formula import ModelSpec


def _keywords_of(rule: Callable[..., Any]) -> list[str] | None:
    """The keyword options a dimension rule takes (None when it takes any)."""
    try:
        parameters = inspect.signature(rule).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return [
        p.name
        for p in parameters
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in ("self", "results")
    ]


class Results(SummaryMixin, ResultsSaveLoad):
    """A fitted SDR model.

    Every method's formula function (``sdr.sir``, ``sdr.mave``, ...) returns one; families
    subclass it only for what differs. ``print(fit)`` shows the R-style summary.

    A result is a value: it keeps a clone of the estimator taken when it is made, so
    ``set_params`` or another fit of that estimator change neither its options nor its
    refits (tests, bootstrap); R case weights and groups are part of its ``spec``.

    ``d`` is the user's ``d``, or, when the fit was asked for ``d=None``, the choice of the
    estimator's rule ``d_rule`` (``d_rule`` says which: ``"given"`` or the rule's name;
    ``d_choice`` keeps the rule's table). The fit keeps what its rule needs whatever ``d``
    was given, so ``test_dimension()`` never needs a refit by the user.

    ``random_state`` is the fit's seed: the one given to the method, or one drawn (and
    printed by the summary) when none was. Everything done later with the result that draws
    random numbers (``test_dimension``, ``bootstrap``, ``conditional_density`` and its
    ``sample``, plots that resample) draws from a stream of its own derived from this seed
    (:func:`sdrstats.base.parallel.derived_stream`), unless the call is given its own
    ``random_state``: the same script prints the same numbers.

    Parameters
    ----------
    estimator : Estimator
        The estimator that fitted (any :class:`~sdrstats.base.contract.EstimatorLike`); the
        result keeps a clone of it (its options).
    spec : ModelSpec
        Data, names and formula information.
    output : EstimatorOutput
        What the estimator computed.
    call : str, optional
        How the fit was requested, shown in the summary.
    random_state : int, list of int or SeedSequence, optional
        The seed the fit used (:func:`sdrstats.base.parallel.fit_seed`); default the
        estimator's ``random_state`` option, or a seed drawn now when that is None.

    See Also
    --------
    sir, mave, lsce, spca : Formula functions that return one.
    DimensionTest : What ``test_dimension`` returns.
    BootstrapResult : What ``bootstrap`` returns.

    References
    ----------
    :cite:t:`cook1998`; :cite:t:`weisberg2002`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
    >>> fit
    <MomentResults: sir, n = 202, p = 4, d = 2>
    >>> fit.directions.round(2)
              Dir1  Dir2
    log(ssf) -0.16 -0.10
    log(wt)   0.98 -0.15
    log(hg)   0.08  0.76
    log(ht)   0.03 -0.62
    >>> fit.eigenvalues.round(3).tolist()
    [0.939, 0.179, 0.073, 0.004]
    """

    def __init__(
        self,
        estimator: EstimatorLike,
        spec: ModelSpec,
        output: EstimatorOutput,
        call: str | None = None,
        *,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator.clone()
        self.spec = spec
        self.output = output
        self.call = call or f"{estimator.method}(...)"
        if random_state is None:
            random_state = fit_seed(self.estimator.options.get("random_state"))
        self.random_state = random_state
        #: How ``d`` was set: "given", or the name of the rule that chose it.
        self.d_rule = "given"
        #: The result of the rule that chose ``d`` (None when ``d`` was given).
        self.d_choice: DimensionTest | None = None

    def _settle_dimension(self) -> None:
        """Run the estimator's ``d_rule`` when ``d`` was not given and report its choice.

        Called once by whatever builds the result from a fit (:meth:`Estimator.fit_spec`,
        the chunked and streaming fits). A fit that keeps no rows (chunked, Dask or streamed
        data) and whose rule resamples them uses the eigenvalue-ratio rule instead, and
        ``d_rule`` says so. A choice of ``d = 0`` (no dependence) keeps one direction, with
        an :class:`~sdrstats.SDRWarning`.
        """
        options = self.estimator.options
        if options.get("d") is not None or "d_rule" not in options:
            return
        rule, fallback = self._default_rule()
        available = self._dimension_rules()
        if rule not in available and "ratio" in available and self.spec.X.shape[0] == 0:
            # a fit on chunked, Dask or streamed data keeps no rows to resample: the rule
            # that needs none, and the summary says it chose d and why
            fallback = (
                f"the default {rule} rule resamples rows, which a fit on chunked, Dask or "
                "streamed data does not keep"
            )
            rule = "ratio"
        if rule not in available:
            raise ValueError(
                f"{self.method} cannot choose d by its d_rule {rule!r} on this fit (a fit on "
                "chunked or streamed data keeps no rows to resample); give d, or a d_rule "
                f"among {sorted(available)}."
            )
        test = self.test_dimension(rule, **self._rule_options(rule))
        if fallback:
            test.fallback = fallback
        if test.d < 1:
            warnings.warn(
                f"{self.method}: {test.describe()} chose d = 0 (no evidence that the response "
                "depends on the predictors); the fit keeps d = 1. See fit.d_choice.",
                SDRWarning,
                stacklevel=4,
            )
        d = max(int(test.d), 1)
        self.output = self.estimator.output_for_dimension(
            self.output, d, self.spec, random_state=self.random_state
        )
        self.d_rule, self.d_choice = rule, test

    def _rule_options(self, rule: str) -> dict[str, Any]:
        """Options of ``test_dimension(rule)`` when the rule chooses ``d``: none by default;
        a family leaves out what its choice does not read (SAVE's general-theory p-values)."""
        return {}

    def _default_rule(self) -> tuple[str | None, str | None]:
        """The rule that chooses ``d`` by default, and why it stands in for the method's
        default test (None when it is the ``d_rule`` option itself).

        The ``d_rule`` option, except for a method whose ``d_rule="auto"`` picks its test
        where it is valid on this fit and another rule elsewhere (Lasso-SIR, online SIR).
        """
        return self.estimator.options.get("d_rule"), None

    # -- what was fitted -----------------------------------------------------------------
    @property
    def method(self) -> str:
        return self.estimator.method

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.estimator.options)

    def stream(self, kind: str) -> Any:
        """The seed of this fit's random stream for calls of kind ``kind``.

        Parameters
        ----------
        kind : str
            The call kind, e.g. ``"bootstrap"`` or ``"test_dimension/permutation"``.

        Returns
        -------
        list of int or SeedSequence
            See :func:`sdrstats.base.parallel.derived_stream`.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", ais, random_state=1)
        >>> fit.stream("bootstrap")[0], fit.stream("bootstrap") == fit.stream("sample")
        (1, False)
        """
        return derived_stream(self.random_state, kind)

    @property
    def dimension_line(self) -> str:
        """``"d = 2 (given)"`` or ``"d = 2 (chosen by ...)"``, as the summary prints it."""
        return dimension_line(self.d, self.d_choice)

    @property
    def n(self) -> int:
        return self.spec.n

    @property
    def p(self) -> int:
        return self.spec.p

    @property
    def d(self) -> int:
        return self.output.d

    @property
    def x_names(self) -> list[str]:
        return list(self.spec.x_names)

    # -- directions ----------------------------------------------------------------------
    def _require_basis(self) -> np.ndarray:
        if self.output.basis is None:
            raise ValueError(
                f"{self.method} has no linear directions; use transform() for reduced predictors."
            )
        return self.output.basis

    @property
    def directions(self) -> pd.DataFrame:
        """Basis of the estimated subspace: predictors x Dir1..Dird, unit columns."""
        return self.directions_for(self.d)

    def directions_for(self, k: int) -> pd.DataFrame:
        """The first ``k`` directions as a DataFrame.

        Parameters
        ----------
        k : int
            How many directions, from 1 to the number the method computed.

        Returns
        -------
        pandas.DataFrame
            Predictors x Dir1..Dirk, unit columns.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.directions_for(1).round(3)
                   Dir1
        log(ssf) -0.157
        log(wt)   0.984
        log(hg)   0.082
        log(ht)   0.027
        """
        return pd.DataFrame(self._basis_for(k), index=self.x_names, columns=dir_labels(k))

    def _basis_for(self, k: int) -> np.ndarray:
        """The ``k``-dimensional basis: the method's own ``k``-D solution where it fits one per
        dimension (IRE, as R's ``dr.basis(fit, k)``), else the first ``k`` directions."""
        basis = self._require_basis()
        if not 1 <= k <= basis.shape[1]:
            raise ValueError(f"k must be between 1 and {basis.shape[1]}; got {k}.")
        return self.output.basis_for(k)

    @property
    def all_directions(self) -> pd.DataFrame:
        """Every direction the method computed (``p`` for moment methods)."""
        basis = self._require_basis()
        return pd.DataFrame(basis, index=self.x_names, columns=dir_labels(basis.shape[1]))

    @property
    def eigenvalues(self) -> pd.Series | None:
        """Eigenvalues (or per-direction importance) labelled Dir1.. ; None if not defined."""
        ev = self.output.eigenvalues
        if ev is None:
            return None
        return pd.Series(np.asarray(ev, dtype=float), index=dir_labels(len(ev)), name="eigenvalue")

    @property
    def criterion(self) -> float | None:
        return self.output.criterion

    @property
    def slice_sizes(self) -> np.ndarray | None:
        """Observations per slice for slicing methods, else None."""
        sizes = self.output.extras.get("slice_sizes")
        return None if sizes is None else np.asarray(sizes)

    @property
    def extras(self) -> dict[str, Any]:
        return self.output.extras

    # -- using the fit -------------------------------------------------------------------
    @keywords_checked
    def transform(self, newdata: Any = None, d: int | None = None) -> pd.DataFrame:
        """Reduced predictors ``(x - x̄) B`` of the training rows or of ``newdata``.

        ``newdata`` goes through the same formula transforms and factor levels as the
        training data. The index of the rows is kept.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows to reduce; default the training rows. A DataFrame needs the columns the
            formula uses (the response may be absent).
        d : int, optional
            Number of directions; default the fit's ``d``.

        Returns
        -------
        pandas.DataFrame
            Rows x Dir1..Dird.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> fit.transform(ais.head(3)).round(3)
            Dir1   Dir2
        0 -0.032 -0.247
        1 -0.079 -0.188
        2 -0.163 -0.207
        """
        d = self.d if d is None else int(d)
        if d < 1:
            raise ValueError(f"d must be at least 1; got {d}.")
        if newdata is None and not self.spec.keeps_rows:
            raise self.rows_needed("transform() of the training rows")
        if newdata is None:
            X, index = self.spec.X, self.spec.index
        else:
            X = self.spec.transform_x(newdata)
            index = newdata.index if isinstance(newdata, pd.DataFrame) else pd.RangeIndex(len(X))
        values = self.estimator.transform_arrays(self.output, X, d)
        return pd.DataFrame(values, index=index, columns=dir_labels(values.shape[1]))

    def refit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
        rows: np.ndarray | None = None,
        **changes: Any,
    ) -> EstimatorOutput:
        """Refit the same estimator (optionally with changed options) on arrays.

        The inference layer resamples through this. A fit whose ``d`` a rule chose is
        refitted at that ``d`` (the rule is not run again) unless ``changes`` sets it.

        Parameters
        ----------
        X : ndarray of shape (n, p)
            Predictors (already through the formula).
        Y : ndarray
            Response as ``_fit`` takes it: (n, q) floats or (n,) int64 class codes.
        weights : ndarray of shape (n,), optional
            Case weights (bootstrap multiplicities).
        random_state : int, Generator or None, default None
            Seed of a randomised method.
        rows : ndarray of int, optional
            Which fitted rows ``X`` holds (a bootstrap draw), so that R-style case weights
            and groups follow their rows (see :meth:`ModelSpec.resampled`).
        **changes
            Options to change in a clone of the estimator.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.refit(fit.spec.X, fit.spec.Y, nslices=4).extras["slice_sizes"].tolist()
        [50, 50, 51, 51]
        """
        if self.estimator.options.get("d") is None and "d" in self.estimator.params:
            # resampling compares subspaces of this fit's d, whatever rule chose it
            changes.setdefault("d", self.d)
        est = self.estimator.clone(**changes) if changes else self.estimator
        spec = self.spec.resampled(X, Y, rows)
        return est.fit_output(spec, weights=weights, random_state=random_state)

    # -- inference -----------------------------------------------------------------------
    def rows_needed(self, what: str) -> ValueError:
        """The error for a step that needs rows a fit on chunked or Dask data did not keep.

        Parameters
        ----------
        what : str
            The step, to name it in the message.

        Returns
        -------
        ValueError

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8)
        >>> fit.transform()
        Traceback (most recent call last):
        ...
        ValueError: transform() of the training rows needs the rows, which a fit on chunked or Dask data does not keep; ...
        """
        return ValueError(
            f"{what} needs the rows, which a fit on chunked or Dask data does not keep; load "
            "the data (or a sample) with pandas and fit in memory for this."
        )

    def _dimension_rules(self) -> dict[str, Callable[..., DimensionTest]]:
        rules: dict[str, Callable[..., DimensionTest]] = {}
        est = self.estimator
        if est.capabilities.asymptotic_test and est.asymptotic_test_available(self):
            rules["asymptotic"] = functools.partial(est.asymptotic_test, self)
        if not self.spec.keeps_rows:  # the other rules resample or refit the rows
            if self.output.eigenvalues is not None:
                from ..inference.ratio import eigenvalue_ratio

                rules["ratio"] = functools.partial(eigenvalue_ratio, self)
            return rules
        if est.capabilities.cv_test:
            rules["cv"] = functools.partial(est.cv_test, self)
        for name, fn in generic_rules(self).items():
            rules.setdefault(name, fn)
        return rules

    def test_dimension(self, rule: str | None = None, **options: Any) -> DimensionTest:
        """Choose the dimension by a rule.

        Parameters
        ----------
        rule : str, optional
            ``"asymptotic"``, ``"permutation"``, ``"ladle"``, ``"bootstrap"``, ``"cv"``,
            ``"ratio"`` or a method's own (``"kmeans"`` for Lasso-SIR); see
            ``docs/vocabulary.md``. Default the fit's ``d_rule`` option, the rule that chooses
            ``d`` when it is not given (for ``d_rule="auto"``, the rule it picks on this fit),
            so ``fit.test_dimension()`` prints the table behind ``fit.d_choice``.
        **options
            Options of the rule (``level``, ``n_permutations``, ``B``, ``d_max`` -- R's
            ``numdir`` is an alias --, ``random_state``...). A rule that resamples and is
            given no ``random_state`` draws from the fit's stream for that rule
            (:meth:`stream`), so it answers the same every time.

        Returns
        -------
        DimensionTest
            The table of the rule and the chosen dimension ``d``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> print(fit.test_dimension())
        Large-sample Marginal Dimension Tests:
                        Stat df   p.value
        0D vs >= 1D 241.3277 28 8.159e-36
        1D vs >= 2D  51.7011 18 4.158e-05
        2D vs >= 3D  15.5655 10 1.128e-01
        3D vs >= 4D   0.7754  4 9.417e-01
        Chosen d = 2: smallest m whose test is not rejected at level 0.05.
        """
        options = translate_options(options, "test_dimension", aliases={"numdir": "d_max"})
        rules = self._dimension_rules()
        fallback = None
        if rule is None:
            rule, fallback = self._default_rule()
        if rule is None or rule not in rules:
            if not rules:
                raise ValueError(
                    f"No dimension test is available for {self.method}: its results keep no "
                    "rows to resample and it has no asymptotic test. Refit a batch method "
                    "(e.g. sir) on the data to test the dimension."
                )
            raise ValueError(
                f"The {rule!r} dimension test is not available for {self.method}; "
                f"available: {sorted(rules)}."
            )
        keywords = _keywords_of(rules[rule])
        unknown = [k for k in options if keywords is not None and k not in keywords]
        if unknown:
            raise unknown_options_error(f"test_dimension({rule!r})", unknown, keywords or [])
        test = rules[rule](**options)
        if fallback:
            test.fallback = fallback
        return test

    @keywords_checked
    def bootstrap(
        self,
        B: int = 200,
        d: int | None = None,
        distance: str = "projection",
        random_state: Any = None,
        n_jobs: int = 1,
        progress: bool = True,
        scheme: str | None = None,
    ) -> Any:
        """Nonparametric bootstrap of the subspace; see :func:`sdrstats.inference.bootstrap`.

        Parameters
        ----------
        B : int, default 200
            Number of bootstrap replicates.
        d : int, optional
            Dimension of the subspace compared; default the fit's ``d`` (given, or chosen by
            its ``d_rule``). The summary says which (``BootstrapResult.d_rule``).
        distance : {"projection", "det", "trace_correlation"}, default "projection"
            How a replicate's subspace is compared with the full-sample one.
        random_state : int, Generator or None, default None
            Seed of the resampling; default the fit's ``"bootstrap"`` stream
            (:meth:`stream`), the same every time.
        n_jobs : int, default 1
            Parallel workers; the result does not depend on it.
        progress : bool, default True
            Show a progress bar.
        scheme : {"multinomial", "poisson", "centered"}, optional
            ``"centered"`` (SAVE's default in memory when its asymptotic test at level
            0.05 supports the ``d`` compared): multinomial replicates in a world centred on
            the fitted subspace. SAVE's plain bootstrap overstates its error (it squares
            slice covariances): with known truth, at n = 300 and 1,000, p = 6, d = 2, on
            models SAVE recovers, the plain 95% quantile covered the true distance in
            0.985–0.995 of 200 data sets, the centred one in 0.925–0.96, and the default
            (centred where the test supports d, else plain) in 0.925–0.98 (SIR's plain
            bootstrap: 0.965–0.99); see :func:`sdrstats.inference.bootstrap` and
            ``benchmarks/bench_bootstrap_coverage.md``. The centred world trusts the fitted
            directions, so it under-covers where SAVE cannot find them (0.53–0.785): hence
            the test guard. The summary says which scheme was used and why.
            ``"multinomial"`` (the default of other methods in memory): ``n`` rows drawn
            with replacement.
            ``"poisson"``: a Poisson(1) count per row, keyed by the row's position in the
            data, so that the replicates equal those of the same fit on chunks or Dask
            partitions of the rows. A fit on chunked or Dask data has only this scheme (its
            default): drawing ``n`` rows needs ``n`` before the first row is read and random
            access to the rows; its replicates (SIR, SAVE, DR) take one more pass over the
            data, which must be re-readable and still attached to the fit (not after pickling
            or loading).

        Returns
        -------
        BootstrapResult

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> boot = fit.bootstrap(B=20, random_state=0, progress=False)
        >>> boot.B, boot.d
        (20, 2)
        >>> bool(boot.stability["Dir1"] > 0.9)
        True
        >>> unset = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> boot = unset.bootstrap(B=20, random_state=0, progress=False)
        >>> boot.d, boot.d_rule
        (2, "the fit's d (chosen by the asymptotic test at level 0.05)")
        """
        if not self.spec.keeps_rows and scheme is not None:
            if scheme == "multinomial":
                raise ValueError(
                    "The 'scheme' option 'multinomial' is not available for a fit on chunked or "
                    "Dask data: drawing n rows with replacement needs n before the first row is "
                    "read and random access to the rows. Use scheme='poisson' (the default "
                    "here), or load the data with pandas."
                )
            if scheme != "poisson":
                raise ValueError(
                    "The 'scheme' option of bootstrap must be 'poisson' for a fit on chunked or "
                    f"Dask data; got {scheme!r}."
                )
        if not self.spec.keeps_rows and self.estimator.replicate_kernel(self) is None:
            raise self.rows_needed(f"The bootstrap of {self.method}")
        return bootstrap_subspace(
            self,
            B=B,
            d=d,
            distance=distance,
            random_state=random_state,
            n_jobs=n_jobs,
            progress=progress,
            scheme=scheme,
        )

    def conditional_density(self, estimator: str = "lscde", **options: Any) -> Any:
        """Conditional density of the response given the reduced predictors.

        ``estimator="lscde"`` (default) or ``"eps_kde"``, fitted on ``transform()``. LSCDE's
        default model is chosen by held-out log-likelihood between separate widths for the
        reduced predictors and ``y`` and a location-scale form whose spread follows the
        predictors (``model=`` picks one; ``"single"`` is LSCDE with one width).

        Parameters
        ----------
        estimator : {"lscde", "eps_kde"}, default "lscde"
            Least-squares conditional density estimation or ε-neighbourhood KDE.
        **options
            ``d`` (default the fit's), ``random_state`` (default the fit's), ``model`` and the
            estimator's tuning options; see :func:`sdrstats.density.conditional_density_for`.

        Returns
        -------
        ConditionalDensity

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.mean(ais.head(2)).round(0).tolist()
        [61.0, 58.0]
        """
        return conditional_density_for(self, estimator=estimator, **options)

    def plot(self, kind: str = "summary", **options: Any) -> Any:
        """Plot the fit; by default R's ``plot.dr``, the response and the directions.

        Parameters
        ----------
        kind : {"summary", "pairs", "3d", "scree", "dimension", "bootstrap"}, default "summary"
            ``"summary"``: with two or more directions a scatterplot matrix of the directions
            and the response, with one a scatter with a lowess curve (a class response: a
            density and a strip per class); ``"3d"``: the response over two directions;
            ``"scree"``: the eigenvalues; ``"dimension"`` and ``"bootstrap"``: the plots of
            ``test_dimension`` and ``bootstrap``. See
            :func:`sdrstats.plotting.plot_results`.
        **options
            Passed to the plot: ``ax=`` (or ``axes=`` for a grid), ``figsize=``, ``which=``,
            ``mark_by_y=``..., and the options of ``test_dimension`` or ``bootstrap``
            (``random_state=`` among them) for those kinds.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> fig = fit.plot()
        >>> fig.axes[0].get_ylabel()
        'Dir1'
        """
        if not self.spec.keeps_rows:
            raise self.rows_needed("Plotting")
        return plot_results(self, kind=kind, **options)


__all__ = ["Results", "DimensionTest", "choose_by_pvalues", "hypothesis_labels", "ols_r2"]
