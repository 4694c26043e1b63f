"""Formula front: a patsy formula and a data frame become a :class:`ModelSpec`.

The spec holds the response and predictor arrays with their names, patsy's design information
(so :meth:`ModelSpec.transform_x` applies the same transforms and factor levels to new rows),
and the rows that were kept. It is built once per fit; estimators never see formulas.

Formula conventions (as in R; R's formula language is read as R reads it, see
:mod:`sdrstats.design.rsyntax` and :mod:`sdrstats.design.rfunctions`):

* ``y ~ .`` expands ``.`` to every column not used in the response; ``y ~ . - x3`` then
  removes a term, and ``y ~ .^2`` adds every two-way interaction.
* ``y1 + y2 ~ x1 + x2`` is a two-column response.
* a string, boolean or categorical response column (or ``C(y)``) is a class label.
* the intercept column is dropped (SDR centres the predictors) while factors keep the
  full-rank coding they get with an intercept. R's ``- 1`` and ``+ 0`` are accepted and
  change nothing (R's model matrix would code the first factor in full, which centring
  makes collinear).
* ``^`` is R's: a power inside ``I()`` and other arithmetic (``I(hp^2)``, ``-2^2`` is -4,
  right-associative), crossing between terms (``(a + b + c)^2`` is every term up to two-way
  interactions), and a bare ``x^2`` term is ``x``. ``%%`` and ``%/%`` are R's too.
* R's functions: ``log``, ``log2``, ``log10``, ``log1p``, ``exp``, ``sqrt`` and ``abs``
  evaluate as numpy's; ``factor()``, ``as.factor()`` (treatment contrasts), ``ordered()``
  (R's polynomial contrasts ``contr.poly``), ``as.numeric()`` (a factor's level codes, as
  R), ``poly(x, k)`` (R's orthogonal polynomials, the same numbers and signs; ``raw =
  TRUE`` for powers) and ``scale()`` (mean and ``n - 1`` standard deviation of the fitted
  data, reused by ``transform(newdata)``), with ``TRUE``/``FALSE``, ``c(...)`` and ``2L`` in
  their arguments; alongside ``np`` and the caller's own names, and patsy's ``C()``,
  ``center()``, ``standardize()`` and splines. What R accepts and is not supported here
  (``%in%``, ``offset()``, ``ns()``, R's argument names of ``bs()``, ``log(x, base)``,
  R's other dotted functions) is an error naming the term and saying what to write.
* an ordered categorical column is an ordered factor: polynomial contrasts (``size.L``,
  ``size.Q``), as R codes it; an unordered one, text and booleans get treatment contrasts.
  Where a term needs a factor coded in full (``x:size`` without ``x`` among the terms, by
  R's rule) it gets one indicator column per level, as in R's model matrix.
* predictors come in R's order: the terms as the formula names them, main effects before
  two-way interactions before higher ones (R's ``terms()``), so ``mpg ~ displacement +
  factor(origin)`` lists ``displacement`` before the ``origin`` columns (patsy alone would put
  factor-only terms first). The variables inside an interaction are in the order they first
  appear in the formula, as R's ``terms()`` puts them (``size + wt:size`` has the term
  ``size:wt``), and the left-most factor's levels vary fastest. ``directions``, summaries,
  ``transform`` and the predictor tests all use this order.
* predictor names are R's ``model.matrix`` names, so an R user recognises them: a factor's
  column is the term followed by its level (``sexm``, ``factor(cyl)6``, ``amTRUE``; patsy
  would write ``sex[T.m]``), polynomial contrasts add ``.L``, ``.Q``, ``.C``, ``^4``, a term
  of several columns adds ``1``, ``2``... (``poly(hp, 2)1``), and terms are spelt as R
  deparses them (``I(hp^2)``, ``as.factor(am)``, ``poly(hp, 2, raw = TRUE)``). Patsy's own
  contrasts keep patsy's suffixes (``C(g, Sum)[S.a]``), and a name R would backquote is
  shown backquoted as R shows it (```name with space```, ```2nd```), whether the formula
  wrote it bare, backquoted or as ``Q("name with space")``.
* factor levels follow R's ``factor()``: a pandas categorical keeps its categories in their
  order (R keeps a factor's levels); otherwise the distinct values sorted, numbers
  numerically, ``False`` before ``True`` and text by character code, which is R's order in
  the C collation locale (in other locales R may sort mixed-case or punctuated text
  differently: pass a categorical to fix the order). The first level is the reference
  (R's ``contr.treatment``); ``factor(g, levels = c("v", ...))`` or ``C(g, Treatment("v"))``
  makes ``v`` the reference, as R's ``relevel``. Levels no fitted row holds (an unused
  category, or one whose rows a subset or missing values removed) are dropped, as R's model
  frame drops them, and the summary says so in a note; a factor left with a single level is
  an error naming it, as in R.
* R's column names work unquoted: formula text that is exactly a column of ``data``, such
  as ``MPG.city``, ``Rev.per.mile``, ``2nd`` or ``name with space``, means that column
  (:mod:`sdrstats.design.names`); names R writes bare are shown bare (``MPG.city``), the
  others backquoted, as R shows them.
* a factor among the predictors may have at most half as many levels as rows
  (:data:`MAX_LEVELS_PER_ROW`): a text column with a value per row (an id, a name) is an
  error naming it, not ``n - 1`` dummy columns. A column of numbers with a few values that
  are not numbers (``"?"``) is an error naming the values and their rows, predictor or
  response alike.
* rows with a missing value in any variable, or where a term is undefined (``log`` of a
  negative number is NaN), are dropped as R's ``na.omit`` does, with one warning naming
  them. Two differences from R's model frame are deliberate: ``subset=`` selects the rows
  first (R evaluates the terms on every row, so R's ``scale()`` and ``poly()`` learn from
  rows the subset leaves out), and a column removed with ``- x`` plays no part (R still drops
  the rows where it is missing).

The matrix is built in bulk from the column arrays where every term allows it (numeric
columns, element-wise functions, interactions, factors), with patsy's own design
information, and by patsy otherwise (:mod:`sdrstats.design.builder`): the same numbers,
names and rows either way.

Security: formula text is evaluated as Python (patsy evaluates each term, as R and statsmodels
evaluate theirs), so formula text must never come from an untrusted source. Data are not code:
``.`` expands to the other columns by reference (``Q(<escaped literal>)``), so a hostile column
name in a CSV header is looked up as a name and never runs.
"""

