"""The one result type of every rule for choosing the dimension, and the one wording of a
fit's dimension line ("d = 2 (chosen by the asymptotic test at level 0.05)")."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.persistence import register
from ..base.tables import Block, Summary, render_text_table
from ..stats.chi2 import chi2_sf

#: How a summary names each rule for choosing the dimension (the values of ``d_rule``).
RULE_NAMES = {
    "asymptotic": "the asymptotic test",
    "permutation": "the permutation test",
    "ladle": "the ladle",
    "bootstrap": "the bootstrap rule of Ye & Weiss",
    "cv": "cross-validation",
    "ratio": "the eigenvalue-ratio rule",
    "kmeans": "R LassoSIR's k-means rule",
}

#: Li's (1991) χ² test chooses ``d`` by default (``d_rule="auto"``) only on at least this many
#: rows per coordinate of the slice means, ``n >= SIR_TEST_ROWS_PER_CELL * p * H``. Its size
#: was measured at 0.02-0.065 (level 0.05, 200-400 data sets, single index, 10 slices) for
#: normal, t5 and centred exponential predictors at ``p = 6-100`` from ``n = 0.3 p H`` up,
#: but the test turns conservative as ``n`` nears ``p`` (size 0-0.015 at ``n = 1.2-2 p``,
#: where it would choose d = 0); twice ``p H`` keeps well clear of that regime.
SIR_TEST_ROWS_PER_CELL = 2


@register  # a fit keeps the test that chose its d: saved with it
class DimensionTest:
    """Result of a rule for choosing the dimension.

    Rules build it; users read it (``print`` shows the R-style table and the chosen ``d``).
    Every parameter is kept as the attribute of the same name.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per hypothesis or candidate dimension; columns depend on the rule (asymptotic
        tests: ``stat``, ``df``, ``p_value`` and extra p-value columns).
    d : int
        The chosen dimension: for tests, the smallest ``m`` whose hypothesis "mD vs >= (m+1)D"
        is not rejected at ``level``; for criteria, the minimiser.
    rule : str
        ``"asymptotic"``, ``"permutation"``, ``"ladle"``, ``"bootstrap"`` or ``"cv"``.
    method : str
        The SDR method tested.
    level : float or None, default 0.05
        Significance level of a test rule; None for criteria.
    n_replicates : int or None, default None
        Permutations or bootstrap replicates used, if the rule resamples.
    random_state : object, default None
        The seed the rule used, recorded so the run can be repeated.
    title : str, optional
        Heading of the printout; default "<Rule> dimension test for <method>".
    display_names : dict of str to str, optional
        Printed names of the table's columns (e.g. ``{"p_value": "p.value"}``).
    note : str, optional
        A line printed under the table.
    extras : dict, optional
        Rule-specific details (curves, replicate values) for plots.
    decided_by : str, optional
        Which p-values chose ``d`` when the table has several columns of them (SAVE's and
        pHd's normal-theory ones), as the fit's dimension line names them.
    fallback : str, optional
        Why this rule stands in for the method's default test (``d_rule="auto"`` when the test
        is not valid on the fit, e.g. ``"too few rows for the test (...)"``); the fit's
        dimension line and the printout say it.

    See Also
    --------
    Results.test_dimension : The call that returns it.
    sdrstats.plotting.plot_dimension_test : Its plot.

    References
    ----------
    :cite:t:`li1991`; :cite:t:`cook2001`; :cite:t:`ye2003`; :cite:t:`luo2016`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> test = fit.test_dimension("asymptotic")
    >>> test.rule, test.d
    ('asymptotic', 2)
    >>> test.table["p_value"].round(3).tolist()
    [0.0, 0.0, 0.113, 0.942]
    """

    #: Set by a fit whose default test gave way to this rule (None in files saved before).
    fallback: str | None = None

    def __init__(
        self,
        table: pd.DataFrame,
        d: int,
        rule: str,
        method: str,
        *,
        level: float | None = 0.05,
        n_replicates: int | None = None,
        random_state: Any = None,
        title: str | None = None,
        display_names: dict[str, str] | None = None,
        note: str | None = None,
        extras: dict[str, Any] | None = None,
        decided_by: str | None = None,
        fallback: str | None = None,
    ) -> None:
        self.table = table
        self.d = int(d)
        self.rule = rule
        self.method = method
        self.level = level
        self.n_replicates = n_replicates
        self.random_state = random_state
        self.title = title or f"{rule.capitalize()} dimension test for {method}"
        self.display_names = display_names or {}
        self.note = note
        self.extras = extras or {}
        self.decided_by = decided_by
        self.fallback = fallback

    def describe(self) -> str:
        """The rule as a fit's dimension line names it, with its level and resampling size.

        Returns
        -------
        str
            E.g. ``"the permutation test at level 0.05 (999 permutations)"``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.test_dimension().describe()
        'the asymptotic test at level 0.05 on its normal-theory p-values'
        """
        text = RULE_NAMES.get(self.rule, f"the {self.rule} rule")
        if self.level is not None and "p_value" in self.table.columns:
            text += f" at level {self.level:g}"
        if self.decided_by:
            text += f" on its {self.decided_by}"
        if self.rule == "cv" and self.extras.get("choice") == "1se":
            text += " with the one-standard-error rule"
        if self.n_replicates and self.rule == "permutation":
            text += f" with {self.n_replicates} permutations"
        elif self.n_replicates:
            text += f" with {self.n_replicates} bootstrap replicates"
        return text

    def columns_note(self) -> str | None:
        """Which printed p-value column chose ``d`` and what the others would choose.

        Only for a table with several columns of p-values (SAVE's and pHd's); None otherwise.

        Returns
        -------
        str or None

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.phd("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
        >>> print(fit.test_dimension().columns_note())
        d = 3 is read from the "Normal theory" column; the "Indep. test" column would choose d >= 1, the "General theory" column d = 2.
        """
        others = [c for c in self.table.columns if c.startswith("p_value") and c != "p_value"]
        if not others or "p_value" not in self.table.columns or self.level is None:
            return None

        def shown(column: str) -> str:
            return f'"{self.display_names.get(column, column)}"'

        def chosen(column: str) -> str:
            values = self.table[column].to_numpy(dtype=float)
            tested = values[~np.isnan(values)]
            d = choose_by_pvalues(tested, self.level)
            # a column that rejects every hypothesis it tests (pHd's independence test has
            # only 0D) says only that d is at least their number
            return f"d >= {d}" if d == tested.size else f"d = {d}"

        said = [f"the {shown(others[0])} column would choose {chosen(others[0])}"]
        said += [f"the {shown(c)} column {chosen(c)}" for c in others[1:]]
        return f"d = {self.d} is read from the {shown('p_value')} column; " + ", ".join(said) + "."

    def display_table(self) -> pd.DataFrame:
        """The table with R-style column names, as printed.

        Returns
        -------
        pandas.DataFrame
            The table with R's column names (``Stat``, ``df``, ``p.value``...).

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.test_dimension().display_table().columns.tolist()
        ['Stat', 'df', 'p.value']
        """
        return self.table.rename(columns=self.display_names)

    def _footer(self) -> str:
        bits = []
        if self.n_replicates:
            bits.append(f"{self.n_replicates} replicates, random_state = {self.random_state!r}.")
        if self.level is not None and "p_value" in self.table.columns:
            p_values = self.table["p_value"].to_numpy(dtype=float)
            if np.all(p_values < self.level):
                # no hypothesis survived: the table only bounds d from below
                bits.append(
                    f"Chosen d = {self.d}: every test is rejected at level {self.level:g}, so "
                    f"d >= {self.d}; the table tests no larger dimension."
                )
            else:
                bits.append(
                    f"Chosen d = {self.d}: smallest m whose test is not rejected at level "
                    f"{self.level:g}."
                )
        else:
            bits.append(f"Chosen d = {self.d}.")
        if self.fallback:
            bits.append(f"This rule stands in for the default test: {self.fallback}.")
        if self.note:
            bits.append(self.note)
        return "\n".join(bits)

    @property
    def conclusion(self) -> str:
        """The lines under the table: the chosen dimension and how it was chosen.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.test_dimension().conclusion.splitlines()[0]
        'Chosen d = 2: smallest m whose test is not rejected at level 0.05.'
        """
        return self._footer()

    @property
    def table_text(self) -> str:
        """The title and the table as :meth:`__str__` prints them, without the conclusion."""
        return f"{self.title}:\n{render_text_table(self.display_table())}"

    def summary(self) -> Summary:
        """The table and the chosen dimension as a :class:`~sdrstats.base.tables.Summary`.

        Returns
        -------
        Summary
            Text by ``str()``, HTML in a notebook, LaTeX by ``as_latex()``.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.test_dimension().summary().blocks[0].title
        'Large-sample Marginal Dimension Tests'
        """
        return Summary(
            [Block(self.title, table=self.display_table()), Block("", text=self._footer())]
        )

    def __str__(self) -> str:
        return f"{self.table_text}\n{self._footer()}\n"

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    def plot(self, *, ax: Any = None, figsize: Any = None) -> Any:
        """Plot the rule's criterion by dimension (p-values on a log scale), the chosen d marked.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default a new figure.
        figsize : tuple of float, optional
            Size of a new figure in inches; default one column (3.4 x 2.8).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fig = fit.test_dimension().plot()
        """
        from ..plotting.inference import plot_dimension_test

        return plot_dimension_test(self, ax=ax, figsize=figsize)


def dimension_how(test: DimensionTest | None) -> str:
    """How a fit's ``d`` was set, as :func:`dimension_line` words it ("given", "chosen by ...").

    Examples
    --------
    >>> dimension_how(None)
    'given'
    """
    if test is None:
        return "given"
    # a default test that was not valid on the fit names the rule that stood in, and why
    if test.d < 1:
        why = f" ({test.fallback})" if test.fallback else ""
        return (
            f"{test.describe()}{why} chose d = 0: no evidence that the response depends on "
            "the predictors; the fit keeps one direction"
        )
    return f"chosen by {test.describe()}" + (f": {test.fallback}" if test.fallback else "")


def dimension_line(d: int, test: DimensionTest | None) -> str:
    """How every summary states a fit's ``d``: given, or chosen by which rule.

    Parameters
    ----------
    d : int
        The fit's dimension.
    test : DimensionTest or None
        The rule's result that chose it; None when ``d`` was given.

    Returns
    -------
    str

    Examples
    --------
    >>> dimension_line(2, None)
    'd = 2 (given)'
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> dimension_line(fit.d, fit.d_choice)
    'd = 2 (chosen by the asymptotic test at level 0.05)'
    """
    return f"d = {d} ({dimension_how(test)})"


def sir_test_unavailable(n: float, p: int, h: int) -> str | None:
    """Why Li's (1991) χ² test of SIR should not choose ``d`` by default; None when it may.

    The default rule of Lasso-SIR and online SIR (``d_rule="auto"``) uses the test on at
    least ``SIR_TEST_ROWS_PER_CELL * p * h`` rows (two rows per coordinate of the ``p x h``
    slice means) and otherwise their rule that needs no covariance inverse.

    Parameters
    ----------
    n : float
        Rows fitted.
    p : int
        Predictors.
    h : int
        Slices holding rows.

    Returns
    -------
    str or None
        The reason, as the fit's dimension line words it.

    Examples
    --------
    >>> sir_test_unavailable(400, 6, 10) is None
    True
    >>> sir_test_unavailable(120, 200, 10)
    'too few rows for the test, n = 120 < 2 x p x slices = 4000'
    """
    needed = SIR_TEST_ROWS_PER_CELL * p * h
    if n < needed:
        return (
            f"too few rows for the test, n = {int(n)} < {SIR_TEST_ROWS_PER_CELL} x p x slices "
            f"= {int(needed)}"
        )
    return None


def choose_by_pvalues(p_values: np.ndarray, level: float) -> int:
    """Smallest m whose p-value is at least ``level``; the number of tests if all reject."""
    not_rejected = np.flatnonzero(np.asarray(p_values) >= level)
    return int(not_rejected[0]) if not_rejected.size else len(p_values)


def hypothesis_labels(k: int) -> list[str]:
    """Row labels "0D vs >= 1D", ... for k hypotheses."""
    return [f"{m}D vs >= {m + 1}D" for m in range(k)]


def sir_dimension_test(
    eigenvalues: np.ndarray,
    n: float,
    p: int,
    h: int,
    rows: int,
    level: float,
    method: str,
) -> DimensionTest:
    """Li's (1991) χ² test from SIR's eigenvalues: ``n Σ_{j>m} λ_j ~ χ²((p−m)(h−m−1))``.

    As R ``dr``'s: the rows test ``m = 0..rows-1``, never ``m ≥ h − 1`` (SIR estimates at most
    ``h − 1`` directions). The moment family's SIR and a stream's result (from the slice
    moments it keeps) both read their test here.

    Parameters
    ----------
    eigenvalues : ndarray of shape (p,)
        SIR's eigenvalues (any order).
    n : float
        Rows fitted.
    p : int
        Predictors.
    h : int
        Slices holding rows.
    rows : int
        Hypotheses to test (at most ``h - 1`` are).
    level : float
        Level of the rule choosing ``d``.
    method : str
        The method's name, for the table.

    Returns
    -------
    DimensionTest

    Examples
    --------
    >>> import numpy as np
    >>> test = sir_dimension_test(np.array([0.6, 0.05, 0.01]), 200, 3, 5, 3, 0.05, "sir")
    >>> test.d, list(test.table["df"])
    (1, [12, 6, 2])
    """
    ev = np.sort(np.asarray(eigenvalues, dtype=float))
    rows = max(1, min(rows, h - 1))
    stat = np.array([n * ev[: p - m].sum() for m in range(rows)])
    df = np.array([(p - m) * (h - m - 1) for m in range(rows)])
    pv = np.array([chi2_sf(s, k) for s, k in zip(stat, df)])
    table = pd.DataFrame({"stat": stat, "df": df, "p_value": pv}, index=hypothesis_labels(rows))
    return DimensionTest(
        table,
        choose_by_pvalues(pv, level),
        "asymptotic",
        method,
        level=level,
        title="Large-sample Marginal Dimension Tests",
        display_names={"stat": "Stat", "p_value": "p.value"},
    )


__all__ = [
    "RULE_NAMES",
    "SIR_TEST_ROWS_PER_CELL",
    "DimensionTest",
    "choose_by_pvalues",
    "dimension_how",
    "dimension_line",
    "hypothesis_labels",
    "sir_dimension_test",
    "sir_test_unavailable",
]
