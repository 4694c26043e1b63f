"""The classification protocol of Shi et al. (2020) for linear dimension reduction methods.

:func:`classification` runs the experiment of Shi et al. (2020): repeated random train / validation / test
splits; for each split every candidate ``d`` (and weights ``alpha``, ``beta``, ``delta``) is
fitted on the training rows, the projected features are standardised with the training
projection's mean and standard deviation, a 1-nearest-neighbour classifier is scored by
balanced classification accuracy (BCA, the mean per-class recall) on the validation rows, and
the best candidate's test BCA is reported.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .base.budget import SEED_BYTES, STEP_SECONDS, check_count
from .base.parallel import parallel_map, spawn_seeds
from .base.validation import check_int
from .base.warnings import ConvergenceWarning
from .design.formula import from_arrays, parse
from .sdspcaan.tuning import WEIGHT_GRID, balanced_accuracy, one_nn_bca

#: Shi et al.'s (2020) grid for the subspace dimension d.
D_GRID = tuple(range(10, 101, 10))
#: The weights each method tunes (others have none).
TUNED_WEIGHTS = {
    "sdspca": ("alpha", "beta"),
    "sdspca_lpp": ("alpha", "beta", "delta"),
    "sdspcaan": ("alpha", "beta", "delta"),
}
#: Methods known by name: Shi et al.'s (2020) Table III without JPCDA and SLNP, plus PCAN and vPCA.
METHODS = ("baseline", "pca", "vpca", "sdspca", "spcan", "pcan", "sdspca_lpp", "sdspcaan")


def _estimator_class(name: str) -> Any:
    from .sdspcaan import family  # the package name is shadowed by sdr.sdspcaan()

    classes = {
        "pca": family.PCA,
        "vpca": family.VPCA,
        "sdspca": family.SDSPCA,
        "spcan": family.SPCAN,
        "pcan": family.PCAN,
        "sdspca_lpp": family.SDSPCALPP,
        "sdspcaan": family.SDSPCAAN,
    }
    return classes[name]


def _split(
    y: np.ndarray, fractions: tuple[float, float, float], seed: np.random.SeedSequence
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stratified random split into train, validation and test row positions."""
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[], [], []]
    for c in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == c))
        n_train = int(round(fractions[0] * rows.size))
        n_val = int(round(fractions[1] * rows.size))
        for part, chunk in zip(parts, np.split(rows, [n_train, n_train + n_val])):
            part.append(chunk)
    return tuple(np.sort(np.concatenate(p)) for p in parts)  # type: ignore[return-value]


def _candidates(
    method: str, ds: list[int], grid: Sequence[float], search: str, fixed: dict[str, Any]
) -> list[dict[str, Any]]:
    tuned = [w for w in TUNED_WEIGHTS.get(method, ()) if w not in fixed]
    if search == "grid" or not tuned:
        combos = itertools.product(ds, *[grid] * len(tuned))
        return [{"d": c[0], **dict(zip(tuned, c[1:]))} for c in combos]
    # coordinate search, stage 1: d with every weight at 1; the weights follow in turn
    return [{"d": d, **dict.fromkeys(tuned, 1.0)} for d in ds]


def _score(task: tuple) -> tuple[float, float, int, bool]:
    """Fit one candidate on the training rows; BCA on validation and test rows."""
    method, options, X, y, parts, threads = task
    train, val, test = parts
    from threadpoolctl import threadpool_limits

    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        Xtr = X[train]
        if method == "baseline":
            center = Xtr.mean(axis=0)
            scale = Xtr.std(axis=0, ddof=1)
            scale = np.where(scale > 0, scale, 1.0)
            d = options["d"]
            project = lambda rows: ((X[rows] - center) / scale)[:, :d]  # noqa: E731
            n_iter, converged = 0, True
        else:
            estimator = _estimator_class(method)(**options)
            output = estimator._fit(Xtr, y[train])
            project = lambda rows: estimator.transform_arrays(output, X[rows], output.d)  # noqa: E731
            n_iter = int(output.extras.get("n_iter", 0))
            converged = bool(output.extras.get("converged", True))
        val_bca, test_bca = one_nn_bca(
            project(train), y[train], [project(val), project(test)], [y[val], y[test]]
        )
    return val_bca, test_bca, n_iter, converged


