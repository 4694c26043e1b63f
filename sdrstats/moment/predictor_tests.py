"""R ``dr``'s predictor tests: coordinate tests, ``drop1`` and backward ``step``.

A coordinate hypothesis says that the central subspace lies in ``span(γ)``, the predictors
kept; the predictors dropped have no effect given the others. It is written as a formula that
drops terms (``"~ . - log(hg)"``), a list of predictor names to drop, or a ``p × (p − r)``
matrix ``γ`` (R's convention: a basis of what is kept). SIR (Cook 2004), SAVE (Shao, Cook &
Weisberg 2007) and IRE (Cook & Ni 2005) have these tests, and so have their partial versions
(``group=``; marginal only for partial SIR and SAVE, as in R); pHd has none in R ``dr``, and
asking for one raises.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..base.validation import check_choice, check_float, check_int
from ..design.calls import format_call
from ..design.names import display
from ..stats.chi2 import chi2_sf, weighted_chi2_sf

if TYPE_CHECKING:  # pragma: no cover
    from ..results.fitted import Results


def _norm(text: str) -> str:
    """A predictor's name for matching: as shown (``Q("a b")`` is ```a b```), without
    spaces or R's backquotes, so ``"a b"``, ```a b``` and ``Q("a b")`` name one column."""
    return re.sub(r"\s+", "", display(str(text))).replace("`", "")


def predictor_terms(results: Results) -> dict[str, list[int]]:
    """Terms of the fit (formula terms, or columns for an array fit) → their X columns."""
    spec = results.spec
    info = spec.design_info if spec.rhs is None else spec._design()
    if info is None or spec.design_columns is None:
        return {name: [j] for j, name in enumerate(spec.x_names)}
    position = {int(c): j for j, c in enumerate(spec.design_columns)}
    terms: dict[str, list[int]] = {}
    for name, cols in info.term_name_slices.items():
        kept = [position[c] for c in range(cols.start, cols.stop) if c in position]
        if kept:
            terms[display(name)] = kept
    # in the fit's column order (R's: the formula's), not patsy's
    return dict(sorted(terms.items(), key=lambda item: min(item[1])))


def _resolve(results: Results, names: list[str], what: str) -> list[str]:
    terms = predictor_terms(results)
    lookup = {_norm(t): t for t in terms}
    lookup.update({_norm(x): x for x in results.x_names if _norm(x) not in lookup})
    found = []
    for name in names:
        key = _norm(name)
        if key not in lookup:
            raise ValueError(
                f"Unknown predictor {name!r} in the {what}; the fit's predictors are {list(terms)}."
            )
        found.append(lookup[key])
    return found


def _signed_terms(text: str) -> list[tuple[str, str]]:
    """Split ``". - a + b"`` at top-level signs (not inside parentheses) into (sign, term)."""
    pieces, depth, sign, start = [], 0, "+", 0
    for i, ch in enumerate(text + "+"):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch in "+-" and depth == 0:
            term = text[start:i].strip()
            if term:
                pieces.append((sign, term))
            elif i > 0 and text[:i].strip():
                raise ValueError(f"The hypothesis formula has an empty term near {text!r}.")
            sign, start = ch, i + 1
    return pieces


def _formula_drops(results: Results, formula: str) -> list[str]:
    text = formula.strip()
    if text.count("~") != 1 or not text.startswith("~"):
        raise ValueError(
            f"The hypothesis formula {formula!r} must look like '~ . - x1 - x2' (predictors "
            "kept on the right of '~')."
        )
    pieces = _signed_terms(text[1:])
    kept: list[str] | None = None
    removed: list[str] = []
    for sign, term in pieces:
        term = term.strip()
        if term == ".":
            kept = list(predictor_terms(results)) if sign == "+" else []
            continue
        (name,) = _resolve(results, [term], "hypothesis formula")
        if sign == "-":
            removed.append(name)
        else:
            kept = (kept or []) + [name]
    kept = list(predictor_terms(results)) if kept is None else kept
    keep = [t for t in kept if t not in removed]
    return [t for t in predictor_terms(results) if t not in keep]


