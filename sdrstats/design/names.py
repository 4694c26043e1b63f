"""Column names as R users write them: ``MPG.city``, ``Infant.Mortality``, ``2nd``, ``x y``.

Data exported from R keep names with dots (``Rev.per.mile``), and spreadsheets give names
with spaces or leading digits. In Python such a name is not an identifier: patsy would read
``MPG.city`` as an attribute, ``2nd`` and ``x y`` as syntax errors. R itself reads a dotted
name as one name and needs backquotes for the others. Here a piece of formula text that is
exactly a column of ``data`` means that column: before patsy sees the formula, it becomes
``Q("...")``. The piece must stand alone (not be part of a longer name, not be called as a
function, not be inside a string) and the name must be made of letters, digits, ``_``, dots
and inner spaces: a name holding operators or parentheses (``log(x)``, ``a+b``) is an
expression and is quoted by hand. The longest such name wins, so with columns ``x`` and
``x.1``, ``x.1`` is the column ``x.1``.

R's backquotes work in formulas as in R (``y ~ `width cm` + `2nd```): a backquoted name is
the column of that name.

Names shown back (directions, summaries, predictor tests) are R's: bare for names R writes
bare (letters, digits, ``_`` and dots, not starting with a digit), ``MPG.city``, not
``Q("MPG.city")``; in R's backquotes for the others, ``` `width cm` ```, as R's
``model.matrix`` names them, whether the formula wrote ``Q("width cm")`` or backquotes.
"""

from __future__ import annotations

import itertools
import json
import keyword
import re
from typing import Any

import numpy as np

from .checks import _IDENTIFIER, _masked, _quote, dotted_token, unknown_name
from .rsyntax import r_code

_R_LIKE = re.compile(r"[\w.]+(?: +[\w.]+)*")
_R_SYNTACTIC = re.compile(r"(?:[^\W\d]|\.(?!\d))[\w.]*")
_QUOTED = re.compile(r'Q\(\s*("(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\')\s*\)')


def _number(name: str) -> bool:
    """A name that reads as a number (``1``, ``0``, ``1e5``) stays a number: ``y ~ x + 1``."""
    try:
        float(name)
    except ValueError:
        return False
    return True


def needs_quoting(name: str) -> bool:
    """Whether patsy cannot read ``name`` as a bare name (not an identifier, or a keyword)."""
    return not _IDENTIFIER.match(name) or keyword.iskeyword(name)


_BACKQUOTED = re.compile(r"`([^`]+)`")


def _backquotes_as_q(text: str) -> str:
    """R's backquoted names, ```width cm```, as patsy's ``Q("width cm")`` (not in strings)."""
    if "`" not in text:
        return text
    masked = _masked(text)
    out, last = [], 0
    for m in _BACKQUOTED.finditer(masked):
        out.append(text[last : m.start()])
        out.append(_quote(text[m.start() + 1 : m.end() - 1]))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def quote_columns(text: str, columns: list[str]) -> str:
    """Formula text with each bare mention of a non-identifier column as ``Q("...")``.

    Examples
    --------
    >>> quote_columns("MPG.city ~ Rev.per.mile + log(EngineSize)",
    ...               ["MPG.city", "Rev.per.mile", "EngineSize"])
    'Q("MPG.city") ~ Q("Rev.per.mile") + log(EngineSize)'
    >>> quote_columns("y ~ 2nd + name with space", ["y", "2nd", "name with space"])
    'y ~ Q("2nd") + Q("name with space")'
    >>> quote_columns("y ~ `width cm` + log(`2nd`)", ["y", "2nd", "width cm"])
    'y ~ Q("width cm") + log(Q("2nd"))'
    """
    text = _backquotes_as_q(text)
    candidates = sorted(
        (c for c in columns if needs_quoting(c) and _R_LIKE.fullmatch(c) and not _number(c)),
        key=len,
        reverse=True,
    )
    if not candidates:
        return text
    masked = _masked(text)
    taken = [False] * len(text)
    found: list[tuple[int, int, str]] = []
    for name in candidates:
        pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w.])")
        for m in pattern.finditer(masked):
            start, stop = m.span()
            if any(taken[start:stop]):
                continue
            after = masked[stop:].lstrip()
            if after.startswith("("):
                continue  # called: a function of that name, not the column
            found.append((start, stop, name))
            for i in range(start, stop):
                taken[i] = True
    for start, stop, name in sorted(found, reverse=True):
        text = text[:start] + _quote(name) + text[stop:]
    return text


def display(name: str) -> str:
    """A design column's name as shown: ``Q("MPG.city")`` becomes ``MPG.city``.

    Examples
    --------
    >>> display('C(Q("Dept.Name"))[T.b]'), display('Q("x y")'), display('I(Q("a b") ** 2)')
    ('C(Dept.Name)[T.b]', '`x y`', 'I(`a b`^2)')
    """

    def bare(m: re.Match) -> str:
        try:
            literal = json.loads(m.group(1)) if m.group(1)[0] == '"' else m.group(1)[1:-1]
        except ValueError:
            return m.group(0)
        if _R_SYNTACTIC.fullmatch(literal) and not keyword.iskeyword(literal):
            return literal
        return f"`{literal}`" if "`" not in literal else m.group(0)

    shown = r_code(name)  # R's operators and calls; a quoted name's text is left alone
    return _QUOTED.sub(bare, shown) if "Q(" in shown else shown


