"""Coordinate hypotheses of R ``dr``'s predictor tests: terms, names and the basis ``γ``.

A hypothesis is a formula in R's update syntax (``"~ . - log(hg)"``), a list of predictor
names to drop, or a ``p × (p − r)`` matrix whose columns span the predictors kept.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..core.results import Results


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", str(text))


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
            terms[name] = kept
    return terms


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


__all__ = ["predictor_terms", "hypothesis_basis", "scope_terms"]
