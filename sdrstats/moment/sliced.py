"""The fit of SIR, SAVE and directional regression over a source of rows.

One pass of per-slice sums (:class:`~.statistics.MomentStatistics`, or R's case-weighted sums
:class:`~.weights.CaseWeightedStatistics`) gives the whitening and the slice moments; the
method's kernel ``M`` and one eigen-decomposition finish the fit. In memory the pass reads the
rows once, sliced by R ``dr``'s rule on the whole response; on chunks read in this process the
same pass finds the exact slices as it sums them (:mod:`sdrstats.scale.one_pass`; a second
pass when a cut falls among rows already pooled), on Dask partitions (or when that pass gives
up) it reads every partition once after the exact-slicing passes over the response alone
(:mod:`sdrstats.stats.exact_slicing`), and SAVE makes one more pass for the fourth moments of
its general test (for ``p <= 70``; in memory the test reads the rows when asked).
"""

from __future__ import annotations

from typing import Any

from ..base.contract import EstimatorOutput
from ._core import SliceMoments, Standardized
from .statistics import (
    MomentStatistics,
    PairMoments,
    SliceRule,
    check_rows,
    eigen_map,
    output_from_kernel,
    pairs_accumulated,
    rowless_extras,
    single_slice_error,
    slice_rule,
)
from .weights import CaseWeightedStatistics


def sliced_statistics(estimator: Any, source: Any, *, response: bool | None = None) -> Any:
    """One pass of the slice sums of ``estimator`` over ``source`` (R's weighted sums when the
    source has case weights), checked as the in-memory fit checks its rows."""
    numeric = not source.categorical
    if response is None:  # the response's moments: R² of a fit without rows
        response = numeric and not source.keeps_rows

    def template_for(rule: Any) -> Any:
        if source.case_weighted:
            return CaseWeightedStatistics(
                source.p,
                rule,
                second=estimator.second_moments,
                response=response,
                column=source.weights,
                rescaled=source.keeps_rows,
                keep_rows=source.keeps_rows,
            )
        return MomentStatistics(
            estimator, source.p, rule, response=response, keep_rows=source.keeps_rows
        )

    acc = None
    if (
        estimator.uses_slices
        and numeric
        and not source.keeps_rows
        and estimator.options.get("cut_points") is None
        and hasattr(source, "reduce_sliced")
    ):  # chunks: the exact slices and their sums in one pass over the rows
        acc = source.reduce_sliced(
            template_for,
            lambda cuts: SliceRule(cuts=cuts),
            lambda n: estimator.nslices_for(source.p, n),
            estimator.options["slice_function"],
        )
    if acc is None:
        rule = slice_rule(estimator, source) if estimator.uses_slices else SliceRule(single=True)
        acc = source.reduce(template_for(rule))
    if source.case_weighted:
        acc.rescale  # noqa: B018 -- raises when every weight is zero
    check_rows(estimator, acc.n, source.p, acc, source)
    if estimator.uses_slices and acc.n_slices < 2:
        raise single_slice_error(estimator.method)
    return acc


def prepared_statistics(acc: Any, source: Any) -> tuple[Standardized, SliceMoments | None]:
    """The whitening and the slice moments (None without slices) of an accumulator of
    :func:`sliced_statistics`."""
    if isinstance(acc, CaseWeightedStatistics):
        std = acc.standardized(source.x_names)
        if acc.rule.single:
            return std, None
        return std, acc.slice_moments(std, source.level_order)
    return acc.prepared(source.x_names, order=source.level_order)


def prepare_source(estimator: Any, source: Any) -> tuple[Standardized, SliceMoments | None]:
    """The whitening and the slice moments of the rows of ``source`` (one pass; no slices
    for pHd and CUME)."""
    return prepared_statistics(sliced_statistics(estimator, source), source)


def fit_sliced(estimator: Any, source: Any) -> EstimatorOutput:
    """SIR, SAVE or DR of the rows of ``source`` (see the module notes)."""
    acc = sliced_statistics(estimator, source)
    std, moments = prepared_statistics(acc, source)
    output = output_from_kernel(estimator, std, moments, estimator.kernel(std, moments))
    weighted = isinstance(acc, CaseWeightedStatistics)
    if weighted:
        output.center = acc.center()  # R's dr.direction centres x by its plain mean
    if source.keeps_rows:
        return output
    # a fit without rows: its slices (for the Poisson bootstrap's pass), the fourth moments
    # of SAVE's general test (one more pass), and what its summary and tests need
    output.extras["slice_keys"] = acc.ordered_keys(source.level_order)
    output.extras["cut_points"] = acc.rule.cuts
    if getattr(estimator, "test_needs_pair_moments", False) and pairs_accumulated(source.p):
        W = eigen_map(std, output.extras["raw_vectors"])
        c = acc.rescale if weighted else None
        output.extras["pair_moments"] = source.reduce(PairMoments(std.mean, W, c)).finish()
    levels = acc.ordered_keys(source.level_order)
    return rowless_extras(output, source, acc, (std, moments), levels=levels)


__all__ = ["fit_sliced", "prepare_source", "prepared_statistics", "sliced_statistics"]
