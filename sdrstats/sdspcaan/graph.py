"""The S-step of the SDSPCAAN family: adaptive-neighbour graphs and their Laplacians.

All rows at once: squared distances ``d_ij = ||p_i - p_j||² + λ ||f_i - f_j||²``, the
``m + 1`` nearest of each row by ``argpartition``, the closed-form weights of eq. (23) of Shi et al. (2020),
``S <- (S + S^T) / 2``, and PCAN's rule that doubles or halves λ until the graph has ``c``
connected components (smallest Laplacian eigenvalues against ``tol``).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

EPS = np.finfo(float).eps
#: λ never leaves [λ0 / LAMBDA_RANGE, λ0 * LAMBDA_RANGE] (the authors' code reached 1e21).
LAMBDA_RANGE = 2.0**30


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
    """Row-wise closed-form adaptive neighbours (Shi et al. 2020, eq. 23), all rows at once.

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


class GraphOptions(Protocol):
    """The options of :class:`~sdrstats.sdspcaan.solver.SolverConfig` the S-step reads (named
    here so that the graph module needs nothing from the solver that uses it)."""

    n_neighbors: int
    lam: float
    tol: float
    supervised_graph: bool


class Graph:
    """The S-step with its λ adaptation and the quantities the objective needs."""

    def __init__(self, config: GraphOptions, Y: np.ndarray) -> None:
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

    def penalty_terms(self, P: np.ndarray) -> tuple[float, float, float]:
        """tr(PᵀLP), Σ γ_i ‖s_i‖² and λ tr(FᵀLF): the three graph terms of the objective."""
        L, S = self.L, self.S
        smooth = float(np.sum(P * (L @ P)))
        ridge = float(self.gamma @ np.asarray(S.multiply(S).sum(axis=1)).ravel())
        labels = float(np.sum(self.F * (L @ self.F))) if self.F is not None else 0.0
        return smooth, ridge, self.lam * labels

    def penalty(self, P: np.ndarray) -> float:
        """tr(PᵀLP) + Σ γ_i ‖s_i‖² + λ tr(FᵀLF): the graph part of the objective."""
        return float(sum(self.penalty_terms(P)))


__all__ = [
    "Graph",
    "one_hot",
    "squared_distances",
    "neighbour_weights",
    "adaptive_neighbours",
    "laplacian",
    "smallest_laplacian_eigen",
]