def hypothesis_basis(results: Results, hypothesis: Any) -> tuple[np.ndarray, list[str]]:
    """``γ`` (p × (p − r), a basis of the predictors kept) and the dropped predictor names."""
    p = results.p
    if isinstance(hypothesis, str):
        dropped = _formula_drops(results, hypothesis)
    elif isinstance(hypothesis, (list, tuple)) and all(isinstance(h, str) for h in hypothesis):
        dropped = _resolve(results, list(hypothesis), "list of predictors to drop")
    else:
        gamma = np.asarray(hypothesis, dtype=float)
        if gamma.ndim == 1:
            gamma = gamma[:, None]
        if gamma.ndim != 2 or gamma.shape[0] != p:
            raise ValueError(
                f"A hypothesis matrix must have p = {p} rows (one per predictor) and one column "
                f"per direction kept; got shape {gamma.shape}."
            )
        rank = np.linalg.matrix_rank(gamma)
        if rank < gamma.shape[1] or not 1 <= gamma.shape[1] < p:
            raise ValueError(
                f"A hypothesis matrix must have full column rank between 1 and p - 1 = {p - 1}; "
                f"got {gamma.shape[1]} columns of rank {rank}."
            )
        return gamma, []
    if not dropped:
        raise ValueError("The hypothesis drops no predictor; name at least one to test.")
    columns = sorted(j for name in dropped for j in predictor_terms(results)[name])
    keep = [j for j in range(p) if j not in columns]
    if not keep:
        raise ValueError(f"The hypothesis drops every predictor ({dropped}); keep at least one.")
    return np.eye(p)[:, keep], dropped


def scope_terms(results: Results, scope: Any) -> list[str]:
    if scope is None:
        return []
    if isinstance(scope, str):
        text = scope.strip().lstrip("~")
        names = [t.strip() for t in text.split("+") if t.strip()]
    else:
        names = list(scope)
    return _resolve(results, names, "scope (predictors always kept)")


if TYPE_CHECKING:  # pragma: no cover
    from ..results.fitted import Results


@dataclasses.dataclass
class CoordinateTest:
    """Result of a coordinate (predictor) hypothesis test.

    Returned by :func:`coordinate_test`; each field is an attribute. ``print`` shows the
    statistic and every p-value.

    Parameters
    ----------
    statistic : float
        The test statistic.
    df : float or None
        The χ² degrees of freedom where the reference distribution is a χ² (IRE; SAVE's normal
        theory); ``None`` for a weighted sum of χ²₁ (SIR).
    p_value : float
        The p-value selected by ``weights``.
    p_values : dict
        Every p-value computed, by name (``"general"``, ``"restricted"``, ``"normal"``,
        ``"chi2"``).
    dropped : list of str
        Predictors the hypothesis removes (empty for a matrix hypothesis).
    d : int or None
        ``None`` for the marginal test, else the dimension conditioned on.
    method, weights, chi2approx : str
        The SDR method, which p-value is ``p_value`` and the weighted-χ² approximation.

    See Also
    --------
    sdrstats.moment.results.MomentResults.coordinate_test : The call that returns it.
    sdrstats.moment.predictor_tests.StepResult : Backward elimination by this test.

    References
    ----------
    :cite:t:`cook2004`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> test = fit.coordinate_test("~ . - log(ht)")
    >>> test.dropped, test.df, sorted(test.p_values)
    (['log(ht)'], None, ['general', 'restricted'])
    """

    statistic: float
    df: float | None
    p_value: float
    p_values: dict[str, float]
    dropped: list[str]
    d: int | None
    method: str
    weights: str
    chi2approx: str

    def __str__(self) -> str:
        what = f"drop {', '.join(self.dropped)}" if self.dropped else "matrix hypothesis"
        kind = "marginal" if self.d is None else f"conditional on d = {self.d}"
        df = "" if self.df is None else f", df = {self.df:g}"
        others = "; ".join(f"{k} {v:.4g}" for k, v in self.p_values.items())
        return (
            f"Coordinate test ({self.method}, {kind}): {what}\n"
            f"  statistic = {self.statistic:.4f}{df}, p-value = {self.p_value:.4g} "
            f"({self.weights}; all: {others})\n"
        )

    __repr__ = __str__


