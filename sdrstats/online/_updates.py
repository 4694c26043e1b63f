"""One block of the online SIR recursion on arrays (no pandas, no options checking).

:func:`init_state` builds the state from the initial batch and :func:`update_block` applies
Algorithm 1 of Cheng & Cui (2020) to a block of ``m`` rows: sufficient statistics (2.6), the
eigen-tracker, the pseudo-response (2.13) and the truncated gradient (2.14). With ``m = 1``
it is Cheng & Cui's (2020) one-observation recursion.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg.lapack import dtrtrs

from . import trackers


def slice_of(y: np.ndarray, cut_points: np.ndarray) -> np.ndarray:
    """Slice index of each response value; values beyond the outer cut points go to the end
    slices (the first and last slices are open intervals)."""
    return np.searchsorted(cut_points, y, side="right").astype(np.int64)


def quantile_cuts(y: np.ndarray, H: int) -> np.ndarray:
    """Interior cut points ``q_1 < … < q_{H-1}``: the ``h/H`` quantiles of ``y``, deduplicated."""
    return np.unique(np.quantile(y, np.arange(1, H) / H))


def dhat_of(state: dict[str, Any]) -> np.ndarray:
    """``d̂_t = (S − x̄_t nᵀ)/t``: centred slice sums over ``t`` (p x H)."""
    return (state["slice_sums"] - np.outer(state["mean"], state["slice_counts"])) / state["t"]


def _slice_sums(X: np.ndarray, labels: np.ndarray, H: int) -> np.ndarray:
    """``S_h = Σ_{i in h} x_i`` as a p x H matrix: one (H x m)(m x p) product."""
    indicator = np.zeros((H, labels.size))
    indicator[labels, np.arange(labels.size)] = 1.0
    return (indicator @ X).T


def init_state(
    X: np.ndarray,
    labels: np.ndarray,
    H: int,
    d: int,
    *,
    eigen: str,
    sparse: bool,
    learning_rate: Any,
    gravity: float,
    threshold: float,
    every: int,
    decay_after: Any,
) -> dict[str, Any]:
    """State after the initial batch: statistics, batch eigenpairs, β trained on the batch."""
    n, p = X.shape
    mean = X.mean(axis=0)
    state: dict[str, Any] = {
        "t": n,
        "mean": mean,
        "slice_sums": _slice_sums(X, labels, H),
        "slice_counts": np.bincount(labels, minlength=H).astype(float),
        "steps": 0,
    }
    Xc = X - mean
    # the spread of each predictor in the initial batch: later chunks are checked against it
    state["scale"] = np.sqrt(np.einsum("ij,ij->j", Xc, Xc) / n)
    gamma = (
        1.0 / float(np.mean(np.sum(Xc**2, axis=1)))
        if learning_rate == "auto"
        else float(learning_rate)
    )
    state["learning_rate"] = gamma
    state["decay_after"] = (
        2.0 * p if decay_after == "auto" else np.inf if decay_after is None else float(decay_after)
    )
    dhat = dhat_of(state)
    if sparse:
        state["lam"], state["eta"] = trackers.batch_eigen(dhat, d)
        if eigen == "perturbation":
            state["dbar"] = dhat @ dhat.T / H
        state["beta"] = np.zeros((d, p))  # stored transposed: rows are directions
        floor = np.maximum(state["lam"], np.finfo(float).tiny)
        pseudo = (dhat.T @ state["eta"] / (H * floor))[labels]
        state["steps"] = lms_truncated(
            state["beta"], Xc, pseudo, gamma, gravity, threshold, every, 0, state["decay_after"]
        )
        return state
    sigma = Xc.T @ Xc / n
    state["sigma"], state["sigma_inv"] = sigma, np.linalg.inv(sigma)
    state["lam"], state["beta"] = trackers.osir_batch(dhat, sigma, d)
    state["beta"] = state["beta"].T.copy()
    if eigen == "perturbation":
        state["abar"] = state["sigma_inv"] @ dhat @ dhat.T / H
    return state


def _align(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Flip columns of ``new`` that point away from ``old`` (eigenvectors have no sign)."""
    signs = np.sign(np.einsum("ij,ij->j", new, old))
    signs[signs == 0] = 1.0
    return new * signs


def _truncate(W: np.ndarray, alpha: float, threshold: float) -> None:
    """In place ``T(v, α, θ)``: shrink entries with ``|v| ≤ θ`` towards 0 by ``α``.

    ``v − clip(v, −α, α)`` is ``sign(v)·max(|v| − α, 0)``.
    """
    shrink = np.clip(W, -alpha, alpha)
    if np.isfinite(threshold):
        shrink[np.abs(W) > threshold] = 0.0
    W -= shrink


