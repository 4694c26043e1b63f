"""Partial SIR and SAVE (``group=``) keep the contract of the moment fits.

Numbers against R are in test_r_dr_partial.py; here: summaries, transform, refits that keep
each row's group (bootstrap, permutation, ladle, step), saving, and the errors.
"""

import pickle

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr
from sdrstats.inference.permutation import _GroupWhitening

F = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)"
METHODS = ["sir", "save"]


@pytest.fixture(scope="module")
def fits(ais):
    return {m: getattr(sdr, m)(F, ais, group="sex", nslices=4) for m in METHODS}


@pytest.mark.parametrize("method", METHODS)
def test_summary_names_the_group_its_levels_slices_and_sizes(fits, method):
    text = str(fits[method].summary())
    assert f"{method}('{F}', data, group='sex', nslices=4)" in text
    assert f"partial {method} (group sex: f, m) with 4 4 slices, n = 100 102." in text
    assert "25 25 25 25 30 25 29 18" in text  # the slices of each group, as R prints them
    assert "Large-sample Marginal Dimension Tests" in text and "R^2(OLS|dr)" in text


def test_pool_is_shown_and_changes_the_whitening(ais):
    own = sdr.sir(F, ais, group="~ sex", nslices=4)
    pooled = sdr.sir(F, ais, group="sex", nslices=4, pool=True)
    assert "pooled covariance" in str(pooled.summary()) and "pooled" not in str(own.summary())
    assert not np.allclose(own.eigenvalues, pooled.eigenvalues)


@pytest.mark.parametrize("method", METHODS)
def test_formula_function_and_class_front_agree(ais, fits, method):
    cls = {"sir": sdr.SIR, "save": sdr.SAVE}[method]
    other = cls.from_formula(F, ais, group="sex", nslices=4)
    np.testing.assert_array_equal(other.directions, fits[method].directions)


@pytest.mark.parametrize("method", METHODS)
def test_transform_is_the_centred_rows_times_the_directions(ais, fits, method):
    fit = fits[method]
    new = ais.sample(5, random_state=1)
    X = np.log(new[["ssf", "wt", "hg", "ht"]].to_numpy())
    expected = (X - fit.output.center) @ fit.directions.to_numpy()
    np.testing.assert_allclose(fit.transform(new).to_numpy(), expected, rtol=1e-12)
    assert fit.transform(new).index.equals(new.index)


@pytest.mark.parametrize("method", METHODS)
def test_bootstrap_refits_resampled_rows_with_their_groups(fits, method):
    fit = fits[method]
    assert fit.estimator.replicate_kernel(fit) is None  # no weighted shortcut: rows are drawn
    for scheme in ("multinomial", "poisson"):
        boot = fit.bootstrap(B=8, d=1, random_state=0, progress=False, scheme=scheme)
        assert boot.distances.shape == (8,) and np.all(np.isfinite(boot.distances))
    with pytest.raises(ValueError, match="refits on resampled rows, not on weighted ones"):
        fit.refit(fit.spec.X, fit.spec.Y, weights=np.ones(fit.n))


def test_permutation_moves_rows_only_within_their_group(ais, fits):
    spec = fits["sir"].spec
    whitening = _GroupWhitening(spec.X, spec.groups)
    basis = fits["sir"].directions_for(1).to_numpy()
    permuted = whitening.permuted(whitening.split(basis), np.random.default_rng(0))
    for (rows, part), split in zip(whitening.parts, whitening.split(basis)):
        assert set(spec.groups[rows]) in ({"f"}, {"m"})
        before, after = part.Z, np.linalg.solve(part.chol, (permuted[rows] - part.mean).T).T
        kept, dropped = split
        # each row keeps its part along the direction; the rest comes from rows of its group
        np.testing.assert_allclose(after @ kept, before @ kept, atol=1e-10)
        rest_before, rest_after = before @ dropped, after @ dropped
        assert not np.allclose(rest_after, rest_before)
        order = np.lexsort(rest_before.T)
        np.testing.assert_allclose(rest_after[np.lexsort(rest_after.T)], rest_before[order])


@pytest.mark.parametrize("method", METHODS)
def test_other_dimension_rules_run(fits, method):
    fit = fits[method]
    quick = {"random_state": 0, "progress": False}
    perm = fit.test_dimension("permutation", n_permutations=19, d_max=2, **quick)
    assert perm.table.index.tolist() == ["0D vs >= 1D", "1D vs >= 2D"]
    assert perm.table["p_value"].iloc[0] == pytest.approx(0.05)  # lbm depends on the predictors
    assert fit.test_dimension("ladle", B=10, **quick).d >= 1


@pytest.mark.parametrize("method", METHODS)
def test_pickle_and_save_round_trip(tmp_path, fits, method):
    fit = fits[method]
    again = pickle.loads(pickle.dumps(fit))
    path = tmp_path / "fit.npz"
    fit.save(path)
    loaded = sdr.load(path)
    for other in (again, loaded):
        np.testing.assert_array_equal(other.directions, fit.directions)
        assert other.test_dimension().table.equals(fit.test_dimension().table)
        assert other.coordinate_test(["log(hg)"]).statistic == pytest.approx(
            fit.coordinate_test(["log(hg)"]).statistic, rel=1e-14
        )


def test_step_refits_with_the_groups(fits):
    result = fits["save"].step(minsize=3)
    assert result.fit.p == 3 and result.fit.extras["group_levels"] == ["f", "m"]


