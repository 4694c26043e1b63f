"""Kernel dimension reduction (Fukumizu, Bach & Jordan 2004, 2009).

KDR minimises the trace of the estimated conditional covariance operator of ``y`` given the
projection ``s = W z`` of the whitened predictors,

.. math:: f(W) = \\operatorname{Tr}[\\tilde G_Y (\\tilde G_S + n\\varepsilon I)^{-1}],

over ``W`` with orthonormal rows, with Gaussian kernels and centred Gram matrices
``G̃ = H G H``. The optimisation runs on the Grassmann manifold
(:func:`sdrstats.stats.grassmann.grassmann_minimize`) through a sequence of decreasing kernel widths
(annealing), which avoids the poor local optima of a narrow kernel.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.budget import check_count, check_loops, check_memory, warn_if_slow
from ..base.parallel import effective_n_jobs, parallel_map, spawn_generators
from ..base.tables import Block
from ..base.validation import Interval, Options, TooFewRowsError
from ..base.warnings import ConvergenceWarning
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..stats.grassmann import grassmann_minimize, random_orthonormal_rows
from ..stats.linalg import canonical_basis, whiten
from ._results import ProjectionResults
from .kdr_objectives import FourierKDRObjective, KDRObjective
from .kernels import response_factor

#: Up to this many rows the optimisation runs with single-threaded BLAS.
SINGLE_THREAD_ROWS = 1000


def repeat_rows(
    X: np.ndarray, Y: np.ndarray, weights: np.ndarray | None, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """Integer case weights (a bootstrap's counts) as repeated rows."""
    if weights is None:
        return X, Y
    weights = np.asarray(weights, dtype=float)
    if np.any(weights < 0) or np.any(weights != np.round(weights)):
        raise ValueError(
            f"{method} accepts only non-negative integer case weights (frequency weights)."
        )
    reps = weights.astype(int)
    return np.repeat(X, reps, axis=0), np.repeat(Y, reps, axis=0)


class KDRResults(ProjectionResults):
    """Results of :class:`KDR`: the criterion and its annealing trace in the summary.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    kdr : The method that returns it.

    References
    ----------
    :cite:t:`fukumizu2009`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.kdr("sex ~ ht + wt + lbm + ssf", ais, d=1, n_anneal=2, max_iter=5)
    >>> type(fit).__name__
    'KDRResults'
    """

    def _extra_blocks(self) -> list[Block]:
        ex = self.output.extras
        table = pd.DataFrame(
            {
                "sigma": ex["sigmas"],
                "criterion": ex["stage_values"],
                "iterations": ex["stage_iterations"],
            },
            index=[f"stage {k + 1}" for k in range(len(ex["sigmas"]))],
        )
        text = (
            f"Criterion Tr[G_Y (G_S + n eps I)^-1] = {self.criterion:.6g} at sigma = "
            f"{ex['sigmas'][-1]:.4g}, eps = {self.options['eps']:g}; best of "
            f"{ex['n_restarts']} start(s); converged = {ex['converged']}."
        )
        return [Block("Kernel-width annealing", table=table), Block("", text=text)]


class KDR(Estimator):
    """Kernel dimension reduction by gradient descent on the Grassmann manifold.

    Parameters
    ----------
    d : int, optional
        Dimension of the projection (at most p); ``None`` (default) chooses it by
        ``d_rule``.
    d_rule : {"cv", "bootstrap"}
        The rule that chooses ``d`` when it is not given. ``"cv"`` (default) fits every
        ``d = 1..d_max`` and keeps the one whose reduced predictors best predict the response
        out of sample (:func:`sdrstats.inference.cv.cv_dimension`): ``d_max`` fits.
        ``"bootstrap"`` is Ye & Weiss's rule (``B`` refits per candidate: slow).
    d_max : int, optional
        Largest ``d`` the rule tries; default 4 (below p).
    sigma : float, optional
        Final Gaussian width on the (whitened) projections; default ``sqrt(d)``.
    sigma_start : float, optional
        First width of the annealing; default ``5 * sigma``.
    n_anneal : int, default 5
        Number of widths (geometric from ``sigma_start`` to ``sigma``). With ``max_iter``
        and ``n_restarts`` bounded by the time limit (``sdr.set_config(max_time=...)``): a
        fit predicted past it is refused before it starts.
    eps : float, default 1e-3
        Regularisation ``ε`` of ``(G̃_S + nεI)^{-1}``.
    gamma_y : float, optional
        Gaussian response kernel ``exp(−gamma_y ‖y − y'‖²)`` on standardised ``y``; default
        median heuristic. A categorical response uses the delta kernel.
    max_iter : int, default 30
        Grassmann iterations per annealing stage.
    n_restarts : int, default 1
        Starts: the first is the HSIC (supervised PCA) solution, the others random; the
        smallest final criterion wins.
    random_state : int or Generator, optional
        Random starts, random Fourier features and the rows used for the median-heuristic
        width; the streams of the rules that resample, ``bootstrap()`` and
        ``conditional_density()`` derive from it. None draws one, which the summary prints.
    approximation : {"auto", "exact", "fourier"}, default "auto"
        ``"exact"`` forms the n×n Gram matrix of the projections; ``"fourier"`` uses
        ``n_landmarks`` random Fourier features (``G_S ≈ F Fᵀ``, Woodbury inverse);
        ``"auto"`` takes the Fourier route above 1000 rows.
    n_landmarks : int, default 300
        Number of random Fourier features (the low-rank size, named as in every kernel
        method). They hold about ``10 n m`` floats, refused past
        ``sdr.set_config(max_memory=...)``.
    n_jobs : int, default 1
        Restarts run on this many workers (results do not depend on it).
    progress : bool, default True
        A progress bar over the restarts (shown for long fits only).

    See Also
    --------
    kdr : The formula function (``sdr.kdr(formula, data)``).
    sdrstats.spca.kdr.KDRResults : What ``fit`` returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    Notes
    -----
    ``G̃_Y`` enters through a factor ``R`` (``G̃_Y = H R Rᵀ H``: one-hot indicators for
    classes, a pivoted incomplete Cholesky factor of the Gaussian Gram matrix otherwise), so
    its cost is ``O(n r)``. An exact evaluation costs ``O(n²(p + d) + n³)`` (the Cholesky
    factor of the n×n ``G̃_S + nεI``); a Fourier one ``O(n m (m + p + r))`` with m features,
    linear in n. See :mod:`sdrstats.spca.kdr_objectives`.

    References
    ----------
    :cite:t:`fukumizu2009`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(1)
    >>> X = rng.standard_normal((80, 4))
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(80)
    >>> fit = sdr.KDR(d=1).fit(X, y)
    >>> bool(abs(fit.directions.iloc[0, 0]) > 0.9)
    True
    """

    method = "kdr"
    capabilities = Capabilities(eigenvalues=False, nested_directions=False)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("cv", "bootstrap"))],
        "d_max": [Interval(int, 1, None), None],
        "sigma": [Interval(float, 0, None, closed="neither"), None],
        "sigma_start": [Interval(float, 0, None, closed="neither"), None],
        "n_anneal": [Interval(int, 1, None)],
        "eps": [Interval(float, 0, None, closed="neither")],
        "gamma_y": [Interval(float, 0, None, closed="neither"), None],
        "max_iter": [Interval(int, 1, None)],
        "n_restarts": [Interval(int, 1, None)],
        "approximation": [Options(("auto", "exact", "fourier"))],
        "n_landmarks": [Interval(int, 2, None)],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs", None],
        "progress": ["boolean"],
    }
    results_class = KDRResults

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        sigma: float | None = None,
        sigma_start: float | None = None,
        n_anneal: int = 5,
        eps: float = 1e-3,
        gamma_y: float | None = None,
        max_iter: int = 30,
        n_restarts: int = 1,
        approximation: str = "auto",
        n_landmarks: int = 300,
        random_state: Any = None,
        n_jobs: int | None = 1,
        progress: bool = True,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        if self.options["d"] is not None and self.options["d"] > X.shape[1]:
            raise ValueError(
                f"The 'd' option of kdr must be at most p = {X.shape[1]}; got {self.options['d']}."
            )
        if X.shape[0] <= X.shape[1]:
            raise TooFewRowsError(
                f"kdr whitens the predictors and needs n > p; got n = {X.shape[0]}, "
                f"p = {X.shape[1]}. Reduce p first (e.g. with spca)."
            )
        self._check_budget(*X.shape)

    def _check_budget(self, n: int, p: int) -> None:
        """Refuse counts and sizes past ``sdr.set_config``'s limits before the fit starts:
        the Fourier features hold about ``10 n m`` floats (m = ``n_landmarks``; 4.5 GiB at
        n = 200,000 with the defaults), and ``n_restarts × n_anneal × max_iter`` iterations
        cost ``O(n m (m + p))`` each (``O(n³)`` exact)."""
        o = self.options
        fourier = o["approximation"] == "fourier" or (
            o["approximation"] == "auto" and n > SINGLE_THREAD_ROWS
        )
        m = o["n_landmarks"]
        if fourier:  # features, their projections and the Woodbury blocks (tracemalloc)
            check_count("kdr", "n_landmarks", m, unit="Fourier features", seconds_each=None,
                        bytes_each=10 * 8.0 * n + 8.0 * m, at=f" at n = {n:,}",
                        remedy="lower n_landmarks (or fit on a random subsample of the rows)")  # fmt: skip
        check_count("kdr", "n_anneal", o["n_anneal"], unit="annealing widths",
                    seconds_each=None, bytes_each=64.0)  # fmt: skip
        check_count("kdr", "n_restarts", o["n_restarts"], unit="restarts", seconds_each=None,
                    bytes_each=2048.0 + 8.0 * p * (o["d"] or p))  # fmt: skip
        # an iteration: 4.8 ms a row for the default 5 x 30 Fourier ones, 3.2e-5 s a row each
        # at m = 300 (2-core machine); exact, the n x n Cholesky factor dominates
        per_iteration = 3.2e-5 * n * m / 300 if fourier else 2e-9 * float(n) ** 3
        workers = max(1, min(effective_n_jobs(o["n_jobs"]), o["n_restarts"]))
        check_loops("kdr", {"n_restarts": o["n_restarts"], "n_anneal": o["n_anneal"],
                            "max_iter": o["max_iter"]}, per_iteration / workers,
                    unit="iterations", at=f" at n = {n:,}")  # fmt: skip

    def response_gram_factor(self, Y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Factor of the response Gram matrix (delta for classes, Gaussian otherwise)."""
        if Y.ndim == 1 and Y.dtype.kind in "iu":
            return response_factor(Y, "delta", self.method)
        Yn = np.asarray(Y, dtype=float).reshape(len(Y), -1)
        sd = Yn.std(axis=0)
        if np.all(sd == 0):
            raise ValueError("The response is constant; kdr needs a response that varies.")
        sd[sd == 0] = 1.0
        return response_factor(
            (Yn - Yn.mean(axis=0)) / sd, "rbf", self.method, gamma=self.options["gamma_y"], rng=rng
        )

    def fit_output(
        self, spec: Any, *, weights: np.ndarray | None = None, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit at ``d``; with ``d=None`` the candidates of ``d_rule`` (see
        :meth:`~sdrstats.fitting.estimator.Estimator.fit_candidates`).

        Parameters
        ----------
        spec : ModelSpec
            The rows.
        weights : ndarray of shape (n,), optional
            Frequency weights.
        random_state : optional
            Seed of the starts and features.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ ht + wt + rcc", sdr.datasets.load("ais"))
        >>> sdr.KDR(d=1, max_iter=3, n_anneal=1).fit_output(spec, random_state=0).d
        1
        """
        if self.options["d"] is None:
            return self.fit_candidates(spec, weights=weights, random_state=random_state)
        return super().fit_output(spec, weights=weights, random_state=random_state)

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        o = self.options
        X, Y = repeat_rows(X, Y, weights, self.method)
        search = self._search(X, Y, random_state)
        best, mean, inv_sqrt = search["best"], search["mean"], search["inv_sqrt"]
        basis = canonical_basis(inv_sqrt @ best["W"].T)
        extras = self._search_extras(search)
        return EstimatorOutput(
            basis=basis, d=o["d"], criterion=best["value"], center=mean, extras=extras
        )

    def _search(
        self, X: np.ndarray, Y: np.ndarray, random_state: Any, names: list[str] | None = None
    ) -> dict[str, Any]:
        """The annealed Grassmann search on the whitened ``X``: the best run and its setting.

        Returns a dict with the best run (``W`` with orthonormal rows acting on the whitened
        ``X``, its criterion and traces), the whitening ``mean`` and ``inv_sqrt``, the kernel
        widths ``sigmas`` and whether random Fourier features were used.
        """
        o = self.options
        rng_y, rng_features, *rngs = spawn_generators(random_state, 2 + o["n_restarts"])
        R = self.response_gram_factor(Y, rng_y)
        Z, mean, inv_sqrt = whiten(X, self.method, names=names, ddof=1)
        d, p = o["d"], X.shape[1]
        sigma = o["sigma"] or float(np.sqrt(d))
        sigma_start = o["sigma_start"] or 5.0 * sigma
        sigmas = np.geomspace(sigma_start, sigma, o["n_anneal"])
        fourier = o["approximation"] == "fourier" or (
            o["approximation"] == "auto" and len(Z) > SINGLE_THREAD_ROWS
        )
        n = len(Z)
        if fourier:
            # about 4.8 ms a row on a 2-core machine at the defaults (n = 8000: 39 s)
            warn_if_slow(
                self.method,
                4.8e-3 * n * o["n_restarts"] * o["n_anneal"] / 5,
                f"its annealed searches at n = {n:,}",
                "lower n_restarts or n_anneal, or fit on a random subsample of the rows",
                stacklevel=5,
            )
        else:
            # the Gram matrices of the projections and their inverses: about 7.1 n x n float
            # arrays at once (tracemalloc, n = 1000)
            check_memory(
                self.method,
                7.5 * 8.0 * n * n,
                f"its n x n Gram matrices at n = {n:,} (approximation='exact')",
                "use approximation='fourier' (the default above "
                f"{SINGLE_THREAD_ROWS:,} rows) or a random subsample of the rows",
            )
        features = None
        if fourier:
            features = (
                rng_features.standard_normal((o["n_landmarks"], d)),
                rng_features.uniform(0.0, 2 * np.pi, o["n_landmarks"]),
            )
        starts = []
        Rc = R - R.mean(axis=0)
        U, _, _ = np.linalg.svd(Z.T @ Rc, full_matrices=True)  # HSIC start (SPCA on Z)
        starts.append(U[:, :d].T)
        for k in range(1, o["n_restarts"]):
            starts.append(random_orthonormal_rows(d, p, rngs[k]))
        # Hundreds of small (n×n) factorisations: multithreaded BLAS only adds synchronisation
        # cost there (15× slower on a busy 2-core machine), so run them on one thread.
        runs = parallel_map(
            partial(self._anneal, Z, R, sigmas=sigmas, features=features),
            starts,
            n_jobs=o["n_jobs"],
            progress=o["progress"],
            desc=f"{self.method} restarts",
            blas_threads=1 if len(Z) <= SINGLE_THREAD_ROWS else None,
        )
        best = min(runs, key=lambda run: run["value"])  # the first of equal criteria
        if not best["converged"]:
            warnings.warn(
                f"{self.method} stopped after max_iter = {o['max_iter']} iterations at the "
                "final kernel width without meeting its tolerance; raise max_iter.",
                ConvergenceWarning,
                stacklevel=3,
            )
        return {
            "best": best,
            "mean": mean,
            "inv_sqrt": inv_sqrt,
            "sigmas": sigmas,
            "fourier": fourier,
        }

    def _search_extras(self, search: dict[str, Any]) -> dict[str, Any]:
        """The extras every KDR-type fit reports (annealing table, traces, the search's W)."""
        o, best = self.options, search["best"]
        return {
            "sigmas": search["sigmas"],
            "stage_values": best["stage_values"],
            "stage_iterations": best["stage_iterations"],
            "trace": best["trace"],
            "converged": best["converged"],
            "n_restarts": o["n_restarts"],
            "whitened_W": best["W"],
            "method_details": f"Gaussian kernels, {o['n_anneal']} annealing stages"
            + (f", {o['n_landmarks']} random Fourier features" if search["fourier"] else ""),
        }

    def _anneal(self, Z, R, W0, sigmas, features) -> dict[str, Any]:
        W = W0
        values, iterations, trace = [], [], []
        result = None
        for sigma in sigmas:
            if features is None:
                objective = KDRObjective(Z, R, float(sigma), self.options["eps"])
            else:
                objective = FourierKDRObjective(Z, R, float(sigma), self.options["eps"], *features)
            result = grassmann_minimize(objective, W, max_iter=self.options["max_iter"])
            W = result.W
            values.append(result.value)
            iterations.append(result.n_iter)
            trace.extend(result.trace)
        return {
            "W": W,
            "value": result.value,
            "converged": result.converged,
            "stage_values": values,
            "stage_iterations": iterations,
            "trace": trace,
        }


@formula_doc(KDR)
def kdr(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    sigma: float | None = None,
    sigma_start: float | None = None,
    n_anneal: int = 5,
    eps: float = 0.001,
    gamma_y: float | None = None,
    max_iter: int = 30,
    n_restarts: int = 1,
    approximation: str = "auto",
    n_landmarks: int = 300,
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
    missing: str = "drop",
    subset: Any = None,
) -> KDRResults:
    """Kernel dimension reduction from a formula; see :class:`KDR` for the options.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    KDRResults

    See Also
    --------
    KDR : The estimator, for arrays (``KDR(...).fit(X, y)``).
    sdrstats.spca.kdr.KDRResults : What it returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    References
    ----------
    :cite:t:`fukumizu2009`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.kdr("sex ~ ht + wt + lbm + ssf", ais, d=1, n_anneal=2, max_iter=5)
    >>> fit.directions.shape
    (4, 1)
    """
    return fit_formula(KDR, locals(), "kdr")


__all__ = ["KDR", "KDRResults", "kdr", "whiten"]
