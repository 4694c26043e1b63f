"""Plots draw with the Agg backend and carry the expected labels."""

import matplotlib.pyplot as plt
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
