"""IRE (Cook & Ni 2005) against R dr, and checks of its pieces.

Reference numbers (``IRE_R`` below) come from R 4.2.2 running R dr's own IRE code (the
``dr.fit.ire``, ``Gzcomp.ire``, ``dr.iteration.ire``, ``dr.coordinate.test.ire`` and
``dr.basis.ire`` functions of the public CRAN ``dr`` 3.0.x source) on the bundled ``ais`` data
(202 rows, the DAAG version R's reference JSON used), with::

    fml <- lbm ~ log(ssf)+log(wt)+log(hg)+log(ht)+log(wcc)+log(rcc)+log(hc)+log(ferr)
    ais$lbm5 <- round(ais$lbm / 5)                    # a tied, integer-valued response
    m <- dr(fml, data=ais, method="ire", nslices=8)   # "ire8"; update(fml, lbm5 ~ .) "ire_tied"
    m$slice.info$slice.sizes; m$indep.test; m$result[[d]]$summary; dr.basis(m, d)   # d = 1..4
    dr.coordinate.test(m, ~.-x); dr.coordinate.test(m, ~.-x, d=2)   # every predictor x
    dr.coordinate.test(m, ~.-log(hg), d=5)           # beyond the fitted numdir
    dr.coordinate.test(m, ~.-log(hg)-log(wcc)); dr.coordinate.test(m, ~.-log(hg)-log(wcc), d=2)

printed with 17 significant digits. Bases are compared up to the sign of each column.
"""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
import scipy.stats
from ire_reference import gamma_factor

import sdrstats as sdr
from sdrstats.moment._ire_als import Discrepancy, helmert_basis
from sdrstats.moment.ire import IRE, IREResults

FORMULA = "lbm ~ log(ssf)+log(wt)+log(hg)+log(ht)+log(wcc)+log(rcc)+log(hc)+log(ferr)"
# The issue asks for rtol 1e-6. Both sides run the same iterations (same start, same stopping
# rule) in double precision, and agree to about 1e-12 here.
RTOL = 1e-6

