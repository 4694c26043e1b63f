"""The density layer's models: one layer for every fit, the published LSCDE kept exactly,
the default model chosen by held-out log-likelihood and said so, LSCE's separate widths."""

import warnings

import numpy as np
import pytest
from method_registry import FITS, regression_frame

import sdrstats as sdr
from sdrstats.density import ConditionalDensity
from sdrstats.density.mixture import fit_lscde
from sdrstats.density.models import AUTO_CANDIDATES
from sdrstats.simulate import lsce_artificial
from sdrstats.stats.gaussian import standardise_response

CONTINUOUS = [
    "sir",
    "save",
    "phd",
    "ire",
    "directional_regression",
    "cume",
    "mave",
    "lsce",
    "lsmi",
    "spca",
    "kspca",
    "bpca",
    "kdr",
    "lasso_sir",
]


@pytest.fixture(scope="module")
def frame():
    return regression_frame()


@pytest.mark.parametrize("name", CONTINUOUS + ["pca", "vpca"])
def test_every_fit_gets_its_density_from_the_one_layer(name, frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.SDRWarning)
        if name in ("pca", "vpca"):  # SDSPCAAN's linear members take a continuous response
            fit = getattr(sdr, name)("y ~ x1 + x2 + x3 + x4", frame, d=2)
        else:
            fit = FITS[name](frame)
        dens = fit.conditional_density(random_state=0)
    assert isinstance(dens, ConditionalDensity)
    assert dens.method == f"{fit.method}/lscde"
    assert dens.model in AUTO_CANDIDATES
    assert list(dens.model_choice.index) == list(AUTO_CANDIDATES)
    # The model kept is the one with the larger held-out mean log density.
    assert dens.model == dens.model_choice["held-out log score"].idxmax()
    assert dens.heldout_log_score == dens.model_choice.loc[dens.model, "held-out log score"]


def test_single_width_is_the_published_lscde_unchanged():
    data, _ = lsce_artificial("b", 120, random_state=21)
    dens = sdr.lscde("y ~ x2 + x3", data, model="single", random_state=0).conditional_density()
    Z = dens.features()[0]
    Ys = standardise_response(data["y"].to_numpy(), "lscde")[0]
    direct = fit_lscde(Z, Ys, random_state=0)
    # The same centres, folds and (σ, λ) as LSCDE on its own, to the last bit.
    assert dens.tuning["sigma"] == direct["sigma"] and dens.tuning["lambda"] == direct["lambda"]
    keep = direct["alpha"] > 0
    np.testing.assert_array_equal(dens.log_alpha, np.log(direct["alpha"][keep]))
    np.testing.assert_array_equal(dens.centres_z, direct["centres_z"][keep])
    assert dens.model == "single" and dens.n_tail == 0


def test_summary_names_the_model_chosen_and_its_heldout_score():
    data, _ = lsce_artificial("a", 150, random_state=3)
    fit = sdr.lscde("y ~ x1 + x2", data, random_state=0)
    dens = fit.conditional_density()
    text = str(fit.summary())
    assert "Chosen by held-out log-likelihood (5-fold; larger is better)" in text
    assert f"mean log density {dens.heldout_log_score:.4f}" in text
    assert "Model choice (held-out mean log density)" in text
    assert str(dens.summary()).count("Model:") == 1
    assert repr(fit).endswith(f"{dens.model}, held-out log score = {dens.heldout_log_score:.4g}>")
    # On a curved mean with constant noise the location-scale form wins by a wide margin.
    assert dens.model == "location_scale"
    table = dens.model_choice["held-out log score"]
    assert table["location_scale"] - table["separate"] > 0.5


def test_a_model_can_be_asked_for_and_bad_names_are_refused():
    data, _ = lsce_artificial("b", 100, random_state=5)
    sep = sdr.lscde("y ~ x2", data, model="separate", random_state=0).conditional_density()
    assert sep.model == "separate" and len(sep.model_choice) == 1
    assert {"sigma_z", "sigma_y", "lambda"} <= set(sep.tuning)
    with pytest.raises(ValueError, match="'model' option of lscde"):
        sdr.lscde("y ~ x2", data, model="kde")


class SeparateWidthsLSCE(sdr.LSCE):
    widths = "separate"


def test_lsce_can_reselect_separate_widths():
    data, truth = lsce_artificial("b", 100, random_state=8)
    X, y = data.drop(columns="y").to_numpy(), data["y"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sdr.ConvergenceWarning)
        fit = SeparateWidthsLSCE(d=1, n_restarts=2, max_iter=10, progress=False, random_state=0)
        fit = fit.fit(X, y)
    # x2 is found (Error_DR observed 0.05; a random direction is about 1.3).
    assert sdr.projection_distance(fit.directions.to_numpy(), truth) < 0.3
    own = fit.conditional_density("lsce")
    assert own.tuning["sigma_z"] == fit.sigma
    assert own.component_sd[0] == pytest.approx(fit.extras["sigma_y"] * y.std(ddof=1))
    assert "sigma_y" in fit.cv_table.columns and "sigma_y =" in str(fit.summary())


