"""Every estimator has an explicit keyword-only constructor, declared constraints and clone.

The constructor's signature is the one list of options (``inspect.signature(sdr.SIR)`` shows
them all with their defaults); ``get_params``/``set_params``/``sklearn.base.clone`` work on
it; a bad value of any constrained option raises one wording, scikit-learn's.
"""

import inspect
import re

import numpy as np
import pytest
from sklearn.base import clone

import sdrstats as sdr
from sdrstats.base.validation import (
    Interval,
    InvalidParameterError,
    Options,
    describe_constraints,
    make_constraint,
)
from sdrstats.fitting.estimator import Estimator
from sdrstats.fitting.formula_functions import class_parameters
from sdrstats.sklearn import SDRTransformer

CLASSES = [
    sdr.SIR,
    sdr.SAVE,
    sdr.PHD,
    sdr.DirectionalRegression,
    sdr.CUME,
    sdr.IRE,
    sdr.CORE,
    sdr.BiasCorrectedSAVE,
    sdr.RegularizedSIR,
    sdr.MAVE,
    sdr.LSCE,
    sdr.LSMI,
    sdr.SPCA,
    sdr.KSPCA,
    sdr.BPCA,
    sdr.KDR,
    sdr.MKDR,
    sdr.SDSPCAAN,
    sdr.SDSPCA,
    sdr.SDSPCALPP,
    sdr.SPCAN,
    sdr.PCAN,
    sdr.PCA,
    sdr.VPCA,
    sdr.LassoSIR,
    sdr.OnlineSIR,
]
IDS = [cls.__name__ for cls in CLASSES]


def required(cls):
    """Values for the options without a default (the SDSPCAAN family's dimension)."""
    return {name: 2 for name, default in cls.params.items() if default is inspect.Parameter.empty}


def test_every_exported_estimator_class_is_checked_here():
    exported = {
        obj
        for name in sdr.__all__
        if inspect.isclass(obj := getattr(sdr, name)) and issubclass(obj, Estimator)
    }
    assert exported == set(CLASSES)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_signature_shows_every_option_keyword_only_and_documented(cls):
    parameters = inspect.signature(cls).parameters
    assert list(parameters) == list(cls.params) and parameters, cls.__name__
    for p in parameters.values():
        assert p.kind is p.KEYWORD_ONLY, (cls.__name__, p.name)
        assert p.annotation is not p.empty, (cls.__name__, p.name)
        assert p.default == cls.params[p.name] or p.default is cls.params[p.name]
    assert set(cls.params) <= set(class_parameters(cls)), cls.__name__
    # every option has declared constraints, checked in one place
    assert set(cls.params) <= set(cls._parameter_constraints), cls.__name__


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_positional_and_unknown_options_raise_type_error(cls):
    with pytest.raises(
        TypeError, match=rf"{cls.__name__}\(\) got an unknown option 'no_such_option'\. Its"
    ):
        cls(**required(cls), no_such_option=1)
    with pytest.raises(TypeError):
        cls(2)  # options are keyword-only


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_clone_round_trips_the_options_unchanged(cls):
    est = cls(**required(cls))
    copy = clone(est)
    assert copy is not est and type(copy) is cls
    assert repr(copy.get_params()) == repr(est.get_params())
    # the constructor stores the objects it is given (clone checks identity)
    params = est.get_params()
    assert all(getattr(est, name) is value for name, value in params.items())
    again = cls(**params)
    assert all(again.get_params()[k] is v for k, v in params.items())


def test_clone_keeps_non_default_values_and_arrays():
    cuts = np.array([50.0, 60.0, 70.0])
    est = sdr.SIR(cut_points=cuts, d=2)
    copy = clone(est)
    assert np.array_equal(copy.cut_points, cuts) and copy.d == 2
    ais = sdr.datasets.load("ais")
    X, y = np.log(ais[["wt", "ht", "hg"]]), ais["lbm"]
    np.testing.assert_array_equal(
        copy.fit(X, y).directions.to_numpy(), est.fit(X, y).directions.to_numpy()
    )


