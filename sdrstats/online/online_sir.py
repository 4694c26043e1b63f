"""Online (sparse) SIR for data streams: :class:`OnlineSIR` with ``partial_fit``.

Cheng & Cui (2020, "A simple approach to online sparse sliced inverse regression") and
its O-SIR baselines (Cai, Li & Zhu 2020). The recursion itself is in
:mod:`sdrstats.online._updates` and the eigen-trackers in :mod:`sdrstats.online.trackers`;
this module holds the streaming object: input checking, the formula applied chunk by chunk,
the trace, merging and saving/restoring the state.
"""

from __future__ import annotations

import copy
import functools
import uuid
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from threadpoolctl import ThreadpoolController

from ..base.budget import check_count
from ..base.parallel import fit_seed
from ..base.validation import Interval, Options
from ..design.calls import format_call
from ..fitting.estimator import Estimator, EstimatorOutput
from ..stats.distances import subspace_distance
from ..stats.linalg import canonical_basis
from . import _stream_checks, _updates
from ._chunks import ChunkReader
from ._moments import SliceMomentSums, bootstrap_keys
from ._persist import StreamStateMixin
from ._reservoir import Reservoir, reservoir_key
from ._results import OnlineSIRResults
from .trackers import TRACKERS

#: Directions a stream tracks when ``d`` is None (``d_max``'s default).
TRACKED_BY_DEFAULT = 4
#: Rows of the stream's uniform sample for its conditional density (``reservoir_size``).
RESERVOIR_SIZE = 2000


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """One controller per process: building it scans the loaded libraries (~10 ms)."""
    return ThreadpoolController()


