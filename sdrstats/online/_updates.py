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
from scipy.special import ndtri

from ..stats.slicing import cut_labels
from . import trackers


def slice_of(y: np.ndarray, cut_points: np.ndarray) -> np.ndarray:
    """Slice index of each response value; values beyond the outer cut points go to the end
    slices (the first and last slices are open intervals), and a value equal to a cut point
    to the slice below it, as in ``sdr.sir(..., cut_points=...)``
    (:func:`sdrstats.stats.slicing.cut_labels`), so that a stream's slices are those of the
    in-memory fit on the same rows."""
    return cut_labels(y, cut_points)


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
    gravity: Any,
    threshold: float,
    every: Any,
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
    if sparse:
        start_schedule(state, d)
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
        lms_truncated(state, Xc, pseudo, gravity, threshold, every)
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


def _truncate(W: np.ndarray, alpha: Any, threshold: float) -> None:
    """In place ``T(v, α, θ)``: shrink entries with ``|v| ≤ θ`` towards 0 by ``α``.

    ``v − clip(v, −α, α)`` is ``sign(v)·max(|v| − α, 0)``; ``α`` is a number or an array
    that broadcasts against ``W`` (one amount per direction and coordinate).
    """
    shrink = np.clip(W, -alpha, alpha)
    if np.isfinite(threshold):
        shrink[np.abs(W) > threshold] = 0.0
    W -= shrink


#: Longest run of rows solved as one triangular system between two truncations.
MAX_SEGMENT = 64

#: Shortest period of the growing truncation schedule (``truncate_every="auto"``).
MIN_PERIOD = 10

#: Rows per predictor below which ``gravity="auto"`` holds its penalty (:func:`gravity_of`):
#: at a truncation, and at a reading of the directions (which zeroes nothing in the stream).
HOLD_ROWS_PER_PREDICTOR = 3.0
HOLD_ROWS_PER_PREDICTOR_READING = 1.5


def start_schedule(state: dict[str, Any], d: int) -> None:
    """Bookkeeping of the truncation schedule: the row of the last truncation and the sum
    of squared pseudo-response residuals (per direction) over the rows since."""
    state["last_truncation"] = int(state.get("steps", 0))
    state["resid_ss"] = np.zeros(d)
    state["resid_count"] = 0