from __future__ import annotations

import ast
import inspect
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ..base.warnings import MissingValueWarning
from . import builder
from .arrays import from_arrays
from .checks import (
    _check_data,
    _check_object_columns,
    _explain_patsy_error,
    _is_label_column,
    _mentioned_columns,
    _quote,
    check_finite,
)
from .names import (
    check_called_columns,
    check_quoted_columns,
    display,
    quote_columns,
    r_column_names,
    r_level,
)
from .rsyntax import to_patsy, wrap_ordered
from .spec import _R_NAMES, ModelSpec


def _user_env() -> patsy.EvalEnvironment:
    """The namespace of the first caller outside sdrstats, plus R-style function names."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__", "").startswith("sdrstats"):
        frame = frame.f_back
    namespaces = [] if frame is None else [frame.f_locals, frame.f_globals]
    del frame
    return patsy.EvalEnvironment(namespaces).with_outer_namespace(_R_NAMES)


def _quoted_literal(term: str) -> str | None:
    """The column name inside ``Q("...")`` (any quoting Python allows), else None."""
    m = re.fullmatch(r"Q\(\s*(.+?)\s*\)", term, flags=re.S)
    if not m:
        return None
    try:
        value = ast.literal_eval(m.group(1))  # literals only: never evaluates code
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def _split_top(text: str, sep: str = "+") -> list[str]:
    """Split ``text`` at ``sep`` outside parentheses and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _rhs_columns(rhs: str, columns: list[str]) -> list[str]:
    """The columns the terms that survive patsy's ``+``/``-`` algebra of ``rhs`` name.

    Only parses (patsy's parser evaluates nothing), so ``. - when`` does not count ``when``.
    """
    try:
        desc = builder.model_desc(rhs)
    except patsy.PatsyError:
        return _mentioned_columns(rhs, columns)
    codes = " ".join(f.code for term in desc.rhs_termlist for f in term.factors)
    return _mentioned_columns(codes, columns)


def _label_term(term: str, data: pd.DataFrame) -> str | None:
    """The column behind a response term that should be read as a class label, else None:
    a label column, or a column inside ``C()`` or R's ``factor()``, ``as.factor()``,
    ``ordered()``."""
    inner = term
    m = re.fullmatch(r"(?:C|factor|as_factor|ordered)\((.+)\)", term, flags=re.S)
    if m:
        inner = m.group(1).strip()
    quoted = _quoted_literal(inner)
    if quoted is not None:
        inner = quoted
    if inner in data.columns and (m is not None or _is_label_column(data[inner])):
        return inner
    return None


