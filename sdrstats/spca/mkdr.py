"""Manifold kernel dimension reduction (Nilsson, Sha & Jordan 2007).

mKDR looks for the few functions of the predictors that carry the regression when the
predictors lie on (or near) a low-dimensional manifold. It represents each row by its
Laplacian eigenmap coordinates (Belkin & Niyogi 2003), which parametrise smooth functions on
the manifold, and then finds, by kernel dimension reduction (:mod:`sdrstats.spca.kdr`), the
``d`` linear combinations of those coordinates given which ``y`` is independent of the rest.

The graph (:class:`Eigenmap`): each row is joined to the rows within the distance of its
``n_neighbors``-th nearest other row, or within theirs (the symmetrised k-nearest-neighbour
graph; each row is also joined to itself), with heat-kernel weights
``w(x, x') = exp(-‖x − x'‖² / t)``. With ``D`` the degrees, the eigenmap coordinates are the
generalised eigenvectors ``W f = μ D f`` (``L f = (1 − μ) D f`` for the graph Laplacian
``L = D − W``) of the ``M`` largest ``μ`` after the trivial ``μ = 1``, computed from the
normalised matrix ``D^{-1/2} W D^{-1/2}``.

New rows (``transform(newdata)``) get their coordinates by the Nyström formula of Bengio et
al. (2004): ``f_k(x) = Σ_i w(x, x_i) f_k(x_i) / (μ_k Σ_i w(x, x_i))`` over the training rows
``x_i`` joined to ``x`` by the same rule (within the distance of ``x``'s own
``n_neighbors + 1``-th nearest training row, or within the training row's radius). On a
training row the rule gives back its graph row, so the formula reproduces its coordinates
exactly: ``transform(training rows)`` equals ``transform()``.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import eigsh
from scipy.spatial.distance import cdist

from ..base.budget import check_memory
from ..base.tables import Block
from ..base.validation import Interval, Options
from ..base.warnings import SDRWarning
from ..fitting.estimator import Capabilities, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..stats.linalg import canonical_basis
from .kdr import KDR, KDRResults, repeat_rows

#: Up to this many rows the eigenmap's eigenvectors come from a dense solver.
DENSE_ROWS = 1500
#: New rows are embedded in blocks of this many (a block x n distance matrix at a time).
BLOCK_ROWS = 2000
NO_DIRECTIONS = (
    "mkdr has no linear directions in the predictors: its directions act on the Laplacian "
    "eigenmap coordinates (extras['embedding_directions']); use transform() for the reduced "
    "predictors (new rows are embedded by the Nystrom formula)."
)


class Eigenmap:
    """Laplacian eigenmap of the training rows and its out-of-sample extension.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Training rows (already standardised if wanted).
    n_neighbors : int
        Each row is joined to the rows within the distance of its ``n_neighbors``-th nearest
        other row (and to those whose own radius reaches it).
    n_components : int
        ``M``, the number of non-trivial eigenmap coordinates.
    heat_width : float, optional
        ``t`` of the heat kernel ``exp(-‖x − x'‖² / t)``; default the mean of the squared
        radii.

    Attributes
    ----------
    train : ndarray of shape (n, p)
    radii2 : ndarray of shape (n,)
        Squared radius of each training row (distance to its ``n_neighbors``-th nearest
        other row).
    heat_width : float
    eigenvalues : ndarray of shape (M,)
        ``μ_k`` of ``W f = μ D f``, decreasing (the trivial ``μ = 1`` left out);
        ``1 − μ_k`` are the eigenvalues of the normalised Laplacian.
    coordinates : ndarray of shape (n, M)
        The eigenmap ``f_k(x_i)``, scaled so that ``Σ_i D_ii f_k(x_i)² = n``.
    n_graph_components : int
        Connected components of the graph (1 unless the rows fall apart).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0, 3, 60)
    >>> X = np.column_stack([np.cos(t), np.sin(t)])
    >>> emap = Eigenmap(X, n_neighbors=4, n_components=2)
    >>> bool(np.allclose(emap.extend(X), emap.coordinates))
    True
    >>> bool(abs(np.corrcoef(emap.coordinates[:, 0], t)[0, 1]) > 0.95)
    True
    """

    def __init__(
        self,
        X: np.ndarray,
        n_neighbors: int,
        n_components: int,
        heat_width: float | None = None,
    ) -> None:
        n = len(X)
        self.train = np.asarray(X, dtype=float)
        self.n_neighbors = int(n_neighbors)
        dist2 = cdist(self.train, self.train, "sqeuclidean")
        # the row itself is at distance 0, so the (k + 1)-th smallest is the k-th other row
        self.radii2 = np.partition(dist2, self.n_neighbors, axis=1)[:, self.n_neighbors]
        if heat_width is None:
            heat_width = float(np.mean(self.radii2))
            if heat_width <= 0:  # every row has n_neighbors exact duplicates
                heat_width = 1.0
        self.heat_width = float(heat_width)
        weights = self._weights(dist2, self.radii2)
        del dist2
        W = sp.csr_matrix(weights)
        del weights
        W = ((W + W.T) / 2.0).tocsr()  # exactly symmetric (the rule is symmetric already)
        degree = np.asarray(W.sum(axis=1)).ravel()
        self.n_graph_components = int(connected_components(W, directed=False)[0])
        scale = 1.0 / np.sqrt(degree)
        normalised = sp.diags(scale) @ W @ sp.diags(scale)
        count = n_components + 1
        if n <= DENSE_ROWS or count >= n - 1:
            values, vectors = scipy.linalg.eigh(
                normalised.toarray(), subset_by_index=[n - count, n - 1]
            )
        else:
            values, vectors = eigsh(normalised, k=count, which="LA", v0=np.sqrt(degree))
        order = np.argsort(-values, kind="stable")
        values, vectors = values[order], vectors[:, order]
        # drop the trivial eigenvector D^{1/2} 1 (μ = 1); f = D^{-1/2} v with Σ D f² = n
        self.eigenvalues = values[1:count]
        coordinates = vectors[:, 1:count] * scale[:, None] * np.sqrt(n)
        # a deterministic sign: the largest-magnitude entry of each coordinate is positive
        rows = np.argmax(np.abs(coordinates), axis=0)
        signs = np.sign(coordinates[rows, np.arange(coordinates.shape[1])])
        signs[signs == 0] = 1.0
        self.coordinates = coordinates * signs

    def _weights(self, dist2: np.ndarray, own_radii2: np.ndarray) -> np.ndarray:
        """Heat-kernel weights of rows at squared distances ``dist2`` (rows x training rows)
        from the training rows; 0 unless within either row's radius."""
        joined = dist2 <= np.maximum(own_radii2[:, None], self.radii2[None, :])
        # exp(-(d - min d) / t): the rescaling cancels in the normalised weights below and
        # keeps a far-away new row from underflowing to all zeros
        nearest = np.min(np.where(joined, dist2, np.inf), axis=1, keepdims=True)
        return np.where(joined, np.exp(-(dist2 - nearest) / self.heat_width), 0.0)

    def extend(self, X: np.ndarray) -> np.ndarray:
        """Eigenmap coordinates of rows ``X`` by the Nyström formula (Bengio et al. 2004).

        Parameters
        ----------
        X : ndarray of shape (m, p)
            Rows on the training rows' scale.

        Returns
        -------
        ndarray of shape (m, M)
            ``f_k(x) = Σ_i w(x, x_i) f_k(x_i) / (μ_k Σ_i w(x, x_i))``; on a training row its
            own coordinates.
        """
        X = np.asarray(X, dtype=float)
        out = np.empty((len(X), self.coordinates.shape[1]))
        k = min(self.n_neighbors, len(self.train) - 1)
        for start in range(0, len(X), BLOCK_ROWS):
            block = X[start : start + BLOCK_ROWS]
            dist2 = cdist(block, self.train, "sqeuclidean")
            own = np.partition(dist2, k, axis=1)[:, k]
            weights = self._weights(dist2, own)
            weights /= weights.sum(axis=1, keepdims=True)
            out[start : start + len(block)] = (weights @ self.coordinates) / self.eigenvalues
        return out


