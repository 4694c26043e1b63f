"""The estimator layer's common shape.

An estimator holds validated options and nothing else. Its fit is a pure function of a
:class:`~sdrstats.design.spec.ModelSpec` (rows, names, R case weights, groups) and the options:
:meth:`Estimator.fit_output` returns an :class:`EstimatorOutput` (basis in the original
predictor scale, eigenvalues or a criterion, method-specific extras) and writes nothing on the
estimator. A family implements it on arrays, ``_fit(X, Y, weights, random_state)``, and
overrides ``fit_output`` only when it reads more of the spec (case weights, groups, predictor
names for its messages). It never sees formulas or pandas. :meth:`Estimator.fit` (arrays) and
:meth:`Estimator.from_formula` (formula + data) build the spec and wrap the output in the
estimator's results class, which keeps its own clone of the estimator, so both paths give
identical numbers and nothing done to the estimator later changes the result. The inference
layer refits through the result's clone with the fit's own options.

Writing a new method: subclass :class:`Estimator`, declare ``method``, ``response`` and its
:class:`Capabilities`, write the options as a keyword-only ``__init__`` and their
``_parameter_constraints``, implement ``_fit`` and, if it needs data-dependent checks,
``_check_data``; make its formula function with
:func:`sdrstats.fitting.formula_functions.formula_doc`.

What a generic layer needs from a family it asks the estimator for, never importing the
family: ``capabilities`` (what the method can do), ``fit_output`` of a spec that holds chunks
instead of rows (a ``from_statistics`` method passes its mergeable accumulators over them, as
over the one chunk of rows in memory), ``replicate_kernel()`` (a fast weighted bootstrap).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
from typing import Any, ClassVar

import numpy as np

from ..base.contract import Capabilities, EstimatorOutput, FamilyHooks, from_statistics_methods
from ..base.parallel import check_random_state, fit_seed
from ..base.persistence import Registered
from ..base.validation import (
    TooFewRowsError,
    own_copy,
    refuse_constant_response,
    translate_options,
    unknown_options_error,
    validate_parameters,
)
from ..design.calls import format_call
from ..design.checks import clearly_fine
from ..design.formula import ModelSpec, from_arrays, parse, select_rows
from ..design.weights import ZERO_WEIGHT, check_case_weights, check_weight_shape, rescale
from ..results.fitted import Results
from ..scale import is_chunked
from ..scale.rows import RowsNotChecked

#: Where ``__setstate__`` keeps a stored options dict that does not name the options.
_STORED = "_stored_options"


def _options_of(cls: type, init: Any) -> dict[str, Any]:
    """Option names and defaults from a constructor's keyword-only signature."""
    options: dict[str, Any] = {}
    for parameter in list(inspect.signature(init).parameters.values())[1:]:
        if parameter.kind is not parameter.KEYWORD_ONLY:
            raise TypeError(
                f"{cls.__name__}.__init__ must take its options as keyword-only arguments "
                f"(after '*'); {parameter.name!r} is not."
            )
        options[parameter.name] = parameter.default
    clash = [name for name in options if inspect.getattr_static(cls, name, None) is not None]
    if clash:
        raise TypeError(
            f"{cls.__name__} has class attributes named like its options {clash}; an option is "
            "stored as an attribute of the same name."
        )
    return options


def _accepting_other_names(init: Any) -> Any:
    """The constructor, first translating old option names and aliases (its signature kept)."""

    @functools.wraps(init)
    def __init__(self: Estimator, **options: Any) -> None:
        type(self)._construct(self, type(self)._translate(options), init)

    return __init__


def _own(value: Any) -> Any:
    """An option value a clone may hold without sharing it: arrays and containers copied
    (a caller changing a list in place must not change a fit), anything else (a random
    Generator, a callable) as it is."""
    if isinstance(value, (np.ndarray, list, dict, set, tuple)):
        return copy.deepcopy(value)
    return value


def _row_index(X: Any, n_rows: int) -> Any:
    import pandas as pd

    return X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(n_rows)