def select_rows(data: Any, subset: Any, *, allow_empty: bool = False) -> pd.DataFrame:
    """The rows of ``data`` that ``subset`` selects (R's ``subset=``), before anything else.

    Parameters
    ----------
    data : pandas.DataFrame
        The data; it is never modified.
    subset : str or array-like of bool or None
        A pandas query string (``"sex == 'f'"``, ``"ht > 175"``) or a boolean mask with one
        entry per row (a boolean Series is aligned on the index); ``None`` keeps every row.
    allow_empty : bool, default False
        Return no rows instead of raising when nothing is selected (one chunk of a stream).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import sdrstats as sdr
    >>> select_rows(sdr.datasets.load("ais"), "sex == 'f'").shape
    (100, 13)
    """
    data = _check_data(data)
    if subset is None:
        return data
    if isinstance(subset, str):
        try:
            mask = data.eval(subset, engine="python")
        except Exception as exc:
            raise ValueError(
                f"The 'subset' query {subset!r} could not be evaluated on data: {exc}. Write a "
                'pandas query on its columns, e.g. "sex == \'f\'" or "ht > 175".'
            ) from None
        if not isinstance(mask, pd.Series) or mask.dtype != bool:
            raise ValueError(
                f"The 'subset' query {subset!r} must give True/False per row (a comparison such "
                'as "ht > 175"); it gave '
                f"{getattr(mask, 'dtype', type(mask).__name__)}."
            )
        mask = mask.to_numpy()
    elif isinstance(subset, pd.Series):
        if subset.dtype != bool:
            raise TypeError(f"A 'subset' Series must be boolean; got dtype {subset.dtype}.")
        if not subset.index.equals(data.index):
            if not data.index.isin(subset.index).all():
                raise ValueError(
                    "The 'subset' Series does not have an entry for every row of data."
                )
            subset = subset.reindex(data.index)
        mask = subset.to_numpy()
    else:
        mask = np.asarray(subset)
        if mask.dtype != bool:
            raise TypeError(
                "The 'subset' option must be a query string or a boolean mask; got an array of "
                f"dtype {mask.dtype} (use e.g. data['ht'] > 175)."
            )
        if mask.shape != (data.shape[0],):
            raise ValueError(
                f"The 'subset' mask has shape {mask.shape}; it needs one entry per row of data "
                f"({data.shape[0]})."
            )
    if not mask.any() and not allow_empty:
        raise ValueError(f"The 'subset' option {describe_subset(subset)} selects no rows.")
    return data.loc[mask]


def describe_subset(subset: Any) -> str:
    """How ``subset`` is shown in a fit's call: the query text, or the size of a mask."""
    if isinstance(subset, str):
        return repr(subset)
    mask = np.asarray(subset, dtype=bool)
    return f"<mask: {int(mask.sum())} of {mask.size} rows>"


