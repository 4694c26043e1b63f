"""Command line: ``python -m sdrstats`` runs the demo; ``python -m sdrstats fit ...`` fits a CSV.

Examples::

    python -m sdrstats                      # SIR and SAVE on the ais data, tests, a bootstrap
    python -m sdrstats fit sir "lbm ~ log(wt) + log(ht) + log(ssf)" ais.csv --nslices 8
    python -m sdrstats fit dr "lbm ~ log(wt) + log(ht)" ais.csv --method save --group sex
    python -m sdrstats fit --help           # every method (dr: R's dr() and its method names)
    python -m sdrstats fit save --help      # every option of one method
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import pandas as pd

import sdrstats as sdr
from sdrstats.fitting.estimator import Estimator

DEMO_FORMULA = (
    "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)"
)


def run_demo(bootstrap_replicates: int = 200) -> None:
    """The README demo: classic SDR on the Australian Institute of Sport data."""
    ais = sdr.datasets.load("ais")
    print("sdrstats demo: lean body mass of 202 athletes (DAAG ais), R dr's example formula")
    print(f"  {DEMO_FORMULA}\n")
    # sdr.dr is R's dr(): the same call an R user writes, and R's Call line in the summary
    sir_fit = sdr.dr(DEMO_FORMULA, ais, method="sir", nslices=8)
    print("=" * 30, "Sliced inverse regression", "=" * 30)
    print(sir_fit.summary())
    save_fit = sdr.dr(DEMO_FORMULA, ais, method="save", nslices=8)
    print("=" * 30, "Sliced average variance estimation", "=" * 30)
    print(save_fit.summary())
    test = sir_fit.test_dimension("asymptotic")
    print(f"SIR's marginal tests choose d = {test.d}.\n")
    try:
        boot = sir_fit.bootstrap(B=bootstrap_replicates, d=test.d, random_state=0, progress=False)
    except ModuleNotFoundError as exc:  # the inference layer is an optional part of a checkout
        print(f"(bootstrap unavailable: {exc})")
        return
    print("=" * 30, f"Bootstrap of the {test.d}-dimensional SIR subspace", "=" * 30)
    print(boot.summary())


def _estimators() -> dict[str, type[Estimator]]:
    """Every method with a formula function in the package, by name."""
    found: dict[str, type[Estimator]] = {}
    stack = list(Estimator.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        name = getattr(cls, "method", "")
        if name and callable(getattr(sdr, name, None)) and name not in found:
            found[name] = cls
    return dict(sorted(found.items()))


def _option_help(cls: type[Estimator]) -> dict[str, str]:
    """First sentence of each option's description, from the numpydoc Parameters of the class
    and of its formula function."""
    helps: dict[str, str] = {}
    # own docs first, then the parent classes', then any method's (an option has one meaning
    # across the package)
    sources = [k for k in cls.__mro__ if isinstance(k, type) and issubclass(k, Estimator)]
    sources += list(_estimators().values())
    for klass in sources:
        function = getattr(sdr, getattr(klass, "method", ""), None)
        for doc in (inspect.getdoc(klass), inspect.getdoc(function) if function else None):
            for name, text in _parameter_sentences(doc or "").items():
                if text:
                    helps.setdefault(name, text)
    return helps


def _parameter_sentences(doc: str) -> dict[str, str]:
    section = doc.split("Parameters\n----------\n", 1)
    if len(section) < 2:
        return {}
    body = re.split(r"\n[A-Z][a-z]+\n-{3,}\n", section[1], maxsplit=1)[0]
    helps: dict[str, str] = {}
    for match in re.finditer(r"^([\w, ]+?)\s*:[^\n]*\n((?:[ \t]+[^\n]*\n?)*)", body, re.M):
        text = " ".join(match.group(2).split())
        first = re.split(r"(?<=\.)\s", text, maxsplit=1)[0] if text else ""
        for name in (n.strip() for n in match.group(1).split(",")):
            helps.setdefault(name, first)
    return helps


def _parse_value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


FORMULA_TRUST_NOTE = (
    "Security: the FORMULA is evaluated as Python code (as formulas are in R and statsmodels), "
    "so never pass formula text from an untrusted source. Column names from the file's header "
    "are only ever looked up as names: 'y ~ .' on a hostile header does not run it."
)


#: Arguments of the formula functions that every ``fit`` command has as its own flags.
_COMMON = ("missing", "weights", "subset")


def _method_parser(methods: Any, name: str, doc: str) -> argparse.ArgumentParser:
    """The ``fit NAME`` parser, with the arguments every method has."""
    # the text before the numpydoc sections: the options follow from argparse, and the
    # Python examples do not belong in a shell's help
    about = re.split(r"\n(?:Parameters|Attributes|Examples|Notes|References)\n-{3,}", doc)[0]
    sub = methods.add_parser(
        name,
        help=doc.splitlines()[0],
        description=about.strip() + "\n\n" + FORMULA_TRUST_NOTE,
    )
    sub.formatter_class = argparse.RawDescriptionHelpFormatter
    sub.add_argument(
        "formula",
        help='model formula, e.g. "y ~ ." (quote it); it is '
        "evaluated as Python: never pass formula text from an untrusted source",
    )
    sub.add_argument("data", help="path of a CSV file with a header row")
    sub.add_argument(
        "--missing",
        choices=["drop", "raise"],
        default="drop",
        help="rows with missing values: drop with a warning, or stop",
    )
    sub.add_argument(
        "--weights",
        default=None,
        metavar="COLUMN",
        help="case weights from this column, with R dr's rule (moment methods)",
    )
    sub.add_argument(
        "--subset",
        default=None,
        metavar="QUERY",
        help="rows to use, a pandas query such as \"sex == 'f'\" (R's subset)",
    )
    sub.add_argument(
        "--index-col",
        default="auto",
        metavar="COLUMN",
        help="column of row names; 'auto' (default) takes a first column with an empty "
        "header (R's write.csv), 'none' reads every column as data",
    )
    sub.add_argument(
        "--test",
        default=None,
        metavar="RULE",
        help="also print a dimension test (asymptotic, permutation, ...)",
    )
    return sub


def _option_flag(sub: argparse.ArgumentParser, option: str, others: list[str], text: str) -> None:
    """``--option`` (and its R aliases) of a method, passed on as ``option=value``."""
    sub.add_argument(
        f"--{option.replace('_', '-')}",
        *others,
        dest=f"opt_{option}",
        type=_parse_value,
        default=argparse.SUPPRESS,
        metavar="VALUE",
        help=text.replace("%", "%%"),
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sdrstats",
        description="Sufficient dimension reduction. Without a command, runs the demo.",
    )
    commands = parser.add_subparsers(dest="command")
    demo = commands.add_parser("demo", help="run the demo analysis on the bundled ais data")
    demo.add_argument("--bootstrap", type=int, default=200, help="bootstrap replicates (200)")
    fit = commands.add_parser(
        "fit",
        help="fit a method to a CSV file and print its summary",
        description=(
            "Fit METHOD with FORMULA to the CSV file DATA and print the summary.\n\n"
            + FORMULA_TRUST_NOTE
        ),
    )
    methods = fit.add_subparsers(dest="method", metavar="METHOD", required=True)
    # R's dr() first: the front door an R user looks for, with R's method names
    r_dr = _method_parser(methods, "dr", inspect.getdoc(sdr.dr) or "dr")
    r_help = _parameter_sentences(inspect.getdoc(sdr.dr) or "")
    for option, parameter in inspect.signature(sdr.dr).parameters.items():
        if parameter.kind is not parameter.KEYWORD_ONLY or option in _COMMON:
            continue
        shown = "" if parameter.default is None else f" (default: {parameter.default!r})"
        _option_flag(r_dr, option, [], f"{r_help.get(option, '')}{shown}")
    for name, cls in _estimators().items():
        sub = _method_parser(methods, name, inspect.getdoc(cls) or name)
        described = _option_help(cls)
        other_names: dict[str, list[str]] = {}  # R's aliases, as flags too
        for other, option in cls._option_aliases.items():
            other_names.setdefault(option, []).append(f"--{other.replace('_', '-')}")
        for option, default in cls.params.items():
            text = described.get(option, "")
            shown = "required" if default is inspect.Parameter.empty else f"default: {default!r}"
            _option_flag(sub, option, other_names.get(option, []), f"{text} ({shown})".strip())
    return parser


def _fit_command(args: argparse.Namespace) -> int:
    try:
        data = pd.read_csv(args.data)
    except pd.errors.EmptyDataError:
        print(
            f"error: {args.data!r} is empty; it needs a header row and data rows.", file=sys.stderr
        )
        return 2
    except UnicodeDecodeError as exc:
        print(
            f"error: {args.data!r} is not UTF-8 text (byte {exc.start}: {exc.reason}); "
            "save it as UTF-8 CSV.",
            file=sys.stderr,
        )
        return 2
    except (OSError, ValueError) as exc:  # pandas' ParserError is a ValueError
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(
            f"error: cannot read {args.data!r} as CSV (truncated or malformed?): {first}",
            file=sys.stderr,
        )
        return 2
    if data.shape[0] == 0:
        print(f"error: {args.data!r} has a header but no data rows.", file=sys.stderr)
        return 2
    data = _row_names(data, args.index_col)
    if data is None:
        print(
            f"error: --index-col {args.index_col!r} is not a column of {args.data!r}; its "
            f"columns are {list(pd.read_csv(args.data, nrows=0).columns)}.",
            file=sys.stderr,
        )
        return 2
    options = {k[4:]: v for k, v in vars(args).items() if k.startswith("opt_")}
    for name in ("weights", "subset"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    function = getattr(sdr, args.method)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", sdr.SDRWarning)
            fit = function(args.formula, data, missing=args.missing, **options)
        for w in caught:
            print(f"warning: {_in_flags(str(w.message))}", file=sys.stderr)
        summary = str(fit.summary())
        print(summary)
        if args.test:
            test = fit.test_dimension(args.test)
            # the summary already prints the default test's table: add only its conclusion
            print(test.conclusion if test.table_text in summary else test)
    except (ValueError, TypeError) as exc:
        print(f"error: {_in_flags(str(exc))}", file=sys.stderr)
        return 2
    return 0


_PYTHON_OPTION = re.compile(r"""\b([a-z][a-z0-9_]*)=(?:'([^']*)'|"([^"]*)"|([\w.+-]+))""")


