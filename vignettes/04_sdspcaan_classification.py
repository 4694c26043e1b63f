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
# # SDSPCAAN: supervised, sparse PCA with an adaptive neighbour graph
#
# SDSPCAAN (Shi et al. 2020) learns a projection `Q` of the rows of a high-dimensional data matrix
# that at once (i) keeps the variance of `X` like PCA, (ii) follows the class labels
# (a term `α tr(Q'YY'Q)` with `Y` one-hot), (iii) is row-sparse (`β‖Q‖₂,₁`, so some
# samples drop out of the projection) and (iv) keeps neighbours close, through a similarity
# graph `S` that is *learned* alongside `Q` (adaptive neighbours, with exactly one connected
# component per class). It alternates a `Q` step (an eigenproblem) and an `S` step (closed
# form). The weights are multiplied by trace scales that the authors' published code
# recomputes at every iteration, and their loop stops as soon as its objective stops falling;
# `sdr.sdspcaan` follows that loop by default (`iteration="authors"`; its fits equal the
# authors' MATLAB code run under Octave), and `iteration="fixed_weights"` keeps the scales
# of the first iteration, so that one objective is minimised.
#
# A projection method for classification is judged by the classifier it feeds. We follow
# the paper's protocol: random stratified 20/40/40 train / validation / test splits; every
# candidate dimension `k` (and weights `α, β, δ`) is fitted on the training rows; the
# projected features are standardised and a 1-nearest-neighbour classifier is scored by
# balanced classification accuracy (BCA, mean per-class recall) on the validation rows; the
# best candidate's *test* BCA is reported. `sdr.evaluate.classification` runs it.

# %% tags=["hide-input"]
# Settings: SDRSTATS_QUICK=1 (the tests) runs one split of a subsample on small grids.
import os

QUICK = os.environ.get("SDRSTATS_QUICK") == "1"
N_REPEATS = 1 if QUICK else 10
D_GRID = [10, 20] if QUICK else [10, 20, 30, 40, 50, 60]
WEIGHTS = [1.0] if QUICK else [0.01, 0.1, 1.0, 10.0, 100.0]
MAX_ITER = 30 if QUICK else 100
PER_CLASS = 30 if QUICK else None  # images per digit kept when quick

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_digits

import sdrstats as sdr
from sdrstats.plotting import PAGE_WIDTH, PALETTE
from sdrstats.vignettes import show_figure

# %% [markdown]
# ## The data: handwritten digits
#
# scikit-learn's 8x8 digits: 1797 images, 64 pixel intensities, 10 classes (the stand-in for
# the paper's USPS digits). Three border pixels are zero in every image; a constant predictor
# carries no information and cannot be standardised, so we drop them.

# %%
digits = load_digits()
pixels = pd.DataFrame(digits.data, columns=[f"px{j}" for j in range(64)])
pixels = pixels.loc[:, pixels.std() > 0]
data = pixels.assign(digit=pd.Categorical(digits.target.astype(str)))
if PER_CLASS:  # a subsample, for speed only
    data = data.groupby("digit", observed=True).head(PER_CLASS).reset_index(drop=True)
formula = "digit ~ " + " + ".join(pixels.columns)
print(
    f"{len(data)} images, {pixels.shape[1]} non-constant pixels, {data['digit'].nunique()} classes"
)

# %% [markdown]
# ## The BCA protocol
#
# We compare SDSPCAAN with the first `k` standardised pixels (the paper's baseline), PCA and
# SDSPCA (SDSPCAAN without the graph, `δ = 0`). `k` runs over 10..60; the weights over
# `{0.01, 0.1, 1, 10, 100}` times their trace scales. To keep the CPU time modest the weights
# are tuned by *coordinate* search (`k` first with all weights 1, then each weight in turn)
# rather than the paper's full grid; as in the paper, there are 10 random splits.

# %%
results = sdr.evaluate.classification(
    ["baseline", "pca", "sdspca", "sdspcaan"],
    data,
    formula=formula,
    n_repeats=N_REPEATS,
    d_grid=D_GRID,
    weight_grid=WEIGHTS,
    search="coordinate",
    options={"max_iter": MAX_ITER},
    random_state=2021,
    progress=False,
    verbose=False,
)
table = sdr.evaluate.summarise(results)
print(table)
print(results.groupby("method", sort=False)[["d", "alpha", "beta", "delta"]].median())

# %%
fig, ax = plt.subplots(figsize=(PAGE_WIDTH, 3), layout="constrained")
methods = list(table.index)
ax.boxplot([results.loc[results.method == m, "test_bca"] for m in methods])
ax.set_xticks(range(1, len(methods) + 1), methods)
for i, m in enumerate(methods, start=1):
    scores = results.loc[results.method == m, "test_bca"]
    ax.scatter(np.full(len(scores), i), scores, s=12, color=PALETTE[1], zorder=3)