class OnlineSIR(StreamStateMixin, Estimator):
    """Online sparse sliced inverse regression (Cheng & Cui 2020, Algorithm 1) and online SIR.

    Rows arrive in chunks through :meth:`partial_fit` (arrays, or DataFrames with a formula
    given once). The first ``init_size`` rows fix the cut points and start the eigenpairs;
    every later block of at most ``block_size`` rows updates the sufficient statistics, the
    top-``d`` eigenpairs of ``D̂_t`` by the chosen tracker, the pseudo-responses and the
    sparse directions by the truncated gradient.

    The stream is the mutable part; what it has estimated is a value. At any time after the
    initial batch :meth:`results` returns a new :class:`OnlineSIRResults`, frozen (its
    numbers never change when the stream goes on), with the results contract:
    ``summary()``, ``transform(newdata)``, ``test_dimension()``, ``bootstrap()``, ``plot()``
    and ``conditional_density()``. :func:`online_sir` returns such a result, holding the
    stream as its ``.stream``; to update it, feed the stream and ask again::

        fit = sdr.online_sir("y ~ .", chunks)
        fit.stream.partial_fit(more_rows)     # the stream moves on, fit does not
        newer = fit.stream.results()          # a new result with the new rows

    The stream itself offers what a stream needs: :meth:`partial_fit`, :meth:`merge`,
    :meth:`save` and :meth:`load` (a file of arrays and a JSON header, never a pickle),
    :meth:`state_dict`, :meth:`from_state`, and readouts of its current estimate
    (``n_seen``, ``directions``, ``eigenvalues``, ``trace``). Memory is ``O(pH + p²)``
    (the recursion's ``O(pH + pd)`` and the cross-product its result's SIR test needs;
    ``O(pH + pd)`` with ``sir_moments=False``), plus
    ``bootstrap_replicates × (p² + pH + H)`` numbers for the online bootstrap and
    ``reservoir_size × (p + 1)`` for the sample of rows, whatever the stream length.

    The stream is checked as a batch fit is: ``d`` against ``p`` on the first rows; on the
    initial batch, a constant response, ``nslices`` above ``init_size/2``, constant and
    (nearly) collinear or duplicated predictors; every later chunk against the scale of the
    initial batch; the running state for overflow (a refused chunk leaves the state as it
    was). A stream cannot be merged with itself or with a copy, saved state or merge of
    itself.

    Parameters
    ----------
    nslices : int, optional
        Number of slices ``H`` (default 10); ignored for a categorical response (one slice
        per level of the first chunk). With ``cut_points`` it must be ``len(cut_points) + 1``.
    d : int, optional
        Number of directions, at most ``H - 1``. ``None`` (default) tracks ``d_max`` of them
        and reports the first ``d`` chosen by ``d_rule`` at every snapshot.
    d_rule : {"auto", "asymptotic", "ratio"}
        The rule that chooses ``d`` when it is not given, among ``1..d_max``, at every
        snapshot (``fit.d_rule`` and the summary say which rule chose). ``"auto"``
        (default): Li's (1991) χ² test of SIR at level 0.05 from the stream's slice moments
        (``"asymptotic"``, the contract of ``sdr.sir``) once the stream has seen at least
        ``2 p H`` rows (two rows per coordinate of the slice means:
        :data:`sdrstats.inference.dimension_test.SIR_TEST_ROWS_PER_CELL`); on a shorter
        stream, or one without the moments (``sir_moments=False``), the eigenvalue-ratio
        rule (``"ratio"``), and the summary says why ("d = 1 (chosen by the
        eigenvalue-ratio rule: too few rows for the test, n = 300 < 2 x p x slices =
        400)"). ``"asymptotic"``: the test whatever the stream's length (needs
        ``sir_moments=True``). ``"ratio"``: the eigenvalue-ratio rule on the exact
        eigenvalues of ``D̂_t`` (of ``Σ̂⁻¹D̂_t`` for O-SIR), computed from the sufficient
        statistics at each snapshot (:func:`sdrstats.inference.ratio.eigenvalue_ratio`; a
        stream keeps no rows for a rule that resamples). Why the test is the default: on 50
        data sets each (n = 400, p = 6, 10 slices, ``benchmarks/bench_sparse_rules.md``) the
        ratio rule chose d = 1 for a three-index model in 36 (3 in 2), although the test
        rejects "1D" in all 50 (it chose 2 in 42 and 3 in 8), at the price of its level on a
        single index (d = 2 in 3 of 50, where the ratio rule chose 1 in all).
    d_max : int, optional
        Directions tracked when ``d`` is None: ``min(H - 1, p, d_max)``, default 4 (each
        costs ``O(p)`` per row).
    eigen : {"ccipca", "ipca", "sgd", "perturbation"}
        Eigen-tracker (2.11), (2.12), (2.9)-(2.10), (2.7)-(2.8). O-SIR (``sparse=False``)
        offers ``"perturbation"`` and ``"sgd"`` (Cai, Li & Zhu 2020). Default ``"ccipca"``.
    sparse : bool
        ``True`` (default): directions by the truncated gradient on the pseudo-response
        (O-LassoSIR). ``False``: O-SIR, the generalised eigenvectors of ``(D̂, Σ̂)`` with
        ``Σ̂^{-1}`` kept by Sherman–Morrison (needs ``init_size > p``).
    learning_rate : "auto" or float
        Step ``γ`` of the truncated gradient; ``"auto"`` (default) is ``1 / mean‖x̃‖²`` over
        the initial batch (a normalised least-mean-squares step, stable since
        ``γ‖x̃‖² ≈ 1 < 2``).
    decay_after : "auto", float or None
        ``τ``: the step is ``γ`` for the first ``τ`` rows and ``γ·τ/t`` after (Cheng & Cui's
        condition (C6), ``γ_t = C/t``, which lets the least-squares error vanish). ``"auto"``
        (default) is ``τ = 2·p``: the constant phase gives ``γ·λ_min(Σ)·τ ≈ 2·λ_min/λ̄``
        and the decaying phase adds ``log(t/τ)`` times that, while the stationary noise of
        a constant step (which dominated at ``p = 1000`` with ``τ = 10·p``) dies out.
        ``benchmarks/papers/ossir.md`` shows ``τ ∈ {p, 2p}`` best on Cheng & Cui's models.
        ``None`` keeps ``γ`` constant.
    gravity : "auto" or float
        ``g`` of the truncated gradient, the online counterpart of the Lasso penalty: every
        truncation ending a period of ``L`` rows shrinks the coefficients by ``γ_t·g·L``, so
        a coefficient held at 0 stays 0 exactly when the mean of its gradient terms over the
        period is at most ``g``. ``"auto"`` (default) calibrates that zero test at each
        truncation, ``g_jk = z_p σ_j s_k / sqrt(L)``: ``σ_j`` the root mean square of
        direction ``j``'s pseudo-response residual over the period, ``s_k`` predictor
        ``k``'s standard deviation in the initial batch (the Lasso on standardised
        predictors), ``z_p = Φ^{-1}(1 − 1/(2p))``, so that a predictor outside the support
        passes the test by noise with probability ``1/p`` (on average at most one of the
        ``p``), whatever the stream's length; ``z_p`` is close to the universal threshold
        ``sqrt(2 log p)`` (Donoho & Johnstone 1994). With ``truncate_every="auto"``
        (``L = t/2``) the penalty falls as ``sqrt(log p / t)``, the rate of the batch
        Lasso's theory, so its bias vanishes along the stream. Over a period shorter than
        ``3p`` rows the penalty is held at its value for ``3p`` rows (``1.5p`` when the
        directions are read): the least-mean-squares step regrows a zeroed coefficient by
        about ``1/p`` of its size a row, so a shorter period's test at level ``1/p`` zeroes
        true coefficients too (a weaker direction, at ``n`` of a few ``p``). A number is
        used as given for every direction and predictor (0 gives plain least-mean-squares); the defaults before
        ``"auto"``, ``gravity=0.05, truncate_every=10``, leave most predictors non-zero: a
        mean over 10 rows of terms of standard deviation ``σ`` exceeds 0.05 unless
        ``σ`` is far below ``0.05·sqrt(10)`` (``benchmarks/bench_online.md``: 80-200 of 200
        non-zero at ``p = 200`` with 5 active).
    threshold : float, optional
        ``θ``: only coefficients with ``|β| ≤ θ`` are shrunk; ``None`` (default) is ``∞``.
    truncate_every : "auto" or int
        ``L``: rows between truncations. ``"auto"`` (default) truncates at rows 10, 20, 40,
        80, … of the stream (the initial batch included), each period half the rows seen,
        so the zero test averages over a growing share of the stream (Langford, Li & Zhang
        2009 allow any period). An integer truncates at its multiples with ``α = γ_t·g·L``
        as in Cheng & Cui's (2020) Algorithm 1; at most ``max(init_size, block_size)``, so
        that the directions are made sparse at least once a batch.
        The directions are read as a truncation at the current row would leave them: with
        a numeric ``g`` and an integer ``L`` shrunk by the next truncation (the reading
        before ``"auto"``); otherwise the coefficients that truncation would set to 0 read
        as 0 and the others as they stand (no shrinkage added at reading).
    cut_points : sequence of float, optional
        Interior cut points ``q_1 < … < q_{H-1}``; default the ``h/H`` quantiles of the
        response over the initial batch. Slice ``h`` holds ``q_{h-1} < y <= q_h``: a value
        equal to a cut point falls in the slice below it, as in ``sdr.sir(...,
        cut_points=...)``; values below ``q_1`` or above ``q_{H-1}`` fall in the first or last
        slice (the end slices are open).
    init_size : int
        Rows of the initial batch (default 500); buffered until they have all arrived, so
        bounded by ``sdr.set_config(max_memory=...)`` (checked on the first chunk).
    block_size : int
        Largest block of rows applied in one update (default 1000). ``1`` is Cheng & Cui's
        one-observation recursion; see Notes for what a block changes.
    trace_size : int
        Snapshots kept in ``trace`` (default 100); the trace is thinned to every other
        snapshot when full, so its memory is bounded (by ``sdr.set_config(max_memory=...)``,
        checked on the first chunk).
    sir_moments : bool
        Keep, besides the recursion, the slice moments of SIR: the cross-product of the
        predictors with the slice counts and sums (``O(p²)`` memory and ``O(p²)`` operations
        a row). Default True: the result then has Li's χ² test
        (``test_dimension("asymptotic")``) and the stream can keep bootstrap replicates. At
        ``p = 1000`` the cross-product costs about as much as the recursion itself
        (``benchmarks/bench_online.md``); False keeps only the recursion's ``O(pH + pd)``
        state and its speed, without the test.
    bootstrap_replicates : int
        ``B``, the replicates of the online Poisson bootstrap (default 0: none). A stream
        keeps no rows to resample later, so its bootstrap is drawn as the rows arrive: every
        row gets an independent Poisson(1) count in each replicate, and each replicate
        keeps its weighted slice counts, slice sums and cross-products. It must be fixed
        before the first row; ``results().bootstrap()`` reports the replicates. Cost:
        ``B (p² + pH + H)`` numbers of memory (in the stream and again in each result made
        from it) and ``B p²`` operations a row; bounded by ``sdr.set_config(max_memory=...)``
        (checked on the first chunk). See Notes.
    reservoir_size : int
        Rows of the uniform sample the stream keeps (reservoir sampling, Vitter 1985) for
        its result's ``conditional_density()``; default 2000 (``2000 (p + 1)`` numbers). 0
        keeps none (then ``conditional_density(rows=...)`` needs rows).
    random_state : int, SeedSequence or Generator, optional
        The seed the results record; the Poisson counts of the bootstrap and the draws of
        the reservoir come from streams derived from it (:meth:`sdrstats.Results.stream`),
        so a seeded stream is repeatable whatever its chunks. A fit in memory
        (``OnlineSIR(...).fit(X, y)``) resamples from streams derived from it. None: a
        stream takes a number from its own random id (kept when it is saved), which the
        summary prints; a fit in memory draws one.

    See Also
    --------
    online_sir : The formula function (``sdr.online_sir(formula, data)``).
    sdrstats.online.OnlineSIRResults : What ``fit`` returns.
    lasso_sir : The batch method it follows.

    Notes
    -----
    State after ``t`` rows: ``x̄_t``, slice counts and slice sums ``S_h`` of ``x``; then
    ``d̂_t = (S − x̄_t nᵀ)/t`` and ``D̂_t = (1/H) d̂_t d̂_tᵀ``. The pseudo-response of a row in
    slice ``h`` is ``ỹ_j = d̂_{t,h}ᵀ η̂_j / (H λ̂_j)``. Cheng & Cui's (2020) eq. (2.13) has the factor
    ``(t+1)/H`` instead of ``1/H``; with ``d̂`` divided by ``t`` as in (2.5) that makes the
    regression target grow linearly along the stream, whereas ours satisfies
    ``E[x̃ỹ_j] = η_j`` exactly as batch Lasso-SIR (``XᵀỸ/n = η̂``), so ``β_j`` estimates
    ``Σ^{-1}η_j`` with a fixed step. The eigenvalues are those of ``D̂`` (Cheng & Cui's CCIPCA
    and SGD formulas omit the ``1/H``; it only rescales ``λ``).

    A block of ``m`` rows updates the statistics exactly, then applies one tracker step with
    weight ``m/(t+m)`` (the sum of the ``m`` weights ``1/(t+k)`` to first order) using the
    block-end ``D̂``, and computes the block's pseudo-responses with the block-end
    eigenpairs; the truncated-gradient pass then runs row by row. ``block_size=1``
    reproduces the one-at-a-time recursion; ``tests/test_online_sir.py`` checks that blocks
    of 1000 change the final estimate by little (det distance < 0.02 on a model with
    distance ~0.01 to the truth).

    The result's inference comes from slice moments the stream keeps besides the recursion:
    the slice counts and sums and the cross-product of the predictors (about the initial
    batch's mean). From them the result computes SIR exactly as the moment family does
    (divisor-``n`` covariance, ``M = Σ_h f_h z̄_h z̄_hᵀ``): ``test_dimension("asymptotic")``
    is Li's (1991) χ² test of R ``dr``, equal to ``sdr.sir``'s on the same rows with the
    same cut points. The online bootstrap keeps those sums once per replicate, each row
    weighted by its Poisson(1) count (Hanley & MacGibbon 2006; Chamandy et al. 2012) keyed
    by the fit's ``"bootstrap"`` stream, the replicate and the row's position among the rows
    used, so the replicates do not depend on the chunks (they are those of
    ``sdr.sir(..., cut_points=..., random_state=seed).bootstrap(B, scheme="poisson")`` on
    the same rows). The replicates are SIR fits of the resampled moments (the truncated
    gradient is not run again per replicate), compared with SIR on all the stream's rows.

    References
    ----------
    :cite:t:`cheng2020`; :cite:t:`cai2020`; :cite:t:`langford2009`; :cite:t:`li1991`;
    :cite:t:`hanley2006`; :cite:t:`chamandy2012`; :cite:t:`vitter1985`; :cite:t:`donoho1994`.

    Examples
    --------
    >>> import numpy as np, sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((3000, 10))
    >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(3000)
    >>> model = sdr.OnlineSIR(d=1, init_size=300)
    >>> for start in range(0, 3000, 500):
    ...     _ = model.partial_fit(X[start:start + 500], y[start:start + 500])
    >>> model.n_seen
    3000
    >>> model.directions.abs().round(1).iloc[:3, 0].tolist()
    [0.7, 0.7, 0.0]
    """

    method = "online_sir"
    response = "any"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "nslices": [Interval(int, 2, None), None],
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("auto", "asymptotic", "ratio"))],
        "d_max": [Interval(int, 1, None), None],
        "eigen": [Options(TRACKERS)],
        "sparse": ["boolean"],
        "learning_rate": [Options(("auto",)), Interval(float, 0, None, closed="neither")],
        "decay_after": [Options(("auto",)), Interval(float, 1, None), None],
        "gravity": [Options(("auto",)), Interval(float, 0, None)],
        "threshold": [Interval(float, 0, None), None],
        "truncate_every": [Options(("auto",)), Interval(int, 1, None)],
        "cut_points": ["increasing", None],
        "init_size": [Interval(int, 2, None)],
        "block_size": [Interval(int, 1, None)],
        "trace_size": [Interval(int, 1, None)],
        "sir_moments": ["boolean"],
        "bootstrap_replicates": [Interval(int, 0, None)],
        "reservoir_size": [Interval(int, 0, None)],
        "random_state": ["random_state"],
    }
    results_class = OnlineSIRResults

    def __init__(
        self,
        *,
        nslices: int | None = None,
        d: int | None = None,
        d_rule: str = "auto",
        d_max: int | None = None,
        eigen: str = "ccipca",
        sparse: bool = True,
        learning_rate: str | float = "auto",
        decay_after: str | float | None = "auto",
        gravity: str | float = "auto",
        threshold: float | None = None,
        truncate_every: str | int = "auto",
        cut_points: Any = None,
        init_size: int = 500,
        block_size: int = 1000,
        trace_size: int = 100,
        sir_moments: bool = True,
        bootstrap_replicates: int = 0,
        reservoir_size: int = RESERVOIR_SIZE,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())
        self._reader = ChunkReader(self.method)
        self._state: dict[str, Any] | None = None
        #: Slice moments for the result's SIR test and the online bootstrap (after the
        #: initial batch), and the uniform sample of rows (from the first row).
        self._moments: SliceMomentSums | None = None
        self._reservoir: Reservoir | None = None
        self._buffer: list[tuple[np.ndarray, np.ndarray]] = []
        self._trace: list[tuple[int, np.ndarray, np.ndarray]] = []
        self.cut_points_: np.ndarray | None = None
        #: The ``Call:`` line a formula front records (empty: built from the options)
        self.call = ""
        #: The seed every snapshot records (drawn at the first snapshot when none is given).
        self._seed: Any = None
        #: Ids of the streams whose rows this one holds (its own, and those merged into it);
        #: set when the first rows arrive, kept by copies, so merging shared rows is refused.
        self._lineage: list[str] | None = None

    # -- options -------------------------------------------------------------------------
    def _check_options(self) -> None:
        o, name = self.options, self.method
        if not o["sparse"] and o["eigen"] not in ("perturbation", "sgd"):
            raise ValueError(
                f"The 'eigen' option of {name} with sparse=False (O-SIR) must be "
                f"'perturbation' or 'sgd'; got {o['eigen']!r}."
            )
        if o["cut_points"] is not None:
            cuts = np.asarray(o["cut_points"], dtype=float).reshape(-1)
            if o["nslices"] is not None and o["nslices"] != cuts.size + 1:
                raise ValueError(
                    f"The 'nslices' option of {name} must be len(cut_points) + 1 = "
                    f"{cuts.size + 1} when cut_points are given; got {o['nslices']}."
                )
        H = self._nslices_option()
        if o["d"] is not None and o["d"] > H - 1:
            raise ValueError(
                f"The 'd' option of {name} must be at most nslices - 1 = {H - 1}; got {o['d']}."
            )
        if o["d_rule"] == "asymptotic" and not o["sir_moments"]:
            raise ValueError(
                f"The 'd_rule' option 'asymptotic' of {name} needs sir_moments=True: the test "
                "reads the slice moments; use d_rule='ratio' or keep the moments."
            )
        if o["bootstrap_replicates"] and not o["sir_moments"]:
            raise ValueError(
                f"The 'bootstrap_replicates' option of {name} needs sir_moments=True: each "
                "replicate is a weighted copy of the slice moments; got bootstrap_replicates = "
                f"{o['bootstrap_replicates']} with sir_moments=False."
            )
        most = max(o["init_size"], o["block_size"])
        if o["truncate_every"] != "auto" and o["truncate_every"] > most:
            raise ValueError(
                f"The 'truncate_every' option of {name} must be at most max(init_size, "
                f"block_size) = {most}: the truncated gradient makes the directions sparse "
                "only at its truncations, and a period longer than a batch of rows leaves "
                f"most of the stream without them; got {o['truncate_every']}. To fit without "
                "truncation use gravity=0."
            )

    def _check_sizes(self, p: int) -> None:
        """Refuse, on the first rows (``p`` known), an initial batch or trace whose memory is
        past ``sdr.set_config(max_memory=...)``: the buffered batch and its stacked copy hold
        ``2 init_size (p + 1)`` floats, a full trace ``trace_size (p d + d + 1)``."""
        o = self.options
        d = self.tracked_directions(self._nslices_option(), p)
        check_count(self.method, "init_size", o["init_size"], unit="rows buffered",
                    seconds_each=None, bytes_each=2 * 8.0 * (p + 1), at=f" at p = {p}")  # fmt: skip
        check_count(self.method, "trace_size", o["trace_size"], unit="snapshots",
                    seconds_each=None, bytes_each=8.0 * (p * d + d + 1) + 200,
                    at=f" at p = {p}")  # fmt: skip
        # a replicate's sums live in the stream and again in each result made from it
        H = self._nslices_option()
        check_count(self.method, "bootstrap_replicates", o["bootstrap_replicates"],
                    unit="replicates", seconds_each=None,
                    bytes_each=2 * 8.0 * (p * p + p * H + H), at=f" at p = {p}")  # fmt: skip
        check_count(self.method, "reservoir_size", o["reservoir_size"], unit="rows kept",
                    seconds_each=None, bytes_each=2 * 8.0 * (p + 1),
                    at=f" at p = {p}")  # fmt: skip

    def tracked_directions(self, H: Any = None, p: Any = None) -> int:
        """How many directions the stream tracks.

        ``d``, or when ``d`` is None ``min(H - 1, p, d_max)`` (``d_max`` 4 by default).

        Parameters
        ----------
        H : int, optional
            The number of slices, when known.
        p : int, optional
            The number of predictors, when known.

        Returns
        -------
        int

        Examples
        --------
        >>> import sdrstats as sdr
        >>> sdr.OnlineSIR(d=2).tracked_directions(10, 5), sdr.OnlineSIR().tracked_directions(3, 5)
        (2, 2)
        """
        o = self.options
        if o["d"] is not None:
            return int(o["d"])
        limits = [o["d_max"] or TRACKED_BY_DEFAULT]
        limits += [int(H) - 1] if isinstance(H, (int, np.integer)) and H > 1 else []
        limits += [int(p)] if isinstance(p, (int, np.integer)) and p > 0 else []
        return max(1, min(limits))

    def _nslices_option(self) -> int:
        o = self.options
        if o["cut_points"] is not None:
            return int(np.asarray(o["cut_points"]).size + 1)
        return int(o["nslices"] or 10)

    # -- streaming -----------------------------------------------------------------------
    @property
    def n_seen(self) -> int:
        """Rows used so far (including the initial batch and rows still buffered)."""
        buffered = sum(len(b[0]) for b in self._buffer)
        return buffered + (self._state["t"] if self._state is not None else 0)

    @property
    def initialized(self) -> bool:
        return self._state is not None

    def partial_fit(
        self, X: Any, y: Any = None, *, formula: str | None = None, missing: str = "drop"
    ) -> OnlineSIR:
        """Update the fit with one chunk of rows.

        Parameters
        ----------
        X : DataFrame or array-like
            With ``formula`` (given on the first call; later calls may repeat it), a
            DataFrame holding every column the formula uses; else predictors (n x p).
        y : array-like, optional
            Response of the rows when ``X`` holds predictors only.
        formula : str, optional
            Patsy formula. The first chunk fixes its design (a
            :class:`~sdrstats.design.plan.FormulaPlan`, as for chunked data): every chunk
            goes through the same transforms and factor levels. The response is evaluated
            again on every chunk, so it may call only the allowed functions of saved
            formulas (``log``, ``sqrt``, ``np.*``, ...). Formula text is evaluated as Python
            (as in R and statsmodels): never pass one from an untrusted source. Column names
            are looked up as names, never run.
        missing : {"drop", "raise"}
            Rows with missing values (or undefined ones, such as the log of a value <= 0)
            are dropped with a warning, or raise.

        Returns
        -------
        OnlineSIR
            The model itself, updated.

        Raises
        ------
        ValueError
            A chunk whose columns differ from the first chunk's, non-finite values, or a class
            label unseen in the first chunk.

        Notes
        -----
        An empty chunk is ignored. The update is all-or-nothing: if anything fails part-way
        through a chunk (bad rows, an interrupt, a worker dying), the state is restored to the
        end of the last completed chunk, so feeding the chunk again does not count any row
        twice.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200)
        >>> _ = model.partial_fit(X[:500], y[:500]).partial_fit(X[500:], y[500:])
        >>> model.n_seen
        1000
        >>> model.directions.abs().round(1).iloc[:, 0].tolist()
        [0.7, 0.7, 0.0, 0.0, 0.0]
        """
        saved = (
            copy.deepcopy(self._state),
            list(self._buffer),
            list(self._trace),
            self.cut_points_,
            self._lineage,
            self._seed,
            # the moments and the sample take a chunk's rows last, when nothing else can fail
            self._moments,
            self._reservoir,
        )
        try:
            return self._partial_fit(X, y, formula=formula, missing=missing)
        except BaseException:
            (
                self._state,
                self._buffer,
                self._trace,
                self.cut_points_,
                self._lineage,
                self._seed,
                self._moments,
                self._reservoir,
            ) = saved
            raise

    def _partial_fit(self, X: Any, y: Any, *, formula: str | None, missing: str) -> OnlineSIR:
        Xa, ya = self._reader.read(X, y, formula=formula, missing=missing)
        if Xa.shape[0] == 0:
            return self
        if self._lineage is None:
            if self.options["d"] is not None:
                _stream_checks.check_first_rows(Xa.shape[1], self.options["d"], self.method)
            self._check_sizes(Xa.shape[1])
            self._lineage = [uuid.uuid4().hex]
            self._seed_stream()
            if self.options["reservoir_size"]:
                self._reservoir = Reservoir(
                    self.options["reservoir_size"], reservoir_key(self._seed), Xa.shape[1]
                )
        if self._state is not None:
            self._check_chunk(Xa)
        offered = (Xa, ya)
        if self._state is None:
            self._buffer.append((Xa, ya))
            if self.n_seen < self.options["init_size"]:
                self._offer(*offered)
                return self
            Xa = np.vstack([b[0] for b in self._buffer])
            ya = np.concatenate([b[1] for b in self._buffer])
            self._buffer = []
            k = self.options["init_size"]
            with _blas_controller().limit(limits=1, user_api="blas"):
                self._initialize(Xa[:k], ya[:k])
                if self.options["sir_moments"]:
                    self._moments = SliceMomentSums(
                        Xa[:k].mean(axis=0),
                        self._H,
                        bootstrap_keys(self._seed, self.options["bootstrap_replicates"]),
                    )
                    self._moments.update(Xa[:k], self._labels(ya[:k]))
            Xa, ya = Xa[k:], ya[k:]
            self._check_chunk(Xa)
        o = self.options
        H = self._H
        size = o["block_size"]
        # The recursion multiplies small matrices; BLAS threads only add contention.
        with _blas_controller().limit(limits=1, user_api="blas"):
            for start in range(0, Xa.shape[0], size):
                block = Xa[start : start + size]
                _updates.update_block(
                    self._state,
                    block,
                    self._labels(ya[start : start + size]),
                    H,
                    eigen=o["eigen"],
                    sparse=o["sparse"],
                    gravity=o["gravity"],
                    threshold=self._theta,
                    every=o["truncate_every"],
                )
        _stream_checks.check_running_state(self._state, self.method)
        if self._moments is not None:  # None: sir_moments=False, or a version 1 or 2 file
            # one thread, as the recursion: a second BLAS thread doubled the CPU time of
            # this p x p product on the shared 2-core machine for little wall time
            with _blas_controller().limit(limits=1, user_api="blas"):
                self._moments.update(Xa, self._labels(ya))
        self._offer(*offered)
        self._record()
        return self

    def _offer(self, X: np.ndarray, y: np.ndarray) -> None:
        """Offer a chunk's rows to the sample of rows (in place: the chunk's last step)."""
        if self._reservoir is not None:
            self._reservoir.update(X, y)

    def _check_chunk(self, X: np.ndarray) -> None:
        s = self._state
        _stream_checks.check_chunk_scale(
            X, s["mean"], s.get("scale"), self._reader.spec.x_names, self.method
        )

    @property
    def _theta(self) -> float:
        return np.inf if self.options["threshold"] is None else float(self.options["threshold"])

    def _labels(self, y: np.ndarray) -> np.ndarray:
        if self._reader.categorical:
            return y.astype(np.int64)
        return _updates.slice_of(y, self.cut_points_)

    def _initialize(self, X: np.ndarray, y: np.ndarray) -> None:
        o = self.options
        n, p = X.shape
        if not o["sparse"] and n <= p:
            raise ValueError(
                f"O-SIR (sparse=False) needs init_size > p to invert the covariance; got "
                f"init_size = {n} and p = {p}. Raise init_size or use sparse=True."
            )
        spec = self._reader.spec
        _stream_checks.check_initial_batch(
            X,
            y,
            x_names=spec.x_names,
            y_names=spec.y_names,
            categorical=self._reader.categorical,
            nslices=self._nslices_option(),
            method=self.method,
        )
        if self._reader.categorical:
            self._H = len(self._reader.spec.y_levels)
            self.cut_points_ = None
        else:
            given = o["cut_points"]
            self.cut_points_ = (
                np.asarray(given, dtype=float).reshape(-1)
                if given is not None
                else _updates.quantile_cuts(y, self._nslices_option())
            )
            self._H = self.cut_points_.size + 1
        tracked = self.tracked_directions(self._H, p)
        if self._H < 2 or tracked > self._H - 1:
            raise ValueError(
                f"The initial batch gives {self._H} slice(s) (ties in the response), too few "
                f"for d = {tracked}; give cut_points, a larger init_size or a smaller d."
            )
        self._state = _updates.init_state(
            X,
            self._labels(y),
            self._H,
            tracked,
            eigen=o["eigen"],
            sparse=o["sparse"],
            learning_rate=o["learning_rate"],
            gravity=o["gravity"],
            threshold=self._theta,
            every=o["truncate_every"],
            decay_after=o["decay_after"],
        )

    def _record(self) -> None:
        s = self._state
        self._trace.append((int(s["t"]), s["lam"].copy(), self._basis()))
        if len(self._trace) > self.options["trace_size"]:
            self._trace = self._trace[::2]

    def _basis(self) -> np.ndarray:
        s = self._state
        if not self.options["sparse"]:
            beta = s["beta"].copy()
        else:
            # Read the directions as a truncation at this row would leave them, so the
            # coefficients the truncated gradient holds at zero read as exact zeros.
            o = self.options
            beta = _updates.read_truncated(s, o["gravity"], self._theta, o["truncate_every"])
        return canonical_basis(beta.T)

    # -- results -------------------------------------------------------------------------
    def results(self) -> OnlineSIRResults:
        """The current estimate as a new results object, frozen.

        Each call makes a new result from the stream as it stands (copies of its estimate,
        slice moments, bootstrap replicates and sample of rows); nothing done to the stream
        afterwards (``partial_fit``, ``merge``) changes it. This is how a result is
        updated: feed the stream, then call ``results()`` again.

        Returns
        -------
        OnlineSIRResults
            With the stream as its ``.stream``.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y).results()
        <OnlineSIRResults: online_sir, n = 1000, p = 5, d = 1>
        """
        if self._state is None:
            raise ValueError(
                f"OnlineSIR has seen {self.n_seen} row(s); results start after the initial "
                f"batch of init_size = {self.options['init_size']} rows."
            )
        s = self._state
        extras = {
            "n_seen": int(s["t"]),
            "slice_sizes": s["slice_counts"].astype(int),
            "nslices": self._H,
            "cut_points": self.cut_points_,
            "learning_rate": s["learning_rate"],
            "eta": s.get("eta"),
            "spectrum": self._spectrum(),
            # the recorded estimates along the stream, for the results' plot
            "trace_n_seen": np.asarray([n for n, _, _ in self._trace], dtype=np.int64),
            "trace_eigenvalues": np.asarray([lam for _, lam, _ in self._trace], dtype=float),
            "trace_bases": np.asarray([basis for _, _, basis in self._trace], dtype=float),
        }
        tracked = int(s["lam"].size)
        output = EstimatorOutput(
            basis=self._basis(),
            d=self.options["d"] or tracked,
            eigenvalues=s["lam"].copy(),
            center=s["mean"].copy(),
            extras=extras,
        )
        self._seed_stream()
        if self._moments is not None:
            # the slice moments of the SIR test and the bootstrap's replicates, copied: a
            # result never shares the stream's arrays
            extras["slice_moments"] = self._moments.state()
        if self._reservoir is not None:
            extras["reservoir"] = self._reservoir.state()
        call = self.call or (
            f"{format_call(type(self).__name__, options=self.options, defaults=self.params)}"
            f".{format_call('partial_fit', 'X', 'y')}"
        )
        results = OnlineSIRResults(
            self, self._reader.spec, output, call=call, random_state=self._seed
        )
        results._made_from(self)
        results._settle_dimension()
        return results

    def _seed_stream(self) -> None:
        """Fix the stream's seed on its first rows: the one given, else a number of the
        stream's own id; every result (and a saved copy) records it, and the bootstrap's
        counts and the reservoir's draws come from streams derived from it."""
        if self._seed is None:
            given = self.options["random_state"]
            lineage = self._lineage or [uuid.uuid4().hex]
            self._seed = fit_seed(given) if given is not None else int(lineage[0][:8], 16)

    def _spectrum(self) -> np.ndarray:
        """Every eigenvalue of ``D̂_t = (1/H) d̂ d̂ᵀ`` (O-SIR: of ``Σ̂⁻¹D̂_t``), from the
        sufficient statistics: what the ratio rule compares, beyond the tracked ones."""
        s, H = self._state, self._H
        t = float(s["t"])
        dhat = (s["slice_sums"] - np.outer(s["mean"], s["slice_counts"])) / t  # p x H
        inner = dhat.T @ (dhat if self.options["sparse"] else s["sigma_inv"] @ dhat) / H
        values = np.linalg.eigvalsh((inner + inner.T) / 2)[::-1]
        # D̂ has rank at most H - 1: the eigenvalues it does not have come out as rounding
        # noise (~1e-16 of the largest), which the ratio rule would read as a huge drop
        tol = max(H, self.p or 1) * np.finfo(float).eps * max(float(values[0]), 0.0)
        return np.where(values > tol, values, 0.0)

    directions = property(
        lambda self: self.results().directions, doc="Current directions (predictors x Dir1..Dird)."
    )
    eigenvalues = property(
        lambda self: self.results().eigenvalues, doc="Tracked eigenvalues of D̂ (O-SIR: of Σ̂^{-1}D̂)."
    )
    n = property(lambda self: self.n_seen)
    p = property(lambda self: self._reader.spec.p if self._reader.spec is not None else None)

    def __str__(self) -> str:
        what = (
            f"{self.n_seen} rows seen"
            if self._state is not None
            else (f"{self.n_seen} of init_size = {self.options['init_size']} rows buffered")
        )
        return f"<OnlineSIR stream: {what}; results() gives the current estimate>"

    @property
    def trace(self) -> pd.DataFrame:
        """Eigenvalues after each ``partial_fit`` call, indexed by ``n_seen`` (bounded)."""
        rows = {n: lam for n, lam, _ in self._trace}
        frame = pd.DataFrame(rows).T
        frame.columns = [f"lambda{j + 1}" for j in range(frame.shape[1])]
        frame.index.name = "n_seen"
        return frame

    def trace_distance(self, truth: Any, distance: str = "det") -> pd.Series:
        """Distance of each traced estimate to ``truth`` (a p x d basis), by ``n_seen``.

        Parameters
        ----------
        truth : array-like of shape (p, d)
            Basis of the true subspace (simulations).
        distance : {"det", "projection", "trace_correlation"}, default "det"
            See :func:`sdrstats.subspace_distance`.

        Returns
        -------
        pandas.Series
            Indexed by the number of rows seen when each estimate was traced.

        Examples
        --------
        >>> import numpy as np, sdrstats as sdr
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((1000, 5))
        >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(1000)
        >>> model = sdr.OnlineSIR(d=1, init_size=200).partial_fit(X, y)
        >>> bool(model.trace_distance([1.0, 1.0, 0.0, 0.0, 0.0]).iloc[-1] < 0.05)
        True
        """
        values = [subspace_distance(truth, basis, distance) for _, _, basis in self._trace]
        return pd.Series(
            values,
            index=pd.Index([n for n, _, _ in self._trace], name="n_seen"),
            name=f"{distance}_distance",
        )

    # -- the Estimator path (arrays in memory) ------------------------------------------
    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        if weights is not None:
            counts = np.asarray(np.round(weights), dtype=int)
            X, Y = np.repeat(X, counts, axis=0), np.repeat(Y, counts, axis=0)
        # the rows are in memory: the result needs neither a sample of them nor replicates
        # drawn online (its bootstrap refits resamples)
        fresh = type(self)(**{**self.options, "bootstrap_replicates": 0, "reservoir_size": 0})
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        y = pd.Series(pd.Categorical(Y)) if categorical else Y.reshape(len(Y), -1)
        fresh.partial_fit(X, y)
        return fresh.results().output


__all__ = ["OnlineSIR", "OnlineSIRResults"]