class MKDRResults(KDRResults):
    """Results of :class:`MKDR`: no ``directions`` in the predictors; ``transform`` embeds rows.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    mkdr : The method that returns it.

    References
    ----------
    :cite:t:`nilsson2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.mkdr("lbm ~ ht + wt + ssf", ais, d=1, n_anneal=2, max_iter=5)
    >>> type(fit).__name__, fit.transform().shape
    ('MKDRResults', (202, 1))
    """

    def _require_basis(self) -> np.ndarray:
        raise ValueError(NO_DIRECTIONS)

    @property
    def embedding_directions(self) -> pd.DataFrame:
        """The directions acting on the centred eigenmap coordinates (M x d, unit columns)."""
        basis = self.output.extras["embedding_directions"]
        labels = [f"phi{k + 1}" for k in range(basis.shape[0])]
        return pd.DataFrame(basis, index=labels, columns=[f"Dir{j + 1}" for j in range(self.d)])

    def _extra_blocks(self) -> list[Block]:
        ex = self.output.extras
        values = np.asarray(ex["eigenmap_eigenvalues"])
        lines = [
            f"{ex['n_neighbors']} neighbours, heat width t = {ex['heat_width']:.4g}, "
            f"standardize = {ex['standardize']}; graph components: {ex['n_graph_components']}.",
            f"{values.size} eigenmap coordinates; normalised-Laplacian eigenvalues "
            + ", ".join(f"{1 - v:.3g}" for v in values[:6])
            + (" ..." if values.size > 6 else "")
            + ".",
        ]
        return [Block("Laplacian eigenmap", text="\n".join(lines)), *super()._extra_blocks()]


