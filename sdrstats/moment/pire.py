"""Partial IRE (Wen & Cook 2007): one central subspace shared by the levels of a group.

R ``dr``'s ``dr(..., group = ~G, method = "ire")``. The predictors are whitened once on all
rows by the QR of the centred matrix, ``z = √n Q``. In each level ``g`` of the group the rows of
``z`` are whitened again (R refits ``ire`` on them, so ``z_g = √n_g Q_g`` from their own QR),
sliced by the same rule and summarised by IRE's ``ζ_g`` and ``Γ_ζ`` factor ``G_g``, scaled by
``1/√(n_g/n)``. The fit minimises ``Σ_g n‖G_g^{-T}(vec ζ_g − vec(T B C_g))‖²`` over one shared
``B`` and per-group ``C_g`` by alternating least squares, started from the pooled SIR
eigenvectors; the rest (one re-estimation of ``Γ``, importance order, the tests) is IRE's.
Householder QR (numpy's LAPACK) gives R's factor signs, so the numbers are R's. The passes
over the rows (in memory or on chunks) are :func:`sdrstats.moment.ire_passes.fit_partial_ire`;
this module solves from their sums and holds what the formula front and the tests need.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import scipy.linalg

from ..fitting.estimator import EstimatorOutput
from ._ire_als import (
    Discrepancy,
    chi2_upper,
    factor_blocks,
    importance_order,
    shared_discrepancy,
    solve_rounds,
)


def _first_positive(B: np.ndarray) -> np.ndarray:
    B = B / np.linalg.norm(B, axis=0)
    return B * np.where(B[0] < 0, -1.0, 1.0)


def solve_partial(
    est: Any,
    levels: list[Any],
    groups: list[tuple[int, np.ndarray, np.ndarray]],
    sir_vectors: np.ndarray,
    Rp: np.ndarray,
    center: np.ndarray,
    n: int,
    gammas: Any,
) -> EstimatorOutput:
    """Partial IRE's fits from each group's ``(n_g, slice sizes, ζ_g)``, the pooled SIR start,
    the pooled QR factor ``Rp`` and a source of per-group ``Γ_ζ`` factors (``gammas``, as in
    :func:`._ire_als.solve_rounds`): the rows in memory or passes over chunked data."""
    o = est.options
    p = Rp.shape[0]
    zetas = [zeta for _, _, zeta in groups]
    tol, max_iter = o["tol"], o["max_iter"]
    numdir = min(o["d_max"], p - 1)
    top = max(numdir, o["d"] or 0)
    h1 = sum(z.shape[1] for z in zetas)
    solutions, criteria, iterations = solve_rounds(
        lambda factors: Discrepancy(zetas, factors, n, "Partial IRE"),
        gammas,
        sir_vectors,
        top,
        o["steps"],
        tol,
        max_iter,
        importance_order,
        _first_positive,
    )
    (final,) = gammas([solutions[numdir]])
    back = {k: _first_positive(scipy.linalg.solve_triangular(Rp, v)) for k, v in solutions.items()}
    d_report = o["d"] or numdir
    extras: dict[str, Any] = {
        "slice_sizes": np.concatenate([sizes for _, sizes, _ in groups]),
        "group_levels": levels,
        "group_n": [k for k, _, _ in groups],
        "group_slice_sizes": [sizes for _, sizes, _ in groups],
        "numdir": numdir,
        "zetas": zetas,
        "gamma_factors": final,
        "R": Rp,
        "raw_solutions": solutions,
        "solutions": back,
        "criteria": criteria,
        "iterations": iterations,
        "dfs": {k: (p - k) * (h1 - k) for k in criteria},
    }
    return EstimatorOutput(
        basis=back[d_report],
        d=d_report,
        eigenvalues=None,
        criterion=criteria[d_report],
        center=center,
        extras=extras,
    )


def partial_coordinate_test(
    est: Any, results: Any, gamma: np.ndarray, d: int | None, factors: list[np.ndarray]
) -> dict[str, Any]:
    """R's ``dr.coordinate.test`` for partial IRE (marginal, or conditional on ``d``), from
    the groups' final ``Γ_ζ`` factors (see :func:`.ire_passes.final_factors`)."""
    ex = results.output.extras
    n, p = results.n, results.p
    kept = ex["R"] @ gamma
    r = p - kept.shape[1]
    zetas = ex["zetas"]
    h1 = sum(z.shape[1] for z in zetas)
    if d is None:
        H = np.linalg.qr(kept, mode="complete")[0][:, p - r :]
        stat = 0.0
        for z, G in zip(zetas, factors):
            W = factor_blocks(G, H)  # G (I ⊗ H)
            v = (H.T @ z).reshape(-1, order="F")
            stat += float(n * v @ np.linalg.solve(W.T @ W, v))
        df = r * h1
    else:
        disc = shared_discrepancy(results, zetas, factors, n, "Partial IRE")
        tol, max_iter = est.options["tol"], est.options["max_iter"]
        if d <= ex["numdir"]:
            free = ex["criteria"][d]
        else:
            free = disc.minimise(d, tol=tol, max_iter=max_iter)[1]
        joint = disc.minimise(d, T=kept, tol=tol, max_iter=max_iter)[1]
        stat, df = joint - free, r * d
    pv = chi2_upper(stat, df)
    return {"statistic": stat, "df": df, "p_value": pv, "p_values": {"chi2": pv}, "weights": "chi2"}