# -- hypotheses ----------------------------------------------------------------------------
# -- the tests of SIR and SAVE ------------------------------------------------------------
def sir_test(results: Results, gamma: np.ndarray, d: int | None, chi2approx: str) -> dict[str, Any]:
    """Cook's (2004) marginal coordinate test for SIR, with both weightings.

    Restricted weights ``1 − λ_j`` (j ≤ min(d, h − 1)), each r times; general weights from
    the covariance of ``vec(Φᵀ ε_i (Hᵀz_i)ᵀ)``. Note that R ``dr`` 3.0.x returns the
    restricted-weights p-value when asked for ``pval="general"`` and the general one for
    ``"restricted"``; here each p-value carries its own name.

    ``d=None`` means R's default ``d = min(h, p)``. When ``p < h − 1`` (always so with the
    default ``h = max(8, p + 3)``) that keeps only ``p`` of the ``h − 1`` weights per dropped
    predictor, and in simulation the resulting "marginal" p-values are too small (many
    more rejections than the level). This follows R for parity; pass ``d`` (the dimension
    you believe) or use ``nslices <= p + 1`` for a calibrated test.
    """
    std, moments = results._prepared()
    ev = np.asarray(results.output.eigenvalues, dtype=float)
    M = results.output.extras["M"]
    n, p, h = results.n, results.p, moments.slices.nslices
    d = min(h, p) if d is None else d
    kept = std.whiten_direction(gamma)
    r = p - kept.shape[1]
    full, _ = np.linalg.qr(kept, mode="complete")
    QH, H = full[:, : p - r], full[:, p - r :]
    inside = np.sort(np.linalg.eigvalsh(QH.T @ M @ QH))[::-1][: min(d, p - r)]
    stat = float(n * ev[:d].sum() - n * inside.sum())
    restricted = np.repeat(1.0 - ev[: min(d, h - 1)], r)
    Z, labels = std.Z, moments.slices.labels
    f = moments.fractions
    means = moments.means.T  # p × h
    onehot = np.zeros((n, h))
    onehot[np.arange(n), labels] = 1.0
    eps = (onehot - f[None, :] - (Z @ means) * f[None, :]) / np.sqrt(f)[None, :]
    phi = np.linalg.svd(means, full_matrices=True)[2].T[:, : min(d, h)]
    per_obs = np.einsum("ik,ij->ikj", eps @ phi, Z @ H).reshape(n, -1)
    centred = per_obs - per_obs.mean(axis=0)
    general = np.linalg.eigvalsh(centred.T @ centred / n)
    general = general[general > 0]
    return {
        "statistic": stat,
        "df": None,
        "p_values": {
            "general": weighted_chi2_sf(stat, general, chi2approx),
            "restricted": _restricted_sf(stat, restricted, chi2approx),
        },
    }


def _restricted_sf(stat: float, weights: np.ndarray, chi2approx: str) -> float:
    """The restricted-weights p-value. Under R's case weights a SIR eigenvalue can exceed 1,
    so a weight ``1 − λ`` is negative; R's Bentler–Xie keeps it (in ``Σc`` and ``Σc²``), and so
    does this, for parity. Without negative weights it is :func:`weighted_chi2_sf`."""
    if chi2approx != "bx" or np.all(weights > 0):
        return weighted_chi2_sf(stat, weights, chi2approx)
    t1, t2 = float(np.sum(weights)), float(np.sum(weights**2))
    df = t1**2 / t2
    return chi2_sf(stat * df / t1, df)


