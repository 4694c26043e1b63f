"""Choosing the weights of SDSPCA, SDSPCA-LPP and SDSPCAAN by held-out classification accuracy.

Shi et al. (2020) tune ``α``, ``β`` (and ``δ``) over ``{0.01, 0.1, 1, 10, 100}``, each times
its trace scale, by the balanced classification accuracy (BCA: the mean per-class recall) of a
1-nearest-neighbour classifier on standardised projected features of validation rows.
:func:`tune_weights` does that on the rows of one fit: every combination of the grid is fitted
on the training rows of each fold and scored on the fold's held-out rows; the combination with
the best mean BCA wins (the first in grid order on a tie) and the fit is redone on all rows.
:func:`balanced_accuracy` and :func:`one_nn_bca` are the protocol's scores, also used by
:func:`sdrstats.evaluate.classification`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from ..base.parallel import parallel_map
from ..base.warnings import ConvergenceWarning

#: The weights' grid of Shi et al. (2020), each value times the weight's trace scale.
WEIGHT_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)


def balanced_accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean per-class recall over the classes present in ``y_true``.

    Parameters
    ----------
    y_true, y_pred : ndarray of shape (n,)
        True and predicted class labels.

    Returns
    -------
    float

    Examples
    --------
    >>> balanced_accuracy(np.array([0, 0, 0, 1]), np.array([0, 0, 1, 1]))
    0.8333333333333333
    """
    classes = np.unique(y_true)
    return float(np.mean([np.mean(y_pred[y_true == c] == c) for c in classes]))


def one_nn_bca(
    train: np.ndarray,
    y_train: np.ndarray,
    others: Sequence[np.ndarray],
    y_others: Sequence[np.ndarray],
) -> list[float]:
    """BCA of 1-NN on features standardised by the training rows' mean and deviation.

    Parameters
    ----------
    train : ndarray of shape (n, k)
        Reduced features of the training rows.
    y_train : ndarray of shape (n,)
        Their class labels.
    others : sequence of ndarray
        Feature matrices to classify (validation, test...).
    y_others : sequence of ndarray
        Their class labels.

    Returns
    -------
    list of float
        The balanced accuracy on each of ``others``.

    Examples
    --------
    >>> train = np.array([[0.0], [0.1], [1.0], [1.1]])
    >>> one_nn_bca(train, np.array([0, 0, 1, 1]), [np.array([[0.05], [0.9]])], [np.array([0, 1])])
    [1.0]
    """
    from sklearn.neighbors import KNeighborsClassifier

    center = train.mean(axis=0)
    scale = train.std(axis=0)
    # a feature whose spread is rounding error (e.g. W's column for Q's constant direction,
    # X^T 1 = 0) is constant: standardising it would turn rounding noise into a feature
    scale = np.where(scale > 1e-10 * max(scale.max(), 1e-300), scale, np.inf)
    knn = KNeighborsClassifier(n_neighbors=1).fit((train - center) / scale, y_train)
    return [
        balanced_accuracy(y, knn.predict((X - center) / scale)) for X, y in zip(others, y_others)
    ]