def group_values(
    est: Any, groups: np.ndarray | None, n_rows: int, weights: np.ndarray | None
) -> np.ndarray:
    """The group of each fitted row, as the model spec carries them (see :func:`fit_grouped`);
    shared by the partial methods (IRE, SIR, SAVE)."""
    label = f"Partial {est.method.upper()} (group={est.options['group']!r})"
    if groups is None or len(groups) != n_rows:
        raise ValueError(
            f"{label} needs the group of every row: fit "
            "it from a formula and data holding the group column (refits on resampled rows "
            "keep the groups of their rows)."
        )
    if weights is not None:
        raise ValueError(
            f"{label} refits on resampled rows, not on "
            "weighted ones: refits on weighted rows are not available for it."
        )
    return groups


def group_column(group: Any) -> str:
    """The column a ``group`` option names (``"sex"`` or ``"~ sex"``)."""
    if not isinstance(group, str):
        raise TypeError(
            f"The 'group' option must name a column of data (e.g. 'sex' or '~ sex'); got "
            f"{type(group).__name__}."
        )
    name = group.strip()
    return name[1:].strip() if name.startswith("~") else name


def fit_grouped(
    cls: type,
    formula: str,
    data: Any,
    group: str,
    *,
    missing: str = "drop",
    subset: Any = None,
    **options: Any,
) -> Any:
    """Fit a partial method (``cls`` with ``group=``): parse ``formula`` on ``data`` and attach
    the rows' ``group`` levels to the model spec."""
    from ..design.calls import format_call
    from ..design.formula import parse, select_rows

    name = group_column(group)
    frame = select_rows(data, subset)
    if name not in frame.columns:
        raise ValueError(
            f"The 'group' column {name!r} is not in data; columns are {list(frame.columns)[:12]}."
        )
    spec = parse(formula, frame, missing=missing)
    labels = frame[name].loc[spec.index]
    if labels.isna().any():
        raise ValueError(
            f"The 'group' column {name!r} has missing values in {int(labels.isna().sum())} "
            "fitted rows; drop or fill them."
        )
    est = cls._from_options({**options, "group": name})
    spec = dataclasses.replace(spec, groups=labels.to_numpy())
    call = format_call(
        cls.method,
        repr(formula),
        "data",
        f"group={name!r}",
        options=options,
        defaults=cls.params,
        subset=subset,
    )
    return est.fit_spec(spec, call=call)


__all__ = [
    "fit_grouped",
    "group_column",
    "group_values",
    "partial_coordinate_test",
]
