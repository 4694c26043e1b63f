"""Presentation layer of fitted results: R ``summary.dr``-style blocks, text, HTML, LaTeX."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.tables import Block, Summary, dir_labels


def ols_r2(
    X: np.ndarray, y: np.ndarray, basis: np.ndarray, case_weights: np.ndarray | None = None
) -> np.ndarray:
    """R^2(OLS|dr): squared multiple correlation of the OLS fit with the first k directions.

    ``y`` is one response column; returns one value per column of ``basis`` (cumulative).
    With R case weights the OLS fit is R's: ``√w (y − ȳ)`` projected on the centred ``√w x``.
    """
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    if case_weights is None:
        coef, *_ = np.linalg.lstsq(Xc, yc, rcond=None)
        fitted = Xc @ coef
    else:
        sw = np.sqrt(case_weights)
        A = X * sw[:, None]
        qa, _ = np.linalg.qr(A - A.mean(axis=0))
        fitted = qa @ (qa.T @ (sw * yc))
    scale = fitted.std(ddof=1)
    if scale == 0:
        return np.full(basis.shape[1], np.nan)
    q, _ = np.linalg.qr(Xc @ basis)
    z = (fitted - fitted.mean()) / scale / np.sqrt(len(fitted) - 1)
    return np.cumsum((q.T @ z) ** 2)


def ols_r2_from_moments(
    cov: np.ndarray, cov_xy: np.ndarray, basis: np.ndarray, var_fitted: float | None = None
) -> np.ndarray:
    """R²(OLS|dr) from moments: squared correlation of the OLS fit with ``span(X B_k)``.

    ``R²_k = hᵀB_k (B_kᵀ Σ B_k)⁻¹ B_kᵀ h / v`` with ``Σ = cov(x)``, ``h`` the covariance of
    ``x`` with the OLS fitted values and ``v`` their variance, for ``k = 1..K``: the number
    :func:`ols_r2` computes from rows. Without case weights ``h = cov(x, y)`` and ``v = hᵀ
    Σ⁻¹ h`` (the default); R's case-weighted fit gives its own ``h`` and ``v``.

    Parameters
    ----------
    cov : ndarray of shape (p, p)
        Covariance of the predictors.
    cov_xy : ndarray of shape (p,)
        ``h``: covariance of the predictors with the fitted values.
    basis : ndarray of shape (p, K)
        Directions.
    var_fitted : float, optional
        ``v``: variance of the fitted values.

    Returns
    -------
    ndarray of shape (K,)

    Examples
    --------
    >>> ols_r2_from_moments(np.eye(2), np.array([1.0, 0.0]), np.eye(2)).tolist()
    [1.0, 1.0]
    """
    # pseudo-inverses, as the rows' least-squares fit: a constant or collinear predictor
    # (which a method without whitening, SPCA, accepts) leaves the fit and R² defined
    if var_fitted is None:
        var_fitted = float(cov_xy @ np.linalg.pinv(cov, rcond=1e-12, hermitian=True) @ cov_xy)
    out = np.full(basis.shape[1], np.nan)
    if not var_fitted > 0 or not np.isfinite(var_fitted):
        return out  # the response is uncorrelated with every predictor (or constant)
    for k in range(1, basis.shape[1] + 1):
        B = basis[:, :k]
        proj = B.T @ cov_xy
        inner = np.linalg.pinv(B.T @ cov @ B, rcond=1e-12, hermitian=True)
        out[k - 1] = float(proj @ inner @ proj) / var_fitted
    return out


class SummaryMixin:
    """Summary blocks and display shared by every results class (mixed into ``Results``)."""

    estimator: Any
    spec: Any
    output: Any
    random_state: Any
    dimension_line: str

    #: The heading of the directions' table: what the method's basis estimates.
    basis_title: ClassVar[str] = "Estimated Basis Vectors for Central Subspace"

    def _eigen_label(self) -> str:
        """The label of the eigenvalues' row: what the method's values are."""
        return "Eigenvalues"

    def _reduced_name(self) -> str:
        """What ``R^2(OLS|...)`` regresses on: R's "dr" (the estimated directions)."""
        return "dr"

    def _eigen_note(self) -> str | None:
        """A line under the eigenvalues saying what they mean, when the label cannot."""
        return None

    def _numdir(self) -> int:
        """How many directions the summary shows: ``d`` (the moment methods show ``d_max``)."""
        numdir = self._shown_directions()
        ev = self.output.eigenvalues
        if ev is not None:
            numdir = min(numdir, int(np.sum(np.abs(ev) > 1e-15)))
        basis = self.output.basis
        return max(1, min(numdir, basis.shape[1] if basis is not None else numdir))

    def _shown_directions(self) -> int:
        return int(self.d)

    def _method_line(self) -> str:
        sizes = self.slice_sizes
        w = self.spec.case_weights
        extras = self.output.extras
        weighted = (w is not None and np.ptp(w) > 0) or extras.get("weights_vary", False)
        end = (", using weights" if weighted else "") + self._chunks_note()
        if sizes is not None:
            return f"{self.estimator.label} with {len(sizes)} slices, n = {self.n}{end}."
        return f"{self.estimator.label}, n = {self.n}{end}."

    def _chunks_note(self) -> str:
        """``", from k chunks"`` for a fit on chunked or Dask data, else nothing."""
        n_chunks = self.output.extras.get("n_chunks")
        if self.spec.keeps_rows or n_chunks is None:
            return ""
        return f", from {n_chunks} chunks"

    def _eigen_table(self, k: int) -> pd.DataFrame | None:
        ev = self.output.eigenvalues
        if ev is None:
            return None
        rows = {self._eigen_label(): np.asarray(ev[:k], dtype=float)}
        moments = self.output.extras.get("ols_moments")
        if not self.spec.keeps_rows:
            if moments is not None and self.output.basis is not None:
                rows[f"R^2(OLS|{self._reduced_name()})"] = ols_r2_from_moments(
                    moments["cov"],
                    moments["cov_xy"],
                    self.output.basis[:, :k],
                    moments.get("var_fitted"),
                )
        elif not self.spec.categorical and self.output.basis is not None:
            Y = self.spec.Y.reshape(self.n, -1)
            for j in range(Y.shape[1]):
                on = self._reduced_name()
                label = (
                    f"R^2(OLS|{on})"
                    if Y.shape[1] == 1
                    else f"R^2(OLS for {self.spec.y_names[j]}|{on})"
                )
                rows[label] = ols_r2(
                    self.spec.X,
                    Y[:, j],
                    self.output.basis[:, :k],
                    self.spec.case_weights,
                )
        return pd.DataFrame(rows, index=dir_labels(k)).T

    def _summary_blocks(self) -> list[Block]:
        k = self._numdir()
        blocks = [Block("Call", text=self.call), Block("Method", text=self._method_line())]
        if self.slice_sizes is not None:
            blocks.append(Block("Slice Sizes", text=" ".join(map(str, self.slice_sizes)) + " "))
        if self.output.basis is not None:
            blocks.append(Block(self.basis_title, table=self.directions_for(k)))
        eig = self._eigen_table(k)
        if eig is not None:
            blocks.append(Block("", table=eig))
            note = self._eigen_note()
            if note:
                blocks.append(Block("", text=note))
        if "asymptotic" in self._dimension_rules():
            test = self.test_dimension("asymptotic")
            blocks.append(Block(test.title, table=test.display_table()))
            left_out = test.extras.get("left_out")  # a column too costly to print unasked
            if left_out:
                blocks.append(Block("", text=left_out))
        return blocks

    def summary(self) -> Summary:
        """R ``summary.dr``-style summary (text by ``str()``, HTML, LaTeX).

        Returns
        -------
        Summary
            Text by ``str()``, HTML in a notebook, LaTeX by ``as_latex()``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> print(fit.summary())  # doctest: +ELLIPSIS
        Call:
        sir('lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)', data, nslices=8)
        <BLANKLINE>
        Method:
        sir with 8 slices, n = 202.
        ...
        """
        blocks = self._summary_blocks()
        blocks.append(Block("Dimension", text=self._dimension_text()))
        blocks.append(Block("Random state", text=self._seed_line()))
        notes = getattr(self.spec, "notes", ())  # what the formula front did to the data
        if notes:
            blocks.append(Block("Note", text="\n".join(notes)))
        return Summary(blocks)

    def _dimension_text(self) -> str:
        """The dimension line, and which p-value column chose ``d`` when the rule's table
        has several (SAVE's and pHd's normal-theory, general-theory and independence tests)."""
        choice = getattr(self, "d_choice", None)
        note = choice.columns_note() if choice is not None else None
        return self.dimension_line + (f"\n{note}" if note else "")

    def _seed_line(self) -> str:
        """The fit's seed, and how to repeat the run when it was drawn."""
        seed = self.random_state
        given = self.estimator.options.get("random_state")
        if given is None:
            return (
                f"random_state = {seed!r} (drawn for this fit; give random_state={seed!r} to "
                "repeat it)"
            )
        if isinstance(given, (np.random.Generator, np.random.RandomState)):
            return f"random_state = {seed!r} (drawn from the generator given)"
        return f"random_state = {seed!r}"

    def __str__(self) -> str:
        return str(self.summary())

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.method}, n = {self.n}, p = {self.p}, d = {self.d}>"

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()


__all__ = ["SummaryMixin", "ols_r2", "ols_r2_from_moments"]