def save_test(
    results: Results, gamma: np.ndarray, d: int | None, chi2approx: str
) -> dict[str, Any]:
    """Shao, Cook & Weisberg's (2007) marginal coordinate test for SAVE (``d`` is unused)."""
    std, moments = results._prepared()
    n, p, h = results.n, results.p, moments.slices.nslices
    kept = std.whiten_direction(gamma)
    r = p - kept.shape[1]
    H = np.linalg.qr(kept, mode="complete")[0][:, p - r :]
    within = moments.second - moments.means[:, :, None] * moments.means[:, None, :]
    inner = np.einsum("ai,sab,bj->sij", H, np.eye(p)[None] - within, H)
    stat = float(n / 2 * np.sum(moments.fractions[:, None, None] * inner**2))
    df = (h - 1) * r * (r + 1) // 2
    u = std.Z @ H
    outer = (u[:, :, None] * u[:, None, :]).reshape(n, -1)
    centred = outer - outer.mean(axis=0)
    sigma = np.linalg.eigvalsh(centred.T @ centred / n / 2)
    weights = np.tile(sigma[sigma > 0], h - 1)
    return {
        "statistic": stat,
        "df": df,
        "p_values": {
            "general": weighted_chi2_sf(stat, weights, chi2approx),
            "normal": chi2_sf(stat, df),
        },
    }


_TESTS = {"sir": (sir_test, ("general", "restricted")), "save": (save_test, ("general", "normal"))}
#: The one p-value of the partial methods' coordinate tests (``weights="general"`` picks it).
_PARTIAL = {"sir": "restricted", "save": "normal"}


def coordinate_test(
    results: Results,
    hypothesis: Any,
    d: int | None = None,
    *,
    weights: str = "general",
    chi2approx: str = "bx",
) -> CoordinateTest:
    """Test that the predictors a hypothesis drops have no effect (see the module docs).

    Parameters
    ----------
    results : MomentResults
        A SIR, SAVE or IRE fit.
    hypothesis : str, list of str or array
        ``"~ . - x"`` (R's update syntax), predictor names to drop, or ``γ`` (p × (p − r)).
    d : int, optional
        ``None`` for the marginal test (SIR's default conditions on ``min(h, p)``
        directions, as R, which is anti-conservative when ``p < h − 1``: see
        :func:`sir_test`); an integer for the test conditional on dimension ``d``.
    weights : str
        Which p-value is ``p_value``: ``"general"`` (default), ``"restricted"`` (SIR) or
        ``"normal"`` (SAVE); IRE has one χ² p-value, partial SIR (``group=``) only the
        restricted one and partial SAVE only the normal-theory one, which ``"general"``
        then selects.
    chi2approx : {"bx", "wood"}
        Approximation of a weighted sum of χ²₁: Bentler–Xie (default) or Wood (1989).

    Returns
    -------
    CoordinateTest

    Examples
    --------
    >>> import sdrstats as sdr
    >>> from sdrstats.moment.predictor_tests import coordinate_test
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> test = coordinate_test(fit, ["log(ht)"], weights="normal")
    >>> test.weights, test.df
    ('normal', 7)
    """
    method = results.method
    check_choice(chi2approx, "chi2approx", f"{method}'s coordinate test", ["bx", "wood"])
    gamma, dropped = hypothesis_basis(results, hypothesis)
    if d is not None:
        check_int(d, "d", f"{method}'s coordinate test", low=1, high=results.p)
    if getattr(results.estimator, "partial", False) and method in _PARTIAL:
        # partial SIR and SAVE have one p-value each, and R none conditional on d
        own = _PARTIAL[method]
        check_choice(weights, "weights", f"partial {method}'s coordinate test", ["general", own])
        if d is not None:
            raise ValueError(
                f"The coordinate test of partial {method} (group=) is marginal only, as R "
                "dr's; call it without d."
            )
        from .partial import partial_coordinate_test

        out = partial_coordinate_test(results, gamma, chi2approx)
        weights = own
    elif method in _TESTS:
        fn, choices = _TESTS[method]
        check_choice(weights, "weights", f"{method}'s coordinate test", choices)
        out = fn(results, gamma, d, chi2approx)
    elif hasattr(results.estimator, "coordinate_test_basis"):
        check_choice(weights, "weights", f"{method}'s coordinate test", ["general", "chi2"])
        out = results.estimator.coordinate_test_basis(results, gamma, d)
        weights = "chi2"
    else:
        raise ValueError(
            f"Coordinate tests are not available for {method}; R dr has them for sir, save and ire."
        )
    return CoordinateTest(
        statistic=out["statistic"],
        df=out["df"],
        p_value=out["p_values"][weights],
        p_values=out["p_values"],
        dropped=dropped,
        d=None if method == "save" else d,  # SAVE's test is marginal whatever d (as R)
        method=method,
        weights=weights,
        chi2approx=chi2approx,
    )


