"""Gaussian kernels and the Gaussian-basis problem shared by LSCE, LSMI and LSCDE.

This module sits below the method families: the LSCE family
and the generic conditional densities (:mod:`sdrstats.density`) both import it, and it imports
no family.

One :class:`BasisProblem` holds whitened predictors ``X`` (n x p), the standardised response
``Y`` (n x q, or integer class codes), and the indices of the ``b`` samples used as Gaussian
centres. For a projection ``W`` (d x p, orthonormal rows) the reduced predictors are
``Z = X W^T`` and the centres ``U = X[c] W^T`` move with ``W``; the response centres are
``V = Y[c]``. Everything is a few matrix products of size n x b (no loops over samples or
centres).

Both criteria are quadratic programmes in the basis weights ``alpha``:
``Ĝ = (K_z^T K_z) ∘ C`` with ``K_z[i, k] = exp(-||z_i - u_k||² / 2σ²)`` and a response
"pair" matrix ``C`` that does not depend on ``W``; ``ĥ = mean_i K_z[i] ∘ K_y[i]``;
``alpha = (Ĝ + λI)^{-1} ĥ``.

- ``"sce"`` (LSCE, Tangkaratt et al. 2015): ``C = (√π σ)^q exp(-||v_k - v_k'||²/4σ²)/n``
  and the minimised value is ``SCE^ = ½ αᵀĜα - ĥᵀα``.
- ``"smi"`` (LSMI, Suzuki & Sugiyama 2013): ``C = K_yᵀK_y / n²`` and the minimised value is
  ``-SMI^ = -(½ ĥᵀα - ½)``.

In both, the derivative is ``dJ = αᵀ dĜ a + dĥᵀ c`` with ``(a, c) = (3/2 α - β, β - 2α)``,
``β = (Ĝ + λI)^{-1}Ĝα`` for SCE (Tangkaratt et al.'s 2015 formula) and ``(a, c) = (α/2, -α)`` for SMI, and
``dK_z[i, k]/dW = -K_z[i, k] (z_i - u_k)(x_i - x_{c_k})ᵀ / σ²`` carries it to ``W``.

(σ, λ) are chosen by K-fold cross-validation (:func:`choose_tuning`). A σ chosen at an end of
its grid means the held-out criterion may still fall beyond it, so with ``extend > 0`` the grid
grows by its own logarithmic step on that side (up to ``extend`` points) until the minimum is
interior; :class:`Tuning` records whether the choice still sits at an end, so the caller warns
(naming ``sigma_grid``) rather than passing it silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs

CRITERIA = ("sce", "smi")


def cholesky(A: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor by LAPACK ``dpotrf`` directly: these b x b solves (b <= 100) run
    thousands of times per fit, and scipy's wrappers cost more than the factorisation."""
    factor, info = dpotrf(A, lower=1, clean=0)
    if info != 0:
        raise np.linalg.LinAlgError("matrix is not positive definite")
    return factor