class MKDR(KDR):
    """Manifold kernel dimension reduction (Nilsson, Sha & Jordan 2007).

    KDR (:class:`KDR`) on the Laplacian eigenmap coordinates of the predictors: the ``d``
    directions minimise ``Tr[G̃_Y (G̃_S + nεI)^{-1}]`` with ``s = B^T z``, ``z`` the whitened
    eigenmap coordinates of a row (see :mod:`sdrstats.spca.mkdr` for the graph).

    Parameters
    ----------
    d : int, optional
        Number of reduced predictors (at most ``n_eigenvectors``); ``None`` (default)
        chooses it by ``d_rule``.
    d_rule : {"cv"}
        As :class:`KDR`: ``"cv"`` fits every ``d = 1..d_max`` and keeps the one whose
        embedding best predicts the response out of sample (the only rule: mKDR has neither
        eigenvalues nor linear directions).
    d_max : int, optional
        Largest ``d`` the rule tries; default 4 (below p and at most ``n_eigenvectors``).
    n_neighbors : int, default 10
        Each row is joined to the rows within the distance of its ``n_neighbors``-th nearest
        other row, and to the rows whose own such radius reaches it.
    n_eigenvectors : int, default 10
        ``M``, the number of eigenmap coordinates (after the trivial constant one) on which
        KDR searches; the regression is assumed to depend on the row through smooth
        functions on the manifold that these coordinates span.
    heat_width : float, optional
        ``t`` of the heat-kernel weights ``exp(-‖x − x'‖² / t)`` on the (standardised)
        predictors; default the mean squared distance from a row to its
        ``n_neighbors``-th nearest other row.
    standardize : bool, default True
        Z-score each predictor (training mean and sd) before the distances.
    sigma, sigma_start, n_anneal, eps, gamma_y, max_iter, n_restarts, random_state, n_jobs, progress : optional
        As :class:`KDR`, for the search on the eigenmap coordinates.
    approximation : {"auto", "exact", "fourier"}, default "auto"
        As :class:`KDR` (the graph itself is always exact).
    n_landmarks : int, default 300
        As :class:`KDR`.

    See Also
    --------
    mkdr : The formula function (``sdr.mkdr(formula, data)``).
    sdrstats.spca.mkdr.MKDRResults : What ``fit`` returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    Notes
    -----
    ``transform(newdata)`` embeds new rows by the Nyström extension of Laplacian eigenmaps
    (Bengio et al. 2004): a new row's coordinates are the heat-kernel weighted average of the
    coordinates of the training rows joined to it, each divided by its eigenvalue ``μ_k``;
    rows far from the training rows get their nearest training rows' average, so the
    extension is only meaningful near the manifold the training rows sample. On a training
    row it returns that row's coordinates exactly.

    ``d`` counts functions of the predictors, not linear directions: each reduced predictor is
    a linear combination of eigenmap coordinates, i.e. a smooth nonlinear function of ``x``.
    A response that depends on ``x`` only through ``E(y | x)`` (noise of constant spread) needs
    one such function however many predictors ``E(y | x)`` involves, so where the
    coordinates nearly express it, a few functions predict the response as well as one per
    linear direction would, and the ``"cv"`` rule keeps fewer than a linear method's ``d``
    (for ``y = x1 / (0.5 + (x2 + 1.5)²) + x3³/3 + 0.2 e`` in six normal predictors, n = 400,
    it mostly keeps 2 where KDR keeps 3). Where the dimension of a linear reduction is
    wanted, use :class:`KDR`.

    Cost: the graph needs all ``n²`` distances (``O(n² p)`` time, a few ``n x n`` arrays of
    memory) and the ``M + 1`` leading eigenvectors of a sparse matrix; the search costs what
    KDR costs on ``M`` predictors. Embedding ``m`` new rows costs ``O(m n p)``. There is no
    eigenvalue per direction and no linear direction in the predictors, so the dimension
    rule is the cross-validation of the embedding (``"cv"``); ``bootstrap()`` compares the
    embeddings of the training rows.

    References
    ----------
    :cite:t:`nilsson2007`; :cite:t:`fukumizu2009`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> t = rng.uniform(1.5 * np.pi, 4.5 * np.pi, 200)          # a Swiss roll
    >>> X = np.column_stack([t * np.cos(t), rng.uniform(0, 10, 200), t * np.sin(t)])
    >>> y = np.sin(t) + 0.1 * rng.standard_normal(200)          # y follows the roll
    >>> fit = sdr.MKDR(d=1, random_state=0).fit(X, y)
    >>> fit.transform().shape
    (200, 1)
    """

    method = "mkdr"
    capabilities = Capabilities(linear_directions=False, eigenvalues=False, nested_directions=False)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **KDR._parameter_constraints,
        "d_rule": [Options(("cv",))],
        "n_neighbors": [Interval(int, 1, None)],
        "n_eigenvectors": [Interval(int, 1, None)],
        "heat_width": [Interval(float, 0, None, closed="neither"), None],
        "standardize": ["boolean"],
    }
    results_class = MKDRResults

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        n_neighbors: int = 10,
        n_eigenvectors: int = 10,
        heat_width: float | None = None,
        standardize: bool = True,
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
        o = self.options
        n = X.shape[0]
        if o["d"] is not None and o["d"] > o["n_eigenvectors"]:
            raise ValueError(
                f"The 'd' option of mkdr must be at most n_eigenvectors = "
                f"{o['n_eigenvectors']}; got {o['d']}."
            )
        if n <= o["n_neighbors"] + 1 or n <= o["n_eigenvectors"] + 2:
            raise ValueError(
                f"mkdr needs more rows than n_neighbors + 1 and n_eigenvectors + 2; got "
                f"n = {n}, n_neighbors = {o['n_neighbors']}, n_eigenvectors = "
                f"{o['n_eigenvectors']}. Lower them or add rows."
            )
        if np.all(np.ptp(X, axis=0) == 0):
            raise ValueError("Every predictor is constant; mkdr needs predictors that vary.")

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        o = self.options
        X, Y = repeat_rows(np.asarray(X, dtype=float), Y, weights, self.method)
        n, p = X.shape
        self._check_data(X, Y, False)
        x_mean = X.mean(axis=0)
        x_scale = X.std(axis=0) if o["standardize"] else np.ones(p)
        x_scale = np.where(x_scale > 0, x_scale, 1.0)
        # the n x n distances, the heat weights and the dense eigenproblem: about 4 n x n
        # float arrays at once
        check_memory(
            self.method,
            4.5 * 8.0 * n * n,
            f"its n x n neighbourhood graph at n = {n:,}",
            "fit on a random subsample of the rows",
        )
        eigenmap = Eigenmap(
            (X - x_mean) / x_scale, o["n_neighbors"], o["n_eigenvectors"], o["heat_width"]
        )
        if eigenmap.n_graph_components > 1:
            warnings.warn(
                f"mkdr: the neighbourhood graph has {eigenmap.n_graph_components} connected "
                "components, so the leading eigenmap coordinates only tell the pieces apart; "
                "raise n_neighbors.",
                SDRWarning,
                stacklevel=3,
            )
        if np.any(eigenmap.eigenvalues <= 0):
            raise ValueError(
                f"mkdr: {int(np.sum(eigenmap.eigenvalues <= 0))} of the n_eigenvectors = "
                f"{o['n_eigenvectors']} leading eigenvalues of the graph are not positive, so "
                "new rows cannot be embedded; lower n_eigenvectors."
            )
        names = [f"phi{k + 1}" for k in range(o["n_eigenvectors"])]
        search = self._search(eigenmap.coordinates, Y, random_state, names=names)
        best = search["best"]
        extras = self._search_extras(search)
        extras.update(
            embedding_directions=canonical_basis(search["inv_sqrt"] @ best["W"].T),
            embedding_center=search["mean"],
            x_mean=x_mean,
            x_scale=x_scale,
            standardize=o["standardize"],
            n_neighbors=o["n_neighbors"],
            heat_width=eigenmap.heat_width,
            n_graph_components=eigenmap.n_graph_components,
            eigenmap_train=eigenmap.train,
            eigenmap_radii2=eigenmap.radii2,
            eigenmap_eigenvalues=eigenmap.eigenvalues,
            eigenmap_coordinates=eigenmap.coordinates,
        )
        extras["method_details"] = (
            f"Laplacian eigenmap of {o['n_eigenvectors']} coordinates, " + extras["method_details"]
        )
        return EstimatorOutput(basis=None, d=o["d"], criterion=best["value"], extras=extras)

    @staticmethod
    def eigenmap_of(output: EstimatorOutput) -> Eigenmap:
        """The fitted :class:`Eigenmap`, rebuilt from the arrays the fit keeps."""
        ex = output.extras
        emap = Eigenmap.__new__(Eigenmap)
        emap.train = ex["eigenmap_train"]
        emap.n_neighbors = int(ex["n_neighbors"])
        emap.radii2 = ex["eigenmap_radii2"]
        emap.heat_width = float(ex["heat_width"])
        emap.eigenvalues = ex["eigenmap_eigenvalues"]
        emap.coordinates = ex["eigenmap_coordinates"]
        emap.n_graph_components = int(ex["n_graph_components"])
        return emap

    def transform_arrays(self, output: EstimatorOutput, X: np.ndarray, d: int) -> np.ndarray:
        """Reduced predictors ``(f(x) − f̄) B`` of rows ``X``: ``f`` the eigenmap coordinates
        (the Nyström extension for new rows), ``B`` the embedding directions."""
        ex = output.extras
        basis = ex["embedding_directions"]
        if d > basis.shape[1]:
            raise ValueError(f"mkdr computed {basis.shape[1]} directions; got d = {d}.")
        Xs = (np.asarray(X, dtype=float) - ex["x_mean"]) / ex["x_scale"]
        coordinates = self.eigenmap_of(output).extend(Xs)
        return (coordinates - ex["embedding_center"]) @ basis[:, :d]