# -- drop1 and step ------------------------------------------------------------------------
def drop1(
    results: Results,
    scope: Any = None,
    d: int | None = None,
    *,
    weights: str = "general",
    chi2approx: str = "bx",
) -> pd.DataFrame:
    """Coordinate test of dropping each predictor in turn (R's ``drop1.dr``).

    Returns a DataFrame indexed by predictor with ``statistic``, ``df`` and ``p_value``
    (plus every other p-value as ``p_value_<name>``), sorted as R sorts it: by decreasing
    ``p_value``, so the first row is the predictor ``step`` would remove next. ``scope``
    lists predictors that are never candidates.

    For SIR, R's ``drop1.dr`` (and so ``dr.step``) ranks by the column its coordinate test
    labels "general", which holds the restricted-weights p-value (the labels are swapped in
    R dr's source); ``weights="restricted"`` reproduces R's table and ranking.

    Parameters
    ----------
    results : MomentResults
        A SIR, SAVE or IRE fit.
    scope : str or list of str, optional
        Predictors that are never candidates (a one-sided formula or names).
    d : int, optional
        Conditional tests of that dimension; default marginal tests.
    weights, chi2approx : str
        As :func:`coordinate_test`.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import sdrstats as sdr
    >>> from sdrstats.moment.predictor_tests import drop1
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> drop1(fit, scope=["log(wt)"]).index.tolist()
    ['log(ht)', 'log(hg)', 'log(ssf)']
    """
    keep = scope_terms(results, scope)
    candidates = [t for t in predictor_terms(results) if t not in keep]
    if not candidates:
        raise ValueError("Nothing to drop: every predictor is in the scope to keep.")
    rows = {}
    for term in candidates:
        test = coordinate_test(results, [term], d=d, weights=weights, chi2approx=chi2approx)
        row = {
            "statistic": test.statistic,
            "df": np.nan if test.df is None else test.df,
            "p_value": test.p_value,
        }
        row.update({f"p_value_{k}": v for k, v in test.p_values.items() if k != test.weights})
        rows[term] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    if table["df"].isna().all():  # SIR's weighted χ² sums have no single df
        table = table.drop(columns="df")
    table.index.name = "predictor"
    return table.sort_values("p_value", ascending=False, kind="stable")


@dataclasses.dataclass
class StepResult:
    """Backward elimination by coordinate tests (R's ``dr.step``).

    Returned by :func:`step`; each field is an attribute.

    Parameters
    ----------
    fit : Results
        The final model, refitted on the kept predictors.
    history : pandas.DataFrame
        One row per removed predictor: its statistic and p-value when removed.
    removed, kept : list of str
        Predictor names removed (in order) and kept.

    See Also
    --------
    sdrstats.moment.results.MomentResults.step : The call that returns it.
    sdrstats.moment.predictor_tests.CoordinateTest : The test each step uses.

    References
    ----------
    :cite:t:`cook2004`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> result = fit.step(minsize=3)
    >>> result.removed, result.fit.p
    (['log(ht)'], 3)
    """

    fit: Any
    history: pd.DataFrame
    removed: list[str]
    kept: list[str]

    def __str__(self) -> str:
        from ..base.tables import render_text_table

        table = render_text_table(self.history) if len(self.history) else "(none removed)"
        return f"Backward elimination ({self.fit.method}):\n{table}\nKept: {self.kept}\n"

    __repr__ = __str__


