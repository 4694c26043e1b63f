"""Results of the online SIR: a frozen value made from a stream, with the results contract.

What a stream allows: the summary and ``transform(newdata)``; the dimension rules without rows
(Li's χ² test from the slice moments the stream keeps, the eigenvalue ratio); the bootstrap the
stream drew online (:mod:`sdrstats.online._moments`); the plot of its trace; the conditional
density on rows the user passes or on the stream's uniform sample
(:mod:`sdrstats.online._reservoir`).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from ..base.parallel import derived_stream
from ..base.tables import Block, dir_labels
from ..base.validation import check_choice, check_int, keywords_checked
from ..inference.bootstrap import batched_measures, default_dimension
from ..inference.bootstrap_result import BootstrapResult
from ..inference.dimension_test import sir_dimension_test, sir_test_unavailable
from ..inference.ratio import eigenvalue_ratio
from ..stats.distances import DISTANCES, subspace_distance
from ._moments import nonempty_slices, sir_from_sums
from .lasso_sir import LassoSIRResults


class OnlineSIRResults(LassoSIRResults):
    """The estimate of an :class:`OnlineSIR` stream, a frozen value with the results contract.

    :func:`online_sir` and :meth:`OnlineSIR.results` return one; it holds copies of what the
    stream had estimated when it was made, so it never changes afterwards. ``.stream`` is the
    stream it came from (None for ``OnlineSIR(...).fit(X, y)``), to continue it
    (``fit.stream.partial_fit(chunk)``), merge or save it; ``fit.stream.results()`` then
    gives a new result.

    A stream keeps no rows, and its result offers what its statistics allow:

    - ``transform(newdata)`` (``newdata`` is needed);
    - ``test_dimension("asymptotic")``: Li's (1991) χ² test of SIR (as R ``dr`` and
      ``sdr.sir``) from the slice moments the stream keeps; ``test_dimension("ratio")``: the
      eigenvalue-ratio rule on the tracked eigenvalues. The default ``d_rule="auto"`` is
      the test once the stream has seen ``2 p H`` rows, the ratio rule before (and without
      the moments), and says which;
    - ``bootstrap()``: the replicates of the Poisson bootstrap the stream drew as its rows
      arrived (``bootstrap_replicates=B`` when the stream starts);
    - ``plot()``: the tracked eigenvalues and the distance between successive estimates;
    - ``conditional_density()``: on the stream's uniform sample of rows
      (``reservoir_size``, default 2000) or on rows given as ``rows=``.

    A fit made in memory by ``OnlineSIR(...).fit(X, y)`` keeps its rows and has the whole
    contract of :class:`sdrstats.Results` (its bootstrap refits the stream on resamples).

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; :meth:`OnlineSIR.results` builds it.

    Attributes
    ----------
    stream : OnlineSIR or None
        The stream the result was made from (it may have moved on since).
    n_seen : int
        Rows the stream had used when the result was made (``n``).

    See Also
    --------
    OnlineSIR : The stream whose snapshot it is.
    online_sir : The formula function over a stream.

    References
    ----------
    :cite:t:`cheng2020`; :cite:t:`cai2020`; :cite:t:`li1991`; :cite:t:`hanley2006`;
    :cite:t:`vitter1985`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((1000, 5))
    >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
    >>> snapshot = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y).results()
    >>> snapshot.n, snapshot.directions.shape
    (1000, (5, 1))
    >>> _ = snapshot.stream.partial_fit(X[:500], y[:500])  # the stream moves on
    >>> snapshot.n, snapshot.stream.results().n           # the result does not
    (1000, 1500)
    """

    #: The stream the result was made from; None for a fit made in memory. (It shadows
    #: :meth:`sdrstats.Results.stream`, the seeds of derived random streams, which
    #: :func:`sdrstats.base.parallel.derived_stream` gives for ``random_state``.)
    stream: Any = None
    #: A copy of the stream's chunk reader: reads rows given to conditional_density.
    _reader: Any = None

    def _made_from(self, stream: Any) -> None:
        """Record the stream (for ``partial_fit``, ``merge``, ``save``) and a copy of how it
        reads rows."""
        self.stream = stream
        self._reader = copy.deepcopy(stream._reader)

    def __getstate__(self) -> dict[str, Any]:
        # a pickled or saved result keeps its numbers, not the stream it came from (a
        # mutable object with a file format of its own: fit.stream.save)
        return {k: v for k, v in self.__dict__.items() if k != "stream"}

    @property
    def n(self) -> int:
        return int(self.extras["n_seen"])

    @property
    def n_seen(self) -> int:
        """Rows the stream had used when this result was made."""
        return self.n

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
        if not self._has_rows:
            blocks.append(Block("Stream", text=self._stream_line()))
        return blocks

    def _stream_line(self) -> str:
        """What the stream kept for inference besides its estimate, as the summary says it."""
        moments, sample = self.extras.get("slice_moments"), self.extras.get("reservoir")
        replicates = 0 if moments is None else int(moments["keys"].shape[0])
        parts = [
            "SIR slice moments kept (test_dimension('asymptotic'))"
            if moments is not None
            else "no SIR slice moments (sir_moments=False)",
            f"{replicates} online bootstrap replicates"
            if replicates
            else "no bootstrap replicates (bootstrap_replicates=0)",
            f"a uniform sample of {sample['X'].shape[0]} rows for conditional_density()"
            if sample is not None and sample["X"].shape[0]
            else "no sample of rows (conditional_density(rows=...) needs rows)",
        ]
        return "; ".join(parts) + "."

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
        """The recorded eigenvalues and the projection distance between the ``d`` leading
        directions of successive estimates (NaN where one has a zero direction)."""
        ex = self.extras
        index = pd.Index(np.asarray(ex.get("trace_n_seen", []), dtype=np.int64), name="n_seen")
        values = np.asarray(ex.get("trace_eigenvalues", np.empty((0, self.d))), dtype=float)
        bases = np.asarray(ex.get("trace_bases", np.empty((0, self.p, self.d))), dtype=float)
        eigenvalues = pd.DataFrame(
            values.reshape(len(index), -1),
            index=index,
            columns=[f"lambda{j + 1}" for j in range(values.reshape(len(index), -1).shape[1])],
        )
        d = max(1, min(self.d, bases.shape[2] if bases.ndim == 3 else self.d))

        def step(a: np.ndarray, b: np.ndarray) -> float:
            # the result's d leading directions; a sparse stream can zero a whole direction
            # early on (no subspace of that dimension): no distance at that step
            try:
                return subspace_distance(a[:, :d], b[:, :d], "projection")
            except ValueError:
                return np.nan

        steps = [np.nan] + [step(bases[t - 1], bases[t]) for t in range(1, len(bases))]
        return eigenvalues, pd.Series(steps[: len(index)], index=index, name="projection_distance")

    @property
    def _has_rows(self) -> bool:
        return self.spec.X.shape[0] > 0

    def _dimension_rules(self) -> dict:
        # rules that refit or permute need the rows, which a stream does not keep
        rules = super()._dimension_rules() if self._has_rows else {}
        tracked = int(self.output.eigenvalues.size)

        def ratio(d_max: int | None = None, **kw: Any) -> Any:
            # at most the tracked directions: the others have no direction to report
            limit = tracked if d_max is None else d_max
            return eigenvalue_ratio(self, d_max=min(limit, tracked), **kw)

        rules["ratio"] = ratio
        if "slice_moments" in self.extras:
            rules["asymptotic"] = self._asymptotic_test
        return rules

    def _default_rule(self) -> tuple[str | None, str | None]:
        """``d_rule="auto"``: Li's χ² test from the slice moments once the stream has seen
        ``2 p H`` rows, else the eigenvalue-ratio rule, with the reason (see
        :class:`OnlineSIR`)."""
        rule = self.options.get("d_rule")
        if rule != "auto":
            return rule, None
        kept = self.extras.get("slice_moments")
        if kept is None:
            return "ratio", "the stream kept no slice moments for the test (sir_moments=False)"
        counts = kept["counts"][0]
        why = sir_test_unavailable(float(counts.sum()), self.p, nonempty_slices(counts))
        if why is None:
            (fit,) = self._sir()
            why = f"SIR of the slice moments failed ({fit})" if isinstance(fit, str) else None
        return ("ratio", why) if why else ("asymptotic", None)

    def test_dimension(self, rule: str | None = None, **options: Any) -> Any:
        """Choose the dimension by a rule; see :meth:`sdrstats.Results.test_dimension`.

        A stream offers ``"asymptotic"`` (Li's χ² test from its slice moments) and
        ``"ratio"``; a fit made in memory offers every rule.

        Parameters
        ----------
        rule : str, optional
            Default the rule the fit's ``d_rule`` picks (for ``"auto"``: the test once the
            stream has seen ``2 p H`` rows, else the ratio rule).
        **options
            Options of the rule (``d_max``, ``level``...).

        Returns
        -------
        DimensionTest

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.online_sir("lbm ~ ht + wt + ssf + rcc", ais, init_size=100, nslices=5)
        >>> fit.test_dimension("asymptotic").table.shape
        (4, 3)
        """
        if rule == "asymptotic" and not self._has_rows and "slice_moments" not in self.extras:
            raise ValueError(
                "The 'asymptotic' dimension test is not available for this stream: it kept no "
                "slice moments (sir_moments=False, or loaded from a file written before "
                "streams kept them). Start a stream with sir_moments=True, or use "
                "test_dimension('ratio')."
            )
        return super().test_dimension(rule, **options)

    def _sir(self, which: slice = slice(0, 1)) -> list:
        """SIR fits (basis, eigenvalues) of the kept slice moments: row 0 all the rows, rows
        ``1..B`` the bootstrap replicates."""
        kept = self.extras["slice_moments"]
        return sir_from_sums(kept["counts"][which], kept["sums"][which], kept["cross"][which])

    def _asymptotic_test(self, d_max: int | None = None, level: float = 0.05) -> Any:
        """Li's (1991) χ² test from the slice moments (R ``dr``'s, as ``sdr.sir``'s)."""
        (fit,) = self._sir()
        if isinstance(fit, str):
            raise ValueError(f"The asymptotic test of {self.method} is not available: {fit}")
        counts = self.extras["slice_moments"]["counts"][0]
        eigenvalues = fit[1]
        if d_max is None:
            # as SIR's: d_max rows (R's numdir, default 4), and no hypothesis about a
            # direction whose eigenvalue is zero to rounding
            most = self.options["d_max"] or 4
            rows = max(1, min(most, int(np.sum(eigenvalues > 1e-15))))
        else:
            rows = check_int(d_max, "d_max", "test_dimension('asymptotic')", low=1)
        return sir_dimension_test(
            eigenvalues,
            float(counts.sum()),
            self.p,
            nonempty_slices(counts),
            min(rows, self.p),
            level,
            self.method,
        )

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

    @keywords_checked
    def bootstrap(
        self,
        B: int | None = None,
        d: int | None = None,
        distance: str = "projection",
        random_state: Any = None,
        n_jobs: int = 1,
        progress: bool = True,
        scheme: str | None = None,
    ) -> BootstrapResult:
        """The online Poisson bootstrap the stream drew as its rows arrived.

        A stream keeps no rows to resample afterwards, so it resamples them as they arrive:
        with ``bootstrap_replicates=B`` (fixed when the stream starts), every row gets an
        independent Poisson(1) count in each replicate and each replicate keeps its weighted
        slice moments (:class:`OnlineSIR`, Notes). This reports those replicates: the SIR
        subspace of each replicate's moments, compared with SIR on all the stream's rows.
        A fit made in memory by ``OnlineSIR(...).fit(X, y)`` has the bootstrap of
        :meth:`sdrstats.Results.bootstrap` instead (it refits the stream on resamples).

        Parameters
        ----------
        B : int, optional
            The stream's ``bootstrap_replicates`` (the default); no other number is
            available.
        d : int, optional
            Dimension of the subspaces compared; default the fit's ``d``.
        distance : {"projection", "det", "trace_correlation"}, default "projection"
            How a replicate's subspace is compared with the one of all the rows.
        random_state : None
            The counts were drawn from the fit's ``"bootstrap"`` stream as the rows arrived;
            a stream cannot draw others now.
        n_jobs, progress : optional
            Accepted for the contract; the replicates are finished in one pass.
        scheme : {"poisson"}, optional
            The stream's only scheme.

        Returns
        -------
        BootstrapResult
            ``engine`` says the replicates were kept online; ``reference`` holds the SIR
            directions of all the stream's rows.

        Raises
        ------
        ValueError
            When the stream kept no replicates (``bootstrap_replicates=0``, the default), or
            for a ``B``, ``random_state`` or ``scheme`` it cannot honour.

        Notes
        -----
        The replicates are those of ``sdr.sir(formula, rows, cut_points=stream_cuts,
        random_state=seed).bootstrap(B, scheme="poisson")`` on the same rows (same counts,
        same slices; :mod:`sdrstats.inference.poisson`): they measure the sampling
        variability of the SIR subspace of the stream's slice moments, the subspace its
        recursion estimates. The truncated gradient is not run again per replicate, so the
        sparsity of the stream's own directions is not resampled.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((2000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(2000)
        >>> stream = sdr.OnlineSIR(d=1, init_size=200, bootstrap_replicates=50, random_state=0)
        >>> for start in range(0, 2000, 500):
        ...     _ = stream.partial_fit(X[start:start + 500], y[start:start + 500])
        >>> boot = stream.results().bootstrap()
        >>> boot.B, bool(boot.stability["Dir1"] > 0.99)
        (50, True)
        >>> sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y).results().bootstrap()
        Traceback (most recent call last):
        ...
        ValueError: This stream kept no bootstrap replicates: ...
        """
        if self._has_rows:  # fitted by OnlineSIR(...).fit(X, y): the rows are in memory
            return super().bootstrap(
                B=200 if B is None else B,
                d=d,
                distance=distance,
                random_state=random_state,
                n_jobs=n_jobs,
                progress=progress,
                scheme=scheme,
            )
        kept = self.extras.get("slice_moments")
        replicates = 0 if kept is None else int(kept["keys"].shape[0])
        if replicates == 0:
            raise ValueError(
                "This stream kept no bootstrap replicates: a stream keeps no rows to resample "
                "afterwards, so its (Poisson) bootstrap is drawn as the rows arrive, with a "
                "number of replicates fixed when it starts. Start the stream with "
                "bootstrap_replicates=B, e.g. sdr.online_sir(..., bootstrap_replicates=200) or "
                "sdr.OnlineSIR(..., bootstrap_replicates=200); it keeps B (p² + pH + H) numbers."
            )
        if B is not None and check_int(B, "B", "bootstrap", low=2) != replicates:
            raise ValueError(
                f"The 'B' option of bootstrap must be {replicates} for this stream: its "
                f"replicates were drawn as the rows arrived (bootstrap_replicates="
                f"{replicates}); got {B}. Start a stream with bootstrap_replicates={B} for "
                "another number."
            )
        if random_state is not None:
            raise ValueError(
                "The 'random_state' option of bootstrap is not available for a stream: its "
                "Poisson counts were drawn as the rows arrived, from the fit's 'bootstrap' "
                "stream (seeded by the stream's random_state). Start a stream with another "
                "random_state for other replicates."
            )
        if scheme not in (None, "poisson"):
            raise ValueError(
                "The 'scheme' option of bootstrap must be 'poisson' for a stream (the one it "
                f"drew online); got {scheme!r}."
            )
        check_choice(distance, "distance", "bootstrap", sorted(DISTANCES))
        d, d_rule = (
            default_dimension(self)
            if d is None
            else (check_int(d, "d", "bootstrap", low=1, high=self.p), "given")
        )
        fits = self._sir(slice(None))
        if isinstance(fits[0], str):
            raise ValueError(f"SIR of all the stream's rows is not available: {fits[0]}")
        reference = np.asarray(fits[0][0][:, :d])
        distances = np.full(replicates, np.nan)
        cosines = np.full((replicates, d), np.nan)
        directions = np.full((replicates, self.p, d), np.nan)
        good = [b for b, fit in enumerate(fits[1:]) if not isinstance(fit, str)]
        errors = [fit for fit in fits[1:] if isinstance(fit, str)][:5]
        if not good:
            raise ValueError(f"Every bootstrap replicate of {self.method} failed: {errors[0]}")
        directions[good] = np.stack([fits[1 + b][0][:, :d] for b in good])
        distances[good], cosines[good] = batched_measures(reference, directions[good], distance)
        return BootstrapResult(
            distances=distances,
            cosines=cosines,
            directions=directions,
            reference=pd.DataFrame(reference, index=self.x_names, columns=dir_labels(d)),
            distance=distance,
            method=self.method,
            random_state=self.stream_seed("bootstrap"),
            engine="Poisson bootstrap kept online: SIR of each replicate's weighted slice moments",
            errors=errors,
            d_rule=d_rule,
            scheme="poisson",
        )

    def stream_seed(self, kind: str) -> Any:
        """The seed of this fit's random stream for calls of kind ``kind`` (what
        :meth:`sdrstats.Results.stream` gives for other fits; ``stream`` is the stream here).

        Parameters
        ----------
        kind : str
            The call kind, e.g. ``"bootstrap"``.

        Returns
        -------
        list of int or SeedSequence

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((600, 3))
        >>> y = X[:, 0] + 0.3 * rng.standard_normal(600)
        >>> fit = sdr.OnlineSIR(d=1, init_size=200, random_state=4).partial_fit(X, y).results()
        >>> fit.stream_seed("bootstrap")[0]
        4
        """
        return derived_stream(self.random_state, kind)

    def conditional_density(
        self, estimator: str = "lscde", *, rows: Any = None, **options: Any
    ) -> Any:
        """Conditional density of the response given the reduced predictors.

        Fitted, as :meth:`sdrstats.Results.conditional_density`, on the reduced predictors
        of rows with their responses: ``rows`` when given, else the uniform sample of the
        stream's rows it kept (reservoir sampling, ``reservoir_size`` rows, default 2000,
        seeded by the fit's ``"reservoir"`` stream; the same sample whatever the chunks).

        Parameters
        ----------
        estimator : {"lscde", "eps_kde"}, default "lscde"
            As :meth:`sdrstats.Results.conditional_density`.
        rows : DataFrame or (X, y) pair, optional
            Rows to fit the density on, read as the stream reads a chunk: a DataFrame with
            the formula's columns (response included) for a stream fed with a formula, an
            ``(X, y)`` pair of arrays otherwise. Default the stream's sample.
        **options
            As :meth:`sdrstats.Results.conditional_density` (``d``, ``random_state``,
            ``model``...).

        Returns
        -------
        ConditionalDensity

        Raises
        ------
        ValueError
            When no ``rows`` are given and the stream kept no sample (``reservoir_size=0``,
            or loaded from a file written before streams kept one).

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> fit = sdr.OnlineSIR(d=1, init_size=200, reservoir_size=300).partial_fit(X, y).results()
        >>> dens = fit.conditional_density(random_state=0)
        >>> dens.mean(X[:2]).shape
        (2,)
        >>> on_rows = fit.conditional_density(rows=(X[:400], y[:400]), random_state=0)
        """
        if self._has_rows:
            if rows is not None:
                raise ValueError(
                    "The 'rows' option of conditional_density is for a stream; this fit holds "
                    "its rows (OnlineSIR(...).fit(X, y)) and fits the density on them."
                )
            return super().conditional_density(estimator, **options)
        return super(OnlineSIRResults, self._with_rows(rows)).conditional_density(
            estimator, **options
        )

    def _with_rows(self, rows: Any) -> OnlineSIRResults:
        """A copy of this result whose spec holds ``rows`` (or the stream's sample)."""
        if rows is None:
            kept = self.extras.get("reservoir")
            if kept is None or kept["X"].shape[0] == 0:
                raise ValueError(
                    "conditional_density needs rows with their responses: this stream kept no "
                    "sample of its rows (reservoir_size=0, or loaded from a file written "
                    "before streams kept one). Pass rows=: a DataFrame with the formula's "
                    "columns, or an (X, y) pair of arrays."
                )
            X, y = kept["X"], kept["y"]
        else:
            if isinstance(rows, tuple) and len(rows) == 2:
                X, y = self._reader.read(rows[0], rows[1], formula=None, missing="drop")
            else:
                X, y = self._reader.read(rows, None, formula=None, missing="drop")
            if X.shape[0] == 0:
                raise ValueError("The 'rows' option of conditional_density holds no usable row.")
        view = copy.copy(self)
        view.spec = dataclasses.replace(
            self.spec,
            X=np.asarray(X, dtype=float),
            Y=np.asarray(y).reshape(len(y), -1),
            index=pd.RangeIndex(len(y)),
        )
        return view


__all__ = ["OnlineSIRResults"]