def _inputs(
    method: Any, data: Any, formula: str | None
) -> tuple[list[str], dict, np.ndarray, np.ndarray]:
    """Method names, fixed options and the (X, class codes) arrays."""
    fixed: dict[str, Any] = {}
    if hasattr(method, "spec") and hasattr(method, "estimator"):  # a fitted result
        fit = method
        names = [fit.method]
        # the protocol tunes d and the weights itself: a fit's own tuning is not repeated
        tuned = ("d", "tune", *TUNED_WEIGHTS.get(fit.method, ()))
        fixed = {key: value for key, value in fit.options.items() if key not in tuned}
        if data is None:
            return names, fixed, fit.spec.X, np.asarray(fit.spec.Y)
        formula = formula or fit.spec.formula
    elif isinstance(method, str):
        names = [method]
    else:
        names = list(method)
    unknown = [m for m in names if m not in METHODS]
    if unknown:
        raise ValueError(f"Unknown method(s) {unknown} for classification; choose from {METHODS}.")
    if isinstance(data, tuple) and len(data) == 2:
        spec = from_arrays(*data)
    elif formula is not None:
        spec = parse(formula, data)
    else:
        raise ValueError("Pass formula= with a data frame, or data=(X, y) arrays, or a fit.")
    if not spec.categorical:
        raise ValueError(
            f"classification needs class labels but the response {spec.y_names} is continuous; "
            "wrap class codes as C(y)."
        )
    return names, fixed, spec.X, np.asarray(spec.Y)


