"""The spread ``s(x)`` of a location-scale density, on the whole predictor space.

A reduction chosen for the mean (SIR, MAVE, LSCE with a small ``d``) can miss the directions
along which the spread of the response changes: in ``y = x1 + (0.2 + |x2|) ε`` the mean uses
``x1`` alone, the noise ``x2``. The location-scale density (:mod:`.models`) therefore models
the log-scale on the fit's reduced predictors ``z`` *and* on directions of the predictors
found from the residuals themselves:

1. **Is there anything to model?** Koenker's studentised Breusch-Pagan test (Breusch and
   Pagan 1979; Koenker 1981; statsmodels' ``het_breuschpagan``) of the squared leave-one-out
   residuals of the location on ``z``, ``z²`` and, for a reduced fit, every whitened
   predictor and its square. Without heteroscedasticity at the 5 % level the scale is one
   constant and nothing more is fitted (the cheap path of the default density).
2. **Directions of the variance function.** With ``t = log |r|`` (the log-scale up to a
   constant) and whitened predictors ``x``, Stein's lemma gives ``E[∇ t] = E[(t - t̄) x]``
   and ``E[∇² t] = E[(t - t̄ - bᵀx) x xᵀ]`` (Li 1992's principal Hessian directions, of ``t``);
   for a quadratic ``t`` the outer product of gradients is ``E[∇t ∇tᵀ] = b bᵀ + H²``. Its
   leading eigenvectors in the complement of the fit's own directions are the candidate
   *spread directions* ``w`` (a linear trend of the spread and a symmetric one such as
   ``|x2|`` both show).
   A direction is kept only when its eigenvalue exceeds the 95 % quantile of the largest
   one with ``t`` permuted against the predictors (Cook and Yin 2001): the held-out score
   below cannot see a direction fitted to the noise of the rows it scores.
3. **Which log-scale?** A constant; a local-linear fit of ``t`` on ``z``; on ``(z, w_1)``,
   ``(z, w_1, w_2)``; and on the spread's *own* directions ``v_1`` or ``(v_1, v_2)`` (at most
   ``d`` of them) in place of ``z``: the same construction without the restriction to the
   complement of ``z``, the directions of the variance function in all the predictors (per-axis
   bandwidths by leave-one-out CV, :class:`~sdrstats.stats.local_linear.LocalLinear`). The
   own directions matter when the spread follows fewer directions than the mean, or a
   direction that the fit estimates with an error: on ``y = x1 + (0.2 + |x2|) ε`` LSCE's
   estimate of x2 (about 10 degrees off at n = 500) blurred the kink of the spread, which a
   direction found from the residuals themselves keeps. Each is scored by its held-out
   Gaussian log-likelihood ``log N(r_i; 0, c² s_{-i}(x_i)²)``, with every row's leave-one-out
   log-scale, and the simplest (fewest inputs) within one standard error of the best (the
   standard error of the mean paired difference of the rows' scores) is kept: a direction is
   added only when it earns its place on held-out rows.

References
----------
Breusch, T. S. and Pagan, A. R. A simple test for heteroscedasticity and random coefficient
variation. Econometrica 47(5), 1979.

Cook, R. D. and Yin, X. Dimension reduction and visualization in discriminant analysis.
Australian & New Zealand Journal of Statistics 43(2), 2001.

Koenker, R. A note on studentizing a test for heteroscedasticity. Journal of Econometrics
17(1), 1981.

Li, K.-C. On principal Hessian directions for data visualization and dimension reduction:
another application of Stein's lemma. Journal of the American Statistical Association
87(420), 1992.

Hastie, T., Tibshirani, R. and Friedman, J. The Elements of Statistical Learning, 2nd ed.
Springer, 2009 (section 7.10: the one-standard-error rule).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..base.parallel import as_seed_sequence
from ..base.persistence import Registered
from ..stats.linalg import collinear_columns, sym_eigh_desc
from ..stats.local_linear import LocalLinear
from ..stats.moment_kernels import phd_kernel
from ..stats.rank_cv import one_se_choice
from .deferred import DeferredTable

#: Level of the heteroscedasticity test below which a log-scale is fitted at all.
HETERO_LEVEL = 0.05
#: Most spread directions beyond the fit's own offered to the log-scale.
MAX_SPREAD_DIRECTIONS = 2
#: Absolute residuals below this fraction of their median are raised to it before the log.
RESIDUAL_FLOOR = 0.05
#: The test's regressors are at most this fraction of the rows (squares dropped first).
TEST_COLUMNS = 0.1


def log_abs(resid: np.ndarray) -> np.ndarray:
    """``log |r|``, each residual at least :data:`RESIDUAL_FLOOR` of its column's median, so
    that a residual near 0 does not dominate: the log-scale up to a constant."""
    floor = RESIDUAL_FLOOR * np.median(np.abs(resid), axis=0)
    floor = np.where(floor > 0, floor, np.finfo(float).tiny)
    return np.log(np.maximum(np.abs(resid), floor))


class Whitened(NamedTuple):
    """Whitened predictors ``(X - centre) @ root`` (rank-deficient directions dropped)."""

    centre: np.ndarray
    root: np.ndarray
    values: np.ndarray


def whiten_predictors(X: np.ndarray) -> Whitened:
    """Centre and whiten the columns of ``X`` (eigen-decomposition of the covariance; the
    directions of eigenvalue below ``1e-10`` of the largest, collinear ones, dropped)."""
    centre = X.mean(axis=0)
    Xc = X - centre
    values, vectors = np.linalg.eigh(Xc.T @ Xc / max(len(X) - 1, 1))
    keep = values > max(values.max(), 0.0) * 1e-10
    root = vectors[:, keep] / np.sqrt(values[keep])
    return Whitened(centre, root, Xc @ root)


def heteroscedasticity_design(Z: np.ndarray, white: np.ndarray | None) -> np.ndarray:
    """Regressors of the heteroscedasticity test: a constant, ``z``, ``z²`` and the whitened
    predictors and their squares, collinear columns dropped and at most a tenth of the rows
    (the squares of the predictors go first, then the predictors themselves)."""
    n = len(Z)
    blocks = [Z, Z**2]
    if white is not None:
        blocks += [white, white**2]
    limit = max(int(TEST_COLUMNS * n), Z.shape[1])
    cols = np.hstack(blocks)
    while cols.shape[1] > limit and len(blocks) > 2:
        blocks.pop()
        cols = np.hstack(blocks)
    cols = cols[:, : max(limit, 1)]
    sd = cols.std(axis=0)
    cols = (cols[:, sd > 0] - cols[:, sd > 0].mean(axis=0)) / sd[sd > 0]
    if cols.shape[1] > 1:
        drop = collinear_columns(np.corrcoef(cols, rowvar=False))
        cols = np.delete(cols, drop, axis=1)
    return np.column_stack([np.ones(n), cols])


def heteroscedasticity_pvalue(resid: np.ndarray, design: np.ndarray) -> float:
    """The smallest Bonferroni-adjusted p-value of Koenker's Breusch-Pagan test over the
    response columns (statsmodels' ``het_breuschpagan``, ``robust=True``)."""
    if design.shape[1] < 2:
        return 1.0
    q = resid.shape[1]
    from statsmodels.stats.diagnostic import het_breuschpagan  # slow to import

    pvalues = [het_breuschpagan(resid[:, j], design, robust=True)[1] for j in range(q)]
    return float(min(1.0, q * min(pvalues)))


def gradient_outer_product(Xw: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``Σ_j b_j b_jᵀ + H_j²`` for the columns ``t_j``: ``b`` and ``H`` Stein's estimates of
    the mean gradient and Hessian of ``t`` on whitened ``Xw`` (``H`` is pHd's kernel of the
    residual of ``t`` from its linear fit)."""
    n = len(Xw)
    M = np.zeros((Xw.shape[1], Xw.shape[1]))
    for j in range(t.shape[1]):
        tc = t[:, j] - t[:, j].mean()
        b = Xw.T @ tc / n
        H = phd_kernel(Xw, tc - Xw @ b, n)
        M += np.outer(b, b) + H @ H
    return M


class SpreadDirections(Registered):
    """Directions of the predictors along which the residual spread changes, beyond a fit's.

    The leading eigenvectors of ``b bᵀ + H²`` (``b`` and ``H`` the Stein estimates of the
    mean gradient and Hessian of ``t = log |r|`` on whitened predictors), restricted to the
    complement of the fit's reduced predictors ``z``. ``transform(X)`` gives their
    coordinates ``w`` for rows of the predictor matrix (unit variance on the training rows).

    Parameters
    ----------
    X : ndarray (n, p)
        The predictor matrix (all predictors, as the formula built them).
    Z : ndarray (n, d)
        The fit's (standardised) reduced predictors.
    t : ndarray (n, q)
        Log absolute residuals.
    k : int, default 2
        Directions kept at most (fewer when the complement or the signal is smaller).
    random_state : int, SeedSequence or Generator, optional
        Seeds the permutations of the test of each direction.
    n_permutations : int, default 99
        Permutations of ``t`` against the predictors: a direction is kept when its
        eigenvalue exceeds the 95 % quantile of the largest eigenvalue under permutation
        (so at most a 5 % chance of keeping one where the spread follows ``z`` alone).
    alone : bool, default False
        The directions of the variance function in the whole predictor space, not only
        in the complement of ``z``'s: the log-scale then follows them *instead of* ``z``
        (the spread's own reduction; ``z``, chosen for the mean, only estimates the
        directions the spread shares with it, and a kink of the spread along an estimated
        direction is blurred by that direction's error).

    Attributes
    ----------
    basis : ndarray (p, k)
        ``w = (x - centre) @ basis``.
    eigenvalues : ndarray (k,)
        Their eigenvalues of ``b bᵀ + H²`` (the squared gradient of the log-scale along
        them).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 4))
    >>> r = (0.2 + np.abs(X[:, 1])) * rng.standard_normal(500)
    >>> w = SpreadDirections(X, X[:, :1], np.log(np.abs(r))[:, None], k=1)
    >>> int(np.abs(w.basis[:, 0]).argmax())
    1
    """

    def __init__(
        self,
        X: np.ndarray,
        Z: np.ndarray,
        t: np.ndarray,
        k: int = 2,
        random_state: Any = None,
        n_permutations: int = 99,
        alone: bool = False,
    ) -> None:
        white = whiten_predictors(np.asarray(X, dtype=float))
        Xw, n = white.values, len(X)
        self.alone = bool(alone)
        # The fit's directions in whitened coordinates (exact for linear reductions, the best
        # linear approximation of a kernel one), and the projection onto their complement.
        A = np.linalg.lstsq(Xw, Z - Z.mean(axis=0), rcond=None)[0]
        Q, R = np.linalg.qr(A)
        Q = Q[:, np.abs(np.diag(R)) > 1e-8 * max(np.abs(R).max(), 1e-300)]
        if self.alone:
            Q = Q[:, :0]
        P = np.eye(Xw.shape[1]) - Q @ Q.T
        values, vectors = sym_eigh_desc(P @ gradient_outer_product(Xw, t) @ P)
        # The null of no spread beyond z: t permuted against the predictors (Cook and Yin
        # 2001's permutation test of a dimension, on the largest eigenvalue).
        rng = np.random.default_rng(as_seed_sequence(random_state))
        null = [
            np.linalg.eigvalsh(P @ gradient_outer_product(Xw, t[rng.permutation(n)]) @ P)[-1]
            for _ in range(n_permutations)
        ]
        cut = np.quantile(null, 0.95) if n_permutations else 0.0
        k = int(min(k, Xw.shape[1] - Q.shape[1], np.sum(values > cut)))
        self.centre = white.centre
        self.eigenvalues = values[:k]
        basis = white.root @ vectors[:, :k]
        W = (X - self.centre) @ basis
        self.basis = basis / np.maximum(W.std(axis=0, ddof=1), 1e-300)

    @property
    def k(self) -> int:
        return self.basis.shape[1]

    def transform(self, X: np.ndarray, k: int | None = None) -> np.ndarray:
        """Coordinates of the first ``k`` spread directions (default all) of rows ``X``."""
        basis = self.basis if k is None else self.basis[:, :k]
        return (np.asarray(X, dtype=float) - self.centre) @ basis

    def truncated(self, k: int) -> SpreadDirections:
        """The first ``k`` directions only."""
        out = SpreadDirections.__new__(SpreadDirections)
        out.centre, out.eigenvalues, out.basis = (
            self.centre,
            self.eigenvalues[:k],
            self.basis[:, :k],
        )
        out.alone = self.alone
        return out

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("alone", False)  # saved before the spread's own directions
        self.__dict__.update(state)

    def scale_inputs(self, Z: np.ndarray, X: np.ndarray) -> np.ndarray:
        """The log-scale's inputs for rows with reduced predictors ``Z`` and predictors
        ``X``: the directions' coordinates alone, or after ``Z``."""
        W = self.transform(X)
        return W if self.alone else np.hstack([Z, W])

    def frame(self, names: list[str]) -> pd.DataFrame:
        """The directions in the predictors' original scale: unit columns named Spread1..k,
        each column's largest entry positive."""
        B = self.basis / np.linalg.norm(self.basis, axis=0)
        B = B * np.sign(B[np.abs(B).argmax(axis=0), np.arange(B.shape[1])])
        return pd.DataFrame(B, index=names, columns=[f"Spread{j + 1}" for j in range(self.k)])


class ConstantLogScale(Registered):
    """A log-scale of 0 everywhere: the location-scale density without a varying spread."""

    bandwidth = None

    def __init__(self, n: int, q: int) -> None:
        self.fitted = np.zeros((n, q))

    def predict(self, S: np.ndarray) -> np.ndarray:
        return np.zeros((len(S), self.fitted.shape[1]))

    def loo_fitted(self) -> np.ndarray:
        return self.fitted


class ScaleChoice(NamedTuple):
    """The log-scale kept and how it was chosen.

    ``smoother`` predicts the log-scale from ``S = [z, w]`` (``w`` the first ``k`` spread
    directions' coordinates; ``k = 0`` or no directions: ``S = z``); ``table`` scores every
    candidate fitted; ``pvalue`` is the heteroscedasticity test's.
    """

    smoother: Any
    spread: SpreadDirections | None
    name: str
    deferred_table: DeferredTable
    pvalue: float

    @property
    def table(self) -> pd.DataFrame:
        """Every candidate's held-out log score and the standard error of its difference
        from the best's (built on each read)."""
        return self.deferred_table()


def gaussian_heldout(resid: np.ndarray, g_loo: np.ndarray) -> np.ndarray:
    """Each row's held-out Gaussian log density ``Σ_j log N(r_ij; 0, c_j² e^{2 g_ij})``
    (``c_j²`` the mean squared standardised residual)."""
    u = resid / np.exp(g_loo)
    c2 = np.mean(u * u, axis=0)
    return np.sum(-g_loo - 0.5 * np.log(2 * np.pi * c2) - u * u / (2 * c2), axis=1)


def choose_scale(
    Z: np.ndarray,
    resid: np.ndarray,
    X: np.ndarray | None = None,
    level: float = HETERO_LEVEL,
    random_state: Any = None,
) -> ScaleChoice:
    """The log-scale of the residuals ``resid`` of a location on ``Z``: constant when the
    test finds no heteroscedasticity, else the candidate chosen by held-out log-likelihood
    with the one-standard-error rule (see the module notes). ``X`` (all predictors) offers
    spread directions beyond ``Z``; ``None`` when ``Z`` is already every predictor."""
    n, q = resid.shape
    white = None if X is None else whiten_predictors(np.asarray(X, dtype=float)).values
    pvalue = heteroscedasticity_pvalue(resid, heteroscedasticity_design(Z, white))
    constant = ConstantLogScale(n, q)
    scores = {"constant": gaussian_heldout(resid, constant.fitted)}
    smoothers: dict[str, Any] = {"constant": constant}
    directions: dict[str, SpreadDirections] = {}  # the candidates on the spread's own
    spread = None
    if pvalue < level:
        t = log_abs(resid)
        smoothers["reduced predictors"] = LocalLinear(Z, t, noisy=True, rotate=True, scale_of=resid)
        if X is not None:
            seed = as_seed_sequence(random_state)
            own_seed = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1))
            spread = SpreadDirections(X, Z, t, k=MAX_SPREAD_DIRECTIONS, random_state=seed)
            for k in range(1, spread.k + 1):
                S = np.hstack([Z, spread.transform(X, k)])
                smoothers[f"+ {k} spread direction{'s' if k > 1 else ''}"] = LocalLinear(
                    S, t, noisy=True, rotate=True, scale_of=resid
                )
            # The spread's own directions, in place of the fit's: fewer inputs when the
            # spread follows fewer directions than the mean, and not blurred by the error
            # of the fit's directions.
            own = SpreadDirections(
                X, Z, t, k=MAX_SPREAD_DIRECTIONS, random_state=own_seed, alone=True
            )
            for k in range(1, min(own.k, Z.shape[1]) + 1):
                smoothers[f"{k} own spread direction{'s' if k > 1 else ''}"] = LocalLinear(
                    own.transform(X, k), t, noisy=True, rotate=True, scale_of=resid
                )
                directions[f"{k} own spread direction{'s' if k > 1 else ''}"] = own.truncated(k)
        for name, smoother in smoothers.items():
            if name != "constant":
                scores[name] = gaussian_heldout(resid, smoother.loo_fitted())
    # simplest first (fewest inputs), so that the one-se rule prefers it
    names = sorted(scores, key=lambda k: _inputs(k, Z.shape[1]))
    means = np.array([scores[k].mean() for k in names])
    chosen, ses = one_se_choice(-np.column_stack([scores[k] for k in names]))
    name = names[chosen]
    table = DeferredTable(_scale_table, means, ses, names)
    if name in directions:
        kept = directions[name]
    else:
        k = 0 if not name.startswith("+") else int(name.split()[1])
        kept = None if spread is None or k == 0 else spread.truncated(k)
    return ScaleChoice(smoothers[name], kept, name, table, pvalue)


def _scale_table(means: np.ndarray, ses: np.ndarray, names: list[str]) -> pd.DataFrame:
    """:func:`choose_scale`'s candidates: held-out log score, se of the difference."""
    return pd.DataFrame(
        {"held-out log score": means, "se of difference": ses},
        index=pd.Index(names, name="log-scale"),
    )


def _inputs(name: str, d: int) -> int:
    """The log-scale candidate's number of inputs (ties keep the order of fitting)."""
    if name == "constant":
        return 0
    if name == "reduced predictors":
        return d
    k = int(name.split()[1] if name.startswith("+") else name.split()[0])
    return d + k if name.startswith("+") else k


__all__ = [
    "ConstantLogScale",
    "HETERO_LEVEL",
    "ScaleChoice",
    "SpreadDirections",
    "choose_scale",
    "gaussian_heldout",
    "gradient_outer_product",
    "heteroscedasticity_pvalue",
    "log_abs",
    "heteroscedasticity_design",
    "whiten_predictors",
]