ax.set_ylabel("test BCA (1-NN)")
ax.set_title(f"Digits: test BCA over {N_REPEATS} random splits")
show_figure(fig)

# %% [markdown]
# At the full settings (10 splits) the test BCA was 0.943 ± 0.008 for the baseline (the
# first 50 standardised pixels), 0.923 ± 0.009 for PCA, 0.947 ± 0.009 for SDSPCA and
# 0.941 ± 0.011 for SDSPCAAN (mean ± sd over splits). The supervised label term helps
# against PCA, by more than two points and more than the spread over splits, but SDSPCA only
# ties the raw pixels (0.4 points, half a standard deviation). SDSPCAAN, which adds the
# learned graph to SDSPCA, does *not* improve on it here — it ties the baseline. Its median
# tuned settings were `k = 40` and `α = β = δ = 1`. With the trace scales fixed at the first
# iteration (`iteration="fixed_weights"`, the package's default before it followed the
# authors) the same protocol gave 0.951 ± 0.006 for SDSPCA and 0.943 ± 0.010 for SDSPCAAN:
# the two iterations differ by less than the spread over splits. The paper reports SDSPCAAN
# best on average over its nine image sets; on this one smaller set, tuned by coordinate
# search, that does not reproduce.

# %% [markdown]
# ## Looking inside one fit
#
# We fit SDSPCAAN on the training rows of one split, with `d` the median tuned `k` and the
# weights chosen on those rows alone: `tune="holdout"` fits every combination of the
# paper's grid on four fifths of them and keeps the one whose 1-NN balanced accuracy on the
# remaining fifth is best (`tune="cv"` would rotate the held-out fifth, five times the
# cost). Then we look at the projection of the held-out rows, the learned graph and the
# solver's objective.

# %%
sdsp = results[results.method == "sdspcaan"]
d = int(sdsp["d"].median())
train_rows = data.groupby("digit", observed=True).sample(frac=0.2, random_state=7).index
train, test = data.loc[train_rows], data.drop(index=train_rows)
fit = sdr.sdspcaan(
    formula,
    train,
    d=d,
    tune="holdout",
    weight_grid=WEIGHTS,
    random_state=7,
    progress=False,
    max_iter=MAX_ITER,
)
fit_pca = sdr.pca(formula, train, d=d)
best = fit.tuning.sort_values("bca", ascending=False, kind="stable").head(5)
print(best.to_string(index=False))
print(
    f"chosen {fit.extras['tuning']['chosen']}: {fit.n_iter} iterations, converged: "
    f"{fit.converged}, final lambda = {fit.lam:.4g}"
)
print("objective:", np.round(fit.objective_trace, 2))

# %%
S = fit.similarity.tocoo()
codes = np.asarray(train["digit"].cat.codes)
same = codes[S.row] == codes[S.col]
print(
    f"learned graph: {S.nnz} non-zero weights; share of the weight within a class: "
    f"{S.data[same].sum() / S.data.sum():.3f}"
)

# %%
fig, axes = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.6), layout="constrained")
fit_pca.plot(newdata=test, ax=axes[0], title="PCA: held-out digits", s=6)
fit.plot(newdata=test, ax=axes[1], title="SDSPCAAN: held-out digits", s=6)
for ax in axes:
    ax.legend(fontsize=8, ncol=2, title="digit", markerscale=2, frameon=False)
show_figure(fig)
fig = fit.plot("objective")
fig.axes[0].set_title("SDSPCAAN objective by iteration")
show_figure(fig)

# %% [markdown]
# The five best weight combinations above tie: a fifth of the 360 training images is 72
# held-out images, so the balanced accuracy moves in coarse steps and many combinations
# score the same; `tune` keeps the first in grid order (`tune="cv"` averages five held-out
# fifths and ties less often, at five times the cost).
#
# The learned graph links each training image to a few others of the same digit: the
# `λ‖y_i−y_j‖²` term and the rank constraint (one connected component per class) put all of
# its weight within classes (share 1.000 above; λ had to grow to 1.6e5 at the full
# settings to enforce ten components). SDSPCAAN's first two projected coordinates are
# strongly correlated: the held-out 0s and 4s sit at the two ends of one elongated cloud,
# the 8s and 6s partly apart, whereas PCA's leading plane separates the 4s and 6s; in both
# planes most digits overlap and are told apart by the other projected coordinates. The
# authors' loop stopped after two Q-steps (at the full settings), as soon as its objective
# rose: with the weights rescaled at every iteration the objective is not one function, and
# the authors stop at the first rise. `iteration="fixed_weights"` iterates one objective to
# convergence instead.
#
# ## What to take away
#
# * The protocol, not a single fit, is what compares projection methods for classification:
#   tuned on validation rows, scored on test rows, repeated over splits.
# * On the digits the label term beats PCA by more than the split-to-split spread, but not
#   the raw pixels. The adaptive-neighbour graph of SDSPCAAN learns a clean within-class
#   graph but does not raise the 1-NN test accuracy on this data set.