IRE_R = {
    "ire8.basis1": [
        0.15937775462121923,
        -0.9625879537024468,
        -0.023081656077984458,
        -0.1523663453058256,
        -0.01291686724694358,
        -0.07846266828288521,
        0.1339244331406385,
        -0.003988373614831885,
    ],
    "ire8.basis2": [
        0.15072465692809778,
        -0.9650700155418259,
        -0.16724770359308305,
        -0.0996829172626904,
        0.01595684360983481,
        0.036936541554755,
        0.07971476817364977,
        -0.006331770672841396,
        0.06516849331407656,
        -0.006182086807104148,
        -0.3971590444604007,
        0.44981096404630466,
        -0.0006586763259072676,
        -0.43461712493595744,
        0.6683889086071539,
        -0.003664289529483494,
    ],
    "ire8.basis3": [
        0.1502260278875968,
        -0.9746818033705418,
        -0.12024690717799892,
        -0.10126288816142714,
        0.01452019428718995,
        0.008707610439675455,
        0.04920690239730899,
        -0.002460437674542413,
        0.05895277379578732,
        -0.037398317646110874,
        -0.38277775921093515,
        0.42973789549099795,
        -0.005061340532433489,
        -0.4165757507827067,
        0.7002109577678702,
        0.008723866407026883,
        0.06783096346648611,
        -0.2797187418202242,
        -0.04818469641801356,
        0.5823723680949322,
        0.0013781007467906859,
        -0.14996277028779967,
        0.743641376648945,
        0.013557915840044153,
    ],
    "ire8.basis4": [
        0.15345632178209145,
        -0.9737139455583221,
        -0.12729284760724244,
        -0.07180350502997512,
        0.008661718004353542,
        0.011107094030237961,
        0.08221636436583767,
        -0.003895340509624339,
        0.07875038776389587,
        -0.06287740612997977,
        -0.3823941414153806,
        0.43609930749255754,
        -0.006005564298553531,
        -0.27422841976006435,
        0.7602585128159012,
        -0.014374405219532494,
        0.0462662009553069,
        -0.28009633528217,
        0.036987571127393315,
        0.5792831903952658,
        0.03466458566258807,
        -0.3021693185418783,
        0.6993155337564869,
        0.03030247841179836,
        0.042539165705474925,
        -0.07060068327497618,
        0.418018910301973,
        -0.13718511373887418,
        -0.0440448033361616,
        0.7477808185889155,
        -0.48100902989819166,
        -0.08462041069719739,
    ],
    "ire8.coord_d2.log(ferr)": [15.643573931372742, 2.0, 0.0004009046394939887],
    "ire8.coord_d2.log(hc)": [21.430019516477728, 2.0, 2.2209070793439928e-05],
    "ire8.coord_d2.log(hg)": [20.132806671620642, 2.0, 4.24831370607841e-05],
    "ire8.coord_d2.log(ht)": [15.663007719821309, 2.0, 0.0003970279566787787],
    "ire8.coord_d2.log(rcc)": [21.169895366249875, 2.0, 2.5293890259223034e-05],
    "ire8.coord_d2.log(ssf)": [230.54627543023008, 2.0, 8.659890062057975e-51],
    "ire8.coord_d2.log(wcc)": [16.271810189309008, 2.0, 0.00029283387342120287],
    "ire8.coord_d2.log(wt)": [510.5231047269733, 2.0, 1.3845746199477938e-111],
    "ire8.coord_d2.two": [21.985506280146325, 4.0, 0.0002017561883950689],
    "ire8.coord_d5.log(hg)": [8.418488434447006, 5.0, 0.13463031056673483],
    "ire8.coord_marg.log(ferr)": [15.166826424647587, 7.0, 0.0339194116888281],
    "ire8.coord_marg.log(hc)": [18.304947242211234, 7.0, 0.010667340947926342],
    "ire8.coord_marg.log(hg)": [8.20921802986746, 7.0, 0.31450744544718257],
    "ire8.coord_marg.log(ht)": [8.775167611296586, 7.0, 0.26920373921601637],
    "ire8.coord_marg.log(rcc)": [13.626297818217063, 7.0, 0.05824148853575554],
    "ire8.coord_marg.log(ssf)": [227.49554264947997, 7.0, 1.6897289422655458e-45],
    "ire8.coord_marg.log(wcc)": [2.308799887699705, 7.0, 0.9407939441377695],
    "ire8.coord_marg.log(wt)": [449.1457630438991, 7.0, 6.774758313772689e-93],
    "ire8.coord_marg.two": [10.411757451319081, 14.0, 0.7315024274190367],
    "ire8.indep": [1697.044320560582, 56.0, 3.487046e-318, 0.0],
    "ire8.slice_sizes": [25.0, 25.0, 25.0, 25.0, 27.0, 27.0, 30.0, 18.0],
    "ire8.test1": [107.29604072787791, 42.0, 1.2633173934208593e-07, 4.0],
    "ire8.test2": [49.566111803795806, 30.0, 0.013752738750118596, 6.0],
    "ire8.test3": [21.157934586480117, 20.0, 0.3878896216990156, 12.0],
    "ire8.test4": [3.672515183083927, 12.0, 0.9886474796033695, 5.0],
    "ire_tied.basis1": [
        0.11902765520979038,
        -0.8796130047821527,
        -0.15981652163306712,
        -0.308424503379799,
        -0.007904276848168369,
        -0.23988507391475067,
        0.18392674563732359,
        -0.0031638901828588365,
    ],
    "ire_tied.basis2": [
        0.13131346206452296,
        -0.9379102474352584,
        -0.18587218855163629,
        -0.1729702732061264,
        0.0032349757185748665,
        -0.13846260910519906,
        0.13926636224885744,
        -0.006039677510896628,
        0.03675223138006808,
        0.12796120104138684,
        -0.47863539056975135,
        0.11714910271952578,
        -0.01926236227610043,
        -0.5304030885672301,
        0.6765583602395472,
        -0.00545576490014681,
    ],
    "ire_tied.basis3": [
        0.13383600016691932,
        -0.9436395838191515,
        -0.17006772366554646,
        -0.14305397556766958,
        -0.0012886741845728482,
        -0.15246609720424015,
        0.1378239882582088,
        0.0013293356225141625,
        0.03609487912437516,
        0.11395832732314365,
        -0.5038818392610782,
        0.1685203437166513,
        -0.0068182052186781285,
        -0.5296792566408012,
        0.650178496344147,
        0.008715802023380317,
        0.005983486437249491,
        0.09281987304989027,
        0.4380280183368968,
        -0.12463927453952985,
        -0.049034630867273894,
        0.33508886539684235,
        -0.8157317648922693,
        -0.06195095204820438,
    ],
    "ire_tied.basis4": [
        0.12419624614345269,
        -0.9198129167063915,
        -0.17371759021603322,
        -0.31316854996340093,
        -0.0018149065821913633,
        -0.09415981615538901,
        0.03728667612301866,
        0.0027363820437202517,
        0.07215974184542279,
        -0.11788663225828012,
        -0.192385650005206,
        0.6885370818288589,
        -0.008758605714464837,
        -0.3923351925646439,
        0.561950027299126,
        -0.002951699508871642,
        0.016032779716370953,
        -0.23814722805147479,
        -0.19738276773314184,
        0.5752713546283509,
        0.0646285358226863,
        -0.3214200093097634,
        0.6802696737821455,
        0.05364009877966939,
        0.0449547779054466,
        -0.29789967412109575,
        0.4473819365353471,
        0.7773299463080708,
        -0.000252896994679316,
        0.21431149477089673,
        -0.24090140123908876,
        -0.02965541552244641,
    ],
    "ire_tied.coord_d2.log(ferr)": [5.378438923786035, 2.0, 0.06793394371494267],
    "ire_tied.coord_d2.log(hc)": [10.117327434579806, 2.0, 0.00635404464237538],
    "ire_tied.coord_d2.log(hg)": [8.871691764762339, 2.0, 0.011845042156314158],
    "ire_tied.coord_d2.log(ht)": [7.2215847876028505, 2.0, 0.027030419641097803],
    "ire_tied.coord_d2.log(rcc)": [16.83164759090333, 2.0, 0.00022133707427549577],
    "ire_tied.coord_d2.log(ssf)": [108.67029714539053, 2.0, 2.5266483437902674e-24],
    "ire_tied.coord_d2.log(wcc)": [5.4712707783183845, 2.0, 0.0648527872519692],
    "ire_tied.coord_d2.log(wt)": [425.51821909158934, 2.0, 3.980088688741953e-93],
    "ire_tied.coord_d2.two": [10.116285708339632, 4.0, 0.038513765321799925],
    "ire_tied.coord_d5.log(hg)": [5.3013313367345365, 5.0, 0.3802224348429796],
    "ire_tied.coord_marg.log(ferr)": [18.349698288068275, 5.0, 0.002538605990009439],
    "ire_tied.coord_marg.log(hc)": [7.810280466858886, 5.0, 0.16700605375039063],
    "ire_tied.coord_marg.log(hg)": [4.96352034642927, 5.0, 0.4203484400562955],
    "ire_tied.coord_marg.log(ht)": [6.802389711242138, 5.0, 0.23575654049889616],
    "ire_tied.coord_marg.log(rcc)": [9.23587980607573, 5.0, 0.1000175804146792],
    "ire_tied.coord_marg.log(ssf)": [112.69922115710487, 5.0, 1.101244653760267e-22],
    "ire_tied.coord_marg.log(wcc)": [3.8498695636167324, 5.0, 0.5712273446786821],
    "ire_tied.coord_marg.log(wt)": [393.13140514964863, 5.0, 8.96469123196336e-83],
    "ire_tied.coord_marg.two": [9.612789537634567, 10.0, 0.47509534275890003],
    "ire_tied.indep": [626.019273352736, 40.0, 2.625700740249586e-106, 0.0],
    "ire_tied.slice_sizes": [28.0, 45.0, 48.0, 39.0, 33.0, 9.0],
    "ire_tied.test1": [87.33330192946114, 28.0, 5.146112696622557e-08, 4.0],
    "ire_tied.test2": [31.634524662940507, 18.0, 0.02428059937321437, 7.0],
    "ire_tied.test3": [8.580015324563428, 10.0, 0.5723701345989983, 6.0],
    "ire_tied.test4": [0.6693418069382155, 4.0, 0.9550551836330513, 4.0],
}