def drop_predictors(results: Results, names: list[str]) -> Results:
    """Refit ``results`` without the predictor terms ``names`` (same rows, same options)."""
    terms = predictor_terms(results)
    gone = {j for name in names for j in terms[name]}
    keep = [j for j in range(results.p) if j not in gone]
    spec = results.spec
    kept_terms = [t for t in terms if t not in names]
    formula = None
    if spec.formula is not None:
        formula = f"{spec.formula.split('~')[0].strip()} ~ {' + '.join(kept_terms)}"
    new_spec = dataclasses.replace(
        spec,
        X=np.ascontiguousarray(spec.X[:, keep]),
        x_names=[spec.x_names[j] for j in keep],
        design_columns=None if spec.design_columns is None else spec.design_columns[keep],
        x_columns=None
        if spec.x_columns is None or spec.design_columns is not None
        else [spec.x_columns[j] for j in keep],
        formula=formula,
    )
    call = format_call(results.method, repr(formula), "data") if formula else results.call
    return results.estimator.fit_spec(new_spec, call=call)


def step(
    results: Results,
    scope: Any = None,
    d: int | None = None,
    *,
    minsize: int = 2,
    stop: float = 0.0,
    weights: str = "general",
    chi2approx: str = "bx",
) -> StepResult:
    """Backward elimination: drop the predictor with the largest p-value, refit, repeat.

    Stops when ``minsize`` predictors (default 2, as R) remain, when every candidate's
    p-value is below ``stop`` (default 0: never), or when only ``scope`` terms are left.
    Each step refits the method with the same options on the same rows. For SIR,
    ``weights="restricted"`` follows R's ``dr.step`` (see :func:`drop1`).

    Parameters
    ----------
    results : MomentResults
        A SIR, SAVE or IRE fit.
    scope : str or list of str, optional
        Predictors that are never removed.
    d : int, optional
        Conditional tests of that dimension; default marginal tests.
    minsize : int, default 2
        Stop when this many predictors remain.
    stop : float, default 0.0
        Stop when every candidate's p-value is below ``stop``.
    weights, chi2approx : str
        As :func:`coordinate_test`.

    Returns
    -------
    StepResult

    Examples
    --------
    >>> import sdrstats as sdr
    >>> from sdrstats.moment.predictor_tests import step
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> step(fit, stop=0.05).kept
    ['log(ssf)', 'log(wt)', 'log(hg)', 'log(ht)']
    """
    check_int(minsize, "minsize", "step", low=1)
    check_float(stop, "stop", "step", low=0.0, high=1.0)
    minsize = max(2, minsize)
    keep = scope_terms(results, scope)
    fit, removed, rows = results, [], []
    while len(predictor_terms(fit)) > minsize:
        if all(t in keep for t in predictor_terms(fit)):
            break
        table = drop1(fit, scope=keep, d=d, weights=weights, chi2approx=chi2approx)
        best = table.index[0]
        if table["p_value"].iloc[0] < stop:
            break
        rows.append(
            {
                "removed": best,
                "statistic": table["statistic"].iloc[0],
                "p_value": table["p_value"].iloc[0],
            }
        )
        removed.append(best)
        fit = drop_predictors(fit, [best])
    history = pd.DataFrame(rows, columns=["removed", "statistic", "p_value"])
    return StepResult(fit=fit, history=history, removed=removed, kept=list(predictor_terms(fit)))


__all__ = [
    "CoordinateTest",
    "StepResult",
    "coordinate_test",
    "drop1",
    "step",
    "hypothesis_basis",
    "predictor_terms",
    "drop_predictors",
]
