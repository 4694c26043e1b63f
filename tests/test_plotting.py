"""Plots draw with the Agg backend, keep one contract and carry labels in words.

The contract (``sdrstats.plotting``): every plot returns a Figure, takes ``ax=`` (or ``axes=``)
and ``figsize=``, is sized for a journal column or page with text of at least 8 pt, and draws
in the colour-blind-safe palette.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.text import Text

import sdrstats as sdr
from sdrstats.plotting import COLUMN_WIDTH, MIN_FONT_SIZE, PAGE_WIDTH, PALETTE

FORMULA = "lbm ~ log(wt) + log(ht) + log(ssf) + log(hc)"
CLASSES = "sex ~ log(wt) + log(ht) + log(ssf) + log(hc)"


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _texts(fig):
    """Every visible text of a drawn figure, tick labels included."""
    fig.canvas.draw()
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def _stream():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 5))
    y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(3000)
    stream = sdr.OnlineSIR(d=1, init_size=200, block_size=100)
    for start in range(0, 3000, 300):
        stream.partial_fit(X[start : start + 300], y[start : start + 300])
    return stream


# Every kind of plot the package draws, as a user calls it: name -> (make, default width).
PLOTS = {
    "summary d = 2 (matrix)": (lambda ais: sdr.sir(FORMULA, ais, d=2).plot(), PAGE_WIDTH),
    "summary d = 1": (lambda ais: sdr.sir(FORMULA, ais, d=1).plot(), COLUMN_WIDTH),
    "summary, classes, d = 1": (lambda ais: sdr.sir(CLASSES, ais, d=1).plot(), COLUMN_WIDTH),
    "3d": (lambda ais: sdr.save(FORMULA, ais, d=2).plot("3d"), COLUMN_WIDTH),
    "scree": (lambda ais: sdr.sir(FORMULA, ais).plot("scree"), COLUMN_WIDTH),
    "dimension test": (lambda ais: sdr.sir(FORMULA, ais).test_dimension().plot(), COLUMN_WIDTH),
    "bootstrap": (
        lambda ais: sdr.sir(FORMULA, ais, d=2).plot("bootstrap", B=10, progress=False),
        PAGE_WIDTH,
    ),
    "projection": (
        lambda ais: sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=2, add_identity=1.0).plot(),
        COLUMN_WIDTH,
    ),
    "conditional density": (
        lambda ais: sdr.sir(FORMULA, ais, d=1).conditional_density().plot(ais.head(3)),
        COLUMN_WIDTH,
    ),
    "calibration": (
        lambda ais: (
            sdr.sir(FORMULA, ais.iloc[::2], d=1)
            .conditional_density()
            .calibration(ais.iloc[1::2])
            .plot()
        ),
        PAGE_WIDTH,
    ),
    "stream": (lambda ais: _stream().results().plot(), PAGE_WIDTH),
}


@pytest.mark.parametrize("name", list(PLOTS))
def test_every_plot_returns_a_figure_sized_for_print_with_readable_text(ais, name):
    make, width = PLOTS[name]
    fig = make(ais)
    assert isinstance(fig, Figure), type(fig)
    assert fig.get_figwidth() == pytest.approx(width)
    small = [(t.get_text(), t.get_fontsize()) for t in _texts(fig) if t.get_fontsize() < 8]
    assert not small, f"text under {MIN_FONT_SIZE} pt: {small}"


@pytest.mark.parametrize("name", ["summary d = 1", "scree", "dimension test", "projection"])
def test_one_panel_plots_draw_into_the_callers_axes_and_take_figsize(ais, name):
    make, _ = PLOTS[name]
    fig = make(ais)
    plt.close(fig)
    own, ax = plt.subplots(figsize=(5, 4))
    kind = {"summary d = 1": "summary", "scree": "scree", "projection": "projection"}
    if name == "dimension test":
        drawn = sdr.sir(FORMULA, ais).test_dimension().plot(ax=ax)
    elif name == "projection":
        fit = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=2, add_identity=1.0)
        drawn = fit.plot(ax=ax)
    else:
        drawn = sdr.sir(FORMULA, ais, d=1).plot(kind[name], ax=ax)
    assert drawn is own and ax.has_data()
    if name == "projection":
        fit = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=2, add_identity=1.0)
        sized = fit.plot(figsize=(6, 5))
    elif name == "dimension test":
        sized = sdr.sir(FORMULA, ais).test_dimension().plot(figsize=(6, 5))
    else:
        sized = sdr.sir(FORMULA, ais, d=1).plot(kind[name], figsize=(6, 5))
    assert tuple(sized.get_size_inches()) == (6, 5)


def test_plots_use_the_colour_blind_safe_palette(ais):
    fig = sdr.sir(CLASSES, ais, d=1).plot()
    curves = [line for line in fig.axes[0].get_lines() if not line.get_label().startswith("_")]
    colours = {to_hex(line.get_color()) for line in curves}
    assert len(colours) == 2 and colours <= {c.lower() for c in PALETTE}, colours


def test_sufficient_summary_plot_one_direction(ais):
    ax = sdr.sir(FORMULA, ais, d=1).plot("summary").axes[0]
    assert ax.get_xlabel() == "Dir1" and ax.get_ylabel() == "lbm"
    assert any(line.get_label() == "lowess" for line in ax.get_lines())


def test_summary_of_two_or_more_directions_is_r_plot_dr_scatterplot_matrix(ais):
    fit = sdr.save(FORMULA, ais, d=2)
    fig = fit.plot()
    assert len(fig.axes) == 9  # Dir1, Dir2 and lbm: a 3 x 3 matrix as R's pairs
    grid = np.asarray(fig.axes).reshape(3, 3)
    assert [ax.get_xlabel() for ax in grid[-1]] == ["Dir1", "Dir2", "lbm"]
    assert [ax.get_ylabel() for ax in grid[:, 0]] == ["Dir1", "Dir2", "lbm"]
    # the smoother: lbm (the last row) against each direction
    assert all(ax.get_lines() for ax in grid[-1, :2])
    # R's mark.by.y: the response colours the points instead of being a column
    marked = fit.plot(mark_by_y=True)
    assert marked.axes[-1].get_ylabel() == "lbm"  # the colour bar
    assert len(marked.axes) == 2  # one panel (Dir1 against Dir2) and its colour bar


def test_a_two_dimensional_ax_is_refused_with_a_clear_message_not_a_crash(ais):
    fit = sdr.save(FORMULA, ais, d=2)
    _, ax = plt.subplots()
    with pytest.raises(TypeError, match="scatterplot matrix: pass a grid of Axes as axes="):
        fit.plot(ax=ax)
    assert fit.plot(which=1, ax=ax).axes == [ax]  # one direction draws one panel
    fig, grid = plt.subplots(3, 3)
    assert fit.plot(axes=grid) is fig
    with pytest.raises(ValueError, match="pass a 3-D Axes"):
        fit.plot("3d", ax=ax)
    three = plt.figure().add_subplot(projection="3d")
    assert fit.plot("3d", ax=three).axes == [three] and three.get_zlabel() == "lbm"


def test_one_direction_of_a_class_response_is_a_density_and_strip_per_class(ais):
    for fit in (
        sdr.sir(CLASSES, ais, d=1),
        sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=1, add_identity=1.0),
    ):
        ax = fit.plot().axes[0]
        assert ax.get_xlabel() == "Dir1" and ax.get_ylabel() == "density"
        assert "2-D" not in ax.get_title() and "by class" in ax.get_title()
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == ["f (n = 100)", "m (n = 102)"]
        assert len(ax.collections) == 2  # a strip of points per class


def test_scree_plot_shows_p_values(ais):
    ax = sdr.sir(FORMULA, ais).plot("scree").axes[0]
    assert ax.get_ylabel() == "eigenvalue"
    assert any(t.get_text().startswith("p = ") for t in ax.texts)


def test_unknown_plot_kind(ais):
    with pytest.raises(ValueError, match="kind must be one of"):
        sdr.sir(FORMULA, ais).plot("pie")


def test_bootstrap_distance_distribution_plot(ais):
    fit = sdr.sir(FORMULA, ais, d=2)
    fig = fit.bootstrap(B=20, random_state=0, progress=False).plot()
    hist, boxes = fig.axes
    assert hist.get_xlabel() == "projection distance to the full-sample subspace"
    assert hist.get_ylabel() == "replicates"
    assert boxes.get_ylabel() == "|cos| with the\nfull-sample direction"
    assert fig._suptitle.get_text() == "Bootstrap of sir (B = 20, d = 2)"
    tc = fit.bootstrap(B=10, distance="trace_correlation", random_state=0, progress=False)
    assert tc.plot().axes[0].get_xlabel().startswith("1 − trace correlation")


def test_p_values_are_on_a_log_scale_and_rules_speak_in_words(ais):
    fit = sdr.sir(FORMULA, ais)
    ax = fit.test_dimension("asymptotic").plot().axes[0]
    assert ax.get_ylabel() == "p-value" and ax.get_yscale() == "log"
    assert ax.get_title() == "sir: asymptotic rule"
    ladle = fit.test_dimension("ladle", B=10, random_state=0, progress=False)
    ax = ladle.plot().axes[0]
    assert ax.get_xlabel() == "d" and ax.get_ylabel() == "ladle criterion"
    boot = fit.test_dimension(
        "bootstrap", B=10, distance="trace_correlation", random_state=0, progress=False
    )
    assert boot.plot().axes[0].get_ylabel() == "mean bootstrap 1 − trace correlation"
    cv = sdr.mave("lbm ~ log(wt) + log(ht)", ais.iloc[:80], d=None).test_dimension()
    ax = cv.plot().axes[0]
    assert ax.get_xlabel() == "d" and ax.get_ylabel() == "held-out CV score"


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
    ax = fit.plot().axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Dir1", "y")
    assert [line.get_label() for line in ax.get_lines()] == ["conditional mean"]
    assert "10%-90% band" in [c.get_label() for c in ax.collections]
    ax = fit.conditional_density("lsce").plot(frame.iloc[:3]).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("y", "p(y | x)")
    assert ax.get_title() == "Conditional density (LSCE)" and len(ax.get_lines()) == 3


def test_the_stream_plots_its_eigenvalues_and_how_far_each_estimate_moved():
    stream = _stream()
    fig = stream.results().plot()
    eigen, moved = fig.axes
    assert eigen.get_ylabel() == "tracked eigenvalue" and eigen.get_xlabel() == "rows seen"
    assert moved.get_ylabel() == "projection distance to the\nprevious estimate"
    assert moved.get_yscale() == "log"
    rows = stream.trace.index.to_numpy()
    np.testing.assert_array_equal(eigen.get_lines()[0].get_xdata(), rows)
    # one distance per recorded estimate after the first, each to the one before it
    steps = moved.get_lines()[0]
    np.testing.assert_array_equal(steps.get_xdata(), rows[1:])
    assert np.all(steps.get_ydata() > 0)
    assert stream.results().plot().axes[0].get_ylabel() == "tracked eigenvalue"
    with pytest.raises(ValueError, match="a stream does not keep"):
        stream.results().plot("summary")


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
    ax = test.plot().axes[0]
    label = _marker_label(ax, test.d)
    assert label is not None and label.lstrip("d= ").startswith(str(test.d)), label
