"""Small linear-algebra helpers shared by the estimators."""

from __future__ import annotations

import numpy as np


def unit_columns(basis: np.ndarray) -> np.ndarray:
    """Scale each column to unit Euclidean length (zero columns stay zero)."""
    norms = np.linalg.norm(basis, axis=0)
    norms[norms == 0] = 1.0
    return basis / norms


def canonical_sign(basis: np.ndarray) -> np.ndarray:
    """Flip columns so that each column's largest-magnitude entry is positive.

    Ties in magnitude go to the first such entry, so the sign is deterministic.
    """
    basis = np.array(basis, dtype=float, copy=True)
    if basis.size == 0:
        return basis
    rows = np.argmax(np.abs(basis), axis=0)
    signs = np.sign(basis[rows, np.arange(basis.shape[1])])
    signs[signs == 0] = 1.0
    return basis * signs


def canonical_basis(basis: np.ndarray) -> np.ndarray:
    """Unit-length columns with the canonical sign."""
    return canonical_sign(unit_columns(np.asarray(basis, dtype=float)))


def sym_eigh_desc(matrix: np.ndarray, by_abs: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition of a symmetric matrix, ordered by decreasing value (or |value|)."""
    sym = (matrix + matrix.T) / 2.0
    values, vectors = np.linalg.eigh(sym)
    order = np.argsort(-np.abs(values) if by_abs else -values, kind="stable")
    return values[order], vectors[:, order]


__all__ = ["unit_columns", "canonical_sign", "canonical_basis", "sym_eigh_desc"]