def test_a_class_label_is_sliced_by_class_within_each_group(ais):
    data = ais[ais["sport"].isin(["Row", "T_400m", "B_Ball"])]
    fit = sdr.sir("sport ~ log(ssf) + log(wt) + log(hg) + log(ht)", data, group="sex")
    counts = data.groupby(["sex", "sport"]).size()
    assert [s.tolist() for s in fit.extras["group_slice_sizes"]] == [
        counts["f"].tolist(),
        counts["m"].tolist(),
    ]


def test_cut_points_slice_every_group(ais):
    fit = sdr.save(F, ais, group="sex", cut_points=[50, 60])
    sizes = [s.tolist() for s in fit.extras["group_slice_sizes"]]
    assert sizes == [[21, 56, 23], [1, 5, 96]]


def test_equal_groups_give_r_s_weighting_up_to_the_number_of_groups(ais):
    # every group weighs n_g/n: with G equal groups the kernel is the groups' sum over G
    data = ais.iloc[:200]
    fit = sdr.sir(F, data, group="sex", nslices=4)
    summed = sum(z @ z.T for z in fit.extras["group_kernels"])
    np.testing.assert_allclose(fit.extras["M"], summed / 2, atol=1e-14)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: sdr.sir(F, d, group="sex", weights="wt"), "with case weights is not"),
        (
            lambda d: sdr.save("sex ~ log(wt) + log(ht)", sdr.chunks_from([d]), group="sport"),
            "needs a numeric response",
        ),
        (lambda d: sdr.sir(F, d, pool=True), "'pool' option of SIR .* needs group="),
        (lambda d: sdr.save(F, d, group="sexx"), "'group' column 'sexx' is not in data"),
        (lambda d: sdr.sir(F, d, group="sex", subset="sex == 'f'"), "has one level \\('f'\\)"),
        (lambda d: sdr.save(F, d, group="sport"), "Group 'Gym' of 'sport' has 4 rows; .*pool=True"),
        (lambda d: sdr.sir("lbm + wt ~ log(ssf)", d, group="sex"), "takes one response column"),
        (
            lambda d: sdr.SIR(group="sex").fit(np.log(d[["ssf", "wt"]]), d["lbm"]),
            "Partial SIR \\(group='sex'\\) needs the group of every row",
        ),
        (
            lambda d: sdr.sir(F, d, group="sex").coordinate_test(["log(hg)"], d=1),
            "marginal only, as R dr's; call it without d",
        ),
        (
            lambda d: sdr.save(
                "lbm ~ log(wt) + c", d.assign(c=np.where(d.sex == "f", 1.0, 2.0)), group="sex"
            ),
            "'c' is constant within the groups",
        ),
    ],
)
def test_errors_name_the_problem(ais, call, message):
    with pytest.raises(ValueError, match=message):
        call(ais)


def test_a_predictor_constant_in_one_group_suggests_pool(ais):
    data = ais.assign(c=np.where(ais.sex == "f", 1.0, np.arange(202.0)))
    with pytest.raises(ValueError, match="'c' is constant in group 'f' of 'sex'; .*pool=True"):
        sdr.sir("lbm ~ log(wt) + c", data, group="sex")
    assert sdr.sir("lbm ~ log(wt) + c", data, group="sex", pool=True).p == 2


def test_pool_makes_directions_affine_equivariant(ais):
    # with one whitening for every group, an invertible map of the predictors maps the
    # directions back: B(XA) spans A^{-1} B(X)
    rng = np.random.default_rng(3)
    A = rng.normal(size=(4, 4)) + 3 * np.eye(4)
    X = np.log(ais[["ssf", "wt", "hg", "ht"]].to_numpy())
    frame = pd.DataFrame(X @ A, columns=["a", "b", "c", "e"]).assign(lbm=ais.lbm, sex=ais.sex)
    plain = pd.DataFrame(X, columns=["a", "b", "c", "e"]).assign(lbm=ais.lbm, sex=ais.sex)
    formula = "lbm ~ a + b + c + e"
    mapped = sdr.save(formula, frame, group="sex", pool=True, nslices=4, d=2)
    base = sdr.save(formula, plain, group="sex", pool=True, nslices=4, d=2)
    expected = np.linalg.solve(A, base.directions.to_numpy())
    assert sdr.projection_distance(mapped.directions.to_numpy(), expected) < 1e-8


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("pool", [False, True])
def test_chunks_and_dask_equal_the_fit_in_memory(ais, method, pool):
    # one pass of per-group, per-slice sums after exact per-group slicing: the same numbers
    # as in memory to rounding (the sums are merged over chunks in another order)
    memory = getattr(sdr, method)(F, ais, group="sex", nslices=4, pool=pool)
    parts = [ais.iloc[:70], ais.iloc[70:71], ais.iloc[71:150], ais.iloc[150:]]
    fits = [getattr(sdr, method)(F, sdr.chunks_from(parts), group="sex", nslices=4, pool=pool)]
    dd = pytest.importorskip("dask.dataframe")
    fits.append(
        getattr(sdr, method)(
            F, dd.from_pandas(ais, npartitions=3), group="sex", nslices=4, pool=pool
        )
    )
    for fit in fits:
        assert not fit.spec.keeps_rows and fit.n == memory.n
        assert fit.extras["group_levels"] == memory.extras["group_levels"]
        np.testing.assert_array_equal(fit.slice_sizes, memory.slice_sizes)
        np.testing.assert_allclose(fit.output.eigenvalues, memory.output.eigenvalues, atol=1e-10)
        np.testing.assert_allclose(fit.output.basis, memory.output.basis, atol=1e-9)
        pd.testing.assert_frame_equal(
            fit.test_dimension().table, memory.test_dimension().table, rtol=1e-9
        )
        text = str(fit.summary())
        assert "partial" in text and "chunks." in text and "R^2(OLS|dr)" in text
