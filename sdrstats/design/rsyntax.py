"""R's formula language read as R reads it, before patsy sees the formula.

patsy's formula language is R's, with Python expressions for the terms, and the two differ
where R's operators and names are not Python's. Here one side of a formula (after R's column
names are quoted, :mod:`sdrstats.design.names`) is rewritten token by token into the patsy
text that means what R means:

* ``^`` is R's power everywhere: inside a function call or arithmetic it is a power
  (``I(hp^2)`` is hp squared, ``-2^2`` is -4, ``2^3^2`` is 2^9, as Python's ``**``), and at
  the level of terms ``(a + b + c)^2`` is every term up to two-way interactions (patsy's
  ``**`` on terms); a bare ``x^2`` is ``x``, as in R. (Python's ``^`` is exclusive or, which no
  formula means.)
* R's names: ``as.factor(...)`` and ``as.numeric(...)`` call
  :func:`~sdrstats.design.rfunctions.as_factor` and
  :func:`~sdrstats.design.rfunctions.as_numeric`; ``TRUE``, ``FALSE`` and ``NULL`` are
  Python's ``True``, ``False``, ``None``; ``c(...)`` in an argument is a list; ``2L`` is ``2``.
* R's precedence where Python's differs: ``%%`` and ``%/%`` bind tighter than ``*`` and ``/``
  (``2 * x %% 3`` is ``2 * (x %% 3)``; written ``r_mod(x, 3)``, ``r_intdiv(x, 3)``), ``!``
  is logical negation below comparisons (``!x > 3`` is ``!(x > 3)``; ``r_not(...)``), and
  ``&``/``|`` below comparisons (``x > 3 & z < 2``; each side in ``r_group(...)``). Every
  term is shown as R writes it (:func:`r_code`).
* What R accepts and this package does not (``%in%``, ``offset()``, ``ns()``, R's
  arguments of ``bs()``, other functions of R's with a dot in the name) is an error that names
  the term and says what to write instead (:data:`UNSUPPORTED`).

:func:`wrap_ordered` then gives a bare ordered categorical column R's polynomial contrasts,
and :func:`r_code` goes the other way for display: patsy's spelling of a term back into R's
(``I(hp ** 2)`` is shown ``I(hp^2)``, ``as_factor(cyl)`` as ``as.factor(cyl)``,
``poly(hp, 2, raw=True)`` as ``poly(hp, 2, raw = TRUE)``).

Strings, and names quoted with ``Q("...")``, are never rewritten.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Collection

import numpy as np

_TOKEN = re.compile(
    r"""
    (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
    |(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<name>[A-Za-z_.][\w.]*)
    |(?P<op>\*\*|%[^%\s]*%|==|!=|<=|>=|//|[-+*/^:~<>=!&|,()\[\]{}@%])
    |(?P<space>\s+)
    |(?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

#: R's names that call a function of another name here.
R_CALLS = {"as.factor": "as_factor", "as.numeric": "as_numeric", "as.double": "as_numeric"}
_SHOWN_CALLS = {"as_factor": "as.factor", "as_numeric": "as.numeric"}
_CONSTANTS = {"TRUE": "True", "FALSE": "False", "NULL": "None"}
_SHOWN_CONSTANTS = {v: k for k, v in _CONSTANTS.items()}
_OPERATORS = {"%%": "%", "%/%": "//"}
_SHOWN_OPERATORS = {"%": "%%", "//": "%/%"}

#: R functions (and operators) formulas accept in R but not here: what to write instead.
UNSUPPORTED = {
    "%in%": "write the interaction a:b, or a/b for b nested in a (a + a:b)",
    "offset": (
        "an offset shifts a linear predictor, which SDR does not fit; subtract it from the "
        "response instead, e.g. I(y - z) ~ ..., or leave it out"
    ),
    "ns": (
        "R's natural splines are not available; write bs(x, df=k) (B-splines, as R's "
        "splines::bs) or cr(x, df=k) (natural cubic regression splines, another basis of "
        "natural splines)"
    ),
    "strata": "strata are for survival models; write the column as a factor, factor(x)",
    "Error": "error strata are for aov(); leave Error() out",
}
#: R's arguments of ``bs()`` that patsy's ``bs()`` names differently.
_BS_ARGUMENTS = {
    "intercept": "include_intercept",
    "Boundary.knots": "lower_bound=..., upper_bound=...",
}


class RFormulaError(ValueError):
    """A term R accepts that this package does not (the message says what to write)."""


def _tokens(text: str) -> list[tuple[str, str]]:
    """``text`` as (kind, text) pairs; joining the texts gives ``text`` back."""
    return [(m.lastgroup or "other", m.group(0)) for m in _TOKEN.finditer(text)]


def _next_code(tokens: list[tuple[str, str]], i: int) -> int:
    """Index of the first token after ``i`` that is not a space (``len`` if none)."""
    j = i + 1
    while j < len(tokens) and tokens[j][0] == "space":
        j += 1
    return j


def _previous_code(tokens: list[tuple[str, str]], i: int) -> int:
    j = i - 1
    while j >= 0 and tokens[j][0] == "space":
        j -= 1
    return j


def _call_text(tokens: list[tuple[str, str]], start: int) -> str:
    """The text of the call whose name is ``tokens[start]``, up to its closing parenthesis."""
    depth, out = 0, []
    for kind, token in tokens[start:]:
        out.append(token)
        if token in "([{" and kind == "op":
            depth += 1
        elif token in ")]}" and kind == "op":
            depth -= 1
            if depth == 0:
                break
    return "".join(out)


def _refuse(term: str, advice: str) -> RFormulaError:
    return RFormulaError(f"The formula term {term!r} is R's, but not supported here: {advice}.")


def to_patsy(text: str, columns: Collection[str] = ()) -> str:
    """One side of an R formula as patsy text that means the same.

    Parameters
    ----------
    text : str
        The right- or left-hand side of a formula, R's column names already quoted.
    columns : collection of str
        The data's column names: a column named ``c`` or ``TRUE`` keeps its name.

    Returns
    -------
    str

    Raises
    ------
    RFormulaError
        For a term R accepts that is not supported, naming it and what to write instead.

    Examples
    --------
    >>> to_patsy("hp + I(hp^2) + (wt + qsec)^2")
    'hp + I(hp**2) + (wt + qsec)**2'
    >>> to_patsy("as.factor(cyl) + poly(hp, 2L, raw = TRUE) + factor(g, levels = c('b', 'a'))")
    "as_factor(cyl) + poly(hp, 2, raw = True) + factor(g, levels = ['b', 'a'])"
    >>> to_patsy('Q("a^b") + x')
    'Q("a^b") + x'
    """
    tokens = _tokens(text)
    out: list[str] = []
    closing: list[str] = []  # what each open bracket closes with
    for i, (kind, token) in enumerate(tokens):
        following = tokens[_next_code(tokens, i)][1] if _next_code(tokens, i) < len(tokens) else ""
        if kind == "op":
            if token == "^":
                token = "**"
            elif token in ("(", "[", "{"):
                closing.append({"(": ")", "[": "]", "{": "}"}[token])
            elif token in (")", "]", "}"):
                token = closing.pop() if closing else token
            elif token in _OPERATORS:
                token = _OPERATORS[token]
            elif token.startswith("%") and len(token) > 1:
                advice = UNSUPPORTED.get(token, "write the expression with Python's operators")
                if token == "%in%":
                    left, right = _previous_code(tokens, i), _next_code(tokens, i)
                    if left >= 0 and right < len(tokens):
                        a, b = tokens[left][1], tokens[right][1]
                        advice = f"write the interaction {a}:{b}, or {b}/{a} for {b} + {b}:{a}"
                raise _refuse(_term_around(tokens, i), advice)
        elif kind == "name" and (token not in columns or token == "c" and following == "("):
            previous = _previous_code(tokens, i)
            attribute = previous >= 0 and tokens[previous][1] == "."
            if following == "(" and not attribute:
                token = _call(tokens, i, token, closing)
            elif token in _CONSTANTS and following != "(":
                token = _CONSTANTS[token]
            elif token == "L" and out and tokens[i - 1][0] == "number":
                token = ""  # R's integer literal 2L
        out.append(token)
    return _comparisons_first(_negations(_remainders("".join(out))))


#: R's ``%%`` and ``%/%`` (already Python's ``%`` and ``//``) as the calls that keep R's
#: precedence, and back.
_REMAINDER_CALLS = {"%": "r_mod", "//": "r_intdiv"}
_MARKERS = {"r_mod": "%", "r_intdiv": "//"}


def _code_indices(tokens: list[tuple[str, str]]) -> list[int]:
    return [i for i, (kind, _) in enumerate(tokens) if kind != "space"]


def _matching(tokens: list[tuple[str, str]], code: list[int], k: int, step: int) -> int:
    """Position in ``code`` of the bracket matching the one at ``code[k]`` (``step`` +1
    forwards from an opening one, -1 backwards from a closing one); -1 if unbalanced."""
    depth = 0
    while 0 <= k < len(code):
        token = tokens[code[k]][1]
        if tokens[code[k]][0] in ("op", "list") and token in "([{":
            depth += step
        elif tokens[code[k]][0] == "op" and token in ")]}":
            depth -= step
        if depth == 0:
            return k
        k += step
    return -1


def _is_operator(tokens: list[tuple[str, str]], code: list[int], k: int) -> bool:
    """Whether the code token at ``code[k]`` ends no operand (so a ``-`` after it is unary)."""
    if k < 0:
        return True
    kind, token = tokens[code[k]]
    return kind in ("op", "list") and token not in ")]}"


def _operand_before(tokens: list[tuple[str, str]], code: list[int], k: int) -> int:
    """First code position of R's operand of ``%%`` ending at ``code[k]``: an atom (a name,
    number, call or bracketed group) with its powers and unary signs."""
    while True:
        kind, token = tokens[code[k]]
        if kind == "op" and token in ")]}":
            k = _matching(tokens, code, k, -1)
            if k < 0:
                return -1
            if k > 0 and tokens[code[k - 1]][0] == "name":
                k -= 1  # a call
        if k > 0 and tokens[code[k - 1]][1] == "**":
            k -= 2
            continue
        while k > 0 and tokens[code[k - 1]][1] in ("-", "+") and _is_operator(tokens, code, k - 2):
            k -= 1
        return k


def _operand_after(tokens: list[tuple[str, str]], code: list[int], k: int) -> int:
    """Last code position of R's operand of ``%%`` starting at ``code[k]``."""
    while k < len(code) and tokens[code[k]][1] in ("-", "+"):
        k += 1
    while k < len(code):
        kind, token = tokens[code[k]]
        if kind in ("op", "list") and token in "([{":
            k = _matching(tokens, code, k, 1)
        elif kind == "name" and k + 1 < len(code) and tokens[code[k + 1]][1] == "(":
            k = _matching(tokens, code, k + 1, 1)
        if k < 0:
            return -1
        if k + 1 < len(code) and tokens[code[k + 1]][1] == "**":
            k += 2
            while k < len(code) and tokens[code[k]][1] in ("-", "+"):
                k += 1
            continue
        return k
    return -1


def _remainders(text: str) -> str:
    """R's ``%%`` and ``%/%`` bind tighter than ``*`` and ``/`` (``2 * x %% 3`` is
    ``2 * (x %% 3)``), Python's ``%`` and ``//`` as tightly: each becomes a call of its two
    operands, ``r_mod(x, 3)``, shown again as R writes it."""
    while True:
        tokens = _tokens(text)
        code = _code_indices(tokens)
        at = next((k for k, i in enumerate(code) if tokens[i][0] == "op"
                   and tokens[i][1] in _REMAINDER_CALLS), None)  # fmt: skip
        if at is None:
            return text
        first = _operand_before(tokens, code, at - 1) if at > 0 else -1
        last = _operand_after(tokens, code, at + 1)
        if first < 0 or last < 0:  # no operand: left for patsy to report
            return text
        left = "".join(t for _, t in tokens[code[first] : code[at]]).strip()
        right = "".join(t for _, t in tokens[code[at + 1] : code[last] + 1]).strip()
        call = f"{_REMAINDER_CALLS[tokens[code[at]][1]]}({left}, {right})"
        text = (
            "".join(t for _, t in tokens[: code[first]])
            + call
            + "".join(t for _, t in tokens[code[last] + 1 :])
        )


def _negations(text: str) -> str:
    """R's ``!x``: below comparisons and arithmetic, above ``&`` and ``|`` (``!x > 3 & z``
    is ``(!(x > 3)) & z``): ``r_not(...)`` of everything up to the next ``&``, ``|``,
    comma or closing bracket at its level (Python's ``!`` is not an operator)."""
    while True:
        tokens = _tokens(text)
        code = _code_indices(tokens)
        at = next((k for k, i in enumerate(code) if tokens[i] == ("op", "!")), None)
        if at is None:
            return text
        k = at + 1
        while k < len(code):
            kind, token = tokens[code[k]]
            if kind in ("op", "list") and token in "([{":
                k = _matching(tokens, code, k, 1)
                if k < 0:
                    return text
            elif kind == "op" and token in (")", "]", "}", "&", "|", ",", "~"):
                break
            k += 1
        if k == at + 1:
            return text
        stop = code[k] if k < len(code) else len(tokens)
        body = "".join(t for _, t in tokens[code[at] + 1 : stop])
        trail = body[len(body.rstrip()) :]
        text = (
            "".join(t for _, t in tokens[: code[at]])
            + f"r_not({body.strip()})"
            + trail
            + "".join(t for _, t in tokens[stop:])
        )


_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})


def _comparisons_first(text: str) -> str:
    """R's precedence of ``&`` and ``|`` below comparisons: ``x > 3 & z < 2`` is
    ``(x > 3) & (z < 2)`` in R, but Python's ``&`` binds first; each operand of ``&``/``|``
    that holds a comparison is put in parentheses, written ``r_group(...)`` so that the
    term is shown as R shows it."""
    if "&" not in text and "|" not in text:
        return text
    tokens = _tokens(text)

    def level(start: int, stop: int) -> str:
        done: list[str] = []  # finished arguments (a comma ends one)
        parts: list[str] = [""]  # operands of & and | of the current argument, and those
        compares = False

        def finish() -> None:
            pieces = parts if compares and len(parts) > 1 else ["".join(parts)]
            for piece in pieces:
                body = piece.strip()
                if compares and len(parts) > 1 and body not in ("&", "|"):
                    lead = piece[: len(piece) - len(piece.lstrip())]
                    trail = piece[len(piece.rstrip()) :]
                    piece = f"{lead}r_group({body}){trail}"
                done.append(piece)

        i = start
        while i < stop:
            kind, token = tokens[i]
            if kind == "op" and token in "([{":
                depth, j = 1, i + 1
                while j < stop and depth:
                    if tokens[j][0] == "op" and tokens[j][1] in "([{":
                        depth += 1
                    elif tokens[j][0] == "op" and tokens[j][1] in ")]}":
                        depth -= 1
                    j += 1
                if depth:  # unbalanced: left for patsy to report
                    parts[-1] += "".join(t for _, t in tokens[i:stop])
                    break
                parts[-1] += token + level(i + 1, j - 1) + tokens[j - 1][1]
                i = j
                continue
            if kind == "op" and token in ("&", "|"):
                parts.extend([token, ""])
            elif kind == "op" and token == ",":
                finish()
                done.append(token)
                parts, compares = [""], False
            else:
                compares = compares or (kind == "op" and token in _COMPARISONS)
                parts[-1] += token
            i += 1
        finish()
        return "".join(done)

    return level(0, len(tokens))


def _call(tokens: list[tuple[str, str]], i: int, name: str, closing: list[str]) -> str:
    """The Python name of R's function ``name`` called at ``tokens[i]``; nothing for
    ``c()``, whose call becomes a list (its parentheses become brackets)."""
    if name in UNSUPPORTED:
        raise _refuse(_call_text(tokens, i), UNSUPPORTED[name])
    if name == "c":
        j = _next_code(tokens, i)
        tokens[j] = ("list", "[")
        closing.append("]")
        return ""

    if name == "bs":
        call = _call_text(tokens, i)
        for argument, instead in _BS_ARGUMENTS.items():
            if re.search(rf"[(,]\s*{re.escape(argument)}\s*=", call):
                raise _refuse(call, f"here bs() takes {instead} instead of R's {argument}")
    if name == "log":
        call = _call_text(tokens, i)
        if _top_level_commas(call):
            raise _refuse(
                call, "log() takes one argument here; write log2(x), log10(x) or log(x)/log(b)"
            )
    if name in R_CALLS:
        return R_CALLS[name]
    head = name.split(".")[0]
    if "." in name and keyword.iskeyword(head):
        raise _refuse(
            _call_text(tokens, i),
            f"R's function {name}() is not available in formulas; transform the column in "
            "pandas first, or use factor(), as.numeric(), poly(), scale(), log(), exp(), "
            "sqrt(), abs() or I()",
        )
    return name


def _top_level_commas(call: str) -> int:
    """How many arguments beyond the first ``call`` has (commas at its own level)."""
    depth, commas = 0, 0
    for kind, token in _tokens(call):
        if kind != "op":
            continue
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        elif token == "," and depth == 1:
            commas += 1
    return commas


def _term_around(tokens: list[tuple[str, str]], i: int) -> str:
    """The text of the formula term holding ``tokens[i]`` (between top-level ``+``/``-``/``~``)."""
    depth_at = []
    depth = 0
    for kind, token in tokens:
        if kind == "op" and token in "([{":
            depth += 1
        depth_at.append(depth)
        if kind == "op" and token in ")]}":
            depth -= 1
    level = depth_at[i]
    start = i
    while start > 0 and not (
        tokens[start - 1][1] in ("+", "-", "~") and depth_at[start - 1] <= level
    ):
        start -= 1
    stop = i
    while stop + 1 < len(tokens) and not (
        tokens[stop + 1][1] in ("+", "-", "~") and depth_at[stop + 1] <= level
    ):
        stop += 1
    return "".join(t for _, t in tokens[start : stop + 1]).strip()


def wrap_ordered(text: str, ordered: Collection[str]) -> str:
    """Patsy text where each bare ordered categorical column among the terms (not inside a
    function call) is ``ordered_column(...)``: R's polynomial contrasts for an ordered factor.

    Examples
    --------
    >>> wrap_ordered('x + size + size:x + Q("a b") + C(size) + I(x > 1)', ["size", "a b"])
    'x + ordered_column(size) + ordered_column(size):x + ordered_column(Q("a b")) + C(size) + I(x > 1)'
    """
    if not ordered:
        return text
    tokens = _tokens(text)
    out: list[str] = []
    kinds: list[str] = []  # "call" or "group" for each open parenthesis
    wrapped_q: list[int] = []  # depths of Q(...) calls being wrapped
    for i, (kind, token) in enumerate(tokens):
        j = _next_code(tokens, i)
        following = tokens[j][1] if j < len(tokens) else ""
        previous = _previous_code(tokens, i)
        before = tokens[previous][1] if previous >= 0 else ""
        at_terms = all(k == "group" for k in kinds)
        if kind == "op" and token in "([{":
            kinds.append("call" if before and tokens[previous][0] in ("name",) else "group")
        elif kind == "op" and token in ")]}":
            kinds.pop()
            if wrapped_q and wrapped_q[-1] == len(kinds):
                wrapped_q.pop()
                out.append(token + ")")
                continue
        elif kind == "name" and at_terms and before != ".":
            if following == "(" and token == "Q":
                literal = _q_literal(tokens, j)
                if literal in ordered:
                    out.append("ordered_column(")
                    wrapped_q.append(len(kinds))
            elif token in ordered and following not in ("(", "."):
                token = f"ordered_column({token})"
        out.append(token)
    return "".join(out)


def _q_literal(tokens: list[tuple[str, str]], j: int) -> str | None:
    """The string inside ``Q(...)`` whose opening parenthesis is ``tokens[j]``."""
    k = _next_code(tokens, j)
    if k < len(tokens) and tokens[k][0] == "string":
        try:
            value = ast.literal_eval(tokens[k][1])
        except (ValueError, SyntaxError):
            return None
        return value if isinstance(value, str) else None
    return None


def r_number(text: str) -> str:
    """A number as R deparses it: 15 significant digits, fixed or scientific notation
    whichever is shorter (fixed on a tie), R's exponent style.

    Examples
    --------
    >>> [r_number(t) for t in ("2.0", "2.50", "1e-3", "0.0001", "100000", "1e6", "123")]
    ['2', '2.5', '0.001', '1e-04', '1e+05', '1e+06', '123']
    """
    try:
        value = float(text)
    except ValueError:
        return text
    if not np.isfinite(value):
        return text
    mantissa, exponent = f"{value:.14e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    power = int(exponent)
    scientific = f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    fixed = np.format_float_positional(float(f"{value:.15g}"), trim="-")
    return fixed if len(fixed) <= len(scientific) else scientific


def _unmarked(code: str) -> str:
    """``code`` with the calls that stand for R's operators written as the operators:
    ``r_mod(x, 3)`` as ``x % 3``, ``r_not(x > 1)`` as ``!x > 1``, ``r_group(a)`` as ``a``."""
    while True:
        tokens = _tokens(code)
        code_at = _code_indices(tokens)
        at = next((k for k, i in enumerate(code_at) if tokens[i][0] == "name"
                   and tokens[i][1] in ("r_mod", "r_intdiv", "r_not", "r_group")
                   and k + 1 < len(code_at) and tokens[code_at[k + 1]][1] == "("), None)  # fmt: skip
        if at is None:
            return code
        close = _matching(tokens, code_at, at + 1, 1)
        if close < 0:
            return code
        name = tokens[code_at[at]][1]
        inner = "".join(t for _, t in tokens[code_at[at + 1] + 1 : code_at[close]])
        if name in _MARKERS:
            depth, split = 0, None
            for j, (kind, token) in enumerate(_tokens(inner)):
                if kind in ("op", "list") and token in "([{":
                    depth += 1
                elif kind == "op" and token in ")]}":
                    depth -= 1
                elif token == "," and depth == 0:
                    split = j
                    break
            if split is None:
                return code
            parts = _tokens(inner)
            left = "".join(t for _, t in parts[:split]).strip()
            right = "".join(t for _, t in parts[split + 1 :]).strip()
            shown = f"{left} {_MARKERS[name]} {right}"
        else:
            shown = ("!" if name == "r_not" else "") + inner.strip()
        code = (
            "".join(t for _, t in tokens[: code_at[at]])
            + shown
            + "".join(t for _, t in tokens[code_at[close] + 1 :])
        )


def r_code(code: str) -> str:
    """A term as R writes it: patsy's ``I(hp ** 2)`` is R's ``I(hp^2)``.

    Examples
    --------
    >>> r_code("I(hp ** 2)"), r_code("I(-x ** 2 + 1)"), r_code("Q('a ** b')")
    ('I(hp^2)', 'I(-x^2 + 1)', 'Q("a ** b")')
    >>> r_code("poly(hp, degree=2, raw=True)"), r_code("as_factor(cyl):ordered_column(size)")
    ('poly(hp, degree = 2, raw = TRUE)', 'as.factor(cyl):size')
    >>> r_code("factor(g, levels=['b', 'a'])")
    'factor(g, levels = c("b", "a"))'
    """
    tokens = _tokens(_unmarked(code))
    out: list[str] = []
    skip_space = False
    unwrap: list[int] = []  # depths at which an ordered_column( was dropped
    lists: list[bool] = []  # for each open bracket: a list shown as c(...)
    depth = 0
    for i, (kind, token) in enumerate(tokens):
        if kind == "space" and skip_space:
            continue
        skip_space = False
        j = _next_code(tokens, i)
        following = tokens[j][1] if j < len(tokens) else ""
        if kind == "name" and following == "(" and token == "ordered_column":
            unwrap.append(depth)
            tokens[j] = ("dropped", "")
            depth += 1
            continue
        if kind == "dropped":
            continue
        if kind == "op" and token in "([{":
            previous = _previous_code(tokens, i)
            is_list = token == "[" and (previous < 0 or tokens[previous][1] in "(,=[")
            lists.append(is_list)
            depth += 1
            token = "c(" if is_list else token
        elif kind == "op" and token in ")]}":
            depth -= 1
            if unwrap and unwrap[-1] == depth:
                unwrap.pop()
                continue
            token = ")" if lists and lists.pop() else token
        elif kind == "op" and token == "**":
            while out and out[-1].isspace():
                out.pop()
            token, skip_space = "^", True
        elif kind == "op" and token == "=":
            while out and out[-1].isspace():
                out.pop()
            token, skip_space = " = ", True
        elif kind == "op" and token in ("/", *_SHOWN_OPERATORS):
            # R writes / %% %/% without spaces (as ^ and :)
            while out and out[-1].isspace():
                out.pop()
            token, skip_space = _SHOWN_OPERATORS.get(token, token), True
        elif kind == "number":
            token = r_number(token)
        elif kind == "name" and following == "(" and token in _SHOWN_CALLS:
            token = _SHOWN_CALLS[token]
        elif kind == "name" and token in _SHOWN_CONSTANTS and following != "(":
            token = _SHOWN_CONSTANTS[token]
        elif kind == "string" and token[0] == "'" and '"' not in token and "\\" not in token:
            token = f'"{token[1:-1]}"'
        out.append(token)
    return "".join(out)


__all__ = [
    "to_patsy",
    "wrap_ordered",
    "r_code",
    "r_number",
    "RFormulaError",
    "UNSUPPORTED",
    "R_CALLS",
]
