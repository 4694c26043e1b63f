"""Every public name carries a numpydoc docstring with a runnable Examples section.

The examples themselves run as doctests (pytest collects ``--doctest-modules`` for every
module under ``sdrstats/``); this file checks that they exist and have the required shape,
so a new public name without documentation fails here rather than slipping through.
"""

from __future__ import annotations

import doctest
import inspect
import re
from collections.abc import Callable

import pytest

import sdrstats as sdr
from sdrstats import evaluate, plotting, scale, simulate
from sdrstats import sklearn as sdr_sklearn
from sdrstats.base.tables import Block, Summary
from sdrstats.density import ConditionalDensity
from sdrstats.density.calibration import Calibration
from sdrstats.design import formula
from sdrstats.design.plan import FormulaPlan
from sdrstats.inference.bootstrap import BootstrapResult
from sdrstats.moment import predictor_tests
from sdrstats.moment.methods import MomentResults
from sdrstats.moment.predictor_tests import CoordinateTest, StepResult
from sdrstats.online import OnlineSIR
from sdrstats.results.fitted import DimensionTest, Results

# Public methods of the results contract and of the streaming / density objects that users
# call directly; listed by hand so that renaming or dropping one fails loudly.
CONTRACT_METHODS: list[tuple[type, str]] = [
    (Results, "summary"),
    (Results, "transform"),
    (Results, "test_dimension"),
    (Results, "bootstrap"),
    (Results, "conditional_density"),
    (Results, "plot"),
    (Results, "directions_for"),
    (ConditionalDensity, "pdf"),
    (ConditionalDensity, "cdf"),
    (ConditionalDensity, "mean"),
    (ConditionalDensity, "var"),
    (ConditionalDensity, "quantile"),
    (ConditionalDensity, "sample"),
    (ConditionalDensity, "predict"),
    (ConditionalDensity, "plot"),
    (ConditionalDensity, "std"),
    (ConditionalDensity, "components"),
    (ConditionalDensity, "calibration"),
    (ConditionalDensity, "summary"),
    (OnlineSIR, "partial_fit"),
    (OnlineSIR, "merge"),
    (OnlineSIR, "state_dict"),
    (OnlineSIR, "from_state"),
    (MomentResults, "coordinate_test"),
    (MomentResults, "drop1"),
    (MomentResults, "step"),
]

# Classes users receive or build besides those exported in ``sdr.__all__``.
EXTRA_CLASSES: list[type] = [
    DimensionTest,
    BootstrapResult,
    ConditionalDensity,
    Calibration,
    CoordinateTest,
    StepResult,
    Summary,
    Block,
    formula.ModelSpec,
    FormulaPlan,
    scale.ChunkSource,
]

# Public functions of non-exported modules that the results and users call directly.
EXTRA_FUNCTIONS: list[Callable] = [
    predictor_tests.coordinate_test,
    predictor_tests.drop1,
    predictor_tests.step,
    plotting.sufficient_summary_plot,
    plotting.scree_plot,
    plotting.plot_dimension_test,
    plotting.plot_results,
    *(getattr(simulate, name) for name in simulate.__all__),
    formula.from_arrays,
    plotting.plot_conditional_density,
    plotting.plot_density_fit,
    plotting.plot_calibration,
    evaluate.summarise,
    evaluate.balanced_accuracy,
    evaluate.one_nn_bca,
    sdr_sklearn.estimator_classes,
    scale.is_dask_frame,
    scale.is_chunked,
    scale.fit_chunked,
]

# Exported names that are modules, not callables: their module docstring is checked separately.
EXPORTED_MODULES = {"datasets", "distances"}


