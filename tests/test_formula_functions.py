"""Every formula function takes its estimator class's options, with its defaults and its docs."""

import inspect
import typing

import pytest

import sdrstats as sdr
from sdrstats.fitting.estimator import Estimator
from sdrstats.fitting.formula_functions import (
    check_formula_signature,
    class_parameters,
    documented_parameters,
    formula_doc,
    formula_parameters,
    parameter_entries,
)

PAIRS = {
    "sir": sdr.SIR,
    "save": sdr.SAVE,
    "phd": sdr.PHD,
    "directional_regression": sdr.DirectionalRegression,
    "cume": sdr.CUME,
    "ire": sdr.IRE,
    "core": sdr.CORE,
    "bias_corrected_save": sdr.BiasCorrectedSAVE,
    "regularized_sir": sdr.RegularizedSIR,
    "mave": sdr.MAVE,
    "lsce": sdr.LSCE,
    "lsmi": sdr.LSMI,
    "spca": sdr.SPCA,
    "kspca": sdr.KSPCA,
    "bpca": sdr.BPCA,
    "kdr": sdr.KDR,
    "mkdr": sdr.MKDR,
    "sdspcaan": sdr.SDSPCAAN,
    "sdspca": sdr.SDSPCA,
    "spcan": sdr.SPCAN,
    "pcan": sdr.PCAN,
    "sdspca_lpp": sdr.SDSPCALPP,
    "pca": sdr.PCA,
    "vpca": sdr.VPCA,
    "lasso_sir": sdr.LassoSIR,
    "online_sir": sdr.OnlineSIR,
}
# Arguments of a formula function that are not options of its class: R's aliases, case
# weights and a stream's chunk size.
EXTRA = {"online_sir": ["chunksize"]} | {
    m: ["numdir", "weights"]
    for m in ("sir", "save", "phd", "directional_regression", "cume", "ire")
}
# The second argument (a stream is a source, not a data frame).
DATA = {"online_sir": "source"}


def test_every_estimator_class_has_its_formula_function():
    exported = {
        name
        for name in sdr.__all__
        if inspect.isclass(getattr(sdr, name)) and issubclass(getattr(sdr, name), Estimator)
    }
    assert {cls.__name__ for cls in PAIRS.values()} == exported


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_signature_and_documented_parameters_are_the_class_s(name):
    # an ordinary function (its own code, its own name) whose typed signature a type checker
    # reads: the class's options, in order, with their defaults, annotations and text
    fn, cls = getattr(sdr, name), PAIRS[name]
    own = inspect.unwrap(fn)  # under the wrapper that names a misspelt option
    assert own.__code__.co_name == name and "__signature__" not in vars(fn)
    check_formula_signature(fn, cls)
    hints = typing.get_type_hints(fn)  # every annotation names something importable
    assert set(hints) == {*inspect.signature(fn).parameters, "return"}
    documented = list(parameter_entries(fn.__doc__))
    assert documented == list(inspect.signature(fn).parameters), name
    docs, own = class_parameters(cls), parameter_entries(fn.__doc__)
    assert {option: own[option] for option in cls.params} == {
        option: docs[option] for option in cls.params
    }


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_signature_is_the_class_options_plus_the_data_side_arguments(name):
    fn, cls = getattr(sdr, name), PAIRS[name]
    expected = ["formula", DATA.get(name, "data"), *cls.params, *EXTRA.get(name, [])]
    assert list(inspect.signature(fn).parameters) == [*expected, "missing", "subset"]
    for p in list(inspect.signature(fn).parameters.values())[2:]:
        assert p.kind is p.KEYWORD_ONLY, (name, p.name)
    # options carry the constructor's defaults and annotations
    for option, p in inspect.signature(cls).parameters.items():
        q = inspect.signature(fn).parameters[option]
        assert (q.default, q.annotation) == (p.default, p.annotation), (name, option)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_signature_has_the_class_options_in_order_with_their_defaults(name):
    fn, cls = getattr(sdr, name), PAIRS[name]
    params = [p for p in formula_parameters(fn) if p.name in cls.params]  # data-side args aside
    assert [p.name for p in params] == list(cls.params), name
    for p in params:
        assert p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD), (name, p.name)
        if p.default is not p.empty:  # a required option (k, d) has no default
            assert repr(p.default) == repr(cls.params[p.name]), (name, p.name)
        assert p.annotation is not p.empty, (name, p.name)
    assert inspect.signature(fn).parameters["missing"].default == "drop"


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_every_option_is_documented_on_the_class_and_the_function(name):
    fn, cls = getattr(sdr, name), PAIRS[name]
    assert set(cls.params) <= set(class_parameters(cls)), f"{cls.__name__} leaves options out"
    in_signature = set(inspect.signature(fn).parameters)
    assert in_signature <= documented_parameters(fn), sorted(
        in_signature - documented_parameters(fn)
    )


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_generated_docs_carry_the_class_text(name):
    fn, cls = getattr(sdr, name), PAIRS[name]
    docs, own = class_parameters(cls), parameter_entries(fn.__doc__)
    for option in cls.params:
        assert own[option] == docs[option], (name, option)
    assert fn.__module__.startswith("sdrstats.") and fn.__name__ == name


