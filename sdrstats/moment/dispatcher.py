"""R's ``dr()``: one front door to SIR, SAVE, pHd and IRE, chosen by ``method=``.

``sdr.dr(formula, data, method="save", nslices=8)`` is R's ``dr(formula, data, method =
"save", nslices = 8)``: the same methods under R's names (``"sir"``, ``"save"``, ``"phdy"``,
``"phdres"``, ``"phdq"``, ``"ire"``; the partial methods by ``group=``), R's argument names,
and a result whose ``Call:`` line reads as R's. It only translates: the fit is the method's
own formula function's (``sdr.save(formula, data, nslices=8)`` gives the same numbers).
"""

from __future__ import annotations

import inspect
import os
from typing import Any

import numpy as np

from ..base.validation import closest_option
from ..fitting.estimator import Estimator
from ..fitting.formula_functions import checks_option_names, fill_entries, shared_entries
from .ire import IRE
from .methods import PHD, SAVE, SIR
from .results import MomentResults

#: R dr's ``method`` values: the class and the options the method fixes. ``"phd"`` is R's
#: name for phdres too; ``"psir"``, ``"psave"`` and ``"pire"`` (what R prints for a fit
#: with ``group=``) need ``group=``.
R_METHODS: dict[str, tuple[type, dict[str, Any]]] = {
    "sir": (SIR, {}),
    "save": (SAVE, {}),
    "phdy": (PHD, {"residuals": False}),
    "phdres": (PHD, {"residuals": True}),
    "phd": (PHD, {"residuals": True}),
    "phdq": (PHD, {"residuals": "quadratic"}),
    "ire": (IRE, {}),
    "psir": (SIR, {}),
    "psave": (SAVE, {}),
    "pire": (IRE, {}),
}
#: What R dr's ``method`` values are not, and where the package has them.
ELSEWHERE = {
    "dr": "directional regression (Li & Wang 2007, abbreviated DR) is "
    "sdr.directional_regression(formula, data, ...); R's dr() has no method 'dr'",
    "directional": "directional regression is sdr.directional_regression(formula, data, ...)",
    "directional_regression": "directional regression is "
    "sdr.directional_regression(formula, data, ...)",
    "ols": "R dr's 'ols' (the OLS coefficient direction) is not a method here; every "
    "summary's R^2(OLS|dr) row compares the directions with it",
}
#: The methods named in messages (the others are R's aliases of these).
SHOWN_METHODS = "'sir', 'save', 'phdy', 'phdres', 'phdq', 'ire' (partial sir, save, ire: group=)"
#: R's slicing functions, accepted by name for ``slice_function``.
R_SLICE_FUNCTIONS = {"dr.slices": "dr", "dr.slices.arc": "arc"}
#: R's ``na.action`` values and the package's ``missing``.
NA_ACTIONS = {"na.omit": "drop", "na.fail": "raise"}
#: How the options appear in the ``Call:`` line: R's names where R has them.
R_NAMES = {"slice_function": "slice.function", "na_action": "na.action"}


