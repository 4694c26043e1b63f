"""Plots draw with the Agg backend and carry the expected labels."""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr

FORMULA = "lbm ~ log(wt) + log(ht) + log(ssf) + log(hc)"


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_sufficient_summary_plot_one_direction(ais):
    ax = sdr.sir(FORMULA, ais, d=1).plot("summary")
    assert ax.get_xlabel() == "Dir1" and ax.get_ylabel() == "lbm"
    assert "sufficient summary plot" in ax.get_title()
    assert any(line.get_label() == "lowess" for line in ax.get_lines())


def test_sufficient_summary_plot_two_directions(ais):
    ax = sdr.save(FORMULA, ais, d=2).plot("summary")
    assert ax.get_xlabel() == "Dir1" and ax.get_ylabel() == "Dir2" and ax.get_zlabel() == "lbm"


def test_summary_plot_of_classes(ais):
    ax = sdr.sir("sex ~ log(wt) + log(ht) + log(ssf) + log(hc)", ais, d=1).plot()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["f", "m"]


def test_scree_plot_shows_p_values(ais):
    ax = sdr.sir(FORMULA, ais).plot("scree")
    assert ax.get_ylabel() == "eigenvalue"
    assert any(t.get_text().startswith("p=") for t in ax.texts)


def test_unknown_plot_kind(ais):
    with pytest.raises(ValueError, match="kind must be"):
        sdr.sir(FORMULA, ais).plot("pie")


def test_bootstrap_distance_distribution_plot(ais):
    fit = sdr.sir(FORMULA, ais, d=2)
    hist, boxes = fit.bootstrap(B=20, random_state=0, progress=False).plot()
    assert hist.get_xlabel() == "projection distance to the full-sample subspace"
    assert hist.get_ylabel() == "replicates"
    assert boxes.get_ylabel() == "|cos| with the full-sample direction"
    assert hist.figure._suptitle.get_text() == "Bootstrap of sir (B = 20, d = 2)"


def test_ladle_curve_and_p_value_plots(ais):
    fit = sdr.sir(FORMULA, ais)
    ladle = fit.test_dimension("ladle", B=10, random_state=0, progress=False)
    ax = ladle.plot()
    assert ax.get_xlabel() == "k" and ax.get_ylabel() == "ladle criterion"
    assert ax.get_title() == f"ladle rule for sir: d = {ladle.d}"
    ax = fit.test_dimension("asymptotic").plot()
    assert ax.get_ylabel() == "p-value" and ax.get_title().startswith("asymptotic rule for sir")


def test_conditional_density_curves_and_quantile_band():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(100, 3)), columns=["a", "b", "c"])
    frame["y"] = frame.a**2 + 0.2 * rng.normal(size=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        fit = sdr.lsce(
            "y ~ .",
            frame,
            d=1,
            n_restarts=1,
            max_iter=5,
            n_basis=30,
            progress=False,
            random_state=0,
        )
    ax = fit.plot()
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Dir1", "y")
    assert [line.get_label() for line in ax.get_lines()] == ["conditional mean"]
    assert "10%-90% band" in [c.get_label() for c in ax.collections]
    ax = fit.conditional_density("lsce").plot(frame.iloc[:3])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("y", "p(y | x)")
    assert ax.get_title() == "Conditional density (LSCE)" and len(ax.get_lines()) == 3


def test_two_dimensional_class_projection(ais):
    fit = sdr.spca("sex ~ log(wt) + log(ht) + log(ssf) + log(hc)", ais, d=1)
    ax = fit.plot()
    assert ax.get_xlabel() == "Dir1" and ax.get_title() == "spca: 2-D projection"


def _marker_label(ax, d):
    """The tick label under the chosen-d marker (the vertical dotted line)."""
    (marker,) = [line for line in ax.get_lines() if line.get_label().startswith("chosen d")]
    x = marker.get_xdata()[0]
    assert x == d
    ax.figure.canvas.draw()
    labels = {round(t.get_position()[0], 6): t.get_text() for t in ax.get_xticklabels()}
    return labels.get(round(float(x), 6))


@pytest.mark.parametrize(
    "make",
    [
        lambda ais: sdr.sir(FORMULA, ais).test_dimension("asymptotic"),
        lambda ais: sdr.lsce(
            "lbm ~ log(wt) + log(ht)", ais.iloc[:80], n_restarts=1, random_state=0, progress=False
        ).test_dimension(),
    ],
    ids=["p-values", "cv labels"],
)
def test_chosen_d_marker_sits_on_the_chosen_row(ais, make):
    """Rows labelled by text ("d = 1", "1D vs >= 2D") sit at their dimension, so the marker
    drawn at the chosen d is on that row's tick, not on the next one."""
    test = make(ais)
    ax = test.plot()
    label = _marker_label(ax, test.d)
    assert label is not None and label.lstrip("d= ").startswith(str(test.d)), label