def test_generated_function_binds_like_its_signature():
    ais = sdr.datasets.load("ais")
    with pytest.raises(TypeError, match="positional"):
        sdr.sdspcaan("sex ~ ht + wt + lbm", ais, 2, max_iter=5)  # d is keyword-only
    fit = sdr.sdspcaan("sex ~ ht + wt + lbm", ais, d=2, max_iter=5)
    assert fit.d == 2 and fit.options["max_iter"] == 5
    with pytest.raises(TypeError, match=r"sir\(\) got an unknown option 'nslice'; did you mean"):
        sdr.sir("lbm ~ ht + wt", ais, nslice=4)
    assert sdr.pca("sex ~ ht + wt", ais).d_rule == "ratio"  # d=None: chosen by the rule
    with pytest.raises(TypeError, match="positional"):
        sdr.sir("lbm ~ ht + wt", ais, 4)  # options after data are keyword-only


def test_an_undocumented_option_cannot_make_a_function():
    class Bare(sdr.CUME):
        """A CUME without option docs."""

        def __init__(self, *, d_max: int = 4, d: int | None = None, secret: int = 1) -> None:
            self._set_options(locals())

    def bare(
        formula: str,
        data: typing.Any,
        *,
        d_max: int = 4,
        d: int | None = None,
        secret: int = 1,
        numdir: int | None = None,
        weights: typing.Any = None,
        missing: str = "drop",
        subset: typing.Any = None,
    ) -> typing.Any:
        """Bare.

        Parameters
        ----------
        {options}
        """

    with pytest.raises(TypeError, match=r"does not document its option\(s\) \['secret'\]"):
        formula_doc(Bare)(bare)


def test_a_signature_that_drifts_from_its_class_is_refused_at_import():
    def cume(
        formula: str,
        data: typing.Any,
        *,
        d: int | None = None,
        d_max: int = 4,
        numdir: int | None = None,
        weights: typing.Any = None,
        missing: str = "drop",
        subset: typing.Any = None,
    ) -> typing.Any:
        """CUME."""

    with pytest.raises(TypeError, match="must take the options of CUME"):
        formula_doc(sdr.CUME)(cume)


def test_numdir_is_translated_once_by_the_function():
    ais = sdr.datasets.load("ais")
    fit = sdr.sir("lbm ~ ht + wt + ssf", ais, nslices=8, numdir=1)
    assert fit.options["d_max"] == 1 and "numdir" not in fit.call
    with pytest.raises(TypeError, match="sir got both 'd_max' and 'numdir'"):
        sdr.sir("lbm ~ ht + wt", ais, numdir=1, d_max=2)