def _package_methods() -> set[str]:
    """The methods of the package's estimator classes (every family's, as loaded)."""
    found: set[str] = set()
    stack = list(Estimator.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        found.add(cls.method)
    return found - {""}


def _method_choice(method: Any, group: Any) -> tuple[type, dict[str, Any]]:
    """The class and fixed options of R's ``method``, or an error saying what to write."""
    if not isinstance(method, str) or method not in R_METHODS:
        shown = SHOWN_METHODS
        if isinstance(method, str) and method.lower() in ELSEWHERE:
            where = ELSEWHERE[method.lower()]
            raise ValueError(f"dr() got method={method!r}, which is not R dr's: {where}.")
        if isinstance(method, str) and method in _package_methods():
            raise ValueError(
                f"dr() fits R dr's methods ({shown}); {method!r} is not one of them: call "
                f"sdr.{method}(formula, data, ...)."
            )
        match = closest_option(str(method), R_METHODS) if isinstance(method, str) else None
        hint = f" Did you mean {match!r}?" if match else ""
        raise ValueError(f"dr() got method={method!r}; R dr's methods are {shown}.{hint}")
    if method in ("psir", "psave", "pire") and group is None:
        raise ValueError(
            f"method={method!r} is R's name for {method[1:]} with group=; give the group "
            f"(e.g. group='~ sex'), or method={method[1:]!r} for the ordinary fit."
        )
    return R_METHODS[method]


def _r_value(value: Any) -> str:
    """``value`` as R prints it in a call: strings quoted, TRUE/FALSE, c(...) for vectors."""
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return repr(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)
    if isinstance(value, (list, tuple, np.ndarray)):
        return "c(" + ", ".join(_r_value(v) for v in np.asarray(value).ravel().tolist()) + ")"
    return repr(value)


_HERE = {os.path.abspath(__file__)}


def _caller_name(value: Any) -> str | None:
    """The name the caller of :func:`dr` gave ``value`` (R's call shows ``data = ais``).

    Looks in the first frame outside this module and the option-name check that wraps
    :func:`dr`; None when ``value`` has no name there (an expression, a temporary).
    """
    from ..fitting import formula_functions

    skip = _HERE | {os.path.abspath(formula_functions.__file__)}
    frame = inspect.currentframe()
    try:
        while frame is not None and os.path.abspath(frame.f_code.co_filename) in skip:
            frame = frame.f_back
        if frame is None:
            return None
        for scope in (frame.f_locals, frame.f_globals):
            for name, obj in scope.items():
                if obj is value and name.isidentifier() and not name.startswith("_"):
                    return name
        return None
    finally:
        del frame


def r_call(
    formula: str, data: Any, method: str, given: dict[str, Any], data_name: str | None = None
) -> str:
    """The ``Call:`` line of :func:`dr`, in R's style.

    R's ``match.call()`` lists ``formula``, ``data``, ``subset``, ``group``, ``na.action``
    and ``weights`` in the order of ``dr``'s signature, then the other arguments; strings are
    double-quoted, a group is a one-sided formula, a column name is written bare.

    Parameters
    ----------
    formula : str
        The formula as given.
    data : object
        The data (named as the caller named it, else ``data``).
    method : str
        R's method; shown unless it is the default ``"sir"``.
    given : dict
        The other arguments given (not at their defaults), by their Python names.
    data_name : str, optional
        The name to show for ``data``.

    Returns
    -------
    str

    Examples
    --------
    >>> r_call("y ~ x1 + x2", None, "save", {"nslices": 8, "group": "sex"}, "df")
    'dr(formula = y ~ x1 + x2, data = df, group = ~sex, method = "save", nslices = 8)'
    """
    parts = [f"formula = {' '.join(str(formula).split())}", f"data = {data_name or 'data'}"]
    given = dict(given)
    subset = given.pop("subset", None)
    if subset is not None:
        shown = subset if isinstance(subset, str) else (_caller_name(subset) or "<mask>")
        parts.append(f"subset = {shown}")
    group = given.pop("group", None)
    if group is not None:
        parts.append(f"group = ~{str(group).strip().lstrip('~').strip()}")
    na_action = given.pop("na_action", None)
    if na_action is not None:
        parts.append(f"na.action = {na_action}")
    weights = given.pop("weights", None)
    if weights is not None:
        shown = weights if isinstance(weights, str) else (_caller_name(weights) or "<array>")
        parts.append(f"weights = {shown}")
    if method != "sir":
        parts.append(f"method = {_r_value(method)}")
    for name, value in given.items():
        if name == "slice_function":
            value = {"dr": "dr.slices", "arc": "dr.slices.arc"}.get(value, value)
            parts.append(f"slice.function = {value}")
            continue
        parts.append(f"{R_NAMES.get(name, name)} = {_r_value(value)}")
    return f"dr({', '.join(parts)})"


def _documented(fn: Any) -> Any:
    """Fill the entries :func:`dr` shares with every formula function."""
    entries = shared_entries()
    entries["weights"] += " Not with ``group=`` for sir and save."
    fn.__doc__ = fill_entries(fn.__doc__ or "", entries)
    return fn


@checks_option_names
@_documented
def dr(
    formula: str,
    data: Any,
    *,
    method: str = "sir",
    nslices: int | None = None,
    numdir: int | None = None,
    d_max: int = 4,
    d: int | None = None,
    d_rule: str | None = None,
    slice_function: str | None = None,
    cut_points: Any = None,
    group: str | None = None,
    pool: bool | None = None,
    steps: int | None = None,
    tol: float | None = None,
    max_iter: int | None = None,
    random_state: Any = None,
    weights: Any = None,
    subset: Any = None,
    na_action: str | None = None,
    missing: str = "drop",
) -> MomentResults:
    """R's ``dr()``: sufficient dimension reduction by the method R ``dr`` names.

    ``sdr.dr(formula, data, method="save", nslices=8)`` fits what R's
    ``dr(formula, data, method = "save", nslices = 8)`` fits, with R's names for the
    methods and the arguments; the result is the method's own (:func:`sir`, :func:`save`,
    :func:`phd`, :func:`ire` give identical numbers) and its ``Call:`` line reads as R's.
    Options a method does not take are an error naming the method, where R ignores them.
    Directional regression, which R ``dr`` does not have, is
    :func:`sdrstats.directional_regression`.

    Parameters
    ----------
    {formula}
    {data}
    method : {"sir", "save", "phdy", "phdres", "phdq", "ire"}, default "sir"
        R ``dr``'s method (its default is ``"sir"``). ``"phd"`` is accepted as R accepts
        it (``"phdres"``); ``"psir"``, ``"psave"`` and ``"pire"``, the names R prints for
        the partial methods, need ``group=``.
    nslices : int, optional
        Slices (sir, save, ire); default the method's: ``max(8, p + 3)``, or 2 in every
        group for partial sir and save and ``p`` for partial ire, as R.
    numdir : int, optional
        R's name for ``d_max`` (an alias; give one of them).
    d_max : int, default 4
        Largest dimension shown and tested (R's ``numdir``).
    d : int, optional
        Dimension of ``directions`` and ``transform`` (not in R); default the one the
        method's large-sample test chooses at level 0.05, the "Chosen d" R's summary
        implies (see ``d_rule``).
    d_rule : str, optional
        The rule that chooses ``d`` when it is not given (not in R); default the method's,
        ``"asymptotic"``. See ``docs/vocabulary.md``.
    slice_function : {"dr", "arc"}, optional
        Slicing rule (sir, save, ire): R's ``slice.function``, ``dr.slices`` (``"dr"``, the
        default) or ``dr.slices.arc`` (``"arc"``); R's names are accepted too.
    cut_points : sequence of float, optional
        Fixed slice boundaries instead of ``nslices`` (sir, save, ire; not in R).
    group : str, optional
        R's ``group = ~G``: a column of ``data`` (``"G"`` or ``"~ G"``) for the partial
        methods, one subspace shared by the levels of ``G`` (sir, save, ire).
    pool : bool, optional
        Partial sir and save: whiten every group by the pooled covariance (R's ``pool``;
        default ``False``).
    steps : int, optional
        IRE's re-estimations of ``Γ_ζ`` (default 1); see :class:`IRE`.
    tol : float, optional
        IRE's stopping tolerance (R's ``eps``, default 1e-6).
    max_iter : int, optional
        IRE's sweeps of alternating least squares (R's ``itmax``, default 200).
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (not in R): the tests that resample, ``bootstrap()`` and
        ``conditional_density()`` draw from streams derived from it; None draws one, which
        the summary prints.
    {weights}
    {subset}
    na_action : {"na.omit", "na.fail"}, optional
        R's ``na.action``: ``"na.omit"`` drops rows with a missing value (with a
        :class:`~sdrstats.MissingValueWarning`), ``"na.fail"`` raises. R ``dr``'s own default
        is ``na.fail``; here, without ``na_action``, ``missing`` decides (default: drop, as
        every formula function of the package).
    {missing}

    Returns
    -------
    MomentResults
        The method's result (``IREResults`` for ire), with R's ``Call:`` line.

    Raises
    ------
    ValueError
        For a method R ``dr`` does not have (the message says where the package has it),
        or ``group=`` with a method R has no partial version of.
    TypeError
        For an option the method does not take, or a misspelt one.

    See Also
    --------
    sir, save, phd, ire : The methods it dispatches to, with this package's names.
    sdrstats.moment.results.MomentResults : What it returns.
    dr_weights : R's ``dr.weights``.

    Notes
    -----
    R's other arguments: ``chi2approx`` is an argument of the tests
    (``fit.coordinate_test(..., chi2approx="wood")``, ``fit.drop1``); R's ``x``/``y``
    interface is the estimator classes (``sdr.SIR(nslices=8).fit(X, y)``).

    The partial SIR of this package weighs each group by its share of the rows, where R's
    ``psir`` does not (see :mod:`sdrstats.moment.partial`); every other method gives R's
    numbers.

    References
    ----------
    :cite:t:`weisberg2002`; :cite:t:`chiaromonte2002`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.dr("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, method="save",
    ...              nslices=8)
    >>> print(fit.call)
    dr(formula = lbm ~ log(ssf) + log(wt) + log(hg) + log(ht), data = ais, method = "save", nslices = 8)
    >>> fit.eigenvalues.round(3).tolist()
    [0.903, 0.224, 0.201, 0.104]
    >>> by_sex = sdr.dr("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, group="~sex")
    >>> by_sex.summary().blocks[1].text
    'partial sir (group sex: f, m) with 2 2 slices, n = 100 102.'
    """  # noqa: E501
    cls, fixed = _method_choice(method, group)
    if na_action is not None:
        if na_action not in NA_ACTIONS:
            raise ValueError(
                f"dr() got na_action={na_action!r}; R's na.action values here are "
                f"{list(NA_ACTIONS)} (drop rows with a missing value, or stop)."
            )
        if missing != "drop" and NA_ACTIONS[na_action] != missing:
            raise TypeError(
                f"dr() got both na_action={na_action!r} and missing={missing!r}; give one."
            )
        missing = NA_ACTIONS[na_action]
    if group is not None and cls is PHD:
        raise ValueError(
            f"dr() got group= with method={method!r}; R dr's partial methods (group=) are "
            "sir, save and ire."
        )
    slice_function = R_SLICE_FUNCTIONS.get(slice_function, slice_function)  # type: ignore[arg-type]
    if numdir is not None:
        if d_max != 4:
            raise TypeError("dr() got both 'd_max' and 'numdir' (an alias of 'd_max'); give one.")
        d_max = numdir
    method_options = {
        "nslices": nslices,
        "d": d,
        "slice_function": slice_function,
        "cut_points": cut_points,
        "group": group,
        "pool": pool,
        "steps": steps,
        "tol": tol,
        "max_iter": max_iter,
        "d_rule": d_rule,
        "random_state": random_state,
    }
    taken = set(cls.params) - set(fixed)
    refused = [k for k, v in method_options.items() if v is not None and k not in taken]
    if refused:
        raise TypeError(
            f"dr(method={method!r}) does not take {', '.join(map(repr, refused))}; the options "
            f"of {method} are: {', '.join(['d_max', *sorted(taken - {'d_max'})])}."
        )
    options = {k: v for k, v in method_options.items() if v is not None}
    fit = cls.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        weights=weights,
        d_max=d_max,
        **fixed,
        **options,
    )
    shown = {"subset": subset, "group": group, "weights": weights}
    if na_action is not None:
        shown["na_action"] = na_action
    if numdir is not None or d_max != 4:
        options["numdir"] = d_max
    if missing != "drop" and na_action is None:
        options["missing"] = missing
    shown.update((k, v) for k, v in options.items() if k != "group")
    given = {k: v for k, v in shown.items() if v is not None}
    data_name = _caller_name(data)
    # the result was made a moment ago by the method's own front; only its call line is R's
    fit.call = r_call(formula, data, method, given, data_name)
    return fit


__all__ = ["dr", "r_call", "R_METHODS"]
