"""Formula functions made from their estimator class: an option is written and documented once.

``sdr.sir(formula, data, **options)`` and its siblings are thin: :func:`formula_function` builds
the function's explicit keyword signature from the class's constructor (names, order,
defaults and annotations) and its Parameters section from the numpydoc Parameters of the
class and its bases, so ``inspect.signature`` and ``help()`` show every option with its
default and text. Only the summary, any extra description and the example are written per
function. :func:`formula_parameters` and :func:`documented_parameters` let the tests check
that every formula function agrees with its class.
"""

from __future__ import annotations

import inspect
import re
import sys
import textwrap
import types
from collections.abc import Callable, Sequence
from typing import Any

from .validation import translate_options

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


WEIGHTS_DOC = """weights : str or array-like, optional
    Case weights, a column of ``data`` or one number per row, with R ``dr``'s rule:
    negative, NaN or infinite weights are errors; rows with ``w <= 1e-30`` are
    dropped and the rest rescaled to sum to the rows kept. The summary says "using
    weights". These are R's case weights, not frequency weights."""


def _entry(name: str, kind: str, description: str) -> str:
    body = textwrap.indent(description, "    ") if description else ""
    return f"{name} : {kind}" + (f"\n{body}" if body else "") if kind else f"{name}\n{body}"


def _written_entry(doc: str) -> str:
    """A numpydoc entry written in a string: the header line, its description indented."""
    head, *rest = inspect.cleandoc(doc).split("\n")
    body = textwrap.dedent("\n".join(rest))
    return head + ("\n" + textwrap.indent(body, "    ") if body.strip() else "")


def takes_case_weights(cls: type) -> bool:
    """Whether the estimator applies R ``dr``'s case weights (the moment methods)."""
    return bool(cls.capabilities.case_weights)


def formula_function(
    cls: type,
    name: str,
    *,
    summary: str,
    examples: str,
    description: str = "",
    returns: str | None = None,
    data_name: str = "data",
    data_doc: str | None = None,
    extra: Sequence[tuple[inspect.Parameter, str]] = (),
    subset_doc: str | None = None,
    fit: Callable[..., Any] | None = None,
) -> Callable[..., Any]:
    """The formula function ``name(formula, data, *, <options>, missing, subset)`` of ``cls``.

    The signature is the class constructor's (names, order, defaults and annotations), with
    ``weights`` where the class takes R case weights, and ``missing`` and ``subset`` last;
    the Parameters section is the numpydoc text of the class and its bases. Old option
    aliases the class declares (``_option_aliases``, R's names) are accepted as the class
    accepts them.

    Parameters
    ----------
    cls : type
        The estimator class; an option without numpydoc text on it is an error.
    name : str
        Function name (``sdr.<name>``).
    summary : str
        One-line summary.
    examples : str
        The Examples section (doctest lines, run by the tests).
    description : str, optional
        Paragraphs after the summary.
    returns : str, optional
        The Returns section: the type on the first line, then its description; default the
        name of the class's ``results_class``.
    data_name : str, default "data"
        Name of the second argument (``source`` for a stream).
    data_doc : str, optional
        Its numpydoc entry; default a DataFrame or chunk source.
    extra : sequence of (inspect.Parameter, str), optional
        Keyword-only arguments that are not options (``chunksize`` of a stream), each with
        its numpydoc entry; placed after the options.
    subset_doc : str, optional
        The numpydoc entry of ``subset`` when it differs from the usual one.
    fit : callable, optional
        ``fit(formula, data, missing=, subset=, [weights=,] **arguments)``; default
        ``cls.from_formula``.

    Returns
    -------
    callable
        A function defined in the calling module (so its examples run as doctests there).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> fn = formula_function(sdr.CUME, "cume", summary="CUME.", examples=">>> 1")
    >>> list(inspect.signature(fn).parameters)
    ['formula', 'data', 'd_max', 'd', 'weights', 'missing', 'subset']
    """
    docs = class_parameters(cls)
    undocumented = [k for k in cls.params if k not in docs]
    if undocumented:
        raise TypeError(f"{cls.__name__} does not document its option(s) {undocumented}.")
    P = inspect.Parameter
    params = [
        P("formula", P.POSITIONAL_OR_KEYWORD, annotation="str"),
        P(data_name, P.POSITIONAL_OR_KEYWORD, annotation="Any"),
    ]
    entries = [FORMULA_DOC if data_doc is None else FORMULA_DOC.split("\ndata :")[0]]
    if data_doc is not None:
        entries.append(_written_entry(data_doc))
    options = inspect.signature(cls).parameters.values()
    for option in options:
        params.append(option.replace(kind=P.KEYWORD_ONLY))
        entries.append(_entry(option.name, *docs[option.name]))
    for parameter, doc in extra:
        params.append(parameter.replace(kind=P.KEYWORD_ONLY))
        entries.append(_written_entry(doc))
    weighted = takes_case_weights(cls)
    if weighted:
        params.append(P("weights", P.KEYWORD_ONLY, default=None, annotation="Any"))
        entries.append(WEIGHTS_DOC)
    params.append(P("missing", P.KEYWORD_ONLY, default="drop", annotation="str"))
    params.append(P("subset", P.KEYWORD_ONLY, default=None, annotation="Any"))
    entries += [MISSING_DOC, SUBSET_DOC if subset_doc is None else _written_entry(subset_doc)]
    result_type, *result_text = inspect.cleandoc(returns or cls.results_class.__name__).split("\n")
    result = result_type + "".join("\n    " + line if line else "\n" for line in result_text)
    signature = inspect.Signature(params, return_annotation=result_type)
    names = [p.name for p in params[2:-2] if p.name != "weights"]
    fitter = fit if fit is not None else cls.from_formula
    translate = translate_options  # the function runs in the caller's globals

    def template(*args: Any, **kwargs: Any) -> Any:
        kwargs = translate(kwargs, name, aliases=cls._option_aliases)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        chosen = {option: given[option] for option in names}
        if weighted:
            chosen["weights"] = given["weights"]
        return fitter(
            given["formula"],
            given[data_name],
            missing=given["missing"],
            subset=given["subset"],
            **chosen,
        )

    caller = sys._getframe(1).f_globals
    fn = types.FunctionType(template.__code__, caller, name, None, template.__closure__)
    fn.__signature__ = signature  # type: ignore[attr-defined]
    fn.__qualname__ = name
    fn.__module__ = caller["__name__"]
    fn.__annotations__ = {p.name: p.annotation for p in params} | {"return": result_type}
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
    "takes_case_weights",
    "class_parameters",
    "parameter_entries",
    "documented_parameters",
    "formula_parameters",
]
