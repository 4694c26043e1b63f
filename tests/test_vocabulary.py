"""One vocabulary across the families (docs/vocabulary.md).

Names of earlier development versions are unknown options (a TypeError naming the valid
ones); R's ``numdir`` is an alias of ``d_max`` without a warning.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
from test_constructors import CLASSES

import sdrstats as sdr
from sdrstats.inference import bootstrap_dimension, default_d_max, ladle

FORMULA = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"


def unknown(owner, name):
    """The TypeError of an unknown option (a class ``owner``, or a function ``owner``),
    as a regular expression."""
    return re.escape(f"{owner}() got an unknown option '{name}'")


def same_directions(a, b):
    np.testing.assert_array_equal(a.directions.to_numpy(), b.directions.to_numpy())


def test_every_class_names_its_dimension_d_and_its_largest_dimension_d_max():
    for cls in CLASSES:
        assert "d" in cls.params, cls.__name__
        assert not {"k", "numdir", "max_dim", "k_max", "method"} & set(cls.params), cls.__name__
        assert not {"n_components", "n_features"} & set(cls.params), cls.__name__
    for cls in (
        sdr.SIR,
        sdr.SAVE,
        sdr.PHD,
        sdr.DirectionalRegression,
        sdr.CUME,
        sdr.IRE,
        sdr.MAVE,
        sdr.LSCE,
    ):
        assert "d_max" in cls.params, cls.__name__
    sliced = [cls for cls in CLASSES if "nslices" in cls.params]
    assert {c.__name__ for c in sliced} == {
        "SIR",
        "SAVE",
        "DirectionalRegression",
        "IRE",
        "LassoSIR",
        "OnlineSIR",
        "RegularizedSIR",
        "BiasCorrectedSAVE",
    }
    for cls in (sdr.LSCE, sdr.LSMI, sdr.KDR, sdr.BPCA, sdr.LassoSIR):  # restarts, CV folds
        assert {"random_state", "n_jobs", "progress"} <= set(cls.params), cls.__name__
    assert sdr.KSPCA.params["n_landmarks"] == sdr.KDR.params["n_landmarks"] == 300


def test_numdir_is_r_s_alias_of_d_max(ais):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an alias, not a deprecation
        old = sdr.sir(FORMULA, ais, nslices=8, numdir=2)
        assert sdr.SIR(numdir=3).d_max == 3
        table = old.test_dimension(numdir=2).table
    new = sdr.sir(FORMULA, ais, nslices=8, d_max=2)
    same_directions(old, new)
    assert old.options["d_max"] == 2 and "numdir" not in old.options
    assert table.equals(new.test_dimension(d_max=2).table) and len(table) == 2
    with pytest.raises(TypeError, match="got both 'd_max' and 'numdir'"):
        sdr.sir(FORMULA, ais, numdir=2, d_max=3)
    perm = old.test_dimension("permutation", numdir=2, n_permutations=9, random_state=0)
    assert len(perm.table) == 2


def test_mave_takes_d_max_and_d_rule(ais):
    with pytest.raises(TypeError, match=unknown("mave", "max_dim")):
        sdr.mave(FORMULA, ais, variant="meanopg", max_dim=2)
    with pytest.raises(TypeError, match=unknown("MAVE", "max_dim")):
        sdr.MAVE(max_dim=3)
    with pytest.raises(TypeError, match=unknown("MAVE", "cv_rule")):
        sdr.MAVE(cv_rule="min")  # the rule that chooses d is d_rule, in every method
    fit = sdr.mave(FORMULA, ais, variant="meanopg", d_max=2)
    assert fit.d_max == 2 and fit.d_rule == "cv"
    assert fit.estimator.cv_test(fit).d == fit.test_dimension("cv").d == fit.d_choice.d


def test_sdspcaan_family_takes_d_the_papers_k(ais):
    formula = "sex ~ ht + wt + lbm"
    with pytest.raises(TypeError, match=unknown("sdspca", "k")):
        sdr.sdspca(formula, ais, d=2, k=2)
    with pytest.raises(TypeError, match="positional"):
        sdr.sdspca(formula, ais, 2)
    with pytest.raises(TypeError, match=unknown("PCA", "k")):
        sdr.PCA(k=2)
    fit = sdr.sdspca(formula, ais, d=2)
    assert fit.k == fit.d == 2  # the results keep the paper's name as a property


def test_d_is_keyword_only_for_the_supervised_pca_family(ais):
    for fn in (sdr.spca, sdr.kspca, sdr.bpca, sdr.kdr):
        with pytest.raises(TypeError, match="positional"):
            fn("sex ~ ht + wt + lbm", ais, 1)


def test_one_name_for_the_low_rank_size(ais):
    options = {"d": 1, "approximation": "nystroem", "random_state": 0}
    with pytest.raises(TypeError, match=unknown("kspca", "n_components")):
        sdr.kspca("sex ~ ht + wt + lbm", ais, n_components=40, **options)
    with pytest.raises(TypeError, match=unknown("KSPCA", "n_components")):
        sdr.KSPCA(n_components=40, **options)
    with pytest.raises(TypeError, match=unknown("KDR", "n_features")):
        sdr.KDR(d=1, n_features=50)


def test_dimension_rules_take_rule_and_d_max(ais):
    fit = sdr.sir(FORMULA, ais, nslices=8)
    with pytest.raises(TypeError, match="got an unknown option 'method'"):
        fit.test_dimension(method="asymptotic")
    assert fit.test_dimension("asymptotic").table.equals(
        fit.test_dimension(rule="asymptotic").table
    )
    quick = {"B": 10, "random_state": 0, "progress": False}
    with pytest.raises(TypeError, match="unknown option 'k_max'; did you mean 'd_max'"):
        fit.test_dimension("ladle", k_max=2, **quick)
    new = fit.test_dimension("ladle", d_max=2, **quick)
    assert list(new.table.index) == [0, 1, 2]
    for rule in (ladle, bootstrap_dimension):
        with pytest.raises(TypeError, match="unexpected keyword argument 'k_max'"):
            rule(fit, k_max=2, **quick)
        assert "d_max" in inspect.signature(rule).parameters
        assert rule(fit, numdir=2, **quick).table.equals(rule(fit, d_max=2, **quick).table)
    assert default_d_max(6) == 4


def test_results_do_not_depend_on_n_jobs(ais):
    # the restarts of KDR and the CV folds of BPCA run on joblib workers; child seeds and the
    # fold order are fixed, so the numbers are identical (not merely close)
    kdr = {"d": 1, "n_restarts": 2, "n_anneal": 1, "max_iter": 3, "random_state": 0}
    one = sdr.kdr("sex ~ ht + wt + lbm", ais, n_jobs=1, progress=False, **kdr)
    two = sdr.kdr("sex ~ ht + wt + lbm", ais, n_jobs=2, progress=False, **kdr)
    same_directions(one, two)
    bpca = {"d": 1, "n_folds": 3, "random_state": 0}
    one = sdr.bpca("lbm ~ ht + wt + rcc + hc", ais, n_jobs=1, **bpca)
    two = sdr.bpca("lbm ~ ht + wt + rcc + hc", ais, n_jobs=2, **bpca)
    assert one.extras["threshold"] == two.extras["threshold"]
    same_directions(one, two)


def test_a_misspelt_option_of_a_result_method_names_the_method_and_the_closest(ais):
    fit = sdr.sir(FORMULA, ais, nslices=8)
    with pytest.raises(TypeError, match=r"test_dimension\('permutation'\) got an unknown "
                       r"option 'n_perm'; did you mean 'n_permutations'\?"):  # fmt: skip
        fit.test_dimension("permutation", n_perm=5)
    with pytest.raises(TypeError, match=r"bootstrap\(\) got an unknown option 'distanc'; "
                       r"did you mean 'distance'\?"):  # fmt: skip
        fit.bootstrap(distanc="projection")
    with pytest.raises(TypeError, match=r"conditional_density\(\)\) got an unknown option "
                       r"'sigma_grd'; did you mean 'sigma_grid'\?"):  # fmt: skip
        fit.conditional_density(sigma_grd=[0.5])
