"""The rows of an in-memory fit as the one chunk an estimator's passes read.

A method that fits from mergeable statistics states its passes once, as accumulators reduced
over a *source*: :class:`~sdrstats.scale.fit.ChunkedData` reads chunks or Dask partitions and
merges one accumulator per chunk; :class:`RowsInMemory` hands the rows of a model spec to one
accumulator in one update. Both answer the same questions (predictors, response, case
weights, passes), so the in-memory fit is the one-chunk case of the chunked one and cannot
differ from it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..design.checks import clearly_fine, squares_clearly_fine


class RowsNotChecked(ValueError):
    """The first pass over rows whose predictors the array front did not scan found a column
    that is not clearly finite and in range; the front's full check (which drops rows with
    missing values or names the bad column and row) has to run before the fit."""

    def __init__(self) -> None:
        super().__init__(
            "The predictors hold missing, infinite or out-of-range values; fit them through "
            "the array front (Estimator.fit), which checks them."
        )


class RowsInMemory:
    """The rows ``X``, ``Y`` of a fit as one chunk: every pass is one ``update`` of them.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Predictors.
    Y : ndarray
        Response, as the model spec holds it (``(n, q)`` floats or ``(n,)`` class codes).
    x_names, y_names : list of str
        Labels, for messages.
    categorical : bool, default False
        The response is a class label.
    case_weights : ndarray of shape (n,), optional
        R ``dr``'s case weights, already rescaled by R's rule (see
        :func:`sdrstats.design.weights.rescale`); accumulators then take ``update(X, y, w)``.
    frequency : ndarray of shape (n,), optional
        Frequency weights (bootstrap counts): accumulators take ``update(X, y, frequency)``.
    groups : ndarray of shape (n,), optional
        Each row's value of a group column (partial methods): ``update_groups(X, y, groups)``.
    positions : ndarray of int, optional
        The rows' 0-based positions in the data as given (default ``0..n-1``):
        ``update_positioned(X, y, positions)``.

    Attributes
    ----------
    keeps_rows : bool
        True: the rows are held, so an accumulator may keep them (the whitening may fall back
        to their QR, a test may be computed later from them).
    case_weighted : bool
        Whether R's case weights come with the rows.
    n_chunks : int
        1.

    Examples
    --------
    >>> import numpy as np
    >>> class Count:
    ...     n = 0
    ...     def update(self, X, y):
    ...         self.n += len(X)
    ...         return self
    >>> RowsInMemory(np.zeros((5, 2)), np.zeros(5), x_names=["a", "b"]).reduce(Count()).n
    5
    """

    keeps_rows = True
    n_chunks = 1
    n_dropped = 0
    level_order = None
    can_sort = False
    #: No column of case weights: in memory they come with the rows (``case_weights``).
    weights = None
    #: The model spec whose ``x_checked`` flag the first pass sets (``of_spec``), or None.
    spec: Any = None

    def __init__(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        x_names: list[str],
        y_names: list[str] | None = None,
        categorical: bool = False,
        case_weights: np.ndarray | None = None,
        frequency: np.ndarray | None = None,
        groups: np.ndarray | None = None,
        positions: np.ndarray | None = None,
        checked: bool = True,
    ) -> None:
        self.X, self.Y = X, Y
        #: False until the first pass has checked the predictors (see :meth:`reduce`).
        self.checked = bool(checked)
        self.x_names = list(x_names)
        self.y_names = list(y_names or ["y"])
        self.categorical = bool(categorical)
        self.case_weights = case_weights
        self.frequency = frequency
        self.groups = groups
        self.positions = positions
        self.row_passes = 0

    @classmethod
    def of_spec(cls, spec: Any, frequency: np.ndarray | None = None) -> RowsInMemory:
        """The rows of a model spec (its case weights, groups and positions with them).

        Parameters
        ----------
        spec : ModelSpec
            A spec that holds its rows.
        frequency : ndarray of shape (n,), optional
            Frequency weights of a refit.

        Returns
        -------
        RowsInMemory

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"))
        >>> RowsInMemory.of_spec(spec).p
        2
        """
        rows = cls(
            spec.X,
            spec.Y,
            x_names=list(spec.x_names),
            y_names=list(spec.y_names),
            categorical=spec.categorical,
            case_weights=spec.case_weights,
            frequency=frequency,
            groups=spec.groups,
            positions=spec.positions,
            checked=getattr(spec, "x_checked", True),
        )
        rows.spec = spec
        return rows

    @property
    def p(self) -> int:
        return self.X.shape[1]

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def case_weighted(self) -> bool:
        return self.case_weights is not None

    def reduce(self, template: Any, column: str | None = None) -> Any:
        """``template`` updated with the rows (it is used, not copied: one chunk).

        With ``column``, the accumulator's ``update_groups(X, y, groups)`` gets each row's
        group (the rows' values of that column).
        """
        self.row_passes += 1
        if not self.checked:
            return self._checked_reduce(template, column)
        return self._reduce(template, column)

    def _checked_reduce(self, template: Any, column: str | None) -> Any:
        """The first pass over rows the array front did not scan (``checked`` False).

        An accumulator with ``column_squares()`` (the moment statistics) yields each column's
        sum of squares from its own moments, ``n (var + mean²)``: NaN or infinite when the
        column holds NaN or inf, and bounding its largest value as the front's scan does
        (:func:`sdrstats.design.checks.clearly_fine`), so the rows are read once instead of
        twice. Any other accumulator gets the scan first. Rows that are not clearly fine raise
        :class:`RowsNotChecked`: the caller redoes the array front's full check.
        """
        if getattr(template, "column_squares", None) is None:
            self._scan()
            return self._reduce(template, column)
        try:
            with np.errstate(all="ignore"):  # NaN and inf are refused just below
                out = self._reduce(template, column)
        except ValueError:
            self._scan()  # fine rows: the error is the fit's own
            raise
        if not squares_clearly_fine(out.column_squares(), self.n):
            raise RowsNotChecked()
        self._mark_checked()
        return out

    def _scan(self) -> None:
        """The array front's scan of the predictors, when no pass has done it yet."""
        if not self.checked:
            if not clearly_fine(self.X):
                raise RowsNotChecked()
            self._mark_checked()

    def _mark_checked(self) -> None:
        self.checked = True
        if self.spec is not None:
            self.spec.x_checked = True

    def _reduce(self, template: Any, column: str | None) -> Any:
        if column is not None:
            if self.groups is None:
                raise ValueError(f"These rows carry no values of the column {column!r}.")
            return template.update_groups(self.X, self.Y, self.groups)
        if self.case_weights is not None:
            return template.update(self.X, self.Y, self.case_weights)
        if self.frequency is not None:
            return template.update(self.X, self.Y, self.frequency)
        return template.update(self.X, self.Y)

    def reduce_positioned(self, template: Any) -> Any:
        """``template`` updated with the rows and their positions (``update_positioned``)."""
        self._scan()
        positions = np.arange(self.n) if self.positions is None else np.asarray(self.positions)
        return template.update_positioned(self.X, self.Y, positions)

    def response_ranges(self, max_rows: int) -> list[tuple[float, float]]:
        """One range holding every row: the rows are in memory already."""
        return [(-np.inf, np.inf)]


__all__ = ["RowsInMemory", "RowsNotChecked"]