@formula_doc(MKDR)
def mkdr(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
    d_rule: str = "cv",
    d_max: int | None = None,
    n_neighbors: int = 10,
    n_eigenvectors: int = 10,
    heat_width: float | None = None,
    standardize: bool = True,
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
) -> MKDRResults:
    """Manifold kernel dimension reduction from a formula; see :class:`MKDR` for the options.

    New rows (``transform(newdata)``) are embedded by the Nyström extension of the
    Laplacian eigenmap (see :class:`MKDR`).

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    MKDRResults

    See Also
    --------
    MKDR : The estimator, for arrays (``MKDR(...).fit(X, y)``).
    sdrstats.spca.mkdr.MKDRResults : What it returns.
    spca, kspca, bpca, kdr, mkdr : The supervised-PCA and kernel family.

    References
    ----------
    :cite:t:`nilsson2007`; :cite:t:`fukumizu2009`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.mkdr("lbm ~ ht + wt + ssf", ais, d=1, n_anneal=2, max_iter=5)
    >>> fit.transform(ais.head(3)).shape
    (3, 1)
    >>> fit.directions
    Traceback (most recent call last):
    ...
    ValueError: mkdr has no linear directions in the predictors: ...
    """
    return fit_formula(MKDR, locals(), "mkdr")


__all__ = ["MKDR", "MKDRResults", "Eigenmap", "mkdr"]
