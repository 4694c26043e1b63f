"""One vocabulary across the families (docs/vocabulary.md), and the old names' way out.

Every old name keeps working with a FutureWarning naming the new one and gives the same
numbers; R's ``numdir`` is an alias of ``d_max`` without a warning.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
from test_constructors import CLASSES

import sdrstats as sdr
from sdrstats.inference import bootstrap_dimension, default_d_max, default_k_max, ladle

FORMULA = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"


def renamed(old, new, owner):
    """The FutureWarning of a renamed option, as a regular expression."""
    return re.escape(
        f"'{old}' is renamed '{new}' in {owner}; use {new}=... (the old name will be removed)"
    )


def same_directions(a, b):
    np.testing.assert_array_equal(a.directions.to_numpy(), b.directions.to_numpy())


def test_every_class_names_its_dimension_d_and_its_largest_dimension_d_max():
    for cls in CLASSES:
        assert "d" in cls.params, cls.__name__
        assert not {"k", "numdir", "max_dim", "k_max", "method"} & set(cls.params), cls.__name__
        assert not {"n_components", "n_features"} & set(cls.params), cls.__name__
    for cls in (sdr.SIR, sdr.SAVE, sdr.PHD, sdr.DR, sdr.CUME, sdr.IRE, sdr.MAVE, sdr.LSCE):
        assert "d_max" in cls.params, cls.__name__
    sliced = [cls for cls in CLASSES if "nslices" in cls.params]
    assert {c.__name__ for c in sliced} == {"SIR", "SAVE", "DR", "IRE", "LassoSIR", "OnlineSIR"}
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


def test_mave_max_dim_is_d_max(ais):
    with pytest.warns(FutureWarning, match=renamed("max_dim", "d_max", "MAVE")):
        old = sdr.mave(FORMULA, ais, variant="meanopg", max_dim=2)
    new = sdr.mave(FORMULA, ais, variant="meanopg", d_max=2)
    same_directions(old, new)
    assert new.d_max == new.max_dim == 2
    with pytest.warns(FutureWarning, match=renamed("max_dim", "d_max", "MAVE")):
        assert sdr.MAVE(max_dim=3).d_max == 3
    # MAVE's own CV choice rule is cv_rule (rule names the dimension rule)
    with pytest.warns(FutureWarning, match=renamed("rule", "cv_rule", "cv_test")):
        assert new.estimator.cv_test(new, rule="min").d == new.test_dimension("cv", cv_rule="min").d


def test_sdspcaan_family_takes_d_the_papers_k(ais):
    formula = "sex ~ ht + wt + lbm"
    with pytest.warns(FutureWarning, match=renamed("k", "d", "SDSPCA")):
        old = sdr.sdspca(formula, ais, k=2)
    with pytest.warns(FutureWarning, match="'d' is keyword-only in sdspca"):
        positional = sdr.sdspca(formula, ais, 2)
    new = sdr.sdspca(formula, ais, d=2)
    same_directions(old, new)
    same_directions(positional, new)
    with pytest.warns(FutureWarning, match=renamed("k", "d", "PCA")):
        assert sdr.PCA(k=2).d == 2
    with pytest.raises(TypeError, match=r"PCA needs the option\(s\) \['d'\]"):
        sdr.PCA()
    assert new.k == new.d == 2  # the results keep the paper's name as a property


def test_d_by_position_still_works_for_the_supervised_pca_family(ais):
    with pytest.warns(FutureWarning, match="'d' is keyword-only in spca; use d=..."):
        old = sdr.spca("sex ~ ht + wt + lbm", ais, 1)
    same_directions(old, sdr.spca("sex ~ ht + wt + lbm", ais, d=1))


def test_one_name_for_the_low_rank_size(ais):
    options = {"d": 1, "approximation": "nystroem", "random_state": 0}
    with pytest.warns(FutureWarning, match=renamed("n_components", "n_landmarks", "KSPCA")):
        old = sdr.kspca("sex ~ ht + wt + lbm", ais, n_components=40, **options)
    new = sdr.kspca("sex ~ ht + wt + lbm", ais, n_landmarks=40, **options)
    np.testing.assert_array_equal(old.transform().to_numpy(), new.transform().to_numpy())
    options = {"d": 1, "approximation": "fourier", "n_anneal": 1, "max_iter": 3, "random_state": 0}
    with pytest.warns(FutureWarning, match=renamed("n_features", "n_landmarks", "KDR")):
        old = sdr.kdr("sex ~ ht + wt + lbm", ais, n_features=50, **options)
    same_directions(old, sdr.kdr("sex ~ ht + wt + lbm", ais, n_landmarks=50, **options))


def test_dimension_rules_take_rule_and_d_max(ais):
    fit = sdr.sir(FORMULA, ais, nslices=8)
    with pytest.warns(FutureWarning, match=renamed("method", "rule", "test_dimension")):
        old = fit.test_dimension(method="asymptotic")
    assert old.table.equals(fit.test_dimension(rule="asymptotic").table)
    quick = {"B": 10, "random_state": 0, "progress": False}
    with pytest.warns(FutureWarning, match=renamed("k_max", "d_max", "test_dimension")):
        old = fit.test_dimension("ladle", k_max=2, **quick)
    new = fit.test_dimension("ladle", d_max=2, **quick)
    assert old.table.equals(new.table) and list(new.table.index) == [0, 1, 2]
    for rule in (ladle, bootstrap_dimension):
        with pytest.warns(FutureWarning, match=renamed("k_max", "d_max", rule.__name__)):
            old = rule(fit, k_max=2, **quick)
        assert old.table.equals(rule(fit, d_max=2, **quick).table)
        assert "d_max" in inspect.signature(rule).parameters
    assert default_k_max is default_d_max


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
