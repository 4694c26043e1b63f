"""Every formula function is made from its estimator class: options, defaults and their docs."""

import inspect

import pytest

import sdrstats as sdr
from sdrstats.core.estimator import Estimator
from sdrstats.core.formula_functions import (
    class_parameters,
    documented_parameters,
    formula_function,
    formula_parameters,
    parameter_entries,
)

PAIRS = {
    "sir": sdr.SIR,
    "save": sdr.SAVE,
    "phd": sdr.PHD,
    "dr": sdr.DR,
    "cume": sdr.CUME,
    "ire": sdr.IRE,
    "mave": sdr.MAVE,
    "lsce": sdr.LSCE,
    "lsmi": sdr.LSMI,
    "spca": sdr.SPCA,
    "kspca": sdr.KSPCA,
    "bpca": sdr.BPCA,
    "kdr": sdr.KDR,
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
# Arguments of a formula function that are not options of its class (data-side arguments).
EXTRA = {"online_sir": ["chunksize"]} | {
    m: ["weights"] for m in ("sir", "save", "phd", "dr", "cume", "ire")
}
# The second argument (a stream is a source, not a data frame).
DATA = {"online_sir": "source"}


def test_every_formula_function_is_made_from_its_class():
    exported = {
        name
        for name in sdr.__all__
        if inspect.isclass(getattr(sdr, name)) and issubclass(getattr(sdr, name), Estimator)
    }
    assert {cls.__name__ for cls in PAIRS.values()} == exported
    for name in PAIRS:
        fn = getattr(sdr, name)
        # a generated function runs the template of formula_function (its code object)
        assert fn.__code__.co_name == "template", name


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
    with pytest.raises(TypeError, match="unexpected keyword argument 'nslice'"):
        sdr.sir("lbm ~ ht + wt", ais, nslice=4)
    with pytest.raises(TypeError, match="missing a required argument: 'd'"):
        sdr.pca("sex ~ ht + wt", ais)
    with pytest.raises(TypeError, match="positional"):
        sdr.sir("lbm ~ ht + wt", ais, 4)  # options after data are keyword-only


def test_an_undocumented_option_cannot_make_a_function():
    class Bare(sdr.CUME):
        """A CUME without option docs."""

        def __init__(self, *, d_max: int = 4, d: int | None = None, secret: int = 1) -> None:
            self._set_options(locals())

    with pytest.raises(TypeError, match=r"does not document its option\(s\) \['secret'\]"):
        formula_function(Bare, "bare", summary="Bare.", examples=">>> 1")
