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

# %% tags=["hide-input"]
# Settings: SDRSTATS_QUICK=1 runs the vignette with few replicates (the tests do).
import os

B = 50 if os.environ.get("SDRSTATS_QUICK") == "1" else 500

# %%
import sdrstats as sdr
from sdrstats.vignettes import show_figure

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
show_figure(boot.plot())

# %% [markdown]
# ## Which predictors matter?
#
# Coordinate tests ask whether the central subspace is unchanged when a predictor is dropped
# (Cook 2004). `drop1` runs the test for each predictor in turn.

# %%
print(fit_sir.coordinate_test("~ . - log(hg)"))
print(fit_sir.drop1())

# %% [markdown]
# ## The summary plot
#
# `fit.plot()` draws what R's `plot.dr` draws: a scatterplot matrix of the response and the
# directions, with a lowess smoother of `lbm` on each direction. With the two directions the
# tests chose, the bottom row shows `lbm` against each of them.

# %%
show_figure(fit_sir.plot(which=[1, 2]))

# %% [markdown]
# Plotting the response against the first reduced predictor is the picture that SDR promises:
# everything the predictors know about `lbm` (to first order) in one scatter plot. The scree
# plot shows the eigenvalues with the p-value of each marginal dimension test.

# %%
show_figure(sdr.sir(formula, ais, nslices=8, d=1).plot("summary"))
show_figure(fit_sir.plot("scree"))