# R dr on a response with four values (h = 4 < numdir + 1), numdir = 4 as R's default:
#   ais$y4 <- cut(ais$lbm, breaks=c(0, 50, 60, 70, 200), labels=FALSE)
#   m <- dr(y4 ~ log(ssf)+log(wt)+log(hg)+log(ht)+log(wcc), data=ais, method="ire")
# Rows 3 and 4 (d >= h - 1) are exact fits: F is rounding noise, df 0 and -1.
IRE_FEW_R = {
    "ire_few.indep": [556.9889966128001, 15.0, 4.794794424960242e-109, 0.0],
    "ire_few.test1": [27.9010487570894, 8.0, 0.0004934337883712262, 2.0],
    "ire_few.test2": [1.8835097194377128, 3.0, 0.5969330086115996, 3.0],
    "ire_few.test3": [1.718658564690614e-28, 0.0, 0.0, 201.0],
    "ire_few.test4": [1.689796424470798e-28, -1.0, float("nan"), 201.0],
    "ire_few.basis1": [
        0.14500933012537845,
        -0.9237162337342194,
        -0.09761142313464875,
        -0.33851642473440574,
        -0.0399906735517428,
    ],
    "ire_few.basis2": [
        0.14308740657821314,
        -0.9244728184668863,
        -0.09712820677540858,
        -0.3388536143764851,
        -0.02490665507847761,
        0.10270359831820253,
        0.012521709071021635,
        -0.5733205170954613,
        0.8103080574352464,
        0.06324250491041859,
    ],
    "ire_few.coord_marg.log(hg)": [9.421925807585328, 3.0, 0.024176609464751586],
    "ire_few.coord_d1.log(hg)": [7.312778914171915, 1.0, 0.006846596808742383],
}


