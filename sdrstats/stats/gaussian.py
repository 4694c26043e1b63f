"""Gaussian kernels and the Gaussian-basis problem shared by LSCE, LSMI and LSCDE.

This module sits below the method families: the LSCE family
and the generic conditional densities (:mod:`sdrstats.density`) both import it, and it imports
no family. ``sdrstats.lsce.basis`` re-exports it under its old name.

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
``β = (Ĝ + λI)^{-1}Ĝα`` for SCE (the seed's formula) and ``(a, c) = (α/2, -α)`` for SMI, and
``dK_z[i, k]/dW = -K_z[i, k] (z_i - u_k)(x_i - x_{c_k})ᵀ / σ²`` carries it to ``W``.

(σ, λ) are chosen by K-fold cross-validation (:func:`choose_tuning`). A σ chosen at an end of
its grid means the held-out criterion may still fall beyond it, so with ``extend > 0`` the grid
grows by its own logarithmic step on that side (up to ``extend`` points) until the minimum is
interior; :class:`Tuning` records whether the choice still sits at an end, so the caller warns
(naming ``sigma_grid``) rather than passing it silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

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
            else:
                Ky = gaussian_kernel(self.Y, self.Yc, sigma)
            self._cache[key] = Ky
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
                        -squared_distances(self.Yc, self.Yc) / (4.0 * sigma * sigma)
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
    def solve(self, W: np.ndarray, sigma: float, lam: float, gradient: bool = True) -> QuadraticFit:
        """Ĝ, ĥ, α̂, the minimised value and (optionally) its gradient in ``W``."""
        Z = self.X @ W.T
        U = self.Xc @ W.T
        Kz = gaussian_kernel(Z, U, sigma)
        Ky = self.y_kernel(sigma)
        C = self.pair_matrix(sigma)
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
            fit.gradient = self._chain_to_W(Gamma * Kz, Z, U, sigma)
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
    eye = np.eye(len(h))
    try:
        return np.column_stack([cholesky_solve(cholesky(G + lam * eye), h) for lam in lams])
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


__all__ = [
    "BasisProblem",
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
