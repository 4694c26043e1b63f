"""LSCE's and LSCDE's densities on a heteroscedastic model with a known truth.

y = x1 + (0.2 + |x2|) ε, x ~ N(0, I_4), ε ~ N(0, 1): p(y | x) = N(x1, (0.2 + |x2|)²), so the
true 10-90 % interval is x1 ± 1.2816 (0.2 + |x2|). Both densities are Gaussian mixtures whose
components share one width (σ times the response's sd) and whose weights come from a Gaussian
window of the same σ in z; what that can and cannot do is checked against the truth here.
"""

import numpy as np
import pandas as pd
import pytest

import sdrstats as sdr


def draw(n, seed, p=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = X[:, 0] + (0.2 + np.abs(X[:, 1])) * rng.standard_normal(n)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])
    return frame.assign(y=y)


@pytest.fixture(scope="module")
def fitted():
    train, test = draw(400, 0), draw(2000, 50)
    fit = sdr.lsce("y ~ .", train, d=2, random_state=0, progress=False)
    lscde = sdr.lscde("y ~ x1 + x2", train, random_state=0).conditional_density()
    return test, {"lsce": fit.conditional_density(), "lscde": lscde}


def _coverage(dens, test):
    q = dens.quantile(test, [0.1, 0.9]).to_numpy()
    return (test["y"].to_numpy() > q[:, 0]) & (test["y"].to_numpy() < q[:, 1])


@pytest.mark.parametrize("kind", ["lsce", "lscde"])
def test_intervals_cover_about_80_percent_of_fresh_draws(fitted, kind):
    test, dens = fitted
    covered = _coverage(dens[kind], test)
    # Observed 0.79-0.85 over four training seeds (binomial sd at 2000 draws: 0.009); the
    # rest is smoothing: intervals too wide where the noise is small, too narrow where large.
    assert abs(covered.mean() - 0.80) < 0.06
    mean = dens[kind].mean(test).to_numpy()
    # The true conditional mean is x1: observed median errors 0.11-0.21; a density ignoring
    # x1 would err by about 0.67 (the median |x1|).
    assert np.median(np.abs(mean - test["x1"].to_numpy())) < 0.3


@pytest.mark.xfail(
    strict=True,
    reason="not fixed: one component width for every x over-covers where the "
    "noise sd is 0.2 (about 95 %) and under-covers where it is above 1.7 (45-72 %); a fix "
    "needs components whose width varies with x",
)
@pytest.mark.parametrize("kind", ["lsce", "lscde"])
def test_intervals_are_calibrated_where_the_noise_is_small_and_large(fitted, kind):
    test, dens = fitted
    covered = _coverage(dens[kind], test)
    far = np.abs(test["x2"].to_numpy())
    assert abs(covered[far < 0.5].mean() - 0.80) < 0.08
    assert abs(covered[far > 1.5].mean() - 0.80) < 0.08