#: Longest run of rows solved as one triangular system between two truncations.
MAX_SEGMENT = 64


def lms_truncated(
    W: np.ndarray,
    Xc: np.ndarray,
    Yt: np.ndarray,
    gamma: float,
    gravity: float,
    threshold: float,
    every: int,
    steps: int,
    decay_after: float,
) -> int:
    """The truncated-gradient least-squares pass (Algorithm 1's inner loops), in place.

    Row ``s`` of the stream (``s = steps + 1, …``) has the step ``γ_s = γ·min(1, τ/s)``
    (``τ = decay_after``); when ``s`` is a multiple of ``L = every`` the coefficients are
    first truncated with ``T(w, γ_s·g·L, θ)``; then ``w_j ← w_j + γ_s(ỹ_j − x̃_sᵀw_j)x̃_s``.

    Between two truncations the recursion is linear, so a run of ``k`` rows is solved at
    once and exactly: ``w ← w + X_kᵀc`` where ``(I + diag(γ)·tril(X_k X_kᵀ, −1)) c =
    diag(γ)(ỹ − X_k w)`` (forward substitution reproduces the row-by-row updates), giving
    the same numbers as the row loop up to rounding at a fraction of the Python overhead.
    """
    n = Xc.shape[0]
    index = np.arange(steps + 1, steps + n + 1, dtype=float)
    step_sizes = np.where(index <= decay_after, gamma, gamma * decay_after / index)
    start = 0
    while start < n:
        first = steps + start + 1
        if gravity > 0 and first % every == 0:
            _truncate(W, step_sizes[start] * gravity * every, threshold)
        # rows up to (not including) the next truncation step, at most MAX_SEGMENT
        to_next = every - (first % every) if gravity > 0 else MAX_SEGMENT
        stop = min(n, start + max(1, min(to_next, MAX_SEGMENT)))
        rows = Xc[start:stop]
        steps_k = step_sizes[start:stop]
        resid = Yt[start:stop] - rows @ W.T
        if stop - start == 1:
            coef = steps_k[:, None] * resid
        else:
            # unit diagonal: dtrtrs ignores it, and tril(…, -1) is not needed either because
            # LAPACK reads only the strictly lower triangle of a unit lower-triangular matrix
            system = (rows @ rows.T) * steps_k[:, None]
            coef, _ = dtrtrs(system, steps_k[:, None] * resid, lower=1, unitdiag=1)
        W += coef.T @ rows
        start = stop
    return steps + n


def update_block(
    state: dict[str, Any],
    X: np.ndarray,
    labels: np.ndarray,
    H: int,
    *,
    eigen: str,
    sparse: bool,
    gravity: float,
    threshold: float,
    every: int,
) -> None:
    """Apply one block of rows to ``state`` in place."""
    m = X.shape[0]
    t_old, mean_old = state["t"], state["mean"]
    t_new = t_old + m
    block_mean = X.mean(axis=0)
    mean_new = mean_old + (block_mean - mean_old) * (m / t_new)
    if not sparse:  # Σ̂ and Σ̂^{-1} (Woodbury; Sherman–Morrison for one row)
        centred = (X - block_mean).T / np.sqrt(t_new)
        shift = (block_mean - mean_old)[:, None] * (np.sqrt(t_old * m) / t_new)
        U = np.hstack([centred, shift]) if m > 1 else shift
        scale = t_old / t_new
        state["sigma"] = scale * state["sigma"] + U @ U.T
        state["sigma_inv"] = trackers.woodbury_update(state["sigma_inv"], scale, U)
    state["t"], state["mean"] = t_new, mean_new
    state["slice_sums"] = state["slice_sums"] + _slice_sums(X, labels, H)
    state["slice_counts"] = state["slice_counts"] + np.bincount(labels, minlength=H)
    dhat = dhat_of(state)
    w = m / t_new
    lam = state["lam"]
    if sparse:
        eta = state["eta"]
        if eigen == "ccipca":
            new_eta, lam = trackers.ccipca_step(eta, lam, dhat, w)
        elif eigen == "sgd":
            new_eta, lam = trackers.sgd_step(eta, lam, dhat, w)
        elif eigen == "ipca":
            new_eta, lam = trackers.ipca_step(eta, dhat, np.unique(labels))
        else:
            new_eta, lam, state["dbar"] = trackers.perturbation_step(
                eta, lam, state["dbar"], dhat @ dhat.T / H, w
            )
        state["eta"], state["lam"] = _align(new_eta, eta), lam
        floor = np.maximum(lam, np.finfo(float).tiny)
        pseudo = (dhat.T @ state["eta"] / (H * floor))[labels]  # (2.13) over t+1, see OnlineSIR
        state["steps"] = lms_truncated(
            state["beta"],
            X - mean_new,
            pseudo,
            state["learning_rate"],
            gravity,
            threshold,
            every,
            state["steps"],
            state["decay_after"],
        )
        return
    beta = state["beta"].T
    if eigen == "sgd":
        new_beta, lam = trackers.osir_sgd_step(
            beta, lam, dhat, state["sigma"], state["sigma_inv"], w
        )
    else:
        anew = state["sigma_inv"] @ dhat @ dhat.T / H
        new_beta, lam, state["abar"] = trackers.osir_perturbation_step(
            beta, lam, state["abar"], anew, state["sigma"], w
        )
    state["beta"], state["lam"] = _align(new_beta, beta).T.copy(), lam


