"""One meaning of ``d`` in every method, and inference reproducible from the fit's seed.

``d=None`` by default everywhere; ``fit.d`` is the user's ``d`` or the choice of the method's
``d_rule`` (``fit.d_rule`` says which, ``fit.d_choice`` keeps the rule's table); every summary
states it in one wording; ``test_dimension()`` works on every fit whatever ``d`` it was given.
A fit's ``random_state`` (given, or drawn and printed) seeds every later call that draws,
through a stream per call kind.
"""

import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
import pytest
from test_constructors import CLASSES

import sdrstats as sdr
from sdrstats.base.parallel import derived_stream, stream_key
from sdrstats.inference.dimension_test import RULE_NAMES

AIS4 = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"


def frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(rng.standard_normal((n, 4)), columns=["x1", "x2", "x3", "x4"])
    data["y"] = data.x1 + 0.5 * data.x2**2 + 0.3 * rng.standard_normal(n)
    data["g"] = np.where(data.x1 + 0.3 * rng.standard_normal(n) > 0, "a", "b")
    return data


F, G = "y ~ x1 + x2 + x3 + x4", "g ~ x1 + x2 + x3 + x4"
QUICK_KDR = {"max_iter": 3, "n_anneal": 1, "progress": False}
QUICK_LSCE = {"n_restarts": 1, "max_iter": 5, "n_basis": 30, "progress": False}
# every formula function with settings small enough for a unit test; each is fitted with
# d=None (its rule chooses) and with d=1 given
METHODS = {
    "sir": lambda data, **kw: sdr.sir(F, data, nslices=5, **kw),
    "save": lambda data, **kw: sdr.save(F, data, nslices=5, **kw),
    "phd": lambda data, **kw: sdr.phd(F, data, **kw),
    "ire": lambda data, **kw: sdr.ire(F, data, nslices=5, **kw),
    "directional_regression": lambda data, **kw: sdr.directional_regression(
        F, data, nslices=5, **kw
    ),
    "cume": lambda data, **kw: sdr.cume(F, data, **kw),
    "mave": lambda data, **kw: sdr.mave(F, data, d_max=2, max_iter=3, **kw),
    "lsce": lambda data, **kw: sdr.lsce(F, data, d_max=2, **QUICK_LSCE, **kw),
    "lsmi": lambda data, **kw: sdr.lsmi(F, data, d_max=2, **QUICK_LSCE, **kw),
    "spca": lambda data, **kw: sdr.spca(F, data, kernel_y="rbf", **kw),
    "kspca": lambda data, **kw: sdr.kspca(F, data, kernel_y="rbf", **kw),
    "bpca": lambda data, **kw: sdr.bpca(F, data, n_folds=3, progress=False, **kw),
    "kdr": lambda data, **kw: sdr.kdr(F, data, d_max=2, **QUICK_KDR, **kw),
    "mkdr": lambda data, **kw: sdr.mkdr(F, data, d_max=2, n_eigenvectors=4, **QUICK_KDR, **kw),
    "sdspcaan": lambda data, **kw: sdr.sdspcaan(G, data, d_max=2, max_iter=5, **kw),
    "sdspca": lambda data, **kw: sdr.sdspca(G, data, d_max=2, max_iter=5, **kw),
    "sdspca_lpp": lambda data, **kw: sdr.sdspca_lpp(G, data, d_max=2, max_iter=5, **kw),
    "spcan": lambda data, **kw: sdr.spcan(G, data, d_max=2, max_iter=5, **kw),
    "pcan": lambda data, **kw: sdr.pcan(G, data, d_max=2, max_iter=5, **kw),
    "pca": lambda data, **kw: sdr.pca(F, data, **kw),
    "vpca": lambda data, **kw: sdr.vpca(F, data, **kw),
    "lasso_sir": lambda data, **kw: sdr.lasso_sir(F, data, nslices=5, n_folds=3, **kw),
    "core": lambda data, **kw: sdr.core(G, data, d_max=2, **kw),
    "regularized_sir": lambda data, **kw: sdr.regularized_sir(
        F, data, nslices=5, penalty=0.1, d_max=2, **kw
    ),
    "bias_corrected_save": lambda data, **kw: sdr.bias_corrected_save(F, data, nslices=5, **kw),
    "online_sir": lambda data, **kw: sdr.OnlineSIR(nslices=5, init_size=40, **kw).fit(
        data[["x1", "x2", "x3", "x4"]], data["y"]
    ),
}


def fit(name, data, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.SDRWarning)
        return METHODS[name](data, random_state=0, **options)


@pytest.fixture(scope="module")
def data():
    return frame()