def _next_truncation(last: int, every: Any) -> int:
    """Row of the next truncation after one at row ``last``.

    A fixed ``L`` truncates at the multiples of ``L``. ``"auto"`` lets the period grow with
    the stream, ``L = max(MIN_PERIOD, last)``: the truncations fall at rows 10, 20, 40, 80,
    … (doubling), each ending a period of half the rows seen, so the zero test of
    :func:`gravity_of` averages over a growing share of the stream.
    """
    if every == "auto":
        return last + max(MIN_PERIOD, last)
    return (last // every + 1) * every


def gravity_of(state: dict[str, Any], gravity: Any, rows: int, *, reading: bool = False) -> Any:
    """The gravity ``g`` of a truncation that ends a period of ``rows`` rows.

    A number is used as given. ``"auto"`` calibrates the zero test the truncation makes:
    a coefficient that is 0 after a truncation is 0 after the next one exactly when the
    mean over the period of its gradient terms ``r_j x̃_k`` (``r_j`` the residual of the
    pseudo-response) is at most ``g``. For a predictor outside the support those terms have
    mean 0 and standard deviation about ``σ_j s_k`` (``σ_j`` the residual's root mean square
    over the period, ``s_k`` the predictor's scale in the initial batch), so with
    ``g_jk = z_p σ_j s_k / sqrt(L)`` each of them passes the test with probability
    ``P(|N(0,1)| > z_p)``. ``z_p = Φ^{-1}(1 − 1/(2p))`` makes that ``1/p``: on average at
    most one of the ``p`` predictors passes by noise alone (a Bonferroni bound on the
    expected count; ``z_p ≈ sqrt(2 log p)``, the universal threshold of Donoho &
    Johnstone 1994, less a slowly growing correction, which shrank the true coefficients
    more than needed in ``benchmarks/bench_online.py --sparse``). The Lasso penalty it
    stands for, ``z_p σ / sqrt(L)``, falls as ``L`` grows: with the doubling schedule
    (``L = t/2``), at the rate ``sqrt(log p / t)`` of the batch Lasso's theory. Scaling by
    ``s_k`` is the Lasso on standardised predictors (glmnet's default).

    Short periods are held: ``L`` enters as ``max(L, c·p)``, ``c = 3`` at a truncation and
    ``c = 1.5`` at a reading (``reading=True``, :func:`read_truncated`), so the penalty is
    never above its value for ``c·p`` rows. The normalised step ``γ = 1/tr(Σ̂)`` moves a
    coefficient towards its target by about ``1/p`` of the way a row (time constant
    ``p/λ`` rows for a direction of variance ``λ``), so over a period much shorter than
    ``p`` rows a coefficient zeroed at the last truncation has regrown to a fraction of its
    size, the mean of its gradient terms falls short of its target, and the level-``1/p``
    test zeroes true coefficients with the noise: in a simulation of a two-index model with
    ``p = 200`` predictors (five active) and ``n = 300`` rows, the full penalty lost the
    weaker direction in 31 of 50 fits, the held one in 4. Held, the early truncations shrink
    without deciding, as a fixed small gravity does; from ``t ≈ 2cp`` rows on (the doubling
    schedule's ``L = t/2``) the penalty is the test's. A reading zeroes nothing in the
    stream, and so is held for fewer rows; the factors were chosen by that simulation and
    checked on fresh draws.
    """
    if gravity != "auto":
        return float(gravity)
    count = max(int(state["resid_count"]), 1)
    sigma = np.sqrt(state["resid_ss"] / count)[:, None]  # (d, 1)
    p = state["beta"].shape[1]
    scale = state.get("scale")  # absent from states saved before it was kept
    scale = np.ones(p) if scale is None else scale
    hold = HOLD_ROWS_PER_PREDICTOR_READING if reading else HOLD_ROWS_PER_PREDICTOR
    period = max(rows, hold * p, 1)
    return sigma * scale[None, :] * (zero_test_quantile(p) / np.sqrt(period))


def zero_test_quantile(p: int) -> float:
    """``z_p = Φ^{-1}(1 − 1/(2p))``: a standard normal exceeds it in absolute value with
    probability ``1/p`` (``p`` at least 2)."""
    return float(ndtri(1.0 - 0.5 / max(p, 2)))


def _step_at(state: dict[str, Any], row: int) -> float:
    gamma, tau = state["learning_rate"], state["decay_after"]
    return gamma if row <= tau else gamma * tau / row


def read_truncated(state: dict[str, Any], gravity: Any, threshold: float, every: Any) -> np.ndarray:
    """``β`` as a truncation at the current row would leave it (a copy; the state is kept).

    With a fixed ``L`` and a numeric ``g`` (the original reading), the shrinkage of the next
    truncation (the step at the next multiple of ``L``). Otherwise the coefficients a
    truncation ending the rows seen since the last one would set to 0 read as 0 and the
    others as they stand (nothing changes right after a truncation): the zero test without
    the shrinkage, which would bias the reading by as much again as the penalty does.
    """
    beta = state["beta"].copy()
    if gravity != "auto" and every != "auto":
        if gravity > 0:
            # the step of the next truncation: the step at row t with the shrinkage of L
            # rows would over-shrink when L > t
            at = max(every * -(-state["steps"] // every), 1)
            _truncate(beta, _step_at(state, at) * gravity * every, threshold)
        return beta
    t = int(state["steps"])
    rows = t - int(state.get("last_truncation", t))
    if rows > 0 and (gravity == "auto" or gravity > 0):
        alpha = _step_at(state, t) * gravity_of(state, gravity, rows, reading=True) * rows
        zero = np.abs(beta) <= alpha
        if np.isfinite(threshold):
            zero &= np.abs(beta) <= threshold
        beta[zero] = 0.0
    return beta


def lms_truncated(
    state: dict[str, Any],
    Xc: np.ndarray,
    Yt: np.ndarray,
    gravity: Any,
    threshold: float,
    every: Any,
) -> None:
    """The truncated-gradient least-squares pass (Algorithm 1's inner loops) on
    ``state["beta"]``, in place; ``state["steps"]`` counts the rows.

    Row ``s`` of the stream (``s = steps + 1, …``) has the step ``γ_s = γ·min(1, τ/s)``
    (``τ = decay_after``). When ``s`` is a truncation row (:func:`_next_truncation`) that
    ends a period of ``L`` rows, the coefficients are first truncated with
    ``T(w, γ_s·g·L, θ)`` (``g`` by :func:`gravity_of`); then
    ``w_j ← w_j + γ_s(ỹ_j − x̃_sᵀw_j)x̃_s``.

    Between two truncations the recursion is linear, so a run of ``k`` rows is solved at
    once and exactly: ``w ← w + X_kᵀc`` where ``(I + diag(γ)·tril(X_k X_kᵀ, −1)) c =
    diag(γ)(ỹ − X_k w)`` (forward substitution reproduces the row-by-row updates), giving
    the same numbers as the row loop up to rounding at a fraction of the Python overhead.
    ``c_i/γ_i`` is row ``i``'s residual ``ỹ_i − x̃_iᵀw`` against the ``w`` the row recursion
    holds before it; their squares feed ``σ_j`` of ``gravity="auto"``.
    """
    W = state["beta"]
    steps = int(state["steps"])
    if "last_truncation" not in state:  # a state saved before the schedule was kept
        start_schedule(state, W.shape[0])
    active = gravity == "auto" or gravity > 0
    n = Xc.shape[0]
    index = np.arange(steps + 1, steps + n + 1, dtype=float)
    tau = state["decay_after"]
    gamma = state["learning_rate"]
    step_sizes = np.where(index <= tau, gamma, gamma * tau / index)
    next_cut = _next_truncation(int(state["last_truncation"]), every)
    start = 0
    while start < n:
        first = steps + start + 1
        if active and first == next_cut:
            # a fixed L: α = γ·g·L as Langford, Li & Zhang (2009) write it
            rows = every if every != "auto" else first - int(state["last_truncation"])
            g = gravity_of(state, gravity, rows)
            _truncate(W, step_sizes[start] * g * rows, threshold)
            state["last_truncation"] = first
            state["resid_ss"] = np.zeros(W.shape[0])
            state["resid_count"] = 0
            next_cut = _next_truncation(first, every)
        # rows up to (not including) the next truncation step, at most MAX_SEGMENT
        to_next = next_cut - first if active else MAX_SEGMENT
        stop = min(n, start + max(1, min(to_next, MAX_SEGMENT)))
        rows_k = Xc[start:stop]
        steps_k = step_sizes[start:stop]
        resid = Yt[start:stop] - rows_k @ W.T
        if stop - start == 1:
            coef = steps_k[:, None] * resid
        else:
            # unit diagonal: dtrtrs ignores it, and tril(…, -1) is not needed either because
            # LAPACK reads only the strictly lower triangle of a unit lower-triangular matrix
            system = (rows_k @ rows_k.T) * steps_k[:, None]
            coef, _ = dtrtrs(system, steps_k[:, None] * resid, lower=1, unitdiag=1)
        # c_i / γ_i is row i's residual against the w the row recursion holds before it
        sequential = coef / steps_k[:, None]
        state["resid_ss"] = state["resid_ss"] + np.einsum("ij,ij->j", sequential, sequential)
        state["resid_count"] = int(state["resid_count"]) + (stop - start)
        W += coef.T @ rows_k
        start = stop
    state["steps"] = steps + n


def update_block(
    state: dict[str, Any],
    X: np.ndarray,
    labels: np.ndarray,
    H: int,
    *,
    eigen: str,
    sparse: bool,
    gravity: Any,
    threshold: float,
    every: Any,
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
        lms_truncated(state, X - mean_new, pseudo, gravity, threshold, every)
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
    if sparse:  # the rows of both streams since their last truncations, pooled
        d_now = a["beta"].shape[0]
        out["resid_ss"] = a.get("resid_ss", np.zeros(d_now)) + b.get("resid_ss", np.zeros(d_now))
        out["resid_count"] = int(a.get("resid_count", 0)) + int(b.get("resid_count", 0))
        out["last_truncation"] = out["steps"] - out["resid_count"]
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
    "read_truncated",
    "gravity_of",
    "HOLD_ROWS_PER_PREDICTOR",
    "HOLD_ROWS_PER_PREDICTOR_READING",
    "zero_test_quantile",
    "start_schedule",
    "merge_states",
    "onto_cut_points",
]
