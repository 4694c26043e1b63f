"""OPG and MAVE as R ``MAVE`` computes them (its compiled ``MAVEfast``), and kernel SIR.

Notation: ``Z`` (n, p) whitened predictors; ``T`` (n, r) targets (see
:func:`~sdrstats.mave.prepare.make_targets`); a ``k``-dimensional solution is a ``p × k``
orthonormal matrix in ``Z`` coordinates.

**The dimension path** (Xia et al. 2002, section 3.3, "dimension reduction by reducing the
dimension step by step"). Start from ``B = I_p``; for ``k = p, p − 1, …, 1`` keep the first
``k`` columns of the current ``B`` and iterate (5 times for ``k ≤ 10``, twice for
``10 < k < 20``, once beyond):

1. choose centres spread over the data (:func:`representative_points`: about 100 of them,
   every observation when ``n ≤ 100``);
2. localise with the Gaussian kernel on the current directions,
   ``w_ij = exp(−‖Bᵀ(Z_i − Z_j)‖² / s_j)`` with ``s_j = max(2h², δ_j)``, where
   ``h = 1.2 · mean sd(ZB) · n^{-1/(k+4)}`` and ``δ_j`` is the ``2k``-th smallest squared
   distance from centre ``j`` (so that every centre has neighbours);
3. OPG: at each centre fit ``T`` on ``(1, Z_i − Z_j)`` by kernel-weighted least squares (ridge
   ``I/n``), sum the outer products of the slopes, ``U = Σ_j b_j b_jᵀ``; MAVE (``k ≤ 5``):
   fit ``T`` on ``(1, Bᵀ(Z_i − Z_j))`` to get ``(a_j, C_j)``, then solve the weighted least
   squares problem ``min_B Σ_j Σ_i w_ij ‖T_i − a_j − C_jᵀ Bᵀ(Z_i − Z_j)‖²`` (ridge ``I/n``) and
   set ``U = B (Σ_j C_j C_jᵀ) Bᵀ``;
4. the new ``B`` is the top ``k`` eigenvectors of ``U``.

The ``k``-dimensional solution is ``B`` after the iterations at ``k``. All centres of a block
are fitted at once from kernel-weighted moments (one matrix product per block and one batched
solve), so an iteration costs ``O(n · centres · p (p + r))`` flops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .local import blocks, kernel_block, local_moments, moment_features

#: R ``MAVE``'s bandwidth constant: ``h = 1.2 · mean sd · n^{-1/(k+4)}``.
BANDWIDTH_CONSTANT = 1.2
#: Dimensions up to which the MAVE variants use MAVE steps (OPG steps above), as in R.
MAVE_STEP_MAX_DIM = 5


@dataclass
class Solution:
    """The ``k``-dimensional solution in ``Z`` coordinates and how it was reached.

    ``converged`` is ``None`` when no ``tol`` was given (R's fixed number of iterations).
    """

    basis: np.ndarray
    eigenvalues: np.ndarray
    iterations: int
    bandwidth: float
    changes: list[float] = field(default_factory=list)
    converged: bool | None = None


def top_eigenvectors(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Leading ``k`` eigenpairs of a symmetric matrix, decreasing."""
    values, vectors = np.linalg.eigh((M + M.T) / 2.0)
    order = np.argsort(-values, kind="stable")[:k]
    return values[order], vectors[:, order]


def subspace_change(a: np.ndarray, b: np.ndarray) -> float:
    """Projection distance between two orthonormal bases."""
    return float(np.linalg.norm(a @ a.T - b @ b.T))


def default_centres(n: int) -> int:
    """R ``MAVE``'s number of centres: ``max(min(100, n), ⌊√n⌋)``."""
    return max(min(100, n), int(np.floor(np.sqrt(n))))


def iterations_at(k: int) -> int:
    """R ``MAVE``'s iterations at dimension ``k``: 5 up to 10, 2 below 20, else 1."""
    return 5 if k <= 10 else (2 if k < 20 else 1)


def dimension_sequence(p: int, max_dim: int) -> list[int]:
    """Dimensions visited by the path: ``p, p−1, …, 1``, or for ``p > 20`` the jumps
    ``⌊0.8^t p⌋ ≥ max_dim`` followed by ``max_dim, …, 1`` (as R ``MAVE``)."""
    if p <= 20:
        return list(range(p, 0, -1))
    factors = np.cumprod(np.r_[1.0, np.full(50, 0.8)])
    jumps = [int(np.floor(f * p)) for f in factors if f * p >= max_dim]
    return jumps + list(range(max_dim, 0, -1))


def representative_points(V: np.ndarray, n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Centres spread evenly over the rows of ``V``, and the rows each one stands for.

    With ``g = ⌊n / n_points⌋ > 1``: take the first row not yet used, its ``g`` nearest unused
    rows (itself included) form a group, the member nearest the group mean is the centre,
    and the group is removed; repeat while more than one row is left (R ``MAVE``'s
    ``unifD``). With ``n ≤ n_points`` every row is a centre.

    Returns the centres' row indices and a list-like of the group of each centre (an
    ``(c, g)`` array, padded with ``-1``).

    Examples
    --------
    >>> V = np.arange(8.0)[:, None]
    >>> centres, groups = representative_points(V, 4)
    >>> centres.tolist(), groups.tolist()
    ([0, 2, 4, 6], [[0, 1], [2, 3], [4, 5], [6, 7]])
    """
    n = V.shape[0]
    if int(np.ceil(n / n_points)) == 1:
        every = np.arange(n)
        return every, every[:, None]
    size = n // n_points
    remaining = np.arange(n)
    centres, groups = [], []
    while len(remaining) > 1:
        rows = V[remaining]
        dist = np.sum((rows - rows[0]) ** 2, axis=1)
        group = _smallest(dist, min(size, len(remaining)))
        members = rows[group]
        mean = members.sum(axis=0) / len(group)
        spread = np.sum((members - mean) ** 2, axis=1)
        # the member nearest the mean; near-ties (a group of two is always one) go to the
        # earliest member, where R's choice depends on the rounding of its arithmetic
        nearest = int(np.flatnonzero(spread <= spread.min() * (1 + 1e-9) + 1e-300)[0])
        centres.append(remaining[group[nearest]])
        padded = np.full(size, -1)
        padded[: len(group)] = remaining[group]
        groups.append(padded)
        remaining = np.delete(remaining, group)
    return np.asarray(centres), np.asarray(groups)


def _smallest(values: np.ndarray, count: int) -> np.ndarray:
    """Positions of the ``count`` smallest values in stable-sort order (ties: first first)."""
    if count >= len(values):
        return np.argsort(values, kind="stable")
    threshold = np.partition(values, count - 1)[count - 1]
    below = np.flatnonzero(values < threshold)
    tied = np.flatnonzero(values == threshold)[: count - len(below)]
    chosen = np.sort(np.concatenate([below, tied]))
    return chosen[np.argsort(values[chosen], kind="stable")]


def centre_weights(groups: np.ndarray, obs_weights: np.ndarray | None) -> np.ndarray:
    """Weight of each centre: the mean observation weight of its group (1 without weights)."""
    if obs_weights is None:
        return np.ones(len(groups))
    member = groups >= 0
    padded = np.where(member, obs_weights[np.maximum(groups, 0)], 0.0)
    return padded.sum(axis=1) / member.sum(axis=1)


def _neighbour_scale(sq: np.ndarray, rank: int, obs_weights: np.ndarray | None) -> np.ndarray:
    """The ``rank``-th smallest squared distance of each row (weights count as rows)."""
    rank = min(rank, sq.shape[1])
    if obs_weights is None:
        return np.partition(sq, rank - 1, axis=1)[:, rank - 1]
    order = np.argsort(sq, axis=1, kind="stable")
    cumulative = np.cumsum(obs_weights[order], axis=1)
    first = np.minimum(np.argmax(cumulative >= rank - 1e-9, axis=1), sq.shape[1] - 1)
    return np.take_along_axis(sq, order, axis=1)[np.arange(len(sq)), first]


def kernel_weights(
    V: np.ndarray, centres: np.ndarray, h: float, neighbours: int, obs_weights: np.ndarray | None
) -> np.ndarray:
    """``w_ij = ω_i exp(−‖V_i − V_j‖² / max(2h², δ_j))`` for centres ``j`` (rows) and all ``i``.

    ``δ_j`` is the ``neighbours``-th smallest squared distance from centre ``j``.
    """
    Vc = V[centres]
    sq = np.sum(Vc**2, axis=1)[:, None] + np.sum(V**2, axis=1)[None, :]
    sq -= 2.0 * (Vc @ V.T)
    np.maximum(sq, 0.0, out=sq)
    sq[np.arange(len(centres)), centres] = 0.0  # exactly, as R's direct differences give
    scale = np.maximum(2.0 * h * h, _neighbour_scale(sq, neighbours, obs_weights))
    sq /= -scale[:, None]
    W = np.exp(sq, out=sq)
    if obs_weights is not None:
        W *= obs_weights[None, :]
    return W


def _ridge_solve(A: np.ndarray, rhs: np.ndarray, ridge: float) -> np.ndarray:
    A = A + ridge * np.eye(A.shape[-1])
    return np.linalg.solve(A, rhs)


def _local_system(mom, B: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Normal equations of the fits on ``(Bᵀ(Z_i − Z_j), 1)`` (``B = None``: on ``Z_i − Z_j``).

    Slopes first and the intercept last, as R orders the design.
    """
    s1, s2, wdt = mom.s1, mom.s2, mom.wdt
    if B is not None:
        s1 = s1 @ B
        s2 = np.einsum("pa,jpq,qb->jab", B, s2, B)
        wdt = np.einsum("pa,jpm->jam", B, wdt)
    b, r = s1.shape
    A = np.empty((b, r + 1, r + 1))
    A[:, :r, :r] = s2
    A[:, :r, r] = s1
    A[:, r, :r] = s1
    A[:, r, r] = mom.s0
    rhs = np.concatenate([wdt, mom.wt[:, None, :]], axis=1)
    return A, rhs


class PathState:
    """Everything one fit's iterations share: data, targets, weights and their moments."""

    def __init__(self, Z: np.ndarray, T: np.ndarray, obs_weights: np.ndarray | None):
        self.Z, self.T, self.w = Z, T, obs_weights
        self.total = float(Z.shape[0] if obs_weights is None else obs_weights.sum())
        self.features = moment_features(Z, T)
        self.n_points = default_centres(Z.shape[0])

    def bandwidth(self, V: np.ndarray, k: int, fixed: float | None) -> float:
        if fixed is not None:
            return fixed
        w = np.ones(len(V)) if self.w is None else self.w
        mean = w @ V / self.total
        sd = np.sqrt(w @ (V - mean) ** 2 / (self.total - 1.0))
        return BANDWIDTH_CONSTANT * float(np.mean(sd)) / self.total ** (1.0 / (k + 4))

    def moment_blocks(self, V: np.ndarray, h: float, neighbours: int):
        """Kernel-weighted local moments at the centres, block by block, with centre weights."""
        centres, groups = representative_points(V, self.n_points)
        weights = centre_weights(groups, self.w)
        for blk in blocks(len(centres), self.features.shape[1], n_rows=self.Z.shape[0]):
            idx = centres[blk]
            W = kernel_weights(V, idx, h, neighbours, self.w)
            yield local_moments(W, self.Z, self.T, idx, self.features), weights[blk]

    def opg_matrix(self, B: np.ndarray, h: float, neighbours: int) -> tuple[np.ndarray, float]:
        """``U = Σ_j b_j b_jᵀ`` of the local-linear slopes on ``Z`` (kernel on ``ZB``)."""
        p = self.Z.shape[1]
        U = np.zeros((p, p))
        count = 0.0
        for mom, cw in self.moment_blocks(self.Z @ B, h, neighbours):
            A, rhs = _local_system(mom, None)
            slopes = _ridge_solve(A, rhs, 1.0 / self.total)[:, :p, :]
            U += np.einsum("j,jam,jbm->ab", cw, slopes, slopes)
            count += cw.sum()
        return U, count

    def mave_update(
        self, B: np.ndarray, h: float, neighbours: int
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """One MAVE step from ``B``: local fits ``(a_j, C_j)`` on ``Bᵀ(Z_i − Z_j)``, then the
        ``B`` minimising ``Σ_j Σ_i w_ij ‖T_i − a_j − C_jᵀ Bᵀ(Z_i − Z_j)‖² + ‖B‖²/n``.

        Returns that ``B`` (not orthonormal), ``Σ_j C_j C_jᵀ`` and the summed centre weights.
        """
        p, k = B.shape
        lhs = np.zeros((k, p, k, p))
        rhs = np.zeros((k, p))
        gram = np.zeros((k, k))
        count = 0.0
        for mom, cw in self.moment_blocks(self.Z @ B, h, neighbours):
            A, local_rhs = _local_system(mom, B)
            sol = _ridge_solve(A, local_rhs, 1.0 / self.total)
            C, a = sol[:, :k, :], sol[:, k, :]
            CC = np.einsum("jam,jbm->jab", C, C)
            # Σ_i w_ij (Z_i − Z_j)(T_i − a_j)ᵀ C_jᵀ, from the moments
            G = (
                np.einsum("jpm,jam->jpa", mom.wdt, C)
                - mom.s1[:, :, None] * np.einsum("jam,jm->ja", C, a)[:, None, :]
            )
            # normal equations in vec(B) (column-major): Σ_j (C_j C_jᵀ ⊗ S_j) vec(B) = Σ vec(G_j)
            lhs += np.einsum("j,jab,jcd->acbd", cw, CC, mom.s2)
            rhs += np.einsum("j,jca->ac", cw, G)
            gram += np.einsum("j,jab->ab", cw, CC)
            count += cw.sum()
        size = k * p
        vec = _ridge_solve(lhs.reshape(size, size), rhs.reshape(size), 1.0 / self.total)
        return vec.reshape(k, p).T, gram, count

    def mave_matrix(self, B: np.ndarray, h: float, neighbours: int) -> tuple[np.ndarray, float]:
        """``U = B' (Σ_j C_j C_jᵀ) B'ᵀ`` for the updated ``B'`` of :meth:`mave_update`."""
        Bn, gram, count = self.mave_update(B, h, neighbours)
        return Bn @ gram @ Bn.T, count


def backward_path(
    Z: np.ndarray,
    T: np.ndarray,
    variant: str,
    max_dim: int,
    *,
    bandwidth: float | None,
    max_iter: int | None,
    tol: float | None,
    obs_weights: np.ndarray | None,
) -> dict[int, Solution]:
    """Solutions for ``k = 1..max_dim`` by the dimension path (module docstring)."""
    n, p = Z.shape
    state = PathState(Z, T, obs_weights)
    use_mave = variant in ("csmave", "meanmave")
    limit = max_iter if max_iter is not None else (50 if tol is not None else None)
    B = np.eye(p)
    solutions: dict[int, Solution] = {}
    for k in dimension_sequence(p, max_dim):
        B = B[:, :k]
        neighbours = 2 * min(n // 2, k)
        iterations = limit if limit is not None else iterations_at(k)
        changes: list[float] = []
        values = np.zeros(k)
        h = np.nan
        for _ in range(iterations):
            h = state.bandwidth(Z @ B, min(n // 2, k), bandwidth)
            step = state.mave_matrix if use_mave and k <= MAVE_STEP_MAX_DIM else state.opg_matrix
            U, count = step(B, h, neighbours)
            values, new = top_eigenvectors(U / count, k)
            changes.append(subspace_change(B, new))
            B = new
            if tol is not None and changes[-1] < tol:
                break
        converged = None if tol is None else bool(changes[-1] < tol)
        if k <= max_dim:
            solutions[k] = Solution(B.copy(), values, len(changes), float(h), changes, converged)
    return solutions


def kernel_sir(
    Z: np.ndarray,
    T: np.ndarray,
    y_kernel: np.ndarray | None,
    b: float | None,
    obs_weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Kernel SIR (Zhu & Fang 1996; Xia et al. 2002): eigen-decomposition of ``E[m m^T]``.

    ``m(y_i) = Σ_j K_b(y_j − y_i) Z_j / Σ_j K_b(y_j − y_i)`` (Nadaraya–Watson estimate of the
    inverse regression curve); for a categorical response the class means. Returns all ``p``
    eigenvalues and eigenvectors.
    """
    n, p = Z.shape
    w = np.ones(n) if obs_weights is None else obs_weights
    if y_kernel is None:  # class indicators: the curve is the class mean
        counts = T.T @ w
        means = (T * w[:, None]).T @ Z / counts[:, None]
        curve = T @ means
    else:
        curve = np.empty_like(Z)
        for blk in blocks(n, 1):
            K = kernel_block(y_kernel, blk, b, w)
            curve[blk] = (K @ Z) / K.sum(axis=1)[:, None]
    M = (curve * w[:, None]).T @ curve / w.sum()
    return top_eigenvectors(M, p)


__all__ = [
    "BANDWIDTH_CONSTANT",
    "MAVE_STEP_MAX_DIM",
    "Solution",
    "PathState",
    "backward_path",
    "default_centres",
    "dimension_sequence",
    "iterations_at",
    "kernel_sir",
    "kernel_weights",
    "representative_points",
    "centre_weights",
    "subspace_change",
    "top_eigenvectors",
]