@pytest.fixture(scope="module")
def fits():
    ais = sdr.datasets.load("ais")
    ais["lbm5"] = np.round(ais["lbm"] / 5)
    return {
        "ire8": sdr.ire(FORMULA, ais, nslices=8),
        "ire_tied": sdr.ire(FORMULA.replace("lbm ~", "lbm5 ~"), ais, nslices=8),
    }


@pytest.fixture(params=["ire8", "ire_tied"])
def case(request, fits):
    return request.param, fits[request.param]


def test_slice_sizes_match_r(case):
    name, fit = case
    assert fit.slice_sizes.tolist() == IRE_R[f"{name}.slice_sizes"]


def test_dimension_table_matches_r(case):
    name, fit = case
    table = fit.test_dimension().table
    assert table.index.tolist() == [f"{k}D vs > {k}D" for k in range(5)]
    for k in range(5):
        ref = IRE_R[f"{name}.indep"] if k == 0 else IRE_R[f"{name}.test{k}"]
        row = table.iloc[k]
        assert row["df"] == ref[1]
        assert row["iterations"] == ref[3]  # same number of ALS sweeps as R
        np.testing.assert_allclose(row["stat"], ref[0], rtol=RTOL)
        if ref[2] > 1e-300:  # R's 0D p-value is a subnormal; ours underflows the same way
            np.testing.assert_allclose(row["p_value"], ref[2], rtol=RTOL)


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_bases_match_r_up_to_sign(case, d):
    name, fit = case
    ours = fit.extras["solutions"][d]
    ref = np.array(IRE_R[f"{name}.basis{d}"]).reshape(8, d, order="F")
    signs = np.sign(np.sum(ours * ref, axis=0))
    # unit vectors: an absolute tolerance of 1e-6 is rtol 1e-6 on their largest entries
    np.testing.assert_allclose(ours * signs, ref, atol=1e-6)


def test_reported_directions_are_the_tested_dimension_s_solution_by_default(fits):
    # d = None: the chi-square tests at level 0.05 choose d (R's table rejects 0D, 1D and 2D
    # here and keeps 3D), and the fit reports that dimension's own solution
    fit = fits["ire8"]
    assert fit.d == fit.test_dimension().d == 3 and fit.d_rule == "asymptotic"
    np.testing.assert_array_equal(fit.directions.to_numpy(), fit.extras["solutions"][3])
    assert fit.directions.columns.tolist() == ["Dir1", "Dir2", "Dir3"]
    assert fit.criterion == pytest.approx(IRE_R["ire8.test3"][0], rel=RTOL)
    given = sdr.ire(FORMULA, sdr.datasets.load("ais"), nslices=8, d=4)  # R's numdir solution
    assert given.criterion == pytest.approx(IRE_R["ire8.test4"][0], rel=RTOL)


def test_d_option_reports_that_dimension(fits, ais):
    fit = sdr.ire(FORMULA, ais, nslices=8, d=2)
    np.testing.assert_allclose(fit.directions.to_numpy(), fits["ire8"].extras["solutions"][2])
    assert fit.transform().shape == (202, 2)


@pytest.mark.parametrize(
    "x",
    ["log(ssf)", "log(wt)", "log(hg)", "log(ht)", "log(wcc)", "log(rcc)", "log(hc)", "log(ferr)"],
)
def test_coordinate_tests_match_r(case, x):
    name, fit = case
    for d, key in [(None, "coord_marg"), (2, "coord_d2")]:
        test = fit.coordinate_test(f"~ . - {x}", d=d)
        ref = IRE_R[f"{name}.{key}.{x}"]
        np.testing.assert_allclose(test.statistic, ref[0], rtol=RTOL)
        assert test.df == ref[1]
        np.testing.assert_allclose(test.p_value, ref[2], rtol=RTOL)