def _in_flags(message: str) -> str:
    """A message written for Python callers, with ``option=value`` spelt as the flag.

    The formula functions' errors advise in Python (``pass missing='drop'``); on the command
    line the same advice is ``--missing drop``. Only simple values are rewritten: a value
    that is a list or an expression stays as it is.

    Examples
    --------
    >>> _in_flags("drop or impute them, or pass missing='drop' to drop them.")
    'drop or impute them, or pass --missing drop to drop them.'
    >>> _in_flags("lower nslices=4 (or d_max=2)")
    'lower --nslices 4 (or --d-max 2)'
    """

    def flag(m: re.Match) -> str:
        value = next(v for v in m.groups()[1:] if v is not None)
        return f"--{m.group(1).replace('_', '-')} {value}"

    return _PYTHON_OPTION.sub(flag, message)


def _row_names(data: pd.DataFrame, index_col: str) -> pd.DataFrame | None:
    """The data with its row-name column as the index (None: no such column).

    R's ``write.csv`` writes row names as a first column with an empty header, which pandas
    reads as ``"Unnamed: 0"``; as R's ``read.csv`` would not make a 47-level factor of it,
    ``auto`` takes it as the row names.
    """
    if index_col == "none":
        return data
    if index_col == "auto":
        first = str(data.columns[0])
        return data.set_index(data.columns[0]) if first.startswith("Unnamed: 0") else data
    if index_col not in data.columns:
        return None
    return data.set_index(index_col)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m sdrstats`` and the ``sdrstats`` script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        run_demo(getattr(args, "bootstrap", 200))
        return 0
    return _fit_command(args)


if __name__ == "__main__":
    sys.exit(main())
