"""The one alternating solver of the SDSPCAAN family (Shi, Wu, Huang, Wang & Lin 2020).

Every member of the family -- SDSPCAAN, SDSPCA, SDSPCA-LPP, SPCAN and PCAN -- is this solver
with some terms switched off; :mod:`sdrstats.sdspcaan.family` only chooses the switches.

Notation: ``X`` (n x p) is z-scored, ``Y`` (n x c) one-hot, ``Q`` (n x k) has orthonormal
columns and the projection is ``W = X^T Q`` so that the projected rows are ``P = X W = K Q``
with ``K = X X^T``. The objective (eq. 24 of Shi et al. 2020) is

.. math::

    J(Q, S) = -\\operatorname{tr}(Q^T K Q) - \\alpha' \\operatorname{tr}(Q^T Y Y^T Q)
              + \\beta' \\|Q\\|_{2,1}
              + \\delta' \\big[\\operatorname{tr}(P^T L_S P) + \\textstyle\\sum_i \\gamma_i \\|s_i\\|^2
              + \\lambda \\operatorname{tr}(F^T L_S F)\\big]

with ``L_S`` the Laplacian of the symmetrised similarity graph ``S`` and ``F = Y`` (or, for
unsupervised PCAN, the ``c`` smallest eigenvectors of ``L_S``).

* Q-step: ``Q`` = the ``k`` eigenvectors with the smallest eigenvalues of
  ``Z = -K - α'YY^T + β'D + δ' K L_S K`` with ``D_ii = 1 / (2 sqrt(||q_i||² + ε))`` (the
  reweighting that majorises the l2,1 norm, their eq. 9). ``Z`` is never formed for large n:
  it is a diagonal plus ``G C G^T`` with ``G = [X, Y]`` (:class:`QStepMatrix`); a new Q
  changes the diagonal, a new graph only the p x p block ``X^T L_S X`` of ``C``. The
  eigenvectors come from a partial solver: dense ``scipy.linalg.eigh(subset_by_index=...)``
  for small problems, else Lanczos (ARPACK) on the operator started from the previous Q, or
  LOBPCG warm-started at the previous Q.
* S-step: closed-form adaptive neighbours (Nie et al. 2014) for every row at once: squared
  distances ``d_ij = ||p_i - p_j||² + λ ||f_i - f_j||²``, the ``m + 1`` nearest by
  ``argpartition``, ``s_ij = (d_{i,m+1} - d_ij) / (m d_{i,m+1} - Σ_{h<=m} d_ih)``, then
  ``S <- (S + S^T) / 2``. ``λ`` is doubled while the ``c`` smallest Laplacian eigenvalues sum
  to more than ``tol`` and halved while the ``c + 1`` smallest sum to less (at most 30
  changes per S-step, and ``λ`` never leaves ``[λ0 2^-30, λ0 2^30]``: the authors' code let it
  grow to 1e21 when ``c`` components cannot form).

Two iterations (``iteration``), for the members with the global terms:

* ``"authors"`` (the default) is the loop of Shi et al.'s published MATLAB code
  (``SDSPCA.m``, ``SDSPCAAN.m``). Before every Q-step the trace scales are recomputed from the
  current ``Q`` and graph, ``β' = β tr(K)/tr(D)`` and ``δ' = δ tr(K)/tr(K L_S K)`` (``α'``
  does not change). Because the weights move, no single objective is minimised; the stopping
  rules are the authors': with an adaptive graph (SDSPCAAN) the objective as their code
  evaluates it (``tr(QᵀZQ)`` with ``Z`` at the current weights, ``+ δ Σ γ_i ‖s_i‖² +
  δ λ tr(YᵀL_S Y)``: the unscaled δ on the last two terms and ``tr(QᵀDQ) ≈ ‖Q‖₂,₁ / 2``, as
  written there) is computed after each S-step, and the solver stops as soon as it falls by
  less than ``tol`` (absolute) and returns that last ``Q``, whether the objective fell or
  rose; without an adaptive graph (SDSPCA, SDSPCA-LPP) it stops when
  ``‖Q_t − Q_{t−1}‖₂ < tol`` (spectral norm), with each column's sign matched to the
  previous ``Q`` first (the authors compare raw eigenvectors, whose signs are the
  eigensolver's arbitrary choice; a flip delays their stop). The authors' SDSPCA-LPP stops
  before its first Q-step (its best objective starts at -inf); here it is iterated with
  SDSPCA's rule. ``objective_trace`` is that objective at the start and after every
  iteration; it need not be monotone. The only departures from the authors' S-step are the
  λ guards above (a bounded range, no reversal within one S-step), which change nothing
  while λ settles within 30 doublings or halvings.
* ``"fixed_weights"`` computes the trace scales once, at ``Q0`` and its graph, so that the
  solver minimises one objective (24): it iterates while the objective falls by more than
  ``tol`` relative to its size; if an iteration raises the objective (possible because
  ``γ``, ``λ`` and the symmetrisation change the S-subproblem between iterations) the
  solver stops and returns the best iterate, which is the last entry of
  ``objective_trace``; the rejected value is kept in ``rejected_objective``.

``converged`` is False only when ``max_iter`` was reached. The members with only the graph
terms (SPCAN, PCAN) have no trace scales and always use the second rule.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh, lobpcg

from ..base.parallel import blas_threads_for
from ..base.warnings import ConvergenceWarning, SDRWarning
from .graph import (
    EPS,
    Graph,
    adaptive_neighbours,
    laplacian,
    neighbour_weights,
    one_hot,
    smallest_laplacian_eigen,
    squared_distances,
)


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
    eigensolver: str = "auto"
    iteration: str = "authors"  # "authors" (scales every iteration) or "fixed_weights"


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
    iteration: str = "fixed_weights"


def _row_norms(Q: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", Q, Q) + EPS)


class QStepMatrix:
    """``Z = diag(d) + G C G^T`` without forming it: ``G`` is tall (dim x r), ``C`` r x r.

    For the members with the global terms ``G = [X, Y]`` and
    ``C = blockdiag(-I + δ' X^T L X, -α' I)``, so ``Z = -XX^T - α'YY^T + δ' XX^T L XX^T`` plus
    the diagonal ``β'D``; a new graph only changes the p x p block ``X^T L X`` and a new Q only
    the diagonal. Matrix products cost O(dim r k) instead of O(dim² k).
    """

    def __init__(self, G: np.ndarray, C: np.ndarray, diagonal: np.ndarray | None = None):
        self.G, self.C = G, C
        self.diagonal = np.zeros(G.shape[0]) if diagonal is None else diagonal

    @property
    def dim(self) -> int:
        return self.G.shape[0]

    def matmat(self, V: np.ndarray) -> np.ndarray:
        V2 = V.reshape(self.dim, -1)
        out = self.diagonal[:, None] * V2 + self.G @ (self.C @ (self.G.T @ V2))
        return out if V.ndim == 2 else out.ravel()

    def dense(self) -> np.ndarray:
        Z = self.G @ self.C @ self.G.T
        Z[np.diag_indices(self.dim)] += self.diagonal
        return (Z + Z.T) / 2.0

    def operator(self) -> LinearOperator:
        return LinearOperator(
            (self.dim, self.dim),
            matvec=self.matmat,
            matmat=self.matmat,
            rmatvec=self.matmat,
            dtype=float,
        )


#: Above this dimension "auto" uses ARPACK on the low-rank operator instead of dense eigh.
DENSE_LIMIT = 800


def unused_eigensolver(method: str, k: int, dim: int) -> str | None:
    """Why an explicitly chosen iterative Q-step solver will not run, or None.

    ``"arpack"`` and ``"lobpcg"`` need ``k`` well below the Q-step's dimension (``3 k <
    dim``); otherwise :func:`smallest_eigen` solves with dense ``eigh``. The dimension is
    ``n`` for the members with the global terms and the rank of ``X`` (at most ``p``) for
    SPCAN and PCAN, whose ``Q`` is kept in the column space of ``X``.
    """
    if method not in ("arpack", "lobpcg") or 3 * k < dim:
        return None
    return (
        f"eigensolver={method!r} is not used: the Q-step matrix is {dim} x {dim} and "
        f"{method} needs 3 k < {dim} for k = {k} eigenvectors, so dense eigh solves it "
        "(the same eigenvectors). Pass eigensolver='auto' or 'eigh' to silence this."
    )


def smallest_eigen(
    Z: QStepMatrix, k: int, start: np.ndarray | None, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` smallest eigenvalues (ascending) and eigenvectors of ``Z``.

    ``"eigh"``: dense ``scipy.linalg.eigh(subset_by_index=[0, k-1])``; ``"arpack"``: Lanczos
    (``eigsh``, which="SA") on the low-rank operator, started from the previous Q's column
    sum; ``"lobpcg"``: LOBPCG on the operator started from the previous Q (falls back to
    ARPACK when its residuals stay large); ``"auto"``: eigh up to ``DENSE_LIMIT`` rows or when
    k is a large fraction of them, else ARPACK.
    """
    dim = Z.dim
    if method == "auto":
        method = "eigh" if dim <= DENSE_LIMIT or 3 * k >= dim else "arpack"
    if method in ("arpack", "lobpcg") and 3 * k >= dim:
        method = "eigh"  # the iterative solvers need k well below the dimension
    if method == "lobpcg" and start is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            values, vectors = lobpcg(Z.operator(), start, largest=False, tol=1e-7, maxiter=60)
        order = np.argsort(values)
        values, vectors = values[order], vectors[:, order]
        residual = np.linalg.norm(Z.matmat(vectors) - vectors * values, axis=0)
        if np.all(residual <= 1e-5 * max(1.0, np.abs(values).max())):
            return values, vectors
        method = "arpack"
    if method in ("arpack", "lobpcg"):
        v0 = None if start is None else start.sum(axis=1)
        if v0 is not None and not np.any(v0):
            v0 = None
        values, vectors = eigsh(
            Z.operator(), k=k, which="SA", v0=v0, tol=1e-10, ncv=min(dim, 2 * k + 20)
        )
        order = np.argsort(values)
        return values[order], vectors[:, order]
    return scipy.linalg.eigh(Z.dense(), subset_by_index=[0, k - 1], driver="evr")


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

    Notes
    -----
    Each iteration solves eigenproblems and forms products of order at most ``max(n, p)``;
    up to :data:`~sdrstats.base.parallel.SMALL_ORDER` they run on one BLAS thread, which on
    two cores was 2.5-3 times faster than two.
    """
    with blas_threads_for(max(X.shape)):
        return _solve(X, Y, config)


def _solve(X: np.ndarray, Y: np.ndarray, config: SolverConfig) -> SolverResult:
    """:func:`solve` inside its thread limit."""
    timings = {"setup": 0.0, "q_step": 0.0, "s_step": 0.0}
    t0 = time.perf_counter()
    problem = _Problem(X, Y, config, timings)
    V = problem.start
    timings["setup"] += time.perf_counter() - t0
    unused = unused_eigensolver(config.eigensolver, config.k, problem.Z.dim)
    if unused is not None:
        warnings.warn(unused, SDRWarning, stacklevel=3)
    if problem.authors:
        trace, V, values, n_iter, converged, last_change = _alternate_authors(
            problem, V, config, timings
        )
        rejected = None
    else:
        trace, V, values, n_iter, converged, rejected = _alternate(problem, V, config, timings)
        last_change = ""
        if not converged:  # max_iter accepted steps: the trace has at least two entries
            decrease = abs(trace[-2] - trace[-1]) / abs(trace[-2])
            last_change = f"last relative decrease {decrease:.3g}"
    if not converged:
        warnings.warn(
            f"The alternating solver did not converge in max_iter = {config.max_iter} "
            f"iterations ({last_change} > tol = {config.tol}); increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    graph = problem.graph
    return SolverResult(
        W=problem.A @ V,
        Q=V if problem.basis is None else problem.basis @ V,
        eigenvalues=np.asarray(values, dtype=float),
        similarity=None if graph is None else graph.S,
        objective_trace=np.asarray(trace),
        n_iter=n_iter,
        converged=converged,
        lam=config.lam if graph is None else graph.lam,
        scales=problem.scales,
        timings=timings,
        rejected_objective=rejected,
        iteration="authors" if problem.authors else "fixed_weights",
    )


class _Problem:
    """One member's objective in the coordinates ``V`` of its search space for ``Q``.

    ``Q`` ranges over all of R^n when the global (PCA, label, sparsity) terms are on; with only
    the graph terms, minimising over R^n would put ``Q`` in the null space of ``X^T`` whenever
    n > p (``W = 0``), so ``Q`` is kept in the column space of ``X``. ``W = A V`` either way.
    The Q-step matrix ``Z`` (:class:`QStepMatrix`) and the trace-scaled weights α', β', δ'
    are set up once; a new similarity graph changes only its ``X^T L X`` block.
    """

    def __init__(self, X: np.ndarray, Y: np.ndarray, config: SolverConfig, timings: dict) -> None:
        n, p = X.shape
        k = config.k
        self.X, self.Y, self.config, self.timings = X, Y, config, timings
        U0, sv, Rt = scipy.linalg.svd(X, full_matrices=False)
        if config.global_terms:
            self.basis, self.A = None, X.T
        else:
            rank = int(np.sum(sv > sv[0] * max(n, p) * EPS))
            self.basis, self.A = U0[:, :rank], Rt[:rank].T * sv[:rank]
        dim = self.A.shape[1]
        if k > dim:
            raise ValueError(
                f"k = {k} exceeds the rank {dim} of the centred predictors; this member keeps Q "
                f"in the column space of X, so choose k <= {dim}."
            )
        # Q0: the top-k left singular vectors of X, in the coordinates of the search space
        self.start = U0[:, :k] if self.basis is None else np.eye(dim)[:, :k]
        tr_k = float(np.sum(sv**2))  # tr(XX^T)
        self.trace_k = tr_k
        if config.iteration not in ("authors", "fixed_weights"):
            raise ValueError(
                f"iteration must be 'authors' or 'fixed_weights'; got {config.iteration!r}."
            )
        self.authors = config.global_terms and config.iteration == "authors"
        self.scales = {"alpha": 0.0, "beta": 0.0, "delta": 0.0}
        if config.global_terms:
            self.scales["alpha"] = config.alpha * tr_k / float(np.sum(Y * Y))
            self.scales["beta"] = (
                config.beta * tr_k / float(np.sum(1.0 / (2.0 * _row_norms(self.start))))
            )
            G = np.hstack([X, Y])
            C = scipy.linalg.block_diag(-np.eye(p), -self.scales["alpha"] * np.eye(Y.shape[1]))
        else:
            G, C = self.A.T, np.zeros((p, p))  # Z = δ' A^T (X^T L X) A in the column space of X
        self.Z = QStepMatrix(G, C)
        self.graph = Graph(config, Y) if config.graph != "none" else None
        self.middle = np.zeros((p, p))  # X^T L X, the only part of Z a new graph changes
        if self.graph is not None:
            self.update_graph(self.start)
            if config.global_terms:  # δ' = δ tr(XX^T) / tr(XX^T L XX^T)
                tr_klk = float(np.sum((X @ self.middle) * X))
                self.scales["delta"] = config.delta * tr_k / max(tr_klk, EPS)
            else:
                self.scales["delta"] = 1.0
            self.set_graph_block()

    def rescale(self, V: np.ndarray) -> None:
        """The authors' trace scales at ``Q`` (given by ``V``) and the current graph.

        ``β' = β tr(XX^T) / tr(D)`` with ``D`` from ``Q``, ``δ' = δ tr(XX^T) / tr(XX^T L XX^T)``
        with the current Laplacian, and the Q-step matrix's graph block to match.
        """
        config = self.config
        self.scales["beta"] = (
            config.beta * self.trace_k / float(np.sum(1.0 / (2.0 * _row_norms(V))))
        )
        if self.graph is not None:
            tr_klk = float(np.sum((self.X @ self.middle) * self.X))
            self.scales["delta"] = config.delta * self.trace_k / max(tr_klk, EPS)
            self.set_graph_block()

    def authors_objective(self, V: np.ndarray) -> float:
        """The objective as the authors' code evaluates it (``minObj`` in ``SDSPCAAN.m``).

        ``tr(Q^T Z Q)`` with ``Z`` at the current weights and ``D`` from ``Q`` itself (so the
        sparsity term is ``β' Σ ‖q_i‖² / (2 sqrt(‖q_i‖² + ε))``, about half of
        ``β' ‖Q‖₂,₁``), plus ``δ Σ γ_i ‖s_i‖² + δ λ tr(Y^T L Y)`` with the unscaled δ.
        """
        X, Y, scales = self.X, self.Y, self.scales
        sq = np.einsum("ij,ij->i", V, V)
        value = -float(np.sum((X.T @ V) ** 2)) - scales["alpha"] * float(np.sum((Y.T @ V) ** 2))
        value += scales["beta"] * float(np.sum(sq / (2.0 * np.sqrt(sq + EPS))))
        if self.graph is not None:
            smooth, ridge, labels = self.graph.penalty_terms(X @ (self.A @ V))
            value += scales["delta"] * smooth + self.config.delta * (ridge + labels)
        return value

    def update_graph(self, V: np.ndarray) -> None:
        """The S-step: adaptive neighbours of the projected rows, and the new ``X^T L X``."""
        t = time.perf_counter()
        self.graph.update(self.X @ (self.A @ V))
        self.middle = self.X.T @ (self.graph.L @ self.X)
        self.timings["s_step"] += time.perf_counter() - t

    def set_graph_block(self) -> None:
        p = self.X.shape[1]
        if self.config.global_terms:
            self.Z.C[:p, :p] = -np.eye(p) + self.scales["delta"] * self.middle
        else:
            self.Z.C = self.scales["delta"] * self.middle

    def objective(self, V: np.ndarray) -> float:
        """The objective (24) of Shi et al. (2020) at ``Q`` given by ``V`` and the current graph."""
        value = 0.0
        X, Y, scales = self.X, self.Y, self.scales
        if self.config.global_terms:
            value -= float(np.sum((X.T @ V) ** 2)) + scales["alpha"] * float(np.sum((Y.T @ V) ** 2))
            value += scales["beta"] * float(_row_norms(V).sum())
        if self.graph is not None:
            value += scales["delta"] * self.graph.penalty(X @ (self.A @ V))
        return value


def _alternate(
    problem: _Problem, V: np.ndarray, config: SolverConfig, timings: dict
) -> tuple[list[float], np.ndarray, np.ndarray, int, bool, float | None]:
    """Alternate Q- and S-steps from ``V``; keep the best iterate (see the module notes).

    Returns the objective trace, the best ``V`` and its Q-step eigenvalues, the iterations,
    whether the stopping rule was met, and the objective of a rejected last step (or None).
    """
    Z, graph = problem.Z, problem.graph
    trace = [problem.objective(V)]
    best_V, best_state = V, _snapshot(graph)
    converged, rejected = False, None
    best_values = np.zeros(config.k)
    n_iter = 0
    for iteration in range(1, config.max_iter + 1):
        n_iter = iteration
        t = time.perf_counter()
        if config.global_terms:
            Z.diagonal = problem.scales["beta"] / (2.0 * _row_norms(V))  # β'D from the current Q
        values, V = smallest_eigen(Z, config.k, V, config.eigensolver)
        timings["q_step"] += time.perf_counter() - t
        if graph is not None and config.graph == "adaptive":
            problem.update_graph(V)
            problem.set_graph_block()
        current = problem.objective(V)
        previous = trace[-1]
        if current > previous + config.tol * abs(previous):
            rejected = current  # the S-subproblem changed under us: keep the best iterate
            if iteration == 1:  # the start is the best: report its Rayleigh quotients
                best_values = np.einsum("ij,ij->j", best_V, Z.matmat(best_V))
            _restore(graph, best_state)
            converged = True
            break
        trace.append(current)
        best_V, best_values, best_state = V, values, _snapshot(graph)
        if previous - current <= config.tol * abs(previous):
            converged = True
            break
    return trace, best_V, best_values, n_iter, converged, rejected


def _alternate_authors(
    problem: _Problem, V: np.ndarray, config: SolverConfig, timings: dict
) -> tuple[list[float], np.ndarray, np.ndarray, int, bool, str]:
    """The authors' loop (see the module notes): weights rescaled before every Q-step.

    Returns the objective trace, the last ``V`` and its Q-step eigenvalues, the iterations,
    whether the stopping rule was met, and the last change (for the warning).
    """
    Z = problem.Z
    adaptive = problem.graph is not None and config.graph == "adaptive"
    problem.rescale(V)
    trace = [problem.authors_objective(V)]
    values = np.einsum("ij,ij->j", V, Z.matmat(V))
    converged, n_iter, last_change = False, 0, ""
    for iteration in range(1, config.max_iter + 1):
        n_iter = iteration
        t = time.perf_counter()
        Z.diagonal = problem.scales["beta"] / (2.0 * _row_norms(V))  # β'D from the current Q
        values, V_new = smallest_eigen(Z, config.k, V, config.eigensolver)
        timings["q_step"] += time.perf_counter() - t
        if adaptive:
            problem.update_graph(V_new)
        problem.rescale(V_new)
        current = problem.authors_objective(V_new)
        if adaptive:  # SDSPCAAN.m: stop when the objective falls by less than tol
            decrease = trace[-1] - current
            stop = decrease < config.tol
            last_change = f"last objective decrease {decrease:.3g}"
        else:  # SDSPCA.m: stop when Q moves by less than tol (signs matched first)
            signs = np.where(np.sum(V_new * V, axis=0) < 0, -1.0, 1.0)
            V_new = V_new * signs
            change = float(np.linalg.norm(V_new - V, 2))
            stop = change < config.tol
            last_change = f"last change of Q {change:.3g}"
        trace.append(current)
        V = V_new
        if stop:
            converged = True
            break
    return trace, V, np.asarray(values, dtype=float), n_iter, converged, last_change


def _snapshot(graph: Graph | None) -> tuple | None:
    if graph is None:
        return None
    return graph.S, graph.L, graph.gamma, graph.F, graph.lam


def _restore(graph: Graph | None, state: tuple | None) -> None:
    if graph is not None and state is not None:
        graph.S, graph.L, graph.gamma, graph.F, graph.lam = state


__all__ = [
    "SolverConfig",
    "SolverResult",
    "QStepMatrix",
    "solve",
    "smallest_eigen",
    "one_hot",
    "adaptive_neighbours",
    "neighbour_weights",
    "squared_distances",
    "laplacian",
    "smallest_laplacian_eigen",
]