def test_two_term_and_beyond_numdir_coordinate_tests_match_r(case):
    name, fit = case
    two = "~ . - log(hg) - log(wcc)"
    for test, key in [
        (fit.coordinate_test(two), "coord_marg.two"),
        (fit.coordinate_test(two, d=2), "coord_d2.two"),
    ]:
        ref = IRE_R[f"{name}.{key}"]
        np.testing.assert_allclose([test.statistic, test.df, test.p_value], ref, rtol=RTOL)
    # d = 5 > numdir refits from the identity start; R does 201 sweeps without converging
    # there too, so the warning is expected and the numbers still agree
    with pytest.warns(sdr.ConvergenceWarning, match="d = 5"):
        test = fit.coordinate_test("~ . - log(hg)", d=5)
    ref = IRE_R[f"{name}.coord_d5.log(hg)"]
    np.testing.assert_allclose([test.statistic, test.df, test.p_value], ref, rtol=RTOL)


def test_response_with_few_values_matches_r(ais):
    data = ais.assign(y4=np.digitize(ais["lbm"], [50, 60, 70], right=True) + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the exact fits at d >= h - 1 must not warn
        fit = sdr.ire("y4 ~ log(ssf)+log(wt)+log(hg)+log(ht)+log(wcc)", data)
    table = fit.test_dimension().table
    for k in range(3):
        ref = IRE_FEW_R["ire_few.indep" if k == 0 else f"ire_few.test{k}"]
        np.testing.assert_allclose(table.iloc[k].to_numpy(dtype=float), ref, rtol=RTOL)
    # R also prints d = 3, 4 (df 0 and -1): with h = 4 slices those are exact fits, not tests,
    # so the table stops at d = h - 2; the exact fits are still computed (R: statistic 1.7e-28)
    assert len(table) == 3 and (table["df"] > 0).all()
    assert max(abs(fit.extras["criteria"][k]) for k in (3, 4)) < 1e-20
    assert [fit.extras["iterations"][k] for k in (3, 4)] == [201, 201]
    for d in (1, 2):
        ref = np.array(IRE_FEW_R[f"ire_few.basis{d}"]).reshape(5, d, order="F")
        ours = fit.extras["solutions"][d]
        np.testing.assert_allclose(ours * np.sign(np.sum(ours * ref, axis=0)), ref, atol=1e-6)
    for d, key in [(None, "coord_marg"), (1, "coord_d1")]:
        test = fit.coordinate_test("~ . - log(hg)", d=d)
        ref = IRE_FEW_R[f"ire_few.{key}.log(hg)"]
        np.testing.assert_allclose([test.statistic, test.df, test.p_value], ref, rtol=RTOL)


# -- pieces checked independently of R --------------------------------------------------
def test_helmert_basis_is_an_orthonormal_contrast_basis():
    A = helmert_basis(6)
    np.testing.assert_allclose(A.T @ A, np.eye(5), atol=1e-14)
    np.testing.assert_allclose(A.sum(axis=0), 0.0, atol=1e-14)


def test_gamma_factor_equals_the_dense_kronecker_formula():
    rng = np.random.default_rng(1)
    n, p, h = 60, 3, 4
    Z = rng.standard_normal((n, p))
    labels = np.repeat(np.arange(h), n // h)
    f = np.bincount(labels) / n
    means = rng.standard_normal((p, h))
    A = helmert_basis(h)
    # R's recipe: rows vec(z_i ε_iᵀ) (column-major), covariance with divisor n, then
    # (Aᵀ ⊗ I) · · (A ⊗ I)
    rows = []
    for i in range(n):
        eps = -f - (Z[i] @ means) * f
        eps[labels[i]] += 1
        rows.append(np.outer(Z[i], eps).reshape(-1, order="F"))
    cov = np.cov(np.array(rows), rowvar=False, ddof=0)
    K = np.kron(A, np.eye(p))
    expected = K.T @ cov @ K
    G = gamma_factor(Z, labels, f, means, A)
    np.testing.assert_allclose(np.triu(G), G)
    np.testing.assert_allclose(G.T @ G, expected, atol=1e-12)


def test_als_solution_is_a_local_minimum(fits):
    fit = fits["ire8"]
    disc = Discrepancy(fit.extras["zeta"], fit.extras["gamma_factor"], fit.n)
    start = fit.extras["raw_solutions"][2]
    B, best, _ = disc.minimise(2, start=start, tol=1e-13, max_iter=5000)

    def profile(basis):  # F with C at its least-squares optimum
        return disc.value(basis, disc.update_c(basis))

    assert profile(B) == pytest.approx(best, rel=1e-12)
    assert best <= profile(start)
    rng = np.random.default_rng(0)
    for _ in range(20):
        moved = B + 1e-3 * rng.standard_normal(B.shape)
        # a stationary point: moves of size 1e-3 change F only at second order
        assert profile(moved) >= best * (1 - 1e-7)


def test_criterion_only_depends_on_the_span(fits):
    fit = fits["ire8"]
    disc = Discrepancy(fit.extras["zeta"], fit.extras["gamma_factor"], fit.n)
    B = fit.extras["raw_solutions"][3]
    mixed = B @ np.array([[2.0, 1.0, 0.0], [0.5, -1.0, 0.3], [0.0, 0.2, 1.0]])
    assert disc.value(mixed, disc.update_c(mixed)) == pytest.approx(
        disc.value(B, disc.update_c(B)), rel=1e-9
    )


def test_recovers_a_single_index_model():
    rng = np.random.default_rng(7)
    n, p = 400, 5
    X = rng.standard_normal((n, p))
    beta = np.array([1.0, -1.0, 0.0, 0.0, 0.0]) / np.sqrt(2)
    y = (X @ beta) ** 3 / 2 + 0.3 * rng.standard_normal(n)
    fit = IRE(nslices=6, numdir=2).fit(X, y)
    table = fit.test_dimension().table
    # seeded: with n = 400 the 0D test is overwhelming and the 1D test is not rejected
    assert table.loc["0D vs > 0D", "p_value"] < 1e-10
    assert table.loc["1D vs > 1D", "p_value"] > 0.05
    assert fit.test_dimension().d == 1
    # n^{-1/2} ≈ 0.05 is the sampling scale of the direction; 0.15 allows three of those
    assert sdr.projection_distance(fit.extras["solutions"][1], beta[:, None]) < 0.15


def test_formula_and_array_paths_agree(fits, ais):
    X = np.log(ais[["ssf", "wt", "hg", "ht", "wcc", "rcc", "hc", "ferr"]].to_numpy())
    fit = IRE(nslices=8).fit(X, ais["lbm"].to_numpy())
    np.testing.assert_allclose(
        fit.directions.to_numpy(), fits["ire8"].directions.to_numpy(), atol=1e-12
    )
    pd.testing.assert_frame_equal(fit.test_dimension().table, fits["ire8"].test_dimension().table)


def test_unit_weights_give_the_unweighted_fit(fits, ais):
    fit = fits["ire8"]
    out = fit.refit(fit.spec.X, fit.spec.Y, weights=np.ones(fit.n))
    np.testing.assert_allclose(out.basis, fit.output.basis, atol=1e-10)
    assert out.criterion == pytest.approx(fit.criterion, rel=1e-10)


def test_summary_and_pickle(fits):
    fit = fits["ire8"]
    text = str(fit.summary())
    assert "Large-sample Marginal Dimension Tests" in text and "0D vs > 0D" in text
    assert "Solutions for various dimensions" in text and "Dimension = 4" in text
    assert isinstance(fit, IREResults)
    assert "<table" in fit._repr_html_() and "tabular" in fit.summary().as_latex()
    again = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(again.directions.to_numpy(), fit.directions.to_numpy())
    assert again.coordinate_test("~ . - log(hg)").statistic == pytest.approx(
        fit.coordinate_test("~ . - log(hg)").statistic, rel=1e-12
    )


def test_asymptotic_test_numdir_caps_rows(fits):
    table = fits["ire8"].test_dimension(numdir=2).table
    assert table.index.tolist() == ["0D vs > 0D", "1D vs > 1D", "2D vs > 2D"]


def test_numdir_is_capped_at_p_minus_one():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 3))
    y = X[:, 0] + 0.1 * rng.standard_normal(80)
    fit = IRE(numdir=6).fit(X, y)
    assert fit.extras["numdir"] == 2
    assert sorted(fit.extras["solutions"]) == [1, 2] and fit.d == 1  # a single index


