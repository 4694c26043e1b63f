"""The one alternating solver of the SDSPCAAN family (seed 001, METHODS.md §5).

Every member of the family -- SDSPCAAN, SDSPCA, SDSPCA-LPP, SPCAN and PCAN -- is this solver
with some terms switched off; :mod:`sdrstats.sdspcaan.family` only chooses the switches.

Notation: ``X`` (n x p) is z-scored, ``Y`` (n x c) one-hot, ``Q`` (n x k) has orthonormal
columns and the projection is ``W = X^T Q`` so that the projected rows are ``P = X W = K Q``
with ``K = X X^T``. The objective (seed eq. 24) is

.. math::

    J(Q, S) = -\\operatorname{tr}(Q^T K Q) - \\alpha' \\operatorname{tr}(Q^T Y Y^T Q)
              + \\beta' \\|Q\\|_{2,1}
              + \\delta' \\big[\\operatorname{tr}(P^T L_S P) + \\textstyle\\sum_i \\gamma_i \\|s_i\\|^2
              + \\lambda \\operatorname{tr}(F^T L_S F)\\big]

with ``L_S`` the Laplacian of the symmetrised similarity graph ``S`` and ``F = Y`` (or, for
unsupervised PCAN, the ``c`` smallest eigenvectors of ``L_S``).

* Q-step: ``Q`` = the ``k`` eigenvectors with the smallest eigenvalues of
  ``Z = -K - α'YY^T + β'D + δ' K L_S K`` with ``D_ii = 1 / (2 sqrt(||q_i||² + ε))`` (the
  reweighting that majorises the l2,1 norm, seed eq. 9). ``Z`` is kept as its fixed part
  plus ``β'D`` (a diagonal) plus the graph part, which is recomputed only when ``S`` changed,
  through the p x p matrix ``X^T L_S X``. Eigenvectors come from a partial dense solver
  (``scipy.linalg.eigh(subset_by_index=...)``) or from LOBPCG warm-started at the previous Q.
* S-step: closed-form adaptive neighbours (Nie et al. 2014) for every row at once: squared
  distances ``d_ij = ||p_i - p_j||² + λ ||f_i - f_j||²``, the ``m + 1`` nearest by
  ``argpartition``, ``s_ij = (d_{i,m+1} - d_ij) / (m d_{i,m+1} - Σ_{h<=m} d_ih)``, then
  ``S <- (S + S^T) / 2``. ``λ`` is doubled while the ``c`` smallest Laplacian eigenvalues sum
  to more than ``tol`` and halved while the ``c + 1`` smallest sum to less (at most 30
  changes per S-step, and ``λ`` never leaves ``[λ0 2^-30, λ0 2^30]``: the authors' code let it
  grow to 1e21 when ``c`` components cannot form).

Stopping rule (ours; the authors' code stops at the first rise and SDSPCA-LPP's never
iterates): iterate while the objective falls by more than ``tol`` relative to its size; if an
iteration raises the objective (possible because ``γ``, ``λ`` and the symmetrisation change
the S-subproblem between iterations) the solver stops and returns the best iterate, which is
the last entry of ``objective_trace``; the rejected value is kept in ``rejected_objective``.
``converged`` is False only when ``max_iter`` was reached.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh, lobpcg

from .._warnings import ConvergenceWarning

EPS = np.finfo(float).eps
LAMBDA_RANGE = 2.0**30


@dataclass
class SolverConfig:
    """Which terms of the objective are on (the family member) and the numeric options."""

    k: int
    alpha: float = 1.0
    beta: float = 1.0
    delta: float = 1.0
    global_terms: bool = True  # -tr(QᵀKQ) - α'tr(QᵀYYᵀQ) + β'‖Q‖₂,₁ (off for SPCAN/PCAN)
    graph: str = "adaptive"  # "adaptive", "fixed" (SDSPCA-LPP) or "none" (SDSPCA)
    supervised_graph: bool = True  # F = Y; False: F = c smallest eigenvectors of L (PCAN)
    n_neighbors: int = 15
    lam: float = 10.0
    tol: float = 1e-3
    max_iter: int = 100
    eigensolver: str = "eigh"


@dataclass
class SolverResult:
    """What the solver returns (see :func:`solve` for the meaning of each field)."""

    W: np.ndarray
    Q: np.ndarray
    eigenvalues: np.ndarray
    similarity: sp.csr_matrix | None
    objective_trace: np.ndarray
    n_iter: int
    converged: bool
    lam: float
    scales: dict[str, float]
    timings: dict[str, float] = field(default_factory=dict)
    rejected_objective: float | None = None


def one_hot(codes: np.ndarray, n_classes: int | None = None) -> np.ndarray:
    """n x c indicator matrix of integer class codes."""
    codes = np.asarray(codes, dtype=np.int64)
    c = int(codes.max()) + 1 if n_classes is None else n_classes
    Y = np.zeros((codes.size, c))
    Y[np.arange(codes.size), codes] = 1.0
    return Y


def squared_distances(P: np.ndarray) -> np.ndarray:
    """All pairwise squared Euclidean distances of the rows of ``P`` (clipped at 0)."""
    sq = np.einsum("ij,ij->i", P, P)
    dist = sq[:, None] + sq[None, :] - 2.0 * (P @ P.T)
    np.maximum(dist, 0.0, out=dist)
    return dist


def neighbour_weights(dist: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise closed-form adaptive neighbours (seed eq. 23), all rows at once.

    Returns the ``m`` nearest columns of each row (ascending distance), their weights (each
    row sums to 1) and ``γ_i = (m d_{i,m+1} - Σ_{h<=m} d_ih) / 2``; the weights minimise
    ``Σ_j d_ij s_ij + γ_i s_ij²`` over the probability simplex. The diagonal is ignored.
    """
    d = dist.copy()
    np.fill_diagonal(d, np.inf)
    nearest = np.argpartition(d, m, axis=1)[:, : m + 1]
    near_d = np.take_along_axis(d, nearest, axis=1)
    order = np.argsort(near_d, axis=1, kind="stable")
    nearest = np.take_along_axis(nearest, order, axis=1)
    near_d = np.take_along_axis(near_d, order, axis=1)
    d_next = near_d[:, m]  # the (m+1)-th smallest distance
    denom = m * d_next - near_d[:, :m].sum(axis=1)
    weights = (d_next[:, None] - near_d[:, :m]) / (denom[:, None] + EPS)
    # all m + 1 distances equal (e.g. duplicated points): spread the weight evenly
    weights[denom <= EPS] = 1.0 / m
    return nearest[:, :m], weights, denom / 2.0


