"""Partial IRE (Wen & Cook 2007): one central subspace shared by the levels of a group.

R ``dr``'s ``dr(..., group = ~G, method = "ire")``. The predictors are whitened once on all
rows by the QR of the centred matrix, ``z = √n Q``. In each level ``g`` of the group the rows of
``z`` are whitened again (R refits ``ire`` on them, so ``z_g = √n_g Q_g`` from their own QR),
sliced by the same rule and summarised by IRE's ``ζ_g`` and ``Γ_ζ`` factor ``G_g``, scaled by
``1/√(n_g/n)``. The fit minimises ``Σ_g n‖G_g^{-T}(vec ζ_g − vec(T B C_g))‖²`` over one shared
``B`` and per-group ``C_g`` by alternating least squares, started from the pooled SIR
eigenvectors; the rest (one re-estimation of ``Γ``, importance order, the tests) is IRE's.
Householder QR (numpy's LAPACK) gives R's factor signs, so the numbers are R's.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import scipy.linalg

from ..base.warnings import ConvergenceWarning
from ..fitting.estimator import EstimatorOutput
from ..stats.linalg import sym_eigh_desc
from ..stats.slicing import make_slices
from ._ire_als import chi2_upper, gamma_factor, helmert_basis, projected_means, solve_rounds


def _householder_z(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``√n Q`` and ``R`` of the centred rows, with R's (Householder) signs."""
    q, r = np.linalg.qr(X - X.mean(axis=0))
    return np.sqrt(X.shape[0]) * q, r


class _Group:
    """IRE's statistics of one group's rows of the pooled ``z``."""

    def __init__(self, z: np.ndarray, y: np.ndarray, h: int, function: str, n: int) -> None:
        self.n = z.shape[0]
        self.Z = _householder_z(z)[0]
        self.slices = make_slices(y, h, function=function)
        sizes = self.slices.sizes
        self.f = sizes / sizes.sum()
        onehot = self.slices.indicator()
        self.xi = (self.Z.T @ onehot) / sizes  # p × h_g slice means
        self.contrasts = helmert_basis(sizes.size)
        self.zeta = (self.xi * self.f) @ self.contrasts
        self.scale = np.sqrt(self.n / n)

    def factor(self, request: Any) -> np.ndarray:
        """``Γ_ζ``'s factor of a request of :func:`._ire_als.solve_rounds`, scaled."""
        means = projected_means(self.xi, request)
        G = gamma_factor(self.Z, self.slices.labels, self.f, means, self.contrasts)
        return G / self.scale