def parse(
    formula: str,
    data: Any,
    *,
    missing: str = "drop",
    subset: Any = None,
    empty_levels: bool = False,
) -> ModelSpec:
    """Evaluate ``formula`` on ``data`` and return the model spec.

    Parameters
    ----------
    formula : str
        ``"response ~ predictors"`` in patsy syntax, with R's ``.`` for all other columns.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The data; it is never modified.
    missing : {"drop", "raise"}
        Rows with a missing value in any variable of the formula are dropped with a
        :class:`~sdrstats.MissingValueWarning` saying how many (``"drop"``), or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected first (see :func:`select_rows`).
    empty_levels : bool, default False
        Allow factor levels without rows (a first chunk of a stream or of chunked data need
        not hold every level); otherwise they are an error naming the level.

    Returns
    -------
    ModelSpec

    Examples
    --------
    >>> import sdrstats as sdr
    >>> spec = parse("lbm ~ log(wt) + ht + sex", sdr.datasets.load("ais"))
    >>> spec.x_names  # R's order: as the formula names them
    ['log(wt)', 'ht', 'sexm']
    """
    lhs, rhs = _split_formula(formula, missing)
    data = select_rows(data, subset)
    columns = [str(c) for c in data.columns]
    frame = data.copy(deep=False)
    frame.columns = pd.Index(
        columns, dtype=object
    )  # object labels: fast lookups (pandas 3 would store them as arrow strings)
    original_index = frame.index
    frame = frame.reset_index(drop=True)

    lhs = to_patsy(quote_columns(lhs, columns), columns)
    rhs = to_patsy(quote_columns(rhs, columns), columns)
    y_terms = _split_top(lhs)
    if any(t == "" for t in y_terms):
        raise ValueError(f"formula {formula!r} has an empty response term.")
    y_columns = _mentioned_columns(lhs, columns)
    original_rhs, rhs = rhs, _expand_dot(rhs, columns, y_columns)
    rhs = _r_term_order(_keep_intercept(wrap_ordered(rhs, _ordered_columns(frame))))
    env = _user_env()
    for side in (lhs, rhs):
        check_called_columns(side, columns)
        check_quoted_columns(side, columns, env)
    rhs_columns = _rhs_columns(rhs, columns)
    both = [c for c in y_columns if c in rhs_columns]
    if both:
        raise ValueError(
            f"The response column(s) {both} also appear among the predictors of {formula!r}; "
            "a variable cannot predict itself: remove it from the right of '~'."
        )
    _check_object_columns(
        frame, y_columns + rhs_columns, labels=tuple(y_columns), index=original_index
    )
    if not empty_levels:
        _check_level_counts(rhs, frame, lhs if rhs != original_rhs else None)
    design = _predictor_design(rhs, frame, env)
    if design.columns.size == 0:
        raise ValueError(f"formula {formula!r} has no predictors besides the intercept.")
    response = _response(y_terms, frame, env)
    keep = design.complete & response.complete
    if not keep.any() and _STATEFUL.search(rhs):
        with_na = [c for c in rhs_columns if frame[c].isna().any()]
        raise ValueError(
            f"No rows are left: a transform that learns from its column (center, standardize, "
            f"bs, cr, cc, te) is undefined on every row when the column has missing "
            f"values ({with_na}). Drop those rows first, e.g. data.dropna(subset={with_na})."
        )
    n_dropped, why_dropped = _report_missing(
        frame, keep, lhs + " " + rhs, columns, missing, design.undefined
    )
    notes: list[str] = []
    if not empty_levels:
        dropped = _drop_unused_levels(design.info, frame, keep)
        if dropped:
            design = _predictor_design(rhs, frame, env)
            notes.append(_dropped_levels_note(dropped))
        _check_single_levels(design.info, frame.columns)

    names = r_column_names(design.info)
    x_names = [names[j] for j in design.columns]
    X = design.matrix(keep)
    check_finite(X, x_names, "Predictor")
    if not empty_levels:
        _check_empty_levels(X, x_names, design.info, design.columns, columns)
    Y, y_levels = response.values(frame, keep)
    if not empty_levels and y_levels is not None:
        _check_response_levels(response.names[0], Y, y_levels)
    return ModelSpec(
        X=X,
        Y=np.ascontiguousarray(Y),
        x_names=x_names,
        y_names=[display(name) for name in response.names],
        index=original_index[np.flatnonzero(keep)],
        y_levels=y_levels,
        formula=f"{lhs} ~ {rhs}" if "." not in formula else formula,
        design_info=design.info,
        design_columns=design.columns,
        n_dropped=n_dropped,
        rhs=rhs,
        source=_take_columns(frame, _mentioned_columns(rhs, columns)),
        positions=np.flatnonzero(keep) if n_dropped else None,
        notes=tuple(notes),
        dropped=why_dropped,
    )


_STATEFUL = re.compile(r"(?<![\w.])(center|standardize|bs|cr|cc|te)\s*\(")
_DOT = re.compile(r"(?<![\w.])\.(?![\w.])")
_NA_ACTION = patsy.NAAction(NA_types=["None", "NaN"])


def _ordered_columns(frame: pd.DataFrame) -> list[str]:
    return [
        c
        for c, dtype in zip(frame.columns, frame.dtypes)  # no Series per column
        if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered
    ]


