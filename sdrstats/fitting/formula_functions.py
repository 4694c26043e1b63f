"""What formula functions share with their estimator class: options documented once.

``sdr.sir(formula, data, *, <options>, numdir, weights, missing, subset)`` and its siblings
are ordinary functions with explicit typed signatures (editors and type checkers see them)
whose body is :func:`fit_formula`. Their docstrings are written with them; the option text
is the class's: :func:`formula_doc` substitutes ``{options}`` (and the entries every formula
function shares, ``{formula}``, ``{weights}``...) and checks, at import, that the signature
takes the class's options in its order with its defaults and annotations. It also wraps the
function in :func:`checks_option_names`, so a misspelt option names the function and the
closest option instead of Python's bare "unexpected keyword argument".
:func:`formula_parameters` and :func:`documented_parameters` let the tests check that every
formula function agrees with its class.
"""

from __future__ import annotations

import functools
import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ..base.validation import unknown_options_error

F = TypeVar("F", bound=Callable[..., Any])

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


def takes_case_weights(cls: type) -> bool:
    """Whether the estimator applies R ``dr``'s case weights (the moment methods)."""
    return bool(cls.capabilities.case_weights)


def _alias_entry(alias: str, name: str) -> str:
    return (
        f"{alias} : int, optional\n    R ``dr``'s name for ``{name}`` (an alias; give one of them)."
    )


def shared_entries() -> dict[str, str]:
    """The numpydoc entries every formula function shares: ``formula``, ``data``,
    ``weights``, ``missing`` and ``subset``.

    Examples
    --------
    >>> sorted(shared_entries())
    ['data', 'formula', 'missing', 'subset', 'weights']
    """
    formula, data = FORMULA_DOC.split("\ndata :")
    return {
        "formula": formula,
        "data": "data :" + data,
        "weights": WEIGHTS_DOC,
        "missing": MISSING_DOC,
        "subset": SUBSET_DOC,
    }


def fill_entries(doc: str, entries: dict[str, str]) -> str:
    """``doc`` with each line that is only ``{name}`` replaced by ``entries[name]``, indented
    as the line (how :func:`formula_doc` fills a formula function's docstring).

    Examples
    --------
    >>> doc = "Parameters\\n    {x}\\n"
    >>> print(fill_entries(doc, {"x": "x : int\\n    A number."}))
    Parameters
        x : int
            A number.
    <BLANKLINE>
    """
    return _substitute(doc, entries)


def common_entries(cls: type) -> dict[str, str]:
    """The numpydoc entries a formula function's docstring may name as ``{formula}``,
    ``{data}``, ``{options}`` (the class's options, in order, with the class's text),
    ``{aliases}`` (R's names the class accepts), ``{weights}``, ``{missing}`` and
    ``{subset}``."""
    docs = class_parameters(cls)
    undocumented = [k for k in cls.params if k not in docs]
    if undocumented:
        raise TypeError(f"{cls.__name__} does not document its option(s) {undocumented}.")
    return {
        **shared_entries(),
        "options": "\n".join(_entry(name, *docs[name]) for name in cls.params),
        "aliases": "\n".join(_alias_entry(a, n) for a, n in cls._option_aliases.items()),
    }


_MARKER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*(\n|$)", re.MULTILINE)


def _substitute(doc: str, entries: dict[str, str]) -> str:
    """``doc`` with each line that is only ``{name}`` replaced by ``entries[name]``, indented
    as the line (an empty entry removes the line)."""

    def entry(match: re.Match[str]) -> str:
        indent, name, end = match.groups()
        if name not in entries:
            raise KeyError(f"unknown docstring entry {{{name}}}; known: {sorted(entries)}.")
        return textwrap.indent(entries[name], indent) + end if entries[name] else ""

    return _MARKER.sub(entry, doc)


def check_formula_signature(fn: Callable[..., Any], cls: type) -> None:
    """Refuse a formula function whose signature is not its class's: the options in the
    class's order with its defaults and annotations (keyword-only), an alias parameter (default
    ``None``) per R name the class accepts, and ``weights`` exactly when it takes case
    weights."""
    params = inspect.signature(fn).parameters

    def shape(p: inspect.Parameter) -> tuple[str, Any, str, Any]:
        return (p.name, p.kind, repr(p.default), p.annotation)

    given = [shape(p) for p in params.values() if p.name in cls.params]
    wanted = [
        shape(p.replace(kind=p.KEYWORD_ONLY)) for p in inspect.signature(cls).parameters.values()
    ]
    if given != wanted:
        raise TypeError(
            f"{fn.__name__} must take the options of {cls.__name__} (keyword-only, in its "
            f"order, with its defaults and annotations): {wanted}; it takes {given}."
        )
    for alias in cls._option_aliases:
        if alias not in params or params[alias].default is not None:
            raise TypeError(f"{fn.__name__} must take R's alias {alias}=None.")
    if ("weights" in params) != takes_case_weights(cls):
        raise TypeError(
            f"{fn.__name__} must take weights= exactly when {cls.__name__} takes case weights."
        )


