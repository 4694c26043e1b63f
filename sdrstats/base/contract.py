"""What every estimator declares and returns, and what generic layers may ask of it.

:class:`Capabilities` (declared once per estimator class, like scikit-learn's tags),
:class:`EstimatorOutput` (what ``_fit`` returns) and :class:`FamilyHooks`, the methods through
which a generic layer (scale, inference) uses a family's special skill without importing it:
``asymptotic_test_available`` (whether a fit holds what its test reads) and
``replicate_kernel`` (a fast weighted bootstrap); a fit from chunked or Dask data is
``fit_output`` of a model spec that holds the chunks instead of rows. :class:`sdrstats.fitting.estimator.Estimator` inherits
the hooks; a family overrides the ones its ``capabilities`` declare. :class:`EstimatorLike` is
what a fitted result, and the layers that work through it, may ask of the estimator that made
it: they sit below the estimator class and never import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .persistence import register


@dataclass(frozen=True)
class Capabilities:
    """What an estimator class can do, declared once per class (like scikit-learn's tags).

    The results, inference and scale layers and the error messages read these instead of
    testing for a family's types or methods; ``tests/test_capabilities.py`` checks each
    declaration against what the class really does.

    Attributes
    ----------
    linear_directions : bool
        The fit has a basis ``B`` (p x d); kernel methods without one transform rows themselves.
    eigenvalues : bool
        The fit reports per-direction eigenvalues (permutation tests and the scree plot use them).
    from_statistics : bool
        The method fits from mergeable statistics (its ``fit_output`` passes accumulators
        over the spec's rows or over chunks), so it accepts chunked and Dask data.
    asymptotic_test : bool
        The estimator has an ``asymptotic_test(results, ...)`` dimension test.
    cv_test : bool
        The estimator has a cross-validation dimension rule ``cv_test(results, ...)``.
    weighted_replicates : bool
        ``replicate_kernel(results)`` gives bootstrap replicates from case weights without
        refitting row by row.
    case_weights : bool
        The fit applies R ``dr``'s case weights (``weights=`` of the formula function,
        ``sample_weight=`` of ``fit``), which the model spec carries.
    centered_bootstrap : bool
        The replicate kernel offers ``centered(d)``: a bootstrap centred on the fitted
        subspace, which ``bootstrap`` uses by default (SAVE, whose plain bootstrap
        over-covers; see :func:`sdrstats.inference.bootstrap`).
    nested_directions : bool
        The ``k``-dimensional answer is the first ``k`` directions of one fit (eigen
        methods), so a fit computed once serves every ``d``; methods that fit each dimension
        separately (IRE, MAVE, LSCE, KDR...) set it False.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> sdr.SIR.capabilities.from_statistics, sdr.KSPCA.capabilities.linear_directions
    (True, False)
    """

    linear_directions: bool = True
    eigenvalues: bool = True
    from_statistics: bool = False
    asymptotic_test: bool = False
    cv_test: bool = False
    weighted_replicates: bool = False
    case_weights: bool = False
    centered_bootstrap: bool = False
    nested_directions: bool = True


@register
@dataclass
class EstimatorOutput:
    """What an estimator computes from arrays.

    Attributes
    ----------
    basis : ndarray of shape (p, K)
        Directions in the original predictor scale, unit columns, canonical sign, most
        important first. ``K >= d`` (moment methods keep all ``p``).
    d : int
        Dimension of the reported subspace.
    eigenvalues : ndarray or None
        Eigenvalues (or other per-direction importance) for the columns of ``basis``.
    criterion : float or None
        The optimised objective for non-eigen methods.
    center : ndarray or None
        Predictor mean used to centre new rows in ``transform`` (defaults to the data mean).
    extras : dict
        Method-specific results (slice sizes, traces, tuning parameters...). A method that
        fits each dimension separately (IRE) keeps its ``k``-dimensional bases under
        ``"solutions"`` (``k -> p × k``), and :meth:`basis_for` returns them; one asked for
        ``d=None`` may keep its whole fit at every candidate ``k`` under ``"by_dimension"``
        (``k -> EstimatorOutput``) for its dimension rule.
    """

    basis: np.ndarray | None
    d: int
    eigenvalues: np.ndarray | None = None
    criterion: float | None = None
    center: np.ndarray | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def basis_for(self, k: int) -> np.ndarray:
        """The basis of the ``k``-dimensional fit.

        The method's own ``k``-D solution where it fits one per dimension (IRE, as R's
        ``dr.basis(fit, k)``), else the first ``k`` columns of ``basis``.
        """
        if self.basis is None:
            raise ValueError("this fit has no linear directions.")
        by_dimension = self.extras.get("by_dimension")
        if isinstance(by_dimension, dict) and k in by_dimension and k != self.d:
            return by_dimension[k].basis_for(k)
        solutions = self.extras.get("solutions")
        if isinstance(solutions, dict) and k in solutions:
            return np.asarray(solutions[k])
        return self.basis[:, :k]


class EstimatorLike(Protocol):
    """The estimator as a result sees it: its options, what it can do, and its fit.

    :class:`sdrstats.fitting.estimator.Estimator` is one; the results, inference, density and
    scale layers type an estimator with this, so that they need not import the class that
    makes results (it sits above them).
    """

    method: str
    capabilities: Capabilities
    params: dict[str, Any]

    @property
    def label(self) -> str: ...

    @property
    def options(self) -> dict[str, Any]: ...

    def clone(self, **changes: Any) -> EstimatorLike: ...

    def fit_output(
        self, spec: Any, *, weights: np.ndarray | None = None, random_state: Any = None
    ) -> EstimatorOutput: ...

    def transform_arrays(self, output: EstimatorOutput, X: np.ndarray, d: int) -> np.ndarray: ...

    def replicate_kernel(self, results: Any) -> Any: ...

    def asymptotic_test_available(self, results: Any) -> bool: ...


class FamilyHooks:
    """Default answers of the generic layers' questions: no accumulator, no weighted kernel."""

    method: str = ""
    capabilities: Capabilities = Capabilities()

    def asymptotic_test_available(self, results: Any) -> bool:
        """Whether ``asymptotic_test(results)`` can run on what ``results`` holds.

        True by default (an ``asymptotic_test`` method's test); a method whose test reads
        the rows says False for a fit on chunked data that did not accumulate what it needs.

        Parameters
        ----------
        results : Results
            The fit.

        Returns
        -------
        bool

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", ais, nslices=8)
        >>> fit.estimator.asymptotic_test_available(fit)
        True
        """
        return True

    def statistics_unavailable(self) -> ValueError:
        """The error for chunked or Dask data given to a method that needs the rows.

        Returns
        -------
        ValueError

        Examples
        --------
        >>> import sdrstats as sdr
        >>> "load the data with pandas" in str(sdr.MAVE().statistics_unavailable())
        True
        """
        return ValueError(
            f"{self.method} is not available for chunked or Dask data (it needs the rows in "
            "memory); load the data with pandas. Methods that fit from accumulated statistics: "
            f"{', '.join(from_statistics_methods())}."
        )

    def replicate_kernel(self, results: Any) -> Any:
        """Bootstrap replicates from case weights, or None to refit on resampled rows.

        A ``weighted_replicates`` method returns an object whose ``replicates(counts)`` maps a
        block of multinomial counts (b x n) to one ``(basis, eigenvalues)`` (or an error text)
        per row of counts, equal to the weighted refits.

        Parameters
        ----------
        results : Results
            The fit to resample.

        Returns
        -------
        object or None

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.mave("lbm ~ ht + wt", ais, d=1)
        >>> fit.estimator.replicate_kernel(fit) is None
        True
        """
        return None


def from_statistics_methods() -> list[str]:
    """Names of the imported methods that fit from accumulated statistics (for messages)."""
    found: list[str] = []
    pending = list(FamilyHooks.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.capabilities.from_statistics and cls.method and cls.method not in found:
            found.append(cls.method)
    return sorted(found)


__all__ = [
    "Capabilities",
    "EstimatorLike",
    "EstimatorOutput",
    "FamilyHooks",
    "from_statistics_methods",
]