def _take_columns(frame: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """``frame[names]`` (unique column labels) by position: the same frame without the
    label indexer's cost (several times a column lookup's)."""
    where = {c: j for j, c in enumerate(frame.columns)}
    return frame.take([where[c] for c in names], axis=1)


def _keep_intercept(rhs: str) -> str:
    """``rhs`` with its intercept: R's ``- 1`` and ``+ 0`` change nothing in SDR, which centres
    the predictors, and a factor keeps the reduced coding it has beside an intercept (R's
    model matrix would code it in full, which centring makes collinear)."""
    try:
        terms = builder.model_desc(rhs).rhs_termlist
    except patsy.PatsyError:
        return rhs
    if any(not term.factors for term in terms):
        return rhs
    return f"{rhs} + 1"


def _r_term_order(rhs: str) -> str:
    """``rhs`` with the variables inside each interaction in R's order: their first
    appearance in the formula (R's ``terms()``), so ``size + wt:size`` has the term
    ``size:wt`` and R's names (``sizesmall:wt``); patsy keeps the order written.

    The terms are written out one by one (``hp * wt`` becomes ``hp + wt + hp:wt``) only when
    some interaction is reordered.
    """
    try:
        terms = builder.model_desc(rhs).rhs_termlist
    except patsy.PatsyError:
        return rhs
    first: dict[Any, int] = {}
    for term in terms:
        for factor in term.factors:
            first.setdefault(factor, len(first))
    ordered = [sorted(term.factors, key=first.__getitem__) for term in terms]
    if all(list(term.factors) == factors for term, factors in zip(terms, ordered)):
        return rhs
    written = [":".join(f.code for f in factors) for factors in ordered if factors]
    intercept = "1" if any(not term.factors for term in terms) else "0"
    return " + ".join([intercept, *written])


def _drop_unused_levels(
    design_info: Any, frame: pd.DataFrame, keep: np.ndarray
) -> dict[str, list[Any]]:
    """Drop the factor levels no fitted row holds, as R's model frame does
    (``drop.unused.levels``): each such column of ``frame`` becomes a categorical of the
    levels used, in their order. Returns the dropped levels of each column.

    A column also read as numbers elsewhere in the formula (``factor(k) + k``) is left as it
    is; its empty coding columns are then refused by :func:`_check_empty_levels`.
    """
    columns = list(frame.columns)
    numeric = " ".join(
        f.code for f, info in design_info.factor_infos.items() if info.type == "numerical"
    )
    as_numbers = set(_mentioned_columns(numeric, columns))
    dropped: dict[str, list[Any]] = {}
    for factor, info in design_info.factor_infos.items():
        if info.type != "categorical":
            continue
        column = builder.factor_column(factor.code, columns)
        if column is None or column in as_numbers or column in dropped:
            continue
        series = frame[column]
        levels = list(info.categories)
        used = pd.Index(levels).isin(pd.unique(series[keep].dropna().to_numpy()))
        if used.all() or not used.any():
            continue
        ordered = isinstance(series.dtype, pd.CategoricalDtype) and series.dtype.ordered
        kept = [level for level, u in zip(levels, used) if u]
        frame[column] = pd.Categorical(series, categories=kept, ordered=ordered)
        dropped[column] = [level for level, u in zip(levels, used) if not u]
    return dropped


def _dropped_levels_note(dropped: dict[str, list[Any]]) -> str:
    shown = "; ".join(
        f"{display(_quote(column))}: {', '.join(map(r_level, levels))}"
        for column, levels in dropped.items()
    )
    return f"Unused factor levels dropped (no fitted rows), as R's model frame drops them: {shown}."


def _check_single_levels(design_info: Any, columns: Any) -> None:
    """A factor predictor needs two levels among the fitted rows (R: "contrasts can be
    applied only to factors with 2 or more levels"); with one it would vanish unseen."""
    for factor, info in design_info.factor_infos.items():
        if info.type == "categorical" and len(info.categories) < 2:
            column = builder.factor_column(factor.code, columns)
            what = (
                f"column {column!r}" if column is not None else f"term {display(factor.name())!r}"
            )
            level = r_level(info.categories[0]) if info.categories else "none"
            raise ValueError(
                f"The factor {what} has a single level ({level}) among the rows fitted (a "
                "subset or missing values can leave one); a factor needs two levels to "
                "predict anything: remove it from the formula, or fit on rows with more levels."
            )


def _check_empty_levels(
    X: np.ndarray,
    x_names: list[str],
    design_info: Any,
    design_columns: np.ndarray,
    columns: list[str],
) -> None:
    """A factor level with no row among those fitted gives an all-zero coding column. Unused
    levels are dropped before (:func:`_drop_unused_levels`) except where the factor's column
    is read as numbers too, or the levels were given (``factor(g, levels = ...)``)."""
    factor_columns: dict[int, Any] = {}
    for term in design_info.terms:
        factors = [f for f in term.factors if design_info.factor_infos[f].type == "categorical"]
        if factors:
            part = design_info.term_slices[term]
            factor_columns.update({j: factors[0] for j in range(part.start, part.stop)})
    empty = [
        k for k, j in enumerate(design_columns) if int(j) in factor_columns and not X[:, k].any()
    ]
    if empty:
        shown = [x_names[k] for k in empty]
        factor = factor_columns[int(design_columns[empty[0]])]
        column = builder.factor_column(factor.code, columns) or "g"
        raise ValueError(
            f"Factor coding column(s) {shown} are zero in every fitted row: a factor level "
            "has no observations (one whose rows were dropped as missing or by subset), and "
            f"the factor {display(factor.name())!r} keeps it (its levels were given, or its "
            "column is read as numbers elsewhere in the formula). Make the factor from a "
            f"categorical column of its own, e.g. data[{column + '_level'!r}] = "
            f"data[{column!r}].astype('category') and {column + '_level'!r} in the formula: "
            "unused levels of a factor column are dropped."
        )


#: A factor among the predictors may have at most this many levels per row: with more, most
#: levels hold a single row and the column identifies rows (an id, a name) instead of grouping
#: them; its coding columns would make p about n.
MAX_LEVELS_PER_ROW = 0.5


def _check_level_counts(rhs: str, frame: pd.DataFrame, dot_lhs: str | None) -> None:
    """Refuse a factor predictor with more levels than :data:`MAX_LEVELS_PER_ROW` of its rows.

    Counted before any matrix is built (an id column of a million rows would make a million
    coding columns). A factor is a label column (text, boolean, categorical) standing as a
    term's variable, or any column inside ``C()``; booleans have two levels and pass.
    ``dot_lhs`` is the response when the formula used ``.`` (the message then shows how to
    leave the column out of it).
    """
    for column in builder.factor_columns(rhs, frame):
        series = frame[column]
        if pd.api.types.is_bool_dtype(series.dtype):
            continue
        present = int(series.notna().sum())
        levels = int(series.nunique())
        if levels <= 2 or levels <= MAX_LEVELS_PER_ROW * present:
            continue
        how = (
            "one per row"
            if levels == present
            else f"more than {MAX_LEVELS_PER_ROW:.0%} as many as rows"
        )
        remove = (
            f"'{display(dot_lhs)} ~ . - {display(_quote(column))}'"
            if dot_lhs is not None
            else "remove it from the formula"
        )
        raise ValueError(
            f"Predictor column {column!r} has {levels} distinct values among {present} rows "
            f"({how}): as a factor it would give {levels - 1} coding columns, and a column "
            "with most levels on a single row identifies rows (an id, a name) rather than "
            f"grouping them. Leave it out ({remove}, or data.drop(columns=[{column!r}])); "
            f"a factor may have at most {MAX_LEVELS_PER_ROW:.0%} as many levels as rows."
        )


def _check_response_levels(name: str, Y: np.ndarray, levels: list[Any]) -> None:
    """Refuse a class response with more classes than :data:`MAX_LEVELS_PER_ROW` of its rows
    (a column of ids or names as the response): most classes would hold one row."""
    rows = len(Y)
    count = len(levels)
    if count <= 2 or count <= MAX_LEVELS_PER_ROW * rows:
        return
    singles = int(np.sum(np.bincount(np.asarray(Y).reshape(-1).astype(int)) == 1))
    raise ValueError(
        f"The response {display(name)!r} is a class label with {count} classes among {rows} "
        f"rows ({singles} of them on a single row): a column that identifies rows (an id, a "
        "name) rather than grouping them. Give a response with several rows per class, or "
        f"a numeric response; a class response may have at most {MAX_LEVELS_PER_ROW:.0%} as "
        "many classes as rows."
    )


def _split_formula(formula: Any, missing: str) -> tuple[str, str]:
    """Check the formula's shape and the ``missing`` option; the two sides of ``~``."""
    if not isinstance(formula, str):
        raise TypeError(
            f"formula must be a string such as 'y ~ x1 + x2'; got {type(formula).__name__}."
        )
    if missing not in ("drop", "raise"):
        raise ValueError(f"The 'missing' option must be 'drop' or 'raise'; got {missing!r}.")
    if formula.count("~") != 1:
        raise ValueError(
            f"formula {formula!r} must have exactly one '~' with the response on its left, "
            "e.g. 'y ~ x1 + x2' or 'y ~ .'."
        )
    lhs, rhs = (side.strip() for side in formula.split("~"))
    if not lhs:
        raise ValueError(f"formula {formula!r} has no response; write it as 'y ~ ...'.")
    if not rhs:
        raise ValueError(
            f"formula {formula!r} has no predictors; write 'y ~ .' to use all columns."
        )
    return lhs, rhs


def _expand_dot(rhs: str, columns: list[str], y_columns: list[str]) -> str:
    """R's ``.``: every column that is not a response, each quoted as patsy needs."""
    if not _DOT.search(rhs):
        return rhs
    others = [c for c in columns if c not in y_columns]
    if not others:
        raise ValueError("'.' in the formula found no predictor columns besides the response.")
    expansion = "(" + " + ".join(map(_quote, others)) + ")"
    # A function replacement: re.sub would read backslashes in a string replacement.
    return _DOT.sub(lambda _: expansion, rhs)


@dataclass
class _Design:
    """The predictors of every row: patsy's design information, the columns kept (in R's
    order) and either the bulk matrix of all rows or patsy's matrix of its complete rows."""

    info: Any
    columns: np.ndarray
    complete: np.ndarray
    undefined: list[str]
    bulk: np.ndarray | None = None
    patsy_rows: pd.DataFrame | None = None

    @property
    def names(self) -> list[str]:
        return list(self.info.column_names)

    def matrix(self, keep: np.ndarray) -> np.ndarray:
        """The predictor matrix of the rows ``keep`` (a mask over all rows)."""
        if self.bulk is not None:
            return self.bulk if keep.all() else _compress_rows(self.bulk, keep)
        rows = self.patsy_rows
        # patsy's rows are the complete ones; keep those the response keeps too
        values = rows.to_numpy(dtype=float)[keep[rows.index.to_numpy()]]
        return np.ascontiguousarray(values[:, self.columns])


def _compress_rows(X: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The rows ``keep`` of ``X``, in the same memory order (column-major stays so)."""
    return np.asfortranarray(X[keep]) if X.flags.f_contiguous else X[keep]


def _predictor_design(rhs: str, frame: pd.DataFrame, env: Any) -> _Design:
    """The right-hand side on every row: built in bulk when every factor allows it
    (:mod:`sdrstats.design.builder`), else by patsy (rows with a missing value left out)."""
    info = builder.design_info(rhs, frame, env)
    plan = None if info is None else builder.plan(info, frame, env)
    if plan is not None:
        columns = builder.r_order(info, rhs)
        try:
            X, missing, undefined = plan.build(frame, columns)
        except builder.NotBulk:
            plan = None
        else:
            return _Design(info, columns, ~missing, undefined, bulk=X)
    try:
        rows = patsy.dmatrix(
            rhs, frame, eval_env=env, NA_action=_NA_ACTION, return_type="dataframe"
        )
    except patsy.PatsyError as exc:
        raise ValueError(_explain_patsy_error(exc, frame, "data", rhs)) from None
    except (NameError, SyntaxError, TypeError, KeyError) as exc:
        raise ValueError(
            _explain_patsy_error(exc, frame, "data", rhs)
            if isinstance(exc, NameError)
            else f"Could not evaluate the predictors {rhs!r}: {exc}"
        ) from None
    info = rows.design_info
    columns = builder.r_order(info, rhs)
    complete = np.zeros(frame.shape[0], dtype=bool)
    complete[rows.index.to_numpy()] = True
    return _Design(info, columns, complete, [], patsy_rows=rows)


@dataclass
class _Response:
    """The left-hand side: a class-label column, or numeric columns."""

    names: list[str]
    complete: np.ndarray
    numeric: np.ndarray | None

    def values(self, frame: pd.DataFrame, keep: np.ndarray) -> tuple[np.ndarray, list | None]:
        """``Y`` on the kept rows, and the class levels of a label response (else None)."""
        if self.numeric is None:
            labels = pd.Categorical(frame[self.names[0]][keep])
            return np.asarray(labels.codes, dtype=np.int64), list(labels.categories)
        Y = self.numeric[keep]
        check_finite(Y, self.names, "Response")
        return Y, None


def _response(y_terms: list[str], frame: pd.DataFrame, env: Any) -> _Response:
    label_cols = [_label_term(t, frame) for t in y_terms]
    if any(label_cols):
        if len(y_terms) > 1:
            raise ValueError(
                "A categorical response must be the only response term; got "
                f"{y_terms}. Use one class column, or numeric columns for a multivariate response."
            )
        labels = frame[label_cols[0]]
        return _Response([label_cols[0]], labels.notna().to_numpy(), None)
    plain = [t if t in frame.columns else _quoted_literal(t) for t in y_terms]
    if all(
        c in frame.columns and pd.api.types.is_numeric_dtype(frame[c]) for c in plain
    ) and not any(pd.api.types.is_bool_dtype(frame[c]) for c in plain):
        # columns named as they are: read directly, so a column called I, Q or log cannot
        # shadow the function patsy would wrap the response in
        numeric = np.column_stack([frame[c].to_numpy(dtype=float, na_value=np.nan) for c in plain])
        return _Response(list(y_terms), ~np.isnan(numeric).any(axis=1), numeric)
    try:
        rows = patsy.dmatrix(
            "0 + " + " + ".join(f"I({t})" for t in y_terms),
            frame,
            eval_env=env,
            NA_action=_NA_ACTION,
            return_type="dataframe",
        )
    except patsy.PatsyError as exc:
        raise ValueError(_explain_patsy_error(exc, frame, "data", " + ".join(y_terms))) from None
    except NameError as exc:
        raise ValueError(_explain_patsy_error(exc, frame, "data", " + ".join(y_terms))) from None
    if rows.shape[1] != len(y_terms):
        raise ValueError(f"Each response term must give one numeric column; got {y_terms}.")
    complete = np.zeros(frame.shape[0], dtype=bool)
    complete[rows.index.to_numpy()] = True
    numeric = np.full((frame.shape[0], len(y_terms)), np.nan)
    numeric[rows.index.to_numpy()] = rows.to_numpy(dtype=float)
    return _Response(list(y_terms), complete, numeric)


def _report_missing(
    frame: pd.DataFrame,
    keep: np.ndarray,
    text: str,
    columns: list[str],
    missing: str,
    undefined: list[str] = (),
) -> tuple[int, str | None]:
    """Warn of (or refuse) the rows a missing value drops; how many there are and why."""
    n_kept = int(keep.sum())
    n_dropped = frame.shape[0] - n_kept
    why, with_na, computed = None, [], []
    if n_dropped:
        with_na = [c for c in _mentioned_columns(text, columns) if frame[c].isna().any()]
        # terms undefined on some rows (log of a negative number is NaN), as R's model.frame
        # drops them too; named when no column of theirs is missing
        computed = [
            display(t)
            for t in undefined
            if not any(c in with_na for c in _mentioned_columns(t, columns))
        ]
        # R's factor(g, levels = ...) makes a value outside the levels NA
        outside = [t for t in computed if re.match(r"(?:factor|ordered)\(.*(?:,|levels)", t)]
        computed = [t for t in computed if t not in outside]
        reasons = [f"missing values in {with_na}"] if with_na else []
        if computed:
            reasons.append(f"undefined values (NaN) of {computed}")
        if outside:
            reasons.append(f"values outside the levels given to {outside}")
        where = " and ".join(reasons) or f"missing values in {with_na}"
        if missing == "raise":
            raise ValueError(
                f"{n_dropped} row(s) have {where}; drop or impute them, or "
                "pass missing='drop' to drop them."
            )
        warnings.warn(
            f"Dropped {n_dropped} of {frame.shape[0]} rows with {where}.",
            MissingValueWarning,
            stacklevel=4,
        )
        why = f"{n_dropped} of {frame.shape[0]} rows were dropped for {where}"
        if computed:
            why += " (a transform undefined there, such as the log of a value <= 0)"
    if n_kept == 0:
        empty = [c for c in with_na if frame[c].isna().all()]
        if empty:
            raise ValueError(
                f"No rows are left after dropping rows with missing values: column(s) {empty} "
                "have no values at all; remove them from the formula (or fill them)."
            )
        raise ValueError(
            f"No rows are left after dropping rows with missing values: every row misses a "
            f"value of {with_na + computed}; remove some of them from the formula, or impute."
        )
    return n_dropped, why


__all__ = ["ModelSpec", "parse", "from_arrays", "select_rows", "describe_subset"]