def test_non_convergence_warns():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((100, 4))
    y = X[:, 0] * X[:, 1] + rng.standard_normal(100)
    with pytest.warns(sdr.ConvergenceWarning, match="raise max_iter or tol"):
        IRE(numdir=3, max_iter=1, tol=1e-14).fit(X, y)


# -- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"numdir": 0}, ValueError, "'d_max' parameter of IRE must be an int >= 1"),
        ({"steps": -1}, ValueError, "'steps' parameter of IRE must be an int >= 0"),
        ({"tol": 0.0}, ValueError, "'tol' parameter of IRE must be a float > 0"),
        ({"max_iter": 0}, ValueError, "'max_iter' parameter of IRE must be an int >= 1"),
        ({"d": 1.5}, TypeError, "'d' parameter of IRE must be an int"),
        ({"lambda_": 1}, TypeError, "unknown option"),
    ],
)
def test_bad_options_are_named(options, error, message):
    with pytest.raises(error, match=message):
        IRE(**options)


def test_d_out_of_range_is_explained(ais):
    with pytest.raises(ValueError, match=r"'d' option of ire must be at most p - 1 = 3; got 4"):
        sdr.ire("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=4)


def test_single_predictor_is_rejected(ais):
    with pytest.raises(ValueError, match="ire needs at least two predictors"):
        sdr.ire("lbm ~ log(wt)", ais)


def test_ire_has_no_eigenvalues_but_a_criterion(fits):
    fit = fits["ire8"]
    assert fit.eigenvalues is None
    assert np.isfinite(fit.criterion)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit.transform().shape == (202, 3)


def test_directions_have_unit_columns(fits):
    B = fits["ire8"].directions.to_numpy()
    np.testing.assert_allclose(np.linalg.norm(B, axis=0), 1.0, atol=1e-12)
    assert scipy.linalg.subspace_angles(B, fits["ire8"].extras["solutions"][3]).max() < 1e-10


def test_drop1_and_step_match_r(fits):
    # R: drop1(m, update=FALSE) orders by decreasing p-value; dr.step(m) keeps these two
    table = fits["ire8"].drop1()
    assert list(table.index) == [
        "log(wcc)",
        "log(hg)",
        "log(ht)",
        "log(rcc)",
        "log(ferr)",
        "log(hc)",
        "log(ssf)",
        "log(wt)",
    ]
    assert fits["ire8"].step().kept == ["log(ssf)", "log(wt)"]


def test_affine_equivariance_and_row_order_invariance(fits):
    # Whitening removes any invertible linear map A of the predictors: the fit on X A has
    # directions A^{-1} B (same criteria), and the rows' order does not matter.
    fit = fits["ire8"]
    X, y = fit.spec.X, fit.spec.Y
    A = np.random.default_rng(9).standard_normal((8, 8)) + 3 * np.eye(8)
    moved = IRE(nslices=8).fit(X @ A, y[:, 0])
    back = np.linalg.solve(A, fit.extras["solutions"][2])
    assert scipy.linalg.subspace_angles(moved.extras["solutions"][2], back).max() < 1e-8
    np.testing.assert_allclose(
        moved.test_dimension().table["stat"], fit.test_dimension().table["stat"], rtol=1e-8
    )
    order = np.random.default_rng(10).permutation(fit.n)
    shuffled = IRE(nslices=8).fit(X[order], y[order, 0])
    np.testing.assert_allclose(
        shuffled.test_dimension().table["stat"], fit.test_dimension().table["stat"], rtol=1e-8
    )


def test_coordinate_tests_ignore_predictor_scales(ais):
    # Exact invariance holds for the exact minimum; at R's default tol = 1e-6 the restricted
    # ALS of the conditional test stops about 1e-4 (relative) above it, at a point that
    # depends on the predictors' scales, so compare fits iterated to tol = 1e-13.
    fit = sdr.ire(FORMULA, ais, nslices=8, tol=1e-13, max_iter=20_000)
    X, y = fit.spec.X, fit.spec.Y[:, 0]
    scaled = IRE(nslices=8, tol=1e-13, max_iter=20_000).fit(X * np.arange(1.0, 9.0), y)
    for d in (None, 2):
        a = fit.coordinate_test(["log(hg)"], d=d)
        b = scaled.coordinate_test(["x3"], d=d)
        assert b.statistic == pytest.approx(a.statistic, rel=1e-9)


# -- small-sample versions of the test (Yuan & Bentler 1997, 1999) ---------------------------
def test_the_default_test_is_r_s_and_the_corrections_are_scalings_of_it(fits):
    fit = fits["ire8"]
    r_test = fit.test_dimension()
    pd.testing.assert_frame_equal(r_test.table, fit.test_dimension(correction=None).table)
    stat, df, n = r_test.table["stat"], r_test.table["df"], fit.n
    f_test = fit.test_dimension(correction="F")
    expected = scipy.stats.f.sf(stat * (n - df) / ((n - 1) * df), df, n - df)
    np.testing.assert_allclose(f_test.table["p_value"], expected, rtol=1e-12)
    yb = fit.test_dimension(correction="yuan_bentler")
    np.testing.assert_allclose(
        yb.table["p_value"], scipy.stats.chi2.sf(stat / (1 + stat / n), df), rtol=1e-12
    )
    # both shrink the statistic: p-values never below R's, so the chosen d is never larger
    assert (f_test.table["p_value"] >= r_test.table["p_value"]).all()
    assert f_test.d <= r_test.d and yb.d <= r_test.d
    assert "Yuan & Bentler's (1999) F version" in str(f_test)
    with pytest.raises(ValueError, match="correction must be one of"):
        fit.test_dimension(correction="bartlett")


def test_the_summary_says_when_n_is_small_for_the_slices(ais):
    small = str(sdr.ire("lbm ~ log(ssf) + log(wt) + log(hg)", ais, nslices=8).summary())
    assert "Small sample:\nn = 202 is small for the 21 slice-mean moments" in small
    rng = np.random.default_rng(3)
    X = rng.standard_normal((1000, 3))
    big = sdr.IRE(nslices=4).fit(X, X[:, 0] + rng.standard_normal(1000))
    assert "Small sample" not in str(big.summary())  # 1000 rows for 9 moments


def _cars93_like(seed: int = 1, n: int = 90, p: int = 8) -> pd.DataFrame:
    """A frame of Cars93's shape (n = 90, p = 8): correlated predictors, a two-index response."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) @ (np.eye(p) + 0.3)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    frame["y"] = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.5 * rng.standard_normal(n)
    return frame


CARS_FORMULA = "y ~ " + " + ".join(f"x{j}" for j in range(8))


def test_default_slicing_keeps_gamma_estimable_at_cars93_shape():
    # R's max(8, p + 3) = 11 slices give p(h - 1) = 80 moments from 90 rows: the default is the
    # largest h with p(h - 1) <= n/2, the fit converges without a warning and says so
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = sdr.ire(CARS_FORMULA, _cars93_like())
    assert len(fit.output.extras["slice_sizes"]) == 6
    text = str(fit.summary())
    assert "6 slices, below R dr's default max(8, p + 3) = 11" in text
    assert "nslices=11" in text


def test_bootstrap_uses_the_fit_s_own_slicing():
    fit = sdr.ire(CARS_FORMULA, _cars93_like(2))
    boot = fit.bootstrap(B=10, random_state=0)
    assert boot.n_failed == 0 and np.isfinite(boot.distances).all()


def test_chunked_fit_takes_the_same_default_slicing():
    frame = _cars93_like(3)
    whole = sdr.ire(CARS_FORMULA, frame)
    parts = sdr.ire(CARS_FORMULA, sdr.chunks_from([frame.iloc[:45], frame.iloc[45:]]))
    np.testing.assert_array_equal(
        parts.output.extras["slice_sizes"], whole.output.extras["slice_sizes"]
    )


def test_given_nslices_is_used_as_in_r():
    # R's numbers follow from an explicit nslices, whatever the rows
    fit = sdr.ire(CARS_FORMULA, _cars93_like(), nslices=11, max_iter=2000)
    assert len(fit.output.extras["slice_sizes"]) == 11
    assert "below R dr's default" not in str(fit.summary())


def test_default_slicing_is_r_s_with_enough_rows(ais):
    fit = sdr.ire("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    assert len(fit.output.extras["slice_sizes"]) == 8
    assert "Slicing" not in str(fit.summary())


def test_singular_gamma_error_advises_a_slicing_that_works():
    frame = _cars93_like(n=40)
    with pytest.raises(ValueError, match=r"'nslices' option of ire to at most 3") as caught:
        sdr.ire(CARS_FORMULA, frame, nslices=10)
    fit = sdr.ire(CARS_FORMULA, frame, nslices=3)  # the advice works
    assert fit.d >= 0 and "p(h - 1) <= n/2" in str(caught.value)