def cholesky_solve(factor: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``A^{-1} rhs`` from the lower factor of :func:`cholesky` (``dpotrs``)."""
    x, info = dpotrs(factor, rhs, lower=1)
    if info != 0:  # pragma: no cover - only for malformed arguments
        raise np.linalg.LinAlgError(f"dpotrs failed (info = {info})")
    return x


def squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Matrix of ``||a_i - b_k||²`` (clipped at 0 against rounding)."""
    d2 = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * (A @ B.T)
    return np.maximum(d2, 0.0)


def split_sigma(sigma: float | tuple[float, float]) -> tuple[float, float]:
    """``(σ_z, σ_y)`` from one common width or a pair of widths."""
    if np.ndim(sigma) == 0:
        return float(sigma), float(sigma)
    sz, sy = sigma
    return float(sz), float(sy)


def gaussian_kernel(A: np.ndarray, B: np.ndarray, sigma: float) -> np.ndarray:
    """``exp(-||a_i - b_k||² / (2 σ²))``."""
    return np.exp(-squared_distances(A, B) / (2.0 * sigma * sigma))


@dataclass
class QuadraticFit:
    """Solution of the quadratic programme at one ``(W, σ, λ)``."""

    value: float
    alpha: np.ndarray
    G: np.ndarray
    h: np.ndarray
    gradient: np.ndarray | None = None


@dataclass
class BasisProblem:
    """Data and centres of one LSCE/LSMI/LSCDE problem.

    Parameters
    ----------
    X : ndarray (n, p)
        Whitened (or standardised) predictors.
    Y : ndarray (n, q) float, or (n,) int class codes
        Standardised response.
    centres : ndarray of int (b,)
        Rows of ``X``/``Y`` used as Gaussian centres.
    criterion : {"sce", "smi"}
    """

    X: np.ndarray
    Y: np.ndarray
    centres: np.ndarray
    criterion: str = "sce"
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}; got {self.criterion!r}.")
        self.categorical = self.Y.ndim == 1 and self.Y.dtype.kind in "iu"
        if not self.categorical and self.Y.ndim == 1:
            self.Y = self.Y.reshape(-1, 1)
        self.Xc = self.X[self.centres]
        self.Yc = self.Y[self.centres]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def q(self) -> int:
        return 1 if self.categorical else self.Y.shape[1]

    # -- response side (independent of W; cached per σ) ------------------------------------
    def y_kernel(self, sigma: float) -> np.ndarray:
        """``K_y`` (n x b): Gaussian in y, or the delta kernel for class codes."""
        key = ("Ky", float(sigma))
        if key not in self._cache:
            if self.categorical:
                Ky = (self.Y[:, None] == self.Yc[None, :]).astype(float)
            else:  # the same numbers as gaussian_kernel, the distances computed once
                Ky = np.exp(-self._distances("Dy", self.Y) / (2.0 * sigma * sigma))
            self._cache[key] = Ky
        return self._cache[key]

    def _distances(self, key: str, A: np.ndarray) -> np.ndarray:
        """``squared_distances(A, Yc)`` of the response side (which no width changes), once."""
        if key not in self._cache:
            self._cache[key] = squared_distances(A, self.Yc)
        return self._cache[key]

    def pair_matrix(self, sigma: float, rows: np.ndarray | None = None) -> np.ndarray:
        """The response factor ``C`` of ``Ĝ = (K_zᵀK_z) ∘ C`` for the given rows."""
        m = self.n if rows is None else len(rows)
        if self.criterion == "sce":
            key = ("Vpair", float(sigma))
            if key not in self._cache:
                if self.categorical:
                    # ∫ over a discrete y is a sum: φ_k φ_k' summed over classes.
                    pair = (self.Yc[:, None] == self.Yc[None, :]).astype(float)
                else:
                    pair = (np.sqrt(np.pi) * sigma) ** self.q * np.exp(
                        -self._distances("Dyc", self.Yc) / (4.0 * sigma * sigma)
                    )
                self._cache[key] = pair
            return self._cache[key] / m
        Ky = self.y_kernel(sigma)
        Kr = Ky if rows is None else Ky[rows]
        return (Kr.T @ Kr) / (m * m)

    def _fold_pair(self, sigma: float, test: np.ndarray, train: bool) -> np.ndarray:
        """``C`` for the training rows (all but ``test``) or for the ``test`` rows."""
        if self.criterion == "sce":
            return self.pair_matrix(sigma) * self.n / (self.n - len(test) if train else len(test))
        Ky = self.y_kernel(sigma)
        test_pair = Ky[test].T @ Ky[test]
        if not train:
            return test_pair / len(test) ** 2
        key = ("KyKy", float(sigma))
        if key not in self._cache:
            self._cache[key] = Ky.T @ Ky
        m = self.n - len(test)
        return (self._cache[key] - test_pair) / (m * m)

    # -- the quadratic programme ----------------------------------------------------------
    def solve(
        self, W: np.ndarray, sigma: float | tuple[float, float], lam: float, gradient: bool = True
    ) -> QuadraticFit:
        """Ĝ, ĥ, α̂, the minimised value and (optionally) its gradient in ``W``.

        ``sigma`` is one width for ``z`` and ``y`` or a pair ``(σ_z, σ_y)``.
        """
        sz, sy = split_sigma(sigma)
        Z = self.X @ W.T
        U = self.Xc @ W.T
        Kz = gaussian_kernel(Z, U, sz)
        Ky = self.y_kernel(sy)
        C = self.pair_matrix(sy)
        G = (Kz.T @ Kz) * C
        h = (Kz * Ky).mean(axis=0)
        b = len(h)
        factor = cholesky(G + lam * np.eye(b))
        alpha = cholesky_solve(factor, h)
        if self.criterion == "sce":
            Galpha = G @ alpha
            beta = cholesky_solve(factor, Galpha)
            value = 0.5 * alpha @ Galpha - h @ alpha
            a, c = 1.5 * alpha - beta, beta - 2.0 * alpha
        else:
            value = -(0.5 * h @ alpha - 0.5)
            a, c = 0.5 * alpha, -alpha
        fit = QuadraticFit(value=float(value), alpha=alpha, G=G, h=h)
        if gradient:
            A = np.outer(alpha, a)
            Gamma = Kz @ ((A + A.T) * C) + Ky * (c / self.n)[None, :]
            fit.gradient = self._chain_to_W(Gamma * Kz, Z, U, sz)
        return fit

    def _chain_to_W(
        self, Omega: np.ndarray, Z: np.ndarray, U: np.ndarray, sigma: float
    ) -> np.ndarray:
        """``Σ_ik Ω_ik (z_i - u_k)(x_i - x_{c_k})ᵀ`` scaled by ``-1/σ²`` (a d x p matrix)."""
        rows = Omega.sum(axis=1)
        cols = Omega.sum(axis=0)
        total = (Z * rows[:, None] - Omega @ U).T @ self.X + (
            U * cols[:, None] - Omega.T @ Z
        ).T @ self.Xc
        return -total / (sigma * sigma)

    def objective(self, sigma: float, lam: float):
        """``W -> (value, gradient)`` for :func:`sdrstats.stats.grassmann.grassmann_minimize`."""

        def fun(W: np.ndarray) -> tuple[float, np.ndarray]:
            fit = self.solve(W, sigma, lam)
            return fit.value, fit.gradient

        return fun

    # -- cross-validation -----------------------------------------------------------------
    def cv_scores(
        self, W: np.ndarray, sigmas: np.ndarray, lams: np.ndarray, folds: np.ndarray
    ) -> np.ndarray:
        """Held-out criterion ``½ αᵀĜ_teα - ĥ_teᵀα`` averaged over folds, per (σ, λ).

        ``folds`` gives each row's fold number. Returns an array ``len(sigmas) x len(lams)``.
        The training solution for all λ comes from one eigen-decomposition per fold and σ.
        """
        Z = self.X @ W.T
        U = self.Xc @ W.T
        fold_ids = np.unique(folds)
        scores = np.zeros((len(sigmas), len(lams)))
        lams = np.asarray(lams, dtype=float)
        tests = [np.flatnonzero(folds == j) for j in fold_ids]
        n = self.n
        for s_idx, sigma in enumerate(sigmas):
            Kz = gaussian_kernel(Z, U, sigma)
            KzKy = Kz * self.y_kernel(sigma)
            S_all, h_all = Kz.T @ Kz, KzKy.sum(axis=0)
            for test in tests:
                # Training sums are the totals minus the held-out fold's.
                S_te, h_te = Kz[test].T @ Kz[test], KzKy[test].sum(axis=0)
                n_te = len(test)
                G_tr = (S_all - S_te) * self._fold_pair(sigma, test, train=True)
                G_te = S_te * self._fold_pair(sigma, test, train=False)
                alphas = _ridge_path(G_tr, (h_all - h_te) / (n - n_te), lams)  # b x len(lams)
                quad = np.einsum("kl,kl->l", alphas, G_te @ alphas)
                scores[s_idx] += 0.5 * quad - (h_te / n_te) @ alphas
        return scores / len(fold_ids)