class Estimator(FamilyHooks, Registered):
    """Base class of all estimators: options in, ``EstimatorOutput`` out.

    A subclass sets ``method`` (short name shown in summaries) and ``response``
    (``"continuous"``, ``"categorical"`` or ``"any"``) and writes its options once, as an
    explicit keyword-only constructor in scikit-learn's style whose body stores them::

        def __init__(self, *, nslices: int | None = None, d: int | None = None) -> None:
            self._set_options(locals())

    The defaults live in that signature only: ``params`` (every option and its default, in
    order; ``inspect.Parameter.empty`` for a required one) is read from it once, when the
    class is made. The stored values are exactly the objects passed (``sklearn.base.clone``
    checks it), so nothing is normalised there. ``_parameter_constraints`` declares what each
    option accepts (see :mod:`sdrstats.base.validation`); they are checked when the estimator
    is made, by ``set_params`` and before every fit, with one wording. ``_check_options``
    adds checks that involve several options, ``_check_data`` those that need the data.

    ``_option_aliases`` (R's names, e.g. ``numdir`` for ``d_max``) are accepted as the
    options they name. An unknown option raises ``TypeError`` naming the class and the
    closest option (``SIR() got an unknown option 'nslice'; did you mean 'nslices'?``).
    """

    method: ClassVar[str] = ""
    params: ClassVar[dict[str, Any]] = {}
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {}
    _option_aliases: ClassVar[dict[str, str]] = {}
    response: ClassVar[str] = "any"
    capabilities: ClassVar[Capabilities] = Capabilities()
    results_class: ClassVar[type[Results]] = Results
    #: The fit's first pass over rows in memory checks the predictors from its own moments
    #: (:class:`sdrstats.scale.rows.RowsInMemory`), so ``fit(X, y)`` skips the array front's
    #: scan of them; set on methods whose in-memory fit reads its rows only through passes.
    checks_rows_in_pass: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None:
            cls.params = _options_of(cls, init)
            cls.__init__ = _accepting_other_names(init)  # type: ignore[method-assign]

    def __init__(self) -> None:
        self._set_options({})

    @classmethod
    def _construct(cls, self: Estimator, options: dict[str, Any], init: Any) -> None:
        """Run the class's own ``init`` on ``options`` already under the options' names."""
        missing = [
            k for k, v in cls.params.items() if v is inspect.Parameter.empty and k not in options
        ]
        if missing:
            raise TypeError(
                f"{cls.__name__} needs the option(s) {missing}, which have no default "
                f"(e.g. {missing[0]}=2)."
            )
        init(self, **options)

    @classmethod
    def _from_options(cls, options: dict[str, Any]) -> Estimator:
        """An estimator from ``options`` an outer entry point has already translated
        (R's aliases under the options' names): option names are translated once per call,
        where the user's words come in (the constructor, :meth:`from_formula`, a formula
        function, :meth:`set_params`, :meth:`clone`)."""
        self = cls.__new__(cls)
        cls._construct(self, options, getattr(cls.__init__, "__wrapped__", cls.__init__))
        return self

    # -- options -------------------------------------------------------------------------
    def _set_options(self, given: dict[str, Any]) -> None:
        """Store the constructor's arguments (``locals()``) unchanged, then check them."""
        for name in type(self).params:
            setattr(self, name, given[name])
        self._validate_options()

    @property
    def options(self) -> dict[str, Any]:
        """Every option and its value (a new dict; change options with :meth:`set_params`)."""
        return {name: getattr(self, name) for name in type(self).params}

    @classmethod
    def _translate(cls, options: dict[str, Any], owner: str = "") -> dict[str, Any]:
        """``options`` with R's aliases under the options' names; an unknown name raises a
        ``TypeError`` naming ``owner`` (default ``Class()``) and the closest option."""
        options = translate_options(options, cls.__name__, aliases=cls._option_aliases)
        unknown = [name for name in options if name not in cls.params]
        if unknown:
            raise unknown_options_error(
                owner or f"{cls.__name__}()", unknown, list(cls.params), also=cls._option_aliases
            )
        return options

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and saved state: the options as one dict ``options``, then the rest."""
        params = type(self).params
        state = {k: v for k, v in self.__dict__.items() if k not in params and k != _STORED}
        return {"options": {k: self.__dict__[k] for k in params if k in self.__dict__}, **state}

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        options = state.pop("options", None)
        self.__dict__.update(state)
        params = type(self).params
        if not isinstance(options, dict) or set(options) != set(params):
            self.__dict__[_STORED] = options  # refused by results_io.check_options on load
        for name, value in (options or {}).items() if isinstance(options, dict) else ():
            if name in params:
                self.__dict__[name] = value

    def _validate_options(self) -> None:
        options = self.options
        if "random_state" in options:  # bootstrap()'s check and wording, wherever it is given
            check_random_state(options["random_state"])
        validate_parameters(self._parameter_constraints, options, type(self).__name__)
        self._check_options()

    def _check_options(self) -> None:
        """Validate combinations of options that do not depend on the data (override)."""

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        """Validate options against the data (override); raise ``ValueError`` with a remedy."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Options as a dict (scikit-learn convention).

        Parameters
        ----------
        deep : bool, default True
            Accepted for scikit-learn compatibility; options hold no nested estimators.

        Returns
        -------
        dict

        Examples
        --------
        >>> import sdrstats as sdr
        >>> sdr.SIR(nslices=8).get_params()["nslices"]
        8
        """
        return self.options

    def set_params(self, **options: Any) -> Estimator:
        """Change options in place and re-validate them (nothing changes if one is bad).

        Parameters
        ----------
        **options
            Options of the estimator; an unknown name raises ``TypeError``.

        Returns
        -------
        Estimator
            The estimator itself.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> sdr.SIR(nslices=8).set_params(d=2)  # doctest: +ELLIPSIS
        SIR(nslices=8, slice_function='dr', d_max=4, d=2, d_rule='asymptotic', ...)
        """
        options = self._translate(options, f"{type(self).__name__}.set_params()")
        before = self.options
        for name, value in options.items():
            setattr(self, name, value)
        try:
            self._validate_options()
        except Exception:
            for name, value in before.items():
                setattr(self, name, value)
            raise
        return self

    def clone(self, **changes: Any) -> Estimator:
        """A new estimator with the same options except ``changes``.

        Parameters
        ----------
        **changes
            Options to change.

        Returns
        -------
        Estimator

        Examples
        --------
        >>> import sdrstats as sdr
        >>> sdr.SIR(nslices=8, d=2).clone(nslices=5)  # doctest: +ELLIPSIS
        SIR(nslices=5, slice_function='dr', d_max=4, d=2, d_rule='asymptotic', ...)
        """
        if changes:
            changes = self._translate(changes, f"{type(self).__name__}.clone()")
        options = {k: _own(v) for k, v in self.options.items()}
        return type(self)._from_options({**options, **changes})

    @property
    def label(self) -> str:
        """Name shown in summaries (e.g. ``phdres`` for pHd on residuals)."""
        return self.method

    # -- fitting -------------------------------------------------------------------------
    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        raise NotImplementedError

    def fit_output(
        self,
        spec: ModelSpec,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        """What the method computes from ``spec`` with these options; writes nothing.

        The fit itself, as a pure function: :meth:`fit_spec` wraps it in results, and a
        result's refits (bootstrap, permutation, ladle) call it on resampled specs. A family
        that reads more of the spec than its rows (case weights, groups, predictor names)
        overrides it; the others implement ``_fit`` on the arrays.

        Parameters
        ----------
        spec : ModelSpec
            Rows, names, case weights and groups.
        weights : ndarray of shape (n,), optional
            Frequency weights (bootstrap multiplicities), as opposed to the spec's case
            weights.
        random_state : int, Generator or None, default None
            Seed of a randomised method.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"))
        >>> sdr.SIR(nslices=8).fit_output(spec).eigenvalues.round(3).tolist()
        [0.84, 0.016]
        """
        if spec.case_weights is not None and not self.capabilities.case_weights:
            raise self._no_case_weights()
        if not spec.keeps_rows:
            raise self.statistics_unavailable()
        return self._fit(spec.X, spec.Y, weights=weights, random_state=random_state)

    def _check_response(self, spec: ModelSpec) -> None:
        if self.response == "continuous" and spec.categorical:
            raise ValueError(
                f"{self.method} needs a numeric response but {spec.y_names[0]!r} is categorical "
                f"(levels {spec.y_levels[:5]}); code it as numbers or use a method for classes."
            )
        if self.response == "categorical" and not spec.categorical:
            raise ValueError(
                f"{self.method} needs a categorical response (class labels) but "
                f"{spec.y_names} is numeric; wrap it as C({spec.y_names[0]}) if it holds class "
                "codes, or use a method for a continuous response (e.g. spca or sir)."
            )

    def transform_arrays(self, output: EstimatorOutput, X: np.ndarray, d: int) -> np.ndarray:
        """Reduced predictors of rows ``X`` (override for kernel methods).

        Parameters
        ----------
        output : EstimatorOutput
            What :meth:`_fit` returned.
        X : ndarray of shape (m, p)
            Rows of predictors (already through the formula).
        d : int
            Number of directions.

        Returns
        -------
        ndarray of shape (m, d)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.SIR(nslices=8).fit(np.log(ais[["wt", "ht"]]), ais["lbm"])
        >>> fit.estimator.transform_arrays(fit.output, fit.spec.X[:2], 1).round(3)
        array([[0.109],
               [0.044]])
        """
        if output.basis is None:
            raise ValueError(f"{self.method} has no linear directions; it must define transform.")
        center = output.center if output.center is not None else 0.0
        return (X - center) @ output.basis_for(d)

    def fit_spec(self, spec: ModelSpec, call: str | None = None) -> Results:
        """Fit to a prepared spec and wrap the result.

        Parameters
        ----------
        spec : ModelSpec
            Data and names, from :func:`sdrstats.design.formula.parse` or ``from_arrays``.
        call : str, optional
            How the fit was requested, shown in the summary.

        Returns
        -------
        Results

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> ais = sdr.datasets.load("ais")
        >>> sdr.SIR(nslices=8).fit_spec(parse("lbm ~ log(wt) + log(ht)", ais))
        <MomentResults: sir, n = 202, p = 2, d = 1>
        """
        self._validate_options()  # an option may have been assigned directly since
        self._check_response(spec)
        if not spec.keeps_rows:
            return self._fit_without_rows(spec, call)
        try:
            if spec.n < 2:
                raise TooFewRowsError(
                    f"{self.method} needs at least 2 observations to estimate anything; got "
                    f"n = {spec.n}."
                )
            refuse_constant_response(spec, self.method)
            self._check_data(spec.X, spec.Y, spec.categorical)
        except TooFewRowsError as exc:
            dropped = getattr(spec, "dropped", None)
            if dropped:  # name the columns or terms that took the rows
                raise TooFewRowsError(f"{exc} ({dropped}.)") from None
            raise
        # the seed the result records: the fit and everything done later with it derive
        # their random streams from it, so a run without one can be repeated
        seed = fit_seed(self.options.get("random_state"))
        output = self.fit_output(spec, random_state=seed)
        results = self.results_class(self, spec, output, call=call, random_state=seed)
        results._settle_dimension()
        return results

    def fit_candidates(
        self,
        spec: ModelSpec,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        """The fit asked for ``d=None`` of a method that fits one dimension at a time.

        With the ``"cv"`` rule every candidate ``d = 1..d_max`` (default 4, below ``p``) is
        fitted and kept under ``extras["by_dimension"]`` (the rule compares them, and the
        chosen one becomes the fit's output without another fit); candidates stop at the
        first ``d`` the method cannot fit. Another rule gets the fit at ``d = 1`` and refits
        what it needs.

        Parameters
        ----------
        spec : ModelSpec
            The rows.
        weights : ndarray of shape (n,), optional
            Frequency weights.
        random_state : optional
            The fit's seed (the same for every candidate).

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ ht + wt + rcc", sdr.datasets.load("ais"))
        >>> out = sdr.KDR(max_iter=3, n_anneal=1).fit_candidates(spec, random_state=0)
        >>> sorted(out.extras["by_dimension"])
        [1, 2]
        """
        from ..inference.cv import cv_d_max

        def at(k: int) -> EstimatorOutput:
            return self.clone(d=k).fit_output(spec, weights=weights, random_state=random_state)

        if self.options.get("d_rule") != "cv":
            return at(1)
        outputs: dict[int, EstimatorOutput] = {}
        for k in range(1, cv_d_max(self.options.get("d_max"), spec.p) + 1):
            try:
                outputs[k] = at(k)
            except ValueError:
                if k == 1:
                    raise
                break
        first = outputs[1]
        return dataclasses.replace(first, extras={**first.extras, "by_dimension": outputs})

    def output_for_dimension(
        self, output: EstimatorOutput, d: int, spec: ModelSpec, *, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit's output reporting ``d`` directions (the choice of ``d_rule``).

        A fit asked for ``d=None`` computes what its rule needs; once the rule has chosen
        ``d`` this gives the output of the fit at that ``d``: the same output with ``d`` set
        for methods whose ``k``-dimensional answer is its first ``k`` directions
        (``capabilities.nested_directions``), the ``d``-dimensional fit kept under
        ``extras["by_dimension"]`` by methods that fit each candidate, else a fit at ``d``.

        Parameters
        ----------
        output : EstimatorOutput
            What :meth:`fit_output` returned with ``d=None``.
        d : int
            The chosen dimension.
        spec : ModelSpec
            The fit's data (for a refit at ``d``).
        random_state : optional
            The fit's seed.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ log(wt) + log(ht) + log(hg)", sdr.datasets.load("ais"))
        >>> sir = sdr.SIR(nslices=8)
        >>> sir.output_for_dimension(sir.fit_output(spec), 1, spec).d
        1
        """
        if output.d == d:
            return output
        by_dimension = output.extras.get("by_dimension")
        if isinstance(by_dimension, dict) and d in by_dimension:
            chosen = by_dimension[d]
            return dataclasses.replace(
                chosen, extras={**chosen.extras, "by_dimension": by_dimension}
            )
        width = None if output.basis is None else output.basis.shape[1]
        if self.capabilities.nested_directions and (width is None or width >= d):
            return dataclasses.replace(output, d=d)
        return self.clone(d=d).fit_output(spec, random_state=random_state)

    def _fit_without_rows(self, spec: ModelSpec, call: str | None) -> Results:
        """The fit of a spec holding chunks instead of rows: the family's passes over them
        check the data as they read it; the rows read (and a class response's levels) go to
        the result's spec."""
        if not self.capabilities.from_statistics:
            raise self.statistics_unavailable()
        seed = fit_seed(self.options.get("random_state"))
        output = self.fit_output(spec, random_state=seed)
        seen = {
            "n_rows": int(output.extras.pop("n_rows")),
            "n_dropped": int(getattr(spec.data, "n_dropped", 0)),
        }
        if "y_levels" in output.extras:
            seen["y_levels"] = output.extras.pop("y_levels")
        results = self.results_class(
            self, dataclasses.replace(spec, **seen), output, call=call, random_state=seed
        )
        results._settle_dimension()  # d=None: the method's rule, from the accumulated sums
        return results

    def fit(self, X: Any, y: Any, *, missing: str = "drop", sample_weight: Any = None) -> Results:
        """Fit to arrays (or a predictor DataFrame and a response Series).

        Parameters
        ----------
        X : array-like of shape (n, p)
            Predictors; a DataFrame's column names label the directions.
        y : array-like of shape (n,) or (n, q)
            Strings, booleans or a pandas categorical are class labels.
        missing : {"drop", "raise"}
            Rows with a missing value are dropped with a warning, or raise.
        sample_weight : array-like of shape (n,), optional
            Case weights of the moment methods, with R ``dr``'s rule (see ``weights`` of
            :func:`sdrstats.sir`).

        Returns
        -------
        Results

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.SIR(nslices=8).fit(np.log(ais[["wt", "ht"]]), ais["lbm"])
        >>> fit.x_names
        ['wt', 'ht']
        """
        made = format_call(type(self).__name__, options=self.options, defaults=self.params)
        tail = ["sample_weight=w"] if sample_weight is not None else []
        call = f"{made}.{format_call('fit', 'X', 'y', extra=tail)}"
        if self.checks_rows_in_pass and sample_weight is None:
            # the predictors are checked by the fit's first pass (one read of X fewer); rows
            # that are not clearly finite and in range go through the front's full check
            spec = own_copy(from_arrays(X, y, missing=missing, check_x=False), X, y)
            try:
                return self.fit_spec(spec, call=call)
            except RowsNotChecked:
                pass
            except ValueError:
                if spec.x_checked or clearly_fine(spec.X):
                    raise  # the predictors are fine: the error is the fit's own
        spec = own_copy(from_arrays(X, y, missing=missing), X, y)
        if sample_weight is not None:
            n_rows = len(X) if hasattr(X, "__len__") else spec.n
            spec = self._with_case_weights(spec, sample_weight, _row_index(X, n_rows))
        return self.fit_spec(spec, call=call)

    @classmethod
    def _no_case_weights(cls) -> TypeError:
        return TypeError(
            f"{cls.method} does not take case weights; weights= is for the moment methods "
            "(sir, save, phd, ire, cume, directional_regression)."
        )

    @classmethod
    def _with_case_weights(cls, spec: ModelSpec, weights: Any, index: Any) -> ModelSpec:
        """``spec`` with R-style case weights: validated, aligned to the fitted rows (``index``
        labels the rows ``weights`` were given for), rows of zero weight dropped, the rest
        rescaled by R's rule."""
        if not cls.capabilities.case_weights:
            raise cls._no_case_weights()
        given = check_weight_shape(weights, len(index))
        # only the fitted rows need a weight: R's NA for a row outside the subset or with a
        # missing value (dr_weights returns those) does not matter
        aligned = given[index.get_indexer(spec.index)] if len(index) != spec.n else given
        w = check_case_weights(aligned, spec.n)
        keep, w = rescale(w) if (w > ZERO_WEIGHT).any() else (None, None)
        if keep is None:
            raise ValueError("The 'weights' option is zero for every fitted row.")
        if not keep.all():
            spec = dataclasses.replace(
                spec,
                X=np.ascontiguousarray(spec.X[keep]),
                Y=np.ascontiguousarray(spec.Y[keep]),
                index=spec.index[keep],
                positions=np.flatnonzero(keep) if spec.positions is None else spec.positions[keep],
            )
        return dataclasses.replace(spec, case_weights=w)

    @classmethod
    def from_formula(
        cls,
        formula: str,
        data: Any,
        *,
        missing: str = "drop",
        subset: Any = None,
        weights: Any = None,
        **options: Any,
    ) -> Results:
        """Fit ``formula`` on ``data`` with ``options``.

        The formula functions (``sdr.sir``...) call this; ``data`` may also be a chunk
        source or a Dask DataFrame (see :mod:`sdrstats.scale`).

        Parameters
        ----------
        formula : str
            A patsy formula ``"y ~ x1 + log(x2)"``.
            Formula text is evaluated as Python (as in R and statsmodels): never pass one
            from an untrusted source. Column names are looked up as names, never run.
        data : pandas.DataFrame or chunk source
            The columns the formula names.
        missing : {"drop", "raise"}, default "drop"
            Rows with a missing value are dropped with a warning, or raise.
        subset : str or array-like of bool, optional
            Rows to use, selected before anything else as R's ``subset``: a pandas query
            string (``"sex == 'f'"``) or a boolean mask; the call records it.
        weights : str or array-like, optional
            Case weights (a column of ``data`` or one number per row) with R ``dr``'s rule:
            negative, NaN or infinite weights are errors, rows with ``w <= 1e-30`` are
            dropped, the rest rescaled to sum to the rows kept (moment methods only).
        **options
            Options of the estimator.

        Returns
        -------
        Results

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> sdr.SIR.from_formula("lbm ~ log(wt) + log(ht)", ais, nslices=8).call
        "sir('lbm ~ log(wt) + log(ht)', data, nslices=8)"
        """
        options = cls._translate(options, f"{cls.__name__}.from_formula()")
        return cls._fit_formula(
            formula, data, options, missing=missing, subset=subset, weights=weights
        )

    @classmethod
    def _fit_formula(
        cls,
        formula: str,
        data: Any,
        options: dict[str, Any],
        *,
        missing: str = "drop",
        subset: Any = None,
        weights: Any = None,
    ) -> Results:
        """:meth:`from_formula` on ``options`` already under the options' names."""
        call = format_call(
            cls.method,
            repr(formula),
            "data",
            options=options,
            defaults=cls.params,
            subset=subset,
            weights=weights,
        )

        if is_chunked(data):
            if subset is not None:
                raise ValueError(
                    "The 'subset' option needs the data in memory; filter the chunks (or the "
                    "Dask DataFrame) before fitting."
                )
            from ..scale.fit import fit_chunked

            return fit_chunked(
                cls._from_options(options), formula, data, missing=missing, weights=weights
            )
        estimator = cls._from_options(options)
        spec = parse(formula, data, missing=missing, subset=subset)
        if weights is not None:
            frame = select_rows(data, subset)
            if isinstance(weights, str):
                if weights not in frame.columns:
                    raise ValueError(
                        f"The 'weights' column {weights!r} is not in data; pass a column name "
                        "or an array with one weight per row."
                    )
                weights = frame[weights].to_numpy()
            elif subset is not None and len(weights) == len(data) != len(frame):
                weights = np.asarray(weights)[data.index.get_indexer(frame.index)]
            spec = cls._with_case_weights(spec, weights, frame.index)
        return estimator.fit_spec(spec, call=call)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({args})"


__all__ = [
    "Capabilities",
    "Estimator",
    "EstimatorOutput",
    "from_statistics_methods",
]
