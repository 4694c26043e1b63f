"""Results of the online SIR: a snapshot of the stream with the results contract."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.tables import Block
from ..inference.ratio import eigenvalue_ratio
from ..stats.distances import subspace_distance
from .lasso_sir import LassoSIRResults


class OnlineSIRResults(LassoSIRResults):
    """A snapshot of an :class:`OnlineSIR` stream, with the results contract.

    A stream keeps no rows, so ``transform()`` needs ``newdata`` and the bootstrap is not
    available; both work for ``OnlineSIR(...).fit(X, y)``, whose rows are in memory (the
    bootstrap refits the whole stream on each resample).

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; :meth:`OnlineSIR.results` builds it.

    See Also
    --------
    OnlineSIR : The stream whose snapshot it is.
    online_sir : The formula function over a stream.

    References
    ----------
    :cite:t:`cheng2020`; :cite:t:`cai2020`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((1000, 5))
    >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
    >>> snapshot = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y).results()
    >>> snapshot.n, snapshot.directions.shape
    (1000, (5, 1))
    """

    @property
    def n(self) -> int:
        return int(self.extras["n_seen"])

    def _penalty_note(self, j: int) -> str:
        return ""

    def _method_line(self) -> str:
        o = self.options
        kind = "online sparse SIR (truncated gradient)" if o["sparse"] else "O-SIR"
        return (
            f"{kind} with the {o['eigen']} eigen-tracker, {self.extras['nslices']} slices, "
            f"n = {self.n} rows seen, p = {self.p}, {self.output.eigenvalues.size} "
            "directions tracked."
        )

    def _eigen_table(self, k: int) -> pd.DataFrame | None:
        ev = np.asarray(self.output.eigenvalues[:k], dtype=float)
        return pd.DataFrame({"Eigenvalues": ev}, index=[f"Dir{j + 1}" for j in range(k)]).T

    def _summary_blocks(self) -> list:
        blocks = super()._summary_blocks()
        if not self.options["sparse"]:
            blocks = [b for b in blocks if b.title != "Selected predictors"]
        cuts = self.extras.get("cut_points")
        if cuts is not None:
            text = " ".join(f"{c:.4g}" for c in cuts) + (
                "  (values beyond the outer cut points fall in the end slices)"
            )
            blocks.insert(3, Block("Cut points", text=text))
        return blocks

    def plot(self, kind: str = "stream", **options: Any) -> Any:
        """Plots; by default the stream's tracked eigenvalues and how far each estimate moved.

        Parameters
        ----------
        kind : str, default "stream"
            ``"stream"``: two panels against the rows seen, the tracked eigenvalues and the
            projection distance between successive recorded estimates of the subspace.
            Other kinds as :meth:`sdrstats.Results.plot` (they draw rows, so only a fit made
            in memory by ``OnlineSIR(...).fit(X, y)`` has them).
        **options
            Passed to the plot (``axes``, ``figsize``, ...).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((2000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(2000)
        >>> stream = sdr.OnlineSIR(d=1, init_size=200, block_size=100)
        >>> for start in range(0, 2000, 400):
        ...     _ = stream.partial_fit(X[start:start + 400], y[start:start + 400])
        >>> fig = stream.results().plot()
        """
        if kind != "stream":
            if not self._has_rows:
                raise ValueError(
                    f"plot(kind={kind!r}) draws the rows, which a stream does not keep; "
                    "kind='stream' plots what the stream recorded."
                )
            return super().plot(kind=kind, **options)
        from ..plotting.traces import plot_stream

        eigenvalues, steps = self._stream_trace()
        return plot_stream(
            eigenvalues,
            steps,
            distance="projection",
            title=f"{self.estimator.label}: the stream",
            **options,
        )

    def _stream_trace(self) -> tuple[pd.DataFrame, pd.Series]:
        """The recorded eigenvalues and the projection distance of each estimate to the last."""
        ex = self.extras
        index = pd.Index(np.asarray(ex.get("trace_n_seen", []), dtype=np.int64), name="n_seen")
        values = np.asarray(ex.get("trace_eigenvalues", np.empty((0, self.d))), dtype=float)
        bases = np.asarray(ex.get("trace_bases", np.empty((0, self.p, self.d))), dtype=float)
        eigenvalues = pd.DataFrame(
            values.reshape(len(index), -1),
            index=index,
            columns=[f"lambda{j + 1}" for j in range(values.reshape(len(index), -1).shape[1])],
        )
        steps = [np.nan] + [
            subspace_distance(bases[t - 1], bases[t], "projection") for t in range(1, len(bases))
        ]
        return eigenvalues, pd.Series(steps[: len(index)], index=index, name="projection_distance")

    @property
    def _has_rows(self) -> bool:
        return self.spec.X.shape[0] > 0

    def _dimension_rules(self) -> dict:
        # every rule but the eigenvalue ratio refits or permutes the rows; a stream keeps none
        rules = super()._dimension_rules() if self._has_rows else {}
        tracked = int(self.output.eigenvalues.size)

        def ratio(d_max: int | None = None, **kw: Any) -> Any:
            # at most the tracked directions: the others have no direction to report
            limit = tracked if d_max is None else d_max
            return eigenvalue_ratio(self, d_max=min(limit, tracked), **kw)

        rules["ratio"] = ratio
        return rules

    def transform(self, newdata: Any = None, d: int | None = None) -> pd.DataFrame:
        """Reduced predictors of ``newdata`` (a stream keeps no rows, so it is needed).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows to reduce; may be omitted only for a fit made in memory by
            ``OnlineSIR(...).fit(X, y)``.
        d : int, optional
            Number of directions; default the fit's ``d``.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y)
        >>> model.results().transform(X[:3]).shape
        (3, 1)
        """
        if newdata is None and not self._has_rows:
            raise ValueError("An online fit keeps no rows; pass newdata to transform.")
        return super().transform(newdata, d)

    def bootstrap(self, *args: Any, **kwargs: Any) -> Any:
        """Bootstrap of a fit made in memory; a stream keeps no rows and raises.

        Parameters
        ----------
        *args, **kwargs
            As :meth:`sdrstats.Results.bootstrap`.

        Returns
        -------
        BootstrapResult
            For a fit made in memory by ``OnlineSIR(...).fit(X, y)``; a stream raises ``ValueError``.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y)
        >>> model.results().bootstrap(B=10)
        Traceback (most recent call last):
        ...
        ValueError: bootstrap is not available for a stream: ...
        """
        if self._has_rows:  # fitted by OnlineSIR(...).fit(X, y): the rows are in memory
            return super().bootstrap(*args, **kwargs)
        raise ValueError(
            "bootstrap is not available for a stream: it keeps only its sufficient statistics. "
            "Fit the rows in memory with OnlineSIR(...).fit(X, y), sdr.lasso_sir or sdr.sir."
        )

    def conditional_density(self, *args: Any, **kwargs: Any) -> Any:
        """Conditional density of a fit made in memory; a stream keeps no rows and raises.

        Parameters
        ----------
        *args, **kwargs
            As :meth:`sdrstats.Results.conditional_density`.

        Returns
        -------
        ConditionalDensity
            For a fit made in memory by ``OnlineSIR(...).fit(X, y)``; a stream raises ``ValueError``.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y)
        >>> model.results().conditional_density()
        Traceback (most recent call last):
        ...
        ValueError: conditional_density is not available for a stream: ...
        """
        if self._has_rows:
            return super().conditional_density(*args, **kwargs)
        raise ValueError(
            "conditional_density is not available for a stream: it keeps only its sufficient "
            "statistics, no rows to fit a density on. Fit one on rows you hold, through the "
            "stream's directions: reduced = fit.transform(rows); "
            "sdr.lscde('y ~ .', reduced.assign(y=rows['y']))."
        )


__all__ = ["OnlineSIRResults"]