def _misspelt(options):
    """An option of ``options`` misspelt: its last letter dropped (doubled for ``d``)."""
    option = next((o for o in options if len(o) >= 4), "d")
    return option, option[:-1] if len(option) >= 4 else option * 2


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_a_misspelt_option_names_the_function_and_the_closest_option(name):
    fn, cls = getattr(sdr, name), PAIRS[name]
    option, typo = _misspelt(cls.params)
    listed = ", ".join(p.name for p in formula_parameters(fn)[:2])
    with pytest.raises(TypeError) as info:
        fn("y ~ x", None, **{typo: 1})  # refused before the formula or data are read
    assert str(info.value).startswith(f"{name}() got an unknown option {typo!r}; did you mean ")
    assert f"did you mean {option!r}? Its options are: {listed}, " in str(info.value)
    with pytest.raises(
        TypeError, match=rf"^{cls.__name__}\(\) got an unknown option {typo!r}; did"
    ):
        cls(**{typo: 1})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: sdr.lscde("y ~ x", None, sigma=1.0),
            "lscde() got an unknown option 'sigma'; did you mean 'sigma_grid'?",
        ),
        (
            lambda: sdr.eps_kde("y ~ x", None, eps=1.0),
            "eps_kde() got an unknown option 'eps'; did you mean 'eps_grid'?",
        ),
        (
            lambda: sdr.dr_weights("~ x", None, sgima=1.0),
            "dr_weights() got an unknown option 'sgima'; did you mean 'sigma'?",
        ),
    ],
)
def test_formula_functions_without_a_class_name_the_closest_option_too(call, message):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(message)


def test_several_unknown_options_are_listed_with_their_suggestions():
    with pytest.raises(TypeError) as info:
        sdr.sir("y ~ x", None, colour="red", nslice=4, **{"slice.function": "arc"})
    assert str(info.value).startswith(
        "sir() got unknown options 'colour', 'nslice', 'slice.function'; did you mean "
        "'nslices' (for 'nslice'), 'slice_function' (for 'slice.function')? Its options are: "
    )


def test_the_wrapper_keeps_signature_hints_and_positional_errors():
    for name in PAIRS:
        fn = getattr(sdr, name)
        assert inspect.signature(fn) == inspect.signature(inspect.unwrap(fn))
        assert typing.get_type_hints(fn) == typing.get_type_hints(inspect.unwrap(fn))
    with pytest.raises(TypeError, match=r"sir\(\) takes 2 positional arguments but 3"):
        sdr.sir("y ~ x", None, 4)


def test_option_names_are_translated_once_per_call(monkeypatch):
    """R's aliases are mapped where the user's words come in, once: a formula function maps
    its own alias parameters, ``from_formula`` and the constructor translate their keywords,
    and nothing below them translates again."""
    import sdrstats.fitting.estimator as estimator_module
    import sdrstats.fitting.formula_functions as functions_module

    calls = []

    def counting(original, label):
        def wrapper(*args, **kwargs):
            calls.append(label)
            return original(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(
        estimator_module,
        "translate_options",
        counting(estimator_module.translate_options, "translate"),
    )
    monkeypatch.setattr(
        functions_module,
        "formula_options",
        counting(functions_module.formula_options, "formula_options"),
    )
    ais = sdr.datasets.load("ais")
    fit = sdr.sir("lbm ~ ht + wt + rcc", ais, numdir=2)
    assert calls == ["formula_options"] and fit.options["d_max"] == 2
    calls.clear()
    fit = sdr.SIR.from_formula("lbm ~ ht + wt + rcc", ais, numdir=2)
    assert calls == ["translate"] and fit.options["d_max"] == 2
    calls.clear()
    assert sdr.SIR(numdir=2).d_max == 2 and calls == ["translate"]
    calls.clear()
    parts = sdr.scale.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    fit = sdr.SIR.from_formula("lbm ~ ht + wt + rcc", parts, numdir=2)
    assert calls == ["translate"] and fit.options["d_max"] == 2
