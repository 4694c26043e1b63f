"""The permutation test's ``statistic="largest"`` option, against a computation by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.base.parallel import spawn_seeds


def _frame(n: int = 150, p: int = 4, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = X[:, 0] + 0.4 * X[:, 1] ** 3 + 0.3 * rng.standard_normal(n)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    frame["y"] = y
    return frame


def _sir_eigenvalues(X: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """SIR's eigenvalues (decreasing), whitening by the symmetric root of the covariance."""
    C = X - X.mean(axis=0)
    values, vectors = np.linalg.eigh(C.T @ C / len(X))
    Z = C @ (vectors / np.sqrt(values)) @ vectors.T
    kernel = np.zeros((X.shape[1],) * 2)
    for s in np.unique(labels):
        mean = Z[labels == s].mean(axis=0)
        kernel += np.mean(labels == s) * np.outer(mean, mean)
    return np.sort(np.linalg.eigvalsh(kernel))[::-1]


def test_largest_statistic_matches_a_computation_by_hand():
    frame = _frame()
    fit = sdr.sir("y ~ x1 + x2 + x3 + x4", frame, nslices=5)
    n_perm, d_max, seed = 19, 3, 5
    test = fit.test_dimension(
        "permutation",
        statistic="largest",
        n_permutations=n_perm,
        d_max=d_max,
        random_state=seed,
        progress=False,
    )
    X = frame[["x1", "x2", "x3", "x4"]].to_numpy()
    # the fit's slices: R dr's rule on 150 distinct values of y gives 5 slices of 30 by rank
    assert fit.slice_sizes.tolist() == [30] * 5
    labels = np.repeat(np.arange(5), 30)[np.argsort(np.argsort(frame["y"].to_numpy()))]
    observed = _sir_eigenvalues(X, labels)
    np.testing.assert_allclose(test.table["stat"], observed[:d_max], rtol=1e-8)
    # the permutations: hypothesis m keeps (y, the first m whitened directions) and permutes
    # the rows of the orthogonal part, with the seeds of child m of the test's seed
    C = X - X.mean(axis=0)
    L = np.linalg.cholesky(C.T @ C / len(X))
    Z = np.linalg.solve(L, C.T).T
    basis = np.asarray(fit.output.basis)
    for m, child in enumerate(spawn_seeds(seed, d_max)):
        if m:
            q, _ = np.linalg.qr(L.T @ basis[:, :m], mode="complete")
        else:
            q = np.eye(X.shape[1])
        q1, q2 = q[:, :m], q[:, m:]
        permuted = []
        for s in spawn_seeds(child, n_perm):
            order = np.random.default_rng(s).permutation(len(X))
            Zp = Z @ q1 @ q1.T + (Z @ q2)[order] @ q2.T
            permuted.append(_sir_eigenvalues(Zp, labels)[m])
        permuted = np.array(permuted)
        np.testing.assert_allclose(test.extras["permuted_statistics"][m], permuted, rtol=1e-8)
        p_value = (1 + np.sum(permuted >= observed[m] * (1 - 1e-12))) / (n_perm + 1)
        assert test.table["p_value"].iloc[m] == pytest.approx(p_value)
    assert "largest remaining" in test.note


def test_sum_stays_the_default_and_bad_statistic_is_named():
    fit = sdr.sir("y ~ x1 + x2 + x3 + x4", _frame(), nslices=5)
    options = {"n_permutations": 9, "d_max": 2, "random_state": 1, "progress": False}
    default = fit.test_dimension("permutation", **options)
    summed = fit.test_dimension("permutation", statistic="sum", **options)
    pd.testing.assert_frame_equal(default.table, summed.table)
    largest = fit.test_dimension("permutation", statistic="largest", **options)
    assert np.all(largest.table["stat"] <= summed.table["stat"] + 1e-12)
    with pytest.raises(ValueError, match="'statistic' option of the permutation test"):
        fit.test_dimension("permutation", statistic="max", **options)
