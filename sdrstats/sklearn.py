"""scikit-learn adapter: any sdrstats method as a transformer in a ``Pipeline``.

``SDRTransformer(method="sir", d=2, nslices=8)`` fits the method named ``method`` on arrays
(``fit(X, y)``) and maps rows to the ``d`` reduced predictors (``transform(X)``). Its
parameters are ``method``, ``d`` and the method's own options, so ``GridSearchCV`` can tune any
of them (``{"sdr__d": [1, 2], "sdr__nslices": [5, 10]}``). The fitted sdrstats result is kept
as ``results_`` (summary, tests, bootstrap).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .base.validation import Interval, Options, validate_parameters


def estimator_classes() -> dict[str, type]:
    """The sdrstats estimator classes by method name (``"sir"``, ``"save"``...).

    Returns
    -------
    dict of str to type

    Examples
    --------
    >>> classes = estimator_classes()
    >>> classes["sir"].__name__, classes["mave"].__name__
    ('SIR', 'MAVE')
    """
    import sdrstats
    from sdrstats.fitting.estimator import Estimator

    classes = {}
    for name in sdrstats.__all__:
        obj = getattr(sdrstats, name)
        if inspect.isclass(obj) and issubclass(obj, Estimator) and obj.method:
            classes.setdefault(obj.method, obj)
    return classes


class SDRTransformer(TransformerMixin, BaseEstimator):
    """A sufficient dimension reduction method as a scikit-learn transformer.

    Parameters
    ----------
    method : str, default "sir"
        The sdrstats method: ``"sir"``, ``"save"``, ``"phd"``, ``"ire"``, ``"cume"``,
        ``"directional_regression"``, ``"mave"``, ``"lsce"``, ``"lsmi"``, ``"spca"``,
        ``"kspca"``, ``"kdr"``... (see :func:`estimator_classes`).
    d : int, default 2
        Number of reduced predictors returned by ``transform`` (passed to the method as its
        ``d``).
    **options
        The method's own options (``nslices=8``, ``random_state=0``...); unknown ones raise
        ``TypeError`` at ``fit`` naming the valid ones.

    Attributes
    ----------
    results_ : sdrstats.Results
        The fitted result.
    n_features_in_ : int

    Examples
    --------
    >>> import sdrstats as sdr
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> ais = sdr.datasets.load("ais")
    >>> X, y = np.log(ais[["ssf", "wt", "hg", "ht"]]).to_numpy(), ais["lbm"].to_numpy()
    >>> model = make_pipeline(SDRTransformer("sir", d=1, nslices=8), LinearRegression())
    >>> round(model.fit(X, y).score(X, y), 3)
    0.967
    """

    def __init__(self, method: str = "sir", *, d: int = 2, **options: Any) -> None:
        # ``method`` names the estimator (it may be given by position, as in a pipeline);
        # the method's own options are collected by ``**options``.
        self.method = method
        self.d = d
        for name, value in options.items():
            setattr(self, name, value)
        self._option_names = sorted(options)

    @staticmethod
    def _parameter_constraints() -> dict[str, list[Any]]:
        return {"method": [Options(sorted(estimator_classes()))], "d": [Interval(int, 1, None)]}

    # scikit-learn finds parameters in the __init__ signature; the method's options are
    # keyword arguments too, so they are listed here.
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = {"method": self.method, "d": self.d}
        params.update({name: getattr(self, name) for name in self._option_names})
        return params

    def set_params(self, **params: Any) -> SDRTransformer:
        for name, value in params.items():
            setattr(self, name, value)
            if name not in ("method", "d") and name not in self._option_names:
                self._option_names = sorted([*self._option_names, name])
        return self

    def __sklearn_clone__(self) -> SDRTransformer:
        return type(self)(**self.get_params(deep=False))

    def _estimator(self, n_features: int) -> Any:
        validate_parameters(
            self._parameter_constraints(), {"method": self.method, "d": self.d}, "SDRTransformer"
        )
        cls = estimator_classes()[self.method]
        d = self.d
        if d > n_features:
            raise ValueError(
                f"The 'd' parameter of SDRTransformer must be at most the number of features "
                f"({n_features}); got {d}."
            )
        options = {name: getattr(self, name) for name in self._option_names}
        if "d" in cls.params:
            options["d"] = int(d)
        return cls(**options)

    def fit(self, X: Any, y: Any) -> SDRTransformer:
        """Fit the method on ``X`` (n, p) and the response ``y`` (numbers or class labels)."""
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False, multi_output=True)
        if X.shape[0] < 2:
            raise ValueError(
                f"SDRTransformer needs at least two observations; got n_samples = {X.shape[0]}."
            )
        estimator = self._estimator(X.shape[1])
        self.results_ = estimator.fit(X, y, missing="raise")
        return self

    def transform(self, X: Any) -> np.ndarray:
        """The ``d`` reduced predictors of the rows of ``X``."""
        check_is_fitted(self, "results_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        results = self.results_
        return results.estimator.transform_arrays(results.output, X, min(self.d, results.d))

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


__all__ = ["SDRTransformer", "estimator_classes"]
