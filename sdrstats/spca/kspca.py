"""Kernel supervised PCA (Barshan et al. 2011): SPCA in a reproducing-kernel feature space.

With ``U = Φ(X) β`` the SPCA problem becomes ``max tr(βᵀ K H L H K β)`` subject to
``βᵀ K β = I``: the generalised eigenproblem ``(K H L H K) β = λ (K + ρ I) β`` with a small
ridge ``ρ`` on ``K``. New rows map by ``k(x, X) β``. Past 2000 rows a Nyström feature map
(scikit-learn's :class:`~sklearn.kernel_approximation.Nystroem`) replaces ``K``, turning the
problem into linear SPCA on ``m`` features.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from ..base.budget import check_count, check_memory
from ..base.tables import Block
from ..base.validation import Interval, Options
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..inference.ladle import default_d_max
from ._results import ProjectionResults
from .kernels import (
    PREDICTOR_KERNELS,
    RESPONSE_KERNELS,
    median_gamma,
    predictor_kernel,
    response_factor,
)
from .spca import RANK_TOL, check_rank, hsic_matrix_factor, top_eigen

#: ``approximation="auto"`` switches to Nyström above this many rows.
NYSTROEM_ROWS = 2000
NO_DIRECTIONS = (
    "kernel SPCA has no linear directions; use transform() for the reduced "
    "predictors (it maps rows through the kernel)."
)


class KSPCAResults(ProjectionResults):
    """Results of :class:`KSPCA`: no ``directions``; ``transform`` maps through the kernel.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    kspca : The method that returns it.

    References
    ----------
    :cite:t:`barshan2011`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.kspca("sex ~ ht + wt + lbm + bmi", ais, d=1)
    >>> type(fit).__name__, fit.transform().shape
    ('KSPCAResults', (202, 1))
    """

    eigen_label = "Eigenvalues (HSIC)"
    eigen_note = (
        "Eigenvalues are HSIC contributions of the kernel projections "
        "(generalised eigenvalues of KHLHK b = lambda (K + ridge I) b, over (n-1)^2)."
    )

    def _require_basis(self) -> np.ndarray:
        raise ValueError(NO_DIRECTIONS)

    def _extra_blocks(self) -> list[Block]:
        ex = self.output.extras
        lines = [
            f"kernel = {ex['kernel']}, gamma = {ex['gamma']:.4g}"
            + (
                f", degree = {ex['degree']}, coef0 = {ex['coef0']:g}"
                if ex["kernel"] == "poly"
                else ""
            ),
            f"kernel_y = {ex['kernel_y']}, ridge = {ex['ridge']:g} (relative to mean "
            f"diag K), standardize = {ex['standardize']}",
            f"solution: {ex['route']}",
        ]
        return [Block("Kernel settings", text="\n".join(lines))]


class KSPCA(Estimator):
    """Kernel supervised PCA.

    Parameters
    ----------
    d : int, optional
        Number of reduced predictors; default ``min(2, rank)``.
    d_rule : {"ladle", "cv"}
        The rule that chooses ``d`` when it is not given; default ``"ladle"`` (Luo & Li
        2016) on the kernel eigenvalues and the bootstrap variability of the embedding of the
        training rows. The fit computes the components the ladle compares whatever ``d`` is.
    d_max : int, optional
        Largest ``d`` the rule tries; default ``p - 2`` for ``p <= 10``, ``floor(p / log p)``
        beyond (at least 1), as the ladle.
    kernel : {"rbf", "poly", "linear"}, default "rbf"
        Predictor kernel: ``exp(-gamma ‖x − x'‖²)``, ``(gamma xᵀx' + coef0)^degree`` or
        ``xᵀx'``.
    gamma : float, optional
        Kernel scale; default the median heuristic ``1 / median ‖x_i − x_j‖²`` (rbf) or
        ``1 / p`` (poly), computed on the standardised predictors.
    degree : int, default 2
        Degree of the poly kernel.
    coef0 : float, default 1
        Constant of the poly kernel.
    ridge : float, default 1e-6
        Ridge ``ρ = ridge · mean(diag K)`` added to ``K`` on the right-hand side, so the
        generalised eigenproblem is definite (must be > 0).
    kernel_y : {"linear", "delta", "rbf", "identity"}, optional
        Response kernel ``L``, as :class:`SPCA`: default ``"delta"`` for a categorical
        response, ``"linear"`` otherwise.
    gamma_y : float, optional
        Width of the rbf response kernel; default the median heuristic (as :class:`SPCA`).
    add_identity : float, default 0
        Use ``L + add_identity · I`` (as :class:`SPCA`).
    standardize : bool, default True
        Z-score each predictor (training mean and sd) before the kernel.
    approximation : {"auto", "exact", "nystroem"}, default "auto"
        ``"nystroem"`` uses ``n_landmarks`` Nyström features (cost ``O(n m²)``); ``"auto"``
        does so above 2000 rows.
    n_landmarks : int, default 300
        Nyström rank: the number of landmark rows (every kernel method calls its low-rank
        size ``n_landmarks``). The Nyström route holds about ``4 n m`` floats for
        ``m = min(n_landmarks, n)`` and is refused past ``sdr.set_config(max_memory=...)``
        before it starts (``n_landmarks = n`` at n = 200,000: about 1.2 TiB).
    random_state : int or Generator, optional
        Nyström landmarks and the rows of the median heuristic; the streams of the rules that
        resample and of ``bootstrap()`` derive from it. None draws one, which the summary
        prints.

    See Also
    --------
    kspca : The formula function (``sdr.kspca(formula, data)``).
    sdrstats.spca.kspca.KSPCAResults : What ``fit`` returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    Notes
    -----
    Exact route: when ``L = ΔΔᵀ`` has few columns (``r < n/4``, no ``add_identity``) the
    problem is solved through the Cholesky factor ``K + ρI = CCᵀ`` and the r×r eigenproblem of
    ``(C⁻¹KHΔ)ᵀ(C⁻¹KHΔ)``; otherwise by ``scipy.linalg.eigh(A, B, subset_by_index=...)`` for the
    top ``d`` pairs. Both give ``βᵀ(K + ρI)β = I``. Cost ``O(n³)`` and ``O(n²)`` memory; use
    the Nyström route past a few thousand rows.

    References
    ----------
    :cite:t:`barshan2011`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(120, 2))
    >>> y = np.where(X[:, 0] * X[:, 1] > 0, "a", "b")   # XOR
    >>> fit = sdr.KSPCA(d=1).fit(X, y)
    >>> fit.transform().shape
    (120, 1)
    """

    method = "kspca"
    capabilities = Capabilities(linear_directions=False)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("ladle", "cv"))],
        "d_max": [Interval(int, 1, None), None],
        "kernel": [Options(PREDICTOR_KERNELS)],
        "gamma": [Interval(float, 0, None, closed="neither"), None],
        "degree": [Interval(int, 1, None)],
        "coef0": [Interval(float, 0, None)],
        "ridge": [Interval(float, 0, None, closed="neither")],
        "kernel_y": [Options(RESPONSE_KERNELS), None],
        "gamma_y": [Interval(float, 0, None, closed="neither"), None],
        "add_identity": [Interval(float, 0, None)],
        "standardize": ["boolean"],
        "approximation": [Options(("auto", "exact", "nystroem"))],
        "n_landmarks": [Interval(int, 2, None)],
        "random_state": ["random_state"],
    }
    results_class = KSPCAResults

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "ladle",
        d_max: int | None = None,
        kernel: str = "rbf",
        gamma: float | None = None,
        degree: int = 2,
        coef0: float = 1.0,
        ridge: float = 1e-6,
        kernel_y: str | None = None,
        gamma_y: float | None = None,
        add_identity: float = 0.0,
        standardize: bool = True,
        approximation: str = "auto",
        n_landmarks: int = 300,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        if X.shape[0] < 3:
            raise ValueError(f"{self.method} needs at least 3 observations; got {X.shape[0]}.")
        if np.all(np.ptp(X, axis=0) == 0):
            raise ValueError("Every predictor is constant; kspca needs predictors that vary.")

    # -- helpers -------------------------------------------------------------------------
    def _scaled(self, X: np.ndarray, extras: dict[str, Any]) -> np.ndarray:
        return (X - extras["x_mean"]) / extras["x_scale"]

    def _gram(self, A: np.ndarray, B: np.ndarray, extras: dict[str, Any]) -> np.ndarray:
        return predictor_kernel(
            A, B, extras["kernel"], extras["gamma"], extras["degree"], extras["coef0"]
        )

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        o = self.options
        rng = np.random.default_rng(random_state)
        n, p = X.shape
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        kernel_y = o["kernel_y"] or ("delta" if categorical else "linear")
        factor = response_factor(Y, kernel_y, self.method, gamma=o["gamma_y"], rng=rng)
        x_mean = X.mean(axis=0)
        x_scale = X.std(axis=0) if o["standardize"] else np.ones(p)
        x_scale[x_scale == 0] = 1.0
        Xs = (X - x_mean) / x_scale
        gamma = o["gamma"]
        if gamma is None:
            gamma = median_gamma(Xs, rng) if o["kernel"] == "rbf" else 1.0 / p
        extras: dict[str, Any] = {
            "kernel": o["kernel"],
            "gamma": float(gamma),
            "degree": o["degree"],
            "coef0": o["coef0"],
            "ridge": o["ridge"],
            "kernel_y": kernel_y,
            "standardize": o["standardize"],
            "x_mean": x_mean,
            "x_scale": x_scale,
            "method_details": f"kernel = {o['kernel']}, kernel_y = {kernel_y}",
        }
        approx = o["approximation"]
        if approx == "nystroem" or (approx == "auto" and n > NYSTROEM_ROWS):
            return self._fit_nystroem(Xs, factor, weights, rng, extras)
        # the n x n kernel, its centred copy and the generalised eigenproblem's factor: peak
        # about 4.2 n x n float arrays (tracemalloc, n = 1000)
        check_memory(
            self.method,
            4.5 * 8.0 * n * n,
            f"its n x n kernel matrices at n = {n:,} (approximation={approx!r})",
            "use approximation='nystroem' (the default above "
            f"{NYSTROEM_ROWS:,} rows) or a random subsample of the rows",
        )
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        # The exact route is for n <= 2000: its n×n factorisations run on one BLAS thread,
        # because multithreaded OpenBLAS on a busy machine was 6x slower (Cholesky of
        # n = 2000: 6.3 s on 2 threads vs 0.5 s on 1 with other jobs running).
        with threadpool_limits(1 if n <= NYSTROEM_ROWS else None):
            return self._fit_exact(Xs, factor, w, kernel_y, extras)

    def _fit_exact(
        self,
        Xs: np.ndarray,
        factor: np.ndarray | None,
        w: np.ndarray,
        kernel_y: str,
        extras: dict[str, Any],
    ) -> EstimatorOutput:
        o = self.options
        n = len(Xs)
        K = self._gram(Xs, Xs, extras)
        ridge = o["ridge"] * float(np.mean(np.diag(K)))
        # Weighted centring H_w = I − 1 wᵀ / Σw on the rows of K (columns of β's feature map).
        HK = K - (w @ K / w.sum())[None, :]
        phi = None if factor is None else (HK * w[:, None]).T @ factor
        identity = 1.0 if factor is None else o["add_identity"]
        B = K + ridge * np.eye(n)
        if phi is not None and identity == 0 and phi.shape[1] < n / 4:
            values, beta = self._lowrank_route(phi, B)
            extras["route"] = f"exact, Cholesky + {phi.shape[1]}x{phi.shape[1]} eigenproblem"
        else:
            A = (HK * (identity * w)[:, None]).T @ HK
            if phi is not None:
                A += phi @ phi.T
            rank_cap = n - 1 if identity > 0 else min(n - 1, phi.shape[1])
            why = f"kernel_y = {kernel_y!r}"
            # the components the ladle compares, whatever d is (d_max + 1 of them)
            rule_d_max = o["d_max"] or max(1, default_d_max(Xs.shape[1]))
            k = min(rank_cap, max(check_rank(o["d"], rank_cap, self.method, why), rule_d_max + 1))
            values, beta = scipy.linalg.eigh(A, B, subset_by_index=[n - k, n - 1])
            values, beta = values[::-1], beta[:, ::-1]
            keep = values > max(values[0], 0.0) * RANK_TOL
            values, beta = values[keep], beta[:, keep]
            extras["route"] = "exact, scipy.linalg.eigh(A, B, subset_by_index)"
            d = check_rank(o["d"], len(values), self.method, why)
            return self._output(values, beta, Xs, K, w, d, extras)
        why = f"kernel_y = {kernel_y!r} on {factor.shape[1]} response column(s)/classes"
        d = check_rank(o["d"], len(values), self.method, why)
        return self._output(values, beta, Xs, K, w, d, extras)

    @staticmethod
    def _lowrank_route(phi: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # A = ΦΦᵀ has rank r: with B = CCᵀ the problem is the r×r eigenproblem of GᵀG, G = C⁻¹Φ.
        C = scipy.linalg.cholesky(B, lower=True)
        G = scipy.linalg.solve_triangular(C, phi, lower=True)
        values, V = scipy.linalg.eigh(G.T @ G)
        values, V = values[::-1], V[:, ::-1]
        keep = values > max(values[0], 0.0) * RANK_TOL
        values, V = values[keep], V[:, keep]
        beta = scipy.linalg.solve_triangular(C.T, G @ V / np.sqrt(values), lower=False)
        return values, beta

    def _output(
        self,
        values: np.ndarray,
        beta: np.ndarray,
        Xs: np.ndarray,
        K: np.ndarray,
        w: np.ndarray,
        d: int,
        extras: dict[str, Any],
    ) -> EstimatorOutput:
        beta = beta * np.sign(beta[np.argmax(np.abs(beta), axis=0), np.arange(beta.shape[1])])
        proj = K @ beta
        extras.update(coef=beta, train=Xs, offset=w @ proj / w.sum(), rank=len(values))
        n_eff = float(w.sum())
        return EstimatorOutput(
            basis=None, d=d, eigenvalues=values / (n_eff - 1) ** 2, extras=extras
        )

    def _fit_nystroem(
        self,
        Xs: np.ndarray,
        factor: np.ndarray | None,
        weights: np.ndarray | None,
        rng: np.random.Generator,
        extras: dict[str, Any],
    ) -> EstimatorOutput:
        from sklearn.kernel_approximation import Nystroem

        o = self.options
        m = min(o["n_landmarks"], len(Xs))
        # the n x m kernel block, the features and their centred copy, plus m x m blocks
        check_count(self.method, "n_landmarks", m, unit="Nystroem landmarks", seconds_each=None,
                    bytes_each=4 * 8.0 * len(Xs) + 3 * 8.0 * m, at=f" at n = {len(Xs):,}",
                    remedy="lower n_landmarks (or fit on a random subsample of the rows)")  # fmt: skip
        mapper = Nystroem(
            kernel=extras["kernel"],
            gamma=extras["gamma"],
            degree=extras["degree"],
            coef0=extras["coef0"],
            n_components=m,
            random_state=int(rng.integers(2**31 - 1)),
        )
        F = mapper.fit_transform(Xs)
        psi, center = hsic_matrix_factor(F, factor, o["add_identity"], weights)
        values, vectors, route = top_eigen(psi, "auto")
        d = check_rank(o["d"], len(values), self.method, f"kernel_y = {extras['kernel_y']!r}")
        n_eff = len(Xs) if weights is None else float(np.sum(weights))
        extras.update(
            route=f"Nystroem ({m} components), {route} solver",
            nystroem=mapper,
            coef=vectors,
            offset=center @ vectors,
            rank=len(values),
        )
        return EstimatorOutput(
            basis=None, d=d, eigenvalues=values / (n_eff - 1) ** 2, extras=extras
        )

    def transform_arrays(self, output: EstimatorOutput, X: np.ndarray, d: int) -> np.ndarray:
        """``k(x, X_train) β − mean`` for new rows (or the Nyström features times ``U``)."""
        ex = output.extras
        if d > ex["coef"].shape[1]:
            raise ValueError(f"kspca computed {ex['coef'].shape[1]} components; got d = {d}.")
        Xs = self._scaled(np.asarray(X, dtype=float), ex)
        features = (
            ex["nystroem"].transform(Xs) if "nystroem" in ex else self._gram(Xs, ex["train"], ex)
        )
        return features @ ex["coef"][:, :d] - ex["offset"][:d]


@formula_doc(KSPCA)
def kspca(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "ladle",
    d_max: int | None = None,
    kernel: str = "rbf",
    gamma: float | None = None,
    degree: int = 2,
    coef0: float = 1.0,
    ridge: float = 1e-6,
    kernel_y: str | None = None,
    gamma_y: float | None = None,
    add_identity: float = 0.0,
    standardize: bool = True,
    approximation: str = "auto",
    n_landmarks: int = 300,
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> KSPCAResults:
    """Kernel supervised PCA from a formula; see :class:`KSPCA` for the options.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    KSPCAResults

    See Also
    --------
    KSPCA : The estimator, for arrays (``KSPCA(...).fit(X, y)``).
    sdrstats.spca.kspca.KSPCAResults : What it returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    References
    ----------
    :cite:t:`barshan2011`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.kspca("sex ~ ht + wt + lbm + bmi", ais, d=1)
    >>> fit.transform().shape
    (202, 1)
    >>> fit.directions
    Traceback (most recent call last):
    ...
    ValueError: kernel SPCA has no linear directions; use transform() ...
    """
    return fit_formula(KSPCA, locals(), "kspca")


__all__ = ["KSPCA", "KSPCAResults", "kspca"]