def checks_option_names(fn: F) -> F:
    """``fn`` with a clearer error for a keyword it does not take; signature, type hints and
    docstring kept.

    Python's own error ("got an unexpected keyword argument 'nslice'") names neither the
    function nor what was meant. The wrapper compares the keyword names with ``fn``'s
    signature before calling it and raises :func:`~sdrstats.base.validation.unknown_options_error`
    (``sir() got an unknown option 'nslice'; did you mean 'nslices'? Its options are: ...``);
    everything else, positional misuse included, is ``fn``'s own behaviour.
    ``inspect.signature`` and ``typing.get_type_hints`` read ``fn`` through ``__wrapped__``,
    and a type checker sees the decorated function's signature unchanged.

    Parameters
    ----------
    fn : callable
        A function with named parameters (one taking ``**kwargs`` is returned as it is).

    Returns
    -------
    callable

    Examples
    --------
    >>> @checks_option_names
    ... def fit(formula: str, *, nslices: int = 8, d: int | None = None) -> int:
    ...     return nslices
    >>> fit("y ~ x", nslice=4)
    Traceback (most recent call last):
    ...
    TypeError: fit() got an unknown option 'nslice'; did you mean 'nslices'? Its options are: nslices, d.
    >>> list(inspect.signature(fit).parameters)
    ['formula', 'nslices', 'd']
    """  # noqa: E501
    parameters = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return fn
    names = frozenset(p.name for p in parameters if p.kind is not p.POSITIONAL_ONLY)
    options = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY]
    others = sorted(names - set(options))

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if not names.issuperset(kwargs):
            unknown = [k for k in kwargs if k not in names]
            raise unknown_options_error(f"{fn.__name__}()", unknown, options, also=others)
        return fn(*args, **kwargs)

    return cast(F, checked)


def formula_doc(cls: type) -> Callable[[F], F]:
    """Decorate a formula function of ``cls``: check its signature, fill its docstring.

    The docstring is written with the function; a line that is only ``{options}`` becomes
    the numpydoc entries of the class's options (their text as the class documents them),
    and ``{formula}``, ``{data}``, ``{aliases}``, ``{weights}``, ``{missing}`` and
    ``{subset}`` the entries every formula function shares (see :func:`common_entries`).
    The signature is checked by :func:`check_formula_signature` when the module is imported.

    Parameters
    ----------
    cls : type
        The estimator class; an option without numpydoc text on it is an error.

    Returns
    -------
    callable
        The decorator; it returns the function wrapped by :func:`checks_option_names`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> @formula_doc(sdr.CUME)
    ... def cume(formula: str, data: Any, *, d_max: int = 4, d: int | None = None,
    ...          d_rule: str = "permutation", random_state: Any = None,
    ...          numdir: int | None = None, weights: Any = None, missing: str = "drop",
    ...          subset: Any = None) -> Any:
    ...     \"\"\"CUME.
    ...
    ...     Parameters
    ...     ----------
    ...     {options}
    ...     \"\"\"
    >>> print(cume.__doc__.split("----------")[1].strip().splitlines()[0])
    d_max : int, default 4
    """

    def decorate(fn: F) -> F:
        check_formula_signature(fn, cls)
        fn.__doc__ = _substitute(fn.__doc__ or "", common_entries(cls))
        return checks_option_names(fn)

    return decorate


def formula_options(cls: type, arguments: dict[str, Any], owner: str) -> dict[str, Any]:
    """The options of ``cls`` among a formula function's ``arguments``, R's aliases
    translated: the one place a formula function's names are translated.

    Parameters
    ----------
    cls : type
        The estimator class.
    arguments : dict
        The function's arguments (its ``locals()``).
    owner : str
        The function's name, for the message.

    Returns
    -------
    dict

    Raises
    ------
    TypeError
        When an option and its alias are both given.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> arguments = {"d_max": 4, "d": None, "d_rule": "permutation", "random_state": None}
    >>> formula_options(sdr.CUME, {**arguments, "numdir": 2}, "cume")
    {'d_max': 2, 'd': None, 'd_rule': 'permutation', 'random_state': None}
    """
    options = {name: arguments[name] for name in cls.params}
    for alias, name in cls._option_aliases.items():
        value = arguments.get(alias)
        if value is None:
            continue
        if repr(options[name]) != repr(cls.params[name]):
            raise TypeError(
                f"{owner} got both {name!r} and {alias!r} (an alias of {name!r}); give only "
                f"{name}=..."
            )
        options[name] = value
    return options


def fit_formula(cls: type, arguments: dict[str, Any], owner: str) -> Any:
    """The body of a formula function: ``cls.from_formula`` with the function's arguments
    (its ``locals()``: ``formula``, ``data``, the options, ``missing``, ``subset`` and,
    where the class takes them, ``weights``).

    Parameters
    ----------
    cls : type
        The estimator class.
    arguments : dict
        The function's arguments.
    owner : str
        The function's name, for messages.

    Returns
    -------
    Results

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> arguments = {"formula": "lbm ~ ht + wt", "data": ais, "d_max": 4, "d": 1,
    ...              "d_rule": "permutation", "random_state": None, "missing": "drop",
    ...              "subset": None, "weights": None}
    >>> fit_formula(sdr.CUME, arguments, "cume").d
    1
    """
    extra = {"weights": arguments["weights"]} if takes_case_weights(cls) else {}
    return cls._fit_formula(
        arguments["formula"],
        arguments["data"],
        formula_options(cls, arguments, owner),
        missing=arguments["missing"],
        subset=arguments["subset"],
        **extra,
    )


__all__ = [
    "check_formula_signature",
    "checks_option_names",
    "common_entries",
    "fill_entries",
    "fit_formula",
    "formula_doc",
    "shared_entries",
    "formula_options",
    "takes_case_weights",
    "class_parameters",
    "parameter_entries",
    "documented_parameters",
    "formula_parameters",
]
