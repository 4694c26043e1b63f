"""The supervised-PCA family through the shared inference layer, density and plots."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr

FORMULA = "lbm ~ ht + wt + bmi + ssf"
# KDR runs on a small iteration budget here (these tests check the plumbing, not KDR's fit).
pytestmark = pytest.mark.filterwarnings("ignore::sdrstats.ConvergenceWarning")


@pytest.fixture(scope="module")
def fits(ais):
    return {
        "spca": sdr.spca(FORMULA, ais, kernel_y="rbf", d=2),
        "bpca": sdr.bpca(FORMULA, ais, d=1, random_state=0),
        "kdr": sdr.kdr(FORMULA, ais, d=1, n_anneal=2, max_iter=5),
        "kspca": sdr.kspca(FORMULA, ais, d=1),
    }


@pytest.fixture(scope="module")
def ais():
    return sdr.datasets.load("ais")


def test_spca_permutation_test_finds_the_signal(fits):
    # lbm is almost a linear function of wt and ht (R^2 ~ 0.95): the first HSIC direction
    # beats all 49 permutations, so its p-value is the minimum 1/50.
    test = fits["spca"].test_dimension(
        "permutation", n_permutations=49, numdir=2, random_state=0, progress=False
    )
    assert test.table["p_value"].iloc[0] == pytest.approx(1 / 50)
    assert test.rule == "permutation" and test.method == "spca"


@pytest.mark.parametrize("method", ["spca", "bpca", "kdr"])
def test_bootstrap_refits_linear_members(fits, method):
    boot = fits[method].bootstrap(B=4, random_state=1, progress=False)
    assert len(boot.distances) == 4 and np.all(np.isfinite(boot.distances))
    again = fits[method].bootstrap(B=4, random_state=1, progress=False)
    np.testing.assert_array_equal(boot.distances, again.distances)  # one seed, same replicates


def test_kdr_uses_the_bootstrap_dimension_rule(fits):
    with pytest.raises(ValueError, match="not available for kdr"):
        fits["kdr"].test_dimension("permutation")
    test = fits["kdr"].test_dimension("bootstrap", B=3, random_state=0, progress=False)
    assert test.rule == "bootstrap"


def test_kernel_spca_says_resampling_rules_need_linear_directions(fits):
    # bootstrap() now compares embeddings of the training rows; the permutation
    # rule still needs linear directions and says what is available instead
    assert fits["kspca"].bootstrap(B=3, random_state=0, progress=False).kind == "embedding"
    with pytest.raises(ValueError, match=r"not available for kspca.*bootstrap\(\)"):
        fits["kspca"].test_dimension("permutation")


@pytest.mark.parametrize("method", ["spca", "bpca", "kdr", "kspca"])
def test_conditional_density_on_the_reduced_predictors(fits, ais, method):
    dens = fits[method].conditional_density()
    grid = np.linspace(ais["lbm"].min(), ais["lbm"].max(), 200)
    pdf = dens.pdf(ais.iloc[:3], grid)
    assert pdf.shape == (3, 200) and np.all(pdf >= 0)
    # Riemann sum over a grid that covers the data: a density integrates to about 1 (the
    # Gaussian mixture puts a little mass outside the observed range, hence the 0.1 margin).
    mass = pdf.sum(axis=1) * (grid[1] - grid[0])
    assert np.all(np.abs(mass - 1) < 0.1)


def test_plot_is_a_projection_scatter_coloured_by_class(ais):
    fit = sdr.spca("sport ~ ht + wt + lbm + bmi + ssf", ais, d=2, add_identity=1.0)
    ax = fit.plot().axes[0]
    assert ax.get_xlabel() == "Dir1" and ax.get_ylabel() == "Dir2"
    assert len(ax.collections) == ais["sport"].nunique()  # one scatter per class
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(legend) == sorted(ais["sport"].unique())
    plt.close(ax.figure)


def test_plot_of_kernel_spca_and_continuous_response(fits, ais):
    # one direction: the response against it with a smoother, not a fake second axis
    ax = fits["kspca"].plot(newdata=ais.iloc[:50]).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Dir1", "lbm")
    assert "2-D" not in ax.get_title()
    # two directions: the rows coloured by the response, with a colour bar
    fig = fits["spca"].plot(newdata=ais.iloc[:50])
    assert len(fig.axes[0].collections) == 1 and fig.axes[1].get_ylabel() == "lbm"
    plt.close("all")
    with pytest.raises(ValueError, match=r"which \(1, 3\) needs d >= 3"):
        fits["spca"].plot(which=(1, 3))


def test_kernel_spca_default_dimension_rule_is_the_embedding_ladle():
    # a single index, y = sin(x1) + noise: the ladle of kernel SPCA's embedding (Luo & Li
    # 2016, with the embedding bootstrap's variability) chooses d = 1 on these seeds
    rng = np.random.default_rng(5)
    X = rng.standard_normal((150, 4))
    data = pd.DataFrame(X, columns=["x1", "x2", "x3", "x4"]).assign(
        y=np.sin(X[:, 0]) + 0.2 * rng.standard_normal(150)
    )
    fit = sdr.kspca("y ~ .", data, d=3, kernel_y="rbf")
    test = fit.test_dimension(B=30, random_state=0, progress=False)
    assert test.rule == "ladle" and list(test.table.columns) == ["f", "phi", "g"]
    assert test.d == 1
    assert test.table["f"].iloc[0] == 0.0 and (test.table["f"].iloc[1:] >= 0).all()