def _auto_and_alone(frame, formula, monkeypatch=None, margin=None):
    import sdrstats.density.models as density_models

    if margin is not None:
        monkeypatch.setattr(density_models, "COARSE_MARGIN", margin)
    auto = sdr.lscde(formula, frame, random_state=3).conditional_density()
    alone = {
        name: sdr.lscde(formula, frame, model=name, random_state=3).conditional_density()
        for name in AUTO_CANDIDATES
    }
    return auto, alone


def test_auto_keeps_exactly_the_fit_of_its_model_alone():
    # The coarse ranking only decides which candidate gets the full width search: the
    # model kept is the one fitted alone, number for number.
    data, _ = lsce_artificial("a", 160, random_state=5)
    auto, alone = _auto_and_alone(data, "y ~ x1 + x2")
    kept = alone[auto.model]
    assert auto.tuning == kept.tuning
    assert auto.heldout_log_score == kept.heldout_log_score
    np.testing.assert_array_equal(
        auto.pdf(data.iloc[:5], [0.0, 1.0]), kept.pdf(data.iloc[:5], [0.0, 1.0])
    )


@pytest.mark.parametrize("margin", [None, np.inf])
def test_auto_searches_the_widths_fully_only_for_the_candidates_within_the_margin(
    monkeypatch, margin
):
    # By default the candidate far behind on the coarse score (here the separate widths,
    # more than 0.5 nats behind) gets no full width search; with an unbounded margin both get
    # one, and the table then holds each model's own held-out score.
    import sdrstats.density.models as density_models

    full = []
    search = density_models.choose_component_width

    def counted(*args, **kwargs):
        if not kwargs.get("coarse"):
            full.append(args[0])
        return search(*args, **kwargs)

    monkeypatch.setattr(density_models, "choose_component_width", counted)
    data, _ = lsce_artificial("a", 160, random_state=5)
    auto, alone = _auto_and_alone(data, "y ~ x1 + x2", monkeypatch, margin=margin)
    scores = auto.model_choice["held-out log score"]
    assert auto.model == scores.idxmax()
    # the fits alone each searched once; auto once or twice
    assert len(full) - len(AUTO_CANDIDATES) == (1 if margin is None else 2)
    if margin is not None:
        for name in AUTO_CANDIDATES:
            assert scores[name] == alone[name].heldout_log_score


@pytest.mark.parametrize("impossible_at", ["widest", "every width"])
def test_a_width_that_scores_a_row_as_impossible_is_not_kept(monkeypatch, impossible_at):
    # The one-se rule keeps the widest candidate within one standard error of the best. A
    # width whose held-out score is -inf for some row has no finite standard error and must
    # not count as "within" it, even when it is the widest. The held-out scores here are
    # made up so that only the rule is tested: the real scores of a fitted LSCDE are finite
    # for every width (each refit keeps a positive weight on a centre at a training row, and
    # rows whose mixture underflows are summed again in logs).
    import sdrstats.density.models as density_models
    from sdrstats.stats.gaussian import BasisProblem, choose_centres, make_folds

    rng = np.random.default_rng(3)
    n = 60
    Z, Y = rng.standard_normal((n, 1)), rng.standard_normal((n, 1))
    problem = BasisProblem(Z, Y, choose_centres(n, 20, rng), "sce")
    folds = make_folds(n, 5, rng)
    base = rng.normal(-1.0, 0.5, n)
    noise = rng.standard_normal(n)
    noise -= noise.mean()

    def made_up(problem, W, sigma_z, sigma_ys, lam, folds, values, widths, cache=None):
        # the narrowest width (one for all components) scores best; every other candidate
        # 0.01 lower on average with a paired se of about 0.13; the widest is -inf on a row
        out = []
        for sy in sigma_ys:
            row = []
            for j, _ in enumerate(widths):
                best = sy == min(sigma_ys) and j == 0
                lp = base if best else base - 0.01 + noise
                if sy == max(sigma_ys) or impossible_at == "every width":
                    lp = lp.copy()
                    lp[7] = -np.inf
                row.append(lp)
            out.append(row)
        return out

    monkeypatch.setattr(density_models, "heldout_log_density_widths", made_up)
    fit = {"sigma_z": 1.0, "sigma_y": 0.3, "lambda": 0.1}
    score, sy, _, _, table = density_models.choose_component_width(
        problem, folds, fit, density_models.LSCDE_SIGMAS, None, 0.0
    )
    table = table()  # the candidates' table, built when asked for
    impossible = table["held-out log score"] == -np.inf
    assert table.loc[impossible, "se of difference"].isna().all()
    if impossible_at == "every width":  # nothing to compare: the squared loss's width
        assert sy == fit["sigma_y"] and score == -np.inf and impossible.all()
        return
    assert np.isfinite(score)
    assert sy == np.unique(table["sigma_y"])[-2]  # the widest that scores every row
    assert impossible.sum() == 2 and (table.loc[impossible, "kept"] == "").all()