def onto_cut_points(
    state: dict[str, Any], cuts: np.ndarray, target: np.ndarray, H: int
) -> dict[str, Any]:
    """``state``'s slice statistics (slices by ``cuts``) moved onto the ``H`` slices of
    ``target``: each slice goes whole to the target slice holding its middle (an end slice:
    its finite end moved out by half its neighbour's width).

    A slice then pools rows of two response ranges, one from each stream; its mean is a
    mixture of ``E[x | y in range]`` terms, each in the central subspace under SIR's linearity
    condition, so the merged kernel estimates the same subspace (exactly the pooled SIR when
    the cut points agree).
    """
    cuts = np.asarray(cuts, dtype=float)
    if cuts.size == 1:
        middles = np.array([np.nextafter(cuts[0], -np.inf), cuts[0]])
    else:
        inner = (cuts[:-1] + cuts[1:]) / 2
        first = cuts[0] - (cuts[1] - cuts[0]) / 2
        last = cuts[-1] + (cuts[-1] - cuts[-2]) / 2
        middles = np.concatenate([[first], inner, [last]])
    into = slice_of(middles, np.asarray(target, dtype=float))
    sums = np.zeros((state["slice_sums"].shape[0], H))
    counts = np.zeros(H)
    np.add.at(sums.T, into, state["slice_sums"].T)
    np.add.at(counts, into, state["slice_counts"])
    return {**state, "slice_sums": sums, "slice_counts": counts}


def merge_states(
    a: dict[str, Any], b: dict[str, Any], H: int, d: int, *, eigen: str, sparse: bool
) -> dict[str, Any]:
    """Combine the states of two disjoint streams.

    The sufficient statistics (counts, means, slice sums, ``Σ̂``) combine exactly and the
    eigenpairs are recomputed from the merged ``D̂``; the β of the truncated gradient (and
    the running averages ``D̄``/``Ā``) are averaged with weights ``t_a/t`` and ``t_b/t``.
    """
    ta, tb = a["t"], b["t"]
    t = ta + tb
    wa, wb = ta / t, tb / t
    mean = wa * a["mean"] + wb * b["mean"]
    out: dict[str, Any] = {
        "t": t,
        "mean": mean,
        "slice_sums": a["slice_sums"] + b["slice_sums"],
        "slice_counts": a["slice_counts"] + b["slice_counts"],
        "steps": a["steps"] + b["steps"],
        "learning_rate": a["learning_rate"],
        "decay_after": a["decay_after"],
    }
    if a.get("scale") is not None and b.get("scale") is not None:
        out["scale"] = np.sqrt(wa * a["scale"] ** 2 + wb * b["scale"] ** 2)
    dhat = dhat_of(out)
    for key in ("dbar", "abar"):
        if key in a:
            out[key] = wa * a[key] + wb * b[key]
    if sparse:
        lam, eta = trackers.batch_eigen(dhat, d)
        out["lam"], out["eta"] = lam, _align(eta, a["eta"])
        out["beta"] = wa * a["beta"] + wb * _align(b["beta"].T, a["beta"].T).T
        return out
    delta = (a["mean"] - b["mean"])[:, None]
    sigma = wa * a["sigma"] + wb * b["sigma"] + wa * wb * (delta @ delta.T)
    out["sigma"], out["sigma_inv"] = sigma, np.linalg.inv(sigma)
    lam, beta = trackers.osir_batch(dhat, sigma, d)
    out["lam"], out["beta"] = lam, _align(beta, a["beta"].T).T.copy()
    return out


__all__ = [
    "slice_of",
    "quantile_cuts",
    "dhat_of",
    "init_state",
    "update_block",
    "lms_truncated",
    "merge_states",
    "onto_cut_points",
]