def test_every_method_is_listed_here():
    assert {cls.method for cls in CLASSES} == set(METHODS)


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
def test_every_method_takes_d_none_d_rule_d_max_and_random_state(cls):
    params = cls.params
    assert params["d"] is None, cls.__name__
    assert {"d_rule", "d_max", "random_state"} <= set(params), cls.__name__
    # "auto" (Lasso-SIR, online SIR): the method's test where it is valid, else another rule
    assert params["d_rule"] in {*RULE_NAMES, "auto"}, cls.__name__
    for old in ("cv_rule", "select_d", "dim_rule"):
        with pytest.raises(TypeError, match=re.escape(f"got an unknown option '{old}'")):
            cls(**{old: "min"})


@pytest.mark.parametrize("name", sorted(METHODS))
def test_d_none_is_the_rule_s_choice_and_the_summary_says_so(name, data):
    chosen = fit(name, data)
    rule = chosen.estimator.options["d_rule"]
    if rule == "auto":  # the rule it picked on this fit (here the test: n >= 2 p H)
        rule = chosen._default_rule()[0]
        assert rule == "asymptotic", name
    assert chosen.d_rule == rule and chosen.d_choice.rule == rule
    assert chosen.d == max(chosen.d_choice.d, 1)
    text = str(chosen.summary())
    assert f"Dimension:\n{chosen.dimension_line}" in text
    assert re.search(rf"d = {chosen.d} \((chosen by|.* chose d = 0)", chosen.dimension_line)
    # the rule's default call repeats the choice exactly (same stream)
    again = chosen.test_dimension()
    assert again.d == chosen.d_choice.d
    pd.testing.assert_frame_equal(again.table, chosen.d_choice.table)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_d_given_is_kept_and_test_dimension_works_whatever_d_was(name, data):
    given = fit(name, data, d=1)
    assert given.d == 1 and given.d_rule == "given" and given.d_choice is None
    assert "Dimension:\nd = 1 (given)" in str(given.summary())
    test = given.test_dimension()  # the default rule, never "refit with a larger d"
    assert test.rule == given._default_rule()[0] and test.d >= 0


def test_moment_methods_report_their_test_s_choice_not_d_max(ais):
    fit = sdr.sir(AIS4, ais, nslices=8)
    assert fit.d == 2 == fit.test_dimension().d and fit.options["d_max"] == 4
    assert fit.dimension_line == "d = 2 (chosen by the asymptotic test at level 0.05)"
    assert fit.directions.shape == (4, 2) and fit.all_directions.shape == (4, 4)
    save = sdr.save(AIS4, ais, nslices=8)
    assert save.dimension_line.endswith("at level 0.05 on its normal-theory p-values)")
    phd = sdr.phd(AIS4, ais)
    assert "normal-theory p-values" in phd.dimension_line
    dr = sdr.directional_regression(AIS4, ais, random_state=1)
    assert dr.dimension_line.endswith("at level 0.05 with 199 permutations)")
    r_dr = sdr.dr(AIS4, ais, method="save", nslices=8)  # R's front door: the method's rule
    assert r_dr.d == save.d and r_dr.d_rule == "asymptotic"


def test_kernel_spca_test_dimension_needs_no_refit():
    data = frame(n=150)
    one = sdr.kspca(F, data, d=1)  # a rank-one (linear) response kernel
    assert one.test_dimension().rule == "ladle"
    rbf = sdr.kspca(F, data, d=1, kernel_y="rbf", random_state=0)
    assert rbf.extras["coef"].shape[1] >= 3  # the components the ladle compares
    assert rbf.test_dimension().table.index.tolist() == [0, 1, 2]


def test_kernel_spca_ladle_reads_its_eigenvalues_on_the_scale_of_the_largest():
    # kernel eigenvalues are of order 1/n^2: unscaled, phi vanished beside the bootstrap
    # variability f and the ladle chose d = 0 whatever the data
    data = frame(n=150)
    fit = sdr.kspca(F, data, kernel_y="rbf", random_state=0)
    table = fit.test_dimension(B=20, progress=False).table
    eig = np.sort(np.abs(fit.output.eigenvalues))[::-1][: len(table)]
    np.testing.assert_allclose(table["phi"], eig / eig[0] / (1 + (eig / eig[0]).sum()))
    assert fit.d_choice.d >= 1  # y depends on x1 and x2


def test_a_fit_without_rows_uses_the_rule_that_needs_none(ais):
    parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    chunked = sdr.directional_regression(AIS4, parts)  # no rows to permute: the ratio rule
    assert chunked.d_rule == "ratio" and "eigenvalue-ratio rule" in chunked.dimension_line
    # the line says why the ratio rule stood in for the default permutation test
    assert "the default permutation rule resamples rows" in chunked.dimension_line
    assert chunked.d == sdr.directional_regression(AIS4, ais, d_rule="ratio").d
    assert sdr.sir(AIS4, parts).d == sdr.sir(AIS4, ais).d  # the asymptotic test needs no rows


