"""Printed summaries: R-style text, HTML for notebooks and LaTeX, from one list of blocks.

Numbers are formatted the way R's ``print`` formats a matrix or data frame column with
``digits = 4`` (the digits ``summary.dr`` uses): every entry of a column gets the decimals the
entry that needs most decimals for four significant digits needs, and a column switches to
scientific notation when that is narrower.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.iolib.table import SimpleTable


def _significant(x: float, digits: int) -> tuple[int, int]:
    """(significant digits needed, decimal exponent) of ``x`` shown with ``digits`` digits."""
    if x == 0 or not math.isfinite(x):
        return 1, 0
    exponent = math.floor(math.log10(abs(x)))
    scaled = round(abs(x) / 10.0 ** (exponent - digits + 1))
    if scaled >= 10**digits:  # rounding carried into a new digit
        exponent += 1
        scaled = round(abs(x) / 10.0 ** (exponent - digits + 1))
    sig = digits
    while sig > 1 and scaled % 10 == 0:
        scaled //= 10
        sig -= 1
    return sig, exponent


def format_column(values: Sequence[float], digits: int = 4) -> list[str]:
    """Format a numeric column as R's ``print(..., digits=digits)`` does.

    Examples
    --------
    >>> format_column([0.0, 0.000404125338781092, 0.250045127357696, 0.685603674383963])
    ['0.0000000', '0.0004041', '0.2500451', '0.6856037']
    >>> format_column([269.329328981255, 79.6431931031896, 34.7985266802126])
    ['269.33', '79.64', '34.80']
    """
    vals = [float(v) for v in values]
    finite = [v for v in vals if math.isfinite(v)]
    if not finite:
        return ["NA" if math.isnan(v) else ("Inf" if v > 0 else "-Inf") for v in vals]
    info = [_significant(v, digits) for v in finite]
    rgt = max(max(sig - 1 - exp, 0) for sig, exp in info)
    left = max(max(exp + 1, 1) for _, exp in info)
    neg = 1 if any(v < 0 for v in finite) else 0
    fixed_width = neg + left + (1 if rgt else 0) + rgt
    mxsig = max(sig for sig, _ in info)
    sci_width = neg + mxsig + (1 if mxsig > 1 else 0) + 4
    use_fixed = fixed_width <= sci_width and rgt <= 15
    out = []
    for v in vals:
        if math.isnan(v):
            out.append("NA")
        elif math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        elif use_fixed:
            out.append(f"{v:.{rgt}f}")
        else:
            out.append(f"{v:.{max(mxsig - 1, 0)}e}")
    return out


def format_frame(frame: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """String version of a frame, column by column as R prints it."""
    cells = {}
    for col in frame.columns:
        series = frame[col]
        if pd.api.types.is_integer_dtype(series):
            cells[col] = [str(int(v)) for v in series]
        elif pd.api.types.is_float_dtype(series):
            cells[col] = format_column(series.to_numpy(), digits)
        else:
            cells[col] = ["" if v is None else str(v) for v in series]
    return pd.DataFrame(cells, index=[str(i) for i in frame.index], columns=frame.columns)


def render_text_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """Right-aligned columns, left-aligned row labels, as R prints a matrix."""
    cells = format_frame(frame, digits)
    stub = max([len(s) for s in cells.index] + [0])
    widths = [max([len(str(c))] + [len(v) for v in cells[c]]) for c in cells.columns]
    lines = [" " * stub + "".join(" " + str(c).rjust(w) for c, w in zip(cells.columns, widths))]
    for label, row in zip(cells.index, cells.itertuples(index=False)):
        lines.append(label.ljust(stub) + "".join(" " + v.rjust(w) for v, w in zip(row, widths)))
    return "\n".join(lines)


@dataclass
class Block:
    """One block of a summary: a title and either text or a table.

    Parameters
    ----------
    title : str
        Heading (printed with a colon; empty for none).
    text : str, optional
        Free text of the block.
    table : pandas.DataFrame, optional
        A table, printed with ``digits`` significant digits.
    digits : int, default 4
        Significant digits of the table's numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> print(Summary([Block("Method", text="sir, n = 202."),
    ...                Block("Eigenvalues", table=pd.DataFrame({"Dir1": [0.93912]}))]))
    Method:
    sir, n = 202.
    <BLANKLINE>
    Eigenvalues:
         Dir1
    0  0.9391
    """

    title: str
    text: str | None = None
    table: pd.DataFrame | None = None
    digits: int = 4


class Summary:
    """A printed summary: ``str()`` gives R-style text, notebooks show HTML, LaTeX on request.

    Parameters
    ----------
    blocks : list of Block
        In display order.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> summary = fit.summary()
    >>> [block.title for block in summary.blocks][:3]
    ['Call', 'Method', 'Slice Sizes']
    >>> "textbf{Call}" in summary.as_latex()
    True
    """

    def __init__(self, blocks: list[Block]):
        self.blocks = list(blocks)

    def add(
        self,
        title: str,
        text: str | None = None,
        table: pd.DataFrame | None = None,
        digits: int = 4,
    ) -> None:
        """Append a block.

        Parameters
        ----------
        title, text, table, digits : optional
            As :class:`Block`.

        Examples
        --------
        >>> summary = Summary([])
        >>> summary.add("Note", text="Fitted on the first 100 rows.")
        >>> print(summary)
        Note:
        Fitted on the first 100 rows.
        """
        self.blocks.append(Block(title, text, table, digits))

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables of the summary by title.

        Returns
        -------
        dict of str to pandas.DataFrame
            The tables, by their block titles.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.summary().tables()["Estimated Basis Vectors for Central Subspace"].shape
        (4, 4)
        """
        return {b.title: b.table for b in self.blocks if b.table is not None}

    def __str__(self) -> str:
        parts = []
        for block in self.blocks:
            lines = [block.title + ":"] if block.title else []
            if block.text is not None:
                lines.append(block.text)
            if block.table is not None:
                lines.append(render_text_table(block.table, block.digits))
            parts.append("\n".join(lines))
        return "\n" + "\n\n".join(parts) + "\n"

    def __repr__(self) -> str:
        return str(self)

    def _simple_tables(self) -> list[tuple[Block, SimpleTable | None]]:
        out = []
        for block in self.blocks:
            table = None
            if block.table is not None:
                cells = format_frame(block.table, block.digits)
                table = SimpleTable(
                    cells.to_numpy().tolist(),
                    headers=[str(c) for c in cells.columns],
                    stubs=list(cells.index),
                    title=block.title,
                )
            out.append((block, table))
        return out

    def _repr_html_(self) -> str:
        parts = ['<div class="sdrstats-summary">']
        for block, table in self._simple_tables():
            if table is not None:
                parts.append(table.as_html())
            else:
                parts.append(
                    f"<p><b>{html.escape(block.title)}</b><br>{html.escape(block.text or '')}</p>"
                )
        parts.append("</div>")
        return "\n".join(parts)

    def as_html(self) -> str:
        """The summary as an HTML fragment.

        Returns
        -------
        str
            An HTML fragment (a ``div`` of tables and paragraphs).

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> fit.summary().as_html()[:30]
        '<div class="sdrstats-summary">'
        """
        return self._repr_html_()

    def as_latex(self) -> str:
        """The summary as LaTeX: a paragraph per text block, a tabular per table.

        Returns
        -------
        str
            LaTeX source: a paragraph per text block, a ``tabular`` per table.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
        >>> "begin{tabular}" in fit.summary().as_latex()
        True
        """
        parts = []
        for block, table in self._simple_tables():
            if table is not None:
                parts.append(table.as_latex_tabular())
            else:
                text = (block.text or "").replace("_", r"\_").replace("%", r"\%")
                parts.append(f"\\textbf{{{block.title}}}: {text}\n")
        return "\n".join(parts)


def dir_labels(k: int) -> list[str]:
    """Column labels Dir1..Dirk."""
    return [f"Dir{j + 1}" for j in range(k)]


def as_float_frame(
    values: np.ndarray, index: Sequence[str], columns: Sequence[str]
) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(values, dtype=float), index=list(index), columns=list(columns))


__all__ = ["Summary", "Block", "format_column", "format_frame", "render_text_table", "dir_labels"]
