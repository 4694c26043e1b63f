# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Classic sufficient dimension reduction: lean body mass of athletes
#
# The Australian Institute of Sport measured 202 athletes. We ask which combinations of
# blood measurements and body size carry the information about lean body mass (`lbm`), using
# the example formula of R's `dr` package. Sufficient dimension reduction looks for a few
# linear combinations `B'x` such that `lbm` depends on `x` only through them — without
# assuming a model for that dependence.

# %%
import os
from pathlib import Path

import matplotlib.pyplot as plt

import sdrstats as sdr
from sdrstats.vignettes import show_figure

QUICK = os.environ.get("SDRSTATS_QUICK") == "1"
FIGURES = Path(os.environ.get("SDRSTATS_FIGURES", "figures"))
FIGURES.mkdir(parents=True, exist_ok=True)
B = 50 if QUICK else 500

ais = sdr.datasets.load("ais")
formula = "lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)"
ais.head()

# %% [markdown]
# ## Sliced inverse regression
#
# SIR slices `lbm` into 8 groups and looks at how the mean of the (whitened) predictors moves
# across slices. The summary prints the same blocks as R's `summary.dr`; the numbers agree with
# R `dr` 3.0.11 to many digits.

# %%
fit_sir = sdr.sir(formula, ais, nslices=8)
print(fit_sir.summary())

# %% [markdown]
# The large-sample marginal tests reject 0D and 1D but not 2D: SIR sees two directions.
# The first is dominated by `log(wt)`, which is no surprise — heavier athletes have more lean
# mass. `R^2(OLS|dr)` shows that the OLS fit lies almost entirely in the first direction.

# %% [markdown]
# ## SAVE and pHd
#
# SAVE uses slice variances as well as means, so it can find directions where the spread of
# the predictors changes with the response; pHd looks for curvature in the regression of the
# OLS residuals.

# %%
fit_save = sdr.save(formula, ais, nslices=8)
print(fit_save.test_dimension())
fit_phd = sdr.phd(formula, ais)
print(fit_phd.test_dimension())

# %% [markdown]
# SAVE's general-theory p-values (which do not assume normal predictors) are more
# conservative than its normal-theory ones. pHd's tests on the residuals point to remaining
# curvature beyond the linear trend.

# %% [markdown]
# ## How stable are the directions?
#
# A nonparametric bootstrap refits SIR on resampled data (for moment methods, by reweighting
# the slice statistics) and measures how far each replicate's subspace lies from the
# full-sample one.

# %%
boot = fit_sir.bootstrap(B=B, d=2, random_state=1, progress=False)
print(boot.summary())
boot.plot()
plt.gcf().savefig(FIGURES / "bootstrap_distances.png", dpi=100, bbox_inches="tight")

# %% [markdown]
# ## Which predictors matter?
#
# Coordinate tests ask whether the central subspace is unchanged when a predictor is dropped
# (Cook 2004). `drop1` runs the test for each predictor in turn.

# %%
print(fit_sir.coordinate_test("~ . - log(hg)"))
print(fit_sir.drop1())

# %% [markdown]
# ## The sufficient summary plot
#
# Plotting the response against the first reduced predictor is the picture that SDR promises:
# everything the predictors know about `lbm` (to first order) in one scatter plot.

# %%
ax = sdr.sir(formula, ais, nslices=8, d=1).plot("summary")
ax.figure.savefig(FIGURES / "sufficient_summary_plot.png", dpi=100, bbox_inches="tight")
ax = fit_sir.plot("scree")
ax.figure.savefig(FIGURES / "scree.png", dpi=100, bbox_inches="tight")
show_figure("all")