def r_level(level: Any) -> str:
    """A factor level as R writes it in a column name: ``TRUE``, ``6`` (not ``6.0``), ``b``."""
    if isinstance(level, (bool, np.bool_)):
        return "TRUE" if level else "FALSE"
    if isinstance(level, (float, np.floating)):
        return str(int(level)) if float(level).is_integer() else format(float(level), ".15g")
    return str(level)


#: R's suffixes of polynomial contrast columns (contr.poly) for patsy's (Poly).
_POLY_SUFFIXES = {".Linear": ".L", ".Quadratic": ".Q", ".Cubic": ".C"}


def _r_suffix(contrast: Any, column: int, levels: tuple) -> str:
    """R's name of one coding column of a factor: the level of an indicator column
    (treatment coding, and R's full dummy coding), ``.L``/``.Q``/``.C``/``^4`` for polynomial
    contrasts; patsy's bracketed suffix for the other contrasts (Sum, Helmert, Diff)."""
    suffix = contrast.column_suffixes[column]
    if suffix in _POLY_SUFFIXES:
        return _POLY_SUFFIXES[suffix]
    if re.fullmatch(r"\^\d+", suffix):
        return suffix
    values = np.asarray(contrast.matrix)[:, column]
    if np.count_nonzero(values) == 1 and values.max() == 1 and len(values) == len(levels):
        return r_level(levels[int(np.argmax(values))])
    return suffix


def r_column_names(design_info: Any) -> list[str]:
    """The name of every column of a patsy design as R's ``model.matrix`` writes it.

    A term's pieces are joined by ``:``: a numeric variable is its term in R's spelling
    (:func:`display`), a matrix of ``k`` columns adds ``1..k`` (``poly(hp, 2)1``), and a factor
    adds its level (``factor(cyl)6``, ``sexm``, ``bTRUE``) or R's polynomial suffix (``.L``).

    Examples
    --------
    >>> import pandas as pd, patsy
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 4.0], "g": ["a", "b", "a"], "k": [4, 6, 8]})
    >>> r_column_names(patsy.dmatrix("x + g + C(k) + I(x ** 2):g", df).design_info)
    ['(Intercept)', 'gb', 'C(k)6', 'C(k)8', 'x', 'I(x^2):ga', 'I(x^2):gb']
    """
    names = []
    for term in design_info.terms:
        for subterm in design_info.term_codings[term]:
            infos = [design_info.factor_infos[f] for f in subterm.factors]
            counts = [
                len(subterm.contrast_matrices[f].column_suffixes)
                if info.type == "categorical"
                else info.num_columns
                for f, info in zip(subterm.factors, infos)
            ]
            # patsy's order: the left-most factor varies fastest (as R's)
            for combo in itertools.product(*[range(k) for k in reversed(counts)]):
                pieces = []
                for factor, info, index in zip(subterm.factors, infos, combo[::-1]):
                    shown = display(factor.name())
                    if info.type == "categorical":
                        contrast = subterm.contrast_matrices[factor]
                        shown += _r_suffix(contrast, index, tuple(info.categories))
                    elif info.num_columns > 1:
                        shown += str(index + 1)
                    pieces.append(shown)
                names.append(":".join(pieces) if pieces else "(Intercept)")
    return names


def check_called_columns(text: str, columns: list[str], what: str = "data") -> None:
    """Refuse a function call whose name is also a column: patsy would call the column.

    Examples
    --------
    >>> check_called_columns("y ~ log(x)", ["y", "x", "log"])
    Traceback (most recent call last):
    ...
    ValueError: data has a column named 'log', so 'log(...)' in the formula would call that column...
    """
    masked = _masked(text)
    for m in re.finditer(r"(?<![\w.])([^\W\d]\w*)\s*\(", masked):
        name = m.group(1)
        if name not in columns:
            continue
        if name in ("I", "Q", "C"):
            fix = (
                f"rename the column (e.g. data = data.rename(columns={{{name!r}: {name + '_'!r}}}))"
            )
        else:
            fix = (
                f"rename the column (e.g. data = data.rename(columns={{{name!r}: "
                f"{name + '_'!r}}})), or call the function by its module (np.{name}(...))"
            )
        raise ValueError(
            f"{what} has a column named {name!r}, so '{name}(...)' in the formula would call that "
            f"column instead of the function: {fix}. The column itself can be written "
            f'Q("{name}") in a formula that does not call {name}().'
        )


def check_quoted_columns(text: str, columns: list[str], env: Any, what: str = "data") -> None:
    """A ``Q("...")`` naming no column of ``data`` (nor a variable) lists the columns.

    Examples
    --------
    >>> check_quoted_columns('y ~ Q("MPG.cty")', ["y", "MPG.city"], None)
    Traceback (most recent call last):
    ...
    ValueError: The formula quotes 'MPG.cty' with Q(), which is not a column of data...
    """
    for m in _QUOTED.finditer(text):
        raw = m.group(1)
        try:
            name = json.loads(raw) if raw[0] == '"' else raw[1:-1]
        except ValueError:
            continue
        if name in columns:
            continue
        if env is not None:
            try:
                env.namespace[name]
                continue
            except KeyError:
                pass
        raise ValueError(unknown_name(name, columns, what, quoted=True))


__all__ = [
    "quote_columns",
    "display",
    "r_column_names",
    "r_level",
    "check_called_columns",
    "check_quoted_columns",
    "unknown_name",
    "dotted_token",
    "needs_quoting",
]