def _gsolve(a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """Pseudo-inverse solve with R ``dr``'s (MASS ``ginv``) threshold ``√eps · s_1``."""
    u, s, vt = np.linalg.svd(a1)
    keep = s > max(np.sqrt(np.finfo(float).eps) * s[0], 0)
    return vt[keep].T @ ((u[:, keep].T @ a2) / s[keep])


class PooledDiscrepancy:
    """``F(B, {C_g}) = Σ_g n‖G_g^{-T}(vec ζ_g − vec(T B C_g))‖²`` and its ALS."""

    def __init__(self, zetas: list[np.ndarray], factors: list[np.ndarray], n: int) -> None:
        self.zetas, self.n = zetas, n
        self.inv_t = [
            scipy.linalg.solve_triangular(G, np.eye(G.shape[0]), trans="T", lower=False)
            for G in factors
        ]
        self.targets = [W @ z.reshape(-1, order="F") for W, z in zip(self.inv_t, zetas)]

    def independence(self) -> float:
        return float(sum(self.n * np.sum(t**2) for t in self.targets))

    def value(self, TB: np.ndarray, Cs: list[np.ndarray]) -> float:
        return float(
            sum(
                self.n * np.sum((t - W @ (TB @ C).reshape(-1, order="F")) ** 2)
                for t, W, C in zip(self.targets, self.inv_t, Cs)
            )
        )

    def update_c(self, TB: np.ndarray) -> list[np.ndarray]:
        d = TB.shape[1]
        out = []
        for t, W, z in zip(self.targets, self.inv_t, self.zetas):
            h1 = z.shape[1]
            coef = np.linalg.lstsq(W @ np.kron(np.eye(h1), TB), t, rcond=None)[0]
            out.append(coef.reshape(d, h1, order="F"))
        return out

    def update_b(self, T: np.ndarray, B: np.ndarray, Cs: list[np.ndarray]) -> np.ndarray:
        B = B.copy()
        m, d = B.shape
        for k in range(d):
            others = np.delete(B, k, axis=1)
            if d > 1:
                q, _ = np.linalg.qr(others)
                complement = np.eye(m) - q @ q.T
            else:
                complement = np.eye(m)
            a1, a2 = np.zeros((m, m)), np.zeros(m)
            for W, z, C in zip(self.inv_t, self.zetas, Cs):
                alpha = (z - T @ others @ np.delete(C, k, axis=0)).reshape(-1, order="F")
                m1 = W @ (np.kron(C[k][:, None], T) @ complement)
                a1 += m1.T @ m1
                a2 += m1.T @ (W @ alpha)
            bk = complement @ (complement @ _gsolve(a1, a2))
            norm = np.linalg.norm(bk)
            B[:, k] = bk / norm if norm > 0 else B[:, k]
        return B

    def minimise(
        self,
        d: int,
        start: np.ndarray | None = None,
        T: np.ndarray | None = None,
        tol: float = 1e-6,
        max_iter: int = 200,
    ) -> tuple[np.ndarray, float, int]:
        p = self.zetas[0].shape[0]
        T = np.eye(p) if T is None else T
        B = np.eye(T.shape[1])[:, :d] if start is None else np.array(start, dtype=float)
        Cs = self.update_c(T @ B)
        err = self.value(T @ B, Cs)
        it = 0
        while True:
            it += 1
            B = self.update_b(T, B, Cs)
            Cs = self.update_c(T @ B)
            old, err = err, self.value(T @ B, Cs)
            if old == 0 or abs(err - old) / old < tol:
                break
            if it > max_iter:
                warnings.warn(
                    f"Partial IRE's alternating least squares for d = {d} stopped after {it} "
                    f"sweeps with relative change {abs(err - old) / old:.1e} > tol = {tol:g}; "
                    "raise max_iter or tol.",
                    ConvergenceWarning,
                    stacklevel=4,
                )
                break
        return T @ B, err, it


def _importance_order(
    disc: PooledDiscrepancy, B: np.ndarray, tol: float, max_iter: int
) -> np.ndarray:
    """R's reordering of a fitted basis by sequential d = 1 fits inside it."""
    first = disc.minimise(1, T=B, tol=tol, max_iter=max_iter)[0][:, 0]
    columns = [first / np.linalg.norm(first)]
    rest = B.copy()
    for _ in range(1, B.shape[1]):
        last = columns[-1]
        rest = rest - np.outer(last, last @ rest)
        rest = np.linalg.qr(rest)[0][:, :-1]
        best = disc.minimise(1, T=rest, tol=tol, max_iter=max_iter)[0][:, 0]
        columns.append(best / np.linalg.norm(best))
    return np.column_stack(columns)


def _first_positive(B: np.ndarray) -> np.ndarray:
    B = B / np.linalg.norm(B, axis=0)
    return B * np.where(B[0] < 0, -1.0, 1.0)


def fit_partial_ire(est: Any, X: np.ndarray, Y: np.ndarray, groups: np.ndarray) -> EstimatorOutput:
    """The partial IRE fit of rows ``X``, ``Y`` in the levels of ``groups`` (see module doc)."""
    o = est.options
    n, p = X.shape
    y = np.asarray(Y, dtype=float).reshape(-1)
    levels = list(dict.fromkeys(groups.tolist()))  # order of first appearance, as R
    for g in levels:
        n_g = int(np.sum(groups == g))
        if n_g < p:
            raise ValueError(
                f"Group {g!r} of {o['group']!r} has {n_g} rows; partial IRE needs at least "
                f"p = {p} rows in every group. Merge small groups or drop predictors."
            )
    Zp, Rp = _householder_z(X)
    h = o["nslices"] or p  # R's partial IRE default is p slices
    fn = o["slice_function"]
    parts = [_Group(Zp[groups == g], y[groups == g], h, fn, n) for g in levels]
    # start: the pooled SIR eigenvectors, in the coordinates of the pooled z's own QR (as R)
    Zs = _householder_z(Zp)[0]
    pooled = make_slices(y, h, function=fn)
    means = (Zs.T @ pooled.indicator()) / pooled.sizes
    sir_vectors = sym_eigh_desc((means * (pooled.sizes / n)) @ means.T)[1]

    def gammas(requests: list[Any]) -> list[list[np.ndarray]]:
        return [[g.factor(r) for g in parts] for r in requests]

    groups_seen = [(g.n, g.slices.sizes, g.zeta) for g in parts]
    return solve_partial(est, levels, groups_seen, sir_vectors, Rp, X.mean(axis=0), n, gammas)


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
        lambda factors: PooledDiscrepancy(zetas, factors, n),
        gammas,
        sir_vectors,
        top,
        o["steps"],
        tol,
        max_iter,
        _importance_order,
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
    est: Any, results: Any, gamma: np.ndarray, d: int | None
) -> dict[str, Any]:
    """R's ``dr.coordinate.test`` for partial IRE (marginal, or conditional on ``d``)."""
    ex = results.output.extras
    n, p = results.n, results.p
    kept = ex["R"] @ gamma
    r = p - kept.shape[1]
    zetas, factors = ex["zetas"], ex["gamma_factors"]
    h1 = sum(z.shape[1] for z in zetas)
    if d is None:
        H = np.linalg.qr(kept, mode="complete")[0][:, p - r :]
        stat = 0.0
        for z, G in zip(zetas, factors):
            W = G @ np.kron(np.eye(z.shape[1]), H)
            v = (H.T @ z).reshape(-1, order="F")
            stat += float(n * v @ np.linalg.solve(W.T @ W, v))
        df = r * h1
    else:
        disc = PooledDiscrepancy(zetas, factors, n)
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
    est = cls(group=name, **options)
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
    "PooledDiscrepancy",
    "fit_grouped",
    "fit_partial_ire",
    "group_column",
    "group_values",
    "partial_coordinate_test",
]
