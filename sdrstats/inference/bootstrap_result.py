"""The result of a bootstrap of a fitted subspace: distances, per-direction stability, summary."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.tables import Block, Summary, dir_labels

#: Quantiles shown by ``BootstrapResult.summary``.
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


class BootstrapResult:
    """Bootstrap distribution of a fitted subspace.

    Returned by :meth:`sdrstats.Results.bootstrap`; users do not build it. Every parameter
    is kept as the attribute of the same name.

    Parameters
    ----------
    distances : ndarray of shape (B,)
        Distance of each replicate's ``d``-dimensional subspace to the full-sample one
        (``NaN`` for a failed replicate).
    cosines : ndarray of shape (B, d)
        ``|cos|`` of each full-sample direction with its Procrustes match in the replicate.
    directions : ndarray of shape (B, p, d)
        Replicate bases (unit columns).
    reference : pandas.DataFrame
        The full-sample directions compared with.
    distance : str
        Name of the distance (see :func:`sdrstats.subspace_distance`).
    method : str
        The SDR method resampled.
    random_state : object
        The seed used, recorded so the run can be repeated.
    engine : str
        Whether the replicates were weighted slice moments or refits on resampled rows.
    errors : list of str
        Messages of failed replicates.
    d_rule : str, default "given"
        How the compared dimension was chosen (see :func:`bootstrap`), printed in the summary.
    kind : {"directions", "embedding"}, default "directions"
        ``"embedding"`` for a fit without linear directions (kernel SPCA): ``directions``
        then holds each replicate's ``n × d`` embedding of the training rows, ``reference``
        the full fit's, and ``cosines`` the canonical correlations of the two embeddings.
    scheme : {"multinomial", "poisson", "centered"}, default "multinomial"
        How the replicates weighted the rows (see :func:`sdrstats.inference.bootstrap`).
    scheme_reason : str, default "given"
        Why that scheme was used (given, or the method's default and why), printed in the
        summary.

    Attributes
    ----------
    stability : pandas.Series
        Mean of ``cosines`` per direction (Dir1..Dird): near 1 for a stable direction.
    d, B, n_failed : int
        Dimension compared, number of replicates and how many failed.

    See Also
    --------
    Results.bootstrap : The call that returns it.
    sdrstats.plotting.plot_bootstrap : Its plot.

    References
    ----------
    :cite:t:`ye2003`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
    >>> boot = fit.bootstrap(B=20, random_state=0, progress=False)
    >>> boot  # doctest: +ELLIPSIS
    <BootstrapResult: sir, d = 2, B = 20, mean projection distance = ...>
    >>> boot.stability.round(1).tolist()
    [1.0, 0.8]
    """

    def __init__(
        self,
        *,
        distances: np.ndarray,
        cosines: np.ndarray,
        directions: np.ndarray,
        reference: pd.DataFrame,
        distance: str,
        method: str,
        random_state: Any,
        engine: str,
        errors: list[str],
        d_rule: str = "given",
        kind: str = "directions",
        scheme: str = "multinomial",
        scheme_reason: str = "given",
    ) -> None:
        self.kind = kind
        self.scheme = scheme
        self.scheme_reason = scheme_reason
        self.distances = distances
        self.cosines = cosines
        self.directions = directions
        self.reference = reference
        self.distance = distance
        self.method = method
        self.random_state = random_state
        self.engine = engine
        self.errors = errors
        self.d_rule = d_rule
        self.d = reference.shape[1]
        self.B = distances.size
        self.n_failed = int(np.sum(np.isnan(distances)))

    #: Results saved before the scheme was recorded were multinomial.
    scheme = "multinomial"
    scheme_reason = "given"

    @property
    def mean(self) -> float:
        """Mean distance over the successful replicates."""
        return float(np.nanmean(self.distances))

    def quantiles(self, q: Any = QUANTILES) -> pd.Series:
        """Quantiles of the replicate distances.

        Parameters
        ----------
        q : sequence of float, default (0.05, 0.25, 0.5, 0.75, 0.95)
            Probabilities in [0, 1].

        Returns
        -------
        pandas.Series
            Indexed ``"5%"``, ``"50%"``...

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> boot = fit.bootstrap(B=20, random_state=0, progress=False)
        >>> boot.quantiles([0.5, 0.9]).index.tolist()
        ['50%', '90%']
        """
        q = np.atleast_1d(np.asarray(q, dtype=float))
        values = np.nanquantile(self.distances, q)
        return pd.Series(values, index=[f"{100 * v:g}%" for v in q], name=self.distance)

    @property
    def _stat(self) -> str:
        return "canonical r" if self.kind == "embedding" else "|cos|"

    @property
    def stability(self) -> pd.Series:
        return pd.Series(
            np.nanmean(self.cosines, axis=0), index=dir_labels(self.d), name=f"mean {self._stat}"
        )

    def summary(self) -> Summary:
        """Distance quantiles and per-direction stability (text, HTML, LaTeX).

        Returns
        -------
        Summary
            Text by ``str()``, HTML in a notebook, LaTeX by ``as_latex()``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> boot = fit.bootstrap(B=20, random_state=0, progress=False)
        >>> print(boot.summary())  # doctest: +ELLIPSIS
        Dimension compared:
        d = 2, the fit's d (given).
        <BLANKLINE>
        Bootstrap of the 2D sir subspace: distance to the full-sample estimate:
        ...
        """
        dist = (
            pd.concat(
                [
                    pd.Series({"mean": self.mean, "sd": float(np.nanstd(self.distances, ddof=1))}),
                    self.quantiles(),
                ]
            )
            .to_frame(self.distance)
            .T
        )
        stab = pd.DataFrame(
            {
                f"mean {self._stat}": self.stability,
                f"5% {self._stat}": np.nanquantile(self.cosines, 0.05, axis=0),
            }
        ).T
        kind = {
            "poisson": "Poisson bootstrap replicates",
            "centered": "centred bootstrap replicates",
        }.get(self.scheme, "replicates")
        foot = f"{self.B} {kind} ({self.engine}), random_state = {self.random_state!r}" + (
            f"; {self.n_failed} failed: {self.errors[0]}" if self.n_failed else "."
        )
        foot += f"\nScheme: {self.scheme} ({self.scheme_reason})."
        whole = (
            " This is the whole predictor space, so every distance is 0."
            if self.d == self.reference.shape[0]
            else ""
        )
        if self.kind == "embedding":
            what = "embedding of the training rows"
            how = "Dimension stability (canonical correlations with the full-sample embedding)"
        else:
            what = "subspace"
            how = "Direction stability (|cos| with the Procrustes-matched direction)"
        return Summary(
            [
                Block("Dimension compared", text=f"d = {self.d}, {self.d_rule}.{whole}"),
                Block(
                    f"Bootstrap of the {self.d}D {self.method} {what}: distance to the "
                    "full-sample estimate",
                    table=dist,
                ),
                Block(how, table=stab),
                Block("", text=foot),
            ]
        )

    def __str__(self) -> str:
        return str(self.summary())

    def __repr__(self) -> str:
        return (
            f"<BootstrapResult: {self.method}, d = {self.d}, B = {self.B}, "
            f"mean {self.distance} distance = {self.mean:.4g}>"
        )

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    def plot(self, *, ax: Any = None, axes: Any = None, figsize: Any = None) -> Any:
        """Histogram of the distances and per-direction stability.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            One Axes: draw the histogram of the distances only.
        axes : sequence of two matplotlib Axes, optional
            Where to draw the histogram and the box plots; default a new figure of both.
        figsize : tuple of float, optional
            Size of a new figure in inches; default a page width (7 x 3).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> fig = fit.bootstrap(B=20, random_state=0, progress=False).plot()
        """
        from ..plotting.inference import plot_bootstrap

        return plot_bootstrap(self, ax=ax, axes=axes, figsize=figsize)


__all__ = ["BootstrapResult", "QUANTILES"]
