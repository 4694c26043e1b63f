"""Every estimator in the package passes through each applicable inference rule.

Estimators are discovered from ``sdrstats.__all__`` at test time, so methods added later are
covered without editing this file. Applicable: ``bootstrap()`` for every method (by the
embedding of the training rows where there are no linear directions), the Ye-Weiss ``bootstrap``
rule for every method with linear directions; ``permutation`` and ``ladle`` for methods with
eigenvalues; ``asymptotic``/``cv`` where the method offers them. Rules that do not apply must
raise the clear "not available for <method>" error. Settings are tiny (B = 3): this checks
the plumbing, the statistical behaviour is tested in test_inference_dimension/bootstrap.
"""

import inspect
import warnings

import numpy as np
import pytest

import sdrstats as sdr
from sdrstats.fitting.estimator import Estimator
from sdrstats.results.fitted import DimensionTest

#: Options that make the expensive methods quick (applied only where the method has them).
QUICK = {
    "n_restarts": 1,
    "max_iter": 5,
    "n_basis": 20,
    "n_folds": 2,
    "cv_every": 100,
    "progress": False,
    "n_thresholds": 3,
    "n_landmarks": 30,
    "n_anneal": 1,
    "n_neighbors": 5,
    "init_size": 40,
    "block_size": 40,
    "y_points": 4,
    "d_max": 2,
    "penalty": 0.05,
}


def estimators():
    found = []
    for name in sorted(sdr.__all__):
        obj = getattr(sdr, name)
        if inspect.isclass(obj) and issubclass(obj, Estimator) and obj is not Estimator:
            found.append(obj)
    return found


def data_for(estimator):
    rng = np.random.default_rng(0)
    n, p = 90, 4
    X = rng.normal(size=(n, p))
    if estimator.response == "categorical":
        y = np.array(["a", "b", "c"])[np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])]
    else:
        y = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.2 * rng.normal(size=n)
    return X, y


def quick_fit(estimator):
    options = {k: v for k, v in QUICK.items() if k in estimator.params}
    for dim in ("d", "k"):
        if dim in estimator.params and estimator.params[dim] in (None, inspect.Parameter.empty):
            options[dim] = 2
    X, y = data_for(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings at max_iter=5 are expected
        try:
            return estimator(**options).fit(X, y)
        except ValueError as err:  # e.g. spca with a linear y-kernel has rank 1: d = 1
            if "at most" not in str(err):
                raise
            return estimator(**{**options, **{k: 1 for k in ("d", "k") if k in options}}).fit(X, y)


RULE_OPTIONS = {
    "permutation": {"n_permutations": 3},
    "ladle": {"B": 3},
    "bootstrap": {"B": 3, "d_max": 2},
}


@pytest.mark.parametrize("estimator", estimators(), ids=lambda e: e.method)
def test_every_method_through_every_applicable_rule(estimator):
    fit = quick_fit(estimator)
    linear = fit.output.basis is not None
    eigen = linear and fit.output.eigenvalues is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rule, options in RULE_OPTIONS.items():
            applicable = eigen if rule == "permutation" else linear
            if rule == "ladle":  # eigenvalues, with directions or (kernel SPCA) an embedding
                applicable = fit.output.eigenvalues is not None
            if applicable:
                test = fit.test_dimension(rule, random_state=0, progress=False, **options)
                assert isinstance(test, DimensionTest) and test.rule == rule
                assert 0 <= test.d <= fit.p
                assert str(test)
            else:
                with pytest.raises(ValueError, match=f"not available for {fit.method}"):
                    fit.test_dimension(rule, random_state=0, progress=False, **options)
        for rule in ("asymptotic", "cv"):
            if rule in fit._dimension_rules():
                assert isinstance(fit.test_dimension(rule), DimensionTest)
        # every method bootstraps: by its directions, or (no linear directions) by its
        # embedding of the training rows
        boot = fit.bootstrap(B=3, random_state=0, progress=False)
        assert boot.distances.shape == (3,)
        assert boot.n_failed < 3
        assert boot.kind == ("directions" if linear else "embedding")
