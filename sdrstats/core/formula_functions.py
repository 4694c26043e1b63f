"""Formula functions made from their estimator class: an option is written and documented once.

``sdr.sir(formula, data, **options)`` and its siblings are thin: :func:`formula_function` builds
the function's explicit keyword signature from the class's ``params`` (names, order and
defaults) and its Parameters section from the numpydoc Parameters of the class and its bases,
so ``inspect.signature`` and ``help()`` show every option with its default and text. Only the
summary, any extra description and the example are written per function.
:func:`formula_parameters` and :func:`documented_parameters` let the tests check that every
formula function (made here or written by hand) agrees with its class.
"""

from __future__ import annotations

import inspect
import re
import sys
import textwrap
import types
from collections.abc import Callable, Sequence
from typing import Any

FORMULA_DOC = """formula : str
    A patsy formula ``"y ~ x1 + x2 + ..."`` (``"y ~ ."`` for every other column).
    Formula text is evaluated as Python (as in R and statsmodels): never pass one
    from an untrusted source. Column names are looked up as names, never run.
data : pandas.DataFrame or chunk source
    The columns the formula names."""

SUBSET_DOC = """subset : str or array-like of bool, optional
    Rows to use, selected before anything else (R's ``subset``): a pandas query
    string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``."""

MISSING_DOC = """missing : {"drop", "raise"}, default "drop"
    Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
    or raise."""

_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}$", re.MULTILINE)
_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_][\w, *]*?)(?: : (.*))?$")
_SCALARS = {"int": "int", "float": "float", "bool": "bool", "str": "str"}


def parameter_entries(doc: str | None) -> dict[str, tuple[str, str]]:
    """``name -> (type, description)`` of a numpydoc Parameters section (``a, b : t`` shared)."""
    text = inspect.cleandoc(doc or "")
    match = re.search(r"^Parameters\n-{3,}\n", text, flags=re.MULTILINE)
    if not match:
        return {}
    body = text[match.end() :]
    end = _SECTION.search(body)
    body = body[: end.start()] if end else body
    out: dict[str, tuple[str, str]] = {}
    names: list[str] = []
    kind, lines = "", []

    def flush() -> None:
        for name in names:
            out.setdefault(name, (kind, "\n".join(lines).strip("\n")))

    for line in body.splitlines():
        if line and not line[0].isspace():
            flush()
            head = _ENTRY.match(line.strip())
            head_names = head.group(1) if head else line
            names = [n.strip().lstrip("*") for n in head_names.split(",") if n.strip()]
            kind = (head.group(2) or "") if head else ""
            lines = []
        else:
            lines.append(textwrap.dedent(line) if line.strip() else "")
    flush()
    return out


def class_parameters(cls: type) -> dict[str, tuple[str, str]]:
    """Parameters documented on ``cls`` and its bases (the nearest class's text wins)."""
    out: dict[str, tuple[str, str]] = {}
    for klass in cls.__mro__:
        for name, entry in parameter_entries(klass.__dict__.get("__doc__")).items():
            out.setdefault(name, entry)
    return out


def documented_parameters(fn: Callable[..., Any]) -> set[str]:
    """Names the Parameters section of ``fn``'s docstring describes."""
    return set(parameter_entries(fn.__doc__))