def test_a_rule_choosing_no_dependence_keeps_one_direction():
    rng = np.random.default_rng(14)
    X = rng.normal(size=(200, 3))
    with pytest.warns(sdr.SDRWarning, match="chose d = 0"):
        fit = sdr.SIR(nslices=5).fit(X, rng.normal(size=200))
    assert fit.d == 1 and fit.d_choice.d == 0
    assert fit.dimension_line.startswith("d = 1 (the asymptotic test at level 0.05 chose d = 0")


# -- reproducible from the fit's seed --------------------------------------------------------
def test_a_fit_without_a_seed_draws_one_prints_it_and_repeats_with_it(ais):
    fit = sdr.sir(AIS4, ais, nslices=8)
    seed = fit.random_state
    assert isinstance(seed, int) and 0 <= seed < 2**32
    assert f"random_state = {seed} (drawn for this fit; give random_state={seed}" in str(
        fit.summary()
    )
    again = sdr.sir(AIS4, ais, nslices=8, random_state=seed)
    quick = {"n_permutations": 19, "progress": False}
    a = fit.test_dimension("permutation", **quick)
    b = again.test_dimension("permutation", **quick)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert "random_state = 3\n" in str(sdr.sir(AIS4, ais, random_state=3).summary())


SCRIPT = textwrap.dedent(
    """
    import numpy as np, sdrstats as sdr
    ais = sdr.datasets.load("ais")
    fit = sdr.directional_regression(
        "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, random_state=7
    )
    print(fit.d, fit.test_dimension(progress=False).table["p_value"].tolist())
    print(fit.bootstrap(B=10, progress=False).distances.round(12).tolist())
    dens = fit.conditional_density()
    print(dens.sample(ais.head(2), size=2).round(10).tolist())
    print(fit.test_dimension("ladle", B=10, progress=False).table["g"].round(12).tolist())
    """
)


def test_the_same_script_prints_the_same_numbers_twice():
    runs = [
        subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and runs[0].count("\n") == 4


def test_an_explicit_seed_on_the_call_wins(ais):
    fit = sdr.sir(AIS4, ais, nslices=8, random_state=7)
    own = fit.bootstrap(B=10, progress=False)
    call = fit.bootstrap(B=10, random_state=0, progress=False)
    other = sdr.sir(AIS4, ais, nslices=8, random_state=8).bootstrap(
        B=10, random_state=0, progress=False
    )
    assert own.random_state == [7, stream_key("bootstrap")] and call.random_state == 0
    assert not np.array_equal(own.distances, call.distances)
    np.testing.assert_array_equal(call.distances, other.distances)  # the fit's seed is unused


def test_different_call_kinds_draw_from_different_streams(ais):
    fit = sdr.sir(AIS4, ais, nslices=8, d=2, random_state=7)
    kinds = ["bootstrap", "test_dimension/permutation", "test_dimension/ladle"]
    kinds += ["conditional_density", "sample"]
    assert len({tuple(fit.stream(k)) for k in kinds}) == len(kinds)
    boot = fit.bootstrap(B=10, progress=False)
    ladle = fit.test_dimension("ladle", B=10, progress=False)
    assert boot.random_state != ladle.random_state
    # the same resamples would give the same eigenvector variability at k = 1, 2
    same_seed = fit.test_dimension("ladle", B=10, random_state=boot.random_state, progress=False)
    assert not np.allclose(ladle.table["f"], same_seed.table["f"])
    dens = fit.conditional_density()
    assert dens.random_state == derived_stream(7, "conditional_density")
    first, second = dens.sample(ais.head(3), size=2), dens.sample(ais.head(3), size=2)
    assert not np.allclose(first, second)  # successive draws of the density's stream
    again = fit.conditional_density()
    np.testing.assert_array_equal(again.sample(ais.head(3), size=2), first)


def test_resampling_from_the_fit_s_seed_does_not_depend_on_n_jobs(ais):
    fit = sdr.directional_regression(AIS4, ais, nslices=8, d=2, random_state=5)
    one = fit.test_dimension("permutation", n_permutations=19, n_jobs=1, progress=False)
    two = fit.test_dimension("permutation", n_permutations=19, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(one.table, two.table)
    b1 = fit.bootstrap(B=12, n_jobs=1, progress=False)
    b2 = fit.bootstrap(B=12, n_jobs=2, progress=False)
    np.testing.assert_array_equal(b1.distances, b2.distances)


def test_a_generator_seed_is_drawn_once_and_recorded(ais):
    fit = sdr.sir(AIS4, ais, random_state=np.random.default_rng(0))
    assert isinstance(fit.random_state, int)
    assert "(drawn from the generator given)" in str(fit.summary())
    same = sdr.sir(AIS4, ais, random_state=np.random.default_rng(0))
    assert same.random_state == fit.random_state