def _ridge_path(G: np.ndarray, h: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """Columns ``(G + λI)^{-1} h`` for each λ (Cholesky per λ: cheaper than one eigh for
    b <= 100 and few λ; an eigen-decomposition if rounding made ``G + λI`` indefinite)."""
    b = len(h)
    A = G.copy()
    diag = np.diagonal(G).copy()
    out = np.empty((b, len(lams)))
    try:
        for j, lam in enumerate(lams):
            np.fill_diagonal(A, diag + lam)
            out[:, j] = cholesky_solve(cholesky(A), h)
        return out
    except np.linalg.LinAlgError:
        evals, evecs = np.linalg.eigh(G)
        coef = (evecs.T @ h)[:, None] / (np.maximum(evals, 0.0)[:, None] + lams[None, :])
        return evecs @ coef


def make_folds(n: int, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold number of each of ``n`` rows: a random permutation of near-equal folds."""
    return rng.permutation(np.arange(n) % n_folds)


def choose_centres(n: int, n_basis: int, rng: np.random.Generator) -> np.ndarray:
    """``min(n_basis, n)`` distinct rows, sorted, chosen at random."""
    b = min(n_basis, n)
    return np.sort(rng.choice(n, size=b, replace=False))


def standardise_response(Y: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each response column centred and scaled to unit variance."""
    Y = Y.reshape(len(Y), -1)
    mean = Y.mean(axis=0)
    scale = Y.std(axis=0, ddof=1)
    flat = np.flatnonzero(~(scale > 1e-12 * np.maximum(np.abs(mean), 1.0)))
    if flat.size:
        raise ValueError(
            f"The response of {method} has zero variance (column(s) {flat.tolist()} are "
            "constant); a conditional density needs a response that varies. Remove constant "
            "responses from the formula."
        )
    return (Y - mean) / scale, mean, scale


#: Points the default σ grid may grow by on either side when its end is chosen.
SIGMA_EXTENSIONS = 3


class Tuning(NamedTuple):
    """Chosen ``sigma``, ``lam`` and their ``cv`` score; ``at_edge`` when σ is still at an
    end of the grid tried (``"low"``, ``"high"`` or ``""``)."""

    sigma: float
    lam: float
    cv: float
    at_edge: str
    #: The σ values tried (the grid with any extension) and their scores (σ x λ).
    sigmas: np.ndarray | None = None
    scores: np.ndarray | None = None


def choose_tuning(
    problem: BasisProblem,
    W: np.ndarray,
    sigmas: np.ndarray,
    lams: np.ndarray,
    folds: np.ndarray,
    extend: int = 0,
) -> Tuning:
    """(σ, λ) minimising the K-fold held-out criterion at ``W``; see the module docstring."""
    sigmas = np.asarray(sigmas, dtype=float)
    scores = problem.cv_scores(W, sigmas, lams, folds)
    added = 0
    while True:
        i, j = np.unravel_index(np.argmin(scores), scores.shape)
        edge = (
            "" if len(sigmas) == 1 else "low" if i == 0 else "high" if i == len(sigmas) - 1 else ""
        )
        if not edge or added >= extend or len(sigmas) < 2:
            break
        if edge == "low":
            new = sigmas[0] * sigmas[0] / sigmas[1]
            sigmas = np.concatenate([[new], sigmas])
            scores = np.vstack([problem.cv_scores(W, [new], lams, folds), scores])
        else:
            new = sigmas[-1] * sigmas[-1] / sigmas[-2]
            sigmas = np.concatenate([sigmas, [new]])
            scores = np.vstack([scores, problem.cv_scores(W, [new], lams, folds)])
        added += 1
    return Tuning(float(sigmas[i]), float(lams[j]), float(scores[i, j]), edge, sigmas, scores)


class WidthTuning(NamedTuple):
    """Chosen ``(sigma_z, sigma_y, lam)`` and their ``cv`` score; ``at_edge`` names the width
    ("sigma_z low", "sigma_y high", ...) still at an end of its grid after extension."""

    sigma_z: float
    sigma_y: float
    lam: float
    cv: float
    at_edge: str
    #: Every grid point scored: columns sigma_z, sigma_y, lambda, cv_score.
    table: np.ndarray


class WidthScores:
    """Held-out criterion (LSCDE's or LSMI's, the problem's) at ``(σ_z, σ_y, λ)`` for one
    ``W``, memoised.

    Kernel products that depend on σ_z alone (``K_zᵀK_z`` of all rows and of each fold)
    are kept per σ_z in ``z_sides``, so moving along one width costs a few solves per fold.
    A scorer of another response on the same ``z`` rows, centres and folds may be given the
    same ``z_sides`` dictionary, so the two share these products.
    """

    def __init__(
        self,
        problem: BasisProblem,
        W: np.ndarray,
        folds: np.ndarray,
        z_sides: dict[Any, Any] | None = None,
    ) -> None:
        self.problem = problem
        self.Z, self.U = problem.X @ W.T, problem.Xc @ W.T
        self.tests = [np.flatnonzero(folds == j) for j in np.unique(folds)]
        self.z_sides: dict[Any, Any] = {} if z_sides is None else z_sides
        self.memo: dict[tuple[float, float, float], float] = {}

    def _z_side(self, sz: float) -> tuple:
        if sz not in self.z_sides:
            if "D" not in self.z_sides:  # shared with the scorers given these kernels
                self.z_sides["D"] = squared_distances(self.Z, self.U)
            Kz = np.exp(-self.z_sides["D"] / (2.0 * sz * sz))  # gaussian_kernel's numbers
            S_te = [Kz[t].T @ Kz[t] for t in self.tests]
            # the folds partition the rows: their products sum to all rows' product
            self.z_sides[sz] = (Kz, np.sum(S_te, axis=0), S_te)
        return self.z_sides[sz]

    def scores(self, sz: float, sy: float, lams: np.ndarray) -> np.ndarray:
        """The criterion at ``(sz, sy)`` for every λ in ``lams`` (memoised)."""
        sz, sy = float(sz), float(sy)
        lams = np.asarray(lams, dtype=float)
        todo = [lam for lam in lams if (sz, sy, float(lam)) not in self.memo]
        if todo:
            for lam, value in zip(todo, self.fold_scores(sz, sy, todo).mean(axis=0)):
                self.memo[(sz, sy, float(lam))] = float(value)
        return np.array([self.memo[(sz, sy, float(lam))] for lam in lams])

    def fold_scores(self, sz: float, sy: float, lams: np.ndarray) -> np.ndarray:
        """The held-out criterion of each fold (rows) at ``(sz, sy)`` for each λ (columns);
        :meth:`scores` is their mean (not memoised)."""
        p, n = self.problem, self.problem.n
        Kz, S_all, S_te = self._z_side(float(sz))
        KzKy = Kz * p.y_kernel(float(sy))
        h_all = KzKy.sum(axis=0)
        out = np.zeros((len(self.tests), len(lams)))
        # LSCDE's pair matrix does not depend on the rows but through their count
        pair = p.pair_matrix(sy) * n if p.criterion == "sce" else None
        for f, (test, S) in enumerate(zip(self.tests, S_te)):
            h_te = KzKy[test].sum(axis=0)
            n_te = len(test)
            G_tr = S_all - S
            if pair is None:
                G_tr *= p._fold_pair(sy, test, train=True)
                G_te = S * p._fold_pair(sy, test, train=False)
            else:
                G_tr *= pair
                G_tr /= n - n_te
                G_te = S * pair
                G_te /= n_te
            alphas = _ridge_path(G_tr, (h_all - h_te) / (n - n_te), np.asarray(lams, dtype=float))
            quad = np.einsum("kl,kl->l", alphas, G_te @ alphas)
            out[f] = 0.5 * quad - (h_te / n_te) @ alphas
        return out

    def table(self) -> np.ndarray:
        return np.array([[*key, value] for key, value in self.memo.items()])


def _extend(grid: list[float], side: str) -> list[float]:
    if side == "low":
        return [grid[0] * grid[0] / grid[1], *grid]
    return [*grid, grid[-1] * grid[-1] / grid[-2]]


def choose_widths(
    problem: BasisProblem,
    W: np.ndarray,
    sz_grid: np.ndarray,
    sy_grid: np.ndarray,
    lams: np.ndarray,
    folds: np.ndarray,
    *,
    extend: int = 0,
    start: tuple[float, float, float] | None = None,
    max_sweeps: int = 10,
    scorer: WidthScores | None = None,
) -> WidthTuning:
    """``(σ_z, σ_y, λ)`` minimising the K-fold held-out criterion at ``W`` (LSCDE's, or
    LSMI's for an ``"smi"`` problem).

    Coordinate descent on the grid ``sz_grid x sy_grid x lams``: from ``start`` (the grid
    point nearest it; default the middle of each grid) each axis in turn steps to the better
    neighbour while that lowers the criterion, and the three axes are swept until a sweep
    moves nothing, i.e. until no single-axis neighbour is better. The criterion is
    usually unimodal along each axis, so this finds the grid minimum with a few dozen
    scores instead of the whole grid's hundreds. A width that wants to step beyond an end
    of its grid grows the grid by its own logarithmic step there, up to ``extend`` points
    per width, as :func:`choose_tuning` does for the common width.
    """
    scorer = scorer or WidthScores(problem, W, folds)
    grids = [list(map(float, sz_grid)), list(map(float, sy_grid)), list(map(float, lams))]
    if start is None:
        pos = [len(g) // 2 for g in grids]
    else:
        pos = [int(np.argmin(np.abs(np.log(g) - np.log(v)))) for g, v in zip(grids, start)]
    added = [0, 0, extend]  # λ's grid is never extended

    def score(p: list[int]) -> float:
        return float(scorer.scores(grids[0][p[0]], grids[1][p[1]], [grids[2][p[2]]])[0])

    def neighbour(axis: int, step: int) -> list[int] | None:
        j = pos[axis] + step
        if 0 <= j < len(grids[axis]):
            return [*pos[:axis], j, *pos[axis + 1 :]]
        if added[axis] >= extend:
            return None
        grids[axis] = _extend(grids[axis], "low" if step < 0 else "high")
        added[axis] += 1
        if step < 0:
            pos[axis] += 1
        return [*pos[:axis], pos[axis] + step, *pos[axis + 1 :]]

    best = score(pos)
    for _ in range(max_sweeps):
        moved = False
        for axis in (0, 1, 2):
            if axis == 2:  # both λ neighbours from one set of fold matrices
                near = [grids[2][j] for j in (pos[2] - 1, pos[2] + 1) if 0 <= j < len(grids[2])]
                scorer.scores(grids[0][pos[0]], grids[1][pos[1]], near)
            trials = [(score(p), step, p) for step in (-1, 1) if (p := neighbour(axis, step))]
            if not trials or min(trials)[0] >= best:
                continue
            best, step, pos = min(trials, key=lambda t: t[0])
            moved = True
            while (p := neighbour(axis, step)) is not None and (value := score(p)) < best:
                best, pos = value, p
        if not moved:
            break
    sz, sy, lam = grids[0][pos[0]], grids[1][pos[1]], grids[2][pos[2]]
    edges = [
        f"{name} {'low' if pos[a] == 0 else 'high'}"
        for a, name in enumerate(("sigma_z", "sigma_y"))
        if len(grids[a]) > 1 and pos[a] in (0, len(grids[a]) - 1)
    ]
    return WidthTuning(sz, sy, lam, best, ", ".join(edges), scorer.table())


def _logsumexp_rows(a: np.ndarray) -> np.ndarray:
    top = a.max(axis=1)
    return top + np.log(np.exp(a - top[:, None]).sum(axis=1))


def _heldout_parts(
    problem: BasisProblem, W: np.ndarray, sz: float, folds: np.ndarray, cache: dict | None
) -> list[tuple]:
    """Per fold: the held-out mask, training rows, kept centres, the cross-product of the
    training rows' z-kernel, and the held-out rows' log z-weights (all that σ_y leaves
    fixed; kept in ``cache`` per σ_z). ``cache["z_sides"]``, when given, holds a
    :class:`WidthScores`' kernel products of the same ``problem``, ``W`` and ``folds`` per
    σ_z: the training rows' cross-product is then its all-rows product minus the fold's."""
    cache = {} if cache is None else cache
    if sz not in cache:
        sides = cache.get("z_sides") or {}
        if "D" not in cache:  # σ_z leaves the distances as they are
            cache["D"] = sides.get("D")
            if cache["D"] is None:
                cache["D"] = squared_distances(problem.X @ W.T, problem.Xc @ W.T)
        log_kz = -cache["D"] / (2.0 * sz * sz)
        side = sides.get(sz)
        Kz = np.exp(log_kz) if side is None else side[0]
        parts = []
        for f, j in enumerate(np.unique(folds)):
            test = folds == j
            train, keep = np.flatnonzero(~test), np.flatnonzero(~test[problem.centres])
            if side is None:
                Kt = Kz[train][:, keep]
                KtKt = Kt.T @ Kt
            else:
                KtKt = (side[1] - side[2][f])[keep][:, keep]
            parts.append((test, train, keep, KtKt, log_kz[test][:, keep]))
        cache[sz] = parts
        cache[("Kz", sz)] = Kz
    return cache[sz]


def heldout_log_density_widths(
    problem: BasisProblem,
    W: np.ndarray,
    sigma_z: float,
    sigma_ys: list[float],
    lam: float,
    folds: np.ndarray,
    values: list[list[np.ndarray]],
    widths: list[np.ndarray | None],
    cache: dict | None = None,
) -> list[list[np.ndarray]]:
    """:func:`heldout_log_density` at several σ_y at once (σ_z and λ held): entry
    ``[s][j]`` scores ``values[s][j]`` (n x q) under the refit at ``sigma_ys[s]`` with
    component widths ``σ_y widths[j]`` (``None``: all σ_y). The refits are those of
    :func:`heldout_log_density`; every σ_y's and width's rows are scored together.

    The mixture is summed in the linear domain against the z-weights scaled by their
    row's largest (one exponential per component and row), and a row whose sum
    underflows (a value tens of component widths from every centre) is summed again in
    logs, so that it keeps its finite log density.
    """
    n, q = problem.n, problem.q
    sys_ = np.asarray(sigma_ys, dtype=float)
    S, P = len(sys_), len(widths)
    if len(values) != S or any(len(v) != P for v in values):
        raise ValueError("heldout_log_density_widths: one list of P values per sigma_y.")
    V = np.stack([[np.asarray(v, float).reshape(n, -1) for v in row] for row in values])
    cache = {} if cache is None else cache
    parts = _heldout_parts(problem, W, float(sigma_z), folds, cache)
    Kz = cache[("Kz", float(sigma_z))]
    # The refits' log weights per fold, kept in the cache per (σ_z, σ_y, λ): a later call
    # at a σ_y already refitted (other values or widths to score) solves nothing.
    refits = {}
    for sy in sys_:
        key = ("log_alpha", float(sigma_z), float(sy), float(lam))
        if key not in cache:
            # Σ_i K_z K_y over all rows (a fold's training sums are it minus the fold's)
            # and the pair matrix
            KzKy = Kz * problem.y_kernel(sy)
            total_h, C = KzKy.sum(axis=0), problem.pair_matrix(sy) * n
            cache[key] = []
            for test, train, keep, KtKt, _ in parts:
                G = C[keep][:, keep]  # a fresh copy (cheaper than np.ix_'s)
                G *= KtKt
                G /= len(train)
                h = (total_h - KzKy[test].sum(axis=0))[keep] / len(train)
                alpha = _ridge_path(G, h, np.array([lam]))[:, 0]
                log_alpha = np.full(len(keep), -np.inf)
                pos = alpha > 0
                log_alpha[pos] = np.log(alpha[pos])
                cache[key].append(log_alpha)
        refits[float(sy)] = cache[key]
    norm = q * np.log(np.sqrt(2 * np.pi) * sys_)  # (S,)
    out = np.full((S, P, n), -np.inf)
    most = max(int(test.sum()) * len(keep) for test, _, keep, *_ in parts)
    buffer = np.empty(S * P * most)
    for f, (test, _, keep, _, log_kz_test) in enumerate(parts):
        log_alpha = np.stack([refits[float(sy)][f] for sy in sys_])  # (S, centres)
        alive = np.isfinite(log_alpha).any(axis=1)  # a refit with no positive weight: -inf
        if not alive.any():
            continue
        lz = log_kz_test[None] + log_alpha[:, None, :]  # (S, rows, centres)
        top = np.where(alive[:, None], lz.max(axis=2), 0.0)
        wz = np.exp(lz - top[..., None])
        base = top + np.log(wz.sum(axis=2)) + norm[:, None]  # (S, rows)
        factors = np.ones((P, len(keep)))
        for j, w in enumerate(widths):
            if w is not None:
                factors[j] = w[keep]
        centres = problem.Yc[keep]  # (centres, q)
        Vt = V[:, :, test]  # (S, P, rows, q)
        # (S, P, rows, centres) in one buffer, in place: a fresh array of this size per
        # step costs more in page faults than the arithmetic
        shape = (S, P, len(Vt[0, 0]), len(keep))
        ly = buffer[: int(np.prod(shape))].reshape(shape)
        # column by column: a sum over a last axis of length q = 1 costs more than the rest
        np.subtract(Vt[..., 0, None], centres[:, 0], out=ly)
        np.square(ly, out=ly)
        for col in range(1, q):
            ly += np.square(Vt[..., col, None] - centres[:, col])
        ly *= (-0.5 / (sys_[:, None, None] * factors[None]) ** 2)[:, :, None, :]
        np.exp(ly, out=ly)
        # the z-weights with the widths' normalising factors
        ly *= wz[:, None]
        if any(w is not None for w in widths):
            ly *= (factors ** (-q))[None, :, None, :]
        total = ly.sum(axis=3)
        with np.errstate(divide="ignore"):
            logp = np.log(total) + (top - base)[:, None, :]
        low = np.argwhere((total < 1e-250) & alive[:, None, None])
        if len(low):  # in logs, the rows whose mixture underflowed
            s_, p_, r_ = low.T
            d2 = np.square(Vt[s_, p_, r_][:, None, :] - centres[None]).sum(-1)
            a_ = (
                lz[s_, r_]
                - d2 / (2 * (sys_[s_, None] * factors[p_]) ** 2)
                - q * np.log(factors[p_])
            )
            logp[s_, p_, r_] = _logsumexp_rows(a_) - base[s_, r_]
        out[:, :, test] = np.where(alive[:, None, None], logp, -np.inf)
    return [[out[s, j] for j in range(P)] for s in range(S)]


def heldout_log_density(
    problem: BasisProblem,
    W: np.ndarray,
    sigma: float | tuple[float, float],
    lam: float,
    folds: np.ndarray,
    values: np.ndarray | list[np.ndarray] | None = None,
    widths: np.ndarray | list[np.ndarray | None] | None = None,
    cache: dict | None = None,
) -> np.ndarray | list[np.ndarray]:
    """Log of each row's LSCDE density (Tangkaratt et al. 2015, eq. 10) from the fit without its fold.

    For fold ``f`` the model is refitted at the given ``(σ, λ)`` on the other folds, using
    only the centres that are not rows of ``f`` (a centre at a held-out row would put a
    component on the value being scored), and row ``i`` of ``f`` is scored at its own
    response, or at ``values[i]`` when given (n x q, standardised units; a list of such
    arrays gives a list of results from the same refits). In logs:
    ``log Σ_k α̃_k φ_k(z_i, y_i) - log Σ_k α̃_k K_z(z_i, u_k) - q log(√(2π) σ_y)``. Rows of
    a fold whose refitted weights are all <= 0 get ``-inf``. ``widths`` (one factor per
    centre) scores the density whose component ``k`` has sd ``σ_y widths[k]`` (the weights
    still fitted with the common σ_y); with a list of ``values``, ``widths`` may be a list
    too, one entry (``None`` or factors) per array of values, so that fixed and adaptive
    widths are scored from the same refits. ``cache`` (a dict kept by the caller for one
    ``problem``, ``W`` and ``folds``) keeps the products that depend on σ_z alone, so that
    scoring many σ_y at one σ_z refits cheaply. :func:`heldout_log_density_widths` scores
    several σ_y at once.
    """
    sz, sy = split_sigma(sigma)
    many = isinstance(values, list)
    targets = values if many else [problem.Y if values is None else values]
    per_target = widths if isinstance(widths, list) else [widths] * len(targets)
    if len(per_target) != len(targets):
        raise ValueError("heldout_log_density: give one entry of 'widths' per array of values.")
    out = heldout_log_density_widths(
        problem, W, sz, [sy], lam, folds, [list(targets)], per_target, cache
    )[0]
    return out if many else out[0]


def select_hyperparameters(
    problem: BasisProblem, W: np.ndarray, sigmas: np.ndarray, lams: np.ndarray, folds: np.ndarray
) -> tuple[float, float, float]:
    """(σ, λ, CV score) minimising the K-fold held-out criterion at ``W`` (grid as given)."""
    tuning = choose_tuning(problem, W, sigmas, lams, folds)
    return tuning.sigma, tuning.lam, tuning.cv


def edge_message(method: str, edge: str, sigma: float, user_grid: bool) -> str:
    """The warning text for a σ left at the ``edge`` ("low"/"high") of its grid."""
    side = "smallest" if edge == "low" else "largest"
    how = (
        "the grid given by 'sigma_grid'"
        if user_grid
        else f"the default grid, after extending it by {SIGMA_EXTENSIONS} points"
    )
    return (
        f"{method} chose sigma = {sigma:.4g}, the {side} value of {how}; the cross-validated "
        f"optimum may lie beyond it. Pass a 'sigma_grid' reaching further "
        f"{'down' if edge == 'low' else 'up'}."
    )


def width_edge_messages(
    method: str, at_edge: str, sigma_z: float, sigma_y: float, user_grid: bool
) -> list[str]:
    """Warning texts for the widths :func:`choose_widths` left at an end of their grids
    (``at_edge`` such as ``"sigma_y low"``). ``σ_z`` at its largest is no warning: its
    limit is a density that does not depend on ``z``, and nothing lies beyond it."""
    out = []
    for part in filter(None, at_edge.split(", ")):
        name, side = part.split()
        if part == "sigma_z high":
            continue
        value = sigma_z if name == "sigma_z" else sigma_y
        out.append(edge_message(method, side, value, user_grid).replace("sigma =", f"{name} ="))
    return out


__all__ = [
    "BasisProblem",
    "width_edge_messages",
    "WidthScores",
    "WidthTuning",
    "choose_widths",
    "heldout_log_density",
    "heldout_log_density_widths",
    "split_sigma",
    "QuadraticFit",
    "gaussian_kernel",
    "squared_distances",
    "make_folds",
    "choose_centres",
    "select_hyperparameters",
    "standardise_response",
    "SIGMA_EXTENSIONS",
    "Tuning",
    "choose_tuning",
    "edge_message",
]