def formula_parameters(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    """The option parameters of a formula function (after formula and data; not missing, subset)."""
    params = list(inspect.signature(fn).parameters.values())[2:]
    return [p for p in params if p.name not in ("missing", "subset")]


def _annotation(kind: str, default: Any) -> str:
    first = kind.split(",")[0].strip()
    if first.startswith("{"):
        base = "str"
    elif " or {" in first:
        base = _SCALARS.get(first.split(" or ")[0].strip(), "Any") + " | str"
    else:
        base = _SCALARS.get(first.split(" or ")[0].strip(), "Any")
    if default is None and base != "Any":
        base += " | None"
    return base


def _entry(name: str, kind: str, description: str) -> str:
    body = textwrap.indent(description, "    ") if description else ""
    return f"{name} : {kind}" + (f"\n{body}" if body else "") if kind else f"{name}\n{body}"


def formula_function(
    cls: type,
    name: str,
    *,
    summary: str,
    examples: str,
    description: str = "",
    positional: Sequence[str] = (),
    required: Sequence[str] = (),
    returns: str | None = None,
    extra: Sequence[tuple[inspect.Parameter, str]] = (),
) -> Callable[..., Any]:
    """The formula function ``name(formula, data, *positional, **options, missing, subset)``.

    Parameters
    ----------
    cls : type
        The estimator class; its ``params`` give the options and their defaults, its numpydoc
        Parameters (and its bases') their types and text. An undocumented option is an error.
    name : str
        Function name (``sdr.<name>``).
    summary : str
        One-line summary.
    examples : str
        The Examples section (doctest lines, run by the tests).
    description : str, optional
        Paragraphs after the summary.
    positional : sequence of str, optional
        Options that may also be passed by position after ``data`` (``k`` of SDSPCAAN).
    required : sequence of str, optional
        Options without a default.
    returns : str, optional
        Returned type; default the class's ``results_class`` name.
    extra : sequence of (inspect.Parameter, str), optional
        Keyword-only arguments of ``from_formula`` that are not options (data-side arguments
        such as case weights), each with its numpydoc entry; placed before ``missing``.

    Returns
    -------
    callable
        A function defined in the calling module (so its examples run as doctests there).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fit = formula_function(sdr.CUME, "cume", summary="CUME.", examples=">>> 1")
    >>> list(inspect.signature(fit).parameters)
    ['formula', 'data', 'numdir', 'd', 'missing', 'subset']
    """
    docs = class_parameters(cls)
    undocumented = [k for k in cls.params if k not in docs]
    if undocumented:
        raise TypeError(f"{cls.__name__} does not document its option(s) {undocumented}.")
    P = inspect.Parameter
    params = [
        P("formula", P.POSITIONAL_OR_KEYWORD, annotation="str"),
        P("data", P.POSITIONAL_OR_KEYWORD, annotation="Any"),
    ]
    entries = [FORMULA_DOC]
    for option, default in cls.params.items():
        kind, text = docs[option]
        kind_of = P.POSITIONAL_OR_KEYWORD if option in positional else P.KEYWORD_ONLY
        value = P.empty if option in required else default
        params.append(P(option, kind_of, default=value, annotation=_annotation(kind, value)))
        entries.append(_entry(option, kind, text))
    for parameter, doc in extra:
        params.append(parameter.replace(kind=P.KEYWORD_ONLY))
        entries.append(inspect.cleandoc(doc))
    params.append(P("missing", P.KEYWORD_ONLY, default="drop", annotation="str"))
    params.append(P("subset", P.KEYWORD_ONLY, default=None, annotation="Any"))
    entries += [MISSING_DOC, SUBSET_DOC]
    result = returns or cls.results_class.__name__
    signature = inspect.Signature(params, return_annotation=result)
    options = [p.name for p in params[2:-2]]  # the class's options, then the extra arguments

    def template(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        chosen = {option: given[option] for option in options}
        return cls.from_formula(
            given["formula"],
            given["data"],
            missing=given["missing"],
            subset=given["subset"],
            **chosen,
        )

    caller = sys._getframe(1).f_globals
    fn = types.FunctionType(template.__code__, caller, name, None, template.__closure__)
    fn.__signature__ = signature  # type: ignore[attr-defined]
    fn.__qualname__ = name
    fn.__module__ = caller["__name__"]
    fn.__annotations__ = {p.name: p.annotation for p in params} | {"return": result}
    parts = [summary.strip()]
    if description:
        parts.append(inspect.cleandoc(description))
    parts.append("Parameters\n----------\n" + "\n".join(entries))
    parts.append(f"Returns\n-------\n{result}")
    parts.append("Examples\n--------\n" + inspect.cleandoc(examples))
    fn.__doc__ = "\n\n".join(parts) + "\n"
    return fn


__all__ = [
    "formula_function",
    "class_parameters",
    "parameter_entries",
    "documented_parameters",
    "formula_parameters",
]