def _exported_callables() -> list[tuple[str, Callable]]:
    names = []
    for name in sdr.__all__:
        obj = getattr(sdr, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            names.append((f"sdrstats.{name}", obj))
        else:
            assert name in EXPORTED_MODULES, (
                f"sdrstats.{name} is neither function, class nor module"
            )
    return names


def _module_callables() -> list[tuple[str, Callable]]:
    """Public functions of the exported modules (``sdr.datasets.load``, ``sdr.distances.*``)."""
    out = []
    for name in sorted(EXPORTED_MODULES):
        module = getattr(sdr, name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                out.append((f"{module.__name__}.{attr}", obj))
    return out


def _contract_callables() -> list[tuple[str, Callable]]:
    out = []
    for cls, meth in CONTRACT_METHODS:
        assert meth in vars(cls) or hasattr(cls, meth), f"{cls.__name__}.{meth} no longer exists"
        out.append((f"{cls.__name__}.{meth}", getattr(cls, meth)))
    out += [(f"{cls.__module__}.{cls.__name__}", cls) for cls in EXTRA_CLASSES]
    out += [(f"{fn.__module__}.{fn.__name__}", fn) for fn in EXTRA_FUNCTIONS]
    return out


def _results_subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_results_subclasses(sub)]
    return out


RESULTS_METHODS = sorted({meth for cls, meth in CONTRACT_METHODS if cls is Results})

# A family's results class that overrides a contract method shadows the Results docstring in
# help(fit.plot), so each override needs its own documentation.
# every exported name resolved first: the package imports a family on first use, and a
# results class exists only once its module is imported (whatever other tests ran before)
for _name in sdr.__all__:
    getattr(sdr, _name)
RESULTS_FAMILIES = sorted(set(_results_subclasses(Results)), key=lambda c: c.__qualname__)


def _override_callables() -> list[tuple[str, Callable]]:
    # getattr, not vars(): an override inherited from a mixin shadows Results too.
    return [
        (f"{cls.__name__}.{meth}", getattr(cls, meth))
        for cls in RESULTS_FAMILIES
        for meth in RESULTS_METHODS
        if getattr(cls, meth) is not getattr(Results, meth)
    ]


# Classes whose every public method (including inherited sdrstats ones, such as Estimator.fit
# on OnlineSIR) users call; each method is checked once, where it is defined.
FULLY_DOCUMENTED: list[type] = [
    Results,
    MomentResults,
    OnlineSIR,
    *EXTRA_CLASSES,
]


def _public_methods() -> list[tuple[str, Callable]]:
    seen: set[int] = set()
    out = []
    for cls in FULLY_DOCUMENTED:
        for name in dir(cls):
            raw = inspect.getattr_static(cls, name)
            func = raw.__func__ if isinstance(raw, classmethod | staticmethod) else raw
            if (
                name.startswith("_")
                or not inspect.isfunction(func)
                or not func.__module__.startswith("sdrstats")
                or id(func) in seen
            ):
                continue
            seen.add(id(func))
            out.append((func.__qualname__, getattr(cls, name)))
    return out


def _family_classes() -> list[tuple[str, Callable]]:
    return [(f"{cls.__module__}.{cls.__name__}", cls) for cls in RESULTS_FAMILIES]


def _dedupe(pairs: list[tuple[str, Callable]]) -> list[tuple[str, Callable]]:
    seen: set[int] = set()
    out = []
    for label, obj in pairs:
        key = id(getattr(obj, "__func__", obj))
        if key not in seen:
            seen.add(key)
            out.append((label, obj))
    return out


CHECKED = _dedupe(
    _exported_callables()
    + _module_callables()
    + _contract_callables()
    + _override_callables()
    + _public_methods()
    + _family_classes()
)


def test_the_checked_list_is_not_vacuous():
    # sdr.__all__ exports ~70 names of which 2 are modules; with those modules' functions,
    # the contract methods, the extra classes and functions, the results families and their
    # overrides and every public method of the user-facing classes the list holds 175
    # entries today. A drop below 160 means public names vanished from the check.
    assert len(CHECKED) >= 160, len(CHECKED)
    assert len({label for label, _ in CHECKED}) == len(CHECKED)
    families = {cls.__name__ for cls in RESULTS_FAMILIES}
    assert {"MomentResults", "MaveResults", "DensityReductionResults"} <= families, families
    assert len(_override_callables()) >= 6


def _section(doc: str, title: str) -> bool:
    """True when ``doc`` has a numpydoc section header ``title`` underlined with dashes."""
    return re.search(rf"^\s*{title}\s*\n\s*-{{3,}}\s*$", doc, flags=re.MULTILINE) is not None


def _documented_names(doc: str) -> set[str]:
    """Names listed in the Parameters section (numpydoc lets ``a, b : int`` share an entry)."""
    match = re.search(
        r"^Parameters\n-{3,}\n(.*?)(?=^\w[\w ]*\n-{3,}$|\Z)", doc, flags=re.MULTILINE | re.DOTALL
    )
    names: set[str] = set()
    for line in (match.group(1) if match else "").splitlines():
        if line and not line[0].isspace():
            names.update(name.strip().lstrip("*") for name in line.split(" : ")[0].split(","))
    return names


def _required_names(obj: Callable) -> set[str]:
    """Parameters a docstring must name: an estimator's options, else the named arguments."""
    if inspect.isclass(obj) and isinstance(getattr(obj, "params", None), dict):
        return set(obj.params)
    target = obj.__init__ if inspect.isclass(obj) else obj
    if target is object.__init__:
        return set()
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return set()
    return {
        p.name
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


def _takes_parameters(obj: Callable) -> bool:
    """Whether the callable (or, for a class, its constructor) has parameters beyond self/cls."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    if inspect.isclass(obj) and target is object.__init__:
        return False
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    if inspect.isclass(obj):
        # A bare ``*args, **kwargs`` constructor (exceptions, warnings) has no documented options.
        params = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return bool(params)


def _docstring(obj: Callable) -> str:
    # inspect.getdoc would inherit a base class's docstring; the public name must carry its own.
    doc = obj.__doc__
    if isinstance(obj, classmethod | staticmethod):
        doc = obj.__func__.__doc__
    return inspect.cleandoc(doc) if doc else ""


@pytest.mark.parametrize(("label", "obj"), CHECKED, ids=[label for label, _ in CHECKED])
def test_numpydoc_docstring_with_examples(label: str, obj: Callable):
    doc = _docstring(obj)
    assert doc.strip(), f"{label} has no docstring"
    summary = doc.splitlines()[0].strip()
    assert summary, f"{label}: the docstring must start with a one-line summary"
    assert len(doc.splitlines()) == 1 or not doc.splitlines()[1].strip(), (
        f"{label}: the one-line summary must be followed by a blank line"
    )
    params_doc = doc
    if inspect.isclass(obj) and obj.__init__ is not object.__init__ and obj.__init__.__doc__:
        params_doc = doc + "\n" + inspect.cleandoc(obj.__init__.__doc__)
    if _takes_parameters(obj):
        assert _section(params_doc, "Parameters"), (
            f"{label} takes parameters but has no Parameters section"
        )
    undocumented = _required_names(obj) - _documented_names(params_doc)
    assert not undocumented, f"{label}: Parameters does not describe {sorted(undocumented)}"
    assert _section(doc, "Examples"), f"{label} has no Examples section"
    examples = doc.split("Examples", 1)[1]
    assert ">>>" in examples, f"{label}: the Examples section has no '>>>' line"
    # The examples run only if pytest's --doctest-modules sees them: the object must be
    # defined in an sdrstats module and its examples must parse as doctest examples.
    defined_in = inspect.getmodule(inspect.unwrap(getattr(obj, "__func__", obj)))
    assert defined_in is not None and defined_in.__name__.startswith("sdrstats."), label
    assert doctest.DocTestParser().get_examples(examples), f"{label}: no runnable example"


@pytest.mark.parametrize("name", sorted(EXPORTED_MODULES))
def test_exported_modules_have_docstrings(name: str):
    doc = getattr(sdr, name).__doc__ or ""
    assert doc.strip(), f"sdrstats.{name} has no module docstring"


def test_parameter_parser_finds_grouped_and_missing_names():
    doc = "Fit.\n\nParameters\n----------\na, b : int\n    Two.\n*args\n    More.\n\nReturns\n-------\nx : int\n"
    assert _documented_names(doc) == {"a", "b", "args"}

    def fit(a, b, c=1):
        """Fit."""

    # ``x`` under Returns must not count as documented; ``c`` is missing.
    assert _required_names(fit) - _documented_names(doc) == {"c"}
    assert _required_names(sdr.SIR) >= {"nslices", "slice_function", "d_max", "d"}


def test_section_detector_rejects_a_missing_section():
    # Guard against a detector that always says yes: a docstring with only a summary fails.
    assert not _section("Fit something.\n\nMore text.", "Examples")
    assert _section("Fit something.\n\nExamples\n--------\n>>> 1\n1", "Examples")


def test_examples_are_run_not_skipped():
    # An example under ``# doctest: +SKIP`` documents but checks nothing; allow a few at most
    # (none of the checked names needs one today: plots run on the Agg backend).
    skipped = [label for label, obj in CHECKED if "+SKIP" in _docstring(obj)]
    assert len(skipped) <= 3, skipped