def adaptive_neighbours(dist: np.ndarray, m: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """Adaptive-neighbour graph of a distance matrix, symmetrised: ``(S + S^T) / 2``.

    Also returns the per-row ``γ_i`` (see :func:`neighbour_weights`).
    """
    n = dist.shape[0]
    nearest, weights, gamma = neighbour_weights(dist, m)
    rows = np.repeat(np.arange(n), m)
    S = sp.csr_matrix((weights.ravel(), (rows, nearest.ravel())), shape=(n, n))
    return ((S + S.T) / 2.0).tocsr(), gamma


def laplacian(S: sp.csr_matrix) -> sp.csr_matrix:
    """Graph Laplacian ``diag(S 1) - S`` of a symmetric similarity matrix."""
    return (sp.diags(np.asarray(S.sum(axis=1)).ravel()) - S).tocsr()


def smallest_laplacian_eigen(L: sp.csr_matrix, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` smallest eigenvalues (ascending) and eigenvectors of a Laplacian."""
    n = L.shape[0]
    if n <= 400 or count >= n - 1:
        values, vectors = scipy.linalg.eigh(L.toarray(), subset_by_index=[0, count - 1])
    else:
        # shift-invert just below 0 finds the eigenvalues nearest 0 (L is PSD)
        v0 = np.full(n, 1.0 / np.sqrt(n))
        values, vectors = eigsh(L, k=count, sigma=-1e-6, which="LM", v0=v0)
        order = np.argsort(values)
        values, vectors = values[order], vectors[:, order]
    return np.maximum(values, 0.0), vectors


class _Graph:
    """The S-step with its λ adaptation and the quantities the objective needs."""

    def __init__(self, config: SolverConfig, Y: np.ndarray) -> None:
        self.config = config
        self.Y = Y
        self.c = Y.shape[1]
        self.n = Y.shape[0]
        self.m = min(config.n_neighbors, self.n - 2)
        self.lam = config.lam
        self.F = Y if config.supervised_graph else None
        self.S: sp.csr_matrix | None = None
        self.L: sp.csr_matrix | None = None
        self.gamma: np.ndarray | None = None
        self.n_adjust = 0

    def _label_distances(self) -> np.ndarray:
        if self.F is None:
            return np.zeros((self.n, self.n))
        return squared_distances(self.F)

    def update(self, P: np.ndarray) -> None:
        """S-step for projected rows ``P``, adapting λ as in PCAN."""
        tol = self.config.tol
        lo, hi = self.config.lam / LAMBDA_RANGE, self.config.lam * LAMBDA_RANGE
        dist_x = squared_distances(P)
        direction = 0
        for _ in range(31):
            if self.F is None and self.S is None:
                # PCAN's first graph: F is not known yet, so S comes from the data alone
                S, gamma = adaptive_neighbours(dist_x, self.m)
            else:
                S, gamma = adaptive_neighbours(dist_x + self.lam * self._label_distances(), self.m)
            L = laplacian(S)
            values, vectors = smallest_laplacian_eigen(L, min(self.c + 1, self.n - 1))
            self.S, self.L, self.gamma = S, L, gamma
            if not self.config.supervised_graph:
                self.F = vectors[:, : self.c]
            if values[: self.c].sum() > tol and direction >= 0 and self.lam * 2 <= hi:
                self.lam *= 2.0
                direction = 1
            elif (
                len(values) > self.c
                and values[: self.c + 1].sum() < tol
                and direction <= 0
                and self.lam / 2 >= lo
            ):
                self.lam /= 2.0
                direction = -1
            else:
                break
            self.n_adjust += 1

    def penalty(self, P: np.ndarray) -> float:
        """tr(PᵀLP) + Σ γ_i ‖s_i‖² + λ tr(FᵀLF): the graph part of the objective."""
        L, S = self.L, self.S
        smooth = float(np.sum(P * (L @ P)))
        ridge = float(self.gamma @ np.asarray(S.multiply(S).sum(axis=1)).ravel())
        labels = float(np.sum(self.F * (L @ self.F))) if self.F is not None else 0.0
        return smooth + ridge + self.lam * labels


def _row_norms(Q: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", Q, Q) + EPS)


def _smallest_eigen(
    Z: np.ndarray, k: int, start: np.ndarray | None, method: str
) -> tuple[np.ndarray, np.ndarray]:
    if method == "lobpcg" and start is not None and 5 * k < Z.shape[0]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            values, vectors = lobpcg(Z, start, largest=False, tol=1e-6, maxiter=40)
        order = np.argsort(values)
        values, vectors = values[order], vectors[:, order]
        residual = np.linalg.norm(Z @ vectors - vectors * values, axis=0)
        if np.all(residual <= 1e-4 * max(1.0, np.abs(values).max())):
            return values, vectors
    return scipy.linalg.eigh(Z, subset_by_index=[0, k - 1], driver="evr")


def solve(X: np.ndarray, Y: np.ndarray, config: SolverConfig) -> SolverResult:
    """Run the alternating optimisation of one family member.

    Parameters
    ----------
    X : ndarray (n, p)
        Centred and scaled predictors.
    Y : ndarray (n, c)
        One-hot class indicators.
    config : SolverConfig
        The member (which terms are on) and the numeric options.

    Returns
    -------
    SolverResult
        ``W`` (p x k projection, ``X W`` are the projected rows), ``Q``, the eigenvalues of
        the last Q-step, the similarity graph (None for SDSPCA), the objective after every
        iteration (non-increasing; see the module notes), iterations, convergence, the final
        λ, the trace scales ``alpha``, ``beta``, ``delta`` and the seconds spent in each step.
    """
    n, p = X.shape
    k = config.k
    timings = {"setup": 0.0, "q_step": 0.0, "s_step": 0.0}
    t0 = time.perf_counter()
    if config.global_terms:
        basis = None  # Q ranges over all of R^n
        A = X.T  # W = A V
    else:
        # Only the graph terms: minimising over all of R^n would put Q in the null space of
        # X^T whenever n > p (W = 0), so Q is kept in the column space of X.
        U, sv, Rt = np.linalg.svd(X, full_matrices=False)
        rank = int(np.sum(sv > sv[0] * max(n, p) * EPS))
        basis = U[:, :rank]
        A = Rt[:rank].T * sv[:rank]
    dim = A.shape[1]
    if k > dim:
        raise ValueError(f"k = {k} exceeds the {dim} dimensions available for Q.")
    # Q0: the top-k left singular vectors of X, in the coordinates of the search space
    U0, _, _ = scipy.linalg.svd(X, full_matrices=False)
    V = U0[:, :k] if basis is None else basis.T @ U0[:, :k]
    gram = A.T @ A  # = K in the search space
    tr_k = float(np.trace(gram))
    YB = Y if basis is None else basis.T @ Y
    scales = {"alpha": 0.0, "beta": 0.0, "delta": 0.0}
    fixed = np.zeros((dim, dim))
    if config.global_terms:
        scales["alpha"] = config.alpha * tr_k / float(np.sum(Y * Y))
        scales["beta"] = config.beta * tr_k / float(np.sum(1.0 / (2.0 * _row_norms(V))))
        fixed = -gram - scales["alpha"] * (YB @ YB.T)
    timings["setup"] += time.perf_counter() - t0

    graph = _Graph(config, Y) if config.graph != "none" else None
    graph_part = np.zeros((dim, dim))

    def rebuild_graph_part(V: np.ndarray) -> None:
        nonlocal graph_part
        t = time.perf_counter()
        graph.update(X @ (A @ V))
        middle = X.T @ (graph.L @ X)  # p x p: K L K = X (XᵀLX) Xᵀ
        graph_part = A.T @ middle @ A
        timings["s_step"] += time.perf_counter() - t

    if graph is not None:
        rebuild_graph_part(V)
        scale = tr_k / max(float(np.trace(graph_part)), EPS)
        scales["delta"] = config.delta * scale if config.global_terms else 1.0

    def objective(V: np.ndarray) -> float:
        value = 0.0
        if config.global_terms:
            Q = V if basis is None else basis @ V
            value -= float(np.sum(V * (gram @ V))) + scales["alpha"] * float(
                np.sum((YB.T @ V) ** 2)
            )
            value += scales["beta"] * float(_row_norms(Q).sum())
        if graph is not None:
            value += scales["delta"] * graph.penalty(X @ (A @ V))
        return value

    trace = [objective(V)]
    best_V = V
    best_state = _snapshot(graph)
    converged = False
    rejected = None
    values = best_values = np.zeros(k)
    n_iter = 0
    for iteration in range(1, config.max_iter + 1):
        n_iter = iteration
        t = time.perf_counter()
        Z = fixed + scales["delta"] * graph_part
        if config.global_terms and scales["beta"] > 0:
            Q = V if basis is None else basis @ V
            Z[np.diag_indices(dim)] += scales["beta"] / (2.0 * _row_norms(Q))
        values, V = _smallest_eigen(Z, k, V, config.eigensolver)
        timings["q_step"] += time.perf_counter() - t
        if graph is not None and config.graph == "adaptive":
            rebuild_graph_part(V)
        current = objective(V)
        previous = trace[-1]
        if current > previous + config.tol * abs(previous):
            rejected = current  # the S-subproblem changed under us: keep the best iterate
            if iteration == 1:  # the start is the best: report its Rayleigh quotients
                best_values = np.einsum("ij,ij->j", best_V, Z @ best_V)
            _restore(graph, best_state)
            converged = True
            break
        trace.append(current)
        best_V, best_values, best_state = V, values, _snapshot(graph)
        if previous - current <= config.tol * abs(previous):
            converged = True
            break
    if not converged:
        warnings.warn(
            f"The alternating solver did not converge in max_iter = {config.max_iter} "
            f"iterations (last relative decrease {abs(trace[-2] - trace[-1]) / abs(trace[-2]):.3g}"
            f" > tol = {config.tol}); increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    V, values = best_V, best_values
    Q = V if basis is None else basis @ V
    W = A @ V
    return SolverResult(
        W=W,
        Q=Q,
        eigenvalues=np.asarray(values, dtype=float),
        similarity=None if graph is None else graph.S,
        objective_trace=np.asarray(trace),
        n_iter=n_iter,
        converged=converged,
        lam=config.lam if graph is None else graph.lam,
        scales=scales,
        timings=timings,
        rejected_objective=rejected,
    )


def _snapshot(graph: _Graph | None) -> tuple | None:
    if graph is None:
        return None
    return graph.S, graph.L, graph.gamma, graph.F, graph.lam


def _restore(graph: _Graph | None, state: tuple | None) -> None:
    if graph is not None and state is not None:
        graph.S, graph.L, graph.gamma, graph.F, graph.lam = state


__all__ = [
    "SolverConfig",
    "SolverResult",
    "solve",
    "one_hot",
    "adaptive_neighbours",
    "squared_distances",
    "laplacian",
    "smallest_laplacian_eigen",
]