def classification(
    method: Any,
    data: Any = None,
    *,
    formula: str | None = None,
    splits: tuple[float, float, float] = (0.2, 0.4, 0.4),
    n_repeats: int = 10,
    d_grid: Sequence[int] = D_GRID,
    weight_grid: Sequence[float] = WEIGHT_GRID,
    search: str = "grid",
    options: dict[str, Any] | None = None,
    random_state: Any = None,
    n_jobs: int = 1,
    progress: bool = True,
    verbose: bool = True,
    return_grid: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Shi et al.'s (2020) classification protocol: tune on validation, report test BCA.

    Parameters
    ----------
    method : str, list of str, or a fitted result
        Method name(s) from :data:`METHODS` (``"baseline"`` uses the first d standardised
        predictors), or a fit of the family: its method, data and untuned options
        (``n_neighbors``, ``lam``, ``tol``, ``max_iter``...) are reused; d and the weights
        are tuned.
    data : DataFrame or (X, y) tuple, optional
        The data; a DataFrame needs ``formula``. Not needed when ``method`` is a fit.
    formula : str, optional
        Formula with a categorical response.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    splits : (float, float, float), default (0.2, 0.4, 0.4)
        Train / validation / test fractions, per class (stratified). Shi et al. (2020) use
        20/40/40; the authors' code 60/20/20.
    n_repeats : int, default 10
        Random splits.
    d_grid : sequence of int, default 10, 20, ..., 100
        Candidate dimensions, kept if ``c <= d <= r`` with ``r`` the rank of the centred
        training predictors (at most ``min(n_train - 1, p)``); if none is, the single
        ``d = r``.
    weight_grid : sequence of float, default (0.01, 0.1, 1, 10, 100)
        Candidates for ``alpha``, ``beta`` (SDSPCA and up) and ``delta``; each multiplies the
        method's trace scale.
    search : {"grid", "coordinate"}, default "grid"
        ``"grid"``: every combination (the paper's protocol). ``"coordinate"``: d first with
        weights 1, then each weight in turn with the others at their best so far (far fewer
        fits; an approximation of the grid).
    options : dict, optional
        Fixed options passed to every fit (e.g. ``{"max_iter": 50}``); tuned ones are removed.
    random_state : int, SeedSequence or Generator, optional
        Seeds the splits: repeat ``r`` uses child ``r`` of the seed sequence.
    n_jobs : int, default 1
        Workers over grid points (each with one BLAS thread); results do not depend on it.
    progress : bool, default True
        Show a progress bar on long loops.
    verbose : bool, default True
        Print the mean ± sd table.
    return_grid : bool, default False
        Also return every candidate's validation and test BCA.

    Returns
    -------
    pandas.DataFrame
        One row per repeat and method: ``repeat``, ``method``, the chosen ``d``, ``alpha``,
        ``beta``, ``delta``, ``validation_bca``, ``test_bca``, ``n_candidates``, ``n_train``,
        ``n_validation``, ``n_test``, ``converged`` (of the chosen fit). With
        ``return_grid=True`` also a second frame with every candidate's scores.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> res = sdr.evaluate.classification(["pca", "sdspca"], ais, formula="sex ~ ht + wt + lbm + rcc",
    ...     d_grid=[2], weight_grid=[1.0], n_repeats=2, random_state=0, verbose=False)
    >>> res[["repeat", "method", "d"]].values.tolist()
    [[0, 'pca', 2], [0, 'sdspca', 2], [1, 'pca', 2], [1, 'sdspca', 2]]
    """
    if search not in ("grid", "coordinate"):
        raise ValueError(f"The 'search' option must be 'grid' or 'coordinate'; got {search!r}.")
    fractions = tuple(float(f) for f in splits)
    if len(fractions) != 3 or min(fractions) <= 0 or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"splits must be three positive fractions summing to 1; got {splits}.")
    names, fixed, X, y = _inputs(method, data, formula)
    fixed = {**fixed, **(options or {})}
    classes, counts = np.unique(y, return_counts=True)
    if np.min(np.round(counts * fractions[0])) < 2:
        rare = classes[np.argmin(counts)]
        raise ValueError(
            f"Class code {rare} has {counts.min()} samples: the training fraction "
            f"{fractions[0]} leaves it fewer than 2 training rows. Use a larger training "
            "fraction (e.g. splits=(0.6, 0.2, 0.2)) or drop rare classes."
        )
    grid = [float(w) for w in weight_grid]
    check_int(n_repeats, "n_repeats", "classification", low=1)
    # a repeat: its seed and a row of scores per method and candidate, at least a fit each
    check_count("classification", "n_repeats", n_repeats, unit="random splits",
                seconds_each=len(names) * STEP_SECONDS,
                bytes_each=SEED_BYTES + 1024.0 * len(names), at=f" of n = {len(y):,} rows")  # fmt: skip
    threads = 1 if n_jobs != 1 else None
    rows, grid_rows = [], []
    seeds = spawn_seeds(random_state, n_repeats)
    for repeat, seed in enumerate(seeds):
        parts = _split(y, fractions, seed)
        n_train, p, c = parts[0].size, X.shape[1], classes.size
        # directions beyond the rank of the centred training predictors carry nothing
        rank = np.linalg.matrix_rank(X[parts[0]] - X[parts[0]].mean(axis=0))
        cap = max(1, min(n_train - 1, p, int(rank)))
        ds = [int(d) for d in d_grid if c <= d <= cap] or [cap]
        for name in names:
            own = {
                key: v
                for key, v in fixed.items()
                if name != "baseline" and key in _estimator_class(name).params
            }
            cands = _candidates(name, ds, grid, search, own)
            scores = _run(name, cands, own, X, y, parts, threads, n_jobs, progress, repeat)
            if search == "coordinate":
                best = cands[int(np.argmax([s[0] for s in scores]))]
                for weight in TUNED_WEIGHTS.get(name, ()):
                    if weight in own:
                        continue
                    stage = [{**best, weight: w} for w in grid]
                    stage_scores = _run(
                        name, stage, own, X, y, parts, threads, n_jobs, progress, repeat
                    )
                    cands, scores = cands + stage, scores + stage_scores
                    best = stage[int(np.argmax([s[0] for s in stage_scores]))]
            for cand, score in zip(cands, scores):
                grid_rows.append(
                    {
                        "repeat": repeat,
                        "method": name,
                        **cand,
                        "validation_bca": score[0],
                        "test_bca": score[1],
                    }
                )
            pick = int(np.argmax([s[0] for s in scores]))  # first best on validation
            chosen = cands[pick]
            rows.append(
                {
                    "repeat": repeat,
                    "method": name,
                    "d": chosen["d"],
                    "alpha": chosen.get("alpha", own.get("alpha", np.nan)),
                    "beta": chosen.get("beta", own.get("beta", np.nan)),
                    "delta": chosen.get("delta", own.get("delta", np.nan)),
                    "validation_bca": scores[pick][0],
                    "test_bca": scores[pick][1],
                    "n_candidates": len(cands),
                    "n_train": n_train,
                    "n_validation": parts[1].size,
                    "n_test": parts[2].size,
                    "converged": scores[pick][3],
                }
            )
    result = pd.DataFrame(rows)
    if verbose:
        print(summarise(result).to_string())
    return (result, pd.DataFrame(grid_rows)) if return_grid else result


def _run(name, cands, own, X, y, parts, threads, n_jobs, progress, repeat):
    tasks = [(name, {**own, **cand}, X, y, parts, threads) for cand in cands]
    return parallel_map(
        _score, tasks, n_jobs=n_jobs, progress=progress, desc=f"{name} (repeat {repeat + 1})"
    )


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation of the test BCA per method, with a ``mean ± sd`` column.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per repeat with columns ``method`` and ``test_bca``, as
        :func:`classification` returns.

    Returns
    -------
    pandas.DataFrame
        One row per method: ``mean``, ``sd``, ``repeats`` and ``test BCA``.

    Examples
    --------
    >>> frame = pd.DataFrame({"method": ["a", "a"], "test_bca": [0.5, 0.7]})
    >>> summarise(frame)["test BCA"].tolist()
    ['0.600 ± 0.141']
    """
    grouped = results.groupby("method", sort=False)["test_bca"]
    table = pd.DataFrame(
        {"mean": grouped.mean(), "sd": grouped.std(ddof=1), "repeats": grouped.size()}
    )
    table["test BCA"] = [f"{m:.3f} ± {s:.3f}" for m, s in zip(table["mean"], table["sd"])]
    return table


__all__ = [
    "classification",
    "summarise",
    "balanced_accuracy",
    "one_nn_bca",
    "METHODS",
    "D_GRID",
    "WEIGHT_GRID",
]
