"""Nonparametric bootstrap of a fitted subspace (``Results.bootstrap``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._parallel import resolve_random_state
from .._validation import check_choice, check_int
from ..distances import DISTANCES
from ..summary import Block, Summary, dir_labels
from ._reference import batched_measures, default_dimension, reference_basis
from ._replicates import bootstrap_replicates

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

    Attributes
    ----------
    stability : pandas.Series
        Mean of ``cosines`` per direction (Dir1..Dird): near 1 for a stable direction.
    d, B, n_failed : int
        Dimension compared, number of replicates and how many failed.

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
    ) -> None:
        self.kind = kind
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

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> boot = fit.bootstrap(B=20, random_state=0, progress=False)
        >>> print(boot.summary())  # doctest: +ELLIPSIS
        Dimension compared:
        d = 2, the fit's d (given when fitting).
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
        foot = f"{self.B} replicates ({self.engine}), random_state = {self.random_state!r}" + (
            f"; {self.n_failed} failed: {self.errors[0]}" if self.n_failed else "."
        )
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

    def plot(self, ax: Any = None) -> Any:
        """Histogram of the distances and per-direction stability.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            One Axes draws the histogram only; default a new figure with both panels.

        Returns
        -------
        matplotlib Axes or array of Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
        >>> axes = fit.bootstrap(B=20, random_state=0, progress=False).plot()
        """
        from ..plotting_inference import plot_bootstrap

        return plot_bootstrap(self, ax=ax)


def bootstrap(
    results: Any,
    B: int = 200,
    d: int | None = None,
    distance: str = "projection",
    random_state: Any = None,
    n_jobs: int | None = 1,
    progress: bool = True,
) -> BootstrapResult:
    """Nonparametric bootstrap of a fitted subspace.

    Parameters
    ----------
    results : Results
        A fit; one without linear directions (kernel SPCA) is compared through its
        embedding of the training rows (:mod:`sdrstats.inference.embedding`).
    B : int, default 200
        Number of bootstrap replicates.
    d : int, optional
        Dimension of the subspace compared. Default: the fit's ``d`` when it was given when
        fitting or chosen by the method (cross-validation); else, for a method with a
        large-sample dimension test (SIR, SAVE, pHd, IRE), the ``d`` that test chooses at
        level 0.05; else the fit's default ``d``. The summary prints which rule chose it
        (``BootstrapResult.d_rule``); see :func:`default_dimension`.
    distance : {"projection", "det", "trace_correlation"}
        Distance of each replicate subspace to the full-sample one (see
        :mod:`sdrstats.distances`; ``trace_correlation`` enters as ``1 - r``).
    random_state : int, SeedSequence, Generator or None
        Seed of the resampling; replicate ``b`` uses child ``b``.
    n_jobs : int, default 1
        joblib workers; results are identical for any ``n_jobs``.
    progress : bool, default True
        Progress bar when the loop runs over about 2 s.

    Returns
    -------
    BootstrapResult

    Notes
    -----
    SIR, SAVE and DR replicates are the weighted fits with multinomial counts as case
    weights on the full-sample slices, computed from per-observation slice statistics (one
    pass over the data, then p×p work per replicate); other methods are refitted on resampled
    rows with their own options and a seed per replicate.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=1)
    >>> boot = fit.bootstrap(B=50, random_state=0, progress=False)
    >>> bool(boot.stability["Dir1"] > 0.9)
    True
    """
    name = results.method
    random_state = resolve_random_state(random_state)  # recorded, so None is repeatable
    B = check_int(B, "B", "bootstrap", low=2)
    check_choice(distance, "distance", "bootstrap", sorted(DISTANCES))
    if results.output.basis is None:
        from .embedding import embedding_bootstrap

        d, d_rule = ((results.d, "the fit's d") if d is None
                     else (check_int(d, "d", "bootstrap", low=1), "given"))
        return embedding_bootstrap(results, B, d, distance, random_state, n_jobs, progress,
                                   d_rule=d_rule)
    if d is None:
        d, d_rule = default_dimension(results)
    else:
        d, d_rule = check_int(d, "d", "bootstrap", low=1, high=results.p), "given"
    reference, changes = reference_basis(results, d)
    reps = bootstrap_replicates(
        results,
        B,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        changes=changes,
        desc=f"bootstrap {name}",
    )
    p = results.p
    distances = np.full(B, np.nan)
    cosines = np.full((B, d), np.nan)
    directions = np.full((B, p, d), np.nan)
    if reps.n_failed == B:
        raise ValueError(
            f"Every bootstrap replicate of {name} failed; first error: {reps.errors[0]}"
        )
    good = np.array([b for b, basis in enumerate(reps.bases) if basis is not None])
    directions[good] = np.stack([reps.bases[b][:, :d] for b in good])
    distances[good], cosines[good] = batched_measures(reference, directions[good], distance)
    frame = pd.DataFrame(reference, index=results.x_names, columns=dir_labels(d))
    return BootstrapResult(
        distances=distances,
        cosines=cosines,
        directions=directions,
        reference=frame,
        distance=distance,
        method=name,
        random_state=random_state,
        engine=reps.engine,
        errors=reps.errors,
        d_rule=d_rule,
    )


__all__ = [
    "BootstrapResult",
    "bootstrap",
    "batched_measures",
    "default_dimension",
    "reference_basis",
    "QUANTILES",
]