def test_set_params_validates_and_keeps_the_old_values_on_error():
    est = sdr.SIR(nslices=8)
    assert est.set_params(nslices=5, d=1) is est and est.nslices == 5 and est.d == 1
    with pytest.raises(InvalidParameterError, match="'nslices' parameter of SIR"):
        est.set_params(d=2, nslices=1)
    assert est.nslices == 5 and est.d == 1
    with pytest.raises(
        TypeError, match=r"SIR.set_params\(\) got an unknown option 'nslice'; did you"
    ):
        est.set_params(nslice=3)


def test_the_one_wording():
    with pytest.raises(InvalidParameterError) as err:
        sdr.SIR(nslices=1)
    assert str(err.value) == (
        "The 'nslices' parameter of SIR must be an int >= 2 or None. Got 1 instead."
    )
    assert isinstance(err.value, ValueError) and isinstance(err.value, TypeError)
    with pytest.raises(InvalidParameterError, match=re.escape("must be one of 'dr', 'arc'. Got")):
        sdr.SAVE(slice_function="equal")


def bad_value(constraints):
    """A value that satisfies none of ``constraints``, as close to valid as possible."""
    candidates = []
    for c in constraints:
        if isinstance(c, Interval):
            if c.low is not None:
                candidates.append(c.kind(c.low) - 1)
            if c.high is not None:
                candidates.append(c.kind(c.high) + 1)
            candidates.append(2.5 if c.kind is int else "1")
        if isinstance(c, Options):
            candidates.append("not-an-option")
    candidates += ["not-an-option", -1, [3.0, 1.0], object()]
    for value in candidates:
        if not any(make_constraint(c).is_satisfied_by(value) for c in constraints):
            return value
    raise AssertionError(f"no bad value for {constraints}")  # pragma: no cover


CONSTRAINED = [
    (cls, name) for cls in CLASSES for name in cls.params if name in cls._parameter_constraints
]


@pytest.mark.parametrize(
    ("cls", "name"), CONSTRAINED, ids=[f"{c.__name__}-{n}" for c, n in CONSTRAINED]
)
def test_a_bad_value_of_each_constrained_option_gives_the_one_wording(cls, name):
    constraints = cls._parameter_constraints[name]
    value = bad_value(constraints)
    expected = (
        f"The {name!r} parameter of {cls.__name__} must be "
        f"{describe_constraints(constraints)}. Got {value!r} instead."
    )
    if name == "random_state":  # checked as bootstrap() checks it, with its message
        with pytest.raises((TypeError, ValueError), match="random_state must be None, an int"):
            cls(**{**required(cls), name: value})
        return
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(expected)}$"):
        cls(**{**required(cls), name: value})
    est = cls(**required(cls))
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(expected)}$"):
        est.set_params(**{name: value})


def test_a_value_assigned_directly_is_checked_at_fit():
    est = sdr.SIR()
    est.nslices = 1
    ais = sdr.datasets.load("ais")
    with pytest.raises(InvalidParameterError, match="'nslices' parameter of SIR"):
        est.fit(ais[["wt", "ht"]], ais["lbm"])


def test_sdr_transformer_clones_and_explains_its_parameters():
    est = SDRTransformer("sir", d=1, nslices=8)
    assert list(inspect.signature(SDRTransformer).parameters) == ["method", "d", "options"]
    assert inspect.signature(SDRTransformer).parameters["d"].kind is inspect.Parameter.KEYWORD_ONLY
    copy = clone(est)
    assert copy.get_params() == {"method": "sir", "d": 1, "nslices": 8}
    X = np.random.default_rng(0).standard_normal((30, 3))
    with pytest.raises(
        InvalidParameterError,
        match=re.escape("The 'd' parameter of SDRTransformer must be an int >= 1. Got 0 instead."),
    ):
        SDRTransformer("sir", d=0).fit(X, X[:, 0])