def stratified_folds(codes: np.ndarray, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold number of every row: each class's rows in random order, dealt out in turn."""
    folds = np.empty(codes.size, dtype=np.int64)
    for c in np.unique(codes):
        rows = rng.permutation(np.flatnonzero(codes == c))
        folds[rows] = (np.arange(rows.size) + int(rng.integers(n_folds))) % n_folds
    return folds


def _score(task: tuple, estimator: Any, X: np.ndarray, Y: np.ndarray, codes: np.ndarray) -> tuple:
    """BCA of one weight combination on one fold (fitted on the other folds' rows)."""
    weights, train, held_out = task
    fit_estimator = estimator.clone(**weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        output = fit_estimator._fit(X[train], Y[train])
    d = output.d
    projected = fit_estimator.transform_arrays(output, X[train], d)
    held = fit_estimator.transform_arrays(output, X[held_out], d)
    bca = one_nn_bca(projected, codes[train], [held], [codes[held_out]])[0]
    return bca, bool(output.extras.get("converged", True))


def tune_weights(estimator: Any, X: np.ndarray, Y: np.ndarray, random_state: Any) -> dict:
    """Choose the estimator's weights over ``weight_grid`` by held-out 1-NN BCA.

    Parameters
    ----------
    estimator : SDSPCA, SDSPCALPP or SDSPCAAN
        Its ``tune``, ``weight_grid``, ``n_folds``, ``n_jobs`` and ``progress`` options say
        how; its other options are kept in every fit.
    X : ndarray of shape (n, p)
        Predictors (raw: every fold's fit standardises with its own training rows).
    Y : ndarray of shape (n,)
        Class codes.
    random_state : int, SeedSequence or Generator, optional
        Seeds the folds.

    Returns
    -------
    dict
        ``chosen`` (weight name -> value), ``names``, ``grid`` (combinations x weights),
        ``bca`` (mean held-out BCA of each combination), ``bca_sd`` (its sd over folds),
        ``converged`` (share of the fits that met the stopping rule), ``n_fits``, ``how``.
    """
    o = estimator.options
    names = estimator.tuned_weights
    codes = np.unique(np.asarray(Y).reshape(-1), return_inverse=True)[1]
    n_folds = int(o["n_folds"])
    counts = np.bincount(codes)
    if counts.min() < n_folds:
        raise ValueError(
            f"{estimator.method}: tune={o['tune']!r} deals each class's rows out over "
            f"n_folds = {n_folds} folds and needs at least n_folds rows in every class "
            f"(the smallest class has {counts.min()}); lower n_folds or drop rare classes."
        )
    smallest_train = int(np.min(counts - np.ceil(counts / n_folds)))
    if smallest_train < 2:
        raise ValueError(
            f"{estimator.method}: with n_folds = {n_folds} a training part would keep "
            f"{smallest_train} row(s) of the smallest class; every class needs two. Raise "
            "n_folds or drop rare classes."
        )
    rng = np.random.default_rng(random_state)
    folds = stratified_folds(codes, n_folds, rng)
    held_out_folds = [0] if o["tune"] == "holdout" else list(range(n_folds))
    grid = [float(w) for w in np.atleast_1d(np.asarray(o["weight_grid"], dtype=float))]
    combos = list(itertools.product(grid, repeat=len(names)))
    base = estimator.clone(tune=None)
    tasks = [
        (dict(zip(names, combo)), np.flatnonzero(folds != f), np.flatnonzero(folds == f))
        for combo in combos
        for f in held_out_folds
    ]
    scores = parallel_map(
        partial(_score, estimator=base, X=X, Y=Y, codes=codes),
        tasks,
        n_jobs=o["n_jobs"],
        progress=o["progress"],
        desc=f"{estimator.method} tuning ({len(combos)} weight combinations)",
    )
    bca = np.array([s[0] for s in scores]).reshape(len(combos), len(held_out_folds))
    converged = np.array([s[1] for s in scores], dtype=float)
    mean = bca.mean(axis=1)
    best = int(np.argmax(mean))  # the first best in grid order
    how = (
        f"held-out fold of {n_folds} (stratified)"
        if o["tune"] == "holdout"
        else f"{n_folds}-fold stratified cross-validation"
    )
    return {
        "chosen": dict(zip(names, combos[best])),
        "names": list(names),
        "grid": np.asarray(combos, dtype=float),
        "bca": mean,
        "bca_sd": bca.std(axis=1, ddof=1) if bca.shape[1] > 1 else np.zeros(len(combos)),
        "converged": float(converged.mean()),
        "n_fits": len(tasks),
        "how": how,
    }


__all__ = [
    "WEIGHT_GRID",
    "balanced_accuracy",
    "one_nn_bca",
    "stratified_folds",
    "tune_weights",
]
