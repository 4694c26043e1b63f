"""R's formula operators read as R reads them, before patsy sees the formula.

patsy's formula language is R's, with Python expressions for the terms, and the two differ
where R's operators are not Python's. Here one side of a formula (after R's column names
are quoted, :mod:`sdrstats.design.names`) is rewritten token by token into the patsy text
that means what R means:

* ``^`` is R's power everywhere: inside a function call or arithmetic it is a power
  (``I(hp^2)`` is hp squared, ``-2^2`` is -4, ``2^3^2`` is 2^9, as Python's ``**``), and at
  the level of terms ``(a + b + c)^2`` is every term up to two-way interactions (patsy's
  ``**`` on terms); a bare ``x^2`` is ``x``, as in R. (Python's ``^`` is exclusive or, which no
  formula means.)

Strings, and names quoted with ``Q("...")``, are never rewritten.

:func:`r_code` goes the other way for display: patsy's spelling of a term back into R's
(``I(hp ** 2)`` is shown ``I(hp^2)``).
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"""
    (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
    |(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<name>[A-Za-z_.][\w.]*)
    |(?P<op>\*\*|==|!=|<=|>=|//|[-+*/^:~<>=!&|,()\[\]{}@%])
    |(?P<space>\s+)
    |(?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    """``text`` as (kind, text) pairs; joining the texts gives ``text`` back."""
    return [(m.lastgroup or "other", m.group(0)) for m in _TOKEN.finditer(text)]


def to_patsy(text: str) -> str:
    """One side of an R formula as patsy text that means the same.

    Parameters
    ----------
    text : str
        The right- or left-hand side of a formula, R's column names already quoted.

    Returns
    -------
    str

    Examples
    --------
    >>> to_patsy("hp + I(hp^2) + (wt + qsec)^2")
    'hp + I(hp**2) + (wt + qsec)**2'
    >>> to_patsy('Q("a^b") + x')
    'Q("a^b") + x'
    """
    out = []
    for kind, token in _tokens(text):
        if kind == "op" and token == "^":
            token = "**"
        out.append(token)
    return "".join(out)


def r_code(code: str) -> str:
    """A term as R writes it: patsy's ``I(hp ** 2)`` is R's ``I(hp^2)``.

    Examples
    --------
    >>> r_code("I(hp ** 2)"), r_code("I(-x ** 2 + 1)"), r_code("Q('a ** b')")
    ('I(hp^2)', 'I(-x^2 + 1)', "Q('a ** b')")
    """
    if "**" not in code:
        return code
    tokens = _tokens(code)
    out: list[str] = []
    skip_space = False
    for kind, token in tokens:
        if kind == "space" and skip_space:
            continue
        skip_space = False
        if kind == "op" and token == "**":
            while out and out[-1].isspace():
                out.pop()
            token, skip_space = "^", True
        out.append(token)
    return "".join(out)


__all__ = ["to_patsy", "r_code"]
